package builtin

import (
	"github.com/rea-re/rea/engine/provider"
	"strconv"
)

// 32-bit Thumb instructions (T32): control flow and literal facts, then text.

func (d *decoder) thumb32(it *insn, t tstate, x uint32, w bool) string {
	hw1, hw2 := x>>16, x&0xffff
	rn, rt, rd := int(hw1&15), int(hw2>>12), int(hw2>>8)&15
	d.twrite, d.tlit = 1<<rn|1<<rt|1<<rd, -1
	switch {
	case x&0xf8008000 == 0xf0008000: // branches and miscellaneous control
		off := func() int64 {
			return thumbBranch(uint16(hw1), uint16(hw2))
		}
		switch hw2 & 0x5000 {
		case 0x0000:
			if (hw1>>7)&7 != 7 {
				s := uint64(hw1>>10) & 1
				v := s<<20 | uint64(hw2>>11&1)<<19 | uint64(hw2>>13&1)<<18 | uint64(hw1&0x3f)<<12 | uint64(hw2&0x7ff)<<1
				it.flow, it.hasTarget = flowCondJump, true
				it.target = uint64(uint32(int64(it.addr) + 4 + sext(v, 21)))
			} else if x&0xfff0f000 == 0xf7f0a000 {
				it.flow = flowStop
			} else if x&0xffffff00 == 0xf3de8f00 { // subs pc, lr, #imm (exception return)
				it.flow = flowRet
			}
		case 0x1000:
			it.flow, it.hasTarget = flowJump, true
			if t.inIT && t.cond != 0xe {
				it.flow = flowCondJump
			}
			it.target = uint64(uint32(int64(it.addr) + 4 + off()))
		case 0x4000:
			if hw2&1 == 0 { // blx with H set is undefined
				it.flow, it.hasTarget, it.toggle = flowCall, true, true
				it.target = uint64(uint32(int64((it.addr+4)&^3) + off()))
			}
		default:
			it.flow, it.hasTarget = flowCall, true
			it.target = uint64(uint32(int64(it.addr) + 4 + off()))
		}
	case x&0xfe500000 == 0xe8100000: // ldm
		list := hw2
		d.twrite |= list
		if list&(1<<15) != 0 {
			if rn == 13 {
				it.flow = flowRet
			} else {
				it.flow, it.indirect = flowJump, true
			}
		}
	case x&0xfff0ffe0 == 0xe8d0f000: // tbb, tbh
		it.flow, it.indirect = flowJump, true
	case x&0xfe100000 == 0xf8100000: // loads
		if rn == 15 {
			off := int64(hw2 & 0xfff)
			if hw1&(1<<7) == 0 {
				off = -off
			}
			r := rt
			if x&0xff700000 != 0xf8500000 {
				r = -1 // not a word load: the register's value is not the word
			}
			d.literal(it, off, r)
			it.lit = 4
		}
		if rt == 15 && x&0xff700000 == 0xf8500000 {
			if rn == 13 && hw1&(1<<7) == 0 && hw2&0xf00 == 0xb00 { // ldr.w pc, [sp], #4
				it.flow = flowRet
			} else {
				it.flow, it.indirect = flowJump, true
			}
		}
	case x&0xfe500000 == 0xe8500000 && hw1&0x120 != 0 && rn == 15: // ldrd (literal)
		off := int64(hw2&0xff) * 4
		if hw1&(1<<7) == 0 {
			off = -off
		}
		d.literal(it, off, -1)
		it.lit = 8
		d.twrite |= 1 << rd
	case x&0xef000e00 == 0xed000a00 && x&0x00200000 == 0 && rn == 15 && (hw1>>8)&1 == 1: // vldr/vstr (literal)
		off := int64(hw2&0xff) * 4
		if hw1&(1<<7) == 0 {
			off = -off
		}
		d.literal(it, off, -1)
		it.lit = 4
		if hw2&0x100 != 0 {
			it.lit = 8 // a double
		}
	case x&0xfbef8000 == 0xf04f0000 && rd == 15, x&0xffef8000 == 0xea4f0000 && rd == 15: // mov.w pc, …
		it.flow, it.indirect = flowJump, true
	}
	if !w {
		return ""
	}
	return thumb32Text(it, t, x)
}

// t32 is the operand text helper of one T32 instruction.
func r(n uint32) string { return armRegNames[n&15] }

// shiftText renders an immediate shift: "", ", lsl #3", ", rrx".
func shiftText(typ, amt uint32) string {
	switch {
	case typ == 0 && amt == 0:
		return ""
	case typ == 3 && amt == 0:
		return ", rrx"
	case amt == 0:
		amt = 32
	}
	return ", " + [4]string{"lsl", "lsr", "asr", "ror"}[typ] + " #" + strconv.Itoa(int(amt))
}

func signedImm(v uint32, up bool) string {
	if up {
		return "#" + strconv.Itoa(int(v))
	}
	return "#-" + strconv.Itoa(int(v))
}

func thumb32Text(it *insn, t tstate, x uint32) string {
	hw1, hw2 := x>>16, x&0xffff
	rn, rt, rd, rm := hw1&15, hw2>>12, (hw2>>8)&15, hw2&15
	c := t.c()
	s := func() string {
		if hw1&(1<<4) != 0 {
			return "s"
		}
		return ""
	}
	switch {
	case x&0xf8008000 == 0xf0008000:
		return t32Branch(it, t, x)
	case x&0xfe400000 == 0xe8000000: // load/store multiple, srs, rfe
		op := (hw1 >> 7) & 3
		l := hw1&(1<<4) != 0
		wb := ""
		if hw1&(1<<5) != 0 {
			wb = "!"
		}
		switch op {
		case 1:
			if l {
				return "ldmia" + c + ".w " + r(rn) + wb + ", " + regList(hw2)
			}
			return "stmia" + c + ".w " + r(rn) + wb + ", " + regList(hw2)
		case 2:
			if l {
				return "ldmdb" + c + " " + r(rn) + wb + ", " + regList(hw2)
			}
			return "stmdb" + c + " " + r(rn) + wb + ", " + regList(hw2)
		}
	case x&0xfe400000 == 0xe8400000: // dual, exclusive, table branch
		op1, op2, op3 := (hw1>>7)&3, (hw1>>4)&3, (hw2>>4)&15
		switch {
		case op1 == 0 && op2 == 0:
			return "strex" + c + " " + r(rd) + ", " + r(rt) + ", [" + r(rn) + immOff(hw2&0xff*4) + "]"
		case op1 == 0 && op2 == 1:
			return "ldrex" + c + " " + r(rt) + ", [" + r(rn) + immOff((hw2&0xff)*4) + "]"
		case op1 == 1 && op2 == 0:
			switch op3 {
			case 4:
				return "strexb" + c + " " + r(rm) + ", " + r(rt) + ", [" + r(rn) + "]"
			case 5:
				return "strexh" + c + " " + r(rm) + ", " + r(rt) + ", [" + r(rn) + "]"
			case 7:
				return "strexd" + c + " " + r(rm) + ", " + r(rt) + ", " + r(rd) + ", [" + r(rn) + "]"
			}
		case op1 == 1 && op2 == 1:
			switch op3 {
			case 0:
				return "tbb" + c + " [" + r(rn) + ", " + r(rm) + "]"
			case 1:
				return "tbh" + c + " [" + r(rn) + ", " + r(rm) + ", lsl #1]"
			case 4:
				return "ldrexb" + c + " " + r(rt) + ", [" + r(rn) + "]"
			case 5:
				return "ldrexh" + c + " " + r(rt) + ", [" + r(rn) + "]"
			case 7:
				return "ldrexd" + c + " " + r(rt) + ", " + r(rd) + ", [" + r(rn) + "]"
			}
		default:
			mn := "strd"
			if hw1&(1<<4) != 0 {
				mn = "ldrd"
			}
			p, wbit := hw1&(1<<8) != 0, hw1&(1<<5) != 0
			off := signedImm((hw2&0xff)*4, hw1&(1<<7) != 0)
			ops := r(rt) + ", " + r(rd) + ", "
			switch {
			case !p:
				return mn + c + " " + ops + "[" + r(rn) + "], " + off
			case wbit:
				return mn + c + " " + ops + "[" + r(rn) + ", " + off + "]!"
			case hw2&0xff == 0 && hw1&(1<<7) != 0:
				return mn + c + " " + ops + "[" + r(rn) + "]"
			}
			return mn + c + " " + ops + "[" + r(rn) + ", " + off + "]"
		}
	case x&0xfe000000 == 0xea000000: // data processing, shifted register
		return t32DP(t, x, false)
	case x&0xfa008000 == 0xf0000000: // data processing, modified immediate
		return t32DP(t, x, true)
	case x&0xfa008000 == 0xf2000000: // plain binary immediate
		return t32Plain(t, x)
	case x&0xfe000000 == 0xf8000000 && x&0x01100000 != 0x01000000: // load/store single
		return t32LoadStore(t, x)
	case x&0xff000000 == 0xfa000000: // data processing, register
		return t32DPReg(t, x)
	case x&0xff800000 == 0xfb000000: // multiply
		op1, op2 := (hw1>>4)&7, (hw2>>4)&3
		ra := rt
		ops3 := r(rd) + ", " + r(rn) + ", " + r(rm)
		switch op1 {
		case 0:
			switch {
			case op2 == 0 && ra == 15:
				return "mul" + c + ".w " + ops3
			case op2 == 0:
				return "mla" + c + " " + ops3 + ", " + r(ra)
			case op2 == 1:
				return "mls" + c + " " + ops3 + ", " + r(ra)
			}
		case 1:
			xy := [2]string{"b", "t"}[op2>>1] + [2]string{"b", "t"}[op2&1]
			if ra == 15 {
				return "smul" + xy + c + " " + ops3
			}
			return "smla" + xy + c + " " + ops3 + ", " + r(ra)
		case 2, 4:
			xs := [2]string{"", "x"}[op2&1]
			if op2>>1 == 0 {
				if ra == 15 {
					return [5]string{2: "smuad", 4: "smusd"}[op1] + xs + c + " " + ops3
				}
				return [5]string{2: "smlad", 4: "smlsd"}[op1] + xs + c + " " + ops3 + ", " + r(ra)
			}
		case 3:
			if op2>>1 == 0 {
				y := [2]string{"b", "t"}[op2&1]
				if ra == 15 {
					return "smulw" + y + c + " " + ops3
				}
				return "smlaw" + y + c + " " + ops3 + ", " + r(ra)
			}
		case 5, 6:
			if op2>>1 == 0 {
				rr := [2]string{"", "r"}[op2&1]
				if op1 == 5 && ra == 15 {
					return "smmul" + rr + c + " " + ops3
				}
				return [7]string{5: "smmla", 6: "smmls"}[op1] + rr + c + " " + ops3 + ", " + r(ra)
			}
		case 7:
			if op2 == 0 {
				if ra == 15 {
					return "usad8" + c + " " + ops3
				}
				return "usada8" + c + " " + ops3 + ", " + r(ra)
			}
		}
	case x&0xff800000 == 0xfb800000: // long multiply, divide
		op1, op2 := (hw1>>4)&7, (hw2>>4)&15
		ops4 := r(rt) + ", " + r(rd) + ", " + r(rn) + ", " + r(rm)
		switch {
		case op2 == 0 && op1 != 1 && op1 != 3 && op1 != 5 && op1 != 7:
			return [8]string{"smull", "", "umull", "", "smlal", "", "umlal", ""}[op1] + c + " " + ops4
		case op2 == 15 && (op1 == 1 || op1 == 3):
			return [4]string{1: "sdiv", 3: "udiv"}[op1] + c + " " + r(rd) + ", " + r(rn) + ", " + r(rm)
		case op1 == 4 && op2>>2 == 2:
			return "smlal" + [2]string{"b", "t"}[op2>>1&1] + [2]string{"b", "t"}[op2&1] + c + " " + ops4
		case (op1 == 4 || op1 == 5) && op2>>1 == 6:
			return [6]string{4: "smlald", 5: "smlsld"}[op1] + [2]string{"", "x"}[op2&1] + c + " " + ops4
		case op1 == 6 && op2 == 6:
			return "umaal" + c + " " + ops4
		}
	case x&0xef000000 == 0xef000000: // Advanced SIMD data processing
		if s, ok := neonThumb(x, c); ok {
			return s
		}
	case x&0xff100000 == 0xf9000000: // Advanced SIMD element or structure load/store
	case x&0xec000000 == 0xec000000: // coprocessor, VFP
		if s, ok := coprocText(x, c, thumbTwo(x)); ok {
			return s
		}
	}
	_ = s
	return ".inst.w 0x" + hex8(x)
}

// thumbTwo reports the "2" coprocessor forms (stc2, mcr2, …): T32 0xf…….
func thumbTwo(x uint32) bool { return x>>28 == 0xf }

func immOff(v uint32) string {
	if v == 0 {
		return ""
	}
	return ", #" + strconv.Itoa(int(v))
}

func t32Branch(it *insn, t tstate, x uint32) string {
	hw1, hw2 := x>>16, x&0xffff
	c := t.c()
	switch hw2 & 0x5000 {
	case 0x1000:
		return "b" + c + ".w " + provider.FormatAddress(it.target)
	case 0x4000:
		if !it.hasTarget {
			return ".inst.w 0x" + hex8(x)
		}
		return "blx" + c + " " + provider.FormatAddress(it.target)
	case 0x5000:
		return "bl" + c + " " + provider.FormatAddress(it.target)
	}
	if it.hasTarget {
		return "b" + armCondNames[(hw1>>6)&15] + ".w " + provider.FormatAddress(it.target)
	}
	switch {
	case x&0xfff0f000 == 0xf7f0a000:
		return "udf" + c + ".w #" + strconv.Itoa(int(hw1&15<<12|hw2&0xfff))
	case x&0xffffff00 == 0xf3af8000:
		if hw2&0xff < 5 {
			return [5]string{"nop", "yield", "wfe", "wfi", "sev"}[hw2&0xff] + c + ".w"
		}
		return "nop" + c + ".w {" + strconv.Itoa(int(hw2&0xff)) + "}"
	case x&0xfffffff0 == 0xf3bf8f50:
		return "dmb" + c + " " + barrierOpt(hw2&15)
	case x&0xfffffff0 == 0xf3bf8f40:
		return "dsb" + c + " " + barrierOpt(hw2&15)
	case x&0xfffffff0 == 0xf3bf8f60:
		return "isb" + c + " " + barrierOpt(hw2&15)
	case x == 0xf3bf8f2f:
		return "clrex" + c
	case x&0xffeff000 == 0xf3ef8000:
		reg := "CPSR"
		if hw1&(1<<4) != 0 {
			reg = "SPSR"
		}
		return "mrs" + c + " " + r(hw2>>8) + ", " + reg
	case x&0xffe0f300 == 0xf3808000:
		return "msr" + c + " " + [2]string{"CPSR", "SPSR"}[hw1>>4&1] + "_" + msrMask(hw2>>8&15) + ", " + r(hw1)
	case x&0xffffff00 == 0xf3de8f00:
		return "subs" + c + " pc, lr, #" + strconv.Itoa(int(hw2&0xff))
	}
	return ".inst.w 0x" + hex8(x)
}

func msrMask(m uint32) string {
	s := ""
	for i, ch := range "cxsf" {
		if m&(1<<i) != 0 {
			s += string(ch)
		}
	}
	return s
}

func barrierOpt(o uint32) string {
	switch o {
	case 15:
		return "sy"
	case 14:
		return "st"
	case 11:
		return "ish"
	case 10:
		return "ishst"
	case 7:
		return "nsh"
	case 6:
		return "nshst"
	case 3:
		return "osh"
	case 2:
		return "oshst"
	}
	return "#" + strconv.Itoa(int(o))
}

// t32DP renders data processing with a modified immediate or a shifted register.
func t32DP(t tstate, x uint32, immediate bool) string {
	hw1, hw2 := x>>16, x&0xffff
	op, sbit := (hw1>>5)&15, hw1&(1<<4) != 0
	rn, rd := hw1&15, (hw2>>8)&15
	c := t.c()
	s := ""
	if sbit {
		s = "s"
	}
	var src string
	if immediate {
		src = "#" + strconv.FormatInt(int64(thumbExpandImm((hw1>>10&1)<<11|(hw2>>12&7)<<8|hw2&0xff)), 10)
	} else {
		src = r(hw2&15) + shiftText((hw2>>4)&3, (hw2>>12&7)<<2|(hw2>>6)&3)
	}
	w := ".w"
	cmpForm := func(mn string, wide bool) string {
		if wide {
			return mn + c + ".w " + r(rn) + ", " + src
		}
		return mn + c + " " + r(rn) + ", " + src
	}
	switch op {
	case 0:
		if rd == 15 && sbit {
			return cmpForm("tst", true)
		}
		return "and" + s + c + w + " " + r(rd) + ", " + r(rn) + ", " + src
	case 1:
		return "bic" + s + c + w + " " + r(rd) + ", " + r(rn) + ", " + src
	case 2:
		if rn == 15 {
			return "mov" + s + c + w + " " + r(rd) + ", " + src
		}
		return "orr" + s + c + w + " " + r(rd) + ", " + r(rn) + ", " + src
	case 3:
		if rn == 15 {
			return "mvn" + s + c + w + " " + r(rd) + ", " + src
		}
		return "orn" + s + c + " " + r(rd) + ", " + r(rn) + ", " + src
	case 4:
		if rd == 15 && sbit {
			return cmpForm("teq", false)
		}
		return "eor" + s + c + w + " " + r(rd) + ", " + r(rn) + ", " + src
	case 6:
		if !immediate && !sbit {
			sh := (hw2>>12&7)<<2 | (hw2>>6)&3
			if hw2&(1<<5) != 0 {
				if sh == 0 {
					sh = 32
				}
				return "pkhtb" + c + " " + r(rd) + ", " + r(rn) + ", " + r(hw2) + ", asr #" + strconv.Itoa(int(sh))
			}
			return "pkhbt" + c + " " + r(rd) + ", " + r(rn) + ", " + r(hw2) + shiftText(0, sh)
		}
	case 8:
		if rd == 15 && sbit {
			return cmpForm("cmn", true)
		}
		return "add" + s + c + w + " " + r(rd) + ", " + r(rn) + ", " + src
	case 10:
		return "adc" + s + c + w + " " + r(rd) + ", " + r(rn) + ", " + src
	case 11:
		return "sbc" + s + c + w + " " + r(rd) + ", " + r(rn) + ", " + src
	case 13:
		if rd == 15 && sbit {
			return cmpForm("cmp", true)
		}
		return "sub" + s + c + w + " " + r(rd) + ", " + r(rn) + ", " + src
	case 14:
		return "rsb" + s + c + " " + r(rd) + ", " + r(rn) + ", " + src
	}
	return ".inst.w 0x" + hex8(x)
}

func t32Plain(t tstate, x uint32) string {
	hw1, hw2 := x>>16, x&0xffff
	op := (hw1 >> 4) & 31
	rn, rd := hw1&15, (hw2>>8)&15
	c := t.c()
	i12 := (hw1>>10&1)<<11 | (hw2>>12&7)<<8 | hw2&0xff
	lsb := (hw2>>12&7)<<2 | (hw2>>6)&3
	wm1 := hw2 & 31
	n := func(v uint32) string { return "#" + strconv.Itoa(int(v)) }
	switch op {
	case 0:
		return "addw" + c + " " + r(rd) + ", " + r(rn) + ", " + n(i12)
	case 10:
		return "subw" + c + " " + r(rd) + ", " + r(rn) + ", " + n(i12)
	case 4:
		return "movw" + c + " " + r(rd) + ", " + n(hw1&15<<12|i12)
	case 12:
		return "movt" + c + " " + r(rd) + ", " + n(hw1&15<<12|i12)
	case 16, 18, 24, 26:
		mn := "ssat"
		sat := wm1 + 1
		if op >= 24 {
			mn, sat = "usat", wm1
		}
		if op&2 != 0 && lsb == 0 {
			return mn + "16" + c + " " + r(rd) + ", " + n(sat&15) + ", " + r(rn)
		}
		return mn + c + " " + r(rd) + ", " + n(sat) + ", " + r(rn) + shiftText(hw1>>4&2, lsb)
	case 20:
		return "sbfx" + c + " " + r(rd) + ", " + r(rn) + ", " + n(lsb) + ", " + n(wm1+1)
	case 28:
		return "ubfx" + c + " " + r(rd) + ", " + r(rn) + ", " + n(lsb) + ", " + n(wm1+1)
	case 22:
		if rn == 15 {
			return "bfc" + c + " " + r(rd) + ", " + n(lsb) + ", " + n(wm1-lsb+1)
		}
		return "bfi" + c + " " + r(rd) + ", " + r(rn) + ", " + n(lsb) + ", " + n(wm1-lsb+1)
	}
	return ".inst.w 0x" + hex8(x)
}

func t32LoadStore(t tstate, x uint32) string {
	hw1, hw2 := x>>16, x&0xffff
	rn, rt := hw1&15, hw2>>12
	size, sgn, load := (hw1>>5)&3, hw1&(1<<8) != 0, hw1&(1<<4) != 0
	c := t.c()
	if size == 3 {
		if load {
			return "ldr??" + c + ".w " + r(rt) + ", " + t32Addr(x)
		}
		return ".inst.w 0x" + hex8(x)
	}
	mn := "str"
	if load {
		mn = "ldr"
		if sgn {
			mn += "s"
		}
	}
	mn += [3]string{"b", "h", ""}[size]
	if load && rt == 15 && size != 2 {
		// Preload hints.
		switch {
		case size == 0 && !sgn:
			return "pld" + c + " " + t32Addr(x)
		case size == 1 && !sgn:
			return "pldw" + c + " " + t32Addr(x)
		case size == 0 && sgn:
			return "pli" + c + " " + t32Addr(x)
		}
	}
	if rn != 15 && hw1&(1<<7) == 0 && hw2&0xf00 == 0xe00 {
		return mn + "t" + c + " " + r(rt) + ", " + t32Addr(x)
	}
	return mn + c + ".w " + r(rt) + ", " + t32Addr(x)
}

// t32Addr renders the address operand of a T32 single load or store.
func t32Addr(x uint32) string {
	hw1, hw2 := x>>16, x&0xffff
	rn := hw1 & 15
	switch {
	case rn == 15:
		return "[pc, " + signedImm(hw2&0xfff, hw1&(1<<7) != 0) + "]"
	case hw1&(1<<7) != 0:
		return "[" + r(rn) + immOff(hw2&0xfff) + "]"
	case hw2&0x800 != 0:
		p, u, wb := hw2&(1<<10) != 0, hw2&(1<<9) != 0, hw2&(1<<8) != 0
		o := signedImm(hw2&0xff, u)
		switch {
		case !p:
			return "[" + r(rn) + "], " + o
		case wb:
			return "[" + r(rn) + ", " + o + "]!"
		}
		return "[" + r(rn) + ", " + o + "]"
	}
	sh := ""
	if k := (hw2 >> 4) & 3; k != 0 {
		sh = ", lsl #" + strconv.Itoa(int(k))
	}
	return "[" + r(rn) + ", " + r(hw2) + sh + "]"
}

func t32DPReg(t tstate, x uint32) string {
	hw1, hw2 := x>>16, x&0xffff
	op1, op2 := (hw1>>4)&15, (hw2>>4)&15
	rn, rd, rm := hw1&15, (hw2>>8)&15, hw2&15
	c := t.c()
	switch {
	case op1>>3 == 0 && op2 == 0:
		s := ""
		if op1&1 != 0 {
			s = "s"
		}
		return [4]string{"lsl", "lsr", "asr", "ror"}[op1>>1] + s + c + ".w " + r(rd) + ", " + r(rn) + ", " + r(rm)
	case op1 < 6 && op2>>3 == 1:
		rot := ""
		if k := (hw2 >> 4) & 3; k != 0 {
			rot = ", ror #" + strconv.Itoa(int(k)*8)
		}
		if rn == 15 {
			mn := [6]string{"sxth", "uxth", "sxtb16", "uxtb16", "sxtb", "uxtb"}[op1]
			if op1 == 2 || op1 == 3 {
				return mn + c + " " + r(rd) + ", " + r(rm) + rot
			}
			return mn + c + ".w " + r(rd) + ", " + r(rm) + rot
		}
		return [6]string{"sxtah", "uxtah", "sxtab16", "uxtab16", "sxtab", "uxtab"}[op1] + c + " " + r(rd) + ", " + r(rn) + ", " + r(rm) + rot
	case op1>>3 == 1 && op2>>3 == 0 && op2 != 3 && op2 != 7:
		pre := [8]string{"s", "q", "sh", "", "u", "uq", "uh", ""}[op2]
		base := [8]string{"add8", "add16", "asx", "", "sub8", "sub16", "sax", ""}[op1&7]
		if pre != "" && base != "" {
			return pre + base + c + " " + r(rd) + ", " + r(rn) + ", " + r(rm)
		}
	case op1>>2 == 2 && op2>>2 == 2:
		switch op1 & 3 {
		case 0:
			return [4]string{"qadd", "qdadd", "qsub", "qdsub"}[op2&3] + c + " " + r(rd) + ", " + r(rm) + ", " + r(rn)
		case 1:
			return [4]string{"rev", "rev16", "rbit", "revsh"}[op2&3] + c + [4]string{".w", ".w", "", ".w"}[op2&3] + " " + r(rd) + ", " + r(rm)
		case 2:
			if op2 == 8 {
				return "sel" + c + " " + r(rd) + ", " + r(rn) + ", " + r(rm)
			}
		case 3:
			if op2 == 8 {
				return "clz" + c + " " + r(rd) + ", " + r(rm)
			}
		}
	}
	return ".inst.w 0x" + hex8(x)
}

// coprocText renders a coprocessor instruction (x in the layout of ARM and
// T32 alike, bits 27:0): VFP for coprocessors 10 and 11, else the generic
// mcr/mrc/cdp/ldc/stc/mcrr/mrrc form objdump writes. two selects the "2"
// forms. ok is false for encodings it does not know.
func coprocText(x uint32, c string, two bool) (string, bool) {
	cp := (x >> 8) & 15
	if cp == 11 {
		if s, ok := vdupText(x, c); ok {
			return s, true
		}
	}
	if cp&0xe == 0xa {
		if s, ok := vfpText(x, c); ok {
			return s, true
		}
	}
	n := func(v uint32) string { return strconv.Itoa(int(v)) }
	cr := func(v uint32) string { return "cr" + n(v&15) }
	two2 := ""
	if two {
		two2 = "2"
	}
	switch {
	case x&0x0fe00000 == 0x0c400000: // mcrr, mrrc
		mn := "mcrr"
		if x&(1<<20) != 0 {
			mn = "mrrc"
		}
		return mn + two2 + c + " " + n(cp) + ", " + n(x>>4&15) + ", " + r(x>>12) + ", " + r(x>>16) + ", " + cr(x), true
	case x&0x0e000000 == 0x0c000000 && x&0x01a00000 != 0: // ldc, stc
		mn := "stc"
		if x&(1<<20) != 0 {
			mn = "ldc"
		}
		mn += two2
		if x&(1<<22) != 0 {
			mn += "l"
		}
		fpa := cp == 1 && !two // FPA ldf/stf, as objdump still decodes them
		if fpa {
			mn = "stf"
			if x&(1<<20) != 0 {
				mn = "ldf"
			}
			c += [4]string{"s", "d", "e", "p"}[x>>21&2|x>>15&1]
		}
		p, u, wb := x&(1<<24) != 0, x&(1<<23) != 0, x&(1<<21) != 0
		o := signedImm((x&0xff)*4, u)
		var a string
		rn := r(x >> 16)
		switch {
		case p && wb:
			a = "[" + rn + ", " + o + "]!"
		case p:
			a = "[" + rn + ", " + o + "]"
		case wb:
			a = "[" + rn + "], " + o
		default:
			a = "[" + rn + "], {" + n(x&0xff) + "}"
		}
		if fpa {
			return mn + c + " f" + n(x>>12&7) + ", " + a, true
		}
		return mn + c + " " + n(cp) + ", " + cr(x>>12) + ", " + a, true
	case x&0x0f000010 == 0x0e000000: // cdp
		return "cdp" + two2 + c + " " + n(cp) + ", " + n(x>>20&15) + ", " + cr(x>>12) + ", " + cr(x>>16) + ", " + cr(x) + ", {" + n(x>>5&7) + "}", true
	case x&0x0f000010 == 0x0e000010: // mcr, mrc
		mn := "mcr"
		if x&(1<<20) != 0 {
			mn = "mrc"
		}
		return mn + two2 + c + " " + n(cp) + ", " + n(x>>21&7) + ", " + r(x>>12) + ", " + cr(x>>16) + ", " + cr(x) + ", {" + n(x>>5&7) + "}", true
	}
	return "", false
}

// vfpText renders the VFP instructions (coprocessors 10 and 11).
func vfpText(x uint32, c string) (string, bool) {
	dbl := x&(1<<8) != 0
	sreg := func(v, lo uint32) string { return "s" + strconv.Itoa(int(v<<1|lo)) }
	dreg := func(v, hi uint32) string { return "d" + strconv.Itoa(int(hi<<4|v)) }
	vd := func() string {
		if dbl {
			return dreg(x>>12&15, x>>22&1)
		}
		return sreg(x>>12&15, x>>22&1)
	}
	vn := func() string {
		if dbl {
			return dreg(x>>16&15, x>>7&1)
		}
		return sreg(x>>16&15, x>>7&1)
	}
	vm := func() string {
		if dbl {
			return dreg(x&15, x>>5&1)
		}
		return sreg(x&15, x>>5&1)
	}
	ty := ".f32"
	if dbl {
		ty = ".f64"
	}
	switch {
	case x&0x0e000000 == 0x0c000000 && x&0x0fe00000 == 0x0c400000: // 64-bit transfers
		if x&0xd0 != 0x10 {
			return "", false
		}
		rt, rt2 := r(x>>12), r(x>>16)
		var v string
		if dbl {
			v = dreg(x&15, x>>5&1)
		} else {
			v = sreg(x&15, x>>5&1) + ", " + sreg((x&15)+((x>>5&1)+1)>>1, (x>>5&1)^1)
			m := (x&15)<<1 | x>>5&1
			v = "s" + strconv.Itoa(int(m)) + ", s" + strconv.Itoa(int(m+1))
		}
		if x&(1<<20) != 0 {
			return "vmov" + c + " " + rt + ", " + rt2 + ", " + v, true
		}
		return "vmov" + c + " " + v + ", " + rt + ", " + rt2, true
	case x&0x0e000000 == 0x0c000000: // load/store
		p, u, wb, l := x&(1<<24) != 0, x&(1<<23) != 0, x&(1<<21) != 0, x&(1<<20) != 0
		rn := (x >> 16) & 15
		i8 := x & 0xff
		if p && !wb { // vldr, vstr
			mn := "vstr"
			if l {
				mn = "vldr"
			}
			o := ""
			if i8 != 0 || !u {
				o = ", " + signedImm(i8*4, u)
			}
			return mn + c + " " + vd() + ", [" + r(rn) + o + "]", true
		}
		if p == u || i8 == 0 {
			return "", false
		}
		var list string
		if dbl {
			if i8&1 != 0 {
				return "", false
			}
			first := (x>>22&1)<<4 | x>>12&15
			list = vlist("d", first, i8/2)
		} else {
			first := (x>>12&15)<<1 | x>>22&1
			list = vlist("s", first, i8)
		}
		if rn == 13 && wb && (l && !p || !l && p) {
			if l {
				return "vpop" + c + " " + list, true
			}
			return "vpush" + c + " " + list, true
		}
		mn := "vstm"
		if l {
			mn = "vldm"
		}
		mn += [2]string{"ia", "db"}[x>>24&1]
		bang := ""
		if wb {
			bang = "!"
		}
		return mn + c + " " + r(rn) + bang + ", " + list, true
	case x&0x0f000010 == 0x0e000010: // 8, 16 and 32-bit transfers
		a, l := x>>21&7, x&(1<<20) != 0
		rt := r(x >> 12)
		if !dbl {
			switch {
			case a == 0 && x&0x6f == 0:
				sn := sreg(x>>16&15, x>>7&1)
				if l {
					return "vmov" + c + " " + rt + ", " + sn, true
				}
				return "vmov" + c + " " + sn + ", " + rt, true
			case a == 7 && x&0xef == 0:
				reg := map[uint32]string{0: "fpsid", 1: "fpscr", 6: "mvfr1", 7: "mvfr0", 8: "fpexc"}[x>>16&15]
				if reg == "" {
					return "", false
				}
				if l {
					if x>>12&15 == 15 && reg == "fpscr" {
						return "vmrs" + c + " APSR_nzcv, fpscr", true
					}
					return "vmrs" + c + " " + rt + ", " + reg, true
				}
				return "vmsr" + c + " " + reg + ", " + rt, true
			}
			return "", false
		}
		if a&4 == 0 && x&0xf == 0 && x&0x40 == 0 && x&0x20 == 0 && a&3 == 0 { // vmov.32 d[x], rt
			dn := dreg(x>>16&15, x>>7&1) + "[" + strconv.Itoa(int(a&1)) + "]"
			if l {
				return "vmov" + c + ".32 " + rt + ", " + dn, true
			}
			return "vmov" + c + ".32 " + dn + ", " + rt, true
		}
		return "", false
	case x&0x0f000010 == 0x0e000000: // data processing
		opc1 := (x>>20)&0xb | 0
		opc2, opc3 := (x>>16)&15, (x>>6)&3
		op := x&(1<<6) != 0
		three := func(mn string) (string, bool) { return mn + c + ty + " " + vd() + ", " + vn() + ", " + vm(), true }
		switch opc1 {
		case 0:
			return three([2]string{"vmla", "vmls"}[x>>6&1])
		case 1:
			return three([2]string{"vnmls", "vnmla"}[x>>6&1])
		case 2:
			if op {
				return three("vnmul")
			}
			return three("vmul")
		case 3:
			if op {
				return three("vsub")
			}
			return three("vadd")
		case 8:
			if !op {
				return three("vdiv")
			}
		case 9:
			return three([2]string{"vfnms", "vfnma"}[x>>6&1])
		case 10:
			return three([2]string{"vfma", "vfms"}[x>>6&1])
		case 11:
			if opc3&1 == 0 {
				i8 := (x>>16&15)<<4 | x&15
				return "vmov" + c + ty + " " + vd() + ", #" + strconv.Itoa(int(i8)), true
			}
			two := func(mn string) (string, bool) { return mn + c + ty + " " + vd() + ", " + vm(), true }
			switch {
			case opc2 == 0 && opc3 == 1:
				return two("vmov")
			case opc2 == 0 && opc3 == 3:
				return two("vabs")
			case opc2 == 1 && opc3 == 1:
				return two("vneg")
			case opc2 == 1 && opc3 == 3:
				return two("vsqrt")
			case opc2 == 4:
				return two([2]string{"vcmp", "vcmpe"}[opc3>>1])
			case opc2 == 5 && x&0x2f == 0:
				return [2]string{"vcmp", "vcmpe"}[opc3>>1] + c + ty + " " + vd() + ", #0.0", true
			case opc2 == 7 && opc3 == 3:
				if dbl {
					return "vcvt" + c + ".f32.f64 " + sreg(x>>12&15, x>>22&1) + ", " + dreg(x&15, x>>5&1), true
				}
				return "vcvt" + c + ".f64.f32 " + dreg(x>>12&15, x>>22&1) + ", " + sreg(x&15, x>>5&1), true
			case opc2 == 8: // integer to floating point
				src := [2]string{".u32", ".s32"}[opc3>>1]
				return "vcvt" + c + ty + src + " " + vd() + ", " + sreg(x&15, x>>5&1), true
			case opc2 == 12 || opc2 == 13: // floating point to integer
				mn := "vcvtr"
				if opc3>>1 == 1 {
					mn = "vcvt"
				}
				dst := [2]string{".u32", ".s32"}[opc2&1]
				return mn + c + dst + ty + " " + sreg(x>>12&15, x>>22&1) + ", " + vm(), true
			}
		}
	}
	return "", false
}

func vlist(p string, first, n uint32) string {
	if n == 1 {
		return "{" + p + strconv.Itoa(int(first)) + "}"
	}
	return "{" + p + strconv.Itoa(int(first)) + "-" + p + strconv.Itoa(int(first+n-1)) + "}"
}
