package tools

import (
	"github.com/rea-re/rea/tools/catalog"
)

// Procedure tools (kind provider, CONTRACTS.md §2.2): what the provider
// knows of a binary's procedures, their code and their calls.

func procedureTools() []tool {
	return []tool{
		{catListProcedures, (*Server).operate},
		{catProcedureAddress, (*Server).operate},
		{catResolveContainingProcedure, (*Server).operate},
		{catProcedureInfo, (*Server).operate},
		{catProcedureAssembly, (*Server).operate},
		{catReadFunctionInstructions, (*Server).operate},
		{catProcedureCallers, (*Server).operate},
		{catProcedureCallees, (*Server).operate},
		{catProcedureCalls, (*Server).operate},
		{catProcedureReferences, (*Server).operate},
		{catXrefs, (*Server).operate},
		{catSearchProcedures, (*Server).operate},
	}
}

func catListProcedures() catalog.Spec {
	return catProvider("list_procedures", "List procedures",
		"List procedures by entry address. named_only: symbol or user names; thunks: import stubs, lone jumps."+catalog.SampleText,
		"I", catalog.In(catalog.PageIn(catalog.M{"document": catalog.DocIn(),
			"named_only":     catalog.Def(catalog.Bool(), false),
			"exclude_thunks": catalog.Def(catalog.Bool(), false),
			"min_length":     catalog.Def(catalog.Int(0, catalog.MaxInt), int64(0)),
		}, 500, 100)),
		catalog.PageOf(catalog.OutAll(catalog.M{
			"address": catalog.AddrOut(),
			"value":   catalog.String(),
			"aliases": catalog.List(catalog.String()),
			"procedure": catalog.OutAll(catalog.M{
				"external": catalog.Bool(), "thunk": catalog.Bool(), "thunk_target": catalog.Nullable(catalog.AddrOut()),
			}),
		})))
}

func catProcedureAddress() catalog.Spec {
	return catProvider("procedure_address", "Procedure address",
		"Resolve a procedure name or address to its entry address.",
		"I", catalog.In(catalog.M{"procedure": catalog.ProcIn(), "document": catalog.DocIn()}, "procedure"), catalog.AddrOut())
}

func catResolveContainingProcedure() catalog.Spec {
	return catProvider("resolve_containing_procedure", "Resolve containing procedure",
		"Find the procedure containing an address, or why none does."+catalog.SampleText,
		"I", catalog.In(catalog.M{"address": catalog.AddrIn(""), "document": catalog.DocIn()}, "address"),
		catalog.M{"oneOf": []any{
			catalog.OutAll(catalog.M{"query_address": catalog.AddrOut(), "found": catalog.Const(true), "procedure": catalog.ProcRef()}),
			catalog.OutAll(catalog.M{
				"query_address": catalog.AddrOut(), "found": catalog.Const(false), "procedure": catalog.M{"type": "null"},
				"reason": catalog.Enum("outside_segments", "not_in_procedure"),
			}),
		}})
}

func catProcedureInfo() catalog.Spec {
	return catProvider("procedure_info", "Procedure info",
		"Describe a procedure: entry, length, blocks, signature, locals, source line."+catalog.SampleText,
		"I", catalog.In(catalog.M{"procedure": catalog.ProcIn(), "document": catalog.DocIn()}, "procedure"),
		catalog.OutAll(catalog.M{
			"name":             catalog.String(),
			"entrypoint":       catalog.AddrOut(),
			"length":           catalog.Count(),
			"basicblock_count": catalog.Count(),
			"signature":        catalog.Nullable(catalog.String()),
			"prototype": catalog.Nullable(catalog.OutAll(catalog.M{
				"return": catalog.Nullable(catalog.OutAll(catalog.M{"type": catalog.String(), "storage": catalog.String()})),
				"params": catalog.List(catalog.OutAll(catalog.M{
					"name": catalog.String(), "type": catalog.String(), "storage": catalog.String(), "source": catProtoSource(),
				})),
				"variadic": catalog.Bool(), "calling_convention": catalog.String(), "source": catProtoSource(),
			})),
			"frame": catalog.Nullable(catalog.OutAll(catalog.M{
				"size": catalog.Nullable(catalog.Count()), "saved_registers": catalog.List(catalog.String()),
			})),
			"locals": catalog.List(catalog.OutAll(catalog.M{
				"description": catalog.String(), "provenance": catalog.String(), "name": catalog.String(),
				"storage": catalog.String(), "size": catalog.Nullable(catalog.Count()), "type": catalog.String(),
			})),
			"classification": catalog.Nullable(catalog.OutAll(catalog.M{
				"external": catalog.Bool(), "thunk": catalog.Bool(), "thunk_target": catalog.Nullable(catalog.AddrOut()),
				"provenance": catalog.String(),
			})),
			"source": catalog.Nullable(catalog.OutAll(catalog.M{"file": catalog.String(), "line": catalog.M{"type": "integer"}})),
		}))
}

func catProtoSource() catalog.M {
	return catalog.Enum("dwarf", "symbol", "prototype_table", "inferred")
}

func catProcedureCalls() catalog.Spec {
	return catProvider("procedure_calls", "Procedure calls",
		"List a procedure's call sites: callee and argument values from data flow."+catalog.SampleText,
		"I", catalog.In(catalog.PageIn(catalog.M{"procedure": catalog.ProcIn(), "document": catalog.DocIn()}, 500, 100), "procedure"),
		catalog.PageOf(catalog.OutAll(catalog.M{
			"address": catalog.AddrOut(),
			"callee": catalog.OutAll(catalog.M{
				"address": catalog.Nullable(catalog.AddrOut()), "name": catalog.Nullable(catalog.String()),
				"kind": catalog.Enum("direct", "import", "indirect", "tail"),
			}),
			"arguments": catalog.List(catalog.OutAll(catalog.M{
				"index": catalog.Count(), "storage": catalog.String(),
				"value": catalog.Out(catalog.M{
					"kind":    catalog.Enum("constant", "string", "address", "symbol", "stack", "expression", "unknown"),
					"text":    catalog.String(),
					"integer": catalog.M{"type": "integer"}, "string": catalog.String(), "address": catalog.AddrOut(),
				}, "kind", "text"),
			})),
			"resolved_targets": catalog.List(catalog.AddrOut()),
		})))
}

func catProcedureReferences() catalog.Spec {
	named := func() catalog.M {
		return catalog.List(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String()}))
	}
	return catProvider("procedure_references", "Procedure references",
		"List the strings, data, imports and procedures a procedure refers to."+catalog.SampleText,
		"I", catalog.In(catalog.M{"procedure": catalog.ProcIn(), "document": catalog.DocIn()}, "procedure"),
		catalog.OutAll(catalog.M{
			"strings": catalog.List(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "value": catalog.String(), "value_truncated": catalog.Bool()})),
			"data": catalog.List(catalog.OutAll(catalog.M{
				"address": catalog.AddrOut(), "name": catalog.Nullable(catalog.String()), "section": catalog.String(),
				"access": catalog.Enum("read", "write", "address"),
			})),
			"imports": named(), "procedures": named(), "truncated": catalog.Bool(),
		}))
}

func catProcedureAssembly() catalog.Spec {
	return catProvider("procedure_assembly", "Procedure assembly",
		"Disassemble a procedure as text, one instruction per line."+catalog.SampleText,
		"I", catalog.In(catalog.M{"procedure": catalog.ProcIn(), "document": catalog.DocIn()}, "procedure"), catalog.String())
}

func catReadFunctionInstructions() catalog.Spec {
	s := catProvider("read_function_instructions", "Read function instructions",
		"Page through a procedure's instructions."+catalog.SampleText,
		"I", catalog.In(catalog.M{
			"procedure": catalog.ProcIn(),
			"offset":    catalog.Def(catalog.Int(0, 100000), int64(0)),
			"limit":     catalog.Def(catalog.Int(1, 500), int64(64)),
			"document":  catalog.DocIn(),
		}, "procedure"),
		catalog.OutAll(catalog.M{
			"procedure": catalog.ProcRef(),
			"instructions": catalog.PageOf(catalog.OutAll(catalog.M{
				"address": catalog.AddrOut(), "bytes": catalog.Pat(catalog.PatHexBytes), "text": catalog.String(),
			})),
			"limitations": catalog.List(catalog.String()),
		}))
	s.ResultDepth = 2 // the instructions page is the answer
	return s
}

func catProcedureCallers() catalog.Spec {
	return catCallEdges("procedure_callers", "Procedure callers", "callers")
}

func catProcedureCallees() catalog.Spec {
	return catCallEdges("procedure_callees", "Procedure callees", "callees")
}

func catXrefs() catalog.Spec {
	return catProvider("xrefs", "Cross-references",
		"List the instructions referencing an address."+catalog.SampleText,
		"I", catalog.In(catalog.PageIn(catalog.M{"document": catalog.DocIn(), "address": catalog.AddrIn(catCursorAddress)}, 1000, 1000)),
		catalog.PageOf(catAddressItem()))
}

func catSearchProcedures() catalog.Spec {
	return catSearch("search_procedures", "Search procedures", "procedure names")
}

func catCallEdges(name, title, what string) catalog.Spec {
	return catProvider(name, title,
		"List the direct "+what+" of a procedure."+catalog.SampleText,
		"I", catalog.In(catalog.PageIn(catalog.M{"procedure": catalog.ProcIn(), "document": catalog.DocIn()}, 1000, 1000), "procedure"),
		catalog.PageOf(catAddressItem()))
}
