package tools_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/tools"
)

// fixtureC is the C program the end-to-end tests open.
const fixtureC = `#include <stdio.h>
#include <string.h>
const char *banner = "REA fixture banner string";
int counter = 3;
static int helper_add(int a, int b) { return a + b + counter; }
int exported_twice(int x) { return helper_add(x, x); }
int main(int argc, char **argv) {
	printf("%s %d\n", banner, exported_twice(argc));
	return strlen(argv[0]) > 1000;
}
`

// compileFixture builds the C fixture with gcc -O0 -g into dir.
func compileFixture(t testing.TB, dir string) string {
	t.Helper()
	return testkit.CompileC(t, dir, "fixture", fixtureC, "-O0", "-g")
}

// session is one MCP client connection under test, stdio or in-process.
type session struct {
	t        testing.TB
	c        *client.Client
	mu       sync.Mutex
	changed  int
	notify   chan struct{}
	progress chan map[string]any
	// callsWritten, on a tapped session, receives once each tools/call
	// request has been written to rea mcp's input (nil otherwise).
	callsWritten chan struct{}
}

// nextCallWritten forgets earlier writes and returns what receives once
// the next tools/call request has been written to rea mcp's input; for a
// session without the tap (in-process), what is ready at once. A
// cancellation timed from it can always reach the server: a client
// cancelled before the write never sends the request.
func (s *session) nextCallWritten() <-chan struct{} {
	if s.callsWritten == nil {
		ready := make(chan struct{}, 1)
		ready <- struct{}{}
		return ready
	}
	for len(s.callsWritten) > 0 {
		<-s.callsWritten
	}
	return s.callsWritten
}

func startStdio(t testing.TB, ledgerPath string, env ...string) *session {
	t.Helper()
	c, err := client.NewStdioMCPClient(testkit.Rea(t), append(os.Environ(), env...), "--ledger", ledgerPath, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil { // installs the notification handler
		t.Fatal(err)
	}
	return initialize(t, c)
}

type inProcess struct {
	led *ledger.Ledger
	srv *tools.Server
}

func newInProcessServer(t testing.TB, ledgerPath string) *inProcess {
	t.Helper()
	led, err := ledger.Open(context.Background(), ledgerPath, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"})
	srv := tools.New(eng, tools.Options{Transport: "stdio"})
	t.Cleanup(func() {
		srv.CloseAll(context.Background(), "server_shutdown")
		led.Close()
	})
	return &inProcess{led: led, srv: srv}
}

func startInProcess(t testing.TB, p *inProcess) *session {
	t.Helper()
	c, err := client.NewInProcessClient(p.srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return initialize(t, c)
}

func initialize(t testing.TB, c *client.Client) *session {
	t.Helper()
	s := &session{t: t, c: c, notify: make(chan struct{}, 64), progress: make(chan map[string]any, 1024)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			select {
			case s.progress <- n.Params.AdditionalFields:
			default:
			}
		}
		if n.Method == mcp.MethodNotificationToolsListChanged {
			s.mu.Lock()
			s.changed++
			s.mu.Unlock()
			s.notify <- struct{}{}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: "rea-e2e", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != "2025-11-25" {
		t.Fatalf("negotiated %q", res.ProtocolVersion)
	}
	t.Cleanup(func() { c.Close() })
	return s
}

// waitChanged waits for one notifications/tools/list_changed.
func (s *session) waitChanged() {
	s.t.Helper()
	select {
	case <-s.notify:
	case <-time.After(10 * time.Second):
		s.t.Fatal("no notifications/tools/list_changed within 10s")
	}
}

func (s *session) toolNames() map[string]bool {
	s.t.Helper()
	res, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		s.t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tool := range res.Tools {
		out[tool.Name] = true
	}
	return out
}

// reply is a decoded tool result.
type reply struct {
	IsError    bool
	Structured json.RawMessage
	Text       string
}

func (s *session) call(ctx context.Context, name string, args any) reply {
	s.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		s.t.Fatalf("%s: protocol error: %v", name, err)
	}
	var r reply
	r.IsError = res.IsError
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(mcp.TextContent); ok {
			r.Text = tc.Text
		}
	}
	if res.StructuredContent == nil {
		return r // a tool outside REA's catalog (the benchmark's echo)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		s.t.Fatal(err)
	}
	r.Structured = b
	if r.Text != "" && !jsonEqual(r.Text, string(b)) {
		s.t.Fatalf("%s: text content differs from structuredContent:\n%s\n%s", name, r.Text, b)
	}
	return r
}

func (s *session) ok(name string, args any) reply {
	s.t.Helper()
	r := s.call(context.Background(), name, args)
	if r.IsError {
		s.t.Fatalf("%s failed: %s", name, r.Structured)
	}
	return r
}

// errorOf returns the error envelope of a failed call.
func (s *session) errorOf(name string, args any) map[string]any {
	s.t.Helper()
	r := s.call(context.Background(), name, args)
	if !r.IsError {
		s.t.Fatalf("%s succeeded, want an error: %s", name, r.Structured)
	}
	var env struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(r.Structured, &env); err != nil || env.Error == nil {
		s.t.Fatalf("%s: no error envelope: %s", name, r.Structured)
	}
	for _, k := range []string{"code", "category", "message", "retryable", "remediation"} {
		if _, ok := env.Error[k]; !ok {
			s.t.Fatalf("%s: error envelope lacks %s: %s", name, k, r.Structured)
		}
	}
	return env.Error
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

func decode[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// startRawStdio starts `rea` with args (typically --ledger PATH mcp) and
// returns its stdin and stdout, for tests and benchmarks that speak JSON-RPC
// themselves.
func startRawStdio(t testing.TB, args ...string) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	return startRawStdioEnv(t, nil, args...)
}

// startRawStdioEnv is startRawStdio with env added to the test's environment.
func startRawStdioEnv(t testing.TB, env []string, args ...string) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(testkit.Rea(t), args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = os.Stderr // whatever rea says lands in the test's output
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, stdout
}

// evRecord is the part of a stored Evidence record the tests look at.
type evRecord struct {
	EvidenceID    string              `json:"evidence_id"`
	Operation     string              `json:"operation"`
	PredicateType string              `json:"predicate_type"`
	Confidence    string              `json:"confidence"`
	Provider      struct{ ID string } `json:"provider"`
	Subject       *struct {
		Format string `json:"format"`
	} `json:"subject"`
	Parameters    map[string]any                   `json:"parameters"`
	Locations     []struct{ Kind, Address string } `json:"locations"`
	EvidenceLinks []string                         `json:"evidence_links"`
}

// recordOf fetches, with get_evidence_bundle, the stored record an answer's
// inline context names: the compact context (the default) carries only the
// id and how far to trust the answer.
func recordOf(t testing.TB, s *session, r reply) evRecord {
	t.Helper()
	id := decode[struct {
		Evidence struct {
			EvidenceID string `json:"evidence_id"`
		} `json:"evidence"`
	}](t, r.Structured).Evidence.EvidenceID
	b := decode[struct {
		Result struct {
			Bundle struct {
				Records []evRecord `json:"records"`
			} `json:"bundle"`
		} `json:"result"`
	}](t, s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{id}}).Structured)
	if len(b.Result.Bundle.Records) != 1 || b.Result.Bundle.Records[0].EvidenceID != id {
		t.Fatalf("bundle of %s: %+v", id, b.Result.Bundle.Records)
	}
	return b.Result.Bundle.Records[0]
}
