package builtin

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"sort"

	"golang.org/x/arch/x86/x86asm"
)

// Discovery through data on a PE without .pdata (discovery source
// "call-targets", pecalls.go): after the descent from the known procedures,
// the code addresses the base relocations store (IMAGE_REL_BASED_HIGHLOW on
// i386, DIR64 on x86_64: function pointer tables, the C runtime's
// initializer tables, callbacks pushed as immediates) seed more procedures,
// and their descent seeds more, until no seed is new (bounded by the
// descent's instruction budget). Precision guards, since a relocated word
// also stores jump-table entries and addresses of labels:
//
//   - i386 jump tables `jmp [table+reg*4]` (absolute, relocated) are read
//     during the descent: their entries are branches of the procedure,
//     never procedures, and their words never seeds;
//   - a relocation inside executable code counts only when the descent
//     decoded the instruction it patches (an operand, not a table of code
//     not yet read);
//   - the target must be outside every instruction decoded so far, must
//     not be a relocated word (a table in code, named by the operand of
//     the instruction that indexes it), and must decode as code: no undecodable instruction, no zero word, no
//     padding, before the first return or jump (at most peSeedProbe
//     instructions).

// peSeedProbe bounds the instructions a data-pointer seed is checked over.
const peSeedProbe = 24

// maxJumpTable bounds the entries read from one jump table.
const maxJumpTable = 1 << 10

// peReloc is one base relocation: the address it patches and the value
// stored there.
type peReloc struct{ at, val uint64 }

// peRelocWords returns the relocations of the image's pointer width
// (eachPEReloc), sorted by address.
func peRelocWords(img *image, data []byte) []peReloc {
	var out []peReloc
	eachPEReloc(img, data, func(r peReloc) { out = append(out, r) })
	slices.SortFunc(out, func(a, b peReloc) int { return cmp.Compare(a.at, b.at) })
	return out
}

// eachPEReloc calls fn for each base relocation of the image's pointer
// width (HIGHLOW for a 32-bit image, DIR64 for a 64-bit one) whose word is
// in the file, in the directory's order: blocks {PageRVA, BlockSize, then
// 16-bit entries type<<12 | offset}, at most maxPERelocs entries read.
func eachPEReloc(img *image, data []byte, fn func(peReloc)) {
	info := img.pe
	off, ok := info.rvaOff(uint64(info.relocDir[0]))
	if info.relocDir[0] == 0 || !ok || off >= uint64(len(data)) {
		return
	}
	rel := data[off:min(satAdd(off, uint64(info.relocDir[1])), uint64(len(data)))]
	typ, w := uint16(3), 4
	if img.is64 {
		typ, w = 10, 8
	}
	n := 0
	for p := 0; p+8 <= len(rel); {
		page := uint64(binary.LittleEndian.Uint32(rel[p:]))
		size := int(binary.LittleEndian.Uint32(rel[p+4:]))
		if size < 8 || size > len(rel)-p {
			break
		}
		for e := p + 8; e+2 <= p+size && n < maxPERelocs; e, n = e+2, n+1 {
			v := binary.LittleEndian.Uint16(rel[e:])
			if v>>12 != typ {
				continue
			}
			rva := page + uint64(v&0xfff)
			o, ok := info.rvaOff(rva)
			if t, ok2 := readU(data, img.bo, o, w); ok && ok2 {
				fn(peReloc{at: info.imageBase + rva, val: t})
			}
		}
		p += size
	}
}

// x86JumpTable returns the address of the table an i386 `jmp [disp+reg*4]`
// reads (no base register), or false.
func x86JumpTable(code []byte) (uint64, bool) {
	in, err := x86asm.Decode(code, 32)
	if err != nil || in.Op != x86asm.JMP {
		return 0, false
	}
	m, ok := in.Args[0].(x86asm.Mem)
	if !ok || m.Base != 0 || m.Index == 0 || m.Scale != 4 || m.Segment != 0 && m.Segment != x86asm.DS {
		return 0, false
	}
	return uint64(uint32(m.Disp)), true
}

// jumpTableEntries reads the entries of the i386 table at base: 4-byte
// words in code, as long as each is a relocated word (when the image has
// relocations) and a code address, up to the next address an operand of
// code names (the next table or object: a function pointer table may
// follow a jump table).
//
// A table in a writable section is no jump table (compilers emit those
// read-only) but a function pointer table a tail call indexes (gcc -O2's
// `return ops[k](a, b)`): it gives no entries. A const one looks like a
// jump table and is read as one: its functions are then found only by
// their calls and the gap sweep.
func (ps *peProcSet) jumpTableEntries(base uint64) []uint64 {
	if ps.writableAt(base) {
		return nil
	}
	var out []uint64
	for k := uint64(0); k < maxJumpTable; k++ {
		at := base + 4*k
		if ps.relocAt != nil && !ps.relocAt[at] || k > 0 && ps.operand[at] {
			break
		}
		code, ok := mappedBytes(ps.img, ps.b.data, at)
		if !ok || len(code) < 4 {
			break
		}
		t := uint64(binary.LittleEndian.Uint32(code))
		if !ps.img.execAt(t) {
			break
		}
		out = append(out, t)
	}
	return out
}

// writableAt reports whether a is in a writable section.
func (ps *peProcSet) writableAt(a uint64) bool {
	for i := range ps.img.sections {
		if s := &ps.img.sections[i]; s.mapped && a >= s.addr && a < s.end() {
			return s.w
		}
	}
	return false
}

// mappedBytes returns the file bytes mapped at a, in any section.
func mappedBytes(img *image, data []byte, a uint64) ([]byte, bool) {
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || a < s.addr || a >= s.addr+min(s.size, s.fsize) {
			continue
		}
		o := s.off + (a - s.addr)
		if o >= uint64(len(data)) {
			return nil, false
		}
		return data[o:min(uint64(len(data)), s.off+min(s.size, s.fsize))], true
	}
	return nil, false
}

// decodedSpans is the code the descent decoded, as merged sorted ranges.
type decodedSpans []codeRange

func mergeSpans(rs []codeRange) decodedSpans {
	slices.SortFunc(rs, func(a, b codeRange) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, r.end)
			continue
		}
		out = append(out, r)
	}
	return decodedSpans(out)
}

func (s decodedSpans) contains(a uint64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].end > a })
	return i < len(s) && s[i].start <= a
}

// probeCode reports whether the code at a decodes as the start of a
// procedure (see above).
func (ps *peProcSet) probeCode(d *decoder, a uint64) bool {
	if ps.relocAt[a] || ps.tableWord[a] {
		// A relocated word: a table of addresses (MSVC keeps its jump
		// tables in .text, after the function), which an operand of the
		// code that indexes it points to.
		return false
	}
	d.reset()
	for k := 0; k < peSeedProbe; k++ {
		code, ok := execCode(ps.img, ps.b.data, a)
		if !ok {
			return false
		}
		if k == 0 && (x86PadLen(code) > 0 || len(code) >= 2 && code[0] == 0 && code[1] == 0) {
			return false
		}
		if k == 0 && ps.img.arch == "x86" && len(code) >= 3 && code[0] == 0x8b && code[1] == 0x65 && code[2] == 0xe8 {
			// mov esp, [ebp-0x18]: an MSVC __except block, which its scope
			// table names; it resumes the frame of the function it is in.
			return false
		}
		it := d.decode(code, a, false)
		if it.bad || it.flow == flowStop {
			return false
		}
		if it.flow == flowRet || it.flow == flowJump {
			return true
		}
		if it.hasTarget && !ps.img.execAt(it.target) {
			return false
		}
		a += uint64(it.n)
	}
	return true
}

// addPEDataSeeds runs the fixpoint of discovery through data (see above)
// after the descent of addPECallTargets.
func (ps *peProcSet) addPEDataSeeds(relocs []peReloc, budget *int) error {
	img := ps.img
	d := newDecoder(img)
	tried := map[uint64]bool{}
	if img.arch == "x86" {
		ps.markTableRefs(relocs)
	}
	for round := 0; round < 64 && *budget > 0; round++ {
		spans := mergeSpans(ps.spans)
		ps.spans = []codeRange(spans)
		var work []uint64
		for _, r := range relocs {
			t := r.val
			if tried[t] || ps.procs[t] || ps.caseTarget[t] || ps.tableWord[r.at] || !img.execAt(t) {
				continue
			}
			if img.execAt(r.at) && !spans.contains(r.at) {
				continue // not an operand of code read so far
			}
			if spans.contains(t) {
				tried[t] = true
				continue
			}
			tried[t] = true
			if !ps.probeCode(d, t) {
				continue
			}
			ps.add(t, 0)
			work = append(work, t)
		}
		if len(work) == 0 && (img.arch == "x86" || img.arch == "x86_64") {
			for _, t := range ps.sweepGaps(spans, budget) {
				ps.add(t, 0)
				work = append(work, t)
			}
		}
		if len(work) == 0 {
			return nil
		}
		slices.Sort(work)
		if err := ps.descend(work, nil, budget); err != nil {
			return err
		}
	}
	return nil
}

// markTableRefs reads the i386 jump tables that relocated operands of code
// name, decoded or not (a switch of a procedure no descent reached yet):
// `jmp [table+reg*4]` (ff 24 85+8r disp32), and, when a `jmp reg` follows
// within three instructions (else it may load a function pointer to call),
// `mov reg, [table+reg*4]` (8b 04+8r 85+8r disp32) and gcc -O0's `add eax,
// table` (05 imm32; 81 c0+r imm32). Their entries are case targets, their
// words no seeds.
func (ps *peProcSet) markTableRefs(relocs []peReloc) {
	for _, r := range relocs {
		if r.at < 3 || !ps.img.execAt(r.at) {
			continue
		}
		c, ok := execCode(ps.img, ps.b.data, r.at-3)
		if !ok || len(c) < 7 {
			continue
		}
		jmp := c[0] == 0xff && c[1] == 0x24 && c[2]&0xc7 == 0x85
		mov := c[0] == 0x8b && c[1]&0xc7 == 0x04 && c[2]&0xc7 == 0x85
		add := c[2] == 0x05 || c[1] == 0x81 && c[2]&0xf8 == 0xc0
		if !jmp && !((mov || add) && x86JumpRegFollows(c[7:])) {
			continue
		}
		for k, t := range ps.jumpTableEntries(r.val) {
			ps.tableWord[r.val+4*uint64(k)] = true
			ps.caseTarget[t] = true
		}
	}
}

// x86JumpRegFollows reports whether one of the first three i386
// instructions of code is a jump through a register.
func x86JumpRegFollows(code []byte) bool {
	for k := 0; k < 3 && len(code) > 0; k++ {
		in, err := x86asm.Decode(code, 32)
		if err != nil || in.Len == 0 {
			return false
		}
		if in.Op == x86asm.JMP {
			_, ok := in.Args[0].(x86asm.Reg)
			return ok
		}
		code = code[in.Len:]
	}
	return false
}

// x86Boundary reports whether the code before a ends a procedure or pads
// between two: ret, ret imm16, int3 or nop padding, a jump, or the lea
// forms of nop gcc aligns with on i386 (lea 0(%esi),%esi and kin) and
// the multi-byte nops.
func x86Boundary(img *image, data []byte, a uint64) bool {
	if a < 8 {
		return false
	}
	c, ok := execCode(img, data, a-8)
	if !ok || len(c) < 8 {
		return false
	}
	c = c[:8]
	switch {
	case c[7] == 0xc3 || c[7] == 0xcc || c[7] == 0x90:
		return true
	case c[5] == 0xc2: // ret imm16
		return true
	case c[6] == 0xeb: // jmp rel8
		return true
	case c[3] == 0xe9: // jmp rel32
		return true
	}
	for _, pad := range [][]byte{
		{0x8d, 0x76, 0x00}, {0x8d, 0x7f, 0x00}, {0x8d, 0x74, 0x26, 0x00}, {0x8d, 0xb6, 0, 0, 0, 0},
		{0x8d, 0xbf, 0, 0, 0, 0}, {0x8d, 0xb4, 0x26, 0, 0, 0, 0}, {0x8d, 0xbc, 0x27, 0, 0, 0, 0},
		// the multi-byte nops (0f 1f /0) x86-64 compilers align with
		{0x0f, 0x1f, 0x00}, {0x0f, 0x1f, 0x40, 0x00}, {0x0f, 0x1f, 0x44, 0x00, 0x00},
		{0x0f, 0x1f, 0x80, 0, 0, 0, 0}, {0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0},
	} {
		if bytes.HasSuffix(c, pad) {
			return true
		}
	}
	return false
}

// sweepGaps decodes the executable code no descent reached, linearly, and
// returns the direct call targets there that are candidates for procedures:
// outside every decoded span, no case target, at a procedure boundary
// (x86Boundary) and decoding as code (probeCode). A gap's sweep stops at
// its first undecodable instruction (data, not code).
func (ps *peProcSet) sweepGaps(spans decodedSpans, budget *int) []uint64 {
	img := ps.img
	d := newDecoder(img)
	var out []uint64
	seen := map[uint64]bool{}
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || !s.x || s.fsize == 0 {
			continue
		}
		cur, end := s.addr, s.addr+min(s.size, s.fsize)
		k := sort.Search(len(spans), func(k int) bool { return spans[k].end > cur })
		for cur < end && *budget > 0 {
			gEnd := end
			if k < len(spans) && spans[k].start < end {
				gEnd = max(cur, spans[k].start)
			}
			d.reset()
			for a := cur; a < gEnd && *budget > 0; {
				if ps.tableWord[a] {
					a += 4
					continue
				}
				code, ok := execCode(img, ps.b.data, a)
				if !ok {
					break
				}
				code = code[:min(uint64(len(code)), gEnd-a)]
				if n := x86PadLen(code); n > 0 {
					a += uint64(n)
					continue
				}
				*budget--
				it := d.decode(code, a, false)
				if it.bad {
					break
				}
				if it.flow == flowCall && it.hasTarget {
					t := it.target
					if !seen[t] && !ps.procs[t] && !ps.caseTarget[t] && img.execAt(t) && !spans.contains(t) &&
						x86Boundary(img, ps.b.data, t) && ps.probeCode(d, t) {
						out = append(out, t)
					}
					seen[t] = true
					d.reset()
				}
				a += uint64(it.n)
			}
			if k >= len(spans) || spans[k].start >= end {
				break
			}
			cur = spans[k].end
			k++
		}
	}
	return out
}
