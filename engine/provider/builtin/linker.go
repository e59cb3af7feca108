package builtin

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// The loader's facts about one target (CONTRACTS.md §15.4), for the engine's
// resolve_import: the name other images' dependencies use for it, its
// imports with what binds each one (ELF version needs, PE DLLs, Mach-O
// two-level ordinals) and its exports looked up as the loader looks them up
// (linker_elf.go, linker_pe.go, linker_macho.go). The engine asks each open
// target and decides across them; the provider reads its own bytes only.
//
// The import table is built once per index (linkIndex) from the dynamic
// tables the loader reads; names at addresses come from the symbol index, so
// an export is named as list_procedures names it.

// resolve_import is answered by the engine through provider.Linker; Do
// reports it as not an operation of its own.

var _ provider.Linker = (*Client)(nil)

// linkIndex is a target's imports and the format's export table.
type linkIndex struct {
	soname  string       // ELF DT_SONAME, Mach-O LC_ID_DYLIB ("" when none; PE names itself by its path)
	imports []linkImport // in the order of the format's tables
	// byAddr maps stub and slot addresses to imports indexes; any other
	// address (a PLT stub of a symbol the image defines, code) is not an
	// import.
	byAddr      map[uint64]int
	limitations []string

	elf   *elfExports
	pe    *peExportTable
	macho *machoExports
}

// linkImport is one import as the format's tables give it.
type linkImport struct {
	name        string
	version     string // ELF vernaux name
	library     string // "" when the format binds no library
	lookup      string // provider.Lookup*
	searchOrder []string
	ordinal     int // PE import by ordinal (byOrdinal)
	byOrdinal   bool
	weak        bool
	stub, slot  uint64
	hasStub     bool
	hasSlot     bool
	// recorded is the library a flat-namespace Mach-O import's ordinal
	// names, which dyld does not use (a limitation says so).
	recorded string
}

func (im *linkImport) answer() provider.Import {
	out := provider.Import{Name: im.name, Weak: im.weak, Lookup: im.lookup}
	if im.version != "" {
		out.Version = strp(im.version)
	}
	if im.library != "" {
		out.Library = strp(im.library)
	}
	if im.byOrdinal {
		out.Ordinal = intp(im.ordinal)
	}
	if im.lookup == provider.LookupSearch {
		out.SearchOrder = append([]string{}, im.searchOrder...)
	}
	if im.recorded != "" {
		out.Limitations = []string{"the image is flat-namespace (no MH_TWOLEVEL): dyld looks the import up in every loaded image in order; the static linker recorded " + im.recorded + " for it"}
	}
	switch {
	case im.hasStub:
		out.Address = strp(provider.FormatAddress(im.stub))
	case im.hasSlot:
		out.Address = strp(provider.FormatAddress(im.slot))
	}
	return out
}

// addImport appends im and indexes its addresses.
func (lx *linkIndex) addImport(im linkImport) {
	if lx.byAddr == nil {
		lx.byAddr = map[uint64]int{}
	}
	k := len(lx.imports)
	lx.imports = append(lx.imports, im)
	lx.indexAddr(k)
}

func (lx *linkIndex) indexAddr(k int) {
	im := &lx.imports[k]
	for _, a := range []struct {
		at uint64
		ok bool
	}{{im.stub, im.hasStub}, {im.slot, im.hasSlot}} {
		if _, dup := lx.byAddr[a.at]; a.ok && !dup {
			lx.byAddr[a.at] = k
		}
	}
}

// linkOp runs one Linker call under the client's lock with the index
// built: a closed client is provider_unavailable, a panic (a mapping that
// shrank underneath) execution_failure.
func (c *Client) linkOp(ctx context.Context, fn func(lx *linkIndex) error) (err error) {
	const op = provider.OpResolveImport
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return fault.New(fault.ProviderUnavailable, "The analysis client is closed.",
			"Open the target again.", map[string]any{"operation": op, "provider_id": ProviderID})
	}
	c.reg.enter(op, c.e)
	defer func() { // last: what the call built is accounted (registry.go)
		if lerr := c.reg.leave(op, c.e); lerr != nil && err == nil {
			err = lerr
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fault.Internal(op, panicError(r))
		}
	}()
	if err := ctx.Err(); err != nil {
		return buildFault(op, err)
	}
	lx, err := c.ix.link.get(ctx, func(ctx context.Context) (*linkIndex, error) {
		return c.buildLink(ctx)
	})
	if err != nil {
		return buildFault(op, err)
	}
	return fn(lx)
}

func (c *Client) buildLink(ctx context.Context) (*linkIndex, error) {
	switch img := c.ix.img; {
	case img.elf != nil:
		return buildELFLink(ctx, img, c.data)
	case img.pe != nil:
		six, err := c.symbols(ctx, provider.OpResolveImport, progress.Nop{}) // IAT thunks are found by the symbol pass
		if err != nil {
			return nil, err
		}
		return buildPELink(ctx, img, c.data, six)
	case img.macho != nil:
		return buildMachOLink(ctx, img, c.data)
	}
	return &linkIndex{}, nil
}

// LibraryName implements provider.Linker.
func (c *Client) LibraryName(ctx context.Context) (string, error) {
	var name string
	err := c.linkOp(ctx, func(lx *linkIndex) error {
		name = lx.soname
		if c.ix.img.pe != nil {
			name = filepath.Base(c.path)
		}
		return nil
	})
	return name, err
}

// Import implements provider.Linker.
func (c *Client) Import(ctx context.Context, q provider.ImportQuery) (provider.Import, error) {
	const op = provider.OpResolveImport
	if (q.Name == "") == (q.Address == "") {
		return provider.Import{}, fault.Invalid(op, fault.Issue{Path: "", Reason: "invalid_value",
			Message: "Exactly one of name and address is required."})
	}
	var addr uint64
	if q.Address != "" {
		a, err := provider.ParseAddress(q.Address)
		if err != nil {
			return provider.Import{}, fault.Invalid(op, fault.Issue{Path: "/address", Reason: "invalid_format"})
		}
		addr = a
	}
	var out provider.Import
	var lims []string
	err := c.linkOp(ctx, func(lx *linkIndex) error {
		lims = linkLimitations(lx)
		if q.Address != "" {
			out = lx.importAt(addr)
			return nil
		}
		var err error
		out, err = lx.importNamed(c.ix.img, q.Name)
		if err == nil && out.NotAnImport && c.ix.img.macho != nil && !strings.HasPrefix(q.Name, "_") {
			out, err = lx.importNamed(c.ix.img, "_"+q.Name) // the C name of a Mach-O symbol
		}
		return err
	})
	if err != nil {
		return provider.Import{}, err
	}
	out.Limitations = append(out.Limitations, lims...)
	return out, nil
}

// linkLimitations are the index's limitations, read during the call that
// used lx (after it, the registry may release the index: registry.go).
func linkLimitations(lx *linkIndex) []string {
	if len(lx.limitations) == 0 {
		return nil
	}
	return append([]string{}, lx.limitations...)
}

func (lx *linkIndex) importAt(a uint64) provider.Import {
	if k, ok := lx.byAddr[a]; ok {
		return lx.imports[k].answer()
	}
	return provider.Import{NotAnImport: true}
}

// importNamed finds an import by a caller's name (parseImportName).
func (lx *linkIndex) importNamed(img *image, name string) (provider.Import, error) {
	match, err := importMatcher(img, name)
	if err != nil {
		return provider.Import{}, err
	}
	first := -1
	ambiguous := false
	for k := range lx.imports {
		if !match(&lx.imports[k]) {
			continue
		}
		if first < 0 {
			first = k
		} else if lx.imports[k].library != lx.imports[first].library || lx.imports[k].version != lx.imports[first].version {
			ambiguous = true
		}
	}
	if first < 0 {
		return provider.Import{NotAnImport: true}, nil
	}
	out := lx.imports[first].answer()
	out.Ambiguous = ambiguous
	return out, nil
}

// importMatcher parses a caller's import name for the image's format.
func importMatcher(img *image, name string) (func(*linkImport) bool, error) {
	switch {
	case img.elf != nil:
		return elfImportMatcher(name)
	case img.pe != nil:
		return peImportMatcher(name)
	default:
		return func(im *linkImport) bool { return im.name == name }, nil
	}
}

// Export implements provider.Linker.
func (c *Client) Export(ctx context.Context, q provider.ExportQuery) (provider.Export, error) {
	const op = provider.OpResolveImport
	img := c.ix.img
	switch {
	case q.Ordinal != nil && img.pe == nil:
		return provider.Export{}, fault.Invalid(op, fault.Issue{Path: "/ordinal", Reason: "invalid_value",
			Message: "Only PE exports have ordinals."})
	case q.Version != nil && img.elf == nil:
		return provider.Export{}, fault.Invalid(op, fault.Issue{Path: "/version", Reason: "invalid_value",
			Message: "Only ELF exports have symbol versions."})
	case q.Ordinal == nil && q.Name == "":
		return provider.Export{}, fault.Invalid(op, fault.Issue{Path: "/name", Reason: "missing_argument"})
	case q.Ordinal != nil && q.Name != "":
		return provider.Export{}, fault.Invalid(op, fault.Issue{Path: "/ordinal", Reason: "invalid_value",
			Message: "Give a name or an ordinal, not both."})
	}
	var out provider.Export
	var lims []string
	err := c.linkOp(ctx, func(lx *linkIndex) error {
		lims = linkLimitations(lx)
		var addr uint64
		var err error
		switch {
		case lx.elf != nil:
			out, addr, out.Found = lx.elf.lookup(q.Name, q.Version)
		case lx.pe != nil:
			out, addr, out.Found = lx.pe.lookup(img, c.data, q)
		case lx.macho != nil:
			out, addr, out.Found, err = lx.macho.lookup(c.data, q.Name)
		}
		if err != nil || !out.Found || out.Forwarder != nil {
			return err
		}
		six, err := c.symbols(ctx, op, progress.Nop{})
		if err != nil {
			return err
		}
		out.Address = provider.FormatAddress(addr)
		n := c.namer(six)
		if name, ok := n.displayName(addr); ok {
			out.Name = name
		} else {
			out.Name = q.Name // no symbol names the address (a stripped image's export)
		}
		out.Limitations = append(out.Limitations, n.limitations()...)
		return nil
	})
	if err != nil {
		return provider.Export{}, err
	}
	out.Limitations = append(out.Limitations, lims...)
	return out, nil
}
