package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rea-re/rea/engine"
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

// loadLivePolicy is this process's policy as `rea mcp` started in the same
// environment would hold it (policy.NewLive). It fails only on a
// configuration error of the environment (the caller exits 1, naming the
// variable) or an unreadable ledger; a bad project store is reported in
// StoreErr, because status must still describe it.
func (g *globals) loadLivePolicy(ctx context.Context) (*policy.Live, error) {
	cfg, err := policy.LoadConfig(environMap())
	if err != nil {
		return nil, err
	}
	stream, err := g.readPolicyStream(ctx)
	if err != nil {
		return nil, err
	}
	return policy.NewLive(cfg, stream), nil
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
			st := policyStatus{AsOf: lp.AsOf, AdministratorCeilings: lp.Config.Ceilings.Scopes(),
				AdministratorGrants: []string{}, Reload: reloadHow, CeilingsChangeRequires: ceilingsChangeRequire}
			for _, gr := range lp.Config.Ceilings.AdministratorGrants() {
				st.AdministratorGrants = append(st.AdministratorGrants, gr.GrantID)
			}
			if s := lp.Config.Store; s != nil {
				ps := &projectStoreStatus{Path: s.Path, ProjectRoot: s.Root, State: "enabled"}
				if lp.StoreErr != nil {
					ps.State, ps.Reason = "error", policy.StoreReason(lp.StoreErr)
					if ps.Reason == "" {
						ps.Reason = policy.StoreInvalid
					}
				} else {
					ps.GrantCount = len(lp.Store.Grants)
				}
				st.ProjectStore = ps
			}
			return printOutcome(cmd, asJSON, false, st, func(w io.Writer) { renderStatus(w, st, lp.Config.Ceilings) })
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
			if lp.Config.Store == nil {
				return printPolicyError(cmd, asJSON, policyError{Error: errStoreDisabled})
			}
			if lp.StoreErr != nil {
				return failWith(cmd, asJSON, lp.StoreErr)
			}
			out := policyList{AsOf: lp.AsOf, Grants: lp.Evaluator.List()}
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
			if lp.StoreErr != nil {
				return failWith(cmd, asJSON, lp.StoreErr)
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
			out := lp.ExplainRequest(req, policy.SurfaceCLI)
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

// explainDecision prints the replay of one recorded decision
// (policy.ReplayDecision, CONTRACTS.md §9.7).
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
	out, found, err := policy.ReplayDecision(ctx, led.ReadDB(), id)
	if err != nil {
		return failWith(cmd, asJSON, err)
	}
	if !found {
		return printPolicyError(cmd, asJSON, policyError{Error: errDecisionNotFound, DecisionID: id})
	}
	return printOutcome(cmd, asJSON, false, out, func(w io.Writer) { renderExplain(w, out) })
}

func renderExplain(w io.Writer, out policy.Explanation) {
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
	case policy.DeterminingGrant:
		fmt.Fprintf(w, "determined by grant %s (%s, %s)\n", termText(d.GrantID), termText(d.Lifetime), termText(d.Source))
	case policy.DeterminingCeiling:
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
			switch {
			case errors.Is(err, policy.ErrGrantNotFound):
				return printPolicyError(cmd, asJSON, policyError{Error: errGrantNotFound, GrantID: id})
			case errors.Is(err, policy.ErrStoreNotConfigured):
				return printPolicyError(cmd, asJSON, policyError{Error: errStoreDisabled})
			case err != nil:
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

// revokeProjectGrant is the one write of `rea policy`: the engine records
// the startup events, rewrites the store and records grant_revoked
// (engine.RevokeProjectGrant). The ledger is opened (created if need be)
// only now, after the confirmation.
func (g *globals) revokeProjectGrant(ctx context.Context, cfg *policy.Config, id string, shown *policy.Grant) (projections.LedgerPosition, error) {
	led, err := g.openLedger(ctx)
	if err != nil {
		return projections.LedgerPosition{}, err
	}
	defer led.Close()
	eng := engine.New(engine.Config{Ledger: led, Version: version})
	return eng.RevokeProjectGrant(ctx, cfg, id, shown)
}
