package tools

// Session tools (kind session, CONTRACTS.md §2.1, §2.6, §3, §8).

func catSessionTools() []func() Spec {
	return []func() Spec{
		catOpenBinary, catCloseBinary, catBinarySession, catGetEvidenceBundle, catExportEvidenceBundle,
		catImportEvidenceBundle, catGetNavigationContext, catInspectAddressContext, catCaptureProcessScenario,
		catCompareArtifacts,
	}
}

func catOpenBinary() Spec {
	return Spec{
		Name:        "open_binary",
		Title:       "Open binary",
		Description: "Open a binary, archive or directory as a target and bind a provider; start here.",
		Kind:        "session",
		Effects:     catEffects("S P I"),
		Input: scIn(scM{
			"path":        scAbsPathIn(4096, ""),
			"provider_id": scM{"type": "string", "minLength": int64(1), "maxLength": int64(64), "pattern": scPatProvider},
		}, "path"),
		Result: scOutAll(scM{
			"target_id":    scString(),
			"path":         scString(),
			"format":       scEnum(scTargetFormats...),
			"kind":         scEnum(scTargetKinds...),
			"sha256":       scHex64(),
			"size":         scCount(),
			"architecture": scArchitectureOut(),
			"run_id":       scUUIDOut(),
			"binding": scNullable(scOutAll(scM{
				"provider":         scConcreteProvider(),
				"selection_source": scEnum("request", "environment", "auto-single-candidate"),
			})),
		}),
	}
}

func catCloseBinary() Spec {
	return Spec{
		Name:        "close_binary",
		Title:       "Close binary",
		Description: "Close the target; its Evidence and annotations stay.",
		Kind:        "session",
		Effects:     catEffects("S I"),
		Input:       scIn(scM{}),
		Result:      scOutAll(scM{"closed": scBool(), "target_id": scNullable(scString()), "run_id": scNullable(scUUIDOut())}),
	}
}

func catBinarySession() Spec {
	// One object for the three views (§3.2): view and open are always there;
	// which other keys are depends on view, as the contract lists. A union
	// of three objects would repeat the shared keys three times.
	result := scOut(scM{
		"view":                         scEnum("summary", "capabilities", "full"),
		"open":                         scBool(),
		"target":                       scNullable(scTargetOut()),
		"active_provider":              scNullable(scProviderIdentity()),
		"alignment":                    scAlignment(),
		"analysis_activity":            scActivity(),
		"recommended_actions":          scList(scString()),
		"capability_family":            scNullable(scEnum(scToolKinds...)),
		"capabilities":                 scAny(), // a page (capabilities view) or a list (full view)
		"client_features":              scClientFeaturesOut(),
		"providers":                    scList(scProviderIdentity()),
		"analysis_provider_binding":    scNullable(scBinding()),
		"analysis_provider_candidates": scList(scCandidate()),
		"analysis_run":                 scNullable(scRun()),
		"tool_availability":            scList(scToolAvailability()),
		"server_identity":              scServerIdentity(),
	}, "view", "open")
	return Spec{
		Name:        "binary_session",
		Title:       "Binary session",
		Description: "Describe the connection: target and next steps, why a tool is unavailable (capabilities), or all (full).",
		Kind:        "session",
		Effects:     catEffects("I"),
		Input: scIn(scM{
			"detail":                   scDef(scEnum("summary", "capabilities", "full"), "summary"),
			"capability_family":        scEnum(scToolKinds...),
			"cursor":                   scDef(scInt(0, scMaxInt), int64(0)),
			"limit":                    scDef(scInt(1, 100), int64(25)),
			"expected_package_version": scStr(1, 128),
			"expected_catalog_digest":  scD(scPat(scPatHex64), "combined_sha256"),
			"expected_server_path":     scStr(1, 4096),
		}),
		Result: result,
	}
}

func catGetEvidenceBundle() Spec {
	return Spec{
		Name:        "get_evidence_bundle",
		Title:       "Get Evidence bundle",
		Description: "Fetch whole Evidence records by id, run or scope." + catSampleText,
		Kind:        "session",
		Effects:     catEffects("I"),
		Input: scIn(scM{
			"evidence_ids": scEvidenceIDsIn(1, 10000, ""),
			"run_id":       scPat(scPatUUID),
			"scope":        scDef(scEnum("connection", "ledger"), "connection"),
		}),
		Result: scOutAll(scM{
			"scope":         scEnum("connection", "ledger"),
			"bundle_digest": scHex64(),
			"bytes":         scCount(),
			"record_count":  scCount(),
			"bundle":        scBundle(),
		}),
		resultDepth: 2,
	}
}

func catExportEvidenceBundle() Spec {
	return Spec{
		Name:        "export_evidence_bundle",
		Title:       "Export Evidence bundle",
		Description: "Write this connection's Evidence bundle to a file in an approved Evidence root.",
		Kind:        "session",
		Effects:     catEffects("W D"),
		Input: scIn(scM{
			"path":      scAbsPathIn(4096, ""),
			"overwrite": scDef(scBool(), false),
		}, "path"),
		Result: scOutAll(scM{
			"path":          scString(),
			"bytes":         scCount(),
			"records":       scCount(),
			"bundle_digest": scHex64(),
		}),
	}
}

func catImportEvidenceBundle() Spec {
	return Spec{
		Name:        "import_evidence_bundle",
		Title:       "Import Evidence bundle",
		Description: "Verify a bundle file in an approved Evidence root and merge its records atomically.",
		Kind:        "session",
		Effects:     catEffects("S I"),
		Input: scIn(scM{
			"path": scAbsPathIn(4096, ""),
		}, "path"),
		Result: scOutAll(scM{
			"imported":      scCount(),
			"duplicates":    scCount(),
			"total":         scCount(),
			"bundle_digest": scHex64(),
		}),
	}
}

func catGetNavigationContext() Spec {
	return Spec{
		Name:        "get_navigation_context",
		Title:       "Get navigation context",
		Description: "Return the document, cursor and its procedure." + catSampleText,
		Kind:        "session",
		Effects:     catEffects("I"),
		Input:       scIn(scM{"document": scDocIn()}),
		Result: scOutAll(scM{
			"mode":      scEnum("current_selection", "explicit_document"),
			"document":  scString(),
			"address":   scAddrOut(),
			"procedure": scNullable(scProcRef()),
		}),
		RequiredOperations: []string{"current_address", "current_document", "resolve_containing_procedure"},
	}
}

func catInspectAddressContext() Spec {
	// A facet is available with a value, or unavailable with an error code
	// (§1.7) and remediation.
	facet := func(value scM) scM {
		return scOut(scM{"state": scEnum("available", "unavailable"), "value": value,
			"reason": scString(), "remediation": scString()}, "state")
	}
	return Spec{
		Name:        "inspect_address_context",
		Title:       "Inspect address context",
		Description: "Return the name, procedure, comments and bookmarks at an address." + catSampleText,
		Kind:        "session",
		Effects:     catEffects("I"),
		Input: scIn(scM{
			"address":  scAddrIn(""),
			"document": scDocIn(),
		}, "address"),
		Result: scOutAll(scM{
			"address":  scAddrOut(),
			"document": scNullable(scString()),
			"name":     facet(scNullable(scString())),
			"procedure": facet(scM{"oneOf": []any{
				scOutAll(scM{"query_address": scAddrOut(), "found": scConst(true), "procedure": scProcRef()}),
				scOutAll(scM{"query_address": scAddrOut(), "found": scConst(false), "procedure": scM{"type": "null"},
					"reason": scEnum("outside_segments", "not_in_procedure")}),
			}}),
			"comment":        facet(scNullable(scString())),
			"inline_comment": facet(scNullable(scString())),
			"bookmarks":      facet(scList(scOutAll(scM{"address": scAddrOut(), "name": scString()}))),
		}),
		RequiredOperations: []string{"address_name", "comment", "inline_comment", "list_bookmarks", "resolve_containing_procedure"},
	}
}

func catCaptureProcessScenario() Spec {
	stepWrite := scIn(scM{
		"type":      scConst("write"),
		"data":      scStr(0, 65536),
		"sensitive": scD(scDef(scBool(), false), "Redact data in the Evidence."),
	}, "type", "data")
	stepWait := scIn(scM{
		"type":       scConst("wait_output"),
		"literal":    scStr(1, 10000),
		"timeout_ms": scInt(1, 300000),
	}, "type", "literal", "timeout_ms")
	stepSleep := scIn(scM{"type": scConst("sleep"), "ms": scInt(0, 60000)}, "type", "ms")
	stepClose := scIn(scM{"type": scConst("close_stdin")}, "type")
	stepSignal := scIn(scM{"type": scConst("signal"), "signal": scEnum("SIGINT", "SIGTERM", "SIGHUP")}, "type", "signal")
	// anyOf rather than oneOf: the branches exclude each other through the type
	// const, and anyOf is the combinator more clients accept.
	step := scM{"type": "object", "anyOf": []any{stepWrite, stepWait, stepSleep, stepClose, stepSignal}}

	envName := scPat(scPatEnvName)
	envName["not"] = scM{"enum": []any{"TERM", "REA_PROCESS_RUN_ID"}}

	return Spec{
		Name:  "capture_process_scenario",
		Title: "Capture process scenario",
		Description: "Run a program in a pseudo-terminal with scripted input, recording the transcript; needs a process_capture grant." +
			catSampleText,
		Kind:     "session",
		Effects:  catEffects("S W P N D"),
		Evidence: true,
		Input: scIn(scM{
			"executable":        scAbsPathIn(4096, ""),
			"arguments":         scDef(scArr(scStr(0, 4096), 0, 256), []any{}),
			"working_directory": scAbsPathIn(4096, ""),
			"environment_names": scD(scDef(scArr(envName, 0, 64), []any{}), "REA variables passed through."),
			"stdin_steps":       scDef(scArr(step, 0, 1000), []any{}),
			"terminal": scD(scDef(scIn(scM{
				"columns": scDef(scInt(1, 1000), int64(80)),
				"rows":    scDef(scInt(1, 1000), int64(24)),
			}), scM{}), ""),
			"timeout_ms":       scDef(scInt(1, 300000), int64(30000)),
			"idle_timeout_ms":  scDef(scInt(1, 300000), int64(30000)),
			"max_output_bytes": scDef(scInt(1, 10000000), int64(1000000)),
			"network":          scDef(scEnum("none", "loopback", "host"), "none"),
		}, "executable", "working_directory"),
		Result: scOutAll(scM{
			"schema_version":    scConst(int64(1)),
			"executable":        scOutAll(scM{"path": scString(), "sha256": scHex64()}),
			"arguments":         scList(scString()),
			"working_directory": scString(),
			"environment_names": scList(scString()),
			"network":           scEnum("none", "loopback", "host"),
			"terminal":          scOutAll(scM{"columns": scCount(), "rows": scCount()}),
			"started_at":        scTimeOut(),
			"completed_at":      scTimeOut(),
			"duration_ms":       scCount(),
			"exit": scOutAll(scM{
				"code":   scNullable(scM{"type": "integer"}),
				"signal": scNullable(scString()),
				"reason": scEnum("exited", "timeout", "idle_timeout", "output_limit"),
			}),
			"output": scOutAll(scM{
				"bytes": scCount(), "sha256": scHex64(), "text": scString(),
				"rendered": scList(scString()), "truncated": scBool(),
			}),
			"steps": scList(scOutAll(scM{
				"index": scCount(), "type": scEnum("write", "wait_output", "sleep", "close_stdin", "signal"),
				"outcome": scEnum("done", "timed_out", "target_exited", "skipped"), "at_ms": scCount(),
			})),
			"processes": scList(scOutAll(scM{
				"pid": scCount(), "parent_pid": scCount(), "process_group_id": scCount(), "command": scString(),
			})),
			"cleanup": scOutAll(scM{
				"process_group": scEnum("already_empty", "terminated"), "verified": scConst(true),
			}),
			"limitations": scList(scString()),
		}),
	}
}

func catCompareArtifacts() Spec {
	return Spec{
		Name:        "compare_artifacts",
		Title:       "Compare artifacts",
		Description: "Compare two inventory_artifact results (Evidence ids) path by path." + catSampleText,
		Kind:        "session",
		Effects:     catEffects("I"),
		Evidence:    true,
		Input: scIn(scPageIn(scM{
			"left_evidence_ids":  scEvidenceIDsIn(1, 100, ""),
			"right_evidence_ids": scEvidenceIDsIn(1, 100, ""),
		}, 500, 100), "left_evidence_ids", "right_evidence_ids"),
		Result: scOutAll(scM{
			"status":            scEnum("unchanged", "changed", "truncated", "unknown", "contradiction"),
			"left_manifest_id":  scPat(scPatManifestID),
			"right_manifest_id": scPat(scPatManifestID),
			"summary": scOutAll(scM{
				"unchanged": scCount(), "added": scCount(), "removed": scCount(), "changed": scCount(),
				"unknown": scCount(), "contradiction": scCount(),
			}),
			"changes": scPageOf(scOutAll(scM{
				"classification": scEnum("added", "removed", "changed", "unknown", "contradiction"),
				"logical_path":   scString(),
				"dimensions": scList(scEnum("content", "kind", "format", "size", "executable", "relations",
					"metadata", "integrity", "availability")),
				"left_occurrence_id":  scNullable(scPat(scPatOccurrence)),
				"right_occurrence_id": scNullable(scPat(scPatOccurrence)),
				"left_artifact_id":    scNullable(scPat(scPatArtifactID)),
				"right_artifact_id":   scNullable(scPat(scPatArtifactID)),
				"evidence_links":      scList(scEvIDOut()),
			})),
			"limitations": scList(scString()),
		}),
	}
}
