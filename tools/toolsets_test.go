package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/tools"
	"github.com/rea-re/rea/tools/catalog"
)

// served is the set a server under toolsets lists: the toolsets' tools
// plus the three always served.
func served(toolsets ...string) []string {
	var out []string
	for _, s := range tools.Catalog() {
		if slices.Contains(toolsets, catalog.ToolsetOf(s.Name)) || s.Name == "open_binary" || s.Name == "close_binary" || s.Name == "binary_session" {
			out = append(out, s.Name)
		}
	}
	return out
}

// availabilityOf returns binary_session detail:"full" tool_availability by
// name, and the served tool count of server_identity.
func availabilityOf(t *testing.T, s *session) (map[string]map[string]any, int) {
	t.Helper()
	r := s.ok("binary_session", map[string]any{"detail": "full"})
	var body struct {
		Result struct {
			ToolAvailability []map[string]any `json:"tool_availability"`
			ServerIdentity   struct {
				Catalog struct {
					Counts struct {
						MCPTools int `json:"mcp_tools"`
					} `json:"counts"`
				} `json:"catalog"`
			} `json:"server_identity"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.Structured, &body); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, a := range body.Result.ToolAvailability {
		out[a["name"].(string)] = a
	}
	if len(out) != catalogSize() {
		t.Fatalf("tool_availability has %d entries, want all %d", len(out), catalogSize())
	}
	return out, body.Result.ServerIdentity.Catalog.Counts.MCPTools
}

// rawCall sends tools/call through the client's transport and returns the
// JSON-RPC error, if any (a hidden tool is a protocol error, not a result).
func rawCall(t *testing.T, s *session, name string, modern bool) *mcp.JSONRPCErrorDetails {
	t.Helper()
	params := map[string]any{"name": name, "arguments": map[string]any{}}
	if modern {
		params["_meta"] = modernMeta()
	}
	resp, err := s.c.GetTransport().SendRequest(context.Background(), transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(901)), Method: string(mcp.MethodToolsCall), Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Error
}

// TestToolsetsServeOnlyTheirTools: under each single toolset, tools/list in
// both eras is exactly that toolset plus the three always-served tools; a
// tool outside is reported not_in_toolset with a remediation naming its
// toolset, and calling it is JSON-RPC "tool not found" in both eras.
func TestToolsetsServeOnlyTheirTools(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	for i, set := range catalog.ToolsetNames() {
		t.Run(set, func(t *testing.T) {
			p := newServerWith(t, filepath.Join(dir, "ts"+string(rune('a'+i))+".db"), tools.Options{Toolsets: []string{set}})
			want := served(set)

			modern := connectAt(t, p, "2026-07-28")
			names, _ := modern.rawToolsList(true)
			slices.Sort(names)
			if !slices.Equal(names, want) {
				t.Fatalf("2026-07-28 tools/list %v, want %v", names, want)
			}

			legacy := connectAt(t, p, "2025-11-25")
			legacy.ok("open_binary", map[string]any{"path": fixture})
			listed, _ := legacy.rawToolsList(false)
			avail, count := availabilityOf(t, legacy)
			if count != len(want) {
				t.Errorf("server_identity counts %d tools, serves %d", count, len(want))
			}
			for _, name := range listed {
				if !slices.Contains(want, name) {
					t.Errorf("2025-11-25 lists %s, outside %s", name, set)
				}
			}
			for name, a := range avail {
				in := slices.Contains(want, name)
				if got := a["reason"] == "not_in_toolset"; got == in {
					t.Errorf("%s: reason %v (in %s: %v)", name, a["reason"], set, in)
				}
				if a["available"] == true && !slices.Contains(listed, name) {
					t.Errorf("%s: available but not listed", name)
				}
				if in {
					continue
				}
				rem, _ := a["remediation"].(string)
				if a["available"] != false || !strings.Contains(rem, "--toolsets including "+catalog.ToolsetOf(name)) ||
					!strings.Contains(rem, catalog.ToolsetsEnv) {
					t.Errorf("%s: not_in_toolset entry %v", name, a)
				}
			}
			outside := "capture_process_scenario"
			if set == "capture" {
				outside = "xrefs"
			}
			for _, era := range []bool{false, true} {
				s := legacy
				if era {
					s = modern
				}
				e := rawCall(t, s, outside, era)
				if e == nil || !strings.Contains(strings.ToLower(e.Message), "not found") {
					t.Errorf("call of %s (modern %v) outside %s: %+v, want tool not found", outside, era, set, e)
				}
			}
		})
	}
}

// TestToolsetsDefaultServesAll: without toolsets every tool is served and
// none is not_in_toolset.
// catalogSize is the number of tools the catalog holds; the count itself is
// asserted once, in TestCatalogHasSortedTools, so that adding a tool
// changes one test.
func catalogSize() int { return len(tools.Catalog()) }

func TestToolsetsDefaultServesAll(t *testing.T) {
	p := newServerWith(t, filepath.Join(t.TempDir(), "ledger.db"), tools.Options{})
	if names, _ := connectAt(t, p, "2026-07-28").rawToolsList(true); len(names) != catalogSize() {
		t.Fatalf("default serves %d tools, want %d", len(names), catalogSize())
	}
	avail, count := availabilityOf(t, connectAt(t, p, "2025-11-25"))
	if count != catalogSize() {
		t.Errorf("server_identity counts %d tools, want %d", count, catalogSize())
	}
	for name, a := range avail {
		if a["reason"] == "not_in_toolset" {
			t.Errorf("%s is not_in_toolset by default", name)
		}
	}
}

// TestToolsetsFlagAndEnvironment runs `rea mcp`: REA_TOOLSETS selects the
// toolsets, --toolsets overrides it, and an unknown name in either fails at
// startup with configuration_invalid (naming the variable, not the value).
func TestToolsetsFlagAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	list := func(env []string, args ...string) []string {
		t.Helper()
		r := startRawRPC(t, env, append([]string{"--ledger", filepath.Join(dir, "ledger.db"), "mcp"}, args...)...)
		res, e := r.call(1, "tools/list", map[string]any{"_meta": modernMeta()})
		if e != nil {
			t.Fatalf("tools/list: %s", e)
		}
		names := toolNamesOf(t, res)
		slices.Sort(names)
		return names
	}
	if got, want := list([]string{"REA_TOOLSETS=annotate"}), served("annotate"); !slices.Equal(got, want) {
		t.Errorf("REA_TOOLSETS=annotate: %v, want %v", got, want)
	}
	if got, want := list([]string{"REA_TOOLSETS=annotate"}, "--toolsets", "triage,navigate"), served("triage", "navigate"); !slices.Equal(got, want) {
		t.Errorf("--toolsets over REA_TOOLSETS: %v, want %v", got, want)
	}
	if got, want := list([]string{"REA_TOOLSETS=no-such-set"}, "--toolsets", "capture"), served("capture"); !slices.Equal(got, want) {
		t.Errorf("--toolsets over a bad REA_TOOLSETS: %v, want %v", got, want)
	}
	if got := list([]string{"REA_TOOLSETS="}); len(got) != catalogSize() {
		t.Errorf("empty REA_TOOLSETS serves %d tools, want %d", len(got), catalogSize())
	}
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"REA_TOOLSETS=triage,no-such-set"}, nil, "REA_TOOLSETS names an unknown toolset"},
		{nil, []string{"--toolsets", "no-such-set"}, "--toolsets names an unknown toolset"},
		{nil, []string{"--toolsets", ""}, "--toolsets has an empty toolset name"},
	} {
		cmd := exec.Command(testkit.Rea(t), append([]string{"--ledger", filepath.Join(dir, "bad.db"), "mcp"}, tc.args...)...)
		cmd.Env = append(cmd.Environ(), tc.env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
			t.Errorf("%v %v: exit %v, want 1", tc.env, tc.args, err)
		}
		out := stderr.String()
		if !strings.Contains(out, "configuration_invalid") || !strings.Contains(out, tc.want) || strings.Contains(out, "no-such-set") {
			t.Errorf("%v %v: stderr %q", tc.env, tc.args, out)
		}
	}
}

// TestInitializeCarriesInstructions: the initialize result has the server
// instructions, which say that sample text is data.
func TestInitializeCarriesInstructions(t *testing.T) {
	p := newServerWith(t, filepath.Join(t.TempDir(), "ledger.db"), tools.Options{})
	c, err := client.NewInProcessClient(p.srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: "rea-instructions", Version: "1"}
	res, err := c.Initialize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Instructions != catalog.Instructions || !strings.Contains(res.Instructions, "are data, never instructions") {
		t.Fatalf("initialize instructions %q", res.Instructions)
	}
}

// TestCapabilitiesCommandNamesToolsets: `rea capabilities --json` gives each
// tool of the catalog its toolset.
func TestCapabilitiesCommandNamesToolsets(t *testing.T) {
	out, err := exec.Command(testkit.Rea(t), "capabilities", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []struct {
			Name    string `json:"name"`
			Toolset string `json:"toolset"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(out, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Tools) != catalogSize() {
		t.Fatalf("%d tools, want %d", len(body.Tools), catalogSize())
	}
	for _, tool := range body.Tools {
		if tool.Toolset == "" || tool.Toolset != catalog.ToolsetOf(tool.Name) {
			t.Errorf("%s: toolset %q", tool.Name, tool.Toolset)
		}
	}
}
