package signature_test

import (
	"testing"

	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/signature"
)

// BenchmarkInfer measures SSA construction, the passes and prototype
// inference per procedure of the corpus (x86-64, gcc -O2).
func BenchmarkInfer(b *testing.B) {
	p := build(b, corpus.Target{Arch: "x86-64", Compiler: "gcc", Opt: 2})
	env := envFor(p)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pr := p.Procs[i%len(p.Procs)]
		f, err := signature.Build(env, pr.Insns)
		if err != nil {
			b.Fatal(err)
		}
		signature.Infer(f, env)
	}
}
