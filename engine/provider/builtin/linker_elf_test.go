package builtin

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// linkerOf starts a client on path and returns it as a Linker.
func linkerOf(t testing.TB, path string) (provider.Client, provider.Linker) {
	t.Helper()
	_, _, c := open(t, path)
	l, ok := c.(provider.Linker)
	if !ok {
		t.Fatal("the builtin client is no provider.Linker")
	}
	return c, l
}

func imp(t testing.TB, l provider.Linker, q provider.ImportQuery) provider.Import {
	t.Helper()
	im, err := l.Import(context.Background(), q)
	if err != nil {
		t.Fatalf("Import %+v: %v", q, err)
	}
	return im
}

func exp(t testing.TB, l provider.Linker, q provider.ExportQuery) provider.Export {
	t.Helper()
	e, err := l.Export(context.Background(), q)
	if err != nil {
		t.Fatalf("Export %+v: %v", q, err)
	}
	return e
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func output(t testing.TB, name string, args ...string) string {
	t.Helper()
	b, err := exec.Command(needTool(t, name), args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(b)
}

// elfUndefined is one `objdump -T` undefined symbol.
type elfUndefined struct {
	name, version string // version "" for Base
	weak, fn      bool
}

var objdumpT = regexp.MustCompile(`^[0-9a-f]+ (.{7})\s+\*UND\*\s+[0-9a-f]+\s+(\(([^)]+)\)|Base)\s+(\S+)$`)

func objdumpUndefined(t testing.TB, path string) []elfUndefined {
	var out []elfUndefined
	for _, line := range strings.Split(output(t, "objdump", "-T", path), "\n") {
		m := objdumpT.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		out = append(out, elfUndefined{name: m[4], version: m[3], weak: strings.Contains(m[1], "w"), fn: strings.Contains(m[1], "F")})
	}
	if len(out) == 0 {
		t.Fatalf("objdump -T %s: no undefined symbols", path)
	}
	return out
}

// nmDefined is one `nm -D --defined-only` symbol: name, version, whether
// it is the default version (@@), its address and nm type letter.
type nmDefined struct {
	name, version string
	dflt          bool
	addr          uint64
	typ           byte
}

func nmDynDefined(t testing.TB, path string) []nmDefined {
	var out []nmDefined
	for _, line := range strings.Split(output(t, "nm", "-D", "--defined-only", path), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			continue
		}
		d := nmDefined{addr: a, typ: f[1][0], name: f[2]}
		if n, v, ok := strings.Cut(f[2], "@"); ok {
			d.name, d.version = n, v
			if strings.HasPrefix(v, "@") {
				d.version, d.dflt = v[1:], true
			}
		}
		out = append(out, d)
	}
	return out
}

// TestLinkerELFApp checks every import of the ELF application against
// objdump and resolves each imported function the way the loader would:
// in the library of its version need, or the first of DT_NEEDED that
// exports it, at the address nm gives there.
func TestLinkerELFApp(t *testing.T) {
	dir, exe, libOne, libTwo := linkApp(t)
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	ldd := output(t, "ldd", exe)
	if m := regexp.MustCompile(`libc\.so\.6 => (\S+)`).FindStringSubmatch(ldd); m != nil {
		libc = m[1]
	}
	ctx := context.Background()
	_, app := linkerOf(t, exe)
	libs := map[string]provider.Linker{}
	paths := map[string]string{}
	for _, p := range []string{libOne, libTwo, libc} {
		_, l := linkerOf(t, p)
		name, err := l.LibraryName(ctx)
		if err != nil {
			t.Fatal(err)
		}
		libs[name], paths[name] = l, p
	}
	for _, want := range []string{"libone.so", "libtwo.so.1", "libc.so.6"} {
		if libs[want] == nil {
			t.Fatalf("no library named %s: %v", want, paths)
		}
	}
	if n, err := app.LibraryName(ctx); err != nil || n != "" {
		t.Fatalf("the program's library name = %q, %v; want none", n, err)
	}
	needed := []string{"libone.so", "libtwo.so.1", "libc.so.6"}
	versionFile := map[string]string{"GLIBC": "libc.so.6", "TWO": "libtwo.so.1"}
	resolved := 0
	for _, u := range objdumpUndefined(t, exe) {
		im := imp(t, app, provider.ImportQuery{Name: u.name})
		if im.NotAnImport || im.Name != u.name || im.Weak != u.weak {
			t.Errorf("%s: %+v, objdump %+v", u.name, im, u)
			continue
		}
		if u.version == "" {
			if im.Version != nil || im.Library != nil || im.Lookup != provider.LookupSearch || !slices.Equal(im.SearchOrder, needed) {
				t.Errorf("%s: unversioned import %+v, want search order %v", u.name, im, needed)
			}
		} else {
			lib := versionFile[strings.Split(u.version, "_")[0]]
			if deref(im.Version) != u.version || deref(im.Library) != lib || im.Lookup != provider.LookupLibrary || im.SearchOrder != nil {
				t.Errorf("%s: %+v, want %s in %s", u.name, im, u.version, lib)
			}
			if v := imp(t, app, provider.ImportQuery{Name: u.name + "@" + u.version}); v.NotAnImport || v.Name != u.name {
				t.Errorf("%s@%s: %+v", u.name, u.version, v)
			}
		}
		if !u.fn || u.weak {
			continue
		}
		// Resolve it as the loader would.
		order := im.SearchOrder
		if im.Library != nil {
			order = []string{*im.Library}
		}
		var found provider.Export
		var in string
		for _, lib := range order {
			if e := exp(t, libs[lib], provider.ExportQuery{Name: im.Name, Version: im.Version}); e.Found {
				found, in = e, lib
				break
			}
		}
		if !found.Found {
			t.Errorf("%s: no library exports it", u.name)
			continue
		}
		var want *nmDefined
		for _, d := range nmDynDefined(t, paths[in]) {
			if d.name == u.name && (u.version == "" && d.dflt || d.version == u.version) {
				want = &d
				break
			}
		}
		if want == nil || found.Address != provider.FormatAddress(want.addr) {
			t.Errorf("%s: exported by %s at %s, nm says %+v", u.name, in, found.Address, want)
		}
		resolved++
	}
	if resolved < 7 { // one_fn, one_say, two_fn, two_new, dup_fn, printf, abort
		t.Errorf("resolved %d imported functions", resolved)
	}
	_ = dir

	checkPLT(t, app, exe, 7)
	// A copy relocation (two_data, which the program reads) imports the
	// library's data into a copy in the program.
	copies := regexp.MustCompile(`(?m)^([0-9a-f]+) R_X86_64_COPY\s+([^@\s]+)@(\S+)$`).FindAllStringSubmatch(output(t, "objdump", "-R", exe), -1)
	if len(copies) != 1 {
		t.Fatalf("objdump -R shows %d copy relocations", len(copies))
	}
	for _, m := range copies {
		a, _ := strconv.ParseUint(m[1], 16, 64)
		for _, q := range []provider.ImportQuery{{Name: m[2]}, {Address: provider.FormatAddress(a)}} {
			im := imp(t, app, q)
			if im.NotAnImport || im.Name != m[2] || deref(im.Version) != m[3] || deref(im.Library) != "libtwo.so.1" || deref(im.Address) != provider.FormatAddress(a) {
				t.Errorf("copy %+v: %+v", q, im)
			}
		}
	}
	// Not imports: a defined name, an address inside main, an unknown name.
	main := exp(t, app, provider.ExportQuery{Name: "main"})
	for _, q := range []provider.ImportQuery{{Name: "main"}, {Name: "no_such_import"}, {Name: "two_fn@TWO_2.0"}, {Address: main.Address}} {
		if q.Address == "" && q.Name == "" {
			continue
		}
		if im := imp(t, app, q); !im.NotAnImport {
			t.Errorf("%+v: %+v, want not an import", q, im)
		}
	}
	for _, q := range []provider.ImportQuery{{Name: "two_fn@@TWO_1.0"}, {Name: "@TWO_1.0"}, {Name: "x", Address: "0x1"}, {}, {Address: "zz"}} {
		if _, err := app.Import(ctx, q); !fault.Is(err, fault.InvalidRequest) {
			t.Errorf("%+v: %v, want invalid_request", q, err)
		}
	}
	if _, err := app.Export(ctx, provider.ExportQuery{Name: "main", Ordinal: intp(1)}); !fault.Is(err, fault.InvalidRequest) {
		t.Errorf("an ELF export by ordinal: %v", err)
	}
}

// checkPLT checks that every PLT stub (objdump's <sym@plt> labels in .plt,
// .plt.sec and .plt.got) and GOT slot (objdump -R) of exe names its
// import, and that an import's address is its stub.
func checkPLT(t *testing.T, app provider.Linker, exe string, minStubs int) {
	t.Helper()
	label := regexp.MustCompile(`(?m)^([0-9a-f]+) <(\S+)@plt>:$`)
	var stubs [][]string
	sections := output(t, "objdump", "-h", exe)
	for _, sec := range []string{".plt", ".plt.sec", ".plt.got"} {
		if strings.Contains(sections, " "+sec+" ") {
			stubs = append(stubs, label.FindAllStringSubmatch(output(t, "objdump", "-d", "-j", sec, exe), -1)...)
		}
	}
	if len(stubs) < minStubs {
		t.Fatalf("objdump shows %d PLT stubs", len(stubs))
	}
	for _, m := range stubs {
		a, _ := strconv.ParseUint(m[1], 16, 64)
		im := imp(t, app, provider.ImportQuery{Address: provider.FormatAddress(a)})
		if im.NotAnImport || im.Name != m[2] || deref(im.Address) != provider.FormatAddress(a) {
			t.Errorf("stub %s <%s@plt>: %+v", m[1], m[2], im)
		}
		if byName := imp(t, app, provider.ImportQuery{Name: m[2]}); deref(byName.Address) != provider.FormatAddress(a) {
			t.Errorf("%s: address %s, want its stub %s", m[2], deref(byName.Address), m[1])
		}
	}
	slots := regexp.MustCompile(`(?m)^([0-9a-f]+) R_X86_64_(JUMP_SLOT|GLOB_DAT)\s+([^@\s]+)@`).FindAllStringSubmatch(output(t, "objdump", "-R", exe), -1)
	for _, m := range slots {
		a, _ := strconv.ParseUint(m[1], 16, 64)
		if im := imp(t, app, provider.ImportQuery{Address: provider.FormatAddress(a)}); im.NotAnImport || im.Name != m[3] {
			t.Errorf("slot %s (%s): %+v", m[1], m[3], im)
		}
	}
}

// TestLinkerELFPltSec: with IBT (-fcf-protection, -z ibtplt) the stubs
// calls go through are in .plt.sec, and __cxa_finalize's in .plt.got.
func TestLinkerELFPltSec(t *testing.T) {
	dir, _, _, _ := linkApp(t)
	src := filepath.Join(t.TempDir(), "ibt.c")
	writeFile(t, src, "#include <stdio.h>\nextern int two_fn(int);\nint (*volatile fp)(int) = two_fn;\n"+
		"int main(int argc, char **argv) { printf(\"%d\\n\", fp(argc) + two_fn(argc)); return 0; }\n")
	exe := filepath.Join(filepath.Dir(src), "ibt")
	if err := run(dir, nil, needTool(t, "gcc"), "-O1", "-fcf-protection=full", "-Wl,-z,ibtplt", "-o", exe, src, "-L.", "-l:libtwo.so.1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(output(t, "objdump", "-h", exe), ".plt.sec") {
		t.Fatal("gcc -Wl,-z,ibtplt wrote no .plt.sec")
	}
	_, l := linkerOf(t, exe)
	checkPLT(t, l, exe, 3)
}

// TestLinkerELFExports looks up every defined dynamic function and object
// of each library by its version (nm -D --defined-only), and the rules of
// unversioned lookups, which an old program confirms by running.
func TestLinkerELFExports(t *testing.T) {
	dir, exe, libOne, libTwo := linkApp(t)
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	for _, path := range []string{libOne, libTwo, libc} {
		c, l := linkerOf(t, path)
		n := 0
		tls := map[string]bool{} // thread-local: no address to export
		if f, err := elf.Open(path); err == nil {
			syms, _ := f.DynamicSymbols()
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) == elf.STT_TLS {
					tls[s.Name] = true
				}
			}
			f.Close()
		}
		for _, d := range nmDynDefined(t, path) {
			if tls[d.name] {
				if e := exp(t, l, provider.ExportQuery{Name: d.name, Version: &d.version}); e.Found {
					t.Errorf("thread-local %s exported at %s", d.name, e.Address)
				}
				continue
			}
			switch d.typ {
			case 'T', 'W', 'i', 'D', 'B', 'R', 'V':
			default:
				continue // A: the version definitions' own symbols
			}
			var ver *string
			if d.version != "" {
				ver = &d.version
			}
			e := exp(t, l, provider.ExportQuery{Name: d.name, Version: ver})
			if !e.Found || e.Address != provider.FormatAddress(d.addr) || deref(e.Version) != deref(ver) {
				t.Errorf("%s: %s@%s: %+v, nm %x", filepath.Base(path), d.name, d.version, e, d.addr)
				continue
			}
			if d.typ == 'T' || d.typ == 'W' || d.typ == 'i' {
				an := do(t, c, provider.OpAddressName, provider.Params{"address": e.Address}).Normalized.(*string)
				if an == nil || *an != e.Name {
					t.Errorf("%s: export named %q, address_name %v", d.name, e.Name, deref(an))
				}
			}
			n++
		}
		if n < 2 {
			t.Errorf("%s: %d exports checked", path, n)
		}
	}
	_, two := linkerOf(t, libTwo)
	_, lc := linkerOf(t, libc)
	v := func(s string) *string { return &s }
	found := func(l provider.Linker, name string, ver *string) provider.Export {
		return exp(t, l, provider.ExportQuery{Name: name, Version: ver})
	}
	if e := found(lc, "printf", v("GLIBC_2.2.5")); !e.Found || e.Name != "printf" {
		t.Errorf("printf@GLIBC_2.2.5: %+v", e)
	}
	for _, q := range []struct {
		l    provider.Linker
		name string
		ver  *string
	}{{lc, "printf", v("GLIBC_2.99")}, {lc, "printf", v("TWO_1.0")}, {two, "two_hidden", nil}, {two, "dup_fn_v1", nil},
		{two, "two_fn", v("TWO_2.0")}, {two, "TWO_1.0", nil}, {two, "no_such", nil}} {
		if e := found(q.l, q.name, q.ver); e.Found {
			t.Errorf("%s@%s found: %+v", q.name, deref(q.ver), e)
		}
	}
	defs := map[string]nmDefined{}
	for _, d := range nmDynDefined(t, libTwo) {
		defs[d.name+"@"+d.version] = d
	}
	v1, v2 := defs["dup_fn@TWO_1.0"], defs["dup_fn@TWO_2.0"]
	if e := found(two, "dup_fn", v("TWO_1.0")); e.Address != provider.FormatAddress(v1.addr) {
		t.Errorf("dup_fn@TWO_1.0 (hidden): %+v", e)
	}
	if e := found(two, "dup_fn", v("TWO_2.0")); e.Address != provider.FormatAddress(v2.addr) {
		t.Errorf("dup_fn@TWO_2.0: %+v", e)
	}
	// An unversioned reference gets the oldest version (index 2), hidden or
	// not: a program linked against an unversioned libtwo calls dup_fn_v1.
	e := found(two, "dup_fn", nil)
	if e.Address != provider.FormatAddress(v1.addr) || deref(e.Version) != "TWO_1.0" {
		t.Errorf("unversioned dup_fn: %+v, want TWO_1.0 at %x", e, v1.addr)
	}
	if e := found(two, "two_new", nil); e.Address != provider.FormatAddress(defs["two_new@TWO_2.0"].addr) {
		t.Errorf("unversioned two_new (only a default version): %+v", e)
	}
	old := t.TempDir()
	cc := needTool(t, "gcc")
	stub := filepath.Join(old, "stub.c")
	prog := filepath.Join(old, "old.c")
	writeFile(t, stub, "int dup_fn(int x) { return -x; }\n")
	writeFile(t, prog, "#include <stdio.h>\nextern int dup_fn(int);\nint main(void) { printf(\"%d\\n\", dup_fn(10)); return 0; }\n")
	if err := run(old, nil, cc, "-shared", "-fPIC", "-Wl,-soname,libtwo.so.1", "-o", "libtwo.so.1", stub); err != nil {
		t.Fatal(err)
	}
	if err := run(old, nil, cc, "-o", "old", prog, "-L.", "-l:libtwo.so.1"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(old, "old"))
	cmd.Env = []string{"LD_LIBRARY_PATH=" + dir}
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "11" {
		t.Errorf("the old program against the versioned libtwo printed %q (%v); dup_fn@TWO_1.0 returns 11", out, err)
	}
	_ = exe
}

// TestLinkerDebianPrograms resolves every imported function of Debian
// programs in the libraries ldd names, as the loader would, and checks the
// definition against nm.
func TestLinkerDebianPrograms(t *testing.T) {
	skipLarge(t)
	for _, exe := range []string{"/usr/bin/ls", "/usr/bin/gdb"} {
		if _, err := statNamed(exe); err != nil {
			continue
		}
		_, app := linkerOf(t, exe)
		libs := map[string]provider.Linker{}
		paths := map[string]string{}
		for _, m := range regexp.MustCompile(`(?m)^\s+(\S+) => (/\S+)`).FindAllStringSubmatch(output(t, "ldd", exe), -1) {
			_, l := linkerOf(t, m[2])
			libs[m[1]], paths[m[1]] = l, m[2]
		}
		nms := map[string]map[string]uint64{}
		resolved := 0
		for _, u := range objdumpUndefined(t, exe) {
			if !u.fn || u.weak {
				continue
			}
			im := imp(t, app, provider.ImportQuery{Name: u.name})
			order := im.SearchOrder
			if im.Library != nil {
				order = []string{*im.Library}
			}
			for _, lib := range order {
				l := libs[lib]
				if l == nil {
					continue // a dependency's own dependency, searched later by the loader
				}
				e := exp(t, l, provider.ExportQuery{Name: im.Name, Version: im.Version})
				if !e.Found {
					continue
				}
				if nms[lib] == nil {
					nms[lib] = map[string]uint64{}
					for _, d := range nmDynDefined(t, paths[lib]) {
						nms[lib][d.name+"@"+d.version] = d.addr
						if d.dflt || d.version == "" {
							nms[lib][d.name+"@"] = d.addr
						}
					}
				}
				if a, ok := nms[lib][u.name+"@"+u.version]; !ok || e.Address != provider.FormatAddress(a) {
					t.Errorf("%s: %s@%s exported by %s at %s, nm %x", exe, u.name, u.version, lib, e.Address, a)
				}
				resolved++
				break
			}
		}
		if resolved < 50 {
			t.Errorf("%s: %d imports resolved", exe, resolved)
		}
	}
}
