package builtin

import (
	"encoding/binary"
	"github.com/rea-re/rea/engine/provider"
	"strconv"
	"strings"
)

// A Thumb-2 (T16 and T32) decoder for the ARMv7-A instruction set GCC and
// clang emit: golang.org/x/arch/arm/armasm decodes ARM mode only, and no
// package on the Go module proxy decodes Thumb-2 for a disassembler (the one
// Thumb-2 implementation found, in an Atari 2600 emulator, is an executor for
// Cortex-M, GPL-licensed, with no GNU-syntax text). Text follows GNU objdump
// (arm-linux-gnueabihf-objdump -d): register names sl/fp/ip, ".w" and ".n"
// width suffixes where objdump writes them, condition suffixes from IT blocks,
// "cs"/"cc" condition names. Operand comments (@ 0x…) are not written.
//
// The decoder keeps the IT state between instructions (decoder.it): a caller
// that decodes one instruction out of sequence sets it from insn.it first.

var (
	armRegNames  = [16]string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "sl", "fp", "ip", "sp", "lr", "pc"}
	armCondNames = [16]string{"eq", "ne", "cs", "cc", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "", ""}
)

// tcond is an IT block's condition suffix of one instruction: al and the
// unpredictable 0b1111 are spelled as objdump spells them inside a block.
func tcond(c uint8, inIT bool) string {
	switch {
	case !inIT:
		return ""
	case c == 0xe:
		return "al"
	case c == 0xf:
		return "<und>"
	}
	return armCondNames[c]
}

// regList renders a register list, {r4, r5, lr}.
func regList(m uint32) string {
	var b strings.Builder
	b.WriteByte('{')
	for r := 0; r < 16; r++ {
		if m&(1<<r) != 0 {
			if b.Len() > 1 {
				b.WriteString(", ")
			}
			b.WriteString(armRegNames[r])
		}
	}
	b.WriteByte('}')
	return b.String()
}

func imm(v int64) string { return "#" + strconv.FormatInt(v, 10) }

// tstate is the text under construction of one Thumb instruction.
type tstate struct {
	cond uint8 // condition of the instruction (IT block), 0xe outside
	inIT bool
}

// c is the condition suffix; sc the suffix of a T16 instruction that sets
// the flags outside an IT block and not inside one.
func (t tstate) c() string { return tcond(t.cond, t.inIT) }
func (t tstate) sc() string {
	if t.inIT {
		return t.c()
	}
	return "s"
}

// advanceIT moves the IT state past one instruction of the block.
func advanceIT(it uint8) uint8 {
	if it&7 == 0 {
		return 0
	}
	return it&0xe0 | (it<<1)&0x1f
}

// decodeThumb decodes one Thumb instruction at pc (even).
func (d *decoder) decodeThumb(code []byte, pc uint64, withText bool) insn {
	it := insn{addr: pc, it: d.it}
	if len(code) < 2 {
		it.n = uint8(len(code))
		if withText {
			it.text = "(bad)"
		}
		d.it = 0
		return it
	}
	t := tstate{cond: 0xe}
	if d.it&0xf != 0 {
		t.cond, t.inIT = d.it>>4, true
	}
	hw1 := binary.LittleEndian.Uint16(code)
	var text string
	if hw1>>11 >= 0x1d {
		if len(code) < 4 {
			it.n = 2 // a 32-bit encoding cut short: its first halfword
			if withText {
				it.text = "(bad)"
			}
			d.it = 0
			return it
		}
		it.n = 4
		hw2 := binary.LittleEndian.Uint16(code[2:])
		text = d.thumb32(&it, t, uint32(hw1)<<16|uint32(hw2), withText)
	} else {
		it.n = 2
		text = d.thumb16(&it, t, hw1, withText)
	}
	if t.inIT && t.cond < 0xe && (it.flow == flowRet || it.flow == flowJump || it.flow == flowStop) {
		// A conditional return, indirect jump or trap in an IT block: the
		// sequential flow continues past it.
		it.flow = flowCondJump
	}
	if hw1&0xff00 == 0xbf00 && hw1&0xf != 0 {
		d.it = uint8(hw1)
	} else if t.inIT {
		d.it = advanceIT(d.it)
	}
	if withText {
		it.text = text
	}
	d.trackThumbPool(&it)
	return it
}

// Literal-pool tracking as for ARM mode (trackPool): ldr rT, [pc, #imm]
// loads a word the next add rD, pc adds the pc to (the PIC idiom).
// thumb16 and thumb32 record the instruction's written registers in
// d.twrite, the loaded literal's register in d.tlit.
func (d *decoder) trackThumbPool(it *insn) {
	if it.flow != flowNone {
		d.valid = 0
		return
	}
	d.valid &^= d.twrite
	if d.tlit >= 0 && d.code != nil {
		if b, ok := d.code(it.data); ok && len(b) >= 4 {
			r := uint(d.tlit)
			d.page[r], d.valid = uint64(d.bo.Uint32(b)), d.valid|1<<r
		}
	}
}

// literal records a pc-relative literal reference (Align(pc+4, 4) ± off).
func (d *decoder) literal(it *insn, off int64, rt int) {
	it.hasData, it.data = true, uint64(uint32(int64((it.addr+4)&^3)+off))
	if rt >= 0 && rt < 15 {
		d.tlit = rt
	}
}

func (d *decoder) thumb16(it *insn, t tstate, h uint16, w bool) string {
	d.twrite, d.tlit = 0, -1
	r0, r3, r8 := int(h&7), int(h>>3)&7, int(h>>8)&7
	R := func(r int) string { return armRegNames[r] }
	d.twrite = 1 << r0
	switch {
	case h>>13 == 0 && h>>11 != 3: // shift by immediate; mov
		op := (h >> 11) & 3
		i5 := int64(h>>6) & 31
		if !w {
			return ""
		}
		if op == 0 && i5 == 0 {
			return "mov" + t.sc() + " " + R(r0) + ", " + R(r3)
		}
		if op != 0 && i5 == 0 {
			i5 = 32
		}
		return [3]string{"lsl", "lsr", "asr"}[op] + t.sc() + " " + R(r0) + ", " + R(r3) + ", " + imm(i5)
	case h>>11 == 3: // add/sub register or 3-bit immediate
		if !w {
			return ""
		}
		mn := "add"
		if h&(1<<9) != 0 {
			mn = "sub"
		}
		if h&(1<<10) != 0 {
			return mn + t.sc() + " " + R(r0) + ", " + R(r3) + ", " + imm(int64(h>>6)&7)
		}
		return mn + t.sc() + " " + R(r0) + ", " + R(r3) + ", " + R(int(h>>6)&7)
	case h>>13 == 1: // mov/cmp/add/sub immediate
		op := (h >> 11) & 3
		d.twrite = 1 << r8
		if op == 1 {
			d.twrite = 0
		}
		if !w {
			return ""
		}
		i8 := imm(int64(h & 0xff))
		switch op {
		case 0:
			return "mov" + t.sc() + " " + R(r8) + ", " + i8
		case 1:
			return "cmp" + t.c() + " " + R(r8) + ", " + i8
		case 2:
			return "add" + t.sc() + " " + R(r8) + ", " + i8
		}
		return "sub" + t.sc() + " " + R(r8) + ", " + i8
	case h>>10 == 0x10: // data processing, register
		op := (h >> 6) & 15
		if op == 8 || op == 10 || op == 11 {
			d.twrite = 0
		}
		if !w {
			return ""
		}
		switch op {
		case 8:
			return "tst" + t.c() + " " + R(r0) + ", " + R(r3)
		case 10:
			return "cmp" + t.c() + " " + R(r0) + ", " + R(r3)
		case 11:
			return "cmn" + t.c() + " " + R(r0) + ", " + R(r3)
		case 9:
			return "neg" + t.sc() + " " + R(r0) + ", " + R(r3)
		}
		mn := [16]string{"and", "eor", "lsl", "lsr", "asr", "adc", "sbc", "ror", "", "", "", "", "orr", "mul", "bic", "mvn"}[op]
		return mn + t.sc() + " " + R(r0) + ", " + R(r3)
	case h>>10 == 0x11: // special data processing, branch and exchange
		op := (h >> 8) & 3
		rd := int(h&7) | int(h>>4)&8
		rm := int(h>>3) & 15
		switch op {
		case 0:
			d.twrite = 1 << rd
			if rd == 15 {
				it.flow, it.indirect = flowJump, true
			}
			if rm == 15 && rd != 15 && d.valid&(1<<rd) != 0 { // add rD, pc
				it.hasData, it.data = true, uint64(uint32(it.addr+4+d.page[rd]))
			}
			if !w {
				return ""
			}
			return "add" + t.c() + " " + R(rd) + ", " + R(rm)
		case 1:
			d.twrite = 0
			if !w {
				return ""
			}
			return "cmp" + t.c() + " " + R(rd) + ", " + R(rm)
		case 2:
			d.twrite = 1 << rd
			if rd == 15 {
				it.flow, it.indirect = flowJump, true
			}
			if !w {
				return ""
			}
			if h == 0x46c0 {
				return "nop" + t.c()
			}
			return "mov" + t.c() + " " + R(rd) + ", " + R(rm)
		}
		d.twrite = 0
		ns := ""
		if h&4 != 0 {
			ns = "ns"
		}
		if h&0x80 != 0 {
			it.flow, it.indirect = flowCall, true
			return "blx" + ns + t.c() + " " + R(rm)
		}
		if rm == 14 {
			it.flow = flowRet
		} else {
			it.flow, it.indirect = flowJump, true
		}
		return "bx" + ns + t.c() + " " + R(rm)
	case h>>11 == 9: // ldr rt, [pc, #imm]
		d.twrite = 1 << r8
		d.literal(it, int64(h&0xff)*4, r8)
		it.lit = 4
		if !w {
			return ""
		}
		return "ldr" + t.c() + " " + R(r8) + ", [pc, " + imm(int64(h&0xff)*4) + "]"
	case h>>12 == 5: // load/store register offset
		op := (h >> 9) & 7
		if op < 3 {
			d.twrite = 0
		}
		if !w {
			return ""
		}
		mn := [8]string{"str", "strh", "strb", "ldrsb", "ldr", "ldrh", "ldrb", "ldrsh"}[op]
		return mn + t.c() + " " + R(r0) + ", [" + R(r3) + ", " + R(int(h>>6)&7) + "]"
	case h>>13 == 3 || h>>12 == 8: // load/store immediate offset
		var mn string
		i5 := int64(h>>6) & 31
		l := h&(1<<11) != 0
		switch {
		case h>>12 == 8:
			mn, i5 = "strh", i5*2
			if l {
				mn = "ldrh"
			}
		case h&(1<<12) != 0:
			mn = "strb"
			if l {
				mn = "ldrb"
			}
		default:
			mn, i5 = "str", i5*4
			if l {
				mn = "ldr"
			}
		}
		if !l {
			d.twrite = 0
		}
		if !w {
			return ""
		}
		return mn + t.c() + " " + R(r0) + ", [" + R(r3) + ", " + imm(i5) + "]"
	case h>>12 == 9: // ldr/str sp-relative
		l := h&(1<<11) != 0
		d.twrite = 0
		if l {
			d.twrite = 1 << r8
		}
		if !w {
			return ""
		}
		mn := "str"
		if l {
			mn = "ldr"
		}
		return mn + t.c() + " " + R(r8) + ", [sp, " + imm(int64(h&0xff)*4) + "]"
	case h>>12 == 10: // adr, add rd, sp, #imm
		d.twrite = 1 << r8
		if h&(1<<11) == 0 {
			d.literal(it, int64(h&0xff)*4, -1)
			if !w {
				return ""
			}
			return "add" + t.c() + " " + R(r8) + ", pc, " + imm(int64(h&0xff)*4)
		}
		if !w {
			return ""
		}
		return "add" + t.c() + " " + R(r8) + ", sp, " + imm(int64(h&0xff)*4)
	case h>>12 == 11: // miscellaneous
		return d.thumb16misc(it, t, h, w)
	case h>>12 == 12: // ldm/stm
		rn := r8
		list := uint32(h & 0xff)
		d.twrite = 1 << rn
		if h&(1<<11) != 0 {
			d.twrite |= list
		}
		if !w {
			return ""
		}
		if h&(1<<11) != 0 {
			wb := "!"
			if list&(1<<rn) != 0 {
				wb = ""
			}
			return "ldmia" + t.c() + " " + R(rn) + wb + ", " + regList(list)
		}
		return "stmia" + t.c() + " " + R(rn) + "!, " + regList(list)
	case h>>12 == 13: // b<cond>, udf, svc
		c := uint8(h>>8) & 15
		d.twrite = 0
		switch c {
		case 14:
			it.flow = flowStop
			if !w {
				return ""
			}
			return "udf" + t.c() + " " + imm(int64(h&0xff))
		case 15:
			if !w {
				return ""
			}
			return "svc" + t.c() + " " + strconv.Itoa(int(h&0xff))
		}
		it.flow, it.hasTarget = flowCondJump, true
		it.target = uint64(uint32(int64(it.addr) + 4 + sext(uint64(h&0xff)<<1, 9)))
		if !w {
			return ""
		}
		return "b" + armCondNames[c] + ".n " + provider.FormatAddress(it.target)
	default: // h>>11 == 0x1c: b.n
		d.twrite = 0
		it.flow, it.hasTarget = flowJump, true
		if t.inIT && t.cond != 0xe {
			it.flow = flowCondJump
		}
		it.target = uint64(uint32(int64(it.addr) + 4 + sext(uint64(h&0x7ff)<<1, 12)))
		if !w {
			return ""
		}
		return "b" + t.c() + ".n " + provider.FormatAddress(it.target)
	}
}

func (d *decoder) thumb16misc(it *insn, t tstate, h uint16, w bool) string {
	R := func(r int) string { return armRegNames[r] }
	r0, r3 := int(h&7), int(h>>3)&7
	d.twrite = 0
	switch {
	case h&0xff00 == 0xb000:
		d.twrite = 1 << 13
		if !w {
			return ""
		}
		mn := "add"
		if h&0x80 != 0 {
			mn = "sub"
		}
		return mn + t.c() + " sp, " + imm(int64(h&0x7f)*4)
	case h&0xf500 == 0xb100: // cbz, cbnz
		it.flow, it.hasTarget = flowCondJump, true
		it.target = it.addr + 4 + uint64((h>>2)&0x3e) + uint64((h>>9)&1)<<6
		it.target = uint64(uint32(it.target))
		if !w {
			return ""
		}
		mn := "cbz"
		if h&0x800 != 0 {
			mn = "cbnz"
		}
		return mn + " " + R(r0) + ", " + provider.FormatAddress(it.target)
	case h&0xff00 == 0xb200: // extend
		d.twrite = 1 << r0
		if !w {
			return ""
		}
		return [4]string{"sxth", "sxtb", "uxth", "uxtb"}[(h>>6)&3] + t.c() + " " + R(r0) + ", " + R(r3)
	case h&0xfe00 == 0xb400: // push
		d.twrite = 1 << 13
		if !w {
			return ""
		}
		return "push" + t.c() + " " + regList(uint32(h&0xff)|uint32(h>>8&1)<<14)
	case h&0xfe00 == 0xbc00: // pop
		list := uint32(h&0xff) | uint32(h>>8&1)<<15
		d.twrite = list | 1<<13
		if list&(1<<15) != 0 {
			it.flow = flowRet
		}
		if !w {
			return ""
		}
		return "pop" + t.c() + " " + regList(list)
	case h&0xffe8 == 0xb660: // cps
		if !w {
			return ""
		}
		mn := "cpsie"
		if h&0x10 != 0 {
			mn = "cpsid"
		}
		f := ""
		for i, c := range "fia" {
			if h&(1<<i) != 0 {
				f = string(c) + f
			}
		}
		return mn + " " + f
	case h&0xfff7 == 0xb650: // setend
		if !w {
			return ""
		}
		if h&8 != 0 {
			return "setend be"
		}
		return "setend le"
	case h&0xff00 == 0xba00:
		op := (h >> 6) & 3
		if op == 2 {
			it.flow = flowStop
			if !w {
				return ""
			}
			return "hlt " + "0x" + hex4(uint32(h&0x3f))
		}
		d.twrite = 1 << r0
		if !w {
			return ""
		}
		return [4]string{"rev", "rev16", "", "revsh"}[op] + t.c() + " " + R(r0) + ", " + R(r3)
	case h&0xff00 == 0xbe00:
		it.flow = flowStop
		if !w {
			return ""
		}
		return "bkpt 0x" + hex4(uint32(h&0xff))
	case h&0xff00 == 0xbf00:
		if h&0xf == 0 {
			if !w {
				return ""
			}
			hint := (h >> 4) & 15
			if hint < 5 {
				return [5]string{"nop", "yield", "wfe", "wfi", "sev"}[hint] + t.c()
			}
			return "nop" + t.c() + " {" + strconv.Itoa(int(hint)) + "}"
		}
		if !w {
			return ""
		}
		fc := uint8(h>>4) & 15
		mask := h & 15
		s := "it"
		for k := 1; k < 4 && mask&(1<<(4-k)-1) != 0; k++ {
			if uint8(mask>>(4-k))&1 == fc&1 {
				s += "t"
			} else {
				s += "e"
			}
		}
		c := armCondNames[fc]
		if fc == 0xe {
			c = "al"
		} else if fc == 0xf {
			c = "<und>"
		}
		return s + " " + c
	}
	if !w {
		return ""
	}
	return ".inst.n 0x" + hex4(uint32(h))
}

func hex4(v uint32) string {
	s := strconv.FormatUint(uint64(v), 16)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

func hex8(v uint32) string {
	s := strconv.FormatUint(uint64(v), 16)
	for len(s) < 8 {
		s = "0" + s
	}
	return s
}
