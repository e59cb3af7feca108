package capture

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

func requireAll() bool { return os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" }

func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		msg := "tool " + name + " is not installed; install it to run this test"
		if requireAll() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// program compiles testdata/<name>.c once per test binary.
func program(t testing.TB, name string) string {
	t.Helper()
	gcc := needTool(t, "gcc")
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "rea-capture-fixtures-")
		if buildErr != nil {
			return
		}
		for _, n := range []string{"netprobe", "forker"} {
			out, err := exec.Command(gcc, "-O1", "-o", filepath.Join(buildDir, n), filepath.Join("testdata", n+".c")).CombinedOutput()
			if err != nil {
				buildErr = &buildError{n, string(out), err}
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, name)
}

type buildError struct {
	name, out string
	err       error
}

func (e *buildError) Error() string { return "gcc " + e.name + ": " + e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
