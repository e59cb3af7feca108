package builtin

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// machoBound is one llvm-objdump --bind/--lazy-bind row.
type machoBound struct {
	addr         uint64
	dylib, name  string
	weak, isLazy bool
}

func objdumpMachOBinds(t testing.TB, path string) []machoBound {
	t.Helper()
	var out []machoBound
	for _, kind := range []string{"--bind", "--lazy-bind"} {
		for _, line := range strings.Split(output(t, "llvm-objdump", "--macho", kind, path), "\n") {
			f := strings.Fields(line)
			if len(f) < 5 || !strings.HasPrefix(f[2], "0x") {
				continue
			}
			a, err := strconv.ParseUint(f[2][2:], 16, 64)
			if err != nil {
				continue
			}
			b := machoBound{addr: a, isLazy: kind == "--lazy-bind"}
			if b.isLazy {
				b.dylib, b.name = f[3], f[4]
			} else if len(f) >= 7 {
				b.dylib, b.name = f[5], f[6]
				b.weak = len(f) > 7 && f[7] == "(weak_import)"
			} else {
				continue
			}
			out = append(out, b)
		}
	}
	return out
}

// objdumpIndirect lists the entries of one section's indirect symbols.
func objdumpIndirect(t testing.TB, path, section string) map[uint64]string {
	out := map[uint64]string{}
	in := false
	for _, line := range strings.Split(output(t, "llvm-objdump", "--macho", "--indirect-symbols", path), "\n") {
		if strings.HasPrefix(line, "Indirect symbols for ") {
			in = strings.Contains(line, ","+section+")")
			continue
		}
		f := strings.Fields(line)
		if !in || len(f) != 3 || !strings.HasPrefix(f[0], "0x") {
			continue
		}
		a, _ := strconv.ParseUint(f[0][2:], 16, 64)
		out[a] = f[2]
	}
	return out
}

// installNameOf matches objdump's short dylib name (libSystem) to the
// import's install name (/usr/lib/libSystem.B.dylib), or for a
// flat-namespace image to one of its search order.
func installNameOf(short string, im provider.Import) bool {
	if im.Library != nil {
		return im.Lookup == provider.LookupLibrary && strings.HasPrefix(path.Base(*im.Library), short+".")
	}
	return im.Lookup == provider.LookupSearch && slices.ContainsFunc(im.SearchOrder, func(l string) bool {
		return strings.HasPrefix(path.Base(l), short+".")
	}) && len(im.Limitations) > 0 && strings.Contains(im.Limitations[0], "flat-namespace")
}

// checkMachOImports checks every bind of path, and every stub of section.
func checkMachOImports(t *testing.T, path, stubs string, minBinds int) {
	_, l := linkerOf(t, path)
	binds := objdumpMachOBinds(t, path)
	if len(binds) < minBinds {
		t.Fatalf("llvm-objdump lists %d binds", len(binds))
	}
	for _, b := range binds {
		im := imp(t, l, provider.ImportQuery{Address: provider.FormatAddress(b.addr)})
		if im.NotAnImport || im.Name != b.name || !installNameOf(b.dylib, im) {
			t.Errorf("bind %x %s from %s: %+v", b.addr, b.name, b.dylib, im)
		}
		if b.weak && !im.Weak {
			t.Errorf("%s is a weak import: %+v", b.name, im)
		}
		qs := []string{b.name}
		if c := strings.TrimPrefix(b.name, "_"); !strings.HasPrefix(c, "_") {
			qs = append(qs, c) // the C name, without the underscore (not for __exit: _exit is another name)
		}
		for _, q := range qs {
			if by := imp(t, l, provider.ImportQuery{Name: q}); by.NotAnImport || by.Name != b.name || !installNameOf(b.dylib, by) {
				t.Errorf("%s: %+v", q, by)
			}
		}
	}
	ind := objdumpIndirect(t, path, stubs)
	if len(ind) == 0 {
		t.Fatalf("no indirect symbols for %s", stubs)
	}
	for a, name := range ind {
		im := imp(t, l, provider.ImportQuery{Address: provider.FormatAddress(a)})
		if im.NotAnImport || im.Name != name {
			t.Errorf("stub %x (%s): %+v", a, name, im)
		}
		if by := imp(t, l, provider.ImportQuery{Name: name}); by.Address == nil {
			t.Errorf("%s has no address", name)
		}
	}
}

// TestLinkerDarwinGo: a Go darwin binary's imports are its binds of
// libSystem (LC_DYLD_INFO_ONLY) and its __symbol_stub1 stubs. Go's linker
// does not set MH_TWOLEVEL: the image is flat-namespace, so each import is
// looked up in every dylib in order (the recorded one in a limitation).
func TestLinkerDarwinGo(t *testing.T) {
	needTool(t, "llvm-objdump")
	exe := linkDarwinGo(t)
	checkMachOImports(t, exe, "__symbol_stub1", 20)
	_, l := linkerOf(t, exe)
	if im := imp(t, l, provider.ImportQuery{Name: "open"}); im.Library != nil ||
		!slices.Equal(im.SearchOrder, []string{"/usr/lib/libSystem.B.dylib", "/usr/lib/libresolv.9.dylib"}) {
		t.Errorf("_open of a flat-namespace image: %+v", im)
	}
	if n, err := l.LibraryName(context.Background()); err != nil || n != "" {
		t.Errorf("an executable's library name: %q, %v", n, err)
	}
	if e := exp(t, l, provider.ExportQuery{Name: "_main"}); e.Found {
		t.Errorf("a Go executable has no export trie: %+v", e)
	}
}

// TestLinkerMachOApp: a C program and its dylib linked by ld64.lld: binds,
// lazy binds, a weak import and __stubs; the dylib's export trie.
func TestLinkerMachOApp(t *testing.T) {
	needTool(t, "llvm-objdump")
	exe, dylib := linkMachOApp(t)
	checkMachOImports(t, exe, "__stubs", 8)
	ctx := context.Background()
	_, app := linkerOf(t, exe)
	c, lib := linkerOf(t, dylib)
	if n, err := lib.LibraryName(ctx); err != nil || n != "@rpath/libfix.dylib" {
		t.Errorf("dylib install name %q, %v", n, err)
	}
	if im := imp(t, app, provider.ImportQuery{Name: "fix_weak"}); !im.Weak || deref(im.Library) != "@rpath/libfix.dylib" {
		t.Errorf("fix_weak: %+v", im)
	}
	trie := regexp.MustCompile(`(?m)^0x([0-9A-Fa-f]+)\s+(\S+)$`).FindAllStringSubmatch(output(t, "llvm-objdump", "--macho", "--exports-trie", dylib), -1)
	if len(trie) != 5 {
		t.Fatalf("llvm-objdump lists %d exports", len(trie))
	}
	for _, m := range trie {
		a, _ := strconv.ParseUint(m[1], 16, 64)
		for _, q := range []string{m[2], strings.TrimPrefix(m[2], "_")} {
			e := exp(t, lib, provider.ExportQuery{Name: q})
			if !e.Found || e.Address != provider.FormatAddress(a) || e.Forwarder != nil {
				t.Errorf("%s: %+v, trie %x", q, e, a)
			}
			if an := do(t, c, provider.OpAddressName, provider.Params{"address": e.Address}).Normalized.(*string); deref(an) != e.Name {
				t.Errorf("%s named %q, address_name %q", q, e.Name, deref(an))
			}
		}
	}
	for _, q := range []string{"_fix", "fix_ad", "_fix_addx", "", "x"} {
		if q == "" {
			continue
		}
		if e := exp(t, lib, provider.ExportQuery{Name: q}); e.Found {
			t.Errorf("%q found: %+v", q, e)
		}
	}
	if im := imp(t, app, provider.ImportQuery{Name: "_main"}); !im.NotAnImport {
		t.Errorf("_main: %+v", im)
	}
}
