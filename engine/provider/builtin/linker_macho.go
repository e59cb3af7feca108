package builtin

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/rea-re/rea/engine/provider"
)

// Mach-O imports and exports as dyld binds them:
//
//   - Imports are the binds of LC_DYLD_INFO(_ONLY): the bind and lazy-bind
//     opcode streams (machoBinds) give each pointer slot its symbol, its
//     library ordinal and its weak-import flag; or the binds of
//     LC_DYLD_CHAINED_FIXUPS (machoChainedBinds). An image without either
//     (an object file) has its imports from the symbol table:
//     the undefined external symbols with the ordinal in n_desc, their
//     slots from the indirect symbol table of its pointer sections. A
//     __stubs entry is the stub of the import its indirect symbol names.
//   - A two-level ordinal 1..n names the n-th dylib command (LC_LOAD_DYLIB,
//     LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, LC_LAZY_LOAD_DYLIB,
//     LC_LOAD_UPWARD_DYLIB, in command order); 0 is the image itself, -1
//     (n_desc 0xff) the main executable, -2 (n_desc 0xfe) flat lookup in
//     every dylib in order, -3 weak lookup likewise. A flat-namespace image
//     (no MH_TWOLEVEL) looks every import up in every dylib. Imports from a
//     weak dylib are weak (dyld binds them to null when it is missing).
//   - An export is found in the export trie (LC_DYLD_INFO's or
//     LC_DYLD_EXPORTS_TRIE): a regular or thread-local entry's address is
//     the image's base (the segment mapping file offset 0) plus its offset,
//     an absolute one is the value itself, a stub-and-resolver entry's
//     address is its stub; a re-export is a Forwarder to the install name
//     of its dylib ordinal under its imported name (the same name when the
//     entry gives none).

// Mach-O commands, flags and constants the linker reads.
const (
	lcDyldInfo         = 0x22
	lcDyldInfoOnly     = 0x80000022
	lcDyldExportsTrie  = 0x80000033
	lcDyldChainedFixup = 0x80000034
	lcSegment          = 0x1
	lcSegment64        = 0x19

	nWeakRef = 0x40 // n_desc N_WEAK_REF

	bindWeakImport = 0x1 // BIND_SYMBOL_FLAGS_WEAK_IMPORT

	exportKindMask       = 0x03
	exportAbsolute       = 0x02
	exportReexport       = 0x08
	exportStubAndResolve = 0x10
)

// machoDylib is one dylib command: its install name and its
// list_dependencies kind.
type machoDylib struct{ name, kind string }

// machoLoadInfo is what the load commands say about linking: the one walk
// of the commands behind list_dependencies and the linker.
type machoLoadInfo struct {
	header          bool // the header is in the file
	filetype, flags uint32
	dylibs          []machoDylib // in ordinal order
	others          []string     // LC_LAZY_LOAD_DYLIB, LC_LOAD_UPWARD_DYLIB seen (listed as load_dylib)
	rpaths          []string
	id              string   // LC_ID_DYLIB
	segs            []uint64 // vmaddr of every segment command in order (bind opcodes index them)
	segFile         []uint64 // the segments' file offsets, in the same order
	base            uint64   // vmaddr of the segment mapping file offset 0
	bind, lazyBind  [2]uint64
	trie            [2]uint64 // export trie (offset, size)
	chained         [2]uint64 // LC_DYLD_CHAINED_FIXUPS (offset, size)
	lims            []string
}

func machoLoads(img *image, data []byte) machoLoadInfo {
	var lc machoLoadInfo
	bo := img.bo
	hdr := uint64(28)
	if img.is64 {
		hdr = 32
	}
	if uint64(len(data)) < hdr {
		return lc
	}
	lc.header = true
	lc.filetype, lc.flags = bo.Uint32(data[12:]), bo.Uint32(data[24:])
	ncmds := uint64(bo.Uint32(data[16:]))
	haveBase := false
	off := hdr
	for i := uint64(0); i < ncmds; i++ {
		if off+8 > uint64(len(data)) {
			lc.lims = append(lc.lims, "the load commands run past the end of the file; some dylibs may be missing")
			break
		}
		cmd, size := bo.Uint32(data[off:]), uint64(bo.Uint32(data[off+4:]))
		if size < 8 || off+size > uint64(len(data)) {
			lc.lims = append(lc.lims, "a load command has an invalid size; the commands after it are not read")
			break
		}
		lb := data[off : off+size]
		u32 := func(at uint64) uint64 {
			v, _ := readU(lb, bo, at, 4)
			return v
		}
		str := func(at uint64) (string, bool) {
			if at+4 > size {
				return "", false
			}
			o := uint64(bo.Uint32(lb[at:]))
			if o >= size {
				return "", false
			}
			s := lb[o:]
			if j := bytes.IndexByte(s, 0); j >= 0 {
				s = s[:j]
			}
			return string(s), len(s) > 0
		}
		kind := ""
		switch cmd {
		case lcLoadDylib:
			kind = "load_dylib"
		case lcLoadWeakDylib:
			kind = "weak_dylib"
		case lcReexportDylib:
			kind = "reexport_dylib"
		case lcLazyLoadDylib, lcLoadUpwardDylib:
			kind = "load_dylib"
			lc.others = addOnce(lc.others, map[uint32]string{lcLazyLoadDylib: "LC_LAZY_LOAD_DYLIB", lcLoadUpwardDylib: "LC_LOAD_UPWARD_DYLIB"}[cmd])
		case lcRpath:
			if s, ok := str(8); ok {
				lc.rpaths = append(lc.rpaths, s)
			}
		case lcIDDylib:
			if s, ok := str(8); ok && lc.id == "" {
				lc.id = s
			}
		case lcSegment, lcSegment64:
			var vmaddr, fileoff, filesize uint64
			if cmd == lcSegment64 {
				vmaddr, _ = readU(lb, bo, 24, 8)
				fileoff, _ = readU(lb, bo, 40, 8)
				filesize, _ = readU(lb, bo, 48, 8)
			} else {
				vmaddr, fileoff, filesize = u32(24), u32(32), u32(36)
			}
			lc.segs, lc.segFile = append(lc.segs, vmaddr), append(lc.segFile, fileoff)
			if fileoff == 0 && filesize > 0 && !haveBase {
				lc.base, haveBase = vmaddr, true
			}
		case lcDyldInfo, lcDyldInfoOnly:
			lc.bind = [2]uint64{u32(16), u32(20)}
			lc.lazyBind = [2]uint64{u32(32), u32(36)}
			if u32(44) != 0 {
				lc.trie = [2]uint64{u32(40), u32(44)}
			}
		case lcDyldExportsTrie:
			lc.trie = [2]uint64{u32(8), u32(12)}
		case lcDyldChainedFixup:
			lc.chained = [2]uint64{u32(8), u32(12)}
		}
		if kind != "" {
			name, ok := str(8)
			if !ok {
				name = ""
				lc.lims = addOnce(lc.lims, "a dylib command has no install name; it is listed with an empty name")
			}
			lc.dylibs = append(lc.dylibs, machoDylib{name: name, kind: kind})
		}
		off += size
	}
	return lc
}

// bindOrdinal fills the lookup and library of an import from its library
// ordinal (see the top of the file); lim is a limitation when the ordinal
// names no dylib.
func (lc *machoLoadInfo) bindOrdinal(im *linkImport, ordinal int) (lim string) {
	all := make([]string, len(lc.dylibs))
	for i, d := range lc.dylibs {
		all[i] = d.name
	}
	switch {
	case lc.flags&mhTwoLevel == 0:
		im.lookup, im.searchOrder = provider.LookupSearch, all
		if ordinal >= 1 && ordinal <= len(lc.dylibs) {
			im.recorded = lc.dylibs[ordinal-1].name
		}
	case ordinal == -2 || ordinal == -3:
		im.lookup, im.searchOrder = provider.LookupSearch, all
	case ordinal == 0:
		im.lookup, im.library = provider.LookupSelf, lc.id
	case ordinal == -1:
		im.lookup = provider.LookupMainExecutable
	case ordinal >= 1 && ordinal <= len(lc.dylibs):
		d := lc.dylibs[ordinal-1]
		im.lookup, im.library = provider.LookupLibrary, d.name
		im.weak = im.weak || d.kind == "weak_dylib"
	default:
		im.lookup, im.searchOrder = provider.LookupSearch, all
		return fmt.Sprintf("an import has library ordinal %d, which names no dylib command; it is treated as a flat lookup", ordinal)
	}
	return ""
}

// machoExports locates the export trie and what its entries refer to.
type machoExports struct {
	trie   [2]uint64
	base   uint64
	dylibs []machoDylib
}

// machoBind is one bind: a slot, its symbol, library ordinal and flags.
type machoBind struct {
	addr    uint64
	name    string
	ordinal int
	weak    bool
}

// maxMachOBinds bounds the binds one opcode stream may produce.
const maxMachOBinds = 1 << 20

// machoBinds interprets a bind or lazy-bind opcode stream (mach-o/loader.h
// BIND_OPCODE_*) over the segments segs (by segment command index) with
// pointers of ptr bytes. A lazy stream's DONE ends one entry, a regular
// one's the stream. Damage ends the stream with a limitation.
func machoBinds(ops []byte, lazy bool, segs []uint64, ptr uint64) ([]machoBind, []string) {
	var out []machoBind
	var name string
	var weak bool
	ordinal, seg := 0, -1
	var off uint64
	p := 0
	bad := func(what string) []string {
		return []string{"the bind opcodes are damaged (" + what + "); the binds after it are not read"}
	}
	uleb := func() (uint64, bool) {
		v, n := uleb128(ops[p:])
		if n == 0 {
			return 0, false
		}
		p += n
		return v, true
	}
	bind := func() bool {
		if seg < 0 || seg >= len(segs) || len(out) >= maxMachOBinds {
			return false
		}
		out = append(out, machoBind{addr: segs[seg] + off, name: name, ordinal: ordinal, weak: weak})
		return true
	}
	for p < len(ops) {
		op, imm := ops[p]&0xf0, ops[p]&0x0f
		p++
		switch op {
		case 0x00: // DONE
			if !lazy {
				return out, nil
			}
		case 0x10: // SET_DYLIB_ORDINAL_IMM
			ordinal = int(imm)
		case 0x20: // SET_DYLIB_ORDINAL_ULEB
			v, ok := uleb()
			if !ok || v > 0xffff {
				return out, bad("dylib ordinal")
			}
			ordinal = int(v)
		case 0x30: // SET_DYLIB_SPECIAL_IMM: 0, -1, -2, -3
			ordinal = 0
			if imm != 0 {
				ordinal = int(int8(0xf0 | imm))
			}
		case 0x40: // SET_SYMBOL_TRAILING_FLAGS_IMM, then the name
			j := bytes.IndexByte(ops[p:], 0)
			if j < 0 {
				return out, bad("symbol name")
			}
			name, weak = string(ops[p:p+j]), imm&bindWeakImport != 0
			p += j + 1
		case 0x50: // SET_TYPE_IMM
		case 0x60: // SET_ADDEND_SLEB
			if _, ok := uleb(); !ok {
				return out, bad("addend")
			}
		case 0x70: // SET_SEGMENT_AND_OFFSET_ULEB
			v, ok := uleb()
			if !ok {
				return out, bad("segment offset")
			}
			seg, off = int(imm), v
		case 0x80: // ADD_ADDR_ULEB
			v, ok := uleb()
			if !ok {
				return out, bad("address increment")
			}
			off += v
		case 0x90: // DO_BIND
			if !bind() {
				return out, bad("bind outside the segments")
			}
			off += ptr
		case 0xa0: // DO_BIND_ADD_ADDR_ULEB
			v, ok := uleb()
			if !ok || !bind() {
				return out, bad("bind outside the segments")
			}
			off += v + ptr
		case 0xb0: // DO_BIND_ADD_ADDR_IMM_SCALED
			if !bind() {
				return out, bad("bind outside the segments")
			}
			off += uint64(imm)*ptr + ptr
		case 0xc0: // DO_BIND_ULEB_TIMES_SKIPPING_ULEB
			n, ok1 := uleb()
			skip, ok2 := uleb()
			if !ok1 || !ok2 {
				return out, bad("bind count")
			}
			for ; n > 0; n-- {
				if !bind() {
					return out, bad("bind outside the segments")
				}
				off += skip + ptr
			}
		case 0xd0: // THREADED (arm64e)
			return out, []string{"threaded binds (arm64e) are not read; their imports come from the symbol table"}
		default:
			return out, bad(fmt.Sprintf("opcode 0x%02x", op))
		}
	}
	return out, nil
}

// uleb128 decodes an unsigned LEB128 value; n is 0 when it is truncated or
// longer than 64 bits. (A SLEB is skipped the same way.)
func uleb128(b []byte) (v uint64, n int) {
	var shift uint
	for i, c := range b {
		if shift >= 64 || shift == 63 && c > 1 {
			return 0, 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, i + 1
		}
		shift += 7
	}
	return 0, 0
}

// machoTerminal is an export trie entry.
type machoTerminal struct {
	flags    uint64
	value    uint64 // offset from the base, or the absolute value
	ordinal  uint64 // re-export: the dylib ordinal
	imported string // re-export: the name in that dylib ("" = the same)
}

// machoTrieLookup walks the export trie for name, as dyld's trie walk does:
// from each node, the child whose edge label prefixes the rest of the name,
// until the name is consumed at a node with terminal information. A damaged
// trie (an offset outside it, a loop, a truncated number) is an error.
func machoTrieLookup(trie []byte, name string) (machoTerminal, bool, error) {
	var t machoTerminal
	p := uint64(0)
	rest := name
	for steps := 0; ; steps++ {
		if p >= uint64(len(trie)) || steps > len(name)+1 {
			return t, false, fmt.Errorf("export trie node offset %d out of range or looping", p)
		}
		size, n := uleb128(trie[p:])
		if n == 0 {
			return t, false, fmt.Errorf("export trie: truncated terminal size at %d", p)
		}
		info := p + uint64(n)
		if rest == "" {
			if size == 0 {
				return t, false, nil
			}
			if size > uint64(len(trie))-info {
				return t, false, fmt.Errorf("export trie: terminal at %d runs past the trie", p)
			}
			return decodeTerminal(trie[info : info+size])
		}
		if size > uint64(len(trie))-info {
			return t, false, fmt.Errorf("export trie: terminal at %d runs past the trie", p)
		}
		c := info + size
		if c >= uint64(len(trie)) {
			return t, false, fmt.Errorf("export trie: node at %d has no child count", p)
		}
		count := int(trie[c])
		c++
		next := uint64(0)
		for i := 0; i < count; i++ {
			j := bytes.IndexByte(trie[c:], 0)
			if j < 0 {
				return t, false, fmt.Errorf("export trie: unterminated edge at %d", c)
			}
			edge := trie[c : c+uint64(j)]
			c += uint64(j) + 1
			off, n := uleb128(trie[c:])
			if n == 0 {
				return t, false, fmt.Errorf("export trie: truncated child offset at %d", c)
			}
			c += uint64(n)
			if len(edge) > 0 && len(edge) <= len(rest) && rest[:len(edge)] == string(edge) {
				next, rest = off, rest[len(edge):]
				break
			}
		}
		if next == 0 {
			return t, false, nil
		}
		p = next
	}
}

func decodeTerminal(b []byte) (machoTerminal, bool, error) {
	var t machoTerminal
	flags, n := uleb128(b)
	if n == 0 {
		return t, false, fmt.Errorf("export trie: truncated flags")
	}
	t.flags, b = flags, b[n:]
	v, n := uleb128(b)
	if n == 0 {
		return t, false, fmt.Errorf("export trie: truncated value")
	}
	b = b[n:]
	if flags&exportReexport != 0 {
		t.ordinal = v
		if j := bytes.IndexByte(b, 0); j >= 0 {
			t.imported = string(b[:j])
		}
		return t, true, nil
	}
	t.value = v // a stub-and-resolver entry's stub; its resolver follows
	return t, true, nil
}

func buildMachOLink(ctx context.Context, img *image, data []byte) (*linkIndex, error) {
	lc := machoLoads(img, data)
	lx := &linkIndex{soname: lc.id, byAddr: map[uint64]int{},
		macho: &machoExports{trie: lc.trie, base: lc.base, dylibs: lc.dylibs}}
	lx.limitations = append(lx.limitations, lc.lims...)
	if !lc.header {
		return lx, nil
	}
	bound := func(im *linkImport, ordinal int) {
		if lim := lc.bindOrdinal(im, ordinal); lim != "" {
			lx.limitations = addOnce(lx.limitations, lim)
		}
	}
	type key struct {
		name    string
		ordinal int
	}
	byKey := map[key]int{}
	add := func(name string, ordinal int, weak bool, slot uint64, hasSlot bool) int {
		k, ok := byKey[key{name, ordinal}]
		if !ok {
			im := linkImport{name: name, weak: weak}
			bound(&im, ordinal)
			k = len(lx.imports)
			byKey[key{name, ordinal}] = k
			lx.imports = append(lx.imports, im)
		}
		if im := &lx.imports[k]; hasSlot && !im.hasSlot {
			im.slot, im.hasSlot = slot, true
		}
		if _, dup := lx.byAddr[slot]; hasSlot && !dup {
			lx.byAddr[slot] = k
		}
		return k
	}
	ptr := uint64(4)
	if img.is64 {
		ptr = 8
	}
	fromBinds := false
	for _, s := range []struct {
		at   [2]uint64
		lazy bool
	}{{lc.bind, false}, {lc.lazyBind, true}} {
		if s.at[1] == 0 {
			continue
		}
		if s.at[0] > uint64(len(data)) || s.at[1] > uint64(len(data))-s.at[0] {
			lx.limitations = append(lx.limitations, "the bind opcodes lie outside the file; their imports come from the symbol table")
			continue
		}
		binds, lims := machoBinds(data[s.at[0]:s.at[0]+s.at[1]], s.lazy, lc.segs, ptr)
		lx.limitations = append(lx.limitations, lims...)
		for _, b := range binds {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			add(b.name, b.ordinal, b.weak, b.addr, true)
			fromBinds = true
		}
	}
	if c := lc.chained; c[1] != 0 {
		if c[0] > uint64(len(data)) || c[1] > uint64(len(data))-c[0] {
			lx.limitations = append(lx.limitations, "the chained fixups lie outside the file; their imports come from the symbol table")
		} else {
			binds, lims := machoChainedBinds(data, data[c[0]:c[0]+c[1]], lc.base, lc.segs, lc.segFile)
			lx.limitations = append(lx.limitations, lims...)
			for i, b := range binds {
				if i&4095 == 0 {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
				}
				add(b.name, b.ordinal, b.weak, b.addr, true)
				fromBinds = true
			}
		}
	}
	// The symbol table: the imports when there are no binds, and the
	// stubs and pointer sections by indirect symbol.
	info := img.macho
	t := info.symtab
	undef := func(idx uint32) (string, int, bool, bool) { // name, ordinal, weak, ok
		if !info.hasSymtab || uint64(idx) >= t.size/t.entsize {
			return "", 0, false, false
		}
		e := t.off + uint64(idx)*t.entsize
		if e > uint64(len(data)) || t.entsize > uint64(len(data))-e {
			return "", 0, false, false
		}
		p := data[e:]
		typ, desc := p[4], img.bo.Uint16(p[6:])
		if typ&nStab != 0 || typ&nTypeMask != nUndf || typ&nExt == 0 {
			return "", 0, false, false
		}
		o, n, ok := cstring(data, t.strOff, satAdd(t.strOff, t.strSize), uint64(img.bo.Uint32(p)))
		if !ok || n == 0 {
			return "", 0, false, false
		}
		ord := int(desc >> 8)
		if ord >= 0xfe {
			ord -= 0x100 // 0xff main executable, 0xfe dynamic lookup
		}
		return string(data[o : o+uint64(n)]), ord, desc&nWeakRef != 0, true
	}
	if !fromBinds && info.hasSymtab {
		for i := uint64(0); i < t.size/t.entsize; i++ {
			if i&4095 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if name, ord, weak, ok := undef(uint32(i)); ok {
				add(name, ord, weak, 0, false)
			}
		}
		for _, ps := range info.ptrs {
			for i := uint64(0); i < ps.size/uint64(ps.width); i++ {
				k := uint64(ps.first) + i
				if k >= uint64(len(info.indirect)) {
					break
				}
				if name, ord, weak, ok := undef(info.indirect[k]); ok {
					add(name, ord, weak, ps.addr+i*uint64(ps.width), true)
				}
			}
		}
	}
	for _, st := range info.stubs {
		for i := uint64(0); i < st.size/uint64(st.width); i++ {
			k := uint64(st.first) + i
			if k >= uint64(len(info.indirect)) {
				break
			}
			name, ord, _, ok := undef(info.indirect[k])
			if !ok {
				continue
			}
			j, ok := byKey[key{name, ord}]
			if !ok {
				for n, i := range lx.imports { // the binds may give another ordinal (flat lookup)
					if i.name == name {
						j, ok = n, true
						break
					}
				}
			}
			if !ok {
				continue
			}
			a := st.addr + i*uint64(st.width)
			if im := &lx.imports[j]; !im.hasStub {
				im.stub, im.hasStub = a, true
			}
			if _, dup := lx.byAddr[a]; !dup {
				lx.byAddr[a] = j
			}
		}
	}
	return lx, nil
}

// lookup finds name (or "_"+name) in the export trie.
func (x *machoExports) lookup(data []byte, name string) (provider.Export, uint64, bool, error) {
	if x.trie[1] == 0 {
		return provider.Export{}, 0, false, nil
	}
	if x.trie[0] > uint64(len(data)) || x.trie[1] > uint64(len(data))-x.trie[0] {
		return provider.Export{Limitations: []string{"the export trie lies outside the file; no export is known"}}, 0, false, nil
	}
	trie := data[x.trie[0] : x.trie[0]+x.trie[1]]
	t, found, err := machoTrieLookup(trie, name)
	if err == nil && !found && len(name) > 0 && name[0] != '_' {
		name = "_" + name
		t, found, err = machoTrieLookup(trie, name)
	}
	if err != nil {
		return provider.Export{Limitations: []string{"the export trie is damaged (" + err.Error() + "); the lookup stopped there"}}, 0, false, nil
	}
	if !found {
		return provider.Export{}, 0, false, nil
	}
	switch {
	case t.flags&exportReexport != 0:
		if t.ordinal < 1 || t.ordinal > uint64(len(x.dylibs)) {
			return provider.Export{Limitations: []string{fmt.Sprintf("the export is re-exported from dylib ordinal %d, which names no dylib command", t.ordinal)}}, 0, false, nil
		}
		f := &provider.Forwarder{Library: x.dylibs[t.ordinal-1].name, Name: t.imported}
		if f.Name == "" {
			f.Name = name
		}
		return provider.Export{Forwarder: f}, 0, true, nil
	case t.flags&exportKindMask == exportAbsolute:
		return provider.Export{}, t.value, true, nil
	}
	var out provider.Export
	if t.flags&exportStubAndResolve != 0 {
		out.Limitations = []string{"the export has a resolver: its address is the stub, which the resolver's answer replaces at bind time"}
	}
	return out, x.base + t.value, true, nil
}

// maxChainSteps bounds the pointers one chained-fixup walk reads.
const maxChainSteps = 1 << 22

// machoChainedBinds reads LC_DYLD_CHAINED_FIXUPS (mach-o/fixup-chains.h):
// the imports table, then each page's chain of pointers in data (the
// image's bytes), returning the pointers that bind an import. A pointer's
// address is base plus its segment's offset from the header. Pointer
// formats without binds (caches, firmware) and damage are limitations.
func machoChainedBinds(data, fix []byte, base uint64, segs, segFile []uint64) ([]machoBind, []string) {
	le := func(b []byte, at uint64, n int) (uint64, bool) { return readU(b, binary.LittleEndian, at, n) }
	bad := func(what string) []string {
		return []string{"the chained fixups are damaged (" + what + "); the binds after it are not read"}
	}
	hdr := func(at uint64) uint64 { v, _ := le(fix, at, 4); return v }
	if len(fix) < 28 || hdr(0) != 0 {
		return nil, bad("header")
	}
	startsOff, importsOff, symbolsOff, count, format := hdr(4), hdr(8), hdr(12), hdr(16), hdr(20)
	if hdr(24) != 0 {
		return nil, []string{"the chained fixups' symbol names are compressed; their imports come from the symbol table"}
	}
	type imported struct {
		name    string
		ordinal int
		weak    bool
	}
	width := map[uint64]uint64{1: 4, 2: 8, 3: 16}[format]
	if width == 0 || count > uint64(len(fix))/width || importsOff > uint64(len(fix))-count*width {
		return nil, bad("imports table")
	}
	imports := make([]imported, count)
	for i := range imports {
		at := importsOff + uint64(i)*width
		var ord, nameOff uint64
		var weak bool
		if format == 3 {
			v, _ := le(fix, at, 8)
			ord, weak, nameOff = v&0xffff, v>>16&1 != 0, v>>32
			if ord >= 0xfff0 {
				ord |= ^uint64(0xffff) // negative: a special ordinal
			}
		} else {
			v, _ := le(fix, at, 4)
			ord, weak, nameOff = v&0xff, v>>8&1 != 0, v>>9
			if ord >= 0xf0 {
				ord |= ^uint64(0xff)
			}
		}
		o, n, ok := cstring(fix, symbolsOff, uint64(len(fix)), nameOff)
		if !ok || n == 0 {
			return nil, bad("import name")
		}
		imports[i] = imported{string(fix[o : o+uint64(n)]), int(int64(ord)), weak}
	}
	var out []machoBind
	var lims []string
	nsegs, ok := le(fix, startsOff, 4)
	if !ok || nsegs > uint64(len(segs)) {
		return nil, bad("segment count")
	}
	steps := 0
	for s := uint64(0); s < nsegs; s++ {
		so, ok := le(fix, startsOff+4+4*s, 4)
		if !ok {
			return out, bad("segment starts")
		}
		if so == 0 {
			continue // no fixups in this segment
		}
		seg := startsOff + so
		pageSize, ok1 := le(fix, seg+4, 2)
		ptrFormat, ok2 := le(fix, seg+6, 2)
		segOff, ok3 := le(fix, seg+8, 8)
		pages, ok4 := le(fix, seg+20, 2)
		if !ok1 || !ok2 || !ok3 || !ok4 || pageSize == 0 {
			return out, bad("segment starts")
		}
		// stride, pointer size, and the bind bit, ordinal bits and next bits of a pointer
		var stride, size, bindBit, ordBits, nextShift, nextBits uint64
		switch ptrFormat {
		case 1, 9, 12: // ARM64E, ARM64E_USERLAND, ARM64E_USERLAND24
			stride, size, bindBit, ordBits, nextShift, nextBits = 8, 8, 62, 16, 51, 11
			if ptrFormat == 12 {
				ordBits = 24
			}
		case 7, 10: // ARM64E_KERNEL, ARM64E_FIRMWARE
			stride, size, bindBit, ordBits, nextShift, nextBits = 4, 8, 62, 16, 51, 11
		case 2, 6: // 64, 64_OFFSET
			stride, size, bindBit, ordBits, nextShift, nextBits = 4, 8, 63, 24, 51, 12
		case 3: // 32
			stride, size, bindBit, ordBits, nextShift, nextBits = 4, 4, 31, 20, 26, 5
		default:
			lims = addOnce(lims, fmt.Sprintf("chained fixups of pointer format %d bind no imports here and are not read", ptrFormat))
			continue
		}
		if s >= uint64(len(segFile)) {
			return out, bad("segment index")
		}
		for p := uint64(0); p < pages; p++ {
			start, ok := le(fix, seg+22+2*p, 2)
			if !ok {
				return out, bad("page starts")
			}
			if start == 0xffff { // DYLD_CHAINED_PTR_START_NONE
				continue
			}
			if start&0x8000 != 0 { // DYLD_CHAINED_PTR_START_MULTI (32-bit formats)
				lims = addOnce(lims, "chained fixups with several chains per page are not read")
				continue
			}
			for off := start; ; {
				if steps++; steps > maxChainSteps {
					return out, append(lims, "the chained fixups hold more pointers than are read; the rest are missing")
				}
				if off+size > pageSize {
					return out, bad("a chain leaves its page")
				}
				at := segFile[s] + p*pageSize + off
				v, ok := le(data, at, int(size))
				if !ok {
					return out, bad("a chain lies outside the file")
				}
				if v>>bindBit&1 != 0 {
					k := v & (1<<ordBits - 1)
					if k >= uint64(len(imports)) {
						return out, bad("an import index")
					}
					im := imports[k]
					out = append(out, machoBind{addr: base + segOff + p*pageSize + off, name: im.name, ordinal: im.ordinal, weak: im.weak})
				}
				next := v >> nextShift & (1<<nextBits - 1)
				if next == 0 {
					break
				}
				off += next * stride
			}
		}
	}
	return out, lims
}
