package structure

import (
	"errors"
	"strings"
	"testing"
)

// graph builds a Graph with entry 0 from successor lists; pure lists the
// pure nodes.
func graph(pure []int, succs ...[]int) Graph {
	g := Graph{Succs: succs, Pure: make([]bool, len(succs))}
	for _, p := range pure {
		g.Pure[p] = true
	}
	return g
}

// structured structures g, checks the tree and returns it with its text.
func structured(t *testing.T, g Graph) (*Node, string) {
	t.Helper()
	tree, err := Structure(g)
	if err != nil {
		t.Fatal(err)
	}
	text := render(tree)
	if err := Check(g, tree); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return tree, text
}

func TestConstructs(t *testing.T) {
	cases := []struct {
		name                   string
		g                      Graph
		gotos, loops, switches int
		want                   []string // in the text
		absent                 []string
	}{
		{name: "if-then", g: graph(nil, []int{1, 2}, []int{2}, nil),
			want: []string{"if (c0) {\n  B1;\n}\nB2;"}},
		{name: "if-then-else", g: graph(nil, []int{1, 2}, []int{3}, []int{3}, nil),
			want: []string{"} else {", "B3;"}},
		{name: "nested-if", g: graph(nil, []int{1, 4}, []int{2, 3}, []int{3}, []int{4}, nil),
			want: []string{"  if (c1) {"}},
		{name: "while", g: graph([]int{1}, []int{1}, []int{2, 3}, []int{1}, nil), loops: 1,
			want: []string{"while (c1) {\n  B2;\n}"}},
		{name: "impure-header", g: graph(nil, []int{1}, []int{2, 3}, []int{1}, nil), loops: 1,
			want: []string{"for (;;) {\n  B1;\n  if (!c1) {\n    break;\n  }\n  B2;\n}"}},
		{name: "do-while", g: graph(nil, []int{1}, []int{2}, []int{1, 3}, nil), loops: 1,
			want: []string{"do {\n  B1;\n  B2;\n} while (c2);"}},
		{name: "self-loop", g: graph(nil, []int{0, 1}, nil), loops: 1,
			want: []string{"do {\n  B0;\n} while (c0);"}},
		{name: "break-from-middle", g: graph(nil, []int{1}, []int{2}, []int{3, 4}, []int{1}, nil), loops: 1,
			want: []string{"break;"}},
		{name: "continue", g: graph(nil, []int{1}, []int{2, 6}, []int{3, 4}, []int{1, 5}, []int{5}, []int{1}, nil), loops: 1,
			want: []string{"continue;"}},
		{name: "two-exits-one-merge", g: graph(nil, []int{1}, []int{2, 4}, []int{1, 3}, []int{5}, []int{5}, nil), loops: 1,
			want: []string{"break;"}},
		{name: "and", g: graph([]int{1}, []int{1, 3}, []int{2, 3}, []int{3}, nil),
			want: []string{"if ((c0 && c1)) {\n  B2;\n}"}, absent: []string{"B1;"}},
		{name: "or", g: graph([]int{1}, []int{2, 1}, []int{2, 3}, []int{3}, nil),
			want: []string{"if ((c0 || c1)) {\n  B2;\n}"}, absent: []string{"B1;"}},
		{name: "or-impure", g: graph(nil, []int{2, 1}, []int{2, 3}, []int{3}, []int{4}, nil),
			want: []string{"do {\n  if (!c0) {\n    B1;\n    if (!c1) {\n      break;", "} while (0);\nB3;"}},
		{name: "return-repeated", g: graph(nil, []int{2, 1}, []int{2, 3}, []int{3}, nil),
			want: []string{"if (!c1) {\n    B3;\n  }\n}\nB2;\nB3;"}},
		{name: "latch-repeated", g: graph(nil, []int{1}, []int{2, 6}, []int{3, 4}, []int{5, 4}, []int{5}, []int{1, 6}, nil), loops: 1},
		// continue the outer loop from the inner one: the inner loop's
		// follow is the outer latch, its other exit leads to a return
		// and is repeated
		{name: "multi-level-continue", g: graph(nil, []int{1}, []int{6, 2}, []int{7, 3}, []int{5, 4}, []int{2, 6}, []int{1}, []int{7}, nil), loops: 2},
		// the same, but the other exit leads on: no construct of C
		// leaves both loops for the outer follow without a flag; the
		// short tail the exits share is copied
		{name: "multi-level-continue-goto", g: graph(nil, []int{1}, []int{6, 2}, []int{8, 3}, []int{5, 4}, []int{2, 6}, []int{1}, []int{7}, []int{8}, []int{9}, []int{10}, nil), gotos: 1, loops: 2},
		// merges reached from crossing sets of branches in a loop body
		// (clang -O3's sum_va): the smaller is copied into each branch
		{name: "crossing-merges", g: graph(nil, []int{1}, []int{2, 3}, []int{4, 5}, []int{5, 6}, []int{7, 8}, []int{7, 1}, []int{4}, nil, []int{1}), loops: 1,
			want: []string{"B8;\n"}},
		// leave two loops at once to a return: the return is repeated
		{name: "multi-level-return", g: graph(nil, []int{1}, []int{2, 5}, []int{3, 4}, []int{2, 5}, []int{1}, nil), loops: 2},
		{name: "while-and", g: graph([]int{1, 2}, []int{1}, []int{2, 4}, []int{3, 4}, []int{1}, nil), loops: 1,
			want: []string{"while ((c1 && c2)) {\n  B3;\n}"}},
		{name: "switch", g: graph(nil, []int{1, 2, 3, 2}, []int{4}, []int{4}, []int{4}, nil), switches: 1,
			want: []string{"case 1:\ncase 3:\n"}},
		{name: "switch-fall-through", g: graph(nil, []int{1, 2, 3}, []int{2}, []int{4}, []int{4}, nil), switches: 1,
			want: []string{"case 0:\n  B1;\ncase 1:\n  B2;\n"}},
		{name: "switch-in-loop", g: graph(nil, []int{1}, []int{2, 3, 4, 5}, []int{1}, []int{1}, []int{6}, []int{1}, nil), loops: 1, switches: 1},
		{name: "switch-exits", g: graph(nil, []int{1, 2, 3}, nil, nil, nil), switches: 1},
		{name: "two-entry-loop", g: graph(nil, []int{1, 2}, []int{2}, []int{1, 3}, nil), gotos: 1}, // the cycle is the goto's
		{name: "multi-edge-branch", g: graph(nil, []int{1, 1}, nil)},
		{name: "unreachable", g: graph(nil, []int{2}, []int{0}, nil), absent: []string{"B1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree, text := structured(t, c.g)
			gotos, loops, switches := Stats(tree)
			if gotos != c.gotos || loops != c.loops || switches != c.switches {
				t.Errorf("gotos, loops, switches = %d, %d, %d, want %d, %d, %d\n%s", gotos, loops, switches, c.gotos, c.loops, c.switches, text)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("want %q in\n%s", w, text)
				}
			}
			for _, w := range c.absent {
				if strings.Contains(text, w) {
					t.Errorf("want no %q in\n%s", w, text)
				}
			}
		})
	}
}

// TestCheckRejects breaks correct trees in the ways a structurer could
// and expects Check to refuse each.
func TestCheckRejects(t *testing.T) {
	ifElse := graph(nil, []int{1, 2}, []int{3}, []int{3}, nil)
	loop := graph(nil, []int{1}, []int{2, 3}, []int{1}, nil)
	blk := func(n int) *Node { return &Node{Kind: Block, Node: n} }
	seq := func(k ...*Node) *Node { return &Node{Kind: Seq, Children: k} }
	leaf := func(n int) *Cond { return &Cond{Op: Leaf, Node: n} }
	cases := []struct {
		name string
		g    Graph
		tree *Node
	}{
		{"swapped-arms", ifElse, seq(blk(0), &Node{Kind: If, Cond: leaf(0), Children: []*Node{blk(2), blk(1)}}, blk(3))},
		{"missing-node", ifElse, seq(blk(0), &Node{Kind: If, Cond: leaf(0), Children: []*Node{blk(1), nil}}, blk(3))},
		{"duplicate", ifElse, seq(blk(0), &Node{Kind: If, Cond: leaf(0), Children: []*Node{blk(1), seq(blk(2), blk(1))}}, blk(3))},
		{"no-test", ifElse, seq(blk(0), blk(1), blk(2), blk(3))},
		{"wrong-entry", ifElse, seq(blk(1), blk(0), &Node{Kind: If, Cond: leaf(0), Children: []*Node{nil, blk(2)}}, blk(3))},
		{"test-after-other-block", ifElse, seq(blk(0), blk(2), &Node{Kind: If, Cond: leaf(0), Children: []*Node{blk(1), nil}}, blk(3))},
		{"no-back-edge", loop, seq(blk(0), blk(1), &Node{Kind: If, Cond: leaf(1), Children: []*Node{blk(2), nil}}, blk(3))},
		{"break-outside-loop", loop, seq(blk(0), &Node{Kind: Break}, blk(1), blk(2), blk(3))},
		{"goto-without-label", loop, seq(blk(0), &Node{Kind: Goto, Node: 1}, blk(1), blk(2), blk(3))},
		{"impure-leaf", graph(nil, []int{1, 3}, []int{2, 3}, []int{3}, nil),
			seq(blk(0), &Node{Kind: If, Cond: &Cond{Op: And, X: leaf(0), Y: leaf(1)}, Children: []*Node{blk(2), nil}}, blk(3))},
		{"endless", loop, seq(blk(0), &Node{Kind: Loop, Children: []*Node{seq()}}, blk(1), blk(2), blk(3))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.g, c.tree)
			if !errors.Is(err, ErrUnfaithful) {
				t.Fatalf("Check = %v, want ErrUnfaithful\n%s", err, render(c.tree))
			}
		})
	}
	// and the correct tree passes
	good := seq(blk(0), &Node{Kind: If, Cond: leaf(0), Children: []*Node{blk(1), blk(2)}}, blk(3))
	if err := Check(ifElse, good); err != nil {
		t.Fatal(err)
	}
}

func TestMalformed(t *testing.T) {
	for _, g := range []Graph{{Entry: 0}, {Entry: 2, Succs: [][]int{nil}}, {Succs: [][]int{{5}}}} {
		if _, err := Structure(g); !errors.Is(err, ErrGraph) {
			t.Errorf("Structure(%v) = %v, want ErrGraph", g, err)
		}
	}
}

// TestUnique: with Graph.Unique no block repeats, and Check holds the
// tree to it; the returns the default repeats become gotos.
func TestUnique(t *testing.T) {
	g := graph(nil, []int{1}, []int{2, 5}, []int{3, 4}, []int{2, 5}, []int{1}, nil) // leave two loops to a return
	tree, text := structured(t, g)
	if gotos, _, _ := Stats(tree); gotos != 0 || strings.Count(text, "B5;") != 2 {
		t.Fatalf("default: want the return repeated, no goto\n%s", text)
	}
	g.Unique = true
	if err := Check(g, tree); !errors.Is(err, ErrUnfaithful) {
		t.Fatalf("Check(Unique) of a tree with a repeated block = %v", err)
	}
	tree, text = structured(t, g)
	if gotos, _, _ := Stats(tree); gotos != 1 || strings.Count(text, "B5;") != 1 {
		t.Fatalf("unique: want one goto to the return, one block\n%s", text)
	}
}

// TestSplit: crossing merges in a loop body are gotos when no block may
// repeat; by default the smaller merge (with the node it dominates) is
// copied into both branches, and each copy is its original's block.
func TestSplit(t *testing.T) {
	g := graph(nil, []int{1}, []int{2, 3}, []int{4, 5}, []int{5, 6}, []int{7, 8}, []int{7, 1}, []int{4}, nil, []int{1})
	tree, text := structured(t, g)
	if gotos, _, _ := Stats(tree); gotos != 0 || strings.Count(text, "B4;") != 2 || strings.Count(text, "B8;") != 2 {
		t.Fatalf("default: want B4 and B8 copied, no goto\n%s", text)
	}
	g.Unique = true
	tree, text = structured(t, g)
	if gotos, _, _ := Stats(tree); gotos == 0 {
		t.Fatalf("unique: want the crossing merge as a goto\n%s", text)
	}
}
