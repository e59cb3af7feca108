package engine

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The package doc's places are packages now: place 1 is engine/session,
// the Evidence data engine/evidence, and the compiler keeps both from
// naming anything of this package (an import cycle). What it cannot see
// is checked here: what those two may import at all, and that the session
// names no provider operation.

const module = "github.com/rea-re/rea/"

// allowedImports are the module's packages each lower place may import
// directly; the standard library and third-party modules are not listed.
var allowedImports = map[string][]string{
	"engine/session": {"engine/events", "engine/fault", "engine/lineage", "engine/policy", "engine/progress",
		"engine/provider", "engine/target", "ledger", "projections"},
	"engine/evidence": {"engine/canon", "engine/fault", "engine/provider", "internal/jcs"},
}

// operationPlaces may be reached by no import chain of the session: they
// are operations (their implementations, their results, their use cases).
var operationPlaces = []string{"engine", "engine/provider/builtin", "engine/provider/gdb", "engine/compare",
	"engine/command", "engine/evidence", "engine/lift", "engine/dataflow", "tools", "cmd"}

// moduleImports are the module-internal imports of the non-test files of
// the package in dir (relative to the module root).
func moduleImports(t *testing.T, dir string) []string {
	t.Helper()
	p, err := build.ImportDir(filepath.Join("..", dir), 0)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var out []string
	for _, imp := range p.Imports {
		if rel, ok := strings.CutPrefix(imp, module); ok {
			out = append(out, rel)
		}
	}
	return out
}

func TestLowerPlacesImportOnlyWhatTheyMay(t *testing.T) {
	for dir, allowed := range allowedImports {
		for _, imp := range moduleImports(t, dir) {
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s, which is not among what it may import %v", dir, imp, allowed)
			}
		}
	}
}

func TestSessionReachesNoOperation(t *testing.T) {
	seen := map[string]string{} // package → the package that imported it
	queue := []string{"engine/session"}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		for _, imp := range moduleImports(t, dir) {
			if _, ok := seen[imp]; ok {
				continue
			}
			seen[imp] = dir
			for _, op := range operationPlaces {
				if imp == op || op != "engine" && strings.HasPrefix(imp, op+"/") {
					t.Errorf("engine/session reaches %s (imported by %s)", imp, dir)
				}
			}
			queue = append(queue, imp)
		}
	}
}

// TestSessionNamesNoOperation: the session uses the provider port for
// targets, clients and capabilities, never for an operation's contract
// (its name constant or its result type, provider.Op…).
func TestSessionNamesNoOperation(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("session", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && x.Name == "provider" && strings.HasPrefix(s.Sel.Name, "Op") {
					t.Errorf("%s: provider.%s is an operation's contract", fset.Position(s.Pos()), s.Sel.Name)
				}
			}
			return true
		})
	}
}
