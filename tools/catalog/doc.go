// Package catalog is what an MCP tool of REA is, apart from its handler:
// the Spec (effects, input and result schemas, required operations), the
// schema constructors the specs are written with, the toolsets, the server
// instructions, and how a spec is published (inputSchema view, compact
// outputSchema, annotations, §3.3 digest entry).
//
// The specs themselves are declared in package tools, next to their
// handlers, so the catalog a server serves (tools.Catalog) and its golden
// snapshots (tools/testdata/schemas) are assembled there: this package
// cannot import the handlers, and the handlers must not be reachable from
// a description of the contract.
package catalog
