package builtin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// Fixtures are compiled by the tests from the sources below; no binary is
// checked in. A missing tool skips the test that needs it, unless
// REA_REQUIRE_ALL_TOOLS=1, where it fails.

const fixtureC = `#include <stdio.h>
#include <string.h>
#include <uchar.h>

int rea_global_counter = 42;
const char rea_banner[] = "REA fixture banner string";
const char16_t rea_wide[] = u"REA wide text";

__attribute__((noinline)) int rea_add(int a, int b) { return a + b + rea_global_counter; }
__attribute__((noinline)) int rea_mul(int a, int b) { return a * b; }
static __attribute__((noinline)) int rea_static_helper(const char *s) { return (int)strlen(s) + (int)rea_wide[0]; }

int main(int argc, char **argv) {
	printf("REA says hello %d\n", rea_add(argc, 2));
	puts(rea_banner);
	return rea_mul(argc, rea_static_helper(argv[0]));
}
`

const fixtureGo = `package main

import (
	"fmt"
	"os"
)

var Global = "REA go global string"

//go:noinline
func helper(x int) int { return x*3 + len(os.Args) }

func main() { fmt.Println("REA go fixture literal", helper(4), Global) }
`

var (
	fixtureDir string
	// fixtureBuilds holds every fixture built by this test binary, below
	// fixtureDir: one build per distinct (tool, flags, environment,
	// source), one hard link per fixture name.
	fixtureBuilds testkit.BuildCache
)

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "rea-builtin-fixtures-")
	if err != nil {
		panic(err)
	}
	fixtureDir = d
	fixtureBuilds.Dir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// skipLarge skips, under go test -short (the quick local loop the README
// names), a test that reads large system binaries (libLLVM, node, gdb,
// Debian's libraries) or builds the fixture corpus. CI runs everything.
func skipLarge(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: reads large system binaries or builds the fixture corpus")
	}
}

// skipShortCase skips, under -short, one case of a table whose first case
// still runs: the quick loop keeps a representative of the behaviour and
// leaves the other compilers, architectures and system files (what names
// the work it saves) to the full run.
func skipShortCase(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + what + "; the table's first case represents it")
	}
}

func requireAll() bool { return os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" }

// needTool skips (or fails under REA_REQUIRE_ALL_TOOLS=1) when name is not on PATH.
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

// fixture builds (once per test binary) the named fixture with build, which
// returns a skip reason when a tool is missing.
func fixture(t testing.TB, name string, build func(dir, out string) (skip string, err error)) string {
	return keyedFixture(t, name, nil, build)
}

// keyedFixture is fixture for a build whose output is determined by key
// (tool, flags, environment, source): fixtures of different names with the
// same key are built once and share the bytes (a hard link per name, so
// each keeps its file name). A nil key means the name alone.
func keyedFixture(t testing.TB, name string, key []string, build func(dir, out string) (skip string, err error)) string {
	t.Helper()
	path, skip, err := fixtureBuilds.Build([]string{"name", name}, func(dir string) (string, string, error) {
		out := filepath.Join(dir, name)
		if key == nil {
			skip, err := build(dir, out)
			return out, skip, err
		}
		built, skip, err := fixtureBuilds.Build(append([]string{"key"}, key...), func(dir string) (string, string, error) {
			out := filepath.Join(dir, name)
			skip, err := build(dir, out)
			return out, skip, err
		})
		if skip != "" || err != nil {
			return "", skip, err
		}
		if os.Link(built, out) == nil {
			return out, "", nil
		}
		b, err := os.ReadFile(built) // a file system without hard links
		if err == nil {
			err = os.WriteFile(out, b, 0o755)
		}
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

func run(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return &toolError{cmd: name, out: out.String(), err: err}
	}
	return nil
}

type toolError struct {
	cmd, out string
	err      error
}

func (e *toolError) Error() string { return e.cmd + ": " + e.err.Error() + "\n" + e.out }

// cFixture compiles fixtureC with compiler and flags.
func cFixture(t testing.TB, name, compiler string, flags ...string) string {
	key := append([]string{"cc", compiler, fixtureC}, flags...)
	return keyedFixture(t, name, key, func(dir, out string) (string, error) {
		if _, err := exec.LookPath(compiler); err != nil {
			return "tool " + compiler + " is not installed; install it to run this test", nil
		}
		src := filepath.Join(dir, "fixture.c")
		if err := os.WriteFile(src, []byte(fixtureC), 0o644); err != nil {
			return "", err
		}
		args := append(append([]string{}, flags...), "-o", out, src)
		return "", run(dir, nil, compiler, args...)
	})
}

// goFixture builds fixtureGo for goos/goarch (no C toolchain needed).
func goFixture(t testing.TB, goos, goarch string) string {
	return goBuildFixture(t, "go-"+goos+"-"+goarch, goos, goarch)
}

// goBuildFixture builds fixtureGo for goos/goarch as the cached fixture
// name, with extra go build flags (e.g. -ldflags=-s -w).
func goBuildFixture(t testing.TB, name, goos, goarch string, extra ...string) string {
	key := append([]string{"go", goos, goarch, fixtureGo}, extra...)
	return keyedFixture(t, name, key, func(dir, out string) (string, error) {
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(fixtureGo), 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module fixture\n\ngo 1.22\n"), 0o644); err != nil {
			return "", err
		}
		goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		args := append(append([]string{"build", "-trimpath"}, extra...), "-o", out, ".")
		return "", run(dir, []string{"GOOS=" + goos, "GOARCH=" + goarch, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off"},
			goBin, args...)
	})
}

func fileSHA(t testing.TB, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// open starts a client on path with a fresh provider.
func open(t testing.TB, path string) (*Provider, provider.Target, provider.Client) {
	t.Helper()
	p := New("test")
	tg := targetFor(t, path)
	c := startOn(t, p, tg)
	return p, tg, c
}

func targetFor(t testing.TB, path string) provider.Target {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := parseImage(b)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return provider.Target{Path: path, SHA256: fileSHA(t, path), Size: int64(len(b)),
		Format: img.container, Kind: "executable", Architecture: img.arch}
}

func startOn(t testing.TB, p *Provider, tg provider.Target) provider.Client {
	t.Helper()
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Start(context.Background(), tg, prof, provider.Run{ID: "run"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cl, err := c.Close(context.Background())
		if err != nil || !cl.Complete {
			t.Errorf("close: %+v %v", cl, err)
		}
	})
	return c
}

func do(t testing.TB, c provider.Client, op string, in provider.Params) provider.Result {
	t.Helper()
	if in == nil {
		in = provider.Params{}
	}
	r, err := c.Do(context.Background(), op, in, nil)
	if err != nil {
		t.Fatalf("%s %v: %v", op, in, err)
	}
	return r
}

// all* page through a list with a small page size and return every item.
func allProcedures(t testing.TB, c provider.Client) []provider.ProcedureItem {
	return allItems[provider.ProcedureItem](t, c, provider.OpListProcedures, nil)
}

func allNames(t testing.TB, c provider.Client) []provider.NameItem {
	return allItems[provider.NameItem](t, c, provider.OpListNames, nil)
}

func allStrings(t testing.TB, c provider.Client) []provider.StringItem {
	return allItems[provider.StringItem](t, c, provider.OpListStrings, nil)
}

func allItems[T any](t testing.TB, c provider.Client, op string, extra provider.Params) []T {
	t.Helper()
	var out []T
	off := int64(0)
	for {
		in := provider.Params{"offset": off, "limit": int64(provider.MaxPageResults), "document": nil}
		for k, v := range extra {
			in[k] = v
		}
		r := do(t, c, op, in)
		p := r.Normalized.(provider.Page[T])
		if p.Total == nil {
			t.Fatalf("%s: total is null", op)
		}
		out = append(out, p.Items...)
		if !p.Truncated {
			if len(out) != *p.Total {
				t.Fatalf("%s: got %d items, total %d", op, len(out), *p.Total)
			}
			return out
		}
		off = int64(*p.NextOffset)
	}
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }

// openExtents opens path and builds its symbol and extent indexes, as an
// open session has them before its first procedure question.
func openExtents(t testing.TB, path string) (*Client, *symIndex, *extentIndex) {
	_, _, cl := open(t, path)
	c := cl.(*Client)
	six, ex, err := c.extents(context.Background(), "test", progress.OrNop(nil))
	if err != nil {
		t.Fatal(err)
	}
	return c, six, ex
}
