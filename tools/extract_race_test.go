package tools_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// Extraction swap races through a real `rea mcp` (CONTRACTS.md §0.3): 20
// extract_artifact calls, each raced by a goroutine that keeps planting
// symlinks out of the output tree where its directories go, removing
// written directories, swapping a written subdirectory for a symlink and
// swapping the output root itself. Every call succeeds or fails typed —
// outside_approved_root for a path that re-resolved, cleanup_incomplete
// (category of that failure) when what another process planted keeps the
// tree from being removed, artifact_operation_failed for an entry that
// appeared meanwhile — never execution_failure, and nothing is written
// outside the output roots (the rig compares the rest of the tree).
func TestExtractSwapRacesTyped(t *testing.T) {
	r := newRig(t)
	arch := r.in("race.zip")
	var names []string
	for k := range 6 {
		names = append(names, fmt.Sprintf("d%d/f.txt", k), fmt.Sprintf("d%d/sub/g.txt", k))
	}
	zipOf(t, arch, names, func(n string) string { return "content of " + n + "\n" })
	outside := r.out("outside")
	if err := os.Mkdir(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	s := r.start()
	s.ok("open_binary", map[string]any{"path": arch})
	inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
	root := inv.rootID(t)

	codes := map[string]int{}
	for i := range 20 {
		out := r.out(fmt.Sprintf("race%d", i))
		r.out(fmt.Sprintf("race%d.x", i))
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !stop.Load(); n++ {
				d := filepath.Join(out, fmt.Sprintf("d%d", n%6))
				switch (n + i) % 4 {
				case 0:
					if os.Symlink(outside, d) == nil {
						os.Remove(d)
					}
				case 1:
					os.RemoveAll(d)
				case 2:
					sub := filepath.Join(d, "sub")
					if os.Rename(sub, sub+".x") == nil {
						os.Symlink(outside, sub)
					}
				case 3:
					if os.Rename(out, out+".x") == nil {
						os.Symlink(outside, out)
						os.Remove(out)
						os.Rename(out+".x", out)
					}
				}
			}
		}()
		rep := s.extract(map[string]any{"output_root": out, "occurrence_ids": []string{root}})
		stop.Store(true)
		wg.Wait()
		if !rep.IsError {
			codes["ok"]++
		} else {
			var env struct {
				Error struct {
					Code, Category string
					Details        map[string]any
				}
			}
			if err := json.Unmarshal(rep.Structured, &env); err != nil {
				t.Fatalf("call %d: %s", i, rep.Structured)
			}
			switch e := env.Error; e.Code {
			case "outside_approved_root":
				if e.Details["operation"] != "extract_artifact" || e.Details["path"] == nil {
					t.Fatalf("call %d: details %v", i, e.Details)
				}
			case "cleanup_incomplete", "artifact_operation_failed":
			default:
				t.Fatalf("call %d raced: %s", i, rep.Structured)
			}
			codes[env.Error.Code]++
		}
		filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				t.Fatalf("call %d wrote outside its output root: %s", i, p)
			}
			return nil
		})
	}
	if codes["outside_approved_root"] == 0 {
		t.Fatalf("no race was met in 20 calls: %v", codes)
	}
	t.Logf("outcomes of 20 raced extractions: %v", codes)
}
