package tools

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/tools/wire"
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
	pub := engine.Published{Result: json.RawMessage(`{"items":["\u2028"]}`), Evidence: evidence.Context{SchemaVersion: 2, EvidenceID: "ev_x",
		Subject: &evidence.Subject{Name: "odd \"name\" \x01 \xff", Digest: evidence.Digest{SHA256: "ab"}, Format: "elf", LocalPath: "/p"},
		Claim: evidence.Claim{Provider: provider.Identity{ID: "builtin", Name: "b", Version: &version}, Confidence: "observed",
			Authority: "shipped-artifact", Limitations: []string{"a\nb", "c"}, Parameters: map[string]any{"limit": 1}},
		Ledger: evidence.LedgerRef{Seq: 9, EventID: "01J"}}}
	compact, err := (&Server{}).successResult(pub)
	if err != nil {
		t.Fatal(err)
	}
	full, err := (&Server{opts: Options{EvidenceContext: evidence.FullForm}}).successResult(pub)
	if err != nil {
		t.Fatal(err)
	}
	failed := wire.ErrorResult(fault.New(fault.InvalidRequest, "bad", "fix it", nil))
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
		got, direct := wire.EncodeToolResponse(msg)
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
		if _, direct := wire.EncodeToolResponse(msg); direct {
			t.Fatalf("%T written directly", msg)
		}
	}
}
