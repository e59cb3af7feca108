package builtin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// dependenciesOf answers list_dependencies on path through Do.
func dependenciesOf(t *testing.T, path string) ([]provider.Dependency, []string) {
	t.Helper()
	_, _, c := open(t, path)
	r := do(t, c, provider.OpListDependencies, nil)
	deps, ok := r.Normalized.([]provider.Dependency)
	if !ok {
		t.Fatalf("list_dependencies answered %T", r.Normalized)
	}
	if testing.Verbose() {
		b, _ := json.MarshalIndent(deps, "", " ")
		t.Logf("%s: %s\nlimitations: %q", path, b, r.Limitations)
	}
	return deps, r.Limitations
}

// lddLine is one line of ldd's output: name => path, name => not found,
// or a path alone (the interpreter, already loaded).
var lddLine = regexp.MustCompile(`^\s+(\S+)(?: => (not found|\S+))?(?: \(0x[0-9a-f]+\))?$`)

// lddPaths runs ldd on bin without the test's LD_* variables (the answer
// must not depend on them) and returns what it printed for each name:
// the path, or "" for not found. A line with no "=>" is keyed by its
// basename too.
func lddPaths(t *testing.T, bin string) map[string]string {
	t.Helper()
	ldd := needTool(t, "ldd")
	cmd := exec.Command(ldd, bin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ldd %s: %v\n%s", bin, err, out)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		g := lddLine.FindStringSubmatch(line)
		if g == nil {
			t.Fatalf("ldd line %q not understood", line)
		}
		switch g[2] {
		case "":
			m[filepath.Base(g[1])] = g[1]
		case "not found":
			m[g[1]] = ""
		default:
			m[g[1]] = g[2]
		}
	}
	return m
}

// checkAgainstLdd: the names are DT_NEEDED in order (debug/elf reads them
// from the section headers, independently of PT_DYNAMIC), and every
// candidate path is what ldd printed.
func checkAgainstLdd(t *testing.T, bin string, deps []provider.Dependency) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	needed, err := f.DynString(elf.DT_NEEDED)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range deps {
		names = append(names, d.Name)
		if d.Kind != "needed" || d.Resolved != nil {
			t.Errorf("%s: kind %q resolved %v", d.Name, d.Kind, d.Resolved)
		}
	}
	if !slices.Equal(names, needed) {
		t.Fatalf("names %q, DT_NEEDED %q", names, needed)
	}
	want := lddPaths(t, bin)
	for _, d := range deps {
		w, ok := want[d.Name]
		if !ok {
			t.Errorf("%s: ldd does not list it", d.Name)
			continue
		}
		got := ""
		if d.CandidatePath != nil {
			got = *d.CandidatePath
		} else if d.Reason == nil {
			t.Errorf("%s: no candidate and no reason", d.Name)
		}
		if got != w {
			t.Errorf("%s: candidate %q, ldd %q (search %+v)", d.Name, got, w, d.Search)
		}
	}
}

// TestDependenciesOfProgramEqualLdd builds a program linking two shared
// libraries it builds (liba calls libb and libc; the program finds them
// through RUNPATH $ORIGIN/lib, copies through DT_RPATH with ${ORIGIN} and
// $LIB and through RUNPATH $ORIGIN/p/$PLATFORM), and checks names and
// candidate paths against ldd.
func TestDependenciesOfProgramEqualLdd(t *testing.T) {
	gcc := needTool(t, "gcc")
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	libLIB := filepath.Join(dir, "lib", "x86_64-linux-gnu") // $LIB on Debian amd64
	for _, d := range []string{lib, libLIB} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b := write("b.c", "int depb(int x) { return x + 1; }\n")
	a := write("a.c", "#include <stdio.h>\nint depb(int);\nint depa(int x) { printf(\"a\\n\"); return depb(x) * 2; }\n")
	m := write("m.c", "#include <stdio.h>\nint depa(int); int depb(int);\nint main(void) { printf(\"%d\\n\", depa(1) + depb(2)); return 0; }\n")
	cc := func(args ...string) {
		t.Helper()
		if err := run(dir, nil, gcc, args...); err != nil {
			t.Fatal(err)
		}
	}
	cc("-shared", "-fPIC", "-o", filepath.Join(lib, "libdepb.so"), b)
	cc("-shared", "-fPIC", "-o", filepath.Join(lib, "libdepa.so"), a, "-L"+lib, "-ldepb", "-Wl,-rpath,$ORIGIN")
	for _, n := range []string{"libdepa.so", "libdepb.so"} {
		data, err := os.ReadFile(filepath.Join(lib, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(libLIB, n), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prog := filepath.Join(dir, "prog")
	cc("-o", prog, m, "-Wl,--no-as-needed", "-L"+lib, "-ldepa", "-ldepb", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib")
	// $PLATFORM: the libraries in a directory named as this host's
	// loader would name the platform; ldd disagrees if the name is wrong.
	plat, _ := abiOf(&elfDeps{machine: elf.EM_X86_64, class: elf.ELFCLASS64})
	libPlat := filepath.Join(dir, "p", plat.withHostPlatform().platform)
	os.MkdirAll(libPlat, 0o755)
	for _, n := range []string{"libdepa.so", "libdepb.so"} {
		data, _ := os.ReadFile(filepath.Join(lib, n))
		os.WriteFile(filepath.Join(libPlat, n), data, 0o755)
	}
	progP := filepath.Join(dir, "prog-platform")
	cc("-o", progP, m, "-Wl,--no-as-needed", "-L"+lib, "-ldepa", "-ldepb", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/p/$PLATFORM")
	depsP, _ := dependenciesOf(t, progP)
	checkAgainstLdd(t, progP, depsP)
	if c := depsP[0].CandidatePath; c == nil || *c != libPlat+"/libdepa.so" {
		t.Errorf("$PLATFORM candidate %v", c)
	}
	progR := filepath.Join(dir, "prog-rpath")
	cc("-o", progR, m, "-Wl,--no-as-needed", "-L"+lib, "-ldepa", "-ldepb", "-Wl,--disable-new-dtags,-rpath,$ORIGIN/missing:${ORIGIN}/$LIB")

	deps, _ := dependenciesOf(t, prog)
	checkAgainstLdd(t, prog, deps)
	if len(deps) != 3 || deps[0].Name != "libdepa.so" || deps[1].Name != "libdepb.so" || deps[2].Name != "libc.so.6" {
		t.Fatalf("dependencies %+v", deps)
	}
	if s := deps[0].Search; len(s) != 1 || s[0] != (provider.SearchStep{Path: lib + "/libdepa.so", Source: "runpath", Exists: true}) {
		t.Errorf("libdepa search %+v", s)
	}
	// libc: not in the RUNPATH directory, then the loader cache.
	if s := deps[2].Search; len(s) != 2 || s[0].Source != "runpath" || s[0].Exists || s[1].Source != "ld_so_cache" {
		t.Errorf("libc search %+v", s)
	}
	// Imports: libc's are versioned (GLIBC_2.2.5), the test libraries have
	// no versions, so nothing says which of them a symbol comes from.
	if deps[0].Imports != nil || deps[1].Imports != nil || deps[2].Imports == nil || *deps[2].Imports < 1 {
		t.Errorf("imports %v %v %v", deps[0].Imports, deps[1].Imports, deps[2].Imports)
	}

	depsR, _ := dependenciesOf(t, progR)
	checkAgainstLdd(t, progR, depsR)
	if s := depsR[0].Search; len(s) != 2 || s[0].Path != dir+"/missing/libdepa.so" || s[0].Source != "rpath" ||
		s[1] != (provider.SearchStep{Path: libLIB + "/libdepa.so", Source: "rpath", Exists: true}) {
		t.Errorf("RPATH search %+v", s)
	}

	// The library itself: libdepb through its RUNPATH $ORIGIN.
	depsA, _ := dependenciesOf(t, filepath.Join(lib, "libdepa.so"))
	checkAgainstLdd(t, filepath.Join(lib, "libdepa.so"), depsA)
}

// TestDependenciesOfDebianBinariesEqualLdd compares every entry of real
// Debian programs (the interpreter entry included) and a library with ldd.
func TestDependenciesOfDebianBinariesEqualLdd(t *testing.T) {
	for i, bin := range []string{"/usr/bin/gdb", "/usr/bin/node", "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			if i > 0 {
				skipShortCase(t, "reads "+bin+" (about 100 MB)")
			}
			t.Parallel()
			if _, err := os.Stat(bin); err != nil {
				if requireAll() {
					t.Fatal(err)
				}
				t.Skipf("%s is not installed", bin)
			}
			deps, _ := dependenciesOf(t, bin)
			checkAgainstLdd(t, bin, deps)
			if strings.Contains(bin, "/bin/") {
				last := deps[len(deps)-1]
				if last.Name != "ld-linux-x86-64.so.2" || last.Search[0].Source != "interpreter" {
					t.Errorf("interpreter entry %+v", last)
				}
			}
		})
	}
}

// TestDependenciesI386NeverAmd64: an i386 program's libc is never the
// host's amd64 one: the cache's amd64 entries do not match its ABI and the
// search is i386's.
func TestDependenciesI386NeverAmd64(t *testing.T) {
	bin := cFixture(t, "i686-dyn", "i686-linux-gnu-gcc", "-O0")
	deps, _ := dependenciesOf(t, bin)
	if len(deps) == 0 || deps[len(deps)-1].Name != "libc.so.6" {
		t.Fatalf("dependencies %+v", deps)
	}
	for _, d := range deps {
		for _, s := range d.Search {
			if strings.Contains(s.Path, "x86_64") {
				t.Errorf("%s: searched %s", d.Name, s.Path)
			}
		}
		if d.CandidatePath != nil {
			f, err := elf.Open(*d.CandidatePath)
			if err != nil {
				t.Fatal(err)
			}
			if f.Class != elf.ELFCLASS32 || f.Machine != elf.EM_386 {
				t.Errorf("%s resolves to %s, %v %v", d.Name, *d.CandidatePath, f.Class, f.Machine)
			}
			f.Close()
		}
	}
	libc := deps[len(deps)-1]
	if !slices.ContainsFunc(libc.Search, func(s provider.SearchStep) bool { return s.Path == "/lib/i386-linux-gnu/libc.so.6" }) {
		t.Errorf("libc search %+v lacks the i386 multiarch directory", libc.Search)
	}
}

// TestRunpathOverridesRpath: with both tags the loader ignores DT_RPATH;
// DF_1_NODEFLIB skips the default directories.
func TestRunpathOverridesRpath(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"r", "u"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	self, err := os.ReadFile("/proc/self/exe") // an x86_64 ELF object... of type EXEC or DYN, either is loadable here
	if err != nil {
		t.Skip(err)
	}
	os.WriteFile(filepath.Join(dir, "r", "libx.so"), self, 0o644)
	os.WriteFile(filepath.Join(dir, "u", "libx.so"), self, 0o644)
	rp, up := "$ORIGIN/r", "$ORIGIN/u"
	d := &elfDeps{class: elf.ELFCLASS64, data: elf.ELFDATA2LSB, machine: elf.EM_X86_64, typ: elf.ET_EXEC,
		needed: []string{"libx.so", "libnone.so.9"}, rpath: &rp, runpath: &up}
	h := &hostLoader{cachePath: filepath.Join(dir, "no-cache")}
	deps, lims, err := d.resolve(t.Context(), filepath.Join(dir, "prog"), h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := deps[0].CandidatePath; got == nil || *got != dir+"/u/libx.so" {
		t.Errorf("libx candidate %v (search %+v)", got, deps[0].Search)
	}
	if !slices.Contains(lims, "DT_RPATH is ignored because DT_RUNPATH is present, as the loader ignores it") {
		t.Errorf("limitations %q", lims)
	}
	n := deps[1]
	if n.CandidatePath != nil || n.Reason == nil || *n.Reason != depNotFound || n.Search[len(n.Search)-1].Path != "/usr/lib/libnone.so.9" {
		t.Errorf("missing library %+v", n)
	}
	d.nodeflib = true
	deps, _, _ = d.resolve(t.Context(), filepath.Join(dir, "prog"), h, nil)
	if s := deps[1].Search; len(s) != 1 || s[0].Source != "runpath" {
		t.Errorf("NODEFLIB search %+v", s)
	}
	d.runpath = nil
	deps, _, _ = d.resolve(t.Context(), filepath.Join(dir, "prog"), h, nil)
	if got := deps[0].CandidatePath; got == nil || *got != dir+"/r/libx.so" {
		t.Errorf("RPATH alone: candidate %v", got)
	}
}

func TestExpandDST(t *testing.T) {
	a := elfABI{triplet: "x86_64-linux-gnu", platform: "x86_64"}
	for _, c := range []struct{ in, want string }{
		{"$ORIGIN/lib", "/o/lib"},
		{"${ORIGIN}/../$LIB", "/o/../lib/x86_64-linux-gnu"},
		{"/p/$PLATFORM/x", "/p/x86_64/x"},
		{"/p/${PLATFORM}x", "/p/x86_64x"},
		{"/p/$ORIGINX", "/p/$ORIGINX"}, // not a token: kept
		{"/p/$", "/p/$"},
		{"/p/${LIB", "/p/${LIB"},
	} {
		got, _, ok := expandDST(c.in, "/o", a)
		if !ok || got != c.want {
			t.Errorf("%q -> %q %v, want %q", c.in, got, ok, c.want)
		}
	}
	if _, _, ok := expandDST("$ORIGIN/x", "", a); ok {
		t.Error("an unknown origin must drop the element")
	}
}

// TestDependenciesMingwBesideExe: import and delay-load DLLs with their
// import counts; a DLL beside the EXE is found without regard to case.
func TestDependenciesMingwBesideExe(t *testing.T) {
	gcc := needTool(t, "x86_64-w64-mingw32-gcc")
	dlltool := needTool(t, "x86_64-w64-mingw32-dlltool")
	nm := needTool(t, "x86_64-w64-mingw32-nm")
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	d := write("d.c", "__declspec(dllexport) int dfun(int x) { return x + 1; }\n__declspec(dllexport) int dfun2(int x) { return x + 2; }\n")
	e := write("e.c", "__declspec(dllexport) int efun(int x) { return x * 2; }\n")
	m := write("m.c", "#include <stdio.h>\nint dfun(int); int dfun2(int); int efun(int);\nint main(void) { printf(\"%d\\n\", dfun(1) + dfun2(2) + efun(3)); return 0; }\n")
	for _, args := range [][]string{
		{gcc, "-shared", "-o", "depd.dll", d},
		{gcc, "-shared", "-o", "depe.dll", e, "-Wl,--output-def,depe.def"},
		{dlltool, "--input-def", "depe.def", "--dllname", "depe.dll", "--output-delaylib", "libdepe_delay.a"},
		{gcc, "-o", "app.exe", m, "depd.dll", "-L.", "-ldepe_delay"},
	} {
		if err := run(dir, nil, args[0], args[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "app.exe")
	exeDir := filepath.Join(dir, "patched")
	os.MkdirAll(exeDir, 0o755)
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	patched := filepath.Join(exeDir, "app.exe")
	os.WriteFile(patched, b, 0o755)
	// GNU ld leaves the delay-load data directory empty (the delay helper
	// reads the descriptor directly): as built, the descriptor is found
	// from its COFF symbol; in the patched copy the directory points at it
	// as Microsoft's linker writes it.
	setDelayDirectory(t, patched, nm)
	// The file system's name differs in case from the import's.
	if err := os.Rename(filepath.Join(dir, "depd.dll"), filepath.Join(dir, "DEPD.DLL")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "depe.dll"))
	checkMingwDependencies(t, exe, dir, true)
	checkMingwDependencies(t, patched, exeDir, false)
}

func checkMingwDependencies(t *testing.T, exe, dir string, fromSymbols bool) {
	t.Helper()
	deps, lims := dependenciesOf(t, exe)
	const viaSymbols = "the delay-load directory is empty (as GNU ld leaves it); delay-loaded DLLs are read from the descriptors the COFF symbols __DELAY_IMPORT_DESCRIPTOR_* name"
	if slices.Contains(lims, viaSymbols) != fromSymbols {
		t.Errorf("limitations %q", lims)
	}
	byName := map[string]provider.Dependency{}
	var names []string
	for _, dep := range deps {
		byName[dep.Name] = dep
		names = append(names, dep.Kind+":"+dep.Name)
	}
	want := []string{"import:KERNEL32.dll", "import:msvcrt.dll", "import:depd.dll", "delay_import:depe.dll"}
	if !slices.Equal(names, want) {
		t.Fatalf("dependencies %q, want %q", names, want)
	}
	dd := byName["depd.dll"]
	if fromSymbols {
		if dd.CandidatePath == nil || *dd.CandidatePath != dir+"/DEPD.DLL" || dd.Search[0].Source != "same_directory" || !dd.Search[0].Exists {
			t.Errorf("depd.dll %+v", dd)
		}
	} else if dd.CandidatePath != nil || *dd.Reason != depNoHostLoader || dd.Search[0].Path != dir+"/depd.dll" {
		t.Errorf("depd.dll, not beside the copy: %+v", dd)
	}
	if dd.Imports == nil || *dd.Imports != 2 {
		t.Errorf("depd.dll imports %v", dd.Imports)
	}
	de := byName["depe.dll"]
	if de.CandidatePath != nil || de.Reason == nil || *de.Reason != depNoHostLoader || de.Imports == nil || *de.Imports != 1 {
		t.Errorf("depe.dll %+v", de)
	}
	k := byName["KERNEL32.dll"]
	if k.CandidatePath != nil || *k.Reason != depNoHostLoader || k.Imports == nil || *k.Imports < 1 {
		t.Errorf("KERNEL32.dll %+v", k)
	}
}

// setDelayDirectory writes the RVA and size of the mingw delay-import
// descriptor into data directory 13 of a PE32+ file.
func setDelayDirectory(t *testing.T, exe, nm string) {
	t.Helper()
	out, err := exec.Command(nm, exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	var va uint64
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 && strings.HasPrefix(f[2], "__DELAY_IMPORT_DESCRIPTOR_") {
			va, err = strconv.ParseUint(f[0], 16, 64)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if va == 0 {
		t.Fatal("no delay-import descriptor symbol")
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	opt := binary.LittleEndian.Uint32(b[0x3c:]) + 24
	if binary.LittleEndian.Uint16(b[opt:]) != 0x20b {
		t.Fatal("not PE32+")
	}
	base := binary.LittleEndian.Uint64(b[opt+24:])
	dd := opt + 112 + 13*8
	binary.LittleEndian.PutUint32(b[dd:], uint32(va-base))
	binary.LittleEndian.PutUint32(b[dd+4:], 32)
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestDependenciesGoDarwin: a Go darwin binary's dylibs are listed with no
// candidate and a typed reason (macOS system libraries are not on this
// host), and their imports counted by library ordinal.
func TestDependenciesGoDarwin(t *testing.T) {
	bin := goFixture(t, "darwin", "amd64")
	deps, lims := dependenciesOf(t, bin)
	if len(deps) == 0 || deps[0].Name != "/usr/lib/libSystem.B.dylib" {
		t.Fatalf("dependencies %+v", deps)
	}
	// Go's linker writes no MH_TWOLEVEL: dyld looks every import up in
	// every image (flat namespace), so no import names a library.
	if !slices.Contains(lims, "the image uses a flat namespace: its imports name no library, so import counts are null") {
		t.Errorf("limitations %q", lims)
	}
	for _, d := range deps {
		if d.Kind != "load_dylib" || d.CandidatePath != nil || d.Reason == nil || *d.Reason != depNoHostLoader {
			t.Errorf("%+v", d)
		}
		if d.Search[0] != (provider.SearchStep{Path: d.Name, Source: "default", Exists: false}) || d.Search[1].Source != "same_directory" {
			t.Errorf("%s search %+v", d.Name, d.Search)
		}
		if d.Imports != nil {
			t.Errorf("%s: imports %d in a flat-namespace image", d.Name, *d.Imports)
		}
	}
}

// machoWithDylibs builds a minimal 64-bit x86_64 MH_EXECUTE (two-level)
// with the given load commands.
func machoWithDylibs(cmds ...[]byte) []byte {
	var lc []byte
	for _, c := range cmds {
		lc = append(lc, c...)
	}
	h := make([]byte, 32)
	le := binary.LittleEndian
	le.PutUint32(h[0:], 0xfeedfacf)
	le.PutUint32(h[4:], 0x01000007) // x86_64
	le.PutUint32(h[8:], 3)
	le.PutUint32(h[12:], mhExecute)
	le.PutUint32(h[16:], uint32(len(cmds)))
	le.PutUint32(h[20:], uint32(len(lc)))
	le.PutUint32(h[24:], mhTwoLevel)
	return append(h, lc...)
}

// machoStrCmd is a load command of a fixed header of hdr bytes (name
// offset at 8) followed by s, padded to 8.
func machoStrCmd(cmd uint32, hdr int, s string) []byte {
	n := (hdr + len(s) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b[0:], cmd)
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	binary.LittleEndian.PutUint32(b[8:], uint32(hdr))
	copy(b[hdr:], s)
	return b
}

// TestDependenciesMachORpath: @rpath through LC_RPATH (@executable_path),
// @loader_path, weak and re-exported dylibs, and @rpath without a run path.
func TestDependenciesMachORpath(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "Frameworks"), 0o755)
	os.WriteFile(filepath.Join(dir, "Frameworks", "libx.dylib"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "liby.dylib"), []byte("y"), 0o644)
	cmds := [][]byte{
		machoStrCmd(lcRpath, 12, "@executable_path/Frameworks"),
		machoStrCmd(lcLoadDylib, 24, "@rpath/libx.dylib"),
		machoStrCmd(lcLoadWeakDylib, 24, "@loader_path/liby.dylib"),
		machoStrCmd(lcReexportDylib, 24, "/usr/lib/libz.1.dylib"),
		make([]byte, 24), // LC_SYMTAB, filled below
	}
	// Three undefined symbols: two from ordinal 1 (libx), one from 3 (libz),
	// and one dynamic-lookup symbol.
	size := 32
	for _, c := range cmds {
		size += len(c)
	}
	strtab := []byte("\x00_a\x00_b\x00_c\x00_d\x00")
	var syms []byte
	for i, ord := range []uint16{1, 1, 3, 0xff} {
		e := make([]byte, 16)
		binary.LittleEndian.PutUint32(e[0:], uint32(1+3*i))
		e[4] = nUndf | nExt
		binary.LittleEndian.PutUint16(e[6:], ord<<8)
		syms = append(syms, e...)
	}
	st := cmds[4]
	binary.LittleEndian.PutUint32(st[0:], 0x2)
	binary.LittleEndian.PutUint32(st[4:], 24)
	binary.LittleEndian.PutUint32(st[8:], uint32(size))
	binary.LittleEndian.PutUint32(st[12:], 4)
	binary.LittleEndian.PutUint32(st[16:], uint32(size+len(syms)))
	binary.LittleEndian.PutUint32(st[20:], uint32(len(strtab)))
	data := append(append(machoWithDylibs(cmds...), syms...), strtab...)
	bin := filepath.Join(dir, "app")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	img, err := parseImage(data)
	if err != nil {
		t.Fatal(err)
	}
	deps, _ := machoDependencies(img, data, bin)
	if len(deps) != 3 {
		t.Fatalf("%+v", deps)
	}
	x, y, z := deps[0], deps[1], deps[2]
	if x.Kind != "load_dylib" || x.CandidatePath == nil || *x.CandidatePath != dir+"/Frameworks/libx.dylib" || x.Search[0].Source != "rpath" {
		t.Errorf("@rpath %+v", x)
	}
	if y.Kind != "weak_dylib" || y.CandidatePath == nil || *y.CandidatePath != dir+"/liby.dylib" || y.Search[0].Source != "origin" {
		t.Errorf("@loader_path %+v", y)
	}
	if z.Kind != "reexport_dylib" || z.CandidatePath != nil || *z.Reason != depNoHostLoader {
		t.Errorf("absolute %+v", z)
	}
	if x.Imports == nil || *x.Imports != 2 || *y.Imports != 0 || *z.Imports != 1 {
		t.Errorf("imports by ordinal: %v %v %v", x.Imports, y.Imports, z.Imports)
	}
	// No LC_RPATH: @rpath cannot be expanded.
	data = machoWithDylibs(machoStrCmd(lcLoadDylib, 24, "@rpath/libq.dylib"))
	img, err = parseImage(data)
	if err != nil {
		t.Fatal(err)
	}
	deps, _ = machoDependencies(img, data, bin)
	if len(deps) != 1 || deps[0].Reason == nil || *deps[0].Reason != depUnexpandedToken || deps[0].Search[0].Source != "same_directory" {
		t.Errorf("@rpath without LC_RPATH %+v", deps)
	}
}

// ---- ld.so.cache ----

// buildLdCache writes a new-format cache of entries (Subdir names a
// glibc-hwcaps subdirectory) with an extension when subdirs are given.
func buildLdCache(entries []ldCacheEntry, subdirs []string) []byte {
	le := binary.LittleEndian
	strBase := uint32(ldCacheHeaderSize + len(entries)*ldCacheEntrySize)
	var strs []byte
	add := func(s string) uint32 {
		o := strBase + uint32(len(strs))
		strs = append(append(strs, s...), 0)
		return o
	}
	body := make([]byte, 0, strBase)
	var ents []byte
	for _, e := range entries {
		b := make([]byte, ldCacheEntrySize)
		le.PutUint32(b[0:], uint32(e.Flags))
		le.PutUint32(b[4:], add(e.Name))
		le.PutUint32(b[8:], add(e.Path))
		hw := e.Hwcap
		if e.Subdir != "" {
			hw = ldCacheHwcapExt | uint64(slices.Index(subdirs, e.Subdir))
		}
		le.PutUint64(b[16:], hw)
		ents = append(ents, b...)
	}
	subOffs := make([]uint32, len(subdirs))
	for i, s := range subdirs {
		subOffs[i] = add(s)
	}
	h := make([]byte, ldCacheHeaderSize)
	copy(h, ldCacheMagicNew)
	le.PutUint32(h[20:], uint32(len(entries)))
	le.PutUint32(h[24:], uint32(len(strs)))
	h[28] = 2
	body = append(append(append(body, h...), ents...), strs...)
	if len(subdirs) > 0 {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		ext := uint32(len(body))
		le.PutUint32(body[32:], ext)
		sec := ext + 8 + 16
		x := make([]byte, 8+16)
		le.PutUint32(x[0:], ldCacheExtMagic)
		le.PutUint32(x[4:], 1)
		le.PutUint32(x[8:], 1)
		le.PutUint32(x[16:], sec)
		le.PutUint32(x[20:], uint32(4*len(subdirs)))
		body = append(body, x...)
		for _, o := range subOffs {
			body = le.AppendUint32(body, o)
		}
	}
	return body
}

func sampleLdCache() []ldCacheEntry {
	return []ldCacheEntry{
		{Flags: ldFlagX8664Lib64 | ldFlagELFLibc6, Name: "libfoo.so.1", Path: "/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libfoo.so.1", Subdir: "x86-64-v3"},
		{Flags: ldFlagX8664Lib64 | ldFlagELFLibc6, Name: "libfoo.so.1", Path: "/lib/x86_64-linux-gnu/libfoo.so.1"},
		{Flags: ldFlagELFLibc6, Name: "libfoo.so.1", Path: "/lib/i386-linux-gnu/libfoo.so.1"},
		{Flags: ldFlagAArch64Lib64 | ldFlagELFLibc6, Name: "libfoo.so.1", Path: "/lib/aarch64-linux-gnu/libfoo.so.1"},
	}
}

func TestLdCacheLookupMatchesABI(t *testing.T) {
	c, err := parseLdCache(buildLdCache(sampleLdCache(), []string{"x86-64-v3"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 4 || c.Entries[0].Subdir != "x86-64-v3" || c.Entries[1].Subdir != "" {
		t.Fatalf("%+v", c.Entries)
	}
	for _, tc := range []struct {
		d    elfDeps
		want string
	}{
		{elfDeps{machine: elf.EM_X86_64, class: elf.ELFCLASS64}, "/lib/x86_64-linux-gnu/libfoo.so.1"},
		{elfDeps{machine: elf.EM_386, class: elf.ELFCLASS32}, "/lib/i386-linux-gnu/libfoo.so.1"},
		{elfDeps{machine: elf.EM_AARCH64, class: elf.ELFCLASS64}, "/lib/aarch64-linux-gnu/libfoo.so.1"},
		{elfDeps{machine: elf.EM_ARM, class: elf.ELFCLASS32, flags: 0x5000400}, "/lib/i386-linux-gnu/libfoo.so.1"}, // plain libc6 entries are accepted by arm
	} {
		a, _ := abiOf(&tc.d)
		e, hw := c.lookup("libfoo.so.1", func(f int32) bool { return slices.Contains(a.accept, f) })
		if e == nil || e.Path != tc.want {
			t.Errorf("%v: %+v, want %s", tc.d.machine, e, tc.want)
		}
		if hw != (tc.d.machine == elf.EM_X86_64) {
			t.Errorf("%v: hwcaps %v", tc.d.machine, hw)
		}
	}
	if e, _ := c.lookup("libbar.so", func(int32) bool { return true }); e != nil {
		t.Errorf("unknown name found %+v", e)
	}
}

// TestLdCacheHostEqualsLdconfig parses this host's /etc/ld.so.cache and
// compares every entry with `ldconfig -p`.
func TestLdCacheHostEqualsLdconfig(t *testing.T) {
	b, err := os.ReadFile(ldCachePath)
	if err != nil {
		t.Skipf("%s: %v", ldCachePath, err)
	}
	ldconfig, err := exec.LookPath("ldconfig")
	if err != nil {
		ldconfig = "/sbin/ldconfig"
		if _, err := os.Stat(ldconfig); err != nil {
			t.Skip("ldconfig is not installed")
		}
	}
	c, err := parseLdCache(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ldconfig, "-p").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if want := strconv.Itoa(len(c.Entries)) + " libs found"; !strings.HasPrefix(lines[0], want) {
		t.Fatalf("ldconfig says %q, parsed %d entries", lines[0], len(c.Entries))
	}
	var entries []string
	for _, line := range lines[1:] {
		if strings.HasPrefix(line, "\t") {
			entries = append(entries, line)
		}
	}
	if len(entries) != len(c.Entries) {
		t.Fatalf("ldconfig -p lists %d entries, parsed %d", len(entries), len(c.Entries))
	}
	for i, line := range entries {
		name, rest, _ := strings.Cut(strings.TrimSpace(line), " (")
		_, p, _ := strings.Cut(rest, ") => ")
		if e := c.Entries[i]; e.Name != name || e.Path != p {
			t.Fatalf("entry %d: parsed %q => %q, ldconfig %q", i, e.Name, e.Path, line)
		}
	}
	t.Logf("%d entries equal ldconfig -p", len(c.Entries))
}

func TestLdCacheMalformed(t *testing.T) {
	good := buildLdCache(sampleLdCache(), []string{"x86-64-v3"})
	le := binary.LittleEndian
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for name, b := range map[string][]byte{
		"empty":          {},
		"bad magic":      []byte("glibc-ld.so.cache1.0" + strings.Repeat("\x00", 40)),
		"short header":   good[:40],
		"entries cut":    good[:ldCacheHeaderSize+30],
		"huge count":     mutate(func(b []byte) []byte { le.PutUint32(b[20:], 1<<30); return b }),
		"invalid endian": mutate(func(b []byte) []byte { b[28] = 1; return b }),
		"string outside": mutate(func(b []byte) []byte { le.PutUint32(b[ldCacheHeaderSize+4:], 1<<20); return b }),
		"unterminated":   good[:len(good)-len("x86-64-v3")-1-4],
		"ext outside":    mutate(func(b []byte) []byte { le.PutUint32(b[32:], uint32(len(b))+4); return b }),
		"ext magic":      mutate(func(b []byte) []byte { le.PutUint32(b[le.Uint32(b[32:]):], 1); return b }),
		"hwcap index":    mutate(func(b []byte) []byte { b[ldCacheHeaderSize+16] = 7; return b }),
		"old only":       append([]byte("ld.so-1.7.0\x00"), 0, 0, 0, 0),
	} {
		_, err := parseLdCache(b)
		var ce *LdCacheError
		if !errors.As(err, &ce) || ce.Reason == "" {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An old-format cache followed by the new one.
	old := append([]byte("ld.so-1.7.0\x00"), 1, 0, 0, 0)
	old = append(old, make([]byte, 12+4)...) // one 12-byte entry, padding to 8
	c, err := parseLdCache(append(old, good...))
	if err != nil || len(c.Entries) != 4 {
		t.Errorf("old+new: %v %v", c, err)
	}
}

// FuzzLdCache: any bytes parse or give an *LdCacheError, never a panic;
// a parsed cache answers lookups. Seeds: testdata/fuzz/FuzzLdCache.
func FuzzLdCache(f *testing.F) {
	f.Add(buildLdCache(sampleLdCache(), []string{"x86-64-v3"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseLdCache(b)
		if err != nil {
			var ce *LdCacheError
			if !errors.As(err, &ce) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, e := range c.Entries {
			c.lookup(e.Name, func(int32) bool { return true })
		}
	})
}

// TestWriteLdCacheSeeds writes the FuzzLdCache seeds when
// REA_WRITE_FUZZ_SEEDS=1.
func TestWriteLdCacheSeeds(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate testdata/fuzz/FuzzLdCache")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzLdCache")
	os.MkdirAll(dir, 0o755)
	old := append([]byte("ld.so-1.7.0\x00"), 1, 0, 0, 0)
	old = append(old, make([]byte, 16)...)
	for name, b := range map[string][]byte{
		"seed-hwcaps":  buildLdCache(sampleLdCache(), []string{"x86-64-v3"}),
		"seed-plain":   buildLdCache(sampleLdCache()[1:], nil),
		"seed-old-new": append(old, buildLdCache(sampleLdCache()[1:2], nil)...),
	} {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzDependencies: any bytes the header parser accepts give a dependency
// list, never a panic or an error, and every item keeps the invariants: a
// candidate is one of its search steps that exists and has no reason; no
// candidate has a reason. Seeds: FuzzOpen's corpus (ELF, PE, Mach-O), its
// x86-64 programs again with interpreters that are devices, the server's
// stdin or a directory, and a synthetic Mach-O with run paths.
func FuzzDependencies(f *testing.F) {
	ents, _ := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzOpen"))
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzOpen", e.Name()))
		if err != nil {
			continue
		}
		s := strings.TrimSpace(strings.TrimPrefix(string(b), "go test fuzz v1\n"))
		if q, ok := strings.CutPrefix(s, "[]byte("); ok {
			if v, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
				f.Add([]byte(v))
				// The same program with an interpreter REA must not read
				// (CONTRACTS.md §0.3): each answers at once.
				const std = "/lib64/ld-linux-x86-64.so.2\x00"
				if i := bytes.Index([]byte(v), []byte(std)); i >= 0 {
					for _, hostile := range []string{"/dev/zero", "/dev/stdin", "/proc/self/fd/0", "/dev/urandom", "/tmp"} {
						b := bytes.Clone([]byte(v))
						copy(b[i:i+len(std)], make([]byte, len(std)))
						copy(b[i:], hostile)
						f.Add(b)
					}
				}
			}
		}
	}
	f.Add(machoWithDylibs(machoStrCmd(lcRpath, 12, "@loader_path/x"), machoStrCmd(lcLoadDylib, 24, "@rpath/liba.dylib"),
		machoStrCmd(lcLoadUpwardDylib, 24, "@executable_path/b.dylib")))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := parseImage(data)
		if err != nil {
			return
		}
		c := &Client{path: "/nonexistent-rea-fuzz/target", ix: &index{img: img}, data: img.data(data)}
		deps, _, err := c.dependencies(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(deps); err != nil {
			t.Fatal(err)
		}
		for _, d := range deps {
			if d.Search == nil {
				t.Fatalf("%+v: search is nil", d)
			}
			if d.CandidatePath == nil {
				if d.Reason == nil {
					t.Fatalf("%+v: neither candidate nor reason", d)
				}
				continue
			}
			if d.Reason != nil || !slices.ContainsFunc(d.Search, func(s provider.SearchStep) bool { return s.Path == *d.CandidatePath && s.Exists }) {
				t.Fatalf("%+v: the candidate is not an existing search step", d)
			}
		}
	})
}
