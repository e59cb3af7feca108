package tools_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestModernRequestsGetTheFullCatalog: a 2026-07-28 client sees every tool
// (that revision forbids per-connection lists), and a call to a tool that is
// unavailable right now is answered with the typed error of its reason.
func TestModernRequestsGetTheFullCatalog(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	p := newInProcessServer(t, filepath.Join(dir, "ledger.db"))
	c, err := client.NewInProcessClient(p.srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2026-07-28"
	req.Params.ClientInfo = mcp.Implementation{Name: "modern", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != "2026-07-28" {
		t.Skipf("the SDK negotiated %s, not the modern revision", res.ProtocolVersion)
	}
	s := &session{t: t, c: c, notify: make(chan struct{}, 8), progress: make(chan map[string]any, 8)}
	if names := s.toolNames(); len(names) != catalogSize() {
		t.Fatalf("modern tools/list has %d tools, want the full %d", len(names), catalogSize())
	}
	e := s.errorOf("list_procedures", map[string]any{})
	if d, _ := e["details"].(map[string]any); e["code"] != "target_unavailable" || d["availability_reason"] != "target_required" {
		t.Fatalf("unavailable tool: %v", e)
	}
	s.ok("open_binary", map[string]any{"path": fixture})
	s.ok("list_procedures", map[string]any{"limit": 5})
	if e := s.errorOf("inventory_artifact", map[string]any{}); e["code"] != "capability_unavailable" {
		t.Fatalf("unavailable tool: %v", e)
	}
}
