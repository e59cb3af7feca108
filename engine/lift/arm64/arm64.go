// Package arm64 lifts AArch64 instructions, as decoded by
// golang.org/x/arch/arm64/arm64asm, into REA's IR (package lift).
//
// Machine state in the IR: x0 … x30 and sp (64 bits), the flags n, z, c and
// v as 1-bit registers, and v0 … v31 (128 bits). Sub-register semantics are
// explicit: a W write zero-extends into the X register, a scalar floating
// point write zero-extends into the whole V register, register number 31
// reads as zero and writes vanish where the encoding names the zero register
// and is sp where it names the stack pointer.
//
// What the lifter models: the integer, load/store, branch and scalar
// floating point forms GCC and clang emit at -O0 to -O3 for AArch64 Linux,
// and the common AdvSIMD integer forms (the dispatch in ops.go, then mem.go,
// fp.go and simd.go; testdata/golden.txt shows representative ones). The operands come from the instruction word itself
// (arm64asm.Inst.Enc): arm64asm is the decoder of record (it rejects
// unallocated encodings and names the mnemonic, aliases included), but its
// argument types keep their immediates in unexported fields. Anything else is
// one lift.Unmodelled statement naming the mnemonic and its family
// (unmodelled.go): system instructions (svc, brk, mrs/msr of system
// registers other than tpidr_el0 and nzcv, barriers), exclusive and atomic
// accesses, half precision, and the AdvSIMD forms outside the modelled set.
//
// Choices where the architecture leaves a choice to the implementation or to
// the system: hints (nop, yield, bti, and the pointer authentication hints
// paciasp/autiasp/pacibsp/autibsp) are no-ops, as on a CPU without
// FEAT_PAuth and FEAT_BTI; the floating point control register holds Linux's
// default (round to nearest even, no flush to zero, no default NaN); memory
// accesses are little-endian and alignment faults are not modelled (Linux
// user space does not enable them) except where the architecture faults
// regardless (ldar/stlr) and for sp, which Linux checks (SCTLR_EL1.SA0).
// The NaN a float operation generates is the interpreter's host's (x86's
// default NaN is negative, AArch64's positive), and NaN propagation takes
// the first NaN operand, which differs from AArch64 only when a signalling
// NaN is the second operand of a quiet one; fmaxnm/fminnm return the number
// for a signalling NaN operand too.
//
// Semantics are tested against a CPU (diff_test.go): instruction sequences
// run under qemu-aarch64 from random states in a harness the cross compiler
// builds, and through Lift and lift.Step from the same states.
package arm64

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/arch/arm64/arm64asm"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/armdecode"
)

// ErrDecode is returned when the bytes do not decode as an instruction.
var ErrDecode = errors.New("arm64: bytes do not decode as an instruction")

// Decode decodes the instruction word at the start of code under the lock
// arm64asm needs (internal/armdecode: x/arch's arm64 decoder writes a
// package-level array on every call, shared with the builtin analyzer).
func Decode(code []byte) (arm64asm.Inst, error) { return armdecode.ARM64(code) }

// Lift decodes the instruction at the start of code, located at addr, and
// lifts it. An instruction that decodes but is not modelled lifts to one
// lift.Unmodelled statement, never to an error.
func Lift(code []byte, addr uint64) (*lift.Insn, error) {
	var lf Lifter
	return lf.Lift(code, addr)
}

// LiftInst lifts an instruction arm64asm decoded at addr.
func LiftInst(inst arm64asm.Inst, addr uint64) *lift.Insn {
	var lf Lifter
	return lf.LiftInst(inst, addr)
}

// Lifter lifts instructions one after another, building each in scratch
// space it keeps. The zero Lifter is ready to use; it is not safe for
// concurrent use.
type Lifter struct {
	scratch lift.Scratch
}

// Reuse discards every instruction lf has lifted since the last Reuse, so
// that the next ones are built in their memory (lift.Scratch.Reuse): the
// caller holds none of them any more.
func (lf *Lifter) Reuse() { lf.scratch.Reuse() }

// Lift is the package's Lift, reusing lf's scratch space.
func (lf *Lifter) Lift(code []byte, addr uint64) (*lift.Insn, error) {
	if len(code) < 4 {
		return nil, fmt.Errorf("%w at %#x: %d bytes", ErrDecode, addr, len(code))
	}
	inst, err := Decode(code)
	if err != nil {
		return nil, fmt.Errorf("%w at %#x (%#08x)", ErrDecode, addr, binary.LittleEndian.Uint32(code))
	}
	return lf.LiftInst(inst, addr), nil
}

// LiftInst is the package's LiftInst, reusing lf's scratch space.
func (lf *Lifter) LiftInst(inst arm64asm.Inst, addr uint64) *lift.Insn {
	b := lf.scratch.Start(addr, 4, mnemonic(inst))
	l := &lifter{b: b, enc: inst.Enc, pc: addr, name: b.In.Mnemonic}
	if !l.lift() && l.fail == "" {
		l.fail = unmodelledReason(l.enc, l.name)
	}
	return b.Finish(l.fail, &lf.scratch)
}

// lowerNames caches the lower-case mnemonics (filled once, then read-only).
var lowerNames = sync.OnceValue(func() map[arm64asm.Op]string {
	m := map[arm64asm.Op]string{}
	for op := arm64asm.Op(1); op < 0x800; op++ {
		if s := op.String(); !strings.HasPrefix(s, "Op(") {
			m[op] = strings.ToLower(s)
		}
	}
	return m
})

// hintNames are the hints arm64asm prints as "hint #n", by n (CRm:op2).
var hintNames = map[uint32]string{
	7: "xpaclri", 8: "pacia1716", 10: "pacib1716", 12: "autia1716", 14: "autib1716", 20: "csdb",
	24: "paciaz", 25: "paciasp", 26: "pacibz", 27: "pacibsp", 28: "autiaz", 29: "autiasp", 30: "autibz", 31: "autibsp",
	32: "bti", 34: "bti c", 36: "bti j", 38: "bti jc",
}

func mnemonic(inst arm64asm.Inst) string {
	if inst.Enc&0xfffff01f == 0xd503201f {
		if s, ok := hintNames[inst.Enc>>5&0x7f]; ok {
			return s
		}
	}
	s, ok := lowerNames()[inst.Op]
	if !ok {
		s = strings.ToLower(inst.Op.String())
	}
	if inst.Op == arm64asm.B && inst.Args[0] != nil {
		if c, ok := inst.Args[0].(arm64asm.Cond); ok {
			return "b." + strings.ToLower(c.String())
		}
	}
	return s
}

type lifter struct {
	b    *lift.Builder
	enc  uint32
	pc   uint64
	name string
	fail string
}

// unmodelled marks the instruction unmodelled with reason (the first reason
// wins).
func (l *lifter) unmodelled(reason string) {
	if l.fail == "" {
		l.fail = reason
	}
}

// bits returns the field enc[lo, lo+n).
func (l *lifter) bits(lo, n uint) uint32 { return l.enc >> lo & (1<<n - 1) }

func (l *lifter) bit(i uint) bool { return l.enc>>i&1 == 1 }

func none() lift.Operand { return lift.Operand{} }

var xNames = func() (n [31]string) {
	for i := range n {
		n[i] = fmt.Sprintf("x%d", i)
	}
	return
}()

var vNames = func() (n [32]string) {
	for i := range n {
		n[i] = fmt.Sprintf("v%d", i)
	}
	return
}()

func flagReg(name string) lift.Operand { return lift.R(name, 1) }

var (
	flagN = flagReg("n")
	flagZ = flagReg("z")
	flagC = flagReg("c")
	flagV = flagReg("v")
)

// regW is the operand width of sf (bit 31 of most data processing forms).
func (l *lifter) regW() lift.Width {
	if l.bit(31) {
		return 64
	}
	return 32
}

// reg reads general register r at width w, register 31 being the zero
// register.
func (l *lifter) reg(r uint32, w lift.Width) lift.Operand {
	if r == 31 {
		return lift.C(w, 0)
	}
	return l.low(lift.R(xNames[r], 64), w)
}

// regSP reads general register r at width w, register 31 being sp.
func (l *lifter) regSP(r uint32, w lift.Width) lift.Operand {
	if r == 31 {
		return l.low(lift.R("sp", 64), w)
	}
	return l.low(lift.R(xNames[r], 64), w)
}

func (l *lifter) low(x lift.Operand, w lift.Width) lift.Operand {
	if w == x.Width {
		return x
	}
	return l.b.Op1(lift.Trunc, w, x)
}

// setReg writes v to general register r (31: the zero register, the write
// vanishes); a 32-bit value zero-extends into the X register.
func (l *lifter) setReg(r uint32, v lift.Operand) {
	if r == 31 {
		return
	}
	l.put(lift.R(xNames[r], 64), v)
}

// setRegSP writes v to general register r (31: sp).
func (l *lifter) setRegSP(r uint32, v lift.Operand) {
	if r == 31 {
		l.put(lift.R("sp", 64), v)
		return
	}
	l.put(lift.R(xNames[r], 64), v)
}

func (l *lifter) put(dst, v lift.Operand) {
	if v.Width < dst.Width {
		l.b.Set(dst, lift.ZExt, v, none(), none())
		return
	}
	l.b.Assign(dst, v)
}

// vreg reads the low w bits of SIMD&FP register r.
func (l *lifter) vreg(r uint32, w lift.Width) lift.Operand {
	return l.low(lift.R(vNames[r], 128), w)
}

// setV writes v to SIMD&FP register r, zeroing the bits above it (the
// scalar write rule).
func (l *lifter) setV(r uint32, v lift.Operand) { l.put(lift.R(vNames[r], 128), v) }

// nzFlags sets n and z from the result r, c and v from the given values.
func (l *lifter) nzFlags(r lift.Operand) {
	w := r.Width
	l.b.Set(flagN, lift.Slt, r, lift.C(w, 0), none())
	l.b.Set(flagZ, lift.Eq, r, lift.C(w, 0), none())
}

// addFlags sets NZCV for r = x + y + carry (carry: a 1-bit operand or none).
func (l *lifter) addFlags(x, y, carry, r lift.Operand) {
	l.nzFlags(r)
	l.b.Set(flagC, lift.CarryAdd, x, y, carry)
	l.b.Set(flagV, lift.OverflowAdd, x, y, carry)
}

// subFlags sets NZCV for r = x - y - borrow: AArch64's carry is the
// inverse of the borrow.
func (l *lifter) subFlags(x, y, borrow, r lift.Operand) {
	l.nzFlags(r)
	br := l.b.Op3(lift.BorrowSub, 1, x, y, borrow)
	l.b.Set(flagC, lift.Not, br, none(), none())
	l.b.Set(flagV, lift.OverflowSub, x, y, borrow)
}

// logicFlags sets NZCV for a logical result: c and v are cleared.
func (l *lifter) logicFlags(r lift.Operand) {
	l.nzFlags(r)
	l.b.Assign(flagC, lift.C(1, 0))
	l.b.Assign(flagV, lift.C(1, 0))
}

// cond returns the 1-bit value of condition code cc (ARM ARM ConditionHolds).
func (l *lifter) cond(cc uint32) lift.Operand {
	var r lift.Operand
	switch cc >> 1 {
	case 0:
		r = flagZ
	case 1:
		r = flagC
	case 2:
		r = flagN
	case 3:
		r = flagV
	case 4: // hi: c && !z
		nz := l.b.Op1(lift.Not, 1, flagZ)
		r = l.b.Op2(lift.And, 1, flagC, nz)
	case 5: // ge: n == v
		r = l.b.Op2(lift.Eq, 1, flagN, flagV)
	case 6: // gt: !z && n == v
		ge := l.b.Op2(lift.Eq, 1, flagN, flagV)
		nz := l.b.Op1(lift.Not, 1, flagZ)
		r = l.b.Op2(lift.And, 1, ge, nz)
	case 7:
		return lift.C(1, 1) // al and nv both hold
	}
	if cc&1 == 1 {
		r = l.b.Op1(lift.Not, 1, r)
	}
	return r
}

// sext returns the n-bit field v sign-extended to int64.
func sext(v uint64, n uint) int64 { return int64(v<<(64-n)) >> (64 - n) }
