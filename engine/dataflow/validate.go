package dataflow

import (
	"errors"
	"fmt"

	"github.com/rea-re/rea/engine/lift"
)

// ErrInvalid is returned by Validate for a Func that is not well-formed SSA.
var ErrInvalid = errors.New("dataflow: invalid SSA")

// Validate checks that f is well-formed SSA: every value defined once, in
// one block; phis first, with one argument per predecessor, each defined
// in a block dominating that predecessor; every other argument defined
// earlier in the same block or in a dominating block; control last, with
// the successors it implies; predecessor and successor lists agreeing.
func Validate(f *Func) error {
	if len(f.Blocks) == 0 {
		return fmt.Errorf("%w: no blocks", ErrInvalid)
	}
	computeDominators(f)
	bad := func(b *Block, v *Value, format string, args ...any) error {
		at := fmt.Sprintf("b%d", b.ID)
		if v != nil {
			at += fmt.Sprintf(" v%d (%s)", v.ID, v.format(v.ID, func(a *Value) string {
				if a == nil {
					return "<nil>"
				}
				return fmt.Sprintf("v%d", a.ID)
			}))
		}
		return fmt.Errorf("%w: %s: %s", ErrInvalid, at, fmt.Sprintf(format, args...))
	}
	inBlock := map[*Value]int{} // value → index in its block
	blocks := map[*Block]bool{}
	ids := map[int]bool{}
	for _, b := range f.Blocks {
		blocks[b] = true
		for i, v := range b.Values {
			if _, dup := inBlock[v]; dup || ids[v.ID] {
				return bad(b, v, "defined twice")
			}
			if v.Block != b {
				return bad(b, v, "block field names b%d", v.Block.ID)
			}
			inBlock[v] = i
			ids[v.ID] = true
		}
	}
	for bi, b := range f.Blocks {
		if b.Idom == nil && bi != 0 {
			return bad(b, nil, "unreachable from the entry")
		}
		for _, s := range b.Succs {
			if !blocks[s] || count(s.Preds, b) != count(b.Succs, s) {
				return bad(b, nil, "successor b%d does not list it as predecessor", s.ID)
			}
		}
		for _, p := range b.Preds {
			if !blocks[p] || count(p.Succs, b) != count(b.Preds, p) {
				return bad(b, nil, "predecessor b%d does not list it as successor", p.ID)
			}
		}
		phis := true
		for i, v := range b.Values {
			if v.Kind == Phi {
				if !phis {
					return bad(b, v, "phi after an operation")
				}
				if len(v.Args) != len(b.Preds) {
					return bad(b, v, "%d arguments for %d predecessors", len(v.Args), len(b.Preds))
				}
			} else {
				phis = false
			}
			if v.Kind == OpValue && v.Width != 0 && !lift.ValidWidth(v.Width) {
				return bad(b, v, "width %d", v.Width)
			}
			for k, a := range v.Args {
				if a == nil {
					return bad(b, v, "argument %d missing", k)
				}
				if a.Kind == ConstValue {
					continue
				}
				j, ok := inBlock[a]
				if !ok {
					return bad(b, v, "argument v%d is defined nowhere", a.ID)
				}
				use := b
				if v.Kind == Phi {
					use = b.Preds[k]
					if !dominates(a.Block, use) {
						return bad(b, v, "argument v%d does not dominate predecessor b%d", a.ID, use.ID)
					}
					continue
				}
				if a.Block == b && j >= i || a.Block != b && !dominates(a.Block, b) {
					return bad(b, v, "argument v%d does not dominate its use", a.ID)
				}
			}
			isCtl := v.Kind == OpValue && (v.Op == lift.Jump || v.Op == lift.Branch || v.Op == lift.Return)
			if isCtl && i != len(b.Values)-1 {
				return bad(b, v, "control before the end of the block")
			}
		}
		want := -1 // any number up to 1
		if c := b.Control(); c != nil {
			switch {
			case c.Op == lift.Branch:
				want = 2
			case c.Op == lift.Jump && len(c.Args) == 0:
				want = 1
			case c.Op == lift.Jump && len(c.Args) == 1: // a switch
				if len(b.Succs) == 0 {
					return bad(b, c, "a switch without successors")
				}
				continue
			default:
				want = 0
			}
		}
		if want >= 0 && len(b.Succs) != want || want < 0 && len(b.Succs) > 1 {
			return bad(b, nil, "%d successors for its control", len(b.Succs))
		}
	}
	return nil
}

func count(bs []*Block, x *Block) int {
	n := 0
	for _, b := range bs {
		if b == x {
			n++
		}
	}
	return n
}
