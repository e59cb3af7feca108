package x86

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rea-re/rea/engine/lift"
)

func (l *lifter) lift() {
	in := l.in
	b := l.b
	for _, p := range in.Prefix {
		if p == 0 {
			break
		}
		if p&x86asm.PrefixInvalid != 0 {
			l.unmodelled("invalid prefix")
			return
		}
	}
	op := in.Op
	name := op.String()
	switch {
	case strings.HasPrefix(name, "CMOV"):
		w := l.width(l.arg(0))
		c := l.cond(name[4:])
		src := l.read(l.arg(1), w)
		dst := l.read(l.arg(0), w)
		l.write(l.arg(0), b.Op3(lift.Select, w, c, src, dst))
		return
	case strings.HasPrefix(name, "SET") && len(name) <= 5:
		c := l.cond(name[3:])
		l.write(l.arg(0), b.Op1(lift.ZExt, 8, c))
		return
	case name[0] == 'J' && name != "JMP" && name != "JCXZ" && name != "JECXZ" && name != "JRCXZ":
		c := l.cond(name[1:])
		b.Emit(lift.Stmt{Op: lift.Branch, A: c, B: l.read(l.arg(0), l.aw)})
		return
	}
	switch op {
	case x86asm.NOP, x86asm.PAUSE, x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHNTA,
		x86asm.LFENCE, x86asm.MFENCE, x86asm.SFENCE:
		// No architectural effect on registers, flags or memory.
	case x86asm.MOV:
		if l.isSegment(0) || l.isSegment(1) {
			l.unmodelled("segment register move")
			return
		}
		w := l.width(l.arg(0))
		l.write(l.arg(0), l.read(l.arg(1), w))
	case x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD:
		w := l.width(l.arg(0))
		v := l.read(l.arg(1), l.width(l.arg(1)))
		ext := lift.ZExt
		switch {
		case v.Width > w: // movsxd r16, r/m32 keeps the low half
			ext = lift.Trunc
		case op != x86asm.MOVZX:
			ext = lift.SExt
		}
		l.write(l.arg(0), b.Op1(ext, w, v))
	case x86asm.LEA:
		m, ok := l.arg(1).(x86asm.Mem)
		if !ok {
			l.unmodelled("lea without a memory operand")
			return
		}
		w := l.width(l.arg(0))
		a := l.address(m, true)
		switch {
		case a.Width > w:
			a = b.Op1(lift.Trunc, w, a)
		case a.Width < w:
			a = b.Op1(lift.ZExt, w, a)
		}
		l.write(l.arg(0), a)
	case x86asm.PUSH:
		w := l.stackWidth()
		if _, isReg := l.arg(0).(x86asm.Reg); isReg && l.isSegment(0) {
			l.unmodelled("segment register push")
			return
		}
		l.push(l.read(l.arg(0), w))
	case x86asm.POP:
		if l.isSegment(0) {
			l.unmodelled("segment register pop")
			return
		}
		l.write(l.arg(0), l.pop(l.stackWidth()))
	case x86asm.ADD, x86asm.SUB, x86asm.ADC, x86asm.SBB, x86asm.CMP:
		w := l.width(l.arg(0))
		x := l.read(l.arg(0), w)
		y := l.read(l.arg(1), w)
		carry := none()
		if op == x86asm.ADC || op == x86asm.SBB {
			// A temporary: the flag statements below overwrite cf before
			// of and af read the carry in.
			carry = b.Op1(lift.Copy, 1, cf)
		}
		aop := lift.Add
		if op != x86asm.ADD && op != x86asm.ADC {
			aop = lift.Sub
		}
		r := b.Op2(aop, w, x, y)
		if carry.Kind != lift.None {
			r = b.Op2(aop, w, r, b.Op1(lift.ZExt, w, carry))
		}
		l.arithFlags(aop, x, y, carry, r, true)
		if op != x86asm.CMP {
			l.write(l.arg(0), r)
		}
	case x86asm.INC, x86asm.DEC:
		w := l.width(l.arg(0))
		x := l.read(l.arg(0), w)
		aop := lift.Add
		if op == x86asm.DEC {
			aop = lift.Sub
		}
		one := lift.C(w, 1)
		r := b.Op2(aop, w, x, one)
		l.arithFlags(aop, x, one, none(), r, false)
		l.write(l.arg(0), r)
	case x86asm.NEG:
		w := l.width(l.arg(0))
		x := l.read(l.arg(0), w)
		zero := lift.C(w, 0)
		r := b.Op1(lift.Neg, w, x)
		l.arithFlags(lift.Sub, zero, x, none(), r, true)
		l.write(l.arg(0), r)
	case x86asm.NOT:
		w := l.width(l.arg(0))
		l.write(l.arg(0), b.Op1(lift.Not, w, l.read(l.arg(0), w)))
	case x86asm.AND, x86asm.OR, x86asm.XOR, x86asm.TEST:
		w := l.width(l.arg(0))
		x := l.read(l.arg(0), w)
		y := l.read(l.arg(1), w)
		lop := lift.And
		switch op {
		case x86asm.OR:
			lop = lift.Or
		case x86asm.XOR:
			lop = lift.Xor
		}
		r := b.Op2(lop, w, x, y)
		l.logicFlags(r)
		if op != x86asm.TEST {
			l.write(l.arg(0), r)
		}
	case x86asm.SHL, x86asm.SHR, x86asm.SAR:
		l.shift()
	case x86asm.ROL, x86asm.ROR:
		l.rotate()
	case x86asm.IMUL, x86asm.MUL:
		l.multiply()
	case x86asm.DIV, x86asm.IDIV:
		l.divide()
	case x86asm.CBW, x86asm.CWDE, x86asm.CDQE:
		w := lift.Width(in.DataSize)
		a := l.gpr(0)
		v := b.Op1(lift.SExt, w, b.Extract(a, 0, w/2))
		l.writeReg(a, 0, w, v)
	case x86asm.CWD, x86asm.CDQ, x86asm.CQO:
		w := lift.Width(in.DataSize)
		v := b.Op2(lift.AShr, w, b.Extract(l.gpr(0), 0, w), lift.C(8, uint64(w-1)))
		l.writeReg(l.gpr(2), 0, w, v)
	case x86asm.XCHG:
		w := l.width(l.arg(0))
		// Both values are read into temporaries before either write.
		x := b.Op1(lift.Copy, w, l.read(l.arg(0), w))
		y := b.Op1(lift.Copy, w, l.read(l.arg(1), w))
		l.write(l.arg(0), y)
		l.write(l.arg(1), x)
	case x86asm.BSWAP:
		w := l.width(l.arg(0))
		if w < 32 {
			l.unmodelled("bswap of a 16-bit register (undefined)")
			return
		}
		l.write(l.arg(0), b.Op1(lift.Bswap, w, l.read(l.arg(0), w)))
	case x86asm.BT, x86asm.BTS, x86asm.BTR, x86asm.BTC:
		l.bitTest()
	case x86asm.BSF, x86asm.BSR, x86asm.TZCNT, x86asm.LZCNT, x86asm.POPCNT:
		l.bitCount()
	case x86asm.JMP:
		b.Emit(lift.Stmt{Op: lift.Jump, A: l.target()})
	case x86asm.CALL:
		t := l.target()
		l.push(lift.C(l.aw, l.next))
		b.Emit(lift.Stmt{Op: lift.Call, A: t})
	case x86asm.RET:
		t := l.pop(l.aw)
		if l.nargs() == 1 {
			b.Set(l.sp(), lift.Add, l.sp(), lift.C(l.aw, uint64(l.arg(0).(x86asm.Imm))), none())
		}
		b.Emit(lift.Stmt{Op: lift.Return, A: t})
	case x86asm.LEAVE:
		b.Assign(l.sp(), l.gpr(5))
		l.writeReg(l.gpr(5), 0, l.aw, l.pop(l.aw))
	case x86asm.CLC, x86asm.STC, x86asm.CMC, x86asm.CLD, x86asm.STD:
		switch op {
		case x86asm.CLC:
			b.Assign(cf, lift.C(1, 0))
		case x86asm.STC:
			b.Assign(cf, lift.C(1, 1))
		case x86asm.CMC:
			b.Set(cf, lift.Xor, cf, lift.C(1, 1), none())
		case x86asm.CLD:
			b.Assign(df, lift.C(1, 0))
		case x86asm.STD:
			b.Assign(df, lift.C(1, 1))
		}
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ, x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ:
		l.stringOp()
	case x86asm.SHLD, x86asm.SHRD:
		l.doubleShift()
	case x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ:
		w := map[x86asm.Op]lift.Width{x86asm.JCXZ: 16, x86asm.JECXZ: 32, x86asm.JRCXZ: 64}[op]
		c := b.Op2(lift.Eq, 1, b.Extract(l.gpr(1), 0, w), lift.C(w, 0))
		b.Emit(lift.Stmt{Op: lift.Branch, A: c, B: l.read(l.arg(0), l.aw)})
	case x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		// The counter is rcx, ecx or cx by the address size; no flag changes.
		w := lift.Width(in.AddrSize)
		cx := b.Op2(lift.Sub, w, b.Extract(l.gpr(1), 0, w), lift.C(w, 1))
		l.writeReg(l.gpr(1), 0, w, cx)
		c := b.Op2(lift.Ne, 1, cx, lift.C(w, 0))
		switch op {
		case x86asm.LOOPE:
			c = b.Op2(lift.And, 1, c, zf)
		case x86asm.LOOPNE:
			c = b.Op2(lift.And, 1, c, b.Op2(lift.Xor, 1, zf, lift.C(1, 1)))
		}
		b.Emit(lift.Stmt{Op: lift.Branch, A: c, B: l.read(l.arg(0), l.aw)})
	case x86asm.UD2, x86asm.UD1, x86asm.UD0:
		b.Emit(lift.Stmt{Op: lift.TrapIf, A: lift.C(1, 1), Text: "invalid opcode"})
	case x86asm.HLT:
		b.Emit(lift.Stmt{Op: lift.TrapIf, A: lift.C(1, 1), Text: "general protection (hlt in user mode)"})
	case x86asm.INT:
		if imm, ok := l.arg(0).(x86asm.Imm); ok && imm == 3 {
			b.Emit(lift.Stmt{Op: lift.TrapIf, A: lift.C(1, 1), Text: "breakpoint"})
			return
		}
		l.unmodelled("software interrupt")
	case x86asm.XADD:
		// dst, src = dst + src, dst (the lock prefix only adds atomicity).
		w := l.width(l.arg(0))
		x := b.Op1(lift.Copy, w, l.read(l.arg(0), w))
		y := b.Op1(lift.Copy, w, l.read(l.arg(1), w))
		r := b.Op2(lift.Add, w, x, y)
		l.arithFlags(lift.Add, x, y, none(), r, true)
		l.write(l.arg(1), x)
		l.write(l.arg(0), r)
	case x86asm.CMPXCHG:
		// Compare the accumulator with dst: equal → dst = src, else the
		// accumulator = dst; flags as cmp acc, dst. The destination is
		// always written (with its own value when unequal), as the CPU does.
		w := l.width(l.arg(0))
		acc := b.Op1(lift.Copy, w, b.Extract(l.gpr(0), 0, w))
		x := b.Op1(lift.Copy, w, l.read(l.arg(0), w))
		y := l.read(l.arg(1), w)
		r := b.Op2(lift.Sub, w, acc, x)
		l.arithFlags(lift.Sub, acc, x, none(), r, true)
		equal := b.Op2(lift.Eq, 1, acc, x)
		if reg, isReg := l.arg(0).(x86asm.Reg); isReg && w == 32 && l.mode == 64 {
			// A 32-bit register operand is written (zero-extending) only
			// where it takes the source, eax only where it does not: the
			// upper halves of the others stay, as the CPU leaves them.
			full, _, _, _ := l.location(reg)
			b.Set(full, lift.Select, equal, b.Op1(lift.ZExt, 64, y), full)
			b.Set(l.gpr(0), lift.Select, equal, l.gpr(0), b.Op1(lift.ZExt, 64, x))
			return
		}
		l.write(l.arg(0), b.Op3(lift.Select, w, equal, y, x))
		l.writeReg(l.gpr(0), 0, w, b.Op3(lift.Select, w, equal, acc, x))
	default:
		if !l.sse() && !l.x87() {
			l.unmodelled(unmodelledReason(op, l.b.In.Mnemonic))
		}
	}
}

// stackWidth is the operand size of push and pop: the address width
// unless an operand-size prefix makes it 16 (x86asm reports 32 for push
// imm in 64-bit mode, where the operand is 64 bits).
func (l *lifter) stackWidth() lift.Width {
	if l.in.DataSize == 16 {
		return 16
	}
	return l.aw
}

func (l *lifter) isSegment(i int) bool {
	r, ok := l.arg(i).(x86asm.Reg)
	return ok && r >= x86asm.ES && r <= x86asm.GS
}

// target is a jump's or call's destination: a constant for a relative one,
// else the register or memory value (indirect).
func (l *lifter) target() lift.Operand {
	a := l.arg(0)
	if _, ok := a.(x86asm.Rel); ok {
		return l.read(a, l.aw)
	}
	if l.width(a) != l.aw {
		l.unmodelled("far or 16-bit indirect transfer")
		return lift.C(l.aw, 0)
	}
	// A temporary, so that a call's push cannot change it (call rsp).
	return l.b.Op1(lift.Copy, l.aw, l.read(a, l.aw))
}

// shift lifts shl, shr and sar. A count of zero changes nothing (not even
// the flags); cf is the last bit out (undefined when the count exceeds the
// operand for 8- and 16-bit operands), of is defined for a count of one
// only, af is undefined.
func (l *lifter) shift() {
	b, op := l.b, l.in.Op
	w := l.width(l.arg(0))
	x := l.read(l.arg(0), w)
	m := uint64(31)
	if w == 64 {
		m = 63
	}
	n := b.Op2(lift.And, 8, l.read(l.arg(1), 8), lift.C(8, m))
	sop := lift.Shl
	switch op {
	case x86asm.SHR:
		sop = lift.LShr
	case x86asm.SAR:
		sop = lift.AShr
	}
	r := b.Op2(sop, w, x, n)
	var out lift.Operand
	if op == x86asm.SHL {
		// The last bit out is bit w-n of x.
		out = b.Op2(lift.LShr, w, x, b.Op2(lift.Sub, 8, lift.C(8, uint64(w)), n))
	} else {
		out = b.Op2(sop, w, x, b.Op2(lift.Sub, 8, n, lift.C(8, 1)))
	}
	newCF := b.Op1(lift.Trunc, 1, out)
	if w < 32 {
		big := b.Op2(lift.Ult, 1, lift.C(8, uint64(w)), n)
		newCF = b.Op3(lift.Select, 1, big, b.Op1(lift.Undef, 1, none()), newCF)
	}
	msb := func(v lift.Operand) lift.Operand { return b.Extract(v, int(v.Width)-1, 1) }
	var oneOF lift.Operand
	switch op {
	case x86asm.SHL:
		oneOF = b.Op2(lift.Xor, 1, msb(r), newCF)
	case x86asm.SHR:
		oneOF = msb(x)
	default:
		oneOF = lift.C(1, 0)
	}
	isOne := b.Op2(lift.Eq, 1, n, lift.C(8, 1))
	newOF := b.Op3(lift.Select, 1, isOne, oneOF, b.Op1(lift.Undef, 1, none()))
	zero := b.Op2(lift.Eq, 1, n, lift.C(8, 0))
	keep := func(f, v lift.Operand) { b.Set(f, lift.Select, zero, f, v) }
	keep(cf, newCF)
	keep(of, newOF)
	keep(zf, b.Op2(lift.Eq, 1, r, lift.C(w, 0)))
	keep(sf, b.Op2(lift.Slt, 1, r, lift.C(w, 0)))
	keep(pf, b.Op1(lift.Parity, 1, r))
	keep(af, b.Op1(lift.Undef, 1, none()))
	l.write(l.arg(0), r)
}

// rotate lifts rol and ror: only cf and of change, and only when the masked
// count is not zero; of is defined for a count of one.
func (l *lifter) rotate() {
	b, op := l.b, l.in.Op
	w := l.width(l.arg(0))
	x := l.read(l.arg(0), w)
	m := uint64(31)
	if w == 64 {
		m = 63
	}
	n := b.Op2(lift.And, 8, l.read(l.arg(1), 8), lift.C(8, m))
	rop := lift.Rol
	if op == x86asm.ROR {
		rop = lift.Ror
	}
	r := b.Op2(rop, w, x, n)
	var newCF, oneOF lift.Operand
	msb := b.Extract(r, int(w)-1, 1)
	if op == x86asm.ROL {
		newCF = b.Op1(lift.Trunc, 1, r)
		oneOF = b.Op2(lift.Xor, 1, msb, newCF)
	} else {
		newCF = msb
		oneOF = b.Op2(lift.Xor, 1, msb, b.Extract(r, int(w)-2, 1))
	}
	isOne := b.Op2(lift.Eq, 1, n, lift.C(8, 1))
	newOF := b.Op3(lift.Select, 1, isOne, oneOF, b.Op1(lift.Undef, 1, none()))
	zero := b.Op2(lift.Eq, 1, n, lift.C(8, 0))
	b.Set(cf, lift.Select, zero, cf, newCF)
	b.Set(of, lift.Select, zero, of, newOF)
	l.write(l.arg(0), r)
}

// multiply lifts mul and the three forms of imul. cf = of = the product
// does not fit the destination; sf, zf, af and pf are undefined.
func (l *lifter) multiply() {
	b, op := l.b, l.in.Op
	ext := lift.SExt
	if op == x86asm.MUL {
		ext = lift.ZExt
	}
	var x, y lift.Operand
	var w lift.Width
	switch l.nargs() {
	case 1:
		w = l.width(l.arg(0))
		x = b.Extract(l.gpr(0), 0, w)
		y = l.read(l.arg(0), w)
	case 2:
		w = l.width(l.arg(0))
		x = l.read(l.arg(0), w)
		y = l.read(l.arg(1), w)
	default:
		w = l.width(l.arg(0))
		x = l.read(l.arg(1), w)
		y = l.read(l.arg(2), w)
	}
	full := b.Op2(lift.Mul, 2*w, b.Op1(ext, 2*w, x), b.Op1(ext, 2*w, y))
	lo := b.Op1(lift.Trunc, w, full)
	hi := b.Extract(full, int(w), w)
	var fits lift.Operand
	if op == x86asm.MUL {
		fits = b.Op2(lift.Eq, 1, hi, lift.C(w, 0))
	} else {
		fits = b.Op2(lift.Eq, 1, b.Op1(lift.SExt, 2*w, lo), full)
	}
	over := b.Op2(lift.Xor, 1, fits, lift.C(1, 1))
	b.Assign(cf, over)
	b.Assign(of, over)
	l.undef(sf, zf, af, pf)
	if l.nargs() == 1 {
		if w == 8 {
			l.writeReg(l.gpr(0), 0, 16, full)
		} else {
			l.writeReg(l.gpr(0), 0, w, lo)
			l.writeReg(l.gpr(2), 0, w, hi)
		}
		return
	}
	l.write(l.arg(0), lo)
}

// divide lifts div and idiv: the dividend is ah:al (8-bit), else dx:ax,
// edx:eax or rdx:rax; a zero divisor or a quotient that does not fit is
// the divide error (#DE), explicit as TrapIf. Every flag is undefined.
func (l *lifter) divide() {
	b, op := l.b, l.in.Op
	w := l.width(l.arg(0))
	d := l.read(l.arg(0), w)
	var dividend lift.Operand
	if w == 8 {
		dividend = b.Extract(l.gpr(0), 0, 16)
	} else {
		dividend = b.Insert(b.Op1(lift.ZExt, 2*w, b.Extract(l.gpr(0), 0, w)), int(w), b.Extract(l.gpr(2), 0, w))
	}
	ext, div, rem := lift.ZExt, lift.UDiv, lift.URem
	if op == x86asm.IDIV {
		ext, div, rem = lift.SExt, lift.SDiv, lift.SRem
	}
	b.Emit(lift.Stmt{Op: lift.TrapIf, A: b.Op2(lift.Eq, 1, d, lift.C(w, 0)), Text: "divide error"})
	dd := b.Op1(ext, 2*w, d)
	q := b.Op2(div, 2*w, dividend, dd)
	r := b.Op2(rem, 2*w, dividend, dd)
	qlo := b.Op1(lift.Trunc, w, q)
	fits := b.Op2(lift.Eq, 1, b.Op1(ext, 2*w, qlo), q)
	b.Emit(lift.Stmt{Op: lift.TrapIf, A: b.Op2(lift.Xor, 1, fits, lift.C(1, 1)), Text: "divide error"})
	rlo := b.Op1(lift.Trunc, w, r)
	if w == 8 {
		l.writeReg(l.gpr(0), 0, 16, b.Insert(b.Op1(lift.ZExt, 16, qlo), 8, rlo))
	} else {
		l.writeReg(l.gpr(0), 0, w, qlo)
		l.writeReg(l.gpr(2), 0, w, rlo)
	}
	l.undef(cf, of, sf, zf, af, pf)
}

// bitTest lifts bt, bts, btr and btc. With a register bit offset and a
// memory operand the offset addresses a bit string: the byte address moves
// by the offset's signed quotient.
func (l *lifter) bitTest() {
	b, op := l.b, l.in.Op
	w := l.width(l.arg(0))
	var idx lift.Operand
	mem, isMem := l.arg(0).(x86asm.Mem)
	_, immIdx := l.arg(1).(x86asm.Imm)
	var addr lift.Operand
	if immIdx {
		idx = lift.C(w, uint64(l.arg(1).(x86asm.Imm))&uint64(w-1))
	} else {
		off := l.read(l.arg(1), w)
		idx = b.Op2(lift.And, w, off, lift.C(w, uint64(w-1)))
		if isMem {
			shift := map[lift.Width]uint64{16: 4, 32: 5, 64: 6}[w]
			q := b.Op2(lift.AShr, w, off, lift.C(8, shift))
			q = b.Op2(lift.Mul, w, q, lift.C(w, uint64(w/8)))
			if w < l.aw {
				q = b.Op1(lift.SExt, l.aw, q)
			}
			addr = b.Op2(lift.Add, l.aw, l.address(mem, false), q)
		}
	}
	var x lift.Operand
	if addr.Kind != lift.None {
		x = b.Op1(lift.Load, w, addr)
	} else {
		x = l.read(l.arg(0), w)
	}
	bit := b.Op1(lift.Trunc, 1, b.Op2(lift.LShr, w, x, idx))
	one := b.Op2(lift.Shl, w, lift.C(w, 1), idx)
	var r lift.Operand
	switch op {
	case x86asm.BTS:
		r = b.Op2(lift.Or, w, x, one)
	case x86asm.BTR:
		r = b.Op2(lift.AndNot, w, one, x)
	case x86asm.BTC:
		r = b.Op2(lift.Xor, w, x, one)
	}
	b.Assign(cf, bit)
	l.undef(of, sf, af, pf)
	if r.Kind == lift.None {
		return
	}
	if addr.Kind != lift.None {
		b.Emit(lift.Stmt{Op: lift.Store, A: addr, B: r})
		return
	}
	l.write(l.arg(0), r)
}

// bitCount lifts bsf, bsr, tzcnt, lzcnt and popcnt.
func (l *lifter) bitCount() {
	b, op := l.b, l.in.Op
	w := l.width(l.arg(0))
	x := l.read(l.arg(1), w)
	isZero := b.Op2(lift.Eq, 1, x, lift.C(w, 0))
	switch op {
	case x86asm.BSF, x86asm.BSR:
		var r lift.Operand
		if op == x86asm.BSF {
			r = b.Op1(lift.Ctz, w, x)
		} else {
			r = b.Op2(lift.Sub, w, lift.C(w, uint64(w-1)), b.Op1(lift.Clz, w, x))
		}
		// The ISA leaves the destination undefined for a zero source.
		r = b.Op3(lift.Select, w, isZero, b.Op1(lift.Undef, w, none()), r)
		b.Assign(zf, isZero)
		l.undef(cf, of, sf, af, pf)
		l.write(l.arg(0), r)
	case x86asm.TZCNT, x86asm.LZCNT:
		cop := lift.Ctz
		if op == x86asm.LZCNT {
			cop = lift.Clz
		}
		r := b.Op1(cop, w, x)
		b.Assign(cf, isZero)
		b.Set(zf, lift.Eq, r, lift.C(w, 0), none())
		l.undef(of, sf, af, pf)
		l.write(l.arg(0), r)
	case x86asm.POPCNT:
		r := b.Op1(lift.Popcnt, w, x)
		b.Assign(zf, isZero)
		for _, f := range []lift.Operand{cf, of, sf, af, pf} {
			b.Assign(f, lift.C(1, 0))
		}
		l.write(l.arg(0), r)
	}
}

// stringOp lifts movs and stos, with or without a rep prefix. A rep form
// is one iteration that branches back to its own address while the count
// is not zero, so the IR stays free of loops inside an instruction.
func (l *lifter) stringOp() {
	b, op := l.b, l.in.Op
	size := map[x86asm.Op]lift.Width{
		x86asm.MOVSB: 8, x86asm.MOVSW: 16, x86asm.MOVSD: 32, x86asm.MOVSQ: 64,
		x86asm.STOSB: 8, x86asm.STOSW: 16, x86asm.STOSD: 32, x86asm.STOSQ: 64,
	}[op]
	aw := lift.Width(l.in.AddrSize)
	if aw != l.aw {
		l.unmodelled("string instruction with an address-size prefix")
		return
	}
	rep := strings.HasPrefix(l.b.In.Mnemonic, "rep ")
	cx, si, di := l.gpr(1), l.gpr(6), l.gpr(7)
	if rep {
		b.Emit(lift.Stmt{Op: lift.Branch, A: b.Op2(lift.Eq, 1, cx, lift.C(aw, 0)), B: lift.C(l.aw, l.next)})
	}
	step := b.Op3(lift.Select, aw, df, lift.C(aw, -uint64(size/8)), lift.C(aw, uint64(size/8)))
	var v lift.Operand
	if op >= x86asm.MOVSB && op <= x86asm.MOVSW || op == x86asm.MOVSD || op == x86asm.MOVSQ {
		v = b.Op1(lift.Load, size, si)
		b.Set(si, lift.Add, si, step, none())
	} else {
		v = b.Extract(l.gpr(0), 0, size)
	}
	b.Emit(lift.Stmt{Op: lift.Store, A: di, B: v})
	b.Set(di, lift.Add, di, step, none())
	if rep {
		b.Set(cx, lift.Sub, cx, lift.C(aw, 1), none())
		b.Emit(lift.Stmt{Op: lift.Branch, A: b.Op2(lift.Ne, 1, cx, lift.C(aw, 0)), B: lift.C(l.aw, l.b.In.Addr)})
	}
}

// doubleShift lifts shld and shrd: the destination shifted with bits from
// the source filling in. Like the other shifts a zero count changes
// nothing; cf is the last bit out, of is defined for a count of one, af is
// undefined, and a count beyond a 16-bit operand leaves result and flags
// undefined.
func (l *lifter) doubleShift() {
	b, op := l.b, l.in.Op
	w := l.width(l.arg(0))
	x := l.read(l.arg(0), w)
	y := l.read(l.arg(1), w)
	m := uint64(31)
	if w == 64 {
		m = 63
	}
	n := b.Op2(lift.And, 8, l.read(l.arg(2), 8), lift.C(8, m))
	w2 := 2 * w
	var r, out lift.Operand
	if op == x86asm.SHLD {
		cat := b.Insert(b.Op1(lift.ZExt, w2, y), int(w), x) // x:y
		r = b.Extract(b.Op2(lift.Shl, w2, cat, n), int(w), w)
		out = b.Op1(lift.Trunc, 1, b.Op2(lift.LShr, w, x, b.Op2(lift.Sub, 8, lift.C(8, uint64(w)), n)))
	} else {
		cat := b.Insert(b.Op1(lift.ZExt, w2, x), int(w), y) // y:x
		r = b.Op1(lift.Trunc, w, b.Op2(lift.LShr, w2, cat, n))
		out = b.Op1(lift.Trunc, 1, b.Op2(lift.LShr, w, x, b.Op2(lift.Sub, 8, n, lift.C(8, 1))))
	}
	newOF := b.Op3(lift.Select, 1, b.Op2(lift.Eq, 1, n, lift.C(8, 1)),
		b.Op2(lift.Xor, 1, b.Extract(r, int(w)-1, 1), b.Extract(x, int(w)-1, 1)), b.Op1(lift.Undef, 1, none()))
	if w == 16 {
		big := b.Op2(lift.Ult, 1, lift.C(8, 16), n)
		r = b.Op3(lift.Select, w, big, b.Op1(lift.Undef, w, none()), r)
		out = b.Op3(lift.Select, 1, big, b.Op1(lift.Undef, 1, none()), out)
	}
	zero := b.Op2(lift.Eq, 1, n, lift.C(8, 0))
	keep := func(f, v lift.Operand) { b.Set(f, lift.Select, zero, f, v) }
	keep(cf, out)
	keep(of, newOF)
	keep(zf, b.Op2(lift.Eq, 1, r, lift.C(w, 0)))
	keep(sf, b.Op2(lift.Slt, 1, r, lift.C(w, 0)))
	keep(pf, b.Op1(lift.Parity, 1, r))
	keep(af, b.Op1(lift.Undef, 1, none()))
	l.write(l.arg(0), r)
}
