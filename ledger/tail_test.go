package ledger

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// Tail follows commits made by another handle (another process's
// connection), from a given seq, in order, and reports how long each took
// from its Append returning to its callback. Rolled-back appends are never
// seen.
func TestTailFollowsCommits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		lat := tailLatencies(t, b, 20, 5*time.Millisecond)
		t.Logf("%s: commit → tail latency p50 %v, max %v over %d events", b.name, lat[len(lat)/2], lat[len(lat)-1], len(lat))
	})
}

// tailLatencies appends n events through one handle, gap apart, while
// another follows them with Tail from seq 2, checks that Tail saw exactly
// those in order (a rolled-back append among them is never seen), and
// returns, sorted, how long each took from its Append returning to Tail's
// callback (0 when the callback came first).
func tailLatencies(t testing.TB, b backend, n int, gap time.Duration) []time.Duration {
	t.Helper()
	writer, loc := b.tempLedger(t)
	if _, err := writer.Append(context.Background(), "s", -1, []NewEvent{{Type: "before", Data: map[string]int{}}}, nil); err != nil {
		t.Fatal(err)
	}
	reader, err := OpenReadOnly(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	seen := map[int64]time.Time{}
	var seqs []int64
	done := make(chan error, 1)
	go func() {
		done <- reader.Tail(ctx, 2, func(e Event) error {
			mu.Lock()
			defer mu.Unlock()
			seen[e.Seq] = time.Now()
			seqs = append(seqs, e.Seq)
			if len(seqs) == n {
				cancel()
			}
			return nil
		})
	}()
	committed := map[int64]time.Time{}
	for i := 0; i < n; i++ {
		if i == 5 { // a rolled-back append is never seen
			_, _ = writer.Append(context.Background(), "s", -1, []NewEvent{{Type: "x", Data: map[string]int{}}},
				func(*sql.Tx, []Event) error { return errors.New("refused") })
		}
		evs, err := writer.Append(context.Background(), "s", -1, []NewEvent{{Type: "t", Data: map[string]int{"i": i}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		committed[evs[0].Seq] = time.Now()
		time.Sleep(gap)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i + 2)
	}
	if !slices.Equal(seqs, want) {
		t.Fatalf("tail saw %v, want %v", seqs, want)
	}
	var lat []time.Duration
	for s, at := range seen {
		lat = append(lat, max(at.Sub(committed[s]), 0))
	}
	slices.Sort(lat)
	return lat
}

// A broken link ends Tail with the seq where it broke.
func TestTailStopsAtBrokenLink(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		src := tamperSource(t, b)
		path, db := tamperCopy(t, src)
		r := readRow(t, db, 6)
		mustExec(t, db, `UPDATE events SET prev_hash = ? WHERE seq = 7`, r.prevHash)
		l, err := OpenReadOnly(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		var last int64
		err = l.Tail(context.Background(), 3, func(e Event) error { last = e.Seq; return nil })
		var be *BrokenLinkError
		if !errors.As(err, &be) || !errors.Is(err, ErrBrokenLink) || be.Seq != 7 || last != 6 {
			t.Fatalf("tail: %v (last printed %d)", err, last)
		}
	})
}
