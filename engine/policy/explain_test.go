package policy

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// policyLedger is a real SQLite ledger the tests append policy events to as
// a live process does (events and projections in one transaction).
type policyLedger struct {
	led *ledger.Ledger
}

func newPolicyLedger(t *testing.T) *policyLedger {
	t.Helper()
	led, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	return &policyLedger{led: led}
}

func (pl *policyLedger) append(t *testing.T, emits ...Emit) []ledger.Event {
	t.Helper()
	var out []ledger.Event
	for _, e := range emits {
		stored, err := pl.led.Append(context.Background(), e.Stream, -1, []ledger.NewEvent{{Type: e.Type, Data: e.Data}},
			func(tx *sql.Tx, evs []ledger.Event) error { return projections.Apply(tx, projections.All(), evs) })
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, stored...)
	}
	return out
}

func (pl *policyLedger) stream(t *testing.T) projections.PolicyStream {
	t.Helper()
	s, err := projections.ReadPolicyStream(context.Background(), pl.led.ReadDB(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReplayDecision records decisions the way a live process does (startup
// reload, a project grant, an elicitation-shaped denial, a ceiling denial, a
// once grant used and then consumed, a CLI revocation) and replays each from
// the ledger alone; then a tampered record that the replay must not confirm,
// one whose policy cannot be rebuilt, and an unknown id.
func TestReplayDecision(t *testing.T) {
	ctx := context.Background()
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("proj-a", "@/root-a"))
	pl := newPolicyLedger(t)
	r, err := f.ev.Reload(TriggerStartup)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Apply(pl.append(t, r.Events...)[0].Seq); err != nil {
		t.Fatal(err)
	}

	const conn = "01JTESTCONNECTION000000000"
	type recorded struct {
		id, reason string
		allowed    bool
		seq        int64
		data       events.PermissionDecidedData
	}
	var decisions []recorded
	decide := func(req Request, surface Surface, form bool, allowed bool, reason string) {
		t.Helper()
		q, err := CanonicalizeRequest("test", req)
		if err != nil {
			t.Fatal(err)
		}
		d := f.ev.Evaluate(Input{ConnectionID: conn, Operation: "capture_process_scenario", Request: q, Surface: surface, ElicitationForm: form})
		if d.Allowed != allowed || d.Reason != reason {
			t.Fatalf("decision %d: allowed %v (%s), want %v (%s)", len(decisions)+1, d.Allowed, d.Reason, allowed, reason)
		}
		stored := pl.append(t, d.Events...)
		decisions = append(decisions, recorded{d.ID, d.Reason, d.Allowed, stored[0].Seq, d.Events[0].Data.(events.PermissionDecidedData)})
	}
	withEnv := with(f.req, func(r *Request) { r.EnvironmentNames = []string{"ALLOWED_A"} })

	decide(f.req, SurfaceMCP, false, true, ReasonGranted)                                                                 // 1 project grant proj-a
	decide(withEnv, SurfaceMCP, true, false, ReasonGrantRequired)                                                         // 2 elicit
	decide(withEnv, SurfaceMCP, false, false, ReasonGrantRequired)                                                        // 3 no form: configure
	decide(f.req, SurfaceCLI, false, true, ReasonGranted)                                                                 // 4 the CLI, allowed
	decide(with(f.req, func(r *Request) { r.Network = NetworkExternal }), SurfaceCLI, false, false, ReasonOutsideCeiling) // 5 configure
	decide(with(f.req, func(r *Request) { r.Network = NetworkExternal }), SurfaceMCP, false, false, ReasonOutsideCeiling) // 6 restart

	once := cg("once-1", LifetimeOnce, []string{f.tr.p("@/root-a")}, []string{f.tr.p("@/bin")}, []string{"ALLOWED_A"}, NetworkNone, strp(f.req.OperationIdentity))
	emit, err := f.ev.AddConnectionGrant(conn, once)
	if err != nil {
		t.Fatal(err)
	}
	pl.append(t, emit)
	decide(withEnv, SurfaceMCP, true, true, ReasonGranted)                 // 7 once
	decide(withEnv, SurfaceMCP, true, false, ReasonGrantRevokedOrConsumed) // 8 consumed

	// `rea policy revoke proj-a` in another process; this one honours it.
	_, emit, err = RevokeFromStore(ctx, *f.cfg.Store, f.cfg.Ceilings, "proj-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	pl.append(t, emit)
	f.ev.RevokeProjectGrant("proj-a")
	decide(f.req, SurfaceMCP, false, false, ReasonGrantRevokedOrConsumed) // 9

	for i, d := range decisions {
		out, found, err := ReplayDecision(ctx, pl.led.ReadDB(), d.id)
		if err != nil || !found {
			t.Fatalf("decision %d: found %v, %v", i+1, found, err)
		}
		if out.ReplayMatches == nil || !*out.ReplayMatches {
			t.Errorf("decision %d (%s): the replay does not match: %+v", i+1, d.reason, out)
		}
		if out.DecisionID != d.id || out.Recorded == nil || out.Recorded.Seq != d.seq || out.Recorded.Reason != d.reason ||
			out.AsOf.Seq != d.seq || out.Allowed != d.allowed || out.Reason != d.reason {
			t.Errorf("decision %d: replayed as %+v (recorded %+v)", i+1, out, out.Recorded)
		}
	}
	first, _, _ := ReplayDecision(ctx, pl.led.ReadDB(), decisions[0].id)
	if g, ok := first.Determining.(DeterminingGrant); !ok || g.GrantID != "proj-a" || g.Source != LifetimeProject || first.Remediation != nil {
		t.Fatalf("decision 1 determined by %+v (remediation %v)", first.Determining, first.Remediation)
	}
	if c, ok := mustReplay(t, pl, decisions[5].id).Determining.(DeterminingCeiling); !ok || c.Capability != ProcessCapture || c.Ceiling == nil {
		t.Fatalf("decision 6 determined by %+v", c)
	}

	// A record that says allow (by proj-a) after proj-a was revoked: the
	// replay denies, and says the record does not match.
	tampered := decisions[0].data
	tampered.DecisionID = "tampered"
	pl.append(t, Emit{Stream: events.ConnectionStream(conn), Type: events.PermissionDecided, Data: tampered})
	if out := mustReplay(t, pl, "tampered"); out.ReplayMatches == nil || *out.ReplayMatches || out.Allowed ||
		out.Reason != ReasonGrantRevokedOrConsumed || out.Recorded.Outcome != "allow" {
		t.Fatalf("tampered record replayed as %+v", out)
	}

	// A policy_seq that names no policy_reloaded: execution_failure naming
	// the decision, never a guessed answer.
	orphan := decisions[0].data
	orphan.DecisionID, orphan.PolicySeq = "orphan", 1_000_000
	seq := pl.append(t, Emit{Stream: events.ConnectionStream(conn), Type: events.PermissionDecided, Data: orphan})[0].Seq
	_, found, err := ReplayDecision(ctx, pl.led.ReadDB(), "orphan")
	var fe *fault.Error
	if !found || !errors.As(err, &fe) || fe.Code != fault.ExecutionFailure || fe.Details["seq"] != seq || fe.Details["decision_id"] != "orphan" {
		t.Fatalf("orphan decision: found %v, %v", found, err)
	}

	if _, found, err := ReplayDecision(ctx, pl.led.ReadDB(), "no-such-decision"); found || err != nil {
		t.Fatalf("unknown decision: found %v, %v", found, err)
	}
}

func mustReplay(t *testing.T, pl *policyLedger, id string) Explanation {
	t.Helper()
	out, found, err := ReplayDecision(context.Background(), pl.led.ReadDB(), id)
	if err != nil || !found {
		t.Fatalf("replay %s: found %v, %v", id, found, err)
	}
	return out
}

// TestLiveHonoursLedgerRevocations: the live policy holds the store's grants
// minus those the ledger last recorded as revoked, explains requests as a
// dry run at the ledger position read, and reports an invalid store instead
// of failing.
func TestLiveHonoursLedgerRevocations(t *testing.T) {
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("proj-a", "@/root-a"), f.grant("proj-b", "@/root-ab"))
	pl := newPolicyLedger(t)

	// No ledger events yet: both grants active, the empty ledger's position.
	lp := NewLive(f.cfg, pl.stream(t))
	if lp.StoreErr != nil || lp.Store == nil || len(lp.Store.Grants) != 2 || lp.AsOf != projections.EmptyLedger() {
		t.Fatalf("live: store %v err %v as_of %v", lp.Store, lp.StoreErr, lp.AsOf)
	}
	out := lp.ExplainRequest(f.req, SurfaceCLI)
	if g, ok := out.Determining.(DeterminingGrant); !out.Allowed || !ok || g.GrantID != "proj-a" {
		t.Fatalf("explain before the revocation: %+v", out)
	}

	// A revocation recorded by another process, with the store still
	// holding the grant (a reload has not removed it from the file).
	r, err := New(f.cfg, nil, Options{}).Reload(TriggerStartup)
	if err != nil {
		t.Fatal(err)
	}
	pl.append(t, r.Events...)
	stored := pl.append(t, Emit{Stream: events.PolicyStream, Type: events.GrantRevoked,
		Data: events.GrantRevokedData{GrantID: "proj-a", Source: SourceCLI}})
	lp = NewLive(f.cfg, pl.stream(t))
	states := map[string]string{}
	for _, l := range lp.Evaluator.List() {
		states[l.GrantID] = l.State
	}
	if states["proj-a"] != "revoked" || states["proj-b"] != "active" {
		t.Fatalf("states after the ledger revocation: %v", states)
	}
	out = lp.ExplainRequest(f.req, SurfaceCLI)
	if out.Allowed || out.Reason != ReasonGrantRevokedOrConsumed || out.AsOf.Seq != stored[0].Seq || out.AsOf.HeadHash != stored[0].Hash {
		t.Fatalf("explain after the revocation: %+v", out)
	}
	if c, ok := out.Determining.(DeterminingCeiling); !ok || c.Capability != ProcessCapture || out.Remediation == nil {
		t.Fatalf("a denial is determined by the ceiling with a remediation: %+v", out)
	}
	if head := pl.stream(t).Head; head.Seq != stored[0].Seq {
		t.Fatalf("explain appended: head %d, was %d", head.Seq, stored[0].Seq)
	}

	// An invalid store is reported, not fatal.
	f.writeRaw(t, []byte("{not json"), 0o600)
	if lp = NewLive(f.cfg, pl.stream(t)); lp.StoreErr == nil || lp.Store != nil {
		t.Fatalf("invalid store: store %v err %v", lp.Store, lp.StoreErr)
	}
}
