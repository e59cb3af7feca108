package evidence

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/provider"
)

func fixtureIdentity() provider.Identity {
	v := "1"
	return provider.Identity{ID: "fixture", Name: "Fixture provider", Version: &v}
}

// The vectors of CONTRACTS.md §14.
func TestProfileDigestVector(t *testing.T) {
	p, err := provider.NewProfile(fixtureIdentity(), 1, map[string]any{"loader": "default"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "b221157d7f44c5774ee6e03c4899c54935d1d2bb278a67b1426c69e1dc2b10be"; p.Digest != want {
		t.Fatalf("digest %s, want %s", p.Digest, want)
	}
}

func vectorRecord() *Record {
	arch := "arm64"
	return &Record{
		SchemaVersion: 2,
		Subject:       &Subject{Name: "a.out", Digest: Digest{SHA256: strings.Repeat("a", 64)}, Format: "mach-o", Architecture: &arch, LocalPath: "/tmp/a.out"},
		Claim: Claim{Provider: fixtureIdentity(), PredicateType: PredicateAnalysis, Operation: "health",
			Parameters: map[string]any{}, Confidence: "observed", Authority: "shipped-artifact"},
		NormalizedResult: json.RawMessage("true"),
	}
}

func TestEvidenceIDVector(t *testing.T) {
	r := vectorRecord()
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	if want := "ev_bec78ade86426a33aa578404e3bf3ec7ab59938fcaff1cd3110d3775435d7c78"; r.EvidenceID != want {
		t.Fatalf("id %s, want %s", r.EvidenceID, want)
	}
	// Renaming or moving the file keeps the id; editing the result breaks it.
	r.Subject.Name, r.Subject.LocalPath = "b.out", "/elsewhere/b.out"
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
	r.NormalizedResult = json.RawMessage("false")
	if err := r.Verify(); err == nil {
		t.Fatal("edited normalized_result still verifies")
	}
}

func TestRecordRoundTripIsByteIdentical(t *testing.T) {
	r := vectorRecord()
	r.Parameters = map[string]any{"offset": int64(0), "document": nil}
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	b, err := r.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Verify(); err != nil {
		t.Fatal(err)
	}
	b2, _ := back.Canonical()
	if string(b) != string(b2) {
		t.Fatalf("round trip changed bytes:\n%s\n%s", b, b2)
	}
	if _, err := DecodeRecord([]byte(strings.Replace(string(b), `"schema_version":2`, `"schema_version":2,"extra":1`, 1))); err == nil {
		t.Fatal("unknown key accepted")
	}
}

func TestEmptyBundleVector(t *testing.T) {
	b, err := BuildBundle(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 124 || canon.SHA256Hex(b) != "4ef96958727c7ef9de33ebf8a9babd58ce69f1f5ff48a1fe03c9654c2d2fdd9c" {
		t.Fatalf("empty bundle %d bytes %s: %s", len(b), canon.SHA256Hex(b), b)
	}
}

func TestBundleIsOrderIndependent(t *testing.T) {
	a, b := vectorRecord(), vectorRecord()
	b.Operation = "other"
	for _, r := range []*Record{a, b} {
		if err := r.Seal(); err != nil {
			t.Fatal(err)
		}
	}
	x, _ := BuildBundle([]*Record{a, b})
	y, _ := BuildBundle([]*Record{b, a, b})
	if string(x) != string(y) {
		t.Fatal("bundle depends on recording order")
	}
}

// The spliced encoding of a record (results inserted as they are) is the
// RFC 8785 encoding of the whole record, and the ID is that of the whole
// preimage.
func TestSplicedEncodingIsCanonical(t *testing.T) {
	r := vectorRecord()
	r.NormalizedResult = json.RawMessage(`{"items":[{"address":"0x10","value":"é\n"}],"total":1}`)
	r.RawResult = json.RawMessage(`[1,"x",{"a":null}]`)
	r.Limitations = []string{"one"}
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	got, err := r.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	type whole Record
	want, err := canon.Marshal((*whole)(r))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("Canonical\n got %s\nwant %s", got, want)
	}
	var preimage map[string]any
	if err := json.Unmarshal(want, &preimage); err != nil {
		t.Fatal(err)
	}
	delete(preimage, "evidence_id")
	subj := preimage["subject"].(map[string]any)
	delete(subj, "name")
	delete(subj, "local_path")
	d, err := canon.Digest(preimage)
	if err != nil {
		t.Fatal(err)
	}
	if r.EvidenceID != "ev_"+d {
		t.Fatalf("evidence_id %s, digest of the whole preimage ev_%s", r.EvidenceID, d)
	}
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
	r.NormalizedResult = json.RawMessage(`{"total":1, "items":[]}`)
	if err := r.Verify(); err == nil || !strings.Contains(err.Error(), "not canonical") {
		t.Fatalf("a non-canonical result verified: %v", err)
	}
}

// compactOf is the compact context of a sealed vector record.
func compactOf(t testing.TB, r *Record, ref LedgerRef) CompactContext {
	t.Helper()
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	return ContextOf(r, ref).Compact()
}

// The compact context names the record and nothing more (CONTRACTS.md §0):
// exactly its eight keys, values taken from the record.
func TestCompactContextShape(t *testing.T) {
	r := vectorRecord()
	prof, err := provider.NewProfile(fixtureIdentity(), 1, map[string]any{"loader": "default"})
	if err != nil {
		t.Fatal(err)
	}
	r.AnalysisProfile, r.Limitations = &prof, []string{"stripped"}
	c := compactOf(t, r, LedgerRef{Seq: 12, EventID: "01JAAAAAAAAAAAAAAAAAAAAAAA"})
	b := c.AppendJSON(nil)
	want := `{"evidence_id":"` + r.EvidenceID + `","ledger":{"seq":12,"event_id":"01JAAAAAAAAAAAAAAAAAAAAAAA"},` +
		`"subject":{"digest":{"sha256":"` + strings.Repeat("a", 64) + `"},"name":"a.out"},"provider":{"id":"fixture","version":"1"},` +
		`"analysis_profile_digest":"` + prof.Digest + `","confidence":"observed","authority":"shipped-artifact","limitations":["stripped"]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	// No subject, no profile, no limitations: nulls and an empty list.
	r = vectorRecord()
	r.Subject = nil
	b = compactOf(t, r, LedgerRef{Seq: 1, EventID: "E"}).AppendJSON(nil)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["subject"] != nil || m["analysis_profile_digest"] != nil || len(m["limitations"].([]any)) != 0 || len(m) != 8 {
		t.Fatalf("compact context without subject or profile: %s", b)
	}
}

// AppendJSON writes what encoding/json writes for the same value.
func FuzzCompactContextJSON(f *testing.F) {
	f.Add("a.out", "1", "stripped", int64(3))
	f.Add("\xff\"<&>\u2028\x01", "", "", int64(-1))
	f.Fuzz(func(t *testing.T, name, version, limitation string, seq int64) {
		r := vectorRecord()
		r.Subject.Name = name
		r.Provider.Version = &version
		r.Limitations = []string{limitation, name}
		c := compactOf(t, r, LedgerRef{Seq: seq, EventID: name})
		if version == "" {
			c.Provider.Version, c.AnalysisProfileDigest = nil, &version
		}
		got := c.AppendJSON(nil)
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%v: %s", err, got)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
