// Package testkit holds the helpers the repository's tests share: the
// optional-tool policy (skip, or fail under REA_REQUIRE_ALL_TOOLS=1), the
// @electron/asar oracle, the rea binary and compiled C fixtures.
//
// It is for _test.go files only; no package outside tests may import it
// (TestOnlyTestsImport checks).
package testkit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// RequireAll reports whether REA_REQUIRE_ALL_TOOLS=1, where CI installs every
// optional tool and a test that would skip for a missing one must fail.
func RequireAll() bool { return os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" }

// SkipOrFail skips the test with msg, or fails it under RequireAll.
func SkipOrFail(t testing.TB, msg string) {
	t.Helper()
	if RequireAll() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Need returns the path of tool on PATH, skipping the test (failing it
// under RequireAll) when it is absent.
func Need(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		SkipOrFail(t, "tool "+tool+" is not installed; install it to run this test")
	}
	return p
}

// ASARPackage is the reference packer the ASAR tests use as an independent
// oracle. 3.x is pinned because 4.x needs node >= 22.12, newer than Debian's.
const ASARPackage = "@electron/asar@3.4.1"

var (
	asarOnce sync.Once
	asarPath string
	asarErr  error
)

// ASARPacker returns the path of the @electron/asar command line tool (a
// node script, so node is needed too): REA_ASAR when set, else the copy under
// REA_ELECTRON_ASAR_PREFIX (default $XDG_CACHE_HOME/rea-test/electron-asar),
// which npm installs there on first use. .ci/run sets both variables.
func ASARPacker(t testing.TB) string {
	t.Helper()
	Need(t, "node")
	asarOnce.Do(func() { asarPath, asarErr = installASAR() })
	if asarErr != nil {
		SkipOrFail(t, asarErr.Error())
	}
	return asarPath
}

func installASAR() (string, error) {
	if p := os.Getenv("REA_ASAR"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("REA_ASAR names %s (%s), which is absent: %w", p, ASARPackage, err)
		}
		return p, nil
	}
	prefix := os.Getenv("REA_ELECTRON_ASAR_PREFIX")
	if prefix == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no place to install %s: %w", ASARPackage, err)
		}
		prefix = filepath.Join(c, "rea-test", "electron-asar")
	}
	bin := filepath.Join(prefix, "node_modules", ".bin", "asar")
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", fmt.Errorf("installing %s: %w", ASARPackage, err)
	}
	// Test binaries of several packages run at once and share the prefix;
	// the lock keeps two npm installs from writing it together.
	unlock, err := lockFile(filepath.Join(prefix, ".rea-install.lock"))
	if err != nil {
		return "", fmt.Errorf("installing %s: %w", ASARPackage, err)
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm is not installed and " + ASARPackage + " is not under " + prefix)
	}
	out, err := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save",
		"--loglevel=error", ASARPackage).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install %s: %w: %s", ASARPackage, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("npm install %s left no %s: %w", ASARPackage, bin, err)
	}
	return bin, nil
}

var (
	reaOnce sync.Once
	reaPath string
	reaErr  error
)

// Rea builds cmd/rea once per test binary and returns its path with symlinks
// evaluated (the form a client registration must name to be aligned).
func Rea(t testing.TB) string {
	t.Helper()
	reaOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rea-test-bin")
		if err != nil {
			reaErr = err
			return
		}
		out := filepath.Join(dir, "rea")
		if b, err := exec.Command("go", "build", "-o", out, "github.com/rea-re/rea/cmd/rea").CombinedOutput(); err != nil {
			reaErr = fmt.Errorf("go build: %v\n%s", err, b)
			return
		}
		reaPath, reaErr = filepath.EvalSymlinks(out)
	})
	if reaErr != nil {
		t.Fatal(reaErr)
	}
	return reaPath
}

// BuildC writes source to dir/name.c and compiles it with gcc and flags into
// dir/name, which it returns. It does not touch a testing.TB so that callers
// can build once per test binary under a sync.Once.
func BuildC(gcc, dir, name, source string, flags ...string) (string, error) {
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(source), 0o600); err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	args := append(append([]string{}, flags...), "-o", out, src)
	if b, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc %s: %w\n%s", name, err, b)
	}
	return out, nil
}

// CompileC is BuildC for one test: it needs gcc (see Need) and fails the
// test when the fixture does not compile.
func CompileC(t testing.TB, dir, name, source string, flags ...string) string {
	t.Helper()
	out, err := BuildC(Need(t, "gcc"), dir, name, source, flags...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
