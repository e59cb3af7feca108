package arm64

import "github.com/rea-re/rea/engine/lift"

// access is what a load or store does with its register: its size in
// bytes, whether it loads, and for a load into a general register whether
// it sign-extends and to which width (32 or 64; the X register then takes
// the zero extension).
type access struct {
	bytes    int
	load     bool
	signed   bool
	to       lift.Width
	vector   bool // a SIMD&FP register
	prefetch bool // prfm: no architectural effect
}

// accessOf decodes size, V and opc of the single-register load/store forms.
func accessOf(size, v, opc uint32) (access, bool) {
	if v == 1 {
		switch {
		case opc < 2:
			return access{bytes: 1 << size, load: opc == 1, vector: true}, true
		case size == 0:
			return access{bytes: 16, load: opc == 3, vector: true}, true
		}
		return access{}, false
	}
	a := access{bytes: 1 << size, to: 64}
	switch opc {
	case 0:
	case 1:
		a.load = true
	case 2:
		if size == 3 {
			return access{prefetch: true}, true
		}
		a.load, a.signed = true, true
	case 3:
		if size >= 2 {
			return access{}, false
		}
		a.load, a.signed, a.to = true, true, 32
	}
	return a, true
}

// addrMode is how a load/store forms its address from the base register.
type addrMode uint8

const (
	offset    addrMode = iota // base + offset
	preIndex                  // base + offset, written back
	postIndex                 // base, then base + offset written back
)

// memory performs a for the registers rts (one, or two for a pair, at
// consecutive addresses) at base register rn and offset, in mode.
func (l *lifter) memory(a access, rts []uint32, rn uint32, off lift.Operand, mode addrMode) {
	base := l.regSP(rn, 64)
	if rn == 31 {
		// Linux sets SCTLR_EL1.SA0: an access through a misaligned sp
		// faults.
		low := l.b.Op2(lift.And, 64, base, lift.C(64, 15))
		bad := l.b.Op2(lift.Ne, 1, low, lift.C(64, 0))
		l.b.Emit(lift.Stmt{Op: lift.TrapIf, A: bad, Text: "sp alignment fault"})
	}
	addr := base
	var next lift.Operand
	if !(off.IsConst() && off.Lo == 0) || mode != offset {
		next = l.b.Op2(lift.Add, 64, base, off)
		if mode != postIndex {
			addr = next
		}
	}
	w := lift.Width(a.bytes * 8)
	if a.load {
		vals := make([]lift.Operand, len(rts))
		for i := range rts {
			at := addr
			if i > 0 {
				at = l.b.Op2(lift.Add, 64, addr, lift.C(64, uint64(i*a.bytes)))
			}
			vals[i] = l.b.Op1(lift.Load, w, at)
			if a.signed && !a.vector {
				vals[i] = l.b.Op1(lift.SExt, a.to, vals[i])
			}
		}
		for i, rt := range rts {
			if a.vector {
				l.setV(rt, vals[i])
			} else {
				l.setReg(rt, vals[i])
			}
		}
	} else {
		for i, rt := range rts {
			at := addr
			if i > 0 {
				at = l.b.Op2(lift.Add, 64, addr, lift.C(64, uint64(i*a.bytes)))
			}
			var v lift.Operand
			if a.vector {
				v = l.vreg(rt, w)
			} else {
				v = l.reg(rt, w)
			}
			l.b.Emit(lift.Stmt{Op: lift.Store, A: at, B: v})
		}
	}
	if mode != offset {
		l.setRegSP(rn, next)
	}
}

func (l *lifter) loadStoreUImm() bool {
	a, ok := accessOf(l.bits(30, 2), l.bits(26, 1), l.bits(22, 2))
	if !ok {
		return false
	}
	if a.prefetch {
		return true
	}
	off := uint64(l.bits(10, 12)) * uint64(a.bytes)
	l.memory(a, []uint32{l.bits(0, 5)}, l.bits(5, 5), lift.C(64, off), offset)
	return true
}

func (l *lifter) loadStoreImm9() bool {
	a, ok := accessOf(l.bits(30, 2), l.bits(26, 1), l.bits(22, 2))
	if !ok {
		return false
	}
	mode := [...]addrMode{offset, postIndex, offset, preIndex}[l.bits(10, 2)]
	if a.prefetch {
		if mode != offset {
			return false
		}
		return true // prfum
	}
	if l.bits(10, 2) == 2 && a.vector {
		return false
	}
	off := uint64(sext(uint64(l.bits(12, 9)), 9))
	l.memory(a, []uint32{l.bits(0, 5)}, l.bits(5, 5), lift.C(64, off), mode)
	return true
}

func (l *lifter) loadStoreRegOff() bool {
	a, ok := accessOf(l.bits(30, 2), l.bits(26, 1), l.bits(22, 2))
	option := l.bits(13, 3)
	if !ok || option&2 == 0 {
		return false
	}
	if a.prefetch {
		return true
	}
	var shift uint32
	if l.bit(12) {
		for s := a.bytes; s > 1; s >>= 1 {
			shift++
		}
	}
	idx := l.extended(l.bits(16, 5), option, shift, 64)
	l.memory(a, []uint32{l.bits(0, 5)}, l.bits(5, 5), idx, offset)
	return true
}

func (l *lifter) loadLiteral() bool {
	opc, v := l.bits(30, 2), l.bits(26, 1)
	var a access
	switch {
	case v == 1 && opc < 3:
		a = access{bytes: 4 << opc, load: true, vector: true}
	case v == 0 && opc < 2:
		a = access{bytes: 4 << opc, load: true, to: 64}
	case v == 0 && opc == 2: // ldrsw
		a = access{bytes: 4, load: true, signed: true, to: 64}
	case v == 0 && opc == 3: // prfm
		return true
	default:
		return false
	}
	addr := l.target(l.bits(5, 19), 19)
	val := l.b.Op1(lift.Load, lift.Width(a.bytes*8), addr)
	rt := l.bits(0, 5)
	switch {
	case a.vector:
		l.setV(rt, val)
	case a.signed:
		l.setReg(rt, l.b.Op1(lift.SExt, 64, val))
	default:
		l.setReg(rt, val)
	}
	return true
}

func (l *lifter) loadStorePair() bool {
	opc, v, load := l.bits(30, 2), l.bits(26, 1), l.bit(22)
	var a access
	switch {
	case v == 1 && opc < 3:
		a = access{bytes: 4 << opc, load: load, vector: true}
	case v == 0 && opc == 0:
		a = access{bytes: 4, load: load, to: 64}
	case v == 0 && opc == 1 && load: // ldpsw
		a = access{bytes: 4, load: true, signed: true, to: 64}
	case v == 0 && opc == 2:
		a = access{bytes: 8, load: load, to: 64}
	default:
		return false
	}
	mode := [...]addrMode{offset, postIndex, offset, preIndex}[l.bits(23, 2)]
	off := uint64(sext(uint64(l.bits(15, 7)), 7) * int64(a.bytes))
	l.memory(a, []uint32{l.bits(0, 5), l.bits(10, 5)}, l.bits(5, 5), lift.C(64, off), mode)
	return true
}
