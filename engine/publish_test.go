package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/ledger"
)

// TestRepublicationReusesTheStoredRecord asks the same question twice: the
// second publication finds the record inside its transaction, rolls back,
// and records a publication of the stored record (new=false) without
// storing its body again.
func TestRepublicationReusesTheStoredRecord(t *testing.T) {
	ctx := context.Background()
	led, _, conn := openPartial(t)
	params := provider.Params{"address": "0x1000"}
	first, err := conn.Operate(ctx, "", "resolve_containing_procedure", params, progress.Nop{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := conn.Operate(ctx, "", "resolve_containing_procedure", params, progress.Nop{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Evidence.EvidenceID != second.Evidence.EvidenceID || first.Evidence.Ledger.Seq >= second.Evidence.Ledger.Seq {
		t.Fatalf("evidence %s at %d, then %s at %d", first.Evidence.EvidenceID, first.Evidence.Ledger.Seq,
			second.Evidence.EvidenceID, second.Evidence.Ledger.Seq)
	}
	var published []events.EvidenceRecordedData
	if err := led.Scan(ctx, 1, func(e ledger.Event) error {
		if e.Type == events.EvidenceRecorded {
			var d events.EvidenceRecordedData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return err
			}
			published = append(published, d)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(published) != 2 || !published[0].New || published[1].New || published[0].RecordDigest != published[1].RecordDigest {
		t.Fatalf("publications: %+v", published)
	}
	var blobs int
	if err := led.ReadDB().QueryRowContext(ctx, `SELECT count(*) FROM blobs WHERE sha256 = ?`, published[0].RecordDigest).Scan(&blobs); err != nil || blobs != 1 {
		t.Fatalf("record body stored %d times (%v)", blobs, err)
	}
	if _, err := led.Blob(ctx, published[0].RecordDigest); err != nil {
		t.Fatal(err)
	}
}

// TestCancelledRecordReadIsCancelled reads a stored record under a request
// that was cancelled: the ledger's read fails, and that must be the
// retryable cancelled, not a missing record (evidence_integrity_mismatch
// tells the client to verify the ledger). The same digest, read under a
// live context, loads; a digest the ledger never held stays missing.
func TestCancelledRecordReadIsCancelled(t *testing.T) {
	ctx := context.Background()
	_, eng, conn := openPartial(t)
	pub, err := conn.Operate(ctx, "", "resolve_containing_procedure", provider.Params{"address": "0x1000"}, progress.Nop{})
	if err != nil {
		t.Fatal(err)
	}
	digest, found, err := eng.EvidenceDigest(ctx, pub.Evidence.EvidenceID)
	if err != nil || !found {
		t.Fatalf("digest of %s: found %v, %v", pub.Evidence.EvidenceID, found, err)
	}
	const op = "get_evidence_bundle"
	if _, err := eng.LoadRecord(ctx, op, digest); err != nil {
		t.Fatalf("live read: %v", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = eng.LoadRecord(cancelled, op, digest)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.Cancelled || !fe.Retryable {
		t.Fatalf("cancelled read answered %v, want retryable cancelled", err)
	}

	_, err = eng.LoadRecord(ctx, op, strings.Repeat("0", 64))
	if !errors.As(err, &fe) || fe.Code != fault.EvidenceIntegrityMismatch || fe.Details["reason"] != "missing" {
		t.Fatalf("read of an absent digest answered %v, want evidence_integrity_mismatch missing", err)
	}
}
