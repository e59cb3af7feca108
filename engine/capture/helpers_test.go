package capture

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// program compiles testdata/<name>.c once per test binary.
func program(t testing.TB, name string) string {
	t.Helper()
	gcc := testkit.Need(t, "gcc")
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "rea-capture-fixtures-")
		if buildErr != nil {
			return
		}
		for _, n := range []string{"netprobe", "forker"} {
			var src []byte
			if src, buildErr = os.ReadFile(filepath.Join("testdata", n+".c")); buildErr != nil {
				return
			}
			if _, buildErr = testkit.BuildC(gcc, buildDir, n, string(src), "-O1"); buildErr != nil {
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, name)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
