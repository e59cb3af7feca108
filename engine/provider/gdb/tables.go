package gdb

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Parsers of the console text of two maintenance commands. Their formats are
// gdb's (gdb/symmisc.c dump_msymbols, gdb/maint.c print_bfd_section_info);
// the gdb version that produced them is in the analysis profile. A line that
// does not match is an error (unreadable_output), never skipped silently.

// msym is one minimal symbol.
type msym struct {
	addr    uint64
	name    string // linkage name
	typ     byte   // dump_msymbols type letter
	section string // "" when gdb names none
}

// parseMsymbols parses `maint print msymbols`. Lines look like
//
//	[ 3] T 0x1030 puts@plt section .plt  <demangled>  <file>
//
// The name runs to " section " (names may contain spaces, e.g. Go's
// "type:.eq.[2]interface {}"), or, without a section, to the first double
// space or the end of the line.
func parseMsymbols(console []string) ([]msym, error) {
	var out []msym
	// gdb may split one line over several console records: join first.
	for _, line := range strings.Split(strings.Join(console, ""), "\n") {
		if line == "" || strings.HasPrefix(line, "Object file ") {
			continue
		}
		if !strings.HasPrefix(line, "[") {
			return nil, fmt.Errorf("gdb: unexpected msymbols line %q", trunc(line))
		}
		end := strings.IndexByte(line, ']')
		if end < 0 || len(line) < end+4 || line[end+1] != ' ' || line[end+3] != ' ' {
			return nil, fmt.Errorf("gdb: malformed msymbols line %q", trunc(line))
		}
		typ := line[end+2]
		rest := line[end+4:]
		a, rest, ok := strings.Cut(rest, " ")
		if !ok || !strings.HasPrefix(a, "0x") {
			return nil, fmt.Errorf("gdb: malformed msymbols address in %q", trunc(line))
		}
		addr, err := strconv.ParseUint(a[2:], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("gdb: malformed msymbols address in %q", trunc(line))
		}
		var name, sec string
		if i := strings.Index(rest, " section "); i >= 0 {
			name = rest[:i]
			sec, _, _ = strings.Cut(rest[i+len(" section "):], " ")
		} else {
			name, _, _ = strings.Cut(rest, "  ")
		}
		if name == "" {
			return nil, fmt.Errorf("gdb: msymbol without a name in %q", trunc(line))
		}
		out = append(out, msym{addr: addr, name: name, typ: typ, section: sec})
	}
	slices.SortFunc(out, func(a, b msym) int {
		if a.addr != b.addr {
			if a.addr < b.addr {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	// The same (address, name) in several objfiles (a separate debug file)
	// is one symbol.
	return slices.CompactFunc(out, func(a, b msym) bool { return a.addr == b.addr && a.name == b.name }), nil
}

// gsection is one section of `maint info sections`.
type gsection struct {
	name       string
	start, end uint64
	flags      map[string]bool
}

// parseSections parses `maint info sections`. Lines look like
//
//	[14]     0x00001070->0x00001204 at 0x00001070: .text ALLOC LOAD READONLY CODE HAS_CONTENTS
//
// preceded by "Exec file: `PATH', file type elf64-x86-64." It returns the
// BFD file type ("" when gdb has no exec file).
func parseSections(console []string) (fileType string, secs []gsection, err error) {
	for _, line := range strings.Split(strings.Join(console, ""), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "Exec file: ") || strings.HasPrefix(t, "Core file: "):
			if i := strings.LastIndex(t, "', file type "); i >= 0 && strings.HasPrefix(t, "Exec file: ") {
				fileType = strings.TrimSuffix(t[i+len("', file type "):], ".")
			}
			continue
		case !strings.HasPrefix(t, "["):
			return "", nil, fmt.Errorf("gdb: unexpected section line %q", trunc(line))
		}
		_, rest, ok := strings.Cut(t, "]")
		if !ok {
			return "", nil, fmt.Errorf("gdb: malformed section line %q", trunc(line))
		}
		f := strings.Fields(rest)
		if len(f) < 4 || f[1] != "at" {
			return "", nil, fmt.Errorf("gdb: malformed section line %q", trunc(line))
		}
		lo, hi, ok := strings.Cut(f[0], "->")
		start, err1 := parseHex(lo)
		end, err2 := parseHex(hi)
		if !ok || err1 != nil || err2 != nil || end < start {
			return "", nil, fmt.Errorf("gdb: malformed section range in %q", trunc(line))
		}
		s := gsection{name: f[3], start: start, end: end, flags: map[string]bool{}}
		for _, fl := range f[4:] {
			s.flags[fl] = true
		}
		secs = append(secs, s)
	}
	return fileType, secs, nil
}

func parseHex(s string) (uint64, error) {
	if !strings.HasPrefix(s, "0x") {
		return 0, fmt.Errorf("not 0x hex: %q", s)
	}
	return strconv.ParseUint(s[2:], 16, 64)
}

func trunc(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
