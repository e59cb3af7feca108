package builtin

import (
	"golang.org/x/arch/x86/x86asm"
)

// The x86 and x86_64 start-code reader of mainentry.go.

// x86Regs holds known values of the 16 general registers.
type x86Regs struct {
	v     [16]uint64
	known uint16
}

// x86Family maps a register to its general register number and width.
func x86Family(r x86asm.Reg) (int, int) {
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX), 64
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX), 32
	case r >= x86asm.AX && r <= x86asm.R15W:
		return int(r - x86asm.AX), 16
	case r >= x86asm.AL && r <= x86asm.BL:
		return int(r - x86asm.AL), 8
	case r >= x86asm.AH && r <= x86asm.BH:
		return int(r - x86asm.AH), 8
	case r >= x86asm.SPB && r <= x86asm.R15B:
		return int(r-x86asm.SPB) + 4, 8
	}
	return -1, 0
}

func (rs *x86Regs) get(r x86asm.Reg) (uint64, bool) {
	k, w := x86Family(r)
	if k < 0 || w < 32 || rs.known&(1<<k) == 0 {
		return 0, false
	}
	if w == 32 {
		return rs.v[k] & 0xffffffff, true
	}
	return rs.v[k], true
}

// set writes r; a 32-bit write zero-extends, a narrower one forgets.
func (rs *x86Regs) set(r x86asm.Reg, v uint64, ok bool) {
	k, w := x86Family(r)
	if k < 0 {
		return
	}
	if !ok || w < 32 {
		rs.known &^= 1 << k
		return
	}
	if w == 32 {
		v &= 0xffffffff
	}
	rs.v[k], rs.known = v, rs.known|1<<k
}

// memAddr computes a memory operand's address.
func (rs *x86Regs) memAddr(a x86asm.Mem, next uint64, mode int) (uint64, bool) {
	if a.Segment != 0 {
		return 0, false
	}
	v := uint64(a.Disp)
	switch a.Base {
	case 0:
	case x86asm.RIP, x86asm.EIP:
		v += next
	default:
		b, ok := rs.get(a.Base)
		if !ok {
			return 0, false
		}
		v += b
	}
	if a.Index != 0 {
		x, ok := rs.get(a.Index)
		if !ok {
			return 0, false
		}
		v += x * uint64(a.Scale)
	}
	if mode == 32 {
		v &= 0xffffffff
	}
	return v, true
}

// value reads an operand: immediate, register or memory.
func (m *mainLocator) x86Value(rs *x86Regs, a x86asm.Arg, next uint64, mode, size int) (uint64, bool) {
	switch a := a.(type) {
	case x86asm.Imm:
		return uint64(a) & ptrMask(size), true
	case x86asm.Reg:
		return rs.get(a)
	case x86asm.Mem:
		addr, ok := rs.memAddr(a, next, mode)
		if !ok {
			return 0, false
		}
		v, _, ok := m.loadAt(addr, size)
		return v, ok
	}
	return 0, false
}

// x86Decode decodes at pc, reading endbr64/endbr32 (which x/arch does not
// know) as a 4-byte NOP.
func (m *mainLocator) x86Decode(pc uint64, mode int) (x86asm.Inst, bool) {
	code, ok := execCode(m.img, m.data, pc)
	if !ok {
		return x86asm.Inst{}, false
	}
	if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb) {
		return x86asm.Inst{Op: x86asm.NOP, Len: 4}, true
	}
	in, err := x86asm.Decode(code, mode)
	return in, err == nil
}

// x86PCThunk recognizes `mov reg, [esp]; ret` at a and returns reg.
func (m *mainLocator) x86PCThunk(a uint64) (x86asm.Reg, bool) {
	in, ok := m.x86Decode(a, 32)
	if !ok || in.Op != x86asm.MOV {
		return 0, false
	}
	r, isReg := in.Args[0].(x86asm.Reg)
	mem, isMem := in.Args[1].(x86asm.Mem)
	if !isReg || !isMem || mem.Base != x86asm.ESP || mem.Index != 0 || mem.Disp != 0 || mem.Segment != 0 {
		return 0, false
	}
	ret, ok := m.x86Decode(a+uint64(in.Len), 32)
	if !ok || ret.Op != x86asm.RET {
		return 0, false
	}
	return r, true
}

func relTarget(next uint64, rel x86asm.Rel, mode int) uint64 {
	t := next + uint64(int64(rel))
	if mode == 32 {
		t &= 0xffffffff
	}
	return t
}

// x86Start emulates _start up to its call of __libc_start_main; main is rdi
// (x86_64) or the last value pushed (i386).
func (m *mainLocator) x86Start(mode int) mainFound {
	var rs x86Regs
	type slot struct {
		v  uint64
		ok bool
	}
	var stack []slot
	ptr := mode / 8
	pc := m.img.entry
	for n := 0; n < maxStartInsns; n++ {
		in, ok := m.x86Decode(pc, mode)
		if !ok {
			break
		}
		next := pc + uint64(in.Len)
		dst, dstReg := in.Args[0].(x86asm.Reg)
		size := in.DataSize / 8
		switch in.Op {
		case x86asm.CALL:
			var callee []byte
			switch a := in.Args[0].(type) {
			case x86asm.Rel:
				t := relTarget(next, a, mode)
				if mode == 32 {
					if r, ok := m.x86PCThunk(t); ok {
						rs.set(r, next, true)
						pc = next
						continue
					}
					if t == next { // call 1f; 1: pop reg
						stack = append(stack, slot{next, true})
						pc = next
						continue
					}
				}
				callee = m.procNameAt(t)
			case x86asm.Mem:
				if slotAddr, ok := rs.memAddr(a, next, mode); ok {
					_, callee, _ = m.loadAt(slotAddr, ptr)
				}
			default:
				return notFound(startNotRecognized)
			}
			if !isStartMain(callee) {
				return notFound(startNotRecognized)
			}
			var v uint64
			if mode == 64 {
				v, ok = rs.get(x86asm.RDI)
			} else if k := len(stack); k > 0 {
				v, ok = stack[k-1].v, stack[k-1].ok
			} else {
				ok = false
			}
			if !ok {
				return notFound(startNotRecognized)
			}
			return m.x86Wrapper(v, pc, next, mode)
		case x86asm.JMP:
			if rel, ok := in.Args[0].(x86asm.Rel); ok {
				pc = relTarget(next, rel, mode)
				continue
			}
			return notFound(startNotRecognized)
		case x86asm.MOV:
			if dstReg {
				v, ok := m.x86Value(&rs, in.Args[1], next, mode, size)
				rs.set(dst, v, ok)
			}
		case x86asm.LEA:
			if mem, ok := in.Args[1].(x86asm.Mem); ok && dstReg {
				v, ok := rs.memAddr(mem, next, mode)
				rs.set(dst, v, ok)
			}
		case x86asm.ADD, x86asm.SUB:
			if dstReg {
				a, ok1 := rs.get(dst)
				b, ok2 := m.x86Value(&rs, in.Args[1], next, mode, size)
				if in.Op == x86asm.SUB {
					b = -b
				}
				rs.set(dst, a+b, ok1 && ok2)
			}
		case x86asm.XOR:
			if src, ok := in.Args[1].(x86asm.Reg); ok && dstReg && src == dst {
				rs.set(dst, 0, true)
			} else if dstReg {
				rs.set(dst, 0, false)
			}
		case x86asm.PUSH:
			v, ok := m.x86Value(&rs, in.Args[0], next, mode, ptr)
			stack = append(stack, slot{v, ok})
		case x86asm.POP:
			var s slot
			if k := len(stack); k > 0 {
				s, stack = stack[k-1], stack[:k-1]
			}
			if dstReg {
				rs.set(dst, s.v, s.ok)
			}
		case x86asm.NOP, x86asm.CMP, x86asm.TEST:
		default:
			if in.Op >= x86asm.JA && in.Op <= x86asm.JS || in.Op == x86asm.RET || in.Op == x86asm.HLT {
				return notFound(startNotRecognized)
			}
			if dstReg {
				rs.set(dst, 0, false)
			}
		}
		pc = next
	}
	return notFound(startNotRecognized)
}

// wrapperWindow is how far past _start's call glibc's __wrap_main may lie.
const wrapperWindow = 32

// x86Wrapper follows `[endbr] jmp main` at a when a lies just after the call.
func (m *mainLocator) x86Wrapper(a, call, next uint64, mode int) mainFound {
	if a > call && a <= next+wrapperWindow {
		pc := a
		in, ok := m.x86Decode(pc, mode)
		if ok && in.Op == x86asm.NOP && in.Len == 4 {
			pc += 4
			in, ok = m.x86Decode(pc, mode)
		}
		if rel, isRel := in.Args[0].(x86asm.Rel); ok && in.Op == x86asm.JMP && isRel {
			return mainFound{addr: relTarget(pc+uint64(in.Len), rel, mode), ok: true}
		}
	}
	return mainFound{addr: a, ok: true}
}
