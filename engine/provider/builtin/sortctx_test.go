package builtin

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortFuncCtx is the guarded sort as the index builds write it.
func sortFuncCtx[E any](ctx context.Context, s []E, cmp func(a, b E) int) error {
	g := sortGuard{ctx: ctx}
	return g.run(func() {
		slices.SortFunc(s, func(a, b E) int {
			g.tick()
			return cmp(a, b)
		})
	})
}

func TestSortFuncCtx(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 1000, sortCheckEvery, 3*sortCheckEvery + 7} {
		s := make([]uint64, n)
		for i := range s {
			s[i] = r.Uint64N(uint64(n/2 + 1)) // duplicates too
		}
		want := slices.Clone(s)
		slices.Sort(want)
		if err := sortFuncCtx(context.Background(), s, cmp.Compare[uint64]); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !slices.Equal(s, want) {
			t.Fatalf("n=%d: not sorted", n)
		}
	}
}

// A cancelled sort stops within one check interval of comparisons and
// reports the context's error.
func TestSortFuncCtxCancelled(t *testing.T) {
	s := make([]uint64, 1<<20)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range s {
		s[i] = r.Uint64()
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := sortFuncCtx(ctx, s, func(a, b uint64) int {
		if calls++; calls == 1000 {
			cancel()
		}
		return cmp.Compare(a, b)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if calls > 1000+sortCheckEvery {
		t.Fatalf("%d comparisons after the cancel; the check interval is %d", calls-1000, sortCheckEvery)
	}
	// The same for a short slice: sorted, then the error.
	if err := sortFuncCtx(ctx, []int{2, 1}, cmp.Compare[int]); !errors.Is(err, context.Canceled) {
		t.Fatalf("short slice: %v", err)
	}
}

// A panic of the comparison itself is not swallowed.
func TestSortFuncCtxPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the comparison's panic", r)
		}
	}()
	s := make([]int, 2*sortCheckEvery)
	sortFuncCtx(context.Background(), s, func(a, b int) int { panic("boom") })
	t.Fatal("no panic")
}

// BenchmarkSortEdges measures what the cancellation checks cost a sort the
// size of libLLVM-14's call edges: plain is slices.SortFunc, guarded is the
// same comparison calling sortGuard.tick.
func BenchmarkSortEdges(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	src := make([]edge, 700_000)
	for i := range src {
		src[i] = edge{to: r.Uint64N(1 << 24), from: uint64(i) * 5}
	}
	byTo := func(a, b edge) int {
		if c := cmp.Compare(a.to, b.to); c != 0 {
			return c
		}
		return cmp.Compare(a.from, b.from)
	}
	es := make([]edge, len(src))
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			copy(es, src)
			slices.SortFunc(es, byTo)
		}
	})
	b.Run("guarded", func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			copy(es, src)
			g := sortGuard{ctx: ctx}
			err := g.run(func() {
				slices.SortFunc(es, func(a, b edge) int {
					g.tick()
					if c := cmp.Compare(a.to, b.to); c != 0 {
						return c
					}
					return cmp.Compare(a.from, b.from)
				})
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestAppendChecked(t *testing.T) {
	piece := copyPiece / 16 // strEntry is 16 bytes
	for _, n := range []int{0, 1, piece - 1, piece, 3*piece + 7} {
		src := make([]strEntry, n)
		for i := range src {
			src[i] = strEntry{off: uint64(i), n: uint32(i % 97)}
		}
		head := []strEntry{{off: 42}}
		dst := append(make([]strEntry, 0, 1+n), head...)
		got, err := appendChecked(context.Background(), dst, src)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !slices.Equal(got, append(head, src...)) {
			t.Fatalf("n=%d: wrong contents", n)
		}
		if n > 0 && &got[0] != &dst[:1][0] {
			t.Fatalf("n=%d: reallocated although dst had room", n)
		}
	}
}

// errAfter is a context whose Err reports Canceled from its k-th call on.
type errAfter struct {
	context.Context
	k, calls int
}

func (c *errAfter) Err() error {
	if c.calls++; c.calls >= c.k {
		return context.Canceled
	}
	return nil
}

// A cancelled copy stops at the next piece and reports the context's error.
func TestAppendCheckedCancelled(t *testing.T) {
	piece := copyPiece / 16
	src := make([]strEntry, 10*piece)
	for _, k := range []int{1, 2, 4} {
		ctx := &errAfter{Context: context.Background(), k: k}
		got, err := appendChecked(ctx, make([]strEntry, 0, len(src)), src)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("k=%d: got %v, want context.Canceled", k, err)
		}
		if want := (k - 1) * piece; len(got) != want {
			t.Fatalf("k=%d: copied %d entries after the cancel was visible, want %d", k, len(got), want)
		}
	}
}
