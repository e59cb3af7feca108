package artifact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

// raceTree writes a directory target of dirs×2 files (dK/f.txt and
// dK/sub/g.txt) and returns it with its inventory and every file
// occurrence's id.
func raceTree(t *testing.T, dirs int) (string, *Graph, []string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	for k := range dirs {
		write(t, filepath.Join(src, fmt.Sprintf("d%d", k), "f.txt"), pattern(4096, byte(k)), 0o644)
		write(t, filepath.Join(src, fmt.Sprintf("d%d", k), "sub", "g.txt"), pattern(512, byte(k+100)), 0o644)
	}
	g := mustInventory(t, src, FormatDirectory, Options{})
	var ids []string
	for _, o := range g.Occurrences {
		if o.EntryKind == EntryFile {
			ids = append(ids, o.OccurrenceID)
		}
	}
	if len(ids) != 2*dirs {
		t.Fatalf("%d file occurrences, want %d", len(ids), 2*dirs)
	}
	return src, g, ids
}

// hook is a progress reporter that runs fn at the first "extract" update
// whose count of written files is at.
type hook struct {
	at   float64
	once sync.Once
	fn   func()
}

func (h *hook) Report(u progress.Update) {
	if u.Phase == "extract" && u.Completed == h.at {
		h.once.Do(h.fn)
	}
}

// A path that re-resolves outside its root while an extraction runs
// (CONTRACTS.md §0.3) is outside_approved_root naming the operation and
// the path, never execution_failure; nothing is written outside, and what
// was written is removed. Each case swaps at a known point (after the first
// file is written).
func TestExtractSwapRacesAreOutsideApprovedRoot(t *testing.T) {
	src, g, ids := raceTree(t, 3)
	root := Root{Path: src, Format: FormatDirectory}
	for _, c := range []struct {
		name string
		swap func(t *testing.T, out, outside string)
	}{
		{"output root swapped for a symlink", func(t *testing.T, out, outside string) {
			must(t, os.Rename(out, out+".moved"))
			must(t, os.Symlink(outside, out))
		}},
		{"next parent planted as a symlink", func(t *testing.T, out, outside string) {
			for k := range 3 {
				_ = os.Symlink(outside, filepath.Join(out, fmt.Sprintf("d%d", k)))
			}
		}},
		{"written directory moved away", func(t *testing.T, out, outside string) {
			for k := range 3 {
				d := filepath.Join(out, fmt.Sprintf("d%d", k))
				if _, err := os.Lstat(d); err == nil {
					must(t, os.Rename(d, filepath.Join(out, "elsewhere")))
					return
				}
			}
			t.Fatal("nothing written yet")
		}},
		{"source directory swapped for a symlink out of the root", func(t *testing.T, out, outside string) {
			secret := filepath.Join(outside, "secret")
			must(t, os.MkdirAll(filepath.Join(secret, "sub"), 0o700))
			for k := range 3 {
				d := filepath.Join(src, fmt.Sprintf("d%d", k))
				must(t, os.Rename(d, d+".real"))
				must(t, os.Symlink(secret, d))
			}
			t.Cleanup(func() {
				for k := range 3 {
					d := filepath.Join(src, fmt.Sprintf("d%d", k))
					os.Remove(d)
					os.Rename(d+".real", d)
				}
			})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			out, outside := filepath.Join(base, "out"), filepath.Join(base, "outside")
			must(t, os.Mkdir(outside, 0o700))
			// output_root exists: what another process plants in it is not
			// this extraction's to remove (that would be cleanup_incomplete).
			must(t, os.Mkdir(out, 0o700))
			h := &hook{at: 1, fn: func() { c.swap(t, out, outside) }}
			_, err := Extract(context.Background(), root, g, ExtractOptions{OutputRoot: out, OccurrenceIDs: ids, Progress: h})
			fe := wantFault(t, err, fault.OutsideApprovedRoot, "")
			if fe.Details["operation"] != extractOp || fe.Details["path"] == nil || fe.Details["path"] == "" {
				t.Fatalf("details %v", fe.Details)
			}
			if got := listFiles(t, outside); len(got) > 0 {
				t.Fatalf("written outside the root: %v", got)
			}
			// What the other process moved away (out/elsewhere) is its
			// own; everything at the paths the extraction created is gone.
			for _, f := range listFiles(t, base) {
				if !strings.HasPrefix(f, filepath.Join(out, "elsewhere")+"/") {
					t.Fatalf("left after the failed extraction: %s", f)
				}
			}
		})
	}
}

// An attacker racing the extraction (a goroutine that keeps swapping the
// output tree's directories for symlinks out of it, removing them, and
// swapping the output root itself): every extraction either succeeds with
// everything inside the root, or fails typed — outside_approved_root for
// a path that re-resolved, artifact_operation_failed for an entry that
// appeared meanwhile — never execution_failure; nothing is ever written
// outside.
func TestExtractConcurrentSwapsTyped(t *testing.T) {
	if testing.Short() {
		t.Skip("40 raced extractions (-short)")
	}
	src, g, ids := raceTree(t, 6)
	root := Root{Path: src, Format: FormatDirectory}
	codes := map[fault.Code]int{}
	for i := range 40 {
		base := t.TempDir()
		out, outside := filepath.Join(base, "out"), filepath.Join(base, "outside")
		must(t, os.Mkdir(outside, 0o700))
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !stop.Load(); n++ {
				d := filepath.Join(out, fmt.Sprintf("d%d", n%6))
				switch (n + i) % 4 {
				case 0: // a parent planted as a symlink, then removed
					if os.Symlink(outside, d) == nil {
						os.Remove(d)
					}
				case 1: // a written directory removed
					os.RemoveAll(d)
				case 2: // a written subdirectory swapped for a symlink
					sub := filepath.Join(d, "sub")
					if os.Rename(sub, sub+".x") == nil {
						os.Symlink(outside, sub)
					}
				case 3: // the output root swapped for a symlink and back
					if os.Rename(out, out+".x") == nil {
						os.Symlink(outside, out)
						os.Remove(out)
						os.Rename(out+".x", out)
					}
				}
			}
		}()
		_, err := Extract(context.Background(), root, g, ExtractOptions{OutputRoot: out, OccurrenceIDs: ids})
		stop.Store(true)
		wg.Wait()
		var fe *fault.Error
		switch {
		case err == nil:
			codes["ok"]++
		case !errors.As(err, &fe):
			t.Fatalf("extraction %d: untyped %v", i, err)
		case fe.Code == fault.ExecutionFailure:
			t.Fatalf("extraction %d: execution_failure (%v) %s", i, err, details(err))
		case fe.Code == fault.OutsideApprovedRoot, fe.Code == fault.ArtifactOperationFailed, fe.Code == fault.CleanupIncomplete:
			codes[fe.Code]++
		default:
			t.Fatalf("extraction %d: %s", i, details(err))
		}
		if got := listFiles(t, outside); len(got) > 0 {
			t.Fatalf("extraction %d wrote outside its root: %v", i, got)
		}
	}
	if codes[fault.OutsideApprovedRoot] == 0 {
		t.Fatalf("no race was met in 40 extractions: %v", codes)
	}
	t.Logf("outcomes: %v", codes)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// listFiles lists the regular files below dir, following no symlink.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}
