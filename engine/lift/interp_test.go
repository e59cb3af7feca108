package lift

import (
	"errors"
	"math"
	"testing"
)

// run builds one instruction from statements and steps it on st.
func run(t *testing.T, st *State, temps int, stmts ...Stmt) (Outcome, error) {
	t.Helper()
	in := &Insn{Addr: 0x1000, Len: 4, Mnemonic: "test", Stmts: stmts, Temps: temps}
	return Step(in, st)
}

func tmp(i int32, w Width) Operand { return Operand{Kind: Temp, Width: w, Index: i} }

// TestEvalScalar checks operations against values worked out by hand,
// at the widths where wrapping, sign and 128-bit arithmetic matter.
func TestEvalScalar(t *testing.T) {
	big := Operand{Kind: Const, Width: 128, Lo: 0, Hi: 1} // 2^64
	cases := []struct {
		name    string
		s       Stmt
		lo, hi  uint64
		wantErr error
	}{
		{"add wraps at 8 bits", Stmt{Op: Add, Dst: tmp(0, 8), A: C(8, 0xff), B: C(8, 2)}, 1, 0, nil},
		{"sub borrows at 32", Stmt{Op: Sub, Dst: tmp(0, 32), A: C(32, 0), B: C(32, 1)}, 0xffffffff, 0, nil},
		{"128-bit multiply", Stmt{Op: Mul, Dst: tmp(0, 128), A: C(128, 1<<63), B: C(128, 4)}, 0, 2, nil},
		{"128-bit unsigned divide", Stmt{Op: UDiv, Dst: tmp(0, 128), A: big, B: C(128, 2)}, 1 << 63, 0, nil},
		{"signed divide truncates", Stmt{Op: SDiv, Dst: tmp(0, 32), A: C(32, uint64(0x100000000-7)), B: C(32, 2)}, 0xfffffffd, 0, nil},
		{"signed remainder has the dividend's sign", Stmt{Op: SRem, Dst: tmp(0, 32), A: C(32, uint64(0x100000000-7)), B: C(32, 2)}, 0xffffffff, 0, nil},
		{"divide by zero faults", Stmt{Op: UDiv, Dst: tmp(0, 64), A: C(64, 1), B: C(64, 0)}, 0, 0, ErrFault},
		{"shl past the width gives 0", Stmt{Op: Shl, Dst: tmp(0, 32), A: C(32, 1), B: C(8, 40)}, 0, 0, nil},
		{"ashr past the width fills the sign", Stmt{Op: AShr, Dst: tmp(0, 16), A: C(16, 0x8000), B: C(8, 99)}, 0xffff, 0, nil},
		{"rol modulo width", Stmt{Op: Rol, Dst: tmp(0, 8), A: C(8, 0x81), B: C(8, 9)}, 0x03, 0, nil},
		{"ror", Stmt{Op: Ror, Dst: tmp(0, 64), A: C(64, 1), B: C(8, 1)}, 1 << 63, 0, nil},
		{"slt is signed", Stmt{Op: Slt, Dst: tmp(0, 1), A: C(8, 0x80), B: C(8, 1)}, 1, 0, nil},
		{"ult is unsigned", Stmt{Op: Ult, Dst: tmp(0, 1), A: C(8, 0x80), B: C(8, 1)}, 0, 0, nil},
		{"carry with carry in", Stmt{Op: CarryAdd, Dst: tmp(0, 1), A: C(8, 0xff), B: C(8, 0), C: C(1, 1)}, 1, 0, nil},
		{"borrow with borrow in", Stmt{Op: BorrowSub, Dst: tmp(0, 1), A: C(8, 5), B: C(8, 5), C: C(1, 1)}, 1, 0, nil},
		{"overflow add", Stmt{Op: OverflowAdd, Dst: tmp(0, 1), A: C(32, 0x7fffffff), B: C(32, 1)}, 1, 0, nil},
		{"overflow sub", Stmt{Op: OverflowSub, Dst: tmp(0, 1), A: C(64, 1<<63), B: C(64, 1)}, 1, 0, nil},
		{"parity of the low byte", Stmt{Op: Parity, Dst: tmp(0, 1), A: C(32, 0x103)}, 1, 0, nil},
		{"sext", Stmt{Op: SExt, Dst: tmp(0, 64), A: C(8, 0x80)}, 0xffffffffffffff80, 0, nil},
		{"sext to 128", Stmt{Op: SExt, Dst: tmp(0, 128), A: C(64, 1<<63)}, 1 << 63, ^uint64(0), nil},
		{"extract across the halves", Stmt{Op: Extract, Dst: tmp(0, 16), A: Operand{Kind: Const, Width: 128, Lo: 0xab << 56, Hi: 0xcd}, Aux: 56}, 0xcdab, 0, nil},
		{"insert", Stmt{Op: Insert, Dst: tmp(0, 64), A: C(64, 0x1111111111111111), B: C(8, 0xff), Aux: 8}, 0x111111111111ff11, 0, nil},
		{"ctz of zero is the width", Stmt{Op: Ctz, Dst: tmp(0, 32), A: C(32, 0)}, 32, 0, nil},
		{"clz", Stmt{Op: Clz, Dst: tmp(0, 16), A: C(16, 1)}, 15, 0, nil},
		{"popcnt 128", Stmt{Op: Popcnt, Dst: tmp(0, 8), A: Operand{Kind: Const, Width: 128, Lo: 3, Hi: 1}}, 3, 0, nil},
		{"bswap 32", Stmt{Op: Bswap, Dst: tmp(0, 32), A: C(32, 0x11223344)}, 0x44332211, 0, nil},
		{"lane add wraps per lane", Stmt{Op: Add, Lane: 32, Dst: tmp(0, 128), A: Operand{Kind: Const, Width: 128, Lo: 0xffffffff, Hi: 1}, B: Operand{Kind: Const, Width: 128, Lo: 1, Hi: 1}}, 0, 2, nil},
		{"lane compare gives all ones", Stmt{Op: Eq, Lane: 64, Dst: tmp(0, 128), A: Operand{Kind: Const, Width: 128, Lo: 5, Hi: 6}, B: Operand{Kind: Const, Width: 128, Lo: 5, Hi: 7}}, ^uint64(0), 0, nil},
		{"lane shift by a scalar", Stmt{Op: LShr, Lane: 16, Dst: tmp(0, 128), A: Operand{Kind: Const, Width: 128, Lo: 0x8000_0100}, B: C(64, 8)}, 0x0080_0001, 0, nil},
		{"float add", Stmt{Op: FAdd, Aux: 64, Dst: tmp(0, 64), A: C(64, math.Float64bits(1.5)), B: C(64, math.Float64bits(2.25))}, math.Float64bits(3.75), 0, nil},
		{"float32 rounds once", Stmt{Op: FDiv, Aux: 32, Dst: tmp(0, 32), A: C(32, uint64(math.Float32bits(1))), B: C(32, uint64(math.Float32bits(3)))}, uint64(math.Float32bits(float32(1) / 3)), 0, nil},
		{"ftos rounds to even", Stmt{Op: FToS, Aux: 64, Dst: tmp(0, 32), A: C(64, math.Float64bits(2.5))}, 2, 0, nil},
		{"ftos out of range is indefinite", Stmt{Op: FToSTrunc, Aux: 64, Dst: tmp(0, 32), A: C(64, math.Float64bits(3e9))}, 0x80000000, 0, nil},
		{"ftos of NaN is indefinite", Stmt{Op: FToSTrunc, Aux: 32, Dst: tmp(0, 64), A: C(32, 0x7fc00000)}, 1 << 63, 0, nil},
		{"stof of a negative", Stmt{Op: SToF, Aux: 64, Dst: tmp(0, 64), A: C(32, 0xfffffffe)}, math.Float64bits(-2), 0, nil},
		{"fconv narrows", Stmt{Op: FConv, Aux: 32, Dst: tmp(0, 32), A: C(64, math.Float64bits(0.5))}, uint64(math.Float32bits(0.5)), 0, nil},
		{"unordered", Stmt{Op: FUnord, Aux: 64, Dst: tmp(0, 1), A: C(64, math.Float64bits(math.NaN())), B: C(64, 0)}, 1, 0, nil},
	}
	for _, c := range cases {
		st := NewState()
		_, err := run(t, st, 1, c.s, Stmt{Op: Copy, Dst: R("out", c.s.Dst.Width), A: c.s.Dst})
		if c.wantErr != nil {
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%s: err %v, want %v", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if v := st.Regs["out"]; v.Lo != c.lo || v.Hi != c.hi || v.Undef {
			t.Errorf("%s (%s): got %#x_%#x undef=%v, want %#x_%#x", c.name, c.s, v.Hi, v.Lo, v.Undef, c.hi, c.lo)
		}
	}
}

// TestUndefPropagates: a value computed from Undef is undefined, and a
// Select that does not choose it is not.
func TestUndefPropagates(t *testing.T) {
	st := NewState()
	_, err := run(t, st, 2,
		Stmt{Op: Undef, Dst: tmp(0, 1)},
		Stmt{Op: Xor, Dst: R("x", 1), A: tmp(0, 1), B: C(1, 1)},
		Stmt{Op: Select, Dst: R("y", 8), A: C(1, 0), B: tmp(0, 1), C: C(8, 7)},
		Stmt{Op: Select, Dst: R("z", 8), A: C(1, 1), B: tmp(0, 1), C: C(8, 7)},
	)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Regs["x"].Undef || st.Regs["y"].Undef || st.Regs["y"].Lo != 7 || !st.Regs["z"].Undef {
		t.Errorf("x=%+v y=%+v z=%+v", st.Regs["x"], st.Regs["y"], st.Regs["z"])
	}
	// An undefined address is an error, not a guess.
	if _, err := run(t, NewState(), 1, Stmt{Op: Undef, Dst: tmp(0, 64)}, Stmt{Op: Load, Dst: R("v", 8), A: tmp(0, 64)}); !errors.Is(err, ErrUndefined) {
		t.Errorf("load from an undefined address: %v", err)
	}
}

// TestMemoryAndControl: little-endian loads and stores over sparse memory,
// unmapped bytes, missing registers, unmodelled instructions, traps and the
// control outcomes.
func TestMemoryAndControl(t *testing.T) {
	st := NewState()
	for a := uint64(0x100); a < 0x110; a++ {
		st.Mem[a] = 0
	}
	st.Regs["p"] = V64(0x104)
	if _, err := run(t, st, 1,
		Stmt{Op: Store, A: R("p", 64), B: C(32, 0x11223344)},
		Stmt{Op: Load, Dst: tmp(0, 16), A: C(64, 0x105)},
		Stmt{Op: Copy, Dst: R("v", 16), A: tmp(0, 16)},
	); err != nil {
		t.Fatal(err)
	}
	if st.Mem[0x104] != 0x44 || st.Regs["v"].Lo != 0x2233 {
		t.Errorf("mem[0x104]=%#x v=%#x", st.Mem[0x104], st.Regs["v"].Lo)
	}
	if _, err := run(t, st, 1, Stmt{Op: Load, Dst: tmp(0, 64), A: C(64, 0x10c)}); !errors.Is(err, ErrUnmapped) {
		t.Errorf("load across the end of memory: %v", err)
	}
	if _, err := run(t, st, 0, Stmt{Op: Store, A: C(64, 0x10f), B: C(16, 1)}); !errors.Is(err, ErrUnmapped) || st.Mem[0x10f] != 0 {
		t.Errorf("store across the end of memory: %v (and it must not write half)", err)
	}
	if _, err := run(t, st, 0, Stmt{Op: Copy, Dst: R("x", 64), A: R("nowhere", 64)}); !errors.Is(err, ErrNoRegister) {
		t.Errorf("read of an unset register: %v", err)
	}
	if _, err := run(t, st, 0, Stmt{Op: Unmodelled, Text: "cpuid", Reason: "system instruction"}); !errors.Is(err, ErrUnmodelled) {
		t.Errorf("unmodelled: %v", err)
	}
	if _, err := run(t, st, 0, Stmt{Op: TrapIf, A: C(1, 1), Text: "divide error"}); !errors.Is(err, ErrFault) {
		t.Errorf("trap: %v", err)
	}
	if _, err := run(t, st, 0, Stmt{Op: Add, A: C(8, 1), B: C(8, 1)}); !errors.Is(err, ErrMalformed) {
		t.Errorf("no destination: %v", err)
	}
	for _, c := range []struct {
		s    Stmt
		want Outcome
	}{
		{Stmt{Op: Branch, A: C(1, 0), B: C(64, 0x2000)}, Outcome{FallThrough, 0x1004}},
		{Stmt{Op: Branch, A: C(1, 1), B: C(64, 0x2000)}, Outcome{Jumped, 0x2000}},
		{Stmt{Op: Jump, A: C(64, 0x3000)}, Outcome{Jumped, 0x3000}},
		{Stmt{Op: Call, A: C(64, 0x4000)}, Outcome{Called, 0x4000}},
		{Stmt{Op: Return, A: R("p", 64)}, Outcome{Returned, 0x104}},
	} {
		out, err := run(t, st, 0, c.s)
		if err != nil || out != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.s, out, err, c.want)
		}
	}
}

// TestPrint pins the printed form the golden tests and reviewers read.
func TestPrint(t *testing.T) {
	b := NewBuilder(0x401000, 3, "add")
	x := b.Extract(R("rax", 64), 8, 8)
	y := b.Lanes(Add, 32, R("xmm0", 128), R("xmm1", 128))
	b.Emit(Stmt{Op: Store, A: R("rsp", 64), B: x})
	b.Set(R("xmm0", 128), Copy, y, Operand{}, Operand{})
	b.Emit(Stmt{Op: FAdd, Aux: 32, Dst: b.Temp(32), A: C(32, 1), B: C(32, 2)})
	b.Emit(Stmt{Op: TrapIf, A: C(1, 1), Text: "divide error"})
	want := `0x401000/3 add
  t0:8 = extract@8 rax:64
  t1:128 = add.v32 xmm0:128, xmm1:128
  store rsp:64, t0:8
  xmm0:128 = copy t1:128
  t2:32 = fadd.f32 0x1:32, 0x2:32
  trapif 0x1:1 "divide error"
`
	if got := b.In.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	b.Unmodelled("cpuid", "system instruction")
	if got := b.In.String(); got != "0x401000/3 add\n  unmodelled \"cpuid\" (system instruction)\n" || b.In.Temps != 0 {
		t.Errorf("unmodelled replaces everything: got %q", got)
	}
}

// TestValidate rejects the typing mistakes a lifter can make.
func TestValidate(t *testing.T) {
	good := &Insn{Temps: 1, Stmts: []Stmt{
		{Op: Add, Dst: tmp(0, 32), A: C(32, 1), B: C(32, 2)},
		{Op: ZExt, Dst: R("rax", 64), A: tmp(0, 32)},
	}}
	if err := Validate(good); err != nil {
		t.Errorf("valid instruction: %v", err)
	}
	for name, s := range map[string][]Stmt{
		"mixed widths":       {{Op: Add, Dst: tmp(0, 32), A: C(32, 1), B: C(64, 2)}},
		"wide condition":     {{Op: Select, Dst: tmp(0, 8), A: C(8, 1), B: C(8, 1), C: C(8, 2)}},
		"extract past end":   {{Op: Extract, Dst: tmp(0, 16), A: C(32, 1), Aux: 24}},
		"unwritten temp":     {{Op: Copy, Dst: R("rax", 64), A: tmp(0, 64)}},
		"compare into 8":     {{Op: Eq, Dst: tmp(0, 8), A: C(8, 1), B: C(8, 1)}},
		"float width":        {{Op: FAdd, Aux: 32, Dst: tmp(0, 64), A: C(64, 1), B: C(64, 1)}},
		"narrowing zext":     {{Op: ZExt, Dst: tmp(0, 8), A: C(32, 1)}},
		"store of no value":  {{Op: Store, A: C(64, 0)}},
		"unmodelled no name": {{Op: Unmodelled}},
	} {
		if err := Validate(&Insn{Temps: 1, Stmts: s}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// TestEvalFloatAdditions checks the float operations added for AArch64
// (fused multiply-add, IEEE 754-2019 minimum/maximum, rounding to integral,
// unsigned conversions) against values worked out by hand.
func TestEvalFloatAdditions(t *testing.T) {
	f64 := func(x float64) Operand { return C(64, math.Float64bits(x)) }
	f32 := func(x float32) Operand { return C(32, uint64(math.Float32bits(x))) }
	nan := math.NaN()
	cases := []struct {
		name string
		s    Stmt
		want uint64
	}{
		// 1+2^-52 squared is 1+2^-51+2^-104: unfused, the 2^-104 is lost.
		{"fma rounds once", Stmt{Op: FMA, Aux: 64, Dst: tmp(0, 64), A: f64(1 + 0x1p-52), B: f64(1 + 0x1p-52), C: f64(-1 - 0x1p-51)}, math.Float64bits(0x1p-104)},
		{"fma f32 rounds once", Stmt{Op: FMA, Aux: 32, Dst: tmp(0, 32), A: f32(1 + 0x1p-23), B: f32(1 + 0x1p-23), C: f32(-1 - 0x1p-22)}, uint64(math.Float32bits(0x1p-46))},
		{"fmin of -0 and +0 is -0", Stmt{Op: FMin, Aux: 64, Dst: tmp(0, 64), A: f64(0), B: f64(math.Copysign(0, -1))}, 1 << 63},
		{"fmax of -0 and +0 is +0", Stmt{Op: FMax, Aux: 64, Dst: tmp(0, 64), A: f64(math.Copysign(0, -1)), B: f64(0)}, 0},
		{"fmin propagates a NaN", Stmt{Op: FMin, Aux: 32, Dst: tmp(0, 32), A: f32(1), B: C(32, 0x7f800001)}, 0x7fc00001},
		{"fminnum prefers the number", Stmt{Op: FMinNum, Aux: 64, Dst: tmp(0, 64), A: f64(nan), B: f64(3)}, math.Float64bits(3)},
		{"fmaxnum", Stmt{Op: FMaxNum, Aux: 64, Dst: tmp(0, 64), A: f64(-2), B: f64(5)}, math.Float64bits(5)},
		{"ftrunc", Stmt{Op: FTrunc, Aux: 64, Dst: tmp(0, 64), A: f64(-2.7)}, math.Float64bits(-2)},
		{"ffloor", Stmt{Op: FFloor, Aux: 32, Dst: tmp(0, 32), A: f32(-2.5)}, uint64(math.Float32bits(-3))},
		{"fceil", Stmt{Op: FCeil, Aux: 64, Dst: tmp(0, 64), A: f64(2.1)}, math.Float64bits(3)},
		{"froundeven ties to even", Stmt{Op: FRoundEven, Aux: 64, Dst: tmp(0, 64), A: f64(2.5)}, math.Float64bits(2)},
		{"froundaway ties away", Stmt{Op: FRoundAway, Aux: 64, Dst: tmp(0, 64), A: f64(-2.5)}, math.Float64bits(-3)},
		{"utof of 2^64-1", Stmt{Op: UToF, Aux: 64, Dst: tmp(0, 64), A: C(64, ^uint64(0))}, math.Float64bits(0x1p64)},
		{"utof from 32 bits", Stmt{Op: UToF, Aux: 32, Dst: tmp(0, 32), A: C(32, 0x80000000)}, uint64(math.Float32bits(0x1p31))},
		{"ftou truncates", Stmt{Op: FToUTrunc, Aux: 64, Dst: tmp(0, 64), A: f64(1e19)}, 10000000000000000000},
		{"ftou out of range", Stmt{Op: FToUTrunc, Aux: 64, Dst: tmp(0, 32), A: f64(-1)}, 0xffffffff},
		{"ftou of NaN", Stmt{Op: FToUTrunc, Aux: 32, Dst: tmp(0, 32), A: C(32, 0x7fc00000)}, 0xffffffff},
	}
	for _, c := range cases {
		in := &Insn{Addr: 0x1000, Len: 4, Mnemonic: "test", Stmts: []Stmt{c.s}, Temps: 1}
		if err := Validate(in); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		st := NewState()
		e := exec{st: st, temps: make([]Value, 1)}
		if _, _, err := e.stmt(&in.Stmts[0]); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := e.temps[0]; got.Lo != c.want || got.Hi != 0 {
			t.Errorf("%s: got %#x, want %#x", c.name, got.Lo, c.want)
		}
	}
	bad := &Insn{Stmts: []Stmt{{Op: FMA, Aux: 64, Dst: tmp(0, 64), A: C(64, 0), B: C(64, 0)}}, Temps: 1}
	if err := Validate(bad); !errors.Is(err, ErrInvalid) {
		t.Errorf("fma without an addend validated: %v", err)
	}
}
