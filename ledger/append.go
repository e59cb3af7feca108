package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/rea-re/rea/ledger/internal/chain"
	"modernc.org/sqlite"
)

// StreamAppend is the part of an AppendMulti for one stream. An entry with
// no events only asserts ExpectedVersion, so a decision can depend on a
// stream it does not write to.
type StreamAppend struct {
	Stream          string
	ExpectedVersion int64
	Events          []NewEvent
}

// maxBusyAttempts bounds the retries of a transaction that found the
// database locked. Each attempt already waited up to busy_timeout (10 s)
// inside SQLite, so exhausting them means another process held the write
// lock for over a minute.
const maxBusyAttempts = 8

// Append appends events to one stream in one BEGIN IMMEDIATE transaction and
// returns them as stored, once they are durable. Appends made concurrently
// may share that transaction and its COMMIT (group.go); each still succeeds
// or fails on its own.
//
// expectedVersion < 0 appends at the stream's next version without a check;
// expectedVersion >= 0 must equal the stream's current version (0 = empty
// stream), otherwise the result is a *ConflictError (errors.Is ErrConflict).
//
// apply runs inside the same transaction after the events are inserted, so
// projections commit with the events or not at all. It may run more than once
// if the transaction is retried after SQLITE_BUSY, or if an append grouped
// before it is cancelled; each run sees a state without its earlier run's
// writes. It may run on another caller's goroutine. It may be nil.
//
// Appends are idempotent by event ID: when the IDs are already stored with
// the same stream, type and data, the stored events are returned and apply is
// not called. If ctx is done before COMMIT, nothing is published.
func (l *Ledger) Append(ctx context.Context, stream string, expectedVersion int64, events []NewEvent,
	apply func(*sql.Tx, []Event) error) ([]Event, error) {
	return l.AppendMulti(ctx, []StreamAppend{{Stream: stream, ExpectedVersion: expectedVersion, Events: events}}, apply)
}

type pendingEvent struct {
	id     ulid.ULID
	idText string
	typ    string
	schema int64
	data   []byte
}

type pendingAppend struct {
	stream   string
	expected int64
	events   []pendingEvent
}

// AppendMulti is Append across several streams in one transaction: every
// version check passes and every event is stored, or nothing is. Events get
// consecutive seqs in the order given.
func (l *Ledger) AppendMulti(ctx context.Context, appends []StreamAppend, apply func(*sql.Tx, []Event) error) ([]Event, error) {
	if l.readOnly {
		return nil, ErrReadOnly
	}
	// Encode and canonicalize before taking the write lock: JSON work must
	// not make other writers wait.
	pending := make([]pendingAppend, len(appends))
	seen := make(map[ulid.ULID]struct{})
	total := 0
	for i, a := range appends {
		if err := validText("stream", a.Stream); err != nil {
			return nil, err
		}
		p := pendingAppend{stream: a.Stream, expected: a.ExpectedVersion, events: make([]pendingEvent, len(a.Events))}
		for j, ne := range a.Events {
			if err := validText("event type", ne.Type); err != nil {
				return nil, err
			}
			id := ne.ID
			if id.IsZero() {
				id = newULID()
			}
			if _, dup := seen[id]; dup {
				return nil, fmt.Errorf("%w: %s appears twice in one append", ErrEventIDReused, id)
			}
			seen[id] = struct{}{}
			data, err := encodeData(ne.Data)
			if err != nil {
				return nil, err
			}
			schema := int64(ne.SchemaVersion)
			if schema == 0 {
				schema = SchemaVersion1
			}
			p.events[j] = pendingEvent{id: id, idText: id.String(), typ: ne.Type, schema: schema, data: data}
		}
		total += len(a.Events)
		pending[i] = p
	}
	if total == 0 {
		return nil, errors.New("ledger: append without events")
	}
	out, err := l.submit(&appendReq{ctx: ctx, pending: pending, total: total, recordedAt: l.now(), apply: apply})
	return out, l.storageFailure(err)
}

// appendState is what appendStateSQL reads for an append's first stream
// and event ID. A writer connection may read it in the round trip that
// begins the transaction (PostgreSQL, pgWriteMode.begin): the BEGIN's
// context carries one naming the stream and event ID, and the driver fills
// in the rest. SQLite's driver ignores it, and appendTx reads the state
// itself.
type appendState struct {
	stream, eventID string // what to read the state for

	seq          int64
	prevHash     string
	firstVersion int64
	stored       bool
	ok           bool // filled under the chain head lock of this transaction
}

type appendStateKey struct{}

func (l *Ledger) appendTx(ctx context.Context, tx *sql.Tx, pre *appendState, pending []pendingAppend, total int, recordedAt time.Time,
	apply func(*sql.Tx, []Event) error) (out []Event, alreadyStored bool, err error) {
	// Idempotency: a batch is stored atomically, so if its first event is
	// stored the whole batch must be, identically. One statement reads that,
	// the head and the first event's stream version: a live append is one
	// transaction per answer, and each statement costs more in the driver
	// than the b-tree seek it runs.
	var first *pendingEvent
	var firstStream string
	for i := range pending {
		if len(pending[i].events) > 0 {
			first, firstStream = &pending[i].events[0], pending[i].stream
			break
		}
	}
	var (
		seq          int64
		prevHash     string
		firstVersion int64
		stored       bool
	)
	if pre != nil && pre.ok && pre.stream == firstStream && pre.eventID == first.idText {
		seq, prevHash, firstVersion, stored = pre.seq, pre.prevHash, pre.firstVersion, pre.stored
	} else if err := tx.StmtContext(ctx, l.stAppendState).QueryRowContext(ctx, firstStream, first.idText).
		Scan(&seq, &prevHash, &firstVersion, &stored); err != nil {
		return nil, false, fmt.Errorf("ledger: append: read state: %w", err)
	}
	if stored {
		out, err := l.storedBatch(ctx, tx.StmtContext(ctx, l.stByID), pending, total)
		return out, true, err
	}
	if seq == 0 {
		prevHash = chain.GenesisHash
	}
	recorded := FormatTime(recordedAt)
	recordedTime, _ := time.Parse(TimeLayout, recorded)
	insert := tx.StmtContext(ctx, l.stInsert)
	versions := make(map[string]int64, len(pending))
	versions[firstStream] = firstVersion
	out = make([]Event, 0, total)
	for _, p := range pending {
		v, ok := versions[p.stream]
		if !ok {
			if err := tx.StmtContext(ctx, l.stStreamVersion).QueryRowContext(ctx, p.stream).Scan(&v); err != nil {
				return nil, false, fmt.Errorf("ledger: append: stream version: %w", err)
			}
		}
		if p.expected >= 0 && p.expected != v {
			return nil, false, &ConflictError{Stream: p.stream, Expected: p.expected, Actual: v}
		}
		for _, pe := range p.events {
			seq++
			v++
			f := chain.Fields{Seq: seq, EventID: pe.idText, Stream: p.stream, StreamVersion: v, Type: pe.typ,
				SchemaVersion: pe.schema, RecordedAt: recorded, Data: pe.data}
			c := chain.AppendCanonical(make([]byte, 0, len(pe.data)+len(p.stream)+len(pe.typ)+160), &f)
			h := chain.Hash(prevHash, c)
			if _, err := insert.ExecContext(ctx, seq, pe.idText, p.stream, v, pe.typ, pe.schema, recorded,
				string(pe.data), c, prevHash, h); err != nil {
				if l.d.eventIDTaken(err) {
					return nil, false, fmt.Errorf("%w: %s", ErrEventIDReused, pe.idText)
				}
				return nil, false, fmt.Errorf("ledger: append: insert: %w", err)
			}
			out = append(out, Event{Seq: seq, StreamVersion: v, ID: pe.id, Stream: p.stream, Type: pe.typ,
				SchemaVersion: int(pe.schema), RecordedAt: recordedTime,
				Data: c[chain.DataStart : chain.DataStart+len(pe.data) : chain.DataStart+len(pe.data)], Canonical: c, PrevHash: prevHash, Hash: h})
			prevHash = h
		}
		versions[p.stream] = v
	}
	if apply != nil {
		if err := apply(tx, out); err != nil {
			return nil, false, err
		}
	}
	return out, false, nil
}

// storedBatch returns the stored events of a repeated append, in seq order,
// after checking that they are the same events.
func (l *Ledger) storedBatch(ctx context.Context, byID *sql.Stmt, pending []pendingAppend, total int) ([]Event, error) {
	out := make([]Event, 0, total)
	for _, p := range pending {
		for _, pe := range p.events {
			e, err := scanEvent(byID.QueryRowContext(ctx, pe.idText))
			if errors.Is(err, sql.ErrNoRows) {
				return nil, fmt.Errorf("%w: batch is only partly stored (%s is not)", ErrEventIDReused, pe.idText)
			}
			if err != nil {
				return nil, fmt.Errorf("ledger: append: %w", err)
			}
			if e.Stream != p.stream || e.Type != pe.typ || !bytes.Equal(e.Data, pe.data) {
				return nil, fmt.Errorf("%w: %s is stored as %s/%s with other data", ErrEventIDReused, pe.idText, e.Stream, e.Type)
			}
			out = append(out, e)
		}
	}
	for i := 1; i < len(out); i++ {
		if out[i].Seq != out[i-1].Seq+1 {
			return nil, fmt.Errorf("%w: events were stored by different appends", ErrEventIDReused)
		}
	}
	return out, nil
}

// writeTx runs fn in a BEGIN IMMEDIATE transaction on the writer
// connection, committing when fn returns (true, nil) and rolling back
// otherwise. ctx is checked immediately before COMMIT, so a cancelled
// request never publishes.
//
// SQLITE_BUSY and SQLITE_LOCKED never reach the caller while retries remain:
// busy_timeout makes SQLite itself wait for another process's write lock, and
// if it still gives up, the whole transaction is retried after a jittered
// backoff. rerunnable=false (Import, whose input is a one-shot stream)
// retries only when BEGIN itself was busy, before fn consumed anything.
func (l *Ledger) writeTx(ctx context.Context, rerunnable bool, fn func(*sql.Tx) (commit bool, err error)) error {
	bo := l.backoff()
	for {
		began, err := l.tryTx(ctx, fn)
		if err == nil || !l.retryable(err) || (began && !rerunnable) {
			return err
		}
		if err := bo.wait(ctx, err); err != nil {
			return err
		}
	}
}

func (l *Ledger) tryTx(ctx context.Context, fn func(*sql.Tx) (bool, error)) (began bool, err error) {
	tx, err := l.beginWrite(ctx)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return false, cerr
		}
		return false, err
	}
	commit, err := fn(tx)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil || !commit {
		rerr := tx.Rollback()
		if cerr := ctx.Err(); cerr != nil {
			return true, cerr
		}
		if err == nil && rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			err = rerr
		}
		return true, err
	}
	if err := tx.Commit(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return true, cerr
		}
		return true, err
	}
	return true, nil
}

// isBusy reports SQLITE_BUSY or SQLITE_LOCKED, including extended codes.
func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			return true
		}
	}
	return false
}
