package structure

import "testing"

// fuzzGraph reads a graph of at most 64 nodes from b: self-loops,
// unreachable nodes, repeated successors and irreducible shapes all
// occur.
func fuzzGraph(b []byte) Graph {
	if len(b) == 0 {
		return Graph{Succs: [][]int{nil}}
	}
	n := int(b[0])%64 + 1
	b = b[1:]
	next := func() int {
		if len(b) == 0 {
			return 0
		}
		v := int(b[0])
		b = b[1:]
		return v
	}
	// Size covers half the nodes: the rest have none
	g := Graph{Succs: make([][]int, n), Pure: make([]bool, n), Size: make([]int, n/2)}
	for x := 0; x < n; x++ {
		h := next()
		k := []int{0, 1, 1, 2, 2, 2, 3, 5}[h&7]
		g.Pure[x] = h&8 != 0
		if x < len(g.Size) {
			g.Size[x] = h >> 4
		}
		for i := 0; i < k; i++ {
			// mostly near targets, so that shapes nest
			v := next()
			y := (x + v%7 - 2 + n) % n
			if v&0x80 != 0 {
				y = v % n
			}
			g.Succs[x] = append(g.Succs[x], y)
		}
	}
	return g
}

func FuzzStructure(f *testing.F) {
	f.Add([]byte{5, 3, 1, 2, 1, 3, 4, 2, 2, 9, 0})
	f.Add([]byte{63, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{8, 4, 0x81, 0x82, 3, 0x85, 0x80, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Fuzz(func(t *testing.T, b []byte) {
		g := fuzzGraph(b)
		for _, unique := range []bool{false, true} {
			g.Unique = unique
			tree, err := Structure(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(g, tree); err != nil {
				t.Fatalf("unique %v: %v\n%v\n%s", unique, err, g.Succs, render(tree))
			}
		}
		// node splitting without its safety net
		g.Unique = false
		s, _ := analyse(g)
		tree := s.structure()
		if gotos, _, _ := Stats(tree); gotos > 0 {
			if split := splitTree(g, s, tree, gotos); split != nil {
				if err := Check(g, split); err != nil {
					t.Fatalf("split: %v\n%v\n%s", err, g.Succs, render(split))
				}
			}
		}
	})
}
