package lift

import (
	"fmt"
	"strings"
)

// String prints an operand: registers by name, temporaries as t<n>, constants
// in hexadecimal, each with its width after a colon (rax:64, t3:1, 0x10:32).
func (o Operand) String() string {
	switch o.Kind {
	case Const:
		if o.Hi != 0 {
			return fmt.Sprintf("0x%x%016x:%d", o.Hi, o.Lo, o.Width)
		}
		return fmt.Sprintf("0x%x:%d", o.Lo, o.Width)
	case Reg:
		return fmt.Sprintf("%s:%d", o.Name, o.Width)
	case Temp:
		return fmt.Sprintf("t%d:%d", o.Index, o.Width)
	}
	return "_"
}

// String prints a statement in the stable text the golden tests read:
//
//	t0:64 = add rax:64, rbx:64
//	xmm0:128 = add.v32 xmm0:128, xmm1:128
//	t2:32 = fadd.f32 t0:32, t1:32
//	t1:8 = extract@8 rax:64
//	store t0:64, rbx:64
//	trapif t5:1 "divide error"
//	unmodelled "cpuid" (instruction not modelled)
func (s Stmt) String() string {
	var sb strings.Builder
	if s.Dst.Kind != None {
		sb.WriteString(s.Dst.String())
		sb.WriteString(" = ")
	}
	sb.WriteString(s.Op.String())
	if s.Lane != 0 {
		fmt.Fprintf(&sb, ".v%d", s.Lane)
	}
	switch {
	case s.Op == Extract || s.Op == Insert:
		fmt.Fprintf(&sb, "@%d", s.Aux)
	case s.Aux != 0:
		fmt.Fprintf(&sb, ".f%d", s.Aux)
	}
	switch s.Op {
	case Unmodelled:
		fmt.Fprintf(&sb, " %q (%s)", s.Text, s.Reason)
		return sb.String()
	case TrapIf:
		fmt.Fprintf(&sb, " %s %q", s.A, s.Text)
		return sb.String()
	}
	sep := " "
	for _, o := range [...]Operand{s.A, s.B, s.C} {
		if o.Kind == None {
			continue
		}
		sb.WriteString(sep)
		sb.WriteString(o.String())
		sep = ", "
	}
	return sb.String()
}

// String prints the instruction: a header line with its address, length and
// mnemonic, then one indented line per statement.
func (in *Insn) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%#x/%d %s\n", in.Addr, in.Len, in.Mnemonic)
	for _, s := range in.Stmts {
		sb.WriteString("  ")
		sb.WriteString(s.String())
		sb.WriteByte('\n')
	}
	return sb.String()
}
