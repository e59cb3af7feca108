package builtin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The soname of the program interpreter, read from a file the sample names
// (PT_INTERP) as far as the loader's tables need and no further: the ELF
// header, the program headers, the dynamic segment up to DT_NULL and one
// string. list_dependencies needs it to know which DT_NEEDED name is the
// interpreter, loaded first (deps.go). The whole file is never read: the
// interpreter may be anything from /dev/zero to a sparse file of any size
// (CONTRACTS.md §0.3).

// Bounds of what elfSoname reads, each beyond anything a loader has: the
// kernel refuses program headers of more than 64 KiB (fs/binfmt_elf.c), a
// real dynamic segment holds tens of entries, and a soname is a file name.
const (
	maxInterpProgHeaders = 64 << 10
	maxInterpDynamic     = 1 << 20
	maxInterpSoname      = 4096
)

// errNotELF is an interpreter whose header is no ELF header the loader
// would map (the item's reason is not_loadable).
var errNotELF = errors.New("not an ELF object")

// elfSoname returns the DT_SONAME of the ELF object r holds (size bytes),
// "" when it has none. The error is errNotELF (wrapped) for bytes that are
// no ELF object, or r's own (a cancelled request, a *NamedPathError).
func elfSoname(r io.ReaderAt, size int64) (string, error) {
	var ident [elf.EI_NIDENT]byte
	if err := readFull(r, ident[:], 0); err != nil {
		return "", notELF(err)
	}
	if !bytes.Equal(ident[:4], []byte(elf.ELFMAG)) {
		return "", errNotELF
	}
	var bo binary.ByteOrder
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		bo = binary.BigEndian
	default:
		return "", fmt.Errorf("%w: unknown data encoding", errNotELF)
	}
	is64 := false
	switch elf.Class(ident[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		is64 = true
	case elf.ELFCLASS32:
	default:
		return "", fmt.Errorf("%w: unknown class", errNotELF)
	}
	hdr := make([]byte, map[bool]int{false: 52, true: 64}[is64])
	if err := readFull(r, hdr, 0); err != nil {
		return "", notELF(err)
	}
	var phoff uint64
	var phentsize, phnum uint64
	if is64 {
		phoff = bo.Uint64(hdr[0x20:])
		phentsize, phnum = uint64(bo.Uint16(hdr[0x36:])), uint64(bo.Uint16(hdr[0x38:]))
	} else {
		phoff = uint64(bo.Uint32(hdr[0x1c:]))
		phentsize, phnum = uint64(bo.Uint16(hdr[0x2a:])), uint64(bo.Uint16(hdr[0x2c:]))
	}
	minEnt := map[bool]uint64{false: 32, true: 56}[is64]
	if phnum == 0 {
		return "", nil // no program headers: nothing a loader maps, no soname
	}
	if phentsize < minEnt || phnum*phentsize > maxInterpProgHeaders || phoff >= uint64(size) {
		return "", fmt.Errorf("%w: program headers out of bounds", errNotELF)
	}
	ph := make([]byte, phnum*phentsize)
	if err := readFull(r, ph, int64(phoff)); err != nil {
		return "", notELF(err)
	}
	type prog struct{ typ, off, vaddr, filesz uint64 }
	progs := make([]prog, phnum)
	for i := range progs {
		p := ph[uint64(i)*phentsize:]
		if is64 {
			progs[i] = prog{uint64(bo.Uint32(p)), bo.Uint64(p[8:]), bo.Uint64(p[16:]), bo.Uint64(p[32:])}
		} else {
			progs[i] = prog{uint64(bo.Uint32(p)), uint64(bo.Uint32(p[4:])), uint64(bo.Uint32(p[8:])), uint64(bo.Uint32(p[16:]))}
		}
	}
	dyn := -1
	for i, p := range progs {
		if elf.ProgType(p.typ) == elf.PT_DYNAMIC {
			dyn = i
			break
		}
	}
	if dyn < 0 || progs[dyn].off >= uint64(size) {
		return "", nil
	}
	seg := make([]byte, min(progs[dyn].filesz, maxInterpDynamic, uint64(size)-progs[dyn].off))
	if err := readFull(r, seg, int64(progs[dyn].off)); err != nil {
		return "", notELF(err)
	}
	ent, word := uint64(16), 8
	if !is64 {
		ent, word = 8, 4
	}
	var strtab, soname uint64
	var haveStr, haveName bool
	for i := uint64(0); i+ent <= uint64(len(seg)); i += ent {
		tag, _ := readU(seg, bo, i, word)
		val, _ := readU(seg, bo, i+uint64(word), word)
		if !is64 {
			tag = uint64(int64(int32(uint32(tag)))) // d_tag is signed
		}
		switch elf.DynTag(tag) {
		case elf.DT_NULL:
			i = uint64(len(seg))
		case elf.DT_STRTAB:
			strtab, haveStr = val, true
		case elf.DT_SONAME:
			soname, haveName = val, true
		}
	}
	if !haveName || !haveStr {
		return "", nil
	}
	// The string table's file offset, through PT_LOAD as the loader maps it.
	at, found := uint64(0), false
	for _, p := range progs {
		if elf.ProgType(p.typ) == elf.PT_LOAD && strtab >= p.vaddr && strtab-p.vaddr < p.filesz {
			at, found = satAdd(p.off, strtab-p.vaddr), true
			break
		}
	}
	at = satAdd(at, soname)
	if !found || at >= uint64(size) {
		return "", fmt.Errorf("%w: DT_SONAME lies outside the file", errNotELF)
	}
	s := make([]byte, min(maxInterpSoname, uint64(size)-at))
	if err := readFull(r, s, int64(at)); err != nil {
		return "", notELF(err)
	}
	end := bytes.IndexByte(s, 0)
	if end < 0 {
		return "", fmt.Errorf("%w: DT_SONAME is not a terminated string of at most %d bytes", errNotELF, maxInterpSoname)
	}
	return string(s[:end]), nil
}

// readFull reads len(b) bytes at off.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	if off < 0 {
		return io.ErrUnexpectedEOF
	}
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// notELF keeps r's own errors (cancellation, a NamedPathError) and calls a
// file that ends too soon no ELF object.
func notELF(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the file ends inside its headers", errNotELF)
	}
	return err
}
