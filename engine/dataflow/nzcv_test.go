package dataflow

import (
	"math/rand/v2"
	"testing"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/lift"
)

var arm64Like = ArchFor(abi.AAPCS64())

// TestFlagFoldingNZCV folds arm64's conditions after `cmp x0, x1` (NZCV
// with C = no borrow) into one comparison each, and checks the folded
// procedure against the unfolded one with the IR interpreter.
func TestFlagFoldingNZCV(t *testing.T) {
	x0, x1 := lift.R("x0", 64), lift.R("x1", 64)
	n, z, c, v := lift.R("n", 1), lift.R("z", 1), lift.R("c", 1), lift.R("v", 1)
	one := lift.C(1, 1)
	cases := []struct {
		cc   string
		cond func(b *lift.Builder) lift.Operand
		want string
	}{
		{"eq", func(b *lift.Builder) lift.Operand { return z }, "eq a b"},
		{"ne", func(b *lift.Builder) lift.Operand { return b.Op2(lift.Xor, 1, z, one) }, "ne a b"},
		{"hs", func(b *lift.Builder) lift.Operand { return c }, "ule b a"},
		{"lo", func(b *lift.Builder) lift.Operand { return b.Op2(lift.Xor, 1, c, one) }, "ult a b"},
		{"hi", func(b *lift.Builder) lift.Operand { return b.Op2(lift.And, 1, c, b.Op2(lift.Xor, 1, z, one)) }, "ult b a"},
		{"ls", func(b *lift.Builder) lift.Operand { return b.Op2(lift.Or, 1, b.Op2(lift.Xor, 1, c, one), z) }, "ule a b"},
		{"ge", func(b *lift.Builder) lift.Operand { return b.Op2(lift.Eq, 1, n, v) }, "sle b a"},
		{"lt", func(b *lift.Builder) lift.Operand { return b.Op2(lift.Ne, 1, n, v) }, "slt a b"},
		{"gt", func(b *lift.Builder) lift.Operand {
			return b.Op2(lift.And, 1, b.Op2(lift.Xor, 1, z, one), b.Op2(lift.Eq, 1, n, v))
		}, "slt b a"},
		{"le", func(b *lift.Builder) lift.Operand { return b.Op2(lift.Or, 1, z, b.Op2(lift.Ne, 1, n, v)) }, "sle a b"},
	}
	const base = 0x10000
	r := rand.New(rand.NewPCG(25, 64))
	for _, tc := range cases {
		// 0x10000 cmp x0, x1 (subs xzr, x0, x1)
		cmp := lift.NewBuilder(base, 4, "cmp")
		d := cmp.Op2(lift.Sub, 64, x0, x1)
		cmp.Set(n, lift.Slt, d, lift.C(64, 0), lift.Operand{})
		cmp.Set(z, lift.Eq, d, lift.C(64, 0), lift.Operand{})
		cmp.Set(c, lift.Xor, cmp.Op2(lift.BorrowSub, 1, x0, x1), one, lift.Operand{})
		cmp.Set(v, lift.OverflowSub, x0, x1, lift.Operand{})
		// 0x10004 b.<cc> 0x10010
		br := lift.NewBuilder(base+4, 4, "b."+tc.cc)
		br.Emit(lift.Stmt{Op: lift.Branch, A: tc.cond(br), B: lift.C(64, base+0x10)})
		ret := func(addr uint64, val uint64) *lift.Insn {
			b := lift.NewBuilder(addr, 8, "mov; ret")
			b.Assign(x0, lift.C(64, val))
			b.Emit(lift.Stmt{Op: lift.Return, A: lift.R("x30", 64)})
			return b.In
		}
		insns := []*lift.Insn{cmp.In, br.In, ret(base+8, 1), ret(base+0x10, 2)}
		p := procedure{name: tc.cc, addr: base, insns: insns}
		_, f := buildOpt(t, arm64Like, p)
		var conds []string
		for _, b := range f.Blocks {
			for _, val := range b.Values {
				if val.Kind == OpValue && flagPredicates[val.Op] {
					t.Errorf("b.%s: flag predicate left: %s", tc.cc, val.Op)
				}
				if isOp(val, lift.Branch, 1) {
					conds = append(conds, renderNZCV(val.Args[0]))
				}
			}
		}
		if len(conds) != 1 || conds[0] != tc.want {
			t.Errorf("b.%s: conditions %q, want %q\n%s", tc.cc, conds, tc.want, f)
		}
		edge := []uint64{0, 1, 1 << 63, 1<<63 - 1, ^uint64(0)}
		for i := 0; i < 200; i++ {
			a, b := r.Uint64(), r.Uint64()
			switch i % 4 {
			case 0:
				b = a
			case 1:
				a, b = edge[r.IntN(len(edge))], edge[r.IntN(len(edge))]
			}
			st := lift.NewState()
			st.Regs["x0"], st.Regs["x1"], st.Regs["x30"], st.Regs["sp"] = lift.V64(a), lift.V64(b), lift.V64(0x4444), lift.V64(0x8000)
			want := cloneState(st)
			if _, err := runLifted(p, want, 10); err != nil {
				t.Fatal(err)
			}
			exit, err := Run(f, cloneState(st), 100)
			if err != nil || exit.Regs["x0"] != want.Regs["x0"] {
				t.Fatalf("b.%s x0=%#x x1=%#x: SSA %+v %v, lifted x0=%#x", tc.cc, a, b, exit, err, want.Regs["x0"].Lo)
			}
		}
	}
}

func renderNZCV(v *Value) string {
	name := func(a *Value) string {
		switch {
		case a.Kind == Entry && a.Loc == "x0":
			return "a"
		case a.Kind == Entry && a.Loc == "x1":
			return "b"
		}
		return "?"
	}
	if !isCmp(v) {
		return v.Op.String() + "?"
	}
	return v.Op.String() + " " + name(v.Args[0]) + " " + name(v.Args[1])
}
