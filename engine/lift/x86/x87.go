package x86

import (
	"golang.org/x/arch/x86/x86asm"

	"github.com/rea-re/rea/engine/lift"
)

// The x87 register stack is modelled as eight named slots, st0 … st7, in
// the order the instructions name them (st0 is the top): a push moves
// every slot down one and writes st0, a pop moves them up and leaves st7
// undefined. A lifter that sees one instruction at a time cannot rename by
// TOP, and the copies a push or a pop makes vanish under SSA's copy
// propagation, so data flow sees each value where it is used. The control
// word is the 16-bit register fpcw; fistp and fist read its rounding
// control.
//
// Values are IEEE binary64 bit patterns, not the 80-bit extended format:
// the model is exact for the float and double arithmetic GCC and clang
// emit on i386 when the precision control is set to double (the
// differential test's harness sets it). Under Linux's default extended
// precision an operation's result can differ in the last bit (rounded
// twice), and so can arithmetic on a 64-bit integer fild loaded; a result
// brought back into double range after overflowing it stays infinite. The
// 80-bit memory forms (fld/fstp tbyte), the status word (fnstsw, fcom and
// fucom without the i suffix), the transcendental instructions and the
// environment (fnstenv, fxsave) are not modelled: they lift to
// lift.Unmodelled like every other instruction outside the model.

var stNames = [8]string{"st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7"}

func st(i int) lift.Operand { return lift.R(stNames[i], 64) }

var fpcw = lift.R("fpcw", 16)

// stIndex is the slot an x87 register argument names.
func stIndex(a x86asm.Arg) (int, bool) {
	r, ok := a.(x86asm.Reg)
	if !ok || r < x86asm.F0 || r > x86asm.F7 {
		return 0, false
	}
	return int(r - x86asm.F0), true
}

// fpush pushes v (already in a temporary or a constant).
func (l *lifter) fpush(v lift.Operand) {
	for i := 7; i > 0; i-- {
		l.b.Assign(st(i), st(i-1))
	}
	l.b.Assign(st(0), v)
}

// fpop pops the stack.
func (l *lifter) fpop() {
	for i := 0; i < 7; i++ {
		l.b.Assign(st(i), st(i+1))
	}
	l.b.Set(st(7), lift.Undef, none(), none(), none())
}

// fmem reads a floating-point memory operand of n bytes as a double.
func (l *lifter) fmem(a x86asm.Arg) (lift.Operand, bool) {
	switch l.in.MemBytes {
	case 4:
		x := l.read(a, 32)
		t := l.b.Temp(64)
		l.b.Emit(lift.Stmt{Op: lift.FConv, Dst: t, A: x, Aux: 64})
		return t, true
	case 8:
		// Loading a signalling NaN quiets it (the invalid-operation
		// exception masked).
		x := l.read(a, 64)
		nan := l.b.Float(lift.FUnord, 1, 64, x, x)
		return l.b.Op3(lift.Select, 64, nan, l.b.Op2(lift.Or, 64, x, lift.C(64, 1<<51)), x), true
	}
	l.unmodelled("x87 80-bit memory operand is not modelled")
	return lift.C(64, 0), false
}

// imem reads an integer memory operand (fild, fiadd …) as a double.
func (l *lifter) imem(a x86asm.Arg) lift.Operand {
	w := lift.Width(l.in.MemBytes * 8)
	if w != 16 && w != 32 && w != 64 {
		l.unmodelled("x87 integer operand width")
		return lift.C(64, 0)
	}
	x := l.read(a, w)
	t := l.b.Temp(64)
	l.b.Emit(lift.Stmt{Op: lift.SToF, Dst: t, A: x, Aux: 64})
	return t
}

// x87 lifts the x87 instructions of the model; it reports false for the
// others.
func (l *lifter) x87() bool {
	b := l.b
	op := l.in.Op
	n := l.nargs()
	memArg := n >= 1 && isMem(l.arg(0))
	arith := map[x86asm.Op]struct {
		op      lift.Op
		reverse bool
		pop     bool
		integer bool
	}{
		x86asm.FADD: {lift.FAdd, false, false, false}, x86asm.FADDP: {lift.FAdd, false, true, false}, x86asm.FIADD: {lift.FAdd, false, false, true},
		x86asm.FSUB: {lift.FSub, false, false, false}, x86asm.FSUBP: {lift.FSub, false, true, false}, x86asm.FISUB: {lift.FSub, false, false, true},
		x86asm.FSUBR: {lift.FSub, true, false, false}, x86asm.FSUBRP: {lift.FSub, true, true, false}, x86asm.FISUBR: {lift.FSub, true, false, true},
		x86asm.FMUL: {lift.FMul, false, false, false}, x86asm.FMULP: {lift.FMul, false, true, false}, x86asm.FIMUL: {lift.FMul, false, false, true},
		x86asm.FDIV: {lift.FDiv, false, false, false}, x86asm.FDIVP: {lift.FDiv, false, true, false}, x86asm.FIDIV: {lift.FDiv, false, false, true},
		x86asm.FDIVR: {lift.FDiv, true, false, false}, x86asm.FDIVRP: {lift.FDiv, true, true, false}, x86asm.FIDIVR: {lift.FDiv, true, false, true},
	}
	if a, ok := arith[op]; ok {
		// dst = dst op src (reverse: src op dst); the memory forms have
		// st0 as dst.
		dst := 0
		var src lift.Operand
		switch {
		case memArg && a.integer:
			src = l.imem(l.arg(0))
		case memArg:
			src, _ = l.fmem(l.arg(0))
		case n == 2:
			d, ok1 := stIndex(l.arg(0))
			s, ok2 := stIndex(l.arg(1))
			if !ok1 || !ok2 {
				l.unmodelled("x87 operand")
				return true
			}
			dst, src = d, st(s)
		case n == 0 && a.pop: // faddp with no operands: st1 = st1 op st0
			dst, src = 1, st(0)
		default:
			l.unmodelled("x87 operand")
			return true
		}
		x, y := st(dst), src
		if a.reverse {
			x, y = y, x
		}
		b.Assign(st(dst), b.Float(a.op, 64, 64, x, y))
		if a.pop {
			l.fpop()
		}
		return true
	}
	switch op {
	case x86asm.FLD:
		if i, ok := stIndex(l.arg(0)); ok {
			t := b.Temp(64)
			b.Assign(t, st(i))
			l.fpush(t)
			return true
		}
		if v, ok := l.fmem(l.arg(0)); ok {
			l.fpush(v)
		}
	case x86asm.FILD:
		l.fpush(l.imem(l.arg(0)))
	case x86asm.FLD1:
		l.fpush(lift.C(64, 0x3ff0000000000000))
	case x86asm.FLDZ:
		l.fpush(lift.C(64, 0))
	case x86asm.FST, x86asm.FSTP:
		if i, ok := stIndex(l.arg(0)); ok {
			b.Assign(st(i), st(0))
		} else {
			switch l.in.MemBytes {
			case 4:
				t := b.Temp(32)
				b.Emit(lift.Stmt{Op: lift.FConv, Dst: t, A: st(0), Aux: 32})
				l.write(l.arg(0), t)
			case 8:
				l.write(l.arg(0), st(0))
			default:
				l.unmodelled("x87 80-bit memory operand is not modelled")
				return true
			}
		}
		if op == x86asm.FSTP {
			l.fpop()
		}
	case x86asm.FIST, x86asm.FISTP, x86asm.FISTTP:
		w := lift.Width(l.in.MemBytes * 8)
		if w != 16 && w != 32 && w != 64 {
			l.unmodelled("x87 integer operand width")
			return true
		}
		trunc := b.Temp(w)
		b.Emit(lift.Stmt{Op: lift.FToSTrunc, Dst: trunc, A: st(0), Aux: 64})
		v := trunc
		if op != x86asm.FISTTP {
			// The rounding control (fpcw bits 10-11): to nearest and
			// toward zero are modelled, down and up are undefined here.
			near := b.Temp(w)
			b.Emit(lift.Stmt{Op: lift.FToS, Dst: near, A: st(0), Aux: 64})
			rc := b.Op2(lift.And, 16, b.Op2(lift.LShr, 16, fpcw, lift.C(16, 10)), lift.C(16, 3))
			undef := b.Temp(w)
			b.Emit(lift.Stmt{Op: lift.Undef, Dst: undef})
			v = b.Op3(lift.Select, w, b.Op2(lift.Eq, 1, rc, lift.C(16, 0)), near,
				b.Op3(lift.Select, w, b.Op2(lift.Eq, 1, rc, lift.C(16, 3)), trunc, undef))
		}
		l.write(l.arg(0), v)
		if op != x86asm.FIST {
			l.fpop()
		}
	case x86asm.FXCH:
		i, ok := stIndex(l.arg(0))
		if n == 0 {
			i, ok = 1, true
		}
		if !ok {
			l.unmodelled("x87 operand")
			return true
		}
		t := b.Temp(64)
		b.Assign(t, st(0))
		b.Assign(st(0), st(i))
		b.Assign(st(i), t)
	case x86asm.FCHS:
		b.Assign(st(0), b.Op2(lift.Xor, 64, st(0), lift.C(64, 1<<63)))
	case x86asm.FABS:
		b.Assign(st(0), b.Op2(lift.And, 64, st(0), lift.C(64, 1<<63-1)))
	case x86asm.FSQRT:
		t := b.Temp(64)
		b.Emit(lift.Stmt{Op: lift.FSqrt, Dst: t, A: st(0), Aux: 64})
		b.Assign(st(0), t)
	case x86asm.FUCOMI, x86asm.FUCOMIP, x86asm.FCOMI, x86asm.FCOMIP:
		i, ok := 1, true
		if n == 2 {
			i, ok = stIndex(l.arg(1))
		} else if n == 1 {
			i, ok = stIndex(l.arg(0))
		}
		if !ok {
			l.unmodelled("x87 operand")
			return true
		}
		x, y := st(0), st(i)
		un := b.Float(lift.FUnord, 1, 64, x, y)
		b.Set(zf, lift.Or, b.Float(lift.FEq, 1, 64, x, y), un, none())
		b.Set(cf, lift.Or, b.Float(lift.FLt, 1, 64, x, y), un, none())
		b.Assign(pf, un)
		for _, f := range []lift.Operand{of, sf, af} {
			b.Assign(f, lift.C(1, 0))
		}
		if op == x86asm.FUCOMIP || op == x86asm.FCOMIP {
			l.fpop()
		}
	case x86asm.FCMOVB, x86asm.FCMOVE, x86asm.FCMOVBE, x86asm.FCMOVU,
		x86asm.FCMOVNB, x86asm.FCMOVNE, x86asm.FCMOVNBE, x86asm.FCMOVNU:
		// st0 = cond ? st(i) : st0, on the integer flags
		if n == 0 {
			l.unmodelled("x87 operand")
			return true
		}
		i, ok := stIndex(l.arg(n - 1))
		if !ok {
			l.unmodelled("x87 operand")
			return true
		}
		cc := map[x86asm.Op]string{
			x86asm.FCMOVB: "B", x86asm.FCMOVE: "E", x86asm.FCMOVBE: "BE", x86asm.FCMOVU: "P",
			x86asm.FCMOVNB: "AE", x86asm.FCMOVNE: "NE", x86asm.FCMOVNBE: "A", x86asm.FCMOVNU: "NP",
		}[op]
		b.Assign(st(0), b.Op3(lift.Select, 64, l.cond(cc), st(i), st(0)))
	case x86asm.FNSTCW:
		l.write(l.arg(0), fpcw)
	case x86asm.FLDCW:
		b.Assign(fpcw, l.read(l.arg(0), 16))
	default:
		return false
	}
	return true
}

func isMem(a x86asm.Arg) bool {
	_, ok := a.(x86asm.Mem)
	return ok
}
