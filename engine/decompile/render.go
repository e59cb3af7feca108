package decompile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile/structure"
	"github.com/rea-re/rea/engine/lift"
)

// ex renders v as an expression.
func (e *emitter) ex(v *value) cx {
	switch v.Kind {
	case dataflow.ConstValue:
		return e.constant(v)
	case dataflow.Entry:
		return e.entry(v, v.Width)
	}
	if n, ok := e.vars[v]; ok {
		c := atom(n)
		c.ty = e.vtype[n]
		if fw := e.float[n]; fw != 0 {
			return e.h.b(int(fw), c) // read as bits; a float read takes n itself
		}
		if e.zext[n] && v.Width == 64 {
			return cast("uint64_t", c)
		}
		if e.ptr[n] {
			c.ptr = 64
			return cast("uint64_t", c)
		}
		return c
	}
	if v.Kind != dataflow.OpValue || !e.inline[v] {
		return num(max(v.Width, 1), 0, 0)
	}
	e.note(v.Addr)
	return e.op(v)
}

// constant renders a constant: a string literal's address when the
// image has a string there is still a number (its identity matters to
// the code); a symbol's address is the symbol.
func (e *emitter) constant(v *value) cx {
	if e.addrConsts[v] && e.in.Env.Known != nil {
		if proto, ok := e.in.Env.Known(v.Lo); ok {
			// a procedure's address (a callback passed on, a table of
			// handlers): the procedure, declared as its definition reads
			n := e.procName(v.Lo)
			if _, ok := e.decls[n]; !ok && n != e.self {
				e.decls[n] = e.signatureText(n, proto, false) + ";"
			}
			fn := atom(n)
			fn.ptr = int(v.Width)
			return cast(uT(v.Width), fn)
		}
	}
	if e.in.SymbolAt != nil && e.addrConsts[v] {
		if name, start, size, ok := e.in.SymbolAt(v.Lo); ok {
			n := globalName(name)
			off := v.Lo - start
			var c cx
			switch d, ok := e.decls[n]; {
			case n == "":
				return num(v.Width, v.Lo, v.Hi)
			case n == e.self || ok && !strings.HasPrefix(d, "extern ") && !strings.HasPrefix(d, "static "):
				c = cast(uT(v.Width), atom("&"+n))
			default:
				if !ok {
					e.decls[n] = e.objectDecl(n, start, size)
				}
				c = cast(uT(v.Width), atom(n))
			}
			if off != 0 {
				c = bin(c, "+", num(v.Width, off, 0), pAdd)
			}
			return c
		}
	}
	return num(v.Width, v.Lo, v.Hi)
}

// entry renders the value a location has at entry, at width w.
func (e *emitter) entry(v *value, w lift.Width) cx {
	cv := e.in.Env.Conv
	if v.Loc == cv.SP {
		e.frame = true
		return atom("sp0")
	}
	k, ok := e.params[v.Loc]
	if !ok {
		return num(max(w, 1), 0, 0)
	}
	q := e.proto.Params[k]
	name := "a" + strconv.Itoa(k+1)
	switch q.Class {
	case ctypes.ClassFloating:
		fw := 64
		if q.Width == 32 {
			fw = 32
		}
		c := e.h.b(fw, atom(name))
		if w != lift.Width(fw) {
			return cast(uT(w), c)
		}
		return c
	case ctypes.ClassPointer:
		if w < lift.Width(q.Width) {
			return cast(uT(w), atom(name)) // some of the pointer's bits: no pointer compare
		}
		p, _ := e.pointerAt(v)
		return cast(uT(w), p)
	}
	a := atom(name)
	a.ty = cType(q, false)
	if w == lift.Width(q.Width) && !q.Signed && w >= 32 {
		return a
	}
	c := cast(uT(w), a)
	if w == lift.Width(q.Width) && q.Signed {
		c.sform = name
	}
	return c
}

// param reports whether v is the entry value of a parameter.
func (e *emitter) param(v *value) (int, bool) {
	if v.Kind != dataflow.Entry {
		return 0, false
	}
	k, ok := e.params[v.Loc]
	return k, ok
}

// pointerAt renders v when it is a pointer parameter or a pointer
// variable's value: the pointer itself, of type uint8_t *.
func (e *emitter) pointerAt(v *value) (cx, bool) {
	if n := e.vars[v]; n != "" {
		return cx{s: n, p: pAtom, ty: bytePtr, ptr: 64}, e.ptr[n]
	}
	if k, ok := e.param(v); ok && e.proto.Params[k].Class == ctypes.ClassPointer {
		return cx{s: "a" + strconv.Itoa(k+1), p: pAtom, ty: bytePtr, ptr: int(e.proto.Params[k].Width)}, true
	}
	return cx{}, false
}

// op renders the operation v.
func (e *emitter) op(v *value) cx {
	switch v.Op {
	case lift.Load:
		if c, ok := e.constLoad(v); ok {
			return c
		}
		return e.mem(v.Width, v.Args[0])
	case lift.Trunc, lift.ZExt, lift.Extract:
		// a parameter read at its own width is the parameter
		if k, ok := e.param(v.Args[0]); ok && (v.Op != lift.Extract || v.Aux == 0) && v.Width <= v.Args[0].Width {
			q := e.proto.Params[k]
			if q.Class == ctypes.ClassFloating && int(v.Width) == q.Width || q.Class != ctypes.ClassFloating && int(v.Width) <= max(q.Width, 64) {
				return e.entry(v.Args[0], v.Width)
			}
		}
		if (v.Op == lift.Trunc || v.Op == lift.Extract && v.Aux == 0) && v.Width > 1 && v.Width < v.Args[0].Width {
			return e.low(v.Args[0], v.Width)
		}
	case lift.Insert:
		// x's sign spread over the upper half (cdq, cqo): a sign extension
		if x, ok := signSpread(v); ok {
			e.note(v.Args[1].Addr)
			c, _ := e.h.scalar(lift.SExt, v.Width, 0, []opnd{{c: e.ex(x), w: x.Width}})
			return c
		}
	}
	args := make([]opnd, 0, 3)
	for _, a := range v.Args {
		if a.IsMem() {
			continue
		}
		o := opnd{c: e.ex(a), w: a.Width}
		if k, ok := e.param(a); ok {
			// a signed parameter compared or divided at its own width
			q := e.proto.Params[k]
			if q.Class == ctypes.ClassInteger && q.Signed && int(a.Width) == q.Width {
				o.c = cast(uT(a.Width), atom("a"+strconv.Itoa(k+1)))
				o.c.sform = "a" + strconv.Itoa(k+1)
			}
		}
		args = append(args, o)
	}
	var c cx
	var ok bool
	if v.Lane != 0 {
		c, ok = e.h.lanes(v.Op, v.Width, v.Lane, v.Aux, args)
	} else {
		c, ok = e.h.scalar(v.Op, v.Width, v.Aux, args)
	}
	if !ok {
		e.h.unmodelled()
		e.limit(fmt.Sprintf("IR operation %s is not expressed in C: a trapping helper stands for it", v.Op))
		return cx{s: "(__rea_unmodelled(" + quoteC(v.Op.String()) + "), (" + uT(max(v.Width, 1)) + ")0)", p: pAtom}
	}
	return c
}

// low renders the low w bits of v: the low bits of a sum, product or
// bitwise operation are that operation on the operands' low bits, so an
// operation computed wide and then truncated (a 64-bit multiply read
// through its 128-bit product, an xmm register's low lane) prints at
// the width that is read.
func (e *emitter) low(v *value, w lift.Width) cx {
	if v.Width == w {
		return e.ex(v)
	}
	if v.Kind == dataflow.ConstValue {
		return num(w, v.Lo, 0)
	}
	if v.Kind != dataflow.OpValue || !e.inline[v] || v.Lane != 0 || e.vars[v] != "" {
		return cast(uT(w), e.ex(v))
	}
	e.note(v.Addr)
	return e.lowOp(v, w)
}

// lowOp renders the low w bits of the operation v.
func (e *emitter) lowOp(v *value, w lift.Width) cx {
	a := v.Args
	switch v.Op {
	case lift.ZExt, lift.SExt, lift.Trunc:
		if a[0].Width == w {
			return e.ex(a[0])
		}
		if a[0].Width > w {
			return e.low(a[0], w)
		}
	case lift.Extract:
		if v.Aux == 0 && a[0].Width >= w {
			if a[0].Width == w {
				return e.ex(a[0])
			}
			return e.low(a[0], w)
		}
	case lift.Add, lift.Sub, lift.Mul, lift.And, lift.Or, lift.Xor, lift.Not, lift.Neg:
		args := make([]opnd, len(a))
		for i, x := range a {
			args[i] = opnd{c: e.low(x, w), w: w}
		}
		if c, ok := e.h.scalar(v.Op, w, v.Aux, args); ok {
			return c
		}
	case lift.Insert:
		// the low bits come from one side only when the inserted field
		// covers them or lies above them
		switch lo := uint64(v.Aux); {
		case lo == 0 && a[1].Width >= w:
			if a[1].Width == w {
				return e.ex(a[1])
			}
			return e.low(a[1], w)
		case lo >= uint64(w):
			return e.low(a[0], w)
		}
	case lift.Shl:
		if a[1].Kind == dataflow.ConstValue && a[1].Lo < uint64(w) {
			c, _ := e.h.scalar(v.Op, w, 0, []opnd{{c: e.low(a[0], w), w: w}, {c: e.ex(a[1]), w: a[1].Width}})
			return c
		}
	}
	return cast(uT(w), e.op(v))
}

// memT is the C type of a memory access of width w.
func memT(w lift.Width) string {
	if w == 128 {
		return "__rea_u128u"
	}
	return uT(w)
}

// addr renders an address: a pointer parameter plus a constant stays a
// pointer expression.
func (e *emitter) addr(v *value) cx {
	if p, ok := e.pointerAt(v); ok {
		return p
	}
	if v.Kind == dataflow.OpValue && e.inline[v] && v.Op == lift.Add && len(v.Args) == 2 {
		if p, ok := e.pointerAt(v.Args[0]); ok {
			e.note(v.Addr)
			o := opnd{c: e.ex(v.Args[1]), w: v.Args[1].Width}
			if o.c.isConst && signExt(o.c.val, o.w) < 0 {
				return bin(p, "-", atom(strconv.FormatInt(-signExt(o.c.val, o.w), 10)), pAdd)
			}
			if o.c.isConst {
				return bin(p, "+", atom(strconv.FormatInt(signExt(o.c.val, o.w), 10)), pAdd)
			}
			return bin(p, "+", o.c, pAdd)
		}
	}
	c := e.ex(v)
	if r, ok := strings.CutPrefix(c.s, "(uint64_t)"); ok && isIdent(r) && c.p == pUnary {
		return atom(r) // a symbol: an array of bytes
	}
	if r, ok := strings.CutPrefix(c.s, "(uint64_t)"); ok && c.p == pAdd {
		if n, off, ok := strings.Cut(r, " + "); ok && isIdent(n) {
			return bin(atom(n), "+", atom(off), pAdd)
		}
	}
	return c
}

// statement renders the statement of v, if it has one.
func (e *emitter) statement(v *value) (string, bool) {
	switch {
	case v.Kind == dataflow.OpValue && v.Op == lift.Store:
		m := e.mem(v.Args[1].Width, v.Args[0])
		return m.s + " = " + assigned(m.ty, e.ex(v.Args[1])).s + ";", true
	case v.Kind == dataflow.OpValue && v.Op == lift.Call:
		return e.callStmt(v), true
	case v.Kind == dataflow.OpValue && v.Op == lift.TrapIf:
		return "if (" + e.ex(v.Args[0]).s + ") __builtin_trap();", true
	case v.Kind == dataflow.OpValue && v.Op == lift.Unmodelled:
		e.h.unmodelled()
		e.limit(fmt.Sprintf("unmodelled instruction %s: a trapping helper call stands for it", v.Text))
		return "__rea_unmodelled(" + quoteC(v.Text) + ");", true
	case v.Kind == dataflow.OpValue && !sideEffect(v):
		if n, ok := e.vars[v]; ok {
			w, c := v.Width, cx{}
			if r := e.narrow[n]; r != 0 && v.Lane == 0 && r < v.Width {
				w, c = r, e.lowOp(v, r)
			} else {
				c = e.op(v)
			}
			c = e.assignedTo(n, c, w)
			if a := assign(n, c); a != n+" = "+n+";" {
				if a == n+" = "+c.s+";" {
					e.lastSet = &assignment{dst: n, rhs: c}
				}
				return a, true
			}
			return "", false // a copy the variable already holds
		}
	}
	return "", false
}

// callExpr renders the call of ci.
func (e *emitter) callExpr(ci *callInfo) cx {
	var args []cx
	for _, a := range ci.args {
		var x cx
		switch {
		case a.isStr:
			x = atom(quoteC(a.str))
		case a.param >= 0:
			x = atom("a" + strconv.Itoa(a.param+1))
			switch own := e.proto.Params[a.param].Class; {
			case own != ctypes.ClassPointer && a.q.Class == ctypes.ClassPointer:
				x = cast("void *", x)
			case own == ctypes.ClassPointer && a.q.Class != ctypes.ClassPointer && a.fixed:
				x = cast(uT(lift.Width(e.proto.Params[a.param].Width)), x) // a pointer the callee takes as an integer
			}
		case a.v == nil:
			x = atom("0")
		case a.consts != nil && a.v.Kind == dataflow.ConstValue:
			if x = e.macros(a.consts, a.v.Lo); a.q.Class == ctypes.ClassPointer {
				x = cast("void *", x) // a handler's SIG_IGN
			}
		case e.argWidth(a) < a.v.Width:
			// a float's vector register passes its low lane; a parameter's
			// type takes the argument's low bits (the call converts)
			w := e.argWidth(a)
			switch {
			case a.q.Class == ctypes.ClassFloating:
				x = e.h.fl(int(w), opnd{c: e.low(a.v, w), w: w})
			case a.fixed:
				x = assigned(cType(a.q, false), e.low(a.v, w))
			default:
				// an unnamed argument the callee reads w bits of: C's
				// promotions pass an expression of w bits unchanged
				if x = e.low(a.v, w); intWidth(x.ty) != int(w) {
					x = cast(uT(w), x)
				}
			}
		default:
			x = e.ex(a.v)
			switch a.q.Class {
			case ctypes.ClassPointer:
				if !strings.HasPrefix(x.s, "(void *)") {
					x = cast("void *", x)
				}
			case ctypes.ClassFloating:
				fw := 64
				if a.q.Width == 32 {
					fw = 32
				}
				x = e.h.fl(fw, opnd{c: x, w: a.v.Width})
			default:
				if a.v.Width > 64 {
					x = cast("uint64_t", x)
				}
				if a.fixed {
					x = assigned(cType(a.q, false), x)
				}
			}
		}
		args = append(args, x)
	}
	fn := ci.name
	if fn == "" {
		fn = "(" + cast("uint64_t (*)()", e.ex(ci.target)).s + ")"
		if ci.target.Kind == dataflow.OpValue && ci.target.Op == lift.Load {
			e.unresolved++
		}
	}
	return call(fn, args...)
}

// result converts a call's result to the return register's form.
func (e *emitter) result(ci *callInfo, c cx) cx {
	if ci.ret == nil {
		return c
	}
	switch ci.ret.Class {
	case ctypes.ClassPointer:
		return cast("uint64_t", c)
	case ctypes.ClassFloating:
		fw := 64
		if ci.ret.Width == 32 {
			fw = 32
		}
		return e.h.b(fw, c)
	}
	return c
}

func (e *emitter) callStmt(v *value) string {
	ci := e.info[v]
	e.note(v.Addr)
	c := e.callExpr(ci)
	var res *value
	for cl, call := range e.retOf {
		if call == v && e.vars[cl] != "" && (res == nil || cl.ID < res.ID) {
			res = cl
		}
	}
	if res == nil {
		return c.s + ";"
	}
	if ci.ret == nil {
		e.limit("a call's result is read but its callee returns nothing: 0 is read")
		return c.s + "; " + e.vars[res] + " = 0;"
	}
	return e.vars[res] + " = " + e.assignedTo(e.vars[res], e.result(ci, c), res.Width).s + ";"
}

// assignedTo is c, of width w, as the right side of an assignment to
// the variable n.
func (e *emitter) assignedTo(n string, c cx, w lift.Width) cx {
	if fw := e.float[n]; fw != 0 {
		return e.h.fl(int(fw), opnd{c: c, w: w})
	}
	if e.ptr[n] {
		return pointer(c)
	}
	return assigned(e.vtype[n], c)
}

// retText renders the return of x, the register form of the result.
func (e *emitter) retText(x cx, w lift.Width) string {
	r := e.proto.Return
	if r == nil {
		return "return;"
	}
	switch r.Class {
	case ctypes.ClassPointer:
		return "return " + cast("uint8_t *", x).s + ";"
	case ctypes.ClassFloating:
		fw := 64
		if r.Width == 32 {
			fw = 32
		}
		return "return " + e.h.fl(fw, opnd{c: x, w: w}).s + ";"
	}
	if w > 64 {
		x = cast("uint64_t", x)
	}
	return "return " + assigned(cType(*r, false), x).s + ";"
}

// render builds the nodes of the emitter's graph: each block's
// statements and terminator, and the copies of each edge.
func (e *emitter) render() {
	nb := len(e.f.Blocks)
	for _, b := range e.f.Blocks {
		e.nodes = append(e.nodes, &node{block: b})
	}
	succs := make([][]int, nb)
	for i, b := range e.f.Blocks {
		n := e.nodes[i]
		for _, v := range b.Values {
			if !e.live[v] {
				continue
			}
			var as []uint64
			e.collect = &as
			e.note(v.Addr)
			e.lastSet = nil
			if t, ok := e.statement(v); ok {
				n.stmts = append(n.stmts, line{text: t, addrs: as, set: e.lastSet})
			}
			e.collect = nil
		}
		e.terminator(n, b)
		for k, s := range b.Succs {
			cs := e.copies(b, s)
			switch {
			case len(cs) == 0:
				succs[i] = append(succs[i], e.blockIdx[s])
			case len(b.Succs) == 1:
				n.stmts = append(n.stmts, cs...)
				succs[i] = append(succs[i], e.blockIdx[s])
			default:
				_ = k
				e.nodes = append(e.nodes, &node{stmts: cs})
				succs = append(succs, []int{e.blockIdx[s]})
				succs[i] = append(succs[i], len(e.nodes)-1)
			}
		}
	}
	e.graph = structure.Graph{Entry: 0, Succs: succs, Pure: make([]bool, len(e.nodes)), Size: make([]int, len(e.nodes))}
	for i, n := range e.nodes {
		e.graph.Pure[i] = len(n.stmts) == 0
		e.graph.Size[i] = len(n.stmts)
	}
}

// terminator renders b's control: a condition, a switch, or the exit
// statements (return, tail call, a transfer the text cannot follow).
func (e *emitter) terminator(n *node, b *dataflow.Block) {
	c := b.Control()
	var as []uint64
	e.collect = &as
	defer func() { e.collect = nil }()
	if c != nil {
		e.note(c.Addr)
	}
	switch {
	case c != nil && c.Op == lift.Branch:
		n.cond = e.ex(c.Args[0])
		n.condAddrs = as
	case c != nil && c.Op == lift.Jump && len(b.Succs) > 1:
		n.sw = true
		if si := e.switches[c]; si != nil {
			n.cond = e.ex(si.index)
			if i := si.index; i.Kind == dataflow.OpValue && e.inline[i] && i.Op == lift.ZExt && i.Args[0].Width > 1 && si.fits(i.Args[0].Width) {
				n.cond = e.ex(i.Args[0])
			}
			for _, s := range b.Succs {
				n.cases = append(n.cases, si.cases[s.Addr])
			}
		} else {
			n.cond = e.ex(c.Args[0])
			for _, s := range b.Succs {
				n.cases = append(n.cases, []uint64{s.Addr})
			}
		}
		n.condAddrs = as
	case len(b.Succs) > 0:
	case c != nil && c.Op == lift.Return:
		if r := e.retValue(c); r != nil {
			// an extension to the register's width the return type drops
			if q := e.proto.Return; r.Kind == dataflow.OpValue && e.inline[r] && (r.Op == lift.ZExt || r.Op == lift.SExt) &&
				q.Class == ctypes.ClassInteger && int(r.Args[0].Width) >= q.Width && r.Args[0].Width > 1 {
				e.note(r.Addr)
				r = r.Args[0]
			}
			w := e.returnWidth(r)
			n.stmts = append(n.stmts, line{text: e.retText(e.low(r, w), w), addrs: as})
		} else {
			if e.proto.Return != nil {
				e.limit("a return hands back no value the procedure computed: 0 is returned")
				n.stmts = append(n.stmts, line{text: e.retText(atom("0"), 64), addrs: as})
			} else {
				n.stmts = append(n.stmts, line{text: "return;", addrs: as})
			}
		}
	case c != nil && c.Op == lift.Jump && e.info[c] != nil:
		ci := e.info[c]
		x := e.callExpr(ci)
		if e.proto.Return == nil || ci.ret == nil {
			n.stmts = append(n.stmts, line{text: x.s + ";", addrs: as}, line{text: "return;", addrs: nil})
			if e.proto.Return != nil {
				n.stmts[len(n.stmts)-1].text = "return 0;"
			}
		} else {
			w := lift.Width(64)
			if ci.ret.Class == ctypes.ClassFloating {
				w = lift.Width(ci.ret.Width)
			}
			n.stmts = append(n.stmts, line{text: e.retText(e.result(ci, x), w), addrs: as})
		}
	case c != nil && c.Op == lift.Jump && len(c.Args) > 0:
		e.h.outside()
		t := c.Args[0]
		if t.Kind == dataflow.ConstValue {
			e.limit(fmt.Sprintf("a branch leaves the procedure for %#x: a trapping helper stands for it", t.Lo))
		} else {
			e.unresolved++
			e.limit("an indirect jump is not resolved: a trapping helper stands for it")
		}
		x := e.ex(t)
		if t.Width < 64 {
			x = cast("uint64_t", x)
		}
		n.stmts = append(n.stmts, line{text: "__rea_goto(" + x.s + ");", addrs: as})
		if e.proto.Return != nil {
			n.stmts = append(n.stmts, line{text: e.retText(atom("0"), 64), addrs: nil})
		}
	default:
		e.h.outside()
		e.limit("a path runs off the end of the procedure: a trapping helper stands for it")
		n.stmts = append(n.stmts, line{text: fmt.Sprintf("__rea_goto(%#x);", b.Addr), addrs: as})
		if e.proto.Return != nil {
			n.stmts = append(n.stmts, line{text: e.retText(atom("0"), 64), addrs: nil})
		}
	}
}

// copies renders the parallel copy of edge b → s into its phis'
// variables, sequenced so that no copy overwrites a variable a later one
// reads; a cycle goes through a temporary.
func (e *emitter) copies(b, s *dataflow.Block) []line {
	k := slices.Index(s.Preds, b)
	type cp struct {
		dst   string
		src   *value
		txt   cx
		as    []uint64
		reads map[string]bool
	}
	var cps []*cp
	for _, v := range s.Values {
		if v.Kind != dataflow.Phi {
			continue
		}
		d, ok := e.vars[v]
		if !ok || k < 0 || k >= len(v.Args) {
			continue
		}
		src := v.Args[k]
		if e.vars[src] == d {
			continue // the variable already holds it
		}
		c := &cp{dst: d, src: src, reads: map[string]bool{}}
		e.reads(src, c.reads)
		var as []uint64
		e.collect = &as
		if r := e.narrow[d]; r != 0 && r < src.Width {
			c.txt = e.assignedTo(d, e.low(src, r), r)
		} else {
			c.txt = e.assignedTo(d, e.ex(src), src.Width)
		}
		e.collect = nil
		c.as = as
		cps = append(cps, c)
	}
	var out []line
	for len(cps) > 0 {
		done := false
		for i, c := range cps {
			blocked := false
			for j, o := range cps {
				if j != i && o.reads[c.dst] {
					blocked = true
					break
				}
			}
			if !blocked {
				l := line{text: assign(c.dst, c.txt), addrs: c.as}
				if l.text == c.dst+" = "+c.txt.s+";" {
					l.set = &assignment{dst: c.dst, rhs: c.txt}
				}
				out = append(out, l)
				cps = slices.Delete(cps, i, i+1)
				done = true
				break
			}
		}
		if done {
			continue
		}
		// a cycle: the first copy's source goes through a temporary
		c := cps[0]
		t := e.newTemp(e.vtype[c.dst])
		out = append(out, line{text: t + " = " + c.txt.s + ";", addrs: c.as})
		c.txt, c.reads, c.as = atom(t), map[string]bool{}, nil
	}
	return out
}

func (e *emitter) newTemp(t string) string {
	e.nvar++
	n := fmt.Sprintf("v%d", e.nvar)
	e.decl = append(e.decl, n)
	e.vtype[n] = t
	return n
}

// reads adds the variables the expression of v reads to out.
func (e *emitter) reads(v *value, out map[string]bool) {
	if n, ok := e.vars[v]; ok {
		out[n] = true
		return
	}
	if v.Kind == dataflow.OpValue && e.inline[v] {
		for _, d := range e.deps(v) {
			e.reads(d, out)
		}
	}
}

// gotoTree is the control tree of g in goto form: each node's label and
// statements in order, a two-way node's condition as `if (c) goto L;`,
// a switch of gotos; a jump to the node printed next is left out.
func gotoTree(g structure.Graph) (*structure.Node, error) {
	seq := &structure.Node{Kind: structure.Seq}
	n := len(g.Succs)
	add := func(k *structure.Node) { seq.Children = append(seq.Children, k) }
	for i := 0; i < n; i++ {
		next := i + 1
		add(&structure.Node{Kind: structure.Label, Node: i})
		add(&structure.Node{Kind: structure.Block, Node: i})
		ss := g.Succs[i]
		switch len(ss) {
		case 0:
		case 1:
			if ss[0] != next {
				add(&structure.Node{Kind: structure.Goto, Node: ss[0]})
			}
		case 2:
			if ss[0] == next {
				add(&structure.Node{Kind: structure.If, Cond: &structure.Cond{Op: structure.Leaf, Node: i, Negate: true},
					Children: []*structure.Node{{Kind: structure.Goto, Node: ss[1]}, nil}})
				continue
			}
			add(&structure.Node{Kind: structure.If, Cond: &structure.Cond{Op: structure.Leaf, Node: i},
				Children: []*structure.Node{{Kind: structure.Goto, Node: ss[0]}, nil}})
			if ss[1] != next {
				add(&structure.Node{Kind: structure.Goto, Node: ss[1]})
			}
		default:
			sw := &structure.Node{Kind: structure.Switch, Node: i}
			byTarget := map[int]int{}
			for k, s := range ss {
				if c, ok := byTarget[s]; ok {
					sw.Cases[c].Succs = append(sw.Cases[c].Succs, k)
					continue
				}
				byTarget[s] = len(sw.Cases)
				sw.Cases = append(sw.Cases, structure.Case{Succs: []int{k}, Body: &structure.Node{Kind: structure.Goto, Node: s}})
			}
			add(sw)
		}
	}
	return seq, nil
}

// constLoad renders a load from a constant address in read-only memory
// as the value there.
func (e *emitter) constLoad(v *value) (cx, bool) {
	a := v.Args[0]
	if e.in.ReadOnly == nil || a.Kind != dataflow.ConstValue || v.Width < 8 {
		return cx{}, false
	}
	b, ok := e.in.ReadOnly(a.Lo, int(v.Width/8))
	if !ok || len(b) != int(v.Width/8) {
		return cx{}, false
	}
	var lo, hi uint64
	for i := len(b) - 1; i >= 0; i-- {
		if i >= 8 {
			hi = hi<<8 | uint64(b[i])
		} else {
			lo = lo<<8 | uint64(b[i])
		}
	}
	return num(v.Width, lo, hi), true
}

// findAddrConsts marks the constants the procedure uses as addresses:
// those that reach the address of a load or store, or a pointer argument
// of a call, through copies, phis and additions (an addend only from
// 0x1000 up, so that a field offset stays a number).
func (e *emitter) findAddrConsts() {
	e.addrConsts = map[*value]bool{}
	// seen: how the value was walked, as a direct address or not and at
	// which depth; walking it again no shallower and no more directly
	// adds nothing (phis of phis would make the walk exponential), and
	// what is found does not depend on the order of the walks.
	type walked struct {
		direct bool
		depth  int
	}
	seen := map[*value]walked{}
	var walk func(v *value, direct bool, depth int)
	walk = func(v *value, direct bool, depth int) {
		if v == nil || depth > 8 {
			return
		}
		if w, ok := seen[v]; ok && w.depth <= depth && (w.direct || !direct) {
			return
		}
		seen[v] = walked{direct, depth}
		switch {
		case v.Kind == dataflow.ConstValue:
			if v.Width == e.in.Env.Conv.PtrWidth && (direct || v.Lo >= 0x1000) {
				e.addrConsts[v] = true
			}
		case v.Kind == dataflow.Phi:
			for _, a := range v.Args {
				walk(a, direct, depth+1)
			}
		case v.Kind == dataflow.OpValue && (v.Op == lift.Copy || v.Op == lift.Add || v.Op == lift.Sub):
			for i, a := range v.Args {
				walk(a, v.Op == lift.Copy || v.Op == lift.Sub && i == 0 && false, depth+1)
			}
		}
	}
	for _, b := range e.f.Blocks {
		for _, v := range b.Values {
			switch {
			case !e.live[v] || v.Kind != dataflow.OpValue:
			case v.Op == lift.Load || v.Op == lift.Store:
				walk(v.Args[0], true, 0)
			}
			if ci := e.info[v]; ci != nil {
				for _, a := range ci.args {
					if a.v != nil && a.q.Class == ctypes.ClassPointer {
						walk(a.v, true, 0)
					}
				}
			}
		}
	}
}

// procName is the C name of the procedure at entry: the user's name, the
// symbol, else sub_<hex>.
func (e *emitter) procName(entry uint64) string {
	if entry == e.f.Entry {
		return e.self
	}
	name := ""
	if e.in.Names != nil {
		name, _ = e.in.Names(entry)
	}
	if name == "" && e.in.SymbolAt != nil {
		if n, start, _, ok := e.in.SymbolAt(entry); ok && start == entry {
			name = n
		}
	}
	if n := globalName(name); n != "" && n != e.self {
		return n
	}
	return fmt.Sprintf("sub_%x", entry)
}

// objectDecl declares the object name at [start, start+size): with its
// bytes when it is read-only and small, else as an external array.
func (e *emitter) objectDecl(name string, start, size uint64) string {
	if e.in.ReadOnly != nil && size > 0 && size <= 4096 {
		if b, ok := e.in.ReadOnly(start, int(size)); ok && len(b) == int(size) {
			var sb strings.Builder
			fmt.Fprintf(&sb, "static const uint8_t %s[%d] __attribute__((aligned(16))) = {", name, size)
			for i, x := range b {
				if i > 0 {
					sb.WriteString(",")
				}
				sb.WriteString(strconv.Itoa(int(x)))
			}
			sb.WriteString("};")
			return sb.String()
		}
	}
	return "extern uint8_t " + name + "[];"
}

// mem renders the memory access of width w at address a: an element of
// an array when the address is a base plus an index scaled by the
// access's size, else a dereference of the address.
func (e *emitter) mem(w lift.Width, a *value) cx {
	t := memT(w)
	size := uint64(w / 8)
	if a.Kind == dataflow.OpValue && e.inline[a] && a.Op == lift.Add && len(a.Args) == 2 && w >= 8 {
		for k := 0; k < 2; k++ {
			base, idx := a.Args[k], a.Args[1-k]
			if idx.Kind == dataflow.ConstValue {
				continue
			}
			var i *value
			switch {
			case idx.Kind == dataflow.OpValue && e.inline[idx] && idx.Op == lift.Mul && idx.Args[1].Kind == dataflow.ConstValue && idx.Args[1].Lo == size:
				i = idx.Args[0]
			case idx.Kind == dataflow.OpValue && e.inline[idx] && idx.Op == lift.Shl && idx.Args[1].Kind == dataflow.ConstValue && size > 1 && uint64(1)<<idx.Args[1].Lo == size:
				i = idx.Args[0]
			case size == 1:
				if _, ok := e.pointerAt(base); !ok {
					continue
				}
				i = idx
			default:
				continue
			}
			e.note(a.Addr)
			if i != idx {
				e.note(idx.Addr)
			}
			b := e.addr(base)
			var ix cx
			switch {
			case i.Kind == dataflow.OpValue && e.inline[i] && i.Op == lift.ZExt && i.Args[0].Width > 1:
				e.note(i.Addr)
				ix = e.ex(i.Args[0])
			case i.Kind == dataflow.OpValue && e.inline[i] && i.Op == lift.SExt && i.Args[0].Width > 1:
				e.note(i.Addr)
				ix = signed(opnd{c: e.ex(i.Args[0]), w: i.Args[0].Width})
			default:
				// an unsigned index converts to the same value by itself
				if ix = e.ex(i); ix.castOf != nil && !signedT(ix.ty) && !signedT(ix.castOf.ty) && intWidth(ix.castOf.ty) > 1 && intWidth(ix.castOf.ty) < intWidth(ix.ty) {
					ix = *ix.castOf
				}
			}
			if size == 1 && b.p == pAtom && !strings.HasPrefix(b.s, "(") {
				if _, ok := e.pointerAt(base); ok {
					return cx{s: b.s + "[" + ix.s + "]", p: pAtom, ty: t}
				}
			}
			index := func(t string) cx {
				return cx{s: "((" + ptrTo(t) + ")" + b.at(pUnary) + ")[" + ix.s + "]", p: pAtom, ty: t}
			}
			c := index(t)
			c.retype = index
			return c
		}
	}
	if t == "uint8_t" {
		// a byte of a pointer parameter (declared uint8_t *)
		if p, ok := e.pointerAt(a); ok {
			return cx{s: "*" + p.s, p: pUnary, ty: t}
		}
		if a.Kind == dataflow.OpValue && e.inline[a] && a.Op == lift.Add && len(a.Args) == 2 && a.Args[1].Kind == dataflow.ConstValue {
			if p, ok := e.pointerAt(a.Args[0]); ok {
				e.note(a.Addr)
				return cx{s: p.s + "[" + strconv.FormatInt(signExt(a.Args[1].Lo, a.Args[1].Width), 10) + "]", p: pAtom, ty: t}
			}
		}
	}
	at := e.addr(a).at(pUnary)
	deref := func(t string) cx { return cx{s: "*(" + ptrTo(t) + ")" + at, p: pUnary, ty: t} }
	c := deref(t)
	if intWidth(t) > 1 {
		c.retype = deref
	}
	return c
}

// switchInfo is a switch on a jump table's index: the index value and,
// per target address, the index values that lead there.
type switchInfo struct {
	index *value
	cases map[uint64][]uint64
}

// findSwitches finds, for each resolved table, the index its jump's
// target is loaded with: the target's computation holds a load of the
// entry size from K + index·size.
func (si *switchInfo) fits(w lift.Width) bool {
	for _, vs := range si.cases {
		for _, v := range vs {
			if v > maskOf(w) {
				return false
			}
		}
	}
	return true
}

func (e *emitter) findSwitches() {
	e.switches = map[*value]*switchInfo{}
	for _, b := range e.f.Blocks {
		c := b.Control()
		if c == nil || c.Op != lift.Jump || len(b.Succs) < 2 || len(c.Args) == 0 {
			continue
		}
		for _, jt := range e.in.Tables {
			if jt.Jump != c.Addr || jt.EntrySize <= 0 {
				continue
			}
			if si := tableIndex(c.Args[0], jt, 0); si != nil {
				e.switches[c] = si
			}
		}
	}
}

func tableIndex(v *value, jt dataflow.JumpTable, depth int) *switchInfo {
	if v == nil || depth > 6 || v.Kind != dataflow.OpValue {
		return nil
	}
	size := uint64(jt.EntrySize)
	if v.Op == lift.Load && uint64(v.Width/8) == size {
		a := v.Args[0]
		if a.Kind == dataflow.OpValue && a.Op == lift.Add && len(a.Args) == 2 {
			for k := 0; k < 2; k++ {
				base, idx := a.Args[k], a.Args[1-k]
				if base.Kind != dataflow.ConstValue {
					continue
				}
				var i *value
				switch {
				case idx.Kind == dataflow.OpValue && idx.Op == lift.Mul && idx.Args[1].Kind == dataflow.ConstValue && idx.Args[1].Lo == size:
					i = idx.Args[0]
				case idx.Kind == dataflow.OpValue && idx.Op == lift.Shl && idx.Args[1].Kind == dataflow.ConstValue && idx.Args[1].Lo < 8 && 1<<idx.Args[1].Lo == size:
					i = idx.Args[0]
				case size == 1:
					i = idx
				default:
					continue
				}
				si := &switchInfo{index: i, cases: map[uint64][]uint64{}}
				for n, t := range jt.Targets {
					at := jt.Table + uint64(n)*size
					if (at-base.Lo)%size != 0 {
						return nil
					}
					si.cases[t] = append(si.cases[t], ((at-base.Lo)/size)&maskOf(i.Width))
				}
				return si
			}
		}
	}
	for _, a := range v.Args {
		if si := tableIndex(a, jt, depth+1); si != nil {
			return si
		}
	}
	return nil
}

// signSpread recognises Insert(zext x, ashr(x, w-1), w) of width 2w.
func signSpread(v *value) (*value, bool) {
	if len(v.Args) != 2 || v.Aux <= 0 || lift.Width(v.Aux*2) != v.Width {
		return nil, false
	}
	a, b := v.Args[0], v.Args[1]
	if b.Kind != dataflow.OpValue || b.Op != lift.AShr || len(b.Args) != 2 || b.Args[1].Kind != dataflow.ConstValue || b.Args[1].Lo != uint64(v.Aux-1) {
		return nil, false
	}
	x := b.Args[0]
	if x.Width != lift.Width(v.Aux) {
		return nil, false
	}
	if a == x || a.Kind == dataflow.OpValue && a.Op == lift.ZExt && a.Args[0] == x {
		return x, true
	}
	return nil, false
}

// macros renders a constant argument with the names of its constants
// (O_WRONLY|O_CREAT), each defined in the prelude unless a header the
// unit does not include would define it.
func (e *emitter) macros(p *ctypes.Param, raw uint64) cx {
	abi := e.in.Env.ABI
	text := p.Render(raw, abi)
	vals := map[string]int64{}
	for _, c := range p.Consts.Consts(abi) {
		vals[c.Name] = c.Value
	}
	for _, part := range strings.Split(text, "|") {
		if v, ok := vals[part]; ok && isIdent(part) {
			e.decls["#"+part] = fmt.Sprintf("#ifndef %s\n#define %s (%d)\n#endif", part, part, v)
		}
	}
	c := atom(text)
	if strings.Contains(text, "|") {
		c.p = pBor
	} else if strings.HasPrefix(text, "-") {
		c.p = pUnary
	}
	return c
}
