package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// noBusy fails the test if err mentions SQLite's lock errors: those must be
// absorbed by the ledger, never surface.
func noBusy(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if isBusy(err) || errors.Is(err, ErrBusy) || strings.Contains(msg, "SQLITE_BUSY") ||
		strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_LOCKED") {
		t.Errorf("lock error surfaced: %v", err)
	}
}

// Eight writers race on one stream with expected versions: every append
// either commits at the version it read or gets a typed conflict, and the
// stream ends with contiguous versions.
func TestConcurrentExpectedVersionAppends(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx := context.Background()
		const writers, each, maxRetries = 8, 15, 1000
		var conflicts atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					for attempt := 0; ; attempt++ {
						if attempt == maxRetries {
							errs <- fmt.Errorf("writer %d: %d conflicts in a row", w, maxRetries)
							return
						}
						v, err := l.StreamVersion(ctx, "target-shared")
						if err != nil {
							errs <- err
							return
						}
						_, err = l.Append(ctx, "target-shared", v, []NewEvent{{Type: "annotation_set",
							Data: map[string]int{"writer": w, "i": i}}}, nil)
						if err == nil {
							break
						}
						var ce *ConflictError
						if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || ce.Expected != v || ce.Actual <= v {
							errs <- fmt.Errorf("writer %d: want a typed conflict, got %T %v", w, err, err)
							return
						}
						conflicts.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			noBusy(t, err)
			t.Error(err)
		}
		var versions []int64
		if err := l.Scan(ctx, 1, func(e Event) error { versions = append(versions, e.StreamVersion); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(versions) != writers*each {
			t.Fatalf("%d events, want %d", len(versions), writers*each)
		}
		for i, v := range versions {
			if v != int64(i+1) {
				t.Fatalf("version %d at position %d", v, i)
			}
		}
		if rep, err := l.Verify(ctx); err != nil || !rep.OK {
			t.Fatalf("verify %+v %v", rep, err)
		}
		t.Logf("%d appends, %d typed conflicts", writers*each, conflicts.Load())
	})
}

// Two Ledger handles on one file, as two processes would have: concurrent
// appends through both (and reads), no lock error surfaces, and the result
// is one gapless, verifiable chain.
func TestTwoHandlesAppendConcurrently(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		path := b.fresh(t)
		ctx := context.Background()
		var handles [2]*Ledger
		var wgOpen sync.WaitGroup
		for i := range handles {
			wgOpen.Add(1)
			go func() { // concurrent Open: creation and migration race on the flock
				defer wgOpen.Done()
				l, err := Open(ctx, path, Options{})
				if err != nil {
					t.Error(err)
					return
				}
				handles[i] = l
			}()
		}
		wgOpen.Wait()
		if t.Failed() {
			t.FailNow()
		}
		defer handles[0].Close()
		defer handles[1].Close()
		if handles[0].ID() != handles[1].ID() {
			t.Fatalf("two ledger ids for one file: %s %s", handles[0].ID(), handles[1].ID())
		}
		const perWriter = 25
		var wg sync.WaitGroup
		for h, l := range handles {
			for w := 0; w < 3; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < perWriter; i++ {
						stream := fmt.Sprintf("connection-%d", w) // streams shared across handles
						_, err := l.Append(ctx, stream, -1, []NewEvent{
							{Type: "cursor_moved", Data: map[string]int{"h": h, "w": w, "i": i}},
							{Type: "cursor_moved", Data: map[string]int{"h": h, "w": w, "i": -i}},
						}, nil)
						if err != nil {
							noBusy(t, err)
							t.Error(err)
							return
						}
						if _, _, err := l.Head(ctx); err != nil {
							noBusy(t, err)
							t.Error(err)
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		want := int64(len(handles) * 3 * perWriter * 2)
		for _, l := range handles {
			rep, err := l.Verify(ctx)
			if err != nil || !rep.OK || rep.Head.Seq != want {
				t.Fatalf("verify: %+v %v (want head %d)", rep, err, want)
			}
		}
	})
}
