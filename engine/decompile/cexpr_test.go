package decompile

import "testing"

// TestCastRules checks the conversions the printer leaves out: each one
// must keep the value C computes.
func TestCastRules(t *testing.T) {
	a1 := cx{s: "a1", p: pAtom, ty: "int64_t"}
	d := cx{s: "d", p: pAtom} // a type the printer does not know (a double)
	v := cx{s: "v1", p: pAtom, ty: "uint32_t"}
	cmp := bin(v, "<", atom("9"), pRel)
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
