package tools

import (
	"context"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/tools/catalog"
)

// Provider operations (kind provider, CONTRACTS.md §2.2): each needs an open
// executable target and a bound provider that declares the operation, and
// every answer is recorded as Evidence.

// catProvider builds a provider tool spec; the tool requires itself.
func catProvider(name, title, desc, eff string, input, result catalog.M) catalog.Spec {
	return catalog.Spec{
		Name:               name,
		Title:              title,
		Description:        desc,
		Kind:               "provider",
		Effects:            catalog.Effects(eff),
		Evidence:           true,
		Input:              input,
		Result:             result,
		RequiredOperations: []string{name},
	}
}

func providerTools() []tool {
	return []tool{
		{catListDocuments, (*Server).operate},
		{catCurrentDocument, (*Server).operate},
		{catCurrentAddress, (*Server).operate},
		{catGotoAddress, (*Server).operate},
		{catListProcedures, (*Server).operate},
		{catListNames, (*Server).operate},
		{catListStrings, (*Server).operate},
		{catListSegments, (*Server).operate},
		{catAddressName, (*Server).operate},
		{catProcedureAddress, (*Server).operate},
		{catResolveContainingProcedure, (*Server).operate},
		{catProcedureInfo, (*Server).operate},
		{catProcedureAssembly, (*Server).operate},
		{catReadFunctionInstructions, (*Server).operate},
		{catProcedureCallers, (*Server).operate},
		{catProcedureCallees, (*Server).operate},
		{catXrefs, (*Server).operate},
		{catSearchProcedures, (*Server).operate},
		{catSearchStrings, (*Server).operate},
		{catComment, (*Server).operate},
		{catInlineComment, (*Server).operate},
		{catListBookmarks, (*Server).operate},
		{catSetComment, (*Server).operate},
		{catSetInlineComment, (*Server).operate},
		{catSetBookmark, (*Server).operate},
		{catUnsetBookmark, (*Server).operate},
		{catSetAddressName, (*Server).operate},
		{catListDependencies, (*Server).listDependencies},
		{catResolveImport, (*Server).resolveImport},
	}
}

// catCursorAddress describes an address argument that defaults to the
// cursor: nothing, since the server instructions say once that an omitted
// address means the cursor.
const catCursorAddress = ""

func catListDocuments() catalog.Spec {
	return catProvider("list_documents", "List documents",
		"List document names."+catalog.SampleText,
		"I", catalog.In(catalog.M{}), catalog.List(catalog.String()))
}

func catCurrentDocument() catalog.Spec {
	return catProvider("current_document", "Current document",
		"Return the current document name."+catalog.SampleText, "I", catalog.In(catalog.M{}), catalog.String())
}

func catCurrentAddress() catalog.Spec {
	return catProvider("current_address", "Current address",
		"Return the cursor address (the entry point until goto_address).",
		"I", catalog.In(catalog.M{"document": catalog.DocIn()}), catalog.AddrOut())
}

func catGotoAddress() catalog.Spec {
	return catProvider("goto_address", "Go to address",
		"Move the cursor to an address inside a segment.",
		"S I", catalog.In(catalog.M{"address": catalog.AddrIn(""), "document": catalog.DocIn()}, "address"), catalog.AddrOut())
}

func catListProcedures() catalog.Spec {
	return catProvider("list_procedures", "List procedures",
		"List procedures by entry address."+catalog.SampleText,
		"I", catalog.In(catalog.PageIn(catalog.M{"document": catalog.DocIn()}, 500, 100)),
		catalog.PageOf(catalog.OutAll(catalog.M{
			"address": catalog.AddrOut(),
			"value":   catalog.String(),
			"aliases": catalog.List(catalog.String()),
			"procedure": catalog.OutAll(catalog.M{
				"external": catalog.Bool(), "thunk": catalog.Bool(), "thunk_target": catalog.Nullable(catalog.AddrOut()),
			}),
		})))
}

func catListNames() catalog.Spec {
	return catProvider("list_names", "List names",
		"List symbol names by address, or those at one address."+catalog.SampleText,
		"I", catalog.In(catalog.PageIn(catalog.M{"document": catalog.DocIn(), "address": catalog.AddrIn("")}, 500, 100)),
		catalog.PageOf(catalog.OutAll(catalog.M{
			"address": catalog.AddrOut(),
			"value":   catalog.String(),
			"symbol": catalog.OutAll(catalog.M{
				"primary": catalog.Bool(), "dynamic": catalog.Bool(), "external": catalog.Bool(), "type": catalog.String(),
				"source": catalog.Enum("default", "analysis", "imported", "user_defined"),
			}),
		})))
}

func catListStrings() catalog.Spec {
	return catProvider("list_strings", "List strings",
		"List strings by address, or the one at an address."+catalog.SampleText,
		"I", catalog.In(catalog.PageIn(catalog.M{"document": catalog.DocIn(), "address": catalog.AddrIn("")}, 500, 100)),
		catalog.PageOf(catalog.OutAll(catalog.M{
			"address":         catalog.AddrOut(),
			"value":           catalog.Str(0, 1024),
			"value_truncated": catalog.Bool(),
			"string": catalog.OutAll(catalog.M{
				"encoding":    catalog.Enum("ascii", "utf-8", "utf-16le"),
				"termination": catalog.Enum("missing", "present_or_not_required"),
				"byte_length": catalog.Count(),
				"section":     catalog.Nullable(catalog.String()),
			}),
		})))
}

func catListSegments() catalog.Spec {
	perm := func() catalog.M { return catalog.Nullable(catalog.Bool()) }
	return catProvider("list_segments", "List segments",
		"List segments and sections."+catalog.SampleText,
		"I", catalog.In(catalog.M{"document": catalog.DocIn()}),
		catalog.List(catalog.OutAll(catalog.M{
			"name": catalog.String(), "start": catalog.AddrOut(), "end": catalog.AddrOut(),
			"readable": catalog.Bool(), "writable": catalog.Bool(), "executable": perm(),
			"sections": catalog.List(catalog.OutAll(catalog.M{
				"name": catalog.String(), "start": catalog.AddrOut(), "end": catalog.AddrOut(),
				"readable": perm(), "writable": perm(), "executable": perm(),
			})),
		})))
}

// catListDependencies: §15.4. reason says why candidate_path is null
// (not_regular_file, symlink_loop, unreadable, too_large: a path the
// sample names that REA does not read, §0.3);
// imports is the count the format gives per library (decisions, beyond
// §15.4); resolved names the open target that satisfies the dependency.
func catListDependencies() catalog.Spec {
	return catProvider("list_dependencies", "List dependencies",
		"List the libraries the loader would load, in order, and where this host finds each (not via LD_LIBRARY_PATH)."+catalog.SampleText,
		"I", catalog.In(catalog.M{}),
		catalog.List(catalog.OutAll(catalog.M{
			"name":           catalog.String(),
			"kind":           catalog.Enum("needed", "import", "delay_import", "load_dylib", "weak_dylib", "reexport_dylib"),
			"candidate_path": catalog.Nullable(catalog.String()),
			"reason": catalog.Nullable(catalog.Enum("not_found", "not_loadable", "relative_path", "no_host_loader", "api_set",
				"unexpanded_token", "not_regular_file", "symlink_loop", "unreadable", "too_large")),
			"search": catalog.List(catalog.OutAll(catalog.M{"path": catalog.String(), "exists": catalog.Bool(),
				"source": catalog.Enum("rpath", "runpath", "origin", "ld_so_cache", "default", "same_directory", "interpreter")})),
			"imports":  catalog.Nullable(catalog.Count()),
			"resolved": catalog.Nullable(catalog.OutAll(catalog.M{"target_id": catalog.String(), "path": catalog.String()})),
		})))
}

// catResolveImport: §15.4. Exactly one of name and address (enforced by
// the engine; a top-level oneOf is not published, see catalog.Spec.InputUnion).
func catResolveImport() catalog.Spec {
	return catProvider("resolve_import", "Resolve import",
		"Find the open target and procedure defining an import: name (printf@GLIBC_2.2.5, KERNEL32.dll!#12) or stub address."+catalog.SampleText,
		"I", catalog.In(catalog.M{"name": catalog.Str(1, 1024), "address": catalog.AddrIn("")}),
		catalog.OutAll(catalog.M{
			"import": catalog.OutAll(catalog.M{"name": catalog.String(), "version": catalog.Nullable(catalog.String()), "library": catalog.Nullable(catalog.String()),
				"address": catalog.Nullable(catalog.AddrOut())}),
			"resolution": catalog.Nullable(catalog.OutAll(catalog.M{"target_id": catalog.String(), "library_path": catalog.String(),
				"procedure": catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String()})})),
			"reason": catalog.Nullable(catalog.Enum("library_not_open", "symbol_not_exported", "ambiguous", "not_an_import")),
		}))
}

func catAddressName() catalog.Spec {
	return catProvider("address_name", "Address name",
		"Return the name at an address, or null."+catalog.SampleText,
		"I", catalog.In(catalog.M{"document": catalog.DocIn(), "address": catalog.AddrIn(catCursorAddress)}),
		catalog.Nullable(catalog.String()))
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
			"locals":           catalog.List(catalog.OutAll(catalog.M{"description": catalog.String(), "provenance": catalog.String()})),
			"classification": catalog.Nullable(catalog.OutAll(catalog.M{
				"external": catalog.Bool(), "thunk": catalog.Bool(), "thunk_target": catalog.Nullable(catalog.AddrOut()),
				"provenance": catalog.String(),
			})),
			"source": catalog.Nullable(catalog.OutAll(catalog.M{"file": catalog.String(), "line": catalog.M{"type": "integer"}})),
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

func catCallEdges(name, title, what string) catalog.Spec {
	return catProvider(name, title,
		"List the direct "+what+" of a procedure."+catalog.SampleText,
		"I", catalog.In(catalog.PageIn(catalog.M{"procedure": catalog.ProcIn(), "document": catalog.DocIn()}, 1000, 1000), "procedure"),
		catalog.PageOf(catAddressItem()))
}

// catAddressItem is a named address (§0): name null when the address has
// none, procedure null outside every known procedure.
func catAddressItem() catalog.M {
	return catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.Nullable(catalog.String()), "procedure": catalog.Nullable(catalog.ProcRef())})
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

func catSearch(name, title, what string) catalog.Spec {
	return catProvider(name, title,
		"Search "+what+" by substring or RE2 expression."+catalog.SampleText,
		"I", catalog.In(catalog.M{
			"pattern":        catalog.Str(1, 256),
			"mode":           catalog.Def(catalog.Enum("literal", "regex"), "literal"),
			"case_sensitive": catalog.Def(catalog.Bool(), false),
			"offset":         catalog.OffsetIn(""),
			"limit":          catalog.LimitIn(100, 100, ""),
			"document":       catalog.DocIn(),
		}, "pattern"),
		catalog.PageOf(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "value": catalog.String(), "value_truncated": catalog.Bool(),
			"procedure": catalog.Nullable(catalog.ProcRef())})))
}

func catSearchProcedures() catalog.Spec {
	return catSearch("search_procedures", "Search procedures", "procedure names")
}

func catSearchStrings() catalog.Spec { return catSearch("search_strings", "Search strings", "strings") }

func catCommentGetter(name, title, what string) catalog.Spec {
	return catProvider(name, title,
		"Return the "+what+" at an address, or null."+catalog.SampleText,
		"I", catalog.In(catalog.M{"document": catalog.DocIn(), "address": catalog.AddrIn(catCursorAddress)}),
		catalog.Nullable(catalog.String()))
}

func catComment() catalog.Spec { return catCommentGetter("comment", "Comment", "comment") }

func catInlineComment() catalog.Spec {
	return catCommentGetter("inline_comment", "Inline comment", "inline comment")
}

func catListBookmarks() catalog.Spec {
	return catProvider("list_bookmarks", "List bookmarks",
		"List bookmarks by address."+catalog.SampleText,
		"I", catalog.In(catalog.M{"document": catalog.DocIn()}),
		catalog.List(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String()})))
}

// catAnnotationNote: annotations live in the ledger, not in the provider;
// the server instructions say once that every connection on the same bytes
// sees them.
const catAnnotationNote = ""

func catSetComment() catalog.Spec {
	return catProvider("set_comment", "Set comment",
		"Set the comment at an address; \"\" removes it."+catAnnotationNote,
		"T I", catalog.In(catalog.M{
			"address":  catalog.AddrIn(""),
			"comment":  catalog.Str(0, 4096),
			"document": catalog.DocIn(),
		}, "address", "comment"), catalog.Bool())
}

func catSetInlineComment() catalog.Spec {
	return catProvider("set_inline_comment", "Set inline comment",
		"Set the inline comment at an address; \"\" removes it."+catAnnotationNote,
		"T I", catalog.In(catalog.M{
			"address":  catalog.AddrIn(""),
			"comment":  catalog.Str(0, 4096),
			"document": catalog.DocIn(),
		}, "address", "comment"), catalog.Bool())
}

func catSetBookmark() catalog.Spec {
	return catProvider("set_bookmark", "Set bookmark",
		"Bookmark an address, replacing one there."+catAnnotationNote,
		"T I", catalog.In(catalog.M{
			"address":  catalog.AddrIn(""),
			"name":     catalog.Str(1, 256),
			"document": catalog.DocIn(),
		}, "address"), catalog.Bool())
}

func catUnsetBookmark() catalog.Spec {
	return catProvider("unset_bookmark", "Unset bookmark",
		"Remove the bookmark at an address."+catAnnotationNote,
		"T I", catalog.In(catalog.M{"address": catalog.AddrIn(""), "document": catalog.DocIn()}, "address"), catalog.Bool())
}

func catSetAddressName() catalog.Spec {
	return catProvider("set_address_name", "Set address name",
		"Name an address, overriding its symbol; \"\" removes the name."+catAnnotationNote,
		"T I", catalog.In(catalog.M{
			"address":  catalog.AddrIn(""),
			"name":     catalog.Str(0, 256),
			"document": catalog.DocIn(),
		}, "address", "name"), catalog.Bool())
}

// operate answers a provider tool: the operation of the same name on the
// call's target, recorded as Evidence.
func (s *Server) operate(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	return sess.conn.Operate(ctx, in.target, in.tool, in.Params, rep)
}

func (s *Server) listDependencies(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	return sess.conn.ListDependencies(ctx, in.target, in.Params, rep)
}

func (s *Server) resolveImport(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	return sess.conn.ResolveImport(ctx, in.target, in.Params, rep)
}
