package compare

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestCompareFilesBench compares REA_COMPARE_LEFT against REA_COMPARE_RIGHT
// (bench/compare_binaries.sh fetches a Debian library pair) and logs the
// time of a fresh run, of a run resumed from the checkpoint after
// match_call_graph (a cancel in the last phase), and the summary. With
// REA_COMPARE_MODE=index it only opens both and lists their procedures
// (the builtin indexes: the peak-RSS reference); with fresh it stops after
// the fresh run (its peak RSS is the comparison's own). Timings are logged, never
// asserted; the resumed result must equal the fresh one.
func TestCompareFilesBench(t *testing.T) {
	lp, rp := os.Getenv("REA_COMPARE_LEFT"), os.Getenv("REA_COMPARE_RIGHT")
	if lp == "" || rp == "" {
		t.Skip("set REA_COMPARE_LEFT and REA_COMPARE_RIGHT (bench/compare_binaries.sh does)")
	}
	ctx := context.Background()
	t0 := time.Now()
	c := comparison(t, lp, rp)
	if os.Getenv("REA_COMPARE_MODE") == "index" {
		for _, s := range []Side{c.Left, c.Right} {
			l, err := s.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// One procedure's instructions too: the extents and the
			// symbolizer are built on first use.
			if _, err := s.Instructions(ctx, l.Procedures[len(l.Procedures)/2]); err != nil {
				t.Fatal(err)
			}
			t.Logf("procedures: %d", len(l.Procedures))
		}
		t.Logf("index: %.2f s", time.Since(t0).Seconds())
		return
	}
	var st store
	var lastPhase = map[string]time.Duration{}
	c.Checkpoint = func(ctx context.Context, cp Checkpoint) error {
		if cp.Done {
			lastPhase[cp.Phase] = time.Since(t0)
		}
		return st.save(ctx, cp)
	}
	res, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fresh := time.Since(t0)
	want := encoded(t, res)
	for _, p := range phases {
		t.Logf("phase %-17s done at %.2f s", p, lastPhase[p].Seconds())
	}
	t.Logf("summary %+v", res.Summary)
	shown := 0
	for _, it := range res.Items {
		if it.Status == StatusChanged && shown < 20 {
			shown++
			t.Logf("changed (%s, similarity %.4f, %d blocks): %s %s / %s %s", *it.Match, *it.Similarity, *it.ChangedBlocks,
				it.Left.Address, it.Left.Name, it.Right.Address, it.Right.Name)
		}
	}
	if os.Getenv("REA_COMPARE_MODE") == "fresh" {
		t.Logf("fresh %.2f s", fresh.Seconds())
		return
	}
	var resumeFrom *Checkpoint
	for i := range st.cps {
		if st.cps[i].Phase == PhaseMatchCallGraph && st.cps[i].Done {
			resumeFrom = &st.cps[i]
		}
	}
	stateBytes := 0
	for _, b := range st.parts {
		stateBytes += len(b)
	}
	runtime.GC()
	t1 := time.Now()
	c2 := comparison(t, lp, rp)
	got, err := c2.Resume(ctx, resumeFrom.State, st.load)
	if err != nil {
		t.Fatal(err)
	}
	resumed := time.Since(t1)
	if string(encoded(t, got)) != string(want) {
		t.Fatal("resumed result differs")
	}
	t.Logf("fresh %.2f s, resumed from %s %.2f s (%.3fx); %d checkpoints, parts %d bytes, result %d bytes",
		fresh.Seconds(), resumeFrom.Phase, resumed.Seconds(), resumed.Seconds()/fresh.Seconds(), len(st.cps), stateBytes, len(want))
}
