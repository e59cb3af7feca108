package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// The issue asks ≤ 0.5. The functions around the median are small
// (100–500 bytes of assembly), where the signature line alone is a fifth
// to a half of the measure. REA_READABLE_DUMP=dir writes each function's
// text there, named by its ratio.
const readableGoal = 0.5 // issue 26

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
			text := pc.Normalized.(provider.PseudoCode).Code
			code := len(text)
			ratios = append(ratios, float64(code)/float64(len(a)))
			if dir := os.Getenv("REA_READABLE_DUMP"); dir != "" {
				// one file a function, named by its ratio, to read the text
				// around the median
				name := fmt.Sprintf("%s-%.3f-%s.c", cc, float64(code)/float64(len(a)), fn)
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			codeTotal += code
			asmTotal += len(a)
		}
		if len(ratios) == 0 {
			t.Fatalf("%s: no function measured", tg)
		}
		sort.Float64s(ratios)
		med := ratios[len(ratios)/2]
		t.Logf("%s: %d functions, median code / procedure_assembly bytes %.3f (total %d / %d = %.2f)", tg, len(ratios), med, codeTotal, asmTotal, float64(codeTotal)/float64(asmTotal))
		if med > readableGoal {
			t.Errorf("%s: median code / procedure_assembly bytes %.3f, issue 26 asks ≤ %.2f", tg, med, readableGoal)
		}
	}
}
