package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// callGraph is a get_call_graph result (CONTRACTS.md §0.3).
type callGraph struct {
	Root  string
	Depth int
	Nodes []struct {
		Address string
		Name    *string
		Error   map[string]any
	}
	Edges      [][2]int
	Truncated  bool
	NextOffset *int `json:"next_offset"`
}

// graphEdge is one edge by addresses: [caller, callee].
type graphEdge [2]string

// wholeCallGraph pages get_call_graph from offset 0 to its end and returns
// its edges by address, each page's node names by address, and the number
// of pages. Every page is checked: its nodes sorted and unique, exactly the
// root and the nodes its edges name, its edges sorted index pairs, its
// result within the byte budget, and no edge on two pages.
func wholeCallGraph(t *testing.T, s *session, args map[string]any) (edges map[graphEdge]bool, names map[string]*string, root string, pages int) {
	t.Helper()
	edges, names = map[graphEdge]bool{}, map[string]*string{}
	for offset := 0; ; pages++ {
		a := map[string]any{"offset": offset}
		for k, v := range args {
			a[k] = v
		}
		r := s.ok("get_call_graph", a)
		if sz := sizesOf(t, r); sz.result > answerBudget {
			t.Fatalf("page %d: result %d B, over the %d B budget", pages, sz.result, answerBudget)
		}
		g := result[callGraph](t, r)
		if pages > 0 && g.Root != root {
			t.Fatalf("page %d: root %s, the first page's %s", pages, g.Root, root)
		}
		root = g.Root
		named := map[string]bool{g.Root: true}
		for i, n := range g.Nodes {
			if i > 0 && !(mustAddr(t, g.Nodes[i-1].Address) < mustAddr(t, n.Address)) {
				t.Fatalf("page %d: nodes not sorted by address or repeated: %s, %s", pages, g.Nodes[i-1].Address, n.Address)
			}
			if prev, seen := names[n.Address]; seen && !samePtr(prev, n.Name) {
				t.Fatalf("node %s named %v on one page and %v on another", n.Address, nameOrNil(prev), nameOrNil(n.Name))
			}
			names[n.Address] = n.Name
		}
		if !slices.IsSortedFunc(g.Edges, func(x, y [2]int) int {
			if x[0] != y[0] {
				return x[0] - y[0]
			}
			return x[1] - y[1]
		}) {
			t.Fatalf("page %d: edges not sorted: %v", pages, g.Edges)
		}
		for _, e := range g.Edges {
			if e[0] < 0 || e[1] < 0 || e[0] >= len(g.Nodes) || e[1] >= len(g.Nodes) {
				t.Fatalf("page %d: edge %v outside its %d nodes", pages, e, len(g.Nodes))
			}
			ge := graphEdge{g.Nodes[e[0]].Address, g.Nodes[e[1]].Address}
			if edges[ge] {
				t.Fatalf("edge %v on two pages", ge)
			}
			edges[ge] = true
			named[ge[0]], named[ge[1]] = true, true
		}
		if len(named) != len(g.Nodes) {
			t.Fatalf("page %d: %d nodes, but its root and edges name %d", pages, len(g.Nodes), len(named))
		}
		if g.NextOffset == nil {
			return edges, names, root, pages + 1
		}
		if !g.Truncated || *g.NextOffset <= offset {
			t.Fatalf("page %d: truncated %v, next_offset %d after %d", pages, g.Truncated, *g.NextOffset, offset)
		}
		offset = *g.NextOffset
	}
}

// calleeBFS is the oracle: the graph walked breadth first from root to
// depth over procedure_callees, every page of it, through the tool path.
func calleeBFS(t *testing.T, s *session, root string, depth int) (map[graphEdge]bool, map[string]*string) {
	t.Helper()
	edges := map[graphEdge]bool{}
	names := map[string]*string{}
	seen := map[string]bool{root: true}
	frontier := []string{root}
	for d := 0; d < depth; d++ {
		var next []string
		for _, a := range frontier {
			for offset := 0; ; {
				p := result[struct {
					Items []struct {
						Address string
						Name    *string
					}
					NextOffset *int `json:"next_offset"`
				}](t, s.ok("procedure_callees", map[string]any{"procedure": a, "offset": offset, "limit": 500}))
				for _, it := range p.Items {
					edges[graphEdge{a, it.Address}] = true
					if !seen[it.Address] {
						seen[it.Address] = true
						names[it.Address] = it.Name
						next = append(next, it.Address)
					}
				}
				if p.NextOffset == nil {
					break
				}
				offset = *p.NextOffset
			}
		}
		frontier = next
	}
	return edges, names
}

// TestCallGraphSSH is issue 27's call graph acceptance on Debian's stripped
// ssh: get_call_graph by the name main, depth 1, is at most 16 KB; depth 2,
// paged, is exactly the graph a breadth-first walk over procedure_callees
// finds, each edge on one page, each node named as procedure_callees names
// it.
func TestCallGraphSSH(t *testing.T) {
	const ssh = "/usr/bin/ssh"
	if _, err := os.Stat(ssh); err != nil {
		testkit.SkipOrFail(t, fmt.Sprintf("%s is not installed (Debian openssh-client): %v", ssh, err))
	}
	s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
	s.ok("open_binary", map[string]any{"path": ssh})
	mainA := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "main"}))

	one := s.ok("get_call_graph", map[string]any{"procedure": "main", "depth": 1})
	sz := sizesOf(t, one)
	g1 := result[callGraph](t, one)
	t.Logf("depth 1 from main: %d nodes, %d edges, result %d B", len(g1.Nodes), len(g1.Edges), sz.result)
	if sz.result > 16_000 || g1.Root != mainA || g1.Truncated || g1.NextOffset != nil {
		t.Fatalf("depth 1 from main: root %s (main %s), %d B, truncated %v", g1.Root, mainA, sz.result, g1.Truncated)
	}
	want1, _ := calleeBFS(t, s, mainA, 1)
	got1, _, _, _ := wholeCallGraph(t, s, map[string]any{"address": mainA, "depth": 1})
	if len(want1) < 10 || !mapsEqual(got1, want1) {
		t.Fatalf("depth 1: %d edges, procedure_callees %d", len(got1), len(want1))
	}

	want, wantNames := calleeBFS(t, s, mainA, 2)
	for _, limit := range []int{500, 97} {
		got, names, root, pages := wholeCallGraph(t, s, map[string]any{"procedure": "main", "depth": 2, "max_nodes": 5000, "limit": limit})
		t.Logf("depth 2, limit %d: %d pages, %d nodes, %d edges (procedure_callees walk: %d edges)", limit, pages, len(names), len(got), len(want))
		if root != mainA || !mapsEqual(got, want) {
			t.Fatalf("depth 2, limit %d: %d edges, the procedure_callees walk %d", limit, len(got), len(want))
		}
		if limit < 500 && pages < 2 {
			t.Errorf("depth 2 at limit %d answered in %d page", limit, pages)
		}
		for a, n := range wantNames {
			if !samePtr(names[a], n) {
				t.Errorf("node %s named %v, procedure_callees %v", a, nameOrNil(names[a]), nameOrNil(n))
			}
		}
		if len(names) != len(wantNames)+1 {
			t.Errorf("depth 2: %d nodes, the walk reaches %d besides main", len(names), len(wantNames))
		}
	}
}

func mustAddr(t *testing.T, s string) uint64 {
	t.Helper()
	a, err := provider.ParseAddress(s)
	if err != nil {
		t.Fatalf("address %q: %v", s, err)
	}
	return a
}

func samePtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func nameOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func mapsEqual(a, b map[graphEdge]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
