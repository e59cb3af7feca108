package ledger

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/rea-re/rea/ledger/internal/chain"
)

// ErrRangedImport: Import of an export that does not start at seq 1.
var ErrRangedImport = errors.New("ledger: import needs a complete export (first_seq 1)")

// Export writes events fromSeq..toSeq (toSeq 0 = head; fromSeq < 1 = 1) as
// JSON Lines: the manifest, one line per event with its stored canonical
// bytes and hashes, then the blobs those events reference (record bodies,
// comparison results and checkpoint states), by sha256. Every
// line is itself RFC 8785 canonical. The whole export is read from one
// snapshot, so appends during the export do not change it.
func (l *Ledger) Export(ctx context.Context, w io.Writer, fromSeq, toSeq int64, toolVersion string) (_ ExportManifest, err error) {
	defer l.typeStorage(&err)
	w = callerWriter{w} // a full disk under the export file is not the ledger's
	tx, err := l.r.BeginTx(ctx, l.d.readTx)
	if err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	defer tx.Rollback()

	var head int64
	if err := tx.QueryRowContext(ctx, `SELECT seq FROM events ORDER BY seq DESC LIMIT 1`).Scan(&head); err != nil &&
		!errors.Is(err, sql.ErrNoRows) {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	if fromSeq < 1 {
		fromSeq = 1
	}
	if toSeq <= 0 {
		toSeq = head
	}
	if toSeq > head {
		return ExportManifest{}, fmt.Errorf("ledger: export: --to %d is beyond the head (seq %d)", toSeq, head)
	}
	if fromSeq > toSeq+1 {
		return ExportManifest{}, fmt.Errorf("ledger: export: --from %d is beyond --to %d", fromSeq, toSeq)
	}
	m := ExportManifest{
		Kind: "manifest", Format: ExportFormat, FormatVersion: ExportFormatVersion, LedgerID: l.ID(),
		HashAlgorithm: "sha256", Canonicalization: "RFC8785", FirstSeq: fromSeq, LastSeq: fromSeq - 1,
		PrevHash: chain.GenesisHash, ToolVersion: toolVersion, ExportedAt: FormatTime(l.now()),
	}
	if err := tx.QueryRowContext(ctx, `SELECT version FROM schema_migrations LIMIT 1`).Scan(&m.SchemaVersion); err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: schema version: %w", err)
	}
	if fromSeq > 1 {
		err := tx.QueryRowContext(ctx, `SELECT hash FROM events WHERE seq = ?`, fromSeq-1).Scan(&m.PrevHash)
		if errors.Is(err, sql.ErrNoRows) {
			// A damaged ledger lacks the predecessor; take the first row's
			// own claim so that verify reports the damage where it is.
			err = tx.QueryRowContext(ctx, `SELECT prev_hash FROM events WHERE seq >= ? ORDER BY seq LIMIT 1`, fromSeq).Scan(&m.PrevHash)
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
	}
	m.HeadHash = m.PrevHash

	// Pass 1: the figures the manifest needs up front, and the blob digests.
	rows, err := tx.QueryContext(ctx, `SELECT seq, hash, data FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq`, fromSeq, toSeq)
	if err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	digests := map[string]bool{}
	for rows.Next() {
		var seq int64
		var h string
		var data sql.RawBytes
		if err := rows.Scan(&seq, &h, &data); err != nil {
			rows.Close()
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
		if m.Count == 0 {
			m.FirstSeq = seq
		}
		m.Count++
		m.LastSeq, m.HeadHash = seq, h
		for _, d := range chain.DataDigests(data) {
			digests[d] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	var blobs []string
	for _, d := range slices.Sorted(maps.Keys(digests)) {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM blobs WHERE sha256 = ?`, d).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			continue // verify will name the event whose body is missing
		}
		if err != nil {
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
		blobs = append(blobs, d)
	}
	m.BlobCount = int64(len(blobs))

	bw := bufio.NewWriterSize(w, 256<<10)
	line, err := chain.ManifestLine(&m)
	if err != nil {
		return ExportManifest{}, err
	}
	bw.Write(line)

	// Pass 2: the events, exactly as stored.
	rows, err = tx.QueryContext(ctx, `SELECT seq, hash, prev_hash, canonical FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq`, fromSeq, toSeq)
	if err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	var buf []byte
	for n := 0; rows.Next(); n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return ExportManifest{}, err
			}
		}
		var seq int64
		var h, p string
		var c sql.RawBytes
		if err := rows.Scan(&seq, &h, &p, &c); err != nil {
			rows.Close()
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
		buf = chain.AppendEventLine(buf[:0], seq, h, p, c)
		if _, err := bw.Write(buf); err != nil {
			rows.Close()
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}

	for _, d := range blobs {
		stored, encoding, err := storedBlob(ctx, tx, d)
		if err != nil {
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
		data, err := decodeBlob(stored, encoding)
		if err != nil {
			// Carry a body that no longer decodes as it is stored: the
			// export's verification then names it, as it names any other
			// damaged body, instead of the export hiding it.
			data = stored
		}
		buf = append(buf[:0], `{"data_base64":"`...)
		buf = base64.StdEncoding.AppendEncode(buf, data)
		buf = append(buf, `","kind":"blob","sha256":`...)
		buf = chain.AppendJCSString(buf, d)
		buf = append(buf, "}\n"...)
		if _, err := bw.Write(buf); err != nil {
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	return m, nil
}

// VerifyExport checks an export file offline: (1)-(4) for every event line,
// (5) the manifest against the lines and every blob against its digest, with
// every referenced record_digest present, and, when previous is not nil, (6)
// that this export extends the previous one (same ledger_id, and the event at
// the previous last_seq has its head_hash), which is how a truncated tail is
// found. Problems go in the report; the error is only for failing to read.
func VerifyExport(ctx context.Context, r io.Reader, previous io.Reader) (VerifyReport, error) {
	rep, _, err := chain.VerifyExport(ctx, r, previous, nil)
	return rep, err
}

// Import loads a complete export into this ledger, which must have no
// events: it verifies the export while inserting its rows verbatim (same
// seq, event_id, stored bytes and hashes) and its blobs in one transaction,
// adopts the export's ledger_id, and folds ps from the imported events. If
// verification finds any problem nothing is kept and the error is a
// *VerifyError (errors.Is ErrVerifyFailed) carrying the report.
func (l *Ledger) Import(ctx context.Context, r io.Reader, ps []Projection) (_ ExportManifest, err error) {
	defer l.typeStorage(&err)
	r = callerReader{r} // an I/O error reading the export is not the ledger's
	if l.readOnly {
		return ExportManifest{}, ErrReadOnly
	}
	var man ExportManifest
	err = l.writeTx(ctx, false, func(tx *sql.Tx) (bool, error) {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM events)`).Scan(&exists); err != nil {
			return false, fmt.Errorf("ledger: import: %w", err)
		}
		if exists {
			return false, ErrNotEmpty
		}
		insert := tx.StmtContext(ctx, l.stInsert)
		hooks := &chain.Hooks{
			Manifest: func(m *ExportManifest) error {
				if m.FirstSeq > 1 {
					return fmt.Errorf("%w: this export starts at seq %d", ErrRangedImport, m.FirstSeq)
				}
				return nil
			},
			Event: func(seq int64, hash, prevHash string, c []byte, env *chain.Envelope) error {
				_, err := insert.ExecContext(ctx, seq, env.EventID, env.Stream, env.StreamVersion, env.Type,
					env.SchemaVersion, env.RecordedAt, string(env.Data), c, prevHash, hash)
				if err != nil {
					return fmt.Errorf("ledger: import: seq %d: %w", seq, err)
				}
				return nil
			},
			Blob: func(sha string, data []byte) error {
				if err := l.putBlob(ctx, tx, sha, data); err != nil {
					return fmt.Errorf("ledger: import: blob %s: %w", sha, err)
				}
				return nil
			},
		}
		rep, m, err := chain.VerifyExport(ctx, r, nil, hooks)
		if err != nil {
			return false, err
		}
		if !rep.OK {
			return false, &VerifyError{Report: rep}
		}
		man = *m
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_meta SET value = ? WHERE key = 'ledger_id'`, m.LedgerID); err != nil {
			return false, fmt.Errorf("ledger: import: %w", err)
		}
		if err := rebuildTx(ctx, tx, l.d, ps, eventsIn(tx)); err != nil {
			return false, err
		}
		return true, nil
	})
	if err != nil {
		return ExportManifest{}, err
	}
	l.mu.Lock()
	l.id = man.LedgerID
	l.mu.Unlock()
	return man, nil
}
