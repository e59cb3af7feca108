package tools

import "github.com/rea-re/rea/tools/catalog"

// Composed tools (kind composed, CONTRACTS.md §2.3): several provider
// operations answered as one derived Evidence record.

func catComposedTools() []func() catalog.Spec {
	return []func() catalog.Spec{catBinaryOverview, catGetCallGraph, catCompareBinaries}
}

func catBinaryOverview() catalog.Spec {
	return catalog.Spec{
		Name:        "binary_overview",
		Title:       "Binary overview",
		Description: "Summarize the executable: segments and exact counts; call it first." + catalog.SampleText,
		Kind:        "composed",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.M{
			"detail": catalog.D(catalog.Def(catalog.Enum("concise", "detailed"), "concise"), "detailed adds segment lengths and the triage section."),
			"limit":  catalog.D(catalog.Def(catalog.Int(1, 50), int64(10)), "Segments listed."),
		}),
		Result: catalog.Out(catalog.M{
			"document": catalog.String(),
			"detail":   catalog.Enum("concise", "detailed"),
			"segments": catalog.List(catalog.Out(catalog.M{
				"name": catalog.String(), "start": catalog.AddrOut(), "end": catalog.AddrOut(), "length": catalog.Count(),
			}, "name", "start", "end")),
			"segment_count":   catalog.Count(),
			"procedure_count": catalog.Count(),
			"string_count":    catalog.Count(),
			"main":            catalog.Nullable(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String(), "source": catalog.String()})),
			"stripped":        catalog.Bool(),
			"triage":          catTriage(),
		}, "document", "detail", "segments", "segment_count", "procedure_count", "string_count", "main"),
		RequiredOperations: []string{"list_documents", "list_procedures", "list_segments", "list_strings"},
	}
}

func catGetCallGraph() catalog.Spec {
	node := catalog.M{"oneOf": []any{
		catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.Nullable(catalog.String()), "depth": catalog.Count(), "status": catalog.Const("ok"),
			"calls": catalog.List(catAddressItem())}),
		catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.Nullable(catalog.String()), "depth": catalog.Count(), "status": catalog.Const("error"),
			"error": catalog.ErrorEnvelope()}),
	}}
	return catalog.Spec{
		Name:        "get_call_graph",
		Title:       "Get call graph",
		Description: "Walk direct calls breadth-first from a procedure, to callees or callers." + catalog.SampleText,
		Kind:        "composed",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.M{
			"address":   catalog.AddrIn(""),
			"direction": catalog.Def(catalog.Enum("forward", "backward"), "forward"),
			"depth":     catalog.Def(catalog.Int(1, 5), int64(2)),
			"max_nodes": catalog.Def(catalog.Int(1, 1000), int64(200)),
		}, "address"),
		Result: catalog.OutAll(catalog.M{
			"root":      catalog.AddrOut(),
			"direction": catalog.Enum("forward", "backward"),
			"depth":     catalog.Count(),
			"nodes":     catalog.List(node),
			"truncated": catalog.Bool(),
		}),
		ResultDepth:        2, // nodes are the answer
		RequiredOperations: []string{"address_name", "procedure_callees", "procedure_callers"},
	}
}

// catCompareBinaries is §16.1. It names its two targets itself, so it takes
// no target argument.
func catCompareBinaries() catalog.Spec {
	status := []string{"unchanged", "changed", "added", "removed", "unknown"}
	ref := catalog.Nullable(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String()}))
	side := catalog.OutAll(catalog.M{"target_id": catalog.String(), "sha256": catalog.Hex64(), "analysis_profile_digest": catalog.Hex64()})
	return catalog.Spec{
		Name:        "compare_binaries",
		Title:       "Compare binaries",
		Description: "Match two open executables' procedures and page what changed." + catalog.SampleText,
		Kind:        "composed",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.PageIn(catalog.M{
			"left_target":    catalog.String(),
			"right_target":   catalog.String(),
			"status":         catalog.List(catalog.Enum(status...)),
			"name_pattern":   catalog.Str(1, 256),
			"max_procedures": catalog.Def(catalog.Int(1, 1000000), int64(200000)),
		}, 500, 100), "left_target", "right_target"),
		Result: catalog.OutAll(catalog.M{
			"left": side, "right": side,
			"summary": catalog.OutAll(catalog.M{"unchanged": catalog.Count(), "changed": catalog.Count(), "added": catalog.Count(), "removed": catalog.Count(),
				"unknown": catalog.Count(), "matched_by": catalog.OutAll(catalog.M{"name": catalog.Count(), "structure": catalog.Count(), "call_graph": catalog.Count()})}),
			"procedures": catalog.PageOf(catalog.OutAll(catalog.M{
				"status": catalog.Enum(status...), "match": catalog.Nullable(catalog.Enum("name", "structure", "call_graph")),
				"left": ref, "right": ref, "similarity": catalog.Nullable(catalog.M{"type": "number"}), "changed_blocks": catalog.Nullable(catalog.Count()),
			})),
			"comparison_id": catalog.String(),
			"limitations":   catalog.List(catalog.String()),
		}),
		RequiredOperations: []string{"list_procedures", "read_function_instructions"},
	}
}

// catTriage describes binary_overview's triage section (§18) compactly:
// five objects of facts, each fact {value, source} or an object carrying
// source; or unavailable with a reason.
func catTriage() catalog.M {
	part := catalog.M{"type": "object"}
	return catalog.M{"type": "object", "properties": catalog.M{"identity": part, "toolchain": part, "hardening": part,
		"loading": part, "anomalies": part, "unavailable": catalog.Out(catalog.M{"reason": catalog.String()}, "reason")}}
}
