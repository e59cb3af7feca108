package tools_test

import (
	"debug/elf"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// TestAnnotationsSurviveRestart: comments, bookmarks and names set through
// MCP are ledger state of the target's bytes: a second `rea mcp` on the same
// ledger reads them back after reopening the target.
func TestAnnotationsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	f, err := elf.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	entry := provider.FormatAddress(f.Entry)
	f.Close()
	ledgerPath := filepath.Join(dir, "ledger.db")

	first := startStdio(t, ledgerPath)
	first.ok("open_binary", map[string]any{"path": fixture})
	if got := result[string](t, first.ok("current_address", map[string]any{})); got != entry {
		t.Fatalf("initial cursor %s, entry point %s", got, entry)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"set_comment", map[string]any{"address": entry, "comment": "program starts here"}},
		{"set_inline_comment", map[string]any{"address": "0X" + entry[2:], "comment": "inline"}},
		{"set_bookmark", map[string]any{"address": entry, "name": "start"}},
		{"set_bookmark", map[string]any{"address": "0x10"}},
		{"set_address_name", map[string]any{"address": entry, "name": "my_entry"}},
	} {
		if !result[bool](t, first.ok(call.tool, call.args)) {
			t.Fatalf("%s: readback did not match", call.tool)
		}
	}
	if result[bool](t, first.ok("unset_bookmark", map[string]any{"address": "0x10"})) != true {
		t.Fatal("unset_bookmark did not remove")
	}
	e := first.errorOf("goto_address", map[string]any{"address": "0xffffffffffff0000"})
	if d, _ := e["details"].(map[string]any); e["code"] != "invalid_request" || d == nil {
		t.Fatalf("goto outside segments: %v", e)
	}
	first.c.Close()

	second := startStdio(t, ledgerPath)
	second.ok("open_binary", map[string]any{"path": fixture})
	if got := result[*string](t, second.ok("comment", map[string]any{})); got == nil || *got != "program starts here" {
		t.Fatalf("comment at the cursor after restart: %v", got)
	}
	if got := result[*string](t, second.ok("inline_comment", map[string]any{"address": entry})); got == nil || *got != "inline" {
		t.Fatalf("inline comment: %v", got)
	}
	marks := result[[]struct{ Address, Name string }](t, second.ok("list_bookmarks", map[string]any{}))
	if len(marks) != 1 || marks[0].Address != entry || marks[0].Name != "start" {
		t.Fatalf("bookmarks: %+v", marks)
	}
	if got := result[*string](t, second.ok("address_name", map[string]any{"address": entry})); got == nil || *got != "my_entry" {
		t.Fatalf("user name does not override: %v", got)
	}
	// Removing the user name gives the provider's answer back.
	second.ok("set_address_name", map[string]any{"address": entry, "name": ""})
	if got := result[*string](t, second.ok("address_name", map[string]any{"address": entry})); got != nil && *got == "my_entry" {
		t.Fatal("removed user name still answered")
	}
	second.ok("goto_address", map[string]any{"address": entry})
	if got := result[string](t, second.ok("current_address", map[string]any{})); got != entry {
		t.Fatalf("cursor after goto: %s", got)
	}
}

func result[T any](t testing.TB, r reply) T {
	t.Helper()
	return decode[struct {
		Result T `json:"result"`
	}](t, r.Structured).Result
}

// TestAggregateContexts: get_navigation_context in both modes, procedure null
// outside procedures, and inspect_address_context's five facets including
// the annotations set through MCP.
func TestAggregateContexts(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": fixture})
	mainAddr := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "main"}))
	s.ok("goto_address", map[string]any{"address": mainAddr})
	type nav struct {
		Mode, Document, Address string
		Procedure               *struct{ Address, Name string }
	}
	cur := result[nav](t, s.ok("get_navigation_context", map[string]any{}))
	if cur.Mode != "current_selection" || cur.Address != mainAddr || cur.Procedure == nil || cur.Procedure.Name != "main" {
		t.Fatalf("current_selection: %+v", cur)
	}
	exp := result[nav](t, s.ok("get_navigation_context", map[string]any{"document": "fixture"}))
	if exp.Mode != "explicit_document" || exp.Document != "fixture" || exp.Procedure == nil {
		t.Fatalf("explicit_document: %+v", exp)
	}
	// A cursor inside a segment but outside every procedure: the ELF header
	// bytes at the start of the first loaded segment.
	segs := result[[]struct{ Start string }](t, s.ok("list_segments", map[string]any{}))
	s.ok("goto_address", map[string]any{"address": segs[0].Start})
	if out := result[nav](t, s.ok("get_navigation_context", map[string]any{})); out.Procedure != nil {
		t.Fatalf("outside procedures: %+v", out)
	}

	s.ok("set_comment", map[string]any{"address": mainAddr, "comment": "the main function"})
	s.ok("set_bookmark", map[string]any{"address": mainAddr, "name": "here"})
	type facet struct {
		State  string
		Value  any
		Reason string
	}
	ac := result[struct {
		Address                             string
		Name, Procedure, Comment, Bookmarks facet
		InlineComment                       facet `json:"inline_comment"`
	}](t, s.ok("inspect_address_context", map[string]any{"address": mainAddr[2:]}))
	if ac.Address != mainAddr || ac.Comment.State != "available" || ac.Comment.Value != "the main function" {
		t.Fatalf("inspect: %+v", ac)
	}
	if proc, _ := ac.Procedure.Value.(map[string]any); proc["found"] != true {
		t.Fatalf("procedure facet: %+v", ac.Procedure)
	}
	if ac.Name.State != "available" || ac.Procedure.State != "available" || ac.InlineComment.State != "available" || ac.InlineComment.Value != nil {
		t.Fatalf("facets: %+v", ac)
	}
	if marks, _ := ac.Bookmarks.Value.([]any); ac.Bookmarks.State != "available" || len(marks) != 1 {
		t.Fatalf("bookmarks facet: %+v", ac.Bookmarks)
	}
}

// TestCallGraph walks the fixture's direct calls: main → exported_twice →
// helper_add, and back.
func TestCallGraph(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": fixture})
	addr := func(name string) string {
		return result[string](t, s.ok("procedure_address", map[string]any{"procedure": name}))
	}
	mainA, twice, helper := addr("main"), addr("exported_twice"), addr("helper_add")
	want := map[string]string{mainA: "main", twice: "exported_twice", helper: "helper_add"}
	// walk pages the graph and checks that every node carries its name.
	walk := func(args map[string]any) (map[graphEdge]bool, string) {
		edges, names, root, _ := wholeCallGraph(t, s, args)
		for a, n := range names {
			if n == nil || (want[a] != "" && *n != want[a]) {
				t.Errorf("%v: node %s named %v", args, a, nameOrNil(n))
			}
		}
		return edges, root
	}
	fwd, root := walk(map[string]any{"procedure": "main", "depth": 2})
	if root != mainA || !fwd[graphEdge{mainA, twice}] || !fwd[graphEdge{twice, helper}] {
		t.Fatalf("forward from main: root %s, edges %v", root, fwd)
	}
	if one, _ := walk(map[string]any{"address": mainA, "depth": 1}); !one[graphEdge{mainA, twice}] || one[graphEdge{twice, helper}] {
		t.Fatalf("depth 1 from main: edges %v", one)
	}
	// Backward, edges are still [caller, callee].
	back, root := walk(map[string]any{"procedure": "helper_add", "direction": "backward", "depth": 2})
	if root != helper || !back[graphEdge{twice, helper}] || !back[graphEdge{mainA, twice}] || back[graphEdge{helper, twice}] {
		t.Fatalf("backward from helper_add: root %s, edges %v", root, back)
	}
	// max_nodes cuts the graph: truncated, not resumable, said in a limitation.
	r := s.ok("get_call_graph", map[string]any{"procedure": "main", "max_nodes": 1})
	small := result[callGraph](t, r)
	if len(small.Nodes) != 1 || len(small.Edges) != 0 || !small.Truncated || small.NextOffset != nil ||
		!slices.ContainsFunc(limitationsOf(t, r), func(l string) bool { return strings.HasPrefix(l, "max_nodes (1)") }) {
		t.Fatalf("max_nodes 1: %+v, limitations %v", small, limitationsOf(t, r))
	}
	for _, args := range []map[string]any{{}, {"procedure": "main", "address": mainA}, {"procedure": "rea_no_such_procedure"}} {
		if e := s.errorOf("get_call_graph", args); e["code"] != "invalid_request" {
			t.Errorf("get_call_graph %v: %v", args, e)
		}
	}
}

// TestCursorDefaults: address_name and xrefs without an address answer for
// the cursor, and their Evidence keeps the caller's parameters.
func TestCursorDefaults(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": fixture})
	twice := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "exported_twice"}))
	s.ok("goto_address", map[string]any{"address": twice})
	r := s.ok("address_name", map[string]any{})
	if got := result[*string](t, r); got == nil || *got != "exported_twice" {
		t.Fatalf("address_name at the cursor: %v", got)
	}
	ev := recordOf(t, s, r)
	if ev.Parameters["address"] != nil || len(ev.Locations) != 1 || ev.Locations[0].Address != twice {
		t.Fatalf("evidence: %+v", ev)
	}
	refs := result[struct{ Total *int }](t, s.ok("xrefs", map[string]any{}))
	if refs.Total == nil || *refs.Total == 0 {
		t.Fatalf("xrefs to exported_twice at the cursor: %+v", refs)
	}
}
