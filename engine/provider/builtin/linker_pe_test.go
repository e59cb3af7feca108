package builtin

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

const mingwObjdump = "x86_64-w64-mingw32-objdump"

// peImported is one import as `objdump -p` lists it, with its IAT slot.
type peImported struct {
	dll, name string
	ordinal   int // -1 for a name
	slot      uint64
}

func objdumpPEImports(t testing.TB, path string) []peImported {
	t.Helper()
	p := output(t, mingwObjdump, "-p", path)
	base := objdumpImageBase(t, p)
	start := strings.Index(p, "The Import Tables")
	if start < 0 {
		t.Fatalf("objdump -p %s shows no import tables", path)
	}
	p = p[start+1:]
	if end := regexp.MustCompile(`(?m)^(The |PE File Base)`).FindStringIndex(p); end != nil {
		p = p[:end[0]]
	}
	desc := regexp.MustCompile(`^ ([0-9a-f]{8})\t([0-9a-f]{8}) [0-9a-f]{8} [0-9a-f]{8} ([0-9a-f]{8}) ([0-9a-f]{8})$`)
	var out []peImported
	var dll string
	var first uint64
	i := 0
	for _, line := range strings.Split(p, "\n") {
		if m := desc.FindStringSubmatch(line); m != nil {
			first, _ = strconv.ParseUint(m[4], 16, 64)
			i = 0
			continue
		}
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "DLL Name: "); ok {
			dll = s
			continue
		}
		f := strings.Fields(line)
		if dll == "" || len(f) != 3 || !strings.HasPrefix(line, "\t") || f[0] == "vma:" {
			continue
		}
		e := peImported{dll: dll, name: f[2], ordinal: -1, slot: base + first + uint64(i)*8}
		if f[2] == "<none>" {
			n, _ := strconv.ParseUint(f[1], 10, 32)
			e.name, e.ordinal = "", int(n)
		}
		out = append(out, e)
		i++
	}
	return out
}

func objdumpImageBase(t testing.TB, p string) uint64 {
	m := regexp.MustCompile(`ImageBase\s+([0-9a-f]+)`).FindStringSubmatch(p)
	if m == nil {
		t.Fatal("objdump -p shows no ImageBase")
	}
	b, _ := strconv.ParseUint(m[1], 16, 64)
	return b
}

// TestLinkerPE checks the Windows application's imports (by name, by
// ordinal, qualified, by IAT slot and by thunk) against objdump -p and -d,
// and the DLL's exports (by name, by ordinal, the forwarder) against its
// export tables.
func TestLinkerPE(t *testing.T) {
	exe, dll := linkWinApp(t)
	ctx := context.Background()
	_, app := linkerOf(t, exe)
	libClient, lib := linkerOf(t, dll)
	for l, want := range map[provider.Linker]string{app: "app.exe", lib: "reafix.dll"} {
		if n, err := l.LibraryName(ctx); err != nil || n != want {
			t.Errorf("library name %q, %v; want %s", n, err, want)
		}
	}
	imports := objdumpPEImports(t, exe)
	bySlot := map[uint64]peImported{}
	ordinals := 0
	for _, e := range imports {
		bySlot[e.slot] = e
		name := e.name
		if e.ordinal >= 0 {
			name, ordinals = "#"+strconv.Itoa(e.ordinal), ordinals+1
		}
		for _, q := range []string{name, e.dll + "!" + name, strings.ToLower(e.dll) + "!" + name} {
			im := imp(t, app, provider.ImportQuery{Name: q})
			if im.NotAnImport || im.Name != e.name || deref(im.Library) != e.dll || im.Lookup != provider.LookupLibrary ||
				(e.ordinal >= 0) != (im.Ordinal != nil) || im.Ordinal != nil && *im.Ordinal != e.ordinal {
				t.Errorf("%s: %+v, objdump %+v", q, im, e)
			}
		}
		im := imp(t, app, provider.ImportQuery{Address: provider.FormatAddress(e.slot)})
		if im.NotAnImport || im.Name != e.name || deref(im.Library) != e.dll {
			t.Errorf("slot %x: %+v, objdump %+v", e.slot, im, e)
		}
	}
	if ordinals != 1 || len(imports) < 10 {
		t.Fatalf("objdump lists %d imports, %d by ordinal", len(imports), ordinals)
	}
	// jmp [iat] thunks: the import's address is its thunk.
	thunk := regexp.MustCompile(`(?m)^\s+([0-9a-f]+):\s+ff 25 [0-9a-f ]+\s+jmp\s+\*0x[0-9a-f]+\(%rip\)\s+# ([0-9a-f]+) <__imp_`)
	n := 0
	thunksOf := map[uint64][]string{}
	for _, m := range thunk.FindAllStringSubmatch(output(t, mingwObjdump, "-d", exe), -1) {
		a, _ := strconv.ParseUint(m[1], 16, 64)
		slot, _ := strconv.ParseUint(m[2], 16, 64)
		e, ok := bySlot[slot]
		if !ok {
			continue
		}
		n++
		im := imp(t, app, provider.ImportQuery{Address: provider.FormatAddress(a)})
		if im.NotAnImport || im.Name != e.name || deref(im.Library) != e.dll {
			t.Errorf("thunk %x: %+v, objdump %+v", a, im, e)
		}
		thunksOf[slot] = append(thunksOf[slot], provider.FormatAddress(a))
	}
	for slot, ts := range thunksOf {
		e := bySlot[slot]
		if by := imp(t, app, provider.ImportQuery{Address: provider.FormatAddress(slot)}); !slices.Contains(ts, deref(by.Address)) {
			t.Errorf("%s: address %s, want one of its thunks %v", e.name, deref(by.Address), ts)
		}
	}
	if n < 4 {
		t.Errorf("%d thunks checked", n)
	}
	for _, q := range []string{"dll_secret", "reafix.dll!#8", "KERNEL32.dll!dll_add", "DLL_ADD", "main"} {
		if im := imp(t, app, provider.ImportQuery{Name: q}); !im.NotAnImport {
			t.Errorf("%s: %+v, want not an import", q, im)
		}
	}
	for _, q := range []string{"!x", "reafix.dll!", "#x", "#70000"} {
		if _, err := app.Import(ctx, provider.ImportQuery{Name: q}); !fault.Is(err, fault.InvalidRequest) {
			t.Errorf("%s: %v, want invalid_request", q, err)
		}
	}

	// Exports against the DLL's export tables.
	p := output(t, mingwObjdump, "-p", dll)
	base := objdumpImageBase(t, p)
	eat := regexp.MustCompile(`(?m)^\t\[\s*(\d+)\] \+base\[\s*(\d+)\] ([0-9a-f]+) (Export|Forwarder) RVA(?: -- (\S+))?$`).FindAllStringSubmatch(p, -1)
	names := regexp.MustCompile(`(?m)^\t\[\s*(\d+)\] (\S+)$`).FindAllStringSubmatch(p[strings.Index(p, "[Ordinal/Name Pointer] Table"):], -1)
	if len(eat) != 5 || len(names) != 4 {
		t.Fatalf("objdump shows %d exports, %d names", len(eat), len(names))
	}
	nameOf := map[string]string{}
	for _, m := range names {
		nameOf[m[1]] = m[2]
	}
	for _, m := range eat {
		ord, _ := strconv.Atoi(m[2])
		rva, _ := strconv.ParseUint(m[3], 16, 64)
		qs := []provider.ExportQuery{{Ordinal: intp(ord)}}
		if nm, ok := nameOf[m[1]]; ok {
			qs = append(qs, provider.ExportQuery{Name: nm})
		}
		for _, q := range qs {
			e := exp(t, lib, q)
			if m[4] == "Forwarder" {
				want := m[5] // KERNEL32.GetTickCount
				if !e.Found || e.Forwarder == nil || e.Address != "" || e.Forwarder.Library+"."+e.Forwarder.Name != strings.Replace(want, ".", ".dll.", 1) {
					t.Errorf("forwarder %+v: %+v, objdump %s", q, e, want)
				}
				continue
			}
			if !e.Found || e.Forwarder != nil || e.Address != provider.FormatAddress(base+rva) {
				t.Errorf("%+v: %+v, objdump %x", q, e, base+rva)
			}
		}
	}
	if e := exp(t, lib, provider.ExportQuery{Ordinal: intp(7)}); e.Name != deref(do(t, libClient, provider.OpAddressName, provider.Params{"address": e.Address}).Normalized.(*string)) {
		t.Errorf("ordinal 7 is named %q, not as address_name names it", e.Name)
	}
	for _, q := range []provider.ExportQuery{{Name: "dll_secret"}, {Name: "DLL_ADD"}, {Name: "dll_ad"}, {Ordinal: intp(2)}, {Ordinal: intp(8)}, {Ordinal: intp(-1)}} {
		if e := exp(t, lib, q); e.Found {
			t.Errorf("%+v found: %+v", q, e)
		}
	}
	v := "GLIBC_2.2.5"
	if _, err := lib.Export(ctx, provider.ExportQuery{Name: "dll_add", Version: &v}); !fault.Is(err, fault.InvalidRequest) {
		t.Errorf("a PE export with a version: %v", err)
	}
}

func TestParseForwarder(t *testing.T) {
	for in, want := range map[string]string{
		"NTDLL.RtlAllocateHeap": "NTDLL.dll RtlAllocateHeap -1", "NTDLL.#5": "NTDLL.dll  5",
		"api-ms-win-core-x-l1-1-0.F": "api-ms-win-core-x-l1-1-0.dll F -1", "foo.bar.Baz": "foo.bar Baz -1",
		"NoDot": "", ".F": "", "X.": "", "X.#y": "", "X.#99999": "",
	} {
		f, ok := parseForwarder(in)
		got := ""
		if ok {
			o := -1
			if f.Ordinal != nil {
				o = *f.Ordinal
			}
			got = f.Library + " " + f.Name + " " + strconv.Itoa(o)
		}
		if got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestLinkerPEDelayLoad: a delay-loaded DLL's imports (mingw's delay
// import library, as in TestDependenciesMingwBesideExe) have the delay
// IAT slot (__imp_<name>) and the thunk that jumps through it (<name>).
func TestLinkerPEDelayLoad(t *testing.T) {
	gcc := needTool(t, "x86_64-w64-mingw32-gcc")
	dlltool := needTool(t, "x86_64-w64-mingw32-dlltool")
	nm := needTool(t, "x86_64-w64-mingw32-nm")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "e.c"), "__declspec(dllexport) int efun(int x) { return x * 2; }\n")
	writeFile(t, filepath.Join(dir, "m.c"), "#include <stdio.h>\nint efun(int);\nint main(void) { printf(\"%d\\n\", efun(3)); return 0; }\n")
	for _, args := range [][]string{
		{gcc, "-shared", "-o", "depe.dll", "e.c", "-Wl,--output-def,depe.def"},
		{dlltool, "--input-def", "depe.def", "--dllname", "depe.dll", "--output-delaylib", "libdepe_delay.a"},
		{gcc, "-o", "app.exe", "m.c", "-L.", "-ldepe_delay"},
	} {
		if err := run(dir, nil, args[0], args[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "app.exe")
	syms := map[string]uint64{}
	for _, line := range strings.Split(output(t, nm, exe), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			a, _ := strconv.ParseUint(f[0], 16, 64)
			syms[f[2]] = a
		}
	}
	slot, thunk := syms["__imp_efun"], syms["efun"]
	if slot == 0 || thunk == 0 {
		t.Fatalf("nm shows no __imp_efun or efun: %x %x", slot, thunk)
	}
	_, app := linkerOf(t, exe)
	for _, q := range []provider.ImportQuery{{Name: "efun"}, {Name: "DEPE.dll!efun"}, {Address: provider.FormatAddress(slot)}, {Address: provider.FormatAddress(thunk)}} {
		im := imp(t, app, q)
		if im.NotAnImport || im.Name != "efun" || deref(im.Library) != "depe.dll" || deref(im.Address) != provider.FormatAddress(thunk) {
			t.Errorf("%+v: %+v, want efun from depe.dll at its thunk %x", q, im, thunk)
		}
	}
}

// TestImportAmbiguous: a name imported from two libraries is answered with
// the first, marked ambiguous; a qualified name is not.
func TestImportAmbiguous(t *testing.T) {
	lx := &linkIndex{}
	lx.addImport(linkImport{name: "f", library: "A.dll", lookup: provider.LookupLibrary, slot: 0x10, hasSlot: true})
	lx.addImport(linkImport{name: "f", library: "B.dll", lookup: provider.LookupLibrary, slot: 0x18, hasSlot: true})
	img := &image{pe: &peInfo{}}
	im, err := lx.importNamed(img, "f")
	if err != nil || !im.Ambiguous || deref(im.Library) != "A.dll" {
		t.Errorf("f: %+v %v", im, err)
	}
	im, err = lx.importNamed(img, "b.dll!f")
	if err != nil || im.Ambiguous || deref(im.Library) != "B.dll" || deref(im.Address) != "0x18" {
		t.Errorf("b.dll!f: %+v %v", im, err)
	}
}
