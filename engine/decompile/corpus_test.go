package decompile_test

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"github.com/rea-re/rea/engine/internal/cfgtest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile"
	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/internal/testkit"
)

var (
	buildDir  string
	buildMu   sync.Mutex
	buildDone = map[corpus.Target]string{}
)

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "rea-decompile-")
	if err != nil {
		panic(err)
	}
	buildDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// build compiles the corpus for tg once per test binary.
func build(t testing.TB, tg corpus.Target) (*corpus.Program, string) {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	path, ok := buildDone[tg]
	if !ok {
		dir, err := os.MkdirTemp(buildDir, "b")
		if err == nil {
			path, err = corpus.Build(dir, tg)
		}
		if errors.Is(err, corpus.ErrMissingTool) {
			testkit.SkipOrFail(t, err.Error())
			return nil, ""
		}
		if err != nil {
			t.Fatal(err)
		}
		buildDone[tg] = path
	}
	p, err := corpus.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p, path
}

// elfImage is the build's memory for jump tables (dataflow.Image) and
// its symbols with their sizes for SymbolAt.
type elfImage struct {
	secs []*elf.Section
	data map[*elf.Section][]byte
	syms []elf.Symbol
}

func openImage(t testing.TB, path string) *elfImage {
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	im := &elfImage{data: map[*elf.Section][]byte{}}
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Addr == 0 {
			continue
		}
		im.secs = append(im.secs, s)
		if s.Type != elf.SHT_NOBITS {
			if im.data[s], err = s.Data(); err != nil {
				t.Fatal(err)
			}
		}
	}
	syms, _ := ef.Symbols()
	for _, s := range syms {
		tp := elf.ST_TYPE(s.Info)
		if (tp == elf.STT_FUNC || tp == elf.STT_OBJECT) && s.Value != 0 && s.Size > 0 && s.Section != elf.SHN_UNDEF {
			im.syms = append(im.syms, s)
		}
	}
	sort.Slice(im.syms, func(i, j int) bool { return im.syms[i].Value < im.syms[j].Value })
	return im
}

func (im *elfImage) section(addr uint64) *elf.Section {
	for _, s := range im.secs {
		if addr >= s.Addr && addr < s.Addr+s.Size {
			return s
		}
	}
	return nil
}

func (im *elfImage) Read(addr uint64, n int) ([]byte, bool, bool) {
	s := im.section(addr)
	if s == nil || addr+uint64(n) > s.Addr+s.Size || s.Type == elf.SHT_NOBITS {
		return nil, false, false
	}
	d := im.data[s][addr-s.Addr:]
	return d[:n], s.Flags&elf.SHF_WRITE != 0, true
}

func (im *elfImage) readOnly(addr uint64, n int) ([]byte, bool) {
	b, w, ok := im.Read(addr, n)
	return b, ok && !w
}

func (im *elfImage) Executable(addr uint64) bool {
	s := im.section(addr)
	return s != nil && s.Flags&elf.SHF_EXECINSTR != 0
}

func (im *elfImage) Import(uint64) (string, bool) { return "", false }

func (im *elfImage) symbolAt(addr uint64) (string, uint64, uint64, bool) {
	i := sort.Search(len(im.syms), func(i int) bool { return im.syms[i].Value > addr }) - 1
	if i < 0 {
		return "", 0, 0, false
	}
	s := im.syms[i]
	if addr >= s.Value+s.Size {
		return "", 0, 0, false
	}
	return s.Name, s.Value, s.Size, true
}

func envFor(p *corpus.Program) *signature.Env {
	e := &signature.Env{Conv: abi.ForArch(p.Arch, "linux"), Image: p.Image}
	switch p.Arch {
	case "x86-64":
		e.ABI = ctypes.LinuxAMD64
	case "i386":
		e.ABI = ctypes.Linux386
	case "arm64":
		e.ABI = ctypes.LinuxARM64
	}
	return e
}

// unit is one decompiled procedure of a build.
type unit struct {
	name   string
	res    *decompile.Result
	proto  *signature.Prototype
	calls  bool // the procedure calls or tail-calls
	asm    int  // its instructions' bytes
	text   string
	unsafe bool
	// reducible: the procedure's control-flow graph is (cfgtest's oracle)
	reducible bool
}

// decompileAll decompiles every procedure of a build; rename gives each
// procedure's name in the text (nil: its own).
func decompileAll(t testing.TB, tg corpus.Target, rename func(string) string) ([]unit, *corpus.Program, string) {
	p, path := build(t, tg)
	if p == nil {
		return nil, nil, ""
	}
	im := openImage(t, path)
	env := envFor(p)
	arch := dataflow.ArchFor(env.Conv)
	funcs := map[uint64]*dataflow.Func{}
	tables := map[uint64][]dataflow.JumpTable{}
	for _, pr := range p.Procs {
		end := pr.Addr
		if n := len(pr.Insns); n > 0 {
			end = pr.Insns[n-1].Next()
		}
		r, err := dataflow.ResolveProcedure(arch, pr.Insns, im, dataflow.Options{Start: pr.Addr, End: end})
		if err != nil {
			t.Fatalf("%s %s: %v", tg, pr.Name, err)
		}
		funcs[pr.Addr] = r.Func
		tables[pr.Addr] = r.Tables
	}
	protos := signature.Program(funcs, env, 4)
	env.Known = func(a uint64) (*signature.Prototype, bool) { q, ok := protos[a]; return q, ok }
	names := map[uint64]string{}
	for _, pr := range p.Procs {
		names[pr.Addr] = pr.Name
	}
	var out []unit
	for _, pr := range p.Procs {
		f := funcs[pr.Addr]
		name := pr.Name
		if rename != nil {
			name = rename(name)
		}
		in := decompile.Input{Func: f, Env: env, Prototype: protos[pr.Addr], Name: name, Insns: pr.Insns, SymbolAt: im.symbolAt, ReadOnly: im.readOnly, Tables: tables[pr.Addr],
			Names: func(a uint64) (string, bool) { n, ok := names[a]; return n, ok }}
		res, err := decompile.Decompile(context.Background(), in)
		if err != nil {
			t.Fatalf("%s %s: %v", tg, pr.Name, err)
		}
		u := unit{name: pr.Name, res: res, proto: protos[pr.Addr], text: res.Prelude + res.Code}
		for _, in := range pr.Insns {
			u.asm += in.Len
		}
		u.calls = len(signature.Calls(f, env)) > 0
		g := decompile.Graph(f)
		u.reducible = cfgtest.Reducible(g.Succs, g.Entry)
		out = append(out, u)
	}
	return out, p, path
}

// compileUnits compiles each unit alone with cc -std=gnu11 -c and
// returns the names of those that fail with the first error line.
func compileUnits(t testing.TB, cc string, units []unit) map[string]string {
	dir := t.TempDir()
	var files []string
	byFile := map[string]string{}
	for i, u := range units {
		f := fmt.Sprintf("u%d.c", i)
		if err := os.WriteFile(filepath.Join(dir, f), []byte(u.text), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		byFile[f] = u.name
	}
	failed := map[string]string{}
	for len(files) > 0 {
		n := min(len(files), 64)
		batch := files[:n]
		files = files[n:]
		cmd := exec.Command(cc, append([]string{"-std=gnu11", "-c", "-w"}, batch...)...)
		cmd.Dir = dir
		b, _ := cmd.CombinedOutput()
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.Contains(l, "error") {
				continue
			}
			f, _, _ := strings.Cut(l, ":")
			if name, ok := byFile[f]; ok {
				if _, seen := failed[name]; !seen {
					failed[name] = l
				}
			}
		}
	}
	return failed
}

// only keeps the targets REA_DECOMPILE_TARGETS names (comma-separated
// prefixes such as "arm64" or "x86-64/clang"); unset: all.
func only(ts []corpus.Target) []corpus.Target {
	f := os.Getenv("REA_DECOMPILE_TARGETS")
	if f == "" {
		return ts
	}
	var out []corpus.Target
	for _, t := range ts {
		for _, p := range strings.Split(f, ",") {
			if strings.HasPrefix(t.String(), p) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func x86Targets() []corpus.Target {
	var out []corpus.Target
	for _, c := range []string{"gcc", "clang"} {
		for o := 0; o <= 3; o++ {
			// Under the race detector, every level once across the two
			// compilers (gcc -O0, -O2; clang -O1, -O3): the sweep is the
			// decompiler's single-threaded code, four times slower there.
			if testkit.Race && (c == "gcc") != (o%2 == 0) {
				continue
			}
			out = append(out, corpus.Target{Arch: "x86-64", Compiler: c, Opt: o})
		}
	}
	return out
}

// TestCorpusCompiles decompiles every procedure of the corpus built with
// gcc and clang at -O0…-O3 for x86-64 (and -O0, -O2 for arm64) and
// compiles each unit with gcc and clang -std=gnu11 -c (the host's: the
// unit is C whatever the architecture it was lifted from). Every unit must
// compile.
func TestCorpusCompiles(t *testing.T) {
	targets := x86Targets()
	for _, c := range []string{"gcc", "clang"} {
		for _, o := range []int{0, 2} {
			if testkit.Race && (c == "gcc") != (o == 0) {
				continue // as in x86Targets: gcc -O0, clang -O2
			}
			targets = append(targets, corpus.Target{Arch: "arm64", Compiler: c, Opt: o})
		}
	}
	if testing.Short() {
		targets = []corpus.Target{{Arch: "x86-64", Compiler: "gcc", Opt: 0}, {Arch: "x86-64", Compiler: "gcc", Opt: 2}}
	}
	var table []string
	for _, tg := range only(targets) {
		units, _, _ := decompileAll(t, tg, nil)
		if units == nil {
			return
		}
		for _, cc := range []string{"gcc", "clang"} {
			testkit.Need(t, cc)
			failed := compileUnits(t, cc, units)
			table = append(table, fmt.Sprintf("%-18s %-5s %4d/%4d", tg, cc, len(units)-len(failed), len(units)))
			var names []string
			for n := range failed {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				t.Errorf("%s, %s: %s does not compile: %s", tg, cc, n, failed[n])
			}
		}
	}
	t.Logf("units that compile (target, compiler, compiled/total):\n%s", strings.Join(table, "\n"))
}

// asmBytes is the size of each procedure's disassembly text (objdump -d
// --no-show-raw-insn -M intel, one line per instruction): the reference
// the readability figure compares code bytes with.
func asmBytes(t testing.TB, path string) map[string]int {
	od := testkit.Need(t, "objdump")
	b, err := exec.Command(od, "-d", "--no-show-raw-insn", "-M", "intel", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	cur := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(l, ">:") {
			if i := strings.Index(l, "<"); i >= 0 {
				cur = l[i+1 : len(l)-2]
			}
			continue
		}
		if cur != "" && strings.HasPrefix(l, " ") && strings.Contains(l, ":") {
			out[cur] += len(strings.TrimSpace(l)) + 1
		}
	}
	return out
}

// TestCodeBytes measures the median ratio of code bytes to disassembly
// bytes over the corpus functions at -O2 (the goal: ≤ 0.5 once
// the text is structured; goto form is larger).
func TestCodeBytes(t *testing.T) {
	inCorpus := map[string]bool{}
	for _, n := range corpus.Functions() {
		inCorpus[n] = true
	}
	for _, c := range []string{"gcc", "clang"} {
		tg := corpus.Target{Arch: "x86-64", Compiler: c, Opt: 2}
		units, _, path := decompileAll(t, tg, nil)
		if units == nil {
			return
		}
		asm := asmBytes(t, path)
		var ratios []float64
		codeTotal, asmTotal := 0, 0
		for _, u := range units {
			a := asm[u.name]
			if !inCorpus[u.name] || a == 0 {
				continue
			}
			ratios = append(ratios, float64(len(u.res.Code))/float64(a))
			codeTotal += len(u.res.Code)
			asmTotal += a
		}
		if len(ratios) == 0 {
			t.Fatalf("%s: no function measured", tg)
		}
		sort.Float64s(ratios)
		t.Logf("%s: %d functions, median code/assembly bytes %.2f (total %d / %d = %.2f)", tg, len(ratios), ratios[len(ratios)/2], codeTotal, asmTotal, float64(codeTotal)/float64(asmTotal))
	}
}

// TestCorpusGotos: no goto in the text of a corpus procedure whose
// control-flow graph is reducible (issue 26, "readable"), on every x86-64
// build the compile test reads.
func TestCorpusGotos(t *testing.T) {
	targets := x86Targets()
	if testing.Short() {
		targets = []corpus.Target{{Arch: "x86-64", Compiler: "gcc", Opt: 0}, {Arch: "x86-64", Compiler: "gcc", Opt: 2}}
	}
	for _, tg := range only(targets) {
		units, _, _ := decompileAll(t, tg, nil)
		reducible, gotos := 0, 0
		for _, u := range units {
			gotos += u.res.Structure.Gotos
			if !u.reducible {
				continue
			}
			reducible++
			if u.res.Structure.Gotos > 0 {
				t.Errorf("%s %s: reducible, yet %d goto(s):\n%s", tg, u.name, u.res.Structure.Gotos, u.res.Code)
			}
		}
		t.Logf("%s: %d procedures, %d reducible, %d gotos in all", tg, len(units), reducible, gotos)
	}
}

// TestDump prints the units named by REA_DECOMPILE_DUMP (comma-separated)
// of the build REA_DECOMPILE_TARGET (default x86-64/gcc/O2): a reading aid.
func TestDump(t *testing.T) {
	want := os.Getenv("REA_DECOMPILE_DUMP")
	if want == "" {
		t.Skip("set REA_DECOMPILE_DUMP to the procedures to print")
	}
	tg := corpus.Target{Arch: "x86-64", Compiler: "gcc", Opt: 2}
	if s := os.Getenv("REA_DECOMPILE_TARGET"); s != "" {
		var o int
		parts := strings.Split(s, "/")
		fmt.Sscanf(parts[2], "O%d", &o)
		tg = corpus.Target{Arch: parts[0], Compiler: parts[1], Opt: o}
	}
	units, _, _ := decompileAll(t, tg, nil)
	for _, u := range units {
		for _, w := range strings.Split(want, ",") {
			if u.name == w {
				t.Logf("%s\n%s\nlimitations: %q", u.res.Prelude, u.res.Code, u.res.Limitations)
			}
		}
	}
}
