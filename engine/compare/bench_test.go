package compare

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/provider"
)

// TestCompareFilesBench compares REA_COMPARE_LEFT against REA_COMPARE_RIGHT
// (bench/compare_binaries.sh fetches a Debian library pair) and logs the
// time of a fresh run, of a run resumed from the checkpoint after
// match_call_graph (a cancel in the last phase), and the summary. With
// REA_COMPARE_MODE=index it only opens both and has the builtin provider
// build every index it keeps of each (the peak-RSS reference); with fresh it stops after
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
		// Every index the builtin provider builds of a target: procedures
		// (symbols, extents), strings, cross-references and the call graph
		// (every procedure decoded), the symbolizer, the line table.
		for _, s := range []*ProviderSide{c.Left.(*ProviderSide), c.Right.(*ProviderSide)} {
			l, err := s.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			p := l.Procedures[len(l.Procedures)/2]
			if _, err := s.Instructions(ctx, p); err != nil {
				t.Fatal(err)
			}
			at := formatAddr(p.Address)
			for op, in := range map[string]provider.Params{"list_strings": {"limit": 1}, "xrefs": {"address": at},
				"procedure_callers": {"procedure": at}, "procedure_info": {"procedure": at}} {
				if _, err := s.Client.Do(ctx, op, in, nil); err != nil {
					t.Fatalf("%s: %v", op, err)
				}
			}
			t.Logf("procedures: %d", len(l.Procedures))
		}
		t.Logf("index: %.2f s", time.Since(t0).Seconds())
		return
	}
	st := diskStore{dir: t.TempDir()}
	var lastPhase = map[string]time.Duration{}
	c.Checkpoint = func(ctx context.Context, cp Checkpoint) error {
		if cp.Done {
			lastPhase[cp.Phase] = time.Since(t0)
		}
		return st.save(cp)
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
		if it.Status == StatusChanged && shown < 100 {
			shown++
			d, _ := json.Marshal(it.Delta)
			t.Logf("changed (%s, similarity %.4f, %d blocks): %s %s / %s %s %s", *it.Match, *it.Similarity, *it.ChangedBlocks,
				it.Left.Address, it.Left.Name, it.Right.Address, it.Right.Name, d)
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
	state, err := st.load(resumeFrom.StateDigest)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	t1 := time.Now()
	c2 := comparison(t, lp, rp)
	got, err := c2.Resume(ctx, state, st.load)
	if err != nil {
		t.Fatal(err)
	}
	resumed := time.Since(t1)
	if string(encoded(t, got)) != string(want) {
		t.Fatal("resumed result differs")
	}
	t.Logf("fresh %.2f s, resumed from %s %.2f s (%.3fx); %d checkpoints, parts %d bytes, result %d bytes",
		fresh.Seconds(), resumeFrom.Phase, resumed.Seconds(), resumed.Seconds()/fresh.Seconds(), len(st.cps), st.partBytes, len(want))
}

// diskStore keeps checkpoints as the engine does: parts and states written
// out (files here, blobs in the ledger there) and dropped from memory, so
// that the comparison's peak RSS is its own.
type diskStore struct {
	dir       string
	cps       []Checkpoint // without State and Parts
	partBytes int
}

func (s *diskStore) save(c Checkpoint) error {
	for _, p := range c.Parts {
		if err := os.WriteFile(filepath.Join(s.dir, p.Digest), p.Bytes, 0o600); err != nil {
			return err
		}
		s.partBytes += len(p.Bytes)
	}
	if err := os.WriteFile(filepath.Join(s.dir, c.StateDigest), c.State, 0o600); err != nil {
		return err
	}
	c.State, c.Parts = nil, nil
	s.cps = append(s.cps, c)
	return nil
}

func (s *diskStore) load(digest string) ([]byte, error) {
	return os.ReadFile(filepath.Join(s.dir, digest))
}
