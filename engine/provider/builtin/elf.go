package builtin

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/target"
)

// elfInfo is what the symbol pass needs beyond the common image model.
type elfInfo struct {
	machine     elf.Machine
	tables      []symbolTable // symtab first, then dynsym
	dynsym      int           // index into tables of the dynamic symbol table, or -1
	relocs      []elfRelocs
	plts        []pltSection
	gotPLT      uint64
	hasGotPL    bool
	fdes        []codeRange       // .eh_frame FDE ranges in executable sections, by start
	inits       []uint64          // init/fini array code pointers (seeds.go)
	initNames   map[uint64]string // _init and _fini among inits (seeds.go)
	unread      []string          // discovery sources present but not read (arm)
	callTargets bool              // call-target descent runs (seeds.go)
	armMap      []armMapSym       // ARM mapping symbols ($a, $t, $d), for the decoding mode (thumbmode.go)
	entryThumb  bool              // ARM: e_entry has the Thumb bit
	initMode    map[uint64]bool   // ARM: the mode of inits whose pointer gives it (bit 0: Thumb) (seeds.go)
	exidx       []uint64          // ARM: the function starts of .ARM.exidx, sorted (seeds.go)
	// ARM: the mode the call-target descent inferred for a procedure that
	// nothing gives one (the procedure before it), decoded so (seeds.go)
	inferredMode map[uint64]bool
}

// pltSection is a PLT section and its entry size.
type pltSection struct {
	sec  int // index into image.sections
	step uint64
}

type elfRelocs struct {
	off, size uint64
	rela      bool
}

// openELF parses ELF headers. An error means debug/elf rejected the header.
func openELF(data []byte) (*image, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	img := &image{
		format: "elf", container: "elf", arch: target.ELFArch(f.Machine),
		bo: f.ByteOrder, is64: f.Class == elf.ELFCLASS64,
		sliceSize: uint64(len(data)), fileSize: uint64(len(data)),
	}
	if img.bo == nil {
		img.bo = binary.LittleEndian
	}
	info := &elfInfo{machine: f.Machine, dynsym: -1}
	img.elf = info
	used := map[string]bool{}
	size := uint64(len(data))

	for _, s := range f.Sections {
		sec := section{
			name: s.Name, addr: s.Addr, size: s.Size, off: s.Offset,
			r: true, w: s.Flags&elf.SHF_WRITE != 0, x: s.Flags&elf.SHF_EXECINSTR != 0,
			mapped: s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NULL,
		}
		if s.Type != elf.SHT_NOBITS {
			sec.fsize = s.Size
			if s.Offset > size || s.Size > size-s.Offset {
				if sec.mapped || s.Type == elf.SHT_SYMTAB || s.Type == elf.SHT_DYNSYM {
					img.limitations = append(img.limitations, fmt.Sprintf("section %s extends past the end of the file", quoteName(s.Name)))
				}
				sec.fsize = 0
				if s.Offset < size {
					sec.fsize = size - s.Offset
				}
			}
		}
		if s.Type == elf.SHT_NOBITS && s.Flags&elf.SHF_TLS != 0 {
			sec.mapped = false // .tbss occupies no address space of its own
		}
		img.sections = append(img.sections, sec)
	}

	for i, s := range f.Sections {
		switch s.Type {
		case elf.SHT_SYMTAB, elf.SHT_DYNSYM:
			if s.Size == 0 {
				continue
			}
			t := symbolTable{off: s.Offset, size: s.Size, entsize: 16, dynamic: s.Type == elf.SHT_DYNSYM, sectionIdx: i}
			if img.is64 {
				t.entsize = 24
			}
			if int(s.Link) < len(f.Sections) && s.Link != 0 {
				st := f.Sections[s.Link]
				if st.Type != elf.SHT_NOBITS {
					t.strOff, t.strSize = st.Offset, st.Size
				}
			}
			if t.dynamic {
				if info.dynsym >= 0 {
					continue // only one dynamic symbol table is meaningful
				}
				used["dynamic-symbols"] = true
			} else {
				used["symbols"] = true
			}
			info.tables = append(info.tables, t)
		}
	}
	// symtab before dynsym, so the richer local names win ties.
	for i := range info.tables {
		if !info.tables[i].dynamic {
			info.tables[0], info.tables[i] = info.tables[i], info.tables[0]
			break
		}
	}
	for i := range info.tables {
		if info.tables[i].dynamic {
			info.dynsym = i
		}
	}
	// The relocations of import slots link to the dynamic symbol table; a
	// static executable has none, and its IRELATIVE slots (.rela.iplt or
	// .rel.plt, for ifuncs) need no symbol.
	dynIdx := -1
	if info.dynsym >= 0 {
		dynIdx = info.tables[info.dynsym].sectionIdx
	}
	for _, s := range f.Sections {
		if dynIdx >= 0 && s.Type == elf.SHT_GNU_VERSYM && int(s.Link) == dynIdx {
			info.tables[info.dynsym].versymOff, info.tables[info.dynsym].versymSize = s.Offset, s.Size
		}
		if (s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL) && (dynIdx < 0 || int(s.Link) == dynIdx) && s.Flags&elf.SHF_ALLOC != 0 {
			info.relocs = append(info.relocs, elfRelocs{off: s.Offset, size: s.Size, rela: s.Type == elf.SHT_RELA})
		}
	}
	for i, s := range f.Sections {
		switch s.Name {
		case ".plt", ".plt.sec", ".plt.got", ".iplt":
			// .iplt: arm's linker script keeps the IRELATIVE (ifunc) stubs
			// in a section of their own (x86's merges them into .plt).
			if s.Type == elf.SHT_PROGBITS && s.Flags&elf.SHF_EXECINSTR != 0 {
				step := s.Entsize
				if step != 8 && step != 16 {
					step = 16
				}
				if f.Machine == elf.EM_AARCH64 || s.Name != ".plt.got" && step != 16 {
					step = 16
				}
				if dynIdx < 0 && (f.Machine == elf.EM_X86_64 || f.Machine == elf.EM_386) {
					step = 8 // a static executable's ifunc stubs: jmp *slot; 2 bytes of padding
				}
				if f.Machine == elf.EM_ARM {
					step = 4 // entries are 12 or 16 bytes, some after a 4-byte Thumb stub
				}
				info.plts = append(info.plts, pltSection{sec: i, step: step})
			}
		case ".got.plt":
			info.gotPLT, info.hasGotPL = s.Addr, true
		case ".got":
			if !info.hasGotPL {
				info.gotPLT = s.Addr
			}
		}
	}
	switch f.Machine {
	case elf.EM_X86_64, elf.EM_386, elf.EM_AARCH64, elf.EM_ARM:
		if len(info.plts) > 0 && len(info.relocs) > 0 {
			used["plt"] = true
		}
	}

	var raw []fileRange
	n := 0
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		img.segments = append(img.segments, segment{
			name:  fmt.Sprintf("LOAD[%d]", n),
			start: p.Vaddr, end: satAdd(p.Vaddr, p.Memsz),
			r: p.Flags&elf.PF_R != 0, w: p.Flags&elf.PF_W != 0, x: p.Flags&elf.PF_X != 0, xKnown: true,
		})
		n++
		if p.Filesz > 0 {
			fsz := min(p.Filesz, p.Memsz)
			if p.Memsz == 0 {
				fsz = 0
			}
			raw = append(raw, fileRange{off: p.Off, end: satAdd(p.Off, fsz), addr: p.Vaddr})
		}
	}
	if f.Type == elf.ET_REL {
		img.limitations = append(img.limitations, "relocatable object file: it has no load addresses, so symbol values are section offsets and no string has an address")
	}
	if f.Entry != 0 && f.Type != elf.ET_REL {
		img.entry, img.hasEntry = f.Entry, true
		if f.Machine == elf.EM_ARM {
			info.entryThumb = img.entry&1 != 0
			img.entry &^= 1
		}
		used["entry-point"] = true
	}
	if f.Type != elf.ET_REL {
		if f.Machine != elf.EM_ARM {
			var got uint64
			for _, s := range f.Sections {
				if s.Name == ".got" {
					got = s.Addr
				}
			}
			var lims []string
			info.fdes, lims = elfEhFrame(img, data, got)
			img.limitations = append(img.limitations, lims...)
			if len(info.fdes) > 0 {
				used["eh-frame"] = true
			}
		}
		info.inits = elfInitArrays(img, data)
		info.inits, info.initNames = elfInitFini(f, img, info.inits)
		if len(info.inits) > 0 {
			used["init-array"] = true
		}
		if f.Machine == elf.EM_ARM {
			info.exidx = armExidx(img, data)
			if len(info.exidx) > 0 {
				used["arm-exidx"] = true
			}
			if ptrs := armRelativePointers(img, data); len(ptrs) > 0 {
				info.inits = append(info.inits, ptrs...)
				slices.Sort(info.inits)
				info.inits = slices.Compact(info.inits)
				used["relative-relocs"] = true
			}
		}
		if seedDescentArch(img) && (len(info.inits) > 0 || img.hasEntry) {
			info.callTargets = true
			used["call-targets"] = true
			if f.Machine == elf.EM_ARM && !slices.ContainsFunc(info.tables, func(t symbolTable) bool { return !t.dynamic }) {
				used["code-gaps"] = true // stripped arm: the code the descent leaves (armgaps.go)
			}
		}
	}
	if f.Machine == elf.EM_ARM && f.Type != elf.ET_REL {
		// .ARM.exidx has its own limitations.go entry; .eh_frame (rare on
		// arm, which unwinds through .ARM.exidx) is stated here.
		for _, s := range f.Sections {
			if s.Name == ".eh_frame" && s.Size > 0 && !slices.Contains(info.unread, s.Name) {
				info.unread = append(info.unread, s.Name)
			}
		}
	}
	img.setDiscovery(used)
	img.finishLayout(raw)
	return img, nil
}

func quoteName(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", nameString([]byte(s)))
}

// elfSymbols adds the symbols of every ELF symbol table, then the PLT stubs of
// imported functions, then the entry point.
func elfSymbols(img *image, b *symBuilder) error {
	info := img.elf
	data := b.data
	size := uint64(len(data))
	for _, t := range info.tables {
		label := ".symtab"
		if t.dynamic {
			label = ".dynsym"
		}
		if t.off > size {
			b.limit(fmt.Sprintf("%s lies outside the file; its symbols are missing", label))
			continue
		}
		tsize := t.size
		if tsize > size-t.off {
			tsize = size - t.off
			b.limit(fmt.Sprintf("%s is truncated; symbols past the end of the file are missing", label))
		}
		if t.strSize == 0 || t.strOff > size {
			b.limit(fmt.Sprintf("%s has no usable string table; its symbols are missing", label))
			continue
		}
		count := tsize / t.entsize
		if err := b.reserve(count); err != nil {
			return err
		}
		badName := 0
		for i := uint64(1); i < count; i++ {
			if err := b.tick(); err != nil {
				return err
			}
			e := t.off + i*t.entsize
			var nameIdx uint32
			var info8 uint8
			var shndx uint16
			var value, sz uint64
			p := data[e : e+t.entsize]
			if img.is64 {
				nameIdx = img.bo.Uint32(p[0:])
				info8 = p[4]
				shndx = img.bo.Uint16(p[6:])
				value = img.bo.Uint64(p[8:])
				sz = img.bo.Uint64(p[16:])
			} else {
				nameIdx = img.bo.Uint32(p[0:])
				value = uint64(img.bo.Uint32(p[4:]))
				sz = uint64(img.bo.Uint32(p[8:]))
				info8 = p[12]
				shndx = img.bo.Uint16(p[14:])
			}
			if nameIdx == 0 {
				continue
			}
			typ := elf.SymType(info8 & 0xf)
			bind := elf.SymBind(info8 >> 4)
			if typ == elf.STT_FILE || typ == elf.STT_SECTION || typ == elf.STT_TLS {
				continue
			}
			off, n, ok := cstring(data, t.strOff, satAdd(t.strOff, t.strSize), uint64(nameIdx))
			if !ok {
				badName++
				continue
			}
			if n == 0 {
				continue
			}
			if shndx == uint16(elf.SHN_UNDEF) {
				continue // imports are named at their PLT stubs (elfPLT)
			}
			if shndx >= uint16(elf.SHN_LORESERVE) {
				continue // absolute and common symbols have no address in the image
			}
			if isMappingSymbol(info.machine, data[off:off+uint64(n)]) {
				info.addMapping(data[off+1], value)
				continue
			}
			var kind uint8
			switch typ {
			case elf.STT_FUNC, elf.STT_GNU_IFUNC:
				kind = kindFunction
			case elf.STT_OBJECT, elf.STT_COMMON:
				kind = kindObject
			default:
				kind = kindLabel
			}
			if value == 0 {
				continue
			}
			thumb := false
			if kind == kindFunction && info.machine == elf.EM_ARM {
				thumb = value&1 != 0
				value &^= 1
			}
			var bd uint8
			switch bind {
			case elf.STB_GLOBAL:
				bd = bindGlobal
			case elf.STB_WEAK:
				bd = bindWeak
			default:
				bd = bindLocal
			}
			if hiddenVersion(img, data, &t, i) {
				// A compatibility version (llseek@GLIBC_2.2.5) is no name
				// a program links against: ranked as a local name.
				bd = bindLocal
			}
			s := symbol{addr: value, size: sz, nameOff: off, nameLen: n, kind: kind, source: srcDefault, rank: makeRank(srcDefault, kind, bd)}
			if kind == kindFunction {
				s.flags |= flagProcedure
			}
			if thumb {
				s.flags |= flagThumb
			}
			if t.dynamic {
				s.flags |= flagDynamic
			}
			b.add(s)
		}
		if badName > 0 {
			b.limit(fmt.Sprintf("%s: %d symbol name(s) point outside the string table and were skipped", label, badName))
		}
	}
	info.sortMapping()
	if info.dynsym >= 0 || len(info.plts) > 0 {
		if err := elfPLT(img, b); err != nil {
			return err
		}
	}
	if len(info.unread) > 0 {
		b.limit(fmt.Sprintf("arm: %s not read for procedure starts",
			strings.Join(info.unread, ", ")))
	}
	return nil
}

// isMappingSymbol reports ARM/AArch64 mapping symbols ($a, $t, $d, $x and
// their dotted forms), which mark code/data transitions, not names.
func isMappingSymbol(m elf.Machine, name []byte) bool {
	if m != elf.EM_ARM && m != elf.EM_AARCH64 {
		return false
	}
	if len(name) < 2 || name[0] != '$' {
		return false
	}
	switch name[1] {
	case 'a', 't', 'd', 'x':
		return len(name) == 2 || name[2] == '.'
	}
	return false
}

// elfPLT makes every PLT stub (elfPLTStubs) a thunk procedure named as
// objdump names it, "<symbol>@plt" ("*ABS*+0x<resolver>@plt" for an
// IRELATIVE slot), whatever the symbol's binding: a library calls its own
// exported (interposable) functions through the PLT too. A stub of an
// import is external and also keeps the import's bare name, ranked below
// the @plt name, so the import is found by its name where the image reaches
// it; a stub of a symbol the image defines has that definition as its thunk
// target (symIndex.thunks). An import whose GOT slot no stub jumps through
// (GLOB_DAT: `call *puts@GOTPCREL(%rip)`, __libc_start_main in a PIE) is
// named at its slot, type import, as PE names its import slots.
func elfPLT(img *image, b *symBuilder) error {
	rels, err := elfDynRelocs(img, b.data, b.tick)
	if err != nil {
		return err
	}
	stubs, err := pltStubsOf(img, b.data, rels, b.tick)
	if err != nil {
		return err
	}
	viaStub := make(map[uint64]bool, len(stubs))
	for _, st := range stubs {
		viaStub[st.slot] = true
		flags := flagDynamic | flagProcedure | flagThunk
		if st.undefined {
			flags |= flagExternal
		}
		// A stub with a Thumb `bx pc` prefix (st.thumb) is still decoded in
		// ARM mode, as objdump decodes it: the prefix is one ARM word that
		// does not decode (.inst), and the rest of the stub reads right.
		b.addArena(symbol{addr: st.addr, size: st.size, kind: kindFunction, source: srcImported, flags: flags,
			rank: makeRank(srcImported, kindFunction, bindGlobal)}, st.name(b.data))
		if st.undefined {
			b.add(symbol{addr: st.addr, size: st.size, nameOff: st.nameOff, nameLen: st.nameLen,
				kind: kindFunction, source: srcImported, flags: flags,
				rank: makeRank(srcImported, kindFunction, bindLocal)})
		} else if st.hasTarget {
			if b.thunks == nil {
				b.thunks = map[uint64]uint64{}
			}
			b.thunks[st.addr] = st.target
		}
	}
	if len(stubs) == 0 && len(img.elf.plts) > 0 {
		slots := 0
		for _, r := range rels {
			if isJumpSlot(img.elf.machine, r.typ) {
				slots++
			}
		}
		if slots > 0 {
			b.limit(fmt.Sprintf("no PLT stub decoded (unrecognized PLT entry layout): %d import(s) through JUMP_SLOT relocations are not named at their stubs, and calls to them resolve to no procedure", slots))
		}
	}
	for _, r := range rels {
		if viaStub[r.off] || !isImportReloc(img.elf.machine, r.typ) {
			continue
		}
		off, n, _, undef, ok := elfDynSym(img, b.data, r.sym)
		if !ok || !undef {
			continue
		}
		viaStub[r.off] = true // one name per slot
		b.add(symbol{addr: r.off, nameOff: off, nameLen: n, kind: kindImport, source: srcImported,
			flags: flagDynamic | flagExternal, rank: makeRank(srcImported, kindImport, bindGlobal)})
	}
	return nil
}

// pltStub is one ELF PLT entry (.plt, .plt.sec, .plt.got) paired with the
// dynamic relocation of the GOT slot its indirect jump goes through.
type pltStub struct {
	addr, size uint64
	slot       uint64
	typ        uint32 // relocation type (JUMP_SLOT, GLOB_DAT, IRELATIVE)
	sym        uint32 // dynamic symbol index; 0 when the relocation has none
	nameOff    uint64 // the symbol's name in the file bytes
	nameLen    uint32
	undefined  bool  // an undefined global or weak symbol: an import
	addend     int64 // RELA addend (IRELATIVE: the resolver's address)
	// target is the code the stub reaches inside the image: the defined
	// symbol's value, or an IRELATIVE slot's resolver.
	target    uint64
	hasTarget bool
	thumb     bool // arm: the stub opens with a Thumb-to-ARM switch
}

// name is the stub's name as objdump writes it.
func (st *pltStub) name(data []byte) string {
	if st.nameLen == 0 {
		return "*ABS*+0x" + strconv.FormatUint(uint64(st.addend), 16) + "@plt"
	}
	return nameString(data[st.nameOff:st.nameOff+uint64(st.nameLen)]) + "@plt"
}

// dynReloc is one dynamic relocation of an import slot or an IRELATIVE.
type dynReloc struct {
	off      uint64
	sym, typ uint32
	addend   int64
}

// eachDynReloc decodes every entry of the dynamic relocation tables in
// file order (REL entries carry addend 0; rela says which form the entry
// had) until fn returns false or an error. It is the one decoder of those
// tables: the PLT, the GOT-only imports, main's GOT loads and arm's code
// pointers all read them through it.
func eachDynReloc(img *image, data []byte, fn func(dr dynReloc, rela bool) (bool, error)) error {
	size := uint64(len(data))
	for _, r := range img.elf.relocs {
		if r.off > size {
			continue
		}
		end := min(satAdd(r.off, r.size), size)
		var ent uint64
		switch {
		case img.is64 && r.rela:
			ent = 24
		case img.is64:
			ent = 16
		case r.rela:
			ent = 12
		default:
			ent = 8
		}
		for e := r.off; e+ent <= end; e += ent {
			var dr dynReloc
			if img.is64 {
				dr.off = img.bo.Uint64(data[e:])
				rinfo := img.bo.Uint64(data[e+8:])
				dr.sym, dr.typ = uint32(rinfo>>32), uint32(rinfo)
				if r.rela {
					dr.addend = int64(img.bo.Uint64(data[e+16:]))
				}
			} else {
				dr.off = uint64(img.bo.Uint32(data[e:]))
				rinfo := img.bo.Uint32(data[e+4:])
				dr.sym, dr.typ = rinfo>>8, rinfo&0xff
				if r.rela {
					dr.addend = int64(int32(img.bo.Uint32(data[e+8:])))
				}
			}
			if more, err := fn(dr, r.rela); err != nil || !more {
				return err
			}
		}
	}
	return nil
}

// elfDynRelocs returns the dynamic relocations of import types (JUMP_SLOT,
// GLOB_DAT) and IRELATIVE, in file order.
func elfDynRelocs(img *image, data []byte, tick func() error) ([]dynReloc, error) {
	machine := img.elf.machine
	var out []dynReloc
	err := eachDynReloc(img, data, func(dr dynReloc, rela bool) (bool, error) {
		if err := tick(); err != nil {
			return false, err
		}
		switch relocKind(machine, dr.typ) {
		case relocIRelative:
			if !rela {
				// REL (i386): the resolver's address is the slot's content.
				v, ok := elfWordAt(img, data, dr.off)
				if !ok {
					return true, nil
				}
				dr.addend = int64(v)
			}
			out = append(out, dr)
		case relocGlobDat, relocJumpSlot:
			out = append(out, dr)
		}
		return true, nil
	})
	return out, err
}

// elfWordAt reads the address-sized word at address a from the file bytes.
func elfWordAt(img *image, data []byte, a uint64) (uint64, bool) {
	n := 4
	if img.is64 {
		n = 8
	}
	for i := range img.sections {
		s := &img.sections[i]
		if s.mapped && a >= s.addr && a-s.addr < s.fsize {
			return readU(data, img.bo, s.off+(a-s.addr), n)
		}
	}
	return 0, false
}

// elfDynSym reads dynamic symbol i: its name, value, and whether it is an
// undefined global or weak symbol (not a file, section or TLS symbol).
func elfDynSym(img *image, data []byte, i uint32) (nameOff uint64, nameLen uint32, value uint64, undefined, ok bool) {
	info := img.elf
	if info.dynsym < 0 || i == 0 {
		return 0, 0, 0, false, false
	}
	t := info.tables[info.dynsym]
	size := uint64(len(data))
	e := satAdd(t.off, uint64(i)*t.entsize)
	if uint64(i) >= t.size/t.entsize || e > size || t.entsize > size-e || t.strSize == 0 || t.strOff > size {
		return 0, 0, 0, false, false
	}
	p := data[e : e+t.entsize]
	var nameIdx uint32
	var info8 uint8
	var shndx uint16
	if img.is64 {
		nameIdx, info8, shndx, value = img.bo.Uint32(p[0:]), p[4], img.bo.Uint16(p[6:]), img.bo.Uint64(p[8:])
	} else {
		nameIdx, info8, shndx, value = img.bo.Uint32(p[0:]), p[12], img.bo.Uint16(p[14:]), uint64(img.bo.Uint32(p[4:]))
	}
	if nameIdx == 0 {
		return 0, 0, 0, false, false
	}
	off, n, ok := cstring(data, t.strOff, satAdd(t.strOff, t.strSize), uint64(nameIdx))
	if !ok || n == 0 {
		return 0, 0, 0, false, false
	}
	typ, bind := elf.SymType(info8&0xf), elf.SymBind(info8>>4)
	if typ == elf.STT_FILE || typ == elf.STT_SECTION || typ == elf.STT_TLS {
		return 0, 0, 0, false, false
	}
	undefined = shndx == uint16(elf.SHN_UNDEF) && (bind == elf.STB_GLOBAL || bind == elf.STB_WEAK)
	if info.machine == elf.EM_ARM {
		value &^= 1 // the Thumb bit
	}
	return off, n, value, undefined, true
}

// elfPLTStubs decodes the indirect jump of every PLT entry and pairs the
// entry with the dynamic relocation of its GOT slot: JUMP_SLOT for .plt and
// .plt.sec, GLOB_DAT for .plt.got, IRELATIVE (no symbol) for ifunc stubs.
// Entries whose slot no relocation names (the PLT header, lazy-binding
// trampolines) are left out. Sorted by address.
func elfPLTStubs(img *image, data []byte, tick func() error) ([]pltStub, error) {
	if img.elf == nil || len(img.elf.plts) == 0 {
		return nil, nil
	}
	rels, err := elfDynRelocs(img, data, tick)
	if err != nil {
		return nil, err
	}
	return pltStubsOf(img, data, rels, tick)
}

// pltStubsOf is elfPLTStubs with the dynamic relocations already read.
func pltStubsOf(img *image, data []byte, rels []dynReloc, tick func() error) ([]pltStub, error) {
	info := img.elf
	if info == nil || len(info.plts) == 0 {
		return nil, nil
	}
	slots := make(map[uint64]dynReloc, len(rels)) // GOT slot address -> relocation
	for _, r := range rels {
		slots[r.off] = r
	}
	if len(slots) == 0 {
		return nil, nil
	}
	size := uint64(len(data))
	var out []pltStub
	for _, ps := range info.plts {
		s := &img.sections[ps.sec]
		if s.off > size || s.fsize == 0 {
			continue
		}
		code := data[s.off:min(satAdd(s.off, s.fsize), size)]
		step := ps.step
		for o := uint64(0); o+step <= uint64(len(code)); o += step {
			if err := tick(); err != nil {
				return nil, err
			}
			win := code[o:min(o+max(step, 16), uint64(len(code)))]
			slot, ok := pltSlot(info.machine, win, s.addr+o, info.gotPLT, img.bo)
			if !ok {
				continue
			}
			r, ok := slots[slot]
			if !ok {
				continue
			}
			st := pltStub{addr: s.addr + o, size: step, slot: slot, typ: r.typ, sym: r.sym, addend: r.addend}
			if info.machine == elf.EM_ARM {
				st.size = armPLTEntryLen(win, img.bo)
				// A stub Thumb code calls opens with `bx pc; nop` (or
				// `bx pc; b .-2`), switching to the ARM entry after it.
				if o >= 4 {
					h0, h1 := img.bo.Uint16(code[o-4:]), img.bo.Uint16(code[o-2:])
					if h0 == 0x4778 && (h1 == 0x46c0 || h1 == 0xe7fd) {
						st.addr, st.size, st.thumb = st.addr-4, st.size+4, true
					}
				}
			}
			if r.sym != 0 {
				off, n, v, undef, ok := elfDynSym(img, data, r.sym)
				if !ok {
					continue
				}
				st.nameOff, st.nameLen, st.undefined = off, n, undef
				st.target, st.hasTarget = v, !undef && v != 0 && img.execAt(v)
			} else if !isIRelative(info.machine, r.typ) {
				continue
			} else {
				st.target = uint64(r.addend)
				if info.machine == elf.EM_ARM {
					st.target &^= 1 // the resolver's Thumb bit
				}
				st.hasTarget = img.execAt(st.target)
			}
			out = append(out, st)
		}
	}
	slices.SortStableFunc(out, func(a, b pltStub) int { return cmp.Compare(a.addr, b.addr) })
	return out, nil
}

func isIRelative(m elf.Machine, typ uint32) bool { return relocKind(m, typ) == relocIRelative }

// hiddenVersion reports whether dynamic symbol i has a hidden version in
// .gnu.version.
func hiddenVersion(img *image, data []byte, t *symbolTable, i uint64) bool {
	if t.versymSize == 0 || i >= t.versymSize/2 || t.versymOff > uint64(len(data)) || 2*i+2 > uint64(len(data))-t.versymOff {
		return false
	}
	return img.bo.Uint16(data[t.versymOff+2*i:])&0x8000 != 0
}

func isJumpSlot(m elf.Machine, typ uint32) bool { return relocKind(m, typ) == relocJumpSlot }

func isImportReloc(m elf.Machine, typ uint32) bool {
	k := relocKind(m, typ)
	return k == relocJumpSlot || k == relocGlobDat
}

// armPLTEntryLen is the length of the ARM PLT entry pltSlot matched in e:
// binutils' long form (four instructions) or its short form (three).
func armPLTEntryLen(e []byte, bo binary.ByteOrder) uint64 {
	if len(e) >= 16 && bo.Uint32(e[0:])&0xfffffff0 == 0xe28fc200 {
		return 16
	}
	return 12
}

// pltSlot decodes the indirect jump of one PLT entry and returns the address
// of the GOT slot it jumps through.
func pltSlot(m elf.Machine, e []byte, addr, gotBase uint64, bo binary.ByteOrder) (uint64, bool) {
	switch m {
	case elf.EM_X86_64:
		// jmp *rel32(%rip), optionally after endbr64 and/or a bnd prefix.
		for _, at := range []int{0, 1, 4, 5} {
			if at+6 > len(e) || e[at] != 0xff || e[at+1] != 0x25 {
				continue
			}
			switch at {
			case 1, 5:
				if e[at-1] != 0xf2 {
					continue
				}
			}
			if at >= 4 && !bytes.Equal(e[0:4], []byte{0xf3, 0x0f, 0x1e, 0xfa}) {
				continue
			}
			rel := int32(binary.LittleEndian.Uint32(e[at+2:]))
			return uint64(int64(addr) + int64(at+6) + int64(rel)), true
		}
	case elf.EM_386:
		for _, at := range []int{0, 4} {
			if at+6 > len(e) || e[at] != 0xff {
				continue
			}
			if at == 4 && !bytes.Equal(e[0:4], []byte{0xf3, 0x0f, 0x1e, 0xfb}) {
				continue
			}
			v := uint64(binary.LittleEndian.Uint32(e[at+2:]))
			switch e[at+1] {
			case 0x25: // jmp *abs32
				return v, true
			case 0xa3: // jmp *disp32(%ebx), %ebx = GOT base
				return uint64(uint32(gotBase + v)), true
			}
		}
	case elf.EM_ARM:
		// add ip, pc, #a; add ip, ip, #b; ldr pc, [ip, #c]! (binutils' short
		// entry), or the long form with one more add; pc reads as addr+8.
		if len(e) < 12 {
			return 0, false
		}
		w0, w1, w2 := bo.Uint32(e[0:]), bo.Uint32(e[4:]), bo.Uint32(e[8:])
		if w0&0xffffff00 == 0xe28fc600 && w1&0xffffff00 == 0xe28cca00 && w2&0xfffff000 == 0xe5bcf000 {
			disp := (w0&0xff)<<20 | (w1&0xff)<<12 | w2&0xfff
			return uint64(uint32(addr) + 8 + disp), true
		}
		if len(e) >= 16 {
			w3 := bo.Uint32(e[12:])
			if w0&0xfffffff0 == 0xe28fc200 && w1&0xffffff00 == 0xe28cc600 && w2&0xffffff00 == 0xe28cca00 && w3&0xfffff000 == 0xe5bcf000 {
				disp := (w0&0xf)<<28 | (w1&0xff)<<20 | (w2&0xff)<<12 | w3&0xfff
				return uint64(uint32(addr) + 8 + disp), true
			}
		}
	case elf.EM_AARCH64:
		// adrp x16, page; ldr x17, [x16, #off]; add x16, x16, #off; br x17
		if len(e) < 8 {
			return 0, false
		}
		i0 := bo.Uint32(e[0:])
		i1 := bo.Uint32(e[4:])
		if i0&0x9f00001f != 0x90000010 || i1&0xffc003ff != 0xf9400211 {
			return 0, false
		}
		immlo := uint64(i0>>29) & 3
		immhi := uint64(i0>>5) & 0x7ffff
		imm := int64((immhi<<2|immlo)<<43) >> 43 // sign-extend 21 bits
		page := uint64(int64(addr&^0xfff) + imm<<12)
		off := uint64((i1>>10)&0xfff) * 8
		return page + off, true
	}
	return 0, false
}
