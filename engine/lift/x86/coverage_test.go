package x86

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/lift/internal/lifttest"
)

// TestHandPickedCoverModelledOps keeps the differential test honest as the
// lifter grows: every x86asm operation the lifter's source names (ops.go,
// sse.go) must appear in a hand-picked sequence, and every condition code
// in a setcc, a cmovcc and a jcc.
func TestHandPickedCoverModelledOps(t *testing.T) {
	named := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range []string{"ops.go", "sse.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "x86asm" {
					named[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	ops := map[string]bool{}
	for op, name := range lowerNames() {
		if named[op.String()] {
			ops[name] = true
		}
	}
	// Not instructions of their own in a sequence: fences and prefetches have
	// no architectural effect the harness can see; ud0/ud1 and hlt fault as
	// ud2 does; int is tested as int3; jcxz exists only with a 16-bit
	// address size, in 32-bit mode.
	for _, skip := range []string{"lfence", "mfence", "sfence", "prefetcht0", "prefetcht1", "prefetcht2", "prefetchnta", "ud0", "ud1", "hlt", "int", "ud2", "jcxz"} {
		delete(ops, skip)
	}
	seen := map[string]bool{}
	for _, code := range assembleForCoverage(t) {
		for off := 0; off < len(code); {
			in, err := Lift(code[off:], 0, 64)
			if err != nil {
				break
			}
			seen[strings.TrimPrefix(in.Mnemonic, "rep ")] = true
			off += in.Len
		}
	}
	var missing []string
	for name := range ops {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	for _, cc := range []string{"o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g"} {
		for _, family := range []string{"set", "cmov"} {
			if !seen[family+cc] {
				missing = append(missing, family+cc)
			}
		}
	}
	sort.Strings(missing)
	if len(ops) < 150 {
		t.Fatalf("found only %d modelled operations in the source: the scan is broken", len(ops))
	}
	t.Logf("%d modelled operations named in the source, %d mnemonics in the hand-picked sequences", len(ops), len(seen))
	if len(missing) > 0 {
		t.Errorf("modelled but in no hand-picked sequence: %v", missing)
	}
}

func assembleForCoverage(t *testing.T) [][]byte {
	t.Helper()
	return lifttest.Assemble(t, compiler(t, 64), ".intel_syntax noprefix", handPicked)
}
