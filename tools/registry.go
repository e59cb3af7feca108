package tools

// The MCP tool catalog (CONTRACTS.md §2) as this server assembles it from
// the tool families; package catalog holds what a spec is and how it is
// published.

import (
	"fmt"
	"sort"
	"sync"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/tools/catalog"
)

// catBuilders maps each tool name to the constructor of its spec.
func catBuilders() map[string]func() catalog.Spec {
	m := map[string]func() catalog.Spec{}
	for _, family := range [][]func() catalog.Spec{
		catSessionTools(), catProviderTools(), catComposedTools(), catArtifactTools(), catApplicationTools(),
	} {
		for _, b := range family {
			build := b
			m[b().Name] = func() catalog.Spec { return catalog.Complete(build()) }
		}
	}
	return m
}

var catIndex = sync.OnceValue(catBuilders)

// Catalog returns all 45 tools sorted by name, freshly built.
func Catalog() []catalog.Spec {
	idx := catIndex()
	names := make([]string, 0, len(idx))
	for n := range idx {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]catalog.Spec, len(names))
	for i, n := range names {
		out[i] = idx[n]()
	}
	return out
}

// Lookup returns the spec of the named tool, freshly built.
func Lookup(name string) (catalog.Spec, bool) {
	b, ok := catIndex()[name]
	if !ok {
		return catalog.Spec{}, false
	}
	return b(), true
}

// catalogDigestEntries is the tool list of §3.3 (sorted by name) that
// tools_sha256 and combined_sha256 cover: the tools served under toolsets
// (nil: all 42).
func catalogDigestEntries(toolsets []string) []map[string]any {
	var out []map[string]any
	for _, s := range Catalog() {
		if catalog.Enabled(s.Name, toolsets) {
			out = append(out, s.DigestEntry())
		}
	}
	return out
}

var catDigest = sync.OnceValue(func() string {
	d, err := canon.Digest(catalogDigestEntries(nil))
	if err != nil {
		panic(fmt.Sprintf("tools: catalog digest: %v", err)) // static data; covered by tests
	}
	return d
})

// CatalogDigest is tools_sha256 of §3.3 for the whole catalog:
// sha256(JCS(list sorted by name of {name, title, kind, description,
// effects, annotations, input_schema, output_schema})).
func CatalogDigest() (tools string) { return catDigest() }
