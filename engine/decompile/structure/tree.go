// Package structure turns a procedure's control-flow graph into a tree of C
// control constructs (issue 26 item 1, CONTRACTS.md §20). It knows nothing
// of instructions or C text: the decompiler gives it a [Graph] of node
// numbers and successor lists and prints the [Node] tree it gets back.
//
// # Algorithm
//
// Dominator-tree structuring after Ramsey, "Beyond Relooper: recursive
// translation of unstructured control flow to structured control flow"
// (ICFP 2022), adapted to C's single-level break and continue:
//
//  1. Retreating edges whose target does not dominate their source (the
//     irreducible part, found on one DFS) become gotos; the rest of the
//     graph is reducible. Dominators: Cooper, Harvey and Kennedy.
//  2. Pure two-way nodes reached by one edge fold into their
//     predecessor's condition with && and || when they share a target.
//  3. A node's code is its block, then its branches: a successor it alone
//     reaches forward is nested in the branch; a merge (two forward
//     predecessors or more) follows it in sequence, in reverse
//     postorder; a loop header wraps its code in for (;;). A loop's follow
//     is its last merge outside the loop (the others run inside and end
//     in break), or else an exit target reached by one edge, unless the
//     loop also exits to what follows it in its context (after the loop
//     successor refinement of "No More Gotos", Yakdan et al., NDSS 2015).
//     A switch's merge targets are its arms, so one arm falls into the
//     next.
//  4. Each jump then becomes, by position: nothing (control falls there),
//     break, continue, a repeated block, or a goto. Returns are repeated
//     rather than jumped to; a span of a sequence is wrapped in a once
//     block (do { … } while (0), [Node.Once]: the C form of Ramsey's
//     block) when that turns more gotos into breaks than it costs; a node
//     that dominates no other (one block, all its branches jumps) is
//     repeated where a goto to it would remain and its own jumps resolve
//     there (tail duplication), and such a merge whose successor is still
//     a goto target is dissolved into copies.
//  5. for (;;) becomes while (c) when a pure header tests the exit first,
//     and do … while (c) when the body ends with the exit test and
//     nothing continues it; an arm that only leaves becomes a guard
//     (if (!c) break;).
//  6. When gotos remain in a reducible graph, node splitting: a small
//     merge (a goto target or a node of its loop; at most 4 nodes, it and
//     those it dominates, no loop header or switch, at most 10 lines by
//     [Graph.Size]) is copied into each of its predecessors and steps 1–5
//     run again on the larger graph; the first copy that leaves fewer
//     gotos is kept, and the step repeats, within bounds on the tries,
//     the nodes structured again and the code copied (tail duplication;
//     compare Janssen and Corporaal's controlled node splitting, TOPLAS
//     1997, which splits loop entries). The copies print as their
//     originals' blocks.
//
// Gotos remain for irreducible graphs and, in reducible ones, for an exit
// of two loops at once to a node that is not a return or a short tail,
// and for acyclic regions whose merges cross where the merges are too
// large to copy (C needs a flag there; the tree has none). [Graph.Unique]
// turns repetition off.
//
// # The tree's semantics ([Check] verifies them)
//
// A Block runs the node's statements; a node with no successors ends the
// procedure there (the emitter writes its return). A two-way node's
// condition is tested by a Cond leaf right after its Block, a switch
// node's by the Switch right after its Block. A pure node folded into a
// condition (the second operand of && or ||, or a while loop's header)
// has no Block: its leaf is where it runs. Switch arms fall through to the
// next arm as in C; successor indexes listed in no arm go to the default
// arm (empty Succs), or past the switch when there is none. Break and
// Continue bind to the innermost loop (a Once block included) or switch
// (break only), as in C. Unreachable nodes are left out; a node's Block
// may repeat unless [Graph.Unique].
//
// An edge has no place of its own in the tree: a caller whose edges carry
// copies (out of SSA) splits those edges into nodes of their own before
// structuring, and marks no node Pure whose out-edges carry copies.
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
	// Size[n] is how much code node n's Block prints, in statements
	// (nil or missing: none besides its terminator). It bounds the code
	// Structure copies to take gotos out.
	Size []int
	// Unique forbids repeating a node's Block: every reachable node
	// then appears exactly once, and a jump no construct expresses is
	// a Goto. Without it, Structure repeats the Block (and the test)
	// of a node that dominates no other, such as a return, where a
	// goto to it would be.
	Unique bool
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
