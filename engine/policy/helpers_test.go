package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// tree is a real directory layout for the policy tests:
//
//	base/root-a/{f.txt, sub/, link-in → sub, link-out → ../outside,
//	             dangle-out → ../outside/created.json, dangle-in → sub/x.json}
//	base/root-ab/g.txt
//	base/outside/secret.txt
//	base/bin/tool, base/bin/other
type tree struct {
	base string
}

func newTree(t testing.TB) *tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(rel string) {
		if err := os.MkdirAll(filepath.Join(base, rel), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	file := func(rel string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(base, rel), []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(base, rel)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"root-a/sub", "root-ab", "outside", "bin", "project"} {
		mk(d)
	}
	file("root-a/f.txt", 0o600)
	file("root-ab/g.txt", 0o600)
	file("outside/secret.txt", 0o600)
	file("bin/tool", 0o700)
	file("bin/other", 0o700)
	link("sub", "root-a/link-in")
	link("../outside", "root-a/link-out")
	link("../outside/created.json", "root-a/dangle-out")
	link("sub/x.json", "root-a/dangle-in")
	return &tree{base: base}
}

// p expands a leading "@" to the tree's base.
func (tr *tree) p(s string) string {
	if strings.HasPrefix(s, "@") {
		return tr.base + s[1:]
	}
	return s
}

func (tr *tree) ps(xs []string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, tr.p(x))
	}
	return out
}

func jsonList(xs ...string) string {
	b, _ := json.Marshal(xs)
	return string(b)
}

// env is the administrator configuration of the matrix: evidence roots
// [root-a]; process capture inside base with executables under bin, two
// allowed environment names and loopback networking.
func (tr *tree) env() map[string]string {
	return map[string]string{
		EnvEvidenceRoots:          jsonList(tr.p("@/root-a")),
		EnvProcessCaptureEnabled:  "true",
		EnvProcessWorkingRoots:    jsonList(tr.p("@")),
		EnvProcessExecutableRoots: jsonList(tr.p("@/bin")),
		EnvProcessAllowedEnv:      jsonList("ALLOWED_A", "ALLOWED_B"),
	}
}

func (tr *tree) config(t testing.TB, env map[string]string) *Config {
	t.Helper()
	cfg, err := LoadConfig(env)
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	return cfg
}

// clock is an injected, settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// ids is a deterministic, concurrency-safe id source.
type ids struct {
	mu sync.Mutex
	n  int
}

func (s *ids) Next() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return fmt.Sprintf("dec-%06d", s.n)
}

func strp(s string) *string { return &s }

func grant(id, lifetime, capability string, roots, exes, env []string, network string, opID *string, expires *string) Grant {
	if network == "" {
		network = NetworkNone
	}
	return Grant{Scope: Scope{Capability: capability, Roots: roots, Executables: exes,
		EnvironmentNames: env, Network: network}, GrantID: id, Lifetime: lifetime,
		OperationIdentity: opID, ExpiresAt: expires}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
