package tools_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/ledger"
)

// Issue 3's acceptance item: "A request cancelled during the first full
// analysis of libLLVM-14.so.1 returns `cancelled` within 200 ms and publishes
// no Evidence."
const cancelBound = 200 * time.Millisecond

// raceFactor widens the bound under -race only: the race detector slows the
// index build's hot loops (and the gaps between its cancellation checks)
// 5–10×, so the unslowed bound would measure the detector, not REA.
func raceFactor() time.Duration {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				return 5
			}
		}
	}
	return 1
}

// locateLibLLVM finds libLLVM-14.so.1 (Debian package libllvm14): the
// REA_LIBLLVM14 override, the multiarch directories, then the dynamic
// loader's cache.
func locateLibLLVM(t *testing.T) string {
	t.Helper()
	const name = "libLLVM-14.so.1"
	candidates := []string{os.Getenv("REA_LIBLLVM14")}
	globbed, _ := filepath.Glob("/usr/lib/*/" + name)
	candidates = append(candidates, globbed...)
	candidates = append(candidates, "/usr/lib/llvm-14/lib/"+name, "/usr/lib/"+name, "/usr/lib64/"+name)
	if out, err := exec.Command("ldconfig", "-p").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == name {
				candidates = append(candidates, f[len(f)-1])
			}
		}
	}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	msg := name + " is not installed (Debian package libllvm14; or set REA_LIBLLVM14 to its path)"
	if os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" {
		t.Fatal(msg + "; it is required (REA_REQUIRE_ALL_TOOLS=1)")
	}
	t.Skip(msg + "; skipping")
	return ""
}

// TestCancelFirstAnalysisLibLLVM cancels binary_overview (which builds the
// symbol, procedure and string indexes) while its first analysis of
// libLLVM-14.so.1 is under way, on a fresh ledger and a fresh provider so
// nothing is cached. Two ways in: over a real `rea mcp` on stdio, where the
// client sends notifications/cancelled; and in-process, where the request's
// context is cancelled. Each way runs a few trials that cancel at different
// fractions of the time an uncancelled first analysis takes on this machine
// (measured first: open_binary now indexes symbols while it hashes, so what
// is left for the request depends on the machine, and fixed delays cancel
// after it on a fast one and before it reaches the index on a slow one).
// Each trial checks four things:
//   - the server answers `cancelled` within the bound, timed from cancel to
//     that answer;
//   - no Evidence is published, in the events or in the projection;
//   - the same request then succeeds;
//   - every trial agrees on the counts, so a cancelled build poisons nothing.
func TestCancelFirstAnalysisLibLLVM(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: analyses libLLVM-14 (105 MB) in eight fresh servers; TestCancelOpenOverMCP keeps a cancellation in the quick loop")
	}
	lib := locateLibLLVM(t)
	bound := cancelBound * raceFactor()
	fractions := []float64{0.1, 0.4, 0.7}
	var counts []overviewCounts
	for _, via := range []string{"stdio", "in-process"} {
		t.Run(via, func(t *testing.T) {
			full := firstOverviewTime(t, via, lib)
			t.Logf("%s: an uncancelled first binary_overview takes %v after open_binary", via, full)
			cancelled := 0
			for _, f := range fractions {
				r := cancelTrial(t, via, lib, time.Duration(f*float64(full)), bound)
				counts = append(counts, r.after)
				if r.cancelled {
					cancelled++
				}
			}
			if cancelled == 0 {
				t.Fatal("every trial finished before its cancellation: nothing was measured")
			}
		})
	}
	for _, c := range counts[1:] {
		if c != counts[0] {
			t.Fatalf("binary_overview after cancelled builds disagree: %+v vs %+v", c, counts[0])
		}
	}
}

// firstOverviewTime is how long the first binary_overview of lib takes on a
// fresh server reached via stdio or in-process, once open_binary has
// answered. (Under -race only the in-process server is slowed.)
func firstOverviewTime(t *testing.T, via, lib string) time.Duration {
	t.Helper()
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	var s *session
	if via == "stdio" {
		s = startStdio(t, ledgerPath)
	} else {
		s = startInProcess(t, newInProcessServer(t, ledgerPath))
	}
	s.ok("open_binary", map[string]any{"path": lib})
	start := time.Now()
	s.ok("binary_overview", map[string]any{})
	return time.Since(start)
}

type overviewCounts struct {
	Procedures int `json:"procedure_count"`
	Strings    int `json:"string_count"`
	Segments   int `json:"segment_count"`
}

type trialResult struct {
	cancelled bool
	after     overviewCounts
}

func cancelTrial(t *testing.T, via, lib string, delay, bound time.Duration) trialResult {
	t.Helper()
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	var (
		s         *session
		responses <-chan tappedResponse
		db        *sql.DB
	)
	if via == "stdio" {
		s, responses = startTappedStdio(t, ledgerPath)
	} else {
		p := newInProcessServer(t, ledgerPath)
		s, db = startInProcess(t, p), p.led.ReadDB()
	}
	s.ok("open_binary", map[string]any{"path": lib})
	if via == "stdio" {
		led, err := ledger.OpenReadOnly(context.Background(), ledgerPath)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { led.Close() })
		db = led.ReadDB()
	}
	before := evidenceCount(t, db)
	drainProgress(s)
	drainTapped(responses)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelAt := make(chan time.Time, 1)
	// Over stdio the delay runs from the request's write; in-process from
	// the call.
	sent := s.nextCallWritten()
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-sent:
		}
		select {
		case <-ctx.Done():
		case <-time.After(delay):
			cancelAt <- time.Now()
			cancel()
		}
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "binary_overview", map[string]any{}
	req.Params.Meta = &mcp.Meta{ProgressToken: "overview-" + via}
	start := time.Now()
	res, callErr := s.c.CallTool(ctx, req)
	returned := time.Now()

	var answered time.Time
	var answer []byte
	switch {
	case via == "stdio" && callErr != nil:
		// The client gave up at once and sent notifications/cancelled; the
		// server's own answer comes later, and that is what is timed.
		select {
		case r := <-responses:
			answered, answer = r.at, r.raw
		case <-time.After(10 * time.Second):
			t.Fatal("no response from rea mcp within 10 s of notifications/cancelled")
		}
	case callErr != nil:
		t.Fatalf("in-process binary_overview: %v", callErr)
	default:
		answered = returned
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		answer = b
	}

	var at time.Time
	select {
	case at = <-cancelAt:
	default:
	}
	code := errorCode(t, answer)
	cancelledTrial := false
	switch {
	case at.IsZero() || answered.Before(at):
		if code != "" {
			t.Fatalf("%s, delay %v: binary_overview failed before any cancellation: %s", via, delay, answer)
		}
		t.Logf("%s, delay %v: binary_overview finished in %v, before the cancellation; not measured",
			via, delay, answered.Sub(start))
	case code == "":
		// Answered successfully after cancel(): the request had published
		// before the cancellation reached it (its answer was on the way).
		t.Logf("%s, delay %v: cancelled %v into the request, but it had completed; answered %v later",
			via, delay, at.Sub(start), answered.Sub(at))
	default:
		latency := answered.Sub(at)
		t.Logf("%s, delay %v: cancelled %v into the request; %q answered %v after the cancel", via, delay,
			at.Sub(start), code, latency)
		if code != "cancelled" {
			t.Fatalf("%s: a cancelled request answered %q, want cancelled: %s", via, code, answer)
		}
		if latency > bound {
			t.Errorf("%s, delay %v: `cancelled` came %v after the cancel; the bound is %v", via, delay, latency, bound)
		}
		cancelledTrial = true
	}

	// Nothing the cancelled request did may be published, even late.
	time.Sleep(300 * time.Millisecond)
	if got := evidenceCount(t, db); cancelledTrial && got != before {
		t.Fatalf("%s: %d Evidence publication(s) recorded for a cancelled request", via, got-before)
	}
	mid := evidenceCount(t, db)

	// The same request then succeeds, and publishes exactly one record.
	after := decode[struct {
		Result overviewCounts `json:"result"`
	}](t, s.ok("binary_overview", map[string]any{}).Structured).Result
	if after.Procedures == 0 || after.Strings == 0 || after.Segments == 0 {
		t.Fatalf("%s: binary_overview after the cancellation: %+v", via, after)
	}
	if got := evidenceCount(t, db); got != mid+1 {
		t.Fatalf("%s: the successful binary_overview added %d Evidence publications, want 1", via, got-mid)
	}
	return trialResult{cancelled: cancelledTrial, after: after}
}

// evidenceCount counts Evidence publications in the event log and checks the
// projection agrees.
func evidenceCount(t *testing.T, db *sql.DB) int {
	t.Helper()
	var events, projected int
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE type = 'evidence_recorded'`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM proj_evidence_publications`).Scan(&projected); err != nil {
		t.Fatal(err)
	}
	if events != projected {
		t.Fatalf("%d evidence_recorded events but %d projected publications", events, projected)
	}
	return events
}

// errorCode returns the REA error code of a tools/call result (a bare
// CallToolResult or a JSON-RPC response carrying one), or "" for a success.
func errorCode(t *testing.T, raw []byte) string {
	t.Helper()
	var msg struct {
		Result json.RawMessage           `json:"result"`
		Error  *struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		t.Fatalf("undecodable answer %s: %v", raw, err)
	}
	if msg.Error != nil {
		t.Fatalf("JSON-RPC error instead of a tool result: %s", raw)
	}
	result := raw
	if msg.Result != nil {
		result = msg.Result
	}
	var r struct {
		IsError    bool `json:"isError"`
		Structured struct {
			Error struct{ Code string } `json:"error"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("undecodable result %s: %v", result, err)
	}
	if !r.IsError {
		return ""
	}
	if r.Structured.Error.Code == "" {
		t.Fatalf("error result without a code: %s", result)
	}
	return r.Structured.Error.Code
}

func drainProgress(s *session) {
	for {
		select {
		case <-s.progress:
		default:
			return
		}
	}
}

func drainTapped(ch <-chan tappedResponse) {
	for ch != nil {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// tappedResponse is one JSON-RPC response rea mcp wrote, with the time it was
// read. The mcp-go client drops the response to a request it has cancelled;
// the tap keeps it so the test can time it.
type tappedResponse struct {
	at  time.Time
	raw []byte
}

// startTappedStdio runs `rea mcp` on ledgerPath with the harness's client on
// its stdin/stdout, and reports every response it writes.
func startTappedStdio(t *testing.T, ledgerPath string) (*session, <-chan tappedResponse) {
	t.Helper()
	s, responses, stop := startTappedStdioStop(t, ledgerPath)
	t.Cleanup(stop)
	return s, responses
}

// startTappedStdioStop is startTappedStdio returning what stops rea mcp
// (end of input, then a kill after 10 s); calling it twice is harmless.
func startTappedStdioStop(t *testing.T, ledgerPath string) (*session, <-chan tappedResponse, func()) {
	t.Helper()
	cmd, stdin, stdout := startRawStdio(t, "--ledger", ledgerPath, "mcp")
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		stdin.Close() // rea mcp exits at end of input
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	responses := make(chan tappedResponse, 64)
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				at := time.Now()
				var head struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal(line, &head) == nil && head.ID != nil && head.Method == "" {
					select {
					case responses <- tappedResponse{at: at, raw: line}:
					default:
					}
				}
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	written := &callWriteTap{w: stdin, calls: make(chan struct{}, 64)}
	c := client.NewClient(transport.NewIO(pr, written, io.NopCloser(strings.NewReader(""))))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := initialize(t, c)
	s.callsWritten = written.calls
	return s, responses, stop
}

// callWriteTap tells when a tools/call request has reached rea mcp's
// input: a client whose context ends before that never sends the request,
// so a cancellation timed from the call, not from the write, can test
// nothing and wait for an answer that cannot come.
type callWriteTap struct {
	w     io.WriteCloser
	calls chan struct{}
}

func (c *callWriteTap) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err == nil && bytes.Contains(p, []byte(`"method":"tools/call"`)) {
		select {
		case c.calls <- struct{}{}:
		default:
		}
	}
	return n, err
}

func (c *callWriteTap) Close() error { return c.w.Close() }
