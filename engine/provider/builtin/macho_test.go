package builtin

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// fixtureCFree is fixtureC without system headers, for targets whose SDK is
// not installed (Mach-O with clang + lld, undefined symbols left to dyld).
const fixtureCFree = `typedef unsigned short char16_t;
int puts(const char *);
int printf(const char *, ...);
int rea_global_counter = 42;
const char rea_banner[] = "REA fixture banner string";
const char16_t rea_wide[] = u"REA wide text";
__attribute__((noinline)) int rea_add(int a, int b) { return a + b + rea_global_counter; }
__attribute__((noinline)) int rea_mul(int a, int b) { return a * b; }
int main(int argc, char **argv) {
	printf("REA says hello %d\n", rea_add(argc, 2));
	puts(rea_banner);
	return rea_mul(argc, 3);
}
`

func clangMachO(t testing.TB, target string) string {
	return fixture(t, "clang-"+target, func(dir, out string) (string, error) {
		if _, err := lookPath("clang"); err != nil {
			return "tool clang is not installed (package clang); install it to run this test", nil
		}
		_, e1 := lookPath("ld64.lld")
		_, e2 := lookPath("ld64.lld-14")
		if e1 != nil && e2 != nil {
			return "tool ld64.lld is not installed (package lld); install it to run this test", nil
		}
		src := dir + "/fixture.c"
		if err := os.WriteFile(src, []byte(fixtureCFree), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, "clang", "-target", target, "-O1", "-nostdlib", "-fuse-ld=lld",
			"-Wl,-undefined,dynamic_lookup", "-Wl,-platform_version,macos,11.0,11.0", "-o", out, src)
	})
}

func checkCFixtureMachO(t *testing.T, path string) {
	_, _, c := open(t, path)
	procs := allProcedures(t, c)
	names := allNames(t, c)
	checkSorted(t, procs, names)
	nm := nmAddrs(t, []string{"llvm-nm"}, path)
	for _, fn := range []string{"_main", "_rea_add", "_rea_mul"} {
		a := procAt(procs, fn)
		if len(nm[fn]) != 1 || len(a) != 1 || a[0] != provider.FormatAddress(nm[fn][0]) {
			t.Errorf("%s: procedures %v, llvm-nm %x", fn, a, nm[fn])
		}
	}
	if a := procAt(procs, "__mh_execute_header"); len(a) != 0 {
		t.Errorf("the Mach-O header symbol is not a procedure")
	}
	// Stubs: llvm-objdump lists the indirect symbols of __stubs.
	out := toolOutput(t, "llvm-objdump", "--macho", "--indirect-symbols", path)
	sec := strings.SplitN(out, "(__TEXT,__stubs)", 2)
	if len(sec) != 2 {
		t.Fatalf("no __stubs in %s", out)
	}
	body := strings.SplitN(sec[1], "Indirect symbols for", 2)[0]
	re := regexp.MustCompile(`(?m)^0x([0-9a-f]+)\s+\d+\s+(\S+)$`)
	stubs := re.FindAllStringSubmatch(body, -1)
	if len(stubs) < 2 {
		t.Fatalf("expected stubs for printf and puts: %s", body)
	}
	for _, m := range stubs {
		a := procAt(procs, m[2])
		if len(a) != 1 || a[0] != provider.FormatAddress(hexAddr(t, m[1])) {
			t.Errorf("stub %s at %s: procedures %v", m[2], m[1], a)
		}
	}
	ss := allStrings(t, c)
	b := findString(ss, "REA fixture banner string")
	if b == nil || b.Address != provider.FormatAddress(nm["_rea_banner"][0]) || b.String.Section == nil ||
		*b.String.Section != "__TEXT,__const" || b.String.Termination != "present_or_not_required" {
		t.Errorf("banner: %+v", b)
	}
	// The wide string may directly follow the banner's last character and NUL,
	// which themselves form a UTF-16LE unit ("g\0"): like `strings -el`, the
	// run then starts one unit early.
	var w *provider.StringItem
	for i := range ss {
		if k := strings.Index(ss[i].Value, "REA wide text"); k >= 0 && ss[i].String.Encoding == "utf-16le" &&
			hexAddr(t, ss[i].Address)+uint64(2*k) == nm["_rea_wide"][0] {
			w = &ss[i]
		}
	}
	if w == nil || w.String.Termination != "present_or_not_required" {
		t.Errorf("wide: %+v", w)
	}
	checkMachOSegments(t, c, path)
}

// checkMachOSegments compares list_segments with llvm-objdump's section headers.
func checkMachOSegments(t *testing.T, c provider.Client, path string) {
	segs := do(t, c, provider.OpListSegments, nil).Normalized.([]provider.Segment)
	out := toolOutput(t, "llvm-objdump", "--section-headers", path)
	re := regexp.MustCompile(`(?m)^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)`)
	want := map[string][]string{} // llvm-objdump prints section names without their segment
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		want[m[1]] = append(want[m[1]], provider.FormatAddress(hexAddr(t, m[3]))+"+"+provider.FormatAddress(hexAddr(t, m[2])))
	}
	n := 0
	for _, s := range segs {
		if s.Name == "__PAGEZERO" {
			t.Errorf("__PAGEZERO is listed")
		}
		for _, sc := range s.Sections {
			n++
			short := sc.Name[strings.IndexByte(sc.Name, ',')+1:]
			size := hexAddr(t, sc.End) - hexAddr(t, sc.Start)
			if got := sc.Start + "+" + provider.FormatAddress(size); !slices.Contains(want[short], got) {
				t.Errorf("section %s: %s, llvm-objdump %s", sc.Name, got, want[short])
			}
			if s.Name != "" && !strings.HasPrefix(sc.Name, s.Name+",") { // an object's one segment is unnamed
				t.Errorf("section %s listed under segment %s", sc.Name, s.Name)
			}
		}
	}
	if n == 0 {
		t.Errorf("no sections")
	}
}

// TestMachOObject: in an object file (MH_OBJECT) every section sits in one
// unnamed segment but names its own segment, as llvm-objdump's load
// commands show (sectname/segname pairs): __TEXT,__text, not ,__text.
func TestMachOObject(t *testing.T) {
	needTool(t, "llvm-objdump")
	for _, target := range []string{"x86_64-apple-macos11", "arm64-apple-macos11"} {
		t.Run(target, func(t *testing.T) {
			path := fixture(t, "macho-object-"+target, func(dir, out string) (string, error) {
				if _, err := exec.LookPath("clang"); err != nil {
					return "tool clang is not installed; install it to run this test", nil
				}
				src := filepath.Join(dir, "fixture.c")
				if err := os.WriteFile(src, []byte(strippedCFree), 0o644); err != nil { // no Darwin SDK needed
					return "", err
				}
				return "", run(dir, nil, "clang", "-target", target, "-O2", "-c", "-o", out, src)
			})
			_, _, c := open(t, path)
			var want []string
			re := regexp.MustCompile(`(?m)^\s*sectname (\S+)\n\s*segname (\S+)$`)
			for _, m := range re.FindAllStringSubmatch(toolOutput(t, "llvm-objdump", "--macho", "--private-headers", path), -1) {
				want = append(want, m[2]+","+m[1])
			}
			var got []string
			for _, s := range do(t, c, provider.OpListSegments, nil).Normalized.([]provider.Segment) {
				for _, sc := range s.Sections {
					got = append(got, sc.Name)
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if len(want) == 0 || !slices.Contains(got, "__TEXT,__text") || !slices.Equal(got, want) {
				t.Errorf("sections %q, llvm-objdump %q", got, want)
			}
			checkMachOSegments(t, c, path)
		})
	}
}

func TestMachOClangArm64(t *testing.T) {
	needTool(t, "llvm-nm")
	checkCFixtureMachO(t, clangMachO(t, "arm64-apple-macos11"))
}

func TestMachOClangX86_64(t *testing.T) {
	needTool(t, "llvm-nm")
	checkCFixtureMachO(t, clangMachO(t, "x86_64-apple-macos11"))
}

func TestMachOGo(t *testing.T) {
	for _, arch := range []string{"arm64", "amd64"} {
		t.Run(arch, func(t *testing.T) {
			path := goFixture(t, "darwin", arch)
			_, tg, c := open(t, path)
			if tg.Format != "mach-o" {
				t.Fatalf("format %s", tg.Format)
			}
			// The Go function table names them; the symbol (with Mach-O's
			// underscore) is an alias.
			checkGoFixture(t, c, path, "main.main", "main.helper")
			for _, p := range allProcedures(t, c) {
				if p.Value == "main.main" && !slices.Contains(p.Aliases, "_main.main") {
					t.Errorf("main.main aliases %q lack the symbol _main.main", p.Aliases)
				}
			}
			if _, err := lookPath("llvm-objdump"); err == nil {
				checkMachOSegments(t, c, path)
			}
		})
	}
}

// fatBinary writes a universal Mach-O holding the given slices, in order.
func fatBinary(t testing.TB, out string, slices ...string) {
	const align = 14
	var body []byte
	hdr := make([]byte, 8+20*len(slices))
	binary.BigEndian.PutUint32(hdr[0:], 0xcafebabe)
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(slices)))
	off := uint32(1 << align)
	for i, s := range slices {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		cpu := binary.LittleEndian.Uint32(b[4:])
		sub := binary.LittleEndian.Uint32(b[8:])
		e := hdr[8+20*i:]
		binary.BigEndian.PutUint32(e[0:], cpu)
		binary.BigEndian.PutUint32(e[4:], sub)
		binary.BigEndian.PutUint32(e[8:], off)
		binary.BigEndian.PutUint32(e[12:], uint32(len(b)))
		binary.BigEndian.PutUint32(e[16:], align)
		for uint32(len(body)) < off-(1<<align) {
			body = append(body, 0)
		}
		body = append(body, b...)
		off = (uint32(1<<align) + uint32(len(body)) + (1<<align - 1)) &^ (1<<align - 1)
	}
	full := make([]byte, 1<<align)
	copy(full, hdr)
	full = append(full, body...)
	if err := os.WriteFile(out, full, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMachOUniversalPicksArm64(t *testing.T) {
	amd := goFixture(t, "darwin", "amd64")
	arm := goFixture(t, "darwin", "arm64")
	fat := t.TempDir() + "/universal"
	fatBinary(t, fat, amd, arm) // arm64 second: it must still be chosen
	_, tg, c := open(t, fat)
	if tg.Format != "mach-o-universal" || tg.Architecture != "arm64" {
		t.Fatalf("target %+v", tg)
	}
	prof, err := New("v").Profile(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if prof.Parameters["architecture"] != "arm64" || prof.Parameters["target_format"] != "mach-o-universal" || prof.Parameters["syntax"] != "gnu" {
		t.Errorf("profile %v", prof.Parameters)
	}
	checkGoFixture(t, c, arm, "main.main", "main.helper")

	// Without arm64, x86_64 is chosen over an earlier slice of another CPU.
	fat2 := t.TempDir() + "/universal2"
	fatBinary(t, fat2, amd)
	if tg2 := targetFor(t, fat2); tg2.Architecture != "x86_64" {
		t.Errorf("single-slice universal: %+v", tg2)
	}
}
