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
	type pair struct{ name, old, new string }
	var pairs []func(t *testing.T) pair
	for _, cfg := range fixtureConfigs {
		for _, stripped := range []bool{false, true} {
			name := cfg.arch + cfg.opt
			if stripped {
				name += "-stripped"
			}
			pairs = append(pairs, func(t *testing.T) pair {
				o, n := testkit.CompareFixture(t, cfg.arch, cfg.opt, stripped)
				return pair{name, o, n}
			})
		}
	}
	if l, r := os.Getenv("REA_COMPARE_LEFT"), os.Getenv("REA_COMPARE_RIGHT"); l != "" && r != "" && !testing.Short() {
		pairs = append(pairs, func(*testing.T) pair { return pair{"env", l, r} })
	}
	names := []string{"x86_64-O0", "x86_64-O0-stripped", "x86_64-O2", "x86_64-O2-stripped",
		"arm64-O0", "arm64-O0-stripped", "arm64-O2", "arm64-O2-stripped", "env"}
	for i, mk := range pairs {
		t.Run(names[i], func(t *testing.T) {
			ctx := context.Background()
			p := mk(t)
			fast := comparison(t, p.old, p.new)
			text := comparison(t, p.old, p.new)
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
