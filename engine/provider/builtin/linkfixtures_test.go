package builtin

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// The linker fixtures (internal/testkit/linkfixtures.go), built once per
// test binary through fixtureBuilds.

// linkApp is the ELF application: its directory, the program and its two
// libraries.
func linkApp(t testing.TB) (dir, exe, libOne, libTwo string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the ELF application is loaded on Linux only")
	}
	exe = linkFixture(t, "link-elf-app", "gcc", func(dir, tool string) (string, error) {
		exe, _, _, err := testkit.BuildAppWithLibraries(tool, dir)
		return exe, err
	})
	dir = filepath.Dir(exe)
	return dir, exe, filepath.Join(dir, "libone.so"), filepath.Join(dir, "libtwo.so.1")
}

// linkWinApp is the Windows application: the program and its DLL.
func linkWinApp(t testing.TB) (exe, dll string) {
	t.Helper()
	exe = linkFixture(t, "link-pe-app", testkit.MinGW, func(dir, tool string) (string, error) {
		exe, _, err := testkit.BuildWindowsAppWithDLL(tool, dir)
		return exe, err
	})
	return exe, filepath.Join(filepath.Dir(exe), "reafix.dll")
}

// linkMachOApp is the Mach-O application: the program and its dylib.
func linkMachOApp(t testing.TB) (exe, dylib string) {
	t.Helper()
	needTool(t, testkit.LD64LLD)
	exe = linkFixture(t, "link-macho-app", testkit.Clang, func(dir, tool string) (string, error) {
		ld, err := exec.LookPath(testkit.LD64LLD)
		if err != nil {
			return "", err
		}
		exe, _, err := testkit.BuildMachOAppWithDylib(tool, ld, dir)
		return exe, err
	})
	return exe, filepath.Join(filepath.Dir(exe), "libfix.dylib")
}

// linkDarwinGo is the darwin/arm64 Go program.
func linkDarwinGo(t testing.TB) string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	return linkFixture(t, "link-darwin-go", goBin, func(dir, tool string) (string, error) {
		return testkit.BuildDarwinGoProgram(tool, dir, "arm64")
	})
}

// linkFixture runs build once per test binary with tool found on PATH (or
// as a path), skipping (failing under REA_REQUIRE_ALL_TOOLS=1) without it.
func linkFixture(t testing.TB, name, tool string, build func(dir, tool string) (string, error)) string {
	t.Helper()
	path, skip, err := fixtureBuilds.Build([]string{"link", name}, func(dir string) (string, string, error) {
		p, err := exec.LookPath(tool)
		if err != nil {
			return "", "tool " + tool + " is not installed; install it to run this test", nil
		}
		out, err := build(dir, p)
		return out, "", err
	})
	if skip != "" {
		if requireAll() {
			t.Fatal(skip)
		}
		t.Skip(skip)
	}
	if err != nil {
		t.Fatalf("building fixture %s: %v", name, err)
	}
	return path
}
