package tools_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkStdioRoundTrip compares a binary_session round trip with a trivial
// echo tool on the same server, over the stdio framing (the server's
// ServeStdio on pipes; no process start in the loop).
func BenchmarkStdioRoundTrip(b *testing.B) {
	p := newInProcessServer(b, filepath.Join(b.TempDir(), "ledger.db"))
	echo := mcp.NewTool("echo", mcp.WithString("text"))
	p.srv.MCP().AddTool(echo, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.srv.ServeStdio(ctx, toServerR, fromServerW)
	c := client.NewClient(transport.NewIO(fromServerR, toServerW, io.NopCloser(&emptyReader{})))
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	s := initialize(b, c)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"echo", map[string]any{"text": "hello"}},
		{"binary_session", map[string]any{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				s.ok(tc.name, tc.args)
			}
		})
	}
}

type emptyReader struct{}

func (*emptyReader) Read([]byte) (int, error) { return 0, io.EOF }
