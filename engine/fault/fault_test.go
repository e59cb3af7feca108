package fault

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestRetryableSet: the retryable set is exactly {provider_timeout,
// cancelled, revision_conflict, provider_unavailable} (CONTRACTS.md §0,
// §1.7); invalid_request is not in it, and the envelope's retryable field
// follows the code.
func TestRetryableSet(t *testing.T) {
	want := map[Code]bool{ProviderTimeout: true, Cancelled: true, RevisionConflict: true, ProviderUnavailable: true}
	if len(defaultCategory) != 19 {
		t.Fatalf("%d codes, want 19", len(defaultCategory))
	}
	for c := range defaultCategory {
		if got := Retryable(c); got != want[c] {
			t.Errorf("Retryable(%s) = %v, want %v", c, got, want[c])
		}
	}
	b, err := json.Marshal(Invalid("open_binary", Issue{Path: "/path", Reason: "invalid_value"}))
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Code      Code  `json:"code"`
		Retryable *bool `json:"retryable"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Code != InvalidRequest || e.Retryable == nil || *e.Retryable {
		t.Fatalf("invalid_request envelope: %s (%v)", b, err)
	}
}

type flaky struct{}

func (flaky) Error() string   { return "store unreachable" }
func (flaky) Transient() bool { return true }

// TestFromTransient: a dependency's transient failure is a retryable typed
// error, never execution_failure.
func TestFromTransient(t *testing.T) {
	fe := From("get_evidence_bundle", fmt.Errorf("read: %w", flaky{}))
	if fe.Code != RevisionConflict || !fe.Retryable || fe.Details["reason"] != "ledger_unavailable" {
		t.Fatalf("transient failure: %+v", fe)
	}
	if fe := From("x", errors.New("disk on fire")); fe.Code != ExecutionFailure {
		t.Fatalf("other failure: %+v", fe)
	}
}
