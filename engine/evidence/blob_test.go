package evidence

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
)

// A stored body is given back only when it hashes to the digest it was
// found under and its id recomputes: a byte changed anywhere, or a body
// re-sealed under another id, is evidence_integrity_mismatch.
func TestFromBlobReverifies(t *testing.T) {
	r := vectorRecord()
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	body, err := r.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	digest := canon.SHA256Hex(body)
	back, err := FromBlob(digest, body)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := back.Canonical(); !bytes.Equal(again, body) || back.EvidenceID != r.EvidenceID {
		t.Fatalf("loaded record differs: %s", again)
	}

	edited := bytes.Replace(body, []byte(`"normalized_result":true`), []byte(`"normalized_result":false`), 1)
	if bytes.Equal(edited, body) {
		t.Fatal("fixture: no result to edit")
	}
	for name, c := range map[string]struct {
		digest string
		body   []byte
	}{
		"digest of other bytes":     {digest, edited},
		"edited result, own digest": {canon.SHA256Hex(edited), edited},
		"not a record":              {canon.SHA256Hex([]byte(`{}`)), []byte(`{}`)},
	} {
		_, err := FromBlob(c.digest, c.body)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.EvidenceIntegrityMismatch || fe.Details["reason"] != "id_mismatch" {
			t.Errorf("%s: %v, want evidence_integrity_mismatch id_mismatch", name, err)
		}
	}
}

// A bundle's digest is a function of its record set: records in any order,
// repeated or not, give the same bytes, and each record appears once, as
// its stored canonical body.
func TestBundleHoldsEachRecordOnceAsStored(t *testing.T) {
	a, b := vectorRecord(), vectorRecord()
	b.Operation = "other"
	for _, r := range []*Record{a, b} {
		if err := r.Seal(); err != nil {
			t.Fatal(err)
		}
	}
	x, err := BuildBundle([]*Record{b, a, a})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Record{a, b} {
		body, _ := r.Canonical()
		if n := bytes.Count(x, body); n != 1 {
			t.Fatalf("record %s appears %d times in the bundle", r.EvidenceID, n)
		}
	}
}

// FuzzFromBlob: a stored body is untrusted bytes (a ledger copied from
// elsewhere, a disk error). Whatever it holds, FromBlob answers without
// panicking; a record it accepts verifies, and its canonical bytes are
// accepted again as the same record. (A body whose head is not canonical
// but whose id recomputes is accepted: FromBlob checks the id, as the
// engine's load always did, not the encoding.)
func FuzzFromBlob(f *testing.F) {
	r := vectorRecord()
	if err := r.Seal(); err != nil {
		f.Fatal(err)
	}
	body, err := r.Canonical()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := FromBlob(canon.SHA256Hex(b), b)
		if err != nil {
			return
		}
		if err := got.Verify(); err != nil {
			t.Fatalf("accepted a record that does not verify: %v", err)
		}
		again, err := got.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromBlob(canon.SHA256Hex(again), again)
		if err != nil {
			t.Fatalf("the canonical bytes of an accepted record are refused: %v", err)
		}
		if back.EvidenceID != got.EvidenceID {
			t.Fatalf("the canonical bytes of %s load as %s", got.EvidenceID, back.EvidenceID)
		}
	})
}
