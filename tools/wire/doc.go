// Package wire carries REA's MCP messages: newline-delimited JSON-RPC on
// stdio (framing, the in-flight window, id surrogates) and streamable HTTP
// (the bearer token, Origin and Host checks, session binding, connection
// and body limits). It drives an mcp-go MCPServer and knows the server
// behind it only through Connections; it never sees a tool.
//
// It is not named transport because ten of the tools tests already import
// mcp-go's client/transport under that name.
package wire
