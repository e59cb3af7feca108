package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// registryFixtures are three gcc builds of fixtureC with distinct contents.
func registryFixtures(t *testing.T) []string {
	t.Helper()
	return []string{
		cFixture(t, "registry-O0", "gcc", "-O0", "-g"),
		cFixture(t, "registry-O1", "gcc", "-O1"),
		cFixture(t, "registry-O2", "gcc", "-O2", "-fno-inline"),
	}
}

// buildIndexes builds a client's symbol, string and reference indexes.
func buildIndexes(t testing.TB, c provider.Client) []provider.ProcedureItem {
	t.Helper()
	procs := allProcedures(t, c)
	allStrings(t, c)
	do(t, c, provider.OpXrefs, provider.Params{"address": procs[0].Address})
	return procs
}

func entryOf(c provider.Client) *indexEntry { return c.(*Client).e }

func built(c provider.Client) bool {
	_, ok := entryOf(c).ix.syms.peek()
	return ok
}

// Two targets of the same bytes (two paths), in two "connections" (clients
// of one provider), share one index and one mapping; closing one keeps them
// for the other; closing both unmaps the file and keeps the index for a
// later open.
func TestRegistrySharesIndexAndMapping(t *testing.T) {
	src := registryFixtures(t)[0]
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy")
	if err := os.WriteFile(copyPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	p := New("test")
	c1 := startOn(t, p, targetFor(t, src))
	c2 := startOn(t, p, targetFor(t, copyPath))
	if entryOf(c1) != entryOf(c2) || entryOf(c1).m == nil {
		t.Fatal("two targets of the same bytes do not share one registry entry and mapping")
	}
	buildIndexes(t, c1)
	if !built(c2) {
		t.Fatal("the index c1 built is not c2's")
	}
	if s := p.reg.stats(); s.entries != 1 || s.mapped != 1 || s.used <= 0 {
		t.Fatalf("registry %+v, want one mapped, accounted entry", s)
	}
	if _, err := c1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := p.reg.stats(); s.mapped != 1 || entryOf(c2).refs != 1 {
		t.Fatalf("after one close: %+v refs %d", s, entryOf(c2).refs)
	}
	allProcedures(t, c2) // still answers from the shared mapping
	if _, err := c2.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := p.reg.stats(); s.entries != 1 || s.mapped != 0 {
		t.Fatalf("after both closes: %+v, want the index kept and the file unmapped", s)
	}
	c3 := startOn(t, p, targetFor(t, copyPath))
	if !built(c3) {
		t.Fatal("a later open of the same bytes did not find the kept index")
	}
}

// sizes returns each fixture's index size once buildIndexes built it.
func sizes(t *testing.T, files []string) []int64 {
	t.Helper()
	p := New("test")
	out := make([]int64, len(files))
	for i, f := range files {
		c := startOn(t, p, targetFor(t, f))
		buildIndexes(t, c)
		out[i] = entryOf(c).size
	}
	return out
}

// Past the limit, the index idle longest is released (open targets after
// those no client holds), and its next call rebuilds it with the same
// answer.
func TestRegistryReleasesIdleLongestFirst(t *testing.T) {
	files := registryFixtures(t)
	sz := sizes(t, files)
	limit := sz[0] + sz[1] + sz[2] - min(sz[0], sz[1], sz[2])/2 // two fit, three do not
	p := NewWithMemoryLimit("test", limit)
	p.reg.ignoreFile = true // the order alone: no room made for the file's pages
	a := startOn(t, p, targetFor(t, files[0]))
	b := startOn(t, p, targetFor(t, files[1]))
	c := startOn(t, p, targetFor(t, files[2]))
	procsB := buildIndexes(t, b)
	buildIndexes(t, a)
	allProcedures(t, b) // b is now more recent than a
	buildIndexes(t, c)  // over the limit: a, idle longest, goes
	if built(a) || !built(b) || !built(c) {
		t.Fatalf("after c's build: built a=%v b=%v c=%v, want a released", built(a), built(b), built(c))
	}
	if u := p.reg.stats().used; u > limit {
		t.Fatalf("registry holds %d bytes over its limit %d", u, limit)
	}
	buildIndexes(t, a) // rebuilt; b is idle longest now
	if !built(a) || built(b) || !built(c) {
		t.Fatalf("after a's rebuild: built a=%v b=%v c=%v, want b released", built(a), built(b), built(c))
	}
	if got := allProcedures(t, b); !reflect.DeepEqual(got, procsB) {
		t.Fatal("a rebuilt index answers differently")
	}

	// An index no client holds goes before any open target's.
	d := startOn(t, p, targetFor(t, files[0])) // a's entry: a second client
	if entryOf(d) != entryOf(a) {
		t.Fatal("not shared")
	}
	for _, cl := range []provider.Client{a, d} {
		if _, err := cl.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	allProcedures(t, c) // c most recent; b idle but open; a closed
	buildIndexes(t, b)  // needs room: a's index (no client) goes, not c's
	if !built(b) || !built(c) {
		t.Fatalf("built b=%v c=%v: an open target's index went before a closed one's", built(b), built(c))
	}
	if _, ok := p.reg.lookup(entryOf(a).key); ok {
		t.Fatal("the released index no client holds is still registered")
	}
}

// An index that alone exceeds the limit fails its call as truncated
// {operation, limit:"memory_bytes", maximum, actual} and is not kept.
func TestRegistryIndexAloneOverLimit(t *testing.T) {
	files := registryFixtures(t)
	const limit = 1 // the header model alone exceeds it
	p := NewWithMemoryLimit("test", limit)
	c := startOn(t, p, targetFor(t, files[0]))
	_, err := c.Do(context.Background(), provider.OpListStrings, provider.Params{}, nil)
	var fe *fault.Error
	if !fault.Is(err, fault.Truncated) || !errorsAs(err, &fe) {
		t.Fatalf("list_strings over the limit: %v, want truncated", err)
	}
	d := fe.Details
	if d["operation"] != provider.OpListStrings || d["limit"] != "memory_bytes" || d["maximum"] != int64(limit) {
		t.Fatalf("details %v", d)
	}
	if actual, ok := d["actual"].(int64); !ok || actual <= limit {
		t.Fatalf("details.actual %v, want the index size over the maximum", d["actual"])
	}
	if _, ok := entryOf(c).ix.strs.peek(); ok {
		t.Fatal("the index over the limit was kept")
	}
	if u := p.reg.stats().used; u > limit {
		t.Fatalf("registry accounts %d bytes over its limit", u)
	}
}

// A call about to rebuild a released index first makes room for it (its
// last size and the file's bytes), releasing idle indexes at enter, so the
// build does not go over the limit by a whole index.
func TestRegistryMakesRoomBeforeRebuild(t *testing.T) {
	files := registryFixtures(t)
	sz := sizes(t, files[:2])
	p := NewWithMemoryLimit("test", 1<<40)
	a := startOn(t, p, targetFor(t, files[0]))
	b := startOn(t, p, targetFor(t, files[1]))
	buildIndexes(t, a)
	buildIndexes(t, b)
	p.reg.mu.Lock()
	p.reg.releaseLocked(entryOf(a)) // as if the limit had released a
	p.reg.limit = sz[0] + sz[1] + int64(len(entryOf(a).m.data)) - 1
	p.reg.mu.Unlock()
	p.reg.enter(provider.OpListProcedures, entryOf(a))
	released := !built(b)
	p.reg.leave(provider.OpListProcedures, entryOf(a))
	if !released {
		t.Fatal("the rebuild of a did not make room first: b's index was kept")
	}
}

func errorsAs(err error, fe **fault.Error) bool {
	e, ok := err.(*fault.Error)
	if ok {
		*fe = e
	}
	return ok
}

// Many clients of three files call at once under a limit that keeps
// releasing indexes: every call answers, each the same as alone (run with
// -race).
func TestRegistryConcurrentUse(t *testing.T) {
	files := registryFixtures(t)
	sz := sizes(t, files)
	want := make([][]provider.ProcedureItem, len(files))
	for i, f := range files {
		_, _, c := open(t, f)
		want[i] = allProcedures(t, c)
	}
	p := NewWithMemoryLimit("test", max(sz[0], sz[1], sz[2])+1) // about one index at a time
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		i := g % len(files)
		c := startOn(t, p, targetFor(t, files[i]))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				for _, op := range []string{provider.OpListProcedures, provider.OpListStrings, provider.OpXrefs} {
					in := provider.Params{"limit": int64(provider.MaxPageResults)}
					if op == provider.OpXrefs {
						in = provider.Params{"address": want[i][0].Address}
					}
					r, err := c.Do(context.Background(), op, in, nil)
					if err != nil {
						errs <- fmt.Errorf("client %d %s: %w", g, op, err)
						return
					}
					if op == provider.OpListProcedures && !reflect.DeepEqual(r.Normalized.(provider.Page[provider.ProcedureItem]).Items, want[i][:min(len(want[i]), provider.MaxPageResults)]) {
						errs <- fmt.Errorf("client %d: procedures differ", g)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if u := p.reg.stats().used; u > p.reg.limit {
		t.Fatalf("registry holds %d bytes over its limit %d once every call ended", u, p.reg.limit)
	}
}

func TestParseMemoryLimit(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "536870912": 512 << 20, "512MiB": 512 << 20, "2GiB": 2 << 30} {
		if got, err := ParseMemoryLimit(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "512MB", "512 MiB", "1.5GiB", "GiB", "0x10", "99999999999GiB", "lots"} {
		if _, err := ParseMemoryLimit(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	const secret = "s3cr3t-value-MiB"
	_, err := MemoryLimitFromEnv(func(string) string { return secret })
	if !fault.Is(err, fault.ConfigurationInvalid) {
		t.Fatalf("bad value: %v, want configuration_invalid", err)
	}
	if fe := err.(*fault.Error); fe.Details["variable"] != MemoryLimitEnv || strings.Contains(fmt.Sprint(fe.Details, fe.Message, fe.Remediation), secret) {
		t.Fatalf("details %v must name the variable and never its value", fe.Details)
	}
	if n, err := MemoryLimitFromEnv(func(string) string { return "" }); err != nil || n < minDefaultMemoryLimit {
		t.Fatalf("unset: %d %v, want the default (at least 1 GiB)", n, err)
	}
}

// The size estimate (sizer) against the heap a fully built index really
// holds: within 25% of the live heap it adds, on gdb (10 MB, which .ci/run
// installs) and the C fixture.
func TestIndexSizeEstimate(t *testing.T) {
	files := []string{registryFixtures(t)[0]}
	if !testing.Short() {
		if _, err := os.Stat("/usr/bin/gdb"); err != nil {
			if requireAll() {
				t.Fatal(err)
			}
		} else {
			files = append(files, "/usr/bin/gdb")
		}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tg := targetFor(t, f)
			p := New("test")
			before := liveHeap()
			prof, err := p.Profile(context.Background(), tg)
			if err != nil {
				t.Fatal(err)
			}
			c, err := p.Start(context.Background(), tg, prof, provider.Run{ID: "run"})
			if err != nil {
				t.Fatal(err)
			}
			procs := buildIndexes(t, c)
			do(t, c, provider.OpProcedureAssembly, provider.Params{"procedure": procs[len(procs)/2].Address})
			do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": procs[len(procs)/2].Address})
			after := liveHeap()
			est := entryOf(c).ix.memSize(entryOf(c).m.data)
			runtime.KeepAlive(c)
			grown := after - before
			t.Logf("%s: estimate %d bytes, live heap grew %d bytes (%.2f)", filepath.Base(f), est, grown, float64(est)/float64(grown))
			if f != files[0] && (float64(est) < 0.75*float64(grown) || float64(est) > 1.25*float64(grown)) {
				t.Fatalf("estimate %d is not within 25%% of the measured %d", est, grown)
			}
			c.Close(context.Background())
		})
	}
}

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
