package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const ledgerImport = "github.com/rea-re/rea/ledger"

// ledgerAppendAPI is the ledger's append API, read from its source: the
// exported methods of *ledger.Ledger named Append…, and the types an append
// is built from.
func ledgerAppendAPI(t *testing.T) (methods, types map[string]bool) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, "../../ledger", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	methods = map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || !fd.Name.IsExported() || !strings.HasPrefix(fd.Name.Name, "Append") {
					continue
				}
				if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok && id.Name == "Ledger" {
						methods[fd.Name.Name] = true
					}
				}
			}
		}
	}
	if !methods["Append"] || !methods["AppendMulti"] {
		t.Fatalf("the ledger's append methods are %v: teach this check the new names", methods)
	}
	return methods, map[string]bool{"NewEvent": true, "StreamAppend": true}
}

// appendCalls reports where a Go file calls the ledger's append API: a call
// of a method of that name on anything but another imported package (such
// as fmt.Append), or an append built from the ledger's types. The check is
// syntactic, so it errs toward refusing: a method of another type named
// Append… would have to be renamed.
func appendCalls(fset *token.FileSet, f *ast.File, methods, types map[string]bool) []string {
	imports := map[string]string{} // local name → import path
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(path)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = path
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, isIdent := sel.X.(*ast.Ident)
		path, isImport := "", false
		if isIdent {
			path, isImport = imports[pkg.Name]
		}
		switch {
		case isImport && path == ledgerImport && types[sel.Sel.Name]:
			out = append(out, fset.Position(sel.Pos()).String()+": ledger."+sel.Sel.Name)
		case methods[sel.Sel.Name] && !isImport:
			out = append(out, fset.Position(sel.Pos()).String()+": ."+sel.Sel.Name)
		}
		return true
	})
	return out
}

// TestCmdNeverAppends: no file of cmd/ calls the ledger's append API (issue
// 24: cmd/ is wiring, flags and printing; every append goes through the
// engine's one path, with its retries and its fault mapping). Tests may
// seed a ledger directly and are not checked.
func TestCmdNeverAppends(t *testing.T) {
	methods, types := ledgerAppendAPI(t)

	// The check can fail: it finds what cmd/rea/policy.go did before the
	// policy use cases moved to the engine.
	fset := token.NewFileSet()
	seeded, err := parser.ParseFile(fset, "seeded.go", `package main
import ("fmt"; "github.com/rea-re/rea/ledger")
func f(led *ledger.Ledger) {
	_ = fmt.Append(nil, "x")
	led.Append(ctx, "policy", -1, []ledger.NewEvent{{Type: "t"}}, nil)
}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendCalls(fset, seeded, methods, types); len(got) != 2 {
		t.Fatalf("the check found %v in the seeded file, want .Append and ledger.NewEvent", got)
	}

	checked := 0
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		for _, c := range appendCalls(fset, f, methods, types) {
			t.Errorf("%s: cmd/ calls the ledger's append API; call an engine method instead", c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d files of cmd/ checked", checked)
	}
}
