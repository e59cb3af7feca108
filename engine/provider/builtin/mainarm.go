package builtin

import (
	"encoding/binary"

	"golang.org/x/arch/arm64/arm64asm"
)

// The arm64 and arm (ARM and Thumb) start-code readers of mainentry.go.

// codeWord reads the 32-bit instruction word at pc in executable code.
func (m *mainLocator) codeWord(pc uint64) (uint32, bool) {
	code, ok := execCode(m.img, m.data, pc)
	if !ok || len(code) < 4 {
		return 0, false
	}
	return m.img.bo.Uint32(code), true
}

// arm64Start emulates _start up to its `bl __libc_start_main`; main is x0.
func (m *mainLocator) arm64Start() mainFound {
	var v [32]uint64
	var known uint32 // bit 31: sp, never known
	set := func(r uint32, x uint64, ok bool) {
		if r == 31 {
			return // xzr (or sp, which is not tracked)
		}
		if ok {
			v[r], known = x, known|1<<r
		} else {
			known &^= 1 << r
		}
	}
	get := func(r uint32) (uint64, bool) { return v[r], r != 31 && known&(1<<r) != 0 }
	pc := m.img.entry
	for n := 0; n < maxStartInsns; n++ {
		x, ok := m.codeWord(pc)
		if !ok {
			break
		}
		rd, rn := x&31, (x>>5)&31
		switch {
		case x&0xfffff01f == 0xd503201f: // hint: nop, bti, pac*
		case x&0x9f000000 == 0x90000000: // adrp
			imm := sext(uint64((x>>5)&0x7ffff)<<2|uint64((x>>29)&3), 21) << 12
			set(rd, (pc&^0xfff)+uint64(imm), true)
		case x&0x9f000000 == 0x10000000: // adr
			set(rd, pc+uint64(sext(uint64((x>>5)&0x7ffff)<<2|uint64((x>>29)&3), 21)), true)
		case x&0xff800000 == 0x91000000: // add xd, xn, #imm{, lsl #12}
			imm := uint64((x >> 10) & 0xfff)
			if (x>>22)&1 == 1 {
				imm <<= 12
			}
			b, ok := get(rn)
			if rd == 31 {
				break // writes sp
			}
			set(rd, b+imm, ok)
		case x&0xffc00000 == 0xf9400000: // ldr xt, [xn, #imm]
			b, ok := get(rn)
			var val uint64
			if ok {
				val, _, ok = m.loadAt(b+uint64((x>>10)&0xfff)*8, 8)
			}
			set(rd, val, ok)
		case x&0xff000000 == 0x58000000: // ldr xt, literal
			val, _, ok := m.loadAt(pc+uint64(sext(uint64((x>>5)&0x7ffff)<<2, 21)), 8)
			set(rd, val, ok)
		case x&0xff800000 == 0xd2800000: // movz
			set(rd, uint64((x>>5)&0xffff)<<(16*((x>>21)&3)), true)
		case x&0xff800000 == 0xf2800000: // movk
			sh := 16 * ((x >> 21) & 3)
			old, ok := get(rd)
			set(rd, old&^(0xffff<<sh)|uint64((x>>5)&0xffff)<<sh, ok)
		case x&0xffe0ffe0 == 0xaa0003e0: // mov xd, xm (orr xd, xzr, xm)
			rm := (x >> 16) & 31
			val, ok := get(rm)
			if rm == 31 {
				val, ok = 0, true
			}
			set(rd, val, ok)
		case x&0xfc000000 == 0x94000000: // bl
			t := pc + uint64(sext(uint64(x&0x3ffffff)<<2, 28))
			if !isStartMain(m.procNameAt(t)) {
				return notFound(startNotRecognized)
			}
			a, ok := get(0)
			if !ok {
				return notFound(startNotRecognized)
			}
			return m.arm64Wrapper(a, pc)
		case x&0xfc000000 == 0x14000000: // b
			pc += uint64(sext(uint64(x&0x3ffffff)<<2, 28))
			continue
		case x&0x1c000000 == 0x14000000: // other branches and system instructions
			return notFound(startNotRecognized)
		default:
			in, err := decodeARM64(binary.LittleEndian.AppendUint32(nil, x))
			if err != nil {
				return notFound(startNotRecognized)
			}
			if r, ok := in.Args[0].(arm64asm.Reg); ok {
				switch {
				case r >= arm64asm.X0 && r <= arm64asm.X30:
					set(uint32(r-arm64asm.X0), 0, false)
				case r >= arm64asm.W0 && r <= arm64asm.W30:
					set(uint32(r-arm64asm.W0), 0, false)
				}
			}
		}
		pc += 4
	}
	return notFound(startNotRecognized)
}

// arm64Wrapper follows `[hint] b main` at a when a lies just after the call.
func (m *mainLocator) arm64Wrapper(a, call uint64) mainFound {
	if a > call && a <= call+4+wrapperWindow {
		pc := a
		x, ok := m.codeWord(pc)
		if ok && x&0xfffff01f == 0xd503201f {
			pc += 4
			x, ok = m.codeWord(pc)
		}
		if ok && x&0xfc000000 == 0x14000000 {
			return mainFound{addr: pc + uint64(sext(uint64(x&0x3ffffff)<<2, 28)), ok: true}
		}
	}
	return mainFound{addr: a, ok: true}
}

// armStart reads Thumb start code when e_entry's low bit is set, else ARM.
func (m *mainLocator) armStart() mainFound {
	if len(m.data) < 0x1c {
		return notFound(startNotRecognized)
	}
	if m.img.bo.Uint32(m.data[0x18:])&1 == 0 {
		return m.armModeStart()
	}
	return m.thumbStart()
}

// armRegs holds known values of r0..r12; pc is what r15 reads as.
type armRegs struct {
	v     [16]uint32
	known uint16
	pc    uint32
}

func (r *armRegs) set(n, x uint32, ok bool) {
	if ok && n < 13 {
		r.v[n], r.known = x, r.known|1<<n
	} else {
		r.known &^= 1 << n
	}
}

func (r *armRegs) get(n uint32) (uint32, bool) {
	if n == 15 {
		return r.pc, true
	}
	return r.v[n], r.known&(1<<n) != 0
}

// load32 reads a 32-bit pointer as the loader leaves it (loadAt).
func (m *mainLocator) load32(a uint32) (uint32, bool) {
	x, _, ok := m.loadAt(uint64(a), 4)
	return uint32(x), ok
}

// armCall checks the call to target and returns r0: main, a Thumb function
// when its low bit is set.
func (m *mainLocator) armCall(rs *armRegs, target uint64) mainFound {
	if !isStartMain(m.procNameAt(target)) {
		return notFound(startNotRecognized)
	}
	a, ok := rs.get(0)
	if !ok {
		return notFound(startNotRecognized)
	}
	return mainFound{addr: uint64(a &^ 1), thumb: a&1 != 0, ok: true}
}

// armExpandImm is ARMExpandImm: imm8 rotated right by twice imm4.
func armExpandImm(imm12 uint32) uint32 {
	v, rot := imm12&0xff, 2*(imm12>>8&15)
	return v>>rot | v<<((32-rot)&31)
}

// armModeStart emulates ARM-mode start code (glibc's start.S built -marm)
// up to its call of __libc_start_main; main is r0.
func (m *mainLocator) armModeStart() mainFound {
	var rs armRegs
	pc := m.img.entry
	for n := 0; n < maxStartInsns; n++ {
		x, ok := m.codeWord(pc)
		if !ok {
			break
		}
		rs.pc = uint32(pc) + 8
		rd, rn, rm := x>>12&15, x>>16&15, x&15
		if x>>28 != 0xe && x&0xfe000000 != 0xfa000000 {
			return notFound(startNotRecognized) // conditional: not start code REA reads
		}
		switch {
		case x == 0xe320f000: // nop
		case x&0x0fef0000 == 0x03a00000: // mov rd, #imm
			rs.set(rd, armExpandImm(x&0xfff), true)
		case x&0x0fef0ff0 == 0x01a00000: // mov rd, rm
			v, ok := rs.get(rm)
			rs.set(rd, v, ok)
		case x&0x0fe00000 == 0x02800000, x&0x0fe00000 == 0x02400000: // add/sub rd, rn, #imm
			v, ok := rs.get(rn)
			imm := armExpandImm(x & 0xfff)
			if x&0x0fe00000 == 0x02400000 {
				imm = -imm
			}
			rs.set(rd, v+imm, ok)
		case x&0x0fe00ff0 == 0x00800000: // add rd, rn, rm
			a, ok1 := rs.get(rn)
			b, ok2 := rs.get(rm)
			rs.set(rd, a+b, ok1 && ok2)
		case x&0x0f700000 == 0x05100000: // ldr rt, [rn, #±imm12]
			a, ok := rs.get(rn)
			if x&(1<<23) != 0 {
				a += x & 0xfff
			} else {
				a -= x & 0xfff
			}
			var v uint32
			if ok {
				v, ok = m.load32(a)
			}
			rs.set(rd, v, ok)
		case x&0x0ff00ff0 == 0x07900000: // ldr rt, [rn, rm]
			a, ok1 := rs.get(rn)
			b, ok2 := rs.get(rm)
			var v uint32
			ok := ok1 && ok2
			if ok {
				v, ok = m.load32(a + b)
			}
			rs.set(rd, v, ok)
		case x&0x0fff0fff == 0x049d0004: // pop {rt}
			rs.set(rd, 0, false)
		case x&0x0fff0fff == 0x052d0004, x&0x0fff0000 == 0x092d0000: // push
		case x&0x0fff0000 == 0x08bd0000: // pop {rlist}
			if x&(1<<15) != 0 {
				return notFound(startNotRecognized)
			}
			for r := uint32(0); r < 15; r++ {
				if x&(1<<r) != 0 {
					rs.set(r, 0, false)
				}
			}
		case x&0x0f000000 == 0x0b000000: // bl
			return m.armCall(&rs, uint64(uint32(int64(pc)+8+sext(uint64(x&0xffffff)<<2, 26))))
		case x&0xfe000000 == 0xfa000000: // blx (to Thumb)
			return m.armCall(&rs, uint64(uint32(int64(pc)+8+sext(uint64(x&0xffffff)<<2|uint64(x>>24&1)<<1, 26))))
		default:
			return notFound(startNotRecognized)
		}
		pc += 4
	}
	return notFound(startNotRecognized)
}

func (m *mainLocator) thumbHalf(pc uint64) (uint16, bool) {
	code, ok := execCode(m.img, m.data, pc)
	if !ok || len(code) < 2 {
		return 0, false
	}
	return m.img.bo.Uint16(code), true
}

// thumbExpandImm is ThumbExpandImm of the ARM ARM (i:imm3:imm8).
func thumbExpandImm(imm12 uint32) uint32 {
	if imm12>>10 == 0 {
		b := imm12 & 0xff
		switch (imm12 >> 8) & 3 {
		case 0:
			return b
		case 1:
			return b<<16 | b
		case 2:
			return b<<24 | b<<8
		default:
			return b<<24 | b<<16 | b<<8 | b
		}
	}
	v := 0x80 | imm12&0x7f
	rot := imm12 >> 7
	return v>>rot | v<<(32-rot)
}

// thumbBranch decodes the offset of a 32-bit Thumb B.W (T4), BL or BLX.
func thumbBranch(h1, h2 uint16) int64 {
	s := uint64(h1>>10) & 1
	j1, j2 := uint64(h2>>13)&1, uint64(h2>>11)&1
	i1, i2 := ^(j1^s)&1, ^(j2^s)&1
	imm := s<<24 | i1<<23 | i2<<22 | uint64(h1&0x3ff)<<12 | uint64(h2&0x7ff)<<1
	return sext(imm, 25)
}

// thumbStart emulates the Thumb instructions of glibc's armhf crt1 _start
// up to its call of __libc_start_main; main is r0. Any other instruction
// ends the attempt: without a Thumb decoder, REA does not know what it writes.
func (m *mainLocator) thumbStart() mainFound {
	var rs armRegs
	set, get, load := rs.set, rs.get, m.load32
	pc := m.img.entry
	for n := 0; n < maxStartInsns; n++ {
		h1, ok := m.thumbHalf(pc)
		if !ok {
			break
		}
		rs.pc = uint32(pc) + 4       // pc reads as the instruction's address + 4
		lit := (uint32(pc) + 4) &^ 3 // Align(PC, 4) for literal loads and ADR
		if h1>>11 >= 0x1d {          // 32-bit instruction
			h2, ok := m.thumbHalf(pc + 2)
			if !ok {
				break
			}
			rt := uint32(h2 >> 12)
			switch {
			case h1&0xfbef == 0xf04f && h2&0x8000 == 0: // mov.w rd, #imm
				imm := uint32(h1>>10&1)<<11 | uint32(h2>>12&7)<<8 | uint32(h2&0xff)
				set(uint32(h2>>8)&15, thumbExpandImm(imm), true)
			case h1&0xff7f == 0xf85f: // ldr.w rt, [pc, #±imm12]
				a := lit + uint32(h2&0xfff)
				if h1&0x80 == 0 {
					a = lit - uint32(h2&0xfff)
				}
				x, ok := load(a)
				set(rt, x, ok)
			case h1&0xfff0 == 0xf8d0: // ldr.w rt, [rn, #imm12]
				b, ok := get(uint32(h1 & 15))
				var x uint32
				if ok {
					x, ok = load(b + uint32(h2&0xfff))
				}
				set(rt, x, ok)
			case h1&0xfff0 == 0xf850 && h2&0x0fc0 == 0: // ldr.w rt, [rn, rm, lsl #k]
				b, ok1 := get(uint32(h1 & 15))
				i, ok2 := get(uint32(h2 & 15))
				var x uint32
				ok := ok1 && ok2
				if ok {
					x, ok = load(b + i<<(h2>>4&3))
				}
				set(rt, x, ok)
			case h1&0xf800 == 0xf000 && h2&0xc000 == 0xc000: // bl, blx
				t := uint64(uint32(int64(pc) + 4 + thumbBranch(h1, h2)))
				if h2&0x1000 == 0 { // blx: to ARM code, from Align(PC, 4)
					t = uint64(uint32(int64(lit) + thumbBranch(h1, h2)))
				}
				return m.armCall(&rs, t)
			default:
				return notFound(startNotRecognized)
			}
			pc += 4
			continue
		}
		switch {
		case h1 == 0xbf00: // nop
		case h1&0xfe00 == 0xb400: // push {rlist[, lr]}
		case h1&0xfe00 == 0xbc00: // pop {rlist[, pc]}
			if h1&0x100 != 0 {
				return notFound(startNotRecognized)
			}
			for r := uint32(0); r < 8; r++ {
				if h1&(1<<r) != 0 {
					set(r, 0, false)
				}
			}
		case h1&0xff00 == 0x4600: // mov rd, rm (high registers)
			x, ok := get(uint32(h1>>3) & 15)
			set(uint32(h1&7)|uint32(h1>>4)&8, x, ok)
		case h1&0xff00 == 0x4400: // add rdn, rm (high registers)
			rdn := uint32(h1&7) | uint32(h1>>4)&8
			a, ok1 := get(rdn)
			b, ok2 := get(uint32(h1>>3) & 15)
			set(rdn, a+b, ok1 && ok2)
		case h1&0xf800 == 0xa000: // adr rd, #imm8*4
			set(uint32(h1>>8)&7, lit+uint32(h1&0xff)*4, true)
		case h1&0xf800 == 0x4800: // ldr rt, [pc, #imm8*4]
			x, ok := load(lit + uint32(h1&0xff)*4)
			set(uint32(h1>>8)&7, x, ok)
		case h1&0xf800 == 0x2000: // movs rd, #imm8
			set(uint32(h1>>8)&7, uint32(h1&0xff), true)
		case h1&0xfe00 == 0x5800: // ldr rt, [rn, rm]
			b, ok1 := get(uint32(h1>>3) & 7)
			i, ok2 := get(uint32(h1>>6) & 7)
			var x uint32
			ok := ok1 && ok2
			if ok {
				x, ok = load(b + i)
			}
			set(uint32(h1&7), x, ok)
		case h1&0xf800 == 0x6800: // ldr rt, [rn, #imm5*4]
			b, ok := get(uint32(h1>>3) & 7)
			var x uint32
			if ok {
				x, ok = load(b + uint32(h1>>6&31)*4)
			}
			set(uint32(h1&7), x, ok)
		default:
			return notFound(startNotRecognized)
		}
		pc += 2
	}
	return notFound(startNotRecognized)
}
