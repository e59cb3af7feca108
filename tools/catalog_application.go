package tools

import "github.com/rea-re/rea/tools/catalog"

// Application analysis (kind application, CONTRACTS.md §2.5, §11):
// target-free, reads a local directory or ASAR archive directly.

func catApplicationTools() []func() catalog.Spec {
	return []func() catalog.Spec{catAnalyzeJavaScriptApplication}
}

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
