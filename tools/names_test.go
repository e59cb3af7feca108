package tools_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

type namedItem struct {
	Address   string
	Name      *string
	Procedure *struct{ Address, Name string }
}

type namedPage[T any] struct {
	Items      []T
	Total      *int
	NextOffset *int `json:"next_offset"`
}

// limitationsOf is the inline Evidence limitations of an answer.
func limitationsOf(t testing.TB, r reply) []string {
	t.Helper()
	return decode[struct {
		Evidence struct {
			Limitations []string `json:"limitations"`
		} `json:"evidence"`
	}](t, r.Structured).Evidence.Limitations
}

func showsUserNames(lims []string) bool {
	return slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "user-defined (set_address_name)") })
}

// TestUserNamesEverywhere: a name set with set_address_name is, for a second
// `rea mcp` on the same ledger, what every listing, search, resolution, call
// graph node and call edge shows; the symbol name stays an alias that still
// resolves and is still found; and the answers' Evidence says the names are
// user-defined.
func TestUserNamesEverywhere(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	ledgerPath := filepath.Join(dir, "ledger.db")

	first := startStdio(t, ledgerPath)
	first.ok("open_binary", map[string]any{"path": fixture})
	twice := result[string](t, first.ok("procedure_address", map[string]any{"procedure": "exported_twice"}))
	mainA := result[string](t, first.ok("procedure_address", map[string]any{"procedure": "main"}))
	helper := result[string](t, first.ok("procedure_address", map[string]any{"procedure": "helper_add"}))
	before := first.ok("procedure_callers", map[string]any{"procedure": helper})
	if !result[bool](t, first.ok("set_address_name", map[string]any{"address": twice, "name": "doubler"})) {
		t.Fatal("set_address_name did not read back")
	}
	first.c.Close()

	s := startStdio(t, ledgerPath)
	s.ok("open_binary", map[string]any{"path": fixture})
	const user = "doubler"

	// Listing: one item at the entry, the user name as value, the symbol as alias.
	procs := result[namedPage[struct {
		Address, Value string
		Aliases        []string
	}]](t, s.ok("list_procedures", map[string]any{"limit": 500}))
	n := 0
	for _, p := range procs.Items {
		if p.Address == twice {
			n++
			if p.Value != user || !slices.Equal(p.Aliases, []string{"exported_twice"}) {
				t.Errorf("list_procedures item %+v", p)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d list_procedures items at %s", n, twice)
	}
	// list_names: the user name is the primary name, the symbol is not.
	r := s.ok("list_names", map[string]any{"address": twice})
	names := result[namedPage[struct {
		Value  string
		Symbol struct {
			Primary bool
			Source  string
		}
	}]](t, r)
	var primary []string
	for _, it := range names.Items {
		if it.Symbol.Primary {
			primary = append(primary, it.Value+"/"+it.Symbol.Source)
		}
	}
	if !slices.Equal(primary, []string{user + "/user_defined"}) || len(names.Items) != 2 || !showsUserNames(limitationsOf(t, r)) {
		t.Errorf("list_names at %s: %+v", twice, names)
	}
	// Search: the user name and the symbol name both find the procedure.
	for _, pat := range []string{user, "exported_twice"} {
		r := s.ok("search_procedures", map[string]any{"pattern": pat})
		found := result[namedPage[struct {
			Address, Value string
			Procedure      *struct{ Address, Name string }
		}]](t, r)
		if len(found.Items) != 1 || found.Items[0].Address != twice || found.Items[0].Value != pat ||
			found.Items[0].Procedure == nil || found.Items[0].Procedure.Name != user {
			t.Errorf("search_procedures %q: %+v", pat, found.Items)
		}
	}
	// Resolution by either name.
	for _, name := range []string{user, "exported_twice"} {
		r := s.ok("procedure_info", map[string]any{"procedure": name})
		info := result[struct{ Name, Entrypoint string }](t, r)
		if info.Name != user || info.Entrypoint != twice || !showsUserNames(limitationsOf(t, r)) {
			t.Errorf("procedure_info %q: %+v %v", name, info, limitationsOf(t, r))
		}
		if got := result[string](t, s.ok("procedure_address", map[string]any{"procedure": name})); got != twice {
			t.Errorf("procedure_address %q = %s, want %s", name, got, twice)
		}
	}
	// Call edges: main's callee, helper_add's caller.
	edge := func(tool, proc string, userShown bool) namedItem {
		r := s.ok(tool, map[string]any{"procedure": proc})
		for _, it := range result[namedPage[namedItem]](t, r).Items {
			if it.Address == twice {
				if showsUserNames(limitationsOf(t, r)) != userShown {
					t.Errorf("%s %s: limitations %v", tool, proc, limitationsOf(t, r))
				}
				return it
			}
		}
		t.Fatalf("%s %s: no item at %s", tool, proc, twice)
		return namedItem{}
	}
	for _, it := range []namedItem{edge("procedure_callees", mainA, true), edge("procedure_callers", helper, true)} {
		if it.Name == nil || *it.Name != user || it.Procedure == nil || it.Procedure.Name != user {
			t.Errorf("edge item %+v", it)
		}
	}
	after := s.ok("procedure_callers", map[string]any{"procedure": helper})
	if evidenceID(t, before) == evidenceID(t, after) {
		t.Error("the Evidence of an answer showing a user name has the id of the answer without it")
	}
	// Call graph: the node and the edge reaching it.
	r = s.ok("get_call_graph", map[string]any{"address": mainA, "depth": 1})
	g := result[callGraph](t, r)
	var node bool
	for _, nd := range g.Nodes {
		node = node || nd.Address == twice && nd.Name != nil && *nd.Name == user
	}
	if !node || !showsUserNames(limitationsOf(t, r)) {
		t.Errorf("get_call_graph: node %v, limitations %v: %+v", node, limitationsOf(t, r), g)
	}
	// The user name is a procedure argument of get_call_graph too.
	if g := result[callGraph](t, s.ok("get_call_graph", map[string]any{"procedure": user, "depth": 1})); g.Root != twice {
		t.Errorf("get_call_graph from %q: root %s, want %s", user, g.Root, twice)
	}
	if got := result[*string](t, s.ok("address_name", map[string]any{"address": twice})); got == nil || *got != user {
		t.Errorf("address_name = %v", got)
	}
	// The counts are entry addresses.
	ov := result[struct {
		ProcedureCount int `json:"procedure_count"`
	}](t, s.ok("binary_overview", map[string]any{}))
	if procs.Total == nil || ov.ProcedureCount != *procs.Total || ov.ProcedureCount != len(procs.Items) {
		t.Errorf("procedure_count %d, list_procedures total %v, %d items", ov.ProcedureCount, procs.Total, len(procs.Items))
	}
	// A connection whose target is already open sees a name set on another
	// connection from its next answer on.
	other := startStdio(t, ledgerPath)
	other.ok("open_binary", map[string]any{"path": fixture})
	other.ok("list_procedures", map[string]any{})
	s.ok("set_address_name", map[string]any{"address": helper, "name": "adder"})
	if info := result[struct{ Name, Entrypoint string }](t, other.ok("procedure_info", map[string]any{"procedure": "adder"})); info.Name != "adder" || info.Entrypoint != helper {
		t.Errorf("procedure_info adder on another connection: %+v", info)
	}
	// Removing the user name restores the symbol everywhere.
	s.ok("set_address_name", map[string]any{"address": twice, "name": ""})
	if it := edge("procedure_callees", mainA, false); it.Name == nil || *it.Name != "exported_twice" {
		t.Errorf("after removal: %+v", it)
	}
}

func evidenceID(t testing.TB, r reply) string {
	t.Helper()
	return decode[struct {
		Evidence struct {
			ID string `json:"evidence_id"`
		} `json:"evidence"`
	}](t, r.Structured).Evidence.ID
}

// TestCountsAreEntries: on libc, whose procedures have aliases, `rea
// analyze`, binary_overview and list_procedures' total all count entry
// addresses: the distinct addresses of every list_procedures page.
func TestCountsAreEntries(t *testing.T) {
	const libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		if os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" {
			t.Fatal(err)
		}
		t.Skipf("%s is not present (Debian x86-64 libc6)", libc)
	}
	dir := t.TempDir()
	out, err := exec.Command(testkit.Rea(t), "--ledger", filepath.Join(dir, "ledger.db"), "analyze", "--json", libc).Output()
	if err != nil {
		t.Fatal(err)
	}
	var ov struct {
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal(out, &ov); err != nil {
		t.Fatal(err)
	}
	s := startStdio(t, filepath.Join(dir, "ledger.db"))
	s.ok("open_binary", map[string]any{"path": libc})
	addrs := map[string]bool{}
	items, names := 0, 0
	for offset := 0; ; {
		p := result[namedPage[struct {
			Address string
			Aliases []string
		}]](t, s.ok("list_procedures", map[string]any{"offset": offset, "limit": 500}))
		for _, it := range p.Items {
			addrs[it.Address] = true
			names += 1 + len(it.Aliases)
		}
		items += len(p.Items)
		if p.NextOffset == nil {
			break
		}
		offset = *p.NextOffset
	}
	overview := result[struct {
		ProcedureCount int `json:"procedure_count"`
	}](t, s.ok("binary_overview", map[string]any{}))
	if len(addrs) != items || ov.Counts["procedures"] != items || overview.ProcedureCount != items || names <= items {
		t.Errorf("%d items at %d addresses (%d names); rea analyze %d, binary_overview %d",
			items, len(addrs), names, ov.Counts["procedures"], overview.ProcedureCount)
	}
}
