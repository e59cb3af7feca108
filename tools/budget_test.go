package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/internal/testkit"
)

// answerBudget is the byte budget of an answer's result (CONTRACTS.md §0,
// §1.4): 64 KiB of compact JSON.
const answerBudget = 64 << 10

// answerSizes are the exact bytes of one answer as REA sent it: the text
// content is the compact JSON of structuredContent, byte for byte.
type answerSizes struct {
	answer, result, evidence int
}

func sizesOf(t testing.TB, r reply) answerSizes {
	t.Helper()
	var body struct {
		Result   json.RawMessage `json:"result"`
		Evidence json.RawMessage `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(r.Text), &body); err != nil {
		t.Fatalf("answer text is not JSON: %v", err)
	}
	return answerSizes{answer: len(r.Text), result: len(body.Result), evidence: len(body.Evidence)}
}

// TestDefaultArgumentAnswersWithinBudget is issue 12's size acceptance: on
// /usr/bin/gdb and libLLVM-14.so.1, over a real `rea mcp`, every tool the
// server lists for the open target is called with its default arguments
// (required ones filled in: the entry point for an address, main or else the
// first procedure for a procedure, a one-letter pattern), and no result may
// exceed 64 KiB of compact JSON. binary_session's full view is called too.
// get_evidence_bundle's default is every record of the connection, a bulk
// export bounded by its own 64 MiB and 10,000-record limits that grows with
// the session; its default-argument call here is the bundle of one record
// (the first list_procedures page's), which must fit, and the
// connection-wide bundle is logged.
func TestDefaultArgumentAnswersWithinBudget(t *testing.T) {
	for i, path := range []string{"/usr/bin/gdb", locateLibLLVM(t)} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if i > 0 && testing.Short() {
				t.Skip("-short: reads libLLVM-14 (105 MB); /usr/bin/gdb represents it")
			}
			if _, err := os.Stat(path); err != nil {
				testkit.SkipOrFail(t, fmt.Sprintf("%s is not installed: %v", path, err))
			}
			checkDefaultAnswers(t, path, nil, "REA_GDB_ENABLED=")
		})
	}
	// The gdb provider bound (and both providers' candidates in the full
	// view), on gdb's own binary.
	t.Run("gdb provider", func(t *testing.T) {
		gdb := testkit.Need(t, "gdb")
		checkDefaultAnswers(t, gdb, map[string]any{"provider_id": "gdb"}, "REA_GDB_ENABLED=true")
	})
}

func checkDefaultAnswers(t *testing.T, path string, openArgs map[string]any, env ...string) {
	s := startStdio(t, filepath.Join(t.TempDir(), "ledger.db"), env...)
	ctx := context.Background()
	check := func(label string, r reply) {
		t.Helper()
		sz := sizesOf(t, r)
		status := "ok"
		if r.IsError {
			status = "error " + fmt.Sprint(decode[struct{ Error struct{ Code string } }](t, r.Structured).Error.Code)
		}
		t.Logf("%-58s result %7d B  answer %7d B  evidence %4d B  %s", label, sz.result, sz.answer, sz.evidence, status)
		if sz.result > answerBudget {
			t.Errorf("%s: result is %d B, over %d", label, sz.result, answerBudget)
		}
	}
	open := map[string]any{"path": path}
	for k, v := range openArgs {
		open[k] = v
	}
	check("open_binary", s.ok("open_binary", open))

	entry := result[string](t, s.ok("current_address", map[string]any{}))
	procedure := "main"
	if r := s.call(ctx, "procedure_address", map[string]any{"procedure": "main"}); r.IsError {
		first := result[page](t, s.ok("list_procedures", map[string]any{"limit": 1}))
		if len(first.Items) == 0 {
			t.Fatal("no procedures")
		}
		procedure = first.Items[0].Address
	}
	fill := map[string]any{"address": entry, "procedure": procedure, "pattern": "a", "comment": "c", "name": "n",
		"input_path": path}
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tools := slices.Clone(res.Tools)
	slices.SortFunc(tools, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	skip := map[string]string{
		"open_binary":         "called first",
		"close_binary":        "called last",
		"get_evidence_bundle": "called below with one record",
		"compare_artifacts":   "needs inventory Evidence of artifact targets",
		"search_pseudo_code":  "decompiles every procedure: pseudo_test.go and BENCHMARKS.md measure it",
	}
	for _, tool := range tools {
		if why, ok := skip[tool.Name]; ok {
			t.Logf("%-58s (%s)", tool.Name, why)
			continue
		}
		args := map[string]any{}
		missing := ""
		for _, req := range tool.InputSchema.Required {
			v, ok := fill[req]
			if !ok {
				missing = req
				break
			}
			args[req] = v
		}
		if missing != "" {
			t.Logf("%-58s (not callable with default arguments: needs %s)", tool.Name, missing)
			continue
		}
		if tool.Name == "get_call_graph" {
			args["procedure"] = procedure // procedure or address, neither required alone
		}
		label := tool.Name
		if len(args) > 0 {
			b, _ := json.Marshal(args)
			label += " " + string(b)
		}
		check(label, s.call(ctx, tool.Name, args))
	}
	full := s.ok("binary_session", map[string]any{"detail": "full"})
	check(`binary_session {"detail":"full"}`, full)
	logFullViewParts(t, full)
	checkAvailabilityEntries(t, "full", full, false)
	checkAvailabilityEntries(t, "capabilities", s.ok("binary_session", map[string]any{"detail": "capabilities", "limit": 100}), true)

	firstPage := s.ok("list_procedures", map[string]any{})
	id := decode[struct {
		Evidence struct {
			EvidenceID string `json:"evidence_id"`
		} `json:"evidence"`
	}](t, firstPage.Structured).Evidence.EvidenceID
	check("get_evidence_bundle (one record: the first list_procedures page)",
		s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{id}}))
	all := s.call(ctx, "get_evidence_bundle", map[string]any{})
	sz := sizesOf(t, all)
	t.Logf("%-58s result %7d B  (every record of this connection; logged, not bounded)", "get_evidence_bundle {}", sz.result)
	check("close_binary", s.ok("close_binary", map[string]any{}))
}

// logFullViewParts logs the compact size of each member of binary_session's
// full view, which is where its bytes go.
func logFullViewParts(t *testing.T, r reply) {
	t.Helper()
	var body struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.Text), &body); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range body.Result {
			if !yield(k) {
				return
			}
		}
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, len(body.Result[k])))
	}
	t.Logf("binary_session full view, bytes per member: %s", strings.Join(parts, ", "))
}

// checkAvailabilityEntries checks §0's §3.2 change: in the full view an
// available tool's entry has no effects and annotations (its tools/list
// entry has them), an unavailable tool's keeps them; the capabilities view
// keeps them for every entry.
func checkAvailabilityEntries(t *testing.T, view string, r reply, always bool) {
	t.Helper()
	var body struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.Text), &body); err != nil {
		t.Fatal(err)
	}
	var entries []map[string]json.RawMessage
	var err error
	if view == "capabilities" {
		var page struct {
			Items []map[string]json.RawMessage `json:"items"`
		}
		err = json.Unmarshal(body.Result["capabilities"], &page)
		entries = page.Items
	} else {
		err = json.Unmarshal(body.Result["tool_availability"], &entries)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatalf("%s view: no tool entries", view)
	}
	available := 0
	for _, e := range entries {
		_, hasEffects := e["effects"]
		_, hasAnnotations := e["annotations"]
		isAvailable := string(e["available"]) == "true"
		if isAvailable {
			available++
		}
		if want := always || !isAvailable; hasEffects != want || hasAnnotations != want {
			t.Errorf("%s view, %s (available %v): effects %v, annotations %v, want %v", view, e["name"], isAvailable,
				hasEffects, hasAnnotations, want)
		}
	}
	if available == 0 || available == len(entries) {
		t.Logf("%s view: %d of %d entries available", view, available, len(entries))
	}
}

// A procedure whose listing is over the byte budget (but within
// procedure_assembly's instruction bound) fails truncated, limit "bytes",
// naming read_function_instructions, instead of a huge answer; its
// instructions still page.
func TestProcedureAssemblyOverBudgetIsTruncated(t *testing.T) {
	var src strings.Builder
	src.WriteString("volatile int v;\nvoid big(void) {\n")
	for i := range 3000 {
		fmt.Fprintf(&src, "\tv = %d;\n", i)
	}
	src.WriteString("}\nint main(void) { big(); return 0; }\n")
	dir := t.TempDir()
	bin := testkit.CompileC(t, dir, "big", src.String(), "-O0")
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": bin})
	e := s.errorOf("procedure_assembly", map[string]any{"procedure": "big"})
	d, _ := e["details"].(map[string]any)
	remedy, _ := e["remediation"].(map[string]any)
	if e["code"] != "truncated" || d["limit"] != "bytes" || d["maximum"] != float64(answerBudget) || d["truncated"] != true ||
		!strings.Contains(fmt.Sprint(remedy["action"]), "read_function_instructions") {
		t.Fatalf("procedure_assembly of big: %v", e)
	}
	if actual, _ := d["actual"].(float64); actual <= answerBudget {
		t.Fatalf("actual %v is within the budget", d["actual"])
	}
	insns := result[struct {
		Instructions page `json:"instructions"`
	}](t, s.ok("read_function_instructions", map[string]any{"procedure": "big", "limit": 500}))
	if insns.Instructions.Total == nil || *insns.Instructions.Total < 3000 || insns.Instructions.NextOffset == nil {
		t.Fatalf("read_function_instructions of big: total %v, next %v", insns.Instructions.Total, insns.Instructions.NextOffset)
	}
	check := sizesOf(t, s.ok("procedure_assembly", map[string]any{"procedure": "main"}))
	if check.result == 0 || check.result > answerBudget {
		t.Fatalf("procedure_assembly of main: %d B", check.result)
	}
}

// get_call_graph pages its edges within the byte budget: 300 procedures
// with 500-character names that each call 12 others give a depth-2 graph of
// up to 157 nodes and 156 edges whose nodes take about 80 KB, more than one page;
// every page is within the budget (wholeCallGraph checks) and the pages
// hold the graph a walk over procedure_callees finds, each edge once.
func TestCallGraphByteBudget(t *testing.T) {
	const n, fanout = 300, 12
	long := strings.Repeat("x", 500)
	var src strings.Builder
	for i := range n {
		fmt.Fprintf(&src, "void %s%d(void);\n", long, i)
	}
	src.WriteString("volatile int sink;\n")
	for i := range n {
		fmt.Fprintf(&src, "void %s%d(void) {\n\tif (sink) return;\n\tsink = %d;\n", long, i, i)
		for k := range fanout {
			fmt.Fprintf(&src, "\t%s%d();\n", long, (i*7+k*13+1)%n)
		}
		src.WriteString("}\n")
	}
	src.WriteString("int main(void) {\n")
	for k := range fanout {
		fmt.Fprintf(&src, "\t%s%d();\n", long, k)
	}
	src.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	bin := testkit.CompileC(t, dir, "fanout", src.String(), "-O0")
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": bin})
	mainA := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "main"}))
	want, _ := calleeBFS(t, s, mainA, 2)
	got, names, _, pages := wholeCallGraph(t, s, map[string]any{"procedure": "main"})
	t.Logf("get_call_graph from main: %d nodes, %d edges, %d pages", len(names), len(got), pages)
	if pages < 2 || len(want) != fanout+fanout*fanout || !mapsEqual(got, want) {
		t.Fatalf("call graph: %d edges in %d pages, the procedure_callees walk %d", len(got), pages, len(want))
	}
	// One level from main fits one page.
	one := result[callGraph](t, s.ok("get_call_graph", map[string]any{"address": mainA, "depth": 1}))
	if one.Truncated || len(one.Nodes) != fanout+1 || len(one.Edges) != fanout {
		t.Fatalf("depth 1: %d nodes, %d edges, truncated %v", len(one.Nodes), len(one.Edges), one.Truncated)
	}
}

// A page whose items would exceed the byte budget returns fewer items, with
// truncated and next_offset (CONTRACTS.md §0, §1.4), over MCP; paging on
// from next_offset lists every procedure exactly once.
func TestPageByteBudgetOverMCP(t *testing.T) {
	const n = 700
	var src strings.Builder
	long := strings.Repeat("long_name_", 20)
	for i := range n {
		fmt.Fprintf(&src, "int %s%04d(int x) { return x + %d; }\n", long, i, i)
	}
	src.WriteString("int main(void) { return 0; }\n")
	dir := t.TempDir()
	bin := testkit.CompileC(t, dir, "long", src.String(), "-O0")
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": bin})
	for _, op := range []string{"list_procedures", "list_names"} {
		seen := map[string]int{}
		cut := 0
		var total *int
		for offset := 0; ; {
			r := s.ok(op, map[string]any{"offset": offset, "limit": 500})
			sz := sizesOf(t, r)
			p := result[page](t, r)
			if sz.result > answerBudget || len(p.Items) == 0 {
				t.Fatalf("%s at %d: %d items, %d B", op, offset, len(p.Items), sz.result)
			}
			if len(p.Items) < 500 && p.NextOffset != nil {
				cut++
				if !p.Truncated || *p.NextOffset != offset+len(p.Items) {
					t.Fatalf("%s at %d: cut page of %d items, truncated %v, next_offset %d", op, offset, len(p.Items), p.Truncated, *p.NextOffset)
				}
			}
			for _, it := range p.Items {
				seen[it.Address+" "+it.Value]++
			}
			total = p.Total
			if p.NextOffset == nil {
				break
			}
			offset = *p.NextOffset
		}
		if cut == 0 {
			t.Fatalf("%s: no page was cut by the byte budget", op)
		}
		for k, c := range seen {
			if c != 1 {
				t.Fatalf("%s: %s listed %d times", op, k, c)
			}
		}
		if total == nil || len(seen) != *total || len(seen) < n {
			t.Fatalf("%s: %d distinct items, total %v, want at least %d", op, len(seen), total, n)
		}
		t.Logf("%s: %d items, %d pages cut by the budget", op, len(seen), cut)
	}
}
