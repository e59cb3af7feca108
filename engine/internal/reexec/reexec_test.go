package reexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// harness is one per test binary, so that the test mains' objects are
// built once for every test.
var harness *Harness

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rea-reexec")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	harness = New(dir, 2)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func cases(t *testing.T) []Case {
	t.Helper()
	cs, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// need skips (fails under REA_REQUIRE_ALL_TOOLS=1) when a cell's tools
// are missing.
func need(t *testing.T, tc Toolchain, a Arch) {
	t.Helper()
	if err := harness.Available(tc, a); err != nil {
		if errors.Is(err, ErrMissingTool) {
			testkit.SkipOrFail(t, err.Error())
		}
		t.Fatal(err)
	}
}

// forEach runs f for every case and cell, at most two at once (the
// harness bounds the processes too), and stops at the first error.
func forEach(t *testing.T, cs []Case, cells []Config, f func(ctx context.Context, c Case, cell Config) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type job struct {
		c    Case
		cell Config
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range 4 { // a few more workers than slots keep the slots busy
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := f(ctx, j.c, j.cell); err != nil {
					once.Do(func() { first = fmt.Errorf("%s %s: %w", j.c.Name, j.cell, err); cancel() })
				}
			}
		}()
	}
feed:
	for _, cell := range cells {
		for _, c := range cs {
			select {
			case jobs <- job{c, cell}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

// cells is the matrix the soundness tests run: all of it, or under -short
// gcc x86-64 at -O0 and -O2.
func cells(t *testing.T) []Config {
	t.Helper()
	if testing.Short() {
		need(t, GCC, AMD64)
		return []Config{{GCC, 0, AMD64}, {GCC, 2, AMD64}}
	}
	for _, tc := range Toolchains() {
		for _, a := range Arches() {
			need(t, tc, a)
		}
	}
	return Matrix()
}

// TestCorpusSize: issue 26 asks for at least 200 functions.
func TestCorpusSize(t *testing.T) {
	if n := len(cases(t)); n < 200 {
		t.Errorf("the corpus has %d functions, want ≥ 200", n)
	}
}

// TestOriginalsPass: every test main passes against its own function,
// built as a user would, in every cell of the matrix.
func TestOriginalsPass(t *testing.T) {
	cs := cases(t)
	cl := cells(t)
	var tab Table
	start := time.Now()
	forEach(t, cs, cl, func(ctx context.Context, c Case, cell Config) error {
		b, err := harness.Build(ctx, c, cell.Toolchain, cell.Level, cell.Arch)
		if err != nil {
			return err
		}
		if b.Addr == 0 || b.Size == 0 {
			return fmt.Errorf("%s: symbol %s at %#x size %d", b.Path, b.Func, b.Addr, b.Size)
		}
		r, err := harness.Run(ctx, b)
		if err != nil {
			return err
		}
		tab.Add(cell, c.Name, r.Pass)
		if !r.Pass {
			t.Errorf("%s %s: %s", c.Name, cell, r.Output)
		}
		return nil
	})
	t.Logf("%d functions × %d cells in %s\n%s", len(cs), len(cl), time.Since(start).Round(time.Millisecond), tab.String())
}

// TestStubsFail: every test main can fail — a unit that defines the
// function with the right prototype but does nothing and returns zero
// must fail it. The cases whose mains a stub passes are listed.
func TestStubsFail(t *testing.T) {
	need(t, GCC, AMD64)
	cs := cases(t)
	var mu sync.Mutex
	var passed []string
	forEach(t, cs, []Config{{GCC, 0, AMD64}}, func(ctx context.Context, c Case, cell Config) error {
		r, err := harness.Check(ctx, c, cell.Toolchain, cell.Arch, Stub(c))
		if err != nil {
			return err
		}
		if r.Stage == "compile" || r.Stage == "link" {
			return fmt.Errorf("the stub does not build: %s", r.Output)
		}
		if r.Pass {
			mu.Lock()
			passed = append(passed, c.Name)
			mu.Unlock()
		}
		return nil
	})
	if len(passed) > 0 {
		t.Errorf("a stub passes the tests of %d of %d functions: %s", len(passed), len(cs), strings.Join(passed, ", "))
	}
}
