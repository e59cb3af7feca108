package builtin

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// PE x64 exception directory (.pdata): RUNTIME_FUNCTION entries
// {BeginAddress, EndAddress, UnwindInfoAddress} (RVAs, 12 bytes each). A
// range whose begin is a procedure entry gives that procedure its extent when
// no symbol size does (the primary range of a function; chained ranges of
// split functions start elsewhere and are not used).

// codeRange is an address range [start, end).
type codeRange struct{ start, end uint64 }

// maxPdataRange bounds one function's range (a damaged entry is ignored).
const maxPdataRange = 64 << 20

// parsePdata decodes RUNTIME_FUNCTION entries from b, sorted by start,
// keeping only well-formed ones (begin < end, bounded length).
func parsePdata(b []byte, imageBase uint64) []codeRange {
	var out []codeRange
	for o := 0; o+12 <= len(b) && len(out) < maxPEEntries; o += 12 {
		begin := uint64(binary.LittleEndian.Uint32(b[o:]))
		end := uint64(binary.LittleEndian.Uint32(b[o+4:]))
		if begin == 0 && end == 0 {
			continue
		}
		if end <= begin || end-begin > maxPdataRange {
			continue
		}
		out = append(out, codeRange{imageBase + begin, imageBase + end})
	}
	slices.SortFunc(out, func(a, b codeRange) int { return cmp.Compare(a.start, b.start) })
	return out
}

// pdataRanges returns the x64 and ARM64 PE exception ranges of the image
// (read with the headers, peUnwind), else its .eh_frame FDE ranges (mingw
// i686), or nil.
func pdataRanges(img *image, _ []byte) []codeRange {
	if img.pe == nil {
		return nil
	}
	if len(img.pe.pdata) == 0 {
		return img.pe.fdes
	}
	return img.pe.pdata
}

// unwFlagChainInfo marks an UNWIND_INFO whose range continues another
// function (a split-off part, e.g. a cold block), not a function start.
const unwFlagChainInfo = 0x4

// peUnwind reads the exception directory with the headers (so the profile
// names "pdata" exactly when it contributes function starts): every
// well-formed range, for extents, and the starts of primary ranges, for
// function discovery. x64: a range is primary unless its UnwindData is an
// indirect RUNTIME_FUNCTION reference (low bit set) or its UNWIND_INFO has
// UNW_FLAG_CHAININFO; unwind info outside the file does not demote it.
// ARM64 (peUnwindARM64) has its own layout. Other machines' tables are not
// read, which lims says.
func peUnwind(img *image, data []byte) (ranges []codeRange, starts []uint64, lims []string) {
	info := img.pe
	if info.exceptDir[0] == 0 || info.exceptDir[1] == 0 {
		return nil, nil, nil
	}
	switch img.arch {
	case "x86_64", "arm64":
	case "arm":
		return nil, nil, []string{"ARM .pdata not read: procedure starts come from symbols, exports and the entry point only"}
	default:
		return nil, nil, []string{fmt.Sprintf("the exception directory (.pdata) of %s code is not read: procedure starts come from symbols, exports and the entry point only", peArchName(img.arch))}
	}
	off, ok := info.rvaOff(uint64(info.exceptDir[0]))
	if !ok || off >= uint64(len(data)) {
		return nil, nil, []string{"the exception directory (.pdata) lies outside the file: procedure starts come from symbols, exports, the entry point and call targets only"}
	}
	b := data[off:min(satAdd(off, uint64(info.exceptDir[1])), uint64(len(data)))]
	if img.arch == "arm64" {
		ranges, starts = peUnwindARM64(img, data, b)
		return ranges, starts, nil
	}
	ranges = parsePdata(b, info.imageBase)
	for o := 0; o+12 <= len(b) && len(starts) < maxPEEntries; o += 12 {
		begin := uint64(binary.LittleEndian.Uint32(b[o:]))
		end := uint64(binary.LittleEndian.Uint32(b[o+4:]))
		unw := uint64(binary.LittleEndian.Uint32(b[o+8:]))
		if end <= begin || end-begin > maxPdataRange || unw&1 != 0 {
			continue
		}
		if u, ok := info.rvaOff(unw); ok && u < uint64(len(data)) && (data[u]>>3)&unwFlagChainInfo != 0 {
			continue
		}
		if a := info.imageBase + begin; img.execAt(a) {
			starts = append(starts, a)
		}
	}
	slices.Sort(starts)
	return ranges, slices.Clip(slices.Compact(starts)), nil
}

// peUnwindARM64 reads ARM64 .pdata: 8-byte entries {BeginAddress,
// UnwindData}. The low two bits of UnwindData are its Flag: 0, an RVA of
// an .xdata record whose first word holds the function length in words in
// bits 0-17; 1, packed unwind data with the length in words in bits 2-12;
// 2, packed data of a fragment without a prologue (a part of a function
// split by the compiler: a range, not a start); 3 is reserved (ignored).
func peUnwindARM64(img *image, data, b []byte) (ranges []codeRange, starts []uint64) {
	info := img.pe
	for o := 0; o+8 <= len(b) && len(ranges) < maxPEEntries; o += 8 {
		begin := uint64(binary.LittleEndian.Uint32(b[o:]))
		unw := binary.LittleEndian.Uint32(b[o+4:])
		if begin == 0 && unw == 0 {
			continue
		}
		var words uint64
		switch unw & 3 {
		case 0:
			x, ok := info.rvaOff(uint64(unw))
			v, ok2 := readU(data, img.bo, x, 4)
			if !ok || !ok2 {
				continue
			}
			words = v & 0x3ffff
		case 1, 2:
			words = uint64(unw>>2) & 0x7ff
		default:
			continue
		}
		a := info.imageBase + begin
		if words == 0 || !img.execAt(a) {
			continue
		}
		ranges = append(ranges, codeRange{a, a + 4*words})
		if unw&3 != 2 {
			starts = append(starts, a)
		}
	}
	slices.SortFunc(ranges, func(a, b codeRange) int { return cmp.Compare(a.start, b.start) })
	slices.Sort(starts)
	return slices.Clip(ranges), slices.Clip(slices.Compact(starts))
}

// addPdataProcs adds a procedure (peProcSet.add: a label's name, else
// sub_<hex>; source analysis, with the range as its size) at each primary
// .pdata start where no procedure starts yet.
func addPdataProcs(img *image, b *symBuilder, ps *peProcSet) error {
	info := img.pe
	for _, a := range info.pdataStarts {
		if err := b.tick(); err != nil {
			return err
		}
		var size uint64
		if i, ok := slices.BinarySearchFunc(info.pdata, a, func(r codeRange, a uint64) int { return cmp.Compare(r.start, a) }); ok {
			size = info.pdata[i].end - info.pdata[i].start
		}
		ps.add(a, size)
	}
	return nil
}

// IAT jump thunks (x86_64, x86, arm64): mingw-w64 links each imported
// function it calls directly as a 6-byte `jmp [rip+disp32]` (x86: `jmp
// [abs32]`) through its IAT slot, padded to 8 bytes, in .text (arm64: a
// 12-byte adrp/ldr/br x16, pecalls.go); thunks have no .pdata entry. Each becomes a procedure
// named after its import (source imported, thunk, external, size 6), found
// without guessing at instruction boundaries: the walk starts at a known
// boundary (the start of an executable section or the end of a .pdata
// range), skips nop/int3 padding (multi-byte nops too: GNU ld pads the gap
// between two import libraries' thunk runs with one `nopl`), accepts a jump
// whose operand is exactly an IAT slot of a named import, continues after
// it, and stops at the first
// other byte (unknown code is not scanned). Without .pdata, call-target
// descent finds the thunks that are called, and the thunks next to them
// (pecalls.go).
func addIATThunks(img *image, b *symBuilder) error {
	info := img.pe
	if img.arch != "x86_64" && img.arch != "x86" && img.arch != "arm64" {
		return nil
	}
	ps := newPEProcSet(img, b)
	if len(ps.slots) == 0 {
		return nil
	}
	// walk scans from boundary a and returns where it stopped.
	walk := func(a uint64) (uint64, error) {
		code, ok := execCode(img, b.data, a)
		if !ok {
			return a, nil
		}
		p := 0
		for p < len(code) {
			if err := b.tick(); err != nil {
				return 0, err
			}
			if img.arch != "arm64" {
				if n := x86PadLen(code[p:]); n > 0 {
					p += n
					continue
				}
			}
			at := a + uint64(p)
			k, n, ok := iatThunkAt(img, b, ps.slots, at)
			if !ok {
				break
			}
			ps.addThunk(at, n, k)
			p += int(n)
		}
		return a + uint64(p), nil
	}
	var from []uint64
	for i := range img.sections {
		if s := &img.sections[i]; s.mapped && s.x && s.fsize > 0 {
			from = append(from, s.addr)
		}
	}
	// A symbol-table name in code may label a thunk (i386 import libraries
	// name each one, _memcpy, as a function): look there too, so the
	// thunks are the same with or without the symbol table.
	for a := range ps.named {
		from = append(from, a)
	}
	for _, r := range info.pdata {
		from = append(from, r.end)
	}
	slices.Sort(from)
	// Walks only go forward, so a boundary an earlier walk passed is done:
	// the scan reads each byte at most once.
	var reached uint64
	for i, a := range from {
		if i > 0 && a < reached {
			continue
		}
		end, err := walk(a)
		if err != nil {
			return err
		}
		reached = end
	}
	return nil
}

// maxPdataInsns bounds the instructions addPdataCallTargets decodes: x86asm
// takes about 2 µs an instruction, so the pass costs at most ~0.3 s on a
// large image (with a limitation saying the rest was not read) and a few
// milliseconds on a small one.
const maxPdataInsns = 1 << 17

// addPdataCallTargets finds the functions .pdata does not list. The x64
// Windows ABI requires unwind data of every function that calls or touches
// the stack, so such a function is a leaf (e.g. mingw's ___chkstk_ms) and is
// reached by a direct call or jump from listed code. Each .pdata range is
// decoded linearly (its extent is known), and each direct call or jump
// target outside every range, in an executable section and not already a
// procedure, becomes a procedure named sub_<hex> (source analysis, no size;
// discovery source "call-targets"). Targets are descended (pecalls.go): a
// leaf calls nothing but may tail-jump. ARM64 is read alike (its leaf
// functions need no unwind data either), and there an ADRP+ADD pair that
// takes the address of code outside every range names a procedure too.
func addPdataCallTargets(img *image, b *symBuilder, ps *peProcSet) error {
	info := img.pe
	if len(info.pdata) == 0 || img.arch != "x86_64" && img.arch != "arm64" {
		return nil
	}
	d := newDecoder(img)
	budget := maxPdataInsns
	var found []uint64
	for _, r := range info.pdata {
		code, ok := execCode(img, b.data, r.start)
		if !ok {
			continue
		}
		code = code[:min(uint64(len(code)), r.end-r.start)]
		d.reset()
		for p := 0; p < len(code); {
			if budget == 0 {
				b.limit(fmt.Sprintf("call targets were collected from the first %d instructions of the .pdata ranges only", maxPdataInsns))
				return nil
			}
			budget--
			if err := b.tick(); err != nil {
				return err
			}
			it := d.decode(code[p:], r.start+uint64(p), false)
			p += int(it.n)
			if t, ok := ps.codeAddress(it, info.pdata); ok {
				found = append(found, t)
			}
			if !it.hasTarget || it.flow != flowCall && it.flow != flowJump {
				continue
			}
			t := it.target
			if t >= r.start && t < r.end || ps.procs[t] || inFDE(info.pdata, t) || !img.execAt(t) {
				continue
			}
			ps.add(t, 0)
			found = append(found, t)
		}
	}
	if img.arch == "arm64" {
		more, err := addARM64Gaps(img, b, ps, &budget)
		if err != nil {
			return err
		}
		found = append(found, more...)
	}
	// A leaf may still tail-jump or take a callback's address: descend.
	slices.Sort(found)
	return ps.descend(found, info.pdata, &budget)
}

// x86PadLen reports the length of the padding instruction code starts
// with, 0 if it starts with none: int3, nop, xchg %ax,%ax (66 90) and the
// multi-byte nops assemblers align with (0f 1f /0, after any 66 or 2e
// prefixes).
func x86PadLen(code []byte) int {
	if len(code) > 0 && code[0] == 0xcc {
		return 1
	}
	p := 0
	for p < len(code) && p < 8 && (code[p] == 0x66 || code[p] == 0x2e) {
		p++
	}
	switch {
	case p < len(code) && code[p] == 0x90:
		return p + 1
	case p+2 < len(code) && code[p] == 0x0f && code[p+1] == 0x1f && code[p+2]>>3&7 == 0:
		modrm := code[p+2]
		n := p + 3
		mod, rm := modrm>>6, modrm&7
		if mod != 3 && rm == 4 { // SIB
			if n >= len(code) {
				return 0
			}
			if mod == 0 && code[n]&7 == 5 {
				n += 4
			}
			n++
		}
		switch {
		case mod == 0 && rm == 5:
			n += 4
		case mod == 1:
			n++
		case mod == 2:
			n += 4
		}
		if n > len(code) {
			return 0
		}
		return n
	}
	return 0
}
