// Package lift is REA's intermediate representation (IR): the contract between
// the per-architecture lifters (engine/lift/x86, later engine/lift/arm64) and
// everything above them (SSA and data flow, calling conventions, the
// decompiler). CONTRACTS.md §19 and §20 describe what is built on it.
//
// # Shape
//
// The IR is a small typed three-address form. One machine instruction lifts
// to an [Insn]: its address, length, mnemonic and a list of [Stmt]s. Each
// statement computes one operation over at most three [Operand]s and writes
// at most one destination. An operand is a constant, a register (a named,
// full-width machine location such as "rax", "xmm3" or the flag "zf") or a
// temporary local to the instruction ("t0", "t1", …). Every operand carries
// its width in bits: 1 (booleans and flags), 8, 16, 32, 64 or 128.
//
// Nothing is implicit. Sub-register reads are [Extract]s and sub-register
// writes are [Insert]s into the full register (x86-64's zero extension of
// 32-bit writes is an explicit [ZExt]); memory is [Load] and [Store] with a
// width; a flag the architecture leaves undefined is assigned [Undef];
// control is [Jump], [Branch], [Call], [Return] with a constant target for a
// direct transfer and a register or temporary for an indirect one. A
// fall-through is the address after the instruction.
//
// Floating point values are bit patterns in 32- and 64-bit integers; the
// float operations (FAdd, FLt, FToS, …) say how to read them, so the type is
// in the operation, not the value. SIMD operations are either explicit lane
// [Extract]/[Insert] sequences or, for the common element-wise forms, an
// ordinary operation with [Stmt.Lane] set: `xmm0 = add.v32 xmm0, xmm1` adds
// four 32-bit lanes.
//
// # Flags
//
// Flags are separate 1-bit registers (x86: cf, pf, af, zf, sf, of, df), each
// assigned by an explicit operation whose operands are the operands of the
// instruction that sets it, not only its result: `cmp rax, rbx` lifts to
//
//	t0 = sub.64 rax, rbx
//	cf = borrow.sub.64 rax, rbx
//	of = overflow.sub.64 rax, rbx
//	zf = eq.64 t0, 0x0
//	sf = slt.64 t0, 0x0
//	…
//
// and a condition reads flags with ordinary boolean operations (`jl` is
// `ne sf, of`). The alternative, one "flags from op(a, b)" record consumed by
// conditions, hides which flag an instruction reads and makes partial flag
// writes (inc keeps cf, shifts by zero keep everything) special cases.
// Separate registers keep the interpreter and SSA uniform, and folding stays
// local: after copy propagation every flag a condition reads is a named
// predicate of the same (a, b), so `ne (slt (sub a b) 0) (overflow.sub a b)`
// is rewritten to `slt a b` by a table keyed on the operation that defined
// the flags (borrow.sub → ult, eq of sub → eq, sf≠of → slt, …), and dead-code
// elimination removes the flags nothing reads.
//
// # Limits
//
// A lifter never guesses. An instruction it does not model becomes a single
// [Unmodelled] statement naming the mnemonic and why; later stages count it
// as a limitation and the decompiler turns it into a helper call. The
// [Interpreter] refuses to run one.
package lift

import "fmt"

// Width is the width of a value in bits: 1, 8, 16, 32, 64 or 128.
type Width uint8

// ValidWidth reports whether w is one of the IR's widths.
func ValidWidth(w Width) bool {
	switch w {
	case 1, 8, 16, 32, 64, 128:
		return true
	}
	return false
}

// OperandKind says what an Operand names.
type OperandKind uint8

const (
	None  OperandKind = iota // no operand
	Const                    // a constant (Operand.Lo, Operand.Hi)
	Reg                      // a machine register, by name
	Temp                     // a temporary local to one Insn
)

// Operand is a constant, a register or a temporary, with its width.
type Operand struct {
	Kind  OperandKind
	Width Width
	Index int32  // the temporary's number (Kind Temp)
	Name  string // the register's name (Kind Reg)
	Lo    uint64 // the constant's low 64 bits (Kind Const)
	Hi    uint64 // the constant's high 64 bits, for 128-bit constants
}

// C returns the constant v of width w (truncated to w).
func C(w Width, v uint64) Operand { return Operand{Kind: Const, Width: w, Lo: v & mask64(w)} }

// R returns the register name of width w.
func R(name string, w Width) Operand { return Operand{Kind: Reg, Width: w, Name: name} }

// IsConst reports whether o is a constant.
func (o Operand) IsConst() bool { return o.Kind == Const }

// Op is an operation of the IR.
type Op uint8

// The operations. Unless said otherwise, operands and result have the
// statement's width (the destination's), shifts and rotates take the count
// at any width, and comparisons give a 1-bit result.
const (
	Invalid Op = iota
	Copy       // dst = a
	Undef      // dst = a value the architecture leaves undefined

	Add
	Sub
	Mul
	UDiv // dst = a / b, unsigned; b = 0 faults
	SDiv // dst = a / b, signed, truncating; b = 0 faults
	URem
	SRem
	And
	Or
	Xor
	AndNot // dst = ^a & b (x86 andn/pandn order)
	Shl    // count taken modulo nothing: a count ≥ width gives 0
	LShr
	AShr
	Rol // count modulo width
	Ror
	Neg
	Not

	Eq
	Ne
	Ult
	Ule
	Slt
	Sle

	// Flag predicates of the operation on a and b (and the carry c), at the
	// operands' width. They keep the instruction's operands visible so that
	// conditions fold into comparisons (see the package doc).
	CarryAdd    // carry out of a + b (+ c)
	BorrowSub   // borrow out of a - b (- c)
	OverflowAdd // signed overflow of a + b (+ c)
	OverflowSub // signed overflow of a - b (- c)
	Parity      // 1 when the low 8 bits of a have an even number of ones

	ZExt    // dst = a zero-extended (or truncated) to the dst width
	SExt    // dst = a sign-extended to the dst width
	Trunc   // dst = the low bits of a
	Extract // dst = bits [Aux, Aux+width(dst)) of a
	Insert  // dst = a with bits [Aux, Aux+width(b)) replaced by b
	Select  // dst = a ? b : c (a is 1 bit)

	Ctz    // count of trailing zeros (width of a when a = 0)
	Clz    // count of leading zeros
	Popcnt // count of ones
	Bswap  // byte order reversed

	// Floating point. Aux is 32 or 64, the format of the operands; the
	// values are their IEEE bit patterns.
	FAdd
	FSub
	FMul
	FDiv
	FSqrt
	FEq       // ordered and equal
	FLt       // ordered and less
	FLe       // ordered and less or equal
	FUnord    // either is a NaN
	FToS      // float a → signed integer of dst width, rounding to nearest even; out of range gives the "integer indefinite" 1<<(w-1)
	FToSTrunc // as FToS, truncating toward zero
	SToF      // signed integer a → float of format Aux
	FConv     // float a (format of a's width) → float of format Aux

	Load  // dst = memory[a], width(dst) bits, little-endian
	Store // memory[a] = b

	Jump       // go to a
	Branch     // if a, go to b; else fall through
	Call       // call a (the return address is already pushed by explicit statements)
	Return     // return to a
	TrapIf     // if a, the instruction faults (Text says which fault)
	Unmodelled // the instruction is not modelled (Text: mnemonic, Reason: why)

	// Floating point added for AArch64 (after the first set so that the
	// operations' numbers stay put). Aux is the format, as for FAdd.
	FMA        // dst = a * b + c, rounded once
	FMin       // IEEE 754-2019 minimum: a NaN operand gives a NaN; -0 < +0
	FMax       // IEEE 754-2019 maximum
	FMinNum    // IEEE 754-2019 minimumNumber: a number wins over a NaN; -0 < +0
	FMaxNum    // IEEE 754-2019 maximumNumber
	FTrunc     // a rounded to an integral float toward zero
	FFloor     // … toward negative infinity
	FCeil      // … toward positive infinity
	FRoundEven // … to nearest, ties to even
	FRoundAway // … to nearest, ties away from zero
	UToF       // unsigned integer a → float of format Aux
	FToUTrunc  // float a → unsigned integer of dst width, truncating; NaN and out of range give all ones
)

var opNames = [...]string{
	Invalid: "invalid", Copy: "copy", Undef: "undef",
	Add: "add", Sub: "sub", Mul: "mul", UDiv: "udiv", SDiv: "sdiv", URem: "urem", SRem: "srem",
	And: "and", Or: "or", Xor: "xor", AndNot: "andnot", Shl: "shl", LShr: "lshr", AShr: "ashr",
	Rol: "rol", Ror: "ror", Neg: "neg", Not: "not",
	Eq: "eq", Ne: "ne", Ult: "ult", Ule: "ule", Slt: "slt", Sle: "sle",
	CarryAdd: "carry.add", BorrowSub: "borrow.sub", OverflowAdd: "overflow.add", OverflowSub: "overflow.sub",
	Parity: "parity",
	ZExt:   "zext", SExt: "sext", Trunc: "trunc", Extract: "extract", Insert: "insert", Select: "select",
	Ctz: "ctz", Clz: "clz", Popcnt: "popcnt", Bswap: "bswap",
	FAdd: "fadd", FSub: "fsub", FMul: "fmul", FDiv: "fdiv", FSqrt: "fsqrt",
	FEq: "feq", FLt: "flt", FLe: "fle", FUnord: "funord",
	FToS: "ftos", FToSTrunc: "ftos.trunc", SToF: "stof", FConv: "fconv",
	Load: "load", Store: "store",
	Jump: "jump", Branch: "branch", Call: "call", Return: "return", TrapIf: "trapif",
	Unmodelled: "unmodelled",
	FMA:        "fma", FMin: "fmin", FMax: "fmax", FMinNum: "fminnum", FMaxNum: "fmaxnum",
	FTrunc: "ftrunc", FFloor: "ffloor", FCeil: "fceil", FRoundEven: "froundeven", FRoundAway: "froundaway",
	UToF: "utof", FToUTrunc: "ftou.trunc",
}

func (op Op) String() string {
	if int(op) < len(opNames) && opNames[op] != "" {
		return opNames[op]
	}
	return fmt.Sprintf("op(%d)", uint8(op))
}

// IsControl reports whether op transfers control.
func (op Op) IsControl() bool {
	switch op {
	case Jump, Branch, Call, Return:
		return true
	}
	return false
}

// Stmt is one statement: Dst = Op(A, B, C).
type Stmt struct {
	Op      Op
	Lane    Width   // element-wise over lanes of this width when ≠ 0
	Aux     int32   // Extract/Insert: the bit offset; float ops: the format (32, 64)
	Dst     Operand // Kind None for Store, control, TrapIf and Unmodelled
	A, B, C Operand
	Text    string // Unmodelled: the mnemonic; TrapIf: the fault
	Reason  string // Unmodelled: why it is not modelled
}

// Insn is one machine instruction lifted.
type Insn struct {
	Addr     uint64
	Len      int
	Mnemonic string
	Stmts    []Stmt
	Temps    int // the number of temporaries (t0 … t(Temps-1))
}

// Unmodelled reports the Unmodelled statement of in, if any.
func (in *Insn) Unmodelled() (Stmt, bool) {
	for _, s := range in.Stmts {
		if s.Op == Unmodelled {
			return s, true
		}
	}
	return Stmt{}, false
}

// Next is the address of the instruction after in (its fall-through).
func (in *Insn) Next() uint64 { return in.Addr + uint64(in.Len) }

func mask64(w Width) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// Version names the lifters' semantics: it changes whenever what a lifter
// produces for some instruction changes, or the SSA form built from it
// (package dataflow) does, so that an analysis profile that records it (the
// builtin provider's "lifter") says which lifting its answers came from.
// 2: register writes dead across blocks left out of SSA construction.
const Version = "2"
