package builtin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rea-re/rea/engine/provider"
)

// A reader of the Go function table (pclntab) for formats 1.2, 1.16, 1.18 and
// 1.20 (runtime/symtab.go pcHeader; debug/gosym reads the same layouts but
// panics on damaged tables and copies every name). It reads what function
// discovery needs: every function's entry, name (an offset into the table,
// never copied), code size (the end of its pcsp table) and the source file
// and line of its entry (pcfile, pcln). Every offset is bounds-checked
// against the table, so arbitrary bytes yield an error, fewer functions or
// no answer, never a panic.

// Magic numbers of the pclntab header, by Go version.
const (
	pclnMagic12  = 0xfffffffb
	pclnMagic116 = 0xfffffffa
	pclnMagic118 = 0xfffffff0
	pclnMagic120 = 0xfffffff1
)

// maxPclnFuncs bounds the function count a header may declare.
const maxPclnFuncs = 1 << 24

var errPclntab = errors.New("not a Go pclntab")

// pclntab is a parsed function table. Offsets are relative to data, which
// starts at the header.
type pclntab struct {
	data      []byte
	bo        binary.ByteOrder
	version   int // 12, 116, 118, 120
	ptrSize   uint64
	nfunc     uint64
	textStart uint64
	nametab   uint64 // offset of the function name table
	functab   uint64 // offset of the function table
	fieldSize uint64 // size of a function table field
	funcdata  uint64 // base of the offsets in the function table
	quantum   uint64 // instruction size quantum (pc deltas are multiples)
	cutab     uint64 // 1.16+: per compilation unit, file indices into filetab
	filetab   uint64 // 1.16+: file names; 1.2: the file table (count, offsets)
	pctab     uint64 // base of the pcsp/pcfile/pcln offsets (0 in 1.2)
}

// parsePclntab parses the table at the start of b. textStart is the address
// function offsets are relative to in 1.18+ tables (the runtime's
// moduledata.text, the start of the text section) when the header's own
// value is zero.
func parsePclntab(b []byte, textStart uint64) (*pclntab, error) {
	if len(b) < 16 || b[4] != 0 || b[5] != 0 {
		return nil, errPclntab
	}
	switch b[6] { // instruction size quantum
	case 1, 2, 4:
	default:
		return nil, errPclntab
	}
	t := &pclntab{data: b, ptrSize: uint64(b[7]), quantum: uint64(b[6])}
	if t.ptrSize != 4 && t.ptrSize != 8 {
		return nil, errPclntab
	}
	// The magics read differently in the other byte order, which tells it.
order:
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		switch bo.Uint32(b) {
		case pclnMagic12:
			t.version = 12
		case pclnMagic116:
			t.version = 116
		case pclnMagic118:
			t.version = 118
		case pclnMagic120:
			t.version = 120
		default:
			continue
		}
		t.bo = bo
		break order
	}
	if t.bo == nil {
		return nil, errPclntab
	}
	word := func(i uint64) (uint64, bool) { return t.uintptr(8 + i*t.ptrSize) }
	var ok bool
	t.fieldSize = t.ptrSize
	switch t.version {
	case 118, 120:
		var n, ts, names, pcln uint64
		n, ok = word(0)
		ts, ok2 := word(2)
		names, ok3 := word(3)
		pcln, ok4 := word(7)
		cu, ok5 := word(4)
		files, ok6 := word(5)
		pcs, ok7 := word(6)
		if !ok || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 {
			return nil, errPclntab
		}
		t.nfunc, t.nametab, t.functab, t.funcdata, t.fieldSize = n, names, pcln, pcln, 4
		t.cutab, t.filetab, t.pctab = cu, files, pcs
		t.textStart = ts
		if ts == 0 {
			t.textStart = textStart
		}
	case 116:
		var n, names, pcln uint64
		n, ok = word(0)
		names, ok2 := word(2)
		pcln, ok3 := word(6)
		cu, ok4 := word(3)
		files, ok5 := word(4)
		pcs, ok6 := word(5)
		if !ok || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
			return nil, errPclntab
		}
		t.nfunc, t.nametab, t.functab, t.funcdata = n, names, pcln, pcln
		t.cutab, t.filetab, t.pctab = cu, files, pcs
	default: // 12
		if t.nfunc, ok = word(0); !ok {
			return nil, errPclntab
		}
		t.functab = 8 + t.ptrSize
	}
	if t.nfunc == 0 || t.nfunc > maxPclnFuncs || t.nametab >= uint64(len(b)) || t.functab >= uint64(len(b)) {
		return nil, errPclntab
	}
	// The function table holds nfunc (entry, offset) pairs and an end entry.
	if need := (2*t.nfunc + 1) * t.fieldSize; need > uint64(len(b))-t.functab {
		return nil, errPclntab
	}
	if t.version == 12 {
		// The file table's offset follows the function table's end entry.
		t.filetab, _ = readU(b, t.bo, t.functab+(2*t.nfunc+1)*t.ptrSize, 4)
	}
	return t, nil
}

// uintptr reads a pointer-sized word at off.
func (t *pclntab) uintptr(off uint64) (uint64, bool) { return readU(t.data, t.bo, off, int(t.ptrSize)) }

// field reads function table field k (entry i's entry is 2i, its offset 2i+1).
func (t *pclntab) field(k uint64) uint64 {
	v, _ := readU(t.data, t.bo, t.functab+k*t.fieldSize, int(t.fieldSize)) // in range: checked by parsePclntab
	return v
}

// numFuncs is the number of functions the table declares.
func (t *pclntab) numFuncs() int { return int(t.nfunc) }

// entry returns the entry address of function i.
func (t *pclntab) entry(i int) uint64 {
	v := t.field(2 * uint64(i))
	if t.version >= 118 {
		v += t.textStart
	}
	return v
}

// Fields of a function record (runtime._func) after its entry, as uint32
// indices: the layout is the same in every version read here (1.2 has a
// frame size where later versions have deferreturn, and no cuOffset).
const (
	funcNameOff = 0
	funcPcsp    = 3
	funcPcfile  = 4
	funcPcln    = 5
	funcCuOff   = 7
)

// funcField reads uint32 field k of function i's record, or ok=false when
// the record lies outside the table.
func (t *pclntab) funcField(i int, k uint64) (uint64, bool) {
	rec := satAdd(t.funcdata, t.field(2*uint64(i)+1))
	// The record starts with the entry (a uint32 offset in 1.18+, else a
	// pointer), then the uint32 fields.
	at := satAdd(rec, t.ptrSize)
	if t.version >= 118 {
		at = satAdd(rec, 4)
	}
	return readU(t.data, t.bo, satAdd(at, 4*k), 4)
}

// name returns the name of function i as an offset and length in the table's
// bytes, or ok=false when its record lies outside the table.
func (t *pclntab) name(i int) (off uint64, n int, ok bool) {
	nameOff, ok := t.funcField(i, funcNameOff)
	if !ok {
		return 0, 0, false
	}
	return t.cstr(satAdd(t.nametab, nameOff))
}

// cstr returns the NUL-terminated string at p of the table.
func (t *pclntab) cstr(p uint64) (off uint64, n int, ok bool) {
	if p >= uint64(len(t.data)) {
		return 0, 0, false
	}
	end := min(uint64(len(t.data)), p+maxNameLen)
	k := bytes.IndexByte(t.data[p:end], 0)
	if k < 0 {
		return 0, 0, false
	}
	return p, k, true
}

// maxPcSteps bounds the steps one pc-value table walk takes.
const maxPcSteps = 1 << 20

// pcWalk walks the pc-value table of field k of function i (runtime
// pcvalue: pairs of a zig-zag value delta and a pc delta in quanta, both
// uvarints, ended by a zero value delta after the first pair), calling step
// with each value and the end of the pc range it holds for until step
// returns false. It returns the end of the last range, or ok=false when the
// function has no such table or the table is damaged before its end.
func (t *pclntab) pcWalk(i int, k uint64, step func(val int64, end uint64) bool) (uint64, bool) {
	off, ok := t.funcField(i, k)
	if !ok || off == 0 {
		return 0, false
	}
	p := satAdd(t.pctab, off)
	pc, val := t.entry(i), int64(-1)
	for n := 0; n < maxPcSteps; n++ {
		uv, q, ok := uvarint32(t.data, p)
		if !ok {
			return 0, false
		}
		if uv == 0 && n > 0 {
			return pc, true
		}
		pd, q2, ok := uvarint32(t.data, q)
		if !ok {
			return 0, false
		}
		p = q2
		if uv&1 != 0 {
			val -= int64(uv>>1) + 1
		} else {
			val += int64(uv >> 1)
		}
		pc = satAdd(pc, pd*t.quantum)
		if !step(val, pc) {
			return pc, true
		}
	}
	return 0, false
}

// uvarint32 reads a uvarint of at most 32 bits at p of b, returning it and
// the offset after it.
func uvarint32(b []byte, p uint64) (uint64, uint64, bool) {
	var v uint64
	for shift := uint(0); shift < 35; shift += 7 {
		if p >= uint64(len(b)) {
			return 0, 0, false
		}
		c := b[p]
		p++
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v & 0xffffffff, p, true
		}
	}
	return 0, 0, false
}

// codeSize returns the size of function i's code: the end of its pcsp
// table, which the linker writes up to the function's last instruction
// (the gap to the next entry is alignment padding), or ok=false.
func (t *pclntab) codeSize(i int) (uint64, bool) {
	entry := t.entry(i)
	end, ok := t.pcWalk(i, funcPcsp, func(int64, uint64) bool { return true })
	if !ok || end <= entry {
		return 0, false
	}
	return end - entry, true
}

// valueAtEntry is the first value of function i's table k.
func (t *pclntab) valueAtEntry(i int, k uint64) (int64, bool) {
	var v int64
	_, ok := t.pcWalk(i, k, func(val int64, _ uint64) bool { v = val; return false })
	return v, ok
}

// source returns the source file (offset and length in the table) and line
// of function i's entry, or ok=false.
func (t *pclntab) source(i int) (off uint64, n int, line int, ok bool) {
	ln, ok1 := t.valueAtEntry(i, funcPcln)
	fno, ok2 := t.valueAtEntry(i, funcPcfile)
	if !ok1 || !ok2 || ln <= 0 || fno < 0 || ln > 1<<31 {
		return 0, 0, 0, false
	}
	var at uint64
	if t.version == 12 {
		// filetab: a uint32 count, then uint32 offsets of the names in the
		// table; file 0 is invalid.
		count, okc := readU(t.data, t.bo, t.filetab, 4)
		if fno == 0 || uint64(fno) >= count {
			return 0, 0, 0, false
		}
		v, okv := readU(t.data, t.bo, satAdd(t.filetab, 4*uint64(fno)), 4)
		if !okc || !okv {
			return 0, 0, 0, false
		}
		at = v
	} else {
		cu, okc := t.funcField(i, funcCuOff)
		if !okc {
			return 0, 0, 0, false
		}
		v, okv := readU(t.data, t.bo, satAdd(t.cutab, 4*satAdd(cu, uint64(fno))), 4)
		if !okv || v == 0xffffffff {
			return 0, 0, 0, false
		}
		at = satAdd(t.filetab, v)
	}
	off, n, ok = t.cstr(at)
	if !ok || n == 0 {
		return 0, 0, 0, false
	}
	return off, n, int(ln), true
}

// find returns the index of the function whose entry is a (the function
// table is sorted by entry), or ok=false.
func (t *pclntab) find(a uint64) (int, bool) {
	i := sort.Search(t.numFuncs(), func(i int) bool { return t.entry(i) >= a })
	return i, i < t.numFuncs() && t.entry(i) == a
}

// funcFlagAsm is abi.FuncFlagAsm: the function is written in assembly
// (ABI0, arguments on the stack).
const funcFlagAsm = 1 << 2

// abiInternal reports whether the function entered at entry is Go code
// compiled to Go's register ABI: a 1.18+ table (the first with register
// arguments on both amd64 and arm64) lists it, without the assembly flag.
// The flag byte follows funcID in the record's word after cuOffset (1.18)
// or startLine (1.20+).
func (t *pclntab) abiInternal(entry uint64) bool {
	if t.version < 118 {
		return false
	}
	i, ok := t.find(entry)
	if !ok {
		return false
	}
	k := uint64(funcCuOff + 1)
	if t.version >= 120 {
		k++
	}
	w, ok := t.funcField(i, k)
	if !ok {
		return false
	}
	flag := byte(w >> 8) // funcID, flag, pad, nfuncdata in memory order
	if t.bo == binary.BigEndian {
		flag = byte(w >> 16)
	}
	return flag&funcFlagAsm == 0
}

// lookup returns the entry of the first function named name.
func (t *pclntab) lookup(name string) (uint64, bool) {
	for i := 0; i < t.numFuncs(); i++ {
		off, n, ok := t.name(i)
		if ok && n == len(name) && string(t.data[off:off+uint64(n)]) == name {
			return t.entry(i), true
		}
	}
	return 0, false
}

// pclnLoc locates an image's Go function table in its analyzed bytes, found
// once with the headers (findPclntab) so the profile names "pclntab" exactly
// when the table is read; text is the start address 1.18+ entries are
// relative to when the header's own value is zero.
type pclnLoc struct{ off, size, text uint64 }

// maxPclnTries bounds the candidate Go tables a PE's magic search parses.
const maxPclnTries = 16

// findPclntab finds and checks the Go function table: ELF .gopclntab,
// Mach-O __gopclntab, PE by the header's magic in a data section (no
// section names it there). A named table that does not parse is a
// limitation of the image: its functions are then missing.
func findPclntab(img *image, data []byte) (*pclnLoc, []string) {
	var text uint64
	named := ""
	switch {
	case img.elf != nil:
		_, text, _ = sectionBytes(img, data, ".text", "")
		named = ".gopclntab"
	case img.macho != nil:
		_, text, _ = sectionBytes(img, data, "__TEXT,__text", "")
		named = ",__gopclntab"
	case img.pe != nil:
		_, text, _ = sectionBytes(img, data, ".text", "")
	}
	if named != "" {
		name, suffix := named, ""
		if named[0] == ',' {
			name, suffix = "", named
		}
		b, _, ok := sectionBytes(img, data, name, suffix)
		if !ok {
			return nil, nil
		}
		if _, err := parsePclntab(b, text); err != nil {
			return nil, []string{"the Go function table (" + named[strings.IndexByte(named, ',')+1:] + ") could not be read: Go functions come from symbols only"}
		}
		return &pclnLoc{off: img.sections[namedSection(img, name, suffix)].off, size: uint64(len(b)), text: text}, nil
	}
	// PE: look for the header's magic in the data sections (Go puts the
	// table in .rdata), and require a table that parses and has
	// runtime.main.
	tries := 0 // headers that parse; each costs a pass over its table
	for i := range img.sections {
		s := &img.sections[i]
		if s.x || s.fsize == 0 || s.off > uint64(len(data)) {
			continue
		}
		sec := data[s.off:min(satAdd(s.off, s.fsize), uint64(len(data)))]
		for _, magic := range []uint32{pclnMagic120, pclnMagic118, pclnMagic116, pclnMagic12} {
			var pat [6]byte
			binary.LittleEndian.PutUint32(pat[:], magic)
			for p := 0; p < len(sec); {
				k := bytes.Index(sec[p:], pat[:])
				if k < 0 {
					break
				}
				if t, err := parsePclntab(sec[p+k:], text); err == nil {
					if _, ok := t.lookup("runtime.main"); ok {
						return &pclnLoc{off: s.off + uint64(p+k), size: uint64(len(sec) - p - k), text: text}, nil
					}
					if tries++; tries == maxPclnTries {
						return nil, nil
					}
				}
				p += k + 1
			}
		}
	}
	return nil, nil
}

// goTable parses the image's Go function table (located by findPclntab)
// in its analyzed bytes data, returning it and its offset in data.
func (img *image) goTable(data []byte) (*pclntab, uint64, bool) {
	l := img.pcln
	if l == nil || l.off > uint64(len(data)) || l.size > uint64(len(data))-l.off {
		return nil, 0, false
	}
	t, err := parsePclntab(data[l.off:l.off+l.size], l.text)
	return t, l.off, err == nil
}

// sectionBytes returns the file bytes and address of the first section
// whose name is name or ends with suffix.
func sectionBytes(img *image, data []byte, name, suffix string) ([]byte, uint64, bool) {
	i := namedSection(img, name, suffix)
	if i < 0 {
		return nil, 0, false
	}
	s := &img.sections[i]
	if s.fsize == 0 || s.off > uint64(len(data)) {
		return nil, 0, false
	}
	return data[s.off:min(satAdd(s.off, s.fsize), uint64(len(data)))], s.addr, true
}

// namedSection is the index of the first section whose name is name or ends
// with suffix, or -1.
func namedSection(img *image, name, suffix string) int {
	for i := range img.sections {
		if n := img.sections[i].name; n == name || suffix != "" && strings.HasSuffix(n, suffix) {
			return i
		}
	}
	return -1
}

// addPclntabProcs makes every function of the Go table a procedure named by
// the table (function discovery source "pclntab"): main.main, runtime.*,
// methods such as runtime.(*mheap).alloc, closures main.main.func1. The
// names are the linker's own metadata, the strings the unstripped symbol
// table holds and runtime.FuncForPC answers, so they have source "default"
// like symbols (and merge with them where the file keeps its symbols: same
// address, same name); the size is the function's code size from its pcsp
// table, else none. A table that lies, an entry outside executable code or
// a name outside the table, costs that function only, stated as a
// limitation.
func addPclntabProcs(img *image, b *symBuilder) error {
	t, base, ok := img.goTable(b.data)
	if !ok {
		return nil
	}
	if err := b.reserve(uint64(t.numFuncs())); err != nil {
		return err
	}
	outside, unnamed := 0, 0
	for i := 0; i < t.numFuncs(); i++ {
		if err := b.tick(); err != nil {
			return err
		}
		a := t.entry(i)
		if !img.execAt(a) {
			outside++
			continue
		}
		s := symbol{addr: a, kind: kindFunction, source: srcDefault, flags: flagProcedure,
			rank: makeRank(srcDefault, kindFunction, bindGlobal)}
		// entry(numFuncs) is the table's end entry, past the last function.
		if size, ok := t.codeSize(i); ok && satAdd(a, size) <= t.entry(i+1) {
			s.size = size
		}
		off, n, ok := t.name(i)
		if !ok || n == 0 {
			unnamed++
			b.addArena(symbol{addr: a, size: s.size, kind: kindFunction, source: srcAnalysis, flags: flagProcedure,
				rank: makeRank(srcAnalysis, kindFunction, bindGlobal)}, fmt.Sprintf("sub_%x", a))
			continue
		}
		s.nameOff, s.nameLen = base+off, uint32(n)
		b.add(s)
	}
	if outside > 0 {
		b.limit(fmt.Sprintf("Go function table: %d function entr(y/ies) outside executable sections were ignored", outside))
	}
	if unnamed > 0 {
		b.limit(fmt.Sprintf("Go function table: %d function name(s) lie outside the table; those functions are named sub_<hex>", unnamed))
	}
	return nil
}

// goSource is the source position of the Go function entered at entry,
// from the table's pcfile and pcln, or nil.
func goSource(img *image, data []byte, entry uint64) *provider.SourceLoc {
	t, base, ok := img.goTable(data)
	if !ok {
		return nil
	}
	i, ok := t.find(entry)
	if !ok {
		return nil
	}
	off, n, line, ok := t.source(i)
	if !ok {
		return nil
	}
	return &provider.SourceLoc{File: nameString(data[base+off : base+off+uint64(n)]), Line: line}
}
