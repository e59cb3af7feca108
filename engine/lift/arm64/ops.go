package arm64

import (
	"math/bits"

	"github.com/rea-re/rea/engine/lift"
)

// lift dispatches on the instruction word's encoding classes (ARM ARM C4.1)
// and reports whether it modelled the instruction.
func (l *lifter) lift() bool {
	e := l.enc
	switch {
	case e&0xfffff01f == 0xd503201f:
		// The hint space: nop, yield, bti, and the pointer authentication
		// hints, all no-ops on the modelled CPU (see the package doc).
		return true
	case e&0xffffffe0 == 0xd53bd040, e&0xffffffe0 == 0xd51bd040:
		// mrs/msr tpidr_el0: the thread pointer, a register of its own as
		// x86's fs_base.
		l.sysReg(lift.R("tpidr_el0", 64))
		return true
	case e&0xffffffe0 == 0xd53b4200, e&0xffffffe0 == 0xd51b4200: // mrs/msr nzcv
		l.nzcvReg()
		return true
	case e&0x3ffffc00 == 0x08dffc00, e&0x3ffffc00 == 0x089ffc00:
		return l.loadAcquireStoreRelease()
	case e&0x1f000000 == 0x10000000:
		return l.adr()
	case e&0x1f800000 == 0x11000000:
		return l.addSubImm()
	case e&0x1f800000 == 0x12000000:
		return l.logicalImm()
	case e&0x1f800000 == 0x12800000:
		return l.moveWide()
	case e&0x1f800000 == 0x13000000:
		return l.bitfield()
	case e&0x1f800000 == 0x13800000:
		return l.extr()
	case e&0x7c000000 == 0x14000000:
		return l.branchImm()
	case e&0xff000010 == 0x54000000:
		return l.branchCond()
	case e&0x7e000000 == 0x34000000:
		return l.compareBranch()
	case e&0x7e000000 == 0x36000000:
		return l.testBranch()
	case e&0xfe000000 == 0xd6000000:
		return l.branchReg()
	case e&0x1f000000 == 0x0a000000:
		return l.logicalShifted()
	case e&0x1f200000 == 0x0b000000:
		return l.addSubShifted()
	case e&0x1f200000 == 0x0b200000:
		return l.addSubExtended()
	case e&0x1fe00000 == 0x1a000000:
		return l.addSubCarry()
	case e&0x1fe00000 == 0x1a400000:
		return l.condCompare()
	case e&0x1fe00000 == 0x1a800000:
		return l.condSelect()
	case e&0x5fe00000 == 0x1ac00000:
		return l.dataProc2()
	case e&0x5fe00000 == 0x5ac00000:
		return l.dataProc1()
	case e&0x1f000000 == 0x1b000000:
		return l.dataProc3()
	case e&0x3b000000 == 0x39000000:
		return l.loadStoreUImm()
	case e&0x3b200000 == 0x38000000:
		return l.loadStoreImm9()
	case e&0x3b200c00 == 0x38200800:
		return l.loadStoreRegOff()
	case e&0x3b000000 == 0x18000000:
		return l.loadLiteral()
	case e&0x3a000000 == 0x28000000:
		return l.loadStorePair()
	case e&0x5f000000 == 0x1e000000:
		return l.scalarFP()
	case e&0x5f000000 == 0x1f000000:
		return l.fp3()
	case e&0x9ff80400 == 0x0f000400:
		return l.modifiedImm()
	case e&0x9f800400 == 0x0f000400:
		return l.shiftImm()
	case e&0xbf3ffc00 == 0x0e212800:
		return l.xtn()
	case e&0x9fe08400 == 0x0e000400:
		return l.copyForms()
	case e&0x9f200400 == 0x0e200400:
		return l.threeSame()
	case e&0x9f3e0c00 == 0x0e200800:
		return l.twoMisc()
	case e&0xbfe08400 == 0x2e000000:
		return l.ext()
	case e&0x9f3e0c00 == 0x0e300800:
		return l.addv()
	case e&0xbfbf0000 == 0x0c000000, e&0xbfa00000 == 0x0c800000:
		return l.ld1st1()
	}
	return false
}

func (l *lifter) adr() bool {
	imm := sext(uint64(l.bits(5, 19)<<2|l.bits(29, 2)), 21)
	v := l.pc + uint64(imm)
	if l.bit(31) { // adrp
		v = l.pc&^0xfff + uint64(imm)<<12
	}
	l.setReg(l.bits(0, 5), lift.C(64, v))
	return true
}

func (l *lifter) addSubImm() bool {
	w := l.regW()
	imm := uint64(l.bits(10, 12))
	if l.bit(22) {
		imm <<= 12
	}
	sub, setFlags := l.bit(30), l.bit(29)
	x, y := l.regSP(l.bits(5, 5), w), lift.C(w, imm)
	l.addSub(w, sub, setFlags, x, y, true)
	return true
}

// addSub computes x ± y, sets the flags if asked, and writes Rd (sp when
// rdSP and the flags are not set, as the immediate and extended forms say).
func (l *lifter) addSub(w lift.Width, sub, setFlags bool, x, y lift.Operand, rdSP bool) {
	op := lift.Add
	if sub {
		op = lift.Sub
	}
	r := l.b.Op2(op, w, x, y)
	if setFlags {
		if sub {
			l.subFlags(x, y, none(), r)
		} else {
			l.addFlags(x, y, none(), r)
		}
	}
	rd := l.bits(0, 5)
	if rdSP && !setFlags {
		l.setRegSP(rd, r)
	} else {
		l.setReg(rd, r)
	}
}

// decodeBitMasks is the ARM ARM's DecodeBitMasks for width w: the logical
// immediate (wmask) and the bitfield's top mask (tmask).
func decodeBitMasks(n, imms, immr uint32, immediate bool, w lift.Width) (wmask, tmask uint64, ok bool) {
	combined := n<<6 | (^imms & 0x3f)
	if combined == 0 {
		return 0, 0, false
	}
	length := uint(bits.Len32(combined)) - 1
	if length < 1 || 1<<length > uint(w) {
		return 0, 0, false
	}
	levels := uint32(1)<<length - 1
	if immediate && imms&levels == levels {
		return 0, 0, false
	}
	s, r := imms&levels, immr&levels
	d := (s - r) & levels
	esize := uint(1) << length
	ones := func(k uint32) uint64 {
		if k >= 64 {
			return ^uint64(0)
		}
		return 1<<k - 1
	}
	emask := ones(uint32(esize))
	welem := ones(s + 1)
	wrot := (welem>>r | welem<<(uint32(esize)-r)) & emask
	if r == 0 {
		wrot = welem
	}
	telem := ones(d + 1)
	for i := uint(0); i < uint(w); i += esize {
		wmask |= wrot << i
		tmask |= telem << i
	}
	return wmask, tmask, true
}

func (l *lifter) logicalImm() bool {
	w := l.regW()
	if w == 32 && l.bit(22) {
		return false
	}
	wmask, _, ok := decodeBitMasks(l.bits(22, 1), l.bits(10, 6), l.bits(16, 6), true, w)
	if !ok {
		return false
	}
	x, y := l.reg(l.bits(5, 5), w), lift.C(w, wmask)
	opc := l.bits(29, 2)
	op := [...]lift.Op{lift.And, lift.Or, lift.Xor, lift.And}[opc]
	r := l.b.Op2(op, w, x, y)
	if opc == 3 {
		l.logicFlags(r)
		l.setReg(l.bits(0, 5), r)
	} else {
		l.setRegSP(l.bits(0, 5), r)
	}
	return true
}

func (l *lifter) moveWide() bool {
	w := l.regW()
	hw := l.bits(21, 2)
	if w == 32 && hw > 1 {
		return false
	}
	imm := uint64(l.bits(5, 16))
	rd := l.bits(0, 5)
	switch l.bits(29, 2) {
	case 0: // movn
		l.setReg(rd, lift.C(w, ^(imm<<(16*hw))))
	case 2: // movz
		l.setReg(rd, lift.C(w, imm<<(16*hw)))
	case 3: // movk
		old := l.reg(rd, w)
		l.setReg(rd, l.b.Insert(old, int(16*hw), lift.C(16, imm)))
	default:
		return false
	}
	return true
}

// bitfield lifts sbfm, bfm and ubfm (and their aliases: asr, lsl, lsr,
// sbfx, ubfx, sbfiz, ubfiz, bfi, bfxil, sxtb, sxth, sxtw, uxtb, uxth) as the
// ARM ARM's pseudocode writes them, with the masks as constants.
func (l *lifter) bitfield() bool {
	w := l.regW()
	n := l.bits(22, 1)
	if (w == 64) != (n == 1) {
		return false
	}
	opc := l.bits(29, 2)
	if opc == 3 {
		return false
	}
	immr, imms := l.bits(16, 6), l.bits(10, 6)
	if w == 32 && (immr >= 32 || imms >= 32) {
		return false
	}
	wmask, tmask, ok := decodeBitMasks(n, imms, immr, false, w)
	if !ok {
		return false
	}
	rd := l.bits(0, 5)
	src := l.reg(l.bits(5, 5), w)
	rot := src
	if immr != 0 {
		rot = l.b.Op2(lift.Ror, w, src, lift.C(8, uint64(immr)))
	}
	if opc == 2 { // ubfm: the rotated field alone
		l.setReg(rd, l.b.Op2(lift.And, w, rot, lift.C(w, wmask&tmask)))
		return true
	}
	var r lift.Operand
	if opc == 0 { // sbfm: the field, and the replicated sign bit src<imms> above it
		r = l.b.Op2(lift.And, w, rot, lift.C(w, wmask&tmask))
		up := l.b.Op2(lift.Shl, w, src, lift.C(8, uint64(uint32(w)-1-imms)))
		top := l.b.Op2(lift.AShr, w, up, lift.C(8, uint64(w)-1))
		hi := l.b.Op2(lift.And, w, top, lift.C(w, ^tmask))
		r = l.b.Op2(lift.Or, w, hi, r)
	} else { // bfm: the field inserted into the destination
		dst := l.reg(rd, w)
		keep := l.b.Op2(lift.And, w, dst, lift.C(w, ^(wmask&tmask)))
		field := l.b.Op2(lift.And, w, rot, lift.C(w, wmask&tmask))
		r = l.b.Op2(lift.Or, w, keep, field)
	}
	l.setReg(rd, r)
	return true
}

func (l *lifter) extr() bool {
	w := l.regW()
	lsb := l.bits(10, 6)
	if (w == 64) != l.bit(22) || w == 32 && lsb >= 32 || l.bits(29, 2) != 0 || l.bit(21) {
		return false
	}
	hi, lo := l.reg(l.bits(5, 5), w), l.reg(l.bits(16, 5), w)
	r := lo
	if lsb != 0 {
		a := l.b.Op2(lift.LShr, w, lo, lift.C(8, uint64(lsb)))
		b := l.b.Op2(lift.Shl, w, hi, lift.C(8, uint64(uint32(w)-lsb)))
		r = l.b.Op2(lift.Or, w, a, b)
	}
	l.setReg(l.bits(0, 5), r)
	return true
}

func (l *lifter) target(field uint32, n uint) lift.Operand {
	return lift.C(64, l.pc+uint64(sext(uint64(field), n)*4))
}

func (l *lifter) branchImm() bool {
	t := l.target(l.bits(0, 26), 26)
	if l.bit(31) { // bl
		l.b.Assign(lift.R("x30", 64), lift.C(64, l.pc+4))
		l.b.Emit(lift.Stmt{Op: lift.Call, A: t})
		return true
	}
	l.b.Emit(lift.Stmt{Op: lift.Jump, A: t})
	return true
}

func (l *lifter) branchCond() bool {
	c := l.cond(l.bits(0, 4))
	l.b.Emit(lift.Stmt{Op: lift.Branch, A: c, B: l.target(l.bits(5, 19), 19)})
	return true
}

func (l *lifter) compareBranch() bool {
	w := l.regW()
	op := lift.Eq // cbz
	if l.bit(24) {
		op = lift.Ne
	}
	c := l.b.Op2(op, 1, l.reg(l.bits(0, 5), w), lift.C(w, 0))
	l.b.Emit(lift.Stmt{Op: lift.Branch, A: c, B: l.target(l.bits(5, 19), 19)})
	return true
}

func (l *lifter) testBranch() bool {
	bit := l.bits(31, 1)<<5 | l.bits(19, 5)
	var v lift.Operand
	if rt := l.bits(0, 5); rt == 31 {
		v = lift.C(1, 0)
	} else {
		v = l.b.Extract(lift.R(xNames[rt], 64), int(bit), 1)
	}
	op := lift.Eq // tbz
	if l.bit(24) {
		op = lift.Ne
	}
	c := l.b.Op2(op, 1, v, lift.C(1, 0))
	l.b.Emit(lift.Stmt{Op: lift.Branch, A: c, B: l.target(l.bits(5, 14), 14)})
	return true
}

func (l *lifter) branchReg() bool {
	// opc, op2 = 11111, op3 = 000000 (no pointer authentication), op4 = 0.
	if l.bits(16, 5) != 0x1f || l.bits(10, 6) != 0 || l.bits(0, 5) != 0 {
		return false
	}
	rn := l.bits(5, 5)
	t := l.reg(rn, 64)
	switch l.bits(21, 4) {
	case 0: // br
		l.b.Emit(lift.Stmt{Op: lift.Jump, A: t})
	case 1: // blr: the target is read before x30 is written
		if !t.IsConst() {
			c := l.b.Temp(64)
			l.b.Assign(c, t)
			t = c
		}
		l.b.Assign(lift.R("x30", 64), lift.C(64, l.pc+4))
		l.b.Emit(lift.Stmt{Op: lift.Call, A: t})
	case 2: // ret
		l.b.Emit(lift.Stmt{Op: lift.Return, A: t})
	default:
		return false
	}
	return true
}

// shifted applies a shifted-register form's shift to Rm.
func (l *lifter) shifted(w lift.Width, allowRor bool) (lift.Operand, bool) {
	amount := l.bits(10, 6)
	if w == 32 && amount >= 32 {
		return none(), false
	}
	y := l.reg(l.bits(16, 5), w)
	if amount == 0 {
		return y, true
	}
	op := [...]lift.Op{lift.Shl, lift.LShr, lift.AShr, lift.Ror}[l.bits(22, 2)]
	if op == lift.Ror && !allowRor {
		return none(), false
	}
	return l.b.Op2(op, w, y, lift.C(8, uint64(amount))), true
}

func (l *lifter) logicalShifted() bool {
	w := l.regW()
	y, ok := l.shifted(w, true)
	if !ok {
		return false
	}
	if l.bit(21) {
		y = l.b.Op1(lift.Not, w, y)
	}
	x := l.reg(l.bits(5, 5), w)
	opc := l.bits(29, 2)
	r := l.b.Op2([...]lift.Op{lift.And, lift.Or, lift.Xor, lift.And}[opc], w, x, y)
	if opc == 3 {
		l.logicFlags(r)
	}
	l.setReg(l.bits(0, 5), r)
	return true
}

func (l *lifter) addSubShifted() bool {
	w := l.regW()
	if l.bits(22, 2) == 3 {
		return false
	}
	y, ok := l.shifted(w, false)
	if !ok {
		return false
	}
	l.addSub(w, l.bit(30), l.bit(29), l.reg(l.bits(5, 5), w), y, false)
	return true
}

// extended reads register r extended by option and shifted left by shift,
// at width w (the extended-register forms).
func (l *lifter) extended(r, option, shift uint32, w lift.Width) lift.Operand {
	sw := [...]lift.Width{8, 16, 32, 64}[option&3]
	var v lift.Operand
	switch {
	case sw >= w:
		v = l.reg(r, w)
	case option&4 != 0:
		v = l.b.Op1(lift.SExt, w, l.reg(r, sw))
	default:
		v = l.b.Op1(lift.ZExt, w, l.reg(r, sw))
	}
	if shift != 0 {
		v = l.b.Op2(lift.Shl, w, v, lift.C(8, uint64(shift)))
	}
	return v
}

func (l *lifter) addSubExtended() bool {
	w := l.regW()
	shift := l.bits(10, 3)
	if l.bits(22, 2) != 0 || shift > 4 {
		return false
	}
	y := l.extended(l.bits(16, 5), l.bits(13, 3), shift, w)
	l.addSub(w, l.bit(30), l.bit(29), l.regSP(l.bits(5, 5), w), y, true)
	return true
}

func (l *lifter) addSubCarry() bool {
	if l.bits(10, 6) != 0 {
		return false
	}
	w := l.regW()
	x, y := l.reg(l.bits(5, 5), w), l.reg(l.bits(16, 5), w)
	var r lift.Operand
	if l.bit(30) { // sbc: x - y - !c
		borrow := l.b.Op1(lift.Not, 1, flagC)
		d := l.b.Op2(lift.Sub, w, x, y)
		r = l.b.Op2(lift.Sub, w, d, l.b.Op1(lift.ZExt, w, borrow))
		if l.bit(29) {
			l.subFlags(x, y, borrow, r)
		}
	} else {
		s := l.b.Op2(lift.Add, w, x, y)
		r = l.b.Op2(lift.Add, w, s, l.b.Op1(lift.ZExt, w, flagC))
		if l.bit(29) {
			l.addFlags(x, y, flagC, r)
		}
	}
	l.setReg(l.bits(0, 5), r)
	return true
}

func (l *lifter) condCompare() bool {
	if !l.bit(29) || l.bit(10) || l.bit(4) {
		return false
	}
	w := l.regW()
	holds := l.cond(l.bits(12, 4))
	if holds.Kind == lift.Reg {
		// The condition is read after the flag it names is written.
		h := l.b.Temp(1)
		l.b.Assign(h, holds)
		holds = h
	}
	x := l.reg(l.bits(5, 5), w)
	var y lift.Operand
	if l.bit(11) {
		y = lift.C(w, uint64(l.bits(16, 5)))
	} else {
		y = l.reg(l.bits(16, 5), w)
	}
	nzcv := l.bits(0, 4)
	op, carry, over := lift.Add, lift.CarryAdd, lift.OverflowAdd
	if l.bit(30) { // ccmp
		op, carry, over = lift.Sub, lift.BorrowSub, lift.OverflowSub
	}
	r := l.b.Op2(op, w, x, y)
	n := l.b.Op2(lift.Slt, 1, r, lift.C(w, 0))
	z := l.b.Op2(lift.Eq, 1, r, lift.C(w, 0))
	c := l.b.Op2(carry, 1, x, y)
	if carry == lift.BorrowSub {
		c = l.b.Op1(lift.Not, 1, c)
	}
	v := l.b.Op2(over, 1, x, y)
	for i, f := range [...]struct{ reg, val lift.Operand }{{flagN, n}, {flagZ, z}, {flagC, c}, {flagV, v}} {
		l.b.Set(f.reg, lift.Select, holds, f.val, lift.C(1, uint64(nzcv>>(3-i)&1)))
	}
	return true
}

func (l *lifter) condSelect() bool {
	if l.bit(29) || l.bit(11) {
		return false
	}
	w := l.regW()
	holds := l.cond(l.bits(12, 4))
	x, y := l.reg(l.bits(5, 5), w), l.reg(l.bits(16, 5), w)
	switch l.bits(30, 1)<<1 | l.bits(10, 1) {
	case 1: // csinc
		y = l.b.Op2(lift.Add, w, y, lift.C(w, 1))
	case 2: // csinv
		y = l.b.Op1(lift.Not, w, y)
	case 3: // csneg
		y = l.b.Op1(lift.Neg, w, y)
	}
	l.setReg(l.bits(0, 5), l.b.Op3(lift.Select, w, holds, x, y))
	return true
}

func (l *lifter) dataProc2() bool {
	if l.bit(29) {
		return false
	}
	w := l.regW()
	x, y := l.reg(l.bits(5, 5), w), l.reg(l.bits(16, 5), w)
	var r lift.Operand
	switch op := l.bits(10, 6); op {
	case 2, 3: // udiv, sdiv: division by zero gives 0, no fault
		zero := l.b.Op2(lift.Eq, 1, y, lift.C(w, 0))
		d := l.b.Op3(lift.Select, w, zero, lift.C(w, 1), y)
		q := l.b.Op2([...]lift.Op{lift.UDiv, lift.SDiv}[op-2], w, x, d)
		r = l.b.Op3(lift.Select, w, zero, lift.C(w, 0), q)
	case 8, 9, 10, 11: // lslv, lsrv, asrv, rorv: the count modulo the width
		n := l.b.Op2(lift.And, w, y, lift.C(w, uint64(w)-1))
		r = l.b.Op2([...]lift.Op{lift.Shl, lift.LShr, lift.AShr, lift.Ror}[op-8], w, x, n)
	default:
		return false
	}
	l.setReg(l.bits(0, 5), r)
	return true
}

func (l *lifter) dataProc1() bool {
	if l.bit(29) || l.bits(16, 5) != 0 {
		return false
	}
	w := l.regW()
	x := l.reg(l.bits(5, 5), w)
	var r lift.Operand
	switch op := l.bits(10, 6); {
	case op == 0: // rbit: swap bits, bit pairs, nibbles, then bytes
		r = x
		for i, m := range [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0f0f0f0f0f0f0f0f} {
			r = l.swapFields(w, r, 1<<i, m)
		}
		r = l.b.Op1(lift.Bswap, w, r)
	case op == 1: // rev16
		r = l.swapFields(w, x, 8, 0x00ff00ff00ff00ff)
	case op == 2 && w == 64: // rev32
		s := l.b.Op1(lift.Bswap, w, x)
		r = l.b.Op2(lift.Rol, w, s, lift.C(8, 32))
	case op == 2 || op == 3 && w == 64: // rev
		r = l.b.Op1(lift.Bswap, w, x)
	case op == 4: // clz
		r = l.b.Op1(lift.Clz, w, x)
	case op == 5: // cls: the leading zeros of x ^ (x >> 1), less one
		s := l.b.Op2(lift.AShr, w, x, lift.C(8, 1))
		d := l.b.Op2(lift.Xor, w, x, s)
		c := l.b.Op1(lift.Clz, w, d)
		r = l.b.Op2(lift.Sub, w, c, lift.C(w, 1))
	default:
		return false
	}
	l.setReg(l.bits(0, 5), r)
	return true
}

// swapFields swaps adjacent n-bit fields of x: ((x >> n) & m) | ((x & m) << n).
func (l *lifter) swapFields(w lift.Width, x lift.Operand, n uint, m uint64) lift.Operand {
	a := l.b.Op2(lift.LShr, w, x, lift.C(8, uint64(n)))
	a = l.b.Op2(lift.And, w, a, lift.C(w, m))
	b := l.b.Op2(lift.And, w, x, lift.C(w, m))
	b = l.b.Op2(lift.Shl, w, b, lift.C(8, uint64(n)))
	return l.b.Op2(lift.Or, w, a, b)
}

func (l *lifter) dataProc3() bool {
	if l.bits(29, 2) != 0 {
		return false
	}
	w := l.regW()
	rd, rn, rm, ra := l.bits(0, 5), l.bits(5, 5), l.bits(16, 5), l.bits(10, 5)
	sub := l.bit(15)
	op31 := l.bits(21, 3)
	var r lift.Operand
	switch {
	case op31 == 0: // madd, msub
		p := l.b.Op2(lift.Mul, w, l.reg(rn, w), l.reg(rm, w))
		r = l.accumulate(w, l.reg(ra, w), p, sub)
	case w == 64 && (op31 == 1 || op31 == 5): // smaddl, smsubl, umaddl, umsubl
		ext := lift.SExt
		if op31 == 5 {
			ext = lift.ZExt
		}
		x := l.b.Op1(ext, 64, l.reg(rn, 32))
		y := l.b.Op1(ext, 64, l.reg(rm, 32))
		p := l.b.Op2(lift.Mul, 64, x, y)
		r = l.accumulate(64, l.reg(ra, 64), p, sub)
	case w == 64 && !sub && ra == 31 && (op31 == 2 || op31 == 6): // smulh, umulh
		ext := lift.SExt
		if op31 == 6 {
			ext = lift.ZExt
		}
		x := l.b.Op1(ext, 128, l.reg(rn, 64))
		y := l.b.Op1(ext, 128, l.reg(rm, 64))
		p := l.b.Op2(lift.Mul, 128, x, y)
		r = l.b.Extract(p, 64, 64)
	default:
		return false
	}
	l.setReg(rd, r)
	return true
}

func (l *lifter) accumulate(w lift.Width, a, p lift.Operand, sub bool) lift.Operand {
	if sub {
		return l.b.Op2(lift.Sub, w, a, p)
	}
	if a.IsConst() && a.Lo == 0 { // mul, smull, umull: ra is the zero register
		return p
	}
	return l.b.Op2(lift.Add, w, a, p)
}

// sysReg lifts mrs and msr of a system register the IR names.
func (l *lifter) sysReg(r lift.Operand) {
	rt := l.bits(0, 5)
	if l.bit(21) { // mrs
		l.setReg(rt, r)
		return
	}
	l.b.Assign(r, l.reg(rt, 64))
}

// nzcvReg lifts mrs and msr nzcv: the flags are bits 31 to 28.
func (l *lifter) nzcvReg() {
	rt := l.bits(0, 5)
	flags := [...]lift.Operand{flagN, flagZ, flagC, flagV}
	if l.bit(21) { // mrs
		v := lift.C(64, 0)
		for i, f := range flags {
			x := l.b.Op1(lift.ZExt, 64, f)
			x = l.b.Op2(lift.Shl, 64, x, lift.C(8, uint64(31-i)))
			v = l.b.Op2(lift.Or, 64, v, x)
		}
		l.setReg(rt, v)
		return
	}
	x := l.reg(rt, 64)
	for i, f := range flags {
		if x.IsConst() {
			l.b.Assign(f, lift.C(1, 0))
			continue
		}
		l.b.Set(f, lift.Extract, x, none(), none())
		l.b.In.Stmts[len(l.b.In.Stmts)-1].Aux = int32(31 - i)
	}
}

// loadAcquireStoreRelease lifts ldar and stlr (and their byte and
// halfword forms): ordinary loads and stores in a single-threaded
// semantics, except that a misaligned address faults whatever SCTLR says.
func (l *lifter) loadAcquireStoreRelease() bool {
	size := l.bits(30, 2)
	n := uint64(1) << size
	rn, rt := l.bits(5, 5), l.bits(0, 5)
	addr := l.regSP(rn, 64)
	if n > 1 {
		low := l.b.Op2(lift.And, 64, addr, lift.C(64, n-1))
		bad := l.b.Op2(lift.Ne, 1, low, lift.C(64, 0))
		l.b.Emit(lift.Stmt{Op: lift.TrapIf, A: bad, Text: "alignment fault"})
	}
	w := lift.Width(8 * n)
	if l.enc&0x3ffffc00 == 0x089ffc00 { // stlr
		l.b.Emit(lift.Stmt{Op: lift.Store, A: addr, B: l.reg(rt, w)})
		return true
	}
	l.setReg(rt, l.b.Op1(lift.Load, w, addr))
	return true
}
