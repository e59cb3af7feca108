package structure

import (
	"errors"
	"fmt"
	"sort"
)

// ErrGraph is returned by Structure for a graph it cannot read: an entry
// or a successor outside 0..len(Succs)-1.
var ErrGraph = errors.New("structure: malformed graph")

// edge kinds of the structured graph
type edgeKind uint8

const (
	fwd     edgeKind = iota // a forward edge of the reducible part
	back                    // to a loop header that dominates the source
	retreat                 // to a DFS ancestor that does not dominate it: a goto
)

// structurer holds the analyses of one graph.
type structurer struct {
	g        Graph
	succ     [][]int      // effective successors: all-equal lists collapse to one
	kind     [][]edgeKind // per successor
	num      []int        // reverse-postorder number, -1: unreachable
	rpo      []int
	idom     []int
	header   []bool
	loop     [][]bool // loop[h] (headers only): the natural loop's members
	fwdIn    []int    // distinct forward predecessors
	merges   [][]int  // dominator-tree children with fwdIn ≥ 2, in RPO
	gotoIn   []bool   // the target of a retreating edge
	leafOnly []bool   // a pure node folded into another's condition
	chains   []chain  // two-way nodes: the condition with folded nodes
	size     []int    // nodes in the dominator subtree
	follow   []bool   // a loop's follow reached by a single edge: jumped to
	inner    []int    // the header of the innermost loop holding a node, or -1
	preds    [][]int  // predecessors over forward and back edges
}

// chain is a two-way node's condition and the edges it takes when true
// and false.
type chain struct {
	cond *Cond
	t, f [2]int
}

// Structure returns the tree of C constructs that runs g's reachable
// nodes as g does (see the package doc for the algorithm and the
// tree's contract). Unreachable nodes are left out.
func Structure(g Graph) (*Node, error) {
	s, err := analyse(g)
	if err != nil {
		return nil, err
	}
	tree := s.structure()
	if gotos, _, _ := Stats(tree); gotos > 0 {
		return split(g, s, tree, gotos), nil
	}
	return tree, nil
}

// structure is the tree of s's graph as it is, without node splitting.
func (s *structurer) structure() *Node {
	if tree := s.build(true); labelled(tree) {
		return tree
	}
	// a dissolved node is still the target of a goto from a copy
	// elsewhere: build again without dissolving
	return s.build(false)
}

// build makes the items and resolves their jumps: returns are repeated
// rather than jumped to; then once blocks turn the gotos they can into
// breaks; then the blocks of nodes that dominate nothing are repeated
// where gotos remain.
func (s *structurer) build(dissolve bool) *Node {
	s.follow = make([]bool, len(s.succ))
	it := s.doTree(s.g.Entry)
	r := resolver{s: s, reverting: !dissolve, budget: 256*len(s.rpo) + 16384}
	r.resolve(it, rctx{fall: -1, brk: -1, cont: -1})
	r.dupAll = true
	r.resolve(it, rctx{fall: -1, brk: -1, cont: -1})
	return r.tree(it)
}

// labelled reports whether every goto of tree has its label.
func labelled(tree *Node) bool {
	labels, gotos := map[int]bool{}, map[int]bool{}
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		switch n.Kind {
		case Label:
			labels[n.Node] = true
		case Goto:
			gotos[n.Node] = true
		}
		for _, k := range n.Children {
			walk(k)
		}
		for _, c := range n.Cases {
			walk(c.Body)
		}
	}
	walk(tree)
	for x := range gotos {
		if !labels[x] {
			return false
		}
	}
	return true
}

func analyse(g Graph) (*structurer, error) {
	n := len(g.Succs)
	if g.Entry < 0 || g.Entry >= n {
		return nil, fmt.Errorf("%w: entry %d of %d nodes", ErrGraph, g.Entry, n)
	}
	s := &structurer{g: g, succ: make([][]int, n), kind: make([][]edgeKind, n)}
	for x, ss := range g.Succs {
		for _, y := range ss {
			if y < 0 || y >= n {
				return nil, fmt.Errorf("%w: node %d's successor %d of %d nodes", ErrGraph, x, y, n)
			}
		}
		s.succ[x] = effective(ss)
		s.kind[x] = make([]edgeKind, len(s.succ[x]))
	}
	pre, post := s.dfs()
	// goto edges: retreating edges whose target does not dominate the
	// source. Without them the graph is reducible on the same DFS tree.
	s.idom = s.dominators(func(u, i int) bool { return true })
	ancestor := func(a, b int) bool { return pre[a] <= pre[b] && post[a] >= post[b] }
	for _, u := range s.rpo {
		for i, v := range s.succ[u] {
			if ancestor(v, u) && !s.dominates(v, u) {
				s.kind[u][i] = retreat
			}
		}
	}
	s.idom = s.dominators(func(u, i int) bool { return s.kind[u][i] != retreat })
	s.header = make([]bool, n)
	s.gotoIn = make([]bool, n)
	s.loop = make([][]bool, n)
	for _, u := range s.rpo {
		for i, v := range s.succ[u] {
			switch {
			case s.kind[u][i] == retreat:
				s.gotoIn[v] = true
			case s.dominates(v, u):
				s.kind[u][i] = back
				s.header[v] = true
			}
		}
	}
	s.inner = make([]int, n)
	for i := range s.inner {
		s.inner[i] = -1
	}
	for _, h := range s.rpo { // inner loops' headers come later
		if s.header[h] {
			s.loop[h] = s.naturalLoop(h)
			for u, in := range s.loop[h] {
				if in {
					s.inner[u] = h
				}
			}
		}
	}
	// Pure nodes fold into the conditions of their predecessors first:
	// the edges of a folded chain count as the two edges of one test.
	s.leafOnly = make([]bool, n)
	s.chains = make([]chain, n)
	s.count()
	for _, x := range s.rpo {
		if len(s.succ[x]) == 2 && !s.leafOnly[x] {
			s.chains[x] = s.chain(x)
		}
	}
	s.count()
	s.size = make([]int, n)
	for i := len(s.rpo) - 1; i >= 0; i-- {
		x := s.rpo[i]
		s.size[x]++
		if x != g.Entry {
			s.size[s.idom[x]] += s.size[x]
		}
	}
	s.follow = make([]bool, n)
	return s, nil
}

// outEdges are x's edges as the tree takes them: (node, successor index)
// pairs, a folded chain's two, a switch's distinct targets once.
func (s *structurer) outEdges(x int) [][2]int {
	if c := s.chains[x]; c.cond != nil {
		return [][2]int{c.t, c.f}
	}
	var out [][2]int
	for i, y := range s.succ[x] {
		dup := false
		for _, e := range out {
			dup = dup || s.succ[e[0]][e[1]] == y
		}
		if !dup {
			out = append(out, [2]int{x, i})
		}
	}
	return out
}

// count sets fwdIn and merges from the current folding.
func (s *structurer) count() {
	n := len(s.succ)
	s.fwdIn = make([]int, n)
	for _, u := range s.rpo {
		if s.leafOnly[u] {
			continue
		}
		for _, e := range s.outEdges(u) {
			if s.kind[e[0]][e[1]] == fwd {
				s.fwdIn[s.succ[e[0]][e[1]]]++
			}
		}
	}
	s.merges = make([][]int, n)
	for _, v := range s.rpo { // RPO: each list comes out sorted
		if v != s.g.Entry && s.fwdIn[v] >= 2 {
			s.merges[s.idom[v]] = append(s.merges[s.idom[v]], v)
		}
	}
}

// effective is a successor list with a repeated single target collapsed:
// a branch whose outcomes all go to one place is a jump there.
func effective(ss []int) []int {
	for _, y := range ss[min(1, len(ss)):] {
		if y != ss[0] {
			return ss
		}
	}
	return ss[:min(1, len(ss))]
}

// dfs numbers the reachable nodes (pre and post order) and sets rpo and
// num. It is iterative: graphs may be deep.
func (s *structurer) dfs() (pre, post []int) {
	n := len(s.succ)
	pre, post = make([]int, n), make([]int, n)
	s.num = make([]int, n)
	for i := range pre {
		pre[i], post[i], s.num[i] = -1, -1, -1
	}
	type frame struct{ x, i int }
	stack := []frame{{s.g.Entry, 0}}
	pre[s.g.Entry] = 0
	np, nq := 1, 0
	var order []int
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i < len(s.succ[f.x]) {
			y := s.succ[f.x][f.i]
			f.i++
			if pre[y] < 0 {
				pre[y] = np
				np++
				stack = append(stack, frame{y, 0})
			}
			continue
		}
		post[f.x] = nq
		nq++
		order = append(order, f.x)
		stack = stack[:len(stack)-1]
	}
	s.rpo = make([]int, len(order))
	for i, x := range order {
		s.rpo[len(order)-1-i] = x
	}
	for i, x := range s.rpo {
		s.num[x] = i
	}
	return pre, post
}

// dominators computes immediate dominators over the edges keep accepts
// (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm").
func (s *structurer) dominators(keep func(u, i int) bool) []int {
	n := len(s.succ)
	preds := make([][]int, n)
	for _, u := range s.rpo {
		for i, v := range s.succ[u] {
			if keep(u, i) {
				preds[v] = append(preds[v], u)
			}
		}
	}
	idom := make([]int, n)
	for i := range idom {
		idom[i] = -1
	}
	e := s.g.Entry
	idom[e] = e
	intersect := func(a, b int) int {
		for a != b {
			for s.num[a] > s.num[b] {
				a = idom[a]
			}
			for s.num[b] > s.num[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range s.rpo[1:] {
			nd := -1
			for _, p := range preds[b] {
				if idom[p] < 0 {
					continue
				}
				if nd < 0 {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if nd >= 0 && idom[b] != nd {
				idom[b] = nd
				changed = true
			}
		}
	}
	return idom
}

// dominates reports whether a dominates b under s.idom.
func (s *structurer) dominates(a, b int) bool {
	for {
		if a == b {
			return true
		}
		if b == s.g.Entry || s.idom[b] < 0 || s.idom[b] == b {
			return false
		}
		if s.num[s.idom[b]] < s.num[a] {
			return false // dominators have smaller RPO numbers
		}
		b = s.idom[b]
	}
}

// naturalLoop is the set of nodes that reach one of h's back edges
// without passing through h.
func (s *structurer) naturalLoop(h int) []bool {
	n := len(s.succ)
	if s.preds == nil {
		s.preds = make([][]int, n)
		for _, u := range s.rpo {
			for i, v := range s.succ[u] {
				if s.kind[u][i] != retreat {
					s.preds[v] = append(s.preds[v], u)
				}
			}
		}
	}
	preds := s.preds
	in := make([]bool, n)
	in[h] = true
	var work []int
	for _, p := range preds[h] {
		if s.dominates(h, p) && !in[p] {
			in[p] = true
			work = append(work, p)
		}
	}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range preds[x] {
			if !in[p] {
				in[p] = true
				work = append(work, p)
			}
		}
	}
	return in
}

// item is the structurer's working tree: Node's constructs plus jumps not
// yet resolved into a fall-through, a break, a continue or a goto.
type item struct {
	kind  itemKind
	node  int // block, switch: the graph node; loop: the header (-1: once); jump: the target
	cond  *Cond
	kids  []*item // seq: in order; if: then, else; loop: body
	cases []itemCase
	res   Kind  // jump: Seq (elided), Break, Continue, Goto or Block (copy)
	copy  *item // jump: the copy of the target's code that replaces it
	// copied marks a block repeated for a jump: it takes no label
	copied bool
}

type itemCase struct {
	succs []int
	body  *item
}

type itemKind uint8

const (
	iSeq itemKind = iota
	iBlock
	iIf
	iSwitch
	iLoop
	iJump
)

func seqOf(kids ...*item) *item {
	var out []*item
	for _, k := range kids {
		if k.kind == iSeq {
			out = append(out, k.kids...)
		} else {
			out = append(out, k)
		}
	}
	return &item{kind: iSeq, kids: out}
}

// doTree is the code that runs when control arrives at x: x, the nodes it
// dominates through single forward edges inline, and its merge children
// after it (Ramsey, "Beyond Relooper", ICFP 2022).
func (s *structurer) doTree(x int) *item {
	ms := s.merges[x]
	if !s.header[x] {
		return s.within(x, ms)
	}
	// A loop's follow is its last merge child outside the loop; the
	// others run inside the body and leave it with break.
	var in, out []int
	for _, m := range ms {
		if s.loop[x][m] {
			in = append(in, m)
		} else {
			out = append(out, m)
		}
	}
	if len(out) > 1 {
		in = append(in, out[:len(out)-1]...)
		sort.Slice(in, func(i, j int) bool { return s.num[in[i]] < s.num[in[j]] })
		out = out[len(out)-1:]
	}
	if len(out) == 0 && !s.exitsAway(x) {
		// no merge after the loop and no exit to what follows it: the
		// follow is an exit target reached by one edge, preferably the
		// header's or a latch's, else the one that dominates most
		best, rank := -1, -1
		for _, u := range s.rpo {
			if s.inner[u] != x || s.leafOnly[u] || len(s.succ[u]) > 2 {
				// a break in a nested loop or a switch would leave that
				continue
			}
			for _, e := range s.outEdges(u) {
				y := s.succ[e[0]][e[1]]
				if s.loop[x][y] || s.kind[e[0]][e[1]] != fwd || s.fwdIn[y] != 1 || s.follow[y] {
					continue
				}
				r := s.size[y]
				if len(s.succ[y]) > 0 {
					r += 1 << 20
				}
				if u == x {
					r += 1 << 22
				} else if s.latch(u, x) {
					r += 1 << 21
				}
				if r > rank {
					best, rank = y, r
				}
			}
		}
		if best >= 0 {
			s.follow[best] = true
			out = []int{best}
		}
	}
	l := &item{kind: iLoop, node: x, kids: []*item{s.within(x, in)}}
	kids := []*item{l}
	for _, m := range out {
		kids = append(kids, s.doTree(m))
	}
	return seqOf(kids...)
}

// exitsAway reports whether the loop headed by h has an exit edge to a
// node h does not dominate: that exit is a break only when the loop is
// followed by what follows it in its context.
func (s *structurer) exitsAway(h int) bool {
	for _, u := range s.rpo {
		if !s.loop[h][u] {
			continue
		}
		for i, y := range s.succ[u] {
			if !s.loop[h][y] && s.kind[u][i] != retreat && !s.dominates(h, y) && !s.returns(y, 4) {
				return true
			}
		}
	}
	return false
}

// dupable reports whether y's code may be repeated where a goto to it
// would be: one block whose branches are all jumps (it dominates no
// other node), no loop header, its test its own.
func (s *structurer) dupable(y int) bool {
	return s.size[y] == 1 && !s.header[y] && !s.leafOnly[y] && len(s.succ[y]) <= 2 &&
		(len(s.succ[y]) < 2 || s.chains[y].cond.Op == Leaf)
}

// copyCode is y's block and its branches as jumps.
func (s *structurer) copyCode(y int) *item {
	blk := &item{kind: iBlock, node: y, copied: true}
	jump := func(i int) *item { return &item{kind: iJump, node: s.succ[y][i]} }
	switch len(s.succ[y]) {
	case 0:
		return seqOf(blk)
	case 1:
		return seqOf(blk, jump(0))
	}
	c := s.chains[y]
	return seqOf(blk, &item{kind: iIf, cond: c.cond, kids: []*item{jump(c.t[1]), jump(c.f[1])}})
}

// returns reports whether y's code can be repeated wherever it is jumped
// to: a return, or a node that dominates nothing whose branches lead to
// such nodes (within depth).
func (s *structurer) returns(y, depth int) bool {
	if s.g.Unique || depth == 0 || !s.dupable(y) {
		return false
	}
	for i, z := range s.succ[y] {
		if s.kind[y][i] != fwd || !s.returns(z, depth-1) {
			return false
		}
	}
	return true
}

// latch reports whether u has a back edge to h.
func (s *structurer) latch(u, h int) bool {
	for i, y := range s.succ[u] {
		if y == h && s.kind[u][i] == back {
			return true
		}
	}
	return false
}

func (s *structurer) within(x int, ms []int) *item {
	var arms, rest []int
	if len(s.succ[x]) > 2 {
		// a switch's merge targets are its arms, in RPO, so that one
		// arm falls into the next as in C
		for _, m := range ms {
			if contains(s.succ[x], m) {
				arms = append(arms, m)
			} else {
				rest = append(rest, m)
			}
		}
		ms = rest
	}
	kids := []*item{s.code(x, arms)}
	for _, m := range ms {
		kids = append(kids, s.doTree(m))
	}
	return seqOf(kids...)
}

// code is x's block and its terminator's branches; a switch's arms
// include its merge targets arms.
func (s *structurer) code(x int, arms []int) *item {
	blk := &item{kind: iBlock, node: x}
	ss := s.succ[x]
	switch len(ss) {
	case 0:
		return blk
	case 1:
		return seqOf(blk, s.branch(x, 0))
	case 2:
		c := s.chains[x]
		return seqOf(blk, &item{kind: iIf, cond: c.cond, kids: []*item{s.branch(c.t[0], c.t[1]), s.branch(c.f[0], c.f[1])}})
	}
	sw := &item{kind: iSwitch, node: x}
	at := map[int]int{}
	for i, y := range ss {
		if a, ok := at[y]; ok {
			sw.cases[a].succs = append(sw.cases[a].succs, i)
			continue
		}
		at[y] = len(sw.cases)
		var body *item
		if contains(arms, y) {
			body = s.doTree(y)
		} else {
			body = s.branch(x, i)
		}
		sw.cases = append(sw.cases, itemCase{succs: []int{i}, body: body})
	}
	sort.SliceStable(sw.cases, func(i, j int) bool {
		return s.num[ss[sw.cases[i].succs[0]]] < s.num[ss[sw.cases[j].succs[0]]]
	})
	return seqOf(blk, sw)
}

func contains(xs []int, y int) bool {
	for _, x := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// branch is the code for x's i-th successor edge: the target's tree when
// x is its only forward predecessor, else a jump.
func (s *structurer) branch(x, i int) *item {
	y := s.succ[x][i]
	if s.kind[x][i] != fwd || s.fwdIn[y] >= 2 || s.follow[y] {
		return &item{kind: iJump, node: y}
	}
	return s.doTree(y)
}

// chain is x's condition with the pure nodes it may absorb by && and ||,
// and the edges (node, successor index) it leads to when true and false.
func (s *structurer) chain(x int) chain {
	c := &Cond{Op: Leaf, Node: x}
	t, f := [2]int{x, 0}, [2]int{x, 1}
	to := func(e [2]int) int { return s.succ[e[0]][e[1]] }
	for {
		if p := to(t); s.foldable(t) && (s.succ[p][0] == to(f) || s.succ[p][1] == to(f)) {
			neg := s.succ[p][0] == to(f) // p true leads where c false does
			c = &Cond{Op: And, X: c, Y: &Cond{Op: Leaf, Node: p, Negate: neg}}
			if neg {
				t, f = [2]int{p, 1}, [2]int{p, 0}
			} else {
				t, f = [2]int{p, 0}, [2]int{p, 1}
			}
			s.leafOnly[p] = true
			continue
		}
		if p := to(f); s.foldable(f) && (s.succ[p][0] == to(t) || s.succ[p][1] == to(t)) {
			neg := s.succ[p][1] == to(t)
			c = &Cond{Op: Or, X: c, Y: &Cond{Op: Leaf, Node: p, Negate: neg}}
			if neg {
				t, f = [2]int{p, 1}, [2]int{p, 0}
			} else {
				t, f = [2]int{p, 0}, [2]int{p, 1}
			}
			s.leafOnly[p] = true
			continue
		}
		return chain{c, t, f}
	}
}

// foldable reports whether the target of edge e is a pure two-way node
// that can be evaluated inside its predecessor's condition: e is its
// only way in and it heads nothing else.
func (s *structurer) foldable(e [2]int) bool {
	p := s.succ[e[0]][e[1]]
	return s.kind[e[0]][e[1]] == fwd && p < len(s.g.Pure) && s.g.Pure[p] &&
		len(s.succ[p]) == 2 && s.fwdIn[p] == 1 && !s.header[p] && !s.gotoIn[p] &&
		len(s.merges[p]) == 0 && p != s.g.Entry && !s.leafOnly[p]
}
