package lift

import (
	"math/big"
	"math/bits"
)

// Value is a concrete value of up to 128 bits. Undef marks a value the
// architecture leaves undefined (Undef statements, and everything computed
// from one); the differential tests do not compare such values.
type Value struct {
	Lo, Hi uint64
	Undef  bool
}

// V64 returns the defined value v.
func V64(v uint64) Value { return Value{Lo: v} }

func (v Value) mask(w Width) Value {
	switch {
	case w >= 128:
	case w >= 64:
		v.Hi = 0
	default:
		v.Hi, v.Lo = 0, v.Lo&(1<<w-1)
	}
	return v
}

func (v Value) bit(i uint) uint64 {
	if i >= 64 {
		return v.Hi >> (i - 64) & 1
	}
	return v.Lo >> i & 1
}

func (v Value) sign(w Width) bool { return v.bit(uint(w)-1) == 1 }

// sext sign-extends v from w to 128 bits.
func (v Value) sext(w Width) Value {
	v = v.mask(w)
	if w < 128 && v.sign(w) {
		n := not(Value{}).shl(uint(w))
		v.Lo |= n.Lo
		v.Hi |= n.Hi
	}
	return v
}

func not(v Value) Value { return Value{Lo: ^v.Lo, Hi: ^v.Hi} }

func (v Value) shl(n uint) Value {
	switch {
	case n >= 128:
		return Value{}
	case n >= 64:
		return Value{Hi: v.Lo << (n - 64)}
	case n == 0:
		return v
	}
	return Value{Lo: v.Lo << n, Hi: v.Hi<<n | v.Lo>>(64-n)}
}

func (v Value) lshr(n uint) Value {
	switch {
	case n >= 128:
		return Value{}
	case n >= 64:
		return Value{Lo: v.Hi >> (n - 64)}
	case n == 0:
		return v
	}
	return Value{Hi: v.Hi >> n, Lo: v.Lo>>n | v.Hi<<(64-n)}
}

func add(a, b Value) Value {
	lo, c := bits.Add64(a.Lo, b.Lo, 0)
	hi, _ := bits.Add64(a.Hi, b.Hi, c)
	return Value{Lo: lo, Hi: hi}
}

func sub(a, b Value) Value {
	lo, c := bits.Sub64(a.Lo, b.Lo, 0)
	hi, _ := bits.Sub64(a.Hi, b.Hi, c)
	return Value{Lo: lo, Hi: hi}
}

func mul(a, b Value) Value {
	hi, lo := bits.Mul64(a.Lo, b.Lo)
	hi += a.Lo*b.Hi + a.Hi*b.Lo
	return Value{Lo: lo, Hi: hi}
}

func ult(a, b Value) bool { return a.Hi < b.Hi || a.Hi == b.Hi && a.Lo < b.Lo }

func eq(a, b Value) bool { return a.Hi == b.Hi && a.Lo == b.Lo }

func (v Value) big(signed bool, w Width) *big.Int {
	if signed {
		v = v.sext(w)
	}
	x := new(big.Int).SetUint64(v.Hi)
	x.Lsh(x, 64)
	x.Or(x, new(big.Int).SetUint64(v.Lo))
	if signed && v.sign(128) {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return x
}

func fromBig(x *big.Int) Value {
	m := new(big.Int).Lsh(big.NewInt(1), 128)
	x = new(big.Int).Mod(x, m) // Euclidean: non-negative
	lo := new(big.Int).And(x, new(big.Int).SetUint64(^uint64(0)))
	hi := new(big.Int).Rsh(x, 64)
	return Value{Lo: lo.Uint64(), Hi: hi.Uint64()}
}
