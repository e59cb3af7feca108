package builtin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
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
//     target is accepted. Debian's armhf crt1 is Thumb code, decoded here
//     (x/arch has no Thumb decoder), as is an ARM-mode one. glibc's
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

// maxPclnTries bounds the candidate Go tables a PE's magic search parses.
const maxPclnTries = 16

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

// addMainDiscovery adds to the profile's function_discovery the source main
// is named from: "pclntab" for a Go binary, else "start-code" where a
// reader of the start code applies (see above).
func addMainDiscovery(img *image, data []byte) {
	m := &mainLocator{img: img, data: data}
	var src string
	switch {
	case func() bool { _, ok := m.goTable(); return ok }():
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
	if src == "" {
		return
	}
	used := map[string]bool{src: true}
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
	for i := range m.img.sections {
		s := &m.img.sections[i]
		if s.name != name && (suffix == "" || len(s.name) < len(suffix) || s.name[len(s.name)-len(suffix):] != suffix) {
			continue
		}
		if s.fsize == 0 || s.off > uint64(len(m.data)) {
			return nil, 0, false
		}
		return m.data[s.off:min(satAdd(s.off, s.fsize), uint64(len(m.data)))], s.addr, true
	}
	return nil, 0, false
}

// goTable finds and parses the Go pclntab.
func (m *mainLocator) goTable() (*pclntab, bool) {
	img := m.img
	var text uint64
	switch {
	case img.elf != nil:
		_, text, _ = m.sectionData(".text", "")
		if b, _, ok := m.sectionData(".gopclntab", ""); ok {
			t, err := parsePclntab(b, text)
			return t, err == nil
		}
	case img.macho != nil:
		_, text, _ = m.sectionData("__TEXT,__text", "")
		if b, _, ok := m.sectionData("", ",__gopclntab"); ok {
			t, err := parsePclntab(b, text)
			return t, err == nil
		}
	case img.pe != nil:
		// No section names it: look for the header's magic in the data
		// sections (Go puts the table in .rdata), and require a table that
		// parses and has main.main in executable code, or runtime.main.
		_, text, _ = m.sectionData(".text", "")
		tries := 0 // headers that parse; each costs a pass over its table
		for i := range img.sections {
			s := &img.sections[i]
			if s.x || s.fsize == 0 || s.off > uint64(len(m.data)) {
				continue
			}
			sec := m.data[s.off:min(satAdd(s.off, s.fsize), uint64(len(m.data)))]
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
							return t, true
						}
						if tries++; tries == maxPclnTries {
							return nil, false
						}
					}
					p += k + 1
				}
			}
		}
	}
	return nil, false
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
	info := img.elf
	for _, r := range info.relocs {
		ent := uint64(8)
		switch {
		case img.is64 && r.rela:
			ent = 24
		case img.is64:
			ent = 16
		case r.rela:
			ent = 12
		}
		end := min(satAdd(r.off, r.size), uint64(len(m.data)))
		for e := r.off; e+ent <= end; e += ent {
			var off, symIdx uint64
			var typ uint32
			var addend int64
			if img.is64 {
				off = img.bo.Uint64(m.data[e:])
				info := img.bo.Uint64(m.data[e+8:])
				symIdx, typ = info>>32, uint32(info)
				if r.rela {
					addend = int64(img.bo.Uint64(m.data[e+16:]))
				}
			} else {
				off = uint64(img.bo.Uint32(m.data[e:]))
				info := img.bo.Uint32(m.data[e+4:])
				symIdx, typ = uint64(info>>8), info&0xff
				if r.rela {
					addend = int64(int32(img.bo.Uint32(m.data[e+8:])))
				}
			}
			if off != a {
				continue
			}
			if !r.rela {
				addend = int64(v) // REL: the addend is the stored value
				if !haveStored {
					return 0, nil, false
				}
			}
			switch relocKind(info.machine, typ) {
			case relocRelative:
				return uint64(addend) & ptrMask(n), nil, true
			case relocSymbol, relocSlot:
				name, value, shndx, ok := m.elfDynSym(symIdx)
				if !ok || shndx == uint16(elf.SHN_UNDEF) {
					return 0, name, false
				}
				if relocKind(info.machine, typ) == relocSlot {
					addend = 0 // GLOB_DAT and JUMP_SLOT take the symbol's value alone
				}
				return (value + uint64(addend)) & ptrMask(n), name, true
			}
			return 0, nil, false // a relocation REA does not apply
		}
	}
	return v, nil, haveStored
}

func ptrMask(n int) uint64 {
	if n >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*uint(n)) - 1
}

const (
	relocOther = iota
	relocRelative
	relocSymbol // symbol + addend
	relocSlot   // symbol (GLOB_DAT, JUMP_SLOT)
)

func relocKind(mach elf.Machine, typ uint32) int {
	switch mach {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_RELATIVE:
			return relocRelative
		case elf.R_X86_64_64:
			return relocSymbol
		case elf.R_X86_64_GLOB_DAT, elf.R_X86_64_JMP_SLOT:
			return relocSlot
		}
	case elf.EM_386:
		switch elf.R_386(typ) {
		case elf.R_386_RELATIVE:
			return relocRelative
		case elf.R_386_32:
			return relocSymbol
		case elf.R_386_GLOB_DAT, elf.R_386_JMP_SLOT:
			return relocSlot
		}
	case elf.EM_AARCH64:
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_RELATIVE:
			return relocRelative
		case elf.R_AARCH64_ABS64:
			return relocSymbol
		case elf.R_AARCH64_GLOB_DAT, elf.R_AARCH64_JUMP_SLOT:
			return relocSlot
		}
	case elf.EM_ARM:
		switch elf.R_ARM(typ) {
		case elf.R_ARM_RELATIVE:
			return relocRelative
		case elf.R_ARM_ABS32:
			return relocSymbol
		case elf.R_ARM_GLOB_DAT, elf.R_ARM_JUMP_SLOT:
			return relocSlot
		}
	}
	return relocOther
}

// isStartMain reports whether a named call target is the C library's start
// function; an unnamed one (nil) is accepted.
func isStartMain(name []byte) bool {
	switch string(name) {
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

// ---- x86 ----

// x86Regs holds known values of the 16 general registers.
type x86Regs struct {
	v     [16]uint64
	known uint16
}

// x86Family maps a register to its general register number and width.
func x86Family(r x86asm.Reg) (int, int) {
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX), 64
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX), 32
	case r >= x86asm.AX && r <= x86asm.R15W:
		return int(r - x86asm.AX), 16
	case r >= x86asm.AL && r <= x86asm.BL:
		return int(r - x86asm.AL), 8
	case r >= x86asm.AH && r <= x86asm.BH:
		return int(r - x86asm.AH), 8
	case r >= x86asm.SPB && r <= x86asm.R15B:
		return int(r-x86asm.SPB) + 4, 8
	}
	return -1, 0
}

func (rs *x86Regs) get(r x86asm.Reg) (uint64, bool) {
	k, w := x86Family(r)
	if k < 0 || w < 32 || rs.known&(1<<k) == 0 {
		return 0, false
	}
	if w == 32 {
		return rs.v[k] & 0xffffffff, true
	}
	return rs.v[k], true
}

// set writes r; a 32-bit write zero-extends, a narrower one forgets.
func (rs *x86Regs) set(r x86asm.Reg, v uint64, ok bool) {
	k, w := x86Family(r)
	if k < 0 {
		return
	}
	if !ok || w < 32 {
		rs.known &^= 1 << k
		return
	}
	if w == 32 {
		v &= 0xffffffff
	}
	rs.v[k], rs.known = v, rs.known|1<<k
}

// memAddr computes a memory operand's address.
func (rs *x86Regs) memAddr(a x86asm.Mem, next uint64, mode int) (uint64, bool) {
	if a.Segment != 0 {
		return 0, false
	}
	v := uint64(a.Disp)
	switch a.Base {
	case 0:
	case x86asm.RIP, x86asm.EIP:
		v += next
	default:
		b, ok := rs.get(a.Base)
		if !ok {
			return 0, false
		}
		v += b
	}
	if a.Index != 0 {
		x, ok := rs.get(a.Index)
		if !ok {
			return 0, false
		}
		v += x * uint64(a.Scale)
	}
	if mode == 32 {
		v &= 0xffffffff
	}
	return v, true
}

// value reads an operand: immediate, register or memory.
func (m *mainLocator) x86Value(rs *x86Regs, a x86asm.Arg, next uint64, mode, size int) (uint64, bool) {
	switch a := a.(type) {
	case x86asm.Imm:
		return uint64(a) & ptrMask(size), true
	case x86asm.Reg:
		return rs.get(a)
	case x86asm.Mem:
		addr, ok := rs.memAddr(a, next, mode)
		if !ok {
			return 0, false
		}
		v, _, ok := m.loadAt(addr, size)
		return v, ok
	}
	return 0, false
}

// x86Decode decodes at pc, reading endbr64/endbr32 (which x/arch does not
// know) as a 4-byte NOP.
func (m *mainLocator) x86Decode(pc uint64, mode int) (x86asm.Inst, bool) {
	code, ok := execCode(m.img, m.data, pc)
	if !ok {
		return x86asm.Inst{}, false
	}
	if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb) {
		return x86asm.Inst{Op: x86asm.NOP, Len: 4}, true
	}
	in, err := x86asm.Decode(code, mode)
	return in, err == nil
}

// x86PCThunk recognizes `mov reg, [esp]; ret` at a and returns reg.
func (m *mainLocator) x86PCThunk(a uint64) (x86asm.Reg, bool) {
	in, ok := m.x86Decode(a, 32)
	if !ok || in.Op != x86asm.MOV {
		return 0, false
	}
	r, isReg := in.Args[0].(x86asm.Reg)
	mem, isMem := in.Args[1].(x86asm.Mem)
	if !isReg || !isMem || mem.Base != x86asm.ESP || mem.Index != 0 || mem.Disp != 0 || mem.Segment != 0 {
		return 0, false
	}
	ret, ok := m.x86Decode(a+uint64(in.Len), 32)
	if !ok || ret.Op != x86asm.RET {
		return 0, false
	}
	return r, true
}

func relTarget(next uint64, rel x86asm.Rel, mode int) uint64 {
	t := next + uint64(int64(rel))
	if mode == 32 {
		t &= 0xffffffff
	}
	return t
}

// x86Start emulates _start up to its call of __libc_start_main; main is rdi
// (x86_64) or the last value pushed (i386).
func (m *mainLocator) x86Start(mode int) mainFound {
	var rs x86Regs
	type slot struct {
		v  uint64
		ok bool
	}
	var stack []slot
	ptr := mode / 8
	pc := m.img.entry
	for n := 0; n < maxStartInsns; n++ {
		in, ok := m.x86Decode(pc, mode)
		if !ok {
			break
		}
		next := pc + uint64(in.Len)
		dst, dstReg := in.Args[0].(x86asm.Reg)
		size := in.DataSize / 8
		switch in.Op {
		case x86asm.CALL:
			var callee []byte
			switch a := in.Args[0].(type) {
			case x86asm.Rel:
				t := relTarget(next, a, mode)
				if mode == 32 {
					if r, ok := m.x86PCThunk(t); ok {
						rs.set(r, next, true)
						pc = next
						continue
					}
					if t == next { // call 1f; 1: pop reg
						stack = append(stack, slot{next, true})
						pc = next
						continue
					}
				}
				callee = m.procNameAt(t)
			case x86asm.Mem:
				if slotAddr, ok := rs.memAddr(a, next, mode); ok {
					_, callee, _ = m.loadAt(slotAddr, ptr)
				}
			default:
				return notFound(startNotRecognized)
			}
			if !isStartMain(callee) {
				return notFound(startNotRecognized)
			}
			var v uint64
			if mode == 64 {
				v, ok = rs.get(x86asm.RDI)
			} else if k := len(stack); k > 0 {
				v, ok = stack[k-1].v, stack[k-1].ok
			} else {
				ok = false
			}
			if !ok {
				return notFound(startNotRecognized)
			}
			return m.x86Wrapper(v, pc, next, mode)
		case x86asm.JMP:
			if rel, ok := in.Args[0].(x86asm.Rel); ok {
				pc = relTarget(next, rel, mode)
				continue
			}
			return notFound(startNotRecognized)
		case x86asm.MOV:
			if dstReg {
				v, ok := m.x86Value(&rs, in.Args[1], next, mode, size)
				rs.set(dst, v, ok)
			}
		case x86asm.LEA:
			if mem, ok := in.Args[1].(x86asm.Mem); ok && dstReg {
				v, ok := rs.memAddr(mem, next, mode)
				rs.set(dst, v, ok)
			}
		case x86asm.ADD, x86asm.SUB:
			if dstReg {
				a, ok1 := rs.get(dst)
				b, ok2 := m.x86Value(&rs, in.Args[1], next, mode, size)
				if in.Op == x86asm.SUB {
					b = -b
				}
				rs.set(dst, a+b, ok1 && ok2)
			}
		case x86asm.XOR:
			if src, ok := in.Args[1].(x86asm.Reg); ok && dstReg && src == dst {
				rs.set(dst, 0, true)
			} else if dstReg {
				rs.set(dst, 0, false)
			}
		case x86asm.PUSH:
			v, ok := m.x86Value(&rs, in.Args[0], next, mode, ptr)
			stack = append(stack, slot{v, ok})
		case x86asm.POP:
			var s slot
			if k := len(stack); k > 0 {
				s, stack = stack[k-1], stack[:k-1]
			}
			if dstReg {
				rs.set(dst, s.v, s.ok)
			}
		case x86asm.NOP, x86asm.CMP, x86asm.TEST:
		default:
			if in.Op >= x86asm.JA && in.Op <= x86asm.JS || in.Op == x86asm.RET || in.Op == x86asm.HLT {
				return notFound(startNotRecognized)
			}
			if dstReg {
				rs.set(dst, 0, false)
			}
		}
		pc = next
	}
	return notFound(startNotRecognized)
}

// wrapperWindow is how far past _start's call glibc's __wrap_main may lie.
const wrapperWindow = 32

// x86Wrapper follows `[endbr] jmp main` at a when a lies just after the call.
func (m *mainLocator) x86Wrapper(a, call, next uint64, mode int) mainFound {
	if a > call && a <= next+wrapperWindow {
		pc := a
		in, ok := m.x86Decode(pc, mode)
		if ok && in.Op == x86asm.NOP && in.Len == 4 {
			pc += 4
			in, ok = m.x86Decode(pc, mode)
		}
		if rel, isRel := in.Args[0].(x86asm.Rel); ok && in.Op == x86asm.JMP && isRel {
			return mainFound{addr: relTarget(pc+uint64(in.Len), rel, mode), ok: true}
		}
	}
	return mainFound{addr: a, ok: true}
}

// ---- arm64 ----

// codeWord reads the 32-bit instruction word at pc in executable code.
func (m *mainLocator) codeWord(pc uint64) (uint32, bool) {
	code, ok := execCode(m.img, m.data, pc)
	if !ok || len(code) < 4 {
		return 0, false
	}
	return m.img.bo.Uint32(code), true
}

// arm64Start emulates _start up to its `bl __libc_start_main`; main is x0.
func (m *mainLocator) arm64Start() mainFound {
	var v [32]uint64
	var known uint32 // bit 31: sp, never known
	set := func(r uint32, x uint64, ok bool) {
		if r == 31 {
			return // xzr (or sp, which is not tracked)
		}
		if ok {
			v[r], known = x, known|1<<r
		} else {
			known &^= 1 << r
		}
	}
	get := func(r uint32) (uint64, bool) { return v[r], r != 31 && known&(1<<r) != 0 }
	pc := m.img.entry
	for n := 0; n < maxStartInsns; n++ {
		x, ok := m.codeWord(pc)
		if !ok {
			break
		}
		rd, rn := x&31, (x>>5)&31
		switch {
		case x&0xfffff01f == 0xd503201f: // hint: nop, bti, pac*
		case x&0x9f000000 == 0x90000000: // adrp
			imm := sext(uint64((x>>5)&0x7ffff)<<2|uint64((x>>29)&3), 21) << 12
			set(rd, (pc&^0xfff)+uint64(imm), true)
		case x&0x9f000000 == 0x10000000: // adr
			set(rd, pc+uint64(sext(uint64((x>>5)&0x7ffff)<<2|uint64((x>>29)&3), 21)), true)
		case x&0xff800000 == 0x91000000: // add xd, xn, #imm{, lsl #12}
			imm := uint64((x >> 10) & 0xfff)
			if (x>>22)&1 == 1 {
				imm <<= 12
			}
			b, ok := get(rn)
			if rd == 31 {
				break // writes sp
			}
			set(rd, b+imm, ok)
		case x&0xffc00000 == 0xf9400000: // ldr xt, [xn, #imm]
			b, ok := get(rn)
			var val uint64
			if ok {
				val, _, ok = m.loadAt(b+uint64((x>>10)&0xfff)*8, 8)
			}
			set(rd, val, ok)
		case x&0xff000000 == 0x58000000: // ldr xt, literal
			val, _, ok := m.loadAt(pc+uint64(sext(uint64((x>>5)&0x7ffff)<<2, 21)), 8)
			set(rd, val, ok)
		case x&0xff800000 == 0xd2800000: // movz
			set(rd, uint64((x>>5)&0xffff)<<(16*((x>>21)&3)), true)
		case x&0xff800000 == 0xf2800000: // movk
			sh := 16 * ((x >> 21) & 3)
			old, ok := get(rd)
			set(rd, old&^(0xffff<<sh)|uint64((x>>5)&0xffff)<<sh, ok)
		case x&0xffe0ffe0 == 0xaa0003e0: // mov xd, xm (orr xd, xzr, xm)
			rm := (x >> 16) & 31
			val, ok := get(rm)
			if rm == 31 {
				val, ok = 0, true
			}
			set(rd, val, ok)
		case x&0xfc000000 == 0x94000000: // bl
			t := pc + uint64(sext(uint64(x&0x3ffffff)<<2, 28))
			if !isStartMain(m.procNameAt(t)) {
				return notFound(startNotRecognized)
			}
			a, ok := get(0)
			if !ok {
				return notFound(startNotRecognized)
			}
			return m.arm64Wrapper(a, pc)
		case x&0xfc000000 == 0x14000000: // b
			pc += uint64(sext(uint64(x&0x3ffffff)<<2, 28))
			continue
		case x&0x1c000000 == 0x14000000: // other branches and system instructions
			return notFound(startNotRecognized)
		default:
			in, err := arm64asm.Decode(binary.LittleEndian.AppendUint32(nil, x))
			if err != nil {
				return notFound(startNotRecognized)
			}
			if r, ok := in.Args[0].(arm64asm.Reg); ok {
				switch {
				case r >= arm64asm.X0 && r <= arm64asm.X30:
					set(uint32(r-arm64asm.X0), 0, false)
				case r >= arm64asm.W0 && r <= arm64asm.W30:
					set(uint32(r-arm64asm.W0), 0, false)
				}
			}
		}
		pc += 4
	}
	return notFound(startNotRecognized)
}

// arm64Wrapper follows `[hint] b main` at a when a lies just after the call.
func (m *mainLocator) arm64Wrapper(a, call uint64) mainFound {
	if a > call && a <= call+4+wrapperWindow {
		pc := a
		x, ok := m.codeWord(pc)
		if ok && x&0xfffff01f == 0xd503201f {
			pc += 4
			x, ok = m.codeWord(pc)
		}
		if ok && x&0xfc000000 == 0x14000000 {
			return mainFound{addr: pc + uint64(sext(uint64(x&0x3ffffff)<<2, 28)), ok: true}
		}
	}
	return mainFound{addr: a, ok: true}
}

// ---- arm ----

// armStart reads Thumb start code when e_entry's low bit is set, else ARM.
func (m *mainLocator) armStart() mainFound {
	if len(m.data) < 0x1c {
		return notFound(startNotRecognized)
	}
	if m.img.bo.Uint32(m.data[0x18:])&1 == 0 {
		return m.armModeStart()
	}
	return m.thumbStart()
}

// armRegs holds known values of r0..r12; pc is what r15 reads as.
type armRegs struct {
	v     [16]uint32
	known uint16
	pc    uint32
}

func (r *armRegs) set(n, x uint32, ok bool) {
	if ok && n < 13 {
		r.v[n], r.known = x, r.known|1<<n
	} else {
		r.known &^= 1 << n
	}
}

func (r *armRegs) get(n uint32) (uint32, bool) {
	if n == 15 {
		return r.pc, true
	}
	return r.v[n], r.known&(1<<n) != 0
}

// load32 reads a 32-bit pointer as the loader leaves it (loadAt).
func (m *mainLocator) load32(a uint32) (uint32, bool) {
	x, _, ok := m.loadAt(uint64(a), 4)
	return uint32(x), ok
}

// armCall checks the call to target and returns r0: main, a Thumb function
// when its low bit is set.
func (m *mainLocator) armCall(rs *armRegs, target uint64) mainFound {
	if !isStartMain(m.procNameAt(target)) {
		return notFound(startNotRecognized)
	}
	a, ok := rs.get(0)
	if !ok {
		return notFound(startNotRecognized)
	}
	return mainFound{addr: uint64(a &^ 1), thumb: a&1 != 0, ok: true}
}

// armExpandImm is ARMExpandImm: imm8 rotated right by twice imm4.
func armExpandImm(imm12 uint32) uint32 {
	v, rot := imm12&0xff, 2*(imm12>>8&15)
	return v>>rot | v<<((32-rot)&31)
}

// armModeStart emulates ARM-mode start code (glibc's start.S built -marm)
// up to its call of __libc_start_main; main is r0.
func (m *mainLocator) armModeStart() mainFound {
	var rs armRegs
	pc := m.img.entry
	for n := 0; n < maxStartInsns; n++ {
		x, ok := m.codeWord(pc)
		if !ok {
			break
		}
		rs.pc = uint32(pc) + 8
		rd, rn, rm := x>>12&15, x>>16&15, x&15
		if x>>28 != 0xe && x&0xfe000000 != 0xfa000000 {
			return notFound(startNotRecognized) // conditional: not start code REA reads
		}
		switch {
		case x == 0xe320f000: // nop
		case x&0x0fef0000 == 0x03a00000: // mov rd, #imm
			rs.set(rd, armExpandImm(x&0xfff), true)
		case x&0x0fef0ff0 == 0x01a00000: // mov rd, rm
			v, ok := rs.get(rm)
			rs.set(rd, v, ok)
		case x&0x0fe00000 == 0x02800000, x&0x0fe00000 == 0x02400000: // add/sub rd, rn, #imm
			v, ok := rs.get(rn)
			imm := armExpandImm(x & 0xfff)
			if x&0x0fe00000 == 0x02400000 {
				imm = -imm
			}
			rs.set(rd, v+imm, ok)
		case x&0x0fe00ff0 == 0x00800000: // add rd, rn, rm
			a, ok1 := rs.get(rn)
			b, ok2 := rs.get(rm)
			rs.set(rd, a+b, ok1 && ok2)
		case x&0x0f700000 == 0x05100000: // ldr rt, [rn, #±imm12]
			a, ok := rs.get(rn)
			if x&(1<<23) != 0 {
				a += x & 0xfff
			} else {
				a -= x & 0xfff
			}
			var v uint32
			if ok {
				v, ok = m.load32(a)
			}
			rs.set(rd, v, ok)
		case x&0x0ff00ff0 == 0x07900000: // ldr rt, [rn, rm]
			a, ok1 := rs.get(rn)
			b, ok2 := rs.get(rm)
			var v uint32
			ok := ok1 && ok2
			if ok {
				v, ok = m.load32(a + b)
			}
			rs.set(rd, v, ok)
		case x&0x0fff0fff == 0x049d0004: // pop {rt}
			rs.set(rd, 0, false)
		case x&0x0fff0fff == 0x052d0004, x&0x0fff0000 == 0x092d0000: // push
		case x&0x0fff0000 == 0x08bd0000: // pop {rlist}
			if x&(1<<15) != 0 {
				return notFound(startNotRecognized)
			}
			for r := uint32(0); r < 15; r++ {
				if x&(1<<r) != 0 {
					rs.set(r, 0, false)
				}
			}
		case x&0x0f000000 == 0x0b000000: // bl
			return m.armCall(&rs, uint64(uint32(int64(pc)+8+sext(uint64(x&0xffffff)<<2, 26))))
		case x&0xfe000000 == 0xfa000000: // blx (to Thumb)
			return m.armCall(&rs, uint64(uint32(int64(pc)+8+sext(uint64(x&0xffffff)<<2|uint64(x>>24&1)<<1, 26))))
		default:
			return notFound(startNotRecognized)
		}
		pc += 4
	}
	return notFound(startNotRecognized)
}

func (m *mainLocator) thumbHalf(pc uint64) (uint16, bool) {
	code, ok := execCode(m.img, m.data, pc)
	if !ok || len(code) < 2 {
		return 0, false
	}
	return m.img.bo.Uint16(code), true
}

// thumbExpandImm is ThumbExpandImm of the ARM ARM (i:imm3:imm8).
func thumbExpandImm(imm12 uint32) uint32 {
	if imm12>>10 == 0 {
		b := imm12 & 0xff
		switch (imm12 >> 8) & 3 {
		case 0:
			return b
		case 1:
			return b<<16 | b
		case 2:
			return b<<24 | b<<8
		default:
			return b<<24 | b<<16 | b<<8 | b
		}
	}
	v := 0x80 | imm12&0x7f
	rot := imm12 >> 7
	return v>>rot | v<<(32-rot)
}

// thumbBranch decodes the offset of a 32-bit Thumb B.W (T4), BL or BLX.
func thumbBranch(h1, h2 uint16) int64 {
	s := uint64(h1>>10) & 1
	j1, j2 := uint64(h2>>13)&1, uint64(h2>>11)&1
	i1, i2 := ^(j1^s)&1, ^(j2^s)&1
	imm := s<<24 | i1<<23 | i2<<22 | uint64(h1&0x3ff)<<12 | uint64(h2&0x7ff)<<1
	return sext(imm, 25)
}

// thumbStart emulates the Thumb instructions of glibc's armhf crt1 _start
// up to its call of __libc_start_main; main is r0. Any other instruction
// ends the attempt: without a Thumb decoder, REA does not know what it writes.
func (m *mainLocator) thumbStart() mainFound {
	var rs armRegs
	set, get, load := rs.set, rs.get, m.load32
	pc := m.img.entry
	for n := 0; n < maxStartInsns; n++ {
		h1, ok := m.thumbHalf(pc)
		if !ok {
			break
		}
		rs.pc = uint32(pc) + 4       // pc reads as the instruction's address + 4
		lit := (uint32(pc) + 4) &^ 3 // Align(PC, 4) for literal loads and ADR
		if h1>>11 >= 0x1d {          // 32-bit instruction
			h2, ok := m.thumbHalf(pc + 2)
			if !ok {
				break
			}
			rt := uint32(h2 >> 12)
			switch {
			case h1&0xfbef == 0xf04f && h2&0x8000 == 0: // mov.w rd, #imm
				imm := uint32(h1>>10&1)<<11 | uint32(h2>>12&7)<<8 | uint32(h2&0xff)
				set(uint32(h2>>8)&15, thumbExpandImm(imm), true)
			case h1&0xff7f == 0xf85f: // ldr.w rt, [pc, #±imm12]
				a := lit + uint32(h2&0xfff)
				if h1&0x80 == 0 {
					a = lit - uint32(h2&0xfff)
				}
				x, ok := load(a)
				set(rt, x, ok)
			case h1&0xfff0 == 0xf8d0: // ldr.w rt, [rn, #imm12]
				b, ok := get(uint32(h1 & 15))
				var x uint32
				if ok {
					x, ok = load(b + uint32(h2&0xfff))
				}
				set(rt, x, ok)
			case h1&0xfff0 == 0xf850 && h2&0x0fc0 == 0: // ldr.w rt, [rn, rm, lsl #k]
				b, ok1 := get(uint32(h1 & 15))
				i, ok2 := get(uint32(h2 & 15))
				var x uint32
				ok := ok1 && ok2
				if ok {
					x, ok = load(b + i<<(h2>>4&3))
				}
				set(rt, x, ok)
			case h1&0xf800 == 0xf000 && h2&0xc000 == 0xc000: // bl, blx
				t := uint64(uint32(int64(pc) + 4 + thumbBranch(h1, h2)))
				if h2&0x1000 == 0 { // blx: to ARM code, from Align(PC, 4)
					t = uint64(uint32(int64(lit) + thumbBranch(h1, h2)))
				}
				return m.armCall(&rs, t)
			default:
				return notFound(startNotRecognized)
			}
			pc += 4
			continue
		}
		switch {
		case h1 == 0xbf00: // nop
		case h1&0xfe00 == 0xb400: // push {rlist[, lr]}
		case h1&0xfe00 == 0xbc00: // pop {rlist[, pc]}
			if h1&0x100 != 0 {
				return notFound(startNotRecognized)
			}
			for r := uint32(0); r < 8; r++ {
				if h1&(1<<r) != 0 {
					set(r, 0, false)
				}
			}
		case h1&0xff00 == 0x4600: // mov rd, rm (high registers)
			x, ok := get(uint32(h1>>3) & 15)
			set(uint32(h1&7)|uint32(h1>>4)&8, x, ok)
		case h1&0xff00 == 0x4400: // add rdn, rm (high registers)
			rdn := uint32(h1&7) | uint32(h1>>4)&8
			a, ok1 := get(rdn)
			b, ok2 := get(uint32(h1>>3) & 15)
			set(rdn, a+b, ok1 && ok2)
		case h1&0xf800 == 0xa000: // adr rd, #imm8*4
			set(uint32(h1>>8)&7, lit+uint32(h1&0xff)*4, true)
		case h1&0xf800 == 0x4800: // ldr rt, [pc, #imm8*4]
			x, ok := load(lit + uint32(h1&0xff)*4)
			set(uint32(h1>>8)&7, x, ok)
		case h1&0xf800 == 0x2000: // movs rd, #imm8
			set(uint32(h1>>8)&7, uint32(h1&0xff), true)
		case h1&0xfe00 == 0x5800: // ldr rt, [rn, rm]
			b, ok1 := get(uint32(h1>>3) & 7)
			i, ok2 := get(uint32(h1>>6) & 7)
			var x uint32
			ok := ok1 && ok2
			if ok {
				x, ok = load(b + i)
			}
			set(uint32(h1&7), x, ok)
		case h1&0xf800 == 0x6800: // ldr rt, [rn, #imm5*4]
			b, ok := get(uint32(h1>>3) & 7)
			var x uint32
			if ok {
				x, ok = load(b + uint32(h1>>6&31)*4)
			}
			set(uint32(h1&7), x, ok)
		default:
			return notFound(startNotRecognized)
		}
		pc += 2
	}
	return notFound(startNotRecognized)
}

// ---- PE ----

// maxCRTInsns bounds the instructions decoded for the PE CRT pattern.
const maxCRTInsns = 1 << 13

// peMain finds main as the function whose return value the CRT passes to
// exit (see the comment at the top).
func (m *mainLocator) peMain() mainFound {
	img := m.img
	if !img.hasEntry || img.pe.dll {
		return mainFound{}
	}
	if img.arch != "x86_64" {
		return notFound("the CRT start code of this architecture is not analyzed")
	}
	const why = "the CRT's call into main was not recognized"
	exitThunks, exitSlots := map[uint64]bool{}, map[uint64]bool{}
	for i := range m.b.syms {
		s := &m.b.syms[i]
		if s.source != srcImported || string(symName(m.data, m.b.arena, s)) != "exit" {
			continue
		}
		if s.kind == kindImport {
			exitSlots[s.addr] = true
		} else {
			exitThunks[s.addr] = true
		}
	}
	if len(exitThunks)+len(exitSlots) == 0 {
		return notFound(why)
	}
	isExit := func(in x86asm.Inst, next uint64) bool {
		switch a := in.Args[0].(type) {
		case x86asm.Rel:
			return exitThunks[relTarget(next, a, 64)]
		case x86asm.Mem:
			return a.Base == x86asm.RIP && a.Index == 0 && exitSlots[next+uint64(a.Disp)]
		}
		return false
	}
	budget := maxCRTInsns
	// The entry function and the functions it calls or jumps to directly.
	funcs := []uint64{img.entry}
	for pc, n := img.entry, 0; n < maxStartInsns && budget > 0; n++ {
		budget--
		in, ok := m.x86Decode(pc, 64)
		if !ok {
			break
		}
		next := pc + uint64(in.Len)
		if rel, ok := in.Args[0].(x86asm.Rel); ok && (in.Op == x86asm.CALL || in.Op == x86asm.JMP) {
			if t := relTarget(next, rel, 64); img.execAt(t) && !exitThunks[t] {
				funcs = append(funcs, t)
			}
		}
		if in.Op == x86asm.RET || in.Op == x86asm.JMP || in.Op == x86asm.HLT {
			break
		}
		pc = next
	}
	found := map[uint64]bool{}
	for _, f := range funcs {
		end := f + 1<<12
		if i, ok := pdataAt(img.pe.pdata, f); ok {
			end = img.pe.pdata[i].end
		}
		for pc := f; pc < end && budget > 0; {
			budget--
			in, ok := m.x86Decode(pc, 64)
			if !ok {
				break
			}
			next := pc + uint64(in.Len)
			if rel, ok := in.Args[0].(x86asm.Rel); ok && in.Op == x86asm.CALL {
				t := relTarget(next, rel, 64)
				if img.execAt(t) && !exitThunks[t] && m.returnsToExit(next, isExit, &budget) {
					found[t] = true
				}
			}
			pc = next
		}
	}
	if len(found) != 1 {
		return notFound(why)
	}
	for a := range found {
		return mainFound{addr: a, ok: true}
	}
	return notFound(why)
}

// pdataAt finds the .pdata range starting at a.
func pdataAt(rs []codeRange, a uint64) (int, bool) {
	for i := range rs {
		if rs[i].start == a {
			return i, true
		}
	}
	return 0, false
}

// win64Volatile are the registers a call clobbers (rax, rcx, rdx, r8-r11).
const win64Volatile = 1<<0 | 1<<1 | 1<<2 | 1<<8 | 1<<9 | 1<<10 | 1<<11

// returnsToExit follows the paths from pc with the just-called function's
// return value in rax and reports whether one reaches a call of exit with
// that value in ecx.
func (m *mainLocator) returnsToExit(pc uint64, isExit func(x86asm.Inst, uint64) bool, budget *int) bool {
	type state struct {
		pc   uint64
		held uint16 // registers holding the return value
	}
	work := []state{{pc, 1}} // rax
	seen := map[state]bool{}
	const pathLen = 48
	for len(work) > 0 {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		for n := 0; n < pathLen && s.held != 0 && *budget > 0; n++ {
			if seen[s] {
				break
			}
			seen[s] = true
			*budget--
			in, ok := m.x86Decode(s.pc, 64)
			if !ok {
				break
			}
			next := s.pc + uint64(in.Len)
			dst, dstReg := in.Args[0].(x86asm.Reg)
			k, w := x86Family(dst)
			switch {
			case in.Op == x86asm.CALL:
				if isExit(in, next) {
					if s.held&(1<<1) != 0 { // rcx
						return true
					}
					s.held = 0
					continue
				}
				s.held &^= win64Volatile
			case in.Op == x86asm.JMP:
				rel, ok := in.Args[0].(x86asm.Rel)
				if !ok {
					s.held = 0
					continue
				}
				s.pc = relTarget(next, rel, 64)
				continue
			case in.Op >= x86asm.JA && in.Op <= x86asm.JS:
				if rel, ok := in.Args[0].(x86asm.Rel); ok {
					work = append(work, state{relTarget(next, rel, 64), s.held})
				}
			case in.Op == x86asm.RET || in.Op == x86asm.HLT || in.Op == x86asm.INT || in.Op == x86asm.UD2:
				s.held = 0
				continue
			case in.Op == x86asm.MOV && dstReg && k >= 0:
				src, ok := in.Args[1].(x86asm.Reg)
				sk, sw := x86Family(src)
				if ok && sk >= 0 && sw >= 32 && w >= 32 && s.held&(1<<sk) != 0 {
					s.held |= 1 << k
				} else {
					s.held &^= 1 << k
				}
			case in.Op == x86asm.CMP || in.Op == x86asm.TEST || in.Op == x86asm.PUSH || in.Op == x86asm.NOP:
			case dstReg && k >= 0:
				s.held &^= 1 << k
			}
			s.pc = next
		}
	}
	return false
}
