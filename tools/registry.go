package tools

// The MCP tool catalog (CONTRACTS.md §2) as this server assembles it from
// the tool families; package catalog holds what a spec is and how it is
// published.

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/tools/catalog"
)

// tool is one MCP tool as this server serves it: the spec a client sees and
// the handler that answers it, declared side by side in the file of the
// tool's family (session.go, provider.go, composed.go, …). Registration,
// availability, the catalog digests and the golden snapshots all iterate
// the same list, so a tool cannot be served without its spec or listed
// without its handler.
type tool struct {
	spec   func() catalog.Spec
	handle handler
}

// handler is one tool's body: in holds its validated arguments; it returns
// the result (Ev=N) or a Published (Ev=Y).
type handler func(s *Server, ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error)

// input is a tools/call as its handler receives it, its arguments parsed
// and validated once (Server.arguments).
type input struct {
	provider.Params        // the arguments: the Evidence parameters, target excluded
	tool            string // the tool's name
	// target is the handle the target argument named; "" is the active
	// target. It is never a parameter: the subject names the bytes, so the
	// same call on the same bytes gives the same Evidence id whichever
	// handle named them (§15.1).
	target string
}

// families are every tool of the server, family by family.
func families() [][]tool {
	return [][]tool{sessionTools(), navigationTools(), procedureTools(), pseudoTools(), byteTools(), nameTools(), annotationTools(),
		dependencyTools(), composedTools(), artifactTools(), evidenceFileTools(), captureTools()}
}

// toolIndex maps each tool name to its tool, the spec completed
// (catalog.Complete) on every build.
func toolIndex() map[string]tool {
	m := map[string]tool{}
	for _, family := range families() {
		for _, t := range family {
			build := t.spec
			m[build().Name] = tool{spec: func() catalog.Spec { return catalog.Complete(build()) }, handle: t.handle}
		}
	}
	return m
}

var catIndex = sync.OnceValue(toolIndex)

// Catalog returns all 47 tools sorted by name, freshly built.
func Catalog() []catalog.Spec {
	idx := catIndex()
	names := make([]string, 0, len(idx))
	for n := range idx {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]catalog.Spec, len(names))
	for i, n := range names {
		out[i] = idx[n].spec()
	}
	return out
}

// Lookup returns the spec of the named tool, freshly built.
func Lookup(name string) (catalog.Spec, bool) {
	t, ok := catIndex()[name]
	if !ok {
		return catalog.Spec{}, false
	}
	return t.spec(), true
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
