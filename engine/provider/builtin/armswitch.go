package builtin

import "encoding/binary"

// Jump tables of arm code. A switch statement compiles to an indirect jump
// that both descents (seeds.go's call-target descent and code.go's
// per-procedure one) would stop at, leaving its cases undecoded: the calls
// made only there (corpus.c's classify calls sq, cube, fib...) would find no
// procedure, and a case block would contain nothing. armSwitch follows the
// instructions of one block and, at the indirect jump, returns the case
// addresses of the forms GCC and libgcc emit:
//
//   - ARM: cmp rI, #n; add{ls} pc, pc, rI, lsl #2 — a table of n+1 branch
//     instructions after the add (each decodes as a b to its case); an add
//     to the pc of any other register (glibc's memcpy jumps into its own
//     unrolled copy loop, conditionally in memmove) goes on at pc+8.
//   - Thumb: cmp rI, #n; tbb [pc, rI] / tbh [pc, rI, lsl #1] — n+1 byte or
//     halfword offsets after the tbb, case = table + 2*offset;
//   - Thumb -O0: adr rB, T; ldr.w rI, [rB, rI, lsl #2]; add rB, rI; bx rB
//     (or mov pc, rB) — n+1 words, case = T + word (bit 0 the Thumb bit);
//   - libgcc's division: adr rA, L; add.w rD, rA, rX, lsl #k; mov pc, rD —
//     a jump into the unrolled code at L.
//
// The table size comes from the cmp that bounds the index; without one (the
// bound is in another block) the table is not followed: reading on to the
// lowest case, as some disassemblers do, reads the code after a table whose
// cases all lie far beyond it as offsets (glibc's vfwprintf). A table is
// read only from the file bytes of executable sections, at most
// maxSwitchCases entries, and ends before the lowest case it names.

const maxSwitchCases = 1024

// armSwitchWindow is how many instructions a cmp bound, an adr base or a
// loaded table entry stays known without its register being written.
const armSwitchWindow = 8

type armSwitch struct {
	bo   binary.ByteOrder
	code func(uint64) ([]byte, bool)
	n    int // instructions seen in this block
	// What each register holds, as far as the table forms go: bound, an
	// index of v entries (cmp rI, #v-1); adr, the address v; entry, a word
	// loaded from the table at v of n entries; jump, a jump base: the table
	// at v of n entries plus its entry, or (n = 0) the code address v.
	bound, adr, entry, jump [16]armFact
	// table is the extent of the last table read (tbb/tbh bytes, adr
	// words), for the caller to take.
	table codeRange
}

// armFact is one register's fact, set at instruction at (1-based; 0: none).
type armFact struct {
	v, n uint32
	at   int
}

func (s *armSwitch) reset() {
	s.n = 0
	s.clobber(^uint32(0))
}

// get returns the fact of register r when it was set recently.
func (s *armSwitch) get(f *[16]armFact, r uint32) (armFact, bool) {
	x := f[r&15]
	return x, x.at != 0 && s.n-x.at < armSwitchWindow
}

func (s *armSwitch) set(f *[16]armFact, r, v, n uint32) {
	s.clobber(1 << (r & 15))
	f[r&15] = armFact{v: v, n: n, at: s.n}
}

// clobber forgets what the registers in mask held.
func (s *armSwitch) clobber(mask uint32) {
	for r := range 16 {
		if mask&(1<<r) != 0 {
			s.bound[r], s.adr[r], s.entry[r], s.jump[r] = armFact{}, armFact{}, armFact{}, armFact{}
		}
	}
}

// step observes the instruction it, decoded from code in Thumb mode when
// thumb (written: the registers the Thumb decoder says it writes), and
// returns the case addresses when it is a recognized table jump.
func (s *armSwitch) step(it insn, code []byte, thumb bool, written uint32) []uint64 {
	s.n++
	if thumb {
		return s.stepThumb(it, code, written)
	}
	return s.stepARM(it, code)
}

func (s *armSwitch) stepARM(it insn, code []byte) []uint64 {
	if len(code) < 4 {
		return nil
	}
	x := s.bo.Uint32(code)
	cond := x >> 28
	switch {
	case x&0x0ff0f000 == 0x03500000 && cond == 0xe: // cmp rn, #imm
		s.set(&s.bound, x>>16&15, armExpandImm(x&0xfff)+1, 0)
		return nil
	case x&0x0ffff010 == 0x008ff000 && cond != 0xf: // add{cond} pc, pc, rm{, shift #k}
		pc := uint32(it.addr) + 8
		rm, sh, typ := x&15, x>>7&31, x>>5&3
		if b, ok := s.get(&s.bound, rm); ok && typ == 0 && sh == 2 && rm != 15 {
			out := make([]uint64, 0, min(b.v, maxSwitchCases))
			for i := uint32(0); i < b.v && i < maxSwitchCases; i++ {
				out = append(out, uint64(pc+4*i))
			}
			return out
		}
		return []uint64{uint64(pc)} // a computed jump forward into the code after it
	}
	switch {
	case x&0x0e000000 == 0x0a000000: // b, bl: no register of interest
	case x&0x0e000000 == 0x08000000: // ldm, stm: the base and the list
		s.clobber(1<<(x>>16&15) | x&0xffff)
	default:
		s.clobber(armWrites(x))
	}
	return nil
}

func (s *armSwitch) stepThumb(it insn, code []byte, written uint32) []uint64 {
	if len(code) < 2 {
		return nil
	}
	h := binary.LittleEndian.Uint16(code)
	lit := uint32(it.addr+4) &^ 3 // Align(PC, 4)
	if it.n == 2 {
		switch {
		case h&0xf800 == 0x2800: // cmp rn, #imm8
			s.set(&s.bound, uint32(h>>8&7), uint32(h&0xff)+1, 0)
		case h&0xf800 == 0xa000: // adr rd, #imm8*4
			s.set(&s.adr, uint32(h>>8&7), lit+uint32(h&0xff)*4, 0)
		case h&0xff00 == 0x4400: // add rdn, rm (high registers)
			rdn, rm := uint32(h&7)|uint32(h>>4)&8, uint32(h>>3)&15
			a, ok1 := s.get(&s.adr, rdn)
			e, ok2 := s.get(&s.entry, rm)
			if ok1 && ok2 && e.v == a.v && rdn != 15 {
				s.set(&s.jump, rdn, a.v, e.n)
			} else {
				s.clobber(1 << rdn)
			}
		case h&0xff87 == 0x4700, h&0xff87 == 0x4687: // bx rm, mov pc, rm
			return s.jumpThrough(uint32(h>>3) & 15)
		default:
			s.clobber(written)
		}
		return nil
	}
	if len(code) < 4 {
		return nil
	}
	h2 := binary.LittleEndian.Uint16(code[2:])
	switch {
	case h&0xfbf0 == 0xf1b0 && h2&0x8f00 == 0x0f00: // cmp.w rn, #imm
		imm := uint32(h>>10&1)<<11 | uint32(h2>>12&7)<<8 | uint32(h2&0xff)
		s.set(&s.bound, uint32(h&15), thumbExpandImm(imm)+1, 0)
	case h&0xfbff == 0xf20f && h2&0x8000 == 0: // adr.w rd, #+imm12 (addw rd, pc, #imm)
		s.set(&s.adr, uint32(h2>>8&15), lit+(uint32(h>>10&1)<<11|uint32(h2>>12&7)<<8|uint32(h2&0xff)), 0)
	case h == 0xe8df && h2&0xffe0 == 0xf000: // tbb/tbh [pc, rm]
		return s.tableBranch(it, h2)
	case h&0xf800 == 0xf000 && h2&0x8000 != 0: // b.w, b<c>.w, bl, blx: no register of interest
	case h&0xfff0 == 0xf850 && h2&0x0ff0 == 0x0020: // ldr.w rt, [rn, rm, lsl #2]
		rn, rt, rm := uint32(h&15), uint32(h2>>12), uint32(h2&15)
		a, ok1 := s.get(&s.adr, rn)
		b, ok2 := s.get(&s.bound, rm)
		if ok1 && ok2 && rt != 15 && rt != rn {
			s.set(&s.entry, rt, a.v, b.v)
		} else {
			s.clobber(1 << rt)
		}
	case h&0xffe0 == 0xeb00 && h2&0x8000 == 0: // add.w rd, rn, rm{, shift}
		rn, rd := uint32(h&15), uint32(h2>>8&15)
		if a, ok := s.get(&s.adr, rn); ok && rd != 15 {
			s.set(&s.jump, rd, a.v, 0)
		} else {
			s.clobber(1 << rd)
		}
	default:
		s.clobber(written)
	}
	return nil
}

// jumpThrough answers bx rm / mov pc, rm through a jump base (armSwitch.jump).
func (s *armSwitch) jumpThrough(rm uint32) []uint64 {
	j, ok := s.get(&s.jump, rm)
	if !ok {
		return nil
	}
	if j.n == 0 {
		return []uint64{uint64(j.v)} // adr rA, L; add.w rD, rA, rX, lsl #k; mov pc, rD
	}
	var out []uint64
	for i := uint32(0); i < j.n && i < maxSwitchCases; i++ {
		b, ok := s.code(uint64(j.v + 4*i))
		if !ok || len(b) < 4 {
			break
		}
		out = append(out, uint64((j.v+s.bo.Uint32(b))&^1))
	}
	s.table = codeRange{uint64(j.v), uint64(j.v) + 4*uint64(len(out))}
	return out
}

// tableBranch answers tbb [pc, rm] / tbh [pc, rm, lsl #1] at it.
func (s *armSwitch) tableBranch(it insn, h2 uint16) []uint64 {
	table := it.addr + 4
	half := h2&0x10 != 0
	b, bounded := s.get(&s.bound, uint32(h2&15))
	if !bounded {
		return nil
	}
	n := b.v
	code, ok := s.code(table)
	if !ok {
		return nil
	}
	size := uint64(1)
	if half {
		size = 2
	}
	first := ^uint64(0) // the lowest case: the table ends before it
	var out []uint64
	for i := uint64(0); i < uint64(n) && i < maxSwitchCases && (i+1)*size <= uint64(len(code)); i++ {
		if table+i*size >= first {
			break
		}
		off := uint64(code[i])
		if half {
			off = uint64(s.bo.Uint16(code[2*i:]))
		}
		t := uint64(uint32(table + 2*off))
		first = min(first, t)
		out = append(out, t)
	}
	s.table = codeRange{table, table + size*uint64(len(out))}
	return out
}

// thumbLabel returns the code label a Thumb add rD, pc (it, decoded from
// code) forms when the next instruction is orr.w rD, rD, #1: the computed
// jump of glibc's vfprintf (ldr rD, =L-.; add rD, pc; orr.w rD, rD, #1;
// bx rD), whose target is code of the same function, not a function
// pointer (those are formed with bit 0 already set).
func thumbLabel(it insn, code []byte) (uint64, bool) {
	if !it.hasData || it.data&1 != 0 || len(code) < 6 {
		return 0, false
	}
	h := binary.LittleEndian.Uint16(code)
	if h&0xff78 != 0x4478 {
		return 0, false
	}
	rd := uint16(h&7) | (h>>4)&8
	h1, h2 := binary.LittleEndian.Uint16(code[2:]), binary.LittleEndian.Uint16(code[4:])
	if h1 == 0xf040|rd && h2 == rd<<8|1 {
		return it.data, true
	}
	return 0, false
}

// thumbVeneer decodes the Thumb-to-ARM veneer at a (ld's __x_from_thumb:
// bx pc, a nop when a is word aligned, then ARM code): when the ARM code is
// b X (or ldr pc, [pc, #-4] and the word X), it returns X, whether X is
// Thumb code, and the veneer's end.
func thumbVeneer(img *image, data []byte, a uint64) (target uint64, thumb bool, end uint64, ok bool) {
	code, ok := execCode(img, data, a)
	if !ok || len(code) < 2 || img.bo.Uint16(code) != 0x4778 {
		return 0, false, 0, false
	}
	arm := (a + 4) &^ 3
	w, ok := execCode(img, data, arm)
	if !ok || len(w) < 4 {
		return 0, false, 0, false
	}
	x := img.bo.Uint32(w)
	switch {
	case x&0xff000000 == 0xea000000: // b
		return uint64(uint32(int64(arm) + 8 + sext(uint64(x&0xffffff)<<2, 26))), false, arm + 4, true
	case x == 0xe51ff004 && len(w) >= 8: // ldr pc, [pc, #-4]; .word X
		v := uint64(img.bo.Uint32(w[4:]))
		return v &^ 1, v&1 != 0, arm + 8, true
	}
	return 0, false, 0, false
}
