package decompile

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile/structure"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/x86"
	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/internal/testkit"
)

// TestPrintsEveryKind prints a tree with every structure.Kind and every
// condition form (the structurer's output, not yet goto form) and checks
// the constructs and that gcc accepts the unit.
func TestPrintsEveryKind(t *testing.T) {
	// xor eax,eax; test rdi,rdi; jle end; loop: add rax,rdi; dec rdi; jnz loop; end: ret
	code := []byte{0x31, 0xc0, 0x48, 0x85, 0xff, 0x7e, 0x08, 0x48, 0x01, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xf8, 0xc3}
	var insns []*lift.Insn
	for off := 0; off < len(code); {
		in, err := x86.Lift(code[off:], 0x1000+uint64(off), 64)
		if err != nil {
			t.Fatal(err)
		}
		insns = append(insns, in)
		off += in.Len
	}
	env := &signature.Env{Conv: abi.ForArch("x86-64", "linux"), ABI: ctypes.LinuxAMD64}
	f, err := dataflow.Build(dataflow.ArchFor(env.Conv), insns)
	if err != nil {
		t.Fatal(err)
	}
	dataflow.Optimize(f)
	e := newEmitter(Input{Func: f, Env: env, Name: "kinds"})
	e.prepare()
	e.liveness()
	e.decide()
	e.findAddrConsts()
	e.render()
	if len(e.proto.Params) == 0 {
		t.Fatalf("no parameter inferred:\n%s", f)
	}
	// Synthetic nodes: 0 and 1 two-way on a1, 2 a switch on a1, 3 a
	// statement.
	e.nodes = []*node{
		{cond: rel(atom("a1"), "!=", atom("0"), pEq)},
		{cond: rel(atom("a1"), "<", atom("10"), pRel)},
		{sw: true, cond: atom("a1"), cases: [][]uint64{{1, 2}, {3}}},
		{stmts: []line{{text: "a1 = a1 - 1;", addrs: []uint64{0x1000}}}},
	}
	leaf := func(n int, neg bool) *structure.Cond {
		return &structure.Cond{Op: structure.Leaf, Node: n, Negate: neg}
	}
	blk := &structure.Node{Kind: structure.Block, Node: 3}
	tree := &structure.Node{Kind: structure.Seq, Children: []*structure.Node{
		{Kind: structure.While, Cond: &structure.Cond{Op: structure.And, X: leaf(0, false), Y: leaf(1, true)}, Children: []*structure.Node{
			{Kind: structure.Seq, Children: []*structure.Node{blk, {Kind: structure.If, Cond: leaf(1, false), Children: []*structure.Node{{Kind: structure.Continue}, nil}}, {Kind: structure.Break}}},
		}},
		{Kind: structure.DoWhile, Cond: &structure.Cond{Op: structure.Or, X: leaf(0, true), Y: leaf(1, false), Negate: true}, Children: []*structure.Node{blk}},
		{Kind: structure.Loop, Children: []*structure.Node{{Kind: structure.Seq, Children: []*structure.Node{
			{Kind: structure.Switch, Node: 2, Cases: []structure.Case{
				{Succs: []int{0}, Body: &structure.Node{Kind: structure.Seq, Children: []*structure.Node{blk, {Kind: structure.Break}}}},
				{Succs: []int{1}, Body: &structure.Node{Kind: structure.Goto, Node: 3}},
				{Body: &structure.Node{Kind: structure.Break}},
			}},
			{Kind: structure.If, Cond: leaf(0, false), Children: []*structure.Node{blk, {Kind: structure.Break}}},
		}}}},
		{Kind: structure.Label, Node: 3},
		blk,
	}}
	r := e.finish(tree)
	for _, want := range []string{"while (a1 != 0 && a1 >= 10) {", "continue;", "break;", "do {", "} while (!(a1 == 0 || a1 < 10));",
		"for (;;) {", "switch (a1) {", "case 1:", "case 2:", "case 3:", "default:", "} else {", "goto L_", "\nL_"} {
		if !strings.Contains(r.Code, want) {
			t.Errorf("missing %q in\n%s", want, r.Code)
		}
	}
	if r.Structure.Loops != 3 || r.Structure.Switches != 1 || r.Structure.Gotos != 1 {
		t.Errorf("structure = %+v, want 3 loops, 1 switch, 1 goto", r.Structure)
	}
	gcc := testkit.Need(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "u.c")
	if err := os.WriteFile(src, []byte(r.Prelude+r.Code), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(gcc, "-std=gnu11", "-fsyntax-only", src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s\n%s%s", err, b, r.Prelude, r.Code)
	}
	// and the real goto form of the same procedure
	res, err := Decompile(context.Background(), Input{Func: f, Env: env, Name: "kinds"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(res.Prelude+res.Code), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(gcc, "-std=gnu11", "-fsyntax-only", src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s\n%s%s", err, b, res.Prelude, res.Code)
	}
	if len(res.Lines) == 0 {
		t.Error("no line maps to an address")
	}
}
