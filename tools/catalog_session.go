package tools

import "github.com/rea-re/rea/tools/catalog"

// Session tools (kind session, CONTRACTS.md §2.1, §2.6, §3, §8).

func catSessionTools() []func() catalog.Spec {
	return []func() catalog.Spec{
		catOpenBinary, catCloseBinary, catBinarySession, catGetEvidenceBundle, catExportEvidenceBundle,
		catImportEvidenceBundle, catGetNavigationContext, catInspectAddressContext, catCaptureProcessScenario,
		catCompareArtifacts,
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

func catExportEvidenceBundle() catalog.Spec {
	return catalog.Spec{
		Name:        "export_evidence_bundle",
		Title:       "Export Evidence bundle",
		Description: "Write this connection's Evidence bundle to a file in an approved Evidence root.",
		Kind:        "session",
		Effects:     catalog.Effects("W D"),
		Input: catalog.In(catalog.M{
			"path":      catalog.AbsPathIn(4096, ""),
			"overwrite": catalog.Def(catalog.Bool(), false),
		}, "path"),
		Result: catalog.OutAll(catalog.M{
			"path":          catalog.String(),
			"bytes":         catalog.Count(),
			"records":       catalog.Count(),
			"bundle_digest": catalog.Hex64(),
		}),
	}
}

func catImportEvidenceBundle() catalog.Spec {
	return catalog.Spec{
		Name:        "import_evidence_bundle",
		Title:       "Import Evidence bundle",
		Description: "Verify a bundle file in an approved Evidence root and merge its records atomically.",
		Kind:        "session",
		Effects:     catalog.Effects("S I"),
		Input: catalog.In(catalog.M{
			"path": catalog.AbsPathIn(4096, ""),
		}, "path"),
		Result: catalog.OutAll(catalog.M{
			"imported":      catalog.Count(),
			"duplicates":    catalog.Count(),
			"total":         catalog.Count(),
			"bundle_digest": catalog.Hex64(),
		}),
	}
}

func catGetNavigationContext() catalog.Spec {
	return catalog.Spec{
		Name:        "get_navigation_context",
		Title:       "Get navigation context",
		Description: "Return the document, cursor and its procedure." + catalog.SampleText,
		Kind:        "session",
		Effects:     catalog.Effects("I"),
		Input:       catalog.In(catalog.M{"document": catalog.DocIn()}),
		Result: catalog.OutAll(catalog.M{
			"mode":      catalog.Enum("current_selection", "explicit_document"),
			"document":  catalog.String(),
			"address":   catalog.AddrOut(),
			"procedure": catalog.Nullable(catalog.ProcRef()),
		}),
		RequiredOperations: []string{"current_address", "current_document", "resolve_containing_procedure"},
	}
}

func catInspectAddressContext() catalog.Spec {
	// A facet is available with a value, or unavailable with an error code
	// (§1.7) and remediation.
	facet := func(value catalog.M) catalog.M {
		return catalog.Out(catalog.M{"state": catalog.Enum("available", "unavailable"), "value": value,
			"reason": catalog.String(), "remediation": catalog.String()}, "state")
	}
	return catalog.Spec{
		Name:        "inspect_address_context",
		Title:       "Inspect address context",
		Description: "Return the name, procedure, comments and bookmarks at an address." + catalog.SampleText,
		Kind:        "session",
		Effects:     catalog.Effects("I"),
		Input: catalog.In(catalog.M{
			"address":  catalog.AddrIn(""),
			"document": catalog.DocIn(),
		}, "address"),
		Result: catalog.OutAll(catalog.M{
			"address":  catalog.AddrOut(),
			"document": catalog.Nullable(catalog.String()),
			"name":     facet(catalog.Nullable(catalog.String())),
			"procedure": facet(catalog.M{"oneOf": []any{
				catalog.OutAll(catalog.M{"query_address": catalog.AddrOut(), "found": catalog.Const(true), "procedure": catalog.ProcRef()}),
				catalog.OutAll(catalog.M{"query_address": catalog.AddrOut(), "found": catalog.Const(false), "procedure": catalog.M{"type": "null"},
					"reason": catalog.Enum("outside_segments", "not_in_procedure")}),
			}}),
			"comment":        facet(catalog.Nullable(catalog.String())),
			"inline_comment": facet(catalog.Nullable(catalog.String())),
			"bookmarks":      facet(catalog.List(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String()}))),
		}),
		RequiredOperations: []string{"address_name", "comment", "inline_comment", "list_bookmarks", "resolve_containing_procedure"},
	}
}

func catCaptureProcessScenario() catalog.Spec {
	stepWrite := catalog.In(catalog.M{
		"type":      catalog.Const("write"),
		"data":      catalog.Str(0, 65536),
		"sensitive": catalog.D(catalog.Def(catalog.Bool(), false), "Redact data in the Evidence."),
	}, "type", "data")
	stepWait := catalog.In(catalog.M{
		"type":       catalog.Const("wait_output"),
		"literal":    catalog.Str(1, 10000),
		"timeout_ms": catalog.Int(1, 300000),
	}, "type", "literal", "timeout_ms")
	stepSleep := catalog.In(catalog.M{"type": catalog.Const("sleep"), "ms": catalog.Int(0, 60000)}, "type", "ms")
	stepClose := catalog.In(catalog.M{"type": catalog.Const("close_stdin")}, "type")
	stepSignal := catalog.In(catalog.M{"type": catalog.Const("signal"), "signal": catalog.Enum("SIGINT", "SIGTERM", "SIGHUP")}, "type", "signal")
	// anyOf rather than oneOf: the branches exclude each other through the type
	// const, and anyOf is the combinator more clients accept.
	step := catalog.M{"type": "object", "anyOf": []any{stepWrite, stepWait, stepSleep, stepClose, stepSignal}}

	envName := catalog.Pat(catalog.PatEnvName)
	envName["not"] = catalog.M{"enum": []any{"TERM", "REA_PROCESS_RUN_ID"}}

	return catalog.Spec{
		Name:  "capture_process_scenario",
		Title: "Capture process scenario",
		Description: "Run a program in a pseudo-terminal with scripted input, recording the transcript; needs a process_capture grant." +
			catalog.SampleText,
		Kind:     "session",
		Effects:  catalog.Effects("S W P N D"),
		Evidence: true,
		Input: catalog.In(catalog.M{
			"executable":        catalog.AbsPathIn(4096, ""),
			"arguments":         catalog.Def(catalog.Arr(catalog.Str(0, 4096), 0, 256), []any{}),
			"working_directory": catalog.AbsPathIn(4096, ""),
			"environment_names": catalog.D(catalog.Def(catalog.Arr(envName, 0, 64), []any{}), "REA variables passed through."),
			"stdin_steps":       catalog.Def(catalog.Arr(step, 0, 1000), []any{}),
			"terminal": catalog.D(catalog.Def(catalog.In(catalog.M{
				"columns": catalog.Def(catalog.Int(1, 1000), int64(80)),
				"rows":    catalog.Def(catalog.Int(1, 1000), int64(24)),
			}), catalog.M{}), ""),
			"timeout_ms":       catalog.Def(catalog.Int(1, 300000), int64(30000)),
			"idle_timeout_ms":  catalog.Def(catalog.Int(1, 300000), int64(30000)),
			"max_output_bytes": catalog.Def(catalog.Int(1, 10000000), int64(1000000)),
			"network":          catalog.Def(catalog.Enum("none", "loopback", "host"), "none"),
		}, "executable", "working_directory"),
		Result: catalog.OutAll(catalog.M{
			"schema_version":    catalog.Const(int64(1)),
			"executable":        catalog.OutAll(catalog.M{"path": catalog.String(), "sha256": catalog.Hex64()}),
			"arguments":         catalog.List(catalog.String()),
			"working_directory": catalog.String(),
			"environment_names": catalog.List(catalog.String()),
			"network":           catalog.Enum("none", "loopback", "host"),
			"terminal":          catalog.OutAll(catalog.M{"columns": catalog.Count(), "rows": catalog.Count()}),
			"started_at":        catalog.TimeOut(),
			"completed_at":      catalog.TimeOut(),
			"duration_ms":       catalog.Count(),
			"exit": catalog.OutAll(catalog.M{
				"code":   catalog.Nullable(catalog.M{"type": "integer"}),
				"signal": catalog.Nullable(catalog.String()),
				"reason": catalog.Enum("exited", "timeout", "idle_timeout", "output_limit"),
			}),
			"output": catalog.OutAll(catalog.M{
				"bytes": catalog.Count(), "sha256": catalog.Hex64(), "text": catalog.String(),
				"rendered": catalog.List(catalog.String()), "truncated": catalog.Bool(),
			}),
			"steps": catalog.List(catalog.OutAll(catalog.M{
				"index": catalog.Count(), "type": catalog.Enum("write", "wait_output", "sleep", "close_stdin", "signal"),
				"outcome": catalog.Enum("done", "timed_out", "target_exited", "skipped"), "at_ms": catalog.Count(),
			})),
			"processes": catalog.List(catalog.OutAll(catalog.M{
				"pid": catalog.Count(), "parent_pid": catalog.Count(), "process_group_id": catalog.Count(), "command": catalog.String(),
			})),
			"cleanup": catalog.OutAll(catalog.M{
				"process_group": catalog.Enum("already_empty", "terminated"), "verified": catalog.Const(true),
			}),
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
