package tools

// Composed tools (kind composed, CONTRACTS.md §2.3): several provider
// operations answered as one derived Evidence record.

func catComposedTools() []func() Spec {
	return []func() Spec{catBinaryOverview, catGetCallGraph}
}

func catBinaryOverview() Spec {
	return Spec{
		Name:  "binary_overview",
		Title: "Binary overview",
		Description: "Summarize the open executable in one call: current document, up to limit segments " +
			"(with lengths when detail is \"detailed\") and exact segment, procedure and string counts. Fails " +
			"with truncated rather than report an inexact count. The answer is recorded as derived Evidence " +
			"(returned inline).",
		Kind:     "composed",
		Effects:  catEffects("I"),
		Evidence: true,
		Input: scIn(scM{
			"detail": scD(scDef(scEnum("concise", "detailed"), "concise"), "\"detailed\" adds segment lengths."),
			"limit":  scD(scDef(scInt(1, 50), int64(10)), "Maximum number of segments listed."),
		}),
		Result: scOutAll(scM{
			"document": scString(),
			"detail":   scEnum("concise", "detailed"),
			"segments": scList(scOut(scM{
				"name": scString(), "start": scAddrOut(), "end": scAddrOut(), "length": scCount(),
			}, "name", "start", "end")),
			"segment_count":   scCount(),
			"procedure_count": scCount(),
			"string_count":    scCount(),
		}),
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
		Name:  "get_call_graph",
		Title: "Get call graph",
		Description: "Walk direct call edges breadth-first from a procedure address: forward (callees) or " +
			"backward (callers), up to depth levels and max_nodes nodes. Nodes are ordered by (depth, address) " +
			"and list every edge; a node whose lookup failed carries its error without failing the call; " +
			"truncated:true when max_nodes stopped the expansion. The answer is recorded as derived Evidence " +
			"(returned inline).",
		Kind:     "composed",
		Effects:  catEffects("I"),
		Evidence: true,
		Input: scIn(scM{
			"address":   scAddrIn("Root procedure address."),
			"direction": scD(scDef(scEnum("forward", "backward"), "forward"), "forward = callees, backward = callers."),
			"depth":     scD(scDef(scInt(1, 5), int64(2)), "Levels to expand."),
			"max_nodes": scD(scDef(scInt(1, 1000), int64(200)), "Bound on the number of nodes."),
		}, "address"),
		Result: scOutAll(scM{
			"root":      scAddrOut(),
			"direction": scEnum("forward", "backward"),
			"depth":     scCount(),
			"nodes":     scList(node),
			"truncated": scBool(),
		}),
		RequiredOperations: []string{"address_name", "procedure_callees", "procedure_callers"},
	}
}
