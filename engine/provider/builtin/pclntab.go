package builtin

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// A reader of the Go function table (pclntab) for formats 1.2, 1.16, 1.18 and
// 1.20 (runtime/symtab.go pcHeader; debug/gosym reads the same layouts but
// panics on damaged tables and copies every name). Only function entries and
// names are read: enough to name main.main in a stripped Go binary here, and
// every Go function later. Every offset is bounds-checked against the table,
// so arbitrary bytes yield an error or fewer functions, never a panic.

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
	t := &pclntab{data: b, ptrSize: uint64(b[7])}
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
		if !ok || !ok2 || !ok3 || !ok4 {
			return nil, errPclntab
		}
		t.nfunc, t.nametab, t.functab, t.funcdata, t.fieldSize = n, names, pcln, pcln, 4
		t.textStart = ts
		if ts == 0 {
			t.textStart = textStart
		}
	case 116:
		var n, names, pcln uint64
		n, ok = word(0)
		names, ok2 := word(2)
		pcln, ok3 := word(6)
		if !ok || !ok2 || !ok3 {
			return nil, errPclntab
		}
		t.nfunc, t.nametab, t.functab, t.funcdata = n, names, pcln, pcln
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

// name returns the name of function i as an offset and length in the table's
// bytes, or ok=false when its record lies outside the table.
func (t *pclntab) name(i int) (off uint64, n int, ok bool) {
	rec := satAdd(t.funcdata, t.field(2*uint64(i)+1))
	// The record starts with the entry (a uint32 offset in 1.18+, else a
	// pointer), then the int32 name offset.
	at := satAdd(rec, t.ptrSize)
	if t.version >= 118 {
		at = satAdd(rec, 4)
	}
	nameOff, ok := readU(t.data, t.bo, at, 4)
	if !ok {
		return 0, 0, false
	}
	p := satAdd(t.nametab, nameOff)
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
