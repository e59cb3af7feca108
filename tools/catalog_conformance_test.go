package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/tools/catalog"
	"github.com/rea-re/rea/tools/schema"
)

// catConformanceArgs are sample arguments per tool; addresses are filled in
// from the fixture where a real one is needed.
func catConformanceArgs(entry string) map[string]map[string]any {
	return map[string]map[string]any{
		"binary_session":               {"detail": "full"},
		"goto_address":                 {"address": entry},
		"list_procedures":              {"limit": 5},
		"list_names":                   {"limit": 5},
		"list_strings":                 {"limit": 5},
		"address_name":                 {"address": entry},
		"procedure_address":            {"procedure": "main"},
		"resolve_containing_procedure": {"address": entry},
		"procedure_info":               {"procedure": "main"},
		"procedure_assembly":           {"procedure": "main"},
		"read_function_instructions":   {"procedure": "main", "limit": 5},
		"procedure_callers":            {"procedure": "main"},
		"procedure_callees":            {"procedure": "main"},
		"procedure_calls":              {"procedure": "main"},
		"procedure_references":         {"procedure": "main"},
		"procedure_pseudo_code":        {"procedure": "main", "limit": 5},
		"search_pseudo_code":           {"pattern": "return"},
		"xrefs":                        {"address": entry},
		"search_procedures":            {"pattern": "ma"},
		"search_strings":               {"pattern": "banner"},
		"comment":                      {"address": entry},
		"inline_comment":               {"address": entry},
		"set_comment":                  {"address": entry, "comment": "c"},
		"set_inline_comment":           {"address": entry, "comment": "c"},
		"set_bookmark":                 {"address": entry},
		"unset_bookmark":               {"address": entry},
		"set_address_name":             {"address": entry, "name": "n"},
		"inspect_address_context":      {"address": entry},
		"binary_overview":              {"detail": "detailed"},
		"get_call_graph":               {"address": entry},
		"read_bytes":                   {"address": entry, "length": 16},
		"search_bytes":                 {"pattern": "?? 89 e5"},
	}
}

// catCompileOutput compiles a tool's published outputSchema with an
// independent JSON Schema (draft 2020-12) validator, the kind a client uses.
func catCompileOutput(t *testing.T, spec catalog.Spec) *jsonschema.Schema {
	t.Helper()
	raw, err := json.Marshal(spec.OutputSchema())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "urn:rea:" + spec.Name
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: outputSchema does not compile: %v", spec.Name, err)
	}
	return sch
}

// TestResultsConformToOutputSchema calls every tool the server lists for an
// open ELF fixture (and the session tools before and after) and checks each
// structuredContent, success or error, against the tool's outputSchema, as
// clients that validate outputSchema do: with REA's own validator and with
// an independent draft 2020-12 validator. Every Evidence answer also carries
// the keys the compact schema leaves to the server instructions.
func TestResultsConformToOutputSchema(t *testing.T) {
	gcc := testkit.Need(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "fixture.c")
	code := "#include <stdio.h>\nconst char *banner = \"REA fixture banner string\";\n" +
		"static int helper(int a) { return a + 1; }\nint main(int c, char **v) { printf(\"%s\", banner); return helper(c); }\n"
	if err := os.WriteFile(src, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "fixture")
	if out, err := exec.Command(gcc, "-O0", "-g", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	led, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"})
	srv := New(eng, Options{Transport: "stdio"})
	defer func() {
		srv.CloseAll(context.Background(), "server_shutdown")
		led.Close()
	}()
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initReq := mcp.InitializeRequest{}
	initReq.Params.ProtocolVersion = "2025-11-25"
	initReq.Params.ClientInfo = mcp.Implementation{Name: "conformance", Version: "1"}
	if _, err := c.Initialize(ctx, initReq); err != nil {
		t.Fatal(err)
	}

	called := map[string]bool{}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		called[name] = true
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := Lookup(name)
		st := &schema.State{}
		v := st.ParseJSON(raw)
		st.Validate(spec.OutputSchema(), v, "")
		if len(st.Issues) > 0 {
			t.Errorf("%s %v (isError %v): structuredContent does not match outputSchema: %+v\n%.2000s",
				name, args, res.IsError, st.Issues, raw)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := catCompileOutput(t, spec).Validate(inst); err != nil {
			t.Errorf("%s %v (isError %v): independent validator: %v\n%.2000s", name, args, res.IsError, err, raw)
		}
		m, _ := v.(map[string]any)
		if ev, ok := m["evidence"].(map[string]any); ok {
			for _, k := range []string{"evidence_id", "ledger", "subject", "provider", "confidence", "authority", "limitations"} {
				if _, present := ev[k]; !present {
					t.Errorf("%s: evidence lacks %s, which the instructions promise", name, k)
				}
			}
		}
		if spec.Evidence && !res.IsError && m["evidence"] == nil {
			t.Errorf("%s: a success without evidence", name)
		}
		return m
	}
	listed := func() []string {
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		return names
	}

	for _, d := range []string{"summary", "capabilities", "full"} {
		call("binary_session", map[string]any{"detail": d})
	}
	call("close_binary", map[string]any{})
	opened := call("open_binary", map[string]any{"path": bin})
	if r, ok := opened["result"].(map[string]any); !ok || r["format"] != "elf" {
		t.Fatalf("open_binary: %v", opened)
	}
	entry := "0x0"
	if r, ok := call("list_procedures", map[string]any{"limit": 1})["result"].(map[string]any); ok {
		if items, _ := r["items"].([]any); len(items) > 0 {
			entry, _ = items[0].(map[string]any)["address"].(string)
		}
	}
	args := catConformanceArgs(entry)
	for _, name := range listed() {
		if name == "open_binary" || name == "close_binary" {
			continue
		}
		a := args[name]
		if a == nil {
			a = map[string]any{}
		}
		call(name, a)
	}
	for _, d := range []string{"summary", "capabilities"} {
		call("binary_session", map[string]any{"detail": d})
	}
	call("open_binary", map[string]any{"path": "/nonexistent/rea-conformance"}) // error envelope
	call("close_binary", map[string]any{})
	t.Logf("checked %d tools", len(called))
}
