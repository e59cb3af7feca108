package command

import (
	"context"
	"encoding/json"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/session"
	"path/filepath"
	"slices"

	"github.com/rea-re/rea/engine"

	"github.com/rea-re/rea/engine/artifact"
	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/jsapp"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/ledger"
)

// Artifact and application tools (CONTRACTS.md §10, §11). The domain work is
// engine/artifact and engine/jsapp; the engine adds what only it knows: the
// open target, the operator gate of record-and-continue, the permission
// preflight of extraction, and publication — Evidence of REA's internal
// producers (§7.1) with the integrity_contradiction_recorded events of an
// inventory appended in the same ledger transaction as its evidence_recorded.

// REA's internal producers of artifact Evidence (§7.1).
const (
	ProducerArtifact = "rea-artifact"
	ProducerJSApp    = "rea-jsapp"
	ProducerCompare  = "rea-compare"

	noSubjectLimitation = "No single artifact identity applies to this observation."
	maxPathLocations    = 100
)

var producerNames = map[string]string{
	ProducerArtifact: "REA artifact inventory",
	ProducerJSApp:    "REA JavaScript application analysis",
	ProducerCompare:  "REA artifact comparison",
}

// PageRequest is one offset/limit pair of a paged input.
type PageRequest struct {
	Offset int
	Limit  int
}

// InventoryRequest is a validated inventory_artifact call. Parameters are the
// input after defaults (the Evidence parameters); the policy's operator gate
// is filled in by the engine.
type InventoryRequest struct {
	Target                    string // "" = the active target
	Parameters                map[string]any
	Limits                    artifact.Limits
	Policy                    artifact.Policy
	Nodes, Occurrences, Edges PageRequest
}

// InventoryResult is the §10.3 result: the graph with its three lists paged.
type InventoryResult struct {
	Manifest                artifact.Manifest                  `json:"manifest"`
	Nodes                   provider.Page[artifact.Node]       `json:"nodes"`
	Occurrences             provider.Page[artifact.Occurrence] `json:"occurrences"`
	Edges                   provider.Page[artifact.Edge]       `json:"edges"`
	Limits                  artifact.Limits                    `json:"limits"`
	Provenance              []any                              `json:"provenance"`
	IntegrityContradictions []artifact.Contradiction           `json:"integrity_contradictions"`
	Limitations             []string                           `json:"limitations"`
}

// artifactTarget admits a call on the open archive or directory target
// ref names ("" = active) (§2.4, §15.1); release ends the admission.
func artifactTarget(c *engine.Connection, op, ref string) (*session.Target, func(), error) {
	o, release, err := c.Admit(op, ref)
	if err != nil {
		return nil, nil, err
	}
	if o.Target().Kind != "archive" && o.Target().Kind != "directory" {
		release()
		return nil, nil, fault.New(fault.CapabilityUnavailable, "This tool needs an open archive or directory target.",
			"Open a zip-family archive, an ASAR archive or a directory with open_binary.",
			map[string]any{"operation": op, "availability_reason": "target_unsupported", "provider_id": nil})
	}
	return o, release, nil
}

func rootOf(o *session.Target) artifact.Root {
	return artifact.Root{Path: o.Target().Path, Format: o.Target().Format, SHA256: o.Target().SHA256}
}

func producer(e *engine.Engine, id string) provider.Identity {
	v := e.Config().Version
	return provider.Identity{ID: id, Name: producerNames[id], Version: &v}
}

// InventoryArtifact walks the open artifact target (§10.1–§10.3) and
// publishes the requested pages as rea-artifact Evidence, with one
// integrity_contradiction_recorded per quarantine record.
func InventoryArtifact(ctx context.Context, c *engine.Connection, req InventoryRequest, rep progress.Reporter) (engine.Published, error) {
	const op = "inventory_artifact"
	o, release, err := artifactTarget(c, op, req.Target)
	if err != nil {
		return engine.Published{}, err
	}
	defer release()
	rep = progress.OrNop(rep)
	pol := req.Policy
	pol.OperatorEnabled = c.Engine().Config().IntegrityContinueEnabled
	g, err := artifact.Inventory(ctx, rootOf(o), artifact.Options{Limits: req.Limits, Policy: pol, Progress: rep, Operation: op})
	if err != nil {
		return engine.Published{}, err
	}
	rep.Report(progress.Update{Phase: "publish", Message: "recording Evidence"})
	res := InventoryResult{
		Manifest:                g.Manifest,
		Nodes:                   provider.PageOf(g.Nodes, req.Nodes.Offset, req.Nodes.Limit),
		Occurrences:             provider.PageOf(g.Occurrences, req.Occurrences.Offset, req.Occurrences.Limit),
		Edges:                   provider.PageOf(g.Edges, req.Edges.Offset, req.Edges.Limit),
		Limits:                  g.Limits,
		Provenance:              nonNil(g.Provenance),
		IntegrityContradictions: g.Contradictions,
		Limitations:             nonNil(g.Limitations),
	}
	if res.IntegrityContradictions == nil {
		res.IntegrityContradictions = []artifact.Contradiction{}
	}
	paths := make([]string, 0, len(res.Occurrences.Items))
	for _, oc := range res.Occurrences.Items {
		paths = append(paths, oc.LogicalPath)
	}
	rec, err := artifactRecord(c, op, engine.SubjectOf(o.Target()), ProducerArtifact, req.Parameters, evidence.ConfidenceObserved, res, res.Limitations, paths)
	if err != nil {
		return engine.Published{}, err
	}
	return c.Publish(ctx, rec, o, func(evidenceID string) []ledger.NewEvent {
		evs := make([]ledger.NewEvent, 0, len(g.Contradictions))
		for _, ct := range g.Contradictions {
			evs = append(evs, c.Engine().TargetEvent(events.IntegrityContradictionRecorded, events.IntegrityContradictionRecordedData{
				ConnectionID: c.ID(), RunID: new(o.RunID()), TargetID: o.ID(), EvidenceID: evidenceID,
				RootArtifactID: g.Manifest.RootArtifactID, Contradiction: ct,
			}))
		}
		return evs
	})
}

// ExtractRequest is a validated extract_artifact call (approved:true was
// checked by the caller's schema; the permission is checked here).
type ExtractRequest struct {
	Target        string // "" = the active target
	Parameters    map[string]any
	OutputRoot    string
	OccurrenceIDs []string
	Limits        artifact.Limits
	Page          PageRequest
	// AllowHiddenPaths is allow_hidden_paths:true (§0, §10.6).
	AllowHiddenPaths bool
}

// ExtractionResult is the §10.7 result with its files paged.
type ExtractionResult struct {
	Manifest            artifact.Manifest                     `json:"manifest"`
	ExtractionManifest  artifact.ExtractionManifest           `json:"extraction_manifest"`
	OutputRoot          string                                `json:"output_root"`
	Artifacts           provider.Page[artifact.ExtractedFile] `json:"artifacts"`
	ContainmentVerified bool                                  `json:"containment_verified"`
	Cleanup             artifact.Cleanup                      `json:"cleanup"`
	Limits              artifact.Limits                       `json:"limits"`
	Provenance          []any                                 `json:"provenance"`
	Limitations         []string                              `json:"limitations"`
}

// ExtractArtifact preflights artifact_extract for output_root (§10.6),
// inventories the open target fail-closed, writes the selected occurrences
// and publishes the extraction as rea-artifact Evidence.
func ExtractArtifact(ctx context.Context, c *engine.Connection, req ExtractRequest, rep progress.Reporter) (engine.Published, error) {
	const op = "extract_artifact"
	o, release, err := artifactTarget(c, op, req.Target)
	if err != nil {
		return engine.Published{}, err
	}
	defer release()
	rep = progress.OrNop(rep)
	canonical, err := policy.Canonicalize(req.OutputRoot, policy.AccessWrite)
	if err != nil {
		return engine.Published{}, policy.PathFault(op, "/output_root", err)
	}
	if _, err := c.Authorize(ctx, op, policy.Request{
		Scope: policy.Scope{Capability: policy.ArtifactExtract, Roots: []string{canonical},
			Executables: []string{}, EnvironmentNames: []string{}, Network: "none"},
		OperationIdentity: op + ":" + canonical, Access: policy.AccessWrite,
	}); err != nil {
		return engine.Published{}, err
	}
	// The path bound is the extraction's own (path_too_long on what is
	// selected), not a reason to refuse listing what is not.
	invLimits := req.Limits
	invLimits.MaxPathBytes = artifact.MaxInventoryPathBytes
	g, err := artifact.Inventory(ctx, rootOf(o), artifact.Options{Limits: invLimits, Operation: op})
	if err != nil {
		return engine.Published{}, err
	}
	x, err := artifact.Extract(ctx, rootOf(o), g, artifact.ExtractOptions{
		OutputRoot: filepath.Clean(req.OutputRoot), OccurrenceIDs: req.OccurrenceIDs, Limits: req.Limits, Progress: rep,
		AllowHiddenPaths: req.AllowHiddenPaths, FreeSpace: c.Engine().Config().ExtractFreeSpace, ApprovedRoot: canonical})
	if err != nil {
		return engine.Published{}, err
	}
	rep.Report(progress.Update{Phase: "publish", Message: "recording Evidence"})
	res := ExtractionResult{
		Manifest: x.Manifest, ExtractionManifest: x.ExtractionManifest, OutputRoot: x.OutputRoot,
		Artifacts:           provider.PageOf(x.Artifacts, req.Page.Offset, req.Page.Limit),
		ContainmentVerified: x.ContainmentVerified, Cleanup: x.Cleanup, Limits: x.Limits,
		Provenance: nonNil(x.Provenance), Limitations: nonNil(x.Limitations),
	}
	paths := make([]string, 0, len(res.Artifacts.Items))
	for _, a := range res.Artifacts.Items {
		paths = append(paths, a.RelativePath)
	}
	rec, err := artifactRecord(c, op, engine.SubjectOf(o.Target()), ProducerArtifact, req.Parameters, evidence.ConfidenceObserved, res, res.Limitations, paths)
	if err != nil {
		return engine.Published{}, err
	}
	return c.Publish(ctx, rec, o, nil)
}

// CompareRequest is a validated compare_artifacts call.
type CompareRequest struct {
	Parameters  map[string]any
	Left, Right []string // inventory_artifact Evidence ids
	Page        PageRequest
}

// ComparisonResult is the §10.5 result with its changes paged.
type ComparisonResult struct {
	Status          string                         `json:"status"`
	LeftManifestID  string                         `json:"left_manifest_id"`
	RightManifestID string                         `json:"right_manifest_id"`
	Summary         artifact.Summary               `json:"summary"`
	Changes         provider.Page[artifact.Change] `json:"changes"`
	Limitations     []string                       `json:"limitations"`
}

// CompareArtifacts compares two inventories given as inventory_artifact
// Evidence pages (§10.5), a derived computation (§6.6) published as
// rea-compare Evidence linking every input.
func CompareArtifacts(ctx context.Context, c *engine.Connection, req CompareRequest, rep progress.Reporter) (engine.Published, error) {
	const op = "compare_artifacts"
	rep = progress.OrNop(rep)
	two := 2.0
	rep.Report(progress.Update{Phase: "prepare", Completed: 0, Total: &two, Message: "loading inventories"})
	left, leftLinks, err := loadSide(ctx, c, op, "/left_evidence_ids", req.Left)
	if err != nil {
		return engine.Published{}, err
	}
	right, rightLinks, err := loadSide(ctx, c, op, "/right_evidence_ids", req.Right)
	if err != nil {
		return engine.Published{}, err
	}
	if err := ctx.Err(); err != nil {
		return engine.Published{}, fault.CancelledError(op).WithCause(err)
	}
	cmp, err := artifact.Compare(ctx, left, right)
	if err != nil {
		return engine.Published{}, err
	}
	rep.Report(progress.Update{Phase: "compute", Completed: 1, Total: &two, Message: "compared"})
	for i := range cmp.Changes {
		ch := &cmp.Changes[i]
		var links []string
		if ch.LeftOccurrence != nil {
			links = append(links, leftLinks[*ch.LeftOccurrence]...)
		}
		if ch.RightOccurrence != nil {
			links = append(links, rightLinks[*ch.RightOccurrence]...)
		}
		slices.Sort(links)
		ch.EvidenceLinks = nonNil(slices.Compact(links))
	}
	if err := ctx.Err(); err != nil {
		return engine.Published{}, fault.CancelledError(op).WithCause(err)
	}
	res := ComparisonResult{Status: cmp.Status, LeftManifestID: cmp.LeftManifestID, RightManifestID: cmp.RightManifestID,
		Summary: cmp.Summary, Changes: provider.PageOf(cmp.Changes, req.Page.Offset, req.Page.Limit),
		Limitations: append([]string{noSubjectLimitation}, cmp.Limitations...)}
	paths := make([]string, 0, len(res.Changes.Items))
	for _, ch := range res.Changes.Items {
		paths = append(paths, ch.LogicalPath)
	}
	rec, err := artifactRecord(c, op, nil, ProducerCompare, req.Parameters, evidence.ConfidenceDerived, res, res.Limitations, paths)
	if err != nil {
		return engine.Published{}, err
	}
	links := append(slices.Clone(req.Left), req.Right...)
	slices.Sort(links)
	rec.EvidenceLinks = slices.Compact(links)
	return c.Publish(ctx, rec, c.ActiveRun(), nil)
}

// inventoryPage is the part of an inventory_artifact normalized_result a
// comparison reads.
type inventoryPage struct {
	Manifest    artifact.Manifest                  `json:"manifest"`
	Nodes       provider.Page[artifact.Node]       `json:"nodes"`
	Occurrences provider.Page[artifact.Occurrence] `json:"occurrences"`
	Edges       provider.Page[artifact.Edge]       `json:"edges"`
}

// loadSide assembles one side of a comparison from its Evidence pages, and
// which Evidence held each occurrence.
func loadSide(ctx context.Context, c *engine.Connection, op, pointer string, ids []string) (artifact.Side, map[string][]string, error) {
	side := artifact.Side{}
	links := map[string][]string{}
	nodes, occs, edges := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, id := range ids {
		digest, ok, err := c.Engine().EvidenceDigest(ctx, id)
		if err != nil {
			return side, nil, fault.From(op, err)
		}
		if !ok {
			return side, nil, fault.New(fault.EvidenceIntegrityMismatch, "A referenced Evidence record is missing.",
				"Pass inventory_artifact Evidence ids recorded in this ledger.",
				map[string]any{"evidence_id": id, "reason": "missing"})
		}
		rec, err := c.Engine().LoadRecord(ctx, op, digest)
		if err != nil {
			return side, nil, err
		}
		if rec.Operation != "inventory_artifact" {
			return side, nil, fault.New(fault.EvidenceIntegrityMismatch, "A referenced Evidence record is not an inventory.",
				"Pass inventory_artifact Evidence ids.",
				map[string]any{"evidence_id": id, "reason": "wrong_operation", "expected": "inventory_artifact", "actual": rec.Operation})
		}
		var p inventoryPage
		if err := json.Unmarshal(rec.NormalizedResult, &p); err != nil {
			return side, nil, fault.New(fault.EvidenceIntegrityMismatch, "A referenced inventory does not have the inventory shape.",
				"Pass inventory_artifact Evidence ids.", map[string]any{"evidence_id": id, "reason": "schema"})
		}
		if side.ManifestID == "" {
			side.ManifestID = p.Manifest.ManifestID
		} else if side.ManifestID != p.Manifest.ManifestID {
			return side, nil, fault.Invalid(op, fault.Issue{Path: pointer, Reason: "invalid_value",
				Message: "every Evidence id of one side must come from the same inventory manifest"})
		}
		for _, n := range p.Nodes.Items {
			if !nodes[n.ArtifactID] {
				nodes[n.ArtifactID] = true
				side.Nodes = append(side.Nodes, n)
			}
		}
		for _, oc := range p.Occurrences.Items {
			links[oc.OccurrenceID] = append(links[oc.OccurrenceID], id)
			if !occs[oc.OccurrenceID] {
				occs[oc.OccurrenceID] = true
				side.Occurrences = append(side.Occurrences, oc)
			}
		}
		for _, e := range p.Edges.Items {
			if !edges[e.EdgeID] {
				edges[e.EdgeID] = true
				side.Edges = append(side.Edges, e)
			}
		}
		m := p.Manifest
		side.Complete = len(nodes) == m.NodeCount && len(occs) == m.OccurrenceCount && len(edges) == m.EdgeCount
	}
	return side, links, nil
}

// JSAppRequest is a validated analyze_javascript_application call.
// Parameters exclude detail (§11.1).
type JSAppRequest struct {
	Parameters map[string]any
	Request    jsapp.Request
}

// AnalyzeJavaScriptApplication analyzes an application directory or ASAR
// (§11), target-free, fills inventory_manifest_id from a fail-closed
// inventory of the same root, and publishes the full result as rea-jsapp
// Evidence. The caller projects detail "summary".
func AnalyzeJavaScriptApplication(ctx context.Context, c *engine.Connection, req JSAppRequest, rep progress.Reporter) (engine.Published, error) {
	const op = jsapp.Operation
	rep = progress.OrNop(rep)
	res, err := jsapp.Analyze(ctx, req.Request, rep)
	if err != nil {
		return engine.Published{}, err
	}
	l := req.Request.Limits
	root := artifact.Root{Path: res.InputPath, Format: string(res.Format), SHA256: res.RootSHA256}
	if res.Format == jsapp.FormatDirectory {
		// The analysis does not hash a file over the entry-size bound; the
		// §10.2 digest of the tree is the inventory's to compute.
		root.SHA256 = ""
	}
	g, err := artifact.Inventory(ctx, root, artifact.Options{Operation: op, Limits: artifact.Limits{
		MaxEntries: l.MaxEntries, MaxTotalBytes: l.MaxTotalArtifactBytes, MaxEntryBytes: l.MaxArtifactEntryBytes,
		MaxCompressionRatio: artifact.DefaultLimits().MaxCompressionRatio, MaxDepth: int(l.MaxDepth), MaxPathBytes: int(l.MaxPathBytes),
	}})
	if err != nil {
		return engine.Published{}, err
	}
	res.InventoryManifestID, res.RootSHA256 = g.Manifest.ManifestID, g.Manifest.RootSHA256
	rep.Report(progress.Update{Phase: "publish", Message: "recording Evidence"})
	subject := &evidence.Subject{Name: filepath.Base(res.InputPath), Digest: evidence.Digest{SHA256: res.RootSHA256},
		Format: string(res.Format), LocalPath: res.InputPath}
	rec, err := artifactRecord(c, op, subject, ProducerJSApp, req.Parameters, evidence.ConfidenceObserved, res, nonNil(res.Limitations), nil)
	if err != nil {
		return engine.Published{}, err
	}
	return c.Publish(ctx, rec, c.ActiveRun(), nil)
}

// artifactRecord builds an unsealed record of an internal producer.
func artifactRecord(c *engine.Connection, op string, subject *evidence.Subject, producerID string, params map[string]any, confidence string, result any, limitations, paths []string) (*evidence.Record, error) {
	if params == nil {
		params = map[string]any{}
	}
	var locs []provider.Location
	for _, p := range paths {
		if len(locs) == maxPathLocations {
			break
		}
		locs = append(locs, provider.Location{Kind: "artifact-path", Path: p})
	}
	rec := &evidence.Record{SchemaVersion: 2, Subject: subject, Claim: evidence.Claim{
		Provider: producer(c.Engine(), producerID), PredicateType: evidence.PredicateAnalysis, Operation: op, Parameters: params,
		Confidence: confidence, Authority: evidence.AuthorityShipped, Limitations: nonNil(limitations),
		Locations: nonNil(locs), EvidenceLinks: []string{},
	}}
	var err error
	if rec.NormalizedResult, err = canon.Marshal(result); err != nil {
		return nil, fault.Internal(op, err)
	}
	return rec, nil
}

// nonNil is s, or an empty slice: the results' lists are never null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
