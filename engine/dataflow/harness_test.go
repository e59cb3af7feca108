package dataflow

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/x86"
	"github.com/rea-re/rea/internal/testkit"
)

// The tests' architectures are the real conventions (package abi).
var (
	amd64 = ArchFor(abi.SysV())
	i386  = ArchFor(abi.CDecl())
	// flagsX86 are the flags the differential tests randomise.
	flagsX86 = []string{"cf", "pf", "af", "zf", "sf", "of"}
)

// proc is one procedure of an object file: its name and lifted
// instructions.
type procedure struct {
	name  string
	addr  uint64
	insns []*lift.Insn
}

// textBase is where the tests place an object file's .text.
const textBase = 0x401000

// objectProcs reads the FUNC symbols of the ELF object or executable at
// path and lifts each, bounded by the symbol's size.
func objectProcs(t testing.TB, path string, mode int) []procedure {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var out []procedure
	rel := ef.Type == elf.ET_REL
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || int(s.Section) >= len(ef.Sections) || s.Section == elf.SHN_UNDEF {
			continue
		}
		sec := ef.Sections[s.Section]
		data, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		off := s.Value - sec.Addr
		addr := s.Value
		if rel {
			off, addr = s.Value, textBase+s.Value
		}
		if off+s.Size > uint64(len(data)) {
			continue
		}
		out = append(out, procedure{name: s.Name, addr: addr, insns: liftRange(data[off:off+s.Size], addr, mode)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

// liftRange lifts code at addr instruction by instruction; bytes that do
// not decode become an Unmodelled instruction of one byte.
func liftRange(code []byte, addr uint64, mode int) []*lift.Insn {
	var lf x86.Lifter
	var out []*lift.Insn
	for off := 0; off < len(code); {
		in, err := lf.Lift(code[off:], addr+uint64(off), mode)
		if err != nil {
			in = &lift.Insn{Addr: addr + uint64(off), Len: 1, Mnemonic: "(bad)", Stmts: []lift.Stmt{{Op: lift.Unmodelled, Text: "(bad)", Reason: "does not decode"}}}
		}
		out = append(out, in)
		off += in.Len
	}
	return out
}

var (
	corpusMu     sync.Mutex
	corpusBuilds sync.Map // flags → path or error
)

// corpusObject compiles testdata/corpus.c with gcc and flags once per test
// binary.
func corpusObject(t testing.TB, opt string) string {
	t.Helper()
	gcc := testkit.Need(t, "gcc")
	type built struct {
		path string
		err  error
	}
	key := "obj" + opt
	corpusMu.Lock()
	defer corpusMu.Unlock()
	if r, ok := corpusBuilds.Load(key); ok {
		b := r.(built)
		if b.err != nil {
			t.Fatal(b.err)
		}
		return b.path
	}
	src, err := os.ReadFile(filepath.Join("testdata", "corpus.c"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "rea-dataflow-")
	if err != nil {
		t.Fatal(err)
	}
	flags := append(strings.Fields(opt), "-c")
	path, err := testkit.BuildC(gcc, dir, "corpus"+strings.ReplaceAll(opt, " ", ""), string(src), append(flags, "-fno-asynchronous-unwind-tables", "-fcf-protection=none", "-fno-stack-protector", "-fno-pic")...)
	corpusBuilds.Store(key, built{path, err})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// assembleObject assembles assembly with gcc -c into an object
// file in a temporary directory.
func assembleObject(t testing.TB, name, asm string, flags ...string) string {
	t.Helper()
	gcc := testkit.Need(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, name+".s")
	if err := os.WriteFile(src, []byte(asm), 0o600); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, name+".o")
	if out, err := runCmd(gcc, append(flags, "-c", "-o", obj, src)...); err != nil {
		t.Fatalf("assemble %s: %v\n%s", name, err, out)
	}
	return obj
}

// buildOpt builds the SSA of p and runs the passes, validating both stages.
func buildOpt(t testing.TB, arch *Arch, p procedure) (*Func, *Func) {
	t.Helper()
	raw, err := Build(arch, p.insns)
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	if err := Validate(raw); err != nil {
		t.Fatalf("%s before the passes: %v\n%s", p.name, err, raw)
	}
	opt, err := Build(arch, p.insns)
	if err != nil {
		t.Fatal(err)
	}
	Optimize(opt)
	if err := Validate(opt); err != nil {
		t.Fatalf("%s after the passes: %v\n%s", p.name, err, opt)
	}
	return raw, opt
}

func describe(p procedure) string {
	s := fmt.Sprintf("%s at %#x:\n", p.name, p.addr)
	for _, in := range p.insns {
		s += in.String()
	}
	return s
}

func runCmd(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}
