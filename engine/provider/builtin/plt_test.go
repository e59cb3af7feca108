package builtin

import (
	"debug/elf"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// Debian libraries (issue 13 items 1 and 2): every .plt, .plt.sec and
// .plt.got stub objdump labels `<x@plt>` (IRELATIVE stubs included, as
// `*ABS*+0x…@plt`) is a thunk procedure of that name, whatever the binding
// of its symbol; and every address procedure_callees returns resolves with
// resolve_containing_procedure. .ci/run installs the packages; a missing
// file skips its subtest, or fails it under REA_REQUIRE_ALL_TOOLS=1.

type debianLib struct {
	name, pkg, path, objdump string
}

var debianLibs = []debianLib{
	{name: "amd64-libstdc++", pkg: "libstdc++6", path: "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", objdump: "objdump"},
	{name: "amd64-libpython3.11", pkg: "libpython3.11", path: "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", objdump: "objdump"},
	{name: "amd64-libc", pkg: "libc6", path: "/usr/lib/x86_64-linux-gnu/libc.so.6", objdump: "objdump"},
	{name: "arm64-libc", pkg: "libc6-arm64-cross", path: "/usr/aarch64-linux-gnu/lib/libc.so.6", objdump: "aarch64-linux-gnu-objdump"},
	{name: "arm64-libstdc++", pkg: "libstdc++6-arm64-cross", path: "/usr/aarch64-linux-gnu/lib/libstdc++.so.6", objdump: "aarch64-linux-gnu-objdump"},
	{name: "arm64-libpython3.11", pkg: "libpython3.11:arm64", path: "/usr/lib/aarch64-linux-gnu/libpython3.11.so.1.0", objdump: "aarch64-linux-gnu-objdump"},
	{name: "armhf-libc", pkg: "libc6-armhf-cross", path: "/usr/arm-linux-gnueabihf/lib/libc.so.6", objdump: "arm-linux-gnueabihf-objdump"},
	{name: "armhf-libstdc++", pkg: "libstdc++6-armhf-cross", path: "/usr/arm-linux-gnueabihf/lib/libstdc++.so.6", objdump: "arm-linux-gnueabihf-objdump"},
	{name: "armhf-libpython3.11", pkg: "libpython3.11:armhf", path: "/usr/lib/arm-linux-gnueabihf/libpython3.11.so.1.0", objdump: "arm-linux-gnueabihf-objdump"},
}

var objdumpPLTLabel = regexp.MustCompile(`(?m)^([0-9a-f]+) <(.+@plt)>:$`)

func TestDebianLibraryPLTAndCallees(t *testing.T) {
	skipLarge(t)
	p := New("plt")
	for _, lib := range debianLibs {
		t.Run(lib.name, func(t *testing.T) {
			t.Parallel() // one library each, through the shared provider as concurrent targets would
			if _, err := os.Stat(lib.path); err != nil {
				msg := fmt.Sprintf("%s is not installed (Debian package %s); install it to run this test: %v", lib.path, lib.pkg, err)
				if requireAll() {
					t.Fatal(msg)
				}
				t.Skip(msg)
			}
			needTool(t, lib.objdump)
			c := startOn(t, p, targetFor(t, lib.path))
			procs := allProcedures(t, c)
			byAddr := map[string]provider.ProcedureItem{}
			for _, pr := range procs {
				byAddr[pr.Address] = pr
			}
			checkPLTStubs(t, lib, procs, byAddr)
			checkCalleesResolve(t, c, procs)
		})
	}
}

// checkPLTStubs compares the stubs objdump labels with the procedures.
func checkPLTStubs(t *testing.T, lib debianLib, procs []provider.ProcedureItem, byAddr map[string]provider.ProcedureItem) {
	ef, err := elf.Open(lib.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	args := []string{"-d"}
	for _, s := range ef.Sections {
		if strings.HasPrefix(s.Name, ".plt") && s.Flags&elf.SHF_EXECINSTR != 0 {
			args = append(args, "-j", s.Name)
		}
	}
	out := toolOutput(t, lib.objdump, append(args, lib.path)...)
	// objdump names the PLT entries after the .rela.plt relocations in
	// order, so a TLS descriptor relocation there (arm64 R_AARCH64_TLSDESC)
	// lends its name to the lazy TLSDESC trampoline and the word after it,
	// which are no stubs: those labels are left out.
	tlsdesc := map[string]bool{}
	for _, ln := range strings.Split(toolOutput(t, "readelf", "-rW", lib.path), "\n") {
		if f := strings.Fields(ln); len(f) >= 5 && strings.HasSuffix(f[2], "_TLSDESC") {
			tlsdesc[f[4][:strings.IndexByte(f[4]+"@", '@')]+"@plt"] = true
		}
	}
	var labels [][]string
	for _, m := range objdumpPLTLabel.FindAllStringSubmatch(out, -1) {
		if !tlsdesc[m[2]] {
			labels = append(labels, m)
		}
	}
	if len(labels) == 0 {
		t.Fatalf("objdump labels no PLT stub in %s", lib.path)
	}
	bad, local, external := 0, 0, 0
	for _, m := range labels {
		addr := provider.FormatAddress(hexAddr(t, m[1]))
		name := m[2]
		pr, ok := byAddr[addr]
		if !ok || pr.Value != name || !pr.Procedure.Thunk {
			if bad++; bad <= 10 {
				t.Errorf("objdump's %s at %s: procedure %+v (found %v)", name, addr, pr, ok)
			}
			continue
		}
		bare := strings.TrimSuffix(name, "@plt")
		switch {
		case pr.Procedure.External:
			external++
			if pr.Procedure.ThunkTarget != nil || !slices.Contains(pr.Aliases, bare) {
				t.Errorf("import stub %s: %+v", name, pr)
			}
		default:
			// A stub of a symbol the library defines (or an IRELATIVE
			// slot) reaches that definition, itself a procedure.
			local++
			if pr.Procedure.ThunkTarget == nil {
				t.Errorf("stub %s of a local definition has no thunk target", name)
			} else if _, ok := byAddr[*pr.Procedure.ThunkTarget]; !ok {
				t.Errorf("stub %s: thunk target %s is no procedure", name, *pr.Procedure.ThunkTarget)
			}
		}
	}
	// And REA's thunks in PLT sections are exactly objdump's stubs.
	inPLT := func(a uint64) bool {
		for _, s := range ef.Sections {
			if strings.HasPrefix(s.Name, ".plt") && a >= s.Addr && a < s.Addr+s.Size {
				return true
			}
		}
		return false
	}
	rea := 0
	for _, pr := range procs {
		if a, _ := provider.ParseAddress(pr.Address); inPLT(a) {
			rea++
		}
	}
	t.Logf("%s: %d PLT stubs labelled by objdump (%d of imports, %d of local definitions or IRELATIVE), %d wrong; %d procedures in PLT sections",
		lib.name, len(labels), external, local, bad, rea)
	if rea != len(labels) {
		t.Errorf("%d procedures in PLT sections, objdump labels %d stubs", rea, len(labels))
	}
	// arm keeps its IRELATIVE stubs in .iplt, which objdump does not label:
	// one thunk named *ABS*+0x<resolver>@plt per IRELATIVE relocation.
	if ip := ef.Section(".iplt"); ip != nil {
		irel := strings.Count(toolOutput(t, "readelf", "-rW", lib.path), "_IRELATIVE")
		stubs := 0
		for _, pr := range procs {
			if a, _ := provider.ParseAddress(pr.Address); a >= ip.Addr && a < ip.Addr+ip.Size {
				stubs++
				if !pr.Procedure.Thunk || !strings.HasPrefix(pr.Value, "*ABS*+0x") || !strings.HasSuffix(pr.Value, "@plt") || pr.Procedure.ThunkTarget == nil {
					t.Errorf(".iplt stub %+v", pr)
				}
			}
		}
		t.Logf("%s: %d .iplt stubs, %d IRELATIVE relocations", lib.name, stubs, irel)
		if stubs != irel {
			t.Errorf("%d procedures in .iplt, %d IRELATIVE relocations", stubs, irel)
		}
	}
}

// checkCalleesResolve asks every procedure's callees and resolves each
// distinct callee address.
func checkCalleesResolve(t *testing.T, c provider.Client, procs []provider.ProcedureItem) {
	callees := map[string]bool{}
	failed := 0
	for _, pr := range procs {
		for off := int64(0); ; {
			r, err := c.Do(t.Context(), provider.OpProcedureCallees, provider.Params{"procedure": pr.Address, "offset": off, "limit": int64(1000), "document": nil}, nil)
			if err != nil {
				failed++ // e.g. an undecodable procedure: a typed error of that call
				break
			}
			pg := r.Normalized.(provider.Page[provider.AddressItem])
			for _, it := range pg.Items {
				callees[it.Address] = true
			}
			if !pg.Truncated {
				break
			}
			off = int64(*pg.NextOffset)
		}
	}
	bad := 0
	for a := range callees {
		res := do(t, c, provider.OpResolveContaining, provider.Params{"address": a, "document": nil}).Normalized.(provider.ContainingResult)
		if !res.Found {
			if bad++; bad <= 10 {
				t.Errorf("callee %s does not resolve: %s", a, *res.Reason)
			}
		}
	}
	t.Logf("%d procedures (%d callee queries failed), %d distinct callees, %d do not resolve", len(procs), failed, len(callees), bad)
	if bad > 0 {
		t.Errorf("%d of %d callees do not resolve to a procedure", bad, len(callees))
	}
}

// TestGOTOnlyImports: an import whose GOT slot no PLT stub jumps through
// (GLOB_DAT: __libc_start_main in every PIE; every call of a -fno-plt
// build) is a name at its slot, type import, source imported, as PE names
// its import slots.
func TestGOTOnlyImports(t *testing.T) {
	for _, fx := range []struct{ name, cc, readelf, reloc string }{
		{"gcc-pie", "gcc", "readelf", "R_X86_64_GLOB_DAT"},
		{"gcc-noplt", "gcc", "readelf", "R_X86_64_GLOB_DAT"},
		{"aarch64-noplt", "aarch64-linux-gnu-gcc", "readelf", "R_AARCH64_GLOB_DAT"},
	} {
		t.Run(fx.name, func(t *testing.T) {
			flags := []string{"-O2", "-fPIE", "-pie"}
			if strings.HasSuffix(fx.name, "noplt") {
				flags = append(flags, "-fno-plt")
			}
			path := cFixture(t, "got-"+fx.name, fx.cc, flags...)
			_, _, c := open(t, path)
			names := map[string][]provider.NameItem{}
			for _, n := range allNames(t, c) {
				names[n.Address] = append(names[n.Address], n)
			}
			// Slots a .plt.got stub jumps through (objdump's `# <slot>`
			// comment) are named at the stub instead.
			stubSlots := map[string]bool{}
			if strings.HasPrefix(fx.cc, "gcc") {
				for _, m := range regexp.MustCompile(`jmp +\*.*# ([0-9a-f]+) <`).FindAllStringSubmatch(toolOutput(t, "objdump", "-d", "-j", ".plt.got", path), -1) {
					stubSlots[provider.FormatAddress(hexAddr(t, m[1]))] = true
				}
			}
			want := 0
			for _, ln := range strings.Split(toolOutput(t, fx.readelf, "-rW", path), "\n") {
				f := strings.Fields(ln)
				if len(f) < 5 || f[2] != fx.reloc || strings.Trim(f[3], "0") != "" {
					continue // not an import slot (a defined symbol's value is non-zero)
				}
				sym := f[4][:strings.IndexByte(f[4]+"@", '@')]
				addr := provider.FormatAddress(hexAddr(t, f[0]))
				if stubSlots[addr] {
					continue
				}
				want++
				ok := false
				for _, n := range names[addr] {
					ok = ok || n.Value == sym && n.Symbol.Type == "import" && n.Symbol.Source == "imported" && n.Symbol.External && n.Symbol.Dynamic && n.Symbol.Primary
				}
				if !ok {
					t.Errorf("GOT slot %s of %s: names %+v", addr, sym, names[addr])
				}
			}
			if want == 0 || fx.name == "gcc-pie" && !hasImportNamed(names, "__libc_start_main") || strings.HasSuffix(fx.name, "noplt") && !hasImportNamed(names, "puts") {
				t.Errorf("%d GOT-only import slots; __libc_start_main or puts missing", want)
			}
		})
	}
}

func hasImportNamed(names map[string][]provider.NameItem, name string) bool {
	for _, ns := range names {
		for _, n := range ns {
			if n.Value == name && n.Symbol.Type == "import" {
				return true
			}
		}
	}
	return false
}

// TestELFDiscoveryLimitations (issue 13 item 8): a discovery source the
// file has but the provider does not read is named in the limitations of
// the operations that depend on it.
func TestELFDiscoveryLimitations(t *testing.T) {
	t.Run("armhf", func(t *testing.T) {
		// The arm sources are read: the profile names them, and no
		// limitation says they are not (.eh_frame, which the fixture's
		// crt code has, is still stated as unread).
		path := cFixture(t, "armhf-O2-stripped", "arm-linux-gnueabihf-gcc", "-O2", "-s")
		prof, err := New("v1").Profile(t.Context(), targetFor(t, path))
		if err != nil {
			t.Fatal(err)
		}
		disc, _ := prof.Parameters["function_discovery"].([]any)
		for _, want := range []string{"call-targets", "init-array", "arm-exidx", "entry-point"} {
			if !slices.Contains(disc, any(want)) {
				t.Errorf("function_discovery %v lacks %s", disc, want)
			}
		}
		_, _, c := open(t, path)
		for _, op := range []string{provider.OpListProcedures, provider.OpListNames, provider.OpResolveContaining} {
			p := provider.Params{"offset": int64(0), "limit": int64(1)}
			if op == provider.OpResolveContaining {
				p = provider.Params{"address": "0x10"}
			}
			r := do(t, c, op, p)
			if slices.ContainsFunc(r.Limitations, func(l string) bool {
				return strings.Contains(l, ".ARM.exidx") || strings.Contains(l, "init") || strings.Contains(l, "calls are not followed")
			}) {
				t.Errorf("%s limitations %q", op, r.Limitations)
			}
		}
	})
	t.Run("undecodable-plt", func(t *testing.T) {
		// The PLT entries overwritten with int3: no stub is decodable.
		src := cFixture(t, "gcc-O2", "gcc", "-O2")
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := elf.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ef.Sections {
			if strings.HasPrefix(s.Name, ".plt") {
				for i := s.Offset; i < s.Offset+s.Size; i++ {
					b[i] = 0xcc
				}
			}
		}
		ef.Close()
		path := t.TempDir() + "/plt-int3"
		if err := os.WriteFile(path, b, 0o755); err != nil {
			t.Fatal(err)
		}
		_, _, c := open(t, path)
		r := do(t, c, provider.OpListProcedures, provider.Params{"offset": int64(0), "limit": int64(1)})
		if !slices.ContainsFunc(r.Limitations, func(l string) bool { return strings.HasPrefix(l, "no PLT stub decoded") }) {
			t.Errorf("limitations %q", r.Limitations)
		}
		// The intact file has no such limitation.
		_, _, c = open(t, src)
		r = do(t, c, provider.OpListProcedures, provider.Params{"offset": int64(0), "limit": int64(1)})
		if slices.ContainsFunc(r.Limitations, func(l string) bool { return strings.HasPrefix(l, "no PLT stub decoded") }) {
			t.Errorf("intact file: limitations %q", r.Limitations)
		}
	})
}

// TestUnwindCallSeed reads the stripped i686 fuzz seed built from
// fuzzSeedUnwindC: bare, code without an FDE that FDE-covered helper calls,
// becomes a procedure; the `call 1f; 1: pop` in main makes none.
func TestUnwindCallSeed(t *testing.T) {
	raw, err := os.ReadFile("testdata/fuzz/FuzzELF/seed-i686-eh-frame-gap")
	if err != nil {
		t.Fatal(err)
	}
	lit := strings.TrimSpace(strings.TrimPrefix(string(raw), "go test fuzz v1\n"))
	q, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(q)
	img, err := parseImage(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(img.elf.fdes) == 0 {
		t.Fatal("the seed has no FDEs")
	}
	six, err := buildSymbols(t.Context(), img, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bare, pop uint64 // the seed is stripped: found by their bytes
	for i := 0; i+5 <= len(data); i++ {
		switch {
		case string(data[i:i+4]) == "\x8b\x04\x24\xc3": // bare: movl (%esp), %eax; ret
			bare = fileOffsetAddr(img, uint64(i))
		case string(data[i:i+5]) == "\xe8\x00\x00\x00\x00":
			pop = fileOffsetAddr(img, uint64(i)) + 5
		}
	}
	if bare == 0 || pop == 0 {
		t.Fatalf("seed lacks bare (%#x) or the get-PC call (%#x)", bare, pop)
	}
	if lo, hi := procsAt(six, bare); lo == hi {
		t.Errorf("bare (%#x) is no procedure", bare)
	}
	if lo, hi := procsAt(six, pop); lo < hi {
		t.Errorf("a procedure starts after call $+5 at %#x", pop)
	}
}

// fileOffsetAddr maps a file offset to its address through the sections.
func fileOffsetAddr(img *image, off uint64) uint64 {
	for _, s := range img.sections {
		if s.mapped && off >= s.off && off < s.off+s.fsize {
			return s.addr + off - s.off
		}
	}
	return 0
}
