package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// `rea policy` (CONTRACTS.md §9.7). status, list and explain load the policy
// exactly as `rea mcp` would (same evaluator, same fail-closed configuration)
// and append nothing; revoke is the only one that writes: the project store,
// then the startup events and grant_revoked on the policy stream.

// Messages of the outputs that carry error (exit 1).
const (
	errStoreDisabled      = "project policy is not configured"
	errGrantNotFound      = "grant not found"
	errNeedsConfirmation  = "confirmation required; rerun interactively or with --yes"
	errRevokeCancelled    = "revocation cancelled"
	errDecisionNotFound   = "decision not found"
	revokeQuestion        = "Revoke this project grant? [y/N] "
	reloadHow             = "SIGHUP"
	ceilingsChangeRequire = "restart"
)

func newPolicyCommand(g *globals) *cobra.Command {
	p := &cobra.Command{
		Use:   "policy",
		Short: "Inspect the permission policy: status, list, explain, revoke",
	}
	p.AddCommand(newPolicyStatusCommand(g), newPolicyListCommand(g), newPolicyExplainCommand(g), newPolicyRevokeCommand(g))
	return p
}

// livePolicy is this process's policy as `rea mcp` started in the same
// environment would hold it: the ceilings, the project store read now, and
// the project-grant revocations the ledger records.
type livePolicy struct {
	cfg      *policy.Config
	eval     *policy.Evaluator
	stream   projections.PolicyStream
	store    *policy.StoreSnapshot // nil when disabled or unreadable
	storeErr error                 // the store is configured but invalid
}

// loadLivePolicy fails only on a configuration error of the environment (the
// caller exits 1, naming the variable); a bad project store is reported in
// storeErr, because status must still describe it.
func (g *globals) loadLivePolicy(ctx context.Context) (*livePolicy, error) {
	cfg, err := policy.LoadConfig(environMap())
	if err != nil {
		return nil, err
	}
	stream, err := g.readPolicyStream(ctx)
	if err != nil {
		return nil, err
	}
	lp := &livePolicy{cfg: cfg, stream: stream, eval: policy.New(cfg, nil, policy.Options{})}
	if cfg.Store == nil {
		return lp, nil
	}
	snap, err := policy.ReadStore(*cfg.Store, cfg.Ceilings)
	if err != nil {
		lp.storeErr = err
		return lp, nil
	}
	lp.store = &snap
	if err := lp.eval.SetProjectGrants(snap.Grants, lastAppliedReload(stream.Events)); err != nil {
		lp.storeErr = err
		lp.store = nil
		return lp, nil
	}
	// A grant the ledger last recorded as revoked stays revoked until a
	// reload adds it again, as in every live process.
	states := projections.ProjectGrants(stream.Events)
	for _, gr := range snap.Grants {
		if st, ok := states[gr.GrantID]; ok && st.Revoked {
			lp.eval.RevokeProjectGrant(gr.GrantID)
		}
	}
	return lp, nil
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

// readPolicyStream reads the policy stream read-only. A ledger that does not
// exist yet is empty: policy inspection never creates one.
func (g *globals) readPolicyStream(ctx context.Context) (projections.PolicyStream, error) {
	path, err := g.resolveLedgerPath()
	if err != nil {
		return projections.PolicyStream{}, err
	}
	if _, err := os.Stat(path); !ledger.IsURL(path) && errors.Is(err, fs.ErrNotExist) {
		return projections.PolicyStream{Head: projections.EmptyLedger()}, nil
	}
	led, err := ledger.OpenReadOnly(ctx, path)
	if err != nil {
		return projections.PolicyStream{}, err
	}
	defer led.Close()
	return projections.ReadPolicyStream(ctx, led.ReadDB(), 0)
}

// printOutcome prints out as JSON or with render, and exits 1 when failed.
func printOutcome(cmd *cobra.Command, asJSON, failed bool, out any, render func(io.Writer)) error {
	if asJSON {
		if err := printJSON(cmd.OutOrStdout(), out); err != nil {
			return err
		}
	} else {
		w := cmd.OutOrStdout()
		if failed {
			w = cmd.ErrOrStderr()
		}
		render(w)
	}
	if failed {
		return exitError{1}
	}
	return nil
}

// policyError is an output that carries error (CONTRACTS.md §9.7).
type policyError struct {
	Error      string `json:"error"`
	GrantID    string `json:"grant_id,omitempty"`
	DecisionID string `json:"decision_id,omitempty"`
}

func printPolicyError(cmd *cobra.Command, asJSON bool, pe policyError) error {
	return printOutcome(cmd, asJSON, true, pe, func(w io.Writer) {
		fmt.Fprintf(w, "rea: %s", termText(pe.Error))
		if pe.GrantID != "" {
			fmt.Fprintf(w, " (grant %s)", termText(pe.GrantID)) // as the user typed it
		}
		if pe.DecisionID != "" {
			fmt.Fprintf(w, " (decision %s)", termText(pe.DecisionID))
		}
		fmt.Fprintln(w)
	})
}

// ---- status ----

type projectStoreStatus struct {
	Path        string `json:"path"`
	ProjectRoot string `json:"project_root"`
	State       string `json:"state"` // enabled | error
	Reason      string `json:"reason,omitempty"`
	GrantCount  int    `json:"grant_count"`
}

type policyStatus struct {
	AsOf                   projections.LedgerPosition `json:"as_of"`
	AdministratorCeilings  []policy.Scope             `json:"administrator_ceilings"`
	AdministratorGrants    []string                   `json:"administrator_grants"`
	ProjectStore           *projectStoreStatus        `json:"project_store"`
	Reload                 string                     `json:"reload"`
	CeilingsChangeRequires string                     `json:"ceilings_change_requires"`
}

func newPolicyStatusCommand(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status [--json]",
		Short: "Show the administrator ceilings of every capability and the project store (appends nothing)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lp, err := g.loadLivePolicy(cmd.Context())
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			st := policyStatus{AsOf: lp.stream.Head, AdministratorCeilings: lp.cfg.Ceilings.Scopes(),
				AdministratorGrants: []string{}, Reload: reloadHow, CeilingsChangeRequires: ceilingsChangeRequire}
			for _, gr := range lp.cfg.Ceilings.AdministratorGrants() {
				st.AdministratorGrants = append(st.AdministratorGrants, gr.GrantID)
			}
			if s := lp.cfg.Store; s != nil {
				ps := &projectStoreStatus{Path: s.Path, ProjectRoot: s.Root, State: "enabled"}
				if lp.storeErr != nil {
					ps.State, ps.Reason = "error", policy.StoreReason(lp.storeErr)
					if ps.Reason == "" {
						ps.Reason = policy.StoreInvalid
					}
				} else {
					ps.GrantCount = len(lp.store.Grants)
				}
				st.ProjectStore = ps
			}
			return printOutcome(cmd, asJSON, false, st, func(w io.Writer) { renderStatus(w, st, lp.cfg.Ceilings) })
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

// ceilingSource names the variables a capability's ceiling comes from (names
// only: status never prints a value it did not validate into a scope).
var ceilingSource = map[string]string{
	policy.ProcessCapture:              policy.EnvProcessCaptureEnabled + "=true with " + policy.EnvProcessWorkingRoots + ", " + policy.EnvProcessExecutableRoots + ", " + policy.EnvProcessAllowedEnv + ", " + policy.EnvProcessAllowExternalNetwork,
	policy.EvidenceRead:                policy.EnvEvidenceRoots,
	policy.EvidenceWrite:               policy.EnvEvidenceRoots,
	policy.InvestigationInput:          policy.EnvInvestigationInputRoots,
	policy.InvestigationWorkspaceRead:  policy.EnvEvidenceRoots,
	policy.InvestigationWorkspaceWrite: policy.EnvEvidenceRoots,
	policy.SnapshotRead:                policy.EnvAnalysisSnapshotRoots,
	policy.SnapshotWrite:               policy.EnvAnalysisSnapshotRoots,
	policy.ArtifactExtract:             policy.EnvArtifactExtractRoots + " (default /; each call still needs approved:true)",
	policy.NativeMount:                 policy.EnvNativeMountEnabled + "=true",
	policy.ReferenceRead:               policy.EnvReferenceRoots,
}

func renderStatus(w io.Writer, st policyStatus, c *policy.Ceilings) {
	fmt.Fprintf(w, "Policy as of ledger seq %d (head %s)\n\n", st.AsOf.Seq, st.AsOf.HeadHash)
	fmt.Fprintln(w, "Administrator ceilings (from this process's environment; a ceiling changes only when the")
	fmt.Fprintln(w, "registered server or its client is restarted):")
	for _, capability := range policy.Capabilities() {
		s := c.Ceiling(capability)
		if s == nil {
			fmt.Fprintf(w, "  %-30s no ceiling (set %s)\n", capability, ceilingSource[capability])
			continue
		}
		grant := "needs a once, session or project grant"
		if capability != policy.ProcessCapture {
			grant = "grant " + policy.AdministratorGrantID(capability)
		}
		fmt.Fprintf(w, "  %-30s %s\n  %-30s   set by %s; %s\n", capability, scopeText(s), "", ceilingSource[capability], grant)
	}
	fmt.Fprintln(w)
	switch ps := st.ProjectStore; {
	case ps == nil:
		fmt.Fprintf(w, "Project store: not configured (set %s and %s)\n", policy.EnvProjectRoot, policy.EnvProjectStore)
	case ps.State == "error":
		fmt.Fprintf(w, "Project store: %s (project root %s): error: %s\n", termText(ps.Path), termText(ps.ProjectRoot), termText(ps.Reason))
	default:
		fmt.Fprintf(w, "Project store: %s (project root %s): enabled, %d grant(s)\n", termText(ps.Path), termText(ps.ProjectRoot), ps.GrantCount)
	}
	fmt.Fprintf(w, "Project grants reload on %s to the rea mcp process; ceilings change only with a %s.\n", st.Reload, st.CeilingsChangeRequires)
}

// scopeText renders the resources of a scope on one line.
func scopeText(s *policy.Scope) string {
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "none"
		}
		return termList(xs, ", ") // roots and executables can be paths a sample named
	}
	out := "roots: " + list(s.Roots)
	if len(s.Executables) > 0 || s.Capability == policy.ProcessCapture {
		out += "; executables under: " + list(s.Executables)
	}
	if len(s.EnvironmentNames) > 0 || s.Capability == policy.ProcessCapture {
		out += "; environment names: " + list(s.EnvironmentNames)
	}
	out += "; network: " + termText(s.Network)
	if s.Mount {
		out += "; mount"
	}
	return out
}

// ---- list ----

type policyList struct {
	AsOf   projections.LedgerPosition `json:"as_of"`
	Grants []policy.Listed            `json:"grants"`
}

func newPolicyListCommand(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list [--json]",
		Short: "List administrator and project grants with their state (appends nothing)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lp, err := g.loadLivePolicy(cmd.Context())
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			if lp.cfg.Store == nil {
				return printPolicyError(cmd, asJSON, policyError{Error: errStoreDisabled})
			}
			if lp.storeErr != nil {
				return failWith(cmd, asJSON, lp.storeErr)
			}
			out := policyList{AsOf: lp.stream.Head, Grants: lp.eval.List()}
			if out.Grants == nil {
				out.Grants = []policy.Listed{}
			}
			return printOutcome(cmd, asJSON, false, out, func(w io.Writer) {
				fmt.Fprintf(w, "Grants as of ledger seq %d (head %s)\n", out.AsOf.Seq, out.AsOf.HeadHash)
				for _, l := range out.Grants {
					fmt.Fprintf(w, "\n%s  %s, %s, %s\n  capability %s: %s\n", l.GrantID, l.Source, l.Lifetime, l.State, l.Capability, scopeText(&l.Scope))
					if l.OperationIdentity != nil {
						fmt.Fprintf(w, "  operation identity: %s\n", *l.OperationIdentity)
					}
					if l.ExpiresAt != nil {
						fmt.Fprintf(w, "  expires at: %s\n", *l.ExpiresAt)
					}
				}
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

// ---- explain ----

type determiningGrant struct {
	Kind     string `json:"kind"` // grant
	GrantID  string `json:"grant_id"`
	Lifetime string `json:"lifetime"`
	Source   string `json:"source"` // administrator | project | connection
}

type determiningCeiling struct {
	Kind       string        `json:"kind"` // ceiling
	Capability string        `json:"capability"`
	Ceiling    *policy.Scope `json:"ceiling"`
}

type recordedOutcome struct {
	Seq     int64  `json:"seq"`
	EventID string `json:"event_id"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

type policyExplain struct {
	DecisionID    string                     `json:"decision_id,omitempty"`
	Recorded      *recordedOutcome           `json:"recorded,omitempty"`
	ReplayMatches *bool                      `json:"replay_matches,omitempty"`
	AsOf          projections.LedgerPosition `json:"as_of"`
	Request       policy.Scope               `json:"request"`
	Allowed       bool                       `json:"allowed"`
	Reason        string                     `json:"reason"`
	Determining   any                        `json:"determining"`
	Missing       policy.MissingScope        `json:"missing"`
	Ceiling       *policy.Scope              `json:"ceiling"`
	Remediation   *string                    `json:"remediation"`
}

// explainOf shapes a decision. A denial is determined by the ceiling: outside
// it, the ceiling itself; inside it, the ceiling within which the missing
// parts still need a grant.
func explainOf(asOf projections.LedgerPosition, d *policy.Decision) policyExplain {
	out := policyExplain{AsOf: asOf, Request: d.Request.Scope, Allowed: d.Allowed, Reason: d.Reason, Missing: d.Missing}
	if d.Ceiling != nil {
		c := *d.Ceiling
		out.Ceiling = &c
	}
	if d.Allowed {
		out.Determining = determiningGrant{Kind: "grant", GrantID: d.Grant.GrantID, Lifetime: d.Grant.Lifetime, Source: d.Source}
	} else {
		out.Determining = determiningCeiling{Kind: "ceiling", Capability: d.Request.Capability, Ceiling: out.Ceiling}
		r := d.Remediation
		out.Remediation = &r
	}
	return out
}

func newPolicyExplainCommand(g *globals) *cobra.Command {
	var asJSON, mount, write bool
	var roots, exes, names []string
	var network, opID, decisionID string
	c := &cobra.Command{
		Use:   "explain (CAPABILITY [--root PATH]... [--executable PATH]... [--environment-name NAME]... [--network MODE] [--mount] [--write] [--operation-identity S] | --decision ID) [--json]",
		Short: "Dry-run the evaluator on a request, or replay a recorded decision (consumes and appends nothing)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if decisionID != "" {
				for _, name := range []string{"root", "executable", "environment-name", "network", "mount", "write", "operation-identity"} {
					if cmd.Flags().Changed(name) {
						return failWith(cmd, asJSON, fault.Invalid("policy_explain", fault.Issue{Path: "/" + strings.ReplaceAll(name, "-", "_"),
							Reason: "invalid_value", Message: "--decision replays the recorded request; --" + name + " does not apply"}))
					}
				}
				if len(args) > 0 {
					return failWith(cmd, asJSON, fault.Invalid("policy_explain", fault.Issue{Path: "/capability", Reason: "invalid_value",
						Message: "--decision replays a recorded request; give no capability"}))
				}
				return g.explainDecision(cmd, asJSON, decisionID)
			}
			if len(args) == 0 {
				return failWith(cmd, asJSON, fault.Invalid("policy_explain", fault.Issue{Path: "/capability", Reason: "missing_argument"}))
			}
			capability := args[0]
			lp, err := g.loadLivePolicy(ctx)
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			if !policy.KnownCapability(capability) {
				return printPolicyError(cmd, asJSON, policyError{Error: fmt.Sprintf("unknown capability %q", capability)})
			}
			if lp.storeErr != nil {
				return failWith(cmd, asJSON, lp.storeErr)
			}
			access := policy.AccessRead
			if write {
				access = policy.AccessWrite
			}
			if opID == "" {
				opID = "policy_explain:" + capability
			}
			req, err := policy.CanonicalizeRequest("policy_explain", policy.Request{
				Scope: policy.Scope{Capability: capability, Roots: roots, Executables: exes, EnvironmentNames: names,
					Network: network, Mount: mount},
				OperationIdentity: opID, Access: access})
			if err != nil {
				var re *policy.RequestError
				if errors.As(err, &re) {
					flag := map[string]string{"roots": "root", "executables": "executable"}[re.Field]
					err = policy.PathFault("policy_explain", fmt.Sprintf("/%s/%d", re.Field, re.Index), re.Err)
					if fe, ok := err.(*fault.Error); ok {
						fe.Remediation.Action = "Correct --" + flag + " (absolute, existing; with --write only the last component may be missing)."
					}
				}
				return failWith(cmd, asJSON, err)
			}
			d := lp.eval.Evaluate(policy.Input{Operation: "policy_explain", Request: req, Surface: policy.SurfaceCLI, DryRun: true})
			out := explainOf(lp.stream.Head, &d)
			return printOutcome(cmd, asJSON, false, out, func(w io.Writer) { renderExplain(w, out) })
		},
	}
	f := c.Flags()
	f.BoolVar(&asJSON, "json", false, "JSON output")
	f.Var(pathsValue{&roots}, "root", "a root the request reads or writes (repeatable)")
	f.Var(pathsValue{&exes}, "executable", "an executable the request runs (repeatable)")
	f.StringArrayVar(&names, "environment-name", nil, "an environment variable NAME the request passes (repeatable)")
	f.StringVar(&network, "network", policy.NetworkNone, "none|loopback|external")
	f.BoolVar(&mount, "mount", false, "the request mounts")
	f.BoolVar(&write, "write", false, "the request writes (a missing last path component is allowed)")
	f.StringVar(&opID, "operation-identity", "", "operation identity (default policy_explain:<capability>)")
	f.StringVar(&decisionID, "decision", "", "replay the recorded permission_decided with this decision_id")
	return c
}

// explainDecision replays one recorded decision (CONTRACTS.md §9.7): the
// ceilings of the policy_reloaded in effect, the project grants and the
// connection's overlay as of the decision's seq, the clock at its
// evaluated_at, and the recorded request as recorded (it was canonical then;
// its paths need not exist now).
func (g *globals) explainDecision(cmd *cobra.Command, asJSON bool, id string) error {
	ctx := cmd.Context()
	// The same fail-closed configuration as every `rea policy` command,
	// though the replay itself uses the recorded ceilings.
	if _, err := policy.LoadConfig(environMap()); err != nil {
		return failWith(cmd, asJSON, err)
	}
	path, err := g.resolveLedgerPath()
	if err != nil {
		return failWith(cmd, asJSON, err)
	}
	if _, err := os.Stat(path); !ledger.IsURL(path) && errors.Is(err, fs.ErrNotExist) {
		return printPolicyError(cmd, asJSON, policyError{Error: errDecisionNotFound, DecisionID: id})
	}
	led, err := ledger.OpenReadOnly(ctx, path)
	if err != nil {
		return failWith(cmd, asJSON, err)
	}
	defer led.Close()
	out, found, err := replayDecision(ctx, led.ReadDB(), id)
	if err != nil {
		return failWith(cmd, asJSON, err)
	}
	if !found {
		return printPolicyError(cmd, asJSON, policyError{Error: errDecisionNotFound, DecisionID: id})
	}
	return printOutcome(cmd, asJSON, false, out, func(w io.Writer) { renderExplain(w, out) })
}

func replayDecision(ctx context.Context, db *sql.DB, id string) (policyExplain, bool, error) {
	const op = "policy_explain"
	rec, found, err := projections.FindDecision(ctx, db, id)
	if err != nil || !found {
		return policyExplain{}, found, err
	}
	d := rec.Data
	unreplayable := func(why string, cause error) error {
		return fault.New(fault.ExecutionFailure, "The recorded decision cannot be replayed: "+why+".",
			"Run `rea ledger verify`; the ledger may be damaged or written by an incompatible version.",
			map[string]any{"operation": op, "decision_id": id, "seq": rec.Seq}).WithCause(cause)
	}
	stream, err := projections.ReadPolicyStream(ctx, db, rec.Seq)
	if err != nil {
		return policyExplain{}, true, err
	}
	dp, err := projections.PolicyForDecision(stream.Events, d.PolicySeq)
	if err != nil {
		return policyExplain{}, true, unreplayable(fmt.Sprintf("its policy_seq %d names no policy_reloaded", d.PolicySeq), err)
	}
	ceilings, err := policy.CeilingsFromScopes(dp.Reload.AdministratorCeilings)
	if err != nil {
		return policyExplain{}, true, unreplayable("its recorded ceilings are invalid", err)
	}
	at, err := time.Parse(policy.TimeLayout, d.EvaluatedAt)
	if err != nil {
		return policyExplain{}, true, unreplayable("its evaluated_at is not a timestamp", err)
	}
	ev := policy.New(&policy.Config{Ceilings: ceilings}, nil, policy.Options{Now: func() time.Time { return at }})

	// Project grants: another process's ceilings may not hold one; that
	// process would never have had it in effect.
	var project []policy.Grant
	for _, gr := range dp.Project {
		if c := ceilings.Ceiling(gr.Capability); c != nil && policy.Covers(c, &policy.Request{Scope: gr.Scope}) {
			project = append(project, gr)
		}
	}
	if err := ev.SetProjectGrants(project, d.PolicySeq); err != nil {
		return policyExplain{}, true, unreplayable("its project grants are invalid", err)
	}
	for _, gid := range dp.Revoked {
		ev.RevokeProjectGrant(gid)
	}

	// The connection's once/session overlay up to the decision.
	ces, err := projections.ConnectionPolicyEvents(ctx, db, d.ConnectionID, rec.Seq)
	if err != nil {
		return policyExplain{}, true, err
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
	in := policy.Input{ConnectionID: d.ConnectionID, Operation: d.Operation, Request: d.Request, DryRun: true}
	if d.Remediation != nil {
		switch {
		case *d.Remediation == policy.RemediationConfigure && d.Reason == policy.ReasonOutsideCeiling:
			in.Surface = policy.SurfaceCLI
		case *d.Remediation == policy.RemediationElicit:
			in.ElicitationForm = true
		}
	}
	got := ev.Evaluate(in)
	out := explainOf(projections.LedgerPosition{Seq: rec.Seq, HeadHash: rec.Hash}, &got)
	out.DecisionID = id
	out.Recorded = &recordedOutcome{Seq: rec.Seq, EventID: rec.EventID, Outcome: d.Outcome, Reason: d.Reason}
	matches := sameOutcome(d, &got)
	out.ReplayMatches = &matches
	return out, true, nil
}

// sameOutcome compares everything a decision concluded: outcome, reason, the
// determining grant, the missing scope and the remediation.
func sameOutcome(rec events.PermissionDecidedData, got *policy.Decision) bool {
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

func renderExplain(w io.Writer, out policyExplain) {
	if out.DecisionID != "" {
		r := out.Recorded
		verdict := "matches"
		if out.ReplayMatches != nil && !*out.ReplayMatches {
			verdict = "DOES NOT match"
		}
		fmt.Fprintf(w, "Decision %s (seq %d, event %s): recorded %s (%s); the replay %s\n",
			out.DecisionID, r.Seq, r.EventID, r.Outcome, r.Reason, verdict)
		fmt.Fprintf(w, "Replayed at ledger seq %d (hash %s)\n", out.AsOf.Seq, out.AsOf.HeadHash)
	} else {
		fmt.Fprintf(w, "Evaluated at ledger seq %d (head %s); a dry run: nothing consumed or recorded\n", out.AsOf.Seq, out.AsOf.HeadHash)
	}
	fmt.Fprintf(w, "request       %s: %s\n", termText(out.Request.Capability), scopeText(&out.Request))
	decision := "denied"
	if out.Allowed {
		decision = "allowed"
	}
	fmt.Fprintf(w, "decision      %s (%s)\n", decision, termText(out.Reason))
	switch d := out.Determining.(type) {
	case determiningGrant:
		fmt.Fprintf(w, "determined by grant %s (%s, %s)\n", termText(d.GrantID), termText(d.Lifetime), termText(d.Source))
	case determiningCeiling:
		if d.Ceiling == nil {
			fmt.Fprintf(w, "determined by the %s ceiling: none is configured\n", d.Capability)
		} else {
			fmt.Fprintf(w, "determined by the %s ceiling: %s\n", d.Capability, scopeText(d.Ceiling))
		}
	}
	if !out.Allowed {
		m := out.Missing
		var parts []string
		if len(m.Roots) > 0 {
			parts = append(parts, "roots "+termList(m.Roots, ", "))
		}
		if len(m.Executables) > 0 {
			parts = append(parts, "executables "+termList(m.Executables, ", "))
		}
		if len(m.EnvironmentNames) > 0 {
			parts = append(parts, "environment names "+termList(m.EnvironmentNames, ", "))
		}
		if m.Network != "" {
			parts = append(parts, "network "+termText(m.Network))
		}
		if m.Mount {
			parts = append(parts, "mount")
		}
		if len(parts) == 0 {
			parts = append(parts, "nothing specific: the capability has no ceiling")
		}
		fmt.Fprintf(w, "missing       %s\n", strings.Join(parts, "; "))
		if out.Remediation != nil {
			fmt.Fprintf(w, "remediation   %s\n", termText(*out.Remediation))
		}
	}
}

// ---- revoke ----

// revokeResult is {revoked, reload} plus, as every output, as_of: here the
// position of the grant_revoked just appended.
type revokeResult struct {
	AsOf    projections.LedgerPosition `json:"as_of"`
	Revoked string                     `json:"revoked"`
	Reload  string                     `json:"reload"`
}

func newPolicyRevokeCommand(g *globals) *cobra.Command {
	var asJSON, yes bool
	c := &cobra.Command{
		Use:   "revoke GRANT_ID [--yes] [--json]",
		Short: "Remove a project grant from the store after confirmation; records grant_revoked",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id := args[0]
			cfg, err := policy.LoadConfig(environMap())
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			if cfg.Store == nil {
				return printPolicyError(cmd, asJSON, policyError{Error: errStoreDisabled})
			}
			snap, err := policy.ReadStore(*cfg.Store, cfg.Ceilings)
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			i := slices.IndexFunc(snap.Grants, func(gr policy.Grant) bool { return gr.GrantID == id })
			if i < 0 {
				return printPolicyError(cmd, asJSON, policyError{Error: errGrantNotFound, GrantID: id})
			}
			shown := snap.Grants[i]
			stderr := cmd.ErrOrStderr()
			b, _ := json.MarshalIndent(shown, "", "  ")
			fmt.Fprintf(stderr, "%s\n", b)
			if !yes {
				if asJSON || !stdinIsTerminal(cmd) {
					return printPolicyError(cmd, asJSON, policyError{Error: errNeedsConfirmation, GrantID: id})
				}
				fmt.Fprint(stderr, revokeQuestion)
				answer, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				switch strings.ToLower(strings.TrimSpace(answer)) {
				case "y", "yes":
				default:
					return printPolicyError(cmd, asJSON, policyError{Error: errRevokeCancelled, GrantID: id})
				}
			}
			at, err := g.revokeProjectGrant(ctx, cfg, id, &shown)
			if err != nil {
				if errors.Is(err, policy.ErrGrantNotFound) {
					return printPolicyError(cmd, asJSON, policyError{Error: errGrantNotFound, GrantID: id})
				}
				return failWith(cmd, asJSON, err)
			}
			out := revokeResult{AsOf: at, Revoked: id, Reload: reloadHow}
			return printOutcome(cmd, asJSON, false, out, func(w io.Writer) {
				fmt.Fprintf(w, "Revoked project grant %s. Running rea mcp processes sharing this ledger honour it at once;\n"+
					"send %s to reload the rest of the store.\n", id, reloadHow)
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output (never asks: pass --yes)")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "revoke without asking (for automation)")
	return c
}

func stdinIsTerminal(cmd *cobra.Command) bool {
	f, ok := cmd.InOrStdin().(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// maxStartupAttempts bounds the retries of the startup events when another
// process appends to the policy stream at the same time.
const maxStartupAttempts = 5

// revokeProjectGrant is the one write of `rea policy`. A revoking process
// appends the startup events first (CONTRACTS.md §13.2: policy_reloaded and
// the store's diffs against the ledger, with the policy stream's expected
// version), so the ledger holds the grant before it records its removal; then
// it rewrites the store (under its lock, against the grant shown) and records
// grant_revoked, source cli.
func (g *globals) revokeProjectGrant(ctx context.Context, cfg *policy.Config, id string, shown *policy.Grant) (projections.LedgerPosition, error) {
	var at projections.LedgerPosition
	led, err := g.openLedger(ctx)
	if err != nil {
		return at, err
	}
	defer led.Close()
	ps := projections.All()
	apply := func(tx *sql.Tx, stored []ledger.Event) error { return projections.Apply(tx, ps, stored) }

	for attempt := 1; ; attempt++ {
		stream, err := projections.ReadPolicyStream(ctx, led.ReadDB(), 0)
		if err != nil {
			return at, err
		}
		baseline := projections.Active(projections.ProjectGrants(stream.Events))
		r, reloadErr := policy.New(cfg, baseline, policy.Options{}).Reload(policy.TriggerStartup)
		if r == nil {
			return at, reloadErr
		}
		_, err = led.Append(ctx, events.PolicyStream, stream.Version, newEvents(r.Events), apply)
		if errors.Is(err, ledger.ErrConflict) && attempt < maxStartupAttempts {
			continue
		}
		if err != nil {
			return at, appendFault(err)
		}
		if reloadErr != nil {
			return at, reloadErr // the store went bad meanwhile; its rejection is recorded
		}
		break
	}

	_, emit, err := policy.RevokeFromStore(ctx, *cfg.Store, cfg.Ceilings, id, shown)
	if err != nil {
		return at, err
	}
	// The store has changed: record it even if interrupted now. No expected
	// version: the store write, under its lock and against the grant shown,
	// is what validated the revocation, so the event lands whatever else the
	// policy stream received meanwhile.
	stored, err := led.Append(context.WithoutCancel(ctx), emit.Stream, -1, newEvents([]policy.Emit{emit}), apply)
	if err != nil {
		return at, appendFault(err)
	}
	last := stored[len(stored)-1]
	return projections.LedgerPosition{Seq: last.Seq, HeadHash: last.Hash}, nil
}

func newEvents(emits []policy.Emit) []ledger.NewEvent {
	out := make([]ledger.NewEvent, 0, len(emits))
	for _, e := range emits {
		out = append(out, ledger.NewEvent{Type: e.Type, Data: e.Data})
	}
	return out
}

func appendFault(err error) error {
	var conflict *ledger.ConflictError
	if errors.As(err, &conflict) {
		return fault.New(fault.RevisionConflict, "The policy stream changed concurrently.", "Run the revocation again.",
			map[string]any{"stream": conflict.Stream, "expected_version": conflict.Expected}).WithCause(err)
	}
	return fault.Internal("policy_revoke", err)
}
