package reexec

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestPrototypes: every case parses, its test main declares the very
// prototype of the definition, and the parser reads the shapes the
// corpus uses (pointers, function pointers, structs, void).
func TestPrototypes(t *testing.T) {
	byName := map[string]Case{}
	for _, c := range cases(t) {
		byName[c.Name] = c
		if !strings.Contains(c.Test, c.Proto.String()) {
			t.Errorf("%s: the test main does not declare %q", c.Name, c.Proto.String())
		}
		if n := strings.Count(c.Test, "CHECK"); n < 5 {
			t.Errorf("%s: the test main has %d assertions, want ≥ 5", c.Name, n)
		}
		if !strings.Contains(c.Test, `#include "check.h"`) {
			t.Errorf("%s: the test main does not include check.h", c.Name)
		}
	}
	want := map[string]Prototype{
		"trapezoid_integral": {Return: "double", Name: "trapezoid_integral", Params: []Param{
			{Type: "double (*)(double)", Name: "f", Decl: "double (*f)(double)"},
			{Type: "double", Name: "a", Decl: "double a"},
			{Type: "double", Name: "b", Decl: "double b"},
			{Type: "int", Name: "n", Decl: "int n"},
		}, Decl: "double trapezoid_integral(double (*f)(double), double a, double b, int n)"},
		"list_reverse": {Return: "struct node *", Name: "list_reverse", Params: []Param{
			{Type: "struct node *", Name: "head", Decl: "struct node *head"},
		}, Decl: "struct node *list_reverse(struct node *head)"},
		"vec3_cross": {Return: "void", Name: "vec3_cross", Params: []Param{
			{Type: "const struct vec3d *", Name: "a", Decl: "const struct vec3d *a"},
			{Type: "const struct vec3d *", Name: "b", Decl: "const struct vec3d *b"},
			{Type: "struct vec3d *", Name: "out", Decl: "struct vec3d *out"},
		}, Decl: "void vec3_cross(const struct vec3d *a, const struct vec3d *b, struct vec3d *out)"},
	}
	for name, w := range want {
		if got := byName[name].Proto; !reflect.DeepEqual(got, w) {
			t.Errorf("%s: prototype\n got %+v\nwant %+v", name, got, w)
		}
	}
	if h := byName["qsort_strings"].Helpers; !reflect.DeepEqual(h, []string{"cmp_str_ptr"}) {
		t.Errorf("qsort_strings helpers = %v, want [cmp_str_ptr]", h)
	}
	if h := byName["gcd_u32"].Helpers; h != nil {
		t.Errorf("gcd_u32 helpers = %v, want none", h)
	}
}

// TestPrototypeRejects: the layout's rules are enforced.
func TestPrototypeRejects(t *testing.T) {
	for _, src := range []string{
		"int f(int a) {\n\treturn a;\n}\nint g(void) {\n\treturn 0;\n}\n", // two definitions
		"int f(int a) {\n\treturn a;\n}\nint x;\n",                        // not last
		"static int f(int a) {\n\treturn a;\n}\n",                         // no external definition
		"int f(int, ...) {\n\treturn 0;\n}\n",                             // unnamed, variadic
		"int f(int a[4]) {\n\treturn a[0];\n}\n",                          // array declarator
	} {
		if p, err := ParsePrototype(src); err == nil {
			t.Errorf("ParsePrototype accepted %q as %+v", src, p)
		}
	}
}

// TestStubKeepsPrototype: a stub defines the same function with the same
// head and keeps the types the head needs.
func TestStubKeepsPrototype(t *testing.T) {
	for _, c := range cases(t) {
		s := Stub(c)
		p, err := ParsePrototype(s)
		if err != nil {
			t.Errorf("%s: the stub does not parse: %v", c.Name, err)
			continue
		}
		if !reflect.DeepEqual(p, c.Proto) {
			t.Errorf("%s: the stub's prototype %+v differs from %+v", c.Name, p, c.Proto)
		}
	}
}

// TestTable: counts, failures, goals and the printed matrix.
func TestTable(t *testing.T) {
	var tab Table
	g0, g2, c0 := Config{GCC, 0, AMD64}, Config{GCC, 2, AMD64}, Config{Clang, 0, ARM64}
	for i := range 10 {
		tab.Add(g0, "f", i < 9)  // 90%: at the goal
		tab.Add(g2, "g", i < 7)  // 70%: below 80%
		tab.Add(c0, "h", i != 3) // 90%: above 75%
	}
	if p, n := tab.Counts(g2); p != 7 || n != 10 {
		t.Errorf("Counts(%s) = %d/%d, want 7/10", g2, p, n)
	}
	if got := tab.Below(Goal); !reflect.DeepEqual(got, []Config{g2}) {
		t.Errorf("Below(Goal) = %v, want [%s]", got, g2)
	}
	if f := tab.Failures(c0); !reflect.DeepEqual(f, []string{"h"}) {
		t.Errorf("Failures(%s) = %v", c0, f)
	}
	want := "arch   cc     O0               O1               O2               O3\n" +
		"amd64  gcc    9/10 (90.0%)     -                7/10 (70.0%)     -\n" +
		"arm64  clang  9/10 (90.0%)     -                -                -\n"
	if got := tab.String(); got != want {
		t.Errorf("String():\n%s\nwant:\n%s", got, want)
	}
}

// TestCheckStages: Check tells a unit that does not compile, one that
// does not define the function, a failing one and the original apart, in
// every toolchain and architecture; a cancelled context is an error.
func TestCheckStages(t *testing.T) {
	byName := map[string]Case{}
	for _, c := range cases(t) {
		byName[c.Name] = c
	}
	c := byName["gcd_u32"]
	for _, tc := range Toolchains() {
		for _, a := range Arches() {
			t.Run(string(tc)+"/"+string(a), func(t *testing.T) {
				if testing.Short() && (tc != GCC || a != AMD64) {
					t.Skip("-short: gcc amd64 only")
				}
				need(t, tc, a)
				ctx := context.Background()
				for _, u := range []struct{ unit, stage string }{
					{c.Source, ""},
					{"#include <stdint.h>\nuint32_t gcd_u32(uint32_t a, uint32_t b) { return a + b; }\n", "run"},
					{"uint32_t gcd_u32(uint32_t a, uint32_t b) { return a +; }\n", "compile"},
					{"int unrelated(void) { return 1; }\n", "link"},
				} {
					r, err := harness.Check(ctx, c, tc, a, u.unit)
					if err != nil {
						t.Fatal(err)
					}
					if r.Stage != u.stage || r.Pass != (u.stage == "") {
						t.Errorf("Check(%.40q) = pass %v stage %q, want stage %q\n%s", u.unit, r.Pass, r.Stage, u.stage, r.Output)
					}
					if u.stage == "run" && !strings.Contains(r.Output, "gcd_u32_test.c:") {
						t.Errorf("a failed assertion does not name its line: %q", r.Output)
					}
				}
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				if _, err := harness.Check(cctx, c, tc, a, c.Source+"\n/* new */\n"); !errors.Is(err, context.Canceled) {
					t.Errorf("Check with a cancelled context: %v, want context.Canceled", err)
				}
			})
		}
	}
}

// FuzzParsePrototype: any text parses or fails, never panics, and a
// parsed prototype names the function it found.
func FuzzParsePrototype(f *testing.F) {
	f.Add("int f(int a) {\n\treturn a;\n}\n")
	f.Add("double g(double (*h)(double), const char *s) {\n}\n")
	f.Add("struct s *k(void) {\n}\n")
	f.Add("int (x) {\n}\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ParsePrototype(src)
		if err == nil && (p.Name == "" || p.Return == "" || !strings.Contains(src, p.Decl)) {
			t.Errorf("ParsePrototype(%q) = %+v", src, p)
		}
	})
}

// TestSweep: a sweep with the original sources as units passes every
// case; one whose unit function fails, or hands back a stub, fails every
// case, each with its reason.
func TestSweep(t *testing.T) {
	need(t, GCC, AMD64)
	cs := cases(t)[:3]
	cells := []Config{{GCC, 0, AMD64}, {GCC, 2, AMD64}}
	ctx := context.Background()
	tab, outs, err := harness.Sweep(ctx, cs, cells, func(_ context.Context, c Case, b Binary) (string, error) {
		if b.Func != c.Name || b.Addr == 0 {
			return "", errors.New("no function in the build")
		}
		return c.Source, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range cells {
		if p, n := tab.Counts(cell); p != 3 || n != 3 {
			t.Errorf("%s: %d/%d pass with the originals, want 3/3\n%v", cell, p, n, outs)
		}
	}
	tab, outs, err = harness.Sweep(ctx, cs, cells, func(_ context.Context, c Case, _ Binary) (string, error) {
		if c.Name == cs[0].Name {
			return "", errors.New("cannot decompile")
		}
		return Stub(c), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 6 {
		t.Fatalf("%d outcomes, want 6", len(outs))
	}
	for _, o := range outs {
		want := "run"
		if o.Case == cs[0].Name {
			want = "unit"
		}
		if o.Result.Pass || o.Result.Stage != want {
			t.Errorf("%s %s: pass %v stage %q, want a failure at %q", o.Case, o.Config, o.Result.Pass, o.Result.Stage, want)
		}
	}
	if got := tab.Below(Goal); len(got) != 2 {
		t.Errorf("Below(Goal) = %v, want both cells", got)
	}
}
