package ledger

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rea-re/rea/ledger/internal/chain"
)

// TailPollInterval is how often Tail looks at an SQLite ledger's head, and
// how often it looks at a PostgreSQL ledger's head when no notification
// came (a notification lost with a connection is found this way).
const TailPollInterval = 50 * time.Millisecond

// pgTailPoll backs up LISTEN on PostgreSQL.
const pgTailPoll = time.Second

// BrokenLinkError is Tail's report of an event whose chain link does not
// hold: its prev_hash is not the previous event's hash, or its hash is not
// sha256(prev_hash || canonical).
type BrokenLinkError struct {
	Seq    int64
	Detail string
}

func (e *BrokenLinkError) Error() string {
	return fmt.Sprintf("ledger: chain broken at seq %d: %s", e.Seq, e.Detail)
}

// ErrBrokenLink is what errors.Is finds in a *BrokenLinkError.
var ErrBrokenLink = errors.New("ledger: chain broken")

func (e *BrokenLinkError) Is(target error) bool { return target == ErrBrokenLink }

// Tail calls fn for every event with seq >= fromSeq (fromSeq < 1 = 1) in seq
// order as it is committed, until ctx ends (nil is returned then) or fn
// returns an error. Before fn sees an event its link is checked: prev_hash
// equals the previous event's stored hash (genesis for seq 1), the hash
// covers prev_hash and the stored bytes, and no seq is skipped; the first
// failure ends Tail with a *BrokenLinkError.
//
// New commits are found by polling the head (SQLite, every
// TailPollInterval) or by LISTEN on the channel the events trigger notifies
// at COMMIT (PostgreSQL), with a slow poll behind it.
func (l *Ledger) Tail(ctx context.Context, fromSeq int64, fn func(Event) error) (err error) {
	defer l.typeStorage(&err)
	fromSeq = max(fromSeq, 1)
	prev := chain.GenesisHash
	if fromSeq > 1 {
		err := l.r.QueryRowContext(ctx, `SELECT hash FROM events WHERE seq = ?`, fromSeq-1).Scan(&prev)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("ledger: tail: the event before seq %d: %w", fromSeq, err)
		}
	}
	wait, stop, durable, err := l.commitWaiter(ctx)
	if err != nil {
		return err
	}
	defer stop()
	next := fromSeq
	for {
		// On PostgreSQL an append is visible from its commit and durable
		// from its flush a moment later (postgres.go). Printing only what
		// is durable: read the head, flush, then print up to that head,
		// every row of which committed before the flush.
		upTo := int64(-1)
		if durable != nil {
			h, err := durable()
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return fmt.Errorf("ledger: tail: %w", err)
			}
			upTo = h
		}
		err := l.Scan(ctx, next, func(e Event) error {
			if upTo >= 0 && e.Seq > upTo {
				return errTailCaughtUp
			}
			if e.Seq != next {
				return &BrokenLinkError{Seq: next, Detail: fmt.Sprintf("seq %d is missing (the next row is %d)", next, e.Seq)}
			}
			if e.PrevHash != prev {
				return &BrokenLinkError{Seq: e.Seq, Detail: "prev_hash is not the previous event's hash"}
			}
			if chain.Hash(e.PrevHash, e.Canonical) != e.Hash {
				return &BrokenLinkError{Seq: e.Seq, Detail: "hash does not cover prev_hash and the stored bytes"}
			}
			if err := fn(e); err != nil {
				return err
			}
			next, prev = e.Seq+1, e.Hash
			return nil
		})
		if ctx.Err() != nil {
			return nil
		}
		if err != nil && !errors.Is(err, errTailCaughtUp) {
			return err
		}
		wait()
		if ctx.Err() != nil {
			return nil
		}
	}
}

// errTailCaughtUp ends one Scan of Tail at the durable head.
var errTailCaughtUp = errors.New("ledger: tail: caught up")

// commitWaiter returns a function that blocks until something may have been
// committed (or ctx ends), one that releases what it holds, and, on
// PostgreSQL, one that returns the head seq once every event up to it is
// durable.
func (l *Ledger) commitWaiter(ctx context.Context) (wait func(), stop func(), durable func() (int64, error), err error) {
	sleep := func(d time.Duration) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	if l.pg == nil {
		return func() { sleep(TailPollInterval) }, func() {}, nil, nil
	}
	conn, err := pgx.ConnectConfig(ctx, l.pg)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ledger: tail: listen: %w", redact(err, l.pg.Password))
	}
	if _, err := conn.Exec(ctx, `LISTEN rea_ledger`); err != nil {
		conn.Close(context.Background())
		return nil, nil, nil, fmt.Errorf("ledger: tail: listen: %w", redact(err, l.pg.Password))
	}
	var schema string
	_ = conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema)
	wait = func() {
		wctx, cancel := context.WithTimeout(ctx, pgTailPoll)
		defer cancel()
		for {
			n, err := conn.WaitForNotification(wctx)
			if err != nil {
				if wctx.Err() == nil { // the connection failed: fall back to polling
					sleep(pgTailPoll)
				}
				return
			}
			if n.Payload == schema {
				return
			}
		}
	}
	// One round trip: the head, read before the flush, so every event up
	// to it committed before the flush began. A role or server that may not
	// flush this way has writers that commit durably (writeModeFor): what
	// it sees is durable already, and the head alone is read.
	query := `SELECT COALESCE(max(seq), 0) FROM events; ` + pgFlush
	durable = func() (int64, error) {
		rs, err := conn.PgConn().Exec(ctx, query).ReadAll()
		if err != nil && pgNoFlush(err) && len(rs) > 0 && rs[0].Err == nil {
			query, err = `SELECT COALESCE(max(seq), 0) FROM events`, nil
		}
		if err != nil {
			return 0, redact(err, l.pg.Password)
		}
		if len(rs) == 0 || len(rs[0].Rows) != 1 || len(rs[0].Rows[0]) != 1 {
			return 0, errors.New("ledger: tail: no head in the answer")
		}
		return strconv.ParseInt(string(rs[0].Rows[0][0]), 10, 64)
	}
	return wait, func() { conn.Close(context.Background()) }, durable, nil
}
