package gdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// The fixture is compiled by the test (gcc -O0 -g); no binary is checked in.
// A missing tool skips, unless REA_REQUIRE_ALL_TOOLS=1, where it fails.

const fixtureC = `#include <stdio.h>
#include <string.h>

int rea_global_counter = 42;
const char rea_banner[] = "REA fixture banner string";

__attribute__((noinline)) int rea_add(int a, int b) { return a + b + rea_global_counter; }
__attribute__((noinline)) int rea_mul(int a, int b) { return a * b; }
static __attribute__((noinline)) int rea_static_helper(const char *s) {
	int n = 0;
	for (size_t i = 0; i < strlen(s); i++) {
		if (s[i] == '/')
			n++;
	}
	return n;
}

int main(int argc, char **argv) {
	printf("REA says hello %d\n", rea_add(argc, 2));
	puts(rea_banner);
	return rea_mul(argc, rea_static_helper(argv[0]));
}
`

// ownFunctions are the fixture's functions with their definition lines.
var ownFunctions = map[string]int{"rea_add": 7, "rea_mul": 8, "rea_static_helper": 9, "main": 18}

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixturePath string
	fixtureErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// fixture compiles the C fixture once per test binary.
func fixture(t testing.TB) string {
	t.Helper()
	gcc := testkit.Need(t, "gcc")
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "rea-gdb-fixture-")
		if fixtureErr != nil {
			return
		}
		fixturePath, fixtureErr = testkit.BuildC(gcc, fixtureDir, "fixture", fixtureC, "-O0", "-g")
	})
	if fixtureErr != nil {
		t.Fatalf("building the fixture: %v", fixtureErr)
	}
	return fixturePath
}

func targetOf(t testing.TB, path string) provider.Target {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return provider.Target{Path: path, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b)),
		Format: "elf", Kind: "executable", Architecture: "x86_64"}
}

// enabled returns a gdb provider configured on, skipping without gdb.
func enabled(t testing.TB) *Provider {
	t.Helper()
	testkit.Need(t, "gdb")
	p := New(Config{Enabled: true})
	if err := p.Probe(context.Background()); err != nil {
		t.Fatalf("Probe: %v", err)
	}
	return p
}

const testRunID = "5f0c2b8e-9d4a-4e6b-8c1f-2a3b4c5d6e7f"

// startClient starts a gdb client on path and closes it at the end.
func startClient(t testing.TB, p *Provider, path string) *Client {
	t.Helper()
	tg := targetOf(t, path)
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	cl, err := p.Start(context.Background(), tg, prof, provider.Run{ID: testRunID})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c := cl.(*Client)
	t.Cleanup(func() {
		if cu, err := c.Close(context.Background()); err != nil || !cu.Complete {
			t.Errorf("Close: %+v %v", cu, err)
		}
	})
	return c
}

// childrenOf lists the pids whose parent is pid, from /proc.
func childrenOf(t testing.TB, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) && f[0] != "Z" {
			out = append(out, n)
		}
	}
	return out
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }
