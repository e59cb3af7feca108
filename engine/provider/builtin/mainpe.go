package builtin

import (
	"golang.org/x/arch/x86/x86asm"
)

// The PE x86_64 CRT reader of mainentry.go.

// maxCRTInsns bounds the instructions decoded for the PE CRT pattern.
const maxCRTInsns = 1 << 13

// peMain finds main as the function whose return value the CRT passes to
// exit (see the comment at the top).
func (m *mainLocator) peMain() mainFound {
	img := m.img
	if !img.hasEntry || img.pe.dll {
		return mainFound{}
	}
	if img.arch != "x86_64" {
		return notFound("the CRT start code of this architecture is not analyzed")
	}
	const why = "the CRT's call into main was not recognized"
	exitThunks, exitSlots := map[uint64]bool{}, map[uint64]bool{}
	for i := range m.b.syms {
		s := &m.b.syms[i]
		if s.source != srcImported || string(symName(m.data, m.b.arena, s)) != "exit" {
			continue
		}
		if s.kind == kindImport {
			exitSlots[s.addr] = true
		} else {
			exitThunks[s.addr] = true
		}
	}
	if len(exitThunks)+len(exitSlots) == 0 {
		return notFound(why)
	}
	isExit := func(in x86asm.Inst, next uint64) bool {
		switch a := in.Args[0].(type) {
		case x86asm.Rel:
			return exitThunks[relTarget(next, a, 64)]
		case x86asm.Mem:
			return a.Base == x86asm.RIP && a.Index == 0 && exitSlots[next+uint64(a.Disp)]
		}
		return false
	}
	budget := maxCRTInsns
	// The entry function and the functions it calls or jumps to directly.
	funcs := []uint64{img.entry}
	for pc, n := img.entry, 0; n < maxStartInsns && budget > 0; n++ {
		budget--
		in, ok := m.x86Decode(pc, 64)
		if !ok {
			break
		}
		next := pc + uint64(in.Len)
		if rel, ok := in.Args[0].(x86asm.Rel); ok && (in.Op == x86asm.CALL || in.Op == x86asm.JMP) {
			if t := relTarget(next, rel, 64); img.execAt(t) && !exitThunks[t] {
				funcs = append(funcs, t)
			}
		}
		if in.Op == x86asm.RET || in.Op == x86asm.JMP || in.Op == x86asm.HLT {
			break
		}
		pc = next
	}
	found := map[uint64]bool{}
	for _, f := range funcs {
		end := f + 1<<12
		if i, ok := pdataAt(img.pe.pdata, f); ok {
			end = img.pe.pdata[i].end
		}
		for pc := f; pc < end && budget > 0; {
			budget--
			in, ok := m.x86Decode(pc, 64)
			if !ok {
				break
			}
			next := pc + uint64(in.Len)
			if rel, ok := in.Args[0].(x86asm.Rel); ok && in.Op == x86asm.CALL {
				t := relTarget(next, rel, 64)
				if img.execAt(t) && !exitThunks[t] && m.returnsToExit(next, isExit, &budget) {
					found[t] = true
				}
			}
			pc = next
		}
	}
	if len(found) != 1 {
		return notFound(why)
	}
	for a := range found {
		return mainFound{addr: a, ok: true}
	}
	return notFound(why)
}

// pdataAt finds the .pdata range starting at a.
func pdataAt(rs []codeRange, a uint64) (int, bool) {
	for i := range rs {
		if rs[i].start == a {
			return i, true
		}
	}
	return 0, false
}

// win64Volatile are the registers a call clobbers (rax, rcx, rdx, r8-r11).
const win64Volatile = 1<<0 | 1<<1 | 1<<2 | 1<<8 | 1<<9 | 1<<10 | 1<<11

// returnsToExit follows the paths from pc with the just-called function's
// return value in rax and reports whether one reaches a call of exit with
// that value in ecx.
func (m *mainLocator) returnsToExit(pc uint64, isExit func(x86asm.Inst, uint64) bool, budget *int) bool {
	type state struct {
		pc   uint64
		held uint16 // registers holding the return value
	}
	work := []state{{pc, 1}} // rax
	seen := map[state]bool{}
	const pathLen = 48
	for len(work) > 0 {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		for n := 0; n < pathLen && s.held != 0 && *budget > 0; n++ {
			if seen[s] {
				break
			}
			seen[s] = true
			*budget--
			in, ok := m.x86Decode(s.pc, 64)
			if !ok {
				break
			}
			next := s.pc + uint64(in.Len)
			dst, dstReg := in.Args[0].(x86asm.Reg)
			k, w := x86Family(dst)
			switch {
			case in.Op == x86asm.CALL:
				if isExit(in, next) {
					if s.held&(1<<1) != 0 { // rcx
						return true
					}
					s.held = 0
					continue
				}
				s.held &^= win64Volatile
			case in.Op == x86asm.JMP:
				rel, ok := in.Args[0].(x86asm.Rel)
				if !ok {
					s.held = 0
					continue
				}
				s.pc = relTarget(next, rel, 64)
				continue
			case in.Op >= x86asm.JA && in.Op <= x86asm.JS:
				if rel, ok := in.Args[0].(x86asm.Rel); ok {
					work = append(work, state{relTarget(next, rel, 64), s.held})
				}
			case in.Op == x86asm.RET || in.Op == x86asm.HLT || in.Op == x86asm.INT || in.Op == x86asm.UD2:
				s.held = 0
				continue
			case in.Op == x86asm.MOV && dstReg && k >= 0:
				src, ok := in.Args[1].(x86asm.Reg)
				sk, sw := x86Family(src)
				if ok && sk >= 0 && sw >= 32 && w >= 32 && s.held&(1<<sk) != 0 {
					s.held |= 1 << k
				} else {
					s.held &^= 1 << k
				}
			case in.Op == x86asm.CMP || in.Op == x86asm.TEST || in.Op == x86asm.PUSH || in.Op == x86asm.NOP:
			case dstReg && k >= 0:
				s.held &^= 1 << k
			}
			s.pc = next
		}
	}
	return false
}
