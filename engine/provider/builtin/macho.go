package builtin

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rea-re/rea/engine/target"
)

type machoInfo struct {
	cpu       macho.Cpu
	symtab    symbolTable
	hasSymtab bool
	indirect  []uint32
	stubs     []machoStubs
	ptrs      []machoStubs // lazy and non-lazy symbol pointer sections (width: the pointer size), for the linker
	secIndex  []int        // nlist n_sect (1-based) -> index into image.sections
	// funcStarts are the LC_FUNCTION_STARTS addresses in executable
	// sections, ascending (funcstarts.go).
	funcStarts []uint64
	lcMain     bool // the entry point is LC_MAIN's, that is main (mainentry.go)
}

type machoStubs struct {
	addr, size   uint64
	first, width uint32 // reserved1: first indirect symbol; reserved2: stub size
}

// Mach-O constants not exported by debug/macho.
const (
	lcMain                   = 0x80000028
	lcUnixThread             = 0x5
	sectionTypeMask          = 0xff
	sZerofill                = 0x1
	sGBZerofill              = 0xc
	sThreadLocalZerofill     = 0x12
	sSymbolStubs             = 0x8
	sNonLazySymbolPointers   = 0x6
	sLazySymbolPointers      = 0x7
	sLazyDylibSymbolPointers = 0x10
	sAttrPureInstr           = 0x80000000
	sAttrSomeInstr           = 0x400
	nStab                    = 0xe0
	nTypeMask                = 0x0e
	nSect                    = 0x0e
	nUndf                    = 0x00
	nExt                     = 0x01
	nPExt                    = 0x10
)

// chooseSlice locates the slice REA analyzes (target.UniversalSlice).
func chooseSlice(data []byte) (off, size uint64, err error) {
	ff, err := macho.NewFatFile(bytes.NewReader(data))
	if err != nil {
		return 0, 0, err
	}
	if len(ff.Arches) == 0 || len(ff.Arches) >= target.MaxFatArch {
		return 0, 0, errors.New("universal file with an implausible number of slices")
	}
	a := target.UniversalSlice(ff)
	if uint64(a.Offset)+uint64(a.Size) > uint64(len(data)) {
		return 0, 0, errors.New("universal slice extends past the end of the file")
	}
	return uint64(a.Offset), uint64(a.Size), nil
}

func openUniversal(data []byte) (*image, error) {
	off, size, err := chooseSlice(data)
	if err != nil {
		return nil, err
	}
	img, err := openMachO(data[off : off+size])
	if err != nil {
		return nil, err
	}
	img.container = "mach-o-universal"
	img.sliceOff, img.sliceSize, img.fileSize = off, size, uint64(len(data))
	return img, nil
}

// openMachO parses Mach-O headers. An error means debug/macho rejected them.
func openMachO(data []byte) (*image, error) {
	f, err := macho.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	img := &image{
		format: "mach-o", container: "mach-o", arch: target.MachOArch(f.Cpu), bo: f.ByteOrder,
		is64:      f.Magic == macho.Magic64,
		sliceSize: uint64(len(data)), fileSize: uint64(len(data)),
	}
	info := &machoInfo{cpu: f.Cpu}
	img.macho = info
	used := map[string]bool{}
	var raw []fileRange
	var textAddr uint64
	hasText := false
	var starts []byte // the LC_FUNCTION_STARTS command
	for _, l := range f.Loads {
		lb := l.Raw()
		if len(lb) < 8 {
			continue
		}
		cmd := img.bo.Uint32(lb)
		switch s := l.(type) {
		case *macho.Segment:
			if s.Name == "__TEXT" && !hasText {
				textAddr, hasText = s.Addr, true
			}
			live := s.Memsz > 0 && s.Prot != 0
			if live {
				img.segments = append(img.segments, segment{
					name: s.Name, start: s.Addr, end: satAdd(s.Addr, s.Memsz),
					r: s.Prot&1 != 0, w: s.Prot&2 != 0, x: s.Prot&4 != 0, xKnown: true,
				})
				if s.Filesz > 0 {
					raw = append(raw, fileRange{off: s.Offset, end: satAdd(s.Offset, min(s.Filesz, s.Memsz)), addr: s.Addr})
				}
			}
			machoSections(img, lb, s, live)
		default:
			switch cmd {
			case lcMain:
				if v, ok := readU(lb, img.bo, 8, 8); ok && hasText {
					img.entry, img.hasEntry, info.lcMain = textAddr+v, true, true
				} else if ok {
					img.entry, img.hasEntry, info.lcMain = v, true, true
				}
			case lcUnixThread:
				if pc, ok := threadPC(lb, img.bo, f.Cpu); ok && !img.hasEntry {
					img.entry, img.hasEntry = pc, true
				}
			case lcFunctionStarts:
				if starts == nil {
					starts = lb
				}
			}
		}
	}
	if img.hasEntry {
		used["entry-point"] = true
	}
	if starts != nil && hasText {
		var lims []string
		info.funcStarts, lims = machoFunctionStarts(img, data, starts, textAddr)
		img.limitations = append(img.limitations, lims...)
		if len(info.funcStarts) > 0 {
			used["function-starts"] = true
		}
	}
	// debug/macho does not fill Symtab.SymtabCmd: read the command itself.
	if f.Symtab != nil && len(f.Symtab.LoadBytes) >= 24 {
		lb := []byte(f.Symtab.LoadBytes)
		ent := uint64(12)
		if img.is64 {
			ent = 16
		}
		nsyms := uint64(img.bo.Uint32(lb[12:]))
		info.symtab = symbolTable{
			off: uint64(img.bo.Uint32(lb[8:])), size: nsyms * ent, entsize: ent,
			strOff: uint64(img.bo.Uint32(lb[16:])), strSize: uint64(img.bo.Uint32(lb[20:])),
		}
		if nsyms > 0 {
			info.hasSymtab = true
			used["symbols"] = true
		}
	}
	if f.Dysymtab != nil {
		info.indirect = f.Dysymtab.IndirectSyms
	}
	if len(info.stubs) > 0 && len(info.indirect) > 0 && info.hasSymtab {
		used["stubs"] = true
	}
	img.setDiscovery(used)
	img.finishLayout(raw)
	return img, nil
}

// machoSections reads the section headers of one segment command; debug/macho
// does not expose reserved1/reserved2, which locate symbol stubs.
func machoSections(img *image, lb []byte, seg *macho.Segment, live bool) {
	hdr, ent := uint64(56), uint64(68)
	if img.is64 {
		hdr, ent = 72, 80
	}
	info := img.macho
	for i := uint64(0); i < uint64(seg.Nsect); i++ {
		o := hdr + i*ent
		if o+ent > uint64(len(lb)) {
			img.limitations = append(img.limitations, fmt.Sprintf("segment %s: section headers are truncated", quoteName(seg.Name)))
			return
		}
		p := lb[o : o+ent]
		name := cName(p[0:16])
		// Each section header names its own segment: an object file
		// (MH_OBJECT) has one unnamed segment holding them all.
		segName := cName(p[16:32])
		if segName == "" {
			segName = seg.Name
		}
		var addr, size uint64
		var off, flags, r1, r2 uint32
		if img.is64 {
			addr, size = img.bo.Uint64(p[32:]), img.bo.Uint64(p[40:])
			off, flags = img.bo.Uint32(p[48:]), img.bo.Uint32(p[64:])
			r1, r2 = img.bo.Uint32(p[68:]), img.bo.Uint32(p[72:])
		} else {
			addr, size = uint64(img.bo.Uint32(p[32:])), uint64(img.bo.Uint32(p[36:]))
			off, flags = img.bo.Uint32(p[40:]), img.bo.Uint32(p[56:])
			r1, r2 = img.bo.Uint32(p[60:]), img.bo.Uint32(p[64:])
		}
		typ := flags & sectionTypeMask
		zero := typ == sZerofill || typ == sGBZerofill || typ == sThreadLocalZerofill
		sec := section{
			name: segName + "," + name, addr: addr, size: size, off: uint64(off),
			r: seg.Prot&1 != 0, w: seg.Prot&2 != 0,
			x:      seg.Prot&4 != 0 && flags&(sAttrPureInstr|sAttrSomeInstr) != 0,
			mapped: live,
		}
		if !zero {
			sec.fsize = size
		}
		info.secIndex = append(info.secIndex, len(img.sections))
		img.sections = append(img.sections, sec)
		if typ == sSymbolStubs && r2 > 0 && live {
			info.stubs = append(info.stubs, machoStubs{addr: addr, size: size, first: r1, width: r2})
		}
		switch typ {
		case sNonLazySymbolPointers, sLazySymbolPointers, sLazyDylibSymbolPointers:
			if live {
				w := uint32(4)
				if img.is64 {
					w = 8
				}
				info.ptrs = append(info.ptrs, machoStubs{addr: addr, size: size, first: r1, width: w})
			}
		}
	}
}

func cName(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return nameString(b)
}

// threadPC extracts the initial program counter of LC_UNIXTHREAD.
func threadPC(lb []byte, bo binary.ByteOrder, cpu macho.Cpu) (uint64, bool) {
	switch cpu {
	case macho.CpuAmd64: // x86_THREAD_STATE64: rip is register 16
		return readU(lb, bo, 16+16*8, 8)
	case macho.CpuArm64: // ARM_THREAD_STATE64: x0..x28, fp, lr, sp, pc
		return readU(lb, bo, 16+32*8, 8)
	case macho.Cpu386: // i386_THREAD_STATE: eip is register 10
		return readU(lb, bo, 16+10*4, 4)
	case macho.CpuArm: // ARM_THREAD_STATE: r0..r12, sp, lr, pc
		return readU(lb, bo, 16+15*4, 4)
	}
	return 0, false
}

// machoSymbols adds the nlist symbols, the symbol stubs and the
// LC_FUNCTION_STARTS procedures.
func machoSymbols(img *image, b *symBuilder) error {
	if err := machoNlist(img, b); err != nil {
		return err
	}
	if err := addPclntabProcs(img, b); err != nil { // before the starts, which would name them sub_<hex>
		return err
	}
	return addFunctionStarts(img, b)
}

func machoNlist(img *image, b *symBuilder) error {
	info := img.macho
	if !info.hasSymtab {
		return nil
	}
	data := b.data
	size := uint64(len(data))
	t := info.symtab
	if t.off > size {
		b.limit("the symbol table lies outside the file; its symbols are missing")
		return nil
	}
	tsize := t.size
	if tsize > size-t.off {
		tsize = (size - t.off) / t.entsize * t.entsize
		b.limit("the symbol table is truncated; symbols past the end of the file are missing")
	}
	count := tsize / t.entsize
	strEnd := satAdd(t.strOff, t.strSize)
	bad := 0
	// undefined symbols by table index, for stub naming
	undef := map[uint32]symbol{}
	for i := uint64(0); i < count; i++ {
		if err := b.tick(); err != nil {
			return err
		}
		p := data[t.off+i*t.entsize:]
		strx := uint64(img.bo.Uint32(p))
		typ, sect, desc := p[4], p[5], img.bo.Uint16(p[6:])
		var value uint64
		if img.is64 {
			value = img.bo.Uint64(p[8:])
		} else {
			value = uint64(img.bo.Uint32(p[8:]))
		}
		if typ&nStab != 0 || strx == 0 {
			continue
		}
		off, n, ok := cstring(data, t.strOff, strEnd, strx)
		if !ok {
			bad++
			continue
		}
		if n == 0 {
			continue
		}
		switch typ & nTypeMask {
		case nUndf:
			if typ&nExt != 0 && value == 0 {
				undef[uint32(i)] = symbol{nameOff: off, nameLen: n}
			}
			continue
		case nSect:
		default:
			continue
		}
		if sect == 0 || int(sect) > len(info.secIndex) {
			continue
		}
		sec := &img.sections[info.secIndex[sect-1]]
		if !sec.mapped {
			continue
		}
		kind := kindObject
		if sec.x {
			if info.cpu == macho.CpuArm {
				value &^= 1
			}
			kind = kindFunction
			if value < sec.addr || value >= sec.end() {
				kind = kindLabel // e.g. __mh_execute_header: names the header, not code
			}
		}
		bd := bindLocal
		if typ&nExt != 0 {
			bd = bindGlobal
			if desc&0x80 != 0 { // N_WEAK_DEF
				bd = bindWeak
			}
		}
		s := symbol{addr: value, nameOff: off, nameLen: n, kind: kind, source: srcDefault, rank: makeRank(srcDefault, kind, bd)}
		if typ&nExt != 0 && typ&nPExt == 0 {
			s.flags |= flagDynamic
		}
		if kind == kindFunction {
			s.flags |= flagProcedure
		}
		b.add(s)
	}
	if bad > 0 {
		b.limit(fmt.Sprintf("symbol table: %d symbol name(s) point outside the string table and were skipped", bad))
	}
	// Symbol stubs: stub i of a stubs section jumps to indirect symbol first+i.
	for _, st := range info.stubs {
		n := st.size / uint64(st.width)
		for i := uint64(0); i < n; i++ {
			if err := b.tick(); err != nil {
				return err
			}
			k := uint64(st.first) + i
			if k >= uint64(len(info.indirect)) {
				break
			}
			u, ok := undef[info.indirect[k]]
			if !ok {
				continue
			}
			b.add(symbol{
				addr: st.addr + i*uint64(st.width), size: uint64(st.width), nameOff: u.nameOff, nameLen: u.nameLen,
				kind: kindFunction, source: srcImported,
				flags: flagDynamic | flagExternal | flagProcedure | flagThunk,
				rank:  makeRank(srcImported, kindFunction, bindGlobal),
			})
		}
	}
	return nil
}
