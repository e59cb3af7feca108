package tools_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/tools"
)

// Size bounds of tools/list (issue 12, restated for the third edition's 51
// tools by CONTRACTS.md §0.3; compact JSON bytes of the result, 1 KB = 1000
// bytes). Sizes are deterministic, so a bound is a plain assertion.
const (
	sizeLegacyOpened = 40_000 // 2025-11-25, after open_binary of an ELF, every toolset
	sizeModernFull   = 44_000 // 2026-07-28, every toolset
	sizeTriage       = 12_000 // --toolsets triage, either era
)

type listSizeCase struct {
	name     string
	toolsets []string
	modern   bool // 2026-07-28 (stateless); else 2025-11-25 after open_binary
	bound    int
}

var listSizeCases = []listSizeCase{
	{"2025-11-25 after open_binary", nil, false, sizeLegacyOpened},
	{"2026-07-28", nil, true, sizeModernFull},
	{"triage 2025-11-25 after open_binary", []string{"triage"}, false, sizeTriage},
	{"triage 2026-07-28", []string{"triage"}, true, sizeTriage},
}

// newServerWith is newInProcessServer with options (toolsets).
func newServerWith(t testing.TB, ledgerPath string, opts tools.Options) *inProcess {
	t.Helper()
	led, err := ledger.Open(context.Background(), ledgerPath, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"})
	opts.Transport = "stdio"
	srv := tools.New(eng, opts)
	t.Cleanup(func() {
		srv.CloseAll(context.Background(), "server_shutdown")
		led.Close()
	})
	return &inProcess{led: led, srv: srv}
}

// connectAt opens an in-process mcp-go client negotiating protocol.
func connectAt(t testing.TB, p *inProcess, protocol string) *session {
	t.Helper()
	c, err := client.NewInProcessClient(p.srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = protocol
	req.Params.ClientInfo = mcp.Implementation{Name: "rea-size", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != protocol {
		t.Fatalf("negotiated %s, want %s", res.ProtocolVersion, protocol)
	}
	return &session{t: t, c: c, notify: make(chan struct{}, 64), progress: make(chan map[string]any, 64)}
}

// rawToolsList sends tools/list through the client's own transport and
// returns the result as the server wrote it: the client's ListTools decodes
// schemas into its types, which drop keywords (oneOf) and so would
// understate the size.
func (s *session) rawToolsList(modern bool) (names []string, size int) {
	s.t.Helper()
	var params any = map[string]any{}
	if modern {
		params = map[string]any{"_meta": modernMeta()}
	}
	resp, err := s.c.GetTransport().SendRequest(context.Background(), transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(900)), Method: string(mcp.MethodToolsList), Params: params})
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.Error != nil {
		s.t.Fatalf("tools/list: %+v", resp.Error)
	}
	return toolNamesOf(s.t, resp.Result), compactLen(s.t, resp.Result)
}

func toolNamesOf(t testing.TB, list json.RawMessage) []string {
	t.Helper()
	var parsed struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(list, &parsed); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range parsed.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// TestToolsListSizesInProcess measures tools/list over an in-process mcp-go
// client per era and toolset and fails when a bound is exceeded.
func TestToolsListSizesInProcess(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	for i, tc := range listSizeCases {
		t.Run(tc.name, func(t *testing.T) {
			p := newServerWith(t, filepath.Join(dir, "ledger"+string(rune('a'+i))+".db"), tools.Options{Toolsets: tc.toolsets})
			protocol := "2025-11-25"
			if tc.modern {
				protocol = "2026-07-28"
			}
			s := connectAt(t, p, protocol)
			if !tc.modern {
				s.ok("open_binary", map[string]any{"path": fixture})
			}
			names, n := s.rawToolsList(tc.modern)
			t.Logf("tools/list %s: %d tools, %d bytes (bound %d)", tc.name, len(names), n, tc.bound)
			if n > tc.bound {
				t.Errorf("tools/list %s is %d bytes, over the bound of %d", tc.name, n, tc.bound)
			}
		})
	}
}

// rawRPC is a JSON-RPC line client of a `rea mcp` subprocess.
type rawRPC struct {
	t     testing.TB
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Reader
}

func startRawRPC(t testing.TB, env []string, args ...string) *rawRPC {
	t.Helper()
	cmd, stdin, stdout := startRawStdioEnv(t, append([]string{}, env...), args...)
	r := &rawRPC{t: t, cmd: cmd, stdin: stdin, lines: bufio.NewReaderSize(stdout, 1<<20)}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	return r
}

// call sends one request and returns the raw result (or error) of the
// response with that id, skipping notifications.
func (r *rawRPC) call(id int, method string, params any) (result, rpcErr json.RawMessage) {
	r.t.Helper()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.stdin.Write(append(req, '\n')); err != nil {
		r.t.Fatal(err)
	}
	timer := time.AfterFunc(60*time.Second, func() { r.cmd.Process.Kill() })
	defer timer.Stop()
	for {
		line, err := r.lines.ReadBytes('\n')
		if err != nil {
			r.t.Fatalf("%s: reading the answer: %v", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			r.t.Fatalf("%s: %v: %.200q", method, err, line)
		}
		if m.Method == "" && m.ID != nil && *m.ID == id {
			return m.Result, m.Error
		}
	}
}

func (r *rawRPC) initialize(protocol string) {
	r.t.Helper()
	if _, e := r.call(1, "initialize", map[string]any{"protocolVersion": protocol, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "rea-raw", "version": "1"}}); e != nil {
		r.t.Fatalf("initialize: %s", e)
	}
	if _, err := io.WriteString(r.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

// modernMeta is the _meta of a stateless 2026-07-28 request.
func modernMeta() map[string]any {
	return map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "rea-raw", "version": "1"}}
}

// compactLen is the length of raw as compact JSON.
func compactLen(t testing.TB, raw json.RawMessage) int {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}

// TestToolsListSizesSubprocess measures the exact bytes `rea mcp` writes for
// tools/list per era and toolset (the toolsets given by --toolsets).
func TestToolsListSizesSubprocess(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	for i, tc := range listSizeCases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--ledger", filepath.Join(dir, "sub"+string(rune('a'+i))+".db"), "mcp"}
			if tc.toolsets != nil {
				args = append(args, "--toolsets", strings.Join(tc.toolsets, ","))
			}
			r := startRawRPC(t, nil, args...)
			var list json.RawMessage
			if tc.modern {
				var e json.RawMessage
				if list, e = r.call(2, "tools/list", map[string]any{"_meta": modernMeta()}); e != nil {
					t.Fatalf("tools/list: %s", e)
				}
			} else {
				r.initialize("2025-11-25")
				if res, e := r.call(2, "tools/call", map[string]any{"name": "open_binary",
					"arguments": map[string]any{"path": fixture}}); e != nil || bytes.Contains(res, []byte(`"isError":true`)) {
					t.Fatalf("open_binary: %s %s", res, e)
				}
				var e json.RawMessage
				if list, e = r.call(3, "tools/list", map[string]any{}); e != nil {
					t.Fatalf("tools/list: %s", e)
				}
			}
			n := compactLen(t, list)
			t.Logf("rea mcp tools/list %s: %d tools, %d bytes (bound %d)", tc.name, len(toolNamesOf(t, list)), n, tc.bound)
			if n > tc.bound {
				t.Errorf("tools/list %s is %d bytes, over the bound of %d", tc.name, n, tc.bound)
			}
		})
	}
}
