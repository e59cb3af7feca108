package ctypes

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// The table's oracle: the system's C headers. For each ABI a compiler
// targets, the tests generate C from the table and compile it, so a
// prototype that conflicts with its header, a function its header does not
// declare, a typedef of the wrong size or signedness, or a constant of the
// wrong value fails the build. TestOracleCanFail proves that it does.

// compilerFor names the gcc that targets each ABI (Debian's cross compilers,
// installed by .ci/run).
var compilerFor = map[ABI]string{
	LinuxAMD64:   "gcc",
	Linux386:     "i686-linux-gnu-gcc",
	LinuxARM64:   "aarch64-linux-gnu-gcc",
	WindowsAMD64: "x86_64-w64-mingw32-gcc",
}

var baseFlags = []string{"-std=gnu11", "-fsyntax-only", "-Werror", "-Wno-deprecated-declarations"}

// funcsOf returns the table's declarations on abi, in table order.
func funcsOf(tab *table, abi ABI) []*Func {
	bit := osLinux
	if abi.windows() {
		bit = osWindows
	}
	var out []*Func
	for _, f := range tab.order {
		if f.platforms&bit != 0 {
			out = append(out, f)
		}
	}
	return out
}

// headersOf returns the headers abi's declarations name, in table order.
func headersOf(funcs []*Func) []string {
	var hs []string
	for _, f := range funcs {
		if f.Header != "" && !slices.Contains(hs, f.Header) {
			hs = append(hs, f.Header)
		}
	}
	return hs
}

func prologue(abi ABI, headers []string) string {
	var b strings.Builder
	if !abi.windows() {
		b.WriteString(FeatureDefines)
	}
	for _, h := range append(slices.Clone(TypeHeaders), headers...) {
		fmt.Fprintf(&b, "#include <%s>\n", h)
	}
	return b.String()
}

// declarationsUnit redeclares every function of the table with its
// Declaration after including every header at once: the prelude the
// decompiler writes (§20) must compile, and a redeclaration that conflicts
// with the header (or with a GCC builtin, for the functions no header
// declares) is an error.
func declarationsUnit(abi ABI, funcs []*Func) string {
	var b strings.Builder
	b.WriteString(prologue(abi, headersOf(funcs)))
	for _, f := range funcs {
		b.WriteString(f.Declaration())
		b.WriteByte('\n')
	}
	b.WriteString(layoutAsserts(abi, funcs))
	return b.String()
}

// headerUnit checks that header alone declares each of funcs with the
// table's type: __typeof__ of an undeclared name is an error, and a
// different type fails the assertion.
func headerUnit(abi ABI, header string, funcs []*Func) string {
	var b strings.Builder
	b.WriteString(prologue(abi, []string{header}))
	for _, f := range funcs {
		fmt.Fprintf(&b, "_Static_assert(__builtin_types_compatible_p(__typeof__(%s), %s), \"%s: the table's type differs from <%s>'s\");\n",
			f.Name, f.Type(), f.Name, header)
	}
	return b.String()
}

// layoutAsserts checks the size, alignment, signedness and class of every
// basic type and of every typedef the table passes by value on abi.
func layoutAsserts(abi ABI, funcs []*Func) string {
	types := []Type{}
	for k := Bool; k <= LongDouble; k++ {
		types = append(types, Type{Kind: k})
	}
	types = append(types, PointerTo(Type{Kind: Void}))
	seen := map[string]bool{}
	add := func(t Type) {
		if t.Kind == Named && !seen[t.Name] {
			seen[t.Name] = true
			types = append(types, t)
		}
	}
	for _, f := range funcs {
		add(f.Return)
		for _, p := range f.Params {
			add(p.Type)
		}
	}
	var b strings.Builder
	for _, t := range types {
		if abi.windows() && t.Kind == LongDouble {
			continue // the table follows Microsoft's (double); MinGW's GCC makes it x87's 16 bytes
		}
		switch t.Name {
		case "va_list", "jmp_buf", "sigjmp_buf":
			continue // parameters of these types are pointers; the types themselves are not
		}
		c := t.String()
		fmt.Fprintf(&b, "_Static_assert(sizeof(%s) == %d && _Alignof(%s) == %d, \"%s: size %d, align %d on %s\");\n",
			c, t.Size(abi), c, t.Align(abi), c, t.Size(abi), t.Align(abi), abi)
		class := map[Class]int{ClassInteger: 1, ClassPointer: 5, ClassFloating: 8, ClassAggregate: 12}[t.Class(abi)]
		fmt.Fprintf(&b, "_Static_assert(__builtin_classify_type(*(%s *)0) == %d, \"%s: class %s on %s\");\n",
			c, class, c, t.Class(abi), abi)
		if cl := t.Class(abi); cl == ClassInteger && t.Kind != Bool {
			fmt.Fprintf(&b, "_Static_assert((((%s)-1) < 0) == %d, \"%s: signedness on %s\");\n", c, b2i(t.Signed(abi)), c, abi)
		}
	}
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setsOf returns the constant sets the oracle checks on abi: on Linux every
// set but the Microsoft C runtime's, on Windows the sets its functions use.
func setsOf(tab *table, abi ABI) []*ConstSet {
	var out []*ConstSet
	if !abi.windows() {
		for _, s := range tab.sets {
			if !strings.HasPrefix(s.Name, "win_") {
				out = append(out, s)
			}
		}
	} else {
		for _, f := range funcsOf(tab, abi) {
			for _, p := range f.Params {
				if p.Consts != nil && !slices.Contains(out, p.Consts) {
					out = append(out, p.Consts)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *ConstSet) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// constAsserts checks the value of every constant of s on abi at compile
// time (an undefined name is an error too).
func constAsserts(s *ConstSet, abi ABI) string {
	var b strings.Builder
	for _, c := range s.Consts(abi) {
		fmt.Fprintf(&b, "_Static_assert((long long)(intptr_t)(%s) == (long long)(intptr_t)(%dLL), \"%s (set %s) is not %d on %s\");\n",
			c.Name, c.Value, c.Name, s.Name, c.Value, abi)
	}
	return b.String()
}

// compile runs cc over files in dir with flags; it returns the compiler's
// diagnostics on failure.
func compile(cc, dir string, flags []string, files ...string) error {
	args := append(slices.Clone(flags), files...)
	cmd := exec.Command(cc, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", cc, strings.Join(args, " "), err, firstLines(out, 60))
	}
	return nil
}

// firstLines returns the compiler's error lines (or, when it printed none,
// its output), at most n of them.
func firstLines(b []byte, n int) string {
	lines := strings.SplitAfter(string(b), "\n")
	errs := slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return !strings.Contains(l, "error") })
	if len(errs) > 0 {
		lines = errs
	}
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines)\n", len(lines)-n))
	}
	return strings.Join(lines, "")
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// checkABI compiles the table for abi with its compiler: every declaration
// together (the prelude's shape), each header's declarations alone (the
// header attribution), the fortify entry points under _FORTIFY_SOURCE, and
// every constant's value.
func checkABI(t *testing.T, tab *table, abi ABI) {
	cc := testkit.Need(t, compilerFor[abi])
	dir := t.TempDir()
	funcs := funcsOf(tab, abi)
	files := []string{write(t, dir, "declarations.c", declarationsUnit(abi, funcs))}
	// Each set's constants with its header alone: the values, and that the
	// header the table names defines them.
	for _, s := range setsOf(tab, abi) {
		if s.Header == "" {
			t.Errorf("set %s names no header", s.Name)
			continue
		}
		files = append(files, write(t, dir, "set_"+s.Name+".c", prologue(abi, []string{s.Header})+constAsserts(s, abi)))
	}
	var fortified []string
	byHeader := map[string][]*Func{}
	var order []string
	for _, f := range funcs {
		if f.checkHeader == "" {
			continue
		}
		key := f.checkHeader
		if f.fortify {
			key = "fortify:" + key
		}
		if _, ok := byHeader[key]; !ok {
			order = append(order, key)
		}
		byHeader[key] = append(byHeader[key], f)
	}
	for i, key := range order {
		header, fortify := strings.CutPrefix(key, "fortify:")
		name := write(t, dir, fmt.Sprintf("header%03d.c", i), headerUnit(abi, header, byHeader[key]))
		if fortify {
			fortified = append(fortified, name)
		} else {
			files = append(files, name)
		}
	}
	flags := baseFlags
	if abi.windows() {
		// MinGW warns (without an option to silence it) that a
		// redeclaration drops the header's dllimport; the declarations
		// still compile, which is what §20 asks of a prelude.
		flags = slices.DeleteFunc(slices.Clone(baseFlags), func(f string) bool { return f == "-Werror" })
	}
	if err := compile(cc, dir, flags, files...); err != nil {
		t.Fatal(err)
	}
	if len(fortified) > 0 {
		if err := compile(cc, dir, append(slices.Clone(baseFlags), "-O2", "-D_FORTIFY_SOURCE=2"), fortified...); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s: %d declarations in %d header units, %d fortified, checked by %s", abi, len(funcs), len(order), len(fortified), cc)
}

func TestPrototypesAgainstHeadersAMD64(t *testing.T) { checkABI(t, mustTable(t), LinuxAMD64) }

// The cross-compiled checks take about ten seconds each: -short leaves them
// to the full run (CI's).
func TestPrototypesAgainstHeaders386(t *testing.T) { skipShort(t); checkABI(t, mustTable(t), Linux386) }
func TestPrototypesAgainstHeadersARM64(t *testing.T) {
	skipShort(t)
	checkABI(t, mustTable(t), LinuxARM64)
}
func TestPrototypesAgainstHeadersWin64(t *testing.T) {
	skipShort(t)
	checkABI(t, mustTable(t), WindowsAMD64)
}

func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiled header check: slow, skipped under -short")
	}
}

func mustTable(t *testing.T) *table {
	t.Helper()
	tab, err := parseTable(tableText)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestConstantsNativeAMD64 runs a program that prints every constant's value
// from the headers and compares it with the table's: the runtime twin of
// the static assertions, which names every difference at once.
func TestConstantsNativeAMD64(t *testing.T) {
	gcc := testkit.Need(t, "gcc")
	tab := mustTable(t)
	dir := t.TempDir()
	funcs := funcsOf(tab, LinuxAMD64)
	var b strings.Builder
	b.WriteString(prologue(LinuxAMD64, headersOf(funcs)))
	b.WriteString("#include <stdio.h>\nint main(void) {\n")
	want := map[string]int64{}
	var names []string
	for _, s := range setsOf(tab, LinuxAMD64) {
		for _, c := range s.Consts(LinuxAMD64) {
			key := s.Name + "." + c.Name
			want[key] = c.Value
			names = append(names, key)
			fmt.Fprintf(&b, "\tprintf(\"%%s %%lld\\n\", %q, (long long)(intptr_t)(%s));\n", key, c.Name)
		}
	}
	b.WriteString("\treturn 0;\n}\n")
	exe, err := testkit.BuildC(gcc, dir, "consts", b.String(), "-std=gnu11")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got[k] = n
	}
	for _, k := range names {
		if got[k] != want[k] {
			t.Errorf("%s: table %#o (%d), headers %#o (%d)", k, want[k], want[k], got[k], got[k])
		}
	}
	if len(got) != len(names) {
		t.Errorf("printed %d constants, want %d", len(got), len(names))
	}
	t.Logf("%d constants equal the headers' values", len(names))
}

// TestOracleCanFail changes one prototype, one typedef-dependent parameter
// and one constant and expects the compiler to refuse each: the oracle
// above is not vacuous.
func TestOracleCanFail(t *testing.T) {
	gcc := testkit.Need(t, "gcc")
	tab := mustTable(t)
	dir := t.TempDir()
	fopen := *tab.funcs[0]["fopen"]
	fopen.Return = Type{Kind: Int}
	lseek := *tab.funcs[0]["lseek"]
	lseek.Params = slices.Clone(lseek.Params)
	lseek.Params[1].Type = Type{Kind: Int} // off_t is long
	cases := map[string]string{
		"wrong_return.c":  headerUnit(LinuxAMD64, "stdio.h", []*Func{&fopen}),
		"wrong_param.c":   headerUnit(LinuxAMD64, "unistd.h", []*Func{&lseek}),
		"wrong_header.c":  headerUnit(LinuxAMD64, "string.h", []*Func{tab.funcs[0]["fopen"]}),
		"wrong_decl.c":    prologue(LinuxAMD64, []string{"stdio.h"}) + fopen.Declaration() + "\n",
		"wrong_builtin.c": prologue(LinuxAMD64, nil) + "void *(__memcpy_chk)(void *dest, const void *src, size_t len);\n",
		"wrong_const.c":   prologue(LinuxAMD64, []string{"fcntl.h"}) + "_Static_assert((long long)(intptr_t)(O_DIRECTORY) == (long long)(intptr_t)(040000LL), \"arm64's value\");\n",
	}
	for name, src := range cases {
		write(t, dir, name, src)
		if err := compile(gcc, dir, baseFlags, name); err == nil {
			t.Errorf("%s compiled; the oracle must refuse it:\n%s", name, src)
		}
	}
	// And the unchanged twin compiles.
	write(t, dir, "right.c", headerUnit(LinuxAMD64, "stdio.h", []*Func{tab.funcs[0]["fopen"]}))
	if err := compile(gcc, dir, baseFlags, "right.c"); err != nil {
		t.Fatal(err)
	}
}
