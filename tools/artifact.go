package tools

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/rea-re/rea/engine/artifact"
	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/command"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/jsapp"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// Artifact and application tools (CONTRACTS.md §2.4, §2.5, §10, §11): the
// handlers turn validated input into engine requests; the engine runs the
// domain packages and publishes.

func traversalLimits(params provider.Params) artifact.Limits {
	d := artifact.DefaultLimits()
	ratio := d.MaxCompressionRatio
	switch v := params["max_compression_ratio"].(type) {
	case float64:
		ratio = v
	case int64:
		ratio = float64(v)
	case json.Number:
		if f, err := v.Float64(); err == nil {
			ratio = f
		}
	}
	return artifact.Limits{
		MaxEntries:          params.Int("max_entries", d.MaxEntries),
		MaxTotalBytes:       params.Int("max_total_bytes", d.MaxTotalBytes),
		MaxEntryBytes:       params.Int("max_entry_bytes", d.MaxEntryBytes),
		MaxCompressionRatio: ratio,
		MaxDepth:            int(params.Int("max_depth", int64(d.MaxDepth))),
		MaxPathBytes:        int(params.Int("max_path_bytes", int64(d.MaxPathBytes))),
	}
}

func pageOf(params provider.Params, prefix string) command.PageRequest {
	return command.PageRequest{Offset: int(params.Int(prefix+"offset", 0)), Limit: int(params.Int(prefix+"limit", 100))}
}

func (s *Server) inventoryArtifact(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	mode, _ := params.String("integrity_policy")
	return command.InventoryArtifact(ctx, sess.conn, command.InventoryRequest{
		Target:     targetOf(ctx),
		Parameters: params,
		Limits:     traversalLimits(params),
		Policy: artifact.Policy{Mode: mode, ContinueApproved: params.Bool("integrity_continue_approved", false),
			MaxMismatches: int(params.Int("max_integrity_mismatches", 10))},
		Nodes:       pageOf(params, "node_"),
		Occurrences: pageOf(params, "occurrence_"),
		Edges:       pageOf(params, "edge_"),
	}, rep)
}

func (s *Server) extractArtifact(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	if approved, _ := params["approved"].(bool); !approved {
		return nil, fault.Invalid("extract_artifact", fault.Issue{Path: "/approved", Reason: "invalid_value", Expected: "true"})
	}
	out, _ := params.String("output_root")
	return command.ExtractArtifact(ctx, sess.conn, command.ExtractRequest{
		Target:     targetOf(ctx),
		Parameters: params, OutputRoot: out, OccurrenceIDs: stringList(params["occurrence_ids"]),
		Limits: traversalLimits(params), Page: pageOf(params, ""),
		AllowHiddenPaths: params.Bool("allow_hidden_paths", false),
	}, rep)
}

func (s *Server) compareArtifacts(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	return command.CompareArtifacts(ctx, sess.conn, command.CompareRequest{
		Parameters: params, Left: stringList(params["left_evidence_ids"]), Right: stringList(params["right_evidence_ids"]),
		Page: pageOf(params, ""),
	}, rep)
}

func (s *Server) analyzeJavaScriptApplication(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	const op = jsapp.Operation
	in, _ := params.String("input_path")
	format, _ := params.String("format")
	detail, _ := params.String("detail")
	limits := jsapp.DefaultLimits()
	if l, ok := params["limits"]; ok && l != nil {
		b, err := json.Marshal(l)
		if err == nil {
			err = json.Unmarshal(b, &limits)
		}
		if err != nil {
			return nil, fault.Invalid(op, fault.Issue{Path: "/limits", Reason: "invalid_type"})
		}
	}
	// detail is not part of the Evidence parameters (§11.1): the record
	// always holds the full result.
	evParams := maps.Clone(map[string]any(params))
	delete(evParams, "detail")
	evParams["limits"] = limits
	pub, err := command.AnalyzeJavaScriptApplication(ctx, sess.conn, command.JSAppRequest{
		Parameters: evParams,
		Request:    jsapp.Request{InputPath: in, Format: jsapp.Format(format), Limits: limits},
	}, rep)
	if err != nil || detail == "full" {
		return pub, err
	}
	var full jsapp.Result
	if err := json.Unmarshal(pub.Result, &full); err != nil {
		return nil, fault.Internal(op, err)
	}
	if pub.Result, err = canon.Marshal(full.Project()); err != nil {
		return nil, fault.Internal(op, err)
	}
	return pub, nil
}

func stringList(v any) []string {
	var out []string
	switch l := v.(type) {
	case []any:
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, l...)
	}
	return out
}
