package compare

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// textOnly hides the builtin client's InstructionSource: a ProviderSide over
// it reads procedure_assembly's text, as it does for every other provider.
type textOnly struct{ provider.Client }

// TestInstructionSourceMatchesText: the builtin's InstructionSource (each
// instruction decoded once, no procedure text) gives every procedure the
// same instructions, sizes, text and completeness as procedure_assembly's
// text, and so the same comparison, byte for byte, on the ground-truth
// fixture (x86-64 and arm64, with and without symbols) and, when
// REA_COMPARE_LEFT and REA_COMPARE_RIGHT name them, on that pair too.
func TestInstructionSourceMatchesText(t *testing.T) {
	type pair struct {
		name string
		open func(t *testing.T) (old, new string)
	}
	var pairs []pair
	for _, cfg := range fixtureConfigs {
		for _, stripped := range []bool{false, true} {
			name := cfg.arch + cfg.opt
			if stripped {
				name += "-stripped"
			}
			pairs = append(pairs, pair{name, func(t *testing.T) (string, string) {
				return testkit.CompareFixture(t, cfg.arch, cfg.opt, stripped)
			}})
		}
	}
	if l, r := os.Getenv("REA_COMPARE_LEFT"), os.Getenv("REA_COMPARE_RIGHT"); l != "" && r != "" && !testing.Short() {
		pairs = append(pairs, pair{"env", func(*testing.T) (string, string) { return l, r }})
	}
	for _, pr := range pairs {
		t.Run(pr.name, func(t *testing.T) {
			t.Parallel() // each pair is built and compared on its own
			ctx := context.Background()
			oldPath, newPath := pr.open(t)
			fast := comparison(t, oldPath, newPath)
			text := comparison(t, oldPath, newPath)
			for _, s := range []Side{fast.Left, fast.Right} {
				if _, ok := s.(*ProviderSide).Client.(InstructionSource); !ok {
					t.Fatal("the builtin client is not an InstructionSource")
				}
			}
			text.Left.(*ProviderSide).Client = textOnly{text.Left.(*ProviderSide).Client}
			text.Right.(*ProviderSide).Client = textOnly{text.Right.(*ProviderSide).Client}
			insns := 0
			for _, sides := range [][2]Side{{fast.Left, text.Left}, {fast.Right, text.Right}} {
				l, err := sides[0].List(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, pr := range l.Procedures {
					a, err1 := sides[0].Instructions(ctx, pr)
					b, err2 := sides[1].Instructions(ctx, pr)
					if err1 != nil || err2 != nil {
						t.Fatalf("%s: %v / %v", pr.Name, err1, err2)
					}
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("%s %#x: InstructionSource %+v\nprocedure_assembly %+v", pr.Name, pr.Address, a, b)
					}
					insns += len(a.Instructions)
				}
			}
			if insns == 0 {
				t.Fatal("no instructions decoded")
			}
			rf, err := fast.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rt, err := text.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if string(encoded(t, rf)) != string(encoded(t, rt)) {
				t.Error("the comparison over InstructionSource differs from the one over procedure_assembly")
			}
			t.Logf("%d instructions, summary %+v", insns, rf.Summary)
		})
	}
}

// TestInstructionSourceRouting: with Call set (the engine's route), the
// InstructionSource is read only through Queue, as procedure_assembly, and
// not at all without Queue; the instructions are the same either way.
func TestInstructionSourceRouting(t *testing.T) {
	ctx := context.Background()
	oldPath, _ := testkit.CompareFixture(t, "x86_64", "-O2", false)
	s, _ := builtinSide(t, oldPath)
	var calls, queued []string
	s.Call = func(ctx context.Context, op string, in provider.Params) (provider.Result, error) {
		calls = append(calls, op)
		return s.Client.Do(ctx, op, in, nil)
	}
	l, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := l.Procedures[len(l.Procedures)/2]
	calls = nil
	viaText, err := s.Instructions(ctx, p)
	if err != nil || len(calls) != 1 || calls[0] != "procedure_assembly" {
		t.Fatalf("without Queue: calls %v, %v", calls, err)
	}
	s.Queue = func(ctx context.Context, op string, fn func(context.Context) error) error {
		queued = append(queued, op)
		return fn(ctx)
	}
	calls = nil
	viaSource, err := s.Instructions(ctx, p)
	if err != nil || len(calls) != 0 || len(queued) != 1 || queued[0] != "procedure_assembly" {
		t.Fatalf("with Queue: calls %v, queued %v, %v", calls, queued, err)
	}
	if !reflect.DeepEqual(viaText, viaSource) || len(viaSource.Instructions) == 0 {
		t.Fatalf("%s: %+v\n%+v", p.Name, viaText, viaSource)
	}
}
