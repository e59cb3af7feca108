// Package builtin is REA's embedded default analyzer: a pure-Go, in-process
// provider for ELF, PE and Mach-O (including universal) executables on x86,
// x86_64, arm and arm64 (CONTRACTS.md §3.5, §3.6, §2.2).
//
// Design: a target is memory-mapped read-only once per file identity (content
// sha256, profile digest) while a client holds it; headers are parsed eagerly
// (cheap), and each derived index (symbols/procedures, strings) is built once
// per identity on first use and shared by every client of the process through
// the registry (registry.go), which bounds their memory by REA_MEMORY_LIMIT
// (CONTRACTS.md §0.3 "Resources"). Indexes hold offsets into the file, not
// copies of it, and results are materialized one page at a time. The code
// operations add lazy indexes next to syms and strs: procedure extents (ext),
// DWARF line rows (lines) and the reference index (refs); each procedure is
// decoded on demand (disasm.go, code.go).
//
// Decisions recorded here (they shape results and so Evidence):
//
//   - Segments: ELF PT_LOAD headers named "LOAD[i]" (i = ordinal among PT_LOAD),
//     with the allocated sections whose address range they contain (.tbss
//     excluded); PE sections, each listing itself as its one section; Mach-O
//     segments with a size and some protection (so not __PAGEZERO), their
//     sections named "SEGMENT,section" (unique, as otool writes them;
//     SEGMENT is the section header's own, so an object file's sections
//     read __TEXT,__text although their one segment is unnamed).
//   - Names: defined symbols of every symbol table (ELF .symtab and .dynsym,
//     COFF, Mach-O nlist) except section, file and TLS symbols, ARM mapping
//     symbols ($a/$t/$d/$x) and value 0; PE exports (unnamed ones as
//     "Ordinal_N"); imports named at their PLT stub (ELF x86, x86_64, arm,
//     arm64, beside the stub's own "<import>@plt"), symbol stub (Mach-O) or
//     IAT slot (PE, type "import"); an ELF import no PLT stub jumps through
//     (GLOB_DAT) is named at its GOT slot, type "import". Names are the raw
//     symbol-table strings (Mach-O keeps its leading underscore). Same address
//     and name are one entry (flags merged). One name per address is primary
//     (primaryOrder): source default < imported < analysis, function <
//     object < label < import, exported < local or an ELF compatibility
//     version (.gnu.version hidden bit), fewer leading underscores,
//     global < weak, shorter, then byte order (printf over _IO_printf).
//     A user name (set_address_name, handed over by the engine) is shown
//     instead everywhere (names.go, namer.displayName); list_names lists it
//     as the primary name with source "user_defined".
//   - Procedures (one list_procedures item per entry address, its display
//     name as value and its other names as aliases): names of type function
//     in executable sections, plus import
//     stubs (external:true, thunk:true, thunk_target:null because the target
//     lies outside the image; an ELF one valued "<import>@plt", the import's
//     name an alias), plus every other ELF PLT stub (.plt, .plt.sec,
//     .plt.got; IRELATIVE slots, static executables included), named
//     "<symbol>@plt" or "*ABS*+0x<resolver>@plt" as objdump names them,
//     thunk:true, external:false, thunk_target the definition (or the ifunc
//     resolver) in the image; a procedure whose known extent is one
//     unconditional jump out of it (after at most endbr or bti) is a jump
//     thunk, thunk:true, thunk_target its direct target or null
//     (procfilter.go, which also answers list_procedures' filters); plus
//     the entry point named "entry" (source
//     "analysis") when no procedure symbol starts there. ELF also: each
//     .eh_frame FDE start (outside PLT sections) where no procedure symbol
//     starts, the code pointers of .preinit_array/.init_array/.fini_array
//     and DT_INIT/DT_FINI and the .init/.fini section starts (named _init
//     and _fini), and direct call targets and backward tail jumps found by
//     recursive descent from code no FDE covers, and the direct call targets
//     of FDE-covered code in code neither covers (i386
//     __x86.get_pc_thunk.bx); a `call $+5` (get-PC) is no call (ehframe.go,
//     seeds.go, unwindcalls.go). An x86 FDE that opens on alignment padding,
//     or a signal frame's (one byte early), starts at its code.
//     PE x64 and ARM64 also: each primary .pdata range start
//     (x64 unchained; ARM64 packed or .xdata records, not fragments), the
//     direct call and jump targets outside every .pdata range (leaf
//     functions, descended in turn), on ARM64 also the starts of the gaps
//     between ranges, code addresses taken by ADRP+ADD and base-relocated
//     code pointers in data; IAT jump thunks (x64, x86) named after their
//     import, classified alike with or without a symbol table (pdata.go,
//     pecalls.go). PE without .pdata (i386): .eh_frame FDE starts (mingw
//     i686), mingw's constructor and destructor tables, and call-target
//     descent from every known procedure (pecalls.go). A start found so
//     where a symbol-table label is (mingw's ___chkstk_ms) is named by it.
//     An exception directory or code that is not read is a limitation.
//     Mach-O also: each LC_FUNCTION_STARTS address (funcstarts.go). Go
//     (any format): every function of the pclntab, named by it with source
//     "default" (the linker's own metadata, the names the unstripped symbol
//     table and runtime.FuncForPC give; they merge with equal symbols), its
//     size the end of its pcsp table (pclntab.go). Where
//     no symbol names it, main is named (source "analysis") from the start
//     code: the argument ELF _start passes to __libc_start_main, Mach-O
//     LC_MAIN, the function whose value a PE x86_64 CRT passes to exit; a
//     Go binary's main.main from its pclntab; not found where expected, a
//     limitation "main not located: …" (mainentry.go, mainx86.go, mainarm.go, mainpe.go; discovery sources
//     "start-code", "pclntab"). New
//     procedures are named "sub_<hex>" (source "analysis"), and the
//     profile's function_discovery lists "eh-frame", "pdata",
//     "function-starts", "init-array", "call-targets" (and "stubs" for PE
//     IAT thunks) when they apply. procedure_info's source is the DWARF
//     line row at the entry, else a Go function's pcfile and pcln there.
//   - Strings: like GNU strings (printable ASCII 0x20..0x7e and TAB, at least 4;
//     UTF-16LE like `strings -el`, code units with a zero high byte). Only file
//     bytes mapped to addresses are scanned (ELF PT_LOAD file ranges, PE headers
//     and section raw data, Mach-O segment file ranges), so on those ranges the
//     counts equal `strings -a` / `strings -a -el`; the bytes of the file that
//     are not mapped (non-allocated sections such as .symtab, .strtab, .debug_*
//     and .comment; section headers; overlays) are counted in an Evidence
//     limitation instead. A string's section is the mapped, file-backed section
//     containing its first byte, or null (e.g. in headers). termination is
//     "present_or_not_required" when a NUL (a zero code unit) follows the run.
//   - Procedure extents: symbol sizes (ELF st_size, PLT entry and Mach-O stub
//     sizes, PE IAT thunks: 6 bytes, Go pcsp ends), else a PE x64 or ARM64
//     .pdata range or an .eh_frame FDE range (ELF, mingw i686 PE) starting
//     at the entry. A procedure
//     with neither (Mach-O, stripped entry points) contains exactly the
//     instructions recursive descent from its entry reaches; containment and
//     callers use that, never the distance to the next symbol.
//   - Disassembly: golang.org/x/arch; x86/x86_64 Intel syntax, arm64 GNU, arm
//     ARM mode GNU (VFP by thumb32.go's vfpText); Thumb-2 by the project's
//     own decoder (thumb.go, thumb32.go) in objdump's spelling, the mode of a
//     procedure chosen by thumbmode.go, $d data shown as .word. Branch targets print as absolute addresses
//     followed by `<name[+0xoff]>`, the nearest name at or before them (ELF
//     PLT stubs as `<import>@plt`), and an instruction with a data reference
//     ends with `; <address> <name[+0xoff]>` or `; "<string>"` (symbolize.go;
//     profile parameter symbolization:1). A procedure of known extent is
//     decoded linearly over it; otherwise by recursive descent from its
//     entry, stated as a limitation.
//   - Linking (provider.Linker, linker.go): the library name, imports and
//     exports as the platform's loader binds them, for the engine's
//     resolve_import across targets: ELF symbol versions as glibc's
//     check_match applies them, PE import and delay-load descriptors and
//     binary-searched export names, Mach-O bind opcodes or chained fixups
//     with two-level ordinals and the export trie.
//   - References: a linear sweep of the executable sections resynchronized at
//     procedure entries (arm: ARM-mode procedures of known extent); direct
//     calls and jumps, RIP-relative (x86_64) and absolute (x86) memory
//     operands, ADRP+ADD/LDR, ADR and literal loads (arm64). A reference is
//     the instruction completing the address. Indirect calls are counted.
package builtin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/rea-re/rea/engine/decompile"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/engine/target"
)

// ProviderID is the registry id of the builtin provider.
const ProviderID = "builtin"

// ProviderName is its display name.
const ProviderName = "REA built-in analyzer"

// ProfileSchemaVersion is provider_profile_schema_version of its profiles.
const ProfileSchemaVersion = 1

const timeoutMS = 60000

// Provider is the builtin provider. It is safe for concurrent use.
type Provider struct {
	version string
	reg     *registry
	warm    warmSlot
}

var _ provider.Provider = (*Provider)(nil)

// New returns the builtin provider with the default memory limit
// (DefaultMemoryLimit); version is the REA version.
func New(version string) *Provider {
	return NewWithMemoryLimit(version, DefaultMemoryLimit())
}

// NewWithMemoryLimit returns the builtin provider whose analysis indexes
// together stay within limit bytes (REA_MEMORY_LIMIT, MemoryLimitFromEnv).
func NewWithMemoryLimit(version string, limit int64) *Provider {
	return &Provider{version: version, reg: newRegistry(limit)}
}

// Identity names the provider with its concrete version.
func (p *Provider) Identity() provider.Identity {
	v := p.version
	return provider.Identity{ID: ProviderID, Name: ProviderName, Version: &v}
}

// Availability is always available: the provider is in-process.
func (p *Provider) Availability(context.Context) provider.Availability { return provider.Available() }

var (
	supportedFormats = map[string]bool{"elf": true, "pe": true, "mach-o": true, "mach-o-universal": true}
	supportedArches  = map[string]bool{"x86": true, "x86_64": true, "arm": true, "arm64": true}
)

// Support decides statically from what detection found.
func (p *Provider) Support(t provider.Target) provider.TargetSupport {
	if t.Kind != "executable" {
		return provider.Unsupported("target_kind_unsupported",
			"The built-in analyzer analyzes executables, not archives or directories.")
	}
	if !supportedFormats[t.Format] {
		return provider.Unsupported("target_format_unsupported",
			"The built-in analyzer supports ELF, PE and Mach-O executables.")
	}
	if !supportedArches[t.Architecture] {
		return provider.Unsupported("architecture_unsupported",
			"The built-in analyzer supports x86, x86_64, arm and arm64 code.")
	}
	return provider.Supported()
}

// Capabilities declares exactly the implemented operations (optable.go).
func (p *Provider) Capabilities() []provider.Capability {
	caps := make([]provider.Capability, 0, len(builtinOps))
	for _, o := range builtinOps {
		caps = append(caps, provider.ReadOnlyCapability(o.name, timeoutMS, o.maxLimit))
	}
	return caps
}

func i64(v int64) *int64 { return &v }

// Profile parses the target's headers (not a full index) to name the function
// discovery sources the analysis will use.
func (p *Provider) Profile(ctx context.Context, t provider.Target) (provider.Profile, error) {
	const op = "profile"
	if err := ctx.Err(); err != nil {
		return provider.Profile{}, fault.CancelledError(op)
	}
	// The warm index (warm.go) of this file, if the engine warmed it and the
	// file is unchanged, saves parsing it again and carries the symbol index
	// being built; an index of the same content another target or
	// connection registered saves both.
	var ix *index
	w := p.warm.take(t.Path)
	if known, digest := p.reg.lookupSHA(t.SHA256); known != nil {
		if w != nil {
			w.cancel()
		}
		if prof, err := p.profileFor(known.img); err == nil && prof.Digest == digest {
			return prof, nil
		}
		w = nil // another provider build's digest: profile these bytes afresh
	}
	if w != nil {
		ix = w.ix
	} else {
		// Opens of the same content at once (several connections) parse
		// its headers once.
		var err error
		ix, err = p.reg.parseOnce(ctx, t.SHA256, func(context.Context) (*index, error) {
			m, err := openMapping(t.Path)
			if err != nil {
				return nil, openFault(t.Path, err)
			}
			defer m.close()
			img, err := parseImage(m.data)
			if err != nil {
				return nil, withPath(err, t.Path)
			}
			return &index{img: img}, nil
		})
		defer p.reg.parsed(t.SHA256)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return provider.Profile{}, fault.CancelledError(op)
		}
		if err != nil {
			return provider.Profile{}, err
		}
	}
	prof, err := p.profileFor(ix.img)
	if err != nil {
		if w != nil {
			w.cancel()
		}
		return provider.Profile{}, fault.Internal(op, err)
	}
	if p.reg.put(indexKey{sha256: t.SHA256, profile: prof.Digest}, ix) != ix && w != nil {
		w.cancel() // the registry holds this file's index already
	}
	return prof, nil
}

func (p *Provider) profileFor(img *image) (provider.Profile, error) {
	syntax := "intel"
	if img.arch == "arm" || img.arch == "arm64" {
		syntax = "gnu"
	}
	disc := make([]any, len(img.discovery))
	for i, s := range img.discovery {
		disc[i] = s
	}
	arch := any(nil)
	if img.arch != "" {
		arch = img.arch
	}
	params := map[string]any{
		"target_format":      img.container,
		"architecture":       arch,
		"loader":             "go-debug",
		"function_discovery": disc,
		"disassembler":       "golang.org/x/arch@" + archVersion(),
		"syntax":             syntax,
		"symbolization":      1,
		"triage":             1,
		"lifting":            1,
		"lifter":             "rea-lift@" + lift.Version,
		"pseudo_code":        1,
		"decompiler":         "rea-decompile@" + decompile.Version,
		"signatures":         "rea-signature@" + signature.Version,
	}
	return provider.NewProfile(p.Identity(), ProfileSchemaVersion, params)
}

var archVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "golang.org/x/arch" {
				if d.Replace != nil && d.Replace.Version != "" {
					return d.Replace.Version
				}
				if d.Version != "" {
					return d.Version
				}
			}
		}
	}
	return archModuleVersion
})

// archModuleVersion is the golang.org/x/arch version go.mod requires; it
// names the disassembler when the binary carries no module information (test
// binaries), so profiles agree across builds. A test keeps it equal to go.mod.
const archModuleVersion = "v0.33.0"

// Start returns an in-process client of the target: the registered index and
// mapping of its file identity when another client holds them, else its own
// mapping (and index) registered for the next.
func (p *Provider) Start(ctx context.Context, t provider.Target, profile provider.Profile, run provider.Run) (provider.Client, error) {
	const op = "start"
	if err := ctx.Err(); err != nil {
		return nil, fault.CancelledError(op)
	}
	key := indexKey{sha256: t.SHA256, profile: profile.Digest}
	e, ok := p.reg.attach(key)
	if !ok {
		var err error
		if e, err = p.openEntry(key, t.Path); err != nil {
			return nil, err
		}
	}
	return &Client{
		doc: filepath.Base(t.Path), path: t.Path, reg: p.reg, e: e, ix: e.ix, data: e.ix.img.data(e.m.data),
	}, nil
}

// openEntry maps path and attaches it to key's entry, parsing the headers
// when no index of key is registered.
func (p *Provider) openEntry(key indexKey, path string) (*indexEntry, error) {
	m, err := openMapping(path)
	if err != nil {
		return nil, openFault(path, err)
	}
	var fid fileID
	hasFID := false
	if fi, err := os.Stat(path); err == nil {
		fid, hasFID = fileIdentity(fi)
	}
	ix, _ := p.reg.lookup(key)
	if ix != nil && ix.img.fileSize != uint64(len(m.data)) {
		ix = nil // the file changed since it was profiled: do not share
		key.sha256 = ""
	}
	if ix == nil {
		img, err := parseImage(m.data)
		if err != nil {
			m.close()
			return nil, withPath(err, path)
		}
		ix = &index{img: img}
	}
	return p.reg.adopt(key, ix, m, fid, hasFID), nil
}

// openFault maps an open failure to target_unavailable.
func openFault(path string, err error) *fault.Error {
	reason := "unreadable"
	if errors.Is(err, fs.ErrNotExist) {
		reason = "not_found"
	}
	return fault.New(fault.TargetUnavailable, "The target file could not be read.",
		"Check that the file exists and is readable, then open it again.",
		map[string]any{"path": path, "reason": reason}).WithCause(err)
}

// unsupportedFormat is the failure when a header is rejected.
func unsupportedFormat(err error) *fault.Error {
	return fault.New(fault.TargetUnavailable, "The target is not a well-formed ELF, PE or Mach-O executable.",
		"Open a well-formed ELF, PE or Mach-O executable.",
		map[string]any{"reason": "unsupported_format"}).WithCause(err)
}

// withPath adds the target path to a target_unavailable failure's details.
func withPath(err error, path string) error {
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Code == fault.TargetUnavailable && fe.Details != nil {
		fe.Details["path"] = path
	}
	return err
}

// parseImage detects the format by content and parses its headers. Every
// failure is a typed target_unavailable with reason unsupported_format.
func parseImage(data []byte) (img *image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, unsupportedFormat(panicError(r))
		}
	}()
	var perr error
	switch detect(data) {
	case "elf":
		img, perr = openELF(data)
	case "pe":
		img, perr = openPE(data)
	case "mach-o":
		img, perr = openMachO(data)
	case "mach-o-universal":
		img, perr = openUniversal(data)
	default:
		perr = errors.New("unrecognized file format")
	}
	if perr != nil {
		return nil, unsupportedFormat(perr)
	}
	addMainDiscovery(img, img.data(data))
	return img, nil
}

// detect names the executable format of data by its magic number.
func detect(b []byte) string {
	if len(b) < 4 {
		return ""
	}
	switch {
	case b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F':
		return "elf"
	case b[0] == 'M' && b[1] == 'Z':
		return "pe"
	}
	be := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	switch be {
	case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe:
		return "mach-o"
	case 0xcafebabe:
		if len(b) >= 8 {
			n := uint32(b[4])<<24 | uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7])
			if n > 0 && n < target.MaxFatArch {
				return "mach-o-universal"
			}
		}
	}
	return ""
}

// Client answers operations on one target. Do may be called concurrently.
type Client struct {
	doc  string
	path string // the target's real path: dependencies are looked for from it (deps.go)
	reg  *registry
	e    *indexEntry // its file identity's registry entry: the index and the shared mapping
	ix   *index      // e.ix
	data []byte      // the analyzed bytes within the shared mapping

	mu     sync.RWMutex
	closed bool

	user atomic.Pointer[provider.NameSet] // the user's names (set_address_name)

	insns sync.Pool // *[]insn: decodeProc's scratch (insnScratch)
	lifts sync.Pool // *liftScratch: lifting's scratch (lifted)

	filtered filteredListing // the last filtered list_procedures (procfilter.go)
}

var (
	_ provider.Client    = (*Client)(nil)
	_ provider.UserNames = (*Client)(nil)
)

// Lineage: an in-process client has no process tree.
func (c *Client) Lineage(context.Context) (lineage.Observation, bool) {
	return lineage.Observation{}, false
}

// Close lets go of the target's index and mapping once no operation is
// running; the last client of a file identity unmaps the file.
func (c *Client) Close(context.Context) (provider.Cleanup, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		err := c.reg.detach(c.e)
		c.data = nil
		if err != nil {
			return provider.Cleanup{Complete: false, Resources: []string{"provider-client"}}, nil
		}
	}
	return provider.Cleanup{Complete: true}, nil
}
