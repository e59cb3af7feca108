package builtin

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"

	"github.com/rea-re/rea/engine/target"
)

type peInfo struct {
	imageBase   uint64
	symOff      uint64 // COFF symbol table
	nsyms       uint64
	exportDir   [2]uint32 // RVA, size
	importDir   [2]uint32
	exceptDir   [2]uint32   // exception directory (.pdata)
	relocDir    [2]uint32   // base relocations (pecalls.go)
	pdata       []codeRange // x64 .pdata ranges, by start (pdata.go)
	pdataStarts []uint64    // starts of primary .pdata ranges (function discovery)
	fdes        []codeRange // .eh_frame FDE ranges in executable code (mingw i686's DWARF unwinding)
	ctors       []uint64    // mingw's constructor and destructor pointers (pecalls.go)
	secByRVA    []int       // indices into image.sections by virtual address
	secVA       []uint32
	secRaw      []uint32 // PointerToRawData
	secRawSize  []uint32 // file-backed bytes used for RVA translation
	dll         bool     // IMAGE_FILE_DLL: no main is expected (mainentry.go)
}

// openPE parses PE headers. An error means debug/pe rejected the header.
func openPE(data []byte) (*image, error) {
	f, err := pe.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	img := &image{
		format: "pe", container: "pe", arch: target.PEArch(f.Machine), bo: binary.LittleEndian,
		sliceSize: uint64(len(data)), fileSize: uint64(len(data)),
	}
	info := &peInfo{symOff: uint64(f.PointerToSymbolTable), nsyms: uint64(f.NumberOfSymbols),
		dll: f.Characteristics&pe.IMAGE_FILE_DLL != 0}
	img.pe = info
	used := map[string]bool{}
	var entryRVA, sizeOfHeaders uint32
	var dirs []pe.DataDirectory
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		img.is64 = true
		info.imageBase = oh.ImageBase
		entryRVA, sizeOfHeaders = oh.AddressOfEntryPoint, oh.SizeOfHeaders
		dirs = oh.DataDirectory[:min(int(oh.NumberOfRvaAndSizes), len(oh.DataDirectory))]
	case *pe.OptionalHeader32:
		info.imageBase = uint64(oh.ImageBase)
		entryRVA, sizeOfHeaders = oh.AddressOfEntryPoint, oh.SizeOfHeaders
		dirs = oh.DataDirectory[:min(int(oh.NumberOfRvaAndSizes), len(oh.DataDirectory))]
	default:
		img.limitations = append(img.limitations, "the PE optional header is missing; addresses are image-relative")
	}
	if len(dirs) > 0 {
		info.exportDir = [2]uint32{dirs[0].VirtualAddress, dirs[0].Size}
	}
	if len(dirs) > 1 {
		info.importDir = [2]uint32{dirs[1].VirtualAddress, dirs[1].Size}
	}
	if len(dirs) > 3 {
		info.exceptDir = [2]uint32{dirs[3].VirtualAddress, dirs[3].Size}
	}
	if len(dirs) > 5 {
		info.relocDir = [2]uint32{dirs[5].VirtualAddress, dirs[5].Size}
	}
	base := info.imageBase
	var raw []fileRange
	if sizeOfHeaders > 0 {
		raw = append(raw, fileRange{off: 0, end: uint64(sizeOfHeaders), addr: base})
	}
	for _, s := range f.Sections {
		vsize := uint64(s.VirtualSize)
		if vsize == 0 {
			vsize = uint64(s.Size)
		}
		c := s.Characteristics
		fsz := min(uint64(s.Size), vsize)
		if c&pe.IMAGE_SCN_CNT_UNINITIALIZED_DATA != 0 && s.Offset == 0 {
			fsz = 0
		}
		sec := section{
			name: s.Name, addr: base + uint64(s.VirtualAddress), size: vsize,
			off: uint64(s.Offset), fsize: fsz,
			r: c&pe.IMAGE_SCN_MEM_READ != 0, w: c&pe.IMAGE_SCN_MEM_WRITE != 0, x: c&pe.IMAGE_SCN_MEM_EXECUTE != 0,
			mapped: true,
		}
		img.sections = append(img.sections, sec)
		img.segments = append(img.segments, segment{
			name: s.Name, start: sec.addr, end: sec.end(), r: sec.r, w: sec.w, x: sec.x, xKnown: true,
		})
		if fsz > 0 {
			raw = append(raw, fileRange{off: uint64(s.Offset), end: satAdd(uint64(s.Offset), fsz), addr: sec.addr})
		}
		info.secVA = append(info.secVA, s.VirtualAddress)
		info.secRaw = append(info.secRaw, s.Offset)
		info.secRawSize = append(info.secRawSize, uint32(min(uint64(s.Size), vsize)))
	}
	info.secByRVA = make([]int, len(f.Sections))
	for i := range info.secByRVA {
		info.secByRVA[i] = i
	}
	sort.SliceStable(info.secByRVA, func(i, j int) bool { return info.secVA[info.secByRVA[i]] < info.secVA[info.secByRVA[j]] })
	if info.nsyms > 0 && info.symOff > 0 {
		used["symbols"] = true
	}
	if info.exportDir[0] != 0 && info.exportDir[1] != 0 {
		used["exports"] = true
	}
	if info.importDir[0] != 0 && info.importDir[1] != 0 {
		used["imports"] = true
	}
	if entryRVA != 0 {
		img.entry, img.hasEntry = base+uint64(entryRVA), true
		if img.arch == "arm" {
			img.entry &^= 1 // Thumb code: the interworking bit is no part of the address
		}
		used["entry-point"] = true
	}
	var lims []string
	info.pdata, info.pdataStarts, lims = peUnwind(img, data)
	img.limitations = append(img.limitations, lims...)
	if len(info.pdataStarts) > 0 {
		used["pdata"] = true
		used["call-targets"] = true // leaf functions called from .pdata code (pdata.go)
	}
	if len(info.pdataStarts) > 0 && img.arch == "arm64" {
		img.limitations = append(img.limitations, "ARM64 leaf functions have no .pdata entry: they are found from calls, jumps, code addresses and base relocations, and a leaf nothing references is not a procedure")
	}
	// mingw's i686 compiler unwinds with DWARF CFI: an .eh_frame section
	// describes every function it compiled.
	info.fdes, lims = elfEhFrame(img, data, 0)
	img.limitations = append(img.limitations, lims...)
	if len(info.fdes) > 0 {
		used["eh-frame"] = true
	}
	if info.ctors = peCtorLists(img, data); len(info.ctors) > 0 {
		used["init-array"] = true
	}
	switch {
	case peDescentArch(img):
		used["call-targets"] = true // descent where there is no .pdata (pecalls.go)
	case len(info.pdataStarts) == 0:
		img.limitations = append(img.limitations, fmt.Sprintf("call targets not followed: %s code is not decoded; procedure starts come from symbols, exports and the entry point only", peArchName(img.arch)))
	}
	if (img.arch == "x86_64" || img.arch == "x86" || img.arch == "arm64") && used["imports"] {
		used["stubs"] = true // IAT jump thunks (pdata.go, pecalls.go)
	}
	img.setDiscovery(used)
	img.finishLayout(raw)
	return img, nil
}

// peArchName names an architecture in a limitation.
func peArchName(arch string) string {
	switch arch {
	case "":
		return "this machine's"
	case "arm":
		return "ARM Thumb"
	}
	return arch
}

// rvaOff translates an RVA to a file offset, or ok=false when no section's
// file bytes hold it.
func (info *peInfo) rvaOff(rva uint64) (uint64, bool) {
	k := sort.Search(len(info.secByRVA), func(i int) bool { return uint64(info.secVA[info.secByRVA[i]]) > rva }) - 1
	for n := 0; k >= 0 && n < 8; k, n = k-1, n+1 {
		i := info.secByRVA[k]
		va := uint64(info.secVA[i])
		if rva >= va && rva-va < uint64(info.secRawSize[i]) {
			return uint64(info.secRaw[i]) + rva - va, true
		}
	}
	return 0, false
}

// maxPEEntries bounds export and import walks of a damaged file.
const maxPEEntries = 1 << 20

func peSymbols(img *image, b *symBuilder) error {
	info := img.pe
	data := b.data
	sectionKind := func(sn int) (uint64, bool, bool) { // address base, executable, ok
		if sn < 1 || sn > len(img.sections) {
			return 0, false, false
		}
		s := &img.sections[sn-1]
		return s.addr, s.x, true
	}

	// COFF symbol table (mingw and Go binaries keep one unless stripped).
	if info.nsyms > 0 && info.symOff > 0 {
		size := uint64(len(data))
		strTab := satAdd(info.symOff, info.nsyms*18)
		if info.symOff >= size || info.nsyms > size/18 || strTab > size {
			b.limit("the COFF symbol table lies outside the file; its symbols are missing")
		} else {
			strSize := uint64(0)
			if v, ok := readU(data, img.bo, strTab, 4); ok {
				strSize = v
			}
			bad := 0
			for i := uint64(0); i < info.nsyms; i++ {
				if err := b.tick(); err != nil {
					return err
				}
				e := info.symOff + i*18
				rec := data[e : e+18]
				value := uint64(binary.LittleEndian.Uint32(rec[8:]))
				sn := int(int16(binary.LittleEndian.Uint16(rec[12:])))
				typ := binary.LittleEndian.Uint16(rec[14:])
				class := rec[16]
				naux := uint64(rec[17])
				i += naux
				if naux > 0 && class == symClassStatic && typ>>4 != 2 /* IMAGE_SYM_DTYPE_FUNCTION */ {
					continue // a section definition; a function's aux record is its definition (size, line numbers)
				}
				if class != symClassExternal && class != symClassStatic && class != symClassLabel {
					continue
				}
				secAddr, exec, ok := sectionKind(sn)
				if !ok {
					continue
				}
				var nameOff uint64
				var nameLen uint32
				if binary.LittleEndian.Uint32(rec[0:]) == 0 {
					o := uint64(binary.LittleEndian.Uint32(rec[4:]))
					no, nl, ok := cstring(data, strTab, satAdd(strTab, strSize), o)
					if !ok || o < 4 {
						bad++
						continue
					}
					nameOff, nameLen = no, nl
				} else {
					n := bytes.IndexByte(rec[:8], 0)
					if n < 0 {
						n = 8
					}
					nameOff, nameLen = e, uint32(n)
				}
				if nameLen == 0 || data[nameOff] == '.' {
					continue
				}
				kind := kindObject
				if typ>>4 == 2 /* IMAGE_SYM_DTYPE_FUNCTION */ {
					kind = kindFunction
				} else if exec {
					kind = kindLabel
				}
				bd := bindGlobal
				if class != symClassExternal {
					bd = bindLocal
				}
				s := symbol{addr: secAddr + value, nameOff: nameOff, nameLen: nameLen, kind: kind, source: srcDefault, rank: makeRank(srcDefault, kind, bd)}
				if kind == kindFunction && exec {
					s.flags |= flagProcedure
				}
				b.add(s)
			}
			if bad > 0 {
				b.limit(fmt.Sprintf("COFF symbol table: %d symbol name(s) point outside the string table and were skipped", bad))
			}
		}
	}

	// Export directory.
	if rva, sz := info.exportDir[0], info.exportDir[1]; rva != 0 && sz != 0 {
		if err := peExports(img, b, uint64(rva), uint64(sz)); err != nil {
			return err
		}
	}
	// Import directory: each IAT slot is named after its import.
	if rva := info.importDir[0]; rva != 0 && info.importDir[1] != 0 {
		if err := peImports(img, b, uint64(rva)); err != nil {
			return err
		}
	}
	if err := addIATThunks(img, b); err != nil {
		return err
	}
	// Go functions and main before the .pdata procedures, which would name
	// them sub_<hex>.
	if err := addPclntabProcs(img, b); err != nil {
		return err
	}
	if _, err := addMainNames(img, b); err != nil {
		return err
	}
	ps := newPEProcSet(img, b) // after main, whose naming removes symbols
	if err := addPdataProcs(img, b, ps); err != nil {
		return err
	}
	for _, r := range info.fdes {
		if err := b.tick(); err != nil {
			return err
		}
		ps.add(r.start, r.end-r.start)
	}
	for _, a := range info.ctors {
		ps.add(a, 0)
	}
	if err := addPdataCallTargets(img, b, ps); err != nil {
		return err
	}
	return addPECallTargets(img, b, ps)
}

// peExportDir is an export directory's header with its tables located:
// file offsets of the export address table (nfuncs RVAs), and of the name
// pointer and ordinal tables (nnames entries each; nnames is 0 when they
// are not in the file).
type peExportDir struct {
	ordBase, nfuncs, nnames uint64
	funcs, names, ords      uint64
}

// decodePEExportDir reads the export directory at rva: the one decoder of
// its header, behind the symbol pass and export lookups (linker_pe.go).
// ok is false when the exports cannot be read at all; lim says why, or
// that the name tables are missing.
func decodePEExportDir(info *peInfo, data []byte, rva uint64) (d peExportDir, ok bool, lim string) {
	off, ok := info.rvaOff(rva)
	if !ok || off+40 > uint64(len(data)) {
		return d, false, "the export directory lies outside the file; exports are missing"
	}
	h := data[off : off+40]
	d.ordBase = uint64(binary.LittleEndian.Uint32(h[16:]))
	d.nfuncs = uint64(binary.LittleEndian.Uint32(h[20:]))
	d.nnames = uint64(binary.LittleEndian.Uint32(h[24:]))
	funcsRVA := uint64(binary.LittleEndian.Uint32(h[28:]))
	namesRVA := uint64(binary.LittleEndian.Uint32(h[32:]))
	ordsRVA := uint64(binary.LittleEndian.Uint32(h[36:]))
	if d.nfuncs > maxPEEntries || d.nnames > maxPEEntries {
		return d, false, "the export directory declares an implausible number of entries; exports are missing"
	}
	funcs, ok1 := info.rvaOff(funcsRVA)
	if !ok1 || funcs+d.nfuncs*4 > uint64(len(data)) {
		if d.nfuncs > 0 {
			lim = "the export address table lies outside the file; exports are missing"
		}
		return d, false, lim
	}
	d.funcs = funcs
	names, okN := info.rvaOff(namesRVA)
	ords, okO := info.rvaOff(ordsRVA)
	if d.nnames > 0 && (!okN || !okO || names+d.nnames*4 > uint64(len(data)) || ords+d.nnames*2 > uint64(len(data))) {
		d.nnames = 0
		lim = "the export name table lies outside the file; exports are listed by ordinal"
	}
	d.names, d.ords = names, ords
	return d, true, lim
}

// nameAt is the i-th name of the name pointer table (offset and length in
// data) and the export address table index it names.
func (d *peExportDir) nameAt(info *peInfo, data []byte, i uint64) (uint64, uint32, uint64, bool) {
	nrva := uint64(binary.LittleEndian.Uint32(data[d.names+i*4:]))
	idx := uint64(binary.LittleEndian.Uint16(data[d.ords+i*2:]))
	if idx >= d.nfuncs {
		return 0, 0, 0, false
	}
	no, ok := info.rvaOff(nrva)
	if !ok {
		return 0, 0, 0, false
	}
	o, n, ok := cstring(data, no, uint64(len(data)), 0)
	return o, n, idx, ok && n > 0
}

// peExportAddr is the address of an exported RVA and whether it is code
// (a Thumb function's interworking bit cleared).
func peExportAddr(img *image, frva uint64) (uint64, bool) {
	addr := img.pe.imageBase + frva
	exec := false
	for i := range img.sections {
		s := &img.sections[i]
		if addr >= s.addr && addr < s.end() {
			exec = s.x
			break
		}
	}
	if exec && img.arch == "arm" {
		addr &^= 1
	}
	return addr, exec
}

// funcAt is the RVA of export address table entry idx (0: unused).
func (d *peExportDir) funcAt(data []byte, idx uint64) uint64 {
	return uint64(binary.LittleEndian.Uint32(data[d.funcs+idx*4:]))
}

func peExports(img *image, b *symBuilder, rva, size uint64) error {
	info := img.pe
	data := b.data
	dir, ok, lim := decodePEExportDir(info, data, rva)
	if lim != "" {
		b.limit(lim)
	}
	if !ok {
		return nil
	}
	nfuncs, nnames, ordBase := dir.nfuncs, dir.nnames, dir.ordBase
	named := make([]bool, nfuncs)
	addExport := func(idx uint64, nameOff uint64, nameLen uint32, arena string) {
		frva := dir.funcAt(data, idx)
		if frva == 0 || (frva >= rva && frva < rva+size) {
			return // unused slot or forwarder
		}
		addr, exec := peExportAddr(img, frva)
		kind := kindObject
		if exec {
			kind = kindFunction
		}
		s := symbol{addr: addr, nameOff: nameOff, nameLen: nameLen, kind: kind, source: srcDefault,
			flags: flagDynamic, rank: makeRank(srcDefault, kind, bindGlobal)}
		if exec {
			s.flags |= flagProcedure
		}
		if arena != "" {
			b.addArena(s, arena)
		} else {
			b.add(s)
		}
	}
	for i := uint64(0); i < nnames; i++ {
		if err := b.tick(); err != nil {
			return err
		}
		o, n, ord, ok := dir.nameAt(info, data, i)
		if !ok {
			continue
		}
		named[ord] = true
		addExport(ord, o, n, "")
	}
	for i := uint64(0); i < nfuncs; i++ {
		if err := b.tick(); err != nil {
			return err
		}
		if !named[i] {
			addExport(i, 0, 0, "Ordinal_"+strconv.FormatUint(ordBase+i, 10))
		}
	}
	return nil
}

func peImports(img *image, b *symBuilder, rva uint64) error {
	info := img.pe
	data := b.data
	size := uint64(len(data))
	ptr := uint64(4)
	if img.is64 {
		ptr = 8
	}
	d, ok := info.rvaOff(rva)
	if !ok {
		b.limit("the import directory lies outside the file; imports are missing")
		return nil
	}
	total := 0
	for ; d+20 <= size; d += 20 {
		if err := b.tick(); err != nil {
			return err
		}
		ilt := uint64(binary.LittleEndian.Uint32(data[d:]))
		nameRVA := binary.LittleEndian.Uint32(data[d+12:])
		iat := uint64(binary.LittleEndian.Uint32(data[d+16:]))
		if ilt == 0 && nameRVA == 0 && iat == 0 {
			return nil
		}
		if ilt == 0 {
			ilt = iat
		}
		to, ok := info.rvaOff(ilt)
		if !ok {
			b.limit("an import lookup table lies outside the file; some imports are missing")
			continue
		}
		for i := uint64(0); ; i++ {
			if err := b.tick(); err != nil {
				return err
			}
			if total++; total > maxPEEntries {
				b.limit("the import directory declares an implausible number of entries; the rest are missing")
				return nil
			}
			v, ok := readU(data, img.bo, to+i*ptr, int(ptr))
			if !ok || v == 0 {
				break
			}
			slot := info.imageBase + iat + i*ptr
			s := symbol{addr: slot, kind: kindImport, source: srcImported,
				flags: flagDynamic | flagExternal, rank: makeRank(srcImported, kindImport, bindGlobal)}
			ordFlag := uint64(1) << 31
			if img.is64 {
				ordFlag = 1 << 63
			}
			if v&ordFlag != 0 {
				b.addArena(s, "Ordinal_"+strconv.FormatUint(v&0xffff, 10))
				continue
			}
			no, ok := info.rvaOff(v & 0x7fffffff)
			if !ok {
				continue
			}
			o, n, ok := cstring(data, no+2, size, 0)
			if !ok || n == 0 {
				continue
			}
			s.nameOff, s.nameLen = o, n
			b.add(s)
		}
	}
	b.limit("the import directory runs past the end of the file; some imports may be missing")
	return nil
}

// COFF storage classes.
const (
	symClassExternal = 2
	symClassStatic   = 3
	symClassLabel    = 6
)
