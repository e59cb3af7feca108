package builtin

import (
	"regexp"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

const mingw = "x86_64-w64-mingw32-"

func TestPEGoAmd64(t *testing.T) {
	path := goFixture(t, "windows", "amd64")
	_, tg, c := open(t, path)
	if tg.Format != "pe" || tg.Architecture != "x86_64" {
		t.Fatalf("target %+v", tg)
	}
	checkGoFixture(t, c, path, "main.main", "main.helper")
	checkPESegments(t, c, path, "objdump")
}

// checkPESegments compares list_segments with objdump's section headers.
func checkPESegments(t *testing.T, c provider.Client, path, objdump string) {
	segs := do(t, c, provider.OpListSegments, nil).Normalized.([]provider.Segment)
	out := toolOutput(t, objdump, "-h", path)
	re := regexp.MustCompile(`(?m)^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)`)
	ms := re.FindAllStringSubmatch(out, -1)
	if len(ms) != len(segs) {
		t.Fatalf("segments %d, objdump sections %d", len(segs), len(ms))
	}
	for i, m := range ms {
		s := segs[i]
		if s.Name != m[1] || s.Start != provider.FormatAddress(hexAddr(t, m[3])) {
			t.Errorf("segment %d: %s at %s; objdump %s at %s", i, s.Name, s.Start, m[1], m[3])
		}
		if len(s.Sections) != 1 || s.Sections[0].Name != s.Name || s.Sections[0].Start != s.Start || s.Sections[0].End != s.End {
			t.Errorf("segment %s: its section should be itself: %+v", s.Name, s.Sections)
		}
		if s.Name == ".text" && (s.Executable == nil || !*s.Executable || s.Writable) {
			t.Errorf(".text flags %+v", s)
		}
	}
}

func mingwFixture(t *testing.T, name string, flags ...string) string {
	return cFixture(t, name, mingw+"gcc", flags...)
}

func TestPEMingwExe(t *testing.T) {
	path := mingwFixture(t, "mingw.exe", "-O1")
	_, tg, c := open(t, path)
	if tg.Format != "pe" || tg.Architecture != "x86_64" {
		t.Fatalf("target %+v", tg)
	}
	procs := allProcedures(t, c)
	names := allNames(t, c)
	checkSorted(t, procs, names)
	nm := nmAddrs(t, []string{mingw + "nm"}, path)
	for _, fn := range []string{"main", "rea_add", "rea_mul", "rea_static_helper"} {
		a := procAt(procs, fn)
		if len(nm[fn]) != 1 || len(a) != 1 || a[0] != provider.FormatAddress(nm[fn][0]) {
			t.Errorf("%s: procedures %v, nm %x", fn, a, nm[fn])
		}
	}
	// Imports are named at their IAT slot, where mingw's __imp_ symbols point.
	imports := 0
	for _, n := range names {
		if n.Symbol.Type != "import" {
			continue
		}
		imports++
		if !n.Symbol.External || !n.Symbol.Dynamic || n.Symbol.Source != "imported" {
			t.Errorf("import %+v", n)
		}
		if want, ok := nm["__imp_"+n.Value]; ok && provider.FormatAddress(want[0]) != n.Address {
			t.Errorf("import %s at %s, __imp_ symbol at %x", n.Value, n.Address, want[0])
		}
	}
	if a := nm["__imp_puts"]; len(a) != 1 || !hasName(names, provider.FormatAddress(a[0]), "puts") {
		t.Errorf("no import puts at __imp_puts %x", a)
	}
	if imports == 0 {
		t.Errorf("no imports")
	}
	ss := allStrings(t, c)
	b := findString(ss, "REA fixture banner string")
	if b == nil || b.Address != provider.FormatAddress(nm["rea_banner"][0]) || b.String.Section == nil || *b.String.Section != ".rdata" {
		t.Errorf("banner: %+v", b)
	}
	w := findString(ss, "REA wide text")
	if w == nil || w.Address != provider.FormatAddress(nm["rea_wide"][0]) || w.String.Encoding != "utf-16le" {
		t.Errorf("wide: %+v", w)
	}
	if s := findString(ss, "!This program cannot be run in DOS mode."); s == nil || s.String.Section != nil {
		t.Errorf("the DOS stub message lies in the mapped headers, outside every section: %+v", s)
	}
	checkPESegments(t, c, path, mingw+"objdump")
}

func hasName(ns []provider.NameItem, addr, name string) bool {
	for _, n := range ns {
		if n.Address == addr && n.Value == name {
			return true
		}
	}
	return false
}

func TestPEMingwDLLExports(t *testing.T) {
	dll := mingwFixture(t, "mingw.dll", "-O1", "-shared")
	nm := nmAddrs(t, []string{mingw + "nm"}, dll)
	stripped := t.TempDir() + "/stripped.dll"
	needTool(t, mingw+"strip")
	if err := run("", nil, mingw+"strip", "-o", stripped, dll); err != nil {
		t.Fatal(err)
	}
	_, tg, c := open(t, stripped)
	prof, err := New("v").Profile(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if d := prof.Parameters["function_discovery"].([]any); len(d) == 0 || d[0] != "exports" {
		t.Errorf("function_discovery %v", d)
	}
	procs := allProcedures(t, c)
	names := allNames(t, c)
	checkSorted(t, procs, names)
	for _, fn := range []string{"rea_add", "rea_mul", "main"} {
		a := procAt(procs, fn)
		if len(nm[fn]) != 1 || len(a) != 1 || a[0] != provider.FormatAddress(nm[fn][0]) {
			t.Errorf("export %s: procedures %v, nm %x", fn, a, nm[fn])
		}
	}
	for _, n := range names {
		if n.Value == "rea_global_counter" {
			if n.Symbol.Type != "object" || !n.Symbol.Dynamic || n.Address != provider.FormatAddress(nm["rea_global_counter"][0]) {
				t.Errorf("exported object %+v", n)
			}
			return
		}
	}
	t.Errorf("exported object rea_global_counter missing")
}
