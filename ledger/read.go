package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/rea-re/rea/ledger/internal/chain"
)

// eventColumns are what Scan and Rebuild read. Every other field of an
// Event is taken from the canonical envelope itself, the bytes the hash
// covers: one blob instead of eight columns (each column costs three calls
// into SQLite), and what a fold sees is exactly what verification checks.
const eventColumns = `seq, canonical, prev_hash, hash`

// rowColumns are all the stored fields, for verification and raw access.
const rowColumns = `seq, event_id, stream, stream_version, type, schema_version, recorded_at, data, canonical, prev_hash, hash`

type rowScanner interface{ Scan(dest ...any) error }

// eventDecoder turns rows of eventColumns into Events. It remembers the last
// timestamp because the events of one append share it.
type eventDecoder struct {
	lastText string
	lastTime time.Time
	names    map[string]string // interned streams and types: few, repeated
}

func (d *eventDecoder) intern(s string) string {
	if v, ok := d.names[s]; ok {
		return v
	}
	if d.names == nil {
		d.names = make(map[string]string)
	}
	if len(d.names) < 4096 {
		d.names[s] = s
	}
	return s
}

func (d *eventDecoder) scan(rs rowScanner) (Event, error) {
	var e Event
	if err := rs.Scan(&e.Seq, &e.Canonical, &e.PrevHash, &e.Hash); err != nil {
		return Event{}, err
	}
	env, err := chain.ParseEnvelope(e.Canonical)
	if err != nil {
		return Event{}, fmt.Errorf("ledger: seq %d is damaged (%v); run rea ledger verify", e.Seq, err)
	}
	if env.Seq != e.Seq {
		return Event{}, fmt.Errorf("ledger: seq %d holds the envelope of seq %d; run rea ledger verify", e.Seq, env.Seq)
	}
	if e.ID, err = ulid.ParseStrict(env.EventID); err != nil {
		return Event{}, fmt.Errorf("ledger: seq %d: event_id %q: %w", e.Seq, env.EventID, err)
	}
	if env.RecordedAt != d.lastText || d.lastText == "" {
		t, err := ParseTime(env.RecordedAt)
		if err != nil {
			return Event{}, fmt.Errorf("ledger: seq %d: recorded_at: %w", e.Seq, err)
		}
		d.lastText, d.lastTime = env.RecordedAt, t
	}
	e.RecordedAt = d.lastTime
	e.Stream, e.Type = d.intern(env.Stream), d.intern(env.Type)
	e.StreamVersion, e.SchemaVersion = env.StreamVersion, int(env.SchemaVersion)
	e.Data = e.Canonical[env.DataOffset : env.DataOffset+len(env.Data) : env.DataOffset+len(env.Data)]
	return e, nil
}

func scanEvent(rs rowScanner) (Event, error) {
	var d eventDecoder
	return d.scan(rs)
}

// Scan calls fn for every event with seq >= fromSeq, in seq order, streaming
// from one read transaction of the read pool: it sees a consistent snapshot
// and never blocks appends. An error from fn stops the scan and is returned.
func (l *Ledger) Scan(ctx context.Context, fromSeq int64, fn func(Event) error) (err error) {
	defer l.typeStorage(&err)
	rows, err := l.r.QueryContext(ctx, `SELECT `+eventColumns+` FROM events WHERE seq >= ? ORDER BY seq`, fromSeq)
	if err != nil {
		return fmt.Errorf("ledger: scan: %w", err)
	}
	defer rows.Close()
	return scanRows(rows, fn)
}

func scanRows(rows *sql.Rows, fn func(Event) error) error {
	var d eventDecoder
	for rows.Next() {
		e, err := d.scan(rows)
		if err != nil {
			return fmt.Errorf("ledger: scan: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger: scan: %w", err)
	}
	return nil
}

// Head returns the last seq and its hash: (0, GenesisHash()) when empty.
func (l *Ledger) Head(ctx context.Context) (seq int64, hash string, err error) {
	defer l.typeStorage(&err)
	err = l.r.QueryRowContext(ctx, `SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1`).Scan(&seq, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, chain.GenesisHash, nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("ledger: head: %w", err)
	}
	return seq, hash, nil
}

// StreamVersion is the stream's current version (0 when it has no events).
func (l *Ledger) StreamVersion(ctx context.Context, stream string) (_ int64, err error) {
	defer l.typeStorage(&err)
	var v int64
	if err := l.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream = ?`, stream).Scan(&v); err != nil {
		return 0, fmt.Errorf("ledger: stream version: %w", err)
	}
	return v, nil
}

// Stats are facts about the ledger for `rea ledger stats` and `rea doctor`.
type Stats struct {
	LedgerID      string           `json:"ledger_id"`
	Path          string           `json:"path"`
	SchemaVersion int              `json:"schema_version"`
	Head          VerifyHead       `json:"head"`
	Events        int64            `json:"events"`
	Streams       int64            `json:"streams"`
	Blobs         int64            `json:"blobs"`
	BlobBytes     int64            `json:"blob_bytes"` // as stored, after compression
	ByType        map[string]int64 `json:"by_type"`
}

// StatsAt opens the ledger at path read-only and reads its Stats. A
// location where no ledger has been created yet (ErrNoLedger: a fresh
// PostgreSQL database, a missing SQLite file) is an empty ledger: no id,
// schema version 0, the genesis head and no events; nothing is created.
func StatsAt(ctx context.Context, path string) (Stats, error) {
	l, err := OpenReadOnly(ctx, path)
	if errors.Is(err, ErrNoLedger) {
		shown := path
		if IsURL(path) {
			shown = RedactURL(path)
		} else if abs, aerr := filepath.Abs(path); aerr == nil {
			shown = abs
		}
		return Stats{Path: shown, Head: VerifyHead{Hash: chain.GenesisHash}, ByType: map[string]int64{}}, nil
	}
	if err != nil {
		return Stats{}, err
	}
	defer l.Close()
	return l.Stats(ctx)
}

// Stats reads the facts from one snapshot of the read pool.
func (l *Ledger) Stats(ctx context.Context) (_ Stats, err error) {
	defer l.typeStorage(&err)
	s := Stats{LedgerID: l.ID(), Path: l.path, ByType: map[string]int64{}}
	tx, err := l.r.BeginTx(ctx, l.d.readTx)
	if err != nil {
		return s, fmt.Errorf("ledger: stats: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT version FROM schema_migrations LIMIT 1`).Scan(&s.SchemaVersion); err != nil {
		return s, fmt.Errorf("ledger: stats: %w", err)
	}
	s.Head = VerifyHead{Hash: chain.GenesisHash}
	if err := tx.QueryRowContext(ctx, `SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1`).Scan(&s.Head.Seq, &s.Head.Hash); err != nil &&
		!errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("ledger: stats: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT stream) FROM events`).Scan(&s.Events, &s.Streams); err != nil {
		return s, fmt.Errorf("ledger: stats: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(length(data)), 0) FROM blobs`).Scan(&s.Blobs, &s.BlobBytes); err != nil {
		return s, fmt.Errorf("ledger: stats: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT type, COUNT(*) FROM events GROUP BY type ORDER BY type`)
	if err != nil {
		return s, fmt.Errorf("ledger: stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ string
		var n int64
		if err := rows.Scan(&typ, &n); err != nil {
			return s, fmt.Errorf("ledger: stats: %w", err)
		}
		s.ByType[typ] = n
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("ledger: stats: %w", err)
	}
	return s, nil
}
