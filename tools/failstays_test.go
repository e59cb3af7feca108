package tools_test

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/tools"
)

// Issue 13 item 7: a failure stays with its call. A procedure_info failure
// that is about one input (its procedure) is a typed error of that call: the
// next call on another procedure succeeds, and tools/list neither changes nor
// sends list_changed. Only provider-wide failures change health.

// faultyProvider is the builtin provider whose clients fail procedure_info
// for one procedure with an injected fault, the seam for failures no real
// fixture produces on demand (a malformed region, a provider death).
type faultyProvider struct {
	*builtin.Provider
	poisoned string // procedure_info's procedure argument that fails
	fault    func() *fault.Error
	tag      string // added to every answer's TargetLimitations, when set
	hang     bool   // the poisoned call hangs (until its budget ends) instead
	// stuckOp, when set, is an operation that blocks on the target at
	// stuckPath ignoring its context, as a read of a FIFO did (issue 23):
	// it signals entered as it starts and returns once release is closed
	// (the test closes it at its end, so nothing outlives the test).
	stuckOp   string
	stuckPath string
	entered   chan struct{}
	release   chan struct{}
}

// Capabilities gives procedure_info a short budget when the poisoned call
// hangs, so that its provider_timeout comes quickly.
func (p *faultyProvider) Capabilities() []provider.Capability {
	cs := p.Provider.Capabilities()
	if !p.hang {
		return cs
	}
	out := slices.Clone(cs)
	for i := range out {
		if out[i].Operation == "procedure_info" {
			ms := int64(300)
			out[i].Limits.TimeoutMS = &ms
		}
	}
	return out
}

func (p *faultyProvider) Start(ctx context.Context, t provider.Target, prof provider.Profile, run provider.Run) (provider.Client, error) {
	c, err := p.Provider.Start(ctx, t, prof, run)
	if err != nil {
		return nil, err
	}
	bc, ok := c.(*builtin.Client)
	if !ok {
		return nil, errors.New("the builtin provider's client is not *builtin.Client")
	}
	return &faultyClient{Client: bc, p: p, path: t.Path}, nil
}

type faultyClient struct {
	*builtin.Client
	p    *faultyProvider
	path string
}

func (c *faultyClient) Do(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	if c.p.stuckOp != "" && op == c.p.stuckOp && c.path == c.p.stuckPath {
		select {
		case c.p.entered <- struct{}{}:
		default:
		}
		<-c.p.release // ctx is not observed: the fault under test
		return provider.Result{}, ctx.Err()
	}
	if s, _ := in.String("procedure"); op == "procedure_info" && s == c.p.poisoned {
		if c.p.hang {
			<-ctx.Done()
			return provider.Result{}, ctx.Err()
		}
		return provider.Result{}, c.p.fault()
	}
	res, err := c.Client.Do(ctx, op, in, rep)
	if err == nil && c.p.tag != "" {
		res.TargetLimitations = append(res.TargetLimitations, c.p.tag)
	}
	return res, err
}

func startWith(t *testing.T, p provider.Provider) *session {
	t.Helper()
	led, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(p), Version: "test"})
	srv := tools.New(eng, tools.Options{Transport: "stdio"})
	t.Cleanup(func() {
		srv.CloseAll(context.Background(), "server_shutdown")
		led.Close()
	})
	return startInProcess(t, &inProcess{led: led, srv: srv})
}

// changedSince reports whether a list_changed arrived, after a tools/list
// round trip (the server sends a call's notifications before its result;
// the short wait covers the in-process transport's delivery).
func (s *session) changedSince() bool {
	s.t.Helper()
	s.toolNames()
	select {
	case <-s.notify:
		return true
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

func sortedNames(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// TestFailureStaysWithItsCall injects each kind of input-specific failure
// into procedure_info for exported_twice; provider-wide ones must still
// change health (the classification both ways).
func TestFailureStaysWithItsCall(t *testing.T) {
	bin := compileFixture(t, t.TempDir())
	const poisoned = "exported_twice"
	inputSpecific := map[string]func() *fault.Error{
		// What builtin answers for a Thumb procedure without a Thumb decoder.
		"thumb_code_unsupported": func() *fault.Error {
			return fault.New(fault.CapabilityUnavailable, "The procedure is ARM Thumb code.", "Bind another provider.",
				map[string]any{"operation": "procedure_info", "availability_reason": "thumb_code_unsupported", "provider_id": "builtin"})
		},
		// A capability_unavailable without a reason names nothing provider-wide.
		"capability_unavailable without reason": func() *fault.Error {
			return fault.New(fault.CapabilityUnavailable, "This region cannot be decoded.", "Try another provider.", nil)
		},
		// A provider panic on a malformed region (safeDo's conversion).
		"execution_failure": func() *fault.Error {
			return fault.Internal("procedure_info", errors.New("malformed region"))
		},
		"invalid_request": func() *fault.Error {
			return fault.Invalid("procedure_info", fault.Issue{Path: "/procedure", Reason: "invalid_value", Message: "No such procedure."})
		},
		"unreadable_output": func() *fault.Error {
			return fault.New(fault.UnreadableOutput, "The provider's answer is malformed.", "Call again.",
				map[string]any{"operation": "procedure_info", "provider_id": "builtin"})
		},
	}
	// The call's own budget: a provider that stays alive is not unhealthy
	// because one call took too long (nil: the poisoned call hangs).
	inputSpecific["provider_timeout"] = nil
	for name, inject := range inputSpecific {
		t.Run(name, func(t *testing.T) {
			fp := &faultyProvider{Provider: builtin.New("test"), poisoned: poisoned, fault: inject, hang: inject == nil}
			want := "provider_timeout"
			if inject != nil {
				want = string(inject().Code)
			}
			s := startWith(t, fp)
			s.ok("open_binary", map[string]any{"path": bin})
			drainChanged(s)
			before := sortedNames(s.toolNames())
			for range 2 { // the second time too: the first left no mark behind
				if e := s.errorOf("procedure_info", map[string]any{"procedure": poisoned}); e["code"] != want {
					t.Fatalf("poisoned procedure_info: %v, want %s", e, want)
				}
				for _, other := range []string{"main", "helper_add"} {
					info := result[struct{ Name string }](t, s.ok("procedure_info", map[string]any{"procedure": other}))
					if info.Name != other {
						t.Fatalf("procedure_info %s after a failure on %s: %+v", other, poisoned, info)
					}
				}
			}
			if s.changedSince() {
				t.Fatal("an input-specific failure sent notifications/tools/list_changed")
			}
			if after := sortedNames(s.toolNames()); !slices.Equal(before, after) {
				t.Fatalf("tools/list changed after an input-specific failure:\nbefore %v\nafter  %v", before, after)
			}
			if !slices.Contains(before, "procedure_info") {
				t.Fatalf("procedure_info not listed: %v", before)
			}
		})
	}

	providerWide := map[string]struct {
		inject func() *fault.Error
		gone   []string // tools that leave tools/list
		stay   string   // a provider tool that stays ("" = none)
	}{
		// The provider died: every provider operation is unavailable.
		"provider_unavailable": {func() *fault.Error {
			return fault.New(fault.ProviderUnavailable, "The provider process is no longer available.", "Reopen the target.",
				map[string]any{"operation": "procedure_info", "provider_id": "builtin"})
		}, []string{"procedure_info", "list_procedures"}, ""},
		// The provider does not offer the operation at all: that operation only.
		"provider_missing": {func() *fault.Error {
			return fault.New(fault.CapabilityUnavailable, "The bound provider does not offer this operation.", "Bind another provider.",
				map[string]any{"operation": "procedure_info", "availability_reason": "provider_missing", "provider_id": "builtin"})
		}, []string{"procedure_info"}, "list_procedures"},
	}
	for name, tc := range providerWide {
		t.Run(name, func(t *testing.T) {
			s := startWith(t, &faultyProvider{Provider: builtin.New("test"), poisoned: poisoned, fault: tc.inject})
			s.ok("open_binary", map[string]any{"path": bin})
			drainChanged(s)
			if e := s.errorOf("procedure_info", map[string]any{"procedure": poisoned}); e["code"] != string(tc.inject().Code) {
				t.Fatalf("poisoned procedure_info: %v", e)
			}
			if !s.changedSince() {
				t.Fatal("a provider-wide failure sent no notifications/tools/list_changed")
			}
			names := s.toolNames()
			for _, g := range tc.gone {
				if names[g] {
					t.Errorf("%s still listed after a %s failure", g, name)
				}
			}
			if tc.stay != "" && !names[tc.stay] {
				t.Errorf("%s left tools/list after a failure of procedure_info alone", tc.stay)
			}
		})
	}
}

// thumbC has one Thumb and two ARM-mode functions for armhf.
const thumbC = `__attribute__((noinline, target("thumb"))) int in_thumb(int x) { return x * 3 + 1; }
__attribute__((noinline, target("arm"))) int in_arm(int x) { return in_thumb(x) + 2; }
__attribute__((target("arm"))) int main(int argc, char **argv) { return in_arm(argc); }
`

// TestThumbFailureStaysWithItsCall is the same walk with the real failure of
// issue 13: procedure_info on a Thumb procedure of an armhf executable. With
// a Thumb decoder the first call succeeds too; either way the rest holds.
func TestThumbFailureStaysWithItsCall(t *testing.T) {
	cc := testkit.Need(t, "arm-linux-gnueabihf-gcc")
	bin, err := testkit.BuildC(cc, t.TempDir(), "thumbmix", thumbC, "-O1", "-marm")
	if err != nil {
		t.Fatal(err)
	}
	s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
	s.ok("open_binary", map[string]any{"path": bin})
	drainChanged(s)
	before := sortedNames(s.toolNames())
	for range 2 {
		r := s.call(context.Background(), "procedure_info", map[string]any{"procedure": "in_thumb"})
		if r.IsError {
			e := decode[struct {
				Error struct {
					Code    string         `json:"code"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}](t, r.Structured).Error
			if e.Code != "capability_unavailable" || e.Details["availability_reason"] != "thumb_code_unsupported" {
				t.Fatalf("procedure_info in_thumb: %s", r.Structured)
			}
		} else {
			t.Log("procedure_info in_thumb succeeded: Thumb code is decoded")
		}
		if info := result[struct{ Name string }](t, s.ok("procedure_info", map[string]any{"procedure": "in_arm"})); info.Name != "in_arm" {
			t.Fatalf("procedure_info in_arm: %+v", info)
		}
	}
	if s.changedSince() {
		t.Fatal("a Thumb procedure's failure sent notifications/tools/list_changed")
	}
	if after := sortedNames(s.toolNames()); !slices.Equal(before, after) {
		t.Fatalf("tools/list changed:\nbefore %v\nafter  %v", before, after)
	}
}
