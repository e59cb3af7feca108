package wire

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine/fault"
)

// ErrorResult is the tool result carrying the typed error envelope
// (CONTRACTS.md §1.7). It lives with the transport because the stdio
// transport answers cancelled and refused calls itself, without a handler.
func ErrorResult(fe *fault.Error) *mcp.CallToolResult {
	if fe.Remediation.Action == "" {
		fe.Remediation.Action = "Call again after correcting the cause."
	}
	body := struct {
		Error *fault.Error `json:"error"`
	}{fe}
	b, _ := json.Marshal(body)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{mcp.TextContent{Type: "text", Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
}
