package tools

// Composed tools (kind composed, CONTRACTS.md §2.3): several provider
// operations answered as one derived Evidence record.

func catComposedTools() []func() Spec {
	return []func() Spec{catBinaryOverview, catGetCallGraph, catCompareBinaries}
}

func catBinaryOverview() Spec {
	return Spec{
		Name:        "binary_overview",
		Title:       "Binary overview",
		Description: "Summarize the executable: segments and exact counts; call it first." + catSampleText,
		Kind:        "composed",
		Effects:     catEffects("I"),
		Evidence:    true,
		Input: scIn(scM{
			"detail": scD(scDef(scEnum("concise", "detailed"), "concise"), "detailed adds segment lengths and the triage section."),
			"limit":  scD(scDef(scInt(1, 50), int64(10)), "Segments listed."),
		}),
		Result: scOut(scM{
			"document": scString(),
			"detail":   scEnum("concise", "detailed"),
			"segments": scList(scOut(scM{
				"name": scString(), "start": scAddrOut(), "end": scAddrOut(), "length": scCount(),
			}, "name", "start", "end")),
			"segment_count":   scCount(),
			"procedure_count": scCount(),
			"string_count":    scCount(),
			"main":            scNullable(scOutAll(scM{"address": scAddrOut(), "name": scString(), "source": scString()})),
			"stripped":        scBool(),
			"triage":          catTriage(),
		}, "document", "detail", "segments", "segment_count", "procedure_count", "string_count", "main"),
		RequiredOperations: []string{"list_documents", "list_procedures", "list_segments", "list_strings"},
	}
}

func catGetCallGraph() Spec {
	node := scM{"oneOf": []any{
		scOutAll(scM{"address": scAddrOut(), "name": scNullable(scString()), "depth": scCount(), "status": scConst("ok"),
			"calls": scList(catAddressItem())}),
		scOutAll(scM{"address": scAddrOut(), "name": scNullable(scString()), "depth": scCount(), "status": scConst("error"),
			"error": scErrorEnvelope()}),
	}}
	return Spec{
		Name:        "get_call_graph",
		Title:       "Get call graph",
		Description: "Walk direct calls breadth-first from a procedure, to callees or callers." + catSampleText,
		Kind:        "composed",
		Effects:     catEffects("I"),
		Evidence:    true,
		Input: scIn(scM{
			"address":   scAddrIn(""),
			"direction": scDef(scEnum("forward", "backward"), "forward"),
			"depth":     scDef(scInt(1, 5), int64(2)),
			"max_nodes": scDef(scInt(1, 1000), int64(200)),
		}, "address"),
		Result: scOutAll(scM{
			"root":      scAddrOut(),
			"direction": scEnum("forward", "backward"),
			"depth":     scCount(),
			"nodes":     scList(node),
			"truncated": scBool(),
		}),
		resultDepth:        2, // nodes are the answer
		RequiredOperations: []string{"address_name", "procedure_callees", "procedure_callers"},
	}
}

// catCompareBinaries is §16.1. It names its two targets itself, so it takes
// no target argument.
func catCompareBinaries() Spec {
	status := []string{"unchanged", "changed", "added", "removed", "unknown"}
	ref := scNullable(scOutAll(scM{"address": scAddrOut(), "name": scString()}))
	side := scOutAll(scM{"target_id": scString(), "sha256": scHex64(), "analysis_profile_digest": scHex64()})
	return Spec{
		Name:        "compare_binaries",
		Title:       "Compare binaries",
		Description: "Match two open executables' procedures and page what changed." + catSampleText,
		Kind:        "composed",
		Effects:     catEffects("I"),
		Evidence:    true,
		Input: scIn(scPageIn(scM{
			"left_target":    scString(),
			"right_target":   scString(),
			"status":         scList(scEnum(status...)),
			"name_pattern":   scStr(1, 256),
			"max_procedures": scDef(scInt(1, 1000000), int64(200000)),
		}, 500, 100), "left_target", "right_target"),
		Result: scOutAll(scM{
			"left": side, "right": side,
			"summary": scOutAll(scM{"unchanged": scCount(), "changed": scCount(), "added": scCount(), "removed": scCount(),
				"unknown": scCount(), "matched_by": scOutAll(scM{"name": scCount(), "structure": scCount(), "call_graph": scCount()})}),
			"procedures": scPageOf(scOutAll(scM{
				"status": scEnum(status...), "match": scNullable(scEnum("name", "structure", "call_graph")),
				"left": ref, "right": ref, "similarity": scNullable(scM{"type": "number"}), "changed_blocks": scNullable(scCount()),
			})),
			"comparison_id": scString(),
			"limitations":   scList(scString()),
		}),
		RequiredOperations: []string{"list_procedures", "read_function_instructions"},
	}
}

// catTriage describes binary_overview's triage section (§18) compactly:
// five objects of facts, each fact {value, source} or an object carrying
// source; or unavailable with a reason.
func catTriage() scM {
	part := scM{"type": "object"}
	return scM{"type": "object", "properties": scM{"identity": part, "toolchain": part, "hardening": part,
		"loading": part, "anomalies": part, "unavailable": scOut(scM{"reason": scString()}, "reason")}}
}
