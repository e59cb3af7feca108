package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// callGraph.page on a graph whose nodes' names take 3 KB each: every page
// is within the byte budget, holds at least one edge, names exactly the
// root and its edges' nodes (an error node with its error), and the pages
// from offset 0 hold every edge once; an offset past the end is the root
// alone; max_nodes' cut keeps truncated on every page.
func TestCallGraphPages(t *testing.T) {
	long := strings.Repeat("n", 3000)
	g := &callGraph{root: 0x1000, depth: 2, nodes: map[uint64]*callGraphNode{}}
	node := func(a uint64) {
		name := long + provider.FormatAddress(a)
		g.nodes[a] = &callGraphNode{Address: provider.FormatAddress(a), Name: &name}
	}
	node(0x1000)
	for i := uint64(1); i <= 60; i++ {
		node(0x1000 + i)
		g.edges = append(g.edges, [2]uint64{0x1000, 0x1000 + i})
		if i%3 == 0 {
			g.edges = append(g.edges, [2]uint64{0x1000 + i, 0x1000 + i - 1}, [2]uint64{0x1000 + i, 0x1000 + i})
		}
	}
	g.nodes[0x1005].Error = fault.Invalid("procedure_callees", fault.Issue{Path: "/procedure", Reason: "invalid_value"})
	seen := map[[2]uint64]bool{}
	pages := 0
	for offset := 0; ; pages++ {
		p, err := g.page(offset, 1000)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		if len(b) > provider.ResultBudget || len(p.Edges) == 0 {
			t.Fatalf("page at %d: %d B, %d edges", offset, len(b), len(p.Edges))
		}
		named := map[string]bool{p.Root: true}
		for _, e := range p.Edges {
			x, _ := provider.ParseAddress(p.Nodes[e[0]].Address)
			y, _ := provider.ParseAddress(p.Nodes[e[1]].Address)
			if seen[[2]uint64{x, y}] {
				t.Fatalf("edge %x→%x twice", x, y)
			}
			seen[[2]uint64{x, y}] = true
			named[p.Nodes[e[0]].Address], named[p.Nodes[e[1]].Address] = true, true
		}
		for _, n := range p.Nodes {
			if (n.Address == "0x1005") != (n.Error != nil) || !named[n.Address] {
				t.Fatalf("node %s: error %v, named by the page %v", n.Address, n.Error, named[n.Address])
			}
		}
		if p.NextOffset == nil {
			break
		}
		offset = *p.NextOffset
	}
	if len(seen) != len(g.edges) || pages < 2 {
		t.Fatalf("%d of %d edges in %d pages", len(seen), len(g.edges), pages)
	}
	g.cut = true
	p, err := g.page(len(g.edges)+5, 10)
	if err != nil || len(p.Nodes) != 1 || len(p.Edges) != 0 || p.NextOffset != nil || !p.Truncated {
		t.Fatalf("past the end, cut: %+v %v", p, err)
	}
	if p, _ := g.page(0, 1); len(p.Edges) != 1 || p.NextOffset == nil || *p.NextOffset != 1 || !p.Truncated {
		t.Fatalf("limit 1: %+v", p)
	}
}
