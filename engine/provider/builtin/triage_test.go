package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

func triageOf(t testing.TB, path string) (provider.Triage, []string) {
	t.Helper()
	_, _, c := open(t, path)
	res := do(t, c, provider.OpBinaryTriage, nil)
	tr, ok := res.Normalized.(provider.Triage)
	if !ok {
		t.Fatalf("%s: triage result is %T", path, res.Normalized)
	}
	return tr, res.Limitations
}

func TestTriageDump(t *testing.T) {
	p := os.Getenv("REA_TRIAGE_DUMP")
	if p == "" {
		t.Skip("set REA_TRIAGE_DUMP")
	}
	tr, lims := triageOf(t, p)
	b, _ := json.MarshalIndent(tr, "", " ")
	t.Logf("%s\n%v", b, lims)
}

// hcVerdicts parses hardening-check -v output into its verdict per check
// (the text after the colon, up to the first comma) and its FORTIFY lists.
func hcVerdicts(t testing.TB, path string) (map[string]string, int, int) {
	t.Helper()
	out, _ := exec.Command(needTool(t, "hardening-check"), "-v", path).Output() // exits 1 on a "no"
	v := map[string]string{}
	prot, unprot := 0, 0
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "\tprotected: "):
			prot++
		case strings.HasPrefix(line, "\tunprotected: "):
			unprot++
		case strings.HasPrefix(line, " "):
			k, val, ok := strings.Cut(strings.TrimSpace(line), ": ")
			if ok {
				v[k] = val
			}
		}
	}
	if len(v) == 0 {
		t.Fatalf("hardening-check %s printed no verdicts:\n%s", path, out)
	}
	return v, prot, unprot
}

func factValue(t testing.TB, part map[string]any, key string) (any, bool) {
	t.Helper()
	f, ok := part[key].(provider.Fact)
	if !ok {
		return nil, false
	}
	if f.Source == "" {
		t.Errorf("fact %s has no source", key)
	}
	return f.Value, true
}

// checkHardening compares the triage of path with hardening-check,
// readelf -n and file.
func checkHardening(t *testing.T, path string) {
	tr, _ := triageOf(t, path)
	hc, prot, unprot := hcVerdicts(t, path)
	hd, id := tr.Hardening, tr.Identity
	yes := func(check string) bool { return strings.HasPrefix(hc[check], "yes") }

	pie, hasPIE := factValue(t, hd, "pie")
	switch {
	case strings.HasPrefix(hc["Position Independent Executable"], "no, regular shared library"):
		if hasPIE || id["file_type"].(provider.Fact).Value != "shared_library" {
			t.Errorf("%s: hardening-check says shared library; triage pie=%v file_type=%v", path, pie, id["file_type"])
		}
	default:
		if pie != yes("Position Independent Executable") {
			t.Errorf("%s: pie %v, hardening-check %q", path, pie, hc["Position Independent Executable"])
		}
	}
	if sp, ok := factValue(t, hd, "stack_protector"); !ok && !strings.HasPrefix(hc["Stack protected"], "unknown") || ok && sp != yes("Stack protected") {
		t.Errorf("%s: stack_protector %v, hardening-check %q", path, sp, hc["Stack protected"])
	}
	fv, _ := factValue(t, hd, "fortify")
	fm, _ := fv.(map[string]any)
	want := strings.SplitN(hc["Fortify Source functions"], ",", 2)[0]
	if want = strings.Fields(want + " ")[0]; fm["verdict"] != want || fm["protected"] != prot || fm["unprotected"] != unprot {
		t.Errorf("%s: fortify %v, hardening-check %q protected %d unprotected %d", path, fm, hc["Fortify Source functions"], prot, unprot)
	}
	relro, _ := factValue(t, hd, "relro")
	if (relro != "none") != yes("Read-only relocations") {
		t.Errorf("%s: relro %v, hardening-check %q", path, relro, hc["Read-only relocations"])
	}
	if bn, _ := factValue(t, hd, "bind_now"); bn != yes("Immediate binding") || (relro == "full") != (yes("Read-only relocations") && yes("Immediate binding")) {
		t.Errorf("%s: bind_now %v relro %v, hardening-check %q", path, bn, relro, hc["Immediate binding"])
	}
	ibt, _ := factValue(t, hd, "cet_ibt")
	shstk, _ := factValue(t, hd, "cet_shstk")
	if (ibt == true && shstk == true) != yes("Control flow integrity") {
		t.Errorf("%s: cet ibt %v shstk %v, hardening-check %q", path, ibt, shstk, hc["Control flow integrity"])
	}

	// Build id: readelf -n.
	out, err := exec.Command(needTool(t, "readelf"), "-n", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	bid, _ := factValue(t, id, "build_id")
	wantID := ""
	if m := regexp.MustCompile(`Build ID: ([0-9a-f]+)`).FindSubmatch(out); m != nil {
		wantID = string(m[1])
	}
	if wantID == "" && bid != nil || wantID != "" && bid != wantID {
		t.Errorf("%s: build_id %v, readelf -n %q", path, bid, wantID)
	}
	// NX: readelf -lW's GNU_STACK flags.
	out, _ = exec.Command("readelf", "-lW", path).Output()
	nx, _ := factValue(t, hd, "nx")
	m := regexp.MustCompile(`(?m)^\s*GNU_STACK\s+(?:\S+\s+){5}(.{3})`).FindSubmatch(out)
	if wantNX := m != nil && !strings.Contains(string(m[1]), "E"); nx != wantNX {
		t.Errorf("%s: nx %v, readelf GNU_STACK %q", path, nx, m)
	}
	// stripped: file.
	out, err = exec.Command(needTool(t, "file"), "-bL", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := factValue(t, id, "stripped")
	if wantStripped := !strings.Contains(string(out), "not stripped"); st != wantStripped {
		t.Errorf("%s: stripped %v, file: %s", path, st, out)
	}
}

// debianELFs are Debian executables and libraries of modest size
// (hardening-check disassembles each one).
var debianELFs = []string{"/usr/bin/ls", "/usr/bin/bash", "/usr/bin/find", "/usr/bin/tar", "/usr/bin/readelf",
	"/usr/bin/perl", "/usr/bin/git", "/usr/bin/sqlite3", "/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/bin/gdb"}

func TestTriageHardeningDebian(t *testing.T) {
	n := 0
	for _, p := range debianELFs {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		n++
		if n > 10 {
			break
		}
		first := n == 1
		t.Run(filepath.Base(p), func(t *testing.T) {
			if !first {
				skipShortCase(t, "runs hardening-check (which disassembles) on another Debian ELF")
			}
			t.Parallel()
			checkHardening(t, p)
		})
	}
	if n < 10 {
		testkit.SkipOrFail(t, "fewer than 10 of the Debian ELF files are installed")
	}
}

func TestTriageHardeningFixture(t *testing.T) {
	hard := cFixture(t, "triage-hardened", "gcc", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-O2",
		"-Wl,-z,relro,-z,now", "-fcf-protection", "-fPIE", "-pie")
	soft := cFixture(t, "triage-soft", "gcc", "-fno-stack-protector", "-U_FORTIFY_SOURCE", "-O0",
		"-Wl,-z,norelro", "-fcf-protection=none", "-no-pie", "-Wl,-z,execstack")
	checkHardening(t, hard)
	checkHardening(t, soft)
	h, _ := triageOf(t, hard)
	s, _ := triageOf(t, soft)
	// Debian's crt1.o has no CET property, so the linked fixture has none
	// (hardening-check agrees); the fixture's object file shows the note.
	for k, want := range map[string]any{"pie": true, "relro": "full", "nx": true} {
		if v, _ := factValue(t, h.Hardening, k); v != want {
			t.Errorf("hardened fixture: %s = %v, want %v", k, v, want)
		}
	}
	for k, want := range map[string]any{"pie": false, "relro": "none", "stack_protector": false, "cet_ibt": false, "nx": false} {
		if v, _ := factValue(t, s.Hardening, k); v != want {
			t.Errorf("soft fixture: %s = %v, want %v", k, v, want)
		}
	}
	if v, _ := factValue(t, h.Hardening, "fortify"); v.(map[string]any)["verdict"] != "yes" {
		t.Errorf("hardened fixture: fortify %v", v)
	}
	obj := cFixture(t, "triage-cet.o", "gcc", "-c", "-O2", "-fcf-protection")
	o, _ := triageOf(t, obj)
	out, err := exec.Command("readelf", "-n", obj).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "x86 feature: IBT, SHSTK") {
		t.Fatalf("readelf -n shows no CET property on the -fcf-protection object:\n%s", out)
	}
	ibt, _ := factValue(t, o.Hardening, "cet_ibt")
	shstk, _ := factValue(t, o.Hardening, "cet_shstk")
	if ibt != true || shstk != true || o.Identity["file_type"].(provider.Fact).Value != "object" {
		t.Errorf("object: cet_ibt %v cet_shstk %v file_type %v", ibt, shstk, o.Identity["file_type"])
	}
	if m, ok := h.Identity["main"].(provider.MainFact); !ok || m.Name != "main" {
		t.Errorf("hardened fixture: main %v", h.Identity["main"])
	}
	cs, _ := h.Toolchain["compilers"].([]provider.Compiler)
	if len(cs) == 0 || cs[0].Name != "gcc" || cs[0].Version == "" {
		t.Errorf("hardened fixture: compilers %+v", cs)
	}
	out, _ = exec.Command("gcc", "-dumpfullversion").Output()
	if v := strings.TrimSpace(string(out)); len(cs) > 0 && cs[0].Version != v {
		t.Errorf("compiler version %q, gcc -dumpfullversion %q", cs[0].Version, v)
	}
}

// goVersionM parses `go version -m path`: the Go version, and the module
// lines (path, mod, dep, =>, build) as tab-joined strings.
func goVersionM(t testing.TB, path string) (string, []string) {
	t.Helper()
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = needTool(t, "go")
	}
	out, err := exec.Command(goBin, "version", "-m", path).Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	_, v, _ := strings.Cut(lines[0], ": ")
	var mods []string
	for _, l := range lines[1:] {
		mods = append(mods, strings.TrimRight(strings.TrimPrefix(l, "\t"), "\t"))
	}
	return v, mods
}

// triageModLines renders toolchain.go as `go version -m` prints it.
func triageModLines(bi *provider.GoBuildInfo) []string {
	var out []string
	add := func(kind string, m provider.GoModule) {
		out = append(out, strings.TrimRight(strings.Join([]string{kind, m.Path, m.Version, m.Sum}, "\t"), "\t"))
		if m.Replace != nil {
			out = append(out, strings.TrimRight(strings.Join([]string{"=>", m.Replace.Path, m.Replace.Version, m.Replace.Sum}, "\t"), "\t"))
		}
	}
	if bi.Path != "" {
		out = append(out, "path\t"+bi.Path)
	}
	if bi.Main != nil {
		add("mod", *bi.Main)
	}
	for _, d := range bi.Deps {
		add("dep", d)
	}
	for _, s := range bi.Settings {
		out = append(out, "build\t"+s.Key+"="+s.Value)
	}
	return out
}

func TestTriageGoBuildInfo(t *testing.T) {
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = needTool(t, "go")
	}
	paths := []string{goBin}
	stripped := map[string]bool{}
	for _, goos := range []string{"linux", "windows", "darwin"} {
		p := goBuildFixture(t, "triage-go-stripped-"+goos, goos, "amd64", "-ldflags=-s -w")
		d := goDepsFixture(t, goos)
		paths = append(paths, p, d)
		stripped[p], stripped[d] = true, true
	}
	for _, p := range paths {
		tr, lims := triageOf(t, p)
		bi, ok := tr.Toolchain["go"].(*provider.GoBuildInfo)
		if !ok {
			t.Errorf("%s: no Go build info (limitations %v)", p, lims)
			continue
		}
		v, mods := goVersionM(t, p)
		if bi.Version != v {
			t.Errorf("%s: Go version %q, go version -m %q", p, bi.Version, v)
		}
		if got := triageModLines(bi); !slices.Equal(got, mods) {
			t.Errorf("%s: modules\n%q\ngo version -m\n%q", p, got, mods)
		}
		if !stripped[p] {
			continue
		}
		if st, _ := factValue(t, tr.Identity, "stripped"); st != true {
			t.Errorf("%s: built with -ldflags=-s -w, stripped %v", p, st)
		}
		if bi.Main == nil || bi.Main.Path == "" {
			t.Errorf("%s: no main module: %+v", p, bi)
		}
		if strings.Contains(p, "deps") && (len(bi.Deps) == 0 || bi.Deps[0].Sum == "") {
			t.Errorf("%s: the dependency fixture lists no dependency with a checksum: %+v", p, bi.Deps)
		}
	}
}

// goDepsFixture builds, for goos/amd64, a stripped Go program that imports
// golang.org/x/arch (REA's own dependency, so in the module cache: built
// offline) for a build info with a dependency and its checksum.
func goDepsFixture(t testing.TB, goos string) string {
	return fixture(t, "triage-go-deps-"+goos, func(dir, out string) (string, error) {
		sum, err := os.ReadFile("../../../go.sum")
		if err != nil {
			return "", err
		}
		var lines []string
		for _, l := range strings.Split(string(sum), "\n") {
			if strings.HasPrefix(l, "golang.org/x/arch ") {
				lines = append(lines, l)
			}
		}
		version := strings.Fields(lines[0])[1]
		src := "package main\n\nimport (\n\t\"fmt\"\n\t\"golang.org/x/arch/x86/x86asm\"\n)\n\nfunc main() {\n\ti, err := x86asm.Decode([]byte{0x90}, 64)\n\tfmt.Println(i, err)\n}\n"
		files := map[string]string{"main.go": src, "go.sum": strings.Join(lines, "\n") + "\n",
			"go.mod": "module example.com/triagefixture\n\ngo 1.22\n\nrequire golang.org/x/arch " + version + "\n"}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				return "", err
			}
		}
		goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		return "", run(dir, []string{"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=amd64", "GOFLAGS=-buildvcs=false -mod=mod", "GOWORK=off", "GOPROXY=off"},
			goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	})
}

// peFixture builds the C fixture with a mingw compiler and flags.
func peFixture(t *testing.T, name, cc string, flags ...string) string {
	return cFixture(t, name, cc, flags...)
}

// TestTriagePEHardening: mingw PEs built with and without
// --dynamicbase,--nxcompat,--high-entropy-va, an i686 one and a Go-built
// PE: ASLR, NX and SEH equal pesec's; every DllCharacteristics fact
// (high-entropy VA and CFG too, which pesec does not print) and the linker
// version equal readpe -h optional's and objdump -p's; the CodeView GUID,
// age and PDB path equal objdump -p's (Debian's readpe 0.81 lists the debug
// directory, checked too, but does not decode its CodeView record).
func TestTriagePEHardening(t *testing.T) {
	needTool(t, "pesec")
	files := []string{
		peFixture(t, "triage-pe-on.exe", "x86_64-w64-mingw32-gcc", "-Wl,--dynamicbase,--nxcompat,--high-entropy-va", "-Wl,--pdb=triage.pdb"),
		peFixture(t, "triage-pe-off.exe", "x86_64-w64-mingw32-gcc", "-Wl,--disable-dynamicbase,--disable-nxcompat,--disable-high-entropy-va"),
		peFixture(t, "triage-pe-i686.exe", "i686-w64-mingw32-gcc", "-Wl,--build-id"),
		goBuildFixture(t, "triage-go-stripped-windows", "windows", "amd64", "-ldflags=-s -w"),
	}
	seen := 0
	defer func() {
		if seen < 2 {
			t.Errorf("only %d fixtures had a CodeView record to compare", seen)
		}
	}()
	for _, p := range files {
		tr, _ := triageOf(t, p)
		out, err := exec.Command("pesec", p).Output()
		if err != nil {
			t.Fatalf("pesec %s: %v", p, err)
		}
		sec := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok {
				sec[strings.TrimSpace(k)] = strings.TrimSpace(v) == "yes"
			}
		}
		for k, want := range map[string]bool{"aslr": sec["ASLR"], "nx": sec["DEP/NX"], "seh": sec["SEH"]} {
			if v, _ := factValue(t, tr.Hardening, k); v != want {
				t.Errorf("%s: %s = %v, pesec %v\n%s", p, k, v, want, out)
			}
		}
		// High-entropy VA and CFG: objdump -p's DllCharacteristics lines.
		od, err := exec.Command("x86_64-w64-mingw32-objdump", "-p", p).Output()
		if err != nil {
			t.Fatalf("objdump -p %s: %v", p, err)
		}
		for k, flag := range map[string]string{"high_entropy_va": "HIGH_ENTROPY_VA", "cfg": "GUARD_CF", "force_integrity": "FORCE_INTEGRITY"} {
			if v, _ := factValue(t, tr.Hardening, k); v != strings.Contains(string(od), "\t\t"+flag+"\n") && v != strings.Contains(string(od), "\t"+flag+"\n") {
				t.Errorf("%s: %s = %v, objdump -p lists %s: %v", p, k, v, flag, strings.Contains(string(od), flag))
			}
		}
		// readpe (pev) -h optional: the DllCharacteristics word and the
		// linker version, a second reader of the same header fields.
		rp, err := exec.Command(needTool(t, "readpe"), "-h", "optional", p).Output()
		if err != nil {
			t.Fatalf("readpe %s: %v", p, err)
		}
		dcm := regexp.MustCompile(`DLL characteristics:\s+(?:0x)?([0-9a-f]+)\n`).FindSubmatch(rp)
		lmaj := regexp.MustCompile(`Linker major version:\s+(\d+)`).FindSubmatch(rp)
		lmin := regexp.MustCompile(`Linker minor version:\s+(\d+)`).FindSubmatch(rp)
		if dcm == nil || lmaj == nil || lmin == nil {
			t.Fatalf("readpe -h optional %s: no DLL characteristics or linker version:\n%s", p, rp)
		}
		var dcw uint64
		fmt.Sscanf(string(dcm[1]), "%x", &dcw)
		for k, bit := range map[string]uint64{"aslr": 0x40, "high_entropy_va": 0x20, "nx": 0x100, "cfg": 0x4000, "force_integrity": 0x80} {
			if v, _ := factValue(t, tr.Hardening, k); v != (dcw&bit != 0) {
				t.Errorf("%s: %s = %v, readpe DLL characteristics %#x", p, k, v, dcw)
			}
		}
		if v, _ := factValue(t, tr.Hardening, "seh"); v != (dcw&0x400 == 0) {
			t.Errorf("%s: seh = %v, readpe DLL characteristics %#x (NO_SEH 0x400)", p, v, dcw)
		}
		if v, _ := factValue(t, tr.Toolchain, "linker_version"); v != string(lmaj[1])+"."+string(lmin[1]) {
			t.Errorf("%s: linker_version %v, readpe %s.%s", p, v, lmaj[1], lmin[1])
		}
		// readpe -d lists the debug directory a CodeView record lives in.
		rd, err := exec.Command("readpe", "-d", p).Output()
		if err != nil {
			t.Fatalf("readpe -d %s: %v", p, err)
		}
		if _, has := tr.Identity["build_id"]; has && !strings.Contains(string(rd), "IMAGE_DIRECTORY_ENTRY_DEBUG:") {
			t.Errorf("%s: build_id without a debug directory in readpe -d:\n%s", p, rd)
		}
		// SafeSEH applies to i386 only; mingw's i686 images have no load
		// configuration (objdump -p: its directory entry is zero), so no
		// SEHandlerTable.
		ss, hasSS := factValue(t, tr.Hardening, "safeseh")
		noLoadConfig := regexp.MustCompile(`(?m)^Entry a 0+ 0+ Load Configuration Directory`).Match(od)
		if is386 := strings.Contains(p, "i686"); is386 != hasSS || is386 && noLoadConfig && ss != false {
			t.Errorf("%s: safeseh %v (present %v), load config absent %v", p, ss, hasSS, noLoadConfig)
		}
		m := regexp.MustCompile(`format RSDS signature ([0-9a-f]+) age (\d+)(?: pdb (\S+))?`).FindSubmatch(od)
		bid, ok := factValue(t, tr.Identity, "build_id")
		switch {
		case m == nil && ok:
			t.Errorf("%s: build_id %v, objdump -p shows no CodeView record", p, bid)
		case m != nil:
			seen++
			cv, _ := bid.(provider.CodeView)
			pdb := strings.TrimSuffix(string(m[3]), ")")
			if pdb == "(none)" {
				pdb = ""
			}
			if cv.GUID != string(m[1]) || fmt.Sprint(cv.Age) != string(m[2]) || cv.PDB != pdb {
				t.Errorf("%s: build_id %+v, objdump -p %q", p, bid, m[0])
			}
		}
	}
}

// TestRichHeader: an MSVC-style Rich header (no fixture linker here writes
// one) decodes to its entries; a mingw PE has none.
func TestRichHeader(t *testing.T) {
	want := []provider.RichEntry{{Product: 0x0104, Build: 30159, Count: 12}, {Product: 0x0102, Build: 30148, Count: 1}}
	got, ok := parseRich(richStub(0x9e3779b9, want))
	if !ok || !slices.Equal(got, want) {
		t.Fatalf("parseRich = %v %v, want %v", got, ok, want)
	}
	tr, _ := triageOf(t, peFixture(t, "triage-pe-off.exe", "x86_64-w64-mingw32-gcc", "-Wl,--disable-dynamicbase,--disable-nxcompat,--disable-high-entropy-va"))
	if _, has := tr.Toolchain["rich_header"]; has {
		t.Errorf("a mingw PE reports a Rich header: %v", tr.Toolchain["rich_header"])
	}
}

// TestTriageMachO compares Go-built darwin fixtures with llvm-objdump
// --macho --private-headers: PIE, LC_UUID, LC_BUILD_VERSION and the
// presence of LC_CODE_SIGNATURE and LC_ENCRYPTION_INFO.
func TestTriageMachO(t *testing.T) {
	objdump := needTool(t, "llvm-objdump")
	for _, arch := range []string{"amd64", "arm64"} {
		p := goBuildFixture(t, "triage-go-darwin-"+arch, "darwin", arch)
		tr, _ := triageOf(t, p)
		out, err := exec.Command(objdump, "--macho", "--private-headers", p).Output()
		if err != nil {
			t.Fatalf("llvm-objdump %s: %v", p, err)
		}
		o := string(out)
		if pie, _ := factValue(t, tr.Hardening, "pie"); pie != regexp.MustCompile(`(?m)^MH_MAGIC.*\bPIE\b`).MatchString(o) {
			t.Errorf("%s: pie %v\n%s", arch, pie, o[:200])
		}
		if m := regexp.MustCompile(`uuid ([0-9A-F-]+)`).FindStringSubmatch(o); m != nil {
			if v, _ := factValue(t, tr.Identity, "build_id"); v != m[1] {
				t.Errorf("%s: build_id %v, llvm-objdump %s", arch, v, m[1])
			}
		} else if _, has := tr.Identity["build_id"]; has {
			t.Errorf("%s: build_id without LC_UUID", arch)
		}
		if m := regexp.MustCompile(`platform (\S+)\s+sdk (\S+)\s+minos (\S+)`).FindStringSubmatch(o); m != nil {
			v, _ := factValue(t, tr.Toolchain, "build_version")
			bv, _ := v.(map[string]any)
			if bv["platform"] != m[1] || bv["sdk"] != m[2] || bv["minos"] != m[3] {
				t.Errorf("%s: build_version %v, llvm-objdump %q", arch, bv, m[0])
			}
		} else {
			t.Errorf("%s: llvm-objdump shows no LC_BUILD_VERSION", arch)
		}
		cs, _ := factValue(t, tr.Hardening, "code_signature")
		present := false
		switch c := cs.(type) {
		case provider.CodeSignature:
			present = c.Present
			// Go's linker signs darwin/arm64 ad hoc (CS_ADHOC|CS_LINKER_SIGNED).
			if arch == "arm64" && (!c.Adhoc || !c.LinkerSigned || c.HardenedRuntime) {
				t.Errorf("arm64: code signature %+v", c)
			}
		case map[string]any:
			present = c["present"] == true
		}
		if present != strings.Contains(o, "cmd LC_CODE_SIGNATURE") {
			t.Errorf("%s: code signature %v, llvm-objdump LC_CODE_SIGNATURE %v", arch, cs, !present)
		}
		if _, has := tr.Hardening["encryption"]; has != strings.Contains(o, "cmd LC_ENCRYPTION_INFO") {
			t.Errorf("%s: encryption %v", arch, tr.Hardening["encryption"])
		}
		if m, ok := tr.Identity["main"].(provider.MainFact); !ok || m.Name != "main.main" {
			t.Errorf("%s: main %v", arch, tr.Identity["main"])
		}
	}
}

// TestTriageHighEntropy: Debian's upx-ucl is not installable here, so a
// section of random bytes added to the C fixture stands in for a packed
// payload: it is flagged, the code is not, and UPX's magic is recognised.
func TestTriageHighEntropy(t *testing.T) {
	objcopy := needTool(t, "objcopy")
	base := cFixture(t, "triage-entropy-base", "gcc", "-O2")
	dir := t.TempDir()
	blob := make([]byte, 64<<10)
	for i := range blob { // a xorshift stream: deterministic, high entropy
		x := uint32(i)*2654435761 + 1
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		blob[i] = byte(x >> 7)
	}
	copy(blob[100:], "UPX!")
	if err := os.WriteFile(filepath.Join(dir, "blob"), blob, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "packed")
	if b, err := exec.Command(objcopy, "--add-section", ".packed="+filepath.Join(dir, "blob"), base, out).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, b)
	}
	tr, _ := triageOf(t, out)
	es, _ := tr.Anomalies["entropy"].([]provider.SectionEntropy)
	found := false
	for _, e := range es {
		switch e.Name {
		case ".packed":
			found = true
			if !e.High || e.Entropy < 7.9 || e.Size != uint64(len(blob)) || e.Entropy != shannon(blob) {
				t.Errorf(".packed: %+v", e)
			}
		case ".text":
			if e.High {
				t.Errorf(".text flagged: %+v", e)
			}
		}
	}
	hi, _ := factValue(t, tr.Anomalies, "high_entropy_sections")
	if !found || !slices.Equal(hi.([]string), []string{".packed"}) {
		t.Errorf("high entropy sections %v (entropy %+v)", hi, es)
	}
	base0, _ := triageOf(t, base)
	if v, _ := factValue(t, base0.Anomalies, "high_entropy_sections"); len(v.([]string)) != 0 {
		t.Errorf("the plain fixture has high-entropy sections %v", v)
	}
	if _, has := base0.Anomalies["packer"]; has {
		t.Errorf("the plain fixture reports a packer")
	}
	// Sections and the section header table are no overlay; bytes after
	// them are.
	if ov, ok := factValue(t, tr.Anomalies, "overlay"); ok {
		t.Errorf("overlay %v in a file without one", ov)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	withOverlay := filepath.Join(dir, "overlay")
	if err := os.WriteFile(withOverlay, append(b, make([]byte, 1000)...), 0o755); err != nil {
		t.Fatal(err)
	}
	tr2, _ := triageOf(t, withOverlay)
	if ov, _ := factValue(t, tr2.Anomalies, "overlay"); ov == nil || ov.(map[string]any)["size"] != uint64(1000) || ov.(map[string]any)["offset"] != uint64(len(b)) {
		t.Errorf("overlay %v, want 1000 bytes at %d", ov, len(b))
	}
	// "UPX!" deep inside a data section is not one of UPX's marks (they sit
	// in the first page and at the end of the file).
	if p, _ := factValue(t, tr.Anomalies, "packer"); p != nil {
		t.Errorf("packer %v from a UPX! inside .packed", p)
	}
	if e := shannon(make([]byte, 1000)); e != 0 {
		t.Errorf("entropy of zeros %v", e)
	}
	if e := shannon([]byte{0, 1, 2, 3, 4, 5, 6, 7}); e != 3 {
		t.Errorf("entropy of 8 distinct bytes %v, want 3", e)
	}
}

// BenchmarkTriage times binary_triage on a fresh client of
// $REA_TRIAGE_BENCH (symbol index included, as on a first call).
func BenchmarkTriage(b *testing.B) {
	p := os.Getenv("REA_TRIAGE_BENCH")
	if p == "" {
		b.Skip("set REA_TRIAGE_BENCH to a binary")
	}
	for b.Loop() {
		_, _, c := open(b, p)
		do(b, c, provider.OpBinaryTriage, nil)
		c.Close(context.Background())
	}
}

// BenchmarkTriageAfterIndex times binary_triage alone on a client whose
// indexes are built (as inside binary_overview or rea analyze, where the
// counts come first) on $REA_TRIAGE_BENCH.
func BenchmarkTriageAfterIndex(b *testing.B) {
	p := os.Getenv("REA_TRIAGE_BENCH")
	if p == "" {
		b.Skip("set REA_TRIAGE_BENCH to a binary")
	}
	_, _, c := open(b, p)
	defer c.Close(context.Background())
	do(b, c, provider.OpListProcedures, nil)
	do(b, c, provider.OpBinaryTriage, nil)
	for b.Loop() {
		do(b, c, provider.OpBinaryTriage, nil)
	}
}

// TestSampledEntropy: a section above 1 MiB is measured on 1 MiB of evenly
// spaced blocks, which still tells random bytes from code-like ones.
func TestSampledEntropy(t *testing.T) {
	big := make([]byte, 4<<20)
	x := uint32(2463534242)
	for i := range big {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		big[i] = byte(x)
	}
	e, n := sampledShannon(big)
	if n != entropySample || e < 7.9 || e > 8 {
		t.Errorf("random 4 MiB: entropy %v over %d bytes", e, n)
	}
	for i := range big {
		big[i] = byte(i % 16) // 4 bits per byte
	}
	if e, _ := sampledShannon(big); e != 4 {
		t.Errorf("16-periodic 4 MiB: entropy %v, want 4", e)
	}
	small := big[:1000]
	if e, n := sampledShannon(small); n != 1000 || e != shannon(small) {
		t.Errorf("small: %v over %d", e, n)
	}
}

// TestTriageRust: a rustc-built executable (built here by the rustc on
// PATH and, when it is another one, Debian's /usr/bin/rustc) names rustc and
// its version from .comment when readelf -p .comment shows one, and from
// its panic-location strings the commit hash (official builds:
// /rustc/<hash>/library/...) or the release (Debian's
// /usr/src/rustc-<release>/library/...), each equal to `rustc -vV`; the
// strings survive stripping.
func TestTriageRust(t *testing.T) {
	rustcs := []string{needTool(t, "rustc")}
	if deb, err := filepath.EvalSymlinks("/usr/bin/rustc"); err == nil {
		if first, _ := filepath.EvalSymlinks(rustcs[0]); first != deb {
			rustcs = append(rustcs, "/usr/bin/rustc")
		}
	}
	for _, rustc := range rustcs {
		vv, err := exec.Command(rustc, "-vV").Output()
		if err != nil {
			t.Fatalf("%s -vV: %v", rustc, err)
		}
		info := map[string]string{}
		for _, l := range strings.Split(string(vv), "\n") {
			if k, v, ok := strings.Cut(l, ": "); ok {
				info[k] = v
			}
		}
		for _, strip := range []bool{false, true} {
			name := "triage-rust-" + info["release"]
			args := []string{"-O"}
			if strip {
				name += "-stripped"
				args = append(args, "-C", "strip=symbols")
			}
			p := keyedFixture(t, name, []string{rustc, string(vv), strings.Join(args, " ")}, func(dir, out string) (string, error) {
				src := filepath.Join(dir, "m.rs")
				if err := os.WriteFile(src, []byte("fn main() { let v: Vec<usize> = std::env::args().map(|a| a.len()).collect(); println!(\"{}\", v[3]); }\n"), 0o644); err != nil {
					return "", err
				}
				return "", run(dir, nil, rustc, append(args, "-o", out, src)...)
			})
			t.Run(filepath.Base(p), func(t *testing.T) { checkRust(t, p, info) })
		}
	}
}

func checkRust(t *testing.T, p string, info map[string]string) {
	tr, lims := triageOf(t, p)
	if v, _ := factValue(t, tr.Toolchain, "language"); v != "rust" {
		t.Errorf("language %v (limitations %q)", v, lims)
	}
	comment, _ := exec.Command("readelf", "-p", ".comment", p).Output()
	cs, _ := tr.Toolchain["compilers"].([]provider.Compiler)
	ci := slices.IndexFunc(cs, func(c provider.Compiler) bool { return c.Name == "rustc" })
	if strings.Contains(string(comment), "rustc version "+info["release"]) != (ci >= 0 && cs[ci].Version == info["release"]) {
		t.Errorf("compilers %+v; readelf -p .comment:\n%s", cs, comment)
	}
	rv, _ := factValue(t, tr.Toolchain, "rustc")
	rt, _ := rv.(provider.RustToolchain)
	if f := tr.Toolchain["rustc"].(provider.Fact); !strings.HasPrefix(f.Source, "heuristic:") {
		t.Errorf("rustc source %q is not marked heuristic", f.Source)
	}
	if h := info["commit-hash"]; h != "unknown" && h != "" {
		if rt.Commit != h {
			t.Errorf("rustc %+v, rustc -vV commit-hash %s", rt, h)
		}
	} else if rt.Version != info["release"] {
		t.Errorf("rustc %+v, rustc -vV release %s (no commit hash)", rt, info["release"])
	}
}
