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
	"github.com/rea-re/rea/tools/catalog"
)

// Artifact and application tools (CONTRACTS.md §2.4, §2.5, §10, §11): the
// handlers turn validated input into engine requests; the engine runs the
// domain packages and publishes.

func artifactTools() []tool {
	return []tool{
		{catInventoryArtifact, (*Server).inventoryArtifact},
		{catExtractArtifact, (*Server).extractArtifact},
		{catCompareArtifacts, (*Server).compareArtifacts},
		{catAnalyzeJavaScriptApplication, (*Server).analyzeJavaScriptApplication},
	}
}

// catTraversalLimits adds the traversal limits of §2.4 to props.
func catTraversalLimits(props catalog.M) catalog.M {
	return catalog.Merge(props, catalog.M{
		"max_entries":           catalog.Def(catalog.Int(1, 1000000), int64(10000)),
		"max_total_bytes":       catalog.Def(catalog.Int(1, catalog.MaxInt), int64(1073741824)),
		"max_entry_bytes":       catalog.D(catalog.Def(catalog.Int(1, catalog.MaxInt), int64(268435456)), "Larger entries are listed, not hashed."),
		"max_compression_ratio": catalog.Def(catalog.M{"type": "number", "minimum": int64(1), "maximum": int64(100000)}, int64(1000)),
		"max_depth":             catalog.Def(catalog.Int(0, 100), int64(20)),
		"max_path_bytes":        catalog.Def(catalog.Int(1, 65535), int64(4096)),
	})
}

func catLimitsResult() catalog.M {
	return catalog.Out(catalog.M{
		"max_entries": catalog.Count(), "max_total_bytes": catalog.Count(), "max_entry_bytes": catalog.Count(),
		"max_compression_ratio": catalog.M{"type": "number"}, "max_depth": catalog.Count(), "max_path_bytes": catalog.Count(),
	})
}

func catInventoryArtifact() catalog.Spec {
	props := catTraversalLimits(catalog.M{
		"node_offset":       catalog.OffsetIn(""),
		"occurrence_offset": catalog.OffsetIn(""),
		"edge_offset":       catalog.OffsetIn(""),
		"node_limit":        catalog.LimitIn(500, 100, ""),
		"occurrence_limit":  catalog.LimitIn(500, 100, ""),
		"edge_limit":        catalog.LimitIn(500, 100, ""),
		"integrity_policy": catalog.D(catalog.Def(catalog.Enum("fail", "record-and-continue"), "fail"),
			"record-and-continue records mismatches instead of failing; needs REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED=true."),
		"integrity_continue_approved": catalog.D(catalog.Bool(), "true exactly with record-and-continue."),
		"max_integrity_mismatches":    catalog.Def(catalog.Int(1, 100), int64(10)),
	})
	input := catalog.In(props)
	// The integrity union of §10.1, as constraints on the object above.
	union := []any{
		catalog.M{
			"properties": catalog.M{
				"integrity_policy":            catalog.Const("record-and-continue"),
				"integrity_continue_approved": catalog.Const(true),
			},
			"required": catalog.SortedRequired([]string{"integrity_policy", "integrity_continue_approved"}),
		},
		catalog.M{
			"properties": catalog.M{
				"integrity_policy":            catalog.Const("fail"),
				"integrity_continue_approved": catalog.Def(catalog.Const(false), false),
			},
		},
	}
	return catalog.Spec{
		Name:  "inventory_artifact",
		Title: "Inventory artifact",
		Description: "Inventory the open archive or directory: artifacts, paths, edges, integrity." +
			catalog.SampleText,
		Kind:       "artifact",
		Effects:    catalog.Effects("I"),
		Evidence:   true,
		Input:      input,
		InputUnion: union,
		Result: catalog.OutAll(catalog.M{
			"manifest": catalog.Manifest(),
			"nodes": catalog.PageOf(catalog.OutAll(catalog.M{
				"artifact_id":   catalog.Pat(catalog.PatArtifactID),
				"kind":          catalog.String(),
				"format":        catalog.Enum(catalog.SubjectFormats()...),
				"sha256":        catalog.Hex64(),
				"size":          catalog.Count(),
				"media_type":    catalog.Nullable(catalog.String()),
				"architecture":  catalog.Nullable(catalog.String()),
				"executable":    catalog.Bool(),
				"content_state": catalog.Enum("materialized", "embedded", "virtual"),
				"limitations":   catalog.List(catalog.String()),
			})),
			"occurrences": catalog.PageOf(catalog.OutAll(catalog.M{
				"occurrence_id":        catalog.Pat(catalog.PatOccurrence),
				"artifact_id":          catalog.Nullable(catalog.Pat(catalog.PatArtifactID)),
				"parent_occurrence_id": catalog.Nullable(catalog.Pat(catalog.PatOccurrence)),
				"logical_path":         catalog.String(),
				"entry_kind":           catalog.Enum("file", "directory", "symlink", "slice"),
				"declared_size":        catalog.Nullable(catalog.Count()),
				"declared_sha256":      catalog.Nullable(catalog.Hex64()),
				"compressed_size":      catalog.Nullable(catalog.Count()),
				"executable":           catalog.Bool(),
				"encrypted":            catalog.Bool(),
				"hash_status":          catalog.Enum("verified", "mismatched", "not-hashed-limit", "unavailable"),
				"source_location":      catalog.Nullable(catalog.OutAll(catalog.M{"offset": catalog.Count(), "length": catalog.Count()})),
				"limitations":          catalog.List(catalog.String()),
			})),
			"edges": catalog.PageOf(catalog.OutAll(catalog.M{
				"edge_id":            catalog.Pat(catalog.PatEdgeID),
				"ordinal":            catalog.Count(),
				"parent_artifact_id": catalog.Pat(catalog.PatArtifactID),
				"child_artifact_id":  catalog.Pat(catalog.PatArtifactID),
				"relation": catalog.Enum("contains", "extracts", "slice-of", "embeds", "loads", "maps-source",
					"derived-from"),
				"occurrence_id": catalog.Pat(catalog.PatOccurrence),
				"logical_path":  catalog.Nullable(catalog.String()),
				"producer":      catalog.M{"type": "null"},
			})),
			"limits":                   catLimitsResult(),
			"provenance":               catalog.List(catalog.Any()),
			"integrity_contradictions": catalog.Arr(catalog.Contradiction(), 0, 100),
			"limitations":              catalog.List(catalog.String()),
		}),
	}
}

func catExtractArtifact() catalog.Spec {
	props := catTraversalLimits(catalog.PageIn(catalog.M{
		"approved":           catalog.Const(true),
		"output_root":        catalog.AbsPathIn(4096, "Created if missing; files are never overwritten."),
		"occurrence_ids":     catalog.D(catalog.Arr(catalog.Pat(catalog.PatOccurrence), 1, 500), "From the current inventory; a directory selects its files."),
		"allow_hidden_paths": catalog.D(catalog.Def(catalog.Bool(), false), "Allow path components starting with '.'."),
	}, 500, 100))
	// Server maxima of an extraction (§0): PATH_MAX, 64 GiB.
	props["max_path_bytes"] = catalog.Def(catalog.Int(1, artifact.MaxExtractPathBytes), int64(4096))
	props["max_total_bytes"] = catalog.Def(catalog.Int(1, artifact.MaxExtractTotalBytes), int64(1073741824))
	return catalog.Spec{
		Name:  "extract_artifact",
		Title: "Extract artifact",
		Description: "Extract chosen occurrences of the open archive or directory safely; needs an artifact_extract grant." +
			catalog.SampleText,
		Kind:     "artifact",
		Effects:  catalog.Effects("W"),
		Evidence: true,
		Input:    catalog.In(props, "approved", "output_root", "occurrence_ids"),
		Result: catalog.OutAll(catalog.M{
			"manifest": catalog.Manifest(),
			"extraction_manifest": catalog.OutAll(catalog.M{
				"schema_version":          catalog.Const(int64(1)),
				"extraction_id":           catalog.Pat(catalog.PatExtraction),
				"source_manifest_id":      catalog.Pat(catalog.PatManifestID),
				"selected_occurrence_ids": catalog.List(catalog.Pat(catalog.PatOccurrence)),
				"files_sha256":            catalog.Hex64(),
				"output_root_alias":       catalog.Const("$OUTPUT_ROOT"),
			}),
			"output_root": catalog.String(),
			"artifacts": catalog.PageOf(catalog.Out(catalog.M{
				"artifact_id":   catalog.Pat(catalog.PatArtifactID),
				"relative_path": catalog.String(),
				"raw_name_hex":  catalog.Pat("^([0-9a-f]{2})+$"),
				"sha256":        catalog.Hex64(),
				"bytes_written": catalog.Count(),
				"created":       catalog.Const(true),
			}, "artifact_id", "relative_path", "sha256", "bytes_written", "created")),
			"containment_verified": catalog.Const(true),
			"cleanup": catalog.OutAll(catalog.M{
				"attempted": catalog.Bool(), "verified": catalog.Bool(), "residual_paths": catalog.List(catalog.String()),
			}),
			"limits":      catLimitsResult(),
			"provenance":  catalog.List(catalog.Any()),
			"limitations": catalog.List(catalog.String()),
		}),
	}
}

func catCompareArtifacts() catalog.Spec {
	return catalog.Spec{
		Name:        "compare_artifacts",
		Title:       "Compare artifacts",
		Description: "Compare two inventory_artifact results (Evidence ids) path by path." + catalog.SampleText,
		Kind:        "session",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.PageIn(catalog.M{
			"left_evidence_ids":  catalog.EvidenceIDsIn(1, 100, ""),
			"right_evidence_ids": catalog.EvidenceIDsIn(1, 100, ""),
		}, 500, 100), "left_evidence_ids", "right_evidence_ids"),
		Result: catalog.OutAll(catalog.M{
			"status":            catalog.Enum("unchanged", "changed", "truncated", "unknown", "contradiction"),
			"left_manifest_id":  catalog.Pat(catalog.PatManifestID),
			"right_manifest_id": catalog.Pat(catalog.PatManifestID),
			"summary": catalog.OutAll(catalog.M{
				"unchanged": catalog.Count(), "added": catalog.Count(), "removed": catalog.Count(), "changed": catalog.Count(),
				"unknown": catalog.Count(), "contradiction": catalog.Count(),
			}),
			"changes": catalog.PageOf(catalog.OutAll(catalog.M{
				"classification": catalog.Enum("added", "removed", "changed", "unknown", "contradiction"),
				"logical_path":   catalog.String(),
				"dimensions": catalog.List(catalog.Enum("content", "kind", "format", "size", "executable", "relations",
					"metadata", "integrity", "availability")),
				"left_occurrence_id":  catalog.Nullable(catalog.Pat(catalog.PatOccurrence)),
				"right_occurrence_id": catalog.Nullable(catalog.Pat(catalog.PatOccurrence)),
				"left_artifact_id":    catalog.Nullable(catalog.Pat(catalog.PatArtifactID)),
				"right_artifact_id":   catalog.Nullable(catalog.Pat(catalog.PatArtifactID)),
				"evidence_links":      catalog.List(catalog.EvIDOut()),
			})),
			"limitations": catalog.List(catalog.String()),
		}),
	}
}

// Application analysis (kind application, CONTRACTS.md §2.5, §11):
// target-free, reads a local directory or ASAR archive directly.
func catAnalyzeJavaScriptApplication() catalog.Spec {
	limits := catalog.In(catalog.M{
		"max_entries":              catalog.Def(catalog.Int(1, 1000000), int64(8000)),
		"max_total_artifact_bytes": catalog.Def(catalog.Int(0, catalog.MaxInt), int64(536870912)),
		"max_artifact_entry_bytes": catalog.Def(catalog.Int(0, catalog.MaxInt), int64(134217728)),
		"max_depth":                catalog.Def(catalog.Int(0, 100), int64(64)),
		"max_path_bytes":           catalog.Def(catalog.Int(1, 65535), int64(4096)),
		"max_text_files":           catalog.Def(catalog.Int(1, 100000), int64(5000)),
		"max_total_text_bytes":     catalog.Def(catalog.Int(0, 536870912), int64(134217728)),
		"max_text_file_bytes":      catalog.Def(catalog.Int(0, 67108864), int64(8388608)),
		"max_ast_nodes":            catalog.Def(catalog.Int(0, 20000000), int64(2000000)),
		"max_findings":             catalog.Def(catalog.Int(1, 100000), int64(8000)),
		"max_parse_milliseconds":   catalog.Def(catalog.Int(1, 600000), int64(30000)),
	})

	site := func(extra catalog.M) catalog.M {
		return catalog.OutAll(catalog.Merge(catalog.M{"file": catalog.String(), "line": catalog.Count()}, extra))
	}
	flag := func() catalog.M {
		return catalog.M{"oneOf": []any{catalog.Bool(), catalog.Enum("dynamic", "absent")}}
	}
	electronLists := catalog.M{
		"browser_windows": catalog.List(catalog.OutAll(catalog.M{
			"file": catalog.String(), "line": catalog.Count(), "column": catalog.Count(),
			"web_preferences": catalog.OutAll(catalog.M{
				"nodeIntegration": flag(), "contextIsolation": flag(), "sandbox": flag(), "webviewTag": flag(),
			}),
			"preload": catalog.Nullable(catalog.String()),
		})),
		"preload_entrypoints": catalog.List(catalog.OutAll(catalog.M{
			"path": catalog.String(), "resolved": catalog.Bool(),
			"referenced_from": catalog.List(site(catalog.M{})),
		})),
		"context_bridge": catalog.List(site(catalog.M{
			"api_key": catalog.Nullable(catalog.String()), "members": catalog.List(catalog.String()), "dynamic": catalog.Bool(),
		})),
		"utility_processes": catalog.List(site(catalog.M{"entrypoint": catalog.Nullable(catalog.String()), "resolved": catalog.Bool()})),
		"native_addons":     catalog.List(catalog.OutAll(catalog.M{"path": catalog.String()})),
	}
	ipc := catalog.OutAll(catalog.M{
		"main_handlers": catalog.List(site(catalog.M{"channel": catalog.String(),
			"method": catalog.Enum("handle", "handleOnce", "on", "once")})),
		"renderer_transmissions": catalog.List(site(catalog.M{"channel": catalog.String(),
			"method": catalog.Enum("invoke", "send", "sendSync")})),
		"renderer_listeners":         catalog.List(site(catalog.M{"channel": catalog.String(), "method": catalog.Enum("on", "once")})),
		"dynamic_channel_operations": catalog.List(site(catalog.M{"method": catalog.String()})),
		"pairing": catalog.List(catalog.OutAll(catalog.M{
			"channel": catalog.String(), "status": catalog.Enum("paired", "ambiguous", "unpaired"),
			"transmissions": catalog.Count(), "handlers": catalog.Count(),
		})),
	})
	electron := catalog.OutAll(catalog.Merge(catalog.DeepCopy(electronLists), catalog.M{"ipc": ipc}))

	counts := func(names ...string) catalog.M {
		p := catalog.M{}
		for _, n := range names {
			p[n] = catalog.Count()
		}
		return catalog.OutAll(p)
	}
	summary := counts("browser_windows", "explicit_web_preferences", "preload_entrypoints", "context_bridge_apis",
		"exposed_api_members", "ipc_literal_channels", "main_handlers", "renderer_transmissions",
		"renderer_listeners", "dynamic_channel_operations", "paired", "ambiguous", "unpaired",
		"utility_processes", "native_addons")
	statistics := counts("entries", "relevant_files", "text_files_selected", "text_bytes_read",
		"omitted_text_files", "policy_filtered_text_files", "invalid_utf8_files", "parsed_javascript_files", "scanned_javascript_files",
		"visited_ast_nodes", "findings", "parse_failures")
	// truncated_scopes names the budgets that stopped the analysis (§11.3).
	statistics["properties"].(catalog.M)["truncated_scopes"] = catalog.List(catalog.String())
	statistics = catalog.OutAll(statistics["properties"].(catalog.M))

	common := catalog.M{
		"schema_version":        catalog.Const(int64(1)),
		"input_path":            catalog.String(),
		"format":                catalog.Enum("asar", "directory"),
		"root_sha256":           catalog.Hex64(),
		"inventory_manifest_id": catalog.Pat(catalog.PatManifestID),
		"package": catalog.OutAll(catalog.M{
			"name": catalog.Nullable(catalog.String()), "version": catalog.Nullable(catalog.String()),
			"main": catalog.Nullable(catalog.String()), "main_resolved": catalog.Nullable(catalog.String()),
		}),
		"summary":     summary,
		"statistics":  statistics,
		"limitations": catalog.List(catalog.String()),
	}
	required := make([]string, 0, len(common))
	for k := range common {
		required = append(required, k)
	}
	top := catalog.M{}
	for k, v := range electronLists {
		lst := catalog.DeepCopy(v.(catalog.M))
		lst["maxItems"] = int64(20)
		top[k] = lst
	}
	topIPC := catalog.M{}
	for k, v := range ipc["properties"].(catalog.M) {
		lst := catalog.DeepCopy(v.(catalog.M))
		lst["maxItems"] = int64(20)
		topIPC[k] = lst
	}
	top["ipc"] = catalog.Out(topIPC)
	// One object for both details: "summary" carries top, "full" electron.
	result := catalog.Out(catalog.Merge(common, catalog.M{"top": catalog.Out(top), "electron": electron}), required...)

	return catalog.Spec{
		Name:        "analyze_javascript_application",
		Title:       "Analyze JavaScript application",
		Description: "Statically analyze an Electron app directory or ASAR: windows, preloads, bridges, IPC." + catalog.SampleText,
		Kind:        "application",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.M{
			"input_path": catalog.AbsPathIn(16384, ""),
			"format":     catalog.Def(catalog.Enum("auto", "asar", "directory"), "auto"),
			"detail": catalog.D(catalog.Def(catalog.Enum("summary", "full"), "summary"),
				"summary: counts and 20 items per list."),
			"limits": catalog.Def(limits, catalog.M{}),
		}, "input_path"),
		Result:             result,
		RequiredOperations: nil,
	}
}

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

func (s *Server) inventoryArtifact(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	mode, _ := in.Params.String("integrity_policy")
	return command.InventoryArtifact(ctx, sess.conn, command.InventoryRequest{
		Target:     in.target,
		Parameters: in.Params,
		Limits:     traversalLimits(in.Params),
		Policy: artifact.Policy{Mode: mode, ContinueApproved: in.Params.Bool("integrity_continue_approved", false),
			MaxMismatches: int(in.Params.Int("max_integrity_mismatches", 10))},
		Nodes:       pageOf(in.Params, "node_"),
		Occurrences: pageOf(in.Params, "occurrence_"),
		Edges:       pageOf(in.Params, "edge_"),
	}, rep)
}

func (s *Server) extractArtifact(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	if approved, _ := in.Params["approved"].(bool); !approved {
		return nil, fault.Invalid("extract_artifact", fault.Issue{Path: "/approved", Reason: "invalid_value", Expected: "true"})
	}
	out, _ := in.Params.String("output_root")
	return command.ExtractArtifact(ctx, sess.conn, command.ExtractRequest{
		Target:     in.target,
		Parameters: in.Params, OutputRoot: out, OccurrenceIDs: stringList(in.Params["occurrence_ids"]),
		Limits: traversalLimits(in.Params), Page: pageOf(in.Params, ""),
		AllowHiddenPaths: in.Params.Bool("allow_hidden_paths", false),
	}, rep)
}

func (s *Server) compareArtifacts(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	return command.CompareArtifacts(ctx, sess.conn, command.CompareRequest{
		Parameters: in.Params, Left: stringList(in.Params["left_evidence_ids"]), Right: stringList(in.Params["right_evidence_ids"]),
		Page: pageOf(in.Params, ""),
	}, rep)
}

func (s *Server) analyzeJavaScriptApplication(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	const op = jsapp.Operation
	inputPath, _ := in.Params.String("input_path")
	format, _ := in.Params.String("format")
	detail, _ := in.Params.String("detail")
	limits := jsapp.DefaultLimits()
	if l, ok := in.Params["limits"]; ok && l != nil {
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
	evParams := maps.Clone(map[string]any(in.Params))
	delete(evParams, "detail")
	evParams["limits"] = limits
	pub, err := command.AnalyzeJavaScriptApplication(ctx, sess.conn, command.JSAppRequest{
		Parameters: evParams,
		Request:    jsapp.Request{InputPath: inputPath, Format: jsapp.Format(format), Limits: limits},
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
