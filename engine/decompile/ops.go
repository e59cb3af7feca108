package decompile

import (
	"fmt"
	"strings"

	"github.com/rea-re/rea/engine/lift"
)

// opnd is an operand of an operation: its expression and its width.
type opnd struct {
	c cx
	w lift.Width
}

// wrap brings an arithmetic result computed in C's promoted types back
// to width w.
func wrap(w lift.Width, c cx) cx {
	switch {
	case w == 1:
		return cast("bool", bin(c, "&", atom("1"), pBand))
	case w < 32:
		return cast(uT(w), c)
	}
	return c
}

// typed gives a constant operand the C type of its width where C's own
// (int) would change the result (a shifted or complemented constant).
func typed(o opnd) cx {
	if o.c.isConst && o.w != 1 {
		return cast(uT(o.w), o.c)
	}
	return o.c
}

// signed renders o read as a signed integer of its width.
func signed(o opnd) cx {
	if o.c.isConst {
		return signedNum(o.w, o.c.val)
	}
	if o.c.sform != "" {
		return cx{s: o.c.sform, p: pAtom, ty: sT(o.w)}
	}
	if o.w == 1 {
		return cx{s: "-(int)" + o.c.at(pUnary), p: pUnary}
	}
	return cast(sT(o.w), o.c)
}

// scalar renders the IR operation op of result width w over args; ok is
// false for an operation the emitter cannot express.
func (h *helperSet) scalar(op lift.Op, w lift.Width, aux int32, args []opnd) (cx, bool) {
	arg := func(i int) opnd {
		if i < len(args) {
			return args[i]
		}
		return opnd{c: atom("0"), w: w}
	}
	a, b := arg(0), arg(1)
	fw := int(aux)
	switch op {
	case lift.Copy:
		return a.c, true
	case lift.Undef:
		return num(w, 0, 0), true
	case lift.Add:
		if b.c.isConst && w >= 32 && signExt(b.c.val, b.w) < 0 && signExt(b.c.val, b.w) > -0x10000 {
			return wrap(w, bin(a.c, "-", num(w, uint64(-signExt(b.c.val, b.w)), 0), pAdd)), true
		}
		return wrap(w, bin(a.c, "+", b.c, pAdd)), true
	case lift.Sub:
		return wrap(w, bin(a.c, "-", b.c, pAdd)), true
	case lift.Mul:
		x := a.c
		if w < 32 && w > 1 {
			x = cast("uint32_t", x)
		}
		return wrap(w, bin(x, "*", b.c, pMul)), true
	case lift.UDiv:
		return wrap(w, bin(a.c, "/", b.c, pMul)), true
	case lift.URem:
		return wrap(w, bin(a.c, "%", b.c, pMul)), true
	case lift.SDiv:
		return cast(uT(w), bin(signed(a), "/", signed(b), pMul)), true
	case lift.SRem:
		return cast(uT(w), bin(signed(a), "%", signed(b), pMul)), true
	case lift.And:
		return bin(a.c, "&", b.c, pBand), true
	case lift.Or:
		return bin(a.c, "|", b.c, pBor), true
	case lift.Xor:
		return bin(a.c, "^", b.c, pXor), true
	case lift.AndNot:
		if w == 1 {
			return bin(not(a.c), "&", b.c, pBand), true
		}
		return wrap(w, bin(cx{s: "~" + typed(a).at(pUnary), p: pUnary}, "&", b.c, pBand)), true
	case lift.Shl, lift.LShr, lift.AShr:
		return h.shift(op, w, a, b), true
	case lift.Rol, lift.Ror:
		if b.c.isConst {
			n := b.c.val % uint64(w)
			if n == 0 {
				return a.c, true
			}
			l, r := n, uint64(w)-n
			if op == lift.Ror {
				l, r = r, n
			}
			x := typed(a)
			return wrap(w, bin(bin(x, "<<", num(8, l, 0), pShift), "|", bin(x, ">>", num(8, r, 0), pShift), pBor)), true
		}
		return h.bitop(op, w, a.c, cast("uint32_t", b.c)), true
	case lift.Neg:
		if w == 1 {
			return a.c, true
		}
		return wrap(w, cx{s: "-" + typed(a).at(pUnary), p: pUnary}), true
	case lift.Not:
		if w == 1 {
			return not(a.c), true
		}
		return wrap(w, cx{s: "~" + typed(a).at(pUnary), p: pUnary}), true
	case lift.Eq, lift.Ne:
		x, y := eqForm(a), eqForm(b)
		sym := "=="
		if op == lift.Ne {
			sym = "!="
		}
		return rel(nullForm(x, y), sym, nullForm(y, x), pEq), true
	case lift.Ult:
		return rel(a.c, "<", b.c, pRel), true
	case lift.Ule:
		return rel(a.c, "<=", b.c, pRel), true
	case lift.Slt:
		return rel(signed(a), "<", signed(b), pRel), true
	case lift.Sle:
		return rel(signed(a), "<=", signed(b), pRel), true
	case lift.CarryAdd, lift.BorrowSub, lift.OverflowAdd, lift.OverflowSub:
		if len(args) < 3 {
			switch op {
			case lift.CarryAdd:
				return rel(cast(uT(a.w), bin(a.c, "+", b.c, pAdd)), "<", a.c, pRel), true
			case lift.BorrowSub:
				return rel(a.c, "<", b.c, pRel), true
			}
		}
		return h.flag(op, a.w, a.c, b.c, arg(2).c), true
	case lift.Parity:
		return h.bitop(op, a.w, a.c), true
	case lift.ZExt, lift.Trunc:
		if w == 1 {
			if a.w == 1 {
				return a.c, true
			}
			return cast("bool", bin(a.c, "&", atom("1"), pBand)), true
		}
		if a.w == w {
			return a.c, true
		}
		return cast(uT(w), a.c), true
	case lift.SExt:
		switch {
		case a.w >= w:
			return h.scalar(lift.Trunc, w, 0, args)
		case a.w == 1:
			return cx{s: "-(" + uT(w) + ")" + a.c.at(pUnary), p: pUnary}, true
		}
		return cast(uT(w), signed(a)), true
	case lift.Extract:
		x := a.c
		if aux > 0 {
			x = bin(x, ">>", num(8, uint64(aux), 0), pShift)
		}
		if w == 1 {
			return cast("bool", bin(x, "&", atom("1"), pBand)), true
		}
		if a.w == w {
			return x, true
		}
		return cast(uT(w), x), true
	case lift.Insert:
		keep := ^(maskOf(b.w) << uint(aux%64))
		var k cx
		if w == 128 {
			lo, hi := ^uint64(0), ^uint64(0)
			if aux >= 64 {
				hi = ^(maskOf(b.w) << uint(aux-64))
			} else {
				lo = keep
				if b.w == 128 {
					hi = 0
				}
			}
			k = num(128, lo, hi)
			if hi == ^uint64(0) {
				k = cx{s: "~(__rea_u128)" + hexnum(^lo), p: pUnary}
			}
		} else {
			k = num(w, keep, 0)
		}
		y := cast(uT(w), b.c)
		if aux > 0 {
			y = bin(y, "<<", num(8, uint64(aux), 0), pShift)
		}
		if a.c.isConst && a.c.val == 0 && w <= 64 {
			return wrap(w, y), true // into zero: the field alone
		}
		return wrap(w, bin(bin(a.c, "&", k, pBand), "|", y, pBor)), true
	case lift.Select:
		c := cx{s: a.c.at(pLor) + " ? " + b.c.at(pCond+1) + " : " + arg(2).c.at(pCond), p: pCond}
		if b.c.isConst && arg(2).c.isConst && w >= 32 {
			c = cast(uT(w), c)
		}
		return c, true
	case lift.Popcnt:
		f := "__builtin_popcountll"
		if a.w == 128 {
			return cast(uT(w), bin(call(f, cast("uint64_t", a.c)), "+", call(f, cast("uint64_t", bin(a.c, ">>", atom("64"), pShift))), pAdd)), true
		}
		return cast(uT(w), call(f, a.c)), true
	case lift.Ctz, lift.Clz:
		return cast(uT(w), h.bitop(op, a.w, a.c)), true
	case lift.Bswap:
		switch w {
		case 16, 32, 64:
			return call(fmt.Sprintf("__builtin_bswap%d", w), a.c), true
		}
		return h.bitop(op, w, a.c), true
	case lift.FAdd, lift.FSub, lift.FMul, lift.FDiv:
		o := map[lift.Op]string{lift.FAdd: "+", lift.FSub: "-", lift.FMul: "*", lift.FDiv: "/"}[op]
		p := pAdd
		if o == "*" || o == "/" {
			p = pMul
		}
		return h.b(fw, bin(h.fl(fw, a), o, h.fl(fw, b), p)), true
	case lift.FSqrt, lift.FTrunc, lift.FFloor, lift.FCeil, lift.FRoundEven, lift.FRoundAway:
		f := map[lift.Op]string{lift.FSqrt: "sqrt", lift.FTrunc: "trunc", lift.FFloor: "floor", lift.FCeil: "ceil", lift.FRoundEven: "rint", lift.FRoundAway: "round"}[op]
		if fw == 32 {
			f += "f"
		}
		return h.b(fw, call("__builtin_"+f, h.fl(fw, a))), true
	case lift.FMA:
		f := "__builtin_fma"
		if fw == 32 {
			f += "f"
		}
		return h.b(fw, call(f, h.fl(fw, a), h.fl(fw, b), h.fl(fw, arg(2)))), true
	case lift.FEq:
		return rel(h.fl(fw, a), "==", h.fl(fw, b), pEq), true
	case lift.FLt:
		return rel(h.fl(fw, a), "<", h.fl(fw, b), pRel), true
	case lift.FLe:
		return rel(h.fl(fw, a), "<=", h.fl(fw, b), pRel), true
	case lift.FUnord:
		return call("__builtin_isunordered", h.fl(fw, a), h.fl(fw, b)), true
	case lift.FToS, lift.FToSTrunc, lift.FToUTrunc:
		if w == 1 || fw != 32 && fw != 64 {
			return cx{}, false
		}
		x := a.c
		if a.w != lift.Width(fw) {
			x = cast(uT(lift.Width(fw)), x)
		}
		return h.fconv(op, fw, w, x), true
	case lift.SToF:
		return h.b(fw, cast(floatT(fw), signed(a))), true
	case lift.UToF:
		return h.b(fw, cast(floatT(fw), a.c)), true
	case lift.FConv:
		if a.w != 32 && a.w != 64 {
			return cx{}, false
		}
		return h.b(fw, cast(floatT(fw), h.fl(int(a.w), a))), true
	case lift.FMin, lift.FMax, lift.FMinNum, lift.FMaxNum:
		return h.fminmax(op, fw, h.narrow(fw, a), h.narrow(fw, b)), true
	}
	return cx{}, false
}

// fl reads operand o as a float of format fw.
func (h *helperSet) fl(fw int, o opnd) cx {
	return h.f(fw, h.narrow(fw, o))
}

func (h *helperSet) narrow(fw int, o opnd) cx {
	if o.w != lift.Width(fw) && (o.c.bits == "" || o.c.bitsW != fw) {
		return cast(uT(lift.Width(fw)), o.c)
	}
	return o.c
}

// shift renders a shift: a count the IR allows to reach the width (the
// result is then 0, or the sign for AShr) is clamped in C, where such a
// shift is undefined.
func (h *helperSet) shift(op lift.Op, w lift.Width, a, b opnd) cx {
	sym := "<<"
	if op != lift.Shl {
		sym = ">>"
	}
	x := typed(a)
	if op == lift.AShr {
		x = signed(a)
	}
	if b.c.isConst {
		n := b.c.val
		if n >= uint64(w) {
			if op != lift.AShr {
				return num(w, 0, 0)
			}
			n = uint64(w) - 1
		}
		if n == 0 {
			return a.c
		}
		r := bin(x, sym, num(8, n, 0), pShift)
		if op == lift.AShr {
			return cast(uT(w), r)
		}
		return wrap(w, r)
	}
	if w < 32 {
		// promoted to int: every count below 32 is defined
		c := bin(b.c, "<", num(8, 32, 0), pRel)
		if op == lift.AShr {
			c = bin(b.c, "<", atom(fmt.Sprint(w)), pRel)
			return cast(uT(w), cx{s: x.at(pShift) + " >> (" + c.s + " ? " + b.c.at(pCond+1) + " : " + fmt.Sprint(w-1) + ")", p: pShift})
		}
		return wrap(w, cx{s: c.s + " ? " + bin(x, sym, b.c, pShift).at(pCond+1) + " : 0", p: pCond})
	}
	lim := fmt.Sprint(w)
	if op == lift.AShr {
		return cast(uT(w), cx{s: x.at(pShift) + " >> (" + b.c.at(pRel) + " < " + lim + " ? " + b.c.at(pCond+1) + " : " + fmt.Sprint(w-1) + ")", p: pShift})
	}
	return cx{s: b.c.at(pRel) + " < " + lim + " ? " + bin(x, sym, b.c, pShift).at(pCond+1) + " : 0", p: pCond}
}

// lanes renders an element-wise operation as a call of a helper that
// loops over the lanes with the scalar operation's C text.
func (h *helperSet) lanes(op lift.Op, w, lane lift.Width, aux int32, args []opnd) (cx, bool) {
	if len(args) > 2 || lane == 0 || w%lane != 0 || lane == 1 {
		return cx{}, false
	}
	scalarB := len(args) == 2 && args[1].w != args[0].w
	tag := op.String()
	tag = strings.NewReplacer(".", "_").Replace(tag)
	name := fmt.Sprintf("__rea_v%d_%s%d", w, tag, lane)
	if scalarB {
		name += "s"
	}
	bw := lane
	if scalarB {
		bw = args[1].w
	}
	x, y := opnd{c: atom("x"), w: lane}, opnd{c: atom("y"), w: bw}
	sub := []opnd{x, y}[:len(args)]
	body, ok := h.scalar(op, lane, aux, sub)
	if !ok {
		return cx{}, false
	}
	cmp := false
	switch op {
	case lift.Eq, lift.Ne, lift.Ult, lift.Ule, lift.Slt, lift.Sle, lift.FEq, lift.FLt, lift.FLe, lift.FUnord:
		cmp = true
	}
	h.use(name, true, func() string {
		u, l := uT(w), uT(lane)
		var sb strings.Builder
		bt := u
		if scalarB {
			bt = uT(bw)
		}
		fmt.Fprintf(&sb, "%s%s %s(%s a, %s b) {\n\t%s r = 0;\n\tfor (int i = 0; i < %d; i += %d) {\n", inl, u, name, u, bt, u, w, lane)
		fmt.Fprintf(&sb, "\t\t%s x = (%s)(a >> i);", l, l)
		if len(args) == 2 {
			if scalarB {
				fmt.Fprintf(&sb, " %s y = b;", uT(bw))
			} else {
				fmt.Fprintf(&sb, " %s y = (%s)(b >> i);", l, l)
			}
		} else {
			sb.WriteString(" (void)b;")
		}
		e := body.s
		if cmp {
			e = "(" + e + ") ? (" + l + ")-1 : 0"
		}
		fmt.Fprintf(&sb, "\n\t\tr |= (%s)(%s)(%s) << i;\n\t}\n\treturn r;\n}\n", u, l, e)
		return sb.String()
	})
	bArg := atom("0")
	if len(args) == 2 {
		bArg = args[1].c
	}
	return call(name, args[0].c, bArg), true
}

// eqForm is o for an equality: a signed parameter of 32 bits or more
// compares equal exactly when its unsigned view does.
func eqForm(o opnd) cx {
	if o.c.sform != "" && o.w >= 32 {
		return cx{s: o.c.sform, p: pAtom, ty: sT(o.w)}
	}
	return o.c
}
