package dataflow

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/lift"
)

// ccCases are x86's condition codes with the comparison `cmp a, b` folds
// to, and the one `test x, x` folds to ("" where the condition is a
// constant after folding: cf = 0 makes b never and ae always true).
var ccCases = []struct{ cc, cmp, test string }{
	{"e", "eq a b", "eq x 0"},
	{"ne", "ne a b", "ne x 0"},
	{"b", "ult a b", ""},
	{"ae", "ule b a", ""},
	{"be", "ule a b", "eq x 0"},
	{"a", "ult b a", "ne x 0"},
	{"l", "slt a b", "slt x 0"},
	{"ge", "sle b a", "sle 0 x"},
	{"le", "sle a b", "sle x 0"},
	{"g", "slt b a", "slt 0 x"},
	{"s", "slt (sub a b) 0", "slt x 0"},
	{"ns", "sle 0 (sub a b)", "sle 0 x"},
}

// flagAsm writes one function per condition code, compare form (cmp of two
// registers at 64 and 32 bits, test of a register with itself) and use
// (jcc, setcc, cmovcc).
func flagAsm() (string, []string) {
	var sb strings.Builder
	var names []string
	sb.WriteString(".intel_syntax noprefix\n.text\n")
	for _, c := range ccCases {
		for _, form := range []string{"cmp", "cmp32", "test"} {
			cmp := map[string]string{"cmp": "cmp rdi, rsi", "cmp32": "cmp edi, esi", "test": "test rdi, rdi"}[form]
			for _, use := range []string{"j", "set", "cmov"} {
				name := fmt.Sprintf("f_%s_%s_%s", form, use, c.cc)
				names = append(names, name)
				fmt.Fprintf(&sb, ".globl %s\n.type %s, @function\n%s:\n", name, name, name)
				switch use {
				case "j":
					fmt.Fprintf(&sb, "  %s\n  j%s 1f\n  mov eax, 1\n  ret\n1:\n  mov eax, 2\n  ret\n", cmp, c.cc)
				case "set":
					fmt.Fprintf(&sb, "  %s\n  set%s al\n  movzx eax, al\n  ret\n", cmp, c.cc)
				case "cmov":
					fmt.Fprintf(&sb, "  mov eax, 1\n  mov edx, 2\n  %s\n  cmov%s eax, edx\n  ret\n", cmp, c.cc)
				}
				fmt.Fprintf(&sb, ".size %s, .-%s\n", name, name)
			}
		}
	}
	return sb.String(), names
}

// render prints a condition over the procedure's inputs: a and b are rdi
// and rsi (or their low halves), x is rdi.
func render(v *Value, form string) string {
	switch {
	case v.Kind == ConstValue:
		return fmt.Sprint(v.Lo)
	case v.Kind == Entry && v.Loc == "rdi":
		if form == "test" {
			return "x"
		}
		return "a"
	case v.Kind == Entry && v.Loc == "rsi":
		return "b"
	case isOp(v, lift.Extract, 1) && v.Aux == 0 && v.Width == 32:
		return render(v.Args[0], form)
	case v.Kind == OpValue:
		s := v.Op.String()
		for _, a := range v.Args {
			r := render(a, form)
			if strings.Contains(r, " ") {
				r = "(" + r + ")"
			}
			s += " " + r
		}
		return s
	}
	return fmt.Sprintf("%v?", v.Loc)
}

var flagPredicates = map[lift.Op]bool{lift.BorrowSub: true, lift.CarryAdd: true, lift.OverflowSub: true, lift.OverflowAdd: true, lift.Parity: true}

// TestFlagFolding checks, for every x86 condition code after cmp (64 and
// 32 bits) and test, used by jcc, setcc and cmovcc, that after the passes
// no flag is computed any more and the condition is the one comparison of
// the table in flags.go; and that the folded procedure returns what the
// lifted one does on random and edge inputs (equal operands, signs, zero).
func TestFlagFolding(t *testing.T) {
	asm, names := flagAsm()
	procs := objectProcs(t, assembleObject(t, "flags", asm), 64)
	if len(procs) != len(names) {
		t.Fatalf("%d procedures for %d functions", len(procs), len(names))
	}
	want := map[string]string{}
	for _, c := range ccCases {
		for _, form := range []string{"cmp", "cmp32", "test"} {
			for _, use := range []string{"j", "set", "cmov"} {
				w := c.cmp
				if form == "test" {
					w = c.test
				}
				want[fmt.Sprintf("f_%s_%s_%s", form, use, c.cc)] = w
			}
		}
	}
	r := rand.New(rand.NewPCG(25, 2))
	for _, p := range procs {
		_, f := buildOpt(t, amd64, p)
		var conds []*Value
		for _, b := range f.Blocks {
			for _, v := range b.Values {
				if flagPredicates[v.Op] && v.Kind == OpValue || v.Kind != OpValue && v.Width == 1 {
					t.Errorf("%s: a flag is still computed: %s\n%s", p.name, v.format(v.ID, func(a *Value) string { return render(a, "") }), f)
				}
				switch {
				case isOp(v, lift.Branch, 1), isOp(v, lift.Select, 3):
					conds = append(conds, v.Args[0])
				case v.Kind == OpValue && v.Op == lift.ZExt && v.Args[0].Width == 1:
					conds = append(conds, v.Args[0])
				}
			}
		}
		form := strings.Split(p.name, "_")[1]
		switch w := want[p.name]; {
		case w == "" && len(conds) != 0:
			t.Errorf("%s: condition %q left, want a constant\n%s", p.name, render(conds[0], form), f)
		case w != "" && (len(conds) != 1 || render(conds[0], form) != w):
			got := []string{}
			for _, c := range conds {
				got = append(got, render(c, form))
			}
			t.Errorf("%s: conditions %q, want %q\n%s", p.name, got, w, f)
		}
		for i := 0; i < 64; i++ {
			st := randomState(r, nil)
			st.Mem = map[uint64]byte{} // only the return address: these read no memory
			for k := uint64(0); k < 8; k++ {
				st.Mem[stackTop+k] = byte(uint64(retAddr) >> (8 * k))
			}
			switch i % 4 {
			case 0:
				st.Regs["rsi"] = st.Regs["rdi"]
			case 1:
				st.Regs["rsi"] = lift.V64(st.Regs["rdi"].Lo ^ 1<<63)
			}
			lifted := cloneState(st)
			tgt, err := runLifted(p, lifted, 100)
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			exit, err := Run(f, cloneState(st), 1000)
			if err != nil || exit.Target != tgt || !sameValue(exit.Regs["rax"], lifted.Regs["rax"], 64) {
				t.Fatalf("%s input rdi=%#x rsi=%#x: SSA %+v %v, lifted rax=%#x\n%s", p.name, st.Regs["rdi"].Lo, st.Regs["rsi"].Lo, exit, err, lifted.Regs["rax"].Lo, f)
			}
		}
	}
}
