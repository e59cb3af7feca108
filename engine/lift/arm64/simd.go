package arm64

import "github.com/rea-re/rea/engine/lift"

// The common AdvSIMD integer forms (ARM ARM C4.1.95): an element-wise
// operation is one statement with lift.Stmt.Lane set; a 64-bit form (Q = 0)
// reads the low halves and zeroes the upper half of the destination, as
// every AdvSIMD write does.

// vecWidth is the vector width of Q (bit 30): 64 or 128.
func (l *lifter) vecWidth() lift.Width {
	if l.bit(30) {
		return 128
	}
	return 64
}

// c128 is a 128-bit constant.
func c128(lo, hi uint64) lift.Operand {
	return lift.Operand{Kind: lift.Const, Width: 128, Lo: lo, Hi: hi}
}

// vecConst is the 64-bit pattern v at vector width w (replicated when 128).
func vecConst(w lift.Width, v uint64) lift.Operand {
	if w == 128 {
		return c128(v, v)
	}
	return lift.C(64, v)
}

func replicate(v uint64, esize uint) uint64 {
	v &= 1<<esize - 1
	for s := esize; s < 64; s *= 2 {
		v |= v << s
	}
	return v
}

// modifiedImm lifts movi, mvni, orr and bic (vector, immediate) and fmov
// (vector, immediate): AdvSIMDExpandImm.
func (l *lifter) modifiedImm() bool {
	op, cmode := l.bit(29), l.bits(12, 4)
	imm8 := uint64(l.bits(16, 3)<<5 | l.bits(5, 5))
	w := l.vecWidth()
	var imm uint64
	combine := lift.Invalid // orr/bic combine with the destination
	switch {
	case cmode>>3 == 0: // 32-bit, shifted by 0, 8, 16 or 24
		imm = replicate(imm8<<(8*(cmode>>1&3)), 32)
		if cmode&1 == 1 {
			combine = lift.Or
		}
	case cmode>>2 == 2: // 16-bit, shifted by 0 or 8
		imm = replicate(imm8<<(8*(cmode>>1&1)), 16)
		if cmode&1 == 1 {
			combine = lift.Or
		}
	case cmode == 12:
		imm = replicate(imm8<<8|0xff, 32)
	case cmode == 13:
		imm = replicate(imm8<<16|0xffff, 32)
	case cmode == 14 && !op:
		imm = replicate(imm8, 8)
	case cmode == 14 && op: // each bit of imm8 a byte of ones
		for i := 0; i < 8; i++ {
			if imm8>>i&1 == 1 {
				imm |= 0xff << (8 * i)
			}
		}
		op = false
	case cmode == 15 && !op:
		imm = replicate(expandImm(uint32(imm8), 32), 32)
	case cmode == 15 && op && w == 128:
		imm = expandImm(uint32(imm8), 64)
		op = false
	default:
		return false
	}
	rd := l.bits(0, 5)
	if combine != lift.Invalid {
		x := l.vreg(rd, w)
		var r lift.Operand
		if op { // bic
			r = l.b.Op2(lift.And, w, x, vecConst(w, ^imm))
		} else {
			r = l.b.Op2(lift.Or, w, x, vecConst(w, imm))
		}
		l.setV(rd, r)
		return true
	}
	if op { // mvni
		imm = ^imm
	}
	l.setV(rd, vecConst(w, imm))
	return true
}

// laneOf decodes imm5 of the copy forms: the element width and index.
func laneOf(imm5 uint32) (lane lift.Width, index int, ok bool) {
	for size := uint(0); size < 4; size++ {
		if imm5>>size&1 == 1 {
			return lift.Width(8 << size), int(imm5 >> (size + 1)), true
		}
	}
	return 0, 0, false
}

// copyForms lifts dup (element and general), ins (general and element),
// umov and smov.
func (l *lifter) copyForms() bool {
	lane, index, ok := laneOf(l.bits(16, 5))
	if !ok {
		return false
	}
	w := l.vecWidth()
	rd, rn := l.bits(0, 5), l.bits(5, 5)
	if l.bit(29) { // ins (element)
		if w != 128 {
			return false
		}
		from := int(l.bits(11, 4)) >> laneShift(lane) // the source lane's index
		src := l.b.Extract(lift.R(vNames[rn], 128), from*int(lane), lane)
		l.b.Set(lift.R(vNames[rd], 128), lift.Insert, lift.R(vNames[rd], 128), src, none())
		l.b.In.Stmts[len(l.b.In.Stmts)-1].Aux = int32(index * int(lane))
		return true
	}
	switch l.bits(11, 4) {
	case 0, 1: // dup (element), dup (general)
		if lane == 64 && w == 64 {
			return false
		}
		var x lift.Operand
		if l.bits(11, 4) == 0 {
			x = l.b.Extract(lift.R(vNames[rn], 128), index*int(lane), lane)
		} else {
			x = l.reg(rn, lane)
		}
		wide := l.b.Op1(lift.ZExt, w, x)
		ones := replicate(1, uint(lane))
		var k lift.Operand
		if w == 128 {
			k = c128(ones, ones)
		} else {
			k = lift.C(64, ones)
		}
		l.setV(rd, l.b.Op2(lift.Mul, w, wide, k))
		return true
	case 3: // ins (general)
		if w != 128 {
			return false
		}
		l.b.Set(lift.R(vNames[rd], 128), lift.Insert, lift.R(vNames[rd], 128), l.reg(rn, lane), none())
		l.b.In.Stmts[len(l.b.In.Stmts)-1].Aux = int32(index * int(lane))
		return true
	case 5, 7: // smov, umov
		to := lift.Width(32)
		if l.bit(30) {
			to = 64
		}
		signed := l.bits(11, 4) == 5
		if signed && lane >= to || !signed && (lane == 64) != (to == 64) {
			return false
		}
		x := l.b.Extract(lift.R(vNames[rn], 128), index*int(lane), lane)
		if signed {
			x = l.b.Op1(lift.SExt, to, x)
		}
		l.setReg(rd, x)
		return true
	}
	return false
}

// laneShift is log2 of the lane's bytes: ins (element)'s imm4 holds the
// source index shifted left by it.
func laneShift(lane lift.Width) int {
	n := 0
	for b := int(lane) / 8; b > 1; b >>= 1 {
		n++
	}
	return n
}

// threeSame lifts the element-wise integer forms of "three registers of
// the same type" GCC and clang emit: add, sub, the logic forms, and the
// integer comparisons.
func (l *lifter) threeSame() bool {
	w := l.vecWidth()
	size := l.bits(22, 2)
	lane := lift.Width(8 << size)
	u := l.bit(29)
	rd, rn, rm := l.bits(0, 5), l.bits(5, 5), l.bits(16, 5)
	x, y := l.vreg(rn, w), l.vreg(rm, w)
	var r lift.Operand
	switch opcode := l.bits(11, 5); opcode {
	case 0x10: // add, sub
		if size == 3 && w == 64 {
			return false
		}
		op := lift.Add
		if u {
			op = lift.Sub
		}
		r = l.b.Lanes(op, lane, x, y)
	case 0x03: // and, bic, orr, orn; eor, bsl, bit, bif
		switch size | boolBit(u)<<2 {
		case 0:
			r = l.b.Op2(lift.And, w, x, y)
		case 1:
			r = l.b.Op2(lift.AndNot, w, y, x)
		case 2:
			r = l.b.Op2(lift.Or, w, x, y)
		case 3:
			r = l.b.Op2(lift.Or, w, x, l.b.Op1(lift.Not, w, y))
		case 4:
			r = l.b.Op2(lift.Xor, w, x, y)
		default: // bsl, bit, bif: d = sel ? a : b bitwise
			d := l.vreg(rd, w)
			var sel, a, b lift.Operand
			switch size {
			case 1: // bsl: d selects between n and m
				sel, a, b = d, x, y
			case 2: // bit: m selects n into d
				sel, a, b = y, x, d
			case 3: // bif: m selects d, else n
				sel, a, b = y, d, x
			}
			t1 := l.b.Op2(lift.And, w, sel, a)
			t2 := l.b.Op2(lift.AndNot, w, sel, b)
			r = l.b.Op2(lift.Or, w, t1, t2)
		}
	case 0x11, 0x06, 0x07: // cmtst/cmeq, cmgt/cmhi, cmge/cmhs
		if size == 3 && w == 64 {
			return false
		}
		switch {
		case opcode == 0x11 && u:
			r = l.b.Lanes(lift.Eq, lane, x, y)
		case opcode == 0x11:
			a := l.b.Op2(lift.And, w, x, y)
			zero := lift.C(w, 0)
			if w == 128 {
				zero = c128(0, 0)
			}
			r = l.b.Lanes(lift.Ne, lane, a, zero)
		default:
			op := [...]lift.Op{lift.Slt, lift.Ult, lift.Sle, lift.Ule}[(opcode-6)<<1|uint32(boolBit(u))]
			r = l.b.Lanes(op, lane, y, x) // x > y is y < x
		}
	case 0x0c, 0x0d: // smax/umax, smin/umin: a lane mask picks
		if size == 3 {
			return false
		}
		lt := lift.Slt
		if u {
			lt = lift.Ult
		}
		var m lift.Operand
		if opcode == 0x0c {
			m = l.b.Lanes(lt, lane, y, x) // all ones where x is the larger
		} else {
			m = l.b.Lanes(lt, lane, x, y)
		}
		a := l.b.Op2(lift.And, w, m, x)
		b := l.b.Op2(lift.AndNot, w, m, y)
		r = l.b.Op2(lift.Or, w, a, b)
	case 0x13: // mul
		if u || size == 3 {
			return false
		}
		r = l.b.Lanes(lift.Mul, lane, x, y)
	case 0x12: // mla, mls
		if size == 3 {
			return false
		}
		p := l.b.Lanes(lift.Mul, lane, x, y)
		op := lift.Add
		if u {
			op = lift.Sub
		}
		r = l.b.Lanes(op, lane, l.vreg(rd, w), p)
	default:
		return false
	}
	l.setV(rd, r)
	return true
}

func boolBit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// twoMisc lifts cnt, not (mvn), neg and the comparisons against zero of
// the two-register miscellaneous forms.
func (l *lifter) twoMisc() bool {
	w := l.vecWidth()
	size := l.bits(22, 2)
	lane := lift.Width(8 << size)
	x := l.vreg(l.bits(5, 5), w)
	var r lift.Operand
	switch l.bits(12, 5) | boolBit(l.bit(29))<<5 {
	case 0x05: // cnt
		if size != 0 {
			return false
		}
		r = l.b.Lanes(lift.Popcnt, 8, x, none())
	case 0x25: // not
		if size != 0 {
			return false
		}
		r = l.b.Op1(lift.Not, w, x)
	case 0x2b: // neg
		if size == 3 && w == 64 {
			return false
		}
		r = l.b.Lanes(lift.Neg, lane, x, none())
	case 0x08, 0x28, 0x09, 0x29, 0x0a: // cmgt, cmge, cmeq, cmle, cmlt against zero
		if size == 3 && w == 64 {
			return false
		}
		zero := lift.C(w, 0)
		if w == 128 {
			zero = c128(0, 0)
		}
		switch l.bits(12, 5) | boolBit(l.bit(29))<<5 {
		case 0x08:
			r = l.b.Lanes(lift.Slt, lane, zero, x)
		case 0x28:
			r = l.b.Lanes(lift.Sle, lane, zero, x)
		case 0x09:
			r = l.b.Lanes(lift.Eq, lane, x, zero)
		case 0x29:
			r = l.b.Lanes(lift.Sle, lane, x, zero)
		default:
			r = l.b.Lanes(lift.Slt, lane, x, zero)
		}
	default:
		return false
	}
	l.setV(l.bits(0, 5), r)
	return true
}

// addv lifts addv: the sum of the lanes, in one lane's width.
func (l *lifter) addv() bool {
	if l.bit(29) || l.bits(12, 5) != 0x1b {
		return false
	}
	w := l.vecWidth()
	size := l.bits(22, 2)
	lane := lift.Width(8 << size)
	if size == 3 || size == 2 && w == 64 {
		return false
	}
	v := lift.R(vNames[l.bits(5, 5)], 128)
	sum := l.b.Extract(v, 0, lane)
	for i := 1; i < int(w/lane); i++ {
		sum = l.b.Op2(lift.Add, lane, sum, l.b.Extract(v, i*int(lane), lane))
	}
	l.setV(l.bits(0, 5), sum)
	return true
}

// ld1st1 lifts ld1 and st1 of one to four consecutive registers (multiple
// structures, no offset or post-index): on a little-endian machine the
// same bytes as ldr/str of each register in turn.
func (l *lifter) ld1st1() bool {
	var nregs int
	switch l.bits(12, 4) {
	case 7:
		nregs = 1
	case 10:
		nregs = 2
	case 6:
		nregs = 3
	case 2:
		nregs = 4
	default:
		return false
	}
	w := l.vecWidth()
	bytes := int(w / 8)
	rn, rt := l.bits(5, 5), l.bits(0, 5)
	rts := make([]uint32, nregs)
	for i := range rts {
		rts[i] = (rt + uint32(i)) % 32
	}
	post := l.bit(23)
	base := l.regSP(rn, 64)
	if rn == 31 {
		low := l.b.Op2(lift.And, 64, base, lift.C(64, 15))
		bad := l.b.Op2(lift.Ne, 1, low, lift.C(64, 0))
		l.b.Emit(lift.Stmt{Op: lift.TrapIf, A: bad, Text: "sp alignment fault"})
	}
	load := l.bit(22)
	if load {
		vals := make([]lift.Operand, nregs)
		for i := range rts {
			at := base
			if i > 0 {
				at = l.b.Op2(lift.Add, 64, base, lift.C(64, uint64(i*bytes)))
			}
			vals[i] = l.b.Op1(lift.Load, w, at)
		}
		for i, r := range rts {
			l.setV(r, vals[i])
		}
	} else {
		for i, r := range rts {
			at := base
			if i > 0 {
				at = l.b.Op2(lift.Add, 64, base, lift.C(64, uint64(i*bytes)))
			}
			l.b.Emit(lift.Stmt{Op: lift.Store, A: at, B: l.vreg(r, w)})
		}
	}
	if post {
		var off lift.Operand
		if rm := l.bits(16, 5); rm == 31 {
			off = lift.C(64, uint64(nregs*bytes))
		} else {
			off = lift.R(xNames[rm], 64)
		}
		l.setRegSP(rn, l.b.Op2(lift.Add, 64, base, off))
	}
	return true
}

// ext lifts ext: the vector extracted from the pair Vm:Vn at byte imm4.
func (l *lifter) ext() bool {
	w := l.vecWidth()
	imm := l.bits(11, 4)
	if w == 64 && imm >= 8 {
		return false
	}
	n, m := l.vreg(l.bits(5, 5), w), l.vreg(l.bits(16, 5), w)
	r := n
	if imm != 0 {
		lo := l.b.Op2(lift.LShr, w, n, lift.C(8, uint64(8*imm)))
		hi := l.b.Op2(lift.Shl, w, m, lift.C(8, uint64(uint32(w)-8*imm)))
		r = l.b.Op2(lift.Or, w, lo, hi)
	}
	l.setV(l.bits(0, 5), r)
	return true
}

// shiftImm lifts the AdvSIMD shifts by immediate GCC and clang emit: sshr,
// ushr, shl, sshll/ushll (and their sxtl/uxtl aliases) and shrn.
func (l *lifter) shiftImm() bool {
	immh, immb := l.bits(19, 4), l.bits(16, 3)
	var esize uint32
	for i := uint32(3); ; i-- {
		if immh>>i&1 == 1 {
			esize = 8 << i
			break
		}
		if i == 0 {
			return false
		}
	}
	imm := immh<<3 | immb
	w := l.vecWidth()
	lane := lift.Width(esize)
	u := l.bit(29)
	rd, rn := l.bits(0, 5), l.bits(5, 5)
	var r lift.Operand
	switch opcode := l.bits(11, 5); {
	case opcode == 0 || opcode == 0x0a && !u: // sshr, ushr; shl
		if esize == 64 && w == 64 {
			return false
		}
		x := l.vreg(rn, w)
		switch {
		case opcode == 0x0a:
			r = l.b.Lanes(lift.Shl, lane, x, lift.C(8, uint64(imm-esize)))
		case u:
			r = l.b.Lanes(lift.LShr, lane, x, lift.C(8, uint64(2*esize-imm)))
		default:
			r = l.b.Lanes(lift.AShr, lane, x, lift.C(8, uint64(2*esize-imm)))
		}
	case opcode == 0x14: // sshll, ushll (sxtl, uxtl): widen the low or high half
		if esize == 64 {
			return false
		}
		shift := imm - esize
		v := lift.R(vNames[rn], 128)
		half := 0
		if w == 128 {
			half = 64
		}
		ext := lift.SExt
		if u {
			ext = lift.ZExt
		}
		r = c128(0, 0)
		for i := 0; i < int(64/esize); i++ {
			e := l.b.Extract(v, half+i*int(esize), lane)
			x := l.b.Op1(ext, 2*lane, e)
			if shift != 0 {
				x = l.b.Op2(lift.Shl, 2*lane, x, lift.C(8, uint64(shift)))
			}
			r = l.b.Insert(r, i*int(2*esize), x)
		}
	case opcode == 0x10 && !u: // shrn, shrn2: narrow the shifted lanes
		if esize == 64 {
			return false
		}
		shift := 2*esize - imm
		v := lift.R(vNames[rn], 128)
		r = lift.C(64, 0)
		for i := 0; i < int(64/esize); i++ {
			e := l.b.Extract(v, i*int(2*esize), 2*lane)
			if shift != 0 {
				e = l.b.Op2(lift.LShr, 2*lane, e, lift.C(8, uint64(shift)))
			}
			r = l.b.Insert(r, i*int(esize), l.b.Op1(lift.Trunc, lane, e))
		}
		if w == 128 { // shrn2 writes the upper half and keeps the lower
			l.b.Set(lift.R(vNames[rd], 128), lift.Insert, lift.R(vNames[rd], 128), r, none())
			l.b.In.Stmts[len(l.b.In.Stmts)-1].Aux = 64
			return true
		}
	default:
		return false
	}
	l.setV(rd, r)
	return true
}

// xtn lifts xtn and xtn2: each lane narrowed to half its width.
func (l *lifter) xtn() bool {
	size := l.bits(22, 2)
	if size == 3 {
		return false
	}
	lane := lift.Width(8 << size)
	v := lift.R(vNames[l.bits(5, 5)], 128)
	r := lift.C(64, 0)
	for i := 0; i < int(64/lane); i++ {
		e := l.b.Extract(v, i*int(2*lane), lane)
		r = l.b.Insert(r, i*int(lane), e)
	}
	rd := l.bits(0, 5)
	if l.bit(30) {
		l.b.Set(lift.R(vNames[rd], 128), lift.Insert, lift.R(vNames[rd], 128), r, none())
		l.b.In.Stmts[len(l.b.In.Stmts)-1].Aux = 64
		return true
	}
	l.setV(rd, r)
	return true
}
