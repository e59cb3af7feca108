package tools

// Provider operations (kind provider, CONTRACTS.md §2.2): each needs an open
// executable target and a bound provider that declares the operation, and
// every answer is recorded as Evidence.

const catEvidenceNote = " The answer is recorded as Evidence (returned inline)."

// catProvider builds a provider tool spec; the tool requires itself.
func catProvider(name, title, desc, eff string, input, result scM) Spec {
	return Spec{
		Name:               name,
		Title:              title,
		Description:        desc + catEvidenceNote,
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
	}
}

const (
	catCursorAddress = "Defaults to the connection's cursor (the default is not recorded in Evidence parameters)."
	catPageNote      = " Paged: offset/limit in, {items, offset, limit, returned, total, next_offset, truncated} " +
		"out; call again with offset = next_offset while truncated is true."
)

func catListDocuments() Spec {
	return catProvider("list_documents", "List documents",
		"List the document names of the open target (one document, the target's basename, for the built-in and "+
			"gdb providers). Use a name as the document argument of other tools.",
		"I", scIn(scM{}), scList(scString()))
}

func catCurrentDocument() Spec {
	return catProvider("current_document", "Current document",
		"Return the current document name.", "I", scIn(scM{}), scString())
}

func catCurrentAddress() Spec {
	return catProvider("current_address", "Current address",
		"Return the connection's cursor address (initially the target's entry point; moved by goto_address).",
		"I", scIn(scM{"document": scDocIn()}), scAddrOut())
}

func catGotoAddress() Spec {
	return catProvider("goto_address", "Go to address",
		"Move the connection's cursor to an address inside a segment and return it in canonical form. "+
			"Tools whose address is optional use the cursor.",
		"S I", scIn(scM{"address": scAddrIn("Address to move to."), "document": scDocIn()}, "address"), scAddrOut())
}

func catListProcedures() Spec {
	return catProvider("list_procedures", "List procedures",
		"List procedures sorted by entry address: address, name (value), and whether each is external or a "+
			"thunk (with its target)."+catPageNote,
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
		"List symbol names sorted by address with their symbol facts (primary, dynamic, external, type, "+
			"source). With address, only the names at that address."+catPageNote,
		"I", scIn(scPageIn(scM{"document": scDocIn(), "address": scAddrIn("Only names at this address.")}, 500, 100)),
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
		"List strings found in the target sorted by address: value (at most 1,024 characters; value_truncated "+
			"says when cut), encoding, termination, byte length and section. With address, only the string at "+
			"that address."+catPageNote,
		"I", scIn(scPageIn(scM{"document": scDocIn(), "address": scAddrIn("Only the string at this address.")}, 500, 100)),
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
		"List the target's segments by start address, with permissions and their sections (end exclusive).",
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

func catAddressName() Spec {
	return catProvider("address_name", "Address name",
		"Return the name at an address (a user-set name overrides the symbol), or null.",
		"I", scIn(scM{"document": scDocIn(), "address": scAddrIn("Address to name. " + catCursorAddress)}),
		scNullable(scString()))
}

func catProcedureAddress() Spec {
	return catProvider("procedure_address", "Procedure address",
		"Resolve a procedure name (or address) to its entry address.",
		"I", scIn(scM{"procedure": scProcIn(), "document": scDocIn()}, "procedure"), scAddrOut())
}

func catResolveContainingProcedure() Spec {
	return catProvider("resolve_containing_procedure", "Resolve containing procedure",
		"Find the procedure containing an address: found:true with its address and name, or found:false with "+
			"reason outside_segments or not_in_procedure. Never guessed from nearby symbols.",
		"I", scIn(scM{"address": scAddrIn("Address to resolve."), "document": scDocIn()}, "address"),
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
		"Describe a procedure: name, entry point, length, basic block count, signature, locals, "+
			"external/thunk classification and source file/line from DWARF when present.",
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
		"Disassemble a whole procedure as text, one line per instruction: \"<address>  <hex bytes>  <text>\". "+
			"Procedures over 20,000 instructions fail with truncated; use read_function_instructions to page.",
		"I", scIn(scM{"procedure": scProcIn(), "document": scDocIn()}, "procedure"), scString())
}

func catReadFunctionInstructions() Spec {
	return catProvider("read_function_instructions", "Read function instructions",
		"Page through a procedure's instructions (address, lowercase hex bytes, text in the syntax named by the "+
			"analysis profile)."+catPageNote,
		"I", scIn(scM{
			"procedure": scProcIn(),
			"offset":    scD(scDef(scInt(0, 100000), int64(0)), "Index of the first instruction; use next_offset."),
			"limit":     scD(scDef(scInt(1, 500), int64(64)), "Maximum number of instructions."),
			"document":  scDocIn(),
		}, "procedure"),
		scOutAll(scM{
			"procedure": scProcRef(),
			"instructions": scPageOf(scOutAll(scM{
				"address": scAddrOut(), "bytes": scPat(scPatHexBytes), "text": scString(),
			})),
			"limitations": scList(scString()),
		}))
}

func catCallEdges(name, title, what string) Spec {
	return catProvider(name, title,
		"List the addresses of the "+what+" of a procedure through direct calls only, sorted and unique. "+
			"Indirect calls are never guessed: their count is an Evidence limitation."+catPageNote,
		"I", scIn(scPageIn(scM{"procedure": scProcIn(), "document": scDocIn()}, 1000, 1000), "procedure"),
		scPageOf(catAddressItem()))
}

// catAddressItem is a named address (§0): name null when the address has
// none, procedure null outside every known procedure.
func catAddressItem() scM {
	return scOutAll(scM{"address": scAddrOut(), "name": scNullable(scString()), "procedure": scNullable(scProcRef())})
}

func catProcedureCallers() Spec {
	return catCallEdges("procedure_callers", "Procedure callers", "procedures calling (callers)")
}

func catProcedureCallees() Spec {
	return catCallEdges("procedure_callees", "Procedure callees", "procedures called (callees)")
}

func catXrefs() Spec {
	return catProvider("xrefs", "Cross-references",
		"List the addresses of instructions referencing an address (code and data references, untyped), "+
			"sorted and unique."+catPageNote,
		"I", scIn(scPageIn(scM{"document": scDocIn(), "address": scAddrIn("Referenced address. " + catCursorAddress)}, 1000, 1000)),
		scPageOf(catAddressItem()))
}

func catSearch(name, title, what string) Spec {
	return catProvider(name, title,
		"Search "+what+" by literal substring or Go RE2 regular expression (linear time), case-insensitive "+
			"unless case_sensitive. A scan budget of 64 MiB of candidate text ends the scan with truncated:true "+
			"and next_offset:null."+catPageNote,
		"I", scIn(scM{
			"pattern":        scD(scStr(1, 256), "Literal text or RE2 expression."),
			"mode":           scD(scDef(scEnum("literal", "regex"), "literal"), "How pattern is interpreted."),
			"case_sensitive": scD(scDef(scBool(), false), "Match case exactly."),
			"offset":         scOffsetIn("Index of the first match to return; use next_offset."),
			"limit":          scLimitIn(100, 100, "Maximum number of matches."),
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
		"Return the "+what+" at an address, or null.",
		"I", scIn(scM{"document": scDocIn(), "address": scAddrIn("Address. " + catCursorAddress)}),
		scNullable(scString()))
}

func catComment() Spec { return catCommentGetter("comment", "Comment", "comment") }

func catInlineComment() Spec {
	return catCommentGetter("inline_comment", "Inline comment", "inline comment")
}

func catListBookmarks() Spec {
	return catProvider("list_bookmarks", "List bookmarks",
		"List bookmarks sorted by address.",
		"I", scIn(scM{"document": scDocIn()}),
		scList(scOutAll(scM{"address": scAddrOut(), "name": scString()})))
}

const catAnnotationNote = " Annotations are REA ledger state shared by every connection that opens the same bytes."

func catSetComment() Spec {
	return catProvider("set_comment", "Set comment",
		"Set the comment at an address; an empty comment removes it. Returns true when the stored value reads "+
			"back equal."+catAnnotationNote,
		"T I", scIn(scM{
			"address":  scAddrIn("Address to annotate."),
			"comment":  scD(scStr(0, 4096), "Comment text; \"\" removes the comment."),
			"document": scDocIn(),
		}, "address", "comment"), scBool())
}

func catSetInlineComment() Spec {
	return catProvider("set_inline_comment", "Set inline comment",
		"Set the inline comment at an address; an empty comment removes it. Returns true when the stored value "+
			"reads back equal."+catAnnotationNote,
		"T I", scIn(scM{
			"address":  scAddrIn("Address to annotate."),
			"comment":  scD(scStr(0, 4096), "Inline comment text; \"\" removes it."),
			"document": scDocIn(),
		}, "address", "comment"), scBool())
}

func catSetBookmark() Spec {
	return catProvider("set_bookmark", "Set bookmark",
		"Bookmark an address, replacing an existing bookmark there; the name defaults to the address. "+
			"Returns true when stored."+catAnnotationNote,
		"T I", scIn(scM{
			"address":  scAddrIn("Address to bookmark."),
			"name":     scD(scStr(1, 256), "Bookmark name; defaults to the address."),
			"document": scDocIn(),
		}, "address"), scBool())
}

func catUnsetBookmark() Spec {
	return catProvider("unset_bookmark", "Unset bookmark",
		"Remove the bookmark at an address. Returns true when no bookmark remains there."+catAnnotationNote,
		"T I", scIn(scM{"address": scAddrIn("Bookmarked address."), "document": scDocIn()}, "address"), scBool())
}

func catSetAddressName() Spec {
	return catProvider("set_address_name", "Set address name",
		"Give an address a user name that overrides its symbol; an empty name removes the user name. "+
			"Returns true when the stored value reads back equal."+catAnnotationNote,
		"T I", scIn(scM{
			"address":  scAddrIn("Address to name."),
			"name":     scD(scStr(0, 256), "User name; \"\" removes it."),
			"document": scDocIn(),
		}, "address", "name"), scBool())
}
