package signature

import (
	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/lift"
)

// i386 conventions from the code (issue 25 item 3): a procedure compiled
// for stdcall or fastcall says so itself. Its returns remove its stack
// arguments (`ret imm16`: imm/4 slots), and a fastcall procedure reads ecx
// (and edx) before writing them, where a cdecl one has nothing there.

// CalleePops returns how many bytes beyond the return address every
// return of insns removes from the stack (the imm16 of x86's `ret imm16`,
// lifted as an addition to the stack pointer sp before the return), or 0
// when a return removes none or two returns disagree.
func CalleePops(insns []*lift.Insn, sp string) int64 {
	var pops int64 = -1
	for _, in := range insns {
		// the return's own pop of the return address adds the pointer's
		// size to sp; imm16 is a second addition
		var add, ptr int64
		ret := false
		for j := range in.Stmts {
			s := &in.Stmts[j]
			switch {
			case s.Op == lift.Add && s.Dst.Kind == lift.Reg && s.Dst.Name == sp && s.B.IsConst():
				add += int64(s.B.Lo)
				ptr = int64(s.Dst.Width / 8)
			case s.Op == lift.Return:
				ret = true
			}
		}
		if !ret {
			continue
		}
		add -= ptr
		if pops >= 0 && pops != add {
			return 0
		}
		pops = add
	}
	return max(pops, 0)
}

// i386Convention is the convention a cdecl-assumed i386 procedure was
// compiled for when its code says otherwise: fastcall when it reads ecx
// before writing it and not eax (GCC's local regparm functions take eax
// first), stdcall when its returns pop its arguments; nil to keep cdecl.
func (a *analysis) i386Convention() *abi.Convention {
	if a.env.Conv.Name != "cdecl" {
		return nil
	}
	// read for the procedure's own purposes: bits that only reach a
	// return register are no evidence of an argument
	a.noReturnFlow = true
	defer func() { a.noReturnFlow = false }()
	used := func(r string) bool { e := a.entry[r]; return e != nil && a.realUse(e, r) }
	switch {
	case used("ecx") && !used("eax"):
		return abi.FastCall()
	case a.env.Pops[a.f.Entry] > 0 && a.env.Pops[a.f.Entry]%4 == 0:
		return abi.StdCall()
	}
	return nil
}

// poppedParams makes the stack parameters of a callee-pops procedure the
// slots its returns remove: the ones it reads, then unread ones (counted,
// as a caller pushes them) up to Pops bytes; none beyond.
func poppedParams(cv *abi.Convention, stack []Param, pops int64) []Param {
	end := cv.StackArgs + pops
	var out []Param
	next := cv.StackArgs
	for _, q := range stack {
		o, ok := stackOffset(q.Storage)
		if !ok || o >= end {
			break
		}
		out = append(out, q)
		next = o + max(cv.StackSlot, int64(q.Width/8+int(cv.StackSlot)-1)/cv.StackSlot*cv.StackSlot)
	}
	for ; next < end; next += cv.StackSlot {
		out = append(out, Param{Storage: StackName(next), Class: ctypes.ClassInteger, Width: 32, Signed: true})
	}
	return out
}

// stackOffset parses StackName's form.
func stackOffset(storage string) (int64, bool) {
	const pre = "stack+0x"
	if len(storage) <= len(pre) || storage[:len(pre)] != pre {
		return 0, false
	}
	var v int64
	for _, c := range storage[len(pre):] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
