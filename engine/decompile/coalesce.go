package decompile

import (
	"maps"
	"slices"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/lift"
)

// varLive is the liveness of the named values: per block, the values
// live on entry and on exit, and each value's definition and reads.
type varLive struct {
	in, out map[*dataflow.Block]map[*value]bool
	def     map[*value]int       // position in its block (-1: a phi)
	reads   map[*value][]useSite // where the variable is read
}

// coalesce gives a phi and its arguments one variable when their live
// ranges do not interfere, so that the copies of its edges disappear (a
// loop's induction variable is assigned in place). The check is the
// classic one on SSA: two values interfere when one is live where the
// other is defined.
func (e *emitter) coalesce() {
	lv := e.liveVars()
	parent := map[*value]*value{}
	var find func(v *value) *value
	find = func(v *value) *value {
		p, ok := parent[v]
		if !ok || p == v {
			return v
		}
		r := find(p)
		parent[v] = r
		return r
	}
	members := map[*value][]*value{}
	for v := range lv.def {
		members[v] = []*value{v}
	}
	for _, b := range e.f.Blocks {
		for _, p := range b.Values {
			if p.Kind != dataflow.Phi || e.vars[p] == "" {
				continue
			}
			for _, a := range p.Args {
				if _, ok := lv.def[a]; !ok || e.vars[a] == "" || a.Width != p.Width {
					continue
				}
				ra, rp := find(a), find(p)
				if ra == rp || !e.disjoint(lv, members[ra], members[rp]) {
					continue
				}
				parent[ra] = rp
				members[rp] = append(members[rp], members[ra]...)
				delete(members, ra)
			}
		}
	}
	// rename: a class takes the name of its first variable
	rename := map[string]string{}
	var declIdx map[string]int // e.decl's positions, for classes of many members
	for r, ms := range members {
		if len(ms) < 2 {
			continue
		}
		if declIdx == nil {
			declIdx = make(map[string]int, len(e.decl))
			for i, n := range e.decl {
				if _, ok := declIdx[n]; !ok {
					declIdx[n] = i
				}
			}
		}
		index := func(n string) int {
			if i, ok := declIdx[n]; ok {
				return i
			}
			return -1
		}
		first := e.vars[r]
		for _, m := range ms {
			if n := e.vars[m]; index(n) < index(first) {
				first = n
			}
		}
		for _, m := range ms {
			if n := e.vars[m]; n != first {
				rename[n] = first
				e.vars[m] = first
			}
		}
	}
	if len(rename) > 0 {
		e.decl = slices.DeleteFunc(e.decl, func(n string) bool { _, ok := rename[n]; return ok })
	}
}

// disjoint reports whether no value of xs interferes with one of ys.
func (e *emitter) disjoint(lv *varLive, xs, ys []*value) bool {
	return e.disjointBut(lv, xs, ys, nil, nil)
}

// disjointBut is disjoint, but for the pair (x0, y0): y0 is a copy of
// x0, so one variable may hold both while both are live.
func (e *emitter) disjointBut(lv *varLive, xs, ys []*value, x0, y0 *value) bool {
	for _, x := range xs {
		for _, y := range ys {
			if x == x0 && y == y0 {
				// x0 live after y0's definition is no clash (the variable
				// holds x0's value there), y0 live at x0's (a copy kept
				// across a loop's phi) is
				if lv.liveAt(y, x) {
					return false
				}
				continue
			}
			if x.Kind == dataflow.Phi && y.Kind == dataflow.Phi && x.Block == y.Block {
				return false
			}
			if lv.liveAt(x, y) || lv.liveAt(y, x) {
				return false
			}
		}
	}
	return true
}

// liveAt reports whether x is live just after y's definition.
func (lv *varLive) liveAt(x, y *value) bool {
	b, i := y.Block, lv.def[y]
	if x.Block == b {
		if lv.def[x] > i {
			return false
		}
	} else if !lv.in[b][x] {
		return false
	}
	if lv.out[b][x] {
		return true
	}
	for _, u := range lv.reads[x] {
		if u.block == b && u.pos > i {
			return true
		}
	}
	return false
}

// liveVars computes the liveness of the variables: reads at the
// evaluation point of the expression that reads them, a phi's argument
// read at the end of its predecessor.
func (e *emitter) liveVars() *varLive {
	lv := &varLive{in: map[*dataflow.Block]map[*value]bool{}, out: map[*dataflow.Block]map[*value]bool{},
		def: map[*value]int{}, reads: map[*value][]useSite{}}
	for _, b := range e.f.Blocks {
		for i, v := range b.Values {
			if e.vars[v] != "" {
				if v.Kind == dataflow.Phi {
					lv.def[v] = -1
				} else {
					lv.def[v] = i
				}
			}
		}
	}
	for _, b := range e.f.Blocks {
		for i, v := range b.Values {
			if !e.live[v] {
				continue
			}
			if v.Kind == dataflow.Phi {
				if e.vars[v] == "" {
					continue
				}
				for k, a := range v.Args {
					if _, ok := lv.def[a]; ok && k < len(b.Preds) {
						p := b.Preds[k]
						lv.reads[a] = append(lv.reads[a], useSite{p, len(p.Values)})
					}
				}
				continue
			}
			pt := i
			if e.inline[v] {
				pt = e.evalPt[v]
			}
			for _, d := range e.deps(v) {
				if _, ok := lv.def[d]; ok {
					lv.reads[d] = append(lv.reads[d], useSite{b, pt})
				}
			}
		}
	}
	// upward-exposed reads, then the backward fixpoint
	use := map[*dataflow.Block]map[*value]bool{}
	for _, b := range e.f.Blocks {
		use[b] = map[*value]bool{}
		lv.in[b] = map[*value]bool{}
		lv.out[b] = map[*value]bool{}
	}
	for x, us := range lv.reads {
		for _, u := range us {
			if x.Block != u.block {
				use[u.block][x] = true
			}
			if u.pos == len(u.block.Values) {
				lv.out[u.block][x] = true // read by an edge copy
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for i := len(e.f.Blocks) - 1; i >= 0; i-- {
			b := e.f.Blocks[i]
			for _, s := range b.Succs {
				for x := range lv.in[s] {
					if !lv.out[b][x] {
						lv.out[b][x] = true
						changed = true
					}
				}
			}
			for x := range use[b] {
				if !lv.in[b][x] {
					lv.in[b][x] = true
					changed = true
				}
			}
			for x := range lv.out[b] {
				if x.Block != b && !lv.in[b][x] {
					lv.in[b][x] = true
					changed = true
				}
			}
		}
	}
	return lv
}

// coalesceCopies gives a variable defined as another variable read at
// its declared width (a truncation of a narrowed variable, a copy) that
// variable's name when their live ranges do not interfere: the copy's
// assignment then disappears.
func (e *emitter) coalesceCopies() {
	lv := e.liveVars()
	members := map[string][]*value{}
	for _, b := range e.f.Blocks {
		for _, v := range b.Values {
			if n := e.vars[v]; n != "" {
				members[n] = append(members[n], v)
			}
		}
	}
	for _, b := range e.f.Blocks {
		for _, v := range b.Values {
			m := e.vars[v]
			if m == "" || v.Kind != dataflow.OpValue || v.Lane != 0 || e.inline[v] || len(v.Args) == 0 {
				continue
			}
			switch {
			case v.Op == lift.Copy, v.Op == lift.Trunc, v.Op == lift.Extract && v.Aux == 0:
			default:
				continue
			}
			d := v.Args[0]
			n := e.vars[d]
			held := d.Width
			if r := e.narrow[n]; r != 0 {
				held = r
			}
			if n == "" || n == m || held != v.Width || e.vtype[n] != e.vtype[m] || e.float[n] != e.float[m] {
				continue
			}
			if _, ok := lv.def[d]; !ok || !e.disjointBut(lv, members[n], members[m], d, v) {
				continue
			}
			for _, x := range members[m] {
				e.vars[x] = n
			}
			members[n] = append(members[n], members[m]...)
			delete(members, m)
			e.decl = slices.DeleteFunc(e.decl, func(s string) bool { return s == m })
		}
	}
}

// narrowVars gives a variable of 64 or 128 bits the narrower integer
// type of the bits its readers take: a register written whole but read
// only through its low half (a 32-bit counter in a 64-bit register, a
// double in an xmm register) is declared as that half, so that its
// reads need no conversion. The assignment's conversion drops the bits
// no one reads. A variable's definitions read of their operands only the
// bits the variable keeps, so the widths are found together: from the
// narrowest, widened until every variable holds what its readers take.
func (e *emitter) narrowVars() {
	width := map[string]lift.Width{}
	for v, n := range e.vars {
		width[n] = max(width[n], v.Width)
	}
	var cands []string
	for n, w := range width {
		if w >= 64 && e.vtype[n] == uT(w) {
			cands = append(cands, n)
			e.narrow[n] = 32
		}
	}
	for round := 0; ; round++ {
		read := map[string]lift.Width{}
		e.eachRead(func(u, d *value) {
			if n := e.vars[d]; n != "" {
				read[n] = max(read[n], e.readWidth(u, d, 0))
			}
		})
		changed := false
		for _, n := range cands {
			r := read[n]
			switch {
			// never below 32 bits: C promotes narrower unsigned types to
			// int, where a product or a shift could overflow
			case r <= 32:
				r = 32
			case r <= 64:
				r = 64
			}
			if r >= width[n] {
				r = 0
			}
			if r != e.narrow[n] {
				e.narrow[n] = r
				changed = true
			}
		}
		if !changed {
			break
		}
		if round == 16 {
			clear(e.narrow) // does not settle: nothing is narrowed
			break
		}
	}
	e.zeroExtended(cands)
	for n, r := range e.narrow {
		if r == 0 {
			delete(e.narrow, n)
			continue
		}
		e.vtype[n] = uT(r)
	}
}

// zeroExtended declares as uint32_t each 64-bit candidate that kept its
// width but holds only zero extensions of 32-bit values (x86-64's 32-bit
// writes, a counter that indexes an array): a read of its whole value is
// then the C conversion from uint32_t, the same bits.
func (e *emitter) zeroExtended(cands []string) {
	defs := e.defsByVar()
	seen := map[*value]bool{}
	var zext func(x *value) bool
	zext = func(x *value) bool {
		if seen[x] {
			return true // a cycle of phis: the other paths decide
		}
		seen[x] = true
		switch {
		case x.Kind == dataflow.ConstValue:
			return x.Hi == 0 && x.Lo>>32 == 0
		case x.Kind == dataflow.Phi:
			return x.Width == 64 && !slices.ContainsFunc(x.Args, func(y *value) bool { return !zext(y) })
		case x.Kind != dataflow.OpValue || x.Width != 64 || x.Lane != 0:
			return false
		case x.Op == lift.ZExt:
			return x.Args[0].Width <= 32
		case x.Op == lift.And:
			return x.Args[1].Kind == dataflow.ConstValue && x.Args[1].Lo>>32 == 0
		}
		return false
	}
	for _, n := range cands {
		if e.narrow[n] != 0 || len(defs[n]) == 0 {
			continue
		}
		clear(seen)
		if !slices.ContainsFunc(defs[n], func(v *value) bool { return v.Width > 64 || v.Width == 64 && !zext(v) }) {
			e.narrow[n], e.zext[n] = 32, true
		}
	}
}

// readWidth is how many low bits of d the reader u takes. An operation
// whose result's low bits depend only on its operands' low bits (a sum,
// a product, a bitwise operation) reads as many bits of them as are
// taken of it: by its readers when it is inlined, by its variable's width
// when it defines one.
func (e *emitter) readWidth(u, d *value, depth int) lift.Width {
	if u.Kind == dataflow.Phi {
		m := e.vars[u]
		switch {
		case m == e.vars[d]:
			return 0 // the variable itself
		case e.narrow[m] != 0:
			return min(d.Width, e.narrow[m])
		}
		return d.Width
	}
	if u.Kind != dataflow.OpValue {
		return d.Width
	}
	if u.Lane == 0 && depth < 8 {
		var r lift.Width
		switch m := e.vars[u]; {
		case m != "" && e.narrow[m] != 0:
			r = e.narrow[m]
		case m == "" && e.inline[u]:
			r = e.demand(u, depth+1)
		}
		if r != 0 && r < u.Width {
			switch u.Op {
			case lift.Add, lift.Sub, lift.Mul, lift.And, lift.Or, lift.Xor, lift.Not, lift.Neg, lift.ZExt, lift.SExt, lift.Trunc:
				return min(d.Width, r)
			case lift.Extract:
				if u.Aux == 0 {
					return min(d.Width, r)
				}
			case lift.Shl:
				if d == u.Args[0] && u.Args[1].Kind == dataflow.ConstValue {
					return min(d.Width, r)
				}
			case lift.Insert:
				switch lo := lift.Width(u.Aux); {
				case lo == 0 && u.Args[1].Width >= r:
					if d == u.Args[1] {
						return r
					}
					return 0
				case lo >= r:
					if d == u.Args[0] {
						return r
					}
					return 0
				}
			}
		}
	}
	switch u.Op {
	case lift.Trunc:
		return u.Width
	case lift.Extract:
		if u.Aux == 0 {
			return u.Width
		}
	case lift.Return:
		return e.returnWidth(d)
	case lift.Call, lift.Jump:
		ci := e.info[u]
		if ci == nil || ci.target == d {
			return d.Width
		}
		var w lift.Width
		for _, a := range ci.args {
			if a.v == d {
				w = max(w, e.argWidth(a))
			}
		}
		if w > 0 {
			return w
		}
	}
	return d.Width
}

// demand is how many low bits of the inlined value u its readers take.
func (e *emitter) demand(u *value, depth int) lift.Width {
	var w lift.Width
	for _, s := range e.uses[u] {
		if s.pos < len(s.block.Values) {
			w = max(w, e.readWidth(s.block.Values[s.pos], u, depth))
			continue
		}
		// an edge's copy into the phis u is an argument of
		for _, succ := range s.block.Succs {
			k := slices.Index(succ.Preds, s.block)
			for _, p := range succ.Values {
				if p.Kind == dataflow.Phi && k >= 0 && k < len(p.Args) && p.Args[k] == u {
					w = max(w, e.readWidth(p, u, depth))
				}
			}
		}
	}
	if w == 0 {
		return u.Width
	}
	return w
}

// returnWidth is how many bits of the returned value r the return
// passes: a float's vector register its low lane, an integer the return
// type's width (signature inference takes the widest of the return
// paths, so the caller reads no more than that).
func (e *emitter) returnWidth(r *value) lift.Width {
	if q := e.proto.Return; q != nil && q.Class != ctypes.ClassPointer && q.Width >= 8 && lift.Width(q.Width) < r.Width {
		return lift.Width(q.Width)
	}
	return r.Width
}

// argWidth is how many bits of its value the argument a passes (callExpr
// renders it so).
func (e *emitter) argWidth(a argInfo) lift.Width {
	switch {
	case a.q.Class == ctypes.ClassFloating && (a.q.Width == 32 || a.q.Width == 64) && a.v.Width > lift.Width(a.q.Width):
		return lift.Width(a.q.Width)
	case a.fixed && a.q.Class == ctypes.ClassInteger && a.q.Width >= 8 && a.v.Width > lift.Width(a.q.Width):
		return lift.Width(a.q.Width)
	case a.reads > 0 && a.v.Width > a.reads:
		return a.reads
	}
	return a.v.Width
}

// floatVars declares a variable of 32 or 64 bits as float or double
// when it holds what float operations compute and float operations are
// most of what reads it: its reads then need no bit casts. A read as an
// integer sees the same bits through a bit cast, and a definition that
// is not a float (a constant, a load) is bit cast into it, so the choice
// changes the text, never what it computes.
func (e *emitter) floatVars() {
	type tally struct{ defs, other, freads, ireads int }
	ts := map[string]*tally{}
	fwOf := map[string]lift.Width{}
	for v, n := range e.vars {
		w := v.Width
		if r := e.narrow[n]; r != 0 {
			w = r
		}
		if w != 32 && w != 64 || e.zext[n] {
			fwOf[n] = 0
			continue
		}
		if f, ok := fwOf[n]; ok && f != w {
			fwOf[n] = 0
			continue
		}
		fwOf[n] = w
		t := ts[n]
		if t == nil {
			t = &tally{}
			ts[n] = t
		}
		switch {
		case v.Kind == dataflow.Phi:
		case e.floatDef(v, w):
			t.defs++
		default:
			t.other++
		}
	}
	for _, b := range e.f.Blocks {
		for _, u := range b.Values {
			if !e.live[u] || u.Kind == dataflow.Phi {
				continue
			}
			for _, d := range e.deps(u) {
				n := e.vars[d]
				if n == "" || fwOf[n] == 0 {
					continue
				}
				if e.floatRead(u, d, fwOf[n], 0) {
					ts[n].freads++
				} else if !e.copyRead(u, d, fwOf[n]) {
					ts[n].ireads++
				}
			}
		}
	}
	for n, t := range ts {
		if fw := fwOf[n]; fw != 0 && t.defs > 0 && t.defs >= t.other && t.freads >= t.ireads {
			e.vtype[n] = floatT(int(fw))
			e.float[n] = fw
		}
	}
}

// floatOp reports whether op computes a float of format aux.
func floatOp(op lift.Op) bool {
	switch op {
	case lift.FAdd, lift.FSub, lift.FMul, lift.FDiv, lift.FSqrt, lift.FTrunc, lift.FFloor, lift.FCeil,
		lift.FRoundEven, lift.FRoundAway, lift.FMA, lift.SToF, lift.UToF, lift.FConv,
		lift.FMin, lift.FMax, lift.FMinNum, lift.FMaxNum:
		return true
	}
	return false
}

// floatDef reports whether v's low fw bits are a float computed as one.
func (e *emitter) floatDef(v *value, fw lift.Width) bool {
	switch {
	case v.Kind == dataflow.ConstValue:
		return true
	case v.Kind == dataflow.Clobber:
		if c := e.retOf[v]; c != nil && e.info[c] != nil {
			r := e.info[c].ret
			return r != nil && r.Class == ctypes.ClassFloating && lift.Width(r.Width) == fw
		}
		return false
	case v.Kind != dataflow.OpValue || v.Lane != 0:
		return false
	case floatOp(v.Op):
		return lift.Width(v.Aux) == fw
	case v.Op == lift.Insert && v.Aux == 0 && v.Args[1].Width >= fw:
		return e.floatDef(v.Args[1], fw)
	case v.Op == lift.ZExt || v.Op == lift.Trunc || v.Op == lift.Extract && v.Aux == 0:
		return v.Args[0].Width >= fw && e.floatDef(v.Args[0], fw)
	}
	return false
}

// copyRead reports whether u reads d's low fw bits as they are, to
// define a variable (it moves a float, it does not use it), or does not
// read them at all.
func (e *emitter) copyRead(u, d *value, fw lift.Width) bool {
	if u.Kind == dataflow.OpValue && u.Op == lift.Insert && u.Aux == 0 && u.Args[0] == d && u.Args[1] != d && u.Args[1].Width >= fw {
		return true // its low bits are replaced, not read
	}
	if e.vars[u] == "" || e.inline[u] {
		return false
	}
	if u.Kind == dataflow.Phi {
		return true
	}
	switch {
	case u.Kind != dataflow.OpValue || u.Lane != 0:
	case u.Op == lift.Insert:
		return u.Aux == 0 && u.Args[1] == d || u.Aux >= 64 && u.Args[0] == d
	case u.Op == lift.ZExt || u.Op == lift.Trunc || u.Op == lift.Extract && u.Aux == 0:
		return true
	}
	return false
}

// floatRead reports whether u reads d's low fw bits as a float.
func (e *emitter) floatRead(u, d *value, fw lift.Width, depth int) bool {
	if u.Kind != dataflow.OpValue || u.Lane != 0 {
		return false
	}
	switch u.Op {
	case lift.FAdd, lift.FSub, lift.FMul, lift.FDiv, lift.FSqrt, lift.FTrunc, lift.FFloor, lift.FCeil,
		lift.FRoundEven, lift.FRoundAway, lift.FMA, lift.FMin, lift.FMax, lift.FMinNum, lift.FMaxNum,
		lift.FEq, lift.FLt, lift.FLe, lift.FUnord, lift.FToS, lift.FToSTrunc, lift.FToUTrunc:
		return lift.Width(u.Aux) == fw
	case lift.FConv:
		return d.Width == fw || e.narrow[e.vars[d]] == fw
	case lift.Trunc, lift.Extract:
		if u.Op == lift.Extract && u.Aux != 0 || u.Width != fw || !e.inline[u] || depth > 0 {
			return false
		}
		for _, s := range e.uses[u] {
			if s.pos >= len(s.block.Values) || !e.floatRead(s.block.Values[s.pos], u, fw, depth+1) {
				return false
			}
		}
		return len(e.uses[u]) > 0
	case lift.Return:
		q := e.proto.Return
		return q != nil && q.Class == ctypes.ClassFloating && lift.Width(q.Width) == fw
	case lift.Call, lift.Jump:
		if ci := e.info[u]; ci != nil && ci.target != d {
			for _, a := range ci.args {
				if a.v == d && a.q.Class == ctypes.ClassFloating && lift.Width(a.q.Width) == fw {
					return true
				}
			}
		}
	}
	return false
}

// ptrVars declares as uint8_t * each 64-bit variable that only ever
// holds addresses: a pointer parameter, such an address plus or minus an
// integer, a pointer loaded from memory, or the null pointer; that is
// only read as an address (of a load or store, of a sum, compared,
// returned, passed, or copied); and that is grounded, derived from a
// pointer parameter or itself the address of a load or store (a sum
// that only adds to itself is a number). Byte arithmetic on a uint8_t *
// is the address's integer arithmetic, so `v = a1 + 1`, `*(int32_t *)v`
// and `*v` read as the binary computes; where an integer is read the
// variable converts back to uint64_t.
func (e *emitter) ptrVars() {
	if e.in.Env.Conv.PtrWidth != 64 {
		return
	}
	defs := e.defsByVar()
	set := map[string]bool{}
	for n, vs := range defs {
		if e.vtype[n] == "uint64_t" && e.narrow[n] == 0 && e.float[n] == 0 && !slices.ContainsFunc(vs, func(v *value) bool { return v.Width != 64 || v.Lane != 0 }) {
			set[n] = true
		}
	}
	// root is where the address x derives from: a variable's name,
	// "" for a pointer parameter, false when x is no address.
	var root func(x *value, depth int) (string, bool)
	root = func(x *value, depth int) (string, bool) {
		if n := e.vars[x]; n != "" {
			return n, set[n]
		}
		if k, ok := e.param(x); ok {
			return "", e.proto.Params[k].Class == ctypes.ClassPointer && x.Width == 64
		}
		if depth < 4 && x.Kind == dataflow.OpValue && e.inline[x] && (x.Op == lift.Add || x.Op == lift.Sub) && len(x.Args) == 2 {
			return root(x.Args[0], depth+1)
		}
		return "", false
	}
	source := func(x *value) bool { _, ok := root(x, 0); return ok }
	isNull := func(y *value) bool { return y.Kind == dataflow.ConstValue && y.Lo == 0 && y.Hi == 0 }
	// from lists the addresses definition v derives from (nil: none, as
	// a load's); ok is false when v is not an address.
	from := func(v *value) ([]*value, bool) {
		switch {
		case v.Kind == dataflow.Phi:
			var out []*value
			for _, y := range v.Args {
				if !isNull(y) {
					if !source(y) {
						return nil, false
					}
					out = append(out, y)
				}
			}
			return out, true
		case v.Kind != dataflow.OpValue:
		case v.Op == lift.Add || v.Op == lift.Sub:
			if len(v.Args) == 2 && source(v.Args[0]) && !source(v.Args[1]) {
				return v.Args[:1], true
			}
		case v.Op == lift.Load:
			return nil, true
		case v.Op == lift.Copy:
			if source(v.Args[0]) {
				return v.Args[:1], true
			}
		}
		return nil, false
	}
	// every reader reads an address as an address; one used as a load's
	// or store's address is grounded
	grounded := map[string]bool{}
	e.eachRead(func(u, d *value) {
		n := e.vars[d]
		if !set[n] {
			return
		}
		if !e.addressRead(u, d) {
			delete(set, n)
		}
		if u.Kind == dataflow.OpValue && (u.Op == lift.Load || u.Op == lift.Store) && u.Args[0] == d {
			grounded[n] = true
		}
	})
	for changed := true; changed; {
		changed = false
		drop := func(n string) {
			if set[n] {
				delete(set, n)
				changed = true
			}
		}
		// Decided against the set as the round found it, then dropped:
		// from is not monotone (a sum is an address only while its
		// second operand is not), so dropping as the map's order meets
		// the names would make the answer depend on that order.
		var out []string
		for n := range set {
			if slices.ContainsFunc(defs[n], func(v *value) bool { _, ok := from(v); return !ok }) {
				out = append(out, n)
			}
		}
		for _, n := range out {
			drop(n)
		}
		grounded := maps.Clone(grounded)
		for more := true; more; {
			more = false
			for n := range set {
				if grounded[n] {
					continue
				}
				for _, v := range defs[n] {
					ys, _ := from(v)
					for _, y := range ys {
						if r, ok := root(y, 0); ok && r != n && (r == "" || grounded[r]) {
							grounded[n], more = true, true
						}
					}
				}
			}
		}
		for n := range set {
			if !grounded[n] {
				drop(n)
			}
		}
	}
	for n := range set {
		e.ptr[n] = true
		e.vtype[n] = bytePtr
	}
}

// addressRead reports whether u reads d as an address: the address of a
// load or store, the address of a sum (the pointer's side), a comparison
// for equality, a phi, a return, or a call's argument.
func (e *emitter) addressRead(u, d *value) bool {
	if u.Kind == dataflow.Phi {
		return true
	}
	if u.Kind != dataflow.OpValue {
		return false
	}
	switch u.Op {
	case lift.Load:
		return u.Args[0] == d
	case lift.Store:
		return u.Args[0] == d && u.Args[1] != d
	case lift.Add, lift.Sub:
		return len(u.Args) == 2 && u.Args[0] == d && u.Args[1] != d
	case lift.Eq, lift.Ne, lift.Return, lift.Call, lift.Jump, lift.Copy:
		return true
	}
	return false
}

// eachRead calls read for each value d a live value u reads: the
// operands its C text reads, a phi's arguments.
func (e *emitter) eachRead(read func(u, d *value)) {
	for _, b := range e.f.Blocks {
		for _, u := range b.Values {
			if !e.live[u] {
				continue
			}
			ds := e.deps(u)
			if u.Kind == dataflow.Phi {
				ds = u.Args
			}
			for _, d := range ds {
				read(u, d)
			}
		}
	}
}

// defsByVar lists the values each variable holds.
func (e *emitter) defsByVar() map[string][]*value {
	defs := map[string][]*value{}
	for v, n := range e.vars {
		defs[n] = append(defs[n], v)
	}
	return defs
}
