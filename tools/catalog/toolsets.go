package catalog

// Toolsets (CONTRACTS.md §0, §4): named parts of the catalog a process
// serves. `rea mcp --toolsets triage,navigate` (or REA_TOOLSETS; the flag
// wins) serves only those, process-wide; unset serves all. Every tool is in
// exactly one toolset:
//
//	triage          open_binary, close_binary, binary_session, binary_overview, list_documents,
//	                list_procedures, list_names, list_strings, list_segments, list_bookmarks,
//	                search_procedures, search_strings, get_evidence_bundle
//	navigate        procedure_info, procedure_assembly, read_function_instructions,
//	                procedure_callers, procedure_callees, xrefs, get_call_graph,
//	                get_navigation_context, inspect_address_context, current_document,
//	                current_address, goto_address, address_name, procedure_address,
//	                resolve_containing_procedure, list_dependencies, resolve_import,
//	                compare_binaries, read_bytes, search_bytes, procedure_calls,
//	                procedure_pseudo_code, search_pseudo_code
//	annotate        comment, inline_comment, set_comment, set_inline_comment, set_bookmark,
//	                unset_bookmark, set_address_name
//	artifacts       inventory_artifact, extract_artifact, compare_artifacts
//	javascript      analyze_javascript_application
//	capture         capture_process_scenario
//	evidence_files  export_evidence_bundle, import_evidence_bundle
//
// open_binary, close_binary and binary_session are served whatever the
// toolsets, so a client can always open a target and learn why a tool is
// missing. A tool outside the served toolsets is not registered at all: it is
// absent from tools/list in every era, a tools/call of it is JSON-RPC "tool
// not found" in every era (2026-07-28 included: a modern client cannot call
// what the stable list never showed), and binary_session reports it with
// reason not_in_toolset.

import (
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/fault"
)

// ToolsetsEnv is the environment variable that names the toolsets when
// --toolsets is not given.
const ToolsetsEnv = "REA_TOOLSETS"

// Toolset is one named part of the catalog.
type Toolset struct {
	Name  string
	Tools []string
}

// ToolsetMembers is the table above, in its order.
func ToolsetMembers() []Toolset {
	return []Toolset{
		{"triage", []string{"open_binary", "close_binary", "binary_session", "binary_overview", "list_documents",
			"list_procedures", "list_names", "list_strings", "list_segments", "list_bookmarks", "search_procedures",
			"search_strings", "get_evidence_bundle"}},
		{"navigate", []string{"procedure_info", "procedure_assembly", "read_function_instructions", "procedure_callers",
			"procedure_callees", "procedure_calls", "procedure_references", "procedure_pseudo_code", "search_pseudo_code", "xrefs", "get_call_graph", "get_navigation_context", "inspect_address_context",
			"current_document", "current_address", "goto_address", "address_name", "procedure_address",
			"resolve_containing_procedure", "list_dependencies", "resolve_import", "compare_binaries", "read_bytes",
			"search_bytes"}},
		{"annotate", []string{"comment", "inline_comment", "set_comment", "set_inline_comment", "set_bookmark",
			"unset_bookmark", "set_address_name"}},
		{"artifacts", []string{"inventory_artifact", "extract_artifact", "compare_artifacts"}},
		{"javascript", []string{"analyze_javascript_application"}},
		{"capture", []string{"capture_process_scenario"}},
		{"evidence_files", []string{"export_evidence_bundle", "import_evidence_bundle"}},
	}
}

// ToolsetNames are the toolsets, in the documented order.
func ToolsetNames() []string {
	var out []string
	for _, m := range ToolsetMembers() {
		out = append(out, m.Name)
	}
	return out
}

// ToolsetOf names the toolset a tool belongs to ("" for an unknown tool).
func ToolsetOf(tool string) string {
	for _, m := range ToolsetMembers() {
		if slices.Contains(m.Tools, tool) {
			return m.Name
		}
	}
	return ""
}

// catAlwaysServed reports the tools served whatever the toolsets.
func catAlwaysServed(tool string) bool {
	return tool == "open_binary" || tool == "close_binary" || tool == "binary_session"
}

// ParseToolsets parses a comma-separated toolset list (spaces around names
// are ignored) into sorted unique names. An empty list, an empty item or an
// unknown name is configuration_invalid; variable names the environment
// variable the value came from ("" for the flag). The value itself is never
// echoed.
func ParseToolsets(value, variable string) ([]string, error) {
	known := ToolsetNames()
	source := "--toolsets"
	if variable != "" {
		source = variable
	}
	fail := func(reason, message string) error {
		d := map[string]any{"reason": reason}
		if variable != "" {
			d["variable"] = variable
		}
		return fault.New(fault.ConfigurationInvalid, source+" "+message,
			"Name toolsets from: "+strings.Join(known, ", ")+" (comma-separated), or unset it to serve every tool.", d)
	}
	var out []string
	for _, item := range strings.Split(value, ",") {
		name := strings.TrimSpace(item)
		switch {
		case name == "":
			return nil, fail("empty_toolset", "has an empty toolset name.")
		case !slices.Contains(known, name):
			return nil, fail("unknown_toolset", "names an unknown toolset.")
		case !slices.Contains(out, name):
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Enabled reports whether a tool is served under toolsets (nil: all).
func Enabled(tool string, toolsets []string) bool {
	return toolsets == nil || catAlwaysServed(tool) || slices.Contains(toolsets, ToolsetOf(tool))
}

// NotInToolset is the availability remediation of a tool that is not
// served (§3.4 reason not_in_toolset).
func NotInToolset(tool string) string {
	set := ToolsetOf(tool)
	return "Start REA with --toolsets including " + set + " (or " + ToolsetsEnv + "), e.g. `rea mcp --toolsets " + set +
		"`, then restart the registered server or its client."
}
