package tools

// Provider operations (kind provider, CONTRACTS.md §2.2): each needs an open
// executable target and a bound provider that declares the operation, and
// every answer is recorded as Evidence.

// catProvider builds a provider tool spec; the tool requires itself.
func catProvider(name, title, desc, eff string, input, result scM) Spec {
	return Spec{
		Name:               name,
		Title:              title,
		Description:        desc,
		Kind:               "provider",
		Effects:            catEffects(eff),
		Evidence:           true,
		Input:              input,
		Result:             result,
		RequiredOperations: []string{name},
	}
}

func catProviderTools() []func() Spec {
	return []func() Spec{
		catListDocuments, catCurrentDocument, catCurrentAddress, catGotoAddress, catListProcedures, catListNames,
		catListStrings, catListSegments, catAddressName, catProcedureAddress, catResolveContainingProcedure,
		catProcedureInfo, catProcedureAssembly, catReadFunctionInstructions, catProcedureCallers,
		catProcedureCallees, catXrefs, catSearchProcedures, catSearchStrings, catComment, catInlineComment,
		catListBookmarks, catSetComment, catSetInlineComment, catSetBookmark, catUnsetBookmark, catSetAddressName,
		catListDependencies, catResolveImport,
	}
}

// catCursorAddress describes an address argument that defaults to the
// cursor: nothing, since the server instructions say once that an omitted
// address means the cursor.
const catCursorAddress = ""

func catListDocuments() Spec {
	return catProvider("list_documents", "List documents",
		"List document names."+catSampleText,
		"I", scIn(scM{}), scList(scString()))
}

func catCurrentDocument() Spec {
	return catProvider("current_document", "Current document",
		"Return the current document name."+catSampleText, "I", scIn(scM{}), scString())
}

func catCurrentAddress() Spec {
	return catProvider("current_address", "Current address",
		"Return the cursor address (the entry point until goto_address).",
		"I", scIn(scM{"document": scDocIn()}), scAddrOut())
}

func catGotoAddress() Spec {
	return catProvider("goto_address", "Go to address",
		"Move the cursor to an address inside a segment.",
		"S I", scIn(scM{"address": scAddrIn(""), "document": scDocIn()}, "address"), scAddrOut())
}

func catListProcedures() Spec {
	return catProvider("list_procedures", "List procedures",
		"List procedures by entry address."+catSampleText,
		"I", scIn(scPageIn(scM{"document": scDocIn()}, 500, 100)),
		scPageOf(scOutAll(scM{
			"address": scAddrOut(),
			"value":   scString(),
			"aliases": scList(scString()),
			"procedure": scOutAll(scM{
				"external": scBool(), "thunk": scBool(), "thunk_target": scNullable(scAddrOut()),
			}),
		})))
}

func catListNames() Spec {
	return catProvider("list_names", "List names",
		"List symbol names by address, or those at one address."+catSampleText,
		"I", scIn(scPageIn(scM{"document": scDocIn(), "address": scAddrIn("")}, 500, 100)),
		scPageOf(scOutAll(scM{
			"address": scAddrOut(),
			"value":   scString(),
			"symbol": scOutAll(scM{
				"primary": scBool(), "dynamic": scBool(), "external": scBool(), "type": scString(),
				"source": scEnum("default", "analysis", "imported", "user_defined"),
			}),
		})))
}

func catListStrings() Spec {
	return catProvider("list_strings", "List strings",
		"List strings by address, or the one at an address."+catSampleText,
		"I", scIn(scPageIn(scM{"document": scDocIn(), "address": scAddrIn("")}, 500, 100)),
		scPageOf(scOutAll(scM{
			"address":         scAddrOut(),
			"value":           scStr(0, 1024),
			"value_truncated": scBool(),
			"string": scOutAll(scM{
				"encoding":    scEnum("ascii", "utf-8", "utf-16le"),
				"termination": scEnum("missing", "present_or_not_required"),
				"byte_length": scCount(),
				"section":     scNullable(scString()),
			}),
		})))
}

func catListSegments() Spec {
	perm := func() scM { return scNullable(scBool()) }
	return catProvider("list_segments", "List segments",
		"List segments and sections."+catSampleText,
		"I", scIn(scM{"document": scDocIn()}),
		scList(scOutAll(scM{
			"name": scString(), "start": scAddrOut(), "end": scAddrOut(),
			"readable": scBool(), "writable": scBool(), "executable": perm(),
			"sections": scList(scOutAll(scM{
				"name": scString(), "start": scAddrOut(), "end": scAddrOut(),
				"readable": perm(), "writable": perm(), "executable": perm(),
			})),
		})))
}

// catListDependencies: §15.4. reason says why candidate_path is null
// (not_regular_file, symlink_loop, unreadable, too_large: a path the
// sample names that REA does not read, §0.3);
// imports is the count the format gives per library (decisions, beyond
// §15.4); resolved names the open target that satisfies the dependency.
func catListDependencies() Spec {
	return catProvider("list_dependencies", "List dependencies",
		"List the libraries the loader would load, in order, and where this host finds each (not via LD_LIBRARY_PATH)."+catSampleText,
		"I", scIn(scM{}),
		scList(scOutAll(scM{
			"name":           scString(),
			"kind":           scEnum("needed", "import", "delay_import", "load_dylib", "weak_dylib", "reexport_dylib"),
			"candidate_path": scNullable(scString()),
			"reason": scNullable(scEnum("not_found", "not_loadable", "relative_path", "no_host_loader", "api_set",
				"unexpanded_token", "not_regular_file", "symlink_loop", "unreadable", "too_large")),
			"search": scList(scOutAll(scM{"path": scString(), "exists": scBool(),
				"source": scEnum("rpath", "runpath", "origin", "ld_so_cache", "default", "same_directory", "interpreter")})),
			"imports":  scNullable(scCount()),
			"resolved": scNullable(scOutAll(scM{"target_id": scString(), "path": scString()})),
		})))
}

// catResolveImport: §15.4. Exactly one of name and address (enforced by
// the engine; a top-level oneOf is not published, see Spec.inputUnion).
func catResolveImport() Spec {
	return catProvider("resolve_import", "Resolve import",
		"Find the open target and procedure defining an import: name (printf@GLIBC_2.2.5, KERNEL32.dll!#12) or stub address."+catSampleText,
		"I", scIn(scM{"name": scStr(1, 1024), "address": scAddrIn("")}),
		scOutAll(scM{
			"import": scOutAll(scM{"name": scString(), "version": scNullable(scString()), "library": scNullable(scString()),
				"address": scNullable(scAddrOut())}),
			"resolution": scNullable(scOutAll(scM{"target_id": scString(), "library_path": scString(),
				"procedure": scOutAll(scM{"address": scAddrOut(), "name": scString()})})),
			"reason": scNullable(scEnum("library_not_open", "symbol_not_exported", "ambiguous", "not_an_import")),
		}))
}

func catAddressName() Spec {
	return catProvider("address_name", "Address name",
		"Return the name at an address, or null."+catSampleText,
		"I", scIn(scM{"document": scDocIn(), "address": scAddrIn(catCursorAddress)}),
		scNullable(scString()))
}

func catProcedureAddress() Spec {
	return catProvider("procedure_address", "Procedure address",
		"Resolve a procedure name or address to its entry address.",
		"I", scIn(scM{"procedure": scProcIn(), "document": scDocIn()}, "procedure"), scAddrOut())
}

func catResolveContainingProcedure() Spec {
	return catProvider("resolve_containing_procedure", "Resolve containing procedure",
		"Find the procedure containing an address, or why none does."+catSampleText,
		"I", scIn(scM{"address": scAddrIn(""), "document": scDocIn()}, "address"),
		scM{"oneOf": []any{
			scOutAll(scM{"query_address": scAddrOut(), "found": scConst(true), "procedure": scProcRef()}),
			scOutAll(scM{
				"query_address": scAddrOut(), "found": scConst(false), "procedure": scM{"type": "null"},
				"reason": scEnum("outside_segments", "not_in_procedure"),
			}),
		}})
}

func catProcedureInfo() Spec {
	return catProvider("procedure_info", "Procedure info",
		"Describe a procedure: entry, length, blocks, signature, locals, source line."+catSampleText,
		"I", scIn(scM{"procedure": scProcIn(), "document": scDocIn()}, "procedure"),
		scOutAll(scM{
			"name":             scString(),
			"entrypoint":       scAddrOut(),
			"length":           scCount(),
			"basicblock_count": scCount(),
			"signature":        scNullable(scString()),
			"locals":           scList(scOutAll(scM{"description": scString(), "provenance": scString()})),
			"classification": scNullable(scOutAll(scM{
				"external": scBool(), "thunk": scBool(), "thunk_target": scNullable(scAddrOut()),
				"provenance": scString(),
			})),
			"source": scNullable(scOutAll(scM{"file": scString(), "line": scM{"type": "integer"}})),
		}))
}

func catProcedureAssembly() Spec {
	return catProvider("procedure_assembly", "Procedure assembly",
		"Disassemble a procedure as text, one instruction per line."+catSampleText,
		"I", scIn(scM{"procedure": scProcIn(), "document": scDocIn()}, "procedure"), scString())
}

func catReadFunctionInstructions() Spec {
	s := catProvider("read_function_instructions", "Read function instructions",
		"Page through a procedure's instructions."+catSampleText,
		"I", scIn(scM{
			"procedure": scProcIn(),
			"offset":    scDef(scInt(0, 100000), int64(0)),
			"limit":     scDef(scInt(1, 500), int64(64)),
			"document":  scDocIn(),
		}, "procedure"),
		scOutAll(scM{
			"procedure": scProcRef(),
			"instructions": scPageOf(scOutAll(scM{
				"address": scAddrOut(), "bytes": scPat(scPatHexBytes), "text": scString(),
			})),
			"limitations": scList(scString()),
		}))
	s.resultDepth = 2 // the instructions page is the answer
	return s
}

func catCallEdges(name, title, what string) Spec {
	return catProvider(name, title,
		"List the direct "+what+" of a procedure."+catSampleText,
		"I", scIn(scPageIn(scM{"procedure": scProcIn(), "document": scDocIn()}, 1000, 1000), "procedure"),
		scPageOf(catAddressItem()))
}

// catAddressItem is a named address (§0): name null when the address has
// none, procedure null outside every known procedure.
func catAddressItem() scM {
	return scOutAll(scM{"address": scAddrOut(), "name": scNullable(scString()), "procedure": scNullable(scProcRef())})
}

func catProcedureCallers() Spec {
	return catCallEdges("procedure_callers", "Procedure callers", "callers")
}

func catProcedureCallees() Spec {
	return catCallEdges("procedure_callees", "Procedure callees", "callees")
}

func catXrefs() Spec {
	return catProvider("xrefs", "Cross-references",
		"List the instructions referencing an address."+catSampleText,
		"I", scIn(scPageIn(scM{"document": scDocIn(), "address": scAddrIn(catCursorAddress)}, 1000, 1000)),
		scPageOf(catAddressItem()))
}

func catSearch(name, title, what string) Spec {
	return catProvider(name, title,
		"Search "+what+" by substring or RE2 expression."+catSampleText,
		"I", scIn(scM{
			"pattern":        scStr(1, 256),
			"mode":           scDef(scEnum("literal", "regex"), "literal"),
			"case_sensitive": scDef(scBool(), false),
			"offset":         scOffsetIn(""),
			"limit":          scLimitIn(100, 100, ""),
			"document":       scDocIn(),
		}, "pattern"),
		scPageOf(scOutAll(scM{"address": scAddrOut(), "value": scString(), "value_truncated": scBool(),
			"procedure": scNullable(scProcRef())})))
}

func catSearchProcedures() Spec {
	return catSearch("search_procedures", "Search procedures", "procedure names")
}

func catSearchStrings() Spec { return catSearch("search_strings", "Search strings", "strings") }

func catCommentGetter(name, title, what string) Spec {
	return catProvider(name, title,
		"Return the "+what+" at an address, or null."+catSampleText,
		"I", scIn(scM{"document": scDocIn(), "address": scAddrIn(catCursorAddress)}),
		scNullable(scString()))
}

func catComment() Spec { return catCommentGetter("comment", "Comment", "comment") }

func catInlineComment() Spec {
	return catCommentGetter("inline_comment", "Inline comment", "inline comment")
}

func catListBookmarks() Spec {
	return catProvider("list_bookmarks", "List bookmarks",
		"List bookmarks by address."+catSampleText,
		"I", scIn(scM{"document": scDocIn()}),
		scList(scOutAll(scM{"address": scAddrOut(), "name": scString()})))
}

// catAnnotationNote: annotations live in the ledger, not in the provider;
// the server instructions say once that every connection on the same bytes
// sees them.
const catAnnotationNote = ""

func catSetComment() Spec {
	return catProvider("set_comment", "Set comment",
		"Set the comment at an address; \"\" removes it."+catAnnotationNote,
		"T I", scIn(scM{
			"address":  scAddrIn(""),
			"comment":  scStr(0, 4096),
			"document": scDocIn(),
		}, "address", "comment"), scBool())
}

func catSetInlineComment() Spec {
	return catProvider("set_inline_comment", "Set inline comment",
		"Set the inline comment at an address; \"\" removes it."+catAnnotationNote,
		"T I", scIn(scM{
			"address":  scAddrIn(""),
			"comment":  scStr(0, 4096),
			"document": scDocIn(),
		}, "address", "comment"), scBool())
}

func catSetBookmark() Spec {
	return catProvider("set_bookmark", "Set bookmark",
		"Bookmark an address, replacing one there."+catAnnotationNote,
		"T I", scIn(scM{
			"address":  scAddrIn(""),
			"name":     scStr(1, 256),
			"document": scDocIn(),
		}, "address"), scBool())
}

func catUnsetBookmark() Spec {
	return catProvider("unset_bookmark", "Unset bookmark",
		"Remove the bookmark at an address."+catAnnotationNote,
		"T I", scIn(scM{"address": scAddrIn(""), "document": scDocIn()}, "address"), scBool())
}

func catSetAddressName() Spec {
	return catProvider("set_address_name", "Set address name",
		"Name an address, overriding its symbol; \"\" removes the name."+catAnnotationNote,
		"T I", scIn(scM{
			"address":  scAddrIn(""),
			"name":     scStr(0, 256),
			"document": scDocIn(),
		}, "address", "name"), scBool())
}
