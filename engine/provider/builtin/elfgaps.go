package builtin

import (
	"bytes"
	"encoding/binary"
	"slices"

	"golang.org/x/arch/x86/x86asm"
)

// Discovery through data and gaps on ELF without unwind tables (discovery
// source "code-gaps", x86, x86_64 and arm64; issue 25 item 6). A stripped
// image built with -fno-asynchronous-unwind-tables names its functions
// nowhere: .eh_frame covers only the C runtime, and a function that no call
// reaches (a callback, a table's entry, an exported function nothing in
// the image calls) is found by the call-target descent only through data.
// When the image has no full symbol table and its FDEs cover less than
// half of its code, after the descent (seeds.go):
//
//   - the code addresses relocations store seed procedures: the targets of
//     R_*_RELATIVE relocations, and of symbol relocations (R_X86_64_64,
//     GLOB_DAT, R_386_32, R_AARCH64_ABS64) to defined symbols;
//   - then the code no descent decoded is searched a round at a time: in
//     each undecoded gap of an executable section, past padding (nops,
//     int3, zero fill), the first instruction is a procedure when the code
//     from it decodes cleanly to a return or jump (elfProbe). Each round's
//     starts are descended before the next round, so a gap begins where
//     the code before it ends;
//   - last, in an executable that is not position-independent (no
//     R_*_RELATIVE relocation), every aligned pointer-sized word of the
//     non-executable sections that points into code not yet decoded
//     (elfDataWords), then the gaps again.
//
// Every seed must decode cleanly and lie outside the code decoded so far.
// Jump-table targets would look like gaps' starts: the descent reads the
// tables it meets (x86-64's relative tables after lea table(%rip), i386's
// absolute and GOT-relative ones, arm64's byte and halfword tables; see
// switchTable), so case code is decoded as part of its procedure, and a
// probe that branches into another procedure's decoded body, not to a
// procedure start, is refused (the tail of a procedure the descent did
// not finish).

// maxGapRoundsELF and maxGapProbeELF bound the gap search of one image.
const (
	maxGapRoundsELF = 1 << 12
	maxGapProbeELF  = 512
)

// elfGapsOn reports whether the data and gap search runs for the image:
// x86, x86_64 or arm64 ELF without a full symbol table or Go function
// table whose FDEs cover less than half of the code.
func elfGapsOn(img *image, symtab bool) bool {
	if img.elf == nil || symtab || img.pcln != nil {
		// A Go function table names every function already.
		return false
	}
	switch img.arch {
	case "x86", "x86_64", "arm64":
	default:
		return false
	}
	var fde uint64
	for _, r := range img.elf.fdes {
		fde += r.end - r.start
	}
	return fde < codeBytes(img)/2
}

// elfRelocPointers returns the code addresses relocations store (see
// above), and whether the image has any R_*_RELATIVE relocation (a
// position-independent image, whose pointers they all are).
func elfRelocPointers(img *image, data []byte, syms func(uint32) (uint64, bool)) ([]uint64, bool) {
	var out []uint64
	relative := false
	_ = eachDynReloc(img, data, func(dr dynReloc, rela bool) (bool, error) {
		var v uint64
		switch relocKind(img.elf.machine, dr.typ) {
		case relocRelative:
			relative = true
			v = uint64(dr.addend)
			if !rela {
				w, ok := elfWordAt(img, data, dr.off)
				if !ok {
					return true, nil
				}
				v = w
			}
		case relocSymbol, relocGlobDat:
			s, ok := syms(dr.sym)
			if !ok {
				return true, nil
			}
			v = s + uint64(dr.addend)
		default:
			return true, nil
		}
		if img.execAt(v) && !img.inPLT(v) {
			out = append(out, v)
		}
		return len(out) < maxSeedProcs, nil
	})
	slices.Sort(out)
	return slices.Compact(out), relative
}

// elfDataWords returns the aligned pointer-sized words of the mapped
// non-executable sections that point into code: the function pointers of
// an executable that is not position-independent, where no relocation
// names them. Absolute jump tables are such words too: they are read
// last, once the descent and the gap search have decoded the procedures
// whose switches index them (case targets then lie in decoded code).
func elfDataWords(img *image, data []byte) []uint64 {
	var out []uint64
	w := uint64(4)
	if img.is64 {
		w = 8
	}
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || s.x || s.fsize == 0 || s.off >= uint64(len(data)) {
			continue
		}
		end := min(satAdd(s.off, min(s.size, s.fsize)), uint64(len(data)))
		for o := s.off + (w-s.addr%w)%w; o+w <= end && len(out) < maxSeedProcs; o += w {
			var v uint64
			if w == 8 {
				v = img.bo.Uint64(data[o:])
			} else {
				v = uint64(img.bo.Uint32(data[o:]))
			}
			if v != 0 && img.execAt(v) && !img.inPLT(v) {
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gapPadLen is the length of the padding at the start of code: x86 nops
// and int3, two zero bytes; arm64 nop and zero words.
func gapPadLen(img *image, code []byte) int {
	if img.arch == "arm64" {
		if len(code) >= 4 {
			if w := binary.LittleEndian.Uint32(code); w == 0 || w == 0xd503201f {
				return 4
			}
		}
		return 0
	}
	if n := x86PadLen(code); n > 0 {
		return n
	}
	if img.arch == "x86" {
		// The lea forms of nop gcc aligns i386 code with (x86Boundary's).
		for _, pad := range i386LeaNops {
			if bytes.HasPrefix(code, pad) {
				return len(pad)
			}
		}
	}
	if len(code) >= 2 && code[0] == 0 && code[1] == 0 {
		return 2
	}
	return 0
}

// elfProbe reports whether the code at a decodes as a procedure's start:
// no undecodable instruction, no padding at a, every direct target in
// code, no jump into code decoded as another procedure's body (spans, not
// at a procedure start), up to the first return or unconditional jump
// within maxGapProbeELF instructions.
func elfProbe(img *image, data []byte, d *decoder, a uint64, spans decodedSpans, procs map[uint64]bool) bool {
	ok, _ := elfProbeN(img, data, d, a, spans, procs)
	return ok
}

// elfProbeN is elfProbe, also returning the instructions it decoded.
func elfProbeN(img *image, data []byte, d *decoder, a uint64, spans decodedSpans, procs map[uint64]bool) (bool, int) {
	d.reset()
	for k := 0; k < maxGapProbeELF; k++ {
		code, ok := execCode(img, data, a)
		if !ok {
			return false, k + 1
		}
		if k == 0 && gapPadLen(img, code) > 0 {
			return false, k + 1
		}
		it := d.decode(code, a, false)
		if it.bad || it.flow == flowStop || it.n == 0 {
			return false, k + 1
		}
		if it.hasTarget {
			if !img.execAt(it.target) {
				return false, k + 1
			}
			if it.flow != flowCall && spans.contains(it.target) && !procs[it.target] {
				return false, k + 1
			}
		}
		if it.flow == flowRet || it.flow == flowJump {
			return true, k + 1
		}
		a += uint64(it.n)
	}
	return false, maxGapProbeELF
}

// elfGapStarts returns one round of the gap search (see above): the first
// instruction past padding of each undecoded gap of the executable
// sections that elfProbe accepts and that is no case target; tried holds
// the starts probed in earlier rounds, budget the probes' instructions.
// With from, only the gaps that begin at those addresses (where the code
// decoded since the last round ends) are searched: every other gap's
// start was probed in an earlier round.
func elfGapStarts(img *image, data []byte, spans decodedSpans, from []uint64, procs, caseTarget, tried map[uint64]bool, budget *int) []uint64 {
	d := newDecoder(img)
	var out []uint64
	probe := func(cur uint64) {
		if spans.contains(cur) || *budget <= 0 {
			return
		}
		code, ok := execCode(img, data, cur)
		if !ok {
			return
		}
		gEnd := cur + uint64(len(code))
		if k := spanAfter(spans, cur); k < len(spans) {
			gEnd = min(gEnd, spans[k].start)
		}
		a := cur
		for a < gEnd {
			c, ok := execCode(img, data, a)
			if !ok {
				return
			}
			n := gapPadLen(img, c[:min(uint64(len(c)), gEnd-a)])
			if n == 0 {
				break
			}
			a += uint64(n)
		}
		// A start refused once is not probed again: the code decoded
		// since only adds spans a probe may not branch into.
		if a >= gEnd || tried[a] || img.inPLT(a) || procs[a] || caseTarget[a] || img.arch == "arm64" && a&3 != 0 {
			return
		}
		tried[a] = true
		ok, n := elfProbeN(img, data, d, a, spans, procs)
		*budget -= n
		if ok {
			out = append(out, a)
		}
	}
	if from != nil {
		for _, a := range from {
			probe(a)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || !s.x || s.fsize == 0 {
			continue
		}
		end := s.addr + min(s.size, s.fsize)
		probe(s.addr)
		for k := spanAfter(spans, s.addr); k < len(spans) && spans[k].end < end && *budget > 0; k++ {
			probe(spans[k].end)
		}
	}
	return out
}

// spanAt returns the index of the span containing a (spans.contains(a)).
func spanAt(s decodedSpans, a uint64) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := (lo + hi) / 2
		if s[m].end > a {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// spanAfter returns the index of the first span starting after a.
func spanAfter(s decodedSpans, a uint64) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := (lo + hi) / 2
		if s[m].start > a {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// elfDynSymValue returns the value of dynamic symbol k when it is defined.
func elfDynSymValue(img *image, data []byte) func(uint32) (uint64, bool) {
	return func(k uint32) (uint64, bool) {
		_, _, v, undef, ok := elfDynSym(img, data, k)
		return v, ok && !undef && v != 0
	}
}

// maxSwitchSpan bounds how far past its procedure's entry a case target
// of a table read by switchTable may lie.
const maxSwitchSpan = 1 << 16

// switchTable returns the case targets of the jump table an x86 or x86_64
// indirect jump of the procedure at entry reads, when the table is at
// base (the last data address the procedure's code named before the jump,
// or the jump's own memory operand): x86_64 32-bit offsets from the
// table's start (gcc and clang's position-independent tables), i386
// absolute words or offsets from the GOT (got: 0 when unknown), and 64-bit
// absolute words. The table ends at the first entry that is no code
// address within maxSwitchSpan after entry, or at a procedure start, or
// after bound entries (the range check before the jump; 0: unknown).
func switchTable(img *image, data []byte, base, entry, got, bound uint64, procs map[uint64]bool) []uint64 {
	if img.execAt(base) && img.arch != "x86" {
		return nil
	}
	ok := func(t uint64) bool {
		return t >= entry && t-entry < maxSwitchSpan && img.execAt(t) && !procs[t] && !img.inPLT(t)
	}
	var out []uint64
	w := uint64(4)
	if img.arch == "x86_64" {
		// Relative or, when the first word fails, absolute 64-bit.
		if b, found := mappedBytes(img, data, base); found && len(b) >= 8 && !ok(base+uint64(int64(int32(binary.LittleEndian.Uint32(b))))) {
			w = 8
		}
	}
	mode := -1 // i386: 0 absolute, 1 GOT-relative
	if bound == 0 || bound > maxJumpTable {
		bound = maxJumpTable
	}
	for k := uint64(0); k < bound; k++ {
		b, found := mappedBytes(img, data, base+w*k)
		if !found || uint64(len(b)) < w {
			break
		}
		var t uint64
		switch {
		case w == 8:
			t = binary.LittleEndian.Uint64(b)
		case img.arch == "x86_64":
			t = base + uint64(int64(int32(binary.LittleEndian.Uint32(b))))
		default:
			e := uint64(binary.LittleEndian.Uint32(b))
			if mode < 0 {
				mode = 0
				if !ok(e) && got != 0 {
					mode = 1
				}
			}
			t = e
			if mode == 1 {
				t = uint64(uint32(got + e))
			}
		}
		if !ok(t) {
			break
		}
		out = append(out, t)
	}
	return out
}

// elfGOT returns the address i386 position-independent code keeps in its
// GOT register: the start of .got.plt, else of .got (0: neither).
func elfGOT(img *image) uint64 {
	var got uint64
	for i := range img.sections {
		switch s := &img.sections[i]; s.name {
		case ".got.plt":
			return s.addr
		case ".got":
			got = s.addr
		}
	}
	return got
}

// writableAt reports whether a is in a writable section: a table there is
// a function pointer table a tail call indexes, no jump table.
func writableAt(img *image, a uint64) bool {
	for i := range img.sections {
		if s := &img.sections[i]; s.mapped && a >= s.addr && a < s.end() {
			return s.w
		}
	}
	return false
}

// i386LeaNops are lea reg, [reg+0] with every displacement and SIB form
// gas pads i386 code with.
var i386LeaNops = [][]byte{
	{0x8d, 0x76, 0x00}, {0x8d, 0x7f, 0x00}, {0x8d, 0x74, 0x26, 0x00}, {0x8d, 0xb6, 0, 0, 0, 0},
	{0x8d, 0xbf, 0, 0, 0, 0}, {0x8d, 0xb4, 0x26, 0, 0, 0, 0}, {0x8d, 0xbc, 0x27, 0, 0, 0, 0},
	{0x2e, 0x8d, 0xb4, 0x26, 0, 0, 0, 0}, {0x2e, 0x8d, 0x74, 0x26, 0x00}, {0x8d, 0x74, 0x27, 0x00}, {0x8d, 0xb4, 0x27, 0, 0, 0, 0},
}

// x86TableOperand returns the address of the jump table a mov or add
// reads an entry of when its source is indexed: [disp+index*scale] with no
// base is an absolute table (code that is not position-independent); on
// i386, [base+index*scale+disp] with neither register the stack or frame
// pointer is a table disp from the GOT (got; 0: unknown), whose address
// position-independent code keeps in one of them (gcc -O0 scales the index
// first: [eax+ebx-disp]; clang forms the GOT address with call/pop, which
// the decoder's PIC tracking does not follow).
func x86TableOperand(code []byte, is64 bool, got uint64) (uint64, bool) {
	op := code
	if is64 && len(op) > 0 && op[0]&0xf0 == 0x40 {
		op = op[1:]
	}
	if len(op) < 3 || op[0] != 0x8b && op[0] != 0x03 && op[0] != 0x63 {
		return 0, false
	}
	mode := 32
	if is64 {
		mode = 64
	}
	in, err := x86asm.Decode(code, mode)
	if err != nil || in.Op != x86asm.MOV && in.Op != x86asm.ADD && in.Op != x86asm.MOVSXD {
		return 0, false
	}
	m, ok := in.Args[1].(x86asm.Mem)
	if !ok || m.Index == 0 || m.Segment != 0 {
		return 0, false
	}
	frame := func(r x86asm.Reg) bool {
		return r == x86asm.ESP || r == x86asm.EBP || r == x86asm.RSP || r == x86asm.RBP
	}
	switch {
	case m.Base == 0 && (m.Scale == 4 || m.Scale == 8) && m.Disp > 0:
		if is64 {
			return uint64(m.Disp), true
		}
		return uint64(uint32(m.Disp)), true
	case !is64 && m.Base != 0 && got != 0 && !frame(m.Base) && !frame(m.Index):
		return uint64(uint32(got + uint64(m.Disp))), true
	}
	return 0, false
}

// x64JumpTable returns the address of the table an x86_64 `jmp
// [disp+reg*8]` (no base register: an executable that is not
// position-independent) reads, or false.
func x64JumpTable(code []byte) (uint64, bool) {
	in, err := x86asm.Decode(code, 64)
	if err != nil || in.Op != x86asm.JMP {
		return 0, false
	}
	m, ok := in.Args[0].(x86asm.Mem)
	if !ok || m.Base != 0 || m.Index == 0 || m.Scale != 8 || m.Disp <= 0 {
		return 0, false
	}
	return uint64(m.Disp), true
}

// x86CmpBound returns n+1 for a cmp or sub of a register or memory operand
// and the immediate n (the range check before a jump table's `ja
// default`: the table has n+1 entries).
func x86CmpBound(code []byte, is64 bool) (uint64, bool) {
	op := code
	if is64 && len(op) > 0 && op[0]&0xf0 == 0x40 {
		op = op[1:]
	}
	if len(op) < 2 {
		return 0, false
	}
	switch op[0] {
	case 0x80, 0x81, 0x83, 0x3c, 0x3d, 0x2c, 0x2d:
	default:
		return 0, false
	}
	mode := 32
	if is64 {
		mode = 64
	}
	in, err := x86asm.Decode(code, mode)
	if err != nil || in.Op != x86asm.CMP && in.Op != x86asm.SUB {
		return 0, false
	}
	imm, ok := in.Args[1].(x86asm.Imm)
	if !ok || imm < 0 || imm >= maxJumpTable {
		return 0, false
	}
	return uint64(imm) + 1, true
}

// a64Switch follows the arm64 instructions that index a jump table, as
// gcc and clang emit them: cmp wN, #n (n+1 entries); adrp+add of the
// table into a register (clang hoists it out of a loop); a register-offset
// load of an entry (ldrb, ldrh: offsets in instructions from a label adr
// takes, added with sxtb/sxth when signed; ldrsw: byte offsets from the
// table); then br. reg holds the addresses the procedure's code formed,
// by register.
type a64Switch struct {
	reg                 [32]uint64
	table, label, bound uint64
	size                int // bytes per entry, 0: no load seen
	signed              bool
}

// note records what the instruction w (decoded as it) tells of a table.
func (s *a64Switch) note(w uint32, it insn, img *image) {
	rd, rn := w&31, w>>5&31
	switch {
	case w&0x7f800000 == 0x71000000: // cmp wN|xN, #imm (subs zr, …) or subs into a register (clang -O0)
		imm := uint64(w >> 10 & 0xfff)
		if w&(1<<22) != 0 {
			imm <<= 12
		}
		s.bound = 0
		if imm < maxJumpTable {
			s.bound = imm + 1
		}
	case w&0x9f000000 == 0x10000000 && it.hasData: // adr
		s.reg[rd] = it.data
	case w&0xff800000 == 0x91000000 && it.hasData: // add xD, xN, #lo12 of an adrp pair
		s.reg[rd] = it.data
	case w&0xffe00c00 == 0x38600800: // ldrb wT, [xB, xI…]
		s.table, s.size = s.reg[rn], 1
	case w&0xffe00c00 == 0x78600800: // ldrh
		s.table, s.size = s.reg[rn], 2
	case w&0xffe00c00 == 0xb8a00800: // ldrsw xT, [xB, xI, lsl #2]
		s.table, s.size, s.signed = s.reg[rn], 4, true
	case w&0xffe00000 == 0x8b200000: // add xD, xN, wM, <extend> #s
		opt := w >> 13 & 7
		s.signed, s.label = opt == 4 || opt == 5, s.reg[rn]
	case w&0xff200000 == 0x8b000000: // add xD, xN, xM, lsl #s
		s.signed, s.label = s.size == 4, s.reg[rn]
	}
	if (w&0x1f000000 == 0x11000000 || w&0x1f000000 == 0x0b000000) && rd != 31 &&
		!(w&0xff800000 == 0x91000000 && it.hasData) && w&0xffe00000 != 0x8b200000 && w&0xff200000 != 0x8b000000 {
		s.reg[rd] = 0 // any other add or sub overwrites its destination
	}
}

// targets reads the table the indirect branch of the procedure at entry
// jumps through, bounded as switchTable's are.
func (s *a64Switch) targets(img *image, data []byte, entry uint64, procs map[uint64]bool) []uint64 {
	if s.size == 0 || s.table == 0 || img.execAt(s.table) || s.bound == 0 || s.size < 4 && !img.execAt(s.label) || writableAt(img, s.table) {
		return nil
	}
	var out []uint64
	for k := uint64(0); k < s.bound; k++ {
		b, ok := mappedBytes(img, data, s.table+uint64(s.size)*k)
		if !ok || len(b) < s.size {
			break
		}
		var v uint64
		switch s.size {
		case 1:
			v = uint64(b[0])
		case 2:
			v = uint64(binary.LittleEndian.Uint16(b))
		default:
			v = uint64(binary.LittleEndian.Uint32(b))
		}
		var t uint64
		if s.size == 4 {
			// Offsets from an adr's label (clang -O0), else from the table.
			base := s.table
			if img.execAt(s.label) {
				base = s.label
			}
			t = base + uint64(sext(v, 32))
		} else {
			off := v
			if s.signed {
				off = uint64(sext(v, uint(8*s.size)))
			}
			t = s.label + off<<2
		}
		if t < entry || t-entry >= maxSwitchSpan || !img.execAt(t) || procs[t] {
			break
		}
		out = append(out, t)
	}
	return out
}
