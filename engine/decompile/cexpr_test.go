package decompile

import "testing"

// TestCastRules checks the conversions the printer leaves out: each one
// must keep the value C computes.
func TestCastRules(t *testing.T) {
	a1 := cx{s: "a1", p: pAtom, ty: "int64_t"}
	d := cx{s: "d", p: pAtom} // a type the printer does not know (a double)
	v := cx{s: "v1", p: pAtom, ty: "uint32_t"}
	cmp := bin(v, "<", atom("9"), pRel)
	ptr := cx{s: "a1", p: pAtom, ty: bytePtr, ptr: 64}
	for _, c := range []struct {
		name string
		got  cx
		want string
	}{
		{"narrower of wider", cast("int32_t", cast("uint32_t", a1)), "(int32_t)a1"},
		{"wider of narrower keeps both", cast("uint64_t", cast("int32_t", a1)), "(uint64_t)(int32_t)a1"},
		{"same type", cast("uint32_t", v), "v1"},
		{"unknown inner kept", cast("uint32_t", cast("uint64_t", d)), "(uint32_t)(uint64_t)d"},
		{"bool is not a truncation", cast("bool", cast("uint32_t", a1)), "(bool)(uint32_t)a1"},
		{"zero extension of a truth", cast("uint64_t", cast("uint8_t", cmp)), "(uint64_t)(v1 < 9)"},
		{"sum of uint32_t is uint32_t", cast("uint32_t", bin(v, "+", atom("4"), pAdd)), "(uint32_t)(v1 + 4)"},
		{"sum with a literal", cast("uint32_t", bin(v, "+", num(32, 4, 0), pAdd)), "v1 + 4"},
		{"assignment converts", assigned("uint32_t", cast("uint64_t", bin(v, "+", num(32, 4, 0), pAdd))), "v1 + 4"},
		{"assignment keeps a widening", assigned("uint64_t", cast("uint32_t", a1)), "(uint32_t)a1"},
		{"usual conversion of a signed int to uint64_t", bin(cx{s: "v2", p: pAtom, ty: "uint64_t"}, "+", cast("uint64_t", cx{s: "x", p: pAtom, ty: "int32_t"}), pAdd), "v2 + x"},
		{"a conversion the operation would not make", bin(cx{s: "x", p: pAtom, ty: "int32_t"}, "+", cast("uint64_t", cx{s: "y", p: pAtom, ty: "int32_t"}), pAdd), "x + (uint64_t)y"},
		{"a signed comparison stays signed", bin(cast("int32_t", v), "<", cast("int32_t", cx{s: "w", p: pAtom, ty: "uint32_t"}), pRel), "(int32_t)v1 < (int32_t)w"},
		{"unsigned constant", func() cx { c := cast("uint64_t", num(32, 5, 0)); return cx{s: c.s, isConst: c.isConst} }(), "(uint64_t)5"},
		{"a truth as a byte", cast("uint8_t", cmp), "v1 < 9"},
		{"a truth as uint32_t", cast("uint32_t", cmp), "(uint32_t)(v1 < 9)"},
		{"a negative int32_t", assigned("int32_t", num(32, 0xffffffff, 0)), "-1"},
		{"a negative int64_t", assigned("int64_t", num(64, 0xfffffffffffffffe, 0)), "-2"},
		{"0xffffffff is no int64_t -1", assigned("int64_t", num(64, 0xffffffff, 0)), "0xffffffff"},
		{"an unsigned type keeps the bits", assigned("uint32_t", num(32, 0xffffffff, 0)), "0xffffffff"},
		{"a pointer's integer as a pointer", cast("void *", cast("uint64_t", ptr)), "(void *)a1"},
		{"a narrower integer of a pointer is no pointer", cast("void *", cast("uint32_t", ptr)), "(void *)(uint32_t)a1"},
		{"a pointer sum", pointer(bin(cast("uint64_t", ptr), "+", num(64, 1, 0), pAdd)), "a1 + 1"},
		{"a pointer sum of a sum", pointer(bin(bin(cast("uint64_t", ptr), "+", cx{s: "v2", p: pAtom, ty: "uint64_t"}, pAdd), "+", num(64, 16, 0), pAdd)), "a1 + v2 + 16"},
		{"an integer as a pointer", pointer(cx{s: "v2", p: pAtom, ty: "uint64_t"}), "(uint8_t *)v2"},
		{"null", pointer(num(64, 0, 0)), "0"},
	} {
		if c.got.s != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got.s, c.want)
		}
	}
	if c := cast("uint64_t", num(32, 5, 0)); !c.isConst || c.val != 5 {
		t.Errorf("an unsigned conversion of 5 is not the constant 5: %+v", c)
	}
}

func TestAssignCompound(t *testing.T) {
	v := cx{s: "v1", p: pAtom, ty: "uint32_t"}
	x := cx{s: "x", p: pAtom, ty: "uint32_t"}
	for _, c := range []struct {
		rhs  cx
		want string
	}{
		{bin(v, "+", num(32, 1, 0), pAdd), "v1++;"},
		{bin(v, "-", num(32, 1, 0), pAdd), "v1--;"},
		{bin(v, "-", bin(x, "+", num(32, 2, 0), pAdd), pAdd), "v1 -= x + 2;"},
		{bin(v, "+", bin(x, "&", num(32, 1, 0), pBand), pAdd), "v1 += x & 1;"},
		// (v1 - x) + 2 is not v1 -= …
		{bin(bin(v, "-", x, pAdd), "+", num(32, 2, 0), pAdd), "v1 = v1 - x + 2;"},
		{bin(x, "+", v, pAdd), "v1 = x + v1;"},
		{cast("uint8_t", bin(v, "+", x, pAdd)), "v1 = (uint8_t)(v1 + x);"},
	} {
		if got := assign("v1", c.rhs); got != c.want {
			t.Errorf("assign(v1, %s) = %q, want %q", c.rhs.s, got, c.want)
		}
	}
}

func TestPointerAssignCompounds(t *testing.T) {
	v := cx{s: "v5", p: pAtom, ty: bytePtr, ptr: 64}
	if got := assign("v5", pointer(bin(cast("uint64_t", v), "+", num(64, 1, 0), pAdd))); got != "v5++;" {
		t.Errorf("v5 = v5 + 1 as a pointer: %q, want v5++;", got)
	}
	if got := assign("v5", pointer(bin(cast("uint64_t", v), "+", num(64, 8, 0), pAdd))); got != "v5 += 8;" {
		t.Errorf("v5 = v5 + 8 as a pointer: %q, want v5 += 8;", got)
	}
}

// TestHoistRules checks which assignments both arms of an if begin with
// move before it: only one that commutes with those before it in each
// arm, and that sets nothing the condition reads.
func TestHoistRules(t *testing.T) {
	ls := func(ss ...string) []line {
		var out []line
		for _, s := range ss {
			out = append(out, line{text: s})
		}
		return out
	}
	for _, c := range []struct {
		a, b   []line
		cond   string
		i, j   int
		hoists bool
	}{
		{ls("v2 = 0;"), ls("v1 = a1;", "v2 = 0;"), "!a1", 0, 1, true},
		{ls("v2 = 0;"), ls("v2 = 0;"), "v2 < 3", 0, 0, false},
		{ls("v2 = 0;"), ls("v2 = 0;"), "v22 < 3", 0, 0, true},
		{ls("v2 = 0;"), ls("v1 = v2;", "v2 = 0;"), "a1", 0, 0, false},
		{ls("v2 = 0;"), ls("v2 = v1;", "v2 = 0;"), "a1", 0, 0, false},
		{ls("v2 = f();"), ls("v2 = f();"), "a1", 0, 0, false},
		{ls("v2 = -1;"), ls("v2 = -1;"), "a1", 0, 0, true},
	} {
		i, j, ok := commonLead(c.a, c.b, c.cond)
		if ok != c.hoists || ok && (i != c.i || j != c.j) {
			t.Errorf("%v / %v under %q: %d %d %v, want %d %d %v", c.a, c.b, c.cond, i, j, ok, c.i, c.j, c.hoists)
		}
	}
}
