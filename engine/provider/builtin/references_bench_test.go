package builtin

import (
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/provider"
)

// BenchmarkReferencesVsObjdump asks procedure_references of every procedure
// of Debian's ssh (the indexes built once, before timing, as a session has
// them) and runs `objdump -d` of the same file, side by side (issue 27's
// performance figure: the total within 1× objdump). REA_BENCH_REFS_FILE
// names another file.
func BenchmarkReferencesVsObjdump(b *testing.B) {
	path := os.Getenv("REA_BENCH_REFS_FILE")
	if path == "" {
		path = "/usr/bin/ssh"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s: %v", path, err)
	}
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		b.Skip("objdump not installed")
	}
	_, _, c := open(b, path)
	ctx := context.Background()
	var entries []string
	for _, p := range allProcedures(b, c) {
		entries = append(entries, p.Address)
	}
	if _, err := c.Do(ctx, provider.OpProcedureReferences, provider.Params{"procedure": entries[0]}, nil); err != nil {
		b.Fatal(err) // builds the symbol, extent and symbolizer indexes
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var refsD, objD, refsCPU, objCPU time.Duration
	items, rounds := 0, 0
	for b.Loop() {
		items = 0
		t0, c0 := time.Now(), cpu()
		for _, e := range entries {
			r, err := c.Do(ctx, provider.OpProcedureReferences, provider.Params{"procedure": e}, nil)
			if err != nil {
				b.Fatal(err)
			}
			x := r.Normalized.(provider.References)
			items += len(x.Strings) + len(x.Data) + len(x.Imports) + len(x.Procedures)
		}
		refsD += time.Since(t0)
		refsCPU += cpu() - c0
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
	b.ReportMetric(float64(len(entries)), "procs")
	b.ReportMetric(float64(items), "refs")
	b.ReportMetric(refsD.Seconds()/float64(rounds), "refs-s")
	b.ReportMetric(objD.Seconds()/float64(rounds), "objdump-s")
	b.ReportMetric(refsD.Seconds()/objD.Seconds(), "refs/objdump")
	b.ReportMetric(refsCPU.Seconds()/float64(rounds), "refs-cpu-s")
	b.ReportMetric(objCPU.Seconds()/float64(rounds), "objdump-cpu-s")
	b.ReportMetric(refsCPU.Seconds()/objCPU.Seconds(), "refs/objdump-cpu")
}
