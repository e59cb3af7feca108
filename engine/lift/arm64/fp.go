package arm64

import (
	"math"

	"github.com/rea-re/rea/engine/lift"
)

// fpWidth is the scalar format of ftype (bits 22-23): 32, 64, or 0 for
// half precision, which is not modelled.
func (l *lifter) fpWidth() lift.Width {
	switch l.bits(22, 2) {
	case 0:
		return 32
	case 1:
		return 64
	}
	return 0
}

// scalarFP lifts the scalar floating point data processing forms (ARM ARM
// C4.1.96, "Floating-point data-processing").
func (l *lifter) scalarFP() bool {
	if l.bit(29) || !l.bit(21) {
		return false
	}
	if l.bits(10, 6) == 0 {
		return l.fpConvert()
	}
	fw := l.fpWidth()
	if l.bit(31) || fw == 0 {
		return false
	}
	switch l.bits(10, 2) {
	case 2:
		return l.fp2(fw)
	case 3: // fcsel
		c := l.cond(l.bits(12, 4))
		r := l.b.Op3(lift.Select, fw, c, l.vreg(l.bits(5, 5), fw), l.vreg(l.bits(16, 5), fw))
		l.setV(l.bits(0, 5), r)
		return true
	case 1: // fccmp, fccmpe
		return false
	}
	switch {
	case l.bit(12): // fmov (scalar, immediate)
		if l.bits(5, 5) != 0 {
			return false
		}
		l.setV(l.bits(0, 5), lift.C(fw, expandImm(l.bits(13, 8), fw)))
		return true
	case l.bits(10, 4) == 8:
		return l.fpCompare(fw)
	case l.bits(10, 5) == 16:
		return l.fp1(fw)
	}
	return false
}

// expandImm is the ARM ARM's VFPExpandImm.
func expandImm(imm8 uint32, fw lift.Width) uint64 {
	sign := uint64(imm8 >> 7)
	b6 := uint64(imm8 >> 6 & 1)
	if fw == 32 {
		exp := (b6^1)<<7 | b6*0x1f<<2 | uint64(imm8>>4&3)
		return sign<<31 | exp<<23 | uint64(imm8&0xf)<<19
	}
	exp := (b6^1)<<10 | b6*0xff<<2 | uint64(imm8>>4&3)
	return sign<<63 | exp<<52 | uint64(imm8&0xf)<<48
}

func signBit(fw lift.Width) uint64 { return 1 << (fw - 1) }

func (l *lifter) fp2(fw lift.Width) bool {
	x, y := l.vreg(l.bits(5, 5), fw), l.vreg(l.bits(16, 5), fw)
	var r lift.Operand
	switch op := l.bits(12, 4); op {
	case 0, 1, 2, 3, 8: // fmul, fdiv, fadd, fsub, fnmul
		r = l.b.Float([...]lift.Op{lift.FMul, lift.FDiv, lift.FAdd, lift.FSub}[op&3], fw, int(fw), x, y)
		if op == 8 {
			r = l.b.Op2(lift.Xor, fw, r, lift.C(fw, signBit(fw)))
		}
	case 4, 5, 6, 7: // fmax, fmin, fmaxnm, fminnm
		r = l.b.Float([...]lift.Op{lift.FMax, lift.FMin, lift.FMaxNum, lift.FMinNum}[op-4], fw, int(fw), x, y)
	default:
		return false
	}
	l.setV(l.bits(0, 5), r)
	return true
}

func (l *lifter) fp1(fw lift.Width) bool {
	x := l.vreg(l.bits(5, 5), fw)
	var r lift.Operand
	switch op := l.bits(15, 6); op {
	case 0: // fmov
		r = x
	case 1: // fabs
		r = l.b.Op2(lift.And, fw, x, lift.C(fw, ^signBit(fw)))
	case 2: // fneg
		r = l.b.Op2(lift.Xor, fw, x, lift.C(fw, signBit(fw)))
	case 3: // fsqrt
		r = l.b.Float(lift.FSqrt, fw, int(fw), x, none())
	case 8, 9, 10, 11, 12, 14, 15: // frintn, frintp, frintm, frintz, frinta, frintx, frinti
		// frintx and frinti round in FPCR's mode: to nearest even (the
		// package doc).
		rop := map[uint32]lift.Op{8: lift.FRoundEven, 9: lift.FCeil, 10: lift.FFloor, 11: lift.FTrunc, 12: lift.FRoundAway, 14: lift.FRoundEven, 15: lift.FRoundEven}[op]
		r = l.b.Float(rop, fw, int(fw), x, none())
	case 4, 5: // fcvt to single, double
		to := lift.Width(32 << (op - 4))
		if to == fw {
			return false
		}
		r = l.b.Float(lift.FConv, to, int(to), x, none())
	default:
		return false
	}
	l.setV(l.bits(0, 5), r)
	return true
}

// fpCompare lifts fcmp and fcmpe (which differ only in the exceptions they
// raise, not modelled): equal 0110, less 1000, greater 0010, unordered 0011.
func (l *lifter) fpCompare(fw lift.Width) bool {
	if l.bits(14, 2) != 0 || l.bits(0, 3) != 0 {
		return false
	}
	x := l.vreg(l.bits(5, 5), fw)
	y := lift.C(fw, 0)
	if !l.bit(3) {
		y = l.vreg(l.bits(16, 5), fw)
	} else if l.bits(16, 5) != 0 {
		return false
	}
	lt := l.b.Float(lift.FLt, 1, int(fw), x, y)
	l.b.Assign(flagN, lt)
	l.b.Emit(lift.Stmt{Op: lift.FEq, Dst: flagZ, A: x, B: y, Aux: int32(fw)})
	l.b.Set(flagC, lift.Not, lt, none(), none())
	l.b.Emit(lift.Stmt{Op: lift.FUnord, Dst: flagV, A: x, B: y, Aux: int32(fw)})
	return true
}

// fpConvert lifts the conversions between floating point and integer
// registers: scvtf, fcvtzs and fmov.
func (l *lifter) fpConvert() bool {
	iw := l.regW()
	ftype, rmode, opcode := l.bits(22, 2), l.bits(19, 2), l.bits(16, 3)
	rd, rn := l.bits(0, 5), l.bits(5, 5)
	switch {
	case rmode == 0 && (opcode == 6 || opcode == 7) && (iw == 32 && ftype == 0 || iw == 64 && ftype == 1):
		fw := lift.Width(32 << ftype)
		if opcode == 6 { // fmov general ← fp
			l.setReg(rd, l.vreg(rn, fw))
		} else {
			l.setV(rd, l.reg(rn, fw))
		}
		return true
	case rmode == 1 && (opcode == 6 || opcode == 7) && iw == 64 && ftype == 2: // fmov x, v.d[1] and back
		if opcode == 6 {
			l.setReg(rd, l.b.Extract(lift.R(vNames[rn], 128), 64, 64))
		} else {
			l.b.Set(lift.R(vNames[rd], 128), lift.Insert, lift.R(vNames[rd], 128), l.reg(rn, 64), none())
			l.b.In.Stmts[len(l.b.In.Stmts)-1].Aux = 64
		}
		return true
	}
	fw := l.fpWidth()
	if fw == 0 {
		return false
	}
	switch {
	case rmode == 0 && opcode == 2: // scvtf
		l.setV(rd, l.b.Float(lift.SToF, fw, int(fw), l.reg(rn, iw), none()))
		return true
	case rmode == 0 && opcode == 3: // ucvtf
		l.setV(rd, l.b.Float(lift.UToF, fw, int(fw), l.reg(rn, iw), none()))
		return true
	case opcode < 2 || rmode == 0 && (opcode == 4 || opcode == 5):
		// fcvt{n,p,m,z,a}{s,u}: round in the instruction's mode, then
		// convert toward zero, saturating; a NaN gives 0.
		x := l.vreg(rn, fw)
		switch {
		case opcode >= 4:
			x = l.b.Float(lift.FRoundAway, fw, int(fw), x, none())
		case rmode < 3:
			x = l.b.Float([...]lift.Op{lift.FRoundEven, lift.FCeil, lift.FFloor}[rmode], fw, int(fw), x, none())
		}
		nan := l.b.Float(lift.FUnord, 1, int(fw), x, x)
		var t lift.Operand
		if opcode&1 == 0 { // signed
			t = l.b.Float(lift.FToSTrunc, iw, int(fw), x, none())
			big := l.b.Float(lift.FLe, 1, int(fw), floatConst(fw, math.Ldexp(1, int(iw)-1)), x)
			t = l.b.Op3(lift.Select, iw, big, lift.C(iw, uint64(1)<<(iw-1)-1), t)
		} else { // unsigned: FToUTrunc saturates above; below zero gives 0
			t = l.b.Float(lift.FToUTrunc, iw, int(fw), x, none())
			neg := l.b.Float(lift.FLt, 1, int(fw), x, floatConst(fw, 0))
			t = l.b.Op3(lift.Select, iw, neg, lift.C(iw, 0), t)
		}
		t = l.b.Op3(lift.Select, iw, nan, lift.C(iw, 0), t)
		l.setReg(rd, t)
		return true
	}
	return false
}

// floatConst is the float x in format fw, as a constant of its bits.
func floatConst(fw lift.Width, x float64) lift.Operand {
	if fw == 32 {
		return lift.C(32, uint64(math.Float32bits(float32(x))))
	}
	return lift.C(64, math.Float64bits(x))
}

// fp3 lifts fmadd, fmsub, fnmadd and fnmsub: one fused multiply-add with
// the operands' signs flipped as the form says (negation is exact).
func (l *lifter) fp3() bool {
	fw := l.fpWidth()
	if l.bit(31) || l.bit(29) || fw == 0 {
		return false
	}
	n := l.vreg(l.bits(5, 5), fw)
	m := l.vreg(l.bits(16, 5), fw)
	a := l.vreg(l.bits(10, 5), fw)
	neg := func(x lift.Operand) lift.Operand { return l.b.Op2(lift.Xor, fw, x, lift.C(fw, signBit(fw))) }
	switch l.bits(21, 1)<<1 | l.bits(15, 1) {
	case 1: // fmsub: a - n*m
		n = neg(n)
	case 2: // fnmadd: -a - n*m
		n, a = neg(n), neg(a)
	case 3: // fnmsub: -a + n*m
		a = neg(a)
	}
	t := l.b.Temp(fw)
	l.b.Emit(lift.Stmt{Op: lift.FMA, Dst: t, A: n, B: m, C: a, Aux: int32(fw)})
	l.setV(l.bits(0, 5), t)
	return true
}
