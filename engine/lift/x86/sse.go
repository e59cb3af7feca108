package x86

import (
	"golang.org/x/arch/x86/x86asm"

	"github.com/rea-re/rea/engine/lift"
)

// xmm reads operand i as 128 bits when it is an xmm register, else loads
// w bits from memory (the scalar forms read only their element).
func (l *lifter) src(i int, w lift.Width) lift.Operand {
	a := l.arg(i)
	if r, ok := a.(x86asm.Reg); ok && r >= x86asm.X0 && r <= x86asm.X15 {
		return l.b.Extract(l.read(a, 128), 0, w)
	}
	return l.read(a, w)
}

func isXMM(a x86asm.Arg) bool {
	r, ok := a.(x86asm.Reg)
	return ok && r >= x86asm.X0 && r <= x86asm.X15
}

// aligned emits the #GP of an aligned 128-bit access to a misaligned
// address (movaps, movdqa, and the legacy-SSE packed forms with memory).
func (l *lifter) aligned(i int) {
	m, ok := l.arg(i).(x86asm.Mem)
	if !ok {
		return
	}
	b := l.b
	a := l.address(m, false)
	low := b.Op2(lift.And, l.aw, a, lift.C(l.aw, 15))
	b.Emit(lift.Stmt{Op: lift.TrapIf, A: b.Op2(lift.Ne, 1, low, lift.C(l.aw, 0)), Text: "general protection (misaligned)"})
}

// sse lifts the SSE forms the lifter models; false when op is not one.
func (l *lifter) sse() bool {
	b, op := l.b, l.in.Op
	d := l.arg(0)
	if s, ok := sseScalar[op]; ok {
		fw := lift.Width(s.fw)
		dst := l.read(d, 128)
		x := b.Extract(dst, 0, fw)
		y := l.src(1, fw)
		var r lift.Operand
		switch op {
		case x86asm.MINSS, x86asm.MINSD: // dst < src ? dst : src, NaNs and zeros included
			r = b.Op3(lift.Select, fw, b.Float(lift.FLt, 1, s.fw, x, y), x, y)
		case x86asm.MAXSS, x86asm.MAXSD: // dst > src ? dst : src
			r = b.Op3(lift.Select, fw, b.Float(lift.FLt, 1, s.fw, y, x), x, y)
		case x86asm.SQRTSS, x86asm.SQRTSD:
			r = b.Float(lift.FSqrt, fw, s.fw, y, lift.Operand{})
		default:
			r = b.Float(s.fop, fw, s.fw, x, y)
		}
		l.write(d, b.Insert(dst, 0, r))
		return true
	}
	if s, ok := ssePackedFloat[op]; ok {
		l.aligned(1)
		y := l.read(l.arg(1), 128)
		var x lift.Operand
		switch s.fop {
		case lift.FSqrt, lift.SToF, lift.FToS, lift.FToSTrunc:
			x, y = y, lift.Operand{}
		default:
			x = l.read(d, 128)
		}
		t := b.Temp(128)
		b.Emit(lift.Stmt{Op: s.fop, Dst: t, A: x, B: y, Aux: int32(s.fw), Lane: lift.Width(s.fw)})
		l.write(d, t)
		return true
	}
	if s, ok := ssePackedInt[op]; ok {
		l.aligned(1)
		x := l.read(d, 128)
		y := l.read(l.arg(1), 128)
		if s.swap {
			x, y = y, x
		}
		var r lift.Operand
		if s.lane == 0 {
			r = b.Op2(s.op, 128, x, y)
		} else {
			r = b.Lanes(s.op, s.lane, x, y)
		}
		l.write(d, r)
		return true
	}
	if s, ok := sseShifts[op]; ok {
		x := l.read(d, 128)
		var n lift.Operand
		if imm, ok := l.arg(1).(x86asm.Imm); ok {
			n = lift.C(64, uint64(imm)&0xff)
		} else {
			l.aligned(1)
			n = b.Extract(l.read(l.arg(1), 128), 0, 64)
		}
		l.write(d, b.Lanes(s.op, s.lane, x, n))
		return true
	}
	switch op {
	case x86asm.PMINUB, x86asm.PMAXUB, x86asm.PMINSW, x86asm.PMAXSW:
		// Per lane: a comparison's all-ones mask selects x, its
		// complement y.
		l.aligned(1)
		x := l.read(d, 128)
		y := l.read(l.arg(1), 128)
		lane, cmp := lift.Width(8), lift.Ult
		if op == x86asm.PMINSW || op == x86asm.PMAXSW {
			lane, cmp = 16, lift.Slt
		}
		var m lift.Operand
		if op == x86asm.PMINUB || op == x86asm.PMINSW {
			m = b.Lanes(cmp, lane, x, y) // x < y
		} else {
			m = b.Lanes(cmp, lane, y, x) // y < x
		}
		l.write(d, b.Op2(lift.Or, 128, b.Op2(lift.And, 128, m, x), b.Op2(lift.AndNot, 128, m, y)))
	case x86asm.PAVGB, x86asm.PAVGW:
		l.aligned(1)
		x := l.read(d, 128)
		y := l.read(l.arg(1), 128)
		lane := lift.Width(8)
		if op == x86asm.PAVGW {
			lane = 16
		}
		r := lift.C(128, 0)
		for i := 0; i < int(128/lane); i++ {
			xi := b.Op1(lift.ZExt, 32, b.Extract(x, i*int(lane), lane))
			yi := b.Op1(lift.ZExt, 32, b.Extract(y, i*int(lane), lane))
			sum := b.Op2(lift.Add, 32, b.Op2(lift.Add, 32, xi, yi), lift.C(32, 1))
			r = b.Insert(r, i*int(lane), b.Op1(lift.Trunc, lane, b.Op2(lift.LShr, 32, sum, lift.C(8, 1))))
		}
		l.write(d, r)
	case x86asm.PSHUFLW, x86asm.PSHUFHW:
		l.aligned(1)
		x := l.read(l.arg(1), 128)
		imm := uint64(l.arg(2).(x86asm.Imm))
		base := 0
		if op == x86asm.PSHUFHW {
			base = 64
		}
		r := x
		for i := 0; i < 4; i++ {
			sel := int(imm>>(2*i)) & 3
			r = b.Insert(r, base+16*i, b.Extract(x, base+16*sel, 16))
		}
		l.write(d, r)
	case x86asm.PEXTRW:
		if !isXMM(l.arg(1)) {
			return false // the MMX form
		}
		imm := int(l.arg(2).(x86asm.Imm)) & 7
		w := l.width(d)
		l.write(d, b.Op1(lift.ZExt, w, b.Extract(l.read(l.arg(1), 128), 16*imm, 16)))
	case x86asm.PINSRW:
		if !isXMM(d) {
			return false
		}
		imm := int(l.arg(2).(x86asm.Imm)) & 7
		var v lift.Operand
		if _, ok := l.arg(1).(x86asm.Mem); ok {
			v = l.read(l.arg(1), 16)
		} else {
			v = b.Op1(lift.Trunc, 16, l.read(l.arg(1), l.width(l.arg(1))))
		}
		l.write(d, b.Insert(l.read(d, 128), 16*imm, v))
	case x86asm.CMPSS, x86asm.CMPSD_XMM, x86asm.CMPPS, x86asm.CMPPD:
		// The compare-to-mask forms: predicate imm & 7 is eq, lt, le,
		// unord, neq, nlt, nle, ord; a true lane is all ones.
		fw := lift.Width(32)
		if op == x86asm.CMPSD_XMM || op == x86asm.CMPPD {
			fw = 64
		}
		scalarForm := op == x86asm.CMPSS || op == x86asm.CMPSD_XMM
		if !scalarForm {
			l.aligned(1)
		}
		dst := l.read(d, 128)
		var y lift.Operand
		if scalarForm {
			y = l.src(1, fw)
		} else {
			y = l.read(l.arg(1), 128)
		}
		pred := int(l.arg(2).(x86asm.Imm)) & 7
		n := 128 / int(fw)
		if scalarForm {
			n = 1
		}
		r := dst
		for i := 0; i < n; i++ {
			xi := b.Extract(dst, i*int(fw), fw)
			yi := y
			if !scalarForm {
				yi = b.Extract(y, i*int(fw), fw)
			}
			var c lift.Operand
			switch pred & 3 {
			case 0:
				c = b.Float(lift.FEq, 1, int(fw), xi, yi)
			case 1:
				c = b.Float(lift.FLt, 1, int(fw), xi, yi)
			case 2:
				c = b.Float(lift.FLe, 1, int(fw), xi, yi)
			case 3:
				c = b.Float(lift.FUnord, 1, int(fw), xi, yi)
			}
			if pred >= 4 {
				c = b.Op2(lift.Xor, 1, c, lift.C(1, 1))
			}
			r = b.Insert(r, i*int(fw), b.Op1(lift.SExt, fw, c))
		}
		l.write(d, r)
	case x86asm.PACKSSWB, x86asm.PACKUSWB, x86asm.PACKSSDW:
		// Narrow each signed lane of x then y, saturating.
		l.aligned(1)
		x := l.read(d, 128)
		y := l.read(l.arg(1), 128)
		from, to := lift.Width(16), lift.Width(8)
		if op == x86asm.PACKSSDW {
			from, to = 32, 16
		}
		lo, hi := -(int64(1) << (to - 1)), int64(1)<<(to-1)-1
		if op == x86asm.PACKUSWB {
			lo, hi = 0, 1<<to-1
		}
		n := int(128 / from)
		r := lift.C(128, 0)
		for i := 0; i < 2*n; i++ {
			src := x
			if i >= n {
				src = y
			}
			v := b.Extract(src, (i%n)*int(from), from)
			clo, chi := lift.C(from, uint64(lo)), lift.C(from, uint64(hi))
			v = b.Op3(lift.Select, from, b.Op2(lift.Slt, 1, v, clo), clo, v)
			v = b.Op3(lift.Select, from, b.Op2(lift.Slt, 1, chi, v), chi, v)
			r = b.Insert(r, i*int(to), b.Op1(lift.Trunc, to, v))
		}
		l.write(d, r)
	case x86asm.PSADBW:
		// Each 64-bit half: the sum of the absolute byte differences.
		l.aligned(1)
		x := l.read(d, 128)
		y := l.read(l.arg(1), 128)
		r := lift.C(128, 0)
		for h := 0; h < 2; h++ {
			sum := lift.C(16, 0)
			for i := 0; i < 8; i++ {
				xi := b.Extract(x, 64*h+8*i, 8)
				yi := b.Extract(y, 64*h+8*i, 8)
				diff := b.Op3(lift.Select, 8, b.Op2(lift.Ult, 1, xi, yi), b.Op2(lift.Sub, 8, yi, xi), b.Op2(lift.Sub, 8, xi, yi))
				sum = b.Op2(lift.Add, 16, sum, b.Op1(lift.ZExt, 16, diff))
			}
			r = b.Insert(r, 64*h, sum)
		}
		l.write(d, r)
	case x86asm.CVTDQ2PD, x86asm.CVTPS2PD, x86asm.CVTTPD2DQ, x86asm.CVTPD2DQ, x86asm.CVTPD2PS:
		// Two lanes widened or narrowed; a narrowing zeroes the upper half.
		var x lift.Operand
		if op == x86asm.CVTDQ2PD || op == x86asm.CVTPS2PD {
			x = l.src(1, 64)
		} else {
			l.aligned(1)
			x = l.read(l.arg(1), 128)
		}
		r := lift.C(128, 0)
		for i := 0; i < 2; i++ {
			var v lift.Operand
			switch op {
			case x86asm.CVTDQ2PD:
				v = b.Temp(64)
				b.Emit(lift.Stmt{Op: lift.SToF, Dst: v, A: b.Extract(x, 32*i, 32), Aux: 64})
				r = b.Insert(r, 64*i, v)
			case x86asm.CVTPS2PD:
				v = b.Temp(64)
				b.Emit(lift.Stmt{Op: lift.FConv, Dst: v, A: b.Extract(x, 32*i, 32), Aux: 64})
				r = b.Insert(r, 64*i, v)
			case x86asm.CVTTPD2DQ, x86asm.CVTPD2DQ:
				cop := lift.FToSTrunc
				if op == x86asm.CVTPD2DQ {
					cop = lift.FToS
				}
				v = b.Temp(32)
				b.Emit(lift.Stmt{Op: cop, Dst: v, A: b.Extract(x, 64*i, 64), Aux: 64})
				r = b.Insert(r, 32*i, v)
			case x86asm.CVTPD2PS:
				v = b.Temp(32)
				b.Emit(lift.Stmt{Op: lift.FConv, Dst: v, A: b.Extract(x, 64*i, 64), Aux: 32})
				r = b.Insert(r, 32*i, v)
			}
		}
		l.write(d, r)
	case x86asm.PMULUDQ: // the low 32 bits of each 64-bit lane, multiplied to 64 bits
		l.aligned(1)
		low := lift.Operand{Kind: lift.Const, Width: 128, Lo: 0xffffffff, Hi: 0xffffffff}
		x := b.Op2(lift.And, 128, l.read(d, 128), low)
		y := b.Op2(lift.And, 128, l.read(l.arg(1), 128), low)
		l.write(d, b.Lanes(lift.Mul, 64, x, y))
	case x86asm.MOVHPS, x86asm.MOVHPD, x86asm.MOVLPS, x86asm.MOVLPD:
		// Load or store one 64-bit half; the other half is kept.
		lo := 0
		if op == x86asm.MOVHPS || op == x86asm.MOVHPD {
			lo = 64
		}
		if isXMM(d) {
			if !isXMM(l.arg(1)) {
				l.write(d, b.Insert(l.read(d, 128), lo, l.read(l.arg(1), 64)))
			} else if op == x86asm.MOVLPS || op == x86asm.MOVHPS {
				return false // the decoder names movhlps/movlhps separately
			}
		} else {
			l.write(d, b.Extract(l.read(l.arg(1), 128), lo, 64))
		}
	case x86asm.MOVHLPS: // dst.low = src.high
		l.write(d, b.Insert(l.read(d, 128), 0, b.Extract(l.read(l.arg(1), 128), 64, 64)))
	case x86asm.MOVLHPS: // dst.high = src.low
		l.write(d, b.Insert(l.read(d, 128), 64, b.Extract(l.read(l.arg(1), 128), 0, 64)))
	case x86asm.SHUFPD:
		l.aligned(1)
		x := l.read(d, 128)
		y := l.read(l.arg(1), 128)
		imm := int(l.arg(2).(x86asm.Imm))
		r := b.Insert(lift.C(128, 0), 0, b.Extract(x, 64*(imm&1), 64))
		l.write(d, b.Insert(r, 64, b.Extract(y, 64*(imm>>1&1), 64)))
	case x86asm.PSLLDQ, x86asm.PSRLDQ:
		n := uint64(l.arg(1).(x86asm.Imm)) & 0xff
		if n > 16 {
			n = 16
		}
		sop := lift.Shl
		if op == x86asm.PSRLDQ {
			sop = lift.LShr
		}
		l.write(d, b.Op2(sop, 128, l.read(d, 128), lift.C(8, n*8)))
	case x86asm.MOVAPS, x86asm.MOVUPS, x86asm.MOVAPD, x86asm.MOVUPD, x86asm.MOVDQA, x86asm.MOVDQU:
		if op == x86asm.MOVAPS || op == x86asm.MOVAPD || op == x86asm.MOVDQA {
			l.aligned(0)
			l.aligned(1)
		}
		l.write(d, l.read(l.arg(1), 128))
	case x86asm.MOVSS, x86asm.MOVSD_XMM:
		w := lift.Width(32)
		if op == x86asm.MOVSD_XMM {
			w = 64
		}
		switch {
		case isXMM(d) && isXMM(l.arg(1)): // merge the low element
			l.write(d, b.Insert(l.read(d, 128), 0, l.src(1, w)))
		case isXMM(d): // load: the rest is zeroed
			l.write(d, b.Op1(lift.ZExt, 128, l.read(l.arg(1), w)))
		default:
			l.write(d, l.src(1, w))
		}
	case x86asm.MOVD, x86asm.MOVQ:
		w := lift.Width(32)
		if op == x86asm.MOVQ {
			w = 64
		}
		if _, ok := d.(x86asm.Reg); ok && !isXMM(d) && !isXMM(l.arg(1)) {
			return false // MMX
		}
		if isXMM(d) {
			l.write(d, b.Op1(lift.ZExt, 128, l.src(1, w)))
		} else {
			if !isXMM(l.arg(1)) {
				return false
			}
			l.write(d, l.src(1, w))
		}
	case x86asm.CVTSI2SS, x86asm.CVTSI2SD:
		fw := 32
		if op == x86asm.CVTSI2SD {
			fw = 64
		}
		iw := l.width(l.arg(1))
		if _, ok := l.arg(1).(x86asm.Mem); ok {
			iw = lift.Width(l.in.DataSize)
			if l.in.MemBytes != 0 {
				iw = lift.Width(l.in.MemBytes * 8)
			}
		}
		x := l.read(l.arg(1), iw)
		r := b.Temp(lift.Width(fw))
		b.Emit(lift.Stmt{Op: lift.SToF, Dst: r, A: x, Aux: int32(fw)})
		l.write(d, b.Insert(l.read(d, 128), 0, r))
	case x86asm.CVTSS2SD, x86asm.CVTSD2SS:
		from, to := 32, 64
		if op == x86asm.CVTSD2SS {
			from, to = 64, 32
		}
		x := l.src(1, lift.Width(from))
		r := b.Temp(lift.Width(to))
		b.Emit(lift.Stmt{Op: lift.FConv, Dst: r, A: x, Aux: int32(to)})
		l.write(d, b.Insert(l.read(d, 128), 0, r))
	case x86asm.CVTTSS2SI, x86asm.CVTTSD2SI, x86asm.CVTSS2SI, x86asm.CVTSD2SI:
		fw := 32
		if op == x86asm.CVTTSD2SI || op == x86asm.CVTSD2SI {
			fw = 64
		}
		cop := lift.FToSTrunc
		if op == x86asm.CVTSS2SI || op == x86asm.CVTSD2SI {
			cop = lift.FToS
		}
		w := l.width(d)
		x := l.src(1, lift.Width(fw))
		r := b.Temp(w)
		b.Emit(lift.Stmt{Op: cop, Dst: r, A: x, Aux: int32(fw)})
		l.write(d, r)
	case x86asm.UCOMISS, x86asm.UCOMISD, x86asm.COMISS, x86asm.COMISD:
		fw := 32
		if op == x86asm.UCOMISD || op == x86asm.COMISD {
			fw = 64
		}
		x := l.src(0, lift.Width(fw))
		y := l.src(1, lift.Width(fw))
		un := b.Float(lift.FUnord, 1, fw, x, y)
		b.Set(zf, lift.Or, b.Float(lift.FEq, 1, fw, x, y), un, none())
		b.Set(cf, lift.Or, b.Float(lift.FLt, 1, fw, x, y), un, none())
		b.Assign(pf, un)
		for _, f := range []lift.Operand{of, sf, af} {
			b.Assign(f, lift.C(1, 0))
		}
	case x86asm.PSHUFD:
		l.aligned(1)
		x := l.read(l.arg(1), 128)
		imm := uint64(l.arg(2).(x86asm.Imm))
		r := lift.C(128, 0)
		for i := 0; i < 4; i++ {
			sel := int(imm>>(2*i)) & 3
			r = b.Insert(r, 32*i, b.Extract(x, 32*sel, 32))
		}
		l.write(d, r)
	case x86asm.SHUFPS:
		l.aligned(1)
		x := l.read(d, 128)
		y := l.read(l.arg(1), 128)
		imm := uint64(l.arg(2).(x86asm.Imm))
		r := lift.C(128, 0)
		for i := 0; i < 4; i++ {
			from := x
			if i >= 2 {
				from = y
			}
			sel := int(imm>>(2*i)) & 3
			r = b.Insert(r, 32*i, b.Extract(from, 32*sel, 32))
		}
		l.write(d, r)
	case x86asm.PUNPCKLBW, x86asm.PUNPCKLWD, x86asm.PUNPCKLDQ, x86asm.PUNPCKLQDQ,
		x86asm.PUNPCKHBW, x86asm.PUNPCKHWD, x86asm.PUNPCKHDQ, x86asm.PUNPCKHQDQ,
		x86asm.UNPCKLPS, x86asm.UNPCKHPS, x86asm.UNPCKLPD, x86asm.UNPCKHPD:
		lane := map[x86asm.Op]lift.Width{
			x86asm.PUNPCKLBW: 8, x86asm.PUNPCKLWD: 16, x86asm.PUNPCKLDQ: 32, x86asm.PUNPCKLQDQ: 64,
			x86asm.PUNPCKHBW: 8, x86asm.PUNPCKHWD: 16, x86asm.PUNPCKHDQ: 32, x86asm.PUNPCKHQDQ: 64,
			x86asm.UNPCKLPS: 32, x86asm.UNPCKHPS: 32, x86asm.UNPCKLPD: 64, x86asm.UNPCKHPD: 64,
		}[op]
		high := op == x86asm.PUNPCKHBW || op == x86asm.PUNPCKHWD || op == x86asm.PUNPCKHDQ || op == x86asm.PUNPCKHQDQ ||
			op == x86asm.UNPCKHPS || op == x86asm.UNPCKHPD
		l.aligned(1)
		x := l.read(d, 128)
		y := l.read(l.arg(1), 128)
		n := int(128 / lane / 2)
		base := 0
		if high {
			base = n
		}
		r := lift.C(128, 0)
		for i := 0; i < n; i++ {
			r = b.Insert(r, int(lane)*2*i, b.Extract(x, int(lane)*(base+i), lane))
			r = b.Insert(r, int(lane)*(2*i+1), b.Extract(y, int(lane)*(base+i), lane))
		}
		l.write(d, r)
	case x86asm.PMOVMSKB, x86asm.MOVMSKPS, x86asm.MOVMSKPD:
		if !isXMM(l.arg(1)) {
			return false
		}
		lane := map[x86asm.Op]int{x86asm.PMOVMSKB: 8, x86asm.MOVMSKPS: 32, x86asm.MOVMSKPD: 64}[op]
		x := l.read(l.arg(1), 128)
		w := l.width(d)
		r := lift.C(w, 0)
		for i := 0; i < 128/lane; i++ {
			r = b.Insert(r, i, b.Extract(x, lane*i+lane-1, 1))
		}
		l.write(d, r)
	default:
		return false
	}
	return true
}

// A read-only table of the SSE forms lifted alike.
var sseScalar = map[x86asm.Op]struct {
	fop lift.Op
	fw  int
}{
	x86asm.ADDSS: {lift.FAdd, 32}, x86asm.SUBSS: {lift.FSub, 32}, x86asm.MULSS: {lift.FMul, 32}, x86asm.DIVSS: {lift.FDiv, 32},
	x86asm.ADDSD: {lift.FAdd, 64}, x86asm.SUBSD: {lift.FSub, 64}, x86asm.MULSD: {lift.FMul, 64}, x86asm.DIVSD: {lift.FDiv, 64},
	x86asm.SQRTSS: {lift.FSqrt, 32}, x86asm.SQRTSD: {lift.FSqrt, 64},
	x86asm.MINSS: {lift.FLt, 32}, x86asm.MINSD: {lift.FLt, 64}, x86asm.MAXSS: {lift.FLt, 32}, x86asm.MAXSD: {lift.FLt, 64},
}

// A read-only table of the SSE forms lifted alike.
var ssePackedFloat = map[x86asm.Op]struct {
	fop lift.Op
	fw  int
}{
	x86asm.ADDPS: {lift.FAdd, 32}, x86asm.SUBPS: {lift.FSub, 32}, x86asm.MULPS: {lift.FMul, 32}, x86asm.DIVPS: {lift.FDiv, 32},
	x86asm.ADDPD: {lift.FAdd, 64}, x86asm.SUBPD: {lift.FSub, 64}, x86asm.MULPD: {lift.FMul, 64}, x86asm.DIVPD: {lift.FDiv, 64},
	x86asm.SQRTPS: {lift.FSqrt, 32}, x86asm.SQRTPD: {lift.FSqrt, 64},
	x86asm.CVTDQ2PS: {lift.SToF, 32}, x86asm.CVTTPS2DQ: {lift.FToSTrunc, 32}, x86asm.CVTPS2DQ: {lift.FToS, 32},
}

// A read-only table of the SSE forms lifted alike.
var ssePackedInt = map[x86asm.Op]struct {
	op   lift.Op
	lane lift.Width
	swap bool
}{
	x86asm.PADDB: {lift.Add, 8, false}, x86asm.PADDW: {lift.Add, 16, false}, x86asm.PADDD: {lift.Add, 32, false}, x86asm.PADDQ: {lift.Add, 64, false},
	x86asm.PSUBB: {lift.Sub, 8, false}, x86asm.PSUBW: {lift.Sub, 16, false}, x86asm.PSUBD: {lift.Sub, 32, false}, x86asm.PSUBQ: {lift.Sub, 64, false},
	x86asm.PMULLW: {lift.Mul, 16, false}, x86asm.PMULLD: {lift.Mul, 32, false},
	x86asm.PCMPEQB: {lift.Eq, 8, false}, x86asm.PCMPEQW: {lift.Eq, 16, false}, x86asm.PCMPEQD: {lift.Eq, 32, false}, x86asm.PCMPEQQ: {lift.Eq, 64, false},
	x86asm.PCMPGTB: {lift.Slt, 8, true}, x86asm.PCMPGTW: {lift.Slt, 16, true}, x86asm.PCMPGTD: {lift.Slt, 32, true},
	x86asm.PAND: {lift.And, 0, false}, x86asm.POR: {lift.Or, 0, false}, x86asm.PXOR: {lift.Xor, 0, false}, x86asm.PANDN: {lift.AndNot, 0, false},
	x86asm.ANDPS: {lift.And, 0, false}, x86asm.ORPS: {lift.Or, 0, false}, x86asm.XORPS: {lift.Xor, 0, false}, x86asm.ANDNPS: {lift.AndNot, 0, false},
	x86asm.ANDPD: {lift.And, 0, false}, x86asm.ORPD: {lift.Or, 0, false}, x86asm.XORPD: {lift.Xor, 0, false}, x86asm.ANDNPD: {lift.AndNot, 0, false},
}

// A read-only table of the SSE forms lifted alike.
var sseShifts = map[x86asm.Op]struct {
	op   lift.Op
	lane lift.Width
}{
	x86asm.PSLLW: {lift.Shl, 16}, x86asm.PSLLD: {lift.Shl, 32}, x86asm.PSLLQ: {lift.Shl, 64},
	x86asm.PSRLW: {lift.LShr, 16}, x86asm.PSRLD: {lift.LShr, 32}, x86asm.PSRLQ: {lift.LShr, 64},
	x86asm.PSRAW: {lift.AShr, 16}, x86asm.PSRAD: {lift.AShr, 32},
}
