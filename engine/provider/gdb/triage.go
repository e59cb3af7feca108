package gdb

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/triagefacts"
)

// binary_triage is binary_overview's triage (CONTRACTS.md §18) as gdb can
// answer it. gdb shows the BFD file type, the entry point and the section
// table, and reads the contents of allocated sections from the executable
// (no process runs). So it answers: format, bitness and endianness (the
// BFD target name), architecture (gdb's), entry, main (its minimal
// symbols), interpreter (.interp), build id and CET (the note sections,
// read by triagefacts, as the builtin provider reads them), debug info
// (.debug_* section names), Go build info (.go.buildinfo, triagefacts
// again), writable-and-executable sections and an entry outside code (the
// section flags). Everything that needs program headers, the dynamic
// section, the symbol table's kind or non-allocated section bytes is a
// limitation, never a guess.

// maxTriageRead bounds the bytes of one section read through gdb.
const maxTriageRead = 1 << 20

// Limitations of gdb's triage, each naming what is missing and why.
var triageLimitations = []string{
	"triage (gdb): stripped, file type and image base are not determined: gdb shows neither the symbol table's kind (.symtab or .dynsym) nor the ELF header's type or program headers",
	"triage (gdb): hardening other than CET (PIE, NX stack, RELRO, immediate binding, stack protector, FORTIFY, RPATH/RUNPATH) is not determined: it needs the program headers, the dynamic section and the imported symbols' binding, which gdb does not expose",
	"triage (gdb): compilers (.comment), Rust panic-location strings and section entropy are not determined: gdb reads only allocated sections and this provider does not scan them",
	"triage (gdb): loading is not determined: gdb lists shared libraries only for a running process (`info sharedlibrary`), and this provider never runs the target",
	"triage (gdb): segment size mismatches and overlays are not determined: gdb does not expose program headers or the file's layout",
}

// bfdTarget is what a BFD target name ("elf64-x86-64", "elf32-littlearm",
// "elf64-bigaarch64") says of the format, class and byte order.
type bfdTarget struct {
	format  string
	bits    int
	endian  string // "" when the name does not say
	machine elf.Machine
}

func parseBFDTarget(name, arch string) (bfdTarget, bool) {
	var t bfdTarget
	switch {
	case strings.HasPrefix(name, "elf64-"):
		t.format, t.bits = "elf", 64
	case strings.HasPrefix(name, "elf32-"):
		t.format, t.bits = "elf", 32
	default:
		return t, false
	}
	rest := name[6:]
	switch {
	case strings.Contains(rest, "little"), rest == "x86-64", rest == "i386", rest == "x86-64-freebsd", rest == "i386-freebsd":
		t.endian = "little"
	case strings.Contains(rest, "big"):
		t.endian = "big"
	}
	t.machine = map[string]elf.Machine{"x86_64": elf.EM_X86_64, "x86": elf.EM_386, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM}[arch]
	return t, true
}

// parseInfoFiles reads the BFD file type and entry point of `info files`:
//
//	`/tmp/g', file type elf64-x86-64.
//	Entry point: 0x1050
func parseInfoFiles(console []string) (fileType string, entry uint64, hasEntry bool, err error) {
	for _, line := range strings.Split(strings.Join(console, ""), "\n") {
		t := strings.TrimSpace(line)
		if i := strings.LastIndex(t, "', file type "); i >= 0 && strings.HasPrefix(t, "`") && fileType == "" {
			fileType = strings.TrimSuffix(t[i+len("', file type "):], ".")
		}
		if v, ok := strings.CutPrefix(t, "Entry point: "); ok && !hasEntry {
			entry, err = parseHex(v)
			if err != nil {
				return "", 0, false, fmt.Errorf("gdb: malformed entry point %q", trunc(t))
			}
			hasEntry = true
		}
	}
	return fileType, entry, hasEntry, nil
}

// parseShowArchitecture reads `show architecture`: `The target
// architecture is set to "auto" (currently "i386:x86-64").` (or `... is
// set to "aarch64".`) and names it in REA's vocabulary.
func parseShowArchitecture(console []string) string {
	s := strings.Join(console, "")
	if i := strings.Index(s, `currently "`); i >= 0 {
		s = s[i+len(`currently "`):]
	} else if i := strings.Index(s, `set to "`); i >= 0 {
		s = s[i+len(`set to "`):]
	} else {
		return ""
	}
	bfd, _, _ := strings.Cut(s, `"`)
	switch {
	case bfd == "i386:x86-64":
		return "x86_64"
	case bfd == "i386" || strings.HasPrefix(bfd, "i386:") && !strings.Contains(bfd, "64"):
		return "x86"
	case bfd == "aarch64" || strings.HasPrefix(bfd, "aarch64:"):
		return "arm64"
	case strings.HasPrefix(bfd, "arm"):
		return "arm"
	}
	return ""
}

// readMemory reads n bytes at a through gdb from the executable's sections.
func (c *Client) readMemory(ctx context.Context, a, n uint64) ([]byte, error) {
	rec, _, err := c.s.exec(ctx, fmt.Sprintf("-data-read-memory-bytes 0x%x %d", a, n))
	if err != nil {
		return nil, err
	}
	mem, ok := rec.Field("memory")
	if !ok || mem.Kind != ValueList {
		return nil, unreadable(errors.New("no memory list"))
	}
	var out []byte
	next := a
	for _, blk := range mem.Items() {
		bs, ok1 := blk.String("begin")
		hx, ok2 := blk.String("contents")
		begin, err := parseHex(bs)
		if !ok1 || !ok2 || err != nil {
			return nil, unreadable(errors.New("malformed memory block"))
		}
		if begin != next {
			break // a hole: what follows is not the section's bytes
		}
		b, err := hex.DecodeString(hx)
		if err != nil {
			return nil, unreadable(fmt.Errorf("malformed memory contents: %v", err))
		}
		out = append(out, b...)
		next += uint64(len(b))
	}
	return out, nil
}

// section reads an allocated section's bytes (up to maxTriageRead).
func (c *Client) sectionBytes(ctx context.Context, s gsection) ([]byte, bool, error) {
	if !s.flags["ALLOC"] || !s.flags["HAS_CONTENTS"] || s.end <= s.start {
		return nil, false, nil
	}
	n := min(s.end-s.start, maxTriageRead)
	b, err := c.readMemory(ctx, s.start, n)
	var me *miError
	if errors.As(err, &me) {
		return nil, false, nil // gdb cannot read it: the caller says so
	}
	return b, err == nil && uint64(len(b)) == n, err
}

func (c *Client) triage(ctx context.Context, rep progress.Reporter) (provider.Result, error) {
	rep.Report(progress.Update{Phase: "index", Message: "reading gdb's view of the file"})
	tr := provider.Triage{Identity: map[string]any{}, Toolchain: map[string]any{}, Hardening: map[string]any{},
		Loading: map[string]any{}, Anomalies: map[string]any{}}
	lims := append([]string{}, triageLimitations...)
	fact := func(v any, src string) provider.Fact { return provider.Fact{Value: v, Source: src} }
	id := tr.Identity

	out, err := c.console(ctx, "info files")
	if err != nil {
		return provider.Result{}, err
	}
	ft, entry, hasEntry, err := parseInfoFiles(out)
	if err != nil {
		return provider.Result{}, unreadable(err)
	}
	out, err = c.console(ctx, "show architecture")
	if err != nil {
		return provider.Result{}, err
	}
	arch := parseShowArchitecture(out)
	if arch != "" {
		id["architecture"] = fact(arch, "gdb:show architecture")
	} else {
		arch = c.arch
		lims = append(lims, "triage (gdb): gdb's architecture name is not one REA maps; the architecture is not reported")
	}
	bfd, isELF := parseBFDTarget(ft, arch)
	if isELF {
		src := "gdb:info files(file type " + ft + ")"
		id["format"] = fact(bfd.format, src)
		id["bitness"] = fact(bfd.bits, src)
		if bfd.endian != "" {
			id["endianness"] = fact(bfd.endian, src)
		}
	} else {
		lims = append(lims, fmt.Sprintf("triage (gdb): the BFD file type %q is not an ELF one REA reads; format, bitness and endianness are not reported", ft))
	}
	if hasEntry {
		id["entry"] = fact(provider.FormatAddress(entry), "gdb:info files(Entry point)")
	}

	out, err = c.console(ctx, "maint info sections")
	if err != nil {
		return provider.Result{}, err
	}
	_, secs, err := parseSections(out)
	if err != nil {
		return provider.Result{}, unreadable(err)
	}
	var notes []triagefacts.ELFNoteBytes
	dwarf := []string{}
	wx := []string{}
	for _, s := range secs {
		switch {
		case strings.HasPrefix(s.name, ".debug_") || strings.HasPrefix(s.name, ".zdebug_"):
			dwarf = append(dwarf, s.name)
		case strings.HasPrefix(s.name, ".note"):
			b, whole, err := c.sectionBytes(ctx, s)
			if err != nil {
				return provider.Result{}, err
			}
			if !whole {
				lims = append(lims, "triage (gdb): note section "+s.name+" could not be read whole")
			}
			// Note sections are 4-byte aligned, or 8 for 64-bit GNU properties.
			align := uint64(4)
			if s.name == ".note.gnu.property" && bfd.bits == 64 {
				align = 8
			}
			notes = append(notes, triagefacts.ELFNoteBytes{Data: b, Align: align})
		case s.name == ".interp":
			b, whole, err := c.sectionBytes(ctx, s)
			if err != nil {
				return provider.Result{}, err
			}
			if whole {
				id["interpreter"] = fact(strings.TrimRight(string(b), "\x00"), "section:.interp")
			}
		case s.name == ".go.buildinfo":
			b, _, err := c.sectionBytes(ctx, s)
			if err != nil {
				return provider.Result{}, err
			}
			lims = append(lims, triagefacts.GoBuildInfo(b, "section:.go.buildinfo", tr.Toolchain)...)
		}
		if s.flags["ALLOC"] && s.flags["CODE"] && !s.flags["READONLY"] {
			wx = append(wx, s.name)
		}
	}
	id["debug_info"] = fact(map[string]any{"present": len(dwarf) > 0, "sections": dwarf}, "gdb:maint info sections(.debug_*)")
	if isELF && bfd.endian != "" && bfd.machine != 0 {
		var bo binary.ByteOrder = binary.LittleEndian
		if bfd.endian == "big" {
			bo = binary.BigEndian
		}
		triagefacts.ELFNotes(notes, bfd.bits == 64, bo, bfd.machine, id, tr.Hardening)
	}
	tr.Anomalies["wx_sections"] = fact(wx, "gdb:maint info sections(flags CODE without READONLY)")
	if hasEntry && entry != 0 {
		s := c.sectionAt(entry)
		tr.Anomalies["entry_outside_code"] = fact(s == nil || !s.flags["CODE"], "heuristic:entry-in-executable-section")
	}

	tab, err := c.symbols(ctx, rep)
	if err != nil {
		return provider.Result{}, err
	}
	want := []string{"main"}
	if _, isGo := tr.Toolchain["go"]; isGo {
		want = []string{"main.main", "main"}
	}
	for _, w := range want {
		if as := tab.procsNamed(w); len(as) == 1 {
			id["main"] = provider.MainFact{Address: provider.FormatAddress(as[0]), Name: w, Source: "gdb:minimal symbol " + w}
			break
		}
	}
	if id["main"] == nil {
		lims = append(lims, "triage (gdb): main is not determined: no single procedure named main among gdb's minimal symbols (the builtin provider also reads a stripped file's start code)")
	}
	return provider.Result{Normalized: tr, Limitations: lims}, nil
}
