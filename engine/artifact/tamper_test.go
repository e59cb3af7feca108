package artifact

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
)

// tamper copies the packed archive (and its .unpacked sibling) and flips
// one byte at delta inside the packed bytes of logical path p.
func tamper(t *testing.T, archive string, g *Graph, p string, delta int64) string {
	t.Helper()
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	o := occByPath(g)[p]
	if o.SourceLocation == nil || delta >= o.SourceLocation.Length {
		t.Fatalf("%s has no packed bytes at %d", p, delta)
	}
	dataStart := 8 + int64(binary.LittleEndian.Uint32(b[4:]))
	b[dataStart+o.SourceLocation.Offset+delta] ^= 0x5a
	out := filepath.Join(t.TempDir(), "tampered.asar")
	write(t, out, b, 0o644)
	if err := os.CopyFS(out+".unpacked", os.DirFS(archive+".unpacked")); err != nil {
		t.Fatal(err)
	}
	return out
}

var allThree = Policy{Mode: PolicyRecordAndContinue, ContinueApproved: true, OperatorEnabled: true}

func TestTamperFailClosed(t *testing.T) {
	archive, _ := packedApp(t)
	g := mustInventory(t, archive, FormatASAR, Options{})
	bad := tamper(t, archive, g, "main.js", 3)
	_, err := inventoryOf(t, bad, FormatASAR, Options{})
	fe := wantFault(t, err, fault.ArtifactIntegrityMismatch, "")
	d := fe.Details
	if d["logical_path"] != "main.js" || d["unpacked"] != false {
		t.Fatalf("details %v", d)
	}
	decl, calc := d["declared_sha256"].(*string), d["calculated_sha256"].(*string)
	if decl == nil || calc == nil || *decl == *calc || *decl != *occByPath(g)["main.js"].DeclaredSHA256 {
		t.Fatalf("hashes %v %v", decl, calc)
	}
	if fe.Category != fault.CatIntegrityMismatch {
		t.Fatalf("category %s", fe.Category)
	}
	// Extraction is always fail-closed, whatever the policy.
	out := filepath.Join(t.TempDir(), "out")
	_, err = Extract(context.Background(), Root{Path: bad, Format: FormatASAR}, g, ExtractOptions{
		OutputRoot: out, OccurrenceIDs: []string{occByPath(g)["main.js"].OccurrenceID}})
	wantFault(t, err, fault.ArtifactIntegrityMismatch, "")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("output root left behind: %v %v", err, listDir(t, out))
	}
}

func TestTamperRecordAndContinue(t *testing.T) {
	archive, _ := packedApp(t)
	g := mustInventory(t, archive, FormatASAR, Options{})
	bad := tamper(t, archive, g, "vendor/inner.asar", 40)
	tg, err := inventoryOf(t, bad, FormatASAR, Options{Policy: allThree})
	if err != nil {
		t.Fatalf("%v %s", err, details(err))
	}
	if len(tg.Contradictions) != 1 {
		t.Fatalf("contradictions %+v", tg.Contradictions)
	}
	c := tg.Contradictions[0]
	want := *occByPath(g)["vendor/inner.asar"].DeclaredSHA256
	if c.LogicalPath != "vendor/inner.asar" || c.DeclaredSHA256 != want || c.ObservedSHA256 == want ||
		c.Trust != "observed-untrusted" || c.Provenance != ProvenanceIntegrity || c.Unpacked || c.EntryKind != "file" ||
		!strings.HasPrefix(c.ContradictionID, "ic_") || len(c.Limitations) == 0 || !slices.Equal(c.MismatchedBlocks, []int{0}) {
		t.Fatalf("contradiction %+v", c)
	}
	if c.ContradictionID != ContradictionID(tg.Manifest.RootArtifactID, c.LogicalPath, c.DeclaredSHA256, c.ObservedSHA256) {
		t.Fatal("contradiction id")
	}
	occ := occByPath(tg)
	if occ["vendor/inner.asar"].HashStatus != HashMismatched || c.OccurrenceID != occ["vendor/inner.asar"].OccurrenceID {
		t.Fatalf("occurrence %+v", occ["vendor/inner.asar"])
	}
	for p, o := range occ {
		if strings.HasPrefix(p, "vendor/inner.asar/") {
			t.Fatalf("quarantined nested archive expanded: %s", p)
		}
		if o.EntryKind == EntryFile && p != "vendor/inner.asar" && o.HashStatus != HashVerified {
			t.Errorf("sibling %s: %s", p, o.HashStatus)
		}
	}
	if !slices.Contains(tg.Limitations, "1 integrity contradiction(s) recorded; mismatched content is observed-untrusted") {
		t.Errorf("limitations %v", tg.Limitations)
	}
	if n := nodeOf(tg, occ["vendor/inner.asar"]); n == nil || !slices.Contains(n.Limitations, untrustedNote) {
		t.Errorf("node not untrusted: %+v", n)
	}

	// compare_artifacts against the untampered pack: a contradiction.
	cmp, err := Compare(context.Background(), side(g), side(tg))
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Status != ClassContradiction || cmp.Summary.Contradiction != 1 || cmp.Summary.Removed == 0 {
		t.Fatalf("comparison %+v", cmp.Summary)
	}
	for _, ch := range cmp.Changes {
		if ch.LogicalPath == "vendor/inner.asar" && ch.Classification != ClassContradiction {
			t.Fatalf("inner.asar %s", ch.Classification)
		}
	}

	// A damaged second block is named.
	bad2 := tamper(t, archive, g, "assets/big.bin", 4<<20+10)
	tg2 := mustInventory(t, bad2, FormatASAR, Options{Policy: allThree})
	if len(tg2.Contradictions) != 1 || !slices.Equal(tg2.Contradictions[0].MismatchedBlocks, []int{1}) {
		t.Fatalf("block contradiction %+v", tg2.Contradictions)
	}

	// max_integrity_mismatches: two damaged files with a bound of one.
	b3 := tamper(t, bad2, g, "main.js", 1)
	_, err = inventoryOf(t, b3, FormatASAR, Options{Policy: Policy{Mode: PolicyRecordAndContinue, ContinueApproved: true, OperatorEnabled: true, MaxMismatches: 1}})
	wantFault(t, err, fault.Truncated, "max_integrity_mismatches")
}

// Two of the three conditions: a typed error naming the missing one.
func TestTamperTwoOfThree(t *testing.T) {
	archive, _ := packedApp(t)
	g := mustInventory(t, archive, FormatASAR, Options{})
	bad := tamper(t, archive, g, "main.js", 3)
	cases := []struct {
		name   string
		p      Policy
		code   fault.Code
		reason string
		path   string
	}{
		{"no operator gate", Policy{Mode: PolicyRecordAndContinue, ContinueApproved: true}, fault.ArtifactOperationFailed, ReasonPolicy, ""},
		{"no approval", Policy{Mode: PolicyRecordAndContinue, OperatorEnabled: true}, fault.InvalidRequest, "", "/integrity_continue_approved"},
		{"no policy", Policy{Mode: PolicyFail, ContinueApproved: true, OperatorEnabled: true}, fault.InvalidRequest, "", "/integrity_policy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := inventoryOf(t, bad, FormatASAR, Options{Policy: c.p})
			fe := wantFault(t, err, c.code, c.reason)
			if c.code == fault.ArtifactOperationFailed {
				if fe.Category != fault.CatUnavailable || !strings.Contains(fe.Remediation.Action, EnvIntegrityContinue) {
					t.Fatalf("policy error %s", details(err))
				}
			} else if iss := fe.Details["issues"].([]fault.Issue); iss[0].Path != c.path {
				t.Fatalf("issue %+v", iss)
			}
		})
	}
}

func side(g *Graph) Side {
	return Side{ManifestID: g.Manifest.ManifestID, Nodes: g.Nodes, Occurrences: g.Occurrences, Edges: g.Edges, Complete: true}
}

// TestGraphDigestMatchesJCS: the streaming graph digest equals
// engine/canon's over the same members, on a graph with every optional
// field and a contradiction.
func TestGraphDigestMatchesJCS(t *testing.T) {
	archive, _ := packedApp(t)
	g := mustInventory(t, archive, FormatASAR, Options{})
	bad := tamper(t, archive, g, "assets/big.bin", 4<<20+10)
	for _, x := range []*Graph{g, mustInventory(t, bad, FormatASAR, Options{Policy: allThree})} {
		x.Occurrences[1].Limitations = append(x.Occurrences[1].Limitations, "bad\xffutf8 \u2028 \"q\" \x01")
		want, err := canon.Digest(map[string]any{"nodes": x.Nodes, "occurrences": x.Occurrences, "edges": x.Edges, "integrity_contradictions": x.Contradictions})
		if err != nil {
			t.Fatal(err)
		}
		if got := graphDigest(x.Nodes, x.Occurrences, x.Edges, x.Contradictions); got != want {
			t.Fatalf("graph digest %s want %s", got, want)
		}
	}
}
