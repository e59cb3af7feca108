package builtin

import (
	"context"
	"io"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLiftLibcVsObjdump lifts every procedure of libc.so.6 (decode,
// lift, SSA with jump tables and indirect calls, prototype, call sites:
// what procedure_info and procedure_calls compute, the cache emptied each
// round) and runs `objdump -d` of the same file, side by side (issue 25's
// performance figure): it reports both times, their ratio and the p99 and
// maximum per procedure. REA_BENCH_LIFT_FILE names another file.
//
// Memory: the process's peak RSS once the indexes lifting reads are built
// (symbols, extents, symbolizer, the header model: index-rss-MB), and
// again with every procedure lifted and cached (peak-rss-MB), the same
// process, so that the second over the first is what lifting everything
// costs; index-MB and cache-MB are the index's own estimates (sizer) of
// those indexes and of the lift cache. The first round's lifting is the
// one measured (-benchtime 1x): later rounds start from an emptied cache
// but a grown heap. REA_BENCH_LIFT_HEAP names a file to write the live
// heap's profile to at that point (go tool pprof -sample_index=inuse_space).
//
// Each round also fills the emptied cache again on GOMAXPROCS goroutines
// (lift-par-s), as search_pseudo_code's workers do, and checks that every
// procedure's lifting equals the sequential one's.
func BenchmarkLiftLibcVsObjdump(b *testing.B) {
	path := os.Getenv("REA_BENCH_LIFT_FILE")
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
	c, six, ex := openExtents(b, path)
	ctx := context.Background()
	if _, err := c.symbolizer(ctx, "bench", six); err != nil {
		b.Fatal(err)
	}
	var entries []uint64
	for _, p := range allProcedures(b, c) {
		a, err := strconv.ParseUint(p.Address[2:], 16, 64)
		if err != nil {
			b.Fatal(err)
		}
		entries = append(entries, a)
	}
	// CPU time as well as wall time: the machine is shared, and the CPU
	// time of both sides is what the load does not inflate as much.
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	maxRSS := func() float64 {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return float64(ru.Maxrss) * 1024 / 1e6 // KiB on Linux
	}
	indexRSS, indexMB := maxRSS(), float64(c.ix.memSize(c.data))/1e6
	var peakRSS float64
	// The lifting goroutine's own thread's CPU time per procedure
	// (p99-cpu-ms): on a loaded machine a procedure's wall time is mostly
	// waiting for a core. The collector's background workers run on other
	// threads and are not in it; its assists are.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	threadCPU := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var liftD, objD, liftCPU, objCPU, parD time.Duration
	var per, perCPU []time.Duration
	rounds := 0
	for b.Loop() {
		c.ix.lifted.reset()
		per, perCPU = per[:0], perCPU[:0]
		t0, c0 := time.Now(), cpu()
		for _, e := range entries {
			t, tc := time.Now(), threadCPU()
			if _, err := c.lifted(ctx, "bench", six, ex, e); err != nil {
				b.Fatal(err)
			}
			per = append(per, time.Since(t))
			perCPU = append(perCPU, threadCPU()-tc)
		}
		liftD += time.Since(t0)
		liftCPU += cpu() - c0
		if rounds == 0 {
			peakRSS = maxRSS()
			if f := os.Getenv("REA_BENCH_LIFT_HEAP"); f != "" {
				writeHeapProfile(b, f)
			}
		}
		seq := c.ix.lifted.procs
		c.ix.lifted.reset()
		t2 := time.Now()
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, runtime.GOMAXPROCS(0))
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := int(next.Add(1) - 1); k < len(entries); k = int(next.Add(1) - 1) {
					if _, err := c.lifted(ctx, "bench", six, ex, entries[k]); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		parD += time.Since(t2)
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		for e, p := range seq {
			if q := c.ix.lifted.procs[e]; !reflect.DeepEqual(p, q) {
				b.Fatalf("%#x: lifted on workers differs from lifted in order", e)
			}
		}
		cmd := exec.Command(objdump, "-d", path)
		cmd.Stdout = io.Discard
		t1 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		objD += time.Since(t1)
		objCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		rounds++
	}
	slices.Sort(per)
	slices.Sort(perCPU)
	b.ReportMetric(float64(len(entries)), "procs")
	b.ReportMetric(liftD.Seconds()/float64(rounds), "lift-s")
	b.ReportMetric(objD.Seconds()/float64(rounds), "objdump-s")
	b.ReportMetric(liftD.Seconds()/objD.Seconds(), "lift/objdump")
	b.ReportMetric(parD.Seconds()/float64(rounds), "lift-par-s")
	b.ReportMetric(parD.Seconds()/objD.Seconds(), "lift-par/objdump")
	b.ReportMetric(liftCPU.Seconds()/float64(rounds), "lift-cpu-s")
	b.ReportMetric(objCPU.Seconds()/float64(rounds), "objdump-cpu-s")
	b.ReportMetric(liftCPU.Seconds()/objCPU.Seconds(), "lift/objdump-cpu")
	b.ReportMetric(float64(per[len(per)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(per[len(per)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(perCPU[len(perCPU)/2].Microseconds())/1000, "p50-cpu-ms")
	b.ReportMetric(float64(perCPU[len(perCPU)*99/100].Microseconds())/1000, "p99-cpu-ms")
	b.ReportMetric(float64(perCPU[len(perCPU)-1].Microseconds())/1000, "max-cpu-ms")
	b.ReportMetric(float64(per[len(per)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(c.ix.lifted.memSize(newSizer()))/1e6, "cache-MB")
	b.ReportMetric(indexMB, "index-MB")
	b.ReportMetric(indexRSS, "index-rss-MB")
	b.ReportMetric(peakRSS, "peak-rss-MB")
	b.ReportMetric(peakRSS/indexRSS, "peak/index-rss")
}

// writeHeapProfile writes the live heap, collected first, to file.
func writeHeapProfile(b *testing.B, file string) {
	runtime.GC()
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}
