package decompile

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/lift"
)

// helperSet collects the prelude helpers a unit uses, with their C
// definitions.
type helperSet struct {
	defs map[string]string
	// limits counts the uses of helpers that stand for what plain C lacks
	// (bit casts are not counted: they are exact C).
	limits map[string]int
}

func newHelperSet() *helperSet {
	return &helperSet{defs: map[string]string{}, limits: map[string]int{}}
}

// use records a use of the helper name defined by def (def is computed
// only the first time).
func (h *helperSet) use(name string, limit bool, def func() string) {
	if _, ok := h.defs[name]; !ok {
		h.defs[name] = "" // a recursive use while def runs sees it present
		h.defs[name] = def()
	}
	if limit {
		h.limits[name]++
	}
}

// text renders the definitions: bit casts first, the others by name.
func (h *helperSet) text() string {
	names := make([]string, 0, len(h.defs))
	for n := range h.defs {
		names = append(names, n)
	}
	rank := func(n string) int {
		if isBitcast(n) {
			return 0
		}
		if strings.HasPrefix(n, "__rea_v") {
			return 2
		}
		return 1
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	var sb strings.Builder
	for _, n := range names {
		sb.WriteString(h.defs[n])
	}
	return sb.String()
}

func isBitcast(n string) bool {
	switch n {
	case "__rea_f32", "__rea_f64", "__rea_b32", "__rea_b64":
		return true
	}
	return false
}

const inl = "static inline __attribute__((unused)) "

// bitcast helpers: float ↔ IEEE bits.
func (h *helperSet) f(fw int, x cx) cx {
	if x.bits != "" && x.bitsW == fw {
		return cx{s: x.bits, p: x.bitsP}
	}
	if x.isConst {
		if c, ok := floatLit(fw, x.val); ok {
			return c
		}
	}
	name := fmt.Sprintf("__rea_f%d", fw)
	t, u := floatT(fw), uT(lift.Width(fw))
	h.use(name, false, func() string {
		return fmt.Sprintf("%s%s %s(%s x) { %s f; __builtin_memcpy(&f, &x, sizeof f); return f; }\n", inl, t, name, u, t)
	})
	return call(name, x)
}

func (h *helperSet) b(fw int, x cx) cx {
	name := fmt.Sprintf("__rea_b%d", fw)
	t, u := floatT(fw), uT(lift.Width(fw))
	h.use(name, false, func() string {
		return fmt.Sprintf("%s%s %s(%s f) { %s x; __builtin_memcpy(&x, &f, sizeof x); return x; }\n", inl, u, name, t, u)
	})
	c := call(name, x)
	c.ty = u
	c.bits, c.bitsW, c.bitsP = x.s, fw, x.p
	return c
}

func floatT(fw int) string {
	if fw == 32 {
		return "float"
	}
	return "double"
}

// unmodelled is the helper an instruction REA does not model calls: it
// traps, so the unit compiles and never computes a wrong value silently.
func (h *helperSet) unmodelled() {
	h.use("__rea_unmodelled", false, func() string {
		return inl + "void __rea_unmodelled(const char *mnemonic) { (void)mnemonic; __builtin_trap(); }\n"
	})
}

// outside is the helper a transfer the C text cannot follow calls (an
// unresolved indirect jump, a branch out of the procedure).
func (h *helperSet) outside() {
	h.use("__rea_goto", false, func() string {
		return inl + "void __rea_goto(uint64_t target) { (void)target; __builtin_trap(); }\n"
	})
}

// fconv names the helper converting float format fw to an integer of
// width w (signed or unsigned, truncating or rounding) with x86's
// out-of-range results (the "integer indefinite" for signed, all ones for
// unsigned as AArch64's fcvtzu saturates… both follow the IR).
func (h *helperSet) fconv(op lift.Op, fw int, w lift.Width, x cx) cx {
	kind := map[lift.Op]string{lift.FToS: "s", lift.FToSTrunc: "st", lift.FToUTrunc: "ut"}[op]
	name := fmt.Sprintf("__rea_cvt%s_f%d_%d", kind, fw, w)
	h.f(fw, atom("0")) // the definition reads __rea_fNN
	h.use(name, true, func() string {
		t, u, s := floatT(fw), uT(w), sT(w)
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s%s %s(%s x) {\n\t%s f = __rea_f%d(x);\n", inl, u, name, uT(lift.Width(fw)), t, fw)
		lim := fmt.Sprintf("0x1p%d", w-1)
		switch kind {
		case "ut":
			fmt.Fprintf(&sb, "\tif (!(f > -1.0) || f >= 0x1p%d) return (%s)-1;\n\treturn (%s)f;\n}\n", w, u, u)
		default:
			round := "__builtin_rint"
			if fw == 32 {
				round = "__builtin_rintf"
			}
			if kind == "st" {
				round = "__builtin_trunc"
				if fw == 32 {
					round = "__builtin_truncf"
				}
			}
			fmt.Fprintf(&sb, "\tf = %s(f);\n\tif (!(f >= -%s && f < %s)) return (%s)1 << %d;\n\treturn (%s)(%s)f;\n}\n", round, lim, lim, u, w-1, u, s)
		}
		return sb.String()
	})
	return call(name, x)
}

// fminmax names the helper of FMin, FMax, FMinNum and FMaxNum.
func (h *helperSet) fminmax(op lift.Op, fw int, a, b cx) cx {
	kind := map[lift.Op]string{lift.FMin: "min", lift.FMax: "max", lift.FMinNum: "minnum", lift.FMaxNum: "maxnum"}[op]
	name := fmt.Sprintf("__rea_f%s%d", kind, fw)
	h.f(fw, atom("0"))
	h.b(fw, atom("0"))
	h.use(name, true, func() string {
		u := uT(lift.Width(fw))
		less := "x < y || (x == y && __builtin_signbit(x) && !__builtin_signbit(y))"
		pick := "a : b"
		if kind == "max" || kind == "maxnum" {
			pick = "b : a"
		}
		nan := fmt.Sprintf("return __rea_b%d(x + y);", fw)
		if kind == "minnum" || kind == "maxnum" {
			nan = "if (x != x) return b; if (y != y) return a;"
		}
		return fmt.Sprintf("%s%s %s(%s a, %s b) {\n\t%s x = __rea_f%d(a), y = __rea_f%d(b);\n\tif (x != x || y != y) { %s }\n\treturn %s ? %s;\n}\n",
			inl, u, name, u, u, floatT(fw), fw, fw, nan, less, pick)
	})
	return call(name, a, b)
}

// flag names the helper of a flag predicate with a carry in.
func (h *helperSet) flag(op lift.Op, w lift.Width, a, b, c cx) cx {
	kind := map[lift.Op]string{lift.CarryAdd: "carry_add", lift.BorrowSub: "borrow_sub", lift.OverflowAdd: "overflow_add", lift.OverflowSub: "overflow_sub"}[op]
	name := fmt.Sprintf("__rea_%s%d", kind, w)
	h.use(name, true, func() string {
		u := uT(w)
		var body string
		switch op {
		case lift.CarryAdd:
			body = fmt.Sprintf("%s r = (%s)(a + b + c); return r < a || (c && r == a);", u, u)
		case lift.BorrowSub:
			body = "return a < b || (c && a == b);"
		case lift.OverflowAdd:
			body = fmt.Sprintf("%s r = (%s)(a + b + c); return (((a ^ r) & (b ^ r)) >> %d) & 1;", u, u, w-1)
		case lift.OverflowSub:
			body = fmt.Sprintf("%s r = (%s)(a - b - c); return (((a ^ b) & (a ^ r)) >> %d) & 1;", u, u, w-1)
		}
		return fmt.Sprintf("%sbool %s(%s a, %s b, bool c) { %s }\n", inl, name, u, u, body)
	})
	return call(name, a, b, c)
}

// bitop names the helpers of Ctz, Clz (the width for zero), Rol and Ror
// by a variable count, Parity and 128-bit byte swaps.
func (h *helperSet) bitop(op lift.Op, w lift.Width, args ...cx) cx {
	kind := map[lift.Op]string{lift.Ctz: "ctz", lift.Clz: "clz", lift.Rol: "rol", lift.Ror: "ror", lift.Parity: "parity", lift.Bswap: "bswap"}[op]
	name := fmt.Sprintf("__rea_%s%d", kind, w)
	h.use(name, true, func() string {
		u := uT(w)
		switch op {
		case lift.Ctz, lift.Clz:
			var body string
			if op == lift.Ctz {
				body = fmt.Sprintf("uint32_t n = 0; while (n < %d && !((a >> n) & 1)) n++; return n;", w)
			} else {
				body = fmt.Sprintf("uint32_t n = 0; while (n < %d && !((a >> (%d - n)) & 1)) n++; return n;", w, w-1)
			}
			return fmt.Sprintf("%suint32_t %s(%s a) { %s }\n", inl, name, u, body)
		case lift.Rol:
			return fmt.Sprintf("%s%s %s(%s a, uint32_t n) { n %%= %d; return n ? (%s)(a << n | a >> (%d - n)) : a; }\n", inl, u, name, u, w, u, w)
		case lift.Ror:
			return fmt.Sprintf("%s%s %s(%s a, uint32_t n) { n %%= %d; return n ? (%s)(a >> n | a << (%d - n)) : a; }\n", inl, u, name, u, w, u, w)
		case lift.Parity:
			return fmt.Sprintf("%sbool %s(%s a) { return !(__builtin_popcount((uint32_t)(a & 0xff)) & 1); }\n", inl, name, u)
		default: // bswap
			return fmt.Sprintf("%s%s %s(%s a) { %s r = 0; for (int i = 0; i < %d; i++) r = r << 8 | ((a >> (8 * i)) & 0xff); return r; }\n", inl, u, name, u, u, w/8)
		}
	})
	return call(name, args...)
}

// floatLit renders the float of format fw with bits v as a C literal
// that reads back exactly (not for NaNs and infinities).
func floatLit(fw int, v uint64) (cx, bool) {
	var f float64
	bits := 64
	if fw == 32 {
		f, bits = float64(math.Float32frombits(uint32(v))), 32
	} else {
		f = math.Float64frombits(v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return cx{}, false
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	if fw == 32 {
		s += "f"
	}
	c := atom(s)
	if f < 0 || s[0] == '-' {
		c.p = pUnary
	}
	return c, true
}
