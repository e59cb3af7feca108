package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// bundleRecord is an unsealed record of the kind a bundle carries.
func bundleRecord() *evidence.Record {
	arch, version := "arm64", "1.0"
	return &evidence.Record{
		SchemaVersion: 2,
		Subject:       &evidence.Subject{Name: "a.out", Digest: evidence.Digest{SHA256: strings.Repeat("a", 64)}, Format: "mach-o", Architecture: &arch, LocalPath: "/tmp/a.out"},
		Claim: evidence.Claim{Provider: provider.Identity{ID: "builtin", Name: "REA builtin", Version: &version}, PredicateType: evidence.PredicateAnalysis,
			Operation: "health", Parameters: map[string]any{}, Confidence: "observed", Authority: "shipped-artifact"},
		NormalizedResult: json.RawMessage("true"),
	}
}

func sealedBundle(t testing.TB) []byte {
	t.Helper()
	a, b := bundleRecord(), bundleRecord()
	b.Operation, b.NormalizedResult = "binary_overview", json.RawMessage(`{"functions":3}`)
	for _, r := range []*evidence.Record{a, b} {
		if err := r.Seal(); err != nil {
			t.Fatal(err)
		}
	}
	out, err := evidence.BuildBundle([]*evidence.Record{b, a})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseBundle(t *testing.T) {
	good := sealedBundle(t)
	recs, err := ParseBundle(good)
	if err != nil || len(recs) != 2 || recs[0].EvidenceID >= recs[1].EvidenceID {
		t.Fatalf("ParseBundle(good) = %d records, %v", len(recs), err)
	}
	empty, _ := evidence.BuildBundle(nil)
	if recs, err := ParseBundle(empty); err != nil || len(recs) != 0 {
		t.Fatalf("empty bundle: %v", err)
	}
	for _, tc := range []struct {
		name   string
		in     string
		code   fault.Code
		reason string
	}{
		{"not json", `{"bundle_version":2`, fault.ExecutionFailure, "invalid_json"},
		{"too deep", strings.Repeat("[", 65) + strings.Repeat("]", 65), fault.ExecutionFailure, "invalid_json"},
		{"too many nodes", "[" + strings.Repeat("0,", 1_000_000) + "0]", fault.ExecutionFailure, "invalid_json"},
		{"deep inside a string is fine", `"` + strings.Repeat("[", 100) + `"`, fault.EvidenceIntegrityMismatch, "schema"},
		{"long string", `"` + strings.Repeat("a", 1<<20+1) + `"`, fault.ExecutionFailure, "invalid_json"},
		{"not canonical", " " + string(good), fault.EvidenceIntegrityMismatch, "not_canonical"},
		{"array", `[]`, fault.EvidenceIntegrityMismatch, "schema"},
		{"missing section", strings.Replace(string(good), `,"unknowns":[]`, ``, 1), fault.EvidenceIntegrityMismatch, "schema"},
		{"tampered", strings.Replace(string(good), `{"functions":3}`, `{"functions":4}`, 1), fault.EvidenceIntegrityMismatch, "id_mismatch"},
	} {
		_, err := ParseBundle([]byte(tc.in))
		fe, ok := err.(*fault.Error)
		if !ok || fe.Code != tc.code || fe.Details["reason"] != tc.reason {
			t.Errorf("%s: %v, want %s/%s", tc.name, err, tc.code, tc.reason)
		}
	}
}

// FuzzParseBundle: untrusted bundle bytes never panic, and whatever is
// accepted is exactly the canonical bundle of its records.
func FuzzParseBundle(f *testing.F) {
	f.Add(sealedBundle(f))
	empty, _ := evidence.BuildBundle(nil)
	f.Add(empty)
	f.Add([]byte(`[[[[[[]]]]]]`))
	f.Add([]byte(`{"bundle_version":2,"records":[{}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := ParseBundle(b)
		if err != nil {
			if _, ok := err.(*fault.Error); !ok {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		again, err := evidence.BuildBundle(recs)
		if err != nil || string(again) != string(b) {
			t.Fatalf("accepted a bundle that does not rebuild to itself: %v", err)
		}
	})
}

// A path approved as canonical that no longer resolves to itself when opened
// (a component swapped for a symlink after the decision) is refused, for the
// import's file and for the export's directory.
func TestEvidenceFileSwapRefused(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "b.json"), sealedBundle(t), 0o600); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(real, alias); err != nil {
		t.Fatal(err)
	}
	if _, err := readApproved(filepath.Join(alias, "b.json")); !fault.Is(err, fault.OutsideApprovedRoot) {
		t.Fatalf("import through a swapped directory: %v", err)
	}
	if err := os.Symlink(filepath.Join(real, "b.json"), filepath.Join(real, "leaf.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := readApproved(filepath.Join(real, "leaf.json")); !fault.Is(err, fault.OutsideApprovedRoot) {
		t.Fatalf("import through a swapped leaf: %v", err)
	}
	if _, err := openApprovedDir(alias + "/"); !fault.Is(err, fault.OutsideApprovedRoot) {
		t.Fatalf("export into a swapped directory: %v", err)
	}
	if b, err := readApproved(filepath.Join(real, "b.json")); err != nil || len(b) == 0 {
		t.Fatalf("the approved file itself: %v", err)
	}
	root, err := openApprovedDir(real + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := checkDestination(root, "leaf.json", true); !fault.Is(err, fault.ExecutionFailure) {
		t.Fatalf("a symlink destination: %v", err)
	}
}
