package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Group commit. A durable COMMIT costs one fsync (synchronous=FULL), which
// on a virtual disk is most of an append's time, and SQLite has one writer
// anyway. So appends that arrive while a commit is in progress wait in a
// queue, and the next goroutine to take the writer commits all of them in
// one transaction: one fsync for the group, every caller answered only
// after the COMMIT that made its own events durable. A lone append finds
// the writer free and commits at once, exactly as without grouping.
//
// Inside a group each append runs under its own SAVEPOINT, so a conflict,
// a failing apply or a cancelled context rolls back that append alone. The
// savepoints stay open until COMMIT: an append cancelled after later ones
// ran is rolled back with everything after it, and those run again, so the
// committed chain is what the surviving appends would have produced alone,
// in queue order. SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE SAVEPOINT
// are standard SQL (PostgreSQL has them too).

// appendReq is one caller's AppendMulti in the queue.
type appendReq struct {
	ctx        context.Context
	pending    []pendingAppend
	total      int
	recordedAt time.Time
	apply      func(*sql.Tx, []Event) error

	taken bool // a committer took it from the queue; guarded by groupCommit.mu

	// Written by the committer before done is closed.
	out   []Event
	err   error
	panic any // apply panicked; re-raised on the caller's goroutine
	done  chan struct{}
}

// groupCommit is the ledger's append queue.
type groupCommit struct {
	mu    sync.Mutex
	queue []*appendReq
	// writer is held (a value in it) by the goroutine committing a group.
	writer chan struct{}
	// commits counts durable COMMITs of appended events; tests read it.
	commits atomic.Int64
}

// submit queues req and returns its result once it is durable or failed.
// The caller either commits a group itself or waits for the goroutine that
// does; a caller whose context ends while it still waits in the queue leaves
// at once.
func (l *Ledger) submit(req *appendReq) ([]Event, error) {
	g := &l.group
	req.done = make(chan struct{})
	g.mu.Lock()
	g.queue = append(g.queue, req)
	g.mu.Unlock()
	select {
	case <-req.done:
	case g.writer <- struct{}{}:
		if isDone(req) { // select chose the writer although req was finished
			<-g.writer
			break
		}
		g.mu.Lock()
		group := g.queue
		g.queue = nil
		for _, r := range group {
			r.taken = true
		}
		g.mu.Unlock()
		// req is in group: a committer that took it would have finished it
		// before releasing the writer.
		l.commitGroup(group)
		<-g.writer
		<-req.done
	case <-req.ctx.Done():
		g.mu.Lock()
		if !req.taken {
			for i, r := range g.queue {
				if r == req {
					g.queue = append(g.queue[:i], g.queue[i+1:]...)
					break
				}
			}
			g.mu.Unlock()
			return nil, req.ctx.Err()
		}
		g.mu.Unlock()
		<-req.done // a committer has it; it checks the context before COMMIT
	}
	if req.panic != nil {
		panic(req.panic)
	}
	return req.out, req.err
}

func (r *appendReq) finish(out []Event, err error) {
	r.out, r.err = out, err
	close(r.done)
}

// commitGroup commits group (in queue order) and finishes every member,
// retrying the whole transaction when SQLite reports the database busy.
func (l *Ledger) commitGroup(group []*appendReq) {
	bo := l.backoff()
	for {
		live := group[:0:0]
		for _, r := range group {
			if err := r.ctx.Err(); err != nil {
				r.finish(nil, err)
			} else {
				live = append(live, r)
			}
		}
		if len(live) == 0 {
			return
		}
		err := l.tryGroup(live)
		if err == nil {
			return
		}
		// Only a busy database (or a transaction lost with a member that
		// failed) leaves members unfinished; wait and run them again.
		group = group[:0]
		for _, r := range live {
			if !isDone(r) {
				group = append(group, r)
			}
		}
		if !l.retryable(err) {
			continue
		}
		ctx := context.Background()
		if len(group) == 1 {
			ctx = group[0].ctx // a lone caller's cancellation ends the wait
		}
		if werr := bo.wait(ctx, err); werr != nil {
			for _, r := range group {
				r.finish(nil, cmpErr(r.ctx.Err(), werr))
			}
			return
		}
	}
}

func isDone(r *appendReq) bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// memberResult is what one member's append produced in this attempt.
type memberResult struct {
	out    []Event
	stored bool  // already stored: nothing to commit
	err    error // nil: its savepoint is open until COMMIT
}

// errTxLost: a member's failure took the whole transaction with it (SQLite
// rolls back everything on some errors), so no savepoint is left.
var errTxLost = errors.New("ledger: group transaction lost")

// tryGroup runs one transaction for live. It finishes every member whose
// outcome is final and returns nil, or returns a busy error (nobody
// finished) or errTxLost (only the member that lost it finished) so the
// rest run again.
func (l *Ledger) tryGroup(live []*appendReq) error {
	// The transaction belongs to no single caller: a caller's cancellation
	// must not roll back the others' appends (database/sql rolls back a
	// transaction whose BeginTx context ends, and an interrupted write makes
	// SQLite roll back the whole transaction), so every caller's context is
	// checked instead, between appends and before COMMIT.
	bg := context.Background()
	// The first member's state may come with the BEGIN (appendState).
	pre := live[0].firstState()
	tx, err := l.beginWrite(context.WithValue(bg, appendStateKey{}, pre))
	if err != nil {
		if l.retryable(err) {
			return err
		}
		for _, r := range live {
			r.finish(nil, err)
		}
		return nil
	}
	res := make([]memberResult, len(live))
	grouped := len(live) > 1
	savepoint := func(verb string, i int) error {
		_, err := tx.ExecContext(bg, verb+" g"+strconv.Itoa(i))
		return err
	}
	run := func(i int) error {
		r := live[i]
		if err := r.ctx.Err(); err != nil {
			res[i] = memberResult{err: err}
			return nil
		}
		if grouped {
			if err := savepoint("SAVEPOINT", i); err != nil {
				return err
			}
		}
		var st *appendState
		if i == 0 {
			st = pre
		}
		out, stored, err := l.appendGuarded(bg, tx, st, r)
		if err == nil {
			res[i] = memberResult{out: out, stored: stored}
			return nil
		}
		if l.retryable(err) {
			return err
		}
		if cerr := r.ctx.Err(); cerr != nil {
			err = cerr
		}
		res[i] = memberResult{err: err}
		if grouped {
			if serr := savepoint("ROLLBACK TO SAVEPOINT", i); serr != nil {
				return fmt.Errorf("%w: %v", errTxLost, serr)
			}
			if serr := savepoint("RELEASE SAVEPOINT", i); serr != nil {
				return fmt.Errorf("%w: %v", errTxLost, serr)
			}
		}
		return nil
	}
	// abort ends the attempt after run failed on member i (-1: on the
	// cancellation rollback). A busy database leaves everyone to run again;
	// a member that lost the transaction keeps its own error and the others
	// run again (as they do after a cancelled member lost it); any other
	// failure is everyone's.
	abort := func(err error, i int) error {
		_ = tx.Rollback()
		switch {
		case l.retryable(err):
		case errors.Is(err, errTxLost) && i >= 0:
			live[i].finish(nil, res[i].err)
		case errors.Is(err, errTxLost):
		default:
			for _, r := range live {
				r.finish(nil, cmpErr(r.ctx.Err(), err))
			}
			return nil
		}
		return err
	}
	from := 0
	for {
		for i := from; i < len(live); i++ {
			if err := run(i); err != nil {
				return abort(err, i)
			}
		}
		// ctx is checked immediately before COMMIT, so a cancelled request
		// never publishes: roll back the first cancelled member's savepoint
		// (and with it every later member), then run the later ones again.
		k := -1
		for i, r := range live {
			if res[i].err == nil && r.ctx.Err() != nil {
				k = i
				break
			}
		}
		if k < 0 {
			break
		}
		if !grouped {
			_ = tx.Rollback()
			live[0].finish(nil, live[0].ctx.Err())
			return nil
		}
		if err := savepoint("ROLLBACK TO SAVEPOINT", k); err != nil {
			return abort(fmt.Errorf("%w: %v", errTxLost, err), -1) // k is cancelled: the rerun drops it
		}
		if err := savepoint("RELEASE SAVEPOINT", k); err != nil {
			return abort(fmt.Errorf("%w: %v", errTxLost, err), -1)
		}
		res[k] = memberResult{err: live[k].ctx.Err()}
		from = k + 1
	}
	// A member that found its events already stored commits too: its first
	// attempt's COMMIT may have been lost before its flush (PostgreSQL,
	// postgres.go), and this COMMIT's flush makes them durable before the
	// answer. With nothing written that costs one WAL flush on PostgreSQL
	// and nothing on SQLite.
	appended, commit := false, false
	for _, m := range res {
		appended = appended || (m.err == nil && !m.stored)
		commit = commit || m.err == nil
	}
	if commit {
		err = tx.Commit()
	} else {
		err = tx.Rollback()
	}
	if commit && l.retryable(err) {
		return err // nobody finished; the whole group runs again
	}
	if !commit && errors.Is(err, sql.ErrTxDone) {
		err = nil
	}
	if appended && err == nil {
		l.group.commits.Add(1)
	}
	for i, r := range live {
		switch {
		case res[i].err != nil:
			r.finish(nil, res[i].err)
		case err != nil:
			r.finish(nil, cmpErr(r.ctx.Err(), err))
		default:
			r.finish(res[i].out, nil)
		}
	}
	return nil
}

// appendGuarded is appendTx for one member, with a panic in its apply
// carried back to its own caller instead of unwinding the committer.
func (l *Ledger) appendGuarded(ctx context.Context, tx *sql.Tx, pre *appendState, r *appendReq) (out []Event, stored bool, err error) {
	r.panic = nil // a re-run decides again
	defer func() {
		if p := recover(); p != nil {
			r.panic = p
			err = fmt.Errorf("ledger: apply panicked: %v", p)
		}
	}()
	return l.appendTx(ctx, tx, pre, r.pending, r.total, r.recordedAt, r.apply)
}

// firstState asks for the state of r's first event (appendState).
func (r *appendReq) firstState() *appendState {
	for _, p := range r.pending {
		if len(p.events) > 0 {
			return &appendState{stream: p.stream, eventID: p.events[0].idText}
		}
	}
	return nil
}

// busyBackoff paces the retries of a transaction that found the database
// locked by another process (SQLite) or lost its connection (PostgreSQL).
type busyBackoff struct {
	attempt int
	d       time.Duration
	max     int   // attempts in all
	final   error // reported when they are used up
}

func (l *Ledger) backoff() busyBackoff {
	return busyBackoff{max: l.d.maxAttempts, final: l.d.exhausted}
}

// wait sleeps before the next attempt after err, or returns the final error
// (ErrBusy, ErrRetry) when the attempts are used up, or ctx's error if it
// ends first.
func (b *busyBackoff) wait(ctx context.Context, err error) error {
	b.attempt++
	if b.attempt >= b.max {
		if errors.Is(err, ErrUnavailable) { // the server, not only a connection, is gone (UnavailableError)
			return fmt.Errorf("%w: %w", b.final, err)
		}
		return fmt.Errorf("%w: %v", b.final, err)
	}
	if b.d == 0 {
		b.d = 5 * time.Millisecond
	}
	sleep := b.d/2 + rand.N(b.d)
	b.d = min(2*b.d, time.Second)
	t := time.NewTimer(sleep)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
