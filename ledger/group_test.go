package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rea-re/rea/ledger/internal/chain"
)

// queued is the number of appends waiting for a group commit.
func queued(l *Ledger) int {
	l.group.mu.Lock()
	defer l.group.mu.Unlock()
	return len(l.group.queue)
}

func waitQueued(t *testing.T, l *Ledger, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for queued(l) != n {
		if time.Now().After(deadline) {
			t.Fatalf("queue has %d appends, want %d", queued(l), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// bufferedProjection is a Flusher: it buffers one row per event and writes
// them on Flush, as the engine's evidence projection does.
type bufferedProjection struct {
	mu   sync.Mutex
	rows []any
}

const bufferedTable = "test_buffered"

func (*bufferedProjection) Name() string     { return "test_buffered" }
func (*bufferedProjection) Tables() []string { return []string{bufferedTable} }
func (p *bufferedProjection) Apply(_ *sql.Tx, e Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rows = append(p.rows, e.Seq, e.Stream)
	return nil
}
func (p *bufferedProjection) Flush(tx *sql.Tx) error {
	p.mu.Lock()
	rows := p.rows
	p.rows = nil
	p.mu.Unlock()
	for i := 0; i < len(rows); i += 2 {
		if _, err := tx.Exec(`INSERT INTO `+bufferedTable+` (seq, stream) VALUES (?, ?)`, rows[i], rows[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// failingProjection refuses events of type "fail".
type failingProjection struct{}

var errFold = errors.New("fold refused the event")

func (failingProjection) Name() string     { return "test_failing" }
func (failingProjection) Tables() []string { return nil }
func (failingProjection) Apply(_ *sql.Tx, e Event) error {
	if e.Type == "fail" {
		return errFold
	}
	return nil
}

func createBufferedTable(t testing.TB, path string) {
	t.Helper()
	db := rawDB(t, path)
	defer db.Close()
	if _, err := db.Exec(testDDL(path, `CREATE TABLE IF NOT EXISTS `+bufferedTable+` (seq INTEGER PRIMARY KEY, stream TEXT NOT NULL) STRICT`)); err != nil {
		t.Fatal(err)
	}
}

// checkChain verifies the ledger and checks that seqs and every stream's
// versions are gapless; it returns the number of events per stream.
func checkChain(t *testing.T, l *Ledger) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	if rep, err := l.Verify(ctx); err != nil || !rep.OK {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	versions := map[string]int64{}
	var seq int64
	if err := l.Scan(ctx, 1, func(e Event) error {
		if seq++; e.Seq != seq {
			return fmt.Errorf("seq %d at position %d", e.Seq, seq)
		}
		if versions[e.Stream]++; e.StreamVersion != versions[e.Stream] {
			return fmt.Errorf("seq %d: %s version %d, want %d", e.Seq, e.Stream, e.StreamVersion, versions[e.Stream])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return versions
}

// checkRebuild compares the live projection digest with a rebuilt one.
func checkRebuild(t *testing.T, l *Ledger, ps []Projection) {
	t.Helper()
	ctx := context.Background()
	live, err := l.ProjectionDigest(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Rebuild(ctx, ps); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := l.ProjectionDigest(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt != live {
		t.Fatalf("rebuild digest %s != live %s: a projection row was applied twice, lost or left from a rolled-back append", rebuilt, live)
	}
}

// Many goroutines append at once, to one shared stream and to their own
// streams with expected versions: every append commits, the chain verifies,
// seqs and versions are gapless, projections match a rebuild, and the
// appends shared commits.
func TestGroupCommitConcurrentAppends(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, path := b.tempLedger(t)
		createCountsTable(t, path)
		ctx := context.Background()
		ps := []Projection{countsProjection{}}

		// A lone append commits on its own: one COMMIT each.
		for i := range 3 {
			if _, err := l.Append(ctx, "lone", int64(i), []NewEvent{{Type: "t", Data: payload{N: i}}}, Fold(ps...)); err != nil {
				t.Fatal(err)
			}
		}
		if c := l.group.commits.Load(); c != 3 {
			t.Fatalf("%d commits for 3 sequential appends", c)
		}

		const writers, each = 16, 12
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				own := fmt.Sprintf("own-%d", w)
				var ownVersion int64
				for i := range each {
					stream, expected := "shared", int64(-1)
					if i%2 == 1 {
						stream, expected = own, ownVersion
					}
					body := fmt.Appendf(nil, "body %d/%d", w, i)
					evs := []NewEvent{{Type: "t", Data: payload{N: w*100 + i, Note: string(body)}}}
					if i%3 == 0 { // some appends carry two events
						evs = append(evs, NewEvent{Type: "u", Data: payload{N: 1}})
					}
					stored, err := l.Append(ctx, stream, expected, evs, func(tx *sql.Tx, evs []Event) error {
						if _, err := l.PutBlob(tx, body); err != nil {
							return err
						}
						return Fold(ps...)(tx, evs)
					})
					if err != nil {
						errs <- fmt.Errorf("writer %d append %d: %w", w, i, err)
						return
					}
					for j := 1; j < len(stored); j++ {
						if stored[j].Seq != stored[j-1].Seq+1 {
							errs <- fmt.Errorf("writer %d append %d: seqs %d, %d", w, i, stored[j-1].Seq, stored[j].Seq)
						}
					}
					if stream == own {
						ownVersion = stored[len(stored)-1].StreamVersion
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			t.FailNow()
		}
		versions := checkChain(t, l)
		wantOwn := int64(0)
		wantShared := int64(0)
		for i := range each {
			n := int64(1)
			if i%3 == 0 {
				n = 2
			}
			if i%2 == 1 {
				wantOwn += n
			} else {
				wantShared += n
			}
		}
		if versions["shared"] != writers*wantShared {
			t.Errorf("shared stream at version %d, want %d", versions["shared"], writers*wantShared)
		}
		for w := range writers {
			if v := versions[fmt.Sprintf("own-%d", w)]; v != wantOwn {
				t.Errorf("own-%d at version %d, want %d", w, v, wantOwn)
			}
		}
		for _, b := range []string{"body 0/0", fmt.Sprintf("body %d/%d", writers-1, each-1)} {
			if _, err := l.Blob(ctx, chain.SHA256Hex([]byte(b))); err != nil {
				t.Errorf("blob %q: %v", b, err)
			}
		}
		checkRebuild(t, l, ps)
		appends := int64(3 + writers*each)
		commits := l.group.commits.Load()
		if commits > appends {
			t.Errorf("%d commits for %d appends", commits, appends)
		}
		t.Logf("%d appends in %d commits", appends, commits)
	})
}

// While one append holds the writer, others queue; they then commit as one
// group with one COMMIT, and each member's failure stays its own: a version
// conflict, a cancellation before COMMIT (which also re-runs the members
// after it, here turning one into a conflict), a failing projection, a
// panicking apply, and a caller that gives up while still queued.
func TestGroupCommitMembersFailAlone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, path := b.tempLedger(t)
		createCountsTable(t, path)
		createBufferedTable(t, path)
		buffered := &bufferedProjection{}
		ps := []Projection{buffered, countsProjection{}, failingProjection{}}
		fold := Fold(ps...)
		ctx := context.Background()

		entered, release := make(chan struct{}), make(chan struct{})
		gateDone := make(chan error, 1)
		go func() {
			_, err := l.Append(ctx, "gate", 0, []NewEvent{{Type: "t", Data: payload{}}}, func(tx *sql.Tx, evs []Event) error {
				close(entered)
				<-release
				return fold(tx, evs)
			})
			gateDone <- err
		}()
		<-entered
		commitsBefore := l.group.commits.Load()

		type result struct {
			evs      []Event
			err      error
			panicked any
		}
		type member struct {
			name     string
			ctx      context.Context
			stream   string
			expected int64
			typ      string
			apply    func(*sql.Tx, []Event) error
			res      chan result
		}
		var members []*member
		enqueue := func(m *member) {
			if m.ctx == nil {
				m.ctx = ctx
			}
			if m.typ == "" {
				m.typ = "t"
			}
			if m.apply == nil {
				m.apply = fold
			}
			m.res = make(chan result, 1)
			n := queued(l)
			go func() {
				var r result
				defer func() {
					r.panicked = recover()
					m.res <- r
				}()
				r.evs, r.err = l.Append(m.ctx, m.stream, m.expected, []NewEvent{{Type: m.typ, Data: payload{N: 1}},
					{Type: m.typ, Data: payload{N: 2}}}, m.apply)
			}()
			waitQueued(t, l, n+1) // queue order is the order of this list
			members = append(members, m)
		}
		cancelCtx, cancel := context.WithCancel(ctx)
		ok1 := &member{name: "ok1", stream: "s1", expected: 0}
		conflict := &member{name: "conflict", stream: "s1", expected: 0}
		cancelled := &member{name: "cancelled", ctx: cancelCtx, stream: "s2", expected: 0,
			apply: func(tx *sql.Tx, evs []Event) error { cancel(); return fold(tx, evs) }}
		rerunConflict := &member{name: "rerun-conflict", stream: "s2", expected: 2}
		failing := &member{name: "failing", stream: "s3", expected: -1, typ: "fail"}
		ok2 := &member{name: "ok2", stream: "s4", expected: -1}
		panicking := &member{name: "panicking", stream: "s5", expected: -1,
			apply: func(*sql.Tx, []Event) error { panic("apply exploded") }}
		for _, m := range []*member{ok1, conflict, cancelled, rerunConflict, failing, ok2} {
			enqueue(m)
		}
		// A caller that gives up while queued leaves at once, writer or not.
		leaveCtx, leave := context.WithCancel(ctx)
		leaver := &member{name: "leaver", ctx: leaveCtx, stream: "s6", expected: -1}
		enqueue(leaver)
		leave()
		select {
		case r := <-leaver.res:
			if !errors.Is(r.err, context.Canceled) {
				t.Fatalf("leaver: %v", r.err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a cancelled caller stayed in the queue")
		}
		waitQueued(t, l, 6)
		members = members[:len(members)-1]
		enqueue(panicking)
		ok3 := &member{name: "ok3", stream: "s4", expected: 2}
		enqueue(ok3)

		close(release)
		if err := <-gateDone; err != nil {
			t.Fatal(err)
		}
		got := map[string]result{}
		for _, m := range members {
			got[m.name] = <-m.res
		}
		if c := l.group.commits.Load() - commitsBefore; c != 2 {
			t.Errorf("the gate and the %d appends queued behind it took %d commits, want 2", len(members), c)
		}
		for _, name := range []string{"ok1", "ok2", "ok3"} {
			if r := got[name]; r.err != nil || r.panicked != nil || len(r.evs) != 2 {
				t.Errorf("%s: %v %v", name, r.err, r.panicked)
			}
		}
		// The survivors took consecutive seqs in queue order, after the gate.
		if got["ok1"].err == nil && got["ok2"].err == nil && got["ok3"].err == nil {
			seqs := []int64{got["ok1"].evs[0].Seq, got["ok2"].evs[0].Seq, got["ok3"].evs[0].Seq}
			if seqs[0] != 2 || seqs[1] != 4 || seqs[2] != 6 {
				t.Errorf("first seqs of ok1, ok2, ok3: %v, want [2 4 6]", seqs)
			}
			if v := got["ok3"].evs[1].StreamVersion; v != 4 {
				t.Errorf("ok3 ends s4 at version %d, want 4", v)
			}
		}
		var ce *ConflictError
		if r := got["conflict"]; !errors.As(r.err, &ce) || ce.Expected != 0 || ce.Actual != 2 {
			t.Errorf("conflict: %v", r.err)
		}
		if r := got["cancelled"]; !errors.Is(r.err, context.Canceled) || r.evs != nil {
			t.Errorf("cancelled: %d events, %v", len(r.evs), r.err)
		}
		// It conflicted with nothing that was committed: s2 is empty again.
		if r := got["rerun-conflict"]; !errors.As(r.err, &ce) || ce.Stream != "s2" || ce.Expected != 2 || ce.Actual != 0 {
			t.Errorf("rerun-conflict: %v", r.err)
		}
		if r := got["failing"]; !errors.Is(r.err, errFold) {
			t.Errorf("failing: %v", r.err)
		}
		if r := got["panicking"]; r.panicked != "apply exploded" {
			t.Errorf("panicking: %v %v", r.err, r.panicked)
		}
		versions := checkChain(t, l)
		want := map[string]int64{"gate": 1, "s1": 2, "s4": 4}
		if fmt.Sprint(versions) != fmt.Sprint(want) {
			t.Errorf("streams %v, want %v", versions, want)
		}
		var rows int
		if err := l.ReadDB().QueryRow(`SELECT COUNT(*) FROM ` + bufferedTable).Scan(&rows); err != nil || rows != 7 {
			t.Errorf("%d buffered rows (%v), want 7, one per event", rows, err)
		}
		checkRebuild(t, l, ps)
	})
}
