package builtin

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"strings"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// ELF imports and exports as glibc's loader binds them (elf/dl-lookup.c
// check_match, elf/dl-version.c):
//
//   - An import is an undefined GLOBAL or WEAK dynamic symbol, or a symbol
//     an executable defines by a copy relocation (its data is copied from
//     the library at load time; its address is the copy). Its version
//     need (.gnu.version_r) names the version and the file that must define
//     it; an import without one is searched for in DT_NEEDED order. Its
//     address is the PLT stub (.plt, .plt.sec, .plt.got) whose jump goes
//     through its JUMP_SLOT or GLOB_DAT slot, else the slot.
//   - An export is a defined GLOBAL, WEAK or GNU_UNIQUE dynamic symbol whose
//     visibility is default or protected, of a type the loader binds
//     (NOTYPE, OBJECT, FUNC, COMMON, GNU_IFUNC; not TLS, whose value is no
//     address) with a non-zero value.
//   - A versioned lookup takes the definition of that version (a hidden,
//     non-default one too: the import names it); the version must be one
//     the library defines (the loader refuses to load the file a version
//     need names without it; the lookup assumes it is that file). glibc also
//     accepts an unversioned (base) definition for it, and any definition
//     from a library without symbol versions.
//   - An unversioned lookup (a reference from an object linked without
//     versions) takes an unversioned definition or one of the first
//     defined version (index 2), hidden or not: glibc gives old binaries the
//     oldest version. Otherwise it takes the one non-hidden (default)
//     version; two non-hidden versions match nothing.

// stbGNUUnique is STB_GNU_UNIQUE, a binding debug/elf does not name.
const stbGNUUnique = elf.SymBind(10)

type elfExports struct {
	defs      map[string][]elfDef
	versioned bool            // the image has .gnu.version
	verdefs   map[string]bool // version names it defines (the base excluded)
}

type elfDef struct {
	addr    uint64
	ndx     uint16 // version index (0 local, 1 base/global, 2.. defined versions)
	hidden  bool
	version string // the version definition's name, for ndx >= 2
}

func buildELFLink(ctx context.Context, img *image, data []byte) (*linkIndex, error) {
	lx := &linkIndex{elf: &elfExports{defs: map[string][]elfDef{}, verdefs: map[string]bool{}}}
	var needed []string
	if d, err := readElfDeps(data); err == nil {
		lx.soname, needed = d.soname, d.needed
		lx.limitations = append(lx.limitations, d.damage...)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		lx.limitations = append(lx.limitations, "the ELF headers could not be read for dynamic symbols; no imports or exports are known")
		return lx, nil
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		if !errors.Is(err, elf.ErrNoSymbols) {
			lx.limitations = append(lx.limitations, "the dynamic symbol table could not be read; no imports or exports are known")
		}
		return lx, nil
	}
	lx.elf.versioned = f.SectionByType(elf.SHT_GNU_VERSYM) != nil
	if vers, err := f.DynamicVersions(); err == nil {
		for _, v := range vers {
			if v.Flags&elf.VER_FLG_BASE == 0 {
				lx.elf.verdefs[v.Name] = true
			}
		}
	}
	// Copy relocations: the executable's copy of a library's data.
	copies := map[uint32]uint64{} // dynamic symbol index -> the copy's address
	if err := eachDynReloc(img, data, func(r dynReloc, _ bool) (bool, error) {
		if relocKind(img.elf.machine, r.typ) == relocCopy && r.sym != 0 {
			copies[r.sym] = r.off
		}
		return true, ctx.Err()
	}); err != nil {
		return nil, err
	}
	impOf := map[uint32]int{} // dynamic symbol index -> imports index
	for i, s := range syms {
		if i&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		bind, typ := elf.ST_BIND(s.Info), elf.ST_TYPE(s.Info)
		if s.Name == "" || bind != elf.STB_GLOBAL && bind != elf.STB_WEAK && bind != stbGNUUnique {
			continue
		}
		copyAt, copied := copies[uint32(i+1)]
		if s.Section == elf.SHN_UNDEF || copied {
			im := linkImport{name: s.Name, version: s.Version, library: s.Library, weak: bind == elf.STB_WEAK,
				slot: copyAt, hasSlot: copied}
			if im.library != "" {
				im.lookup = provider.LookupLibrary
			} else {
				im.lookup, im.searchOrder = provider.LookupSearch, needed
			}
			impOf[uint32(i+1)] = len(lx.imports)
			lx.imports = append(lx.imports, im)
			if !copied {
				continue
			}
		}
		switch elf.ST_VISIBILITY(s.Other) {
		case elf.STV_HIDDEN, elf.STV_INTERNAL:
			continue
		}
		switch typ {
		case elf.STT_NOTYPE, elf.STT_OBJECT, elf.STT_FUNC, elf.STT_COMMON, elf.STT_GNU_IFUNC:
		default:
			continue
		}
		if s.Value == 0 {
			continue
		}
		v := s.Value
		if img.elf.machine == elf.EM_ARM && (typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC) {
			v &^= 1 // the Thumb bit is no part of the address
		}
		def := elfDef{addr: v, ndx: s.VersionIndex.Index(), hidden: s.HasVersion && s.VersionIndex.IsHidden()}
		if !s.HasVersion {
			def.ndx = 1
		}
		if def.ndx >= 2 {
			def.version = s.Version
		}
		lx.elf.defs[s.Name] = append(lx.elf.defs[s.Name], def)
	}
	// Slots and stubs: the dynamic relocations and the PLT entries that
	// jump through them (elf.go).
	tick := func() error { return ctx.Err() }
	rels, err := elfDynRelocs(img, data, tick)
	if err != nil {
		return nil, err
	}
	stubs, err := pltStubsOf(img, data, rels, tick)
	if err != nil {
		return nil, err
	}
	for _, r := range rels {
		if k, ok := impOf[r.sym]; ok && r.sym != 0 && !lx.imports[k].hasSlot {
			lx.imports[k].slot, lx.imports[k].hasSlot = r.off, true
		}
	}
	for _, st := range stubs {
		if k, ok := impOf[st.sym]; ok && st.sym != 0 && !lx.imports[k].hasStub {
			lx.imports[k].stub, lx.imports[k].hasStub = st.addr, true
		}
	}
	for k := range lx.imports {
		if lx.byAddr == nil {
			lx.byAddr = map[uint64]int{}
		}
		lx.indexAddr(k)
	}
	return lx, nil
}

// elfImportMatcher parses "name" or "name@VERSION" (split on the first '@').
func elfImportMatcher(name string) (func(*linkImport) bool, error) {
	base, ver, versioned := strings.Cut(name, "@")
	if !versioned {
		return func(im *linkImport) bool { return im.name == name }, nil
	}
	if strings.HasPrefix(ver, "@") {
		return nil, fault.Invalid(provider.OpResolveImport, fault.Issue{Path: "/name", Reason: "invalid_format",
			Message: "name@@VERSION names a default version definition, not an import; write name@VERSION."})
	}
	if base == "" || ver == "" {
		return nil, fault.Invalid(provider.OpResolveImport, fault.Issue{Path: "/name", Reason: "invalid_format",
			Message: "Write name or name@VERSION."})
	}
	return func(im *linkImport) bool { return im.name == base && im.version == ver }, nil
}

// lookup finds name (with version, when the import is versioned) as
// check_match does; see the comment at the top of the file.
func (x *elfExports) lookup(name string, version *string) (provider.Export, uint64, bool) {
	defs := x.defs[name]
	answer := func(d elfDef) (provider.Export, uint64, bool) {
		var out provider.Export
		if d.version != "" {
			out.Version = strp(d.version)
		}
		return out, d.addr, true
	}
	if len(defs) == 0 {
		return provider.Export{}, 0, false
	}
	if !x.versioned {
		out, a, ok := answer(defs[0])
		if version != nil {
			out.Limitations = []string{"the library has no symbol versions; the loader accepts its definition for any version"}
		}
		return out, a, ok
	}
	if version != nil {
		if !x.verdefs[*version] {
			return provider.Export{}, 0, false // the loader refuses a library without the needed version
		}
		for _, d := range defs {
			if d.version == *version {
				return answer(d)
			}
		}
		for _, d := range defs {
			if d.ndx <= 1 && !d.hidden {
				out, a, ok := answer(d)
				out.Limitations = []string{"no definition has version " + *version + "; the loader accepts the unversioned definition"}
				return out, a, ok
			}
		}
		return provider.Export{}, 0, false
	}
	var only *elfDef
	n := 0
	for i, d := range defs {
		if d.ndx < 3 {
			return answer(d)
		}
		if !d.hidden {
			n++
			only = &defs[i]
		}
	}
	if n == 1 {
		return answer(*only)
	}
	return provider.Export{}, 0, false
}
