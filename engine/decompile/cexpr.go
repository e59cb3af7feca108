package decompile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/lift"
)

// C operator precedences, highest binds tightest.
const (
	pCond  = 3
	pLor   = 4
	pLand  = 5
	pBor   = 6
	pXor   = 7
	pBand  = 8
	pEq    = 9
	pRel   = 10
	pShift = 11
	pAdd   = 12
	pMul   = 13
	pUnary = 15
	pAtom  = 16
)

// cx is a rendered C expression.
type cx struct {
	s string
	p int
	// isConst: s is the constant val (of the expression's width).
	isConst bool
	val     uint64
	// bits: s is a bit cast of the float expression bits (so that a
	// conversion back is bits itself).
	bits  string
	bitsW int // the float format bits is of
	bitsP int // the precedence of bits
	// rel: the expression is a comparison relOp of relL and relR, so that
	// its negation can flip the operator instead of adding a '!'.
	// sform: the same value read as a signed integer, when it has a
	// shorter form than a cast (a signed parameter).
	sform      string
	relOp      string
	relL, relR cx2
	// ty is the expression's C type when the emitter knows it ("" when
	// not), so that a conversion to the type it already has is left out.
	ty string
	// castOf is the operand of a conversion to an integer type, so that
	// a narrower conversion of it can skip the wider one.
	castOf cx2
	// binOp, binL, binR: the expression is binL binOp binR (the right
	// operand as printed), so that an assignment to binL can compound.
	binOp, binL, binR string
	binLx, binRx      cx2
	// retype: the expression is a memory access; retype(t) reads the same
	// bytes as the integer type t of the same width.
	retype func(t string) cx
	// truth: the value is 0 or 1 (a comparison, a negation, a bool), so
	// that its zero extension is itself.
	truth bool
	// ptr: the expression is a pointer or a function of ptr bits, so
	// that a pointer conversion of its conversion to an integer of that
	// width converts it directly.
	ptr int
}

// cx2 holds an operand of a comparison (a pointer keeps cx finite).
type cx2 = *cx

func atom(s string) cx { return cx{s: s, p: pAtom} }

func (c cx) at(p int) string {
	if c.p < p {
		return "(" + c.s + ")"
	}
	return c.s
}

func bin(a cx, op string, b cx, p int) cx {
	switch op {
	case "+", "-", "*", "/", "%", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=":
		a = implicit(a, b)
		b = implicit(b, a)
	}
	c := cx{s: a.at(p) + " " + op + " " + b.at(p+1), p: p, binOp: op, binL: a.at(p), binR: b.at(p + 1), binLx: &a, binRx: &b}
	switch op {
	case "+", "-", "*", "/", "%", "&", "|", "^":
		c.ty = arith(a.ty, b.ty)
	case "<<", ">>":
		if intWidth(b.ty) > 0 {
			c.ty = promoted(a.ty)
		}
	case "==", "!=", "<", "<=", ">", ">=", "&&", "||":
		c.ty, c.truth = "int32_t", true
	}
	return c
}

func rel(a cx, op string, b cx, p int) cx {
	c := bin(a, op, b, p)
	c.relOp, c.relL, c.relR = op, &a, &b
	return c
}

var negRel = map[string]string{"==": "!=", "!=": "==", "<": ">=", ">=": "<", "<=": ">", ">": "<="}

// not negates a truth value.
func not(c cx) cx {
	if n, ok := negRel[c.relOp]; ok && c.relL != nil {
		p := pRel
		if n == "==" || n == "!=" {
			p = pEq
		}
		return rel(*c.relL, n, *c.relR, p)
	}
	if len(c.s) > 1 && c.s[0] == '!' && c.p == pUnary {
		return cx{s: c.s[1:], p: pAtom}.reparen()
	}
	return cx{s: "!" + c.at(pUnary), p: pUnary, ty: "int32_t", truth: true}
}

// reparen keeps an expression whose text is a parenthesised group atomic
// and anything else at the lowest precedence.
func (c cx) reparen() cx {
	if len(c.s) > 1 && c.s[0] == '(' && matching(c.s) {
		return c
	}
	if isIdent(c.s) {
		return c
	}
	c.p = pCond
	return c
}

func matching(s string) bool {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			d++
		case ')':
			d--
			if d == 0 && i != len(s)-1 {
				return false
			}
		}
	}
	return d == 0
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cast converts c to the C type t. A conversion to the type c already
// has is c; a conversion to an integer type of a wider integer
// conversion of an integer is the conversion of that integer (both keep
// its low bits); an unsigned conversion of a constant is still that
// constant.
func cast(t string, c cx) cx {
	w := intWidth(t)
	if c.ty == t {
		return c
	}
	if c.retype != nil && w > 1 && intWidth(c.ty) == w {
		return c.retype(t) // a signed view of a load: a signed load
	}
	if w > 1 && c.castOf != nil && intWidth(c.castOf.ty) > 0 && (intWidth(c.ty) >= w || c.castOf.truth && intWidth(c.ty) > 1) {
		return cast(t, *c.castOf)
	}
	if c.truth && w > 1 && w < 32 && intWidth(c.ty) >= 1 && intWidth(c.ty) <= 32 {
		// 0 or 1 of a type C promotes to int: a narrower integer type
		// holds the same value, promoted the same
		return c
	}
	if strings.HasSuffix(t, "*") && c.castOf != nil && c.castOf.ptr > 0 && c.castOf.ptr == intWidth(c.ty) {
		return cast(t, *c.castOf)
	}
	r := cx{s: "(" + t + ")" + c.at(pUnary), p: pUnary, ty: t, truth: c.truth && w >= 1}
	if w > 1 {
		in := c
		r.castOf = &in
		if c.isConst && !signedT(t) {
			r.isConst, r.val = true, c.val&maskOf(lift.Width(min(w, 64)))
		}
	}
	// a zero extension keeps a float's bits in the low part
	if c.bits != "" && (t == "__rea_u128" || t == "uint64_t" && c.bitsW <= 64 || t == "uint32_t" && c.bitsW == 32) {
		r.bits, r.bitsW, r.bitsP = c.bits, c.bitsW, c.bitsP
	}
	return r
}

func call(name string, args ...cx) cx {
	s := name + "("
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a.at(pCond)
	}
	return atom(s + ")")
}

// uT and sT name the unsigned and signed C types of an IR width.
func uT(w lift.Width) string {
	switch w {
	case 1:
		return "bool"
	case 8:
		return "uint8_t"
	case 16:
		return "uint16_t"
	case 32:
		return "uint32_t"
	case 128:
		return "__rea_u128"
	}
	return "uint64_t"
}

func sT(w lift.Width) string {
	switch w {
	case 1, 8:
		return "int8_t"
	case 16:
		return "int16_t"
	case 32:
		return "int32_t"
	case 128:
		return "__rea_s128"
	}
	return "int64_t"
}

func maskOf(w lift.Width) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// num renders the constant lo (hi for 128 bits) of width w.
func num(w lift.Width, lo, hi uint64) cx {
	if w == 128 && hi != 0 {
		s := "(__rea_u128)" + hexnum(hi) + " << 64"
		if lo != 0 {
			s = "(" + s + ") | " + hexnum(lo)
			return cx{s: s, p: pBor}
		}
		return cx{s: s, p: pShift}
	}
	lo &= maskOf(w)
	c := atom(hexnum(lo))
	c.ty = literalT(lo)
	if w == 64 && lo > 0xffffffff {
		c.s += "u"
		c.ty = "uint64_t"
	}
	c.isConst, c.val = true, lo
	return c
}

// literalT is the C type of the literal hexnum(v) prints (LP64 and
// ILP32 agree up to 32 bits; wider literals carry a suffix).
func literalT(v uint64) string {
	switch {
	case v <= 0x7fffffff:
		return "int32_t"
	case v <= 0xffffffff:
		return "uint32_t"
	}
	return ""
}

func hexnum(v uint64) string {
	if v < 256 && v != 0x7f && v != 0x80 && v != 0xff && v != 0xf0 {
		return strconv.FormatUint(v, 10)
	}
	return fmt.Sprintf("%#x", v)
}

// signedNum renders the constant v of width w as a signed decimal for a
// signed context.
func signedNum(w lift.Width, v uint64) cx {
	s := signExt(v, w)
	if s == -1<<63 {
		return atom("(-0x7fffffffffffffff - 1)")
	}
	c := cx{s: strconv.FormatInt(s, 10), p: pAtom, isConst: true, val: v & maskOf(w), ty: "int32_t"}
	if s < 0 {
		c.p = pUnary
	}
	if w == 64 && (s > 0x7fffffff || s < -0x80000000) {
		c.s = "(int64_t)" + c.s
		c.p = pUnary
		c.ty = "int64_t"
	}
	return c
}

func signExt(v uint64, w lift.Width) int64 {
	if w >= 64 {
		return int64(v)
	}
	v &= maskOf(w)
	if v>>(w-1)&1 == 1 {
		return int64(v | ^maskOf(w))
	}
	return int64(v)
}

// quoteC renders s as a C string literal.
func quoteC(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '?' && i+1 < len(s) && s[i+1] == '?':
			b = append(b, '\\', '?') // no trigraph
		case c < 0x20 || c >= 0x7f:
			b = append(b, fmt.Sprintf("\\%03o", c)...)
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}

// intWidth is the width of an integer type the emitter prints (0: not
// an integer type, or not known).
func intWidth(t string) int {
	switch t {
	case "bool":
		return 1
	case "uint8_t", "int8_t":
		return 8
	case "uint16_t", "int16_t":
		return 16
	case "uint32_t", "int32_t":
		return 32
	case "uint64_t", "int64_t":
		return 64
	case "__rea_u128", "__rea_s128":
		return 128
	}
	return 0
}

func signedT(t string) bool {
	return t == "int8_t" || t == "int16_t" || t == "int32_t" || t == "int64_t" || t == "__rea_s128"
}

// promoted is the type an operand of type t has in C arithmetic.
func promoted(t string) string {
	if w := intWidth(t); w > 0 && w < 32 {
		return "int32_t"
	}
	return t
}

// arith is the type of a binary arithmetic operation on operands of
// types a and b (C's usual arithmetic conversions; "" when either is
// not known).
func arith(a, b string) string {
	a, b = promoted(a), promoted(b)
	wa, wb := intWidth(a), intWidth(b)
	switch {
	case wa == 0 || wb == 0:
		return ""
	case a == b:
		return a
	case signedT(a) == signedT(b):
		if wa >= wb {
			return a
		}
		return b
	}
	u, s, wu, ws := a, b, wa, wb
	if signedT(a) {
		u, s, wu, ws = b, a, wb, wa
	}
	if wu >= ws {
		return u
	}
	return s
}

// assigned is c as the right side of an assignment to an integer of type
// t: the assignment converts, so an integer conversion that keeps at
// least t's bits is left to it.
func assigned(t string, c cx) cx {
	w := intWidth(t)
	if c.isConst && strings.HasPrefix(t, "int") && w >= 8 && c.val>>(w-1) == 1 {
		// a negative number of t's width: the assignment converts it to
		// the same bits
		if n := signedNum(lift.Width(w), c.val); len(n.s) < len(c.s) {
			return n
		}
	}
	for w > 1 && c.castOf != nil && intWidth(c.castOf.ty) > 0 && (intWidth(c.ty) >= w || c.castOf.truth && intWidth(c.ty) > 1) {
		c = *c.castOf
	}
	return c
}

// assign renders the assignment of c to the variable n: n op= x when c
// is n op x (n++ and n-- for a step of one).
func assign(n string, c cx) string {
	switch c.binOp {
	case "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>":
		if c.binL != n || c.s != c.binL+" "+c.binOp+" "+c.binR {
			break
		}
		if (c.binOp == "+" || c.binOp == "-") && c.binR == "1" {
			return n + c.binOp + c.binOp + ";"
		}
		return n + " " + c.binOp + "= " + c.binRx.at(pCond) + ";"
	}
	return n + " = " + c.s + ";"
}

// nullForm is c for a comparison with 0: a pointer parameter viewed as
// an integer compares as the pointer.
func nullForm(c, other cx) cx {
	if other.isConst && other.val == 0 && c.castOf != nil && strings.HasSuffix(c.castOf.ty, "*") {
		return *c.castOf
	}
	return c
}

// implicit is the operand x of a binary operation with other, without
// its integer conversion when C's usual arithmetic conversions make the
// same one (a signed int added to a uint64_t is converted to uint64_t).
func implicit(x, other cx) cx {
	if x.castOf == nil || intWidth(x.ty) < 32 || intWidth(x.castOf.ty) == 0 || intWidth(other.ty) == 0 {
		return x
	}
	if arith(other.ty, x.ty) == x.ty && arith(other.ty, x.castOf.ty) == x.ty {
		return *x.castOf
	}
	return x
}

// bytePtr is the type of pointer variables: byte arithmetic on it is the
// integer arithmetic of the address.
const bytePtr = "uint8_t *"

// ptrTo is the type of a pointer to t.
func ptrTo(t string) string {
	if strings.HasSuffix(t, "*") {
		return t + "*"
	}
	return t + " *"
}

// pointer is c, an address computed as an integer, as a bytePtr (of 64
// bits): a pointer converted to an integer is the pointer, a sum of one
// and an integer the pointer sum, a load of the address's width a load
// of a pointer, 0 the null pointer; else a conversion.
func pointer(c cx) cx {
	if x, ok := pointerSum(c); ok {
		return x
	}
	switch {
	case c.isConst && c.val == 0:
		return atom("0")
	case c.retype != nil && intWidth(c.ty) == 64:
		r := c.retype(bytePtr)
		r.ptr = 64
		return r
	}
	return cast(bytePtr, c)
}

// pointerSum is c, the 64-bit integer of a bytePtr or a sum of one and
// integers, as the pointer expression.
func pointerSum(c cx) (cx, bool) {
	switch {
	case c.castOf != nil && c.castOf.ptr == 64 && c.castOf.ty == bytePtr && intWidth(c.ty) == 64:
		return *c.castOf, true
	case (c.binOp == "+" || c.binOp == "-") && c.binLx != nil && c.binRx != nil && c.s == c.binL+" "+c.binOp+" "+c.binR:
		if x, ok := pointerSum(*c.binLx); ok {
			return cx{s: x.at(pAdd) + " " + c.binOp + " " + c.binR, p: pAdd, ty: bytePtr, ptr: 64, binOp: c.binOp, binL: x.at(pAdd), binR: c.binR, binLx: &x, binRx: c.binRx}, true
		}
	}
	return cx{}, false
}
