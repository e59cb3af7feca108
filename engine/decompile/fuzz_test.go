package decompile_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/x86"
	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/internal/testkit"
)

const textBase = 0x401000

// liftBytes lifts code as one procedure; bytes that do not decode become
// one-byte unmodelled instructions.
func liftBytes(code []byte, mode int) []*lift.Insn {
	var out []*lift.Insn
	for off := 0; off < len(code); {
		in, err := x86.Lift(code[off:], textBase+uint64(off), mode)
		if err != nil {
			in = &lift.Insn{Addr: textBase + uint64(off), Len: 1, Mnemonic: "(bad)", Stmts: []lift.Stmt{{Op: lift.Unmodelled, Text: "(bad)", Reason: "does not decode"}}}
		}
		out = append(out, in)
		off += in.Len
	}
	return out
}

// emitBytes decompiles code lifted as x86-64 (data[0] even) or i386.
func emitBytes(data []byte) (*decompile.Result, error) {
	mode, arch, a := 64, "x86-64", ctypes.LinuxAMD64
	if data[0]&1 == 1 {
		mode, arch, a = 32, "i386", ctypes.Linux386
	}
	env := &signature.Env{Conv: abi.ForArch(arch, "linux"), ABI: a}
	insns := liftBytes(data[1:], mode)
	f, err := dataflow.Build(dataflow.ArchFor(env.Conv), insns)
	if err != nil {
		return nil, err
	}
	dataflow.Optimize(f)
	return decompile.Decompile(context.Background(), decompile.Input{Func: f, Env: env, Name: "fuzzed", Insns: insns})
}

var fuzzSeeds = [][]byte{
	{0, 0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0x8b, 0x45, 0xfc, 0x5d, 0xc3},
	{0, 0x48, 0x39, 0xf7, 0x7c, 0x06, 0xb8, 0x01, 0, 0, 0, 0xc3, 0xb8, 0x02, 0, 0, 0, 0xc3},
	{0, 0x31, 0xc0, 0x48, 0x85, 0xff, 0x7e, 0x08, 0x48, 0x01, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xf8, 0xc3},
	{1, 0x55, 0x89, 0xe5, 0x83, 0xe4, 0xf0, 0x83, 0xec, 0x10, 0xe8, 0, 0, 0, 0, 0xc9, 0xc3},
	{0, 0xf3, 0xaa, 0xff, 0xe0},
	{0, 0x66, 0x0f, 0xfe, 0xc1, 0x66, 0x0f, 0x70, 0xc8, 0x1b, 0xf2, 0x0f, 0x58, 0xc1, 0xc3},                         // paddd, pshufd, addsd
	{0, 0x48, 0xd3, 0xc7, 0x0f, 0xbc, 0xc7, 0xf3, 0x48, 0x0f, 0xb8, 0xc7, 0x48, 0x0f, 0xc8, 0xc3},                   // rol, bsf, popcnt, bswap
	{0, 0x48, 0x89, 0xf8, 0x48, 0xf7, 0xe6, 0x48, 0x11, 0xd0, 0x0f, 0x92, 0xc1, 0xf2, 0x48, 0x0f, 0x2d, 0xc0, 0xc3}, // mul, adc, setc, cvtsd2si
	{0, 0x0f, 0xa2, 0xc3}, // cpuid
}

// FuzzEmit decompiles random bytes lifted as x86-64 or i386: the emitter
// never panics and always produces a definition.
func FuzzEmit(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 2048 {
			return
		}
		r, err := emitBytes(data)
		if err != nil {
			return // the IR rules rejected an instruction
		}
		if !strings.Contains(r.Code, "fuzzed(") || !strings.HasPrefix(r.Prelude, "#include") {
			t.Fatalf("no definition:\n%s%s", r.Prelude, r.Code)
		}
	})
}

// TestEmitParses compiles the units of the fuzz seeds and of 300 random
// byte strings (seeded) with gcc -fsyntax-only: random IR always gives C
// that parses and type-checks.
func TestEmitParses(t *testing.T) {
	gcc := testkit.Need(t, "gcc")
	rng := rand.New(rand.NewSource(26))
	inputs := append([][]byte(nil), fuzzSeeds...)
	for i := 0; i < 300; i++ {
		b := make([]byte, 2+rng.Intn(120))
		rng.Read(b)
		inputs = append(inputs, b)
	}
	dir := t.TempDir()
	var files []string
	for i, in := range inputs {
		r, err := emitBytes(in)
		if err != nil {
			continue
		}
		f := fmt.Sprintf("f%d.c", i)
		if err := os.WriteFile(filepath.Join(dir, f), []byte(r.Prelude+r.Code), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) < len(inputs)/2 {
		t.Fatalf("only %d of %d inputs built", len(files), len(inputs))
	}
	for len(files) > 0 {
		n := min(len(files), 100)
		cmd := exec.Command(gcc, append([]string{"-std=gnu11", "-fsyntax-only", "-w"}, files[:n]...)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, firstLines(string(b), 30))
		}
		files = files[n:]
	}
}

func firstLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	return strings.Join(ls[:min(n, len(ls))], "\n")
}

// TestUnmodelledIsHelperCall: an instruction the lifter does not model
// (cpuid) shows up as a call of the trapping helper and a limitation, not
// as missing code, and the unit compiles.
func TestUnmodelledIsHelperCall(t *testing.T) {
	r, err := emitBytes([]byte{0, 0x0f, 0xa2, 0xc3}) // cpuid; ret
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Code, `__rea_unmodelled("cpuid");`) {
		t.Errorf("no helper call for cpuid:\n%s", r.Code)
	}
	found := false
	for _, l := range r.Limitations {
		if strings.Contains(l, "cpuid") {
			found = true
		}
	}
	if !found {
		t.Errorf("no limitation names cpuid: %q", r.Limitations)
	}
	if !strings.Contains(r.Prelude, "__builtin_trap") {
		t.Errorf("the helper is not defined to trap:\n%s", r.Prelude)
	}
	gcc := testkit.Need(t, "gcc")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "u.c"), []byte(r.Prelude+r.Code), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gcc, "-std=gnu11", "-c", "-o", filepath.Join(dir, "u.o"), filepath.Join(dir, "u.c"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s\n%s%s", err, b, r.Prelude, r.Code)
	}
}

// TestDeterministic: the same input gives the same bytes.
func TestDeterministic(t *testing.T) {
	for _, s := range fuzzSeeds {
		a, err := emitBytes(s)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			b, _ := emitBytes(s)
			if a.Prelude != b.Prelude || a.Code != b.Code || fmt.Sprint(a.Lines) != fmt.Sprint(b.Lines) || fmt.Sprint(a.Limitations) != fmt.Sprint(b.Limitations) {
				t.Fatalf("two runs differ:\n%s%s\n----\n%s%s", a.Prelude, a.Code, b.Prelude, b.Code)
			}
		}
	}
}
