// Package reexec is the re-executability corpus of the decompiler's tests
// (issue 26): standard-C functions written for the project, one per file
// (testdata/<name>.c, the function last, after the includes and types it
// needs), each with an assertion main of its own (testdata/<name>_test.c,
// which declares the function's prototype itself and prints the failing
// line and exits non-zero on a failed assertion). A function calls libc
// only, never another corpus function; a static helper in its file is
// marked by a "helper of <name>" comment on its definition line and listed
// in Case.Helpers (the decompiler has to emit it too). The harness builds a
// function the way a user would — alone in its own object at -O0 … -O3,
// linked with its test main — for the decompiler to read, and checks a
// translation unit that defines the function (the decompiler's output, or
// a stub) by linking it with the same main and running it.
//
// Build compiles the function with the compiler's defaults and -O<n> only
// (what a user's build looks like, inlining of its own callees included),
// the test main at -O0, and links them with -lm; Check compiles a unit at
// -O0 -std=gnu11. arm64 builds use aarch64-linux-gnu-gcc or clang
// --target=aarch64-linux-gnu and run under qemu-aarch64 -L
// /usr/aarch64-linux-gnu. Sweep runs a whole matrix for a decompiler and
// Table prints its pass rates (compiler × level × architecture).
//
// Every test main fails against a stub of its function (Stub: the same
// prototype, a body that returns zero), so a pass means something.
//
// It is a helper of tests and never imported by the product.
package reexec

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed testdata
var files embed.FS

// CheckHeader is the assertion header every test main includes.
const CheckHeader = "check.h"

// Case is one function of the corpus with its test main.
type Case struct {
	Name   string    // the file's base name; the function's name too
	Source string    // testdata/<name>.c: the includes, the types, then the function
	Test   string    // testdata/<name>_test.c: main and its own prototype of the function
	Proto  Prototype // parsed from Source's definition
	// Helpers are the names of the static functions Source defines
	// besides the function (each marked "helper of <name>").
	Helpers []string
}

// Cases returns the corpus sorted by name. It fails when a file breaks
// the layout (a function file without its test, a definition that does
// not parse or is not the file's last item, a name that differs from the
// file's).
func Cases() ([]Case, error) {
	ents, err := fs.ReadDir(files, "testdata")
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".c") || strings.HasSuffix(n, "_test.c") {
			continue
		}
		name := strings.TrimSuffix(n, ".c")
		src, err := fs.ReadFile(files, "testdata/"+n)
		if err != nil {
			return nil, err
		}
		test, err := fs.ReadFile(files, "testdata/"+name+"_test.c")
		if err != nil {
			return nil, fmt.Errorf("reexec: %s has no test main: %w", n, err)
		}
		p, err := ParsePrototype(string(src))
		if err != nil {
			return nil, fmt.Errorf("reexec: %s: %w", n, err)
		}
		if p.Name != name {
			return nil, fmt.Errorf("reexec: %s defines %s, not %s", n, p.Name, name)
		}
		helpers, err := staticHelpers(string(src), name)
		if err != nil {
			return nil, fmt.Errorf("reexec: %s: %w", n, err)
		}
		out = append(out, Case{Name: name, Source: string(src), Test: string(test), Proto: p, Helpers: helpers})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// header returns check.h's text.
func header() string {
	b, err := fs.ReadFile(files, "testdata/"+CheckHeader)
	if err != nil {
		panic("reexec: embedded check.h is missing: " + err.Error()) // the package's own files
	}
	return string(b)
}

// staticHelpers returns the static functions defined in src, each of
// which must be marked "helper of name".
func staticHelpers(src, name string) ([]string, error) {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "static ") || !strings.Contains(line, "(") || strings.HasSuffix(strings.TrimSpace(line), ";") {
			continue
		}
		if !strings.Contains(line, "helper of "+name) {
			return nil, fmt.Errorf("static function %q is not marked \"helper of %s\"", line, name)
		}
		_, h := splitDecl(strings.TrimSpace(line[:strings.IndexByte(line, '(')]))
		out = append(out, h)
	}
	return out, nil
}
