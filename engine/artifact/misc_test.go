package artifact

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

// TestCancelLargeDirectory: cancelling mid-inventory returns the typed
// cancelled error and no graph.
func TestCancelLargeDirectory(t *testing.T) {
	dir := t.TempDir()
	for i := range 3000 {
		write(t, filepath.Join(dir, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%04d.bin", i)), pattern(2048, byte(i)), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var updates atomic.Int64
	rep := progress.Func(func(u progress.Update) {
		if u.Phase == "hash" && updates.Add(1) == 2 {
			cancel()
		}
	})
	g, err := Inventory(ctx, Root{Path: dir, Format: FormatDirectory}, Options{Progress: rep})
	if g != nil {
		t.Fatal("a cancelled inventory returned a graph")
	}
	fe := wantFault(t, err, fault.Cancelled, "")
	if fe.Details["operation"] != "inventory_artifact" || fe.Details["cleanup"] != "complete" {
		t.Fatalf("details %v", fe.Details)
	}
	// Compare checks cancellation before computing.
	if _, err := Compare(ctx, Side{}, Side{}); !fault.Is(err, fault.Cancelled) {
		t.Fatalf("compare: %v", err)
	}
}

// TestIdentifiers: the direct JCS writer equals engine/canon, and the
// contradiction id matches the CONTRACTS.md §14 vector.
func TestIdentifiers(t *testing.T) {
	if got := ContradictionID("art_"+strings.Repeat("1", 64), "app/main.js", strings.Repeat("2", 64), strings.Repeat("3", 64)); got != "ic_76cfa52bd011750cc87de21d0ccbec5bd9a02c2feca625d6e8d56b2a2fa19965" {
		t.Fatalf("contradiction id %s", got)
	}
	for _, p := range []string{"a", "dir/\"q\"\\x", "ctl\x01\x1f\t\n\r\b\f", "ünïcode/\u2028\u2029/😀", "bad\xffutf8", "<>&"} {
		want, err := canon.Digest(map[string]string{"root_artifact_id": "art_x", "logical_path": p, "entry_kind": "file"})
		if err != nil {
			t.Fatal(err)
		}
		if got := OccurrenceID("art_x", p, "file"); got != "occ_"+want {
			t.Errorf("%q: %s want occ_%s", p, got, want)
		}
	}
	want, _ := canon.Digest(map[string]any{"schema_version": 1, "sha256": strings.Repeat("a", 64)})
	if ArtifactID(strings.Repeat("a", 64)) != "art_"+want {
		t.Fatal("artifact id")
	}
}

// TestCompareClassifications covers the per-path precedence of §10.5.
func TestCompareClassifications(t *testing.T) {
	a1, a2 := "art_1", "art_2"
	o := func(p, kind, status string, art *string) Occurrence {
		return Occurrence{OccurrenceID: "occ_" + p, LogicalPath: p, EntryKind: kind, HashStatus: status, ArtifactID: art}
	}
	nodes := []Node{{ArtifactID: a1, Kind: "resource", Format: "file", Size: 1}, {ArtifactID: a2, Kind: "resource", Format: "file", Size: 2}}
	left := Side{ManifestID: "agm_l", Nodes: nodes, Complete: true, Occurrences: []Occurrence{
		o("same", EntryFile, HashVerified, &a1), o("changed", EntryFile, HashVerified, &a1), o("removed", EntryFile, HashVerified, &a1),
		o("bad", EntryFile, HashVerified, &a1), o("unk", EntryFile, HashNotHashedLimit, nil), o("dir", EntryDirectory, HashUnavailable, nil),
	}}
	right := Side{ManifestID: "agm_r", Nodes: nodes, Complete: true, Occurrences: []Occurrence{
		o("same", EntryFile, HashVerified, &a1), o("changed", EntryFile, HashVerified, &a2), o("added", EntryFile, HashVerified, &a2),
		o("bad", EntryFile, HashMismatched, &a1), o("unk", EntryFile, HashNotHashedLimit, nil), o("dir", EntryDirectory, HashUnavailable, nil),
	}}
	c, err := Compare(context.Background(), left, right)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ch := range c.Changes {
		got[ch.LogicalPath] = ch.Classification + ":" + strings.Join(ch.Dimensions, "+")
	}
	want := map[string]string{"changed": "changed:content+size", "removed": "removed:", "added": "added:", "bad": "contradiction:integrity", "unk": "unknown:content"}
	if fmt.Sprint(got) != fmt.Sprint(want) || c.Summary.Unchanged != 2 || c.Status != ClassContradiction {
		t.Fatalf("got %v summary %+v status %s", got, c.Summary, c.Status)
	}
	right.Complete = false
	c, _ = Compare(context.Background(), left, right)
	if c.Status != ClassTruncated || c.Summary.Unknown < 2 {
		t.Fatalf("incomplete side: %s %+v", c.Status, c.Summary)
	}
}

// TestInventoryProgressFinalCount: the last "hash" update of an inventory
// is every byte hashed (the meter reported only each MiB, so 300 KB showed
// as nothing), so that the request's terminal progress counts the real work
// (CONTRACTS.md §6.1).
func TestInventoryProgressFinalCount(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		write(t, filepath.Join(dir, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%03d.bin", i)), pattern(1000, byte(i)), 0o644)
	}
	var mu sync.Mutex
	final := map[string]float64{}
	rep := progress.Func(func(u progress.Update) {
		mu.Lock()
		defer mu.Unlock()
		final[u.Phase] = u.Completed
	})
	if _, err := Inventory(context.Background(), Root{Path: dir, Format: FormatDirectory}, Options{Progress: rep}); err != nil {
		t.Fatal(err)
	}
	if final["hash"] != 300*1000 {
		t.Fatalf("final counts %v, want hash 300000", final)
	}
}
