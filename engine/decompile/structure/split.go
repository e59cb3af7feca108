package structure

// Node splitting removes the gotos of crossing merges in the reducible
// part: the tree has no flag variables, so two merges reached from
// overlapping sets of branches cannot both be the end of a block (clang's
// jump threading of an unrolled loop makes such bodies). A small merge,
// with the few nodes it dominates, is copied into each of its
// predecessors (tail duplication; compare the controlled node splitting
// of Janssen and Corporaal, TOPLAS 1997, which splits loop entries); the
// graph with the copies is structured again and kept when it has fewer
// gotos. Copies are mapped back to their nodes, so the tree repeats
// blocks as it does for returns.
const (
	// splitNodes and splitSize bound one copied unit: its nodes and its
	// lines (sizeOf).
	splitNodes = 4
	splitSize  = 10
	// splitTotal bounds the lines copied in all. splitTries bounds the
	// graphs structured again, and splitWork their nodes (besides twice
	// the graph's): splitting costs at most a few structurings of a
	// large graph, at most splitTries of a small one.
	splitTotal = 48
	splitTries = 32
	splitWork  = 1024
)

// splitter is the graph with the copies accepted so far and its tree.
type splitter struct {
	g      Graph
	orig   []int // g's node → the original node it copies
	s      *structurer
	tree   *Node
	gotos  int
	copied int // lines copied (sizeOf)
	tries  int
	// work counts the nodes of the graphs structured again, against
	// budget: large graphs get fewer tries
	work, budget int
}

// split returns tree with fewer gotos if copying small merges gets
// there, else tree. s is tree's structurer, over g.
func split(g Graph, s *structurer, tree *Node, gotos int) *Node {
	out := splitTree(g, s, tree, gotos)
	if out == nil || Check(g, out) != nil {
		// a safety net: the copies are only kept for a faithful tree
		// (the fuzz test holds splitTree to Check without it)
		return tree
	}
	return out
}

// splitTree is split's tree before it is checked, nil when no copy
// leaves fewer gotos.
func splitTree(g Graph, s *structurer, tree *Node, gotos int) *Node {
	if g.Unique {
		return nil
	}
	for _, in := range s.gotoIn {
		if in {
			// an irreducible graph keeps its gotos: copying a merge
			// does not remove a cycle's, and its structuring is the
			// costly kind (the ladder benchmark)
			return nil
		}
	}
	sp := &splitter{g: g, s: s, tree: tree, gotos: gotos, orig: make([]int, len(g.Succs)), budget: 2*len(g.Succs) + splitWork}
	for i := range sp.orig {
		sp.orig[i] = i
	}
	for sp.gotos > 0 && sp.tries < splitTries && sp.round() {
	}
	if sp.tree == tree {
		return nil
	}
	return relabel(sp.tree, sp.orig)
}

// round tries the candidates in turn on the current graph and keeps the
// first copy that leaves fewer gotos. A candidate need not be a goto
// target: copying the merge before one can uncross the merges after it.
func (sp *splitter) round() bool {
	kids, preds := sp.links()
	for _, y := range sp.candidates() {
		if sp.tries >= splitTries || sp.work >= sp.budget {
			return false
		}
		g, orig, size, ok := sp.copyAt(y, kids, preds)
		if !ok || sp.copied+size > splitTotal {
			continue
		}
		sp.tries++
		sp.work += len(g.Succs)
		s, err := analyse(g)
		if err != nil {
			continue
		}
		tree := s.structure()
		if n, _, _ := Stats(tree); n < sp.gotos && uniqueLabels(tree, orig) {
			sp.g, sp.orig, sp.s, sp.tree, sp.gotos = g, orig, s, tree, n
			sp.copied += size
			return true
		}
	}
	return false
}

// candidates are the nodes to try copying: the goto targets, then the
// other nodes of the innermost loops that hold a goto's target (or of no
// loop, for a target outside loops), in reverse postorder; copyAt turns
// down those that are not small merges.
func (sp *splitter) candidates() []int {
	s := sp.s
	out := gotoTargets(sp.tree)
	loops, target := map[int]bool{}, map[int]bool{}
	for _, y := range out {
		loops[s.inner[y]], target[y] = true, true
	}
	for _, y := range s.rpo {
		if loops[s.inner[y]] && !target[y] {
			out = append(out, y)
		}
	}
	return out
}

// gotoTargets are the targets of tree's gotos, in order of appearance.
func gotoTargets(tree *Node) []int {
	var out []int
	seen := map[int]bool{}
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		if n.Kind == Goto && !seen[n.Node] {
			seen[n.Node] = true
			out = append(out, n.Node)
		}
		for _, k := range n.Children {
			walk(k)
		}
		for _, c := range n.Cases {
			walk(c.Body)
		}
	}
	walk(tree)
	return out
}

// copyAt is the current graph with y and the nodes it dominates copied
// for each predecessor of y but the first, with the lines the copies
// add; ok is false when y is not a small merge. kids are the dominator
// tree's children and preds the distinct predecessors, of the current
// graph.
func (sp *splitter) copyAt(y int, kids, preds [][]int) (g Graph, orig []int, size int, ok bool) {
	s, cur := sp.s, sp.g
	if y == cur.Entry || len(preds[y]) < 2 || s.header[y] || s.size[y] > splitNodes {
		return Graph{}, nil, 0, false
	}
	unit := []int{y}
	in := map[int]int{y: 0} // unit node → its index in unit
	unitSize := 0
	for i := 0; i < len(unit); i++ {
		x := unit[i]
		if s.header[x] || len(cur.Succs[x]) > 2 {
			return Graph{}, nil, 0, false
		}
		unitSize += sizeOf(cur, x)
		for _, k := range kids[x] {
			in[k] = len(unit)
			unit = append(unit, k)
		}
	}
	if unitSize > splitSize {
		return Graph{}, nil, 0, false
	}
	n := len(cur.Succs)
	extra := len(unit) * (len(preds[y]) - 1)
	g = Graph{Entry: cur.Entry, Succs: make([][]int, n, n+extra), Pure: make([]bool, n, n+extra)}
	copy(g.Succs, cur.Succs)
	for x := range g.Pure {
		_, inside := in[x]
		g.Pure[x] = x < len(cur.Pure) && cur.Pure[x] && !inside // a copied pure node is tested at two places: it needs its block
	}
	if cur.Size != nil {
		g.Size = make([]int, n, n+extra)
		copy(g.Size, cur.Size)
	}
	orig = append(make([]int, 0, n+extra), sp.orig...)
	for _, u := range preds[y][1:] {
		base := len(g.Succs)
		for _, x := range unit {
			ss := append([]int{}, cur.Succs[x]...)
			for i, z := range ss {
				if k, inside := in[z]; inside {
					ss[i] = base + k
				}
			}
			g.Succs = append(g.Succs, ss)
			g.Pure = append(g.Pure, false)
			if g.Size != nil {
				g.Size = append(g.Size, g.Size[x])
			}
			orig = append(orig, sp.orig[x])
		}
		ss := append([]int{}, cur.Succs[u]...)
		for i, z := range ss {
			if z == y {
				ss[i] = base
			}
		}
		g.Succs[u] = ss
		size += unitSize
	}
	return g, orig, size, true
}

// links are the current graph's dominator-tree children and distinct
// predecessors (reachable ones), in reverse postorder.
func (sp *splitter) links() (kids, preds [][]int) {
	s := sp.s
	n := len(sp.g.Succs)
	kids, preds = make([][]int, n), make([][]int, n)
	for _, x := range s.rpo {
		if x != sp.g.Entry {
			kids[s.idom[x]] = append(kids[s.idom[x]], x)
		}
		for _, y := range sp.g.Succs[x] {
			if ps := preds[y]; len(ps) == 0 || ps[len(ps)-1] != x {
				preds[y] = append(ps, x)
			}
		}
	}
	return kids, preds
}

// sizeOf is the lines x's copy prints: its statements (g.Size) and its
// test or jump.
func sizeOf(g Graph, x int) int {
	if x < len(g.Size) {
		return 1 + g.Size[x]
	}
	return 1
}

// uniqueLabels reports whether tree's labels name distinct original
// nodes: a goto to a copy would otherwise be ambiguous.
func uniqueLabels(tree *Node, orig []int) bool {
	seen := map[int]bool{}
	ok := true
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil || !ok {
			return
		}
		if n.Kind == Label {
			ok = !seen[orig[n.Node]]
			seen[orig[n.Node]] = true
		}
		for _, k := range n.Children {
			walk(k)
		}
		for _, c := range n.Cases {
			walk(c.Body)
		}
	}
	walk(tree)
	return ok
}

// relabel is tree with each copy's node number replaced by its
// original's.
func relabel(n *Node, orig []int) *Node {
	if n == nil {
		return nil
	}
	out := &Node{Kind: n.Kind, Node: n.Node, Cond: relabelCond(n.Cond, orig), Once: n.Once}
	switch n.Kind {
	case Block, Switch, Goto, Label:
		out.Node = orig[n.Node]
	}
	for _, k := range n.Children {
		out.Children = append(out.Children, relabel(k, orig))
	}
	for _, c := range n.Cases {
		out.Cases = append(out.Cases, Case{Succs: c.Succs, Body: relabel(c.Body, orig)})
	}
	return out
}

func relabelCond(c *Cond, orig []int) *Cond {
	if c == nil {
		return nil
	}
	out := *c
	if c.Op == Leaf {
		out.Node = orig[c.Node]
	}
	out.X, out.Y = relabelCond(c.X, orig), relabelCond(c.Y, orig)
	return &out
}
