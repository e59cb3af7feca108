package tools_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine/policy"
)

// Issue 5's HTTP acceptance against a real `rea mcp --http`: connection-local
// grants stay with their connection, and a SIGHUP applies a new project
// grant to every live connection, each told by list_changed.

// connectHTTPAsking is connectHTTP with a client that answers elicitations.
func connectHTTPAsking(t *testing.T, url, name string, a *answerer) *session {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithContinuousListening(), transport.WithLogger(slog.New(slog.DiscardHandler)),
		transport.WithHTTPBasicClient(&http.Client{Transport: bearer{testToken}}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithElicitationHandler(a))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, c: c, notify: make(chan struct{}, 64), progress: make(chan map[string]any, 64)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationToolsListChanged {
			s.notify <- struct{}{}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize %s: %v", name, err)
	}
	t.Cleanup(func() { c.Close() })
	return s
}

func TestHTTPConnectionGrantsAndSIGHUP(t *testing.T) {
	work := t.TempDir()
	project := t.TempDir()
	storeDir := filepath.Join(t.TempDir(), "store")
	if err := os.Mkdir(storeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"REA_PROCESS_CAPTURE_ENABLED":       "true",
		"REA_PROCESS_WORKING_ROOTS_JSON":    mustJSON(t, []string{work}),
		"REA_PROCESS_EXECUTABLE_ROOTS_JSON": mustJSON(t, []string{"/usr/bin", "/bin"}),
		"REA_PERMISSION_PROJECT_ROOT":       project,
		"REA_PERMISSION_PROJECT_STORE":      filepath.Join(storeDir, "grants.json"),
	}
	cfg, err := policy.LoadConfig(env)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		t.Setenv(k, v) // the rea process inherits them
	}
	cmd, url := reaHTTP(t, filepath.Join(t.TempDir(), "ledger.db"))

	args := map[string]any{"executable": "/bin/echo", "arguments": []string{"hi"}, "working_directory": work, "timeout_ms": 20000}
	aAsk := &answerer{action: mcp.ElicitationResponseActionAccept, content: map[string]any{"lifetime": "session"}}
	bAsk := &answerer{action: mcp.ElicitationResponseActionDecline}
	a := connectHTTPAsking(t, url, "a", aAsk)
	b := connectHTTPAsking(t, url, "b", bAsk)

	a.ok("capture_process_scenario", args)
	if e := b.errorOf("capture_process_scenario", args); e["code"] != "permission_required" || bAsk.asked.Load() != 1 {
		t.Fatalf("A's session grant authorized B: %v (B asked %d)", e, bAsk.asked.Load())
	}
	b.c.Close()
	time.Sleep(200 * time.Millisecond)
	a.ok("capture_process_scenario", args)
	if n := aAsk.asked.Load(); n != 1 {
		t.Fatalf("A asked %d times: B's close must not clear A's session grant", n)
	}

	// A project grant, applied by SIGHUP, authorizes a fresh connection C
	// without asking, and both live connections hear list_changed.
	cAsk := &answerer{action: mcp.ElicitationResponseActionDecline}
	c := connectHTTPAsking(t, url, "c", cAsk)
	drainChanged(a)
	drainChanged(c)
	grant := policy.Grant{Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: []string{work},
		Executables: []string{"/usr/bin/echo"}, EnvironmentNames: []string{}, Network: "none"},
		GrantID: "project-echo", Lifetime: "project"}
	if real, err := filepath.EvalSymlinks("/bin/echo"); err == nil {
		grant.Executables = []string{real}
	}
	if err := policy.WriteStore(context.Background(), *cfg.Store, cfg.Ceilings, []policy.Grant{grant}); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	a.waitChanged()
	c.waitChanged()
	r := c.ok("capture_process_scenario", args)
	if cAsk.asked.Load() != 0 {
		t.Fatal("C was asked although the project grant covers its capture")
	}
	var out struct {
		Result struct {
			Exit struct{ Reason string } `json:"exit"`
		} `json:"result"`
	}
	json.Unmarshal(r.Structured, &out)
	if out.Result.Exit.Reason != "exited" {
		t.Fatalf("capture under the project grant: %s", r.Structured)
	}
}
