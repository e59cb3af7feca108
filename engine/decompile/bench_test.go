package decompile_test

import (
	"context"
	"testing"

	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile"
	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/signature"
)

// BenchmarkDecompile decompiles every procedure of the corpus built with
// gcc -O2 for x86-64 (the SSA, prototypes and tables made once, outside
// the timing): one op is one procedure.
func BenchmarkDecompile(b *testing.B) {
	tg := corpus.Target{Arch: "x86-64", Compiler: "gcc", Opt: 2}
	p, path := build(b, tg)
	if p == nil {
		return
	}
	im := openImage(b, path)
	env := envFor(p)
	arch := dataflow.ArchFor(env.Conv)
	var ins []decompile.Input
	funcs := map[uint64]*dataflow.Func{}
	for _, pr := range p.Procs {
		r, err := dataflow.ResolveProcedure(arch, pr.Insns, im, dataflow.Options{})
		if err != nil {
			b.Fatal(err)
		}
		funcs[pr.Addr] = r.Func
		ins = append(ins, decompile.Input{Func: r.Func, Env: env, Name: pr.Name, Insns: pr.Insns, Tables: r.Tables, SymbolAt: im.symbolAt, ReadOnly: im.readOnly})
	}
	protos := signature.Program(funcs, env, 4)
	env.Known = func(a uint64) (*signature.Prototype, bool) { q, ok := protos[a]; return q, ok }
	for i := range ins {
		ins[i].Prototype = protos[ins[i].Func.Entry]
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := decompile.Decompile(context.Background(), ins[i%len(ins)]); err != nil {
			b.Fatal(err)
		}
	}
}
