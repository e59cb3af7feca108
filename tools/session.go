package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/tools/catalog"
)

// handlerFor routes a tool to its handler.
func (s *Server) handlerFor(spec catalog.Spec) handler {
	switch spec.Name {
	case "open_binary":
		return s.openBinary
	case "close_binary":
		return func(ctx context.Context, sess *session, _ provider.Params, _ progress.Reporter) (any, error) {
			return sess.conn.CloseBinary(ctx, targetOf(ctx))
		}
	case "binary_session":
		return s.binarySession
	case "capture_process_scenario":
		return s.captureProcessScenario
	case "get_evidence_bundle":
		return s.evidenceBundle
	case "export_evidence_bundle":
		return s.exportEvidenceBundle
	case "import_evidence_bundle":
		return s.importEvidenceBundle
	case "binary_overview":
		return s.binaryOverview
	case "get_call_graph":
		return s.callGraph
	case "get_navigation_context":
		return func(ctx context.Context, sess *session, params provider.Params, _ progress.Reporter) (any, error) {
			return sess.conn.NavigationContext(ctx, targetOf(ctx), optionalString(params, "document"))
		}
	case "inventory_artifact":
		return s.inventoryArtifact
	case "extract_artifact":
		return s.extractArtifact
	case "compare_artifacts":
		return s.compareArtifacts
	case "analyze_javascript_application":
		return s.analyzeJavaScriptApplication
	case "inspect_address_context":
		return func(ctx context.Context, sess *session, params provider.Params, _ progress.Reporter) (any, error) {
			addr, _ := params.String("address")
			return sess.conn.InspectAddressContext(ctx, targetOf(ctx), addr, optionalString(params, "document"))
		}
	case "list_dependencies":
		return func(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
			return sess.conn.ListDependencies(ctx, targetOf(ctx), params, rep)
		}
	case "compare_binaries":
		return func(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
			return sess.conn.CompareBinaries(ctx, params, rep, nil)
		}
	case "resolve_import":
		return func(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
			return sess.conn.ResolveImport(ctx, targetOf(ctx), params, rep)
		}
	}
	if spec.Kind == "provider" {
		return func(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
			return sess.conn.Operate(ctx, targetOf(ctx), spec.Name, params, rep)
		}
	}
	return func(ctx context.Context, sess *session, _ provider.Params, _ progress.Reporter) (any, error) {
		return nil, fault.New(fault.CapabilityUnavailable, "The bound provider does not offer the operations this tool needs.",
			"See binary_session tool_availability for the remediation.",
			map[string]any{"operation": spec.Name, "availability_reason": "provider_missing", "provider_id": nil})
	}
}

func (s *Server) openBinary(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	path, _ := params.String("path")
	var selector provider.Selector
	if id, ok := params.String("provider_id"); ok {
		sel, valid := provider.ParseSelector(id)
		if !valid {
			return nil, fault.Invalid("open_binary", fault.Issue{Path: "/provider_id", Reason: "invalid_format"})
		}
		selector = sel
	}
	return sess.conn.OpenBinary(ctx, path, selector, rep)
}

// Identity is server_identity (§3.3).
type Identity struct {
	Package struct {
		Name        string  `json:"name"`
		Version     string  `json:"version"`
		BuildCommit *string `json:"build_commit"`
		GoVersion   string  `json:"go_version"`
	} `json:"package"`
	Server struct {
		Name        string `json:"name"`
		Version     string `json:"version"`
		StartedAt   string `json:"started_at"`
		PID         int    `json:"pid"`
		CommandPath string `json:"command_path"`
	} `json:"server"`
	SDK struct {
		Module  string `json:"module"`
		Version string `json:"version"`
	} `json:"sdk"`
	NegotiatedProtocolVersion *string `json:"negotiated_protocol_version"`
	Client                    any     `json:"client"`
	Catalog                   struct {
		Counts struct {
			MCPTools    int `json:"mcp_tools"`
			CLICommands int `json:"cli_commands"`
		} `json:"counts"`
		Digests Digests `json:"digests"`
	} `json:"catalog"`
	ProtocolFeatures map[string]bool `json:"protocol_features"`
	Alignment        Alignment       `json:"alignment"`
}

// Digests are the catalog digests.
type Digests struct {
	Tools    string `json:"tools_sha256"`
	CLI      string `json:"cli_sha256"`
	Combined string `json:"combined_sha256"`
}

// Alignment compares the running server with what the client expected.
type Alignment struct {
	State       string   `json:"state"`
	Reasons     []string `json:"reasons"`
	Remediation *string  `json:"remediation"`
}

// CatalogDigests computes the §3.3 digests for a CLI command list over the
// tools served under toolsets (nil: all 42).
func CatalogDigests(cli []CLICommand, toolsets []string) (Digests, error) {
	cli = slices.Clone(cli)
	slices.SortFunc(cli, func(a, b CLICommand) int { return compareStrings(a.Path, b.Path) })
	for i := range cli {
		cli[i].Flags = slices.Sorted(slices.Values(cli[i].Flags))
		if cli[i].Flags == nil {
			cli[i].Flags = []string{}
		}
	}
	tools := catalogDigestEntries(toolsets)
	var d Digests
	var err error
	if d.Tools, err = canon.Digest(tools); err != nil {
		return d, err
	}
	if d.CLI, err = canon.Digest(cli); err != nil {
		return d, err
	}
	d.Combined, err = canon.Digest(map[string]any{"cli": cli, "tools": tools})
	return d, err
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func commandPath() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		return real
	}
	return exe
}

// staticIdentity are the facts of server_identity that cannot change while
// the process runs, read once.
type staticIdentity struct {
	commandPath, sdkVersion string
}

func newStaticIdentity() staticIdentity {
	return staticIdentity{commandPath: commandPath(), sdkVersion: sdkVersion()}
}

func (s *Server) identity(ctx context.Context, sess *session, params provider.Params) Identity {
	var id Identity
	id.Package.Name, id.Package.Version, id.Package.GoVersion = "rea", s.eng.Version(), runtime.Version()
	if s.opts.BuildCommit != "" {
		c := s.opts.BuildCommit
		id.Package.BuildCommit = &c
	}
	id.Server.Name, id.Server.Version = "rea", s.eng.Version()
	id.Server.StartedAt, id.Server.PID, id.Server.CommandPath = engine.Timestamp(s.eng.StartedAt()), os.Getpid(), s.static.commandPath
	id.SDK.Module, id.SDK.Version = "github.com/mark3labs/mcp-go", s.static.sdkVersion
	if v := server.RequestProtocolVersion(ctx); v != "" {
		id.NegotiatedProtocolVersion = &v
	}
	if sess.client != nil {
		id.Client = sess.client
	}
	id.Catalog.Counts.MCPTools, id.Catalog.Counts.CLICommands = len(s.catalog), len(s.opts.CLICommands)
	id.Catalog.Digests = s.digests
	id.ProtocolFeatures = map[string]bool{"progress": true, "cancellation": true, "tools_list_changed": true, "elicitation_form": true}
	id.Alignment = alignmentOf(params, id)
	return id
}

func sdkVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == "github.com/mark3labs/mcp-go" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

// alignmentOf compares supplied expectations in the order of §3.3.
func alignmentOf(params provider.Params, id Identity) Alignment {
	a := Alignment{Reasons: []string{}}
	supplied := false
	if v, ok := params.String("expected_package_version"); ok {
		supplied = true
		if v != id.Package.Version {
			a.Reasons = append(a.Reasons, "package_version_mismatch")
		}
	}
	if v, ok := params.String("expected_catalog_digest"); ok {
		supplied = true
		if v != id.Catalog.Digests.Combined {
			a.Reasons = append(a.Reasons, "catalog_digest_mismatch")
		}
	}
	if v, ok := params.String("expected_server_path"); ok {
		supplied = true
		want := v
		if abs, err := filepath.Abs(v); err == nil {
			want = abs
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				want = real
			}
		}
		if want != id.Server.CommandPath {
			a.Reasons = append(a.Reasons, "registration_path_mismatch")
		}
	}
	switch {
	case len(a.Reasons) > 0:
		r := "Restart the registered REA MCP server or its client, then compare identity again."
		a.State, a.Remediation = "mcp_server_restart_required", &r
	case supplied:
		a.State = "aligned"
	default:
		r := "Supply expected_package_version, expected_catalog_digest or expected_server_path to compare."
		a.State, a.Remediation = "unknown", &r
	}
	return a
}

type activity struct {
	Status    string                    `json:"status"`
	Providers []engine.ProviderActivity `json:"providers"`
}

type analysisRun struct {
	RunID          string         `json:"run_id"`
	ProcessLineage map[string]any `json:"process_lineage"`
}

// processLineage shows a run's latest observation per provider (§3.7).
func (s *Server) processLineage(ctx context.Context, sess *session, runID string) (map[string]any, error) {
	snaps, err := sess.conn.LineageSnapshots(ctx, runID)
	if err != nil {
		return nil, err
	}
	if len(snaps) == 0 {
		return map[string]any{"status": "not_observed"}, nil
	}
	return map[string]any{"status": "snapshots", "snapshots": snaps}, nil
}

func (s *Server) binarySession(ctx context.Context, sess *session, params provider.Params, _ progress.Reporter) (any, error) {
	view, _ := params.String("detail")
	if view == "full" {
		// The full view is a lineage point (§3.7); observing first lets this
		// same answer show a provider found gone.
		if err := sess.conn.ObserveLineage(ctx); err != nil {
			return nil, err
		}
	}
	open := sess.conn.States() // one snapshot for every part of the answer
	states := activeFirst(open)
	st := states[0] // the active target's (or the zero State)
	id := s.identity(ctx, sess, params)
	var tgt *events.Target
	var active *provider.Identity
	if st.Open {
		t := engine.TargetRecord(st.Target)
		tgt = &t
	}
	if st.Binding != nil {
		p := st.Binding.Provider
		active = &p
	}
	act := activityOf(st)
	switch view {
	case "capabilities":
		all := s.availability(states, sess.features)
		family, hasFamily := params.String("capability_family")
		var filtered []ToolAvailability
		for _, a := range all {
			if !hasFamily || a.Kind == family {
				filtered = append(filtered, a)
			}
		}
		cursor, limit := int(params.Int("cursor", 0)), int(params.Int("limit", 25))
		page := provider.PageOf(filtered, cursor, limit)
		var next *int
		if page.NextOffset != nil {
			next = page.NextOffset
		}
		var fam *string
		if hasFamily {
			fam = &family
		}
		return map[string]any{"view": "capabilities", "open": st.Open, "active_provider": active, "capability_family": fam,
			"capabilities": map[string]any{"items": page.Items, "cursor": cursor, "limit": limit, "total": len(filtered),
				"next_cursor": next, "has_more": next != nil},
			"client_features": sess.features}, nil
	case "full":
		var binding *engine.Binding
		var run *analysisRun
		if st.Binding != nil {
			binding = st.Binding
		}
		if st.Open {
			lin, err := s.processLineage(ctx, sess, st.RunID)
			if err != nil {
				return nil, err
			}
			run = &analysisRun{RunID: st.RunID, ProcessLineage: lin}
		}
		targets, err := s.fullTargets(ctx, sess, open)
		if err != nil {
			return nil, err
		}
		providers := []provider.Identity{}
		for _, c := range sess.conn.Candidates(ctx) {
			providers = append(providers, c.Provider)
		}
		caps := st.Capabilities
		if caps == nil {
			caps = []provider.Capability{}
		}
		slices.SortFunc(caps, func(a, b provider.Capability) int { return compareStrings(a.Operation, b.Operation) })
		entries := s.availability(states, sess.features)
		for i := range entries {
			entries[i] = entries[i].brief()
		}
		return map[string]any{"view": "full", "open": st.Open, "target": tgt, "providers": providers, "capabilities": caps,
			"analysis_provider_binding": binding, "analysis_provider_candidates": sess.conn.Candidates(ctx),
			"analysis_run": run, "analysis_activity": act, "tool_availability": entries,
			"client_features": sess.features, "server_identity": id, "targets": targets}, nil
	}
	return map[string]any{"view": "summary", "open": st.Open, "target": tgt, "active_provider": active,
		"alignment": id.Alignment, "analysis_activity": act, "recommended_actions": recommendedActions(st, id.Alignment),
		"targets": summaryTargets(open)}, nil
}

// activityOf is analysis_activity of one target's provider (§3.8).
func activityOf(st engine.State) activity {
	act := activity{Status: "not_observed", Providers: []engine.ProviderActivity{}}
	if st.Activity != nil {
		act.Providers = append(act.Providers, *st.Activity)
		act.Status = "idle"
		if a := st.Activity.Active; a != nil {
			act.Status = "busy"
			if a.CallerState == "timed_out" {
				act.Status = "timed_out_busy"
			}
		}
	}
	return act
}

// sessionTarget is one binary_session summary entry of targets (§15.2).
type sessionTarget struct {
	TargetID     string  `json:"target_id"`
	Active       bool    `json:"active"`
	Path         string  `json:"path"`
	Format       string  `json:"format"`
	Kind         string  `json:"kind"`
	SHA256       string  `json:"sha256"`
	Architecture *string `json:"architecture"`
	ProviderID   *string `json:"provider_id"`
	RunID        string  `json:"run_id"`
}

// summaryTargets lists the open targets in open order.
func summaryTargets(states []engine.State) []sessionTarget {
	out := make([]sessionTarget, 0, len(states))
	for _, st := range states {
		t := engine.TargetRecord(st.Target)
		e := sessionTarget{TargetID: st.TargetID, Active: st.Active, Path: t.Path, Format: t.Format, Kind: t.Kind,
			SHA256: t.SHA256, Architecture: t.Architecture, RunID: st.RunID}
		if st.Binding != nil {
			e.ProviderID = &st.Binding.Provider.ID
		}
		out = append(out, e)
	}
	return out
}

// fullTarget is one binary_session full-view entry of targets (§15.2).
type fullTarget struct {
	TargetID string          `json:"target_id"`
	Target   events.Target   `json:"target"`
	Binding  *engine.Binding `json:"analysis_provider_binding"`
	Run      analysisRun     `json:"analysis_run"`
	Activity activity        `json:"analysis_activity"`
}

func (s *Server) fullTargets(ctx context.Context, sess *session, states []engine.State) ([]fullTarget, error) {
	out := make([]fullTarget, 0, len(states))
	for _, st := range states {
		lin, err := s.processLineage(ctx, sess, st.RunID)
		if err != nil {
			return nil, err
		}
		out = append(out, fullTarget{TargetID: st.TargetID, Target: engine.TargetRecord(st.Target), Binding: st.Binding,
			Run: analysisRun{RunID: st.RunID, ProcessLineage: lin}, Activity: activityOf(st)})
	}
	return out, nil
}

func recommendedActions(st engine.State, a Alignment) []string {
	out := []string{}
	if a.State == "mcp_server_restart_required" {
		out = append(out, "Restart the registered REA MCP server or its client, then compare identity again.")
	}
	switch {
	case !st.Open:
		out = append(out, "Open a binary with open_binary (or an application directory or ASAR with analyze_javascript_application).")
	case st.Target.Kind != "executable":
		out = append(out, "This target is an archive or directory; artifact inventory is not in this build yet.")
	case st.Binding == nil:
		out = append(out, "Reopen the target with provider_id naming a provider whose target_support is supported.")
	default:
		out = append(out, "Call binary_overview for a first look at the target.")
	}
	return out
}

func (s *Server) evidenceBundle(ctx context.Context, sess *session, params provider.Params, _ progress.Reporter) (any, error) {
	req := engine.BundleRequest{}
	req.Scope, _ = params.String("scope")
	req.RunID, _ = params.String("run_id")
	if ids, ok := params["evidence_ids"].([]any); ok {
		req.EvidenceIDs = []string{}
		for _, v := range ids {
			if id, ok := v.(string); ok {
				req.EvidenceIDs = append(req.EvidenceIDs, id)
			}
		}
	}
	return sess.conn.EvidenceBundle(ctx, req)
}

func optionalString(params provider.Params, key string) *string {
	if v, ok := params.String(key); ok {
		return &v
	}
	return nil
}

// rawJSON helps handlers that compose provider results.
func rawJSON(b json.RawMessage, v any) error { return json.Unmarshal(b, v) }
