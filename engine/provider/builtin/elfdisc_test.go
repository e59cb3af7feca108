package builtin

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/internal/corpus"
)

// elfDiscCell is one build of TestELFNoUnwindDiscovery's matrix.
type elfDiscCell struct {
	arch, cc string
	flags    []string
	strip    string
}

var elfDiscCells = []elfDiscCell{
	{"x86-64", "gcc", nil, "strip"},
	{"x86-64", "clang", nil, "strip"},
	{"i386", "i686-linux-gnu-gcc", nil, "i686-linux-gnu-strip"},
	{"i386", "clang", []string{"--target=i686-linux-gnu"}, "i686-linux-gnu-strip"},
	{"arm64", "aarch64-linux-gnu-gcc", nil, "aarch64-linux-gnu-strip"},
	{"arm64", "clang", []string{"--target=aarch64-linux-gnu"}, "aarch64-linux-gnu-strip"},
}

// elfFuncStarts returns the STT_FUNC symbols of path that lie in
// executable sections other than the PLT's, and a predicate of those
// sections.
func elfFuncStarts(t *testing.T, path string) (map[uint64]string, func(uint64) bool) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type rng struct{ lo, hi uint64 }
	var code []rng
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && !strings.HasPrefix(s.Name, ".plt") {
			code = append(code, rng{s.Addr, s.Addr + s.Size})
		}
	}
	in := func(a uint64) bool {
		for _, r := range code {
			if a >= r.lo && a < r.hi {
				return true
			}
		}
		return false
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]string{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && in(s.Value) {
			out[s.Value] = s.Name
		}
	}
	return out, in
}

// elfDiscScore builds src (files in dir) with cell at opt without unwind
// tables, strips it, and returns recall and precision of the stripped
// image's procedure starts against the twin's function symbols.
func elfDiscScore(t *testing.T, dir string, cell elfDiscCell, opt string, srcs []string) (recall, precision float64) {
	t.Helper()
	cc := needTool(t, cell.cc)
	strip := needTool(t, cell.strip)
	name := strings.ReplaceAll(fmt.Sprintf("%s-%s%s%s", cell.arch, filepath.Base(cc), strings.Join(cell.flags, ""), opt), "/", "-")
	full, stripped := filepath.Join(dir, name), filepath.Join(dir, name+"-s")
	args := append(append([]string{}, cell.flags...), opt, "-w", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-o", full)
	if err := run(dir, nil, cc, append(args, srcs...)...); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
		t.Fatal(err)
	}
	want, in := elfFuncStarts(t, full)
	prof, err := New("v1").Profile(t.Context(), targetFor(t, stripped))
	if err != nil {
		t.Fatal(err)
	}
	if disc, _ := prof.Parameters["function_discovery"].([]any); !slices.Contains(disc, any("code-gaps")) {
		t.Errorf("function_discovery %v lacks code-gaps", disc)
	}
	_, _, c := open(t, stripped)
	got := procStarts(t, c)
	hit := 0
	for a, n := range want {
		if got[a] {
			hit++
		} else {
			t.Logf("missing %#x %s", a, n)
		}
	}
	found, right := 0, 0
	for a := range got {
		if !in(a) {
			continue
		}
		found++
		if _, ok := want[a]; ok {
			right++
		} else {
			t.Logf("procedure %#x is no function of the twin", a)
		}
	}
	recall, precision = float64(hit)/float64(len(want)), float64(right)/float64(max(found, 1))
	t.Logf("%s %s %s: recall %d/%d (%.4f), precision %d/%d (%.4f)", cell.arch, cell.cc, opt, hit, len(want), recall, right, found, precision)
	return recall, precision
}

// TestELFNoUnwindDiscovery: the signature corpus built without unwind
// tables and stripped, on x86-64, i386 and arm64 with gcc and clang at
// -O0..-O3 (one cell under -short): ≥ 98% of the twin's function symbols
// are procedure starts, and ≥ 99% of the procedure starts are function
// symbols (issue 25 item 6).
func TestELFNoUnwindDiscovery(t *testing.T) {
	cells, levels := elfDiscCells, []string{"-O0", "-O1", "-O2", "-O3"}
	if testing.Short() {
		cells, levels = cells[:1], []string{"-O2"}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "corpus.c")
	if err := os.WriteFile(src, []byte(corpus.Source()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cell := range cells {
		for _, opt := range levels {
			t.Run(cell.arch+"/"+filepath.Base(cell.cc)+opt, func(t *testing.T) {
				r, p := elfDiscScore(t, dir, cell, opt, []string{src})
				if r < 0.98 {
					t.Errorf("recall %.4f < 0.98", r)
				}
				if p < 0.99 {
					t.Errorf("precision %.4f < 0.99", p)
				}
			})
		}
	}
}

// TestELFNoUnwindMiniLua: a multi-file C program shaped like Lua
// (testdata/minilua: luaL_Reg-like tables of static functions reached only
// through them, callbacks passed to qsort and to its own sort, a state
// holding function pointers, a dispatch loop with a switch), built without
// unwind tables and stripped, position-independent and not (-no-pie: the
// pointers are words of .data.rel.ro and .rodata, no relocation names
// them), on the same matrix: recall ≥ 98% and precision ≥ 99%.
func TestELFNoUnwindMiniLua(t *testing.T) {
	srcs := miniluaSources(t)
	cells, levels := elfDiscCells, []string{"-O0", "-O2", "-O3"}
	if testing.Short() {
		cells, levels = cells[:1], []string{"-O2"}
	}
	dir := t.TempDir()
	for _, cell := range cells {
		for _, pie := range []string{"-pie", "-no-pie"} {
			for _, opt := range levels {
				t.Run(cell.arch+"/"+filepath.Base(cell.cc)+pie+opt, func(t *testing.T) {
					c := cell
					c.flags = append(append([]string{}, cell.flags...), pie)
					if pie == "-pie" {
						c.flags = append(c.flags, "-fPIE")
					} else {
						c.flags = append(c.flags, "-fno-PIE")
					}
					r, p := elfDiscScore(t, dir, c, opt, srcs)
					if r < 0.98 {
						t.Errorf("recall %.4f < 0.98", r)
					}
					if p < 0.99 {
						t.Errorf("precision %.4f < 0.99", p)
					}
				})
			}
		}
	}
}

// FuzzELFNoUnwind feeds the ELF parser mutations of stripped builds
// without unwind tables (testdata/minilua, compiled at run time; a missing
// compiler leaves its seed out), whose procedures come from the data and
// gap search and the jump tables it reads (elfgaps.go): untrusted tables,
// relocations and code may only make it find less.
func FuzzELFNoUnwind(f *testing.F) {
	srcs := miniluaSources(f)
	dir := f.TempDir()
	cells := elfDiscCells
	if testing.Short() {
		cells = cells[:1]
	}
	seeds := 0
	for i, c := range cells {
		cc, err := exec.LookPath(c.cc)
		if err != nil {
			continue
		}
		out := filepath.Join(dir, fmt.Sprintf("seed%d", i))
		args := append(append([]string{}, c.flags...), "-O2", "-w", "-s", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-o", out)
		if err := run(dir, nil, cc, append(args, srcs...)...); err != nil {
			f.Fatalf("%s: %v", c.cc, err)
		}
		if b, err := os.ReadFile(out); err == nil {
			f.Add(b)
			seeds++
		}
	}
	f.Logf("%d seeds compiled", seeds)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzFormat(t, data, openELF) })
}

// miniluaSources returns the absolute paths of testdata/minilua's C files.
func miniluaSources(t testing.TB) []string {
	t.Helper()
	srcs, err := filepath.Glob(filepath.Join("testdata", "minilua", "*.c"))
	if err != nil || len(srcs) < 5 {
		t.Fatalf("testdata/minilua: %v %v", srcs, err)
	}
	for i, s := range srcs {
		if srcs[i], err = filepath.Abs(s); err != nil {
			t.Fatal(err)
		}
	}
	return srcs
}
