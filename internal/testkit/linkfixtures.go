package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Fixtures of programs with the libraries they load (CONTRACTS.md §15.4):
// each Build* function compiles into dir and touches no testing.TB, so a
// package can run it once under a BuildCache; the function of the same name
// without Build builds into t.TempDir(), skipping the test (failing it under
// RequireAll) when a compiler is missing.

// The ELF application: app links libone.so and libtwo.so.1 (in that
// DT_NEEDED order, then libc.so.6) with DT_RUNPATH $ORIGIN, so the loader
// (and ldd) find both beside it. libone calls into libtwo and into libc.
// libtwo has a version script: TWO_1.0 and TWO_2.0; dup_fn has two
// versions, dup_fn@TWO_1.0 (hidden) and dup_fn@@TWO_2.0 (default), and
// two_hidden has hidden visibility (not exported). The program imports
// one_fn and one_say unversioned, two_fn@TWO_1.0, two_new@TWO_2.0,
// dup_fn@TWO_2.0, printf@GLIBC_2.2.5, rea_weak_missing, an undefined weak
// symbol nothing defines, and two_data@TWO_1.0 by a copy relocation.
const (
	appTwoC = `#include <stdio.h>
int two_data = 7;
int two_fn(int x) { return x * 2; }
int two_new(int x) { return x * 3; }
__attribute__((symver("dup_fn@TWO_1.0"))) int dup_fn_v1(int x) { return x + 1; }
__attribute__((symver("dup_fn@@TWO_2.0"))) int dup_fn_v2(int x) { return x + 2; }
__attribute__((visibility("hidden"))) int two_hidden(int x) { return x - 1; }
int two_print(const char *s) { return printf("two: %s %d\n", s, two_hidden(3)); }
`
	appTwoMap = `TWO_1.0 { global: two_fn; two_data; two_print; dup_fn; local: *; };
TWO_2.0 { global: two_new; dup_fn; } TWO_1.0;
`
	appOneC = `#include <stdio.h>
#include <string.h>
extern int two_fn(int);
extern int two_print(const char *);
int one_fn(const char *s) { return two_fn((int)strlen(s)); }
int one_say(const char *s) { return puts(s) + two_print(s); }
`
	appC = `#include <stdio.h>
#include <stdlib.h>
extern int one_fn(const char *);
extern int one_say(const char *);
extern int two_fn(int);
extern int two_new(int);
extern int dup_fn(int);
extern int two_data;
extern int rea_weak_missing(void) __attribute__((weak));
int main(int argc, char **argv) {
	printf("%d %d %d %d\n", one_fn(argv[0]), two_fn(argc), two_new(argc), dup_fn(argc) + two_data);
	one_say("app");
	if (rea_weak_missing)
		rea_weak_missing();
	if (argc > 5)
		abort();
	return 0;
}
`
)

// BuildAppWithLibraries builds the ELF application (see above) with gcc
// into dir: dir/app, dir/libone.so and dir/libtwo.so.1 (its soname).
func BuildAppWithLibraries(gcc, dir string) (exe, libOne, libTwo string, err error) {
	files := map[string]string{"two.c": appTwoC, "two.map": appTwoMap, "one.c": appOneC, "app.c": appC}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", "", "", err
		}
	}
	steps := [][]string{
		{"-O1", "-fPIC", "-shared", "-Wl,-soname,libtwo.so.1", "-Wl,--version-script=two.map", "-o", "libtwo.so.1", "two.c"},
		{"-O1", "-fPIC", "-shared", "-Wl,-soname,libone.so", "-o", "libone.so", "one.c", "-L.", "-l:libtwo.so.1",
			"-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags"},
		{"-O1", "-o", "app", "app.c", "-L.", "-lone", "-l:libtwo.so.1", "-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags"},
	}
	for _, args := range steps {
		if err := runIn(dir, nil, gcc, args...); err != nil {
			return "", "", "", err
		}
	}
	return filepath.Join(dir, "app"), filepath.Join(dir, "libone.so"), filepath.Join(dir, "libtwo.so.1"), nil
}

// AppWithLibraries builds the ELF application into t.TempDir(); it needs
// gcc on an x86-64 Linux host (the program runs there: `ldd` can read it).
func AppWithLibraries(t testing.TB) (dir, exe, libOne, libTwo string) {
	t.Helper()
	gcc := Need(t, "gcc")
	if runtime.GOOS != "linux" {
		SkipOrFail(t, "the ELF application fixture is built and loaded on Linux only")
	}
	dir = t.TempDir()
	exe, libOne, libTwo, err := BuildAppWithLibraries(gcc, dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, exe, libOne, libTwo
}

// The Windows application: reafix.dll exports dll_add and dll_mul by name,
// dll_counter (data) by name, dll_secret by ordinal only (@7 NONAME), and
// dll_ticks, a forwarder to KERNEL32.GetTickCount; its ordinal base is 3
// (GNU ld numbers the named exports from the lowest free ordinal). app.exe
// imports dll_add, dll_mul and dll_ticks by name and dll_secret by ordinal
// 7 (through the import library the DLL's link wrote), and KERNEL32.dll and
// msvcrt.dll functions by name.
const (
	winDLLC = `int dll_add(int a, int b) { return a + b; }
int dll_mul(int a, int b) { return a * b; }
int dll_secret(int x) { return x ^ 0x5a; }
int dll_counter = 3;
`
	winDLLDef = `LIBRARY reafix.dll
EXPORTS
  dll_add
  dll_mul
  dll_secret @7 NONAME
  dll_counter DATA
  dll_ticks = KERNEL32.GetTickCount
`
	winAppC = `#include <windows.h>
#include <stdio.h>
__declspec(dllimport) int dll_add(int, int);
__declspec(dllimport) int dll_mul(int, int);
__declspec(dllimport) int dll_secret(int);
__declspec(dllimport) DWORD dll_ticks(void);
int main(int argc, char **argv) {
	printf("%d %d %d %lu\n", dll_add(argc, 2), dll_mul(argc, 3), dll_secret(argc), (unsigned long)(dll_ticks() & 1));
	ExitProcess(0);
}
`
)

// MinGW is the mingw-w64 C compiler the Windows fixtures use.
const MinGW = "x86_64-w64-mingw32-gcc"

// BuildWindowsAppWithDLL builds the Windows application (see above) with
// the mingw-w64 compiler cc into dir: dir/app.exe and dir/reafix.dll.
func BuildWindowsAppWithDLL(cc, dir string) (exe, dll string, err error) {
	for name, text := range map[string]string{"reafix.c": winDLLC, "reafix.def": winDLLDef, "app.c": winAppC} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", "", err
		}
	}
	if err := runIn(dir, nil, cc, "-O1", "-shared", "-o", "reafix.dll", "reafix.c", "reafix.def", "-Wl,--out-implib,libreafix.a"); err != nil {
		return "", "", err
	}
	if err := runIn(dir, nil, cc, "-O1", "-o", "app.exe", "app.c", "-L.", "-lreafix"); err != nil {
		return "", "", err
	}
	return filepath.Join(dir, "app.exe"), filepath.Join(dir, "reafix.dll"), nil
}

// WindowsAppWithDLL builds the Windows application into t.TempDir().
func WindowsAppWithDLL(t testing.TB) (dir, exe, dll string) {
	t.Helper()
	cc := Need(t, MinGW)
	dir = t.TempDir()
	exe, dll, err := BuildWindowsAppWithDLL(cc, dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, exe, dll
}

// darwinGoMain is a Go program whose runtime imports libSystem (through
// LC_LOAD_DYLIB /usr/lib/libSystem.B.dylib and the bind opcodes of its
// __got): no dylib it names exists on a Linux host.
const darwinGoMain = `package main

import (
	"fmt"
	"os"
)

func main() { fmt.Println("REA darwin fixture", len(os.Args)) }
`

// BuildDarwinGoProgram builds a darwin/goarch Go program (CGO off) with
// the go command goBin into dir/darwin-<goarch>.
func BuildDarwinGoProgram(goBin, dir, goarch string) (string, error) {
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(darwinGoMain), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module fixture\n\ngo 1.22\n"), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "darwin-"+goarch)
	env := []string{"GOOS=darwin", "GOARCH=" + goarch, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off"}
	return out, runIn(dir, env, goBin, "build", "-trimpath", "-o", out, ".")
}

// DarwinGoProgram builds a darwin/arm64 Go program into t.TempDir().
func DarwinGoProgram(t testing.TB) string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = Need(t, "go")
	}
	out, err := BuildDarwinGoProgram(goBin, t.TempDir(), "arm64")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The Mach-O application, linked by ld64.lld against a text stub of
// libSystem (no macOS SDK needed): app (arm64, two-level namespace,
// LC_RPATH @loader_path) loads @rpath/libfix.dylib and
// /usr/lib/libSystem.B.dylib; it calls fix_add, fix_len (lazy binds through
// __stubs), reads fix_data (a __got bind), imports fix_weak weakly, and
// calls printf and puts from libSystem. libfix.dylib (install name
// @rpath/libfix.dylib) exports fix_add, fix_len, fix_say, fix_weak and
// fix_data in its export trie and imports strlen and printf.
const (
	machoLibSystemTBD = `--- !tapi-tbd
tbd-version: 4
targets: [ arm64-macos ]
install-name: '/usr/lib/libSystem.B.dylib'
current-version: 1311
exports:
  - targets: [ arm64-macos ]
    symbols: [ dyld_stub_binder, _printf, _puts, _strlen ]
...
`
	machoFixC = `typedef unsigned long size_t;
extern int printf(const char *, ...);
extern size_t strlen(const char *);
int fix_add(int a, int b) { return a + b; }
int fix_len(const char *s) { return (int)strlen(s); }
int fix_data = 9;
int fix_say(const char *s) { return printf("%s\n", s); }
int fix_weak(void) { return 1; }
`
	machoAppC = `extern int printf(const char *, ...);
extern int puts(const char *);
extern int fix_add(int, int);
extern int fix_len(const char *);
extern int fix_data;
extern int fix_weak(void) __attribute__((weak_import));
int main(int argc, char **argv) {
	printf("%d %d\n", fix_add(argc, 1), fix_len(argv[0]) + fix_data);
	if (fix_weak)
		fix_weak();
	return puts("done");
}
`
)

// Tools of the Mach-O application.
const (
	Clang   = "clang"
	LD64LLD = "ld64.lld-14"
)

// BuildMachOAppWithDylib builds the Mach-O application (see above) with
// clang and ld64 (ld64.lld) into dir: dir/app and dir/libfix.dylib.
func BuildMachOAppWithDylib(clang, ld64, dir string) (exe, dylib string, err error) {
	for name, text := range map[string]string{"libSystem.tbd": machoLibSystemTBD, "fix.c": machoFixC, "app.c": machoAppC} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", "", err
		}
	}
	target := []string{"-target", "arm64-apple-macos11", "-O1", "-c"}
	link := []string{"-arch", "arm64", "-platform_version", "macos", "11.0", "11.0"}
	steps := []struct {
		tool string
		args []string
	}{
		{clang, append(append([]string{}, target...), "fix.c", "-o", "fix.o")},
		{clang, append(append([]string{}, target...), "app.c", "-o", "app.o")},
		{ld64, append(append([]string{}, link...), "-dylib", "-install_name", "@rpath/libfix.dylib", "-o", "libfix.dylib", "fix.o", "libSystem.tbd")},
		{ld64, append(append([]string{}, link...), "-o", "app", "app.o", "libfix.dylib", "libSystem.tbd", "-rpath", "@loader_path")},
	}
	for _, s := range steps {
		if err := runIn(dir, nil, s.tool, s.args...); err != nil {
			return "", "", err
		}
	}
	return filepath.Join(dir, "app"), filepath.Join(dir, "libfix.dylib"), nil
}

// MachOAppWithDylib builds the Mach-O application into t.TempDir().
func MachOAppWithDylib(t testing.TB) (dir, exe, dylib string) {
	t.Helper()
	clang, ld64 := Need(t, Clang), Need(t, LD64LLD)
	dir = t.TempDir()
	exe, dylib, err := BuildMachOAppWithDylib(clang, ld64, dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, exe, dylib
}

// runIn runs a build command in dir with extra environment.
func runIn(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %v: %w\n%s", filepath.Base(name), args, err, b)
	}
	return nil
}
