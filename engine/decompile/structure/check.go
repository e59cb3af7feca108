package structure

import (
	"errors"
	"fmt"
)

// ErrUnfaithful is wrapped by Check's errors.
var ErrUnfaithful = errors.New("structure: the tree does not run as the graph")

// Stats counts a tree's gotos, loops (Loop but not Once, While, DoWhile)
// and switches.
func Stats(n *Node) (gotos, loops, switches int) {
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		switch n.Kind {
		case Goto:
			gotos++
		case Loop:
			if !n.Once {
				loops++
			}
		case While, DoWhile:
			loops++
		case Switch:
			switches++
		}
		for _, k := range n.Children {
			walk(k)
		}
		for _, c := range n.Cases {
			walk(c.Body)
		}
	}
	walk(n)
	return
}

// Check verifies that tree runs g's reachable nodes as g does. It
// compiles the tree to a flat program of blocks, condition tests, switch
// dispatches and jumps, with C's semantics (switch arms fall through,
// break and continue bind to the innermost loop, a goto lands on its
// label), then follows it: from the start the first node visited must be
// the entry, and from each node for each of its successor choices the
// next node visited must be that successor. A node is visited at its
// Block, or, for a pure node that has no Block, where its condition is
// tested. A two-way or switch node's test must come right after its
// Block, with no other block in between. Every reachable node is visited
// at one place at least, and at exactly one when g.Unique; every place
// is followed.
func Check(g Graph, tree *Node) error {
	s, err := analyse(g)
	if err != nil {
		return err
	}
	c := compiler{g: g}
	c.labels = map[int]int{}
	c.blockAt = map[int][]int{}
	c.leafAt = map[int][]int{}
	c.emit(tree, -1, -1)
	c.prog = append(c.prog, instr{op: opEnd})
	if c.err != nil {
		return fmt.Errorf("%w: %v", ErrUnfaithful, c.err)
	}
	for i := range c.prog {
		in := &c.prog[i]
		in.t, in.f = c.addr(in.t), c.addr(in.f)
		for k, v := range in.arms {
			in.arms[k] = c.addr(v)
		}
		if in.op == opGoto {
			pc, ok := c.labels[in.node]
			if !ok {
				return fmt.Errorf("%w: goto %d without its label", ErrUnfaithful, in.node)
			}
			in.op, in.t = opJump, pc
		}
	}
	m := machine{g: g, s: s, c: &c}
	for _, x := range s.rpo {
		_, hasBlock := c.blockAt[x]
		_, hasLeaf := c.leafAt[x]
		switch {
		case !hasBlock && !hasLeaf:
			return fmt.Errorf("%w: node %d is missing", ErrUnfaithful, x)
		case !hasBlock && len(g.Succs[x]) != 2:
			return fmt.Errorf("%w: node %d has no block", ErrUnfaithful, x)
		case !hasBlock && (x >= len(g.Pure) || !g.Pure[x]):
			return fmt.Errorf("%w: node %d is tested without its block but is not pure", ErrUnfaithful, x)
		case !hasBlock && len(c.leafAt[x]) > 1:
			return fmt.Errorf("%w: node %d is visited at two tests", ErrUnfaithful, x)
		case hasBlock && g.Unique && len(c.leafAt[x]) > 1:
			return fmt.Errorf("%w: node %d is tested twice", ErrUnfaithful, x)
		}
	}
	for x := range c.leafAt {
		if x < 0 || x >= len(g.Succs) || s.num[x] < 0 {
			return fmt.Errorf("%w: test of node %d, not a reachable node", ErrUnfaithful, x)
		}
	}
	for x := range c.blockAt {
		if x < 0 || x >= len(g.Succs) || s.num[x] < 0 {
			return fmt.Errorf("%w: block of node %d, not a reachable node", ErrUnfaithful, x)
		}
	}
	if err := m.run(0, -1, -1, g.Entry); err != nil {
		return fmt.Errorf("%w: from the start: %v", ErrUnfaithful, err)
	}
	for _, x := range s.rpo {
		starts := c.leafAt[x] // a pure node visited at its test
		if pcs, ok := c.blockAt[x]; ok {
			starts = nil
			for _, pc := range pcs {
				starts = append(starts, pc+1)
			}
		}
		for _, pc := range starts {
			for i, y := range g.Succs[x] {
				if err := m.run(pc, x, i, y); err != nil {
					return fmt.Errorf("%w: node %d, successor %d (node %d): %v", ErrUnfaithful, x, i, y, err)
				}
			}
		}
	}
	return nil
}

type op uint8

const (
	opBlock  op = iota // node
	opLeaf             // node, negate: jump to t when true, f when false
	opSwitch           // node: jump to arms[successor index]; past: after
	opJump             // t
	opGoto             // node's label (resolved to opJump)
	opLabel
	opEnd
)

type instr struct {
	op     op
	node   int
	negate bool
	t, f   int
	arms   map[int]int
}

type compiler struct {
	g       Graph
	prog    []instr
	labels  map[int]int
	blockAt map[int][]int // a node's blocks' addresses
	leafAt  map[int][]int // a node's tests' addresses
	marks   []int         // label id → address
	err     error
}

func (c *compiler) fail(format string, a ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, a...)
	}
}

func (c *compiler) add(in instr) int {
	c.prog = append(c.prog, in)
	return len(c.prog) - 1
}

// addr is the address of an encoded label (-2-id), else v.
func (c *compiler) addr(v int) int {
	if v <= -2 && -2-v < len(c.marks) {
		return c.marks[-2-v]
	}
	return v
}

func (c *compiler) emit(n *Node, brk, cont int) {
	if n == nil {
		return
	}
	if len(c.prog) > 1<<20 {
		c.fail("tree too large")
		return
	}
	switch n.Kind {
	case Seq:
		for _, k := range n.Children {
			c.emit(k, brk, cont)
		}
	case Block:
		if len(c.blockAt[n.Node]) > 0 && c.g.Unique {
			c.fail("node %d has two blocks", n.Node)
		}
		c.blockAt[n.Node] = append(c.blockAt[n.Node], c.add(instr{op: opBlock, node: n.Node}))
	case Label:
		if _, dup := c.labels[n.Node]; dup {
			c.fail("node %d has two labels", n.Node)
		}
		c.labels[n.Node] = c.add(instr{op: opLabel, node: n.Node})
	case Goto:
		c.add(instr{op: opGoto, node: n.Node})
	case Break, Continue:
		t := brk
		if n.Kind == Continue {
			t = cont
		}
		if t < 0 {
			c.fail("%v outside a loop", n.Kind)
		}
		// brk and cont are indexes of placeholder jumps patched later
		c.add(instr{op: opJump, t: -2 - t})
	case If:
		if len(n.Children) < 1 {
			c.fail("if without a then arm")
			return
		}
		then, els := c.newLabel(), c.newLabel()
		c.cond(n.Cond, then, els)
		c.bind(then)
		c.emit(n.Children[0], brk, cont)
		end := c.newLabel()
		c.jump(end)
		c.bind(els)
		if len(n.Children) > 1 {
			c.emit(n.Children[1], brk, cont)
		}
		c.bind(end)
	case While:
		top, body, end := c.newLabel(), c.newLabel(), c.newLabel()
		c.bind(top)
		c.cond(n.Cond, body, end)
		c.bind(body)
		c.body(n, end, top)
		c.jump(top)
		c.bind(end)
	case DoWhile:
		top, test, end := c.newLabel(), c.newLabel(), c.newLabel()
		c.bind(top)
		c.body(n, end, test)
		c.bind(test)
		c.cond(n.Cond, top, end)
		c.bind(end)
	case Loop:
		top, end := c.newLabel(), c.newLabel()
		c.bind(top)
		c.body(n, end, top)
		c.jump(top)
		c.bind(end)
	case Switch:
		end := c.newLabel()
		sw := instr{op: opSwitch, node: n.Node, arms: map[int]int{}}
		at := c.add(sw)
		def := -1
		for _, cs := range n.Cases {
			l := c.newLabel()
			c.bind(l)
			if len(cs.Succs) == 0 {
				def = l
			}
			for _, i := range cs.Succs {
				if _, dup := c.prog[at].arms[i]; dup {
					c.fail("switch %d lists successor %d twice", n.Node, i)
				}
				c.prog[at].arms[i] = -2 - l
			}
			c.emit(cs.Body, end, cont)
		}
		c.jump(end)
		c.bind(end)
		if def < 0 {
			def = end
		}
		c.prog[at].t = -2 - def
	default:
		c.fail("unknown kind %d", n.Kind)
	}
}

func (c *compiler) body(n *Node, brk, cont int) {
	if len(n.Children) < 1 {
		c.fail("loop without a body")
		return
	}
	c.emit(n.Children[0], brk, cont)
}

// Labels of the compiled program are indexes into marks: a jump to label
// l is stored as -2-l until bind gives it an address; Check resolves
// them once the program is complete.
func (c *compiler) newLabel() int {
	c.marks = append(c.marks, -1)
	return len(c.marks) - 1
}

func (c *compiler) bind(l int) { c.marks[l] = len(c.prog) }

func (c *compiler) jump(l int) { c.add(instr{op: opJump, t: -2 - l}) }

// cond compiles a condition's tests with short-circuit jumps.
func (c *compiler) cond(k *Cond, t, f int) {
	if k == nil {
		c.fail("missing condition")
		return
	}
	switch k.Op {
	case Leaf:
		c.leafAt[k.Node] = append(c.leafAt[k.Node], c.add(instr{op: opLeaf, node: k.Node, negate: k.Negate, t: -2 - t, f: -2 - f}))
	case And:
		mid := c.newLabel()
		c.cond(k.X, mid, f)
		c.bind(mid)
		c.cond(k.Y, t, f)
	case Or:
		mid := c.newLabel()
		c.cond(k.X, t, mid)
		c.bind(mid)
		c.cond(k.Y, t, f)
	default:
		c.fail("unknown condition op %d", k.Op)
	}
}

// machine follows a compiled tree.
type machine struct {
	g Graph
	s *structurer
	c *compiler
}

// run follows the program from pc. x (≥ 0) is the node just visited,
// leaving by its successor i; its test, if it has one, comes next (or is
// at pc for a node visited at its test). want is the node that must be
// visited next.
func (m *machine) run(pc, x, i, want int) error {
	tested := x < 0 || len(m.s.succ[x]) <= 1 // nothing to decide
	evaluated := x < 0
	for steps := 0; steps <= len(m.c.prog)+1; steps++ {
		if pc < 0 || pc >= len(m.c.prog) {
			return fmt.Errorf("jumps to %d, outside the program", pc)
		}
		in := m.c.prog[pc]
		switch in.op {
		case opBlock:
			if !tested {
				return fmt.Errorf("block %d runs before the test", in.node)
			}
			if in.node != want {
				return fmt.Errorf("reaches node %d", in.node)
			}
			return nil
		case opLeaf:
			if in.node < 0 || in.node >= len(m.g.Succs) || len(m.g.Succs[in.node]) != 2 {
				return fmt.Errorf("tests node %d, not a two-way node", in.node)
			}
			if in.node == x && !evaluated {
				evaluated, tested = true, true
				if (i == 0) != in.negate {
					pc = in.t
				} else {
					pc = in.f
				}
				continue
			}
			if _, ok := m.c.blockAt[in.node]; ok {
				return fmt.Errorf("tests node %d away from its block", in.node)
			}
			if !tested {
				return fmt.Errorf("tests node %d before the test", in.node)
			}
			if in.node != want {
				return fmt.Errorf("reaches node %d", in.node)
			}
			return nil
		case opSwitch:
			if in.node != x || evaluated || len(m.g.Succs[x]) <= 2 {
				return fmt.Errorf("switch on node %d out of place", in.node)
			}
			evaluated, tested = true, true
			if a, ok := in.arms[i]; ok {
				pc = a
			} else {
				pc = in.t
			}
		case opJump:
			pc = in.t
		case opLabel:
			pc++
		case opEnd:
			return errors.New("falls off the end of the procedure")
		default:
			return fmt.Errorf("bad instruction %d", in.op)
		}
	}
	return errors.New("loops without reaching a node")
}
