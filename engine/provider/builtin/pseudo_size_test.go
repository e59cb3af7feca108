package builtin

import (
	"context"
	"encoding/json"
	"sort"
	"testing"

	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// TestPseudoCodeBytesVsAssembly is issue 26's "readable" measure: over the
// corpus's functions built at -O2 (gcc and clang, x86-64, symbols kept),
// the median of each function's pseudo-code `code` bytes over its whole
// procedure_assembly answer's bytes (compact JSON, what a model reads).
// The issue asks ≤ 0.5; the text measures 0.51 (gcc) and 0.54 (clang)
// and the test holds that ground (≤ readableNow) while it logs the gap.
// The functions around the median are small (100–500 bytes of
// assembly), where the signature line alone is a fifth to a half of the
// measure.
const (
	readableGoal = 0.5  // issue 26
	readableNow  = 0.55 // measured: gcc 0.509, clang 0.543
)

func TestPseudoCodeBytesVsAssembly(t *testing.T) {
	compilers := []string{"gcc", "clang"}
	if testing.Short() {
		compilers = compilers[:1]
	}
	for _, cc := range compilers {
		tg := corpus.Target{Arch: "x86-64", Compiler: cc, Opt: 2}
		path, err := corpus.Build(t.TempDir(), tg)
		if err != nil {
			testkit.SkipOrFail(t, err.Error())
			return
		}
		_, _, cl := open(t, path)
		ctx := context.Background()
		var ratios []float64
		codeTotal, asmTotal := 0, 0
		for _, fn := range corpus.Functions() {
			asm, err := cl.Do(ctx, provider.OpProcedureAssembly, provider.Params{"procedure": fn}, nil)
			if err != nil {
				continue // inlined away at -O2
			}
			pc, err := cl.Do(ctx, provider.OpProcedurePseudoCode, provider.Params{"procedure": fn, "offset": int64(0), "limit": int64(provider.MaxPseudoLines)}, nil)
			if err != nil {
				t.Errorf("%s %s: %v", tg, fn, err)
				continue
			}
			a, err := json.Marshal(asm.Normalized)
			if err != nil {
				t.Fatal(err)
			}
			code := len(pc.Normalized.(provider.PseudoCode).Code)
			ratios = append(ratios, float64(code)/float64(len(a)))
			codeTotal += code
			asmTotal += len(a)
		}
		if len(ratios) == 0 {
			t.Fatalf("%s: no function measured", tg)
		}
		sort.Float64s(ratios)
		med := ratios[len(ratios)/2]
		t.Logf("%s: %d functions, median code / procedure_assembly bytes %.2f (total %d / %d = %.2f)", tg, len(ratios), med, codeTotal, asmTotal, float64(codeTotal)/float64(asmTotal))
		if med > readableGoal {
			t.Logf("%s: median %.2f is above issue 26's %.2f", tg, med, readableGoal)
		}
		if med > readableNow {
			t.Errorf("%s: median code / procedure_assembly bytes %.2f, more than the %.2f measured when the test landed", tg, med, readableNow)
		}
	}
}
