package tools

import (
	"github.com/rea-re/rea/tools/catalog"
)

// Name, string and segment tools (kind provider, CONTRACTS.md §2.2): what
// the binary names and holds, and the user's names for its addresses.

func nameTools() []tool {
	return []tool{
		{catListNames, (*Server).operate},
		{catAddressName, (*Server).operate},
		{catSetAddressName, (*Server).operate},
		{catListStrings, (*Server).operate},
		{catSearchStrings, (*Server).operate},
		{catListSegments, (*Server).operate},
	}
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

func catAddressName() catalog.Spec {
	return catProvider("address_name", "Address name",
		"Return the name at an address, or null."+catalog.SampleText,
		"I", catalog.In(catalog.M{"document": catalog.DocIn(), "address": catalog.AddrIn(catCursorAddress)}),
		catalog.Nullable(catalog.String()))
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

func catSearchStrings() catalog.Spec { return catSearch("search_strings", "Search strings", "strings") }

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
