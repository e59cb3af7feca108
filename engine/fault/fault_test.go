package fault

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRetryableSet: the retryable set is exactly {provider_timeout,
// cancelled, revision_conflict, provider_unavailable, ledger_unavailable}
// (CONTRACTS.md §0, §1.7, §0.3); invalid_request is not in it, and the
// envelope's retryable field follows the code.
func TestRetryableSet(t *testing.T) {
	want := map[Code]bool{ProviderTimeout: true, Cancelled: true, RevisionConflict: true, ProviderUnavailable: true,
		LedgerUnavailable: true}
	if len(defaultCategory) != 20 {
		t.Fatalf("%d codes, want 20", len(defaultCategory))
	}
	if defaultCategory[LedgerUnavailable] != CatUnavailable {
		t.Fatalf("ledger_unavailable is in category %s, want unavailable", defaultCategory[LedgerUnavailable])
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

type storageFailure struct{ reason, dir string }

func (f storageFailure) Error() string                           { return "ledger storage failed" }
func (f storageFailure) LedgerUnavailable() (reason, dir string) { return f.reason, f.dir }

// TestFromLedgerFailure: a ledger's storage failure is ledger_unavailable
// (retryable, category unavailable) with its reason and, for SQLite, the
// ledger's directory, whether it reaches From or Internal; anything else
// stays execution_failure (CONTRACTS.md §0.3).
func TestFromLedgerFailure(t *testing.T) {
	for _, conv := range []func(string, error) *Error{From, Internal} {
		fe := conv("list_strings", fmt.Errorf("append: %w", storageFailure{LedgerDiskFull, "/var/lib/rea"}))
		if fe.Code != LedgerUnavailable || !fe.Retryable || fe.Category != CatUnavailable ||
			fe.Details["reason"] != "disk_full" || fe.Details["path"] != "/var/lib/rea" || fe.Details["operation"] != "list_strings" {
			t.Fatalf("disk full: %+v", fe)
		}
		if !strings.Contains(fe.Remediation.Action, "Free space") {
			t.Fatalf("disk full remediation %q does not name the action", fe.Remediation.Action)
		}
		fe = conv("get_evidence_bundle", fmt.Errorf("read: %w", storageFailure{LedgerConnectionLost, ""}))
		if fe.Code != LedgerUnavailable || !fe.Retryable || fe.Details["reason"] != "connection_lost" {
			t.Fatalf("connection lost: %+v", fe)
		}
		if _, ok := fe.Details["path"]; ok {
			t.Fatalf("connection lost carries a path: %+v", fe.Details)
		}
		if fe := conv("x", errors.New("disk on fire")); fe.Code != ExecutionFailure || fe.Retryable {
			t.Fatalf("other failure: %+v", fe)
		}
	}
}
