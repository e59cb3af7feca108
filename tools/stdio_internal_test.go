package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// sameJSON reports whether a and b decode to the same value.
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%v: %.300q", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%v: %.300q", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

// The direct encoding of a tool answer must say what encoding/json says.
func TestEncodeToolResponseMatchesEncodingJSON(t *testing.T) {
	ok, err := (&Server{}).successResult(map[string]any{"s": "quote\" back\\slash <tag> & \u2028 \x01 é", "n": 1.5, "list": []any{nil, true}})
	if err != nil {
		t.Fatal(err)
	}
	version := "1 <&>"
	pub := engine.Published{Result: json.RawMessage(`{"items":["\u2028"]}`), Evidence: engine.Context{SchemaVersion: 2, EvidenceID: "ev_x",
		Subject: &engine.Subject{Name: "odd \"name\" \x01 \xff", Digest: engine.Digest{SHA256: "ab"}, Format: "elf", LocalPath: "/p"},
		Claim: engine.Claim{Provider: provider.Identity{ID: "builtin", Name: "b", Version: &version}, Confidence: "observed",
			Authority: "shipped-artifact", Limitations: []string{"a\nb", "c"}, Parameters: map[string]any{"limit": 1}},
		Ledger: engine.LedgerRef{Seq: 9, EventID: "01J"}}}
	compact, err := (&Server{}).successResult(pub)
	if err != nil {
		t.Fatal(err)
	}
	full, err := (&Server{opts: Options{EvidenceContext: engine.FullForm}}).successResult(pub)
	if err != nil {
		t.Fatal(err)
	}
	failed := errorResult(fault.New(fault.InvalidRequest, "bad", "fix it", nil))
	for _, c := range []struct {
		name string
		id   any
		res  any
	}{
		{"success", int64(7), ok},
		{"success by value, string id", "a\"b", *ok},
		{"error", 8, failed},
		{"compact evidence", 9, compact},
		{"full evidence", 10, full},
	} {
		msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(c.id), c.res)
		got, direct := encodeToolResponse(msg)
		if !direct {
			t.Fatalf("%s: not written directly", c.name)
		}
		want, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", c.name, got, want)
		}
	}
	// Anything else is left to encoding/json.
	withMeta := *ok
	withMeta.Meta = mcp.NewMetaFromMap(map[string]any{"k": "v"})
	for _, msg := range []any{
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), &withMeta),
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), map[string]any{"tools": []any{}}),
		mcp.NewJSONRPCError(mcp.NewRequestId(1), mcp.INVALID_PARAMS, "x", nil),
		mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/tools/list_changed"}},
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.TextContent{Type: "text", Text: "\xff not UTF-8"}},
			StructuredContent: json.RawMessage(`{}`)}),
	} {
		if _, direct := encodeToolResponse(msg); direct {
			t.Fatalf("%T written directly", msg)
		}
	}
}

// FuzzStdioInput feeds arbitrary bytes to the stdio transport in front of a
// bare mcp-go server: whatever arrives, every output line is one JSON
// message and serveStdio returns at the end of the input.
func FuzzStdioInput(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":9,"result":{"action":"accept"}}` + "\n",
		"{\n}\n[1,2]\n\"x\"\nnull\n",
		`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n" + `{"id":{},"method":"ping"}` + "\n",
		"\n\n\r\n" + strings.Repeat("{", 1000),
		// Cancellations of requests running, unknown or named oddly.
		`{"jsonrpc":"2.0","id":"a\u0062","method":"tools/call","params":{"name":"x"}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ab"}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890}}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		srv := server.NewMCPServer("fuzz", "1", server.WithToolCapabilities(true))
		var out bytes.Buffer
		w := &lockedWriter{w: &out}
		done := make(chan error, 1)
		go func() { done <- serveStdio(context.Background(), srv, bytes.NewReader(in), w, nil) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("serveStdio did not return at the end of its input")
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		for line := range bytes.SplitSeq(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("output line is not JSON: %q", line)
			}
		}
	})
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
