package tools

import (
	"github.com/rea-re/rea/tools/catalog"
)

// Byte tools (kind provider, CONTRACTS.md §21): the bytes a binary maps at
// an address, and where a byte pattern occurs. The provider parses and
// bounds the arguments (engine/provider/bytes.go), so the schemas state only
// what a client needs to form a call.

func byteTools() []tool {
	return []tool{
		{catReadBytes, (*Server).operate},
		{catSearchBytes, (*Server).operate},
	}
}

func catReadBytes() catalog.Spec {
	return catProvider("read_bytes", "Read bytes",
		"Read up to 4096 mapped bytes at an address as hex; zero-fill (.bss) reads zeros.",
		"I", catalog.In(catalog.M{"address": catalog.AddrIn(""), "length": catalog.Int(1, 4096)}, "address", "length"),
		catalog.OutAll(catalog.M{
			"address":     catalog.AddrOut(),
			"hex":         catalog.Pat(catalog.PatHexBytes),
			"section":     catalog.Nullable(catalog.String()),
			"file_offset": catalog.Nullable(catalog.Count()),
		}))
}

func catSearchBytes() catalog.Spec {
	return catProvider("search_bytes", "Search bytes",
		"Find a byte pattern in mapped sections: hex pairs separated by spaces, ?? for any byte (\"e8 ?? ?? ?? ?? c3\").",
		"I", catalog.In(catalog.PageIn(catalog.M{"pattern": catalog.Str(2, 1024), "section": catalog.Str(1, 256)}, 500, 100), "pattern"),
		catalog.PageOf(catalog.OutAll(catalog.M{
			"address": catalog.AddrOut(), "procedure": catalog.Nullable(catalog.ProcRef()), "section": catalog.String(),
		})))
}
