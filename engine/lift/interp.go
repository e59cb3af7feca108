package lift

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// State is a concrete machine state for the interpreter: registers by name
// (a register never written reads as an error, so a test states everything
// it depends on) and a sparse byte memory (an address never written is
// unmapped).
type State struct {
	Regs map[string]Value
	Mem  map[uint64]byte
	// MemUndef holds the addresses whose byte was stored from an undefined
	// value.
	MemUndef map[uint64]bool
}

// NewState returns an empty state.
func NewState() *State {
	return &State{Regs: map[string]Value{}, Mem: map[uint64]byte{}, MemUndef: map[uint64]bool{}}
}

// Flow says how an instruction left control.
type Flow uint8

const (
	FallThrough Flow = iota
	Jumped           // Jump, or a taken Branch
	Called
	Returned
)

// Outcome is where control goes after one instruction.
type Outcome struct {
	Flow Flow
	Next uint64 // the next instruction's address
}

// Errors of the interpreter. Each is wrapped with the instruction's address.
var (
	ErrUnmodelled = errors.New("lift: instruction not modelled")
	ErrFault      = errors.New("lift: the instruction faults")
	ErrUnmapped   = errors.New("lift: memory not mapped in the state")
	ErrNoRegister = errors.New("lift: register not set in the state")
	ErrUndefined  = errors.New("lift: an address or control transfer depends on an undefined value")
	ErrMalformed  = errors.New("lift: malformed statement")
)

// Step runs one instruction on st and reports where control goes next. On
// an error st may hold part of the instruction's effects.
func Step(in *Insn, st *State) (Outcome, error) {
	e := exec{st: st, temps: make([]Value, in.Temps)}
	out := Outcome{Next: in.Next()}
	for i := range in.Stmts {
		s := &in.Stmts[i]
		flow, target, err := e.stmt(s)
		if err != nil {
			return out, fmt.Errorf("%#x %s (statement %d: %s): %w", in.Addr, in.Mnemonic, i, s, err)
		}
		if flow != FallThrough {
			return Outcome{Flow: flow, Next: target}, nil
		}
	}
	return out, nil
}

type exec struct {
	st    *State
	temps []Value
}

func (e *exec) read(o Operand) (Value, error) {
	switch o.Kind {
	case Const:
		return Value{Lo: o.Lo, Hi: o.Hi}.mask(o.Width), nil
	case Reg:
		v, ok := e.st.Regs[o.Name]
		if !ok {
			return Value{}, fmt.Errorf("%w: %s", ErrNoRegister, o.Name)
		}
		return v.mask(o.Width), nil
	case Temp:
		if o.Index < 0 || int(o.Index) >= len(e.temps) {
			return Value{}, fmt.Errorf("%w: t%d out of range", ErrMalformed, o.Index)
		}
		return e.temps[o.Index].mask(o.Width), nil
	}
	return Value{}, nil
}

func (e *exec) write(o Operand, v Value) error {
	v = v.mask(o.Width)
	switch o.Kind {
	case Reg:
		e.st.Regs[o.Name] = v
	case Temp:
		if o.Index < 0 || int(o.Index) >= len(e.temps) {
			return fmt.Errorf("%w: t%d out of range", ErrMalformed, o.Index)
		}
		e.temps[o.Index] = v
	default:
		return fmt.Errorf("%w: destination is not a register or temporary", ErrMalformed)
	}
	return nil
}

func (e *exec) stmt(s *Stmt) (Flow, uint64, error) {
	a, err := e.read(s.A)
	if err != nil {
		return 0, 0, err
	}
	b, err := e.read(s.B)
	if err != nil {
		return 0, 0, err
	}
	c, err := e.read(s.C)
	if err != nil {
		return 0, 0, err
	}
	switch s.Op {
	case Unmodelled:
		return 0, 0, fmt.Errorf("%w: %s (%s)", ErrUnmodelled, s.Text, s.Reason)
	case TrapIf:
		if a.Undef {
			return 0, 0, ErrUndefined
		}
		if a.Lo&1 == 1 {
			return 0, 0, fmt.Errorf("%w: %s", ErrFault, s.Text)
		}
		return FallThrough, 0, nil
	case Load:
		if a.Undef {
			return 0, 0, ErrUndefined
		}
		v, err := e.load(a.Lo, s.Dst.Width)
		if err != nil {
			return 0, 0, err
		}
		return FallThrough, 0, e.write(s.Dst, v)
	case Store:
		if a.Undef {
			return 0, 0, ErrUndefined
		}
		return FallThrough, 0, e.store(a.Lo, s.B.Width, b)
	case Jump, Call, Return:
		if a.Undef {
			return 0, 0, ErrUndefined
		}
		flow := Jumped
		switch s.Op {
		case Call:
			flow = Called
		case Return:
			flow = Returned
		}
		return flow, a.Lo, nil
	case Branch:
		if a.Undef || b.Undef {
			return 0, 0, ErrUndefined
		}
		if a.Lo&1 == 1 {
			return Jumped, b.Lo, nil
		}
		return FallThrough, 0, nil
	}
	if s.Dst.Kind == None {
		return 0, 0, fmt.Errorf("%w: %s has no destination", ErrMalformed, s.Op)
	}
	var v Value
	if s.Lane != 0 {
		v, err = lanes(s, a, b, c)
	} else {
		v, err = eval(s.Op, s.Dst.Width, int(s.Aux), s.A.Width, s.B.Width, a, b, c)
	}
	if err != nil {
		return 0, 0, err
	}
	return FallThrough, 0, e.write(s.Dst, v)
}

func (e *exec) load(addr uint64, w Width) (Value, error) {
	var v Value
	for i := uint64(0); i < uint64(w)/8; i++ {
		by, ok := e.st.Mem[addr+i]
		if !ok {
			return Value{}, fmt.Errorf("%w: %#x", ErrUnmapped, addr+i)
		}
		if e.st.MemUndef[addr+i] {
			v.Undef = true
		}
		v = Value{Lo: v.Lo, Hi: v.Hi, Undef: v.Undef}
		x := Value{Lo: uint64(by)}.shl(uint(8 * i))
		v.Lo |= x.Lo
		v.Hi |= x.Hi
	}
	return v, nil
}

func (e *exec) store(addr uint64, w Width, v Value) error {
	for i := uint64(0); i < uint64(w)/8; i++ {
		if _, ok := e.st.Mem[addr+i]; !ok {
			return fmt.Errorf("%w: %#x", ErrUnmapped, addr+i)
		}
	}
	for i := uint64(0); i < uint64(w)/8; i++ {
		e.st.Mem[addr+i] = byte(v.lshr(uint(8 * i)).Lo)
		if v.Undef {
			e.st.MemUndef[addr+i] = true
		} else {
			delete(e.st.MemUndef, addr+i)
		}
	}
	return nil
}

// lanes applies s.Op element-wise. B is split into lanes when it has the
// width of A, else it is one scalar for every lane (shift counts).
// Comparisons give an all-ones lane for true.
func lanes(s *Stmt, a, b, c Value) (Value, error) {
	w, l := s.Dst.Width, s.Lane
	if l == 0 || w%l != 0 || !ValidWidth(l) || l == 1 {
		return Value{}, fmt.Errorf("%w: lane width %d of %d", ErrMalformed, l, w)
	}
	var out Value
	for i := 0; i < int(w/l); i++ {
		ai := a.lshr(uint(i) * uint(l)).mask(l)
		bi := b
		if s.B.Width == s.A.Width {
			bi = b.lshr(uint(i) * uint(l)).mask(l)
		}
		rw := l
		if isCompare(s.Op) {
			rw = 1
		}
		aux := int(s.Aux)
		r, err := eval(s.Op, rw, aux, l, s.B.Width, ai, bi, c)
		if err != nil {
			return Value{}, err
		}
		if rw == 1 && r.Lo == 1 {
			r = Value{Lo: ^uint64(0), Hi: ^uint64(0), Undef: r.Undef}
		}
		r = r.mask(l).shl(uint(i) * uint(l))
		out.Lo |= r.Lo
		out.Hi |= r.Hi
		out.Undef = out.Undef || r.Undef
	}
	return out, nil
}

func isCompare(op Op) bool {
	switch op {
	case Eq, Ne, Ult, Ule, Slt, Sle, FEq, FLt, FLe, FUnord:
		return true
	}
	return false
}

func boolean(x bool) Value {
	if x {
		return Value{Lo: 1}
	}
	return Value{}
}

// eval computes one scalar operation. w is the destination's width, aw and
// bw the widths of the operands A and B.
func eval(op Op, w Width, aux int, aw, bw Width, a, b, c Value) (Value, error) {
	undef := a.Undef || b.Undef || c.Undef
	if op == Select {
		// Only the chosen value's definedness matters.
		if a.Undef {
			return Value{Undef: true}, nil
		}
		if a.Lo&1 == 1 {
			return b, nil
		}
		return c, nil
	}
	v, err := eval1(op, w, aux, aw, bw, a, b, c)
	v.Undef = v.Undef || undef
	return v, err
}

func eval1(op Op, w Width, aux int, aw, bw Width, a, b, c Value) (Value, error) {
	a.Undef, b.Undef, c.Undef = false, false, false
	switch op {
	case Copy:
		return a, nil
	case Undef:
		return Value{Undef: true}, nil
	case Add:
		return add(a, b), nil
	case Sub:
		return sub(a, b), nil
	case Mul:
		return mul(a, b), nil
	case UDiv, URem, SDiv, SRem:
		signed := op == SDiv || op == SRem
		x, y := a.big(signed, aw), b.big(signed, bw)
		if y.Sign() == 0 {
			return Value{}, fmt.Errorf("%w: division by zero", ErrFault)
		}
		if op == URem || op == SRem {
			return fromBig(x.Rem(x, y)), nil // truncated, as x86 and C
		}
		return fromBig(x.Quo(x, y)), nil
	case And:
		return Value{Lo: a.Lo & b.Lo, Hi: a.Hi & b.Hi}, nil
	case Or:
		return Value{Lo: a.Lo | b.Lo, Hi: a.Hi | b.Hi}, nil
	case Xor:
		return Value{Lo: a.Lo ^ b.Lo, Hi: a.Hi ^ b.Hi}, nil
	case AndNot:
		return Value{Lo: ^a.Lo & b.Lo, Hi: ^a.Hi & b.Hi}, nil
	case Shl:
		return a.shl(count(b)), nil
	case LShr:
		return a.mask(w).lshr(count(b)), nil
	case AShr:
		n := count(b)
		if n >= uint(w) {
			n = uint(w) - 1
		}
		return a.sext(w).lshr(n), nil
	case Rol, Ror:
		n := count(b) % uint(w)
		if op == Ror {
			n = (uint(w) - n) % uint(w)
		}
		x := a.mask(w)
		r := x.shl(n)
		l := x.lshr(uint(w) - n)
		return Value{Lo: r.Lo | l.Lo, Hi: r.Hi | l.Hi}, nil
	case Neg:
		return sub(Value{}, a), nil
	case Not:
		return not(a), nil
	case Eq:
		return boolean(eq(a.mask(aw), b.mask(aw))), nil
	case Ne:
		return boolean(!eq(a.mask(aw), b.mask(aw))), nil
	case Ult:
		return boolean(ult(a.mask(aw), b.mask(aw))), nil
	case Ule:
		return boolean(!ult(b.mask(aw), a.mask(aw))), nil
	case Slt, Sle:
		x, y := a.sext(aw), b.sext(aw)
		// Flip the sign bits to compare as unsigned.
		x.Hi ^= 1 << 63
		y.Hi ^= 1 << 63
		if op == Slt {
			return boolean(ult(x, y)), nil
		}
		return boolean(!ult(y, x)), nil
	case CarryAdd:
		s := add(add(a.mask(aw), b.mask(aw)), c.mask(1))
		return boolean(s.lshr(uint(aw)).Lo&1 == 1), nil
	case BorrowSub:
		return boolean(ult(a.mask(aw), add(b.mask(aw), c.mask(1)))), nil
	case OverflowAdd, OverflowSub:
		x, y := a.big(true, aw), b.big(true, aw)
		if op == OverflowAdd {
			x.Add(x, y)
			x.Add(x, big.NewInt(int64(c.Lo&1)))
		} else {
			x.Sub(x, y)
			x.Sub(x, big.NewInt(int64(c.Lo&1)))
		}
		lim := new(big.Int).Lsh(big.NewInt(1), uint(aw)-1)
		return boolean(x.Cmp(lim) >= 0 || x.Cmp(new(big.Int).Neg(lim)) < 0), nil
	case Parity:
		return boolean(bits.OnesCount8(uint8(a.Lo))%2 == 0), nil
	case ZExt, Trunc:
		return a.mask(aw), nil
	case SExt:
		return a.sext(aw), nil
	case Extract:
		return a.lshr(uint(aux)), nil
	case Insert:
		m := Value{Lo: ^uint64(0), Hi: ^uint64(0)}.mask(bw).shl(uint(aux))
		y := b.mask(bw).shl(uint(aux))
		return Value{Lo: a.Lo&^m.Lo | y.Lo, Hi: a.Hi&^m.Hi | y.Hi}, nil
	case Ctz:
		x := a.mask(aw)
		switch {
		case x.Lo != 0:
			return V64(uint64(bits.TrailingZeros64(x.Lo))), nil
		case x.Hi != 0 && aw > 64:
			return V64(64 + uint64(bits.TrailingZeros64(x.Hi))), nil
		}
		return V64(uint64(aw)), nil
	case Clz:
		x := a.mask(aw)
		var n int
		if x.Hi != 0 {
			n = bits.LeadingZeros64(x.Hi)
		} else {
			n = 64 + bits.LeadingZeros64(x.Lo)
		}
		return V64(uint64(n - (128 - int(aw)))), nil
	case Popcnt:
		x := a.mask(aw)
		return V64(uint64(bits.OnesCount64(x.Lo) + bits.OnesCount64(x.Hi))), nil
	case Bswap:
		var r Value
		for i := 0; i < int(aw)/8; i++ {
			by := a.lshr(uint(8*i)).Lo & 0xff
			r2 := Value{Lo: by}.shl(uint(int(aw) - 8 - 8*i))
			r.Lo |= r2.Lo
			r.Hi |= r2.Hi
		}
		return r, nil
	}
	if op >= FAdd && op <= FConv || op >= FMA && op <= FToUTrunc {
		return evalFloat(op, w, aux, aw, a, b, c)
	}
	return Value{}, fmt.Errorf("%w: operation %s", ErrMalformed, op)
}

// count reads a shift count; counts beyond 255 act as 255 (everything shifted out).
func count(b Value) uint {
	if b.Hi != 0 || b.Lo > 255 {
		return 255
	}
	return uint(b.Lo)
}

func evalFloat(op Op, w Width, fw int, aw Width, a, b, c Value) (Value, error) {
	if fw != 32 && fw != 64 {
		return Value{}, fmt.Errorf("%w: float format %d", ErrMalformed, fw)
	}
	get := func(v Value, f int) float64 {
		if f == 32 {
			return float64(math.Float32frombits(uint32(v.Lo)))
		}
		return math.Float64frombits(v.Lo)
	}
	put := func(x float64, f int) Value {
		if f == 32 {
			return V64(uint64(math.Float32bits(float32(x))))
		}
		return V64(math.Float64bits(x))
	}
	switch op {
	case SToF:
		n := int64(a.sext(aw).Lo)
		if fw == 32 {
			return V64(uint64(math.Float32bits(float32(n)))), nil
		}
		return V64(math.Float64bits(float64(n))), nil
	case FConv: // from the format of a's width to fw
		return put(get(a, int(aw)), fw), nil
	case UToF:
		n := a.mask(aw).Lo
		if fw == 32 {
			return V64(uint64(math.Float32bits(float32(n)))), nil
		}
		return V64(math.Float64bits(float64(n))), nil
	case FToUTrunc:
		x := math.Trunc(get(a, fw))
		if math.IsNaN(x) || x < 0 || x >= math.Ldexp(1, int(w)) {
			return Value{Lo: ^uint64(0), Hi: ^uint64(0)}, nil
		}
		return V64(uint64(x)), nil
	case FMA:
		if fw == 32 {
			// math.FMA rounds to float64, and rounding that to float32
			// again can differ from one rounding (double rounding).
			return put(fma32(get(a, 32), get(b, 32), get(c, 32)), 32), nil
		}
		return put(math.FMA(get(a, 64), get(b, 64), get(c, 64)), 64), nil
	case FTrunc, FFloor, FCeil, FRoundEven, FRoundAway:
		x := get(a, fw)
		switch op {
		case FTrunc:
			x = math.Trunc(x)
		case FFloor:
			x = math.Floor(x)
		case FCeil:
			x = math.Ceil(x)
		case FRoundEven:
			x = math.RoundToEven(x)
		default:
			x = math.Round(x)
		}
		return put(x, fw), nil
	case FMin, FMax, FMinNum, FMaxNum:
		x, y := get(a, fw), get(b, fw)
		xn, yn := math.IsNaN(x), math.IsNaN(y)
		switch {
		case (op == FMinNum || op == FMaxNum) && xn != yn:
			if xn {
				return b.mask(Width(fw)), nil
			}
			return a.mask(Width(fw)), nil
		case xn:
			return quiet(a, fw), nil
		case yn:
			return quiet(b, fw), nil
		}
		less := x < y || x == y && math.Signbit(x) && !math.Signbit(y)
		if (op == FMin || op == FMinNum) == less {
			return a.mask(Width(fw)), nil
		}
		return b.mask(Width(fw)), nil
	}
	x, y := get(a, fw), get(b, fw)
	if fw == 32 {
		// Single precision arithmetic: compute in float32 so that every
		// operation rounds once, as the hardware does.
		xs, ys := float32(x), float32(y)
		switch op {
		case FAdd:
			return put(float64(xs+ys), 32), nil
		case FSub:
			return put(float64(xs-ys), 32), nil
		case FMul:
			return put(float64(xs*ys), 32), nil
		case FDiv:
			return put(float64(xs/ys), 32), nil
		case FSqrt:
			return put(float64(float32(math.Sqrt(float64(xs)))), 32), nil
		}
	}
	switch op {
	case FAdd:
		return put(x+y, 64), nil
	case FSub:
		return put(x-y, 64), nil
	case FMul:
		return put(x*y, 64), nil
	case FDiv:
		return put(x/y, 64), nil
	case FSqrt:
		return put(math.Sqrt(x), 64), nil
	case FEq:
		return boolean(x == y), nil
	case FLt:
		return boolean(x < y), nil
	case FLe:
		return boolean(x <= y), nil
	case FUnord:
		return boolean(math.IsNaN(x) || math.IsNaN(y)), nil
	case FToS, FToSTrunc:
		if op == FToS {
			x = math.RoundToEven(x)
		} else {
			x = math.Trunc(x)
		}
		lim := math.Ldexp(1, int(w)-1)
		if math.IsNaN(x) || x >= lim || x < -lim {
			return V64(1 << (w - 1)), nil
		}
		return V64(uint64(int64(x))), nil
	}
	return Value{}, fmt.Errorf("%w: operation %s", ErrMalformed, op)
}

// quiet returns the NaN a of format fw with its quiet bit set.
func quiet(a Value, fw int) Value {
	a = a.mask(Width(fw))
	if fw == 32 {
		a.Lo |= 1 << 22
	} else {
		a.Lo |= 1 << 51
	}
	return a
}

// fma32 is a*b+c on float32 values rounded once to float32: the exact
// result computed in big.Float, then one rounding.
func fma32(a, b, c float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsNaN(c) || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsInf(c, 0) {
		return float64(float32(a*b + c))
	}
	// 400 bits hold any float32 product plus any float32 exactly.
	p := new(big.Float).SetPrec(400).SetMode(big.ToNearestEven).SetFloat64(a)
	p.Mul(p, new(big.Float).SetPrec(400).SetFloat64(b))
	p.Add(p, new(big.Float).SetPrec(400).SetFloat64(c))
	if p.Sign() == 0 {
		// The sign of an exact zero sum follows IEEE 754's rules.
		return float64(float32(a*b + c))
	}
	f, _ := p.Float32()
	return float64(f)
}
