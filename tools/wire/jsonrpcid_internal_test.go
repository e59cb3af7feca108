package wire

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// FuzzRequestIDRoundTrip: every valid id of a request line comes back
// byte-exactly in the answer mcp-go builds from what the transport handed
// it (decoded as mcp-go decodes an id, encoded as writeMessage encodes an
// answer), and every id that is not valid is refused before mcp-go sees it.
func FuzzRequestIDRoundTrip(f *testing.F) {
	for _, id := range []string{"1", "0", "-0", "9007199254740993", "-9007199254740993", "123456789012345678901234567890",
		`"a"`, `"s\u0041<&>"`, `"\ud83d\ude00"`, `""`, "true", "null", "1.5", "1e3", `{"a":1}`, "[1]"} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		line := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &head) != nil || len(head.ID) == 0 {
			return // not one message: a parse error, not this property
		}
		raw := head.ID
		if !validID(raw) {
			var v any
			json.Unmarshal(raw, &v)
			switch v := v.(type) {
			case string:
				t.Fatalf("string id %s refused", raw)
			case float64:
				if bytes.ContainsAny(raw, ".eE") {
					return
				}
				t.Fatalf("integer id %s (%v) refused", raw, v)
			}
			return
		}
		s := &stdioTransport{}
		msg, ok := s.forServer(line, raw)
		if !ok {
			t.Fatalf("id %s: no message for the server", raw)
		}
		var base struct {
			ID any `json:"id"`
		}
		if err := json.Unmarshal(msg, &base); err != nil {
			t.Fatal(err)
		}
		if f, ok := base.ID.(float64); ok && f == float64(int64(f)) {
			base.ID = int64(f) // as mcp.RequestId does
		}
		for _, answer := range []any{
			mcp.NewJSONRPCResultResponse(mcp.NewRequestId(base.ID), mcp.EmptyResult{}),
			mcp.NewJSONRPCError(mcp.NewRequestId(base.ID), mcp.INVALID_PARAMS, "x", nil),
		} {
			b, err := json.Marshal(answer)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(restoreID(b), &got); err != nil {
				t.Fatalf("id %s: answer %s: %v", raw, restoreID(b), err)
			}
			if !bytes.Equal(got.ID, raw) {
				t.Fatalf("id %s echoed as %s", raw, got.ID)
			}
			// As SSE events (HTTP): every message of a chunk is restored.
			event := "event: message\ndata: " + string(b) + "\n\n"
			want := "event: message\ndata: " + string(restoreID(b)) + "\n\n"
			if got := string(restoreID([]byte(event + event))); got != want+want {
				t.Fatalf("id %s in SSE events: %q, want %q", raw, got, want+want)
			}
		}
	})
}
