package dataflow

import (
	"github.com/rea-re/rea/engine/lift"
)

// Flag folding. A lifter sets each flag from the operands of the
// instruction (package lift's doc): after `cmp a, b`, x86's flags are
//
//	zf = eq (sub a b) 0      cf = borrow.sub a b
//	sf = slt (sub a b) 0     of = overflow.sub a b
//
// and after `test a, b` (t = and a b) zf = eq t 0, sf = slt t 0, cf = of = 0.
// arm64's NZCV after subs/cmp are the same predicates with C = not borrow.
// The table below rewrites a condition over such flags into one comparison
// of a and b; every x86 condition code reduces by these rules (and the
// constant and negation rules) alone:
//
//	e/ne     eq(sub a b, 0) → eq a b                  (zf; ne is its negation)
//	b/ae     borrow.sub a b → ult a b                 (cf; ae = ule b a)
//	be/a     or(ult a b, eq a b) → ule a b            (cf|zf; a = ult b a)
//	l/ge     ne(slt(sub a b, 0), overflow.sub a b) → slt a b   (sf≠of; ge = sle b a)
//	le/g     or(eq a b, slt a b) → sle a b            (zf|sf≠of; g = slt b a)
//	test     of = cf = 0: ne(sf, 0) → sf, or(0, zf) → zf, so jle = sle t 0, ja = ne t 0
//	arm64    and(ule b a, ne a b) → ult b a (hi), and(sle b a, ne a b) → slt b a (gt)
//
// Negation of a comparison is the inverted comparison (xor c, 1; eq c, 0;
// not c): eq↔ne, ult a b ↔ ule b a, slt a b ↔ sle b a.

func isCmp(v *Value) bool {
	if v.Kind != OpValue || v.Lane != 0 || len(v.Args) != 2 {
		return false
	}
	switch v.Op {
	case lift.Eq, lift.Ne, lift.Ult, lift.Ule, lift.Slt, lift.Sle:
		return true
	}
	return false
}

func isOp(v *Value, op lift.Op, n int) bool {
	return v.Kind == OpValue && v.Op == op && v.Lane == 0 && len(v.Args) == n
}

// subOf matches t = sub a b.
func subOf(t *Value) (a, b *Value, ok bool) {
	if isOp(t, lift.Sub, 2) {
		return t.Args[0], t.Args[1], true
	}
	return nil, nil, false
}

// signOfSub matches sf = slt (sub a b) 0.
func signOfSub(x *Value) (a, b *Value, ok bool) {
	if isOp(x, lift.Slt, 2) && isConst(x.Args[1], 0) {
		return subOf(x.Args[0])
	}
	return nil, nil, false
}

// overflowOfSub matches of = overflow.sub a b (no borrow in).
func overflowOfSub(x *Value) (a, b *Value, ok bool) {
	if isOp(x, lift.OverflowSub, 2) || isOp(x, lift.OverflowSub, 3) && isConst(x.Args[2], 0) {
		return x.Args[0], x.Args[1], true
	}
	return nil, nil, false
}

func set(v *Value, op lift.Op, a, b *Value) bool {
	v.Op, v.Args, v.Aux, v.Lane = op, []*Value{a, b}, 0, 0
	return true
}

// invert rewrites v to the negation of the comparison or negation x.
func invert(v, x *Value) bool {
	if isCmp(x) {
		a, b := x.Args[0], x.Args[1]
		switch x.Op {
		case lift.Eq:
			return set(v, lift.Ne, a, b)
		case lift.Ne:
			return set(v, lift.Eq, a, b)
		case lift.Ult:
			return set(v, lift.Ule, b, a)
		case lift.Ule:
			return set(v, lift.Ult, b, a)
		case lift.Slt:
			return set(v, lift.Sle, b, a)
		case lift.Sle:
			return set(v, lift.Slt, b, a)
		}
	}
	if y, ok := negated(x); ok {
		return toCopy(v, y)
	}
	return false
}

// negated matches the 1-bit negations xor x 1, eq x 0, ne x 1, not x.
func negated(v *Value) (*Value, bool) {
	if v.Kind != OpValue || v.Lane != 0 || v.Width != 1 {
		return nil, false
	}
	switch {
	case isOp(v, lift.Not, 1) && v.Args[0].Width == 1:
		return v.Args[0], true
	case isOp(v, lift.Xor, 2) && isConst(v.Args[1], 1):
		return v.Args[0], true
	case isOp(v, lift.Xor, 2) && isConst(v.Args[0], 1):
		return v.Args[1], true
	case isOp(v, lift.Eq, 2) && v.Args[0].Width == 1 && isConst(v.Args[1], 0):
		return v.Args[0], true
	case isOp(v, lift.Ne, 2) && v.Args[0].Width == 1 && isConst(v.Args[1], 1):
		return v.Args[0], true
	}
	return nil, false
}

// same reports whether x and y compare the same pair (in either order for
// the symmetric eq and ne).
func samePair(x *Value, a, b *Value) bool {
	if x.Args[0] == a && x.Args[1] == b {
		return true
	}
	return (x.Op == lift.Eq || x.Op == lift.Ne) && x.Args[0] == b && x.Args[1] == a
}

// foldFlag applies one rule of the table to v in place.
func foldFlag(f *Func, v *Value) bool {
	if v.Kind != OpValue || v.Lane != 0 || v.Width != 1 {
		return false
	}
	if x, ok := negated(v); ok {
		return invert(v, x)
	}
	args := v.Args
	switch {
	case (isOp(v, lift.Eq, 2) || isOp(v, lift.Ne, 2)) && isConst(args[1], 0):
		if a, b, ok := subOf(args[0]); ok {
			return set(v, v.Op, a, b)
		}
	case isOp(v, lift.BorrowSub, 2) || isOp(v, lift.BorrowSub, 3) && isConst(args[2], 0):
		return set(v, lift.Ult, args[0], args[1])
	}
	if len(args) != 2 {
		return false
	}
	x, y := args[0], args[1]
	switch v.Op {
	case lift.Ne, lift.Xor, lift.Eq:
		if x.Width != 1 {
			return false
		}
		for _, p := range [2][2]*Value{{x, y}, {y, x}} {
			a, b, ok1 := signOfSub(p[0])
			c, d, ok2 := overflowOfSub(p[1])
			if ok1 && ok2 && a == c && b == d {
				if v.Op == lift.Eq {
					return set(v, lift.Sle, b, a)
				}
				return set(v, lift.Slt, a, b)
			}
		}
		if v.Op != lift.Eq && isConst(y, 0) {
			return toCopy(v, x) // ne c 0, xor c 0
		}
		if v.Op == lift.Eq && isConst(y, 1) {
			return toCopy(v, x)
		}
	case lift.Or, lift.And:
		if isConst(y, 0) || isConst(x, 0) {
			if v.Op == lift.And {
				return setConst(f, v, 0)
			}
			if isConst(y, 0) {
				return toCopy(v, x)
			}
			return toCopy(v, y)
		}
		if isConst(y, 1) || isConst(x, 1) {
			if v.Op == lift.Or {
				return setConst(f, v, 1)
			}
			if isConst(y, 1) {
				return toCopy(v, x)
			}
			return toCopy(v, y)
		}
		if !isCmp(x) || !isCmp(y) {
			return false
		}
		for _, p := range [2][2]*Value{{x, y}, {y, x}} {
			c, e := p[0], p[1]
			a, b := c.Args[0], c.Args[1]
			switch {
			case v.Op == lift.Or && e.Op == lift.Eq && samePair(e, a, b) && c.Op == lift.Ult:
				return set(v, lift.Ule, a, b)
			case v.Op == lift.Or && e.Op == lift.Eq && samePair(e, a, b) && c.Op == lift.Slt:
				return set(v, lift.Sle, a, b)
			case v.Op == lift.And && e.Op == lift.Ne && samePair(e, a, b) && c.Op == lift.Ule:
				return set(v, lift.Ult, a, b)
			case v.Op == lift.And && e.Op == lift.Ne && samePair(e, a, b) && c.Op == lift.Sle:
				return set(v, lift.Slt, a, b)
			}
		}
	}
	return false
}

func setConst(f *Func, v *Value, x uint64) bool {
	v.Op, v.Args, v.Aux, v.Lane = lift.Copy, []*Value{f.Const(1, x, 0)}, 0, 0
	return true
}

// foldFlags applies the table until no rule applies. Blocks are in reverse
// postorder, so a value's arguments (phis aside) are final before it is
// visited, and one pass that repeats the rules on each value suffices.
func foldFlags(f *Func) bool {
	changed := false
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			for n := 0; n < 8 && foldFlag(f, v); n++ {
				changed = true
			}
		}
	}
	return changed
}
