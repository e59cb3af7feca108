package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// FuzzStdioInput feeds arbitrary bytes to the stdio transport in front of a
// bare mcp-go server: whatever arrives, every output line is one JSON
// message and ServeStdio returns at the end of the input.
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
		go func() { done <- ServeStdio(context.Background(), srv, bytes.NewReader(in), w, nil) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("ServeStdio did not return at the end of its input")
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
