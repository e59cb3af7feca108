package tools

import (
	"context"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/tools/catalog"
)

// Navigation tools (CONTRACTS.md §8, and the document and cursor
// operations of §2.2): where the analyst is, answered from the target's
// provider and the connection's state.

func navigationTools() []tool {
	return []tool{
		{catGetNavigationContext, (*Server).navigationContext},
		{catInspectAddressContext, (*Server).inspectAddressContext},
		{catListDocuments, (*Server).operate},
		{catCurrentDocument, (*Server).operate},
		{catCurrentAddress, (*Server).operate},
		{catGotoAddress, (*Server).operate},
	}
}

func catGetNavigationContext() catalog.Spec {
	return catalog.Spec{
		Name:        "get_navigation_context",
		Title:       "Get navigation context",
		Description: "Return the document, cursor and its procedure." + catalog.SampleText,
		Kind:        "session",
		Effects:     catalog.Effects("I"),
		Input:       catalog.In(catalog.M{"document": catalog.DocIn()}),
		Result: catalog.OutAll(catalog.M{
			"mode":      catalog.Enum("current_selection", "explicit_document"),
			"document":  catalog.String(),
			"address":   catalog.AddrOut(),
			"procedure": catalog.Nullable(catalog.ProcRef()),
		}),
		RequiredOperations: []string{"current_address", "current_document", "resolve_containing_procedure"},
	}
}

func catInspectAddressContext() catalog.Spec {
	// A facet is available with a value, or unavailable with an error code
	// (§1.7) and remediation.
	facet := func(value catalog.M) catalog.M {
		return catalog.Out(catalog.M{"state": catalog.Enum("available", "unavailable"), "value": value,
			"reason": catalog.String(), "remediation": catalog.String()}, "state")
	}
	return catalog.Spec{
		Name:        "inspect_address_context",
		Title:       "Inspect address context",
		Description: "Return the name, procedure, comments and bookmarks at an address." + catalog.SampleText,
		Kind:        "session",
		Effects:     catalog.Effects("I"),
		Input: catalog.In(catalog.M{
			"address":  catalog.AddrIn(""),
			"document": catalog.DocIn(),
		}, "address"),
		Result: catalog.OutAll(catalog.M{
			"address":  catalog.AddrOut(),
			"document": catalog.Nullable(catalog.String()),
			"name":     facet(catalog.Nullable(catalog.String())),
			"procedure": facet(catalog.M{"oneOf": []any{
				catalog.OutAll(catalog.M{"query_address": catalog.AddrOut(), "found": catalog.Const(true), "procedure": catalog.ProcRef()}),
				catalog.OutAll(catalog.M{"query_address": catalog.AddrOut(), "found": catalog.Const(false), "procedure": catalog.M{"type": "null"},
					"reason": catalog.Enum("outside_segments", "not_in_procedure")}),
			}}),
			"comment":        facet(catalog.Nullable(catalog.String())),
			"inline_comment": facet(catalog.Nullable(catalog.String())),
			"bookmarks":      facet(catalog.List(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String()}))),
		}),
		RequiredOperations: []string{"address_name", "comment", "inline_comment", "list_bookmarks", "resolve_containing_procedure"},
	}
}

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

func (s *Server) navigationContext(ctx context.Context, sess *session, in input, _ progress.Reporter) (any, error) {
	return sess.conn.NavigationContext(ctx, in.target, optionalString(in.Params, "document"))
}

func (s *Server) inspectAddressContext(ctx context.Context, sess *session, in input, _ progress.Reporter) (any, error) {
	addr, _ := in.Params.String("address")
	return sess.conn.InspectAddressContext(ctx, in.target, addr, optionalString(in.Params, "document"))
}
