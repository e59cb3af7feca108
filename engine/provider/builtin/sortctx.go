package builtin

import (
	"context"
	"slices"
)

// sortStop unwinds an abandoned sort; it never leaves sortFuncCtx.
type sortStop struct{}

// sortCheckEvery is how many comparisons a sort makes between cancellation
// checks: about a millisecond of work, so a cancelled index build stops
// promptly while the check costs nothing measurable.
const sortCheckEvery = 1 << 16

// sortFuncCtx is slices.SortFunc that gives up soon after ctx ends. The index
// builds sort millions of entries (libLLVM's 2.5 million reference edges take
// longer than the 200 ms a cancellation may take), and slices.SortFunc has no
// way to stop: the comparison checks ctx every sortCheckEvery calls and
// unwinds with a panic that is recovered here, the way encoding/json unwinds
// its decoder. An abandoned sort leaves s permuted; callers discard it.
func sortFuncCtx[E any](ctx context.Context, s []E, cmp func(a, b E) int) (err error) {
	if len(s) < sortCheckEvery {
		slices.SortFunc(s, cmp)
		return ctx.Err()
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(sortStop); !ok {
				panic(r)
			}
			err = ctx.Err()
		}
	}()
	n := 0
	slices.SortFunc(s, func(a, b E) int {
		if n++; n == sortCheckEvery {
			n = 0
			if ctx.Err() != nil {
				panic(sortStop{})
			}
		}
		return cmp(a, b)
	})
	return ctx.Err()
}
