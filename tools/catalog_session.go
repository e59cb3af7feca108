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
		Name:  "open_binary",
		Title: "Open binary",
		Description: "Open a file or directory as this connection's target: hash it, detect its format by content " +
			"(ELF, PE, Mach-O, zip/apk/ipa/msix/appx, ASAR, directory) and bind one analysis provider for " +
			"executables. Returns the real path, format, kind, sha256, size, architecture, the new run_id and the " +
			"provider binding (null when the target opened unbound, e.g. archives and directories). " +
			"provider_id picks a provider (see binary_session detail:\"full\" analysis_provider_candidates); " +
			"\"auto\" binds the single usable candidate. Reopening the same bytes without provider_id is a no-op. " +
			"Replaces any open target.",
		Kind:    "session",
		Effects: catEffects("S P I"),
		Input: scIn(scM{
			"path": scAbsPathIn(4096, "File or directory to open."),
			"provider_id": scD(scM{"type": "string", "minLength": int64(1), "maxLength": int64(64), "pattern": scPatProvider},
				"Provider id (lowercase letters, digits, '-') or \"auto\". Default: REA_ANALYSIS_PROVIDER, else auto."),
		}, "path"),
		Result: scOutAll(scM{
			"path":         scD(scString(), "Canonical real path."),
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
		Name:  "close_binary",
		Title: "Close binary",
		Description: "Close this connection's target and stop its provider client. Returns closed:false when " +
			"nothing was open. Evidence and annotations stay in the ledger.",
		Kind:    "session",
		Effects: catEffects("S I"),
		Input:   scIn(scM{}),
		Result:  scOutAll(scM{"closed": scBool(), "run_id": scNullable(scUUIDOut())}),
	}
}

func catBinarySession() Spec {
	summary := scOutAll(scM{
		"view":                scConst("summary"),
		"open":                scBool(),
		"target":              scNullable(scTargetOut()),
		"active_provider":     scNullable(scProviderIdentity()),
		"alignment":           scAlignment(),
		"analysis_activity":   scActivity(),
		"recommended_actions": scList(scString()),
	})
	capabilities := scOutAll(scM{
		"view":              scConst("capabilities"),
		"open":              scBool(),
		"active_provider":   scNullable(scProviderIdentity()),
		"capability_family": scNullable(scEnum(scToolKinds...)),
		"capabilities": scOutAll(scM{
			"items":       scList(scToolAvailability()),
			"cursor":      scCount(),
			"limit":       scCount(),
			"total":       scCount(),
			"next_cursor": scNullable(scCount()),
			"has_more":    scBool(),
		}),
		"client_features": scClientFeaturesOut(),
	})
	full := scOutAll(scM{
		"view":                         scConst("full"),
		"open":                         scBool(),
		"target":                       scNullable(scTargetOut()),
		"providers":                    scList(scProviderIdentity()),
		"capabilities":                 scList(scCapability()),
		"analysis_provider_binding":    scNullable(scBinding()),
		"analysis_provider_candidates": scList(scCandidate()),
		"analysis_run":                 scNullable(scRun()),
		"analysis_activity":            scActivity(),
		"tool_availability":            scList(scToolAvailability()),
		"client_features":              scClientFeaturesOut(),
		"server_identity":              scServerIdentity(),
	})
	return Spec{
		Name:  "binary_session",
		Title: "Binary session",
		Description: "Describe this connection without starting any analysis. detail:\"summary\" (default): open " +
			"target, active provider, identity alignment, provider activity and recommended next actions. " +
			"detail:\"capabilities\": which of the 42 tools are callable now and why not (cursor-paged, filter " +
			"with capability_family). detail:\"full\": providers and candidates, the binding and analysis profile, " +
			"the run and process lineage, tool availability and server identity. Supply expected_* values to " +
			"check whether the running server matches the registered one.",
		Kind:    "session",
		Effects: catEffects("I"),
		Input: scIn(scM{
			"detail": scD(scDef(scEnum("summary", "capabilities", "full"), "summary"), "View to return."),
			"capability_family": scD(scEnum(scToolKinds...),
				"capabilities view only: keep tools of this kind."),
			"cursor": scD(scDef(scInt(0, scMaxInt), int64(0)),
				"capabilities view only: index of the first tool; use next_cursor."),
			"limit": scD(scDef(scInt(1, 100), int64(25)), "capabilities view only: page size."),
			"expected_package_version": scD(scStr(1, 128),
				"Package version the client expects; a mismatch reports mcp_server_restart_required."),
			"expected_catalog_digest": scD(scPat(scPatHex64),
				"Expected catalog.digests.combined_sha256 (64 lowercase hex)."),
			"expected_server_path": scD(scStr(1, 4096),
				"Expected server executable path, compared after resolving symlinks."),
		}),
		Result: scD(scM{"oneOf": []any{summary, capabilities, full}}, "One view, discriminated by view."),
	}
}

func catGetEvidenceBundle() Spec {
	return Spec{
		Name:  "get_evidence_bundle",
		Title: "Get Evidence bundle",
		Description: "Return a canonical Evidence bundle (full records, bundle_digest over its JCS bytes). " +
			"scope \"connection\" (default): records published or imported on this connection; \"ledger\": every " +
			"record in the ledger. evidence_ids selects exactly those records (each must be in scope); run_id " +
			"keeps records of that analysis run; filters intersect. More than 10,000 records or 64 MiB fails " +
			"with truncated: narrow by ids or run.",
		Kind:    "session",
		Effects: catEffects("I"),
		Input: scIn(scM{
			"evidence_ids": scEvidenceIDsIn(1, 10000, "Evidence ids (ev_ + 64 hex) to include."),
			"run_id":       scD(scPat(scPatUUID), "Keep only records recorded in this run (lowercase UUID)."),
			"scope":        scD(scDef(scEnum("connection", "ledger"), "connection"), "Which records are searched."),
		}),
		Result: scOutAll(scM{
			"scope":         scEnum("connection", "ledger"),
			"bundle_digest": scHex64(),
			"bytes":         scCount(),
			"record_count":  scCount(),
			"bundle":        scBundle(),
		}),
	}
}

func catExportEvidenceBundle() Spec {
	return Spec{
		Name:  "export_evidence_bundle",
		Title: "Export Evidence bundle",
		Description: "Write this connection's Evidence bundle (canonical JSON) to a file inside an approved " +
			"Evidence root (REA_EVIDENCE_ROOTS_JSON). An existing file is replaced only with overwrite:true. " +
			"Returns the canonical path, bytes, record count and bundle_digest.",
		Kind:    "session",
		Effects: catEffects("W D"),
		Input: scIn(scM{
			"path":      scAbsPathIn(4096, "Destination file."),
			"overwrite": scD(scDef(scBool(), false), "Replace an existing regular file."),
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
		Name:  "import_evidence_bundle",
		Title: "Import Evidence bundle",
		Description: "Verify a canonical Evidence bundle file inside an approved Evidence root and merge its " +
			"records into the ledger and this connection's scope, atomically: every id is re-verified and any " +
			"violation imports nothing. Returns imported, duplicates, total and bundle_digest.",
		Kind:    "session",
		Effects: catEffects("S I"),
		Input: scIn(scM{
			"path": scAbsPathIn(4096, "Bundle file to import."),
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
		Name:  "get_navigation_context",
		Title: "Get navigation context",
		Description: "Return where the analyst is: document, cursor address and the procedure containing it " +
			"(null outside procedures). With document, uses that document (explicit_document mode); without, the " +
			"current document (current_selection mode). Sequential observations, not Evidence.",
		Kind:    "session",
		Effects: catEffects("I"),
		Input:   scIn(scM{"document": scDocIn()}),
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
	facet := func(value scM) scM {
		return scM{"oneOf": []any{
			scOutAll(scM{"state": scConst("available"), "value": value}),
			scOutAll(scM{"state": scConst("unavailable"), "reason": scEnum(scErrorCodes...), "remediation": scStr(1, -1)}),
		}}
	}
	return Spec{
		Name:  "inspect_address_context",
		Title: "Inspect address context",
		Description: "Gather everything known at one address in one call: name, containing procedure, comment, " +
			"inline comment and bookmarks. Each facet is available with a value, or unavailable with an error " +
			"code and remediation, without failing the others. Values are bounded (strings 4096 chars, 1000 " +
			"bookmarks). Not Evidence; call the scalar getters for Evidence.",
		Kind:    "session",
		Effects: catEffects("I"),
		Input: scIn(scM{
			"address":  scAddrIn("Address to inspect."),
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
		"data":      scD(scStr(0, 65536), "Bytes to write to the terminal (UTF-8)."),
		"sensitive": scD(scDef(scBool(), false), "Redact data in the Evidence parameters."),
	}, "type", "data")
	stepWait := scIn(scM{
		"type":       scConst("wait_output"),
		"literal":    scD(scStr(1, 10000), "Text to wait for in the output."),
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
		Description: "Run an executable under a pseudo-terminal in its own process group, drive it with scripted " +
			"stdin steps (write, wait_output, sleep, close_stdin, signal) and record the transcript as Evidence: " +
			"exit status, raw output with sha256, the rendered final screen, step outcomes, observed processes and " +
			"verified cleanup. Needs a process_capture grant (elicited when the client supports forms). " +
			"network \"none\"/\"loopback\" isolate the process in a network namespace. The child environment is " +
			"only the named variables (values from REA's environment) plus TERM and REA_PROCESS_RUN_ID.",
		Kind:     "session",
		Effects:  catEffects("S W P N D"),
		Evidence: true,
		Input: scIn(scM{
			"executable": scAbsPathIn(4096, "Program to run."),
			"arguments": scD(scDef(scArr(scStr(0, 4096), 0, 256), []any{}),
				"Arguments after the program name."),
			"working_directory": scAbsPathIn(4096, "Working directory of the process."),
			"environment_names": scD(scDef(scArr(envName, 0, 64), []any{}),
				"Names of REA environment variables to pass through (TERM and REA_PROCESS_RUN_ID are set by REA)."),
			"stdin_steps": scD(scDef(scArr(step, 0, 1000), []any{}), "Steps run in order."),
			"terminal": scD(scDef(scIn(scM{
				"columns": scDef(scInt(1, 1000), int64(80)),
				"rows":    scDef(scInt(1, 1000), int64(24)),
			}), scM{}), "Terminal size."),
			"timeout_ms":       scD(scDef(scInt(1, 300000), int64(30000)), "Wall-clock bound of the run."),
			"idle_timeout_ms":  scD(scDef(scInt(1, 300000), int64(30000)), "Bound on output silence."),
			"max_output_bytes": scD(scDef(scInt(1, 10000000), int64(1000000)), "Output bound; the run ends when reached."),
			"network":          scD(scDef(scEnum("none", "loopback", "host"), "none"), "Network access of the process."),
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
		Name:  "compare_artifacts",
		Title: "Compare artifacts",
		Description: "Compare two inventories given as inventory_artifact Evidence ids (all pages of one manifest " +
			"per side) and classify every logical path: added, removed, changed (with dimensions), unknown or " +
			"contradiction (integrity). Unchanged paths are only counted. Overall status: truncated (a side is " +
			"incomplete) > contradiction > unknown > changed > unchanged. Changes are paged (offset/limit). " +
			"Records derived Evidence linking the inputs.",
		Kind:     "session",
		Effects:  catEffects("I"),
		Evidence: true,
		Input: scIn(scPageIn(scM{
			"left_evidence_ids":  scEvidenceIDsIn(1, 100, "inventory_artifact Evidence ids of the left side."),
			"right_evidence_ids": scEvidenceIDsIn(1, 100, "inventory_artifact Evidence ids of the right side."),
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
