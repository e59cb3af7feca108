package x86

import (
	"debug/elf"
	"os"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/internal/lifttest"
	"github.com/rea-re/rea/internal/testkit"
)

// bigText returns the .text of a large system binary (REA_LIFT_BENCH_FILE,
// else /usr/bin/gdb), skipping when it is absent.
func bigText(tb testing.TB) (text []byte, addr uint64, path string) {
	tb.Helper()
	path = os.Getenv("REA_LIFT_BENCH_FILE")
	if path == "" {
		path = "/usr/bin/gdb"
	}
	f, err := elf.Open(path)
	if err != nil {
		testkit.SkipOrFail(tb, "a large x86-64 ELF binary is needed ("+path+": "+err.Error()+"); install gdb or set REA_LIFT_BENCH_FILE")
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		tb.Skipf("%s is not x86-64", path)
	}
	s := f.Section(".text")
	if s == nil {
		tb.Fatalf("%s has no .text", path)
	}
	text, err = s.Data()
	if err != nil {
		tb.Fatal(err)
	}
	return text, s.Addr, path
}

// decodeAll decodes text linearly (one byte forward on a decoding error)
// and returns the number of instructions.
func decodeAll(text []byte) int {
	n := 0
	for off := 0; off < len(text); {
		inst, err := x86asm.Decode(text[off:], 64)
		if err != nil || inst.Len == 0 {
			off++
			continue
		}
		off += inst.Len
		n++
	}
	return n
}

// BenchmarkDecode is the floor for BenchmarkLift: x86asm alone over the
// same bytes.
func BenchmarkDecode(b *testing.B) {
	text, _, _ := bigText(b)
	b.SetBytes(int64(len(text)))
	n := 0
	for b.Loop() {
		n = decodeAll(text)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "insns/s")
}

// BenchmarkLift decodes and lifts every instruction of the binary's .text.
func BenchmarkLift(b *testing.B) {
	text, addr, _ := bigText(b)
	b.SetBytes(int64(len(text)))
	n := 0
	var lf Lifter
	for b.Loop() {
		n = 0
		for off := 0; off < len(text); {
			in, err := lf.Lift(text[off:], addr+uint64(off), 64)
			if err != nil {
				off++
				continue
			}
			off += in.Len
			n++
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "insns/s")
}

// TestUnmodelledShare lifts a large binary's .text, validates every
// instruction's IR (lift.Validate) and reports which
// instructions are unmodelled and how often, so the limitation is a
// measured figure. It fails above 3% of instructions: GCC's output is what
// the lifter is for.
func TestUnmodelledShare(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a large system binary")
	}
	text, addr, path := bigText(t)
	total, unmodelled, invalid := 0, 0, 0
	by := map[string]int{}
	for off := 0; off < len(text); {
		in, err := Lift(text[off:], addr+uint64(off), 64)
		if err != nil {
			off++
			continue
		}
		off += in.Len
		total++
		if err := lift.Validate(in); err != nil && invalid < 5 {
			invalid++
			t.Error(err)
		}
		if s, bad := in.Unmodelled(); bad {
			unmodelled++
			by[s.Text]++
		}
	}
	top := lifttest.Top(by, 25)
	t.Logf("%s: %d instructions, %d unmodelled (%.2f%%) in %d mnemonics; most frequent: %v",
		path, total, unmodelled, 100*float64(unmodelled)/float64(total), len(by), top)
	if unmodelled*100 > total*3 {
		t.Errorf("%.2f%% of the instructions are unmodelled, want ≤ 3%%", 100*float64(unmodelled)/float64(total))
	}
}
