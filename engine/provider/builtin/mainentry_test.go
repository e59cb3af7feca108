package builtin

import (
	"errors"
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

// main in stripped binaries (mainentry.go). The oracle of a compiled fixture
// is its unstripped twin's symbol (nm, go tool nm); of a Debian binary, which
// ships no unstripped twin, objdump's reading of _start's argument together
// with .eh_frame saying a function starts there.

// checkMainNamed checks that name resolves to want everywhere a name does:
// procedure_address, procedure_info, search_procedures, list_names (exactly
// one entry of that name, with symbol source src) and list_procedures.
func checkMainNamed(t *testing.T, c provider.Client, name string, want uint64, src string) {
	t.Helper()
	checkMainNamedCode(t, c, name, want, src, false)
}

// checkMainNamedCode is checkMainNamed for a procedure in ARM Thumb code
// when thumb is set: its instructions then decode as Thumb.
func checkMainNamedCode(t *testing.T, c provider.Client, name string, want uint64, src string, thumb bool) {
	t.Helper()
	wantS := provider.FormatAddress(want)
	if got := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": name}).Normalized; got != wantS {
		t.Errorf("procedure_address %s = %v, want %s", name, got, wantS)
	}
	if pi := procInfo(t, c, name); pi.Entrypoint != wantS || pi.Name != name {
		t.Errorf("procedure_info %s: entry %s name %s, want %s", name, pi.Entrypoint, pi.Name, wantS)
	}
	if thumb {
		// Thumb code decodes: halfword-sized instructions, none undecodable.
		fi := readInsns(t, c, wantS)
		if len(fi.Instructions.Items) == 0 || slices.ContainsFunc(fi.Instructions.Items, func(in provider.InstructionItem) bool {
			return strings.HasPrefix(in.Text, ".inst") || len(in.Bytes) != 4 && len(in.Bytes) != 8
		}) {
			t.Errorf("read_function_instructions of Thumb %s: %+v", name, fi.Instructions.Items)
		}
	}
	p := search(t, c, provider.OpSearchProcedures, provider.Params{"pattern": "^" + regexp.QuoteMeta(name) + "$", "mode": "regex"})
	if len(p.Items) != 1 || p.Items[0].Address != wantS {
		t.Errorf("search_procedures %s: %+v, want one at %s", name, p.Items, wantS)
	}
	var named []provider.NameItem
	for _, n := range allNames(t, c) {
		if n.Value == name {
			named = append(named, n)
		}
	}
	if len(named) != 1 || named[0].Address != wantS || named[0].Symbol.Source != src || named[0].Symbol.Type != "function" {
		t.Errorf("list_names %s: %+v, want one at %s with source %s", name, named, wantS, src)
	}
	if a := procAt(allProcedures(t, c), name); len(a) != 1 || a[0] != wantS {
		t.Errorf("list_procedures %s: %v, want %s", name, a, wantS)
	}
	if src == "analysis" {
		r := do(t, c, provider.OpListNames, provider.Params{"limit": int64(1)})
		for _, l := range r.Limitations {
			if strings.Contains(l, "not located") {
				t.Errorf("limitation %q although %s was located", l, name)
			}
		}
	}
}

// strippedTwin strips a copy of path with the strip tool.
func strippedTwin(t *testing.T, path, strip string) string {
	t.Helper()
	return fixture(t, baseName(path)+".stripped", func(dir, out string) (string, error) {
		if _, err := exec.LookPath(strip); err != nil {
			return "tool " + strip + " is not installed; install it to run this test", nil
		}
		return "", run(dir, nil, strip, "-o", out, path)
	})
}

// mainTwin is a fixture built unstripped and stripped.
type mainTwin struct {
	name, compiler, prefix string // prefix: of the binutils that go with it
	flags                  []string
}

func TestMainStrippedELF(t *testing.T) {
	var (
		x = ""
		a = "aarch64-linux-gnu-"
		i = "i686-linux-gnu-"
		h = "arm-linux-gnueabihf-"
	)
	twins := []mainTwin{
		{"main-gcc-pie", "gcc", x, []string{"-O2", "-fPIE", "-pie"}},
		{"main-gcc-nopie", "gcc", x, []string{"-O2", "-fno-pie", "-no-pie"}},
		// No linker relaxation: _start loads main from a GOT slot with a
		// RELATIVE relocation (mov rdi, [rip+slot]).
		{"main-gcc-norelax", "gcc", x, []string{"-O2", "-Wl,--no-relax"}},
		{"main-gcc-static", "gcc", x, []string{"-O2", "-static"}},
		{"main-gcc-static-pie", "gcc", x, []string{"-O2", "-static-pie"}},
		{"main-clang-pie", "clang", x, []string{"-O2", "-fPIE", "-pie"}},
		{"main-clang-nopie", "clang", x, []string{"-O2", "-fno-pie", "-no-pie"}},
		{"main-clang-lld", "clang", x, []string{"-O2", "-fuse-ld=lld"}},
		{"main-i686-pie", i + "gcc", i, []string{"-O2", "-fPIE", "-pie"}},
		{"main-i686-nopie", i + "gcc", i, []string{"-O2", "-fno-pie", "-no-pie"}},
		{"main-aarch64-pie", a + "gcc", a, []string{"-O2", "-fPIE", "-pie"}},
		// The non-PIE crt1 passes __wrap_main (`b main`), which is followed.
		{"main-aarch64-nopie", a + "gcc", a, []string{"-O2", "-fno-pie", "-no-pie"}},
		{"main-armhf-pie", h + "gcc", h, []string{"-O2", "-fPIE", "-pie"}},
		{"main-armhf-nopie", h + "gcc", h, []string{"-O2", "-fno-pie", "-no-pie"}},
		{"main-armhf-arm", h + "gcc", h, []string{"-O2", "-marm"}}, // Thumb _start, ARM main
		// Static: no import names the call's target; static-pie passes
		// __wrap_main on i386 and arm64.
		{"main-i686-static", i + "gcc", i, []string{"-O2", "-static"}},
		{"main-i686-static-pie", i + "gcc", i, []string{"-O2", "-static-pie"}},
		{"main-aarch64-static", a + "gcc", a, []string{"-O2", "-static"}},
		{"main-aarch64-static-pie", a + "gcc", a, []string{"-O2", "-static-pie"}},
		{"main-armhf-static", h + "gcc", h, []string{"-O2", "-static"}},
	}
	for i, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			if i > 0 {
				skipShortCase(t, "compiles and strips another of "+strconv.Itoa(len(twins))+" twins")
			}
			t.Parallel()
			full := cFixture(t, tw.name, tw.compiler, tw.flags...)
			nm := tw.prefix + "nm"
			arm := strings.HasPrefix(tw.name, "main-armhf")
			if arm {
				nm = "nm" // the cross nm clears the Thumb bit; binutils' own keeps st_value
			}
			want := nmAddrs(t, []string{nm}, full)["main"]
			if len(want) != 1 {
				t.Fatalf("nm main: %x", want)
			}
			thumb := arm && want[0]&1 == 1
			main := want[0] &^ 1
			_, _, c := open(t, full)
			checkMainNamedCode(t, c, "main", main, "default", thumb) // the symbol wins: no analysis name beside it

			stripped := strippedTwin(t, full, tw.prefix+"strip")
			if nm, _ := exec.Command(tw.prefix+"nm", stripped).CombinedOutput(); !strings.Contains(string(nm), "no symbols") {
				t.Fatalf("%s is not stripped: %s", stripped, nm)
			}
			_, _, cs := open(t, stripped)
			// A Thumb main is marked Thumb, so it decodes like its twin's.
			checkMainNamedCode(t, cs, "main", main, "analysis", thumb)
			t.Logf("%s: main %#x (thumb %v) found in the stripped twin", tw.name, main, thumb)
		})
	}
}

// objdumpStartArg reads _start's argument for __libc_start_main from
// objdump's listing of the entry: the address objdump resolves in the
// instruction that sets rdi before the first call.
func objdumpStartArg(t *testing.T, path string, entry uint64) uint64 {
	t.Helper()
	out := toolOutput(t, "objdump", "-d", "--no-show-raw-insn",
		"--start-address="+provider.FormatAddress(entry), "--stop-address="+provider.FormatAddress(entry+0x40), path)
	lea := regexp.MustCompile(`(?:lea|mov)\s+\S+\(%rip\),%rdi\s+#\s+([0-9a-f]+)`)
	imm := regexp.MustCompile(`mov\s+\$0x([0-9a-f]+),%rdi`)
	for _, ln := range strings.Split(out, "\n") {
		if m := lea.FindStringSubmatch(ln); m != nil {
			return hexAddr(t, m[1])
		}
		if m := imm.FindStringSubmatch(ln); m != nil {
			return hexAddr(t, m[1])
		}
		if strings.Contains(ln, "call") {
			break
		}
	}
	t.Fatalf("objdump shows no rdi argument in _start of %s:\n%s", path, out)
	return 0
}

// fdeStarts lists the function starts .eh_frame describes (readelf).
func fdeStarts(t *testing.T, path string) []uint64 {
	t.Helper()
	re := regexp.MustCompile(`FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.`)
	var out []uint64
	for _, m := range re.FindAllStringSubmatch(toolOutput(t, "readelf", "--debug-dump=frames", path), -1) {
		out = append(out, hexAddr(t, m[1]))
	}
	slices.Sort(out)
	return out
}

func TestMainDebianBinaries(t *testing.T) {
	skipLarge(t)
	for _, f := range [][2]string{{"/usr/bin/gdb", "gdb"}, {"/usr/bin/bash", "bash"}, {"/usr/bin/ls", "coreutils"}} {
		path := f[0]
		t.Run(baseName(path), func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				msg := path + " is not installed (Debian package " + f[1] + "); install it to run this test"
				if requireAll() {
					t.Fatal(msg)
				}
				t.Skip(msg)
			}
			_, tg, c := open(t, path)
			if tg.Architecture != "x86_64" {
				t.Skipf("%s is %s; the oracle reads x86_64 objdump output", path, tg.Architecture)
			}
			ep, _ := c.(provider.EntryPointer).EntryPoint()
			want := objdumpStartArg(t, path, ep)
			if _, ok := slices.BinarySearch(fdeStarts(t, path), want); !ok {
				t.Fatalf("oracle: %#x is not an .eh_frame function start", want)
			}
			src := "analysis"
			if nm := nmAddrs(t, []string{"nm", "-D"}, path)["main"]; len(nm) > 0 {
				src = "default" // bash exports main: the dynamic symbol names it
				if nm[0] != want {
					t.Fatalf("oracle: dynamic main %#x, _start passes %#x", nm[0], want)
				}
			}
			checkMainNamed(t, c, "main", want, src)
			t.Logf("%s: main %#x (source %s)", path, want, src)
		})
	}
}

// goMainFixture builds fixtureGo for goos/goarch, stripped with -s -w when
// asked.
func goMainFixture(t *testing.T, goos, goarch string, strip bool) string {
	name := "gomain-" + goos + "-" + goarch
	var ld []string
	if strip {
		name += "-s"
		ld = []string{"-ldflags=-s -w"}
	}
	return goBuildFixture(t, name, goos, goarch, ld...)
}

func TestMainGo(t *testing.T) {
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			t.Run(goos+"-"+goarch, func(t *testing.T) {
				if goos+goarch != "linuxamd64" {
					skipShortCase(t, "builds the Go fixture for another GOOS/GOARCH (its standard library too, on a cold build cache)")
				}
				t.Parallel()
				full := goMainFixture(t, goos, goarch, false)
				want := nmAddrs(t, []string{goBin, "tool", "nm"}, full)["main.main"]
				if len(want) != 1 {
					t.Fatalf("go tool nm main.main: %x", want)
				}
				_, _, c := open(t, full)
				// The Go function table names it (source default) beside
				// the symbol (Mach-O names keep their underscore: _main.main,
				// an alias then).
				checkMainNamed(t, c, "main.main", want[0], "default")

				stripped := goMainFixture(t, goos, goarch, true)
				if nm, _ := exec.Command(goBin, "tool", "nm", stripped).CombinedOutput(); strings.Contains(string(nm), "main.main") {
					t.Fatalf("%s keeps its symbols", stripped)
				}
				_, _, cs := open(t, stripped)
				checkMainNamed(t, cs, "main.main", want[0], "default")
			})
		}
	}
}

func TestMainMachO(t *testing.T) {
	for _, target := range []string{"x86_64-apple-macos11", "arm64-apple-macos11"} {
		t.Run(target, func(t *testing.T) {
			full := clangMachO(t, target)
			want := nmAddrs(t, []string{"llvm-nm"}, full)["_main"]
			if len(want) != 1 {
				t.Fatalf("llvm-nm _main: %x", want)
			}
			_, _, c := open(t, full)
			checkMainNamed(t, c, "_main", want[0], "default")
			if _, err := c.Do(t.Context(), provider.OpProcedureAddress, provider.Params{"procedure": "main"}, nil); err == nil {
				t.Errorf("an analysis main was added beside the symbol _main")
			}
			stripped := strippedTwin(t, full, "llvm-strip")
			_, _, cs := open(t, stripped)
			checkMainNamed(t, cs, "main", want[0], "analysis")
			// LC_MAIN's entry is main: it is not also named "entry".
			if a := procAt(allProcedures(t, cs), "entry"); len(a) != 0 {
				t.Errorf("entry is named beside main: %v", a)
			}
		})
	}
}

const fixtureWinMain = `#include <windows.h>
int counter;
__attribute__((noinline)) int helper(int x) { return x * 3 + counter; }
int WINAPI WinMain(HINSTANCE h, HINSTANCE p, LPSTR cmd, int show) { return helper(show); }
`

// msvcShapedStart is start code shaped like MSVC's mainCRTStartup and
// __scrt_common_main_seh (a jump to the common main, main's value kept in a
// callee-saved register across another call, then exit): no MSVC toolchain
// is installed, so the test links it with mingw-w64 instead of its CRT.
const msvcShapedStart = `	.text
	.globl mainCRTStartup
mainCRTStartup:
	subq $40, %rsp
	call cookie
	addq $40, %rsp
	jmp common_main
cookie:
	xorl %eax, %eax
	ret
managed:
	xorl %eax, %eax
	ret
common_main:
	pushq %rbx
	subq $32, %rsp
	xorl %ecx, %ecx
	xorl %edx, %edx
	call main
	movl %eax, %ebx
	call managed
	testb %al, %al
	je 1f
	movl %ebx, %eax
	addq $32, %rsp
	popq %rbx
	ret
1:	movl %ebx, %ecx
	call exit
	int3
	.globl _pei386_runtime_relocator
_pei386_runtime_relocator:
	ret
`

func TestMainMingw(t *testing.T) {
	const mingw = "x86_64-w64-mingw32-"
	builds := map[string]func() string{
		"console-O2": func() string { return cFixture(t, "main-mingw-O2.exe", mingw+"gcc", "-O2") },
		"console-O0": func() string { return cFixture(t, "main-mingw-O0.exe", mingw+"gcc", "-O0") },
		// A GUI program: libmingw32's main calls WinMain; main is the CRT's.
		"winmain": func() string {
			return fixture(t, "main-mingw-winmain.exe", func(dir, out string) (string, error) {
				if _, err := exec.LookPath(mingw + "gcc"); err != nil {
					return "tool " + mingw + "gcc is not installed; install it to run this test", nil
				}
				src := filepath.Join(dir, "w.c")
				if err := os.WriteFile(src, []byte(fixtureWinMain), 0o644); err != nil {
					return "", err
				}
				return "", run(dir, nil, mingw+"gcc", "-O2", "-mwindows", "-o", out, src)
			})
		},
		"msvc-shaped": func() string {
			return fixture(t, "main-msvc-shaped.exe", func(dir, out string) (string, error) {
				if _, err := exec.LookPath(mingw + "gcc"); err != nil {
					return "tool " + mingw + "gcc is not installed; install it to run this test", nil
				}
				s, c := filepath.Join(dir, "start.S"), filepath.Join(dir, "main.c")
				if err := os.WriteFile(s, []byte(msvcShapedStart), 0o644); err != nil {
					return "", err
				}
				if err := os.WriteFile(c, []byte(fixtureC), 0o644); err != nil {
					return "", err
				}
				return "", run(dir, nil, mingw+"gcc", "-O2", "-nostartfiles", "-e", "mainCRTStartup", "-o", out, s, c, "-lmsvcrt")
			})
		},
	}
	for _, name := range []string{"console-O2", "console-O0", "winmain", "msvc-shaped"} {
		t.Run(name, func(t *testing.T) {
			full := builds[name]()
			want := nmAddrs(t, []string{mingw + "nm"}, full)["main"]
			if len(want) != 1 {
				t.Fatalf("nm main: %x", want)
			}
			_, _, c := open(t, full)
			checkMainNamed(t, c, "main", want[0], "default")
			stripped := strippedTwin(t, full, mingw+"strip")
			_, _, cs := open(t, stripped)
			checkMainNamed(t, cs, "main", want[0], "analysis")
		})
	}
}

// A _start REA cannot read: main's address comes from the stack. The
// answer is a limitation, and main stays unnamed.
const fixtureOddStart = `int main(void) { return 0; }
__asm__(".globl _start\n_start:\n\tmov (%rsp), %rdi\n\tcall *__libc_start_main@GOTPCREL(%rip)\n\thlt\n");
`

func TestMainNotLocated(t *testing.T) {
	full := fixture(t, "main-odd-start", func(dir, out string) (string, error) {
		src := filepath.Join(dir, "odd.c")
		if err := os.WriteFile(src, []byte(fixtureOddStart), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, "gcc", "-O2", "-nostartfiles", "-s", "-o", out, src)
	})
	_, _, c := open(t, full)
	r := do(t, c, provider.OpListNames, nil)
	if !slices.Contains(r.Limitations, "main not located: "+startNotRecognized) {
		t.Errorf("limitations %q lack main not located", r.Limitations)
	}
	for _, n := range allNames(t, c) {
		if n.Value == "main" {
			t.Errorf("main named: %+v", n)
		}
	}
	_, err := c.Do(t.Context(), provider.OpProcedureInfo, provider.Params{"procedure": "main"}, nil)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest {
		t.Errorf("procedure_info main: %v", err)
	}
	ri := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": "entry"})
	if !slices.Contains(ri.Limitations, "main not located: "+startNotRecognized) {
		t.Errorf("procedure_info entry limitations %q lack main not located", ri.Limitations)
	}

	// A PE whose start code passes exit a constant: no function's value
	// reaches exit, so main is not located either.
	const mingw = "x86_64-w64-mingw32-"
	pe := fixture(t, "main-odd-crt.exe", func(dir, out string) (string, error) {
		if _, err := exec.LookPath(mingw + "gcc"); err != nil {
			return "tool " + mingw + "gcc is not installed; install it to run this test", nil
		}
		s, c := filepath.Join(dir, "start.S"), filepath.Join(dir, "main.c")
		odd := strings.Replace(msvcShapedStart, "1:\tmovl %ebx, %ecx", "1:\txorl %ecx, %ecx", 1)
		if odd == msvcShapedStart {
			return "", errors.New("the start code did not change")
		}
		if err := os.WriteFile(s, []byte(odd), 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(c, []byte(fixtureC), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, mingw+"gcc", "-O2", "-s", "-nostartfiles", "-e", "mainCRTStartup", "-o", out, s, c, "-lmsvcrt")
	})
	_, _, cp := open(t, pe)
	if l := do(t, cp, provider.OpListNames, nil).Limitations; !slices.Contains(l, "main not located: the CRT's call into main was not recognized") {
		t.Errorf("PE limitations %q lack main not located", l)
	}

	// A shared library expects no main: no limitation.
	lib := cFixture(t, "main-shared-lib", "gcc", "-O2", "-shared", "-fPIC")
	stripped := strippedTwin(t, lib, "strip")
	_, _, cl := open(t, stripped)
	for _, l := range do(t, cl, provider.OpListNames, nil).Limitations {
		if strings.Contains(l, "not located") {
			t.Errorf("shared library: %q", l)
		}
	}
}

// mainSeedC is the program of the seeds that exercise the start-code
// readers under FuzzELF and FuzzPE (crt1 / the mingw CRT linked in).
const mainSeedC = `int puts(const char *);
int main(void) { puts("seed"); return 0; }
`

// mainSeeds lists the seed files, their compiler and flags.
var mainSeeds = []struct {
	target, name, cc string
	flags            []string
}{
	{"FuzzELF", "main-x86_64-pie", "gcc", nil},
	{"FuzzELF", "main-i686-pie", "i686-linux-gnu-gcc", nil},
	{"FuzzELF", "main-aarch64-nopie", "aarch64-linux-gnu-gcc", []string{"-no-pie"}},
	{"FuzzELF", "main-armhf-thumb", "arm-linux-gnueabihf-gcc", nil},
	{"FuzzPE", "main-mingw", "x86_64-w64-mingw32-gcc", []string{"-Wl,--file-alignment=16", "-Wl,--section-alignment=16"}},
}

// TestWriteMainSeeds regenerates the seed-main-* seeds when
// REA_WRITE_FUZZ_SEEDS=1: small stripped executables with the C library's
// start code (needs gcc, the i686/aarch64/armhf cross compilers, mingw-w64).
func TestWriteMainSeeds(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate the seed-main-* fuzz seeds")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "seed.c")
	if err := os.WriteFile(src, []byte(mainSeedC), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range mainSeeds {
		needTool(t, s.cc)
		out := filepath.Join(dir, s.name)
		args := []string{"-Os", "-s", "-fno-asynchronous-unwind-tables", "-Wl,--build-id=none"}
		if s.target == "FuzzELF" {
			args = append(args, "-Wl,-z,max-page-size=0x10", "-Wl,-z,noseparate-code", "-Wl,-z,norelro")
		}
		args = append(append(args, s.flags...), "-o", out, src)
		if err := run(dir, nil, s.cc, args...); err != nil {
			t.Fatal(err)
		}
		if s.target == "FuzzPE" {
			out += ".exe"
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		writeCorpus(t, filepath.Join("testdata", "fuzz", s.target, "seed-"+s.name), b)
	}
}

// readSeed reads the bytes of a one-argument corpus file.
func readSeed(t testing.TB, target, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", target, "seed-"+name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(raw), "\n", 3)
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("%s/%s is not a corpus file", target, name)
	}
	q, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(q)
}

// FuzzMainEntry runs only the symbol passes and the start-code readers
// (FuzzELF and FuzzPE run them too, among every operation, far slower); its
// seeds are the seed-main-* files of those targets.
func FuzzMainEntry(f *testing.F) {
	for _, s := range mainSeeds {
		f.Add(readSeed(f, s.target, s.name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := parseImage(data)
		if err != nil {
			return
		}
		if _, err := buildSymbols(t.Context(), img, img.data(data), nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestMainSeeds checks that the seeds reach the start-code readers: each
// names main.
func TestMainSeeds(t *testing.T) {
	for _, s := range mainSeeds {
		t.Run(s.name, func(t *testing.T) {
			data := readSeed(t, s.target, s.name)
			img, err := parseImage(data)
			if err != nil {
				t.Fatal(err)
			}
			six, err := buildSymbols(t.Context(), img, img.data(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for i := range six.syms {
				if sy := &six.syms[i]; string(six.name(data, sy)) == "main" && sy.source == srcAnalysis {
					found = true
				}
			}
			if !found {
				t.Errorf("main not named; limitations %q", six.limitations)
			}
		})
	}
}

// armModeStartS is glibc's arm start.S as built for ARM mode (-marm), PIC
// (main through the GOT) or not (a literal pool word): Debian's crt1 is
// Thumb, so the test supplies its own.
const armModeStartS = `	.arm
	.globl _start
	.type _start, %function
_start:
	mov fp, #0
	mov lr, #0
	pop { a2 }
	mov a3, sp
	push { a3 }
	push { a1 }
#ifdef PIC_START
	ldr sl, .L_GOT
	adr a4, .L_GOT
	add sl, sl, a4
	mov a4, #0
	push { a4 }
	ldr a1, .L_GOT+4
	ldr a1, [sl, a1]
	bl __libc_start_main(PLT)
#else
	mov a4, #0
	push { a4 }
	ldr a1, =main
	bl __libc_start_main
#endif
	bl abort
#ifdef PIC_START
	.align 2
.L_GOT:
	.word _GLOBAL_OFFSET_TABLE_ - .L_GOT
	.word main(GOT)
#endif
	.ltorg
`

func TestMainARMModeStart(t *testing.T) {
	const cc = "arm-linux-gnueabihf-gcc"
	for _, v := range []struct {
		name  string
		flags []string
	}{
		{"main-armmode-pic", []string{"-DPIC_START", "-fPIE", "-pie"}},
		{"main-armmode-abs", []string{"-no-pie", "-marm"}},              // ARM _start, ARM main
		{"main-armmode-thumb-main", []string{"-DPIC_START", "-mthumb"}}, // ARM _start, Thumb main
	} {
		t.Run(v.name, func(t *testing.T) {
			full := fixture(t, v.name, func(dir, out string) (string, error) {
				if _, err := exec.LookPath(cc); err != nil {
					return "tool " + cc + " is not installed; install it to run this test", nil
				}
				s := filepath.Join(dir, "start.S")
				c := filepath.Join(dir, "main.c")
				if err := os.WriteFile(s, []byte(armModeStartS), 0o644); err != nil {
					return "", err
				}
				if err := os.WriteFile(c, []byte(fixtureC), 0o644); err != nil {
					return "", err
				}
				args := append(append([]string{"-O2", "-nostartfiles"}, v.flags...), "-o", out, s, c)
				return "", run(dir, nil, cc, args...)
			})
			want := nmAddrs(t, []string{"nm"}, full)["main"]
			if len(want) != 1 {
				t.Fatalf("nm main: %x", want)
			}
			if e := nmAddrs(t, []string{"nm"}, full)["_start"]; len(e) != 1 || e[0]&1 != 0 {
				t.Fatalf("_start is not ARM code: %x", e)
			}
			thumb := want[0]&1 == 1
			stripped := strippedTwin(t, full, "arm-linux-gnueabihf-strip")
			_, _, cs := open(t, stripped)
			checkMainNamedCode(t, cs, "main", want[0]&^1, "analysis", thumb)
		})
	}
}
