// Package x86 lifts x86-64 and i386 instructions, as decoded by
// golang.org/x/arch/x86/x86asm, into REA's IR (package lift).
//
// Machine state in the IR: the general registers by their full names (rax …
// r15 in 64-bit mode, eax … edi in 32-bit mode), xmm0 … xmm15 (128 bits), the
// flags cf, pf, af, zf, sf, of and df as 1-bit registers, and fs_base and
// gs_base for the two segments with a base in 64-bit mode (every other
// segment is flat). Sub-register reads and writes are explicit: a 32-bit
// write in 64-bit mode zero-extends into the full register, an 8- or 16-bit
// write inserts into it.
//
// What the lifter models: the integer, SSE scalar and common SSE2 packed
// forms GCC and clang emit at -O0 to -O3 (the switches in ops.go and
// sse.go; testdata/golden.txt shows representative ones), with the faults
// the ISA defines for them as explicit lift.TrapIf (divide error, the #GP of
// a misaligned aligned access, ud2), and the x87 forms they emit for float
// and double on i386 (x87.go: the register stack as named slots st0 … st7,
// values in binary64). Anything else is one lift.Unmodelled statement
// naming the mnemonic and its family (unmodelled.go): the rest of x87, AVX
// and AVX-512, system instructions, string instructions other than movs and
// stos, and any operand the lifter cannot name (segment, control and debug
// registers). Floating point conversions round as MXCSR's default (to
// nearest even); a program that changes MXCSR is outside the model, and so
// are the exceptions MXCSR masks. Segments other than fs and gs are flat,
// in 32-bit mode too. lock prefixes add atomicity only, which a
// single-threaded semantics does not show.
//
// Semantics are tested against the CPU (diff_test.go): instruction
// sequences run natively from random states in a harness gcc builds, and
// through Lift and lift.Step from the same states, for x86-64 and, with
// the i686 cross compiler's static build of the harness, for i386.
package x86

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rea-re/rea/engine/lift"
)

// ErrDecode is returned when the bytes do not decode as an instruction.
var ErrDecode = errors.New("x86: bytes do not decode as an instruction")

// Lift decodes the instruction at the start of code, located at addr, in
// mode 64 or 32, and lifts it. An instruction that decodes but is not
// modelled lifts to one lift.Unmodelled statement, never to an error.
func Lift(code []byte, addr uint64, mode int) (*lift.Insn, error) {
	var lf Lifter
	return lf.Lift(code, addr, mode)
}

// LiftInst lifts an instruction x86asm decoded at addr.
func LiftInst(inst x86asm.Inst, addr uint64) *lift.Insn {
	var lf Lifter
	return lf.LiftInst(inst, addr)
}

// Lifter lifts instructions one after another, building each in scratch
// space it keeps, and carving the finished instructions and their
// statements from shared chunks (lift.Scratch). The zero Lifter is ready to
// use; it is not safe for concurrent use.
type Lifter struct {
	scratch lift.Scratch
}

// Reuse discards every instruction lf has lifted since the last Reuse, so
// that the next ones are built in their memory (lift.Scratch.Reuse): the
// caller holds none of them any more.
func (lf *Lifter) Reuse() { lf.scratch.Reuse() }

// Lift is the package's Lift, reusing lf's scratch space.
func (lf *Lifter) Lift(code []byte, addr uint64, mode int) (*lift.Insn, error) {
	if mode != 64 && mode != 32 {
		return nil, fmt.Errorf("x86: mode %d: %w", mode, errors.ErrUnsupported)
	}
	// x86asm has no CET instructions and reads endbr64/endbr32 as a REP
	// prefix followed by garbage (as engine/provider/builtin/disasm.go notes).
	if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb) {
		name := "endbr64"
		if code[3] == 0xfb {
			name = "endbr32"
		}
		return &lift.Insn{Addr: addr, Len: 4, Mnemonic: name}, nil
	}
	inst, err := x86asm.Decode(code, mode)
	if err != nil || inst.Len == 0 {
		return nil, fmt.Errorf("%w at %#x", ErrDecode, addr)
	}
	return lf.LiftInst(inst, addr), nil
}

// LiftInst is the package's LiftInst, reusing lf's scratch space.
func (lf *Lifter) LiftInst(inst x86asm.Inst, addr uint64) *lift.Insn {
	b := lf.scratch.Start(addr, inst.Len, mnemonic(inst))
	l := &lifter{
		b:    b,
		in:   inst,
		mode: inst.Mode,
		next: addr + uint64(inst.Len),
	}
	l.aw = lift.Width(64)
	if l.mode == 32 {
		l.aw = 32
	}
	l.lift()
	return b.Finish(l.fail, &lf.scratch)
}

// lowerNames caches the lower-case mnemonics (filled once, then read-only).
var lowerNames = sync.OnceValue(func() map[x86asm.Op]string {
	m := map[x86asm.Op]string{}
	for op := x86asm.Op(1); op < 0x1000; op++ {
		if s := op.String(); !strings.HasPrefix(s, "Op(") {
			m[op] = strings.ToLower(s)
		}
	}
	return m
})

func mnemonic(inst x86asm.Inst) string {
	s, ok := lowerNames()[inst.Op]
	if !ok {
		s = strings.ToLower(inst.Op.String())
	}
	if inst.Prefix[0] != 0 {
		for _, p := range inst.Prefix {
			if p == 0 {
				break
			}
			if p&x86asm.PrefixIgnored == 0 && (p&0xff == 0xf3 || p&0xff == 0xf2) && (inst.Op >= x86asm.MOVSB && inst.Op <= x86asm.MOVSW || inst.Op >= x86asm.STOSB && inst.Op <= x86asm.STOSW) {
				return "rep " + s
			}
		}
	}
	return s
}

type lifter struct {
	b    *lift.Builder
	in   x86asm.Inst
	mode int
	aw   lift.Width // the width of a general register and of addresses
	next uint64
	fail string
}

// unmodelled marks the instruction unmodelled with reason (the first reason
// wins).
func (l *lifter) unmodelled(reason string) {
	if l.fail == "" {
		l.fail = reason
	}
}

var gpr64 = [16]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}
var xmmNames = [16]string{"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"}
var gpr32 = [8]string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"}

// gpr names the full register with index i (x86 encoding order).
func (l *lifter) gpr(i int) lift.Operand {
	if l.mode == 32 {
		if i >= 8 {
			l.unmodelled("register r8 and up in 32-bit mode")
			return lift.R("eax", 32)
		}
		return lift.R(gpr32[i], 32)
	}
	return lift.R(gpr64[i], 64)
}

func (l *lifter) sp() lift.Operand { return l.gpr(4) }

// location maps an x86asm register to its full IR register and the bit
// offset and width of the part r names.
func (l *lifter) location(r x86asm.Reg) (full lift.Operand, lo int, w lift.Width, ok bool) {
	switch {
	case r >= x86asm.AL && r <= x86asm.R15B:
		i := int(r - x86asm.AL)
		switch {
		case i >= 4 && i < 8: // ah, ch, dh, bh
			return l.gpr(i - 4), 8, 8, true
		case i >= 8:
			return l.gpr(i - 4), 0, 8, true
		}
		return l.gpr(i), 0, 8, true
	case r >= x86asm.AX && r <= x86asm.R15W:
		return l.gpr(int(r - x86asm.AX)), 0, 16, true
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return l.gpr(int(r - x86asm.EAX)), 0, 32, true
	case r >= x86asm.RAX && r <= x86asm.R15 && l.mode == 64:
		return l.gpr(int(r - x86asm.RAX)), 0, 64, true
	case r >= x86asm.X0 && r <= x86asm.X15:
		return lift.R(xmmNames[r-x86asm.X0], 128), 0, 128, true
	}
	return lift.Operand{}, 0, 0, false
}

func flagReg(name string) lift.Operand { return lift.R(name, 1) }

var (
	cf = flagReg("cf")
	pf = flagReg("pf")
	af = flagReg("af")
	zf = flagReg("zf")
	sf = flagReg("sf")
	of = flagReg("of")
	df = flagReg("df")
)

// width is the width of an operand: a register's own, a memory operand's
// MemBytes, else the operand size.
func (l *lifter) width(a x86asm.Arg) lift.Width {
	switch a := a.(type) {
	case x86asm.Reg:
		if _, _, w, ok := l.location(a); ok {
			return w
		}
	case x86asm.Mem:
		if l.in.MemBytes > 0 {
			return lift.Width(l.in.MemBytes * 8)
		}
	}
	return lift.Width(l.in.DataSize)
}

// address computes a memory operand's effective address (without a segment
// base when lea is true).
func (l *lifter) address(m x86asm.Mem, lea bool) lift.Operand {
	b := l.b
	aw := lift.Width(l.in.AddrSize)
	if aw != 64 && aw != 32 {
		l.unmodelled("16-bit addressing")
		return lift.C(l.aw, 0)
	}
	var sum lift.Operand
	have := false
	addTerm := func(x lift.Operand) {
		if !have {
			sum, have = x, true
			return
		}
		sum = b.Op2(lift.Add, aw, sum, x)
	}
	part := func(r x86asm.Reg) lift.Operand {
		full, lo, w, ok := l.location(r)
		if !ok || w != aw {
			l.unmodelled("address register " + r.String())
			return lift.C(aw, 0)
		}
		return b.Extract(full, lo, aw)
	}
	if m.Base == x86asm.RIP || m.Base == x86asm.EIP {
		addTerm(lift.C(aw, l.next+uint64(m.Disp)))
	} else {
		if m.Base != 0 {
			addTerm(part(m.Base))
		}
		if m.Index != 0 {
			x := part(m.Index)
			if m.Scale > 1 {
				x = b.Op2(lift.Mul, aw, x, lift.C(aw, uint64(m.Scale)))
			}
			addTerm(x)
		}
		if m.Disp != 0 || !have {
			addTerm(lift.C(aw, uint64(m.Disp)))
		}
	}
	if aw < l.aw {
		sum = b.Op1(lift.ZExt, l.aw, sum)
	}
	if !lea {
		switch m.Segment {
		case x86asm.FS:
			sum = b.Op2(lift.Add, l.aw, sum, lift.R("fs_base", l.aw))
		case x86asm.GS:
			sum = b.Op2(lift.Add, l.aw, sum, lift.R("gs_base", l.aw))
		}
	}
	return sum
}

// read reads operand a at width w (an immediate is truncated to w; a
// register or memory operand has its own width, which w must equal).
func (l *lifter) read(a x86asm.Arg, w lift.Width) lift.Operand {
	switch a := a.(type) {
	case x86asm.Imm:
		return lift.C(w, uint64(a))
	case x86asm.Rel:
		return lift.C(l.aw, l.next+uint64(int64(a)))
	case x86asm.Reg:
		full, lo, rw, ok := l.location(a)
		if !ok {
			l.unmodelled("operand " + a.String())
			return lift.C(w, 0)
		}
		return l.b.Extract(full, lo, rw)
	case x86asm.Mem:
		addr := l.address(a, false)
		return l.b.Op1(lift.Load, w, addr)
	}
	l.unmodelled(fmt.Sprintf("operand %v", a))
	return lift.C(w, 0)
}

// write writes v to operand a: a register part merges or (32-bit in 64-bit
// mode) zero-extends, memory is stored at v's width.
func (l *lifter) write(a x86asm.Arg, v lift.Operand) {
	switch a := a.(type) {
	case x86asm.Reg:
		full, lo, w, ok := l.location(a)
		if !ok {
			l.unmodelled("operand " + a.String())
			return
		}
		l.writeReg(full, lo, w, v)
	case x86asm.Mem:
		addr := l.address(a, false)
		l.b.Emit(lift.Stmt{Op: lift.Store, A: addr, B: v})
	default:
		l.unmodelled(fmt.Sprintf("destination %v", a))
	}
}

func (l *lifter) writeReg(full lift.Operand, lo int, w lift.Width, v lift.Operand) {
	switch {
	case w == full.Width:
		l.b.Assign(full, v)
	case w == 32 && full.Width == 64:
		l.b.Set(full, lift.ZExt, v, lift.Operand{}, lift.Operand{})
	default:
		l.b.Set(full, lift.Insert, full, v, lift.Operand{})
		l.b.In.Stmts[len(l.b.In.Stmts)-1].Aux = int32(lo)
	}
}

func (l *lifter) arg(i int) x86asm.Arg { return l.in.Args[i] }

func (l *lifter) nargs() int {
	n := 0
	for n < len(l.in.Args) && l.in.Args[n] != nil {
		n++
	}
	return n
}

// push and pop move a value of width w through the stack.
func (l *lifter) push(v lift.Operand) {
	b := l.b
	sp := l.sp()
	nsp := b.Op2(lift.Sub, l.aw, sp, lift.C(l.aw, uint64(v.Width/8)))
	b.Emit(lift.Stmt{Op: lift.Store, A: nsp, B: v})
	b.Assign(sp, nsp)
}

func (l *lifter) pop(w lift.Width) lift.Operand {
	b := l.b
	sp := l.sp()
	v := b.Op1(lift.Load, w, sp)
	b.Set(sp, lift.Add, sp, lift.C(l.aw, uint64(w/8)), lift.Operand{})
	return v
}

func none() lift.Operand { return lift.Operand{} }

// Flag helpers. The result flags zf, sf and pf of a result r.
func (l *lifter) resultFlags(r lift.Operand) {
	b := l.b
	w := r.Width
	b.Set(zf, lift.Eq, r, lift.C(w, 0), none())
	b.Set(sf, lift.Slt, r, lift.C(w, 0), none())
	b.Set(pf, lift.Parity, r, none(), none())
}

// arithFlags sets every flag of r = x op y (+/- carry) for op Add or Sub;
// withCF false leaves cf alone (inc, dec).
func (l *lifter) arithFlags(op lift.Op, x, y, carry, r lift.Operand, withCF bool) {
	b := l.b
	if withCF {
		if op == lift.Add {
			b.Set(cf, lift.CarryAdd, x, y, carry)
		} else {
			b.Set(cf, lift.BorrowSub, x, y, carry)
		}
	}
	if op == lift.Add {
		b.Set(of, lift.OverflowAdd, x, y, carry)
	} else {
		b.Set(of, lift.OverflowSub, x, y, carry)
	}
	t := b.Op2(lift.Xor, x.Width, x, y)
	t = b.Op2(lift.Xor, x.Width, t, r)
	b.Set(af, lift.Extract, t, none(), none())
	b.In.Stmts[len(b.In.Stmts)-1].Aux = 4
	l.resultFlags(r)
}

func (l *lifter) logicFlags(r lift.Operand) {
	b := l.b
	b.Assign(cf, lift.C(1, 0))
	b.Assign(of, lift.C(1, 0))
	b.Set(af, lift.Undef, none(), none(), none())
	l.resultFlags(r)
}

func (l *lifter) undef(flags ...lift.Operand) {
	for _, f := range flags {
		l.b.Set(f, lift.Undef, none(), none(), none())
	}
}

// cond is the condition of a jcc/setcc/cmovcc by its suffix.
func (l *lifter) cond(cc string) lift.Operand {
	b := l.b
	neg := func(x lift.Operand) lift.Operand { return b.Op2(lift.Xor, 1, x, lift.C(1, 1)) }
	switch cc {
	case "O":
		return of
	case "NO":
		return neg(of)
	case "B":
		return cf
	case "AE":
		return neg(cf)
	case "E":
		return zf
	case "NE":
		return neg(zf)
	case "BE":
		return b.Op2(lift.Or, 1, cf, zf)
	case "A":
		return neg(b.Op2(lift.Or, 1, cf, zf))
	case "S":
		return sf
	case "NS":
		return neg(sf)
	case "P":
		return pf
	case "NP":
		return neg(pf)
	case "L":
		return b.Op2(lift.Ne, 1, sf, of)
	case "GE":
		return b.Op2(lift.Eq, 1, sf, of)
	case "LE":
		return b.Op2(lift.Or, 1, zf, b.Op2(lift.Ne, 1, sf, of))
	case "G":
		return neg(b.Op2(lift.Or, 1, zf, b.Op2(lift.Ne, 1, sf, of)))
	}
	l.unmodelled("condition " + cc)
	return lift.C(1, 0)
}
