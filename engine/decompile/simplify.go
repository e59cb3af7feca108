package decompile

import (
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/lift"
)

// simplify rewrites reads of a register's low part that the SSA form
// keeps through the register's whole width: the low lane of a vector
// register just written with a scalar is that scalar, and a field
// written over another field it covers replaces it. Without this, an xmm
// register's previous contents stay read (for bits no one looks at), and
// the scalar computed into it becomes a variable instead of part of the
// expression that uses it. A signed division by a power of two that the
// compiler wrote as shifts ((x + (x >>> 31)) >> 1) is the division
// again. Each rewrite keeps the value exactly.
func simplify(f *dataflow.Func) {
	for changed, round := true, 0; changed && round < 4; round++ {
		changed = false
		for _, b := range f.Blocks {
			for _, v := range b.Values {
				if v.Kind != dataflow.OpValue || v.Lane != 0 || len(v.Args) == 0 {
					continue
				}
				if x, k, ok := signedHalving(v); ok {
					v.Op, v.Aux, v.Args = lift.SDiv, 0, []*value{x, f.Const(v.Width, 1<<k, 0)}
					changed = true
					continue
				}
				a := v.Args[0]
				if a.Kind != dataflow.OpValue || a.Lane != 0 {
					continue
				}
				switch {
				case v.Op == lift.Trunc || v.Op == lift.Extract && v.Aux == 0:
					var y *value
					switch {
					case a.Op == lift.Insert && a.Aux == 0 && a.Args[1].Width >= v.Width:
						y = a.Args[1] // the low lane just written
					case a.Op == lift.ZExt && a.Args[0].Width >= v.Width:
						y = a.Args[0]
					default:
						continue
					}
					v.Op, v.Aux, v.Args = lift.Trunc, 0, []*value{y}
					if y.Width == v.Width {
						v.Op = lift.Copy
					}
					changed = true
				case v.Op == lift.Insert && a.Op == lift.Insert:
					// a field written over the whole of an earlier one
					lo1, hi1 := int64(a.Aux), int64(a.Aux)+int64(a.Args[1].Width)
					lo2, hi2 := int64(v.Aux), int64(v.Aux)+int64(v.Args[1].Width)
					if lo2 <= lo1 && hi1 <= hi2 {
						v.Args = []*value{a.Args[0], v.Args[1]}
						changed = true
					}
				}
			}
		}
	}
}

// signedHalving matches v = (x + bias) >> k (arithmetic), where bias is
// 2^k - 1 for a negative x and 0 otherwise: x's sign bit shifted down
// (k = 1), or x's sign spread and shifted right by w - k. That is C's
// x / 2^k, which truncates toward zero.
func signedHalving(v *value) (x *value, k uint64, ok bool) {
	if v.Op != lift.AShr || len(v.Args) != 2 || v.Args[1].Kind != dataflow.ConstValue {
		return nil, 0, false
	}
	w := uint64(v.Width)
	k = v.Args[1].Lo
	sum := v.Args[0]
	if w < 8 || w > 64 || k == 0 || k >= w-1 || sum.Kind != dataflow.OpValue || sum.Op != lift.Add || sum.Lane != 0 || len(sum.Args) != 2 || sum.Width != v.Width {
		return nil, 0, false
	}
	isConst := func(c *value, n uint64) bool { return c.Kind == dataflow.ConstValue && c.Lo == n }
	bias := func(b, x *value) bool {
		if b.Kind != dataflow.OpValue || b.Op != lift.LShr || len(b.Args) != 2 || b.Lane != 0 || !isConst(b.Args[1], w-k) {
			return false
		}
		s := b.Args[0]
		if k == 1 && s == x {
			return true
		}
		return s.Kind == dataflow.OpValue && s.Op == lift.AShr && s.Lane == 0 && len(s.Args) == 2 && s.Args[0] == x && isConst(s.Args[1], w-1)
	}
	for i := range 2 {
		if x := sum.Args[i]; x.Width == v.Width && bias(sum.Args[1-i], x) {
			return x, k, true
		}
	}
	return nil, 0, false
}
