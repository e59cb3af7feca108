package tools

import (
	"cmp"
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
	engsession "github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/tools/catalog"
)

// Session tools (kind session, CONTRACTS.md §2.1, §3): a target's life
// and what the connection knows of it.
func sessionTools() []tool {
	return []tool{
		{catOpenBinary, (*Server).openBinary},
		{catCloseBinary, (*Server).closeBinary},
		{catBinarySession, (*Server).binarySession},
		{catGetEvidenceBundle, (*Server).evidenceBundle},
	}
}

func catOpenBinary() catalog.Spec {
	return catalog.Spec{
		Name:        "open_binary",
		Title:       "Open binary",
		Description: "Open a binary, archive or directory as a target and bind a provider; start here.",
		Kind:        "session",
		Effects:     catalog.Effects("S P I"),
		Input: catalog.In(catalog.M{
			"path":        catalog.AbsPathIn(4096, ""),
			"provider_id": catalog.M{"type": "string", "minLength": int64(1), "maxLength": int64(64), "pattern": catalog.PatProvider},
		}, "path"),
		Result: catalog.OutAll(catalog.M{
			"target_id":    catalog.String(),
			"path":         catalog.String(),
			"format":       catalog.Enum(catalog.TargetFormats...),
			"kind":         catalog.Enum(catalog.TargetKinds...),
			"sha256":       catalog.Hex64(),
			"size":         catalog.Count(),
			"architecture": catalog.ArchitectureOut(),
			"run_id":       catalog.UUIDOut(),
			"binding": catalog.Nullable(catalog.OutAll(catalog.M{
				"provider":         catalog.ConcreteProvider(),
				"selection_source": catalog.Enum("request", "environment", "auto-single-candidate"),
			})),
		}),
	}
}

func catCloseBinary() catalog.Spec {
	return catalog.Spec{
		Name:        "close_binary",
		Title:       "Close binary",
		Description: "Close the target; its Evidence and annotations stay.",
		Kind:        "session",
		Effects:     catalog.Effects("S I"),
		Input:       catalog.In(catalog.M{}),
		Result:      catalog.OutAll(catalog.M{"closed": catalog.Bool(), "target_id": catalog.Nullable(catalog.String()), "run_id": catalog.Nullable(catalog.UUIDOut())}),
	}
}

func catBinarySession() catalog.Spec {
	// One object for the three views (§3.2): view and open are always there;
	// which other keys are depends on view, as the contract lists. A union
	// of three objects would repeat the shared keys three times.
	result := catalog.Out(catalog.M{
		"view":                         catalog.Enum("summary", "capabilities", "full"),
		"open":                         catalog.Bool(),
		"target":                       catalog.Nullable(catalog.TargetOut()),
		"active_provider":              catalog.Nullable(catalog.ProviderIdentity()),
		"alignment":                    catalog.Alignment(),
		"analysis_activity":            catalog.Activity(),
		"recommended_actions":          catalog.List(catalog.String()),
		"capability_family":            catalog.Nullable(catalog.Enum(catalog.ToolKinds...)),
		"capabilities":                 catalog.Any(), // a page (capabilities view) or a list (full view)
		"client_features":              catalog.ClientFeaturesOut(),
		"providers":                    catalog.List(catalog.ProviderIdentity()),
		"analysis_provider_binding":    catalog.Nullable(catalog.Binding()),
		"analysis_provider_candidates": catalog.List(catalog.Candidate()),
		"analysis_run":                 catalog.Nullable(catalog.Run()),
		"tool_availability":            catalog.List(catalog.ToolAvailability()),
		"server_identity":              catalog.ServerIdentity(),
	}, "view", "open")
	return catalog.Spec{
		Name:        "binary_session",
		Title:       "Binary session",
		Description: "Describe the connection: target and next steps, why a tool is unavailable (capabilities), or all (full).",
		Kind:        "session",
		Effects:     catalog.Effects("I"),
		Input: catalog.In(catalog.M{
			"detail":                   catalog.Def(catalog.Enum("summary", "capabilities", "full"), "summary"),
			"capability_family":        catalog.Enum(catalog.ToolKinds...),
			"cursor":                   catalog.Def(catalog.Int(0, catalog.MaxInt), int64(0)),
			"limit":                    catalog.Def(catalog.Int(1, 100), int64(25)),
			"expected_package_version": catalog.Str(1, 128),
			"expected_catalog_digest":  catalog.D(catalog.Pat(catalog.PatHex64), "combined_sha256"),
			"expected_server_path":     catalog.Str(1, 4096),
		}),
		Result: result,
	}
}

func catGetEvidenceBundle() catalog.Spec {
	return catalog.Spec{
		Name:        "get_evidence_bundle",
		Title:       "Get Evidence bundle",
		Description: "Fetch whole Evidence records by id, run or scope." + catalog.SampleText,
		Kind:        "session",
		Effects:     catalog.Effects("I"),
		Input: catalog.In(catalog.M{
			"evidence_ids": catalog.EvidenceIDsIn(1, 10000, ""),
			"run_id":       catalog.Pat(catalog.PatUUID),
			"scope":        catalog.Def(catalog.Enum("connection", "ledger"), "connection"),
		}),
		Result: catalog.OutAll(catalog.M{
			"scope":         catalog.Enum("connection", "ledger"),
			"bundle_digest": catalog.Hex64(),
			"bytes":         catalog.Count(),
			"record_count":  catalog.Count(),
			"bundle":        catalog.Bundle(),
		}),
		ResultDepth: 2,
	}
}

// closeBinary closes the call's target (the active one when none is named).
func (s *Server) closeBinary(ctx context.Context, sess *session, in input, _ progress.Reporter) (any, error) {
	return sess.conn.CloseBinary(ctx, in.target)
}

func (s *Server) openBinary(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	path, _ := in.Params.String("path")
	var selector provider.Selector
	if id, ok := in.Params.String("provider_id"); ok {
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
	slices.SortFunc(cli, func(a, b CLICommand) int { return cmp.Compare(a.Path, b.Path) })
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
	Status    string                        `json:"status"`
	Providers []engsession.ProviderActivity `json:"providers"`
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

func (s *Server) binarySession(ctx context.Context, sess *session, in input, _ progress.Reporter) (any, error) {
	view, _ := in.Params.String("detail")
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
	id := s.identity(ctx, sess, in.Params)
	var tgt *events.Target
	var active *provider.Identity
	if st.Open {
		t := engsession.TargetRecord(st.Target)
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
		family, hasFamily := in.Params.String("capability_family")
		var filtered []ToolAvailability
		for _, a := range all {
			if !hasFamily || a.Kind == family {
				filtered = append(filtered, a)
			}
		}
		cursor, limit := int(in.Params.Int("cursor", 0)), int(in.Params.Int("limit", 25))
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
		var binding *engsession.Binding
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
		slices.SortFunc(caps, func(a, b provider.Capability) int { return cmp.Compare(a.Operation, b.Operation) })
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
func activityOf(st engsession.State) activity {
	act := activity{Status: "not_observed", Providers: []engsession.ProviderActivity{}}
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
func summaryTargets(states []engsession.State) []sessionTarget {
	out := make([]sessionTarget, 0, len(states))
	for _, st := range states {
		t := engsession.TargetRecord(st.Target)
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
	TargetID string              `json:"target_id"`
	Target   events.Target       `json:"target"`
	Binding  *engsession.Binding `json:"analysis_provider_binding"`
	Run      analysisRun         `json:"analysis_run"`
	Activity activity            `json:"analysis_activity"`
}

func (s *Server) fullTargets(ctx context.Context, sess *session, states []engsession.State) ([]fullTarget, error) {
	out := make([]fullTarget, 0, len(states))
	for _, st := range states {
		lin, err := s.processLineage(ctx, sess, st.RunID)
		if err != nil {
			return nil, err
		}
		out = append(out, fullTarget{TargetID: st.TargetID, Target: engsession.TargetRecord(st.Target), Binding: st.Binding,
			Run: analysisRun{RunID: st.RunID, ProcessLineage: lin}, Activity: activityOf(st)})
	}
	return out, nil
}

func recommendedActions(st engsession.State, a Alignment) []string {
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

func (s *Server) evidenceBundle(ctx context.Context, sess *session, in input, _ progress.Reporter) (any, error) {
	req := engine.BundleRequest{}
	req.Scope, _ = in.Params.String("scope")
	req.RunID, _ = in.Params.String("run_id")
	if ids, ok := in.Params["evidence_ids"].([]any); ok {
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
