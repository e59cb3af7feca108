package dataflow

import (
	"debug/elf"
	"os"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/x86"
	"github.com/rea-re/rea/internal/testkit"
)

// realBinaries are the system files the whole-binary test and benchmark
// read: Debian's libc (CI's image has it; the test fails under
// REA_REQUIRE_ALL_TOOLS=1 without it) and libLLVM-14 (libllvm14, which
// .ci/run installs).
var realBinaries = []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"}

// codeRange is one function symbol's bytes.
type codeRange struct {
	name string
	addr uint64
	code []byte
}

// functionRanges lists the FUNC symbols (static and dynamic, one per
// address) of an x86-64 ELF file with their bytes.
func functionRanges(t testing.TB, path string) []codeRange {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		testkit.SkipOrFail(t, "cannot read "+path+": "+err.Error())
	}
	defer ef.Close()
	if ef.Machine != elf.EM_X86_64 {
		t.Skipf("%s is not x86-64", path)
	}
	syms, _ := ef.Symbols()
	dyn, _ := ef.DynamicSymbols()
	seen := map[uint64]bool{}
	var out []codeRange
	for _, s := range slices.Concat(syms, dyn) {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || seen[s.Value] || s.Section == elf.SHN_UNDEF || int(s.Section) >= len(ef.Sections) {
			continue
		}
		sec := ef.Sections[s.Section]
		if sec.Type != elf.SHT_PROGBITS || s.Value < sec.Addr || s.Value+s.Size > sec.Addr+sec.Size {
			continue
		}
		seen[s.Value] = true
		code := make([]byte, s.Size)
		if _, err := sec.ReadAt(code, int64(s.Value-sec.Addr)); err != nil {
			continue
		}
		out = append(out, codeRange{s.Name, s.Value, code})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

// ssaOf lifts one function's bytes and builds and optimizes its SSA: the
// work measured per procedure.
func ssaOf(lf *x86.Lifter, r codeRange) (*Func, error) {
	insns := make([]*lift.Insn, 0, len(r.code)/4)
	for off := 0; off < len(r.code); {
		in, err := lf.Lift(r.code[off:], r.addr+uint64(off), 64)
		if err != nil {
			in = &lift.Insn{Addr: r.addr + uint64(off), Len: 1, Mnemonic: "(bad)", Stmts: []lift.Stmt{{Op: lift.Unmodelled, Text: "(bad)", Reason: "does not decode"}}}
		}
		insns = append(insns, in)
		off += in.Len
	}
	f, err := Build(amd64, insns)
	if err != nil {
		return nil, err
	}
	Optimize(f)
	return f, nil
}

// TestRealBinary builds the SSA of every function of libc.so.6 and
// validates it before and after the passes (not in -short: it reads a
// large system file).
func TestRealBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every function of libc.so.6; not in -short")
	}
	ranges := functionRanges(t, realBinaries[0])
	if len(ranges) < 1000 {
		t.Fatalf("%d functions in libc.so.6", len(ranges))
	}
	var lf x86.Lifter
	built, malformed, branches, folded, flagOps, slots := 0, 0, 0, 0, 0, 0
	for _, r := range ranges {
		f, err := ssaOf(&lf, r)
		if err != nil {
			malformed++
			continue
		}
		if err := Validate(f); err != nil {
			t.Fatalf("%s at %#x: %v", r.name, r.addr, err)
		}
		built++
		slots += len(f.Slots)
		for _, b := range f.Blocks {
			for _, v := range b.Values {
				if v.Kind == OpValue && flagPredicates[v.Op] {
					flagOps++
				}
				if isOp(v, lift.Branch, 1) {
					branches++
					if c := v.Args[0]; isCmp(c) && !flagPredicates[c.Args[0].Op] && !flagPredicates[c.Args[1].Op] {
						folded++
					}
				}
			}
		}
	}
	t.Logf("%d functions built and valid, %d rejected by lift.Validate; %d stack slots promoted", built, malformed, slots)
	t.Logf("%d of %d conditional branches are one comparison after the passes; %d flag predicates still live", folded, branches, flagOps)
	if malformed > 0 {
		t.Errorf("%d functions have instructions lift.Validate rejects", malformed)
	}
}

// BenchmarkSSA lifts and builds the optimized SSA of every function of
// each real binary: functions/s and the p50/p99/max time of one function.
func BenchmarkSSA(b *testing.B) {
	if testing.Short() {
		b.Skip("reads large system files; not in -short")
	}
	for _, path := range realBinaries {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		ranges := functionRanges(b, path)
		b.Run(pathBase(path), func(b *testing.B) {
			var lf x86.Lifter
			per := make([]time.Duration, 0, len(ranges))
			values := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				per = per[:0]
				values = 0
				for _, r := range ranges {
					t0 := time.Now()
					f, err := ssaOf(&lf, r)
					per = append(per, time.Since(t0))
					if err == nil {
						values += f.NumValues()
					}
				}
			}
			b.StopTimer()
			slices.Sort(per)
			var total time.Duration
			for _, d := range per {
				total += d
			}
			b.ReportMetric(float64(len(per))/total.Seconds(), "procs/s")
			b.ReportMetric(float64(per[len(per)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(per[len(per)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(per[len(per)-1].Microseconds()), "max-µs")
			b.ReportMetric(float64(len(per)), "procs")
			b.ReportMetric(float64(values), "values")
		})
	}
}

func pathBase(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
