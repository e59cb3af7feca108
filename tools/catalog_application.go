package tools

// Application analysis (kind application, CONTRACTS.md §2.5, §11):
// target-free, reads a local directory or ASAR archive directly.

func catApplicationTools() []func() Spec {
	return []func() Spec{catAnalyzeJavaScriptApplication}
}

func catAnalyzeJavaScriptApplication() Spec {
	limits := scIn(scM{
		"max_entries":              scDef(scInt(1, 1000000), int64(8000)),
		"max_total_artifact_bytes": scDef(scInt(0, scMaxInt), int64(536870912)),
		"max_artifact_entry_bytes": scDef(scInt(0, scMaxInt), int64(134217728)),
		"max_depth":                scDef(scInt(0, 100), int64(64)),
		"max_path_bytes":           scDef(scInt(1, 65535), int64(4096)),
		"max_text_files":           scDef(scInt(1, 100000), int64(5000)),
		"max_total_text_bytes":     scDef(scInt(0, 536870912), int64(134217728)),
		"max_text_file_bytes":      scDef(scInt(0, 67108864), int64(8388608)),
		"max_ast_nodes":            scDef(scInt(0, 20000000), int64(2000000)),
		"max_findings":             scDef(scInt(1, 100000), int64(8000)),
		"max_parse_milliseconds":   scDef(scInt(1, 600000), int64(30000)),
	})

	site := func(extra scM) scM {
		return scOutAll(scMerge(scM{"file": scString(), "line": scCount()}, extra))
	}
	flag := func() scM {
		return scM{"oneOf": []any{scBool(), scEnum("dynamic", "absent")}}
	}
	electronLists := scM{
		"browser_windows": scList(scOutAll(scM{
			"file": scString(), "line": scCount(), "column": scCount(),
			"web_preferences": scOutAll(scM{
				"nodeIntegration": flag(), "contextIsolation": flag(), "sandbox": flag(), "webviewTag": flag(),
			}),
			"preload": scNullable(scString()),
		})),
		"preload_entrypoints": scList(scOutAll(scM{
			"path": scString(), "resolved": scBool(),
			"referenced_from": scList(site(scM{})),
		})),
		"context_bridge": scList(site(scM{
			"api_key": scNullable(scString()), "members": scList(scString()), "dynamic": scBool(),
		})),
		"utility_processes": scList(site(scM{"entrypoint": scNullable(scString()), "resolved": scBool()})),
		"native_addons":     scList(scOutAll(scM{"path": scString()})),
	}
	ipc := scOutAll(scM{
		"main_handlers": scList(site(scM{"channel": scString(),
			"method": scEnum("handle", "handleOnce", "on", "once")})),
		"renderer_transmissions": scList(site(scM{"channel": scString(),
			"method": scEnum("invoke", "send", "sendSync")})),
		"renderer_listeners":         scList(site(scM{"channel": scString(), "method": scEnum("on", "once")})),
		"dynamic_channel_operations": scList(site(scM{"method": scString()})),
		"pairing": scList(scOutAll(scM{
			"channel": scString(), "status": scEnum("paired", "ambiguous", "unpaired"),
			"transmissions": scCount(), "handlers": scCount(),
		})),
	})
	electron := scOutAll(scMerge(scDeepCopy(electronLists), scM{"ipc": ipc}))

	counts := func(names ...string) scM {
		p := scM{}
		for _, n := range names {
			p[n] = scCount()
		}
		return scOutAll(p)
	}
	summary := counts("browser_windows", "explicit_web_preferences", "preload_entrypoints", "context_bridge_apis",
		"exposed_api_members", "ipc_literal_channels", "main_handlers", "renderer_transmissions",
		"renderer_listeners", "dynamic_channel_operations", "paired", "ambiguous", "unpaired",
		"utility_processes", "native_addons")
	statistics := counts("entries", "relevant_files", "text_files_selected", "text_bytes_read",
		"omitted_text_files", "policy_filtered_text_files", "invalid_utf8_files", "parsed_javascript_files", "scanned_javascript_files",
		"visited_ast_nodes", "findings", "parse_failures")
	// truncated_scopes names the budgets that stopped the analysis (§11.3).
	statistics["properties"].(scM)["truncated_scopes"] = scList(scString())
	statistics = scOutAll(statistics["properties"].(scM))

	common := scM{
		"schema_version":        scConst(int64(1)),
		"input_path":            scString(),
		"format":                scEnum("asar", "directory"),
		"root_sha256":           scHex64(),
		"inventory_manifest_id": scPat(scPatManifestID),
		"package": scOutAll(scM{
			"name": scNullable(scString()), "version": scNullable(scString()),
			"main": scNullable(scString()), "main_resolved": scNullable(scString()),
		}),
		"summary":     summary,
		"statistics":  statistics,
		"limitations": scList(scString()),
	}
	required := make([]string, 0, len(common))
	for k := range common {
		required = append(required, k)
	}
	top := scM{}
	for k, v := range electronLists {
		lst := scDeepCopy(v.(scM))
		lst["maxItems"] = int64(20)
		top[k] = lst
	}
	topIPC := scM{}
	for k, v := range ipc["properties"].(scM) {
		lst := scDeepCopy(v.(scM))
		lst["maxItems"] = int64(20)
		topIPC[k] = lst
	}
	top["ipc"] = scOut(topIPC)
	// One object for both details: "summary" carries top, "full" electron.
	result := scOut(scMerge(common, scM{"top": scOut(top), "electron": electron}), required...)

	return Spec{
		Name:        "analyze_javascript_application",
		Title:       "Analyze JavaScript application",
		Description: "Statically analyze an Electron app directory or ASAR: windows, preloads, bridges, IPC." + catSampleText,
		Kind:        "application",
		Effects:     catEffects("I"),
		Evidence:    true,
		Input: scIn(scM{
			"input_path": scAbsPathIn(16384, ""),
			"format":     scDef(scEnum("auto", "asar", "directory"), "auto"),
			"detail": scD(scDef(scEnum("summary", "full"), "summary"),
				"summary: counts and 20 items per list."),
			"limits": scDef(limits, scM{}),
		}, "input_path"),
		Result:             result,
		RequiredOperations: nil,
	}
}
