// Package structure turns a procedure's control-flow graph into a tree of C
// control constructs (issue 26 item 1, CONTRACTS.md §20). It knows nothing
// of instructions or C text: the decompiler gives it a [Graph] of node
// numbers and successor lists and prints the [Node] tree it gets back.
package structure

// Graph is a control-flow graph over the nodes 0..len(Succs)-1.
type Graph struct {
	// Entry is the node the procedure starts at.
	Entry int
	// Succs[n] are node n's successors, by kind of terminator:
	//   - none: an exit (a return, a tail call, a call that never returns);
	//   - one: an unconditional jump or a fall-through;
	//   - two: a conditional, Succs[n][0] when the condition holds and
	//     Succs[n][1] when it does not;
	//   - more: a switch; the caller knows which case values lead to
	//     each successor index (a successor may repeat).
	Succs [][]int
	// Pure[n] says node n has no statements besides its terminator, so
	// its condition may be evaluated in a loop header or joined to
	// another with && and || (nil: no node is pure).
	Pure []bool
}

// Kind says what a Node is.
type Kind uint8

const (
	Seq      Kind = iota // Children run in order
	Block                // node Node's statements; an exit node's terminator too
	If                   // if (Cond) Children[0] else Children[1] (Children[1] may be nil)
	While                // while (Cond) Children[0]
	DoWhile              // do Children[0] while (Cond)
	Loop                 // for (;;) Children[0]
	Switch               // switch on node Node's terminator, over Cases
	Break                // leaves the innermost loop or switch
	Continue             // next iteration of the innermost loop
	Goto                 // goto the label of node Node
	Label                // the label of node Node, the target of a Goto
)

// Node is one construct of the structured tree.
type Node struct {
	Kind     Kind
	Node     int     // Block, Switch, Goto, Label: the graph node
	Cond     *Cond   // If, While, DoWhile
	Children []*Node // Seq: in order; If: then, else; loops: the body
	Cases    []Case  // Switch
	// Once marks a Loop whose body runs once: every path through it
	// ends in Break, a return or a Goto, and its breaks jump to its end
	// (printable as do { … } while (0)). It is a block, not a loop:
	// Stats does not count it.
	Once bool
}

// Case is one arm of a Switch: the successor indexes of the switch node
// that lead to it (empty: the default arm) and what it runs.
type Case struct {
	Succs []int
	Body  *Node
}

// CondOp says how a Cond combines.
type CondOp uint8

const (
	Leaf CondOp = iota // node Node's two-way condition, negated when Negate
	And                // X && Y
	Or                 // X || Y
)

// Cond is a condition built from the two-way terminators of nodes.
type Cond struct {
	Op     CondOp
	Node   int
	Negate bool
	X, Y   *Cond
}
