package builtin

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

func toolOutput(t testing.TB, name string, args ...string) string {
	t.Helper()
	needTool(t, name)
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

func hexAddr(t testing.TB, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		t.Fatalf("bad hex %q", s)
	}
	return v
}

// nmAddrs runs nm (or `go tool nm`) and returns defined symbol addresses by name.
func nmAddrs(t testing.TB, nmCmd []string, path string) map[string][]uint64 {
	t.Helper()
	args := append(append([]string{}, nmCmd[1:]...), path)
	out := toolOutput(t, nmCmd[0], args...)
	m := map[string][]uint64{}
	for _, ln := range strings.Split(out, "\n") {
		f := strings.Fields(ln)
		if len(f) < 3 || f[1] == "U" {
			continue
		}
		v, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			continue
		}
		name := strings.Join(f[2:], " ")
		m[name] = append(m[name], v)
	}
	return m
}

// readelfFuncs returns the defined FUNC symbols readelf lists, as "addr name".
func readelfFuncs(t testing.TB, path string, arm bool) map[string]bool {
	out := toolOutput(t, "readelf", "-sW", path)
	set := map[string]bool{}
	for _, ln := range strings.Split(out, "\n") {
		f := strings.Fields(ln)
		if len(f) < 8 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		if f[3] != "FUNC" && f[3] != "IFUNC" || f[6] == "UND" || f[6] == "ABS" {
			continue
		}
		v, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil || v == 0 {
			continue
		}
		if arm {
			v &^= 1
		}
		name := f[7]
		if i := strings.IndexByte(name, '@'); i > 0 {
			name = name[:i]
		}
		set[provider.FormatAddress(v)+" "+name] = true
	}
	return set
}

type loadSeg struct {
	off, vaddr, filesz, memsz uint64
	flags                     string
}

func readelfLoads(t testing.TB, path string) []loadSeg {
	out := toolOutput(t, "readelf", "-lW", path)
	var segs []loadSeg
	for _, ln := range strings.Split(out, "\n") {
		f := strings.Fields(ln)
		if len(f) < 8 || f[0] != "LOAD" {
			continue
		}
		p := func(s string) uint64 { return hexAddr(t, s) }
		segs = append(segs, loadSeg{off: p(f[1]), vaddr: p(f[2]), filesz: p(f[4]), memsz: p(f[5]),
			flags: strings.Join(f[6:len(f)-1], "")})
	}
	return segs
}

var sectionLine = regexp.MustCompile(`^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s+\d+\s+\d+\s+\d+$`)

type elfSec struct {
	name, typ, flags string
	addr, size       uint64
}

func readelfSections(t testing.TB, path string) []elfSec {
	out := toolOutput(t, "readelf", "-SW", path)
	var secs []elfSec
	for _, ln := range strings.Split(out, "\n") {
		m := sectionLine.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		secs = append(secs, elfSec{name: m[1], typ: m[2], addr: hexAddr(t, m[3]), size: hexAddr(t, m[4]), flags: m[5]})
	}
	return secs
}

// checkELFSegments compares list_segments with readelf's program and section headers.
func checkELFSegments(t *testing.T, c provider.Client, path string) {
	segs := do(t, c, provider.OpListSegments, nil).Normalized.([]provider.Segment)
	loads := readelfLoads(t, path)
	secs := readelfSections(t, path)
	if len(segs) != len(loads) {
		t.Fatalf("segments: got %d, readelf has %d LOAD", len(segs), len(loads))
	}
	for i, l := range loads {
		s := segs[i]
		if s.Start != provider.FormatAddress(l.vaddr) || s.End != provider.FormatAddress(l.vaddr+l.memsz) {
			t.Errorf("segment %d: %s-%s, readelf %#x+%#x", i, s.Start, s.End, l.vaddr, l.memsz)
		}
		if s.Readable != strings.Contains(l.flags, "R") || s.Writable != strings.Contains(l.flags, "W") ||
			s.Executable == nil || *s.Executable != strings.Contains(l.flags, "E") {
			t.Errorf("segment %d flags: %+v vs %q", i, s, l.flags)
		}
		var want []string
		for _, sc := range secs {
			if !strings.Contains(sc.flags, "A") || sc.size == 0 || sc.typ == "NOBITS" && strings.Contains(sc.flags, "T") {
				continue
			}
			if sc.addr >= l.vaddr && sc.addr+sc.size <= l.vaddr+l.memsz {
				want = append(want, sc.name)
			}
		}
		var got []string
		for _, sc := range s.Sections {
			got = append(got, sc.Name)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("segment %d sections:\n got %v\nwant %v", i, got, want)
		}
	}
}

// checkStringParity compares the ASCII and UTF-16LE string counts with
// `strings -a` (and `-el`) run on exactly the mapped file ranges.
func checkStringParity(t *testing.T, c provider.Client, path string, loads []loadSeg) {
	needTool(t, "strings")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var prevEnd uint64
	for _, l := range loads {
		if l.off < prevEnd {
			t.Skip("overlapping LOAD file ranges; parity is not defined")
		}
		buf.Write(data[l.off : l.off+min(l.filesz, l.memsz)])
		buf.WriteByte(0)
		prevEnd = l.off + l.filesz
	}
	tmp := t.TempDir() + "/mapped.bin"
	os.WriteFile(tmp, buf.Bytes(), 0o644)
	count := func(args ...string) int {
		out := toolOutput(t, "strings", append(args, tmp)...)
		return strings.Count(out, "\n")
	}
	wantASCII, wantUTF16 := count("-a"), count("-a", "-el")
	var gotASCII, gotUTF16 int
	for _, s := range allStrings(t, c) {
		if s.String.Encoding == "ascii" {
			gotASCII++
		} else {
			gotUTF16++
		}
	}
	if gotASCII != wantASCII || gotUTF16 != wantUTF16 {
		t.Errorf("string counts: ascii %d utf16 %d; strings -a on mapped ranges: %d %d", gotASCII, gotUTF16, wantASCII, wantUTF16)
	}
}

func procAt(ps []provider.ProcedureItem, name string) []string {
	var out []string
	for _, p := range ps {
		if p.Value == name {
			out = append(out, p.Address)
		}
	}
	return out
}

func findString(ss []provider.StringItem, value string) *provider.StringItem {
	for i := range ss {
		if ss[i].Value == value {
			return &ss[i]
		}
	}
	return nil
}

// checkCFixtureELF asserts the facts of fixtureC compiled for ELF.
func checkCFixtureELF(t *testing.T, path string, stripped bool, arm bool, objdump string) {
	_, _, c := open(t, path)
	if d := do(t, c, provider.OpListDocuments, nil).Normalized.([]string); len(d) != 1 || d[0] != baseName(path) {
		t.Fatalf("documents %v", d)
	}
	procs := allProcedures(t, c)
	names := allNames(t, c)
	checkSorted(t, procs, names)

	// Every defined FUNC symbol readelf lists is a procedure at its address, and
	// every non-external, non-synthetic procedure is such a symbol.
	want := readelfFuncs(t, path, arm)
	got := map[string]bool{}
	for _, p := range procs {
		if stripped && (strings.HasPrefix(p.Value, "sub_") || p.Value == "main" || p.Value == "_init" || p.Value == "_fini") {
			continue // found by .eh_frame, init arrays, DT_INIT/DT_FINI or call targets (TestStrippedRecall), or _start (TestMainStrippedELF)
		}
		if !p.Procedure.External && !strings.HasSuffix(p.Value, "@plt") && p.Value != "entry" { // a jump thunk (aarch64 frame_dummy: b register_tm_clones) is a FUNC symbol
			got[p.Address+" "+p.Value] = true
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("procedure %s missing", k)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("unexpected procedure %s", k)
		}
	}

	if !stripped {
		nm := nmAddrs(t, []string{"nm", "--defined-only"}, path)
		for _, fn := range []string{"main", "rea_add", "rea_mul", "rea_static_helper"} {
			a := procAt(procs, fn)
			if arm && len(nm[fn]) == 1 {
				nm[fn][0] &^= 1 // Thumb functions: nm shows the interworking bit
			}
			if len(nm[fn]) != 1 || len(a) != 1 || a[0] != provider.FormatAddress(nm[fn][0]) {
				t.Errorf("%s: procedures %v, nm %x", fn, a, nm[fn])
			}
		}
		// main's names: list_names with address filter.
		r := do(t, c, provider.OpListNames, provider.Params{"address": provider.FormatAddress(nm["main"][0])})
		pg := r.Normalized.(provider.Page[provider.NameItem])
		if pg.Returned != 1 || pg.Items[0].Value != "main" || !pg.Items[0].Symbol.Primary || pg.Items[0].Symbol.Type != "function" ||
			pg.Items[0].Symbol.Source != "default" || pg.Items[0].Symbol.External {
			t.Errorf("names at main: %+v", pg.Items)
		}
		// The global object and the string constants.
		ss := allStrings(t, c)
		banner := findString(ss, "REA fixture banner string")
		if banner == nil || banner.Address != provider.FormatAddress(nm["rea_banner"][0]) || banner.String.Section == nil ||
			*banner.String.Section != ".rodata" || banner.String.Encoding != "ascii" ||
			banner.String.Termination != "present_or_not_required" || banner.String.ByteLength != 25 {
			t.Errorf("banner string: %+v", banner)
		}
		wide := findString(ss, "REA wide text")
		if wide == nil || wide.Address != provider.FormatAddress(nm["rea_wide"][0]) || wide.String.Encoding != "utf-16le" ||
			wide.String.ByteLength != 26 || wide.String.Termination != "present_or_not_required" {
			t.Errorf("wide string: %+v", wide)
		}
		var obj *provider.NameItem
		for i := range names {
			if names[i].Value == "rea_global_counter" {
				obj = &names[i]
			}
		}
		if obj == nil || obj.Address != provider.FormatAddress(nm["rea_global_counter"][0]) || obj.Symbol.Type != "object" {
			t.Errorf("global object name: %+v", obj)
		}
	} else {
		// Stripped: main's symbol is gone, and main is named from _start
		// (source analysis); the entry point is a procedure.
		for _, n := range names {
			if n.Value == "main" && n.Symbol.Source != "analysis" {
				t.Errorf("stripped binary has a main symbol: %+v", n)
			}
		}
		if len(procAt(procs, "main")) != 1 {
			t.Errorf("stripped binary: main is not named from _start")
		}
		f, _ := os.ReadFile(path)
		img, _ := parseImage(f)
		if a := procAt(procs, "entry"); len(a) != 1 || a[0] != provider.FormatAddress(img.entry) {
			t.Errorf("entry procedure %v, e_entry %#x", a, img.entry)
		}
	}
	s := findString(allStrings(t, c), "REA says hello %d")
	if s == nil || s.String.Termination != "missing" {
		t.Errorf("format string: %+v", s)
	}

	// Import stubs: objdump names them puts@plt etc.; so does REA, with the
	// import's bare name as an alias.
	if objdump != "" {
		if _, err := exec.LookPath(objdump); err == nil {
			out := toolOutput(t, objdump, "-d", "-j", ".plt", "-j", ".plt.sec", path)
			re := regexp.MustCompile(`(?m)^([0-9a-f]+) <([A-Za-z_][A-Za-z0-9_]*)@plt>:`)
			stubs := map[string]string{}
			for _, m := range re.FindAllStringSubmatch(out, -1) {
				stubs[m[2]] = provider.FormatAddress(hexAddr(t, m[1]))
			}
			if len(stubs) == 0 {
				t.Errorf("objdump found no PLT stubs")
			}
			for name, addr := range stubs {
				found := false
				for _, p := range procs {
					if p.Value == name+"@plt" && p.Address == addr && slices.Contains(p.Aliases, name) {
						found = p.Procedure.External && p.Procedure.Thunk && p.Procedure.ThunkTarget == nil
					}
				}
				if !found {
					t.Errorf("PLT stub %s at %s is not an external procedure", name, addr)
				}
			}
		} else if requireAll() {
			t.Fatalf("tool %s is not installed", objdump)
		}
	}
	checkELFSegments(t, c, path)
	checkStringParity(t, c, path, readelfLoads(t, path))
}

func baseName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func checkSorted(t *testing.T, procs []provider.ProcedureItem, names []provider.NameItem) {
	t.Helper()
	key := func(a, v string) (uint64, string) { return hexAddr(t, a), v }
	for i := 1; i < len(procs); i++ {
		a0, v0 := key(procs[i-1].Address, procs[i-1].Value)
		a1, v1 := key(procs[i].Address, procs[i].Value)
		if a0 > a1 || a0 == a1 && v0 >= v1 {
			t.Fatalf("procedures out of order at %d: %v %v", i, procs[i-1], procs[i])
		}
	}
	primaries := map[string]int{}
	for i := range names {
		if i > 0 {
			a0, v0 := key(names[i-1].Address, names[i-1].Value)
			a1, v1 := key(names[i].Address, names[i].Value)
			if a0 > a1 || a0 == a1 && v0 >= v1 {
				t.Fatalf("names out of order at %d: %v %v", i, names[i-1], names[i])
			}
		}
		if names[i].Symbol.Primary {
			primaries[names[i].Address]++
		} else {
			primaries[names[i].Address] += 0
		}
	}
	for a, n := range primaries {
		if n != 1 {
			t.Errorf("address %s has %d primary names", a, n)
		}
	}
}

func TestELFGccO0(t *testing.T) {
	p := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	checkCFixtureELF(t, p, false, false, "objdump")
}

func TestELFGccO2(t *testing.T) {
	p := cFixture(t, "gcc-O2", "gcc", "-O2")
	checkCFixtureELF(t, p, false, false, "objdump")
}

func TestELFGccStripped(t *testing.T) {
	p := cFixture(t, "gcc-O2", "gcc", "-O2")
	strip := needTool(t, "strip")
	out := t.TempDir() + "/stripped"
	if err := run("", nil, strip, "-o", out, p); err != nil {
		t.Fatal(err)
	}
	checkCFixtureELF(t, out, true, false, "objdump")
}

func TestELFGccNoPIEIBT(t *testing.T) {
	p := cFixture(t, "gcc-nopie", "gcc", "-O1", "-no-pie", "-fcf-protection=full")
	checkCFixtureELF(t, p, false, false, "objdump")
}

func TestELFAarch64Gcc(t *testing.T) {
	p := cFixture(t, "aarch64-gcc", "aarch64-linux-gnu-gcc", "-O1", "-g")
	checkCFixtureELF(t, p, false, true, "aarch64-linux-gnu-objdump")
}

func TestELFI686Gcc(t *testing.T) {
	for _, pic := range []string{"-no-pie", "-pie"} {
		t.Run(pic, func(t *testing.T) {
			p := cFixture(t, "i686-gcc"+pic, "i686-linux-gnu-gcc", "-O1", pic, "-fPIC")
			checkCFixtureELF(t, p, false, false, "objdump")
		})
	}
}

func TestELFArmGcc(t *testing.T) {
	for _, mode := range []string{"-mthumb", "-marm"} {
		t.Run(mode, func(t *testing.T) {
			p := cFixture(t, "arm-gcc"+mode, "arm-linux-gnueabihf-gcc", "-O1", mode)
			checkCFixtureELF(t, p, false, true, "arm-linux-gnueabihf-objdump")
		})
	}
}

func TestELFGoArm64(t *testing.T) {
	path := goFixture(t, "linux", "arm64")
	_, _, c := open(t, path)
	checkGoFixture(t, c, path, "main.main", "main.helper")
	checkELFSegments(t, c, path)
	checkStringParity(t, c, path, readelfLoads(t, path))
}

// checkGoFixture compares the Go fixture's functions with `go tool nm` and
// finds its string literal.
func checkGoFixture(t *testing.T, c provider.Client, path string, fns ...string) {
	t.Helper()
	procs := allProcedures(t, c)
	names := allNames(t, c)
	checkSorted(t, procs, names)
	nm := nmAddrs(t, []string{"go", "tool", "nm"}, path)
	for _, fn := range fns {
		a := procAt(procs, fn)
		want := nm[strings.TrimPrefix(fn, "_")] // go tool nm drops Mach-O's leading underscore
		if len(want) != 1 || len(a) != 1 || a[0] != provider.FormatAddress(want[0]) {
			t.Errorf("%s: procedures %v, go tool nm %x", fn, a, want)
		}
	}
	// Go string data is not NUL-separated: the literal sits inside a long
	// run. Find the run with `strings -a -t x` and its address independently.
	out := toolOutput(t, "strings", "-a", "-t", "x", path)
	var runOff uint64
	var runLen int
	for _, ln := range strings.Split(out, "\n") {
		ln = strings.TrimLeft(ln, " ")
		sp := strings.IndexByte(ln, ' ')
		if sp > 0 && strings.Contains(ln[sp+1:], "REA go fixture literal") {
			runOff, runLen = hexAddr(t, ln[:sp]), len(ln[sp+1:])
		}
	}
	if runLen == 0 {
		t.Fatalf("strings -a does not find the literal")
	}
	addr := provider.FormatAddress(fileOffsetToAddr(t, path, runOff))
	r := do(t, c, provider.OpListStrings, provider.Params{"address": addr})
	pg := r.Normalized.(provider.Page[provider.StringItem])
	if pg.Returned != 1 || pg.Items[0].String.ByteLength != runLen || pg.Items[0].String.Section == nil ||
		pg.Items[0].ValueTruncated != (runLen > maxValueLen) || len(pg.Items[0].Value) != min(runLen, maxValueLen) {
		t.Errorf("string run at %s (len %d): %+v", addr, runLen, pg.Items)
	}
}

// fileOffsetToAddr maps a file offset to its address with the standard
// library's view of the program headers, independently of the provider.
func fileOffsetToAddr(t testing.TB, path string, off uint64) uint64 {
	t.Helper()
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && off >= p.Off && off < p.Off+p.Filesz {
				return p.Vaddr + off - p.Off
			}
		}
	}
	if f, err := macho.Open(path); err == nil {
		defer f.Close()
		for _, l := range f.Loads {
			if s, ok := l.(*macho.Segment); ok && s.Memsz > 0 && off >= s.Offset && off < s.Offset+s.Filesz {
				return s.Addr + off - s.Offset
			}
		}
	}
	if f, err := pe.Open(path); err == nil {
		defer f.Close()
		base := uint64(0)
		switch oh := f.OptionalHeader.(type) {
		case *pe.OptionalHeader64:
			base = oh.ImageBase
		case *pe.OptionalHeader32:
			base = uint64(oh.ImageBase)
		}
		for _, s := range f.Sections {
			if off >= uint64(s.Offset) && off < uint64(s.Offset)+uint64(s.Size) {
				return base + uint64(s.VirtualAddress) + off - uint64(s.Offset)
			}
		}
	}
	t.Fatalf("file offset %#x is not mapped in %s", off, path)
	return 0
}

// TestGoCrossFixtures covers 32-bit ELF and PE and PE arm64 with Go's own
// cross compiler (no C toolchain needed).
func TestGoCrossFixtures(t *testing.T) {
	cases := []struct{ goos, goarch, format, arch string }{
		{"linux", "386", "elf", "x86"},
		{"linux", "arm", "elf", "arm"},
		{"linux", "amd64", "elf", "x86_64"},
		{"windows", "386", "pe", "x86"},
		{"windows", "arm64", "pe", "arm64"},
	}
	for i, tc := range cases {
		t.Run(tc.goos+"-"+tc.goarch, func(t *testing.T) {
			if i > 0 {
				skipShortCase(t, "builds the Go fixture for another GOOS/GOARCH (its standard library too, on a cold build cache)")
			}
			t.Parallel()
			path := goFixture(t, tc.goos, tc.goarch)
			_, tg, c := open(t, path)
			if tg.Format != tc.format || tg.Architecture != tc.arch {
				t.Fatalf("target %+v", tg)
			}
			checkGoFixture(t, c, path, "main.main", "main.helper")
			if tc.format == "elf" {
				checkELFSegments(t, c, path)
				checkStringParity(t, c, path, readelfLoads(t, path))
			}
		})
	}
}
