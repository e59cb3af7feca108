package tools_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/tools/wire"
)

// TestHTTPRequestIDs: over streamable HTTP as over stdio (CONTRACTS.md §0),
// ids are echoed byte-exactly (mcp-go answered 9007199254740993 with
// 9007199254740992 and 123456789012345678901234567890 with
// 1.2345678901234568e+29), ids that are not a string or an integer are
// -32600 with id null (they were echoed and served), and initialize on a
// live session is refused with -32600 (it was answered again).
func TestHTTPRequestIDs(t *testing.T) {
	h := startHTTP(t, wire.HTTPOptions{})
	req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	setHeaders(req, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var init struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&init); err != nil || string(init.ID) != "9007199254740993" {
		t.Fatalf("initialize answered id %s (%v)", init.ID, err)
	}
	res.Body.Close()
	session := res.Header.Get("Mcp-Session-Id")
	hdr := map[string]string{mcp.HeaderProtocolVersion: "2025-11-25", "Mcp-Session-Id": session}
	answerID := func(body string) (int, json.RawMessage, *struct{ Code int }) {
		t.Helper()
		status, text := rawRequest(t, http.MethodPost, h.url, body, hdr)
		if i := strings.Index(text, "data: "); i >= 0 { // an SSE answer
			text = strings.TrimSpace(text[i+len("data: "):])
		}
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("%s: %d %q: %v", body, status, text, err)
		}
		return status, m.ID, m.Error
	}
	for _, id := range []string{"9007199254740993", "123456789012345678901234567890", `"s\u0041<&>"`, "7", `"plain"`} {
		for _, body := range []string{`{"jsonrpc":"2.0","id":ID,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"binary_session","arguments":{}}}`} {
			body = strings.Replace(body, "ID", id, 1)
			if _, got, e := answerID(body); string(got) != id || e != nil {
				t.Errorf("%s: answered id %s, error %v", body, got, e)
			}
		}
	}
	for _, id := range []string{"true", `{"a":1}`, "[1]", "1.5", "null"} {
		status, got, e := answerID(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if status != http.StatusBadRequest || string(got) != "null" || e == nil || e.Code != -32600 {
			t.Errorf("id %s: %d, id %s, error %v; want 400 -32600 with id null", id, status, got, e)
		}
	}
	status, got, e := answerID(`{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if status != http.StatusBadRequest || string(got) != `"again"` || e == nil || e.Code != -32600 {
		t.Errorf("second initialize: %d, id %s, error %v; want -32600", status, got, e)
	}
}
