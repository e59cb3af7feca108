package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine/fault"
)

// TestStdioWindowKeepsReading fills the 64-request window with calls that
// block, then queues requests past it (CONTRACTS.md §0.3: cancellation of a
// queued or running request is read even when 64 requests are in flight):
// a ping is answered at once, a notifications/cancelled naming a waiting
// call (by an escaped spelling of its string id) answers it cancelled with
// its id byte-exact and it never runs, one naming a running call cancels
// it, and once the window frees every other call runs, in order. Past the
// hard bound of waiting requests a call is refused with truncated rather
// than the loop stopping (skipped under -short: it queues 65,536 requests).
func TestStdioWindowKeepsReading(t *testing.T) {
	srv := server.NewMCPServer("window", "1", server.WithToolCapabilities(true))
	release := make(chan struct{})
	var ran atomic.Int64
	srv.AddTool(mcp.NewTool("block"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran.Add(1)
		select {
		case <-release:
			return mcp.NewToolResultText("done"), nil
		case <-ctx.Done():
			return ErrorResult(fault.CancelledError("block")), nil
		}
	})
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ServeStdio(context.Background(), srv, inR, outW, nil) }()
	answers := make(chan []byte, 1024)
	go func() {
		defer close(answers)
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			answers <- line
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-served:
		case <-time.After(time.Minute):
			t.Error("serveStdio did not return at the end of its input")
		}
		outW.Close()
		for range answers {
		}
		inR.Close()
		outR.Close()
	})
	writes := make(chan error, 1)
	write := func(lines ...string) {
		go func() { // the answers are read meanwhile: never blocks the test on a full pipe
			_, err := inW.WriteString(strings.Join(lines, "\n") + "\n")
			writes <- err
		}()
		if err := <-writes; err != nil {
			t.Fatal(err)
		}
	}
	next := func() (id string, result json.RawMessage, errMsg string) {
		t.Helper()
		for {
			select {
			case line, ok := <-answers:
				if !ok {
					t.Fatal("the server ended")
				}
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
					Result json.RawMessage `json:"result"`
					Error  *struct {
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatalf("%v: %q", err, line)
				}
				if m.Method != "" {
					continue
				}
				if m.Error != nil {
					errMsg = m.Error.Message
				}
				return string(m.ID), m.Result, errMsg
			case <-time.After(time.Minute):
				t.Fatal("no answer within a minute: the read loop stopped?")
			}
		}
	}
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"block","arguments":{}}}`
	}
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if id, _, _ := next(); id != "0" {
		t.Fatalf("initialize answered %s", id)
	}
	var window []string
	for i := 1; i <= maxInFlight; i++ {
		window = append(window, call(fmt.Sprint(i)))
	}
	write(window...)
	write(call(`"w-a"`), call(`"w-b"`), call("100"), `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if id, _, _ := next(); id != `"p"` {
		t.Fatalf("the first answer with a full window is %s, want the ping's", id)
	}
	for ran.Load() != maxInFlight {
		time.Sleep(time.Millisecond)
	}
	// "w-\u0061" is "w-a": the id names the request by value.
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w-\u0061"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	got := map[string]json.RawMessage{}
	for len(got) < 2 {
		id, result, _ := next()
		got[id] = result
	}
	for _, id := range []string{`"w-a"`, "1"} {
		if !strings.Contains(string(got[id]), `\"code\":\"cancelled\"`) && !strings.Contains(string(got[id]), `"code":"cancelled"`) {
			t.Fatalf("cancelled %s answered %s", id, got[id])
		}
	}
	if !strings.Contains(string(got[`"w-a"`]), `"operation":"block"`) {
		t.Errorf("the cancelled waiting call's error does not name its tool: %s", got[`"w-a"`])
	}

	refused := 0
	if !testing.Short() {
		// The freed slot went to w-b: the window is full again, and
		// maxWaiting-1 more calls fill the waiting list (100 is in it).
		for ran.Load() != maxInFlight+1 {
			time.Sleep(time.Millisecond)
		}
		var more []string
		for i := 1; i < maxWaiting; i++ {
			more = append(more, call(fmt.Sprint(1000+i)))
		}
		write(more...)
		write(call(`"over"`))
		id, result, _ := next()
		if id != `"over"` || !strings.Contains(string(result), `"code":"truncated"`) ||
			!strings.Contains(string(result), `"limit":"waiting_requests"`) {
			t.Fatalf("the call past the bound answered %s %s, want truncated waiting_requests", id, result)
		}
		refused = 1
		write(`{"jsonrpc":"2.0","id":"p2","method":"ping"}`)
		if id, _, _ := next(); id != `"p2"` {
			t.Fatalf("a ping past the bound: %s", id)
		}
	}
	close(release)
	done := 0
	for done < maxInFlight-1+2+(maxWaiting-1)*refused {
		id, result, _ := next()
		if id == `"w-a"` {
			t.Fatal("the cancelled waiting call was answered again")
		}
		if !strings.Contains(string(result), `"done"`) {
			t.Fatalf("call %s answered %s", id, result)
		}
		done++
	}
	if n := ran.Load(); n != int64(maxInFlight+2+(maxWaiting-1)*refused) {
		t.Fatalf("%d calls ran, want every call but the cancelled waiting one", n)
	}
}
