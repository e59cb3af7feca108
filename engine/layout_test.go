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
// is checked here: what those two may import at all, that the session
// names no provider operation, and that inside this package and the
// session each file names only what is declared in itself or in the
// files before it, so each reads with what precedes it.

const module = "github.com/rea-re/rea/"

// fileOrder is each package's non-test files, lowest first.
var fileOrder = map[string][]string{
	".": {"engine.go", "connection.go", "candidates.go", "operate.go", "annotations.go", "invoke.go", "view.go",
		"aggregates.go", "linking.go", "compare.go", "bundle.go", "commands.go"},
	"session": {"session.go", "queue.go", "conn.go", "health.go", "open.go", "grants.go", "target.go"},
}

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

// TestFilesPointOneWay: no file of the package names a top-level function,
// type, variable or constant, or a method, declared in a file after it in
// fileOrder; every file of the package is in the order.
func TestFilesPointOneWay(t *testing.T) {
	for dir, order := range fileOrder {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if base := filepath.Base(f); !strings.HasSuffix(base, "_test.go") && !slices.Contains(order, base) {
				t.Errorf("%s is not in fileOrder[%q]: place it after what it names", f, dir)
			}
		}
		fset := token.NewFileSet()
		parsed := make([]*ast.File, len(order))
		plain, methods := map[string]int{}, map[string]int{} // name → index of the declaring file
		receivers := map[string]bool{}                       // the names methods call their receivers
		for i, name := range order {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			parsed[i] = f
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv != nil {
						methods[d.Name.Name] = i
						for _, r := range d.Recv.List {
							for _, n := range r.Names {
								receivers[n.Name] = true
							}
						}
					} else {
						plain[d.Name.Name] = i
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							plain[s.Name.Name] = i
						case *ast.ValueSpec:
							for _, n := range s.Names {
								plain[n.Name] = i
							}
						}
					}
				}
			}
		}
		for i, f := range parsed {
			imported := map[string]bool{}
			for _, imp := range f.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				name := path[strings.LastIndex(path, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				imported[name] = true
			}
			var visit func(n ast.Node) bool
			visit = func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					x, ok := n.X.(*ast.Ident)
					if !ok {
						ast.Inspect(n.X, visit)
						return false // a field or method of a value: not resolvable by name
					}
					if imported[x.Name] {
						return false // a member of another package
					}
					if j, ok := methods[n.Sel.Name]; ok && j > i && receivers[x.Name] {
						t.Errorf("%s: %s.%s is declared in %s, after %s", fset.Position(n.Sel.Pos()), x.Name, n.Sel.Name, order[j], order[i])
					}
					ast.Inspect(n.X, visit)
					return false
				case *ast.Ident:
					if j, ok := plain[n.Name]; ok && j > i && (n.Obj == nil || n.Obj.Kind != ast.Var) {
						t.Errorf("%s: %s is declared in %s, after %s", fset.Position(n.Pos()), n.Name, order[j], order[i])
					}
				}
				return true
			}
			ast.Inspect(f, visit)
		}
	}
}
