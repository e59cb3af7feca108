package dataflow

import (
	"testing"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/testkit"
)

// BenchmarkResolveProcedure times ResolveProcedure (SSA, passes, the
// rebuild with the cases, the tables and the indirect calls) over the
// switch fixture's procedures built by gcc -O2 for x86-64 (PIC), and
// ResolveJumpTables alone over their SSA.
func BenchmarkResolveProcedure(b *testing.B) {
	c := jtCell{arch: jtArches[0], compiler: "gcc", level: "-O2", pic: true}
	stripped, debug, skip, err := c.build(&testkit.BuildCache{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if skip != "" {
		b.Skip(skip)
	}
	ef, df, img := openTwins(b, stripped, debug)
	syms := funcSyms(df)
	_, _, funcs := switchSource()
	type proc struct {
		insns      []*lift.Insn
		start, end uint64
	}
	var procs []proc
	for _, sf := range funcs {
		s := syms[sf.name]
		sec, code, err := textOf(ef, s.Value)
		if err != nil {
			b.Fatal(err)
		}
		off := s.Value - sec.Addr
		procs = append(procs, proc{liftProc(amd64, code[off:off+s.Size], s.Value), s.Value, s.Value + s.Size})
	}
	b.Run("ResolveProcedure", func(b *testing.B) {
		entries := 0
		for i := 0; i < b.N; i++ {
			for _, p := range procs {
				res, err := ResolveProcedure(amd64, p.insns, img, Options{Start: p.start, End: p.end})
				if err != nil {
					b.Fatal(err)
				}
				for _, t := range res.Tables {
					entries += t.Count()
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(procs)), "ns/proc")
		b.ReportMetric(float64(entries)/float64(b.N), "entries/op")
	})
	b.Run("ResolveJumpTables", func(b *testing.B) {
		var fs []*Func
		for _, p := range procs {
			f, err := Build(amd64, p.insns)
			if err != nil {
				b.Fatal(err)
			}
			Optimize(f)
			fs = append(fs, f)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for k, f := range fs {
				ResolveJumpTables(f, img, Options{Start: procs[k].start, End: procs[k].end})
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(fs)), "ns/proc")
	})
}
