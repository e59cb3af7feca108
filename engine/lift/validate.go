package lift

import (
	"errors"
	"fmt"
)

// ErrInvalid is returned by Validate for an instruction that breaks the IR's
// typing rules.
var ErrInvalid = errors.New("lift: invalid IR")

// Validate checks in against the IR's typing rules: every operand has a
// valid width, temporaries are numbered below in.Temps and written before
// they are read, and each operation's operand and result widths agree (as
// the operation constants document). The interpreter masks values to their
// widths, so a lifter's width mistake would otherwise pass unseen; the
// lifters' tests validate everything they lift.
func Validate(in *Insn) error {
	written := make([]bool, in.Temps)
	bad := func(i int, s *Stmt, why string) error {
		return fmt.Errorf("%w: %#x %s statement %d (%s): %s", ErrInvalid, in.Addr, in.Mnemonic, i, *s, why)
	}
	// By pointer: a statement is large, and this runs over every
	// statement of every procedure lifted.
	for i := range in.Stmts {
		s := &in.Stmts[i]
		for _, o := range [...]*Operand{&s.A, &s.B, &s.C} {
			if o.Kind == None {
				continue
			}
			if !ValidWidth(o.Width) {
				return bad(i, s, "operand width")
			}
			if o.Kind == Temp && (o.Index < 0 || int(o.Index) >= in.Temps || !written[o.Index]) {
				return bad(i, s, "temporary read before it is written")
			}
			if o.Kind == Reg && o.Name == "" {
				return bad(i, s, "register without a name")
			}
		}
		if err := checkStmt(s); err != "" {
			return bad(i, s, err)
		}
		if s.Dst.Kind == Temp {
			if s.Dst.Index < 0 || int(s.Dst.Index) >= in.Temps {
				return bad(i, s, "temporary out of range")
			}
			written[s.Dst.Index] = true
		}
	}
	return nil
}

func checkStmt(s *Stmt) string {
	d, a, b, c := &s.Dst, &s.A, &s.B, &s.C
	needDst := func() string {
		if d.Kind != Reg && d.Kind != Temp {
			return "no register or temporary destination"
		}
		if !ValidWidth(d.Width) {
			return "destination width"
		}
		return ""
	}
	switch s.Op {
	case Store:
		if d.Kind != None || a.Kind == None || b.Kind == None || b.Width%8 != 0 {
			return "store takes an address and a whole-byte value"
		}
		return ""
	case Jump, Call, Return:
		if d.Kind != None || a.Kind == None {
			return "transfer takes a target"
		}
		return ""
	case Branch, TrapIf:
		if d.Kind != None || a.Width != 1 || s.Op == Branch && b.Kind == None {
			return "condition must be 1 bit"
		}
		return ""
	case Unmodelled:
		if s.Text == "" || s.Reason == "" {
			return "unmodelled needs a mnemonic and a reason"
		}
		return ""
	}
	if e := needDst(); e != "" {
		return e
	}
	if s.Lane != 0 {
		if !ValidWidth(s.Lane) || s.Lane == 1 || d.Width%s.Lane != 0 || a.Width != d.Width {
			return "lane width"
		}
		return ""
	}
	same := func(xs ...*Operand) bool {
		for _, x := range xs {
			if x.Kind != None && x.Width != d.Width {
				return false
			}
		}
		return true
	}
	switch s.Op {
	case Copy, Add, Sub, Mul, UDiv, SDiv, URem, SRem, And, Or, Xor, AndNot, Neg, Not, Bswap:
		if a.Kind == None || !same(a, b) {
			return "operands must have the result's width"
		}
	case Undef:
		if a.Kind != None {
			return "undef takes no operand"
		}
	case Shl, LShr, AShr, Rol, Ror:
		if !same(a) || b.Kind == None {
			return "shifted value must have the result's width"
		}
	case Eq, Ne, Ult, Ule, Slt, Sle:
		if d.Width != 1 || a.Width != b.Width {
			return "comparison of equal widths into 1 bit"
		}
	case CarryAdd, BorrowSub, OverflowAdd, OverflowSub:
		if d.Width != 1 || a.Width != b.Width || c.Kind != None && c.Width != 1 {
			return "flag predicate of equal widths (and a 1-bit carry) into 1 bit"
		}
	case Parity:
		if d.Width != 1 || a.Width < 8 {
			return "parity of a byte or wider into 1 bit"
		}
	case ZExt, SExt:
		if a.Width > d.Width {
			return "extension must not narrow"
		}
	case Trunc:
		if a.Width < d.Width {
			return "truncation must not widen"
		}
	case Extract:
		if s.Aux < 0 || int(s.Aux)+int(d.Width) > int(a.Width) {
			return "extracted bits out of range"
		}
	case Insert:
		if !same(a) || s.Aux < 0 || int(s.Aux)+int(b.Width) > int(d.Width) {
			return "inserted bits out of range"
		}
	case Select:
		if a.Width != 1 || !same(b, c) {
			return "select takes a 1-bit condition and values of the result's width"
		}
	case Ctz, Clz, Popcnt:
		if a.Kind == None {
			return "count of nothing"
		}
	case FAdd, FSub, FMul, FDiv, FSqrt:
		if (s.Aux != 32 && s.Aux != 64) || int(d.Width) != int(s.Aux) || !same(a, b) {
			return "float arithmetic in its format's width"
		}
	case FEq, FLt, FLe, FUnord:
		if (s.Aux != 32 && s.Aux != 64) || d.Width != 1 || int(a.Width) != int(s.Aux) || int(b.Width) != int(s.Aux) {
			return "float comparison of the format's width into 1 bit"
		}
	case FToS, FToSTrunc:
		if (s.Aux != 32 && s.Aux != 64) || int(a.Width) != int(s.Aux) {
			return "float to integer reads the format's width"
		}
	case SToF, FConv:
		if (s.Aux != 32 && s.Aux != 64) || int(d.Width) != int(s.Aux) || s.Op == FConv && a.Width != 32 && a.Width != 64 {
			return "conversion to a float writes the format's width"
		}
	case FMA:
		if (s.Aux != 32 && s.Aux != 64) || int(d.Width) != int(s.Aux) || !same(a, b, c) || c.Kind == None {
			return "fused multiply-add of three values in the format's width"
		}
	case FMin, FMax, FMinNum, FMaxNum:
		if (s.Aux != 32 && s.Aux != 64) || int(d.Width) != int(s.Aux) || !same(a, b) || b.Kind == None {
			return "float minimum or maximum in its format's width"
		}
	case FTrunc, FFloor, FCeil, FRoundEven, FRoundAway:
		if (s.Aux != 32 && s.Aux != 64) || int(d.Width) != int(s.Aux) || !same(a) {
			return "float rounding in its format's width"
		}
	case UToF:
		if (s.Aux != 32 && s.Aux != 64) || int(d.Width) != int(s.Aux) || a.Kind == None {
			return "conversion to a float writes the format's width"
		}
	case FToUTrunc:
		if (s.Aux != 32 && s.Aux != 64) || int(a.Width) != int(s.Aux) {
			return "float to integer reads the format's width"
		}
	case Load:
		if a.Kind == None || d.Width%8 != 0 {
			return "load of whole bytes from an address"
		}
	default:
		return "unknown operation"
	}
	return ""
}
