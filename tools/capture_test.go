package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/tools"
)

// Issue 5's elicitation acceptance with the mcp-go client: a capture inside
// the process_capture ceiling but without a grant asks the client once; the
// answer decides.

type answerer struct {
	action  mcp.ElicitationResponseAction
	content any
	asked   atomic.Int32
}

func (a *answerer) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked.Add(1)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: a.action, Content: a.content}}, nil
}

const captureSecret = "s3cr3t-value-that-must-not-leak"

// captureServer is an in-process server whose policy allows captures of
// /bin and /usr/bin programs in root, with REA_TEST_SECRET passable.
func captureServer(t *testing.T, root string) (*tools.Server, *ledger.Ledger, string) {
	t.Helper()
	cfg, err := policy.LoadConfig(map[string]string{
		"REA_PROCESS_CAPTURE_ENABLED":       "true",
		"REA_PROCESS_WORKING_ROOTS_JSON":    mustJSON(t, []string{root}),
		"REA_PROCESS_EXECUTABLE_ROOTS_JSON": mustJSON(t, []string{"/usr/bin", "/bin"}),
		"REA_PROCESS_ALLOWED_ENV_JSON":      `["REA_TEST_SECRET"]`,
	})
	if err != nil {
		t.Fatal(err)
	}
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	led, err := ledger.Open(context.Background(), ledgerPath, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test",
		Policy: policy.New(cfg, nil, policy.Options{})})
	lookup := func(name string) (string, bool) {
		if name == "REA_TEST_SECRET" {
			return captureSecret, true
		}
		return "", false
	}
	srv := tools.New(eng, tools.Options{Transport: "stdio", LookupEnv: lookup})
	t.Cleanup(func() {
		srv.CloseAll(context.Background(), "server_shutdown")
		led.Close()
	})
	return srv, led, ledgerPath
}

func captureClient(t *testing.T, srv *tools.Server, a *answerer) *session {
	t.Helper()
	var opts []client.ClientOption
	if a != nil {
		opts = append(opts, client.WithElicitationHandler(a))
	}
	c, err := client.NewInProcessClientWithOptions(srv.MCP(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return initialize(t, c)
}

func echoCapture(root string) map[string]any {
	return map[string]any{"executable": "/bin/sh", "arguments": []string{"-c", `read line; echo "got:$line"; echo "$REA_TEST_SECRET" | wc -c`},
		"working_directory": root, "environment_names": []string{"REA_TEST_SECRET"},
		"stdin_steps": []map[string]any{{"type": "write", "data": "hello\n"}}, "timeout_ms": 20000}
}

func TestCaptureElicitation(t *testing.T) {
	root := t.TempDir()
	srv, led, ledgerPath := captureServer(t, root)

	t.Run("accept session", func(t *testing.T) {
		a := &answerer{action: mcp.ElicitationResponseActionAccept, content: map[string]any{"lifetime": "session"}}
		s := captureClient(t, srv, a)
		r := s.ok("capture_process_scenario", echoCapture(root))
		var out struct {
			Result struct {
				Output struct {
					Rendered []string `json:"rendered"`
					Text     string   `json:"text"`
				} `json:"output"`
				Exit struct{ Reason string } `json:"exit"`
			} `json:"result"`
			Evidence struct {
				Provider struct{ ID string }
			} `json:"evidence"`
		}
		if err := json.Unmarshal(r.Structured, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Result.Output.Text, "got:hello") || recordOf(t, s, r).PredicateType != "rea.process-capture/v1" || out.Evidence.Provider.ID != "rea-capture" {
			t.Fatalf("capture: %s", r.Structured)
		}
		if strings.Contains(string(r.Structured), captureSecret) {
			t.Fatal("the secret value is in the answer")
		}
		s.ok("capture_process_scenario", echoCapture(root))
		if n := a.asked.Load(); n != 1 {
			t.Fatalf("asked %d times; a session grant must cover the second capture", n)
		}
	})

	for _, action := range []mcp.ElicitationResponseAction{mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel} {
		t.Run(string(action), func(t *testing.T) {
			a := &answerer{action: action}
			s := captureClient(t, srv, a)
			e := s.errorOf("capture_process_scenario", echoCapture(root))
			rem, _ := e["remediation"].(map[string]any)
			if e["code"] != "permission_required" || rem["elicitation_supported"] != true || a.asked.Load() != 1 {
				t.Fatalf("after %s: %v (asked %d)", action, e, a.asked.Load())
			}
		})
	}

	t.Run("outside the ceiling", func(t *testing.T) {
		a := &answerer{action: mcp.ElicitationResponseActionAccept, content: map[string]any{"lifetime": "once"}}
		s := captureClient(t, srv, a)
		args := echoCapture(root)
		args["working_directory"] = t.TempDir() // not under the working roots
		e := s.errorOf("capture_process_scenario", args)
		rem, _ := e["remediation"].(map[string]any)
		if e["code"] != "permission_required" || rem["restart_required"] != true || a.asked.Load() != 0 {
			t.Fatalf("outside the ceiling: %v (asked %d)", e, a.asked.Load())
		}
	})

	t.Run("2026-07-28 input request, once", func(t *testing.T) {
		a := &answerer{action: mcp.ElicitationResponseActionAccept, content: map[string]any{"lifetime": "once"}}
		c, err := client.NewInProcessClientWithOptions(srv.MCP(), client.WithElicitationHandler(a))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = "2026-07-28"
		init.Params.ClientInfo = mcp.Implementation{Name: "modern", Version: "1"}
		init.Params.Capabilities.Elicitation = &mcp.ElicitationCapability{}
		res, err := c.Initialize(context.Background(), init)
		if err != nil {
			t.Fatal(err)
		}
		if res.ProtocolVersion != "2026-07-28" {
			t.Skipf("the SDK negotiated %s, not the modern revision", res.ProtocolVersion)
		}
		s := &session{t: t, c: c, notify: make(chan struct{}, 8), progress: make(chan map[string]any, 8)}
		s.ok("capture_process_scenario", echoCapture(root))
		s.ok("capture_process_scenario", echoCapture(root))
		if n := a.asked.Load(); n != 2 {
			t.Fatalf("asked %d times; each once grant covers one capture", n)
		}
	})

	t.Run("client without elicitation", func(t *testing.T) {
		s := captureClient(t, srv, nil)
		e := s.errorOf("capture_process_scenario", echoCapture(root))
		rem, _ := e["remediation"].(map[string]any)
		if e["code"] != "permission_required" || rem["elicitation_supported"] != false {
			t.Fatalf("without elicitation: %v", e)
		}
	})

	var export strings.Builder
	if _, err := led.Export(context.Background(), &export, 0, 0, "test"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(export.String(), captureSecret) {
		t.Fatal("the secret value is in the ledger export")
	}
	srv.CloseAll(context.Background(), "server_shutdown")
	for _, p := range []string{ledgerPath, ledgerPath + "-wal"} {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), captureSecret) {
			t.Fatalf("the secret value is in %s", p)
		}
	}
}
