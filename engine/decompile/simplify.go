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
// expression that uses it. Each rewrite keeps the value exactly.
func simplify(f *dataflow.Func) {
	for changed, round := true, 0; changed && round < 4; round++ {
		changed = false
		for _, b := range f.Blocks {
			for _, v := range b.Values {
				if v.Kind != dataflow.OpValue || v.Lane != 0 || len(v.Args) == 0 {
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
