package policy

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/projections"
)

// Inspecting the policy (CONTRACTS.md §9.7): the policy a process would hold
// now, a dry run of a request against it, and the replay of a recorded
// decision. These read the ledger and append nothing; they are the use cases
// behind `rea policy status|list|explain`, and any other surface (an MCP
// tool) calls the same functions so the answers cannot drift apart.

// Live is the policy `rea mcp` started now in the same environment would
// hold: the ceilings of cfg, the project store read now, and the
// project-grant revocations the ledger records.
type Live struct {
	Config    *Config
	Evaluator *Evaluator
	// AsOf is the ledger position the policy stream was read at.
	AsOf projections.LedgerPosition
	// Store is the project store read, nil when it is not configured or
	// is invalid; StoreErr is why a configured store is invalid (status
	// still describes such a store, so it is not a failure of NewLive).
	Store    *StoreSnapshot
	StoreErr error
}

// NewLive builds the live policy of cfg over the policy stream read from the
// ledger (projections.ReadPolicyStream; an absent ledger is an empty stream
// at projections.EmptyLedger).
func NewLive(cfg *Config, stream projections.PolicyStream) *Live {
	lp := &Live{Config: cfg, AsOf: stream.Head, Evaluator: New(cfg, nil, Options{})}
	if cfg.Store == nil {
		return lp
	}
	snap, err := ReadStore(*cfg.Store, cfg.Ceilings)
	if err != nil {
		lp.StoreErr = err
		return lp
	}
	if err := lp.Evaluator.SetProjectGrants(snap.Grants, lastAppliedReload(stream.Events)); err != nil {
		lp.StoreErr = err
		return lp
	}
	lp.Store = &snap
	// A grant the ledger last recorded as revoked stays revoked until a
	// reload adds it again, as in every live process (§9.6).
	states := projections.ProjectGrants(stream.Events)
	for _, gr := range snap.Grants {
		if st, ok := states[gr.GrantID]; ok && st.Revoked {
			lp.Evaluator.RevokeProjectGrant(gr.GrantID)
		}
	}
	return lp
}

func lastAppliedReload(evs []projections.PolicyEvent) int64 {
	var seq int64
	for _, pe := range evs {
		if pe.Reload != nil && pe.Reload.Outcome == "applied" {
			seq = pe.Seq
		}
	}
	return seq
}

// ExplainRequest dry-runs the evaluator on a canonical request
// (CanonicalizeRequest) asked from surface: nothing is consumed or recorded,
// and no connection overlay takes part (§9.7).
func (lp *Live) ExplainRequest(req Request, surface Surface) Explanation {
	d := lp.Evaluator.Evaluate(Input{Operation: "policy_explain", Request: req, Surface: surface, DryRun: true})
	return Explain(lp.AsOf, &d)
}

// Explanation is the decision shape of `rea policy explain` (§9.7). The
// replay of a recorded decision adds DecisionID, Recorded and ReplayMatches.
type Explanation struct {
	DecisionID    string                     `json:"decision_id,omitempty"`
	Recorded      *RecordedOutcome           `json:"recorded,omitempty"`
	ReplayMatches *bool                      `json:"replay_matches,omitempty"`
	AsOf          projections.LedgerPosition `json:"as_of"`
	Request       Scope                      `json:"request"`
	Allowed       bool                       `json:"allowed"`
	Reason        string                     `json:"reason"`
	// Determining is a DeterminingGrant when allowed, a DeterminingCeiling
	// when denied.
	Determining any          `json:"determining"`
	Missing     MissingScope `json:"missing"`
	Ceiling     *Scope       `json:"ceiling"`
	Remediation *string      `json:"remediation"`
}

// DeterminingGrant is the grant that allowed a request.
type DeterminingGrant struct {
	Kind     string `json:"kind"` // grant
	GrantID  string `json:"grant_id"`
	Lifetime string `json:"lifetime"`
	Source   string `json:"source"` // administrator | project | connection
}

// DeterminingCeiling is the ceiling that determined a denial.
type DeterminingCeiling struct {
	Kind       string `json:"kind"` // ceiling
	Capability string `json:"capability"`
	Ceiling    *Scope `json:"ceiling"`
}

// RecordedOutcome is what a replayed permission_decided recorded.
type RecordedOutcome struct {
	Seq     int64  `json:"seq"`
	EventID string `json:"event_id"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

// Explain shapes a decision made at ledger position asOf. A denial is
// determined by the ceiling: outside it, the ceiling itself; inside it, the
// ceiling within which the missing parts still need a grant.
func Explain(asOf projections.LedgerPosition, d *Decision) Explanation {
	out := Explanation{AsOf: asOf, Request: d.Request.Scope, Allowed: d.Allowed, Reason: d.Reason, Missing: d.Missing}
	if d.Ceiling != nil {
		c := *d.Ceiling
		out.Ceiling = &c
	}
	if d.Allowed {
		out.Determining = DeterminingGrant{Kind: "grant", GrantID: d.Grant.GrantID, Lifetime: d.Grant.Lifetime, Source: d.Source}
	} else {
		out.Determining = DeterminingCeiling{Kind: "ceiling", Capability: d.Request.Capability, Ceiling: out.Ceiling}
		r := d.Remediation
		out.Remediation = &r
	}
	return out
}

// ReplayDecision replays the permission_decided with decisionID from the
// ledger read through db (CONTRACTS.md §9.7): the ceilings of the
// policy_reloaded in effect, the project grants and the connection's overlay
// as of the decision's seq, the clock at its evaluated_at, and the recorded
// request as recorded (it was canonical then; its paths need not exist now).
// found is false when no such decision is recorded. A decision whose
// recorded policy cannot be rebuilt is execution_failure naming the seq: the
// ledger is damaged or was written by an incompatible version.
func ReplayDecision(ctx context.Context, db *sql.DB, decisionID string) (out Explanation, found bool, err error) {
	const op = "policy_explain"
	rec, found, err := projections.FindDecision(ctx, db, decisionID)
	if err != nil || !found {
		return Explanation{}, found, err
	}
	d := rec.Data
	unreplayable := func(why string, cause error) error {
		return fault.New(fault.ExecutionFailure, "The recorded decision cannot be replayed: "+why+".",
			"Run `rea ledger verify`; the ledger may be damaged or written by an incompatible version.",
			map[string]any{"operation": op, "decision_id": decisionID, "seq": rec.Seq}).WithCause(cause)
	}
	stream, err := projections.ReadPolicyStream(ctx, db, rec.Seq)
	if err != nil {
		return Explanation{}, true, err
	}
	dp, err := projections.PolicyForDecision(stream.Events, d.PolicySeq)
	if err != nil {
		return Explanation{}, true, unreplayable(fmt.Sprintf("its policy_seq %d names no policy_reloaded", d.PolicySeq), err)
	}
	ceilings, err := CeilingsFromScopes(dp.Reload.AdministratorCeilings)
	if err != nil {
		return Explanation{}, true, unreplayable("its recorded ceilings are invalid", err)
	}
	at, err := time.Parse(TimeLayout, d.EvaluatedAt)
	if err != nil {
		return Explanation{}, true, unreplayable("its evaluated_at is not a timestamp", err)
	}
	ev := New(&Config{Ceilings: ceilings}, nil, Options{Now: func() time.Time { return at }})

	// Project grants: another process's ceilings may not hold one; that
	// process would never have had it in effect.
	var project []Grant
	for _, gr := range dp.Project {
		if c := ceilings.Ceiling(gr.Capability); c != nil && Covers(c, &Request{Scope: gr.Scope}) {
			project = append(project, gr)
		}
	}
	if err := ev.SetProjectGrants(project, d.PolicySeq); err != nil {
		return Explanation{}, true, unreplayable("its project grants are invalid", err)
	}
	for _, gid := range dp.Revoked {
		ev.RevokeProjectGrant(gid)
	}

	// The connection's once/session overlay up to the decision.
	ces, err := projections.ConnectionPolicyEvents(ctx, db, d.ConnectionID, rec.Seq)
	if err != nil {
		return Explanation{}, true, err
	}
	for _, ce := range ces {
		switch {
		case ce.Added != nil:
			// A grant outside these ceilings was never added live either.
			_, _ = ev.AddConnectionGrant(d.ConnectionID, ce.Added.Grant)
		case ce.Consumed != nil:
			_ = ev.MarkConsumed(d.ConnectionID, ce.Consumed.GrantID)
		case ce.Revoked != nil:
			_, _ = ev.RevokeConnectionGrant(d.ConnectionID, ce.Revoked.GrantID, ce.Revoked.Source)
		case ce.Type == events.ConnectionClosed:
			ev.CloseConnection(d.ConnectionID)
		}
	}

	// Who asked is not policy and is not recorded as such; the recorded
	// remediation says it: restart ⇒ an MCP client, configure on a ceiling
	// denial ⇒ the CLI, elicit ⇒ an MCP client with form elicitation.
	in := Input{ConnectionID: d.ConnectionID, Operation: d.Operation, Request: d.Request, DryRun: true}
	if d.Remediation != nil {
		switch {
		case *d.Remediation == RemediationConfigure && d.Reason == ReasonOutsideCeiling:
			in.Surface = SurfaceCLI
		case *d.Remediation == RemediationElicit:
			in.ElicitationForm = true
		}
	}
	got := ev.Evaluate(in)
	out = Explain(projections.LedgerPosition{Seq: rec.Seq, HeadHash: rec.Hash}, &got)
	out.DecisionID = decisionID
	out.Recorded = &RecordedOutcome{Seq: rec.Seq, EventID: rec.EventID, Outcome: d.Outcome, Reason: d.Reason}
	matches := sameOutcome(d, &got)
	out.ReplayMatches = &matches
	return out, true, nil
}

// sameOutcome compares everything a decision concluded: outcome, reason, the
// determining grant, the missing scope and the remediation.
func sameOutcome(rec events.PermissionDecidedData, got *Decision) bool {
	outcome := "deny"
	var gid, lifetime, remediation string
	if got.Allowed {
		outcome = "allow"
		gid, lifetime = got.Grant.GrantID, got.Grant.Lifetime
	} else {
		remediation = got.Remediation
	}
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	m1, err1 := canon.Marshal(rec.Missing)
	m2, err2 := canon.Marshal(got.Missing)
	return rec.Outcome == outcome && rec.Reason == got.Reason && deref(rec.GrantID) == gid &&
		deref(rec.Lifetime) == lifetime && deref(rec.Remediation) == remediation &&
		err1 == nil && err2 == nil && string(m1) == string(m2)
}
