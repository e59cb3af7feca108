package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/policy"
)

func TestRequestStates(t *testing.T) {
	r := newRequestStates()
	now := time.Now()
	r.now = func() time.Time { return now }
	req := policy.Request{Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: []string{"/w"},
		Executables: []string{"/bin/echo"}, EnvironmentNames: []string{}, Network: "none"},
		OperationIdentity: "capture_process_scenario:/bin/echo", Access: policy.AccessWrite}
	other := req
	other.Executables = []string{"/bin/cat"}

	st, err := r.issue("conn-a", req)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.redeem(st, "conn-b", req); err == nil {
		t.Error("another connection redeemed the state")
	}
	if err := r.redeem(st, "conn-a", other); err == nil {
		t.Error("the state was redeemed for another request")
	}
	p, m, _ := strings.Cut(st, ".")
	if err := r.redeem(p+"x."+m, "conn-a", req); err == nil {
		t.Error("an edited state was accepted")
	}
	if err := r.redeem(st, "conn-a", req); err != nil {
		t.Fatalf("a good state was refused: %v", err)
	}
	if err := r.redeem(st, "conn-a", req); err == nil {
		t.Error("a state was accepted twice")
	}
	old, _ := r.issue("conn-a", req)
	now = now.Add(requestStateTTL + time.Second)
	if err := r.redeem(old, "conn-a", req); err == nil {
		t.Error("an expired state was accepted")
	}
	if err := newRequestStates().redeem(old, "conn-a", req); err == nil {
		t.Error("another process's state was accepted")
	}
}
