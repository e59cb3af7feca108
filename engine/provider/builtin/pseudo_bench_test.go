package builtin

import (
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/provider"
)

// peakRSS is the process's high-water resident set (VmHWM) in bytes.
func peakRSS() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkPseudoLibcVsObjdump decompiles every procedure of libc.so.6
// through search_pseudo_code of a string that never matches (a fresh
// pseudo-code cache each round; the symbol index and extents stay built,
// as after open_binary) and runs `objdump -d` of the same file in the same
// round (issue 26's performance figure): wall of each, p50/p99/max per
// procedure (each procedure's own decompilation, two at a time on the
// worker pool), peak RSS of the process. REA_BENCH_PSEUDO_FILE names
// another file.
func BenchmarkPseudoLibcVsObjdump(b *testing.B) {
	path := os.Getenv("REA_BENCH_PSEUDO_FILE")
	if path == "" {
		path = "/lib/x86_64-linux-gnu/libc.so.6"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s: %v", path, err)
	}
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		b.Skip("objdump not installed")
	}
	_, _, cl := open(b, path)
	c := cl.(*Client)
	ctx := context.Background()
	if _, err := c.Do(ctx, provider.OpListProcedures, provider.Params{"limit": int64(1)}, nil); err != nil {
		b.Fatal(err)
	}
	var searchD, objD time.Duration
	var per []time.Duration
	procs, failed := 0, 0
	rounds := 0
	for b.Loop() {
		c.ix.pseudo.reset()
		c.ix.lifted.reset() // callees' prototypes are lifted afresh too
		t0 := time.Now()
		res, err := c.Do(ctx, provider.OpSearchPseudoCode, provider.Params{"pattern": "\x01never matches\x01", "limit": int64(20)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		searchD += time.Since(t0)
		if p := res.Normalized.(provider.Page[provider.PseudoLine]); *p.Total != 0 {
			b.Fatalf("the never-matching string matched %d lines", *p.Total)
		}
		per, procs, failed = per[:0], 0, 0
		c.ix.pseudo.mu.Lock()
		for _, p := range c.ix.pseudo.procs {
			per = append(per, p.took)
			procs++
			if p.failure != "" {
				failed++
			}
		}
		c.ix.pseudo.mu.Unlock()
		cmd := exec.Command(objdump, "-d", path)
		cmd.Stdout = io.Discard
		t1 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		objD += time.Since(t1)
		rounds++
	}
	slices.Sort(per)
	q := func(f float64) time.Duration { return per[min(len(per)-1, int(f*float64(len(per))))] }
	b.ReportMetric(searchD.Seconds()/float64(rounds), "search-s")
	b.ReportMetric(objD.Seconds()/float64(rounds), "objdump-s")
	b.ReportMetric(float64(q(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(per[len(per)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(procs), "procs")
	b.ReportMetric(float64(failed), "failed")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peakRSS-MiB")
	b.ReportMetric(float64(c.ix.pseudo.memSize())/(1<<20), "cache-MiB")
}

// BenchmarkPseudoLargeProcedure is issue 26's "one procedure_pseudo_code
// on a 2,000-instruction function": the libc.so.6 procedure whose
// instruction count is nearest 2,000 (REA_BENCH_PSEUDO_FILE names another
// file), one procedure_pseudo_code call per op with the pseudo-code and
// lift caches emptied first (the symbol index and extents stay built, as
// after open_binary; callees' prototypes are lifted again in the call).
func BenchmarkPseudoLargeProcedure(b *testing.B) {
	path := os.Getenv("REA_BENCH_PSEUDO_FILE")
	if path == "" {
		path = "/lib/x86_64-linux-gnu/libc.so.6"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s: %v", path, err)
	}
	c, six, ex := openExtents(b, path)
	ctx := context.Background()
	entries, _ := searchableEntries(six)
	best, bestN := uint64(0), 0
	for _, e := range entries {
		pc, err := c.decodeProc(ctx, provider.OpProcedurePseudoCode, six, ex, e, false)
		if err != nil {
			continue
		}
		if n := len(pc.insns); bestN == 0 || abs(n-2000) < abs(bestN-2000) {
			best, bestN = e, n
		}
	}
	if bestN == 0 {
		b.Fatal("no procedure decoded")
	}
	b.Logf("%s: %d instructions", provider.FormatAddress(best), bestN)
	params := provider.Params{"procedure": provider.FormatAddress(best), "offset": int64(0), "limit": int64(provider.MaxPseudoLines)}
	for b.Loop() {
		c.ix.pseudo.reset()
		c.ix.lifted.reset()
		if _, err := c.Do(ctx, provider.OpProcedurePseudoCode, params, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(bestN), "insns")
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
