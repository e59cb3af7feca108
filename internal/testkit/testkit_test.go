package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestOnlyTestsImport: testkit must stay out of every non-test build.
func TestOnlyTestsImport(t *testing.T) {
	gobin := Need(t, "go")
	out, err := exec.Command(gobin, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/rea-re/rea/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if imp == "github.com/rea-re/rea/internal/testkit" {
				t.Errorf("%s imports testkit outside its tests", pkg)
			}
		}
	}
}

// TestLockFileExcludes: a second holder waits until the first releases.
func TestLockFileExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	unlock, err := lockFile(path, true)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	released := false
	done := make(chan bool)
	go func() {
		u, err := lockFile(path, true)
		if err != nil {
			t.Error(err)
			done <- false
			return
		}
		mu.Lock()
		ok := released
		mu.Unlock()
		u()
		done <- ok
	}()
	mu.Lock()
	released = true
	mu.Unlock()
	unlock()
	if !<-done {
		t.Fatal("second lock taken while the first was held")
	}
}

// TestLockFileShared: shared holders coexist (two in one goroutine would
// hang otherwise), and an exclusive one waits until both have released —
// how the PostgreSQL tests of several packages share the one cluster while
// a restarting test has it alone.
func TestLockFileShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	var unlocks []func()
	for range 2 {
		u, err := lockFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		unlocks = append(unlocks, u)
	}
	var mu sync.Mutex
	released := 0
	done := make(chan int)
	go func() {
		u, err := lockFile(path, true)
		if err != nil {
			t.Error(err)
			done <- -1
			return
		}
		mu.Lock()
		n := released
		mu.Unlock()
		u()
		done <- n
	}()
	for _, u := range unlocks {
		mu.Lock()
		released++
		mu.Unlock()
		u()
	}
	if n := <-done; n != 2 {
		t.Fatalf("exclusive lock taken with %d of 2 shared holders released", n)
	}
}

// TestCompileC builds and runs a fixture.
func TestCompileC(t *testing.T) {
	bin := CompileC(t, t.TempDir(), "hello", "int main(void) { return 3; }\n", "-O0")
	err := exec.Command(bin).Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("run: %v", err)
	}
}

// TestASARPackerRuns: the packer the ASAR oracle tests use answers --version
// with the pinned release.
func TestASARPackerRuns(t *testing.T) {
	out, err := exec.Command(ASARPacker(t), "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("asar --version: %v\n%s", err, out)
	}
	if want := "v" + strings.TrimPrefix(ASARPackage, "@electron/asar@"); strings.TrimSpace(string(out)) != want && os.Getenv("REA_ASAR") == "" {
		t.Fatalf("asar --version = %q, want %s", out, want)
	}
}

// TestMCPSDKInstalled: the SDK the independent client test imports is the
// pinned release.
func TestMCPSDKInstalled(t *testing.T) {
	dir := MCPSDK(t)
	if got, want := installedVersion(dir), strings.TrimPrefix(MCPSDKPackage, "@modelcontextprotocol/sdk@"); got != want {
		t.Fatalf("%s holds version %q, want %s", dir, got, want)
	}
}

// TestCIInstallsThePinnedPackages: .ci/run installs exactly the versions
// testkit pins, so CI never installs one and tests another.
func TestCIInstallsThePinnedPackages(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*npmPackage{asarPackage, mcpSDKPackage} {
		if !strings.Contains(string(b), "npm install --prefix \"$"+p.prefixEnv+"\"") || !strings.Contains(string(b), " "+p.spec+" ") {
			t.Errorf(".ci/run does not install %s under $%s", p.spec, p.prefixEnv)
		}
	}
}

// TestBuildCacheBuildsOnce: concurrent askers of one key share one build;
// keys that differ only in how their parts split are different builds; a
// skip and an error are remembered like a path.
func TestBuildCacheBuildsOnce(t *testing.T) {
	c := &BuildCache{Dir: t.TempDir()}
	var mu sync.Mutex
	runs := map[string]int{}
	build := func(tag string) func(dir string) (string, string, error) {
		return func(dir string) (string, string, error) {
			mu.Lock()
			runs[tag]++
			mu.Unlock()
			out := filepath.Join(dir, "out")
			return out, "", os.WriteFile(out, []byte(tag), 0o644)
		}
	}
	var wg sync.WaitGroup
	paths := make([]string, 8)
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, _, err := c.Build([]string{"gcc", "-O2", "src"}, build("a"))
			if err != nil {
				t.Error(err)
			}
			paths[i] = p
		}()
	}
	wg.Wait()
	p1, _, _ := c.Build([]string{"ab", "c"}, build("b"))
	p2, _, _ := c.Build([]string{"a", "bc"}, build("c"))
	if runs["a"] != 1 || runs["b"] != 1 || runs["c"] != 1 || p1 == p2 {
		t.Fatalf("runs %v, paths %q %q", runs, p1, p2)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err != nil || string(b) != "a" || p != paths[0] {
			t.Fatalf("path %q: %q %v", p, b, err)
		}
	}
	n := 0
	for range 2 {
		_, skip, _ := c.Build([]string{"skip"}, func(string) (string, string, error) { n++; return "", "no tool", nil })
		_, _, err := c.Build([]string{"fail"}, func(string) (string, string, error) { n++; return "", "", os.ErrInvalid })
		if skip != "no tool" || err != os.ErrInvalid {
			t.Fatalf("skip %q err %v", skip, err)
		}
	}
	if n != 2 {
		t.Fatalf("%d builds for two keys asked twice", n)
	}
}
