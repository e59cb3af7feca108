package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/internal/testkit"
)

// store keeps checkpoints and parts as the engine's ledger would.
type store struct {
	parts map[string][]byte
	cps   []Checkpoint
}

func (s *store) save(_ context.Context, c Checkpoint) error {
	if s.parts == nil {
		s.parts = map[string][]byte{}
	}
	for _, p := range c.Parts {
		if _, dup := s.parts[p.Digest]; dup {
			return fmt.Errorf("part %s handed over twice", p.Digest)
		}
		s.parts[p.Digest] = p.Bytes
	}
	s.cps = append(s.cps, c)
	return nil
}

func (s *store) load(d string) ([]byte, error) {
	b, ok := s.parts[d]
	if !ok {
		return nil, fmt.Errorf("no part %s", d)
	}
	return b, nil
}

func encoded(t testing.TB, r *Result) []byte {
	t.Helper()
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResumeEveryCheckpoint interrupts a comparison at every checkpoint
// (every phase boundary, and within phases: checkpoints every 7
// procedures here), resumes it from that checkpoint's state on a fresh
// comparison, and requires the bytes of the uninterrupted result.
func TestResumeEveryCheckpoint(t *testing.T) {
	for _, stripped := range []bool{false, true} {
		t.Run(fmt.Sprint("stripped=", stripped), func(t *testing.T) {
			oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O2", stripped)
			var full store
			c := comparison(t, oldPath, newPath)
			c.every, c.Checkpoint = 7, full.save
			res, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := encoded(t, res)
			phasesSeen, mid := map[string]bool{}, 0
			for _, cp := range full.cps {
				if cp.Done {
					phasesSeen[cp.Phase] = true
				} else {
					mid++
				}
			}
			if len(phasesSeen) != len(phases) || mid == 0 {
				t.Fatalf("checkpoints: phases done %v, %d within phases", phasesSeen, mid)
			}
			for k := range full.cps {
				// Interrupt a fresh run at checkpoint k: cancel it there.
				var st store
				ctx, cancel := context.WithCancel(context.Background())
				c := comparison(t, oldPath, newPath)
				c.every = 7
				c.Checkpoint = func(ctx context.Context, cp Checkpoint) error {
					if err := st.save(ctx, cp); err != nil {
						return err
					}
					if len(st.cps) == k+1 {
						cancel()
					}
					return nil
				}
				_, err := c.Run(ctx)
				cancel()
				if !fault.Is(err, fault.Cancelled) {
					t.Fatalf("checkpoint %d: interrupted run: %v, want cancelled", k, err)
				}
				last := st.cps[len(st.cps)-1]
				if !bytes.Equal(last.State, full.cps[k].State) {
					t.Fatalf("checkpoint %d (%s %d): state differs from the uninterrupted run's", k, last.Phase, last.Completed)
				}
				// Resume on new clients, as after a restart.
				c = comparison(t, oldPath, newPath)
				c.every = 7
				c.Checkpoint = st.save
				got, err := c.Resume(context.Background(), last.State, st.load)
				if err != nil {
					t.Fatalf("checkpoint %d (%s %d): resume: %v", k, last.Phase, last.Completed, err)
				}
				if b := encoded(t, got); !bytes.Equal(b, want) {
					t.Fatalf("checkpoint %d (%s %d): resumed result differs", k, last.Phase, last.Completed)
				}
			}
			t.Logf("%d checkpoints, %d within phases, %d parts", len(full.cps), mid, len(full.parts))
		})
	}
}

// TestResumeRejectsForeignState: a state of another comparison, of another
// version, or one that does not parse, is refused with a typed error, never
// half-used.
func TestResumeRejectsForeignState(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O0", false)
	var st store
	c := comparison(t, oldPath, newPath)
	c.Checkpoint = st.save
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	other := comparison(t, newPath, oldPath) // sides swapped: another comparison_id
	if _, err := other.Resume(context.Background(), st.cps[2].State, st.load); !errors.Is(err, errState) {
		t.Fatalf("foreign state: %v", err)
	}
	if _, err := c.Resume(context.Background(), []byte("{"), st.load); !errors.Is(err, errState) {
		t.Fatalf("malformed state: %v", err)
	}
	// A state or a result of another version of the comparison is stale:
	// the engine computes afresh rather than serve what it no longer computes.
	old := bytes.Replace(st.cps[2].State, []byte(`"version":2`), []byte(`"version":1`), 1)
	if bytes.Equal(old, st.cps[2].State) || !StaleState(old) || StaleState(st.cps[2].State) {
		t.Fatalf("StaleState of a version-1 state %v, of this version's %v", StaleState(old), StaleState(st.cps[2].State))
	}
	if _, err := c.Resume(context.Background(), old, st.load); !errors.Is(err, ErrStale) {
		t.Fatalf("version-1 state: %v", err)
	}
	b := bytes.Replace(encoded(t, res), []byte(`"version":2`), []byte(`"version":1`), 1)
	if _, err := DecodeResult(b); !errors.Is(err, ErrStale) {
		t.Fatalf("version-1 result: %v", err)
	}
}

// TestCancelledBeforeAnyWork: a cancelled context stops the comparison with
// cancelled before it reads anything.
func TestCancelledBeforeAnyWork(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O0", false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var st store
	c := comparison(t, oldPath, newPath)
	c.Checkpoint = st.save
	if _, err := c.Run(ctx); !fault.Is(err, fault.Cancelled) {
		t.Fatalf("got %v, want cancelled", err)
	}
	if len(st.cps) != 0 {
		t.Fatalf("%d checkpoints after a cancel before any work", len(st.cps))
	}
}

// TestCancelAtRandomMoments: a comparison cancelled at any moment either
// returns cancelled and no result, or (cancelled too late) the full
// result; it never returns a partial one.
func TestCancelAtRandomMoments(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O0", true)
	c := comparison(t, oldPath, newPath)
	start := time.Now()
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	want := encoded(t, res)
	rng := rand.New(rand.NewPCG(1, 2))
	var cancelled, completed int
	for range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(time.Duration(rng.Int64N(int64(full)*5/4+1)), cancel)
		got, err := c.Run(ctx)
		timer.Stop()
		cancel()
		switch {
		case err == nil:
			completed++
			if !bytes.Equal(encoded(t, got), want) {
				t.Fatal("a run that completed differs from the uninterrupted one")
			}
		case fault.Is(err, fault.Cancelled) && got == nil:
			cancelled++
		default:
			t.Fatalf("got %v, %v", got, err)
		}
	}
	t.Logf("%d cancelled, %d completed", cancelled, completed)
}

// TestProgressPhases: progress names every phase in order, never goes
// back within a phase, never exceeds a known total, and ends each phase on
// its final count.
func TestProgressPhases(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "arm64", "-O2", true)
	c := comparison(t, oldPath, newPath)
	var ups []progress.Update
	c.Progress = progress.Func(func(u progress.Update) { ups = append(ups, u) })
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var order []string
	last := map[string]progress.Update{}
	for _, u := range ups {
		if p, ok := last[u.Phase]; ok && u.Completed < p.Completed {
			t.Fatalf("%s went back: %v after %v", u.Phase, u.Completed, p.Completed)
		}
		if u.Total != nil && u.Completed > *u.Total {
			t.Fatalf("%s: %v of %v", u.Phase, u.Completed, *u.Total)
		}
		if _, ok := last[u.Phase]; !ok {
			order = append(order, u.Phase)
		}
		last[u.Phase] = u
	}
	if fmt.Sprint(order) != fmt.Sprint(Phases()) {
		t.Fatalf("phases %v, want %v", order, Phases())
	}
	for _, p := range order {
		if u := last[p]; u.Total != nil && u.Completed != *u.Total {
			t.Errorf("%s ended at %v of %v", p, u.Completed, *u.Total)
		}
	}
}
