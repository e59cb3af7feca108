package builtin

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/cpu"

	"github.com/rea-re/rea/engine/provider"
)

// list_dependencies (CONTRACTS.md §15.4): what the loader would load for the
// target, in load-command order, and where this host would find each one.
//
//   - ELF: DT_NEEDED from PT_DYNAMIC (as the loader reads it, not the section
//     headers). A name is looked for as glibc's ld.so does (elf/dl-load.c
//     _dl_map_object): a name with a slash is a path; otherwise DT_RPATH
//     (only when there is no DT_RUNPATH), DT_RUNPATH, /etc/ld.so.cache
//     (entries whose flags match the binary's class and machine,
//     ldcache.go), then the default directories of the binary's ABI in
//     Debian's multiarch layout; DF_1_NODEFLIB skips the default
//     directories and cache entries under them. $ORIGIN, $LIB and
//     $PLATFORM are expanded as glibc does. A file of another class or
//     machine is skipped, as the loader skips it. A name equal to the
//     program interpreter's soname is the interpreter, which is loaded
//     first. LD_LIBRARY_PATH is never consulted: the server's environment
//     is not the sample's. Imports per library come from symbol versions
//     (DT_VERNEED): an unversioned import names no library.
//   - PE: the import directory's DLLs, then the delay-load directory's
//     (when GNU ld left that directory empty, the descriptors its COFF
//     symbols __DELAY_IMPORT_DESCRIPTOR_* name, with a limitation saying
//     so), each with its number of imports; a DLL is looked for beside the
//     target (the first place Windows looks), file names compared without
//     case. The rest of the Windows search has no counterpart here.
//   - Mach-O: LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB (and the
//     lazy and upward variants, as load_dylib) in command order; @rpath is
//     expanded by each LC_RPATH, @loader_path (and @executable_path in an
//     executable) by the target's directory, then the same directory is
//     tried; imports are counted by two-level namespace ordinal.
//
// resolved is always null here: it names the open target that satisfies a
// dependency, which needs several targets per connection (§15.1); target
// handles fill it.

// Reasons for a null candidate_path.
const (
	depNotFound        = "not_found"        // nothing the host loader would try exists
	depNotLoadable     = "not_loadable"     // the first file the loader would open is no loadable object: it stops there
	depRelativePath    = "relative_path"    // relative to the process's working directory, which is unknown
	depNoHostLoader    = "no_host_loader"   // not beside the target; the rest of that loader's search is not on this host
	depAPISet          = "api_set"          // a Windows API set name, mapped by the Windows loader, never a file
	depUnexpandedToken = "unexpanded_token" // @rpath with no LC_RPATH, @executable_path in a library, an unknown token
)

// The reasons of a path the sample names that REA does not read
// (CONTRACTS.md §0.3, namedpath.go) are reasons of the item too:
// not_regular_file, symlink_loop, unreadable, too_large. The loader would
// stop at such a file (or hang on it), and so does the search.

// ldCachePath is where glibc's loader reads its cache.
const ldCachePath = "/etc/ld.so.cache"

func (c *Client) doDependencies(ctx context.Context, op string) (provider.Result, error) {
	deps, lims, err := c.dependencies(ctx)
	if err != nil {
		return provider.Result{}, buildFault(op, err)
	}
	return provider.Result{Normalized: deps, Limitations: append(slices.Clip(c.ix.img.limitations), lims...)}, nil
}

// dependencies lists the target's load-time dependencies with where this
// host's loader would find them, and the limitations of that answer. It
// reads the host's file system (the candidates, /etc/ld.so.cache) at the
// time of the call. The error is a cancelled or expired ctx only: damage in
// the file becomes a limitation.
func (c *Client) dependencies(ctx context.Context) ([]provider.Dependency, []string, error) {
	deps, lims, _, err := c.loading(ctx)
	return deps, lims, err
}

// loading is dependencies with the program interpreter (nil when the image
// names none).
func (c *Client) loading(ctx context.Context) ([]provider.Dependency, []string, *provider.Interpreter, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	h := hostLoader{cachePath: ldCachePath}
	var deps []provider.Dependency
	var lims []string
	var interp *provider.Interpreter
	var err error
	switch img := c.ix.img; {
	case img.elf != nil:
		deps, lims, interp, err = elfDependencies(ctx, c.data, c.path, &h)
	case img.pe != nil:
		deps, lims = peDependencies(img, c.data, c.path)
	case img.macho != nil:
		deps, lims = machoDependencies(img, c.data, c.path)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if deps == nil {
		deps = []provider.Dependency{}
	}
	return deps, lims, interp, ctx.Err()
}

// hostLoader is the host state the ELF search reads: the loader cache,
// parsed once per call.
type hostLoader struct {
	cachePath string
	cache     *ldCache
	cacheErr  error
	loaded    bool
}

// ldCache reads and parses the loader cache once. The cache's path is the
// host's, not the sample's, but it is read as one (namedpath.go): bounded,
// a regular file only, under ctx. The error is ctx's when it is done.
func (h *hostLoader) ldCache(ctx context.Context) (*ldCache, error) {
	if !h.loaded {
		b, err := readNamedAll(ctx, h.cachePath)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		h.loaded = true
		if err == nil {
			h.cache, err = parseLdCache(b)
		}
		h.cacheErr = err
	}
	return h.cache, h.cacheErr
}

func strp(s string) *string { return &s }
func intp(n int) *int       { return &n }

// ---- ELF ----

// elfDeps is what the loader reads from PT_DYNAMIC and PT_INTERP.
type elfDeps struct {
	class    elf.Class
	data     elf.Data
	machine  elf.Machine
	flags    uint32 // e_flags (ARM float ABI)
	typ      elf.Type
	needed   []string
	rpath    *string // DT_RPATH, when present
	runpath  *string // DT_RUNPATH, when present
	nodeflib bool    // DF_1_NODEFLIB
	interp   string  // PT_INTERP
	// interpReason is why the interpreter was not read (resolve sets it).
	interpReason string
	soname       string
	damage       []string
}

// readElfDeps parses the dynamic segment of an ELF image.
func readElfDeps(data []byte) (*elfDeps, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	d := &elfDeps{class: f.Class, data: f.Data, machine: f.Machine, typ: f.Type}
	if len(data) >= 0x34 {
		off := 0x24 // e_flags
		if f.Class == elf.ELFCLASS64 {
			off = 0x30
		}
		if len(data) >= off+4 {
			d.flags = f.ByteOrder.Uint32(data[off:])
		}
	}
	var dyn *elf.Prog
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_DYNAMIC:
			if dyn == nil {
				dyn = p
			}
		case elf.PT_INTERP:
			if p.Off < uint64(len(data)) {
				b := data[p.Off:min(satAdd(p.Off, p.Filesz), uint64(len(data)))]
				if i := bytes.IndexByte(b, 0); i >= 0 {
					b = b[:i]
				}
				d.interp = string(b)
			}
		}
	}
	if dyn == nil {
		return d, nil
	}
	// File offset of a virtual address, through PT_LOAD as the loader maps it.
	fileOff := func(va uint64) (uint64, bool) {
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && va >= p.Vaddr && va-p.Vaddr < p.Filesz {
				return p.Off + va - p.Vaddr, true
			}
		}
		return 0, false
	}
	ent, word := uint64(16), 8
	if f.Class == elf.ELFCLASS32 {
		ent, word = 8, 4
	}
	if dyn.Off > uint64(len(data)) {
		d.damage = append(d.damage, "the dynamic segment lies outside the file; its dependencies are missing")
		return d, nil
	}
	seg := data[dyn.Off:min(satAdd(dyn.Off, dyn.Filesz), uint64(len(data)))]
	var strtab, strsz uint64
	var haveStr bool
	type ref struct {
		tag elf.DynTag
		off uint64
	}
	var refs []ref
	for i := uint64(0); i+ent <= uint64(len(seg)); i += ent {
		tag, _ := readU(seg, f.ByteOrder, i, word)
		val, _ := readU(seg, f.ByteOrder, i+uint64(word), word)
		if f.Class == elf.ELFCLASS32 {
			tag = uint64(int64(int32(uint32(tag)))) // d_tag is signed
		}
		switch elf.DynTag(tag) {
		case elf.DT_NULL:
			i = uint64(len(seg))
		case elf.DT_STRTAB:
			strtab, haveStr = val, true
		case elf.DT_STRSZ:
			strsz = val
		case elf.DT_NEEDED, elf.DT_RPATH, elf.DT_RUNPATH, elf.DT_SONAME:
			refs = append(refs, ref{elf.DynTag(tag), val})
		case elf.DT_FLAGS_1:
			d.nodeflib = val&uint64(elf.DF_1_NODEFLIB) != 0
		}
	}
	if len(refs) == 0 {
		return d, nil
	}
	so, ok := fileOff(strtab)
	if !haveStr || !ok {
		d.damage = append(d.damage, "the dynamic string table (DT_STRTAB) is not in the file; dependency names are missing")
		return d, nil
	}
	bad := 0
	for _, r := range refs {
		o, n, ok := cstring(data, so, satAdd(so, strsz), r.off)
		if !ok {
			bad++
			continue
		}
		s := string(data[o : o+uint64(n)])
		switch r.tag {
		case elf.DT_NEEDED:
			d.needed = append(d.needed, s)
		case elf.DT_RPATH:
			if d.rpath == nil {
				d.rpath = &s
			}
		case elf.DT_RUNPATH:
			if d.runpath == nil {
				d.runpath = &s
			}
		case elf.DT_SONAME:
			d.soname = s
		}
	}
	if bad > 0 {
		d.damage = append(d.damage, fmt.Sprintf("%d dynamic entries name strings outside the dynamic string table; they are missing", bad))
	}
	return d, nil
}

// elfABI is what selects libraries for an ELF class and machine: the
// Debian multiarch triplet, the ld.so.cache flags the loader accepts, and
// what $PLATFORM expands to (the kernel's AT_PLATFORM).
type elfABI struct {
	triplet  string
	accept   []int32
	platform string
	interp   string // the standard program interpreter (PT_INTERP of the ABI's programs)
	// platformNote says where platform comes from, for the limitation of
	// an answer that expanded $PLATFORM.
	platformNote string
}

// withHostPlatform is a with platform as glibc 2.36's loader on this host
// names it: on an x86-64 host running x86-64 code, an Intel CPU's
// features make it "xeon_phi" or "haswell" (sysdeps/x86/cpu-features.c);
// otherwise the kernel's AT_PLATFORM for the machine.
func (a elfABI) withHostPlatform() elfABI {
	a.platformNote = " (the kernel's AT_PLATFORM for this machine)"
	if a.triplet != "x86_64-linux-gnu" || runtime.GOARCH != "amd64" {
		if a.triplet == "x86_64-linux-gnu" {
			a.platformNote += "; glibc on an Intel x86-64 CPU may substitute haswell or xeon_phi"
		}
		return a
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil || !bytes.Contains(info, []byte("GenuineIntel")) {
		if err != nil {
			a.platformNote += "; /proc/cpuinfo is unreadable, so whether glibc substitutes haswell or xeon_phi (Intel CPUs) is unknown"
		}
		return a
	}
	x := cpu.X86
	switch {
	case x.HasAVX512CD && x.HasAVX512ER && x.HasAVX512PF:
		a.platform = "xeon_phi"
	case x.HasAVX2 && x.HasFMA && x.HasBMI1 && x.HasBMI2 && x.HasLZCNT && x.HasMOVBE && x.HasPOPCNT:
		a.platform = "haswell"
	default:
		return a
	}
	a.platformNote = ", as glibc 2.36's loader names this Intel CPU by its features (other glibc versions or CPUs differ)"
	return a
}

func abiOf(d *elfDeps) (elfABI, bool) {
	switch {
	case d.machine == elf.EM_X86_64 && d.class == elf.ELFCLASS64:
		return elfABI{"x86_64-linux-gnu", []int32{ldFlagX8664Lib64 | ldFlagELFLibc6}, "x86_64", "/lib64/ld-linux-x86-64.so.2", ""}, true
	case d.machine == elf.EM_X86_64:
		return elfABI{"x86_64-linux-gnux32", []int32{ldFlagX8664LibX32 | ldFlagELFLibc6}, "x86_64", "/libx32/ld-linux-x32.so.2", ""}, true
	case d.machine == elf.EM_386:
		return elfABI{"i386-linux-gnu", []int32{1, ldFlagELFLibc6}, "i686", "/lib/ld-linux.so.2", ""}, true
	case d.machine == elf.EM_AARCH64 && d.class == elf.ELFCLASS64:
		return elfABI{"aarch64-linux-gnu", []int32{ldFlagAArch64Lib64 | ldFlagELFLibc6}, "aarch64", "/lib/ld-linux-aarch64.so.1", ""}, true
	case d.machine == elf.EM_ARM && d.flags&0x400 != 0: // EF_ARM_ABI_FLOAT_HARD
		return elfABI{"arm-linux-gnueabihf", []int32{ldFlagARMLibHF | ldFlagELFLibc6, ldFlagELFLibc6}, "v7l", "/lib/ld-linux-armhf.so.3", ""}, true
	case d.machine == elf.EM_ARM:
		return elfABI{"arm-linux-gnueabi", []int32{ldFlagARMLibSF | ldFlagELFLibc6, ldFlagELFLibc6}, "v7l", "/lib/ld-linux.so.3", ""}, true
	}
	return elfABI{}, false
}

// defaultDirs are the loader's system directories for the ABI (Debian).
func (a elfABI) defaultDirs() []string {
	return []string{"/lib/" + a.triplet, "/usr/lib/" + a.triplet, "/lib", "/usr/lib"}
}

// expandDST expands glibc's dynamic string tokens in one search-path
// element ($ORIGIN, $LIB, $PLATFORM, braced or not; elf/dl-load.c
// _dl_dst_substitute). An unknown token is kept as written. ok is false
// when $ORIGIN is needed and unknown (the loader drops the element).
func expandDST(s, origin string, a elfABI) (out string, usedPlatform, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		name, n := dstName(s[i+1:])
		switch name {
		case "ORIGIN":
			if origin == "" {
				return "", false, false
			}
			b.WriteString(origin)
		case "LIB":
			b.WriteString("lib/" + a.triplet) // Debian's DL_DST_LIB
		case "PLATFORM":
			b.WriteString(a.platform)
			usedPlatform = true
		default:
			b.WriteByte('$')
			continue
		}
		i += n
	}
	return b.String(), usedPlatform, true
}

// dstName returns the token name after a '$' and the bytes it spans.
func dstName(s string) (string, int) {
	if strings.HasPrefix(s, "{") {
		if j := strings.IndexByte(s, '}'); j > 0 {
			return s[1:j], j + 1
		}
		return "", 0
	}
	j := 0
	for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	return s[:j], j
}

// elfSearchDirs expands a DT_RPATH/DT_RUNPATH value into directories.
func elfSearchDirs(list, origin string, a elfABI, lims *[]string) []string {
	var dirs []string
	for _, el := range strings.Split(list, ":") {
		if el == "" {
			continue
		}
		dir, plat, ok := expandDST(el, origin, a)
		if !ok {
			continue
		}
		if plat {
			*lims = addOnce(*lims, "$PLATFORM is expanded to "+a.platform+a.platformNote)
		}
		for len(dir) > 1 && strings.HasSuffix(dir, "/") {
			dir = dir[:len(dir)-1]
		}
		if !strings.HasPrefix(dir, "/") {
			*lims = addOnce(*lims, fmt.Sprintf("search directory %q is relative to the process's working directory, which is unknown; it is not searched", dir))
			continue
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// elfLoadable reports whether p is an ELF object of the binary's class,
// byte order and machine (glibc open_verify: another class or machine is
// skipped, anything else that is not ELF stops the search with an error).
// p is a path the sample names: it is read through openNamed, and err is
// ctx's or a *NamedPathError saying why p was not read.
func elfLoadable(ctx context.Context, p string, d *elfDeps) (ok, skip bool, err error) {
	f, err := openNamed(ctx, p)
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	var h [20]byte
	if err := readFull(f, h[:], 0); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return false, false, nil // too short for an ELF header: not loadable
		}
		return false, false, err
	}
	if !bytes.Equal(h[:4], []byte(elf.ELFMAG)) {
		return false, false, nil
	}
	if elf.Class(h[elf.EI_CLASS]) != d.class || elf.Data(h[elf.EI_DATA]) != d.data {
		return false, true, nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if d.data == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	if elf.Machine(bo.Uint16(h[18:])) != d.machine {
		return false, true, nil
	}
	return true, false, nil
}

// interpreterSoname reads the soname of the interpreter at p (a path the
// sample names) as far as its tables need.
func interpreterSoname(ctx context.Context, p string) (string, error) {
	f, err := openNamed(ctx, p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return elfSoname(f, f.Size())
}

// unreadReason is the item reason for err, an error of elfLoadable or
// interpreterSoname that is not ctx's.
func unreadReason(err error) string {
	if r := namedReason(err); r != "" {
		return r
	}
	return depNotLoadable
}

// unreadText says why p was not read, with the item's reason.
func unreadText(p string, err error) string {
	if namedReason(err) != "" {
		return err.Error() // "PATH: REASON (detail)"
	}
	return fmt.Sprintf("%s: %s (%v)", p, depNotLoadable, err)
}

// elfDependencies lists an ELF image's dependencies and its interpreter.
// The error is a cancelled or expired ctx only.
func elfDependencies(ctx context.Context, data []byte, target string, h *hostLoader) ([]provider.Dependency, []string, *provider.Interpreter, error) {
	d, err := readElfDeps(data)
	if err != nil {
		return nil, []string{"the ELF headers could not be read for dependencies: " + err.Error()}, nil, nil
	}
	imports, ilims := elfImportCounts(data)
	deps, lims, err := d.resolve(ctx, target, h, imports)
	if err != nil {
		return nil, nil, nil, err
	}
	var interp *provider.Interpreter
	if d.interp != "" {
		interp = &provider.Interpreter{Path: d.interp, Source: "program_headers:PT_INTERP"}
		if d.interpReason != "" {
			interp.Reason = strp(d.interpReason)
		}
	}
	return deps, append(lims, ilims...), interp, nil
}

// resolve looks for each DT_NEEDED name as the loader would for an object
// at target; imports are the import counts by library name. Every path it
// opens is one the sample names (namedpath.go): a path that is not read
// gives its item a reason and the answer a limitation. The error is a
// cancelled or expired ctx only.
func (d *elfDeps) resolve(ctx context.Context, target string, h *hostLoader, imports map[string]int) ([]provider.Dependency, []string, error) {
	lims := append([]string{
		"candidate paths are where this host's glibc loader (Debian multiarch layout) would find each library when the call ran; LD_LIBRARY_PATH and LD_PRELOAD are not consulted (the server's environment is not the sample's)",
		"only the target's own dependencies are listed, not those of the libraries it loads",
	}, d.damage...)
	a, known := abiOf(d)
	if !known {
		lims = append(lims, fmt.Sprintf("no loader search path is known for ELF machine %s; candidate paths are not searched", d.machine))
	}
	origin := path.Dir(target)
	if known && (d.rpath != nil && strings.Contains(*d.rpath, "PLATFORM") || d.runpath != nil && strings.Contains(*d.runpath, "PLATFORM")) {
		a = a.withHostPlatform()
	}
	var rpathDirs, runpathDirs []string
	if d.runpath != nil {
		runpathDirs = elfSearchDirs(*d.runpath, origin, a, &lims)
		if d.rpath != nil {
			lims = append(lims, "DT_RPATH is ignored because DT_RUNPATH is present, as the loader ignores it")
		}
	} else if d.rpath != nil {
		rpathDirs = elfSearchDirs(*d.rpath, origin, a, &lims)
	}
	if d.soname != "" && d.runpath == nil && d.typ == elf.ET_DYN {
		lims = append(lims, "a library's dependencies are also searched in the DT_RPATH of the program that loads it, which is unknown here")
	}
	// The interpreter is loaded before any dependency, and a name equal to
	// its soname is it. A library has no PT_INTERP: the program that loads
	// it has the ABI's standard one.
	interp := d.interp
	if interp == "" && known && d.typ == elf.ET_DYN {
		interp = a.interp
	}
	interpSoname, interpUnread := "", false
	if interp != "" {
		var err error
		interpSoname, err = interpreterSoname(ctx, interp)
		switch {
		case ctx.Err() != nil:
			return nil, nil, ctx.Err()
		case err == nil:
		case d.interp == "" && namedReason(err) == pathNotFound:
			// The ABI's standard interpreter is not on this host (a
			// library of another architecture): nothing is the interpreter.
		default:
			interpUnread = true
			d.interpReason = unreadReason(err)
			if d.interp != "" {
				lims = append(lims, "the program interpreter (PT_INTERP) was not read: "+unreadText(interp, err)+"; a needed name equal to its file name is taken to be it")
			}
		}
	}
	cache, cerr := (*ldCache)(nil), error(nil)
	if known {
		cache, cerr = h.ldCache(ctx)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		switch {
		case errors.Is(cerr, fs.ErrNotExist):
			lims = append(lims, h.cachePath+" does not exist; the loader cache is not consulted")
		case cerr != nil:
			lims = append(lims, h.cachePath+" could not be read ("+cerr.Error()+"); the loader ignores such a cache, and so does this answer")
		}
	}
	accept := func(fl int32) bool { return slices.Contains(a.accept, fl) }
	hwcapSubdirs := map[string]bool{}
	out := make([]provider.Dependency, 0, len(d.needed))
	for _, name := range d.needed {
		dep := provider.Dependency{Name: name, Kind: "needed", Search: []provider.SearchStep{}}
		if n, ok := imports[name]; ok {
			dep.Imports = intp(n)
		}
		var unreadable error // a file on the path that could not be read, when nothing after it is loadable
		try := func(p, source string) (done bool) {
			ok, skip, err := elfLoadable(ctx, p, d)
			reason := namedReason(err)
			var ne *NamedPathError
			isDir := errors.As(err, &ne) && ne.Mode.IsDir()
			st := provider.SearchStep{Path: p, Source: source, Exists: reason != pathNotFound && !isDir}
			dep.Search = append(dep.Search, st)
			switch {
			case ctx.Err() != nil:
				return true // the loop ends on ctx
			case !st.Exists:
				return false // glibc goes on past a missing file; a directory is skipped
			case reason == pathUnreadable:
				// glibc goes on past a file it may not open (EACCES)
				// and reports it when nothing else is found.
				if unreadable == nil {
					unreadable = err
				}
				lims = addOnce(lims, fmt.Sprintf("%s was not read (%v); the loader goes on past a file it may not open", p, err))
				return false
			case reason != "":
				dep.Reason = strp(reason)
				lims = addOnce(lims, fmt.Sprintf("%s: %v; REA does not read it, and the loader would stop there", name, err))
				return true
			case ok:
				dep.CandidatePath = strp(p)
				return true
			case skip:
				lims = addOnce(lims, fmt.Sprintf("%s exists but is not an ELF object of this binary's class and machine; the loader skips it", p))
				return false
			}
			dep.Reason = strp(depNotLoadable)
			return true
		}
		switch {
		case interpSoname != "" && name == interpSoname, interpUnread && name == path.Base(interp):
			try(interp, "interpreter")
			if dep.CandidatePath == nil && dep.Reason == nil && interpUnread {
				dep.Reason = strp(d.interpReason) // a directory: no file the loader would skip to
			}
			if d.interp == "" {
				lims = append(lims, "the target names no interpreter (PT_INTERP): "+name+" is taken to be the one every program of this ABI has already loaded, "+interp)
			}
		case strings.Contains(name, "/"):
			if !strings.HasPrefix(name, "/") {
				dep.Reason = strp(depRelativePath)
				break
			}
			try(name, "default")
		case !known:
			dep.Reason = strp(depNotFound)
		default:
			inDirs := func(dirs []string, source string) bool {
				for _, dir := range dirs {
					if try(dir+"/"+name, source) {
						return true
					}
				}
				return false
			}
			done := inDirs(rpathDirs, "rpath") || inDirs(runpathDirs, "runpath")
			if !done && cache != nil {
				e, hw := cache.lookup(name, accept)
				if hw {
					lims = addOnce(lims, fmt.Sprintf("%s also has glibc-hwcaps entries in %s, which the loader prefers on a CPU with their features", name, h.cachePath))
				}
				if e != nil && !(d.nodeflib && underDirs(e.Path, a.defaultDirs())) {
					done = try(e.Path, "ld_so_cache")
				}
			}
			if !done && !d.nodeflib {
				inDirs(a.defaultDirs(), "default")
			}
			for _, st := range dep.Search {
				hwcapSubdirs[path.Dir(st.Path)] = true
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if dep.CandidatePath == nil && dep.Reason == nil {
			dep.Reason = strp(depNotFound)
			if unreadable != nil {
				dep.Reason = strp(unreadReason(unreadable))
			}
		}
		out = append(out, dep)
	}
	if d.nodeflib {
		lims = append(lims, "DF_1_NODEFLIB: the default directories, and loader-cache entries under them, are not searched")
	}
	lims = append(lims, hwcapLimitations(hwcapSubdirs)...)
	return out, lims, nil
}

func underDirs(p string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// hwcapLimitations names the CPU-dependent subdirectories (glibc-hwcaps,
// tls and the legacy platform and capability names) that exist in a
// searched directory: the loader searches them first on a CPU that has
// their features, which this answer does not model.
func hwcapLimitations(dirs map[string]bool) []string {
	var out []string
	keys := make([]string, 0, len(dirs))
	for d := range dirs {
		keys = append(keys, d)
	}
	slices.Sort(keys)
	for _, d := range keys {
		for _, sub := range []string{"glibc-hwcaps", "tls", "haswell", "xeon_phi", "avx512_1", "x86_64", "i686", "sse2", "v7l", "neon", "vfp"} {
			if fi, err := os.Stat(d + "/" + sub); err == nil && fi.IsDir() {
				out = append(out, fmt.Sprintf("%s/%s exists; the loader may search it first on a CPU with its features, and this answer does not", d, sub))
			}
		}
	}
	return out
}

// elfImportCounts counts the undefined dynamic symbols bound to each
// library by their version needs (DT_VERNEED).
func elfImportCounts(data []byte) (map[string]int, []string) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, nil
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		if errors.Is(err, elf.ErrNoSymbols) {
			return map[string]int{}, nil
		}
		return nil, []string{"the dynamic symbol table could not be read; import counts are null"}
	}
	counts := map[string]int{}
	if needs, err := f.DynamicVersionNeeds(); err == nil {
		for _, n := range needs {
			counts[n.Name] = 0 // a library with a version need imports what its versions bind, maybe nothing
		}
	}
	unversioned := 0
	for _, s := range syms {
		bind := elf.ST_BIND(s.Info)
		if s.Section != elf.SHN_UNDEF || s.Name == "" || bind != elf.STB_GLOBAL && bind != elf.STB_WEAK {
			continue
		}
		if s.Library == "" {
			unversioned++
			continue
		}
		counts[s.Library]++
	}
	var lims []string
	if unversioned > 0 {
		lims = append(lims, fmt.Sprintf("%d undefined dynamic symbols have no version need (DT_VERNEED), so no library is known for them; they are in no import count", unversioned))
	}
	lims = append(lims, "ELF import counts are the undefined dynamic symbols whose version need names the library; a library with no version need has imports null")
	return counts, lims
}

// ---- PE ----

func peDependencies(img *image, data []byte, target string) ([]provider.Dependency, []string) {
	lims := []string{
		"a DLL is looked for beside the target only (checked when the call ran); Windows would go on to KnownDLLs, API sets, the system directories and PATH, which this host does not have",
	}
	tables := peImportTables(img, data, &lims)
	out := make([]provider.Dependency, len(tables))
	for i, t := range tables {
		out[i] = t.dep
	}
	dir := path.Dir(target)
	var names []string // the directory's entries, for a case-insensitive match
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	for i := range out {
		dep := &out[i]
		p := dir + "/" + dep.Name
		exists := false
		for _, n := range names {
			if strings.EqualFold(n, dep.Name) {
				p, exists = dir+"/"+n, true
				break
			}
		}
		dep.Search = []provider.SearchStep{{Path: p, Source: "same_directory", Exists: exists}}
		var unread error // the DLL beside the target is a path the sample names: only a regular file is a candidate
		if exists {
			_, unread = statNamed(p)
		}
		switch lower := strings.ToLower(dep.Name); {
		case exists && unread != nil:
			dep.Reason = strp(unreadReason(unread))
			lims = addOnce(lims, fmt.Sprintf("%s: %v; it is no candidate", dep.Name, unread))
		case exists:
			dep.CandidatePath = strp(p)
		case strings.HasPrefix(lower, "api-ms-") || strings.HasPrefix(lower, "ext-ms-"):
			dep.Reason = strp(depAPISet)
		default:
			dep.Reason = strp(depNoHostLoader)
		}
	}
	return out, lims
}

// peDataDirs reads the optional header's data directories (RVA, size).
func peDataDirs(data []byte) [16][2]uint32 {
	var dirs [16][2]uint32
	if len(data) < 0x40 {
		return dirs
	}
	nt := uint64(binary.LittleEndian.Uint32(data[0x3c:]))
	opt := nt + 24
	magic, ok := readU(data, binary.LittleEndian, opt, 2)
	if !ok {
		return dirs
	}
	at := opt + 96 // PE32
	if magic == 0x20b {
		at = opt + 112 // PE32+
	}
	n, ok := readU(data, binary.LittleEndian, at-4, 4) // NumberOfRvaAndSizes
	if !ok {
		return dirs
	}
	for i := uint64(0); i < min(n, 16); i++ {
		rva, ok1 := readU(data, binary.LittleEndian, at+i*8, 4)
		size, ok2 := readU(data, binary.LittleEndian, at+i*8+4, 4)
		if ok1 && ok2 {
			dirs[i] = [2]uint32{uint32(rva), uint32(size)}
		}
	}
	return dirs
}

// peImportTable is one descriptor of the import or delay-load directory:
// its DLL (dep, with its import count), the RVA of its address table and
// the values of its name table (an ordinal flag and ordinal, or the RVA of
// a hint/name entry), one per IAT slot.
type peImportTable struct {
	dep     provider.Dependency
	iat     uint64
	entries []uint64
}

// peImportTables reads the import directory's descriptors, then the
// delay-load directory's (when GNU ld left that directory empty, the
// descriptors its COFF symbols __DELAY_IMPORT_DESCRIPTOR_* name), in that
// order: the one walk of both directories behind list_dependencies and
// resolve_import.
func peImportTables(img *image, data []byte, lims *[]string) []peImportTable {
	dirs := peDataDirs(data)
	var out []peImportTable
	if d := dirs[1]; d[0] != 0 {
		out = append(out, peImportDescriptors(img, data, uint64(d[0]), 0, 20, 12, 0, 16, "import", lims)...)
	}
	if d := dirs[13]; d[0] != 0 {
		out = append(out, peImportDescriptors(img, data, uint64(d[0]), uint64(d[1]), 32, 4, 16, 12, "delay_import", lims)...)
	} else if rvas := peDelayDescriptorSymbols(img, data); len(rvas) > 0 {
		// GNU ld leaves the directory empty: the delay helper that mingw's
		// import library links in reads its descriptor directly.
		*lims = append(*lims, "the delay-load directory is empty (as GNU ld leaves it); delay-loaded DLLs are read from the descriptors the COFF symbols __DELAY_IMPORT_DESCRIPTOR_* name")
		for _, rva := range rvas {
			out = append(out, peImportDescriptors(img, data, rva, 32, 32, 4, 16, 12, "delay_import", lims)...)
		}
	}
	return out
}

// peImportDescriptors walks an import or delay-load directory of
// descriptors of size step, reading the DLL name RVA at nameAt, the name
// table at intAt and the address table at iatAt (the name table when
// intAt's is zero). A delay descriptor without the RVA attribute (bit 0)
// holds virtual addresses instead. A non-zero dirSize bounds the walk (a
// delay-load directory need not end with a zero descriptor).
func peImportDescriptors(img *image, data []byte, rva, dirSize, step, nameAt, intAt, iatAt uint64, kind string, lims *[]string) []peImportTable {
	info := img.pe
	size := uint64(len(data))
	ptr := uint64(4)
	if img.is64 {
		ptr = 8
	}
	d, ok := info.rvaOff(rva)
	if !ok {
		*lims = append(*lims, "the "+kind+" directory lies outside the file; its DLLs are missing")
		return nil
	}
	var out []peImportTable
	total := 0
	for k := uint64(0); d+step <= size; d, k = d+step, k+1 {
		if dirSize != 0 && k >= dirSize/step {
			return out
		}
		rd := func(at uint64) uint64 { return uint64(binary.LittleEndian.Uint32(data[d+at:])) }
		nameRVA, table, iat := rd(nameAt), rd(intAt), rd(iatAt)
		if kind == "import" {
			if table == 0 && nameRVA == 0 && iat == 0 {
				return out
			}
		} else {
			if nameRVA == 0 {
				return out
			}
			if rd(0)&1 == 0 { // virtual addresses (Visual C++ 6)
				nameRVA, table, iat = peVAtoRVA(info, nameRVA), peVAtoRVA(info, table), peVAtoRVA(info, iat)
			}
		}
		if table == 0 {
			table = iat
		}
		no, ok := info.rvaOff(nameRVA)
		if !ok {
			*lims = addOnce(*lims, "a DLL name of the "+kind+" directory lies outside the file; that DLL is missing")
			continue
		}
		o, n, ok := cstring(data, no, size, 0)
		if !ok || n == 0 {
			*lims = addOnce(*lims, "a DLL name of the "+kind+" directory is empty; that DLL is missing")
			continue
		}
		t := peImportTable{dep: provider.Dependency{Name: string(data[o : o+uint64(n)]), Kind: kind}, iat: iat}
		if to, ok := info.rvaOff(table); ok {
			for {
				v, ok := readU(data, img.bo, to+uint64(len(t.entries))*ptr, int(ptr))
				if !ok || v == 0 || total+len(t.entries) >= maxPEEntries {
					break
				}
				t.entries = append(t.entries, v)
			}
			total += len(t.entries)
			t.dep.Imports = intp(len(t.entries))
		} else {
			*lims = addOnce(*lims, "an import name table of the "+kind+" directory lies outside the file; its import count is null")
		}
		out = append(out, t)
		if len(out) > maxPEEntries/16 {
			break
		}
	}
	*lims = append(*lims, "the "+kind+" directory runs past the end of the file; some DLLs may be missing")
	return out
}

// peDelayDescriptorSymbols returns the RVAs of the COFF symbols named
// __DELAY_IMPORT_DESCRIPTOR_<library> (mingw's delay-load import
// libraries), in symbol-table order.
func peDelayDescriptorSymbols(img *image, data []byte) []uint64 {
	info := img.pe
	const prefix = "__DELAY_IMPORT_DESCRIPTOR_"
	size := uint64(len(data))
	strTab := satAdd(info.symOff, info.nsyms*18)
	if info.nsyms == 0 || info.symOff == 0 || info.symOff >= size || info.nsyms > size/18 || strTab > size {
		return nil
	}
	strSize, _ := readU(data, img.bo, strTab, 4)
	var out []uint64
	for i := uint64(0); i < info.nsyms; i++ {
		rec := data[info.symOff+i*18:][:18]
		i += uint64(rec[17]) // aux records
		if binary.LittleEndian.Uint32(rec) != 0 {
			continue // a short name inline: too short for the prefix
		}
		o, n, ok := cstring(data, strTab, satAdd(strTab, strSize), uint64(binary.LittleEndian.Uint32(rec[4:])))
		if !ok || !bytes.HasPrefix(data[o:o+uint64(n)], []byte(prefix)) {
			continue
		}
		sn := int(int16(binary.LittleEndian.Uint16(rec[12:])))
		if sn < 1 || sn > len(img.sections) || img.sections[sn-1].addr < info.imageBase {
			continue
		}
		out = append(out, img.sections[sn-1].addr-info.imageBase+uint64(binary.LittleEndian.Uint32(rec[8:])))
	}
	return out
}

// peVAtoRVA converts a 32-bit virtual address to an RVA (0 stays 0).
func peVAtoRVA(info *peInfo, va uint64) uint64 {
	if va == 0 {
		return 0
	}
	return uint64(uint32(va) - uint32(info.imageBase))
}

// ---- Mach-O ----

// Mach-O load commands naming dylibs and run paths.
const (
	lcLoadDylib       = 0xc
	lcIDDylib         = 0xd
	lcLoadWeakDylib   = 0x80000018
	lcRpath           = 0x8000001c
	lcReexportDylib   = 0x8000001f
	lcLazyLoadDylib   = 0x20
	lcLoadUpwardDylib = 0x80000023
	mhTwoLevel        = 0x80
	mhExecute         = 0x2
)

func machoDependencies(img *image, data []byte, target string) ([]provider.Dependency, []string) {
	lims := []string{
		"macOS system libraries live in the dyld shared cache, not on this host: an install name is looked for at its path (with @rpath, @loader_path and @executable_path expanded) and beside the target, checked when the call ran",
	}
	lc := machoLoads(img, data)
	if !lc.header {
		return nil, lims
	}
	filetype, flags, rpaths := lc.filetype, lc.flags, lc.rpaths
	lims = append(lims, lc.lims...)
	out := make([]provider.Dependency, len(lc.dylibs))
	for i, d := range lc.dylibs {
		out[i] = provider.Dependency{Name: d.name, Kind: d.kind}
	}
	for _, o := range lc.others {
		lims = append(lims, o+" dylibs are listed as load_dylib")
	}
	counts, clim := machoOrdinalCounts(img, data, len(out), flags&mhTwoLevel != 0)
	if clim != "" {
		lims = append(lims, clim)
	}
	dir := path.Dir(target)
	exe := filetype == mhExecute
	for i := range out {
		dep := &out[i]
		if counts != nil {
			dep.Imports = intp(counts[i])
		}
		dep.Search = []provider.SearchStep{}
		unexpanded := false
		// The first path on the search where something is: the candidate
		// when it is a regular file, else why not (dyld would stop there).
		var first *string
		var unread error
		add := func(p, source string) {
			if slices.ContainsFunc(dep.Search, func(s provider.SearchStep) bool { return s.Path == p }) {
				return
			}
			// A path the sample names: stat only, and only a regular file
			// is a candidate (namedpath.go).
			_, err := statNamed(p)
			var ne *NamedPathError
			exists := err == nil || errors.As(err, &ne) && ne.Reason != pathNotFound && !ne.Mode.IsDir()
			if exists && first == nil {
				first, unread = &p, err
			}
			dep.Search = append(dep.Search, provider.SearchStep{Path: p, Source: source, Exists: exists})
		}
		expand := func(p string) (string, bool) {
			switch {
			case strings.HasPrefix(p, "@loader_path/"):
				return dir + p[len("@loader_path"):], true
			case strings.HasPrefix(p, "@executable_path/") && exe:
				return dir + p[len("@executable_path"):], true
			case strings.HasPrefix(p, "/"):
				return p, true
			}
			return "", false
		}
		switch n := dep.Name; {
		case strings.HasPrefix(n, "@rpath/"):
			for _, r := range rpaths {
				if rd, ok := expand(r); ok {
					add(strings.TrimSuffix(rd, "/")+n[len("@rpath"):], "rpath")
				} else {
					unexpanded = true
				}
			}
			if len(rpaths) == 0 {
				unexpanded = true
			}
		case strings.HasPrefix(n, "@loader_path/"), strings.HasPrefix(n, "@executable_path/") && exe:
			p, _ := expand(n)
			add(p, "origin")
		case strings.HasPrefix(n, "/"):
			add(n, "default")
		default:
			unexpanded = true
		}
		if n := path.Base(dep.Name); dep.Name != "" && n != "." && n != "/" {
			add(dir+"/"+n, "same_directory")
		}
		if first != nil && unread == nil {
			dep.CandidatePath = first
		}
		switch {
		case dep.CandidatePath != nil:
		case unread != nil:
			dep.Reason = strp(unreadReason(unread))
			lims = addOnce(lims, fmt.Sprintf("%s: %v; it is no candidate", dep.Name, unread))
		case unexpanded:
			dep.Reason = strp(depUnexpandedToken)
		default:
			dep.Reason = strp(depNoHostLoader)
		}
	}
	return out, lims
}

// machoOrdinalCounts counts the undefined external symbols of the symbol
// table by library ordinal (n_desc bits 8..15, 1-based over the dylib
// commands). It returns nil counts and a limitation when the image is not
// two-level or has no symbol table.
func machoOrdinalCounts(img *image, data []byte, ndylibs int, twoLevel bool) ([]int, string) {
	if ndylibs == 0 {
		return nil, ""
	}
	if !twoLevel {
		return nil, "the image uses a flat namespace: its imports name no library, so import counts are null"
	}
	t := img.macho.symtab
	if !img.macho.hasSymtab || t.off > uint64(len(data)) {
		return nil, "the image has no symbol table; import counts are null"
	}
	counts := make([]int, ndylibs)
	n := min(t.size, uint64(len(data))-t.off) / t.entsize
	other := 0
	for i := uint64(0); i < n; i++ {
		p := data[t.off+i*t.entsize:]
		typ, desc := p[4], img.bo.Uint16(p[6:])
		if typ&nStab != 0 || typ&nTypeMask != nUndf || typ&nExt == 0 {
			continue
		}
		ord := int(desc >> 8)
		if ord >= 1 && ord <= ndylibs {
			counts[ord-1]++
		} else {
			other++
		}
	}
	if other > 0 {
		return counts, fmt.Sprintf("%d undefined symbols are bound to the image itself, the main executable or dynamic lookup; they are in no import count", other)
	}
	return counts, ""
}

// addOnce appends s to lims unless it is there already.
func addOnce(lims []string, s string) []string {
	if slices.Contains(lims, s) {
		return lims
	}
	return append(lims, s)
}
