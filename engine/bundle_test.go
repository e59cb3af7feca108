package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
)

// get_evidence_bundle as an engine use case: the records a connection
// published come back, each verifying, in a bundle whose digest is that of
// its bytes; another connection's scope holds none of them and cannot name
// them; the ledger scope, asked by another engine over the same ledger (a
// second process), gives the same bytes.
func TestEvidenceBundleOfAConnection(t *testing.T) {
	ctx := context.Background()
	led, eng, conn := openPartial(t)
	var ids []string
	for _, addr := range []string{"0x2000", "0x1000"} {
		p, err := conn.Operate(ctx, "", "resolve_containing_procedure", provider.Params{"address": addr}, progress.Nop{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.Evidence.EvidenceID)
	}
	slices.Sort(ids)

	own, err := conn.EvidenceBundle(ctx, engine.BundleRequest{Scope: "connection"})
	if err != nil {
		t.Fatal(err)
	}
	if own.RecordCount != 2 || own.Bytes != len(own.Bundle) || own.BundleDigest != canon.SHA256Hex(own.Bundle) {
		t.Fatalf("bundle: %d records, %d bytes, digest %s", own.RecordCount, own.Bytes, own.BundleDigest)
	}
	var b struct{ Records []json.RawMessage }
	if err := json.Unmarshal(own.Bundle, &b); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, raw := range b.Records {
		r, err := evidence.DecodeRecord(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Verify(); err != nil {
			t.Fatal(err)
		}
		got = append(got, r.EvidenceID)
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("bundle records %v, want %v (sorted)", got, ids)
	}

	other, err := eng.OpenConnection(ctx, session.Info{Transport: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx, "test")
	if empty, err := other.EvidenceBundle(ctx, engine.BundleRequest{Scope: "connection"}); err != nil || empty.RecordCount != 0 {
		t.Fatalf("another connection's bundle: %+v, %v", empty, err)
	}
	_, err = other.EvidenceBundle(ctx, engine.BundleRequest{Scope: "connection", EvidenceIDs: ids[:1]})
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.EvidenceIntegrityMismatch || fe.Details["reason"] != "missing" {
		t.Fatalf("another connection's record by id: %v", err)
	}

	second := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(partialProvider{}), Version: "test"})
	whole, err := second.EvidenceBundle(ctx, "", engine.BundleRequest{Scope: "ledger"})
	if err != nil {
		t.Fatal(err)
	}
	if string(whole.Bundle) != string(own.Bundle) || whole.Scope != "ledger" {
		t.Fatalf("the ledger scope from another engine differs:\n%s\n%s", whole.Bundle, own.Bundle)
	}
}
