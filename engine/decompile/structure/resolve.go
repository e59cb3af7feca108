package structure

// rctx is what a jump at some position can become: the node that runs
// when control falls off the end of the position, the break target of
// the innermost loop or switch (hasBrk without a node: the end of the
// procedure) and the continue target of the innermost loop (-1: none, or
// a once block is in the way).
type rctx struct {
	fall, brk, cont int
	hasBrk          bool
}

// resolver turns jumps into fall-throughs, breaks, continues and, when
// none applies, gotos; it wraps spans in once blocks (do … while (0))
// where that turns gotos into breaks.
type resolver struct {
	s      *structurer
	depth  int  // copies within copies
	dupAll bool // copy any dupable node, not only returns
	// reverting resolves a sequence again after a dissolve that did not
	// pay, without trying it again
	reverting bool
	tried     map[int]bool // nodes a dissolve was tried for
	// work counts resolve calls; past budget no span is wrapped or
	// dissolved, so that re-resolving nested spans stays linear-ish on
	// large irreducible graphs
	work, budget int
	targets      map[int]bool // goto targets, for labels
}

// entry is the node that runs first when control enters it, or fall when
// it runs nothing (an empty sequence).
func entry(it *item, fall int) int {
	switch it.kind {
	case iSeq:
		for i := len(it.kids) - 1; i >= 0; i-- {
			fall = entry(it.kids[i], fall)
		}
		return fall
	case iBlock, iSwitch, iJump:
		return it.node
	case iLoop:
		if it.node >= 0 {
			return it.node
		}
		return entry(it.kids[0], fall)
	case iIf:
		return it.cond.first()
	}
	return fall
}

func (c *Cond) first() int {
	for c.Op != Leaf {
		c = c.X
	}
	return c.Node
}

// resolve resolves the jumps in it and returns how many are gotos.
func (r *resolver) resolve(it *item, c rctx) int {
	r.work++
	n := 0
	switch it.kind {
	case iSeq:
		n = r.seq(it, c)
	case iIf:
		for _, k := range it.kids {
			n += r.resolve(k, c)
		}
	case iSwitch:
		b := rctx{brk: c.fall, hasBrk: true, cont: c.cont}
		for i := len(it.cases) - 1; i >= 0; i-- {
			b.fall = c.fall // C: an arm falls into the next arm
			if i+1 < len(it.cases) {
				b.fall = entry(it.cases[i+1].body, c.fall)
			}
			n += r.resolve(it.cases[i].body, b)
		}
	case iLoop:
		b := rctx{brk: c.fall, hasBrk: true, cont: it.node, fall: it.node}
		if it.node < 0 { // once: falls out, and catches continue
			b.fall, b.cont = c.fall, -1
		}
		n = r.resolve(it.kids[0], b)
	case iJump:
		y := it.node
		switch {
		case y == c.fall:
			it.res = Seq
		case c.hasBrk && y == c.brk:
			it.res = Break
		case y == c.cont:
			it.res = Continue
		default:
			it.res, it.copy = Goto, nil
			if !r.s.g.Unique && r.depth < 4 && r.s.dupable(y) && (r.dupAll || len(r.s.succ[y]) == 0) {
				// a copy of y's block, its jumps resolved here
				cp := r.s.copyCode(y)
				r.depth++
				r.resolve(cp, c)
				r.depth--
				if !hasGoto(cp) {
					it.res, it.copy = Block, cp
				}
			}
			if it.res == Goto {
				n = 1
			}
		}
	}
	return n
}

// hasGoto reports whether it holds a goto.
func hasGoto(it *item) bool {
	switch it.kind {
	case iJump:
		return it.res == Goto || it.res == Block && hasGoto(it.copy)
	case iSwitch:
		for _, cs := range it.cases {
			if hasGoto(cs.body) {
				return true
			}
		}
	}
	for _, k := range it.kids {
		if hasGoto(k) {
			return true
		}
	}
	return false
}

// seq resolves a sequence's elements and wraps a span of them in a once
// block when more jumps become breaks than breaks and continues become
// gotos.
func (r *resolver) seq(it *item, c rctx) int {
	falls := make([]int, len(it.kids))
	f := c.fall
	for i := len(it.kids) - 1; i >= 0; i-- {
		falls[i] = f
		f = entry(it.kids[i], f)
	}
	at := func(i int) rctx { return rctx{fall: falls[i], brk: c.brk, hasBrk: c.hasBrk, cont: c.cont} }
	total := 0
	for i, k := range it.kids {
		total += r.resolve(k, at(i))
	}
	if total == 0 || r.work > r.budget {
		// nothing to wrap or dissolve for, or the refinements have
		// had their share: what remains stays a goto
		return total
	}
	changed := false
	costs := make([]spanCost, len(it.kids))
	for i, k := range it.kids {
		costs[i] = r.cost(k)
	}
	firstGoto := map[int]int{} // target → the first element with a goto to it
	for i := len(costs) - 1; i >= 0; i-- {
		for y := range costs[i].gotos {
			firstGoto[y] = i
		}
	}
	for k := 1; k < len(it.kids) && r.work <= r.budget; k++ {
		y := entry(it.kids[k], falls[k])
		if f, ok := firstGoto[y]; y < 0 || !ok || f >= k {
			continue
		}
		gain, lose, first := 0, 0, -1
		for i := firstGoto[y]; i < k; i++ {
			r.work++
			g := costs[i].gotos[y]
			if g > 0 && first < 0 {
				first = i
			}
			if first >= 0 {
				gain += g
				lose += costs[i].breaks - costs[i].breaksTo[y] + costs[i].continues
			}
		}
		if first < 0 || gain <= lose {
			continue
		}
		// Only the wrapped span's context changes: resolve it again.
		once := &item{kind: iLoop, node: -1, kids: []*item{seqOf(it.kids[first:k]...)}}
		kids := append([]*item{}, it.kids[:first]...)
		kids = append(kids, once)
		it.kids = append(kids, it.kids[k:]...)
		falls = append(append(falls[:first:first], y), falls[k:]...)
		r.resolve(once, at(first))
		costs = append(append(costs[:first:first], r.cost(once)), costs[k:]...)
		r.work += len(it.kids) + len(firstGoto)
		for y, i := range firstGoto {
			switch {
			case i >= k:
				firstGoto[y] = i - (k - first - 1)
			case i >= first:
				firstGoto[y] = first
			}
		}
		k = first + 1
		changed = true
	}
	if r.dupAll && !r.reverting && r.dissolve(it, c) {
		changed = true
	}
	if changed {
		return countGotos(it)
	}
	return total
}

// countGotos counts the gotos in it.
func countGotos(it *item) int {
	n := 0
	switch it.kind {
	case iJump:
		if it.res == Goto {
			n++
		}
	case iSwitch:
		for _, cs := range it.cases {
			n += countGotos(cs.body)
		}
	}
	for _, k := range it.kids {
		n += countGotos(k)
	}
	return n
}

// dissolve takes out of a sequence a one-block node x that only jumps to
// the next element y, when gotos to y remain before it: each jump to x
// then becomes a copy of x whose jump to y can be a break or a
// fall-through. It keeps the change only if no goto to x results.
func (r *resolver) dissolve(it *item, c rctx) bool {
	for k := 1; k+2 < len(it.kids); k++ {
		b, j := it.kids[k], it.kids[k+1]
		if b.kind != iBlock || b.copied || j.kind != iJump {
			continue
		}
		x, y := b.node, j.node
		s := r.s
		if r.tried[x] || !s.dupable(x) || len(s.succ[x]) != 1 || s.fwdIn[x] < 2 || s.gotoIn[x] || y != entry(it.kids[k+2], -1) {
			// a merge: only jumps reach it
			continue
		}
		found := false
		for i := 0; i < k && !found; i++ {
			found = r.gotoTo(it.kids[i], y)
		}
		if !found {
			continue
		}
		if r.tried == nil {
			r.tried = map[int]bool{}
		}
		r.tried[x] = true // once: nested sequences are resolved again
		old := it.kids
		it.kids = append(append([]*item{}, old[:k]...), old[k+2:]...)
		r.seq(it, c)
		if !r.gotoTo(it, x) {
			return true
		}
		it.kids = old
		r.reverting = true
		r.seq(it, c)
		r.reverting = false
		return false
	}
	return false
}

// gotoTo reports whether it holds a goto to x.
func (r *resolver) gotoTo(it *item, x int) bool {
	switch it.kind {
	case iJump:
		return it.res == Goto && it.node == x || it.res == Block && r.gotoTo(it.copy, x)
	case iSwitch:
		for _, cs := range it.cases {
			if r.gotoTo(cs.body, x) {
				return true
			}
		}
	}
	for _, k := range it.kids {
		if r.gotoTo(k, x) {
			return true
		}
	}
	return false
}

// spanCost is what wrapping an element in a once block changes: its
// gotos by target outside nested loops and switches (they would become
// breaks), and its breaks and continues that would become gotos.
type spanCost struct {
	gotos, breaksTo map[int]int
	breaks          int
	continues       int
}

func (r *resolver) cost(it *item) spanCost {
	// The maps are made on a first goto or break: most elements have
	// neither, and reads of a nil map are zero.
	var c spanCost
	r.costOf(&c, it, false)
	return c
}

// costOf adds it's gotos, breaks and continues to c (a method, not a
// closure: cost runs for every element of every sequence resolved).
func (r *resolver) costOf(c *spanCost, it *item, inSwitch bool) {
	r.work++
	switch it.kind {
	case iSeq, iIf:
		for _, k := range it.kids {
			r.costOf(c, k, inSwitch)
		}
	case iSwitch:
		for _, cs := range it.cases {
			r.costOf(c, cs.body, true)
		}
	case iLoop:
		c.continues += r.continues(it.kids[0], it.node)
	case iJump:
		switch it.res {
		case Block:
			r.costOf(c, it.copy, inSwitch)
		case Goto:
			if !inSwitch {
				if c.gotos == nil {
					c.gotos = map[int]int{}
				}
				c.gotos[it.node]++
			}
		case Break:
			if !inSwitch {
				c.breaks++
				if c.breaksTo == nil {
					c.breaksTo = map[int]int{}
				}
				c.breaksTo[it.node]++
			}
		case Continue:
			c.continues++
		}
	}
}

// continues counts the continues in a loop body that do not continue it
// (a once block passes them on).
func (r *resolver) continues(it *item, header int) int {
	if header >= 0 {
		return 0
	}
	n := 0
	var walk func(*item)
	walk = func(it *item) {
		switch it.kind {
		case iSeq, iIf:
			for _, k := range it.kids {
				walk(k)
			}
		case iSwitch:
			for _, cs := range it.cases {
				walk(cs.body)
			}
		case iLoop:
			if it.node < 0 {
				walk(it.kids[0])
			}
		case iJump:
			if it.res == Continue {
				n++
			} else if it.res == Block {
				walk(it.copy)
			}
		}
	}
	walk(it)
	return n
}

// tree converts the resolved items to Nodes, with a Label before each
// goto target and loops recognised as while and do-while.
func (r *resolver) tree(it *item) *Node {
	r.targets = map[int]bool{}
	r.gotos(it)
	return r.node(it)
}

func (r *resolver) gotos(it *item) {
	switch it.kind {
	case iJump:
		if it.res == Goto {
			r.targets[it.node] = true
		} else if it.res == Block {
			r.gotos(it.copy)
		}
	case iSwitch:
		for _, cs := range it.cases {
			r.gotos(cs.body)
		}
	default:
		for _, k := range it.kids {
			r.gotos(k)
		}
	}
}

func (r *resolver) node(it *item) *Node {
	switch it.kind {
	case iSeq:
		out := &Node{Kind: Seq}
		for _, k := range it.kids {
			if n := r.node(k); n != nil {
				if n.Kind == Seq {
					out.Children = append(out.Children, n.Children...)
				} else {
					out.Children = append(out.Children, n)
				}
			}
		}
		return out
	case iBlock:
		b := &Node{Kind: Block, Node: it.node}
		if r.targets[it.node] && !it.copied {
			return &Node{Kind: Seq, Children: []*Node{{Kind: Label, Node: it.node}, b}}
		}
		return b
	case iIf:
		then, els := r.node(it.kids[0]), r.node(it.kids[1])
		c := it.cond
		if empty(then) && !empty(els) {
			then, els, c = els, then, c.negated()
		}
		if empty(els) {
			els = nil
		}
		// an arm that only leaves becomes a guard: if (!c) break; rest
		switch {
		case els != nil && r.exit(els) && !r.exit(then):
			return &Node{Kind: Seq, Children: append([]*Node{{Kind: If, Cond: c.negated(), Children: []*Node{els, nil}}}, flat(then)...)}
		case els != nil && r.exit(then) && !r.exit(els):
			return &Node{Kind: Seq, Children: append([]*Node{{Kind: If, Cond: c, Children: []*Node{then, nil}}}, flat(els)...)}
		}
		return &Node{Kind: If, Cond: c, Children: []*Node{then, els}}
	case iSwitch:
		sw := &Node{Kind: Switch, Node: it.node}
		for _, cs := range it.cases {
			sw.Cases = append(sw.Cases, Case{Succs: cs.succs, Body: r.node(cs.body)})
		}
		return sw
	case iLoop:
		body := r.node(it.kids[0])
		if it.node < 0 {
			if !r.leaves(body) {
				body.Children = append(body.Children, &Node{Kind: Break})
			}
			return &Node{Kind: Loop, Once: true, Children: []*Node{body}}
		}
		return r.loop(it.node, body)
	case iJump:
		switch it.res {
		case Break, Continue:
			return &Node{Kind: it.res}
		case Goto:
			return &Node{Kind: Goto, Node: it.node}
		case Block:
			return r.node(it.copy)
		}
	}
	return nil
}

func empty(n *Node) bool { return n == nil || n.Kind == Seq && len(n.Children) == 0 }

func isBreak(n *Node) bool {
	return n != nil && (n.Kind == Break || n.Kind == Seq && len(n.Children) == 1 && n.Children[0].Kind == Break)
}

// exit reports whether n is a short way out: at most three blocks and
// jumps, control never falling off its end.
func (r *resolver) exit(n *Node) bool {
	ks := flat(n)
	if len(ks) > 3 || !r.leaves(n) {
		return false
	}
	for _, k := range ks {
		switch k.Kind {
		case Block, Break, Continue, Goto, Label:
		default:
			return false
		}
	}
	return true
}

// flat is n's statements: a sequence's children, else n itself.
func flat(n *Node) []*Node {
	if n.Kind == Seq {
		return n.Children
	}
	return []*Node{n}
}

// leaves reports whether control never falls off the end of n: it ends
// in a break, continue, goto or return, or in an if both of whose arms
// do.
func (r *resolver) leaves(n *Node) bool {
	if n == nil {
		return false
	}
	switch n.Kind {
	case Seq:
		return len(n.Children) > 0 && r.leaves(n.Children[len(n.Children)-1])
	case Break, Continue, Goto:
		return true
	case Block:
		return len(r.s.succ[n.Node]) == 0
	case If:
		return len(n.Children) == 2 && r.leaves(n.Children[0]) && r.leaves(n.Children[1])
	}
	return false
}

// negated is !c, by De Morgan down to the leaves.
func (c *Cond) negated() *Cond {
	switch c.Op {
	case And:
		return &Cond{Op: Or, X: c.X.negated(), Y: c.Y.negated()}
	case Or:
		return &Cond{Op: And, X: c.X.negated(), Y: c.Y.negated()}
	}
	return &Cond{Op: Leaf, Node: c.Node, Negate: !c.Negate}
}

// loop is for (;;) body, or while (c) when the header is pure and tests
// the exit first, or do … while (c) when the body ends testing the exit
// and no continue needs the top.
func (r *resolver) loop(h int, body *Node) *Node {
	ch := body.Children
	s := r.s
	// while: [Block h, If(c …) with one arm break, rest…]
	if k := 0; len(ch) >= 2 && ch[k].Kind == Block && ch[k].Node == h && h < len(s.g.Pure) && s.g.Pure[h] &&
		ch[1].Kind == If && ch[1].Cond.first() == h {
		iff := ch[1]
		var c *Cond
		var rest *Node
		switch {
		case isBreak(iff.Children[1]):
			c, rest = iff.Cond, iff.Children[0]
		case isBreak(iff.Children[0]):
			c, rest = iff.Cond.negated(), iff.Children[1]
		}
		if c != nil {
			nb := &Node{Kind: Seq}
			if rest != nil {
				if rest.Kind == Seq {
					nb.Children = append(nb.Children, rest.Children...)
				} else {
					nb.Children = append(nb.Children, rest)
				}
			}
			nb.Children = append(nb.Children, ch[2:]...)
			w := &Node{Kind: While, Cond: c, Children: []*Node{nb}}
			s.leafOnly[h] = true
			if r.targets[h] {
				return &Node{Kind: Seq, Children: []*Node{{Kind: Label, Node: h}, w}}
			}
			return w
		}
	}
	// do-while: […, Block l, If(c …) with arms {empty, break}]
	if n := len(ch); n >= 2 && ch[n-1].Kind == If && ch[n-2].Kind == Block &&
		ch[n-1].Cond.first() == ch[n-2].Node && !continues(body) {
		iff := ch[n-1]
		var c *Cond
		switch {
		case empty(iff.Children[0]) && isBreak(iff.Children[1]):
			c = iff.Cond
		case isBreak(iff.Children[0]) && empty(iff.Children[1]):
			c = iff.Cond.negated()
		}
		if c != nil {
			return &Node{Kind: DoWhile, Cond: c, Children: []*Node{{Kind: Seq, Children: ch[:n-1]}}}
		}
	}
	return &Node{Kind: Loop, Children: []*Node{body}}
}

// continues reports whether n continues the loop whose body it is.
func continues(n *Node) bool {
	if n == nil {
		return false
	}
	switch n.Kind {
	case Continue:
		return true
	case Seq, If:
		for _, k := range n.Children {
			if continues(k) {
				return true
			}
		}
	case Switch:
		for _, cs := range n.Cases {
			if continues(cs.Body) {
				return true
			}
		}
	}
	return false
}
