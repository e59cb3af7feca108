package decompile

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/testkit"
)

// opCase is one IR operation at given widths.
type opCase struct {
	op        lift.Op
	w         lift.Width   // destination
	ws        []lift.Width // operands
	aux       int32
	lane      lift.Width
	float     int // operands are floats of this format (random bit patterns otherwise)
	nonneg    bool
	countOpnd int // index of a shift/rotate count operand (-1: none)
}

func opCases() []opCase {
	var cs []opCase
	add := func(c opCase) {
		if c.countOpnd == 0 {
			c.countOpnd = -1
		}
		cs = append(cs, c)
	}
	for _, w := range []lift.Width{8, 16, 32, 64} {
		for _, op := range []lift.Op{lift.Add, lift.Sub, lift.Mul, lift.UDiv, lift.SDiv, lift.URem, lift.SRem, lift.And, lift.Or, lift.Xor, lift.AndNot} {
			add(opCase{op: op, w: w, ws: []lift.Width{w, w}})
		}
		for _, op := range []lift.Op{lift.Shl, lift.LShr, lift.AShr, lift.Rol, lift.Ror} {
			add(opCase{op: op, w: w, ws: []lift.Width{w, 8}, countOpnd: 1})
		}
		for _, op := range []lift.Op{lift.Eq, lift.Ne, lift.Ult, lift.Ule, lift.Slt, lift.Sle, lift.CarryAdd, lift.BorrowSub, lift.OverflowAdd, lift.OverflowSub} {
			add(opCase{op: op, w: 1, ws: []lift.Width{w, w}})
		}
		for _, op := range []lift.Op{lift.CarryAdd, lift.BorrowSub, lift.OverflowAdd, lift.OverflowSub} {
			add(opCase{op: op, w: 1, ws: []lift.Width{w, w, 1}})
		}
		for _, op := range []lift.Op{lift.Neg, lift.Not, lift.Popcnt, lift.Ctz, lift.Clz} {
			add(opCase{op: op, w: w, ws: []lift.Width{w}})
		}
		add(opCase{op: lift.Parity, w: 1, ws: []lift.Width{w}})
	}
	for _, w := range []lift.Width{16, 32, 64} {
		add(opCase{op: lift.Bswap, w: w, ws: []lift.Width{w}})
	}
	for _, op := range []lift.Op{lift.Add, lift.Sub, lift.Mul, lift.And, lift.Xor} {
		add(opCase{op: op, w: 128, ws: []lift.Width{128, 128}})
	}
	add(opCase{op: lift.Shl, w: 128, ws: []lift.Width{128, 8}, countOpnd: 1})
	add(opCase{op: lift.LShr, w: 128, ws: []lift.Width{128, 8}, countOpnd: 1})
	for _, c := range [][2]lift.Width{{8, 32}, {32, 64}, {1, 8}, {64, 128}, {1, 64}, {16, 64}} {
		add(opCase{op: lift.ZExt, w: c[1], ws: []lift.Width{c[0]}})
		add(opCase{op: lift.SExt, w: c[1], ws: []lift.Width{c[0]}})
	}
	add(opCase{op: lift.Trunc, w: 8, ws: []lift.Width{64}})
	add(opCase{op: lift.Trunc, w: 1, ws: []lift.Width{64}})
	add(opCase{op: lift.Extract, w: 8, ws: []lift.Width{64}, aux: 8})
	add(opCase{op: lift.Extract, w: 64, ws: []lift.Width{128}, aux: 64})
	add(opCase{op: lift.Extract, w: 1, ws: []lift.Width{32}, aux: 3})
	add(opCase{op: lift.Insert, w: 64, ws: []lift.Width{64, 8}, aux: 8})
	add(opCase{op: lift.Insert, w: 128, ws: []lift.Width{128, 64}, aux: 64})
	add(opCase{op: lift.Insert, w: 128, ws: []lift.Width{128, 64}, aux: 0})
	add(opCase{op: lift.Insert, w: 128, ws: []lift.Width{128, 32}, aux: 32})
	add(opCase{op: lift.Insert, w: 32, ws: []lift.Width{32, 1}, aux: 5})
	add(opCase{op: lift.Select, w: 32, ws: []lift.Width{1, 32, 32}})
	for _, fw := range []int{32, 64} {
		w := lift.Width(fw)
		for _, op := range []lift.Op{lift.FAdd, lift.FSub, lift.FMul, lift.FDiv, lift.FMin, lift.FMax, lift.FMinNum, lift.FMaxNum} {
			add(opCase{op: op, w: w, ws: []lift.Width{w, w}, aux: int32(fw), float: fw})
		}
		for _, op := range []lift.Op{lift.FEq, lift.FLt, lift.FLe, lift.FUnord} {
			add(opCase{op: op, w: 1, ws: []lift.Width{w, w}, aux: int32(fw), float: fw})
		}
		for _, op := range []lift.Op{lift.FSqrt, lift.FTrunc, lift.FFloor, lift.FCeil, lift.FRoundEven, lift.FRoundAway} {
			add(opCase{op: op, w: w, ws: []lift.Width{w}, aux: int32(fw), float: fw})
		}
		add(opCase{op: lift.FMA, w: w, ws: []lift.Width{w, w, w}, aux: int32(fw), float: fw})
		for _, iw := range []lift.Width{32, 64} {
			add(opCase{op: lift.FToS, w: iw, ws: []lift.Width{w}, aux: int32(fw), float: fw})
			add(opCase{op: lift.FToSTrunc, w: iw, ws: []lift.Width{w}, aux: int32(fw), float: fw})
			add(opCase{op: lift.FToUTrunc, w: iw, ws: []lift.Width{w}, aux: int32(fw), float: fw})
			add(opCase{op: lift.SToF, w: w, ws: []lift.Width{iw}, aux: int32(fw)})
			add(opCase{op: lift.UToF, w: w, ws: []lift.Width{iw}, aux: int32(fw)})
		}
	}
	add(opCase{op: lift.FConv, w: 32, ws: []lift.Width{64}, aux: 32, float: 64})
	add(opCase{op: lift.FConv, w: 64, ws: []lift.Width{32}, aux: 64, float: 32})
	for _, c := range []struct {
		op   lift.Op
		lane lift.Width
	}{{lift.Add, 32}, {lift.Sub, 8}, {lift.Mul, 16}, {lift.Mul, 64}, {lift.Eq, 8}, {lift.Slt, 16}, {lift.Ult, 8}, {lift.AndNot, 64}} {
		add(opCase{op: c.op, w: 128, ws: []lift.Width{128, 128}, lane: c.lane})
	}
	add(opCase{op: lift.Shl, w: 128, ws: []lift.Width{128, 64}, lane: 16, countOpnd: 1})
	add(opCase{op: lift.AShr, w: 128, ws: []lift.Width{128, 64}, lane: 32, countOpnd: 1})
	add(opCase{op: lift.FAdd, w: 128, ws: []lift.Width{128, 128}, lane: 32, aux: 32, float: 32})
	add(opCase{op: lift.FMul, w: 128, ws: []lift.Width{128, 128}, lane: 64, aux: 64, float: 64})
	return cs
}

// randValue is a random operand: edge values, small numbers, floats of
// format fw (including NaN, infinities, zeros) or any bits.
func randValue(rng *rand.Rand, w lift.Width, fw int, count bool) lift.Value {
	m := func(v uint64) lift.Value { return lift.Value{Lo: v & maskOf(min(w, 64)), Hi: 0} }
	if count {
		return m(uint64(rng.Intn(int(min(w, 64)) + 4)))
	}
	if fw != 0 && w == lift.Width(fw) {
		specials := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2.5, -2.5, 3.5, 1e10, -1e10, 3e9, -3e9, 1e19, math.Inf(1), math.Inf(-1), math.NaN(), 1e-310}
		f := specials[rng.Intn(len(specials))]
		if rng.Intn(2) == 0 {
			f = (rng.Float64() - 0.5) * math.Pow(2, float64(rng.Intn(80)-20))
		}
		if fw == 32 {
			return m(uint64(math.Float32bits(float32(f))))
		}
		return m(math.Float64bits(f))
	}
	if fw != 0 && w == 128 { // packed floats: lanes of random bits
		return lift.Value{Lo: rng.Uint64(), Hi: rng.Uint64()}
	}
	v := lift.Value{Lo: rng.Uint64(), Hi: rng.Uint64()}
	switch rng.Intn(6) {
	case 0:
		v = lift.Value{Lo: uint64(rng.Intn(5))}
	case 1:
		v = lift.Value{Lo: ^uint64(0), Hi: ^uint64(0)}
	case 2:
		v = lift.Value{Lo: 1 << (uint(rng.Intn(int(min(w, 64)))))}
	}
	if w < 128 {
		v.Hi = 0
		v.Lo &= maskOf(w)
	}
	return v
}

func cConst(w lift.Width, v lift.Value) string {
	if w == 128 {
		return fmt.Sprintf("((__rea_u128)%#xull << 64 | %#xull)", v.Hi, v.Lo)
	}
	return fmt.Sprintf("(%s)%#xull", uT(w), v.Lo)
}

// TestOpsAgreeWithInterpreter compiles the C text of every IR operation
// the emitter renders (scalar, lane-wise, flags, conversions, floats) and
// runs it on random operands: each result equals lift's interpreter's
// (NaNs compare as NaNs; undefined results and faults are left out).
func TestOpsAgreeWithInterpreter(t *testing.T) {
	cc := testkit.Need(t, "gcc")
	rng := rand.New(rand.NewSource(2026))
	h := newHelperSet()
	var body strings.Builder
	type check struct {
		name string
		c    opCase
		want lift.Value
	}
	var checks []check
	for k, c := range opCases() {
		var args []opnd
		var params []string
		for i, w := range c.ws {
			args = append(args, opnd{c: atom(fmt.Sprintf("x%d", i)), w: w})
			params = append(params, fmt.Sprintf("%s x%d", uT(w), i))
		}
		var e cx
		var ok bool
		if c.lane != 0 {
			e, ok = h.lanes(c.op, c.w, c.lane, c.aux, args)
		} else {
			e, ok = h.scalar(c.op, c.w, c.aux, args)
		}
		if !ok {
			t.Errorf("%s w%d %v: not rendered", c.op, c.w, c.ws)
			continue
		}
		fmt.Fprintf(&body, "static __attribute__((noinline)) %s f%d(%s) { return %s; }\n", uT(c.w), k, strings.Join(params, ", "), e.s)
		for n := 0; n < 12; n++ {
			var vals []lift.Value
			st := lift.NewState()
			stmt := lift.Stmt{Op: c.op, Aux: c.aux, Lane: c.lane, Dst: lift.R("d", c.w)}
			ops := []*lift.Operand{&stmt.A, &stmt.B, &stmt.C}
			for i, w := range c.ws {
				v := randValue(rng, w, c.float, i == c.countOpnd)
				if (c.op == lift.SDiv || c.op == lift.SRem) && i == 1 && v.Lo == maskOf(w) {
					v.Lo = 3 // INT_MIN / -1 traps in C where the IR faults
				}
				vals = append(vals, v)
				name := fmt.Sprintf("x%d", i)
				st.Regs[name] = v
				*ops[i] = lift.R(name, w)
			}
			in := &lift.Insn{Addr: 0x1000, Len: 1, Stmts: []lift.Stmt{stmt}}
			if _, err := lift.Step(in, st); err != nil {
				continue // faults (division by zero) are not compared
			}
			got := st.Regs["d"]
			if got.Undef {
				continue
			}
			var cargs []string
			for i, w := range c.ws {
				cargs = append(cargs, cConst(w, vals[i]))
			}
			checks = append(checks, check{name: fmt.Sprintf("%s/w%d/%v/lane%d %v", c.op, c.w, c.ws, c.lane, vals), c: c, want: got})
			fmt.Fprintf(&body, "static void c%d(void) { __rea_u128 r = f%d(%s); printf(\"%%016llx%%016llx\\n\", (unsigned long long)(r >> 64), (unsigned long long)r); }\n", len(checks)-1, k, strings.Join(cargs, ", "))
		}
	}
	var src strings.Builder
	src.WriteString("#include <stdint.h>\n#include <stdbool.h>\n#include <stdio.h>\ntypedef unsigned __int128 __rea_u128;\ntypedef __int128 __rea_s128;\n")
	src.WriteString(h.text())
	src.WriteString(body.String())
	src.WriteString("int main(void) {\n")
	for i := range checks {
		fmt.Fprintf(&src, "\tc%d();\n", i)
	}
	src.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ops.c"), []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(cc, "-std=gnu11", "-O1", "-o", filepath.Join(dir, "ops"), filepath.Join(dir, "ops.c"), "-lm").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, firstLines(string(b), 40))
	}
	out, err := exec.Command(filepath.Join(dir, "ops")).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(checks) {
		t.Fatalf("%d results for %d checks", len(lines), len(checks))
	}
	bad := 0
	for i, ch := range checks {
		var hi, lo uint64
		fmt.Sscanf(lines[i][:16], "%x", &hi)
		fmt.Sscanf(lines[i][16:], "%x", &lo)
		want := ch.want
		if ch.c.w < 128 {
			want.Hi = 0
			want.Lo &= maskOf(ch.c.w)
		}
		if hi == want.Hi && lo == want.Lo || bothNaN(ch.c, hi, lo, want) {
			continue
		}
		bad++
		if bad <= 20 {
			t.Errorf("%s: C %016x%016x, interpreter %016x%016x", ch.name, hi, lo, want.Hi, want.Lo)
		}
	}
	t.Logf("%d operation cases, %d checks, %d disagree", len(opCases()), len(checks), bad)
}

func bothNaN(c opCase, hi, lo uint64, want lift.Value) bool {
	if c.lane != 0 || c.float == 0 || c.w != lift.Width(c.aux) {
		return false
	}
	if c.w == 32 {
		return math.IsNaN(float64(math.Float32frombits(uint32(lo)))) && math.IsNaN(float64(math.Float32frombits(uint32(want.Lo))))
	}
	return math.IsNaN(math.Float64frombits(lo)) && math.IsNaN(math.Float64frombits(want.Lo))
}

func firstLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	return strings.Join(ls[:min(n, len(ls))], "\n")
}

// TestSignedHalving checks the shifts simplify reads as a signed
// division: the forms matched, one that is not, and that the forms
// compute C's truncating division for every width and shift.
func TestSignedHalving(t *testing.T) {
	const w = 32
	c := func(n uint64) *value { return &value{Kind: dataflow.ConstValue, Width: w, Lo: n} }
	op := func(o lift.Op, args ...*value) *value {
		return &value{Kind: dataflow.OpValue, Op: o, Width: w, Args: args}
	}
	x := &value{Kind: dataflow.Entry, Width: w, Loc: "edi"}
	for _, tc := range []struct {
		name string
		v    *value
		k    uint64
		ok   bool
	}{
		{"x / 2", op(lift.AShr, op(lift.Add, op(lift.LShr, x, c(31)), x), c(1)), 1, true},
		{"x / 8", op(lift.AShr, op(lift.Add, x, op(lift.LShr, op(lift.AShr, x, c(31)), c(29))), c(3)), 3, true},
		{"a bias of another value", op(lift.AShr, op(lift.Add, op(lift.LShr, c(7), c(31)), x), c(1)), 0, false},
		{"a bias for another shift", op(lift.AShr, op(lift.Add, x, op(lift.LShr, op(lift.AShr, x, c(31)), c(30))), c(3)), 0, false},
		{"a logical shift", op(lift.LShr, op(lift.Add, op(lift.LShr, x, c(31)), x), c(1)), 0, false},
	} {
		got, k, ok := signedHalving(tc.v)
		if ok != tc.ok || ok && (got != x || k != tc.k) {
			t.Errorf("%s: %v %d %v, want %v %d", tc.name, got, k, ok, tc.ok, tc.k)
		}
	}
	r := rand.New(rand.NewSource(1))
	for range 10000 {
		v := int64(r.Uint64())
		for _, bits := range []uint{8, 16, 32, 64} {
			xs := v << (64 - bits) >> (64 - bits) // v as a signed integer of bits
			for k := uint(1); k < bits-1; k++ {
				bias := int64(uint64(xs>>(bits-1)) & (1<<k - 1))
				if (xs+bias)>>k != xs/(1<<k) {
					t.Fatalf("(%d + bias) >> %d = %d, %d / 2^%d = %d", xs, k, (xs+bias)>>k, xs, k, xs/(1<<k))
				}
			}
		}
	}
}
