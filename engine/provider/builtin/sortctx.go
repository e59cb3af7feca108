package builtin

import (
	"context"
	"unsafe"
)

// copyPiece is how many bytes appendChecked copies between cancellation
// checks: at most a few milliseconds even where each page is touched for the
// first time (see appendChecked).
const copyPiece = 256 << 10

// sortCheckEvery is how many comparisons a sort makes between cancellation
// checks: well under a millisecond of work, so a cancelled index build stops
// promptly while the check costs nothing measurable.
const sortCheckEvery = 1 << 16

// sortGuard stops a slices.SortFunc soon after ctx ends. The index builds
// sort millions of entries (libLLVM-14's 2.5 million reference edges take
// longer than the 200 ms a cancellation may take), and slices.SortFunc cannot
// be stopped from outside. So the comparison itself calls tick, which checks
// ctx every sortCheckEvery calls and unwinds with a panic that run recovers,
// the way encoding/json unwinds its decoder. The comparison calls tick inline
// rather than through a wrapper: a second indirect call per comparison costs
// about a fifth of the sort.
type sortGuard struct {
	ctx context.Context
	n   int
}

// sortStop unwinds an abandoned sort; it never leaves sortGuard.run.
type sortStop struct{}

func (g *sortGuard) tick() {
	if g.n++; g.n == sortCheckEvery {
		g.n = 0
		if g.ctx.Err() != nil {
			panic(sortStop{})
		}
	}
}

// run calls sort, whose comparisons call g.tick, and returns ctx's error if
// ctx has ended. An abandoned sort leaves its slice permuted; callers
// discard it.
func (g *sortGuard) run(sort func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(sortStop); !ok {
				panic(r)
			}
			err = g.ctx.Err()
		}
	}()
	sort()
	return g.ctx.Err()
}

// appendChecked appends src to dst about copyPiece bytes at a time and
// returns ctx's error if ctx ends first; dst should have room for src. An
// index build's large copies land in memory fresh from the operating system,
// whose first touch costs up to about 50 µs a page on the two-core virtual
// machine REA is measured on: one append of libLLVM-14's million string
// entries (15 MB) took 200–300 ms. An append is a single runtime memmove
// (and slices.Grow a memclr as well), which cannot be preempted, so a
// garbage collection starting meanwhile waited for it to stop the world, and
// every goroutine of the process waited too, the one reading
// notifications/cancelled included. Between pieces the call to ctx.Err is a
// preemption point as well as a cancellation check.
func appendChecked[E any](ctx context.Context, dst, src []E) ([]E, error) {
	var zero E
	piece := max(1, copyPiece/max(1, int(unsafe.Sizeof(zero))))
	for len(src) > 0 {
		if err := ctx.Err(); err != nil {
			return dst, err
		}
		n := min(len(src), piece)
		dst = append(dst, src[:n]...)
		src = src[n:]
	}
	return dst, nil
}
