package builtin

import "context"

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
