package builtin

import (
	"bytes"
	"debug/elf"
	"slices"
)

// Naming main where no symbol does (a stripped executable). The start code
// hands main to the C library, so main is read from it, never guessed:
//
//   - ELF (x86_64, x86, arm64, arm): the first argument _start (at e_entry)
//     passes to __libc_start_main. The few instructions of the start file
//     are emulated, tracking only register values: immediates, PC-relative
//     addresses, the i386 PC thunk, and loads through the GOT, whose slot
//     value is a RELATIVE relocation's addend (RELA) or stored value (REL),
//     the defined symbol a GLOB_DAT/ABS relocation names, else the file's
//     bytes. The call must go to __libc_start_main when its target is named
//     (a PLT stub, a GOT slot's relocation); a static binary's unnamed
//     target is accepted. Debian's armhf crt1 is Thumb code, emulated here
//     (mainarm.go), as is an ARM-mode one. glibc's
//     __wrap_main (one hint or endbr, then a direct branch to main; the
//     arm64 non-PIE and the static-pie crt1 pass it) is followed when it
//     lies in the start file, right after _start's call: a user's main
//     that is one tail jump is never followed.
//   - Mach-O: LC_MAIN's entry point is main by definition.
//   - Go (any format): main.main from the pclntab (pclntab.go): ELF
//     .gopclntab, Mach-O __gopclntab, PE by the table's magic in a data
//     section. A Go binary's start code is the runtime's, so nothing else.
//   - PE x86_64 (mingw-w64 and MSVC CRTs): main is the function whose
//     return value the CRT passes to exit. The entry function and the
//     functions it calls or jumps to directly are decoded; for each direct
//     call, the path after it is followed (both ways at a conditional
//     branch, through calls, which clobber the volatile registers) to a call
//     of the exit import with the value in ecx. Exactly one such call must
//     exist.
//
// The name has source "analysis"; a real symbol of the same name anywhere
// wins and nothing is added. When main is expected (an ELF that imports
// __libc_start_main, or a static executable: ET_EXEC or DF_1_PIE, importing
// nothing; a Mach-O or PE executable) and not found,
// the symbol index carries the limitation "main not located: <why>", so
// every operation that reads names says so.

// maxStartInsns bounds the instructions decoded from one start function.
const maxStartInsns = 64

type mainLocator struct {
	img  *image
	data []byte
	b    *symBuilder
}

// mainFound is a finder's answer: addr (thumb: ARM Thumb code), or why main
// was not located ("" when no main is expected, e.g. a shared library).
type mainFound struct {
	addr  uint64
	thumb bool
	ok    bool
	why   string
}

func notFound(why string) mainFound { return mainFound{why: why} }

const startNotRecognized = "_start pattern not recognized"

// addMainDiscovery locates the Go function table (whose functions are
// procedures too, pclntab.go) and adds to the profile's function_discovery
// the source main is named from: "pclntab" for a Go binary, else
// "start-code" where a reader of the start code applies (see above).
func addMainDiscovery(img *image, data []byte) {
	var lims []string
	img.pcln, lims = findPclntab(img, data)
	img.limitations = append(img.limitations, lims...)
	var src string
	switch {
	case img.pcln != nil:
		src = "pclntab"
	case !img.hasEntry:
	case img.elf != nil:
		switch img.elf.machine {
		case elf.EM_X86_64, elf.EM_386, elf.EM_AARCH64, elf.EM_ARM:
			src = "start-code"
		}
	case img.macho != nil:
		if img.macho.lcMain {
			src = "start-code"
		}
	case img.pe != nil:
		if !img.pe.dll && img.arch == "x86_64" {
			src = "start-code"
		}
	}
	// x86, x86_64 and arm64 ELF without symbols or unwind tables search
	// data and gaps after the descent (elfgaps.go), now that the Go
	// function table, which turns that search off, is known.
	gaps := img.elf != nil && img.elf.callTargets &&
		elfGapsOn(img, slices.ContainsFunc(img.elf.tables, func(t symbolTable) bool { return !t.dynamic }))
	if src == "" && !gaps {
		return
	}
	used := map[string]bool{}
	if src != "" {
		used[src] = true
	}
	if gaps {
		used["code-gaps"] = true
	}
	for _, s := range img.discovery {
		used[s] = true
	}
	img.setDiscovery(used)
}

// addMainNames names main (or main.main) and returns the addresses named.
func addMainNames(img *image, b *symBuilder) ([]uint64, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	m := &mainLocator{img: img, data: b.data, b: b}
	name := "main"
	var r mainFound
	if t, ok := m.goTable(); ok {
		name = "main.main"
		if m.hasSymbol("main.main") || m.hasSymbol("_main.main") {
			return nil, nil
		}
		a, ok := t.lookup("main.main")
		switch {
		case !ok:
			return nil, nil // a Go library: no main.main
		case !img.execAt(a):
			r = notFound("the Go function table's main.main lies outside executable code")
		default:
			r = mainFound{addr: a, ok: true}
		}
	} else {
		if m.hasSymbol("main") || img.macho != nil && m.hasSymbol("_main") {
			return nil, nil
		}
		switch {
		case img.elf != nil:
			r = m.elfMain()
		case img.macho != nil:
			r = m.machoMain()
		case img.pe != nil:
			r = m.peMain()
		}
	}
	if !r.ok {
		if r.why != "" {
			b.limit(name + " not located: " + r.why)
		}
		return nil, nil
	}
	m.add(r.addr, name, r.thumb)
	return []uint64{r.addr}, nil
}

// hasSymbol reports whether a symbol (not an analysis name) is called name.
func (m *mainLocator) hasSymbol(name string) bool {
	for i := range m.b.syms {
		s := &m.b.syms[i]
		if s.source != srcAnalysis && int(s.nameLen) == len(name) && string(symName(m.data, m.b.arena, s)) == name {
			return true
		}
	}
	return false
}

// procNameAt returns the name of a procedure symbol at a, or nil.
func (m *mainLocator) procNameAt(a uint64) []byte {
	for i := range m.b.syms {
		if s := &m.b.syms[i]; s.addr == a && s.flags&flagProcedure != 0 {
			return symName(m.data, m.b.arena, s)
		}
	}
	return nil
}

// add names a, replacing the sub_<hex> name an earlier pass gave it.
func (m *mainLocator) add(a uint64, name string, thumb bool) {
	syms := m.b.syms[:0]
	for _, s := range m.b.syms {
		if s.addr == a && s.source == srcAnalysis && bytes.HasPrefix(symName(m.data, m.b.arena, &s), []byte("sub_")) {
			continue
		}
		syms = append(syms, s)
	}
	m.b.syms = syms
	s := symbol{addr: a, kind: kindFunction, source: srcAnalysis, flags: flagProcedure,
		rank: makeRank(srcAnalysis, kindFunction, bindGlobal)}
	if thumb {
		s.flags |= flagThumb
	}
	if m.img.elf != nil && m.img.elf.machine == elf.EM_ARM {
		s.flags |= flagMode // the finder decoded main's caller in a known mode
	}
	m.b.addArena(s, name)
}

// readVirt returns n file bytes at address a of a mapped section.
func (m *mainLocator) readVirt(a uint64, n int) ([]byte, bool) {
	for i := range m.img.sections {
		s := &m.img.sections[i]
		if !s.mapped || a < s.addr || a-s.addr >= s.fsize || s.fsize-(a-s.addr) < uint64(n) {
			continue
		}
		off := s.off + (a - s.addr)
		if off > uint64(len(m.data)) || uint64(len(m.data))-off < uint64(n) {
			return nil, false
		}
		return m.data[off : off+uint64(n)], true
	}
	return nil, false
}

// sectionData returns the file bytes and address of the first section whose
// name is name or ends with suffix.
func (m *mainLocator) sectionData(name, suffix string) ([]byte, uint64, bool) {
	return sectionBytes(m.img, m.data, name, suffix)
}

// goTable parses the Go pclntab (pclntab.go).
func (m *mainLocator) goTable() (*pclntab, bool) {
	t, _, ok := m.img.goTable(m.data)
	return t, ok
}

// machoMain: LC_MAIN names main; an executable started by LC_UNIXTHREAD has
// start code that is not analyzed.
func (m *mainLocator) machoMain() mainFound {
	if !m.img.hasEntry {
		return mainFound{}
	}
	if !m.img.macho.lcMain {
		return notFound("the executable has no LC_MAIN (LC_UNIXTHREAD start code is not analyzed)")
	}
	return mainFound{addr: m.img.entry, ok: m.img.execAt(m.img.entry), why: "LC_MAIN lies outside executable code"}
}

// ---- ELF ----

// elfDynSym reads dynamic symbol i.
func (m *mainLocator) elfDynSym(i uint64) (name []byte, value uint64, shndx uint16, ok bool) {
	info := m.img.elf
	if info.dynsym < 0 {
		return nil, 0, 0, false
	}
	t := info.tables[info.dynsym]
	e := satAdd(t.off, i*t.entsize)
	if i >= t.size/t.entsize || e > uint64(len(m.data)) || uint64(len(m.data))-e < t.entsize {
		return nil, 0, 0, false
	}
	p, bo := m.data[e:e+t.entsize], m.img.bo
	var nameIdx uint32
	if m.img.is64 {
		nameIdx, shndx, value = bo.Uint32(p), bo.Uint16(p[6:]), bo.Uint64(p[8:])
	} else {
		nameIdx, value, shndx = bo.Uint32(p), uint64(bo.Uint32(p[4:])), bo.Uint16(p[14:])
	}
	off, n, ok := cstring(m.data, t.strOff, satAdd(t.strOff, t.strSize), uint64(nameIdx))
	if !ok {
		return nil, 0, 0, false
	}
	return m.data[off : off+uint64(n)], value, shndx, true
}

// elfStartImport reports whether the dynamic symbols import the C
// library's start function, and whether they import anything (a static
// executable, static-pie included, imports nothing).
func (m *mainLocator) elfStartImport() (start, any bool) {
	info := m.img.elf
	if info.dynsym < 0 {
		return false, false
	}
	t := info.tables[info.dynsym]
	if t.off > uint64(len(m.data)) {
		return false, false
	}
	count := min(t.size, uint64(len(m.data))-t.off) / t.entsize // a header may claim more
	for i := uint64(1); i < count; i++ {
		n, _, shndx, ok := m.elfDynSym(i)
		if !ok || shndx != uint16(elf.SHN_UNDEF) || len(n) == 0 {
			continue
		}
		any = true
		if string(n) != "" && isStartMain(n) {
			return true, true
		}
	}
	return false, any
}

// loadAt returns the n-byte pointer the loader leaves at address a, and the
// symbol a relocation there names (nil if none). ok=false when the value is
// not known (an import's slot).
func (m *mainLocator) loadAt(a uint64, n int) (v uint64, sym []byte, ok bool) {
	img := m.img
	stored, haveStored := m.readVirt(a, n)
	if haveStored {
		v, _ = readU(stored, img.bo, 0, n)
	}
	if img.elf == nil {
		return v, nil, haveStored
	}
	var out uint64
	var name []byte
	found, known := false, false
	_ = eachDynReloc(img, m.data, func(dr dynReloc, rela bool) (bool, error) {
		if dr.off != a {
			return true, nil
		}
		found = true
		addend := dr.addend
		if !rela {
			addend = int64(v) // REL: the addend is the stored value
			if !haveStored {
				return false, nil
			}
		}
		switch k := relocKind(img.elf.machine, dr.typ); k {
		case relocRelative:
			out, known = uint64(addend)&ptrMask(n), true
		case relocSymbol, relocGlobDat, relocJumpSlot:
			sname, value, shndx, ok := m.elfDynSym(uint64(dr.sym))
			name = sname
			if ok && shndx != uint16(elf.SHN_UNDEF) {
				if k != relocSymbol {
					addend = 0 // GLOB_DAT and JUMP_SLOT take the symbol's value alone
				}
				out, known = (value+uint64(addend))&ptrMask(n), true
			}
		}
		return false, nil // a relocation REA does not apply leaves the value unknown
	})
	if found {
		return out, name, known
	}
	return v, nil, haveStored
}

func ptrMask(n int) uint64 {
	if n >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*uint(n)) - 1
}

// The relocation types REA applies, by what they store.
const (
	relocOther    = iota
	relocRelative // base + addend
	relocSymbol   // symbol + addend
	relocGlobDat  // symbol (a GOT slot)
	relocJumpSlot // symbol (a PLT's GOT slot)
	relocIRelative
	relocCopy // a copy of the symbol's data into the executable (linker_elf.go)
)

// relocKind classifies a dynamic relocation type of machine m: the one table
// of the types REA reads.
func relocKind(m elf.Machine, typ uint32) int {
	var k [6]uint32 // relative, symbol, glob_dat, jump_slot, irelative, copy
	switch m {
	case elf.EM_X86_64:
		k = [6]uint32{uint32(elf.R_X86_64_RELATIVE), uint32(elf.R_X86_64_64), uint32(elf.R_X86_64_GLOB_DAT), uint32(elf.R_X86_64_JMP_SLOT), uint32(elf.R_X86_64_IRELATIVE), uint32(elf.R_X86_64_COPY)}
	case elf.EM_386:
		k = [6]uint32{uint32(elf.R_386_RELATIVE), uint32(elf.R_386_32), uint32(elf.R_386_GLOB_DAT), uint32(elf.R_386_JMP_SLOT), uint32(elf.R_386_IRELATIVE), uint32(elf.R_386_COPY)}
	case elf.EM_AARCH64:
		k = [6]uint32{uint32(elf.R_AARCH64_RELATIVE), uint32(elf.R_AARCH64_ABS64), uint32(elf.R_AARCH64_GLOB_DAT), uint32(elf.R_AARCH64_JUMP_SLOT), uint32(elf.R_AARCH64_IRELATIVE), uint32(elf.R_AARCH64_COPY)}
	case elf.EM_ARM:
		k = [6]uint32{uint32(elf.R_ARM_RELATIVE), uint32(elf.R_ARM_ABS32), uint32(elf.R_ARM_GLOB_DAT), uint32(elf.R_ARM_JUMP_SLOT), uint32(elf.R_ARM_IRELATIVE), uint32(elf.R_ARM_COPY)}
	default:
		return relocOther
	}
	for i, t := range k {
		if typ == t {
			return relocRelative + i
		}
	}
	return relocOther
}

// isStartMain reports whether a named call target is the C library's start
// function; an unnamed one (nil) is accepted.
func isStartMain(name []byte) bool {
	switch string(bytes.TrimSuffix(name, []byte("@plt"))) { // the import, or its PLT stub's name
	case "", "__libc_start_main", "__uClibc_main":
		return true
	}
	return false
}

// elfExecutable reports an executable: ET_EXEC, or ET_DYN marked DF_1_PIE
// in its dynamic section (a PIE, static-pie included; not a library).
func (m *mainLocator) elfExecutable() bool {
	if len(m.data) < 18 {
		return false
	}
	switch elf.Type(m.img.bo.Uint16(m.data[16:])) {
	case elf.ET_EXEC:
		return true
	case elf.ET_DYN:
	default:
		return false
	}
	dyn, _, ok := m.sectionData(".dynamic", "")
	if !ok {
		return false
	}
	w := 4
	if m.img.is64 {
		w = 8
	}
	for o := 0; o+2*w <= len(dyn); o += 2 * w {
		tag, _ := readU(dyn, m.img.bo, uint64(o), w)
		val, _ := readU(dyn, m.img.bo, uint64(o+w), w)
		if tag == uint64(elf.DT_NULL) {
			break
		}
		if tag == uint64(elf.DT_FLAGS_1) && val&uint64(elf.DF_1_PIE) != 0 {
			return true
		}
	}
	return false
}

func (m *mainLocator) elfMain() mainFound {
	img := m.img
	if !img.hasEntry {
		return mainFound{}
	}
	if start, any := m.elfStartImport(); any && !start || !any && !m.elfExecutable() {
		return mainFound{} // a shared library, or start code of another C library
	}
	var r mainFound
	switch img.elf.machine {
	case elf.EM_X86_64:
		r = m.x86Start(64)
	case elf.EM_386:
		r = m.x86Start(32)
	case elf.EM_AARCH64:
		r = m.arm64Start()
	case elf.EM_ARM:
		r = m.armStart()
	default:
		return notFound("the start code of this architecture is not analyzed")
	}
	if r.ok && !img.execAt(r.addr) {
		return notFound("_start passes an address outside executable code")
	}
	return r
}
