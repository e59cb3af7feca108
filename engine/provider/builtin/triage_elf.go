package builtin

import (
	"bytes"
	"debug/elf"
	"strings"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/triagefacts"
)

// fortifiable are glibc's functions with a __<name>_chk variant, the list
// hardening-check (devscripts) counts FORTIFY_SOURCE protection with.
var fortifiable = []string{"asprintf", "confstr", "dprintf", "fdelt", "fgets", "fgets_unlocked", "fgetws",
	"fgetws_unlocked", "fprintf", "fread", "fread_unlocked", "fwprintf", "getcwd", "getdomainname", "getgroups",
	"gethostname", "getlogin_r", "gets", "getwd", "longjmp", "mbsnrtowcs", "mbsrtowcs", "mbstowcs", "memcpy",
	"memmove", "mempcpy", "memset", "obstack_printf", "obstack_vprintf", "poll", "ppoll", "pread64", "pread",
	"printf", "ptsname_r", "read", "readlink", "readlinkat", "realpath", "recv", "recvfrom", "snprintf", "sprintf",
	"stpcpy", "stpncpy", "strcat", "strcpy", "strncat", "strncpy", "swprintf", "syslog", "ttyname_r", "vasprintf",
	"vdprintf", "vfprintf", "vfwprintf", "vprintf", "vsnprintf", "vsprintf", "vswprintf", "vsyslog", "vwprintf",
	"wcpcpy", "wcpncpy", "wcrtomb", "wcscat", "wcscpy", "wcsncat", "wcsncpy", "wcsnrtombs", "wcsrtombs", "wcstombs",
	"wctomb", "wmemcpy", "wmemmove", "wmempcpy", "wmemset", "wprintf"}

// ELF dynamic flags (not in debug/elf).
const (
	df1PIE                   = 0x08000000
	df1Now                   = 0x00000001
	dfBindNow                = 0x00000008
	elfOSABIHeaderFieldClass = "header:EI_CLASS"
)

func (b *triageBuilder) elf() {
	f, err := elf.NewFile(bytes.NewReader(b.data))
	if err != nil {
		b.limit("triage: ELF headers unreadable: %v", err)
		return
	}
	id, hd := b.t.Identity, b.t.Hardening
	id["bitness"] = fact(map[bool]int{true: 64, false: 32}[f.Class == elf.ELFCLASS64], elfOSABIHeaderFieldClass)
	id["endianness"] = fact(endianName(f.Data == elf.ELFDATA2LSB), "header:EI_DATA")

	var hasPhdr, hasInterp, hasRelro bool
	var stack *elf.Prog
	base, haveBase := uint64(0), false
	var lastEnd uint64
	var wx, mismatch []string
	for i, p := range f.Progs {
		lastEnd = max(lastEnd, satAdd(p.Off, p.Filesz))
		switch p.Type {
		case elf.PT_PHDR:
			hasPhdr = true
		case elf.PT_INTERP:
			hasInterp = true
			if p.Off < uint64(len(b.data)) {
				s := b.data[p.Off:min(satAdd(p.Off, p.Filesz), uint64(len(b.data)))]
				id["interpreter"] = fact(string(bytes.TrimRight(s, "\x00")), "program_headers:PT_INTERP")
			}
		case elf.PT_GNU_RELRO:
			hasRelro = true
		case elf.PT_GNU_STACK:
			stack = f.Progs[i]
		case elf.PT_LOAD:
			if len(f.Sections) == 0 && p.Filesz > 0 {
				b.segments = append(b.segments, fileRegion{"LOAD@0x" + hexU(p.Vaddr), p.Off, p.Filesz})
			}
			if !haveBase || p.Vaddr-p.Off%max(p.Align, 1) < base {
				base, haveBase = p.Vaddr-p.Off%max(p.Align, 1), true
			}
			if p.Flags&elf.PF_W != 0 && p.Flags&elf.PF_X != 0 {
				wx = append(wx, "LOAD@0x"+hexU(p.Vaddr))
			}
			if p.Filesz > p.Memsz {
				mismatch = append(mismatch, "LOAD@0x"+hexU(p.Vaddr))
			}
		}
	}
	if haveBase {
		id["image_base"] = fact("0x"+hexU(base), "program_headers:PT_LOAD")
	}
	flags, _ := f.DynValue(elf.DT_FLAGS)
	flags1, _ := f.DynValue(elf.DT_FLAGS_1)
	bindNowTag, _ := f.DynValue(elf.DT_BIND_NOW)
	pieFlag := len(flags1) > 0 && flags1[0]&df1PIE != 0

	switch f.Type {
	case elf.ET_EXEC:
		id["file_type"] = fact("executable", "header:e_type")
		hd["pie"] = fact(false, "header:e_type")
	case elf.ET_DYN:
		if hasPhdr || hasInterp || pieFlag {
			id["file_type"] = fact("executable", "header:e_type+program_headers:PT_PHDR")
		} else {
			id["file_type"] = fact("shared_library", "header:e_type")
		}
		// hardening-check's rule: a DYN with a PHDR header is an executable.
		if hasPhdr {
			hd["pie"] = fact(true, "header:e_type+program_headers:PT_PHDR")
		}
	case elf.ET_REL:
		id["file_type"] = fact("object", "header:e_type")
	case elf.ET_CORE:
		id["file_type"] = fact("core", "header:e_type")
	}

	if f.Type == elf.ET_CORE {
		// A core's program headers are the dumped process's mappings: its
		// W+X mappings are worth a look, but hardening, stripped, debug info
		// and image base describe executables, not memory dumps.
		delete(id, "image_base")
		if wx == nil {
			wx = []string{}
		}
		b.t.Anomalies["wx_segments"] = fact(wx, "program_headers:PT_LOAD")
		b.limit("triage: a core file: hardening, stripped, debug info, image base and toolchain describe executables and are not reported for it")
		return
	}
	// NX: the stack is executable without PT_GNU_STACK (or with PF_X).
	if len(f.Progs) > 0 {
		if stack != nil {
			hd["nx"] = fact(stack.Flags&elf.PF_X == 0, "program_headers:PT_GNU_STACK")
		} else {
			hd["nx"] = fact(false, "program_headers:PT_GNU_STACK(absent)")
		}
		if wx == nil {
			wx = []string{}
		}
		b.t.Anomalies["wx_segments"] = fact(wx, "program_headers:PT_LOAD")
		if mismatch != nil {
			b.t.Anomalies["segment_size_mismatch"] = fact(mismatch, "program_headers:PT_LOAD.p_filesz>p_memsz")
		}
		if f.Type != elf.ET_CORE {
			b.overlay(max(lastEnd, b.elfFileEnd(f)), "program_headers+section_headers")
		}
	}
	bindNow := len(bindNowTag) > 0 || len(flags) > 0 && flags[0]&dfBindNow != 0 || len(flags1) > 0 && flags1[0]&df1Now != 0
	hd["bind_now"] = fact(bindNow, "dynamic:DT_BIND_NOW|DT_FLAGS|DT_FLAGS_1")
	switch {
	case !hasRelro:
		hd["relro"] = fact("none", "program_headers:PT_GNU_RELRO")
	case bindNow:
		hd["relro"] = fact("full", "program_headers:PT_GNU_RELRO+dynamic:BIND_NOW")
	default:
		hd["relro"] = fact("partial", "program_headers:PT_GNU_RELRO")
	}
	if rp, _ := f.DynString(elf.DT_RPATH); len(rp) > 0 {
		hd["rpath"] = fact(rp, "dynamic:DT_RPATH")
	}
	if rp, _ := f.DynString(elf.DT_RUNPATH); len(rp) > 0 {
		hd["runpath"] = fact(rp, "dynamic:DT_RUNPATH")
	}

	b.elfImports(f)
	b.elfNotes(f)
	b.elfSections(f)
}

func hexU(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var buf [16]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = digits[v&15]
		v >>= 4
	}
	return string(buf[i:])
}

// elfImports reads the undefined function symbols of every symbol table
// straight from the file (no symbol slice is built) for the stack
// protector and FORTIFY facts.
func (b *triageBuilder) elfImports(f *elf.File) {
	und := map[string]bool{}
	found := false
	for _, t := range b.img.elf.tables {
		if t.entsize == 0 || t.off > uint64(len(b.data)) || t.strOff > uint64(len(b.data)) {
			continue
		}
		tab := b.data[t.off:min(satAdd(t.off, t.size), uint64(len(b.data)))]
		strs := b.data[t.strOff:min(satAdd(t.strOff, t.strSize), uint64(len(b.data)))]
		for o := uint64(t.entsize); o+t.entsize <= uint64(len(tab)); o += t.entsize {
			e := tab[o : o+t.entsize]
			var name uint32
			var info uint8
			var shndx uint16
			if b.img.is64 {
				name, info, shndx = b.img.bo.Uint32(e), e[4], b.img.bo.Uint16(e[6:])
			} else {
				name, info, shndx = b.img.bo.Uint32(e), e[12], b.img.bo.Uint16(e[14:])
			}
			typ := elf.SymType(info & 0xf)
			if shndx != 0 || typ != elf.STT_FUNC && typ != elf.STT_NOTYPE && typ != elf.STT_GNU_IFUNC {
				continue
			}
			if uint64(name) >= uint64(len(strs)) {
				continue
			}
			s := strs[name:]
			if k := bytes.IndexByte(s, 0); k >= 0 {
				s = s[:k]
			}
			if k := bytes.IndexByte(s, '@'); k >= 0 {
				s = s[:k]
			}
			if len(s) == 0 {
				continue
			}
			found = true
			und[string(s)] = true
		}
	}
	hd := b.t.Hardening
	if !found {
		b.limit("triage hardening: no imported symbols, so the stack protector and FORTIFY are not determined")
		return
	}
	switch {
	case und["__stack_chk_fail"]:
		hd["stack_protector"] = fact(true, "symbol:__stack_chk_fail")
	case und["__stack_chk_guard"]:
		hd["stack_protector"] = fact(true, "symbol:__stack_chk_guard")
	default:
		hd["stack_protector"] = fact(false, "symbol:__stack_chk_fail(absent)")
	}
	var prot, unprot []string
	for _, n := range fortifiable {
		if und[n] {
			unprot = append(unprot, n)
		}
		if und["__"+n+"_chk"] {
			prot = append(prot, n)
		}
	}
	verdict := "unknown"
	switch {
	case len(prot) > 0:
		verdict = "yes"
	case len(unprot) > 0:
		verdict = "no"
	}
	if prot == nil {
		prot = []string{}
	}
	if unprot == nil {
		unprot = []string{}
	}
	hd["fortify"] = fact(map[string]any{"verdict": verdict, "protected": len(prot), "unprotected": len(unprot),
		"protected_functions": prot, "unprotected_functions": unprot}, "symbol:__*_chk")
}

func (b *triageBuilder) elfNotes(f *elf.File) {
	var chunks []triagefacts.ELFNoteBytes
	read := func(off, size, align uint64) {
		if off >= uint64(len(b.data)) {
			return
		}
		chunks = append(chunks, triagefacts.ELFNoteBytes{Data: b.data[off:min(satAdd(off, size), uint64(len(b.data)))], Align: align})
	}
	fromSections := false
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOTE {
			fromSections = true
			read(s.Offset, s.Size, s.Addralign)
		}
	}
	if !fromSections {
		for _, p := range f.Progs {
			if p.Type == elf.PT_NOTE {
				read(p.Off, p.Filesz, p.Align)
			}
		}
	}
	triagefacts.ELFNotes(chunks, f.Class == elf.ELFCLASS64, f.ByteOrder, f.Machine, b.t.Identity, b.t.Hardening)
}

// elfSections reads .symtab (stripped), DWARF sections (debug info) and
// .comment (the compilers and linkers that built the file).
func (b *triageBuilder) elfSections(f *elf.File) {
	symtab := false
	var dwarf, beyond []string
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL && satAdd(s.Offset, s.Size) > uint64(len(b.data)) {
			beyond = append(beyond, s.Name)
		}
		if s.Type == elf.SHT_SYMTAB {
			symtab = true
		}
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			dwarf = append(dwarf, s.Name)
		}
		if s.Name == ".rustc" {
			b.t.Toolchain["language"] = fact("rust", "section:.rustc")
		}
		if s.Name == ".comment" && s.Type != elf.SHT_NOBITS && s.Offset < uint64(len(b.data)) {
			b.comments(b.data[s.Offset:min(satAdd(s.Offset, s.Size), uint64(len(b.data)))], "section:.comment")
		}
	}
	b.sectionsBeyondFile(beyond)
	if len(f.Sections) == 0 {
		b.limit("triage identity: no section headers, so stripped and debug info are not determined")
		return
	}
	b.t.Identity["stripped"] = fact(!symtab, "section:.symtab")
	if dwarf == nil {
		dwarf = []string{}
	}
	b.t.Identity["debug_info"] = fact(map[string]any{"present": len(dwarf) > 0, "sections": dwarf}, "section:.debug_*")
}

// maxCompilers bounds the distinct identification strings listed.
const maxCompilers = 32

// comments records the distinct NUL-separated identification strings of p.
func (b *triageBuilder) comments(p []byte, src string) {
	var out []provider.Compiler
	seen := map[string]bool{}
	for _, raw := range bytes.Split(p, []byte{0}) {
		s := strings.TrimSpace(string(raw))
		if s == "" || seen[s] || len(s) > 256 {
			continue
		}
		seen[s] = true
		if len(out) == maxCompilers {
			b.limit("triage toolchain: more than %d identification strings in %s", maxCompilers, src)
			break
		}
		out = append(out, parseCompiler(s, src))
	}
	if out != nil {
		b.t.Toolchain["compilers"] = out
	}
	for _, c := range out {
		if _, set := b.t.Toolchain["language"]; c.Name == "rustc" && !set {
			b.t.Toolchain["language"] = fact("rust", src+":rustc")
		}
	}
}

// parseCompiler names the tool of an identification string: "GCC: (Debian
// 12.2.0-14) 12.2.0", "Debian clang version 14.0.6", "rustc version 1.70.0",
// "Linker: LLD 14.0.6". The version is the last dotted number after the
// tool's name.
func parseCompiler(s, src string) provider.Compiler {
	c := provider.Compiler{Name: "unknown", Raw: s, Source: src}
	low := strings.ToLower(s)
	var rest string
	switch {
	case strings.HasPrefix(low, "gcc:"):
		c.Name, rest = "gcc", s[4:]
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
	case strings.Contains(low, "clang version"):
		c.Name, rest = "clang", s[strings.Index(low, "clang version")+len("clang version"):]
	case strings.Contains(low, "rustc version"):
		c.Name, rest = "rustc", s[strings.Index(low, "rustc version")+len("rustc version"):]
	case strings.HasPrefix(low, "linker: lld"):
		c.Name, rest = "lld", s[len("linker: lld"):]
	case strings.HasPrefix(low, "gnu ld") || strings.HasPrefix(low, "ld:"):
		c.Name, rest = "ld", s
	default:
		return c
	}
	for _, w := range strings.Fields(rest) {
		if w != "" && w[0] >= '0' && w[0] <= '9' && strings.Contains(w, ".") {
			c.Version = strings.TrimRight(w, ",;)")
			break
		}
	}
	return c
}

// elfFileEnd is the end of the bytes the ELF headers account for: every
// section's file bytes and the section header table (overlay data is what
// follows both this and the last segment).
func (b *triageBuilder) elfFileEnd(f *elf.File) uint64 {
	var end uint64
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS {
			end = max(end, satAdd(s.Offset, s.Size))
		}
	}
	d, bo := b.data, b.img.bo
	if b.img.is64 && len(d) >= 0x40 {
		end = max(end, satAdd(bo.Uint64(d[0x28:]), uint64(bo.Uint16(d[0x3a:]))*uint64(bo.Uint16(d[0x3c:]))))
	} else if !b.img.is64 && len(d) >= 0x34 {
		end = max(end, satAdd(uint64(bo.Uint32(d[0x20:])), uint64(bo.Uint16(d[0x2e:]))*uint64(bo.Uint16(d[0x30:]))))
	}
	return end
}
