package dataflow

import (
	"fmt"
	"strings"

	"github.com/rea-re/rea/engine/lift"
)

// String prints f as stable text, values renumbered in print order so that
// the output does not depend on construction details:
//
//	func 0x401000 (x86-64)
//	slot stack-0xc:32
//	b0 0x401000 -> b1
//	  v1:64 = entry rsp
//	b1 0x401000 <- b0 b2 -> b2 b3
//	  v2:32 = phi v3, v7           ; rax
//	  v4:mem = store v1, v2, v0    ; memory: address, value, memory before
//	  branch v5
//
// Constants print inline as in package lift (0x10:64); a value's location,
// when it was written to one, follows as a comment.
func (f *Func) String() string {
	num := map[*Value]int{}
	n := 0
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			n++
			num[v] = n
		}
	}
	ref := func(v *Value) string {
		if v == nil {
			return "<nil>"
		}
		if v.Kind == ConstValue {
			return operandOf(v).String()
		}
		if k, ok := num[v]; ok {
			return fmt.Sprintf("v%d", k)
		}
		return fmt.Sprintf("<dead v%d>", v.ID)
	}
	var sb strings.Builder
	name := ""
	if f.Arch != nil {
		name = f.Arch.Name
	}
	fmt.Fprintf(&sb, "func %#x (%s)\n", f.Entry, name)
	for _, s := range f.Slots {
		kept := ""
		if s.KeptStores {
			kept = " (stores kept: at or above a call's stack pointer)"
		}
		fmt.Fprintf(&sb, "slot %s:%d%s\n", slotName(s), s.Width, kept)
	}
	for _, l := range f.Limitations {
		fmt.Fprintf(&sb, "limitation %s\n", l)
	}
	for _, b := range f.Blocks {
		fmt.Fprintf(&sb, "b%d %#x", b.ID, b.Addr)
		if b.Exit {
			sb.WriteString(" exit")
		}
		if len(b.Preds) > 0 {
			sb.WriteString(" <-")
			for _, p := range b.Preds {
				fmt.Fprintf(&sb, " b%d", p.ID)
			}
		}
		if len(b.Succs) > 0 {
			sb.WriteString(" ->")
			for _, s := range b.Succs {
				fmt.Fprintf(&sb, " b%d", s.ID)
			}
		}
		sb.WriteByte('\n')
		for _, v := range b.Values {
			sb.WriteString("  ")
			sb.WriteString(v.format(num[v], ref))
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

func (v *Value) format(n int, ref func(*Value) string) string {
	var sb strings.Builder
	switch {
	case v.Op == lift.Branch || v.Op == lift.Jump || v.Op == lift.Return || v.Op == lift.TrapIf:
		if v.Kind == OpValue {
			break
		}
		fallthrough
	default:
		w := fmt.Sprint(v.Width)
		if v.Width == 0 {
			w = "mem"
		}
		fmt.Fprintf(&sb, "v%d:%s = ", n, w)
	}
	args := v.Args
	switch v.Kind {
	case Entry:
		fmt.Fprintf(&sb, "entry %s", v.Loc)
		return sb.String()
	case Phi:
		sb.WriteString("phi")
	case Clobber:
		fmt.Fprintf(&sb, "clobber %s by %s", v.Loc, ref(v.Args[0]))
		return sb.String()
	default:
		sb.WriteString(v.Op.String())
		if v.Lane != 0 {
			fmt.Fprintf(&sb, ".v%d", v.Lane)
		}
		switch {
		case v.Op == lift.Extract || v.Op == lift.Insert:
			fmt.Fprintf(&sb, "@%d", v.Aux)
		case v.Aux != 0:
			fmt.Fprintf(&sb, ".f%d", v.Aux)
		}
		switch v.Op {
		case lift.Unmodelled:
			fmt.Fprintf(&sb, " %q (%s)", v.Text, v.Reason)
		case lift.TrapIf:
			fmt.Fprintf(&sb, " %q", v.Text)
		}
	}
	named := len(args) - len(v.Names)
	for i, a := range args {
		if i == 0 {
			sb.WriteByte(' ')
		} else {
			sb.WriteString(", ")
		}
		if i >= named {
			sb.WriteString(v.Names[i-named])
			sb.WriteByte('=')
		}
		sb.WriteString(ref(a))
	}
	if v.Loc != "" && v.Kind != Entry {
		sb.WriteString("  ; ")
		sb.WriteString(v.Loc)
	}
	return sb.String()
}
