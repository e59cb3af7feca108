package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The package doc's place 1, "a connection and its targets"; every other
// file of the package but commands.go (the surface for package command,
// which uses both) is place 2, "running an operation on a target and
// recording its Evidence".
var placeConnection = []string{"connection.go", "queue.go", "health.go", "engine.go", "candidates.go", "permission.go"}

func placeOperation(t *testing.T) []string {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && f != "commands.go" && !slices.Contains(placeConnection, f) {
			out = append(out, f)
		}
	}
	return out
}

// TestCallsPointOneWay: no file of place 1 names anything declared in
// place 2 — a top-level function, type, variable or constant by its name,
// or a method through a receiver (c.… or e.…) — so operations depend on
// the connection and never the reverse.
func TestCallsPointOneWay(t *testing.T) {
	fset := token.NewFileSet()
	parse := func(name string) *ast.File {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	plain, methods := map[string]string{}, map[string]string{}
	for _, name := range placeOperation(t) {
		for _, d := range parse(name).Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					methods[d.Name.Name] = name
				} else {
					plain[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						plain[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							plain[n.Name] = name
						}
					}
				}
			}
		}
	}
	for _, name := range placeConnection {
		f := parse(name)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && (x.Name == "c" || x.Name == "e") {
					if from, bad := methods[n.Sel.Name]; bad {
						t.Errorf("%s: %s.%s is declared in %s (place 2)", fset.Position(n.Pos()), x.Name, n.Sel.Name, from)
					}
				}
				return false // a field or a package member, not a bare name
			case *ast.Ident:
				if from, bad := plain[n.Name]; bad && n.Obj == nil || bad && n.Obj != nil && n.Obj.Kind != ast.Var {
					t.Errorf("%s: %s is declared in %s (place 2)", fset.Position(n.Pos()), n.Name, from)
				}
			}
			return true
		})
	}
}
