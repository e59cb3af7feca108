package tools_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/tools"
)

// Issue 23 item 2, "No wedge": an operation that blocks on one target and
// ignores its context never stops cancellation handling, other targets,
// close_binary or binary_session, and hung calls cannot fill the 64-request
// window so that notifications/cancelled is no longer read (CONTRACTS.md
// §0.3 "Paths a sample names", §6, §15).

// wedgeCalls is the number of hung calls of the acceptance line: more than
// the 64 a connection runs at once.
const wedgeCalls = 70

// toolAnswer is the part of a tools/call result the wedge tests read.
type toolAnswer struct {
	IsError           bool `json:"isError"`
	StructuredContent struct {
		Error *struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	} `json:"structuredContent"`
}

func (a toolAnswer) code() string {
	if a.StructuredContent.Error == nil {
		return ""
	}
	return a.StructuredContent.Error.Code
}

// callTool sends a tools/call with the given id (a JSON value) and does not
// wait for its answer.
func (c *rawConn) callTool(id, name string, args any) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, mustJSON(c.t, args)))
}

// answerTo reads messages until the response to id, skipping
// notifications; a response to any other request fails the test.
func (c *rawConn) answerTo(id string) rawMessage {
	c.t.Helper()
	for {
		m := decodeRaw(c.t, c.next())
		if m.Method != "" {
			continue
		}
		if string(m.ID) != id {
			c.t.Fatalf("waiting for the answer to %s, got one to %s: %.300s", id, m.ID, m.Result)
		}
		return m
	}
}

// tool calls a tool and returns its answer.
func (c *rawConn) tool(id, name string, args any) toolAnswer {
	c.t.Helper()
	c.callTool(id, name, args)
	m := c.answerTo(id)
	if m.Error != nil || m.Result == nil {
		c.t.Fatalf("%s: protocol error %+v", name, m.Error)
	}
	var a toolAnswer
	if err := json.Unmarshal(m.Result, &a); err != nil {
		c.t.Fatalf("%s: %v: %.300s", name, err, m.Result)
	}
	return a
}

// openTarget opens path and returns its target_id.
func (c *rawConn) openTarget(id, path string) string {
	c.t.Helper()
	a := c.tool(id, "open_binary", map[string]any{"path": path})
	var r struct {
		TargetID string `json:"target_id"`
	}
	if a.IsError || json.Unmarshal(a.StructuredContent.Result, &r) != nil || r.TargetID == "" {
		c.t.Fatalf("open_binary %s: %s", path, a.StructuredContent.Result)
	}
	return r.TargetID
}

// pings sends n pings and waits for every answer.
func (c *rawConn) pings(n int) {
	c.t.Helper()
	for i := range n {
		id := fmt.Sprintf(`"ping-%d"`, i)
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if m := c.answerTo(id); m.Error != nil || m.Result == nil {
			c.t.Fatalf("ping %d: %+v", i, m.Error)
		}
	}
}

// hungCallsThenCancel sends wedgeCalls list_dependencies calls on target,
// waits until started receives (nil: no wait), proves with a ping that the
// server still reads its input, cancels every call and returns the answers
// by id (1..wedgeCalls).
func (c *rawConn) hungCallsThenCancel(target string, started <-chan struct{}) map[int]toolAnswer {
	c.t.Helper()
	for i := 1; i <= wedgeCalls; i++ {
		c.callTool(fmt.Sprint(i), "list_dependencies", map[string]any{"target": target})
	}
	if started != nil {
		select {
		case <-started:
		case <-time.After(time.Minute):
			c.t.Fatal("the blocking list_dependencies call never started")
		}
	}
	// Answered on the read loop, after it read all the calls: the window
	// is full, and the input is still read. Calls that do not block (a FIFO
	// the builtin no longer opens, CONTRACTS.md §0.3) may answer before it.
	const ping = `"ping-window"`
	c.send(`{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}`)
	for i := 1; i <= wedgeCalls; i++ {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"test"}}`, i))
	}
	answers := map[int]toolAnswer{}
	pinged := false
	for len(answers) < wedgeCalls || !pinged {
		m := decodeRaw(c.t, c.next())
		if m.Method != "" {
			continue
		}
		if string(m.ID) == ping {
			if m.Error != nil || m.Result == nil {
				c.t.Fatalf("ping with the window full: %+v", m.Error)
			}
			pinged = true
			continue
		}
		var id int
		if err := json.Unmarshal(m.ID, &id); err != nil || id < 1 || id > wedgeCalls || m.Result == nil {
			c.t.Fatalf("unexpected answer %s: %+v %.300s", m.ID, m.Error, m.Result)
		}
		if _, dup := answers[id]; dup {
			c.t.Fatalf("two answers to call %d", id)
		}
		var a toolAnswer
		if err := json.Unmarshal(m.Result, &a); err != nil {
			c.t.Fatalf("call %d: %v", id, err)
		}
		answers[id] = a
	}
	return answers
}

// TestHungCallsDoNotWedgeTheConnection: list_dependencies on one target is
// made to block ignoring its context (an injected provider: the real cause,
// a FIFO beside the sample, is removed in the builtin; the fault cannot be
// caused for real any more), served by REA's stdio transport. 70 calls,
// then notifications/cancelled for all of them: every one answers
// cancelled; a call on another target answers normally; binary_session
// shows the abandoned call; close_binary answers, reporting that the
// client could not be confirmed released while the call still runs on it;
// 20 pings are answered. When the blocked call finally returns, the client
// is closed and nothing is left running.
func TestHungCallsDoNotWedgeTheConnection(t *testing.T) {
	binA := compileFixture(t, t.TempDir())
	binB := compileFixture(t, t.TempDir())
	realA, err := filepath.EvalSymlinks(binA)
	if err != nil {
		t.Fatal(err)
	}
	fp := &faultyProvider{Provider: builtin.New("test"), stuckOp: "list_dependencies", stuckPath: realA,
		entered: make(chan struct{}, 1), release: make(chan struct{})}
	led, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(fp), Version: "test"})
	srv := tools.New(eng, tools.Options{Transport: "stdio"})
	// OS pipes, as `rea mcp` has: the server writes answers on its read
	// loop (cancelled waiting calls, pings), which an unbuffered io.Pipe
	// would block until the test reads.
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromServerR, fromServerW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), toServerR, fromServerW) }()
	// A wedged server fails the test at the limit instead of hanging it:
	// closing the test's end of the answers ends its blocked read.
	limit := time.AfterFunc(3*time.Minute, func() { fromServerR.Close() })
	t.Cleanup(func() {
		limit.Stop()
		close(fp.release) // the blocked call returns
		toServerW.Close() // end of input: the connection closes
		go io.Copy(io.Discard, fromServerR)
		select {
		case <-served:
		case <-time.After(time.Minute):
			t.Error("ServeStdio did not return after the end of its input")
		}
		for deadline := time.Now().Add(time.Minute); eng.AbandonedCalls() != 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("%d abandoned calls still running after they were released", eng.AbandonedCalls())
				break
			}
		}
		srv.CloseAll(context.Background(), "server_shutdown")
		led.Close()
		for _, f := range []*os.File{toServerR, fromServerR, fromServerW} {
			f.Close()
		}
	})
	c := &rawConn{t: t, stdin: toServerW, lines: bufio.NewReaderSize(fromServerR, 1<<20)}
	c.initialize(`{}`)
	targetA := c.openTarget(`"open-a"`, binA)
	targetB := c.openTarget(`"open-b"`, binB)

	answers := c.hungCallsThenCancel(targetA, fp.entered)
	for id := 1; id <= wedgeCalls; id++ {
		if a := answers[id]; a.code() != "cancelled" {
			t.Errorf("call %d answered %q, want cancelled", id, a.code())
		}
	}

	if a := c.tool(`"other"`, "list_procedures", map[string]any{"target": targetB, "limit": 5}); a.IsError {
		t.Fatalf("list_procedures on the other target: %s", a.code())
	}
	// list_dependencies reads the other open targets' library names; the
	// blocked one cannot answer, and is left out with a limitation.
	c.callTool(`"other-deps"`, "list_dependencies", map[string]any{"target": targetB})
	if m := c.answerTo(`"other-deps"`); m.Error != nil || strings.Contains(string(m.Result), `"isError":true`) ||
		!strings.Contains(string(m.Result), targetA+" was not consulted") {
		t.Fatalf("list_dependencies on the other target: %+v %.600s", m.Error, m.Result)
	}
	c.callTool(`"other-import"`, "resolve_import", map[string]any{"target": targetB, "name": "printf"})
	if m := c.answerTo(`"other-import"`); m.Error != nil || strings.Contains(string(m.Result), `"isError":true`) ||
		!strings.Contains(string(m.Result), targetA+" was not consulted") {
		t.Fatalf("resolve_import on the other target: %+v %.600s", m.Error, m.Result)
	}
	// The injected call still runs: its caller left, and it is shown and
	// counted (CONTRACTS.md §3.8).
	if n := eng.AbandonedCalls(); n != 1 {
		t.Errorf("%d abandoned calls, want 1 (the blocked one)", n)
	}
	session := c.tool(`"session"`, "binary_session", map[string]any{"detail": "full"})
	var full struct {
		Targets []sessionTarget `json:"targets"`
	}
	if session.IsError || json.Unmarshal(session.StructuredContent.Result, &full) != nil {
		t.Fatalf("binary_session: %s %s", session.code(), session.StructuredContent.Result)
	}
	i := slices.IndexFunc(full.Targets, func(x sessionTarget) bool { return x.TargetID == targetA })
	if i < 0 || len(full.Targets[i].AnalysisActivity.Providers) != 1 {
		t.Fatalf("binary_session does not show the blocked target's activity: %s", session.StructuredContent.Result)
	}
	act := full.Targets[i].AnalysisActivity
	if p := act.Providers[0]; act.Status != "busy" || p.QueuedRequests != 0 || p.Active == nil ||
		p.Active.Operation != "list_dependencies" || p.Active.CallerState != "cancelled" {
		t.Errorf("activity of the blocked target %+v, want busy with the cancelled list_dependencies and nothing queued", act)
	}

	closed := c.tool(`"close"`, "close_binary", map[string]any{"target": targetA})
	if closed.code() != "cleanup_incomplete" ||
		fmt.Sprint(closed.StructuredContent.Error.Details["resources"]) != "[provider-client]" {
		t.Errorf("close_binary of the blocked target answered %q %v, want cleanup_incomplete of the provider-client",
			closed.code(), closed.StructuredContent.Error)
	}
	c.pings(20)
	if a := c.tool(`"after"`, "list_dependencies", map[string]any{"target": targetA}); a.code() != "invalid_request" {
		t.Errorf("a call on the closed target answered %q, want invalid_request", a.code())
	}
	if a := c.tool(`"other-again"`, "list_dependencies", map[string]any{"target": targetB}); a.IsError {
		t.Errorf("list_dependencies on the other target answered %q", a.code())
	}
}

// sessionTarget is the part of a binary_session full view's targets item
// the wedge test reads.
type sessionTarget struct {
	TargetID         string `json:"target_id"`
	AnalysisActivity struct {
		Status    string `json:"status"`
		Providers []struct {
			QueuedRequests int `json:"queued_requests"`
			Active         *struct {
				Operation   string `json:"operation"`
				CallerState string `json:"caller_state"`
			} `json:"active"`
		} `json:"providers"`
	} `json:"analysis_activity"`
}

// fifoLibraryTarget builds an ELF program that needs libwedge.so with
// RUNPATH $ORIGIN/lib, and puts it in a directory whose lib/libwedge.so
// is a FIFO: the target of the finding "a FIFO named like a needed
// library beside the sample" (issue 23).
func fifoLibraryTarget(t *testing.T) string {
	t.Helper()
	gcc := testkit.Need(t, "gcc")
	if runtime.GOOS != "linux" {
		testkit.SkipOrFail(t, "the FIFO-bearing target is an ELF program built and laid out on Linux only")
	}
	build, dir := t.TempDir(), t.TempDir()
	if _, err := testkit.BuildC(gcc, build, "libwedge.so", "int wedge_fn(int x) { return x + 1; }\n",
		"-shared", "-fPIC", "-Wl,-soname,libwedge.so"); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(build, "app.c")
	if err := os.WriteFile(src, []byte("#include <stdio.h>\nextern int wedge_fn(int);\nint main(int argc, char **argv) { printf(\"%d\\n\", wedge_fn(argc)); return 0; }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(dir, "app")
	// The library comes after the object that uses it (--as-needed).
	if b, err := exec.Command(gcc, "-o", app, src, "-L"+build, "-lwedge", "-Wl,-rpath,$ORIGIN/lib", "-Wl,--enable-new-dtags").CombinedOutput(); err != nil {
		t.Fatalf("gcc app: %v\n%s", err, b)
	}
	if err := os.Mkdir(filepath.Join(dir, "lib"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "lib", "libwedge.so"), 0o600); err != nil {
		t.Fatal(err)
	}
	return app
}

// TestFIFOTargetDoesNotWedgeRealServer: a real `rea mcp`, a target with a
// FIFO named like its needed library: 70 list_dependencies calls, then
// notifications/cancelled for each. Every call is answered — cancelled
// where the FIFO still blocks the analysis (before the builtin opens
// sample-named paths non-blocking), its normal result where it does not —
// a call on another target answers normally, close_binary of the FIFO
// target answers, and 20 pings after are answered.
func TestFIFOTargetDoesNotWedgeRealServer(t *testing.T) {
	app := fifoLibraryTarget(t)
	other := compileFixture(t, t.TempDir())
	c := startRaw(t, 3*time.Minute)
	c.initialize(`{}`)
	fifoTarget := c.openTarget(`"open-fifo"`, app)
	otherTarget := c.openTarget(`"open-other"`, other)

	answers := c.hungCallsThenCancel(fifoTarget, nil)
	counts := map[string]int{}
	for id := 1; id <= wedgeCalls; id++ {
		a := answers[id]
		switch {
		case a.code() == "cancelled":
			counts["cancelled"]++
		case !a.IsError && a.StructuredContent.Result != nil:
			counts["answered"]++
		default:
			t.Errorf("call %d answered %q, want cancelled or its result", id, a.code())
		}
	}
	t.Logf("%d calls on the FIFO-bearing target: %v", wedgeCalls, counts)

	if a := c.tool(`"other"`, "list_dependencies", map[string]any{"target": otherTarget}); a.IsError {
		t.Fatalf("list_dependencies on the other target answered %q", a.code())
	}
	switch closed := c.tool(`"close"`, "close_binary", map[string]any{"target": fifoTarget}); {
	case !closed.IsError:
	case closed.code() == "cleanup_incomplete" && counts["cancelled"] > 0:
		// The call blocked on the FIFO still holds the in-process client.
	default:
		t.Errorf("close_binary of the FIFO-bearing target answered %q", closed.code())
	}
	c.pings(20)
	if got := c.tool(`"session"`, "binary_session", map[string]any{}); got.IsError || !strings.Contains(string(got.StructuredContent.Result), `"open":true`) {
		t.Errorf("binary_session after the close: %q %s", got.code(), got.StructuredContent.Result)
	}
}
