//go:build linux

package capture

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// The performance item of issue 5: a capture of a trivial command against
// util-linux's `script -qec true /dev/null`, which also runs it under a new
// PTY.

func captureTrue(tb testing.TB, tru, dir string) {
	res, err := Run(context.Background(), Request{Executable: tru, WorkingDirectory: dir}, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if res.Exit.Code == nil || *res.Exit.Code != 0 {
		tb.Fatalf("exit %+v", res.Exit)
	}
}

func scriptTrue(tb testing.TB, script string) {
	cmd := exec.Command(script, "-qec", "true", "/dev/null")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("script: %v %s", err, out)
	}
}

func BenchmarkCaptureTrue(b *testing.B) {
	needCapture(b)
	tru, dir := testkit.Need(b, "true"), b.TempDir()
	for b.Loop() {
		captureTrue(b, tru, dir)
	}
}

func BenchmarkCaptureTrueLoopback(b *testing.B) {
	needCapture(b)
	tru, dir := testkit.Need(b, "true"), b.TempDir()
	for b.Loop() {
		if _, err := Run(context.Background(), Request{Executable: tru, WorkingDirectory: dir, Network: NetworkLoopback}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScriptTrue(b *testing.B) {
	script := testkit.Need(b, "script")
	for b.Loop() {
		scriptTrue(b, script)
	}
}

// TestCaptureOverheadVsScript states the bound: the median wall time
// of capturing `true` is at most 3× that of `script -qec true /dev/null`
// measured in the same run, interleaved (6× under the race detector).
func TestCaptureOverheadVsScript(t *testing.T) {
	needCapture(t)
	script, tru, dir := testkit.Need(t, "script"), testkit.Need(t, "true"), t.TempDir()
	const n = 15
	var cap, scr []time.Duration
	for i := 0; i < n; i++ {
		s := time.Now()
		captureTrue(t, tru, dir)
		cap = append(cap, time.Since(s))
		s = time.Now()
		scriptTrue(t, script)
		scr = append(scr, time.Since(s))
	}
	slices.Sort(cap)
	slices.Sort(scr)
	mc, ms := cap[n/2], scr[n/2]
	ratio := float64(mc) / float64(ms)
	t.Logf("median capture(true) %v, script -qec true %v, ratio %.2f", mc, ms, ratio)
	limit := 3.0
	if raceEnabled {
		limit = 6
	}
	if ratio > limit && os.Getenv("REA_SKIP_TIMING") == "" {
		t.Fatalf("capture of true takes %.2f× script's time (bound %.0f×)", ratio, limit)
	}
}
