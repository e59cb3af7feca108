package tools

import (
	"github.com/rea-re/rea/tools/catalog"
)

// Annotation tools (kind provider, CONTRACTS.md §2.2): comments and
// bookmarks, recorded in the ledger.

func annotationTools() []tool {
	return []tool{
		{catComment, (*Server).operate},
		{catInlineComment, (*Server).operate},
		{catListBookmarks, (*Server).operate},
		{catSetComment, (*Server).operate},
		{catSetInlineComment, (*Server).operate},
		{catSetBookmark, (*Server).operate},
		{catUnsetBookmark, (*Server).operate},
	}
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

func catCommentGetter(name, title, what string) catalog.Spec {
	return catProvider(name, title,
		"Return the "+what+" at an address, or null."+catalog.SampleText,
		"I", catalog.In(catalog.M{"document": catalog.DocIn(), "address": catalog.AddrIn(catCursorAddress)}),
		catalog.Nullable(catalog.String()))
}
