package builtin

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// ELF .eh_frame (LSB "Exception Frame" / DWARF CFI with GNU augmentations):
// a sequence of CIE and FDE records, each a 4-byte length (0xffffffff then an
// 8-byte length for 64-bit records; 0 terminates the section) and a 4-byte id
// (0 for a CIE; for an FDE the distance back to its CIE). Only what locates
// code is decoded: the CIE's augmentation ("z" data with 'R' FDE pointer
// encoding; 'P' personality and 'L' LSDA skipped; 'S' and 'B' carry no data)
// and each FDE's pc_begin and pc_range. Every FDE gives one code range
// [pc_begin, pc_begin+pc_range), used as a procedure extent when a symbol has
// no size and as a procedure (named sub_<hex>, source analysis) where no
// procedure symbol starts. Work is bounded: every record advances the offset
// by at least 8 bytes, CIEs are decoded once each, and damage stops the walk
// with a limitation instead of guessing.

// DW_EH_PE pointer encodings.
const (
	ehPEAbsptr  = 0x00
	ehPEUleb128 = 0x01
	ehPEUdata2  = 0x02
	ehPEUdata4  = 0x03
	ehPEUdata8  = 0x04
	ehPESleb128 = 0x09
	ehPESdata2  = 0x0a
	ehPESdata4  = 0x0b
	ehPESdata8  = 0x0c
	ehPEPcrel   = 0x10
	ehPETextrel = 0x20
	ehPEDatarel = 0x30
	ehPEFuncrel = 0x40
	ehPEAligned = 0x50
	ehPEIndir   = 0x80
	ehPEOmit    = 0xff
)

// maxEhFrameFDEs bounds the FDEs kept from one section.
const maxEhFrameFDEs = 4 << 20

// ehFrameInput is one .eh_frame section and the bases its encodings need.
type ehFrameInput struct {
	data     []byte // the section's file bytes
	addr     uint64 // its address
	bo       binary.ByteOrder
	ptrSize  int    // 4 or 8 (DW_EH_PE_absptr)
	textBase uint64 // DW_EH_PE_textrel base (.text), 0 when unknown
	dataBase uint64 // DW_EH_PE_datarel base (.got), 0 when unknown
	// signalBefore: a signal frame's FDE starts one byte before its code
	// (glibc's x86 restorers, written so that an unwinder looking up pc-1
	// finds them), so its code starts at begin+1.
	signalBefore bool
}

// ehCIE is the part of a CIE an FDE needs.
type ehCIE struct {
	ok     bool
	fdeEnc byte
	hasAug bool // "z": FDEs carry an augmentation data length
	signal bool // 'S': a signal frame
}

// parseEhFrame returns the FDE code ranges sorted by start (duplicates
// removed, empty and absurd ranges dropped) and limitations describing damage
// that stopped or narrowed the walk.
func parseEhFrame(in ehFrameInput) ([]codeRange, []string) {
	var out []codeRange
	var lims []string
	limit := func(format string, args ...any) {
		msg := ".eh_frame: " + fmt.Sprintf(format, args...)
		if !slices.Contains(lims, msg) {
			lims = append(lims, msg)
		}
	}
	b := in.data
	if in.bo == nil {
		in.bo = binary.LittleEndian
	}
	if in.ptrSize != 4 && in.ptrSize != 8 {
		in.ptrSize = 8
	}
	cies := map[uint64]ehCIE{}
	badEnc := 0
	n := uint64(len(b))
	var off uint64
	for off+4 <= n {
		start := off
		length := uint64(in.bo.Uint32(b[off:]))
		off += 4
		if length == 0 {
			break // terminator
		}
		if length == 0xffffffff {
			if off+8 > n {
				limit("record at offset %#x has a truncated 64-bit length; the walk stopped there", start)
				break
			}
			length = in.bo.Uint64(b[off:])
			off += 8
		}
		if length < 4 || length > n-off {
			limit("record at offset %#x has length %#x past the end of the section; the walk stopped there", start, length)
			break
		}
		body := off
		end := off + length
		off = end
		id := uint64(in.bo.Uint32(b[body:]))
		if id == 0 {
			if _, seen := cies[start]; !seen {
				cies[start] = parseCIE(b[body+4:end], in)
			}
			continue
		}
		// FDE: id is the distance from the id field back to the CIE.
		if id > body {
			limit("FDE at offset %#x points before the section; skipped", start)
			continue
		}
		cieOff := body - id
		cie, seen := cies[cieOff]
		if !seen {
			cie = parseCIEAt(b, cieOff, in)
			cies[cieOff] = cie
		}
		if !cie.ok {
			badEnc++
			continue
		}
		p := body + 4
		begin, ok := readEncoded(b[:end], &p, cie.fdeEnc, in, true)
		if !ok {
			badEnc++
			continue
		}
		size, ok := readEncoded(b[:end], &p, cie.fdeEnc&0x0f, in, false)
		if !ok {
			badEnc++
			continue
		}
		if begin == 0 || size == 0 || size > maxPdataRange || begin+size < begin {
			continue // discarded (gc'ed) code, or a damaged range
		}
		if len(out) >= maxEhFrameFDEs {
			limit("more than %d FDEs; the rest were ignored", maxEhFrameFDEs)
			break
		}
		if cie.signal && in.signalBefore && size > 1 {
			begin, size = begin+1, size-1
		}
		out = append(out, codeRange{begin, begin + size})
	}
	if badEnc > 0 {
		limit("%d FDE(s) with an unsupported or damaged encoding were skipped", badEnc)
	}
	slices.SortFunc(out, func(a, b codeRange) int {
		// By start, longest first, so the kept duplicate is the longest.
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	out = slices.CompactFunc(out, func(a, b codeRange) bool { return a.start == b.start })
	return slices.Clip(out), lims
}

// parseCIEAt decodes the CIE record starting at off (length field included).
func parseCIEAt(b []byte, off uint64, in ehFrameInput) ehCIE {
	n := uint64(len(b))
	if off+8 > n {
		return ehCIE{}
	}
	length := uint64(in.bo.Uint32(b[off:]))
	p := off + 4
	if length == 0xffffffff {
		if p+8 > n {
			return ehCIE{}
		}
		length = in.bo.Uint64(b[p:])
		p += 8
	}
	if length < 4 || length > n-p || in.bo.Uint32(b[p:]) != 0 {
		return ehCIE{}
	}
	return parseCIE(b[p+4:p+length], in)
}

// parseCIE decodes a CIE body after its id field.
func parseCIE(b []byte, in ehFrameInput) ehCIE {
	if len(b) < 1 {
		return ehCIE{}
	}
	version := b[0]
	if version != 1 && version != 3 && version != 4 {
		return ehCIE{}
	}
	p := uint64(1)
	augStart := p
	for p < uint64(len(b)) && b[p] != 0 {
		p++
	}
	if p >= uint64(len(b)) {
		return ehCIE{}
	}
	aug := b[augStart:p]
	p++ // NUL
	if len(aug) >= 2 && aug[0] == 'e' && aug[1] == 'h' {
		p += uint64(in.ptrSize) // old GNU "eh" data
		aug = aug[2:]
	}
	if version == 4 {
		p += 2 // address size, segment selector size
	}
	if _, ok := readULEB(b, &p); !ok { // code alignment
		return ehCIE{}
	}
	if _, ok := readULEB(b, &p); !ok { // data alignment (sleb; only skipped)
		return ehCIE{}
	}
	if version == 1 {
		p++
	} else if _, ok := readULEB(b, &p); !ok {
		return ehCIE{}
	}
	cie := ehCIE{ok: true, fdeEnc: ehPEAbsptr}
	if len(aug) == 0 {
		return cie
	}
	if aug[0] != 'z' {
		return ehCIE{} // unknown augmentation without a length: FDEs cannot be read
	}
	cie.hasAug = true
	alen, ok := readULEB(b, &p)
	if !ok || alen > uint64(len(b)) || p > uint64(len(b))-alen {
		return ehCIE{}
	}
	ab := b[:p+alen]
	for _, c := range aug[1:] {
		switch c {
		case 'R':
			if p >= uint64(len(ab)) {
				return ehCIE{}
			}
			cie.fdeEnc = ab[p]
			p++
		case 'L':
			if p >= uint64(len(ab)) {
				return ehCIE{}
			}
			p++ // LSDA encoding (the pointer is in each FDE's augmentation data)
		case 'P':
			if p >= uint64(len(ab)) {
				return ehCIE{}
			}
			enc := ab[p]
			p++
			if _, ok := readEncoded(ab, &p, enc&0x7f, ehFrameInput{bo: in.bo, ptrSize: in.ptrSize}, false); !ok {
				return ehCIE{}
			}
		case 'S':
			cie.signal = true
		case 'B':
		default:
			return cie // unknown letter: the 'z' length covers the rest
		}
	}
	return cie
}

// readEncoded reads one DW_EH_PE-encoded value at *p within b. With apply,
// the application bits (pcrel, textrel, datarel) are applied; p is the
// section offset of the field, so pcrel adds in.addr+p. ok=false for
// truncated data, DW_EH_PE_omit, indirect or unsupported encodings, or a
// base the caller does not know.
func readEncoded(b []byte, p *uint64, enc byte, in ehFrameInput, apply bool) (uint64, bool) {
	if enc == ehPEOmit {
		return 0, false
	}
	field := *p
	n := uint64(len(b))
	var v uint64
	switch enc & 0x0f {
	case ehPEAbsptr:
		if field+uint64(in.ptrSize) > n {
			return 0, false
		}
		if in.ptrSize == 4 {
			v = uint64(in.bo.Uint32(b[field:]))
		} else {
			v = in.bo.Uint64(b[field:])
		}
		*p += uint64(in.ptrSize)
	case ehPEUdata2, ehPESdata2:
		if field+2 > n {
			return 0, false
		}
		v = uint64(in.bo.Uint16(b[field:]))
		if enc&0x0f == ehPESdata2 {
			v = uint64(int64(int16(v)))
		}
		*p += 2
	case ehPEUdata4, ehPESdata4:
		if field+4 > n {
			return 0, false
		}
		v = uint64(in.bo.Uint32(b[field:]))
		if enc&0x0f == ehPESdata4 {
			v = uint64(int64(int32(v)))
		}
		*p += 4
	case ehPEUdata8, ehPESdata8:
		if field+8 > n {
			return 0, false
		}
		v = in.bo.Uint64(b[field:])
		*p += 8
	case ehPEUleb128:
		x, ok := readULEB(b, p)
		if !ok {
			return 0, false
		}
		v = x
	case ehPESleb128:
		x, ok := readSLEB(b, p)
		if !ok {
			return 0, false
		}
		v = uint64(x)
	default:
		return 0, false
	}
	if !apply {
		return v, true
	}
	if enc&ehPEIndir != 0 {
		return 0, false // a pointer to the value: not a code address here
	}
	switch enc & 0x70 {
	case 0:
	case ehPEPcrel:
		v += in.addr + field
	case ehPETextrel:
		if in.textBase == 0 {
			return 0, false
		}
		v += in.textBase
	case ehPEDatarel:
		if in.dataBase == 0 {
			return 0, false
		}
		v += in.dataBase
	default: // funcrel and aligned have no meaning for pc_begin
		return 0, false
	}
	if in.ptrSize == 4 {
		v &= 0xffffffff
	}
	return v, true
}

// readULEB reads an unsigned LEB128 of at most 10 bytes.
func readULEB(b []byte, p *uint64) (uint64, bool) {
	var v uint64
	for i := uint(0); i < 10; i++ {
		if *p >= uint64(len(b)) {
			return 0, false
		}
		c := b[*p]
		*p++
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}

// readSLEB reads a signed LEB128 of at most 10 bytes.
func readSLEB(b []byte, p *uint64) (int64, bool) {
	var v int64
	var shift uint
	for i := 0; i < 10; i++ {
		if *p >= uint64(len(b)) {
			return 0, false
		}
		c := b[*p]
		*p++
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, true
		}
	}
	return 0, false
}

// elfEhFrame parses the image's mapped .eh_frame section, keeping the FDE
// ranges that start in an executable section other than a PLT. It runs with the header parse
// (so the profile can name "eh-frame" exactly when FDEs contribute code
// ranges); the ranges are header-level data and hold no file bytes.
func elfEhFrame(img *image, data []byte, gotAddr uint64) ([]codeRange, []string) {
	var in ehFrameInput
	found := false
	for i := range img.sections {
		s := &img.sections[i]
		switch s.name {
		case ".eh_frame":
			if !s.mapped || s.fsize == 0 || found {
				continue
			}
			end := satAdd(s.off, s.fsize)
			if s.off >= uint64(len(data)) {
				continue
			}
			end = min(end, uint64(len(data)))
			in.data, in.addr, found = data[s.off:end], s.addr, true
		case ".text":
			in.textBase = s.addr
		}
	}
	if !found {
		return nil, nil
	}
	in.bo = img.bo
	in.ptrSize = 4
	if img.is64 {
		in.ptrSize = 8
	}
	in.dataBase = gotAddr
	in.signalBefore = img.arch == "x86" || img.arch == "x86_64"
	all, lims := parseEhFrame(in)
	out := all[:0]
	for _, r := range all {
		if img.execAt(r.start) && !img.inPLT(r.start) {
			r.start = fdePaddingStart(img, data, r)
			out = append(out, r)
		}
	}
	return slices.Clip(out), lims
}

// inPLT reports whether a lies in a PLT section (.plt, .plt.sec, .plt.got,
// .iplt): their FDEs describe stub tables, whose stubs are named imports.
func (img *image) inPLT(a uint64) bool {
	for i := range img.sections {
		s := &img.sections[i]
		if s.mapped && a >= s.addr && a < s.end() && (strings.HasPrefix(s.name, ".plt") || s.name == ".iplt") {
			return true
		}
	}
	return false
}

// execAt reports whether a lies in a mapped executable section.
func (img *image) execAt(a uint64) bool {
	for i := range img.sections {
		s := &img.sections[i]
		if s.mapped && s.x && a >= s.addr && a < s.end() {
			return true
		}
	}
	return false
}

// unwindRanges returns the code ranges of the image's unwind tables (PE x64
// .pdata, ELF .eh_frame), sorted by start, for procedure extents.
func unwindRanges(img *image, data []byte) []codeRange {
	if img.elf != nil {
		return img.elf.fdes
	}
	return pdataRanges(img, data)
}

// addEhFrameProcs adds a procedure named sub_<hex> (source analysis, with the
// FDE's range as its size) at each FDE start where no procedure symbol
// starts and that is not the entry point (named "entry" already).
func addEhFrameProcs(img *image, b *symBuilder) error {
	fdes := img.elf.fdes
	if len(fdes) == 0 {
		return nil
	}
	starts := make([]uint64, 0, len(b.syms))
	for i := range b.syms {
		if b.syms[i].flags&flagProcedure != 0 {
			starts = append(starts, b.syms[i].addr)
		}
	}
	slices.Sort(starts)
	if err := b.reserve(uint64(len(fdes))); err != nil {
		return err
	}
	for _, r := range fdes {
		if err := b.tick(); err != nil {
			return err
		}
		if _, found := slices.BinarySearch(starts, r.start); found {
			continue
		}
		if img.hasEntry && r.start == img.entry {
			continue
		}
		b.addArena(symbol{addr: r.start, size: r.end - r.start, kind: kindFunction, source: srcAnalysis,
			flags: flagProcedure, rank: makeRank(srcAnalysis, kindFunction, bindGlobal)}, fmt.Sprintf("sub_%x", r.start))
	}
	return nil
}
