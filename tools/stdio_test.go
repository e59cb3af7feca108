package tools_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
)

// TestStdioElicitation asks the question of a capture over a real `rea mcp`
// subprocess: the server's elicitation/create request and the client's
// answer cross REA's own stdio transport in both directions.
func TestStdioElicitation(t *testing.T) {
	root := t.TempDir()
	env := append(os.Environ(), "REA_PROCESS_CAPTURE_ENABLED=true",
		"REA_PROCESS_WORKING_ROOTS_JSON="+mustJSON(t, []string{root}),
		"REA_PROCESS_EXECUTABLE_ROOTS_JSON="+mustJSON(t, []string{"/usr/bin", "/bin"}))
	capture := map[string]any{"executable": "/bin/sh", "arguments": []string{"-c", `read line; echo "got:$line"`},
		"working_directory": root, "stdin_steps": []map[string]any{{"type": "write", "data": "hello\n"}}, "timeout_ms": 20000}
	for _, action := range []mcp.ElicitationResponseAction{mcp.ElicitationResponseActionAccept, mcp.ElicitationResponseActionDecline} {
		t.Run(string(action), func(t *testing.T) {
			a := &answerer{action: action}
			if action == mcp.ElicitationResponseActionAccept {
				a.content = map[string]any{"lifetime": "once"}
			}
			tr := transport.NewStdio(testkit.Rea(t), env, "--ledger", filepath.Join(t.TempDir(), "ledger.db"), "mcp")
			c := client.NewClient(tr, client.WithElicitationHandler(a))
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			s := initialize(t, c)
			if action == mcp.ElicitationResponseActionAccept {
				r := s.ok("capture_process_scenario", capture)
				if !strings.Contains(string(r.Structured), "got:hello") || a.asked.Load() != 1 {
					t.Fatalf("accepted capture (asked %d): %.300s", a.asked.Load(), r.Structured)
				}
				return
			}
			if e := s.errorOf("capture_process_scenario", capture); e["code"] != "permission_required" || a.asked.Load() != 1 {
				t.Fatalf("declined capture (asked %d): %v", a.asked.Load(), e)
			}
		})
	}
}

// TestStdioFraming speaks raw JSON-RPC to `rea mcp`: malformed and oversized
// lines get parse errors without ending the connection, blank lines are
// skipped, a last request without a newline is still answered, and an
// answer is one line whose text copy is the structured content.
func TestStdioFraming(t *testing.T) {
	cmd, stdin, stdout := startRawStdio(t, "--ledger", filepath.Join(t.TempDir(), "ledger.db"), "mcp")
	defer cmd.Wait()
	lines := bufio.NewReaderSize(stdout, 1<<20)
	next := func() map[string]any {
		t.Helper()
		timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
		defer timer.Stop()
		line, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading an answer: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("not one JSON message per line: %v: %.200q", err, line)
		}
		return m
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s); err != nil {
			t.Fatal(err)
		}
	}
	parseError := func(m map[string]any) bool {
		e, _ := m["error"].(map[string]any)
		return e != nil && e["code"] == float64(mcp.PARSE_ERROR) && m["id"] == nil
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")
	if m := next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n\n   \n")
	send("{not json\n")
	if m := next(); !parseError(m) {
		t.Fatalf("malformed line: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"pad":"` +
		strings.Repeat("x", 17<<20) + `"}}}` + "\n")
	if m := next(); !parseError(m) {
		t.Fatalf("oversized line: %.300v", m)
	}
	send(`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"binary_session","arguments":{}}}`)
	stdin.Close()
	m := next()
	res, _ := m["result"].(map[string]any)
	if m["id"] != "three" || res == nil {
		t.Fatalf("last request without a newline: %v", m)
	}
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content: %v", res)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatal(err)
	}
	if a, b := fmt.Sprint(fromText), fmt.Sprint(res["structuredContent"]); a != b || a == "<nil>" {
		t.Fatalf("text copy %s differs from structuredContent %s", a, b)
	}
}

// TestStdioSignalShutsDownCleanly sends SIGTERM to `rea mcp` while its stdin
// is still open: the server must not wait for input that never comes; it
// closes the connection (server_shutdown) and the target, then exits 0.
func TestStdioSignalShutsDownCleanly(t *testing.T) {
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	cmd, stdin, stdout := startRawStdio(t, "--ledger", ledgerPath, "mcp")
	defer stdin.Close()
	lines := bufio.NewReader(stdout)
	call := func(req string) {
		t.Helper()
		if _, err := io.WriteString(stdin, req+"\n"); err != nil {
			t.Fatal(err)
		}
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(line, `"id":`) && !strings.Contains(line, `"method"`) {
				return
			}
		}
	}
	call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open_binary","arguments":{"path":` + mustJSON(t, testkit.Rea(t)) + `}}}`)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("rea mcp after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("rea mcp did not exit after SIGTERM with its stdin open")
	}
	led, err := ledger.Open(context.Background(), ledgerPath, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	var reasons []string
	var targetClosed bool
	if err := led.Scan(context.Background(), 1, func(e ledger.Event) error {
		switch e.Type {
		case events.ConnectionClosed:
			var d events.ConnectionClosedData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return err
			}
			reasons = append(reasons, d.Reason)
		case events.TargetClosed:
			targetClosed = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(reasons) != 1 || reasons[0] != "server_shutdown" || !targetClosed {
		t.Fatalf("connection_closed reasons %v, target closed %v", reasons, targetClosed)
	}
}

// TestStdioProgressPrecedesTheAnswer: every notifications/progress a call
// sends is written before its answer (CONTRACTS.md §6.1), on every call,
// not only when the transport happens to be quick. The answer waits for a
// mark in the notification queue rather than for a pause.
func TestStdioProgressPrecedesTheAnswer(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	cmd, stdin, stdout := startRawStdio(t, "--ledger", filepath.Join(dir, "ledger.db"), "mcp")
	defer cmd.Wait()
	defer stdin.Close()
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	lines := bufio.NewReaderSize(stdout, 1<<20)
	send := func(v map[string]any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	// call sends one request with a progress token and returns the progress
	// messages that arrived for that token before its answer.
	call := func(id int, name string, args map[string]any) []string {
		t.Helper()
		token := fmt.Sprintf("p-%d", id)
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": name, "arguments": args, "_meta": map[string]any{"progressToken": token}}})
		var before []string
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("call %d: %v", id, err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Params map[string]any  `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			switch {
			case m.Method == "notifications/progress" && m.Params["progressToken"] == token:
				msg, _ := m.Params["message"].(string)
				before = append(before, msg)
			case m.ID != nil && *m.ID == id:
				if m.Result == nil {
					t.Fatalf("call %d (%s): %s", id, name, line)
				}
				return before
			}
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	if _, err := lines.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	if got := call(1, "open_binary", map[string]any{"path": fixture}); len(got) == 0 || got[len(got)-1] != "open_binary: completed" {
		t.Fatalf("open_binary's progress before its answer: %q", got)
	}
	for id := 2; id < 60; id++ {
		got := call(id, "list_procedures", map[string]any{"offset": 0, "limit": 1 + id%5})
		if len(got) == 0 || got[len(got)-1] != "list_procedures: completed" {
			t.Fatalf("call %d: progress before the answer: %q (the last must be the completion)", id, got)
		}
	}
}
