package dataflow

import (
	"slices"

	"github.com/rea-re/rea/engine/lift"
)

// Resolution is what data flow resolves of a procedure's indirect
// transfers.
type Resolution struct {
	// Func is the procedure's SSA, optimized, with its resolved switches'
	// cases as blocks (BuildWith).
	Func   *Func
	Tables []JumpTable
	Calls  []IndirectCall
	// UnresolvedJumps and UnresolvedCalls name each indirect jump and call
	// left unresolved, and why.
	UnresolvedJumps []Unresolved
	UnresolvedCalls []Unresolved
}

// maxSwitchRounds bounds the rebuilds of ResolveProcedure: a switch found
// in the cases of another needs one more.
const maxSwitchRounds = 8

// ResolveProcedure builds the SSA of a procedure's lifted instructions (in
// address order; insns[0] is the entry), runs the passes and resolves its
// jump tables and indirect calls: the integration point for a provider
// that has the procedure's instructions and the file. Calls to
// program-counter thunks are rewritten first (see RewritePCThunks) when
// opt.Lift is set. Each round rebuilds the SSA with the switches resolved
// so far, so that a jump reached only through another switch's cases is
// resolved too.
func ResolveProcedure(arch *Arch, insns []*lift.Insn, img Image, opt Options) (*Resolution, error) {
	if opt.Lift != nil {
		insns = RewritePCThunks(arch, insns, opt.Lift)
	}
	switches := map[uint64][]uint64{}
	// dropped are the tables a later round no longer bounds (a case's edge
	// reaches the jump around its guard): their edges are taken out again
	// and they stay unresolved.
	dropped := map[uint64]bool{}
	if opt.Scratch == nil {
		opt.Scratch = &Scratch{}
	}
	defer opt.Scratch.release()
	// Validated once: each round builds from the same instructions.
	if err := validate(insns); err != nil {
		return nil, err
	}
	r := &Resolution{}
	for round := 0; ; round++ {
		f := buildValid(arch, insns, BuildExtra{Switches: switches, NoReturn: opt.NoReturn, Scratch: opt.Scratch}, true)
		Optimize(f)
		tables, unresolved := ResolveJumpTables(f, img, opt)
		r.Func, r.Tables, r.UnresolvedJumps = f, tables, unresolved
		changed := false
		for _, u := range unresolved {
			if _, ok := switches[u.Addr]; ok {
				delete(switches, u.Addr)
				dropped[u.Addr], changed = true, true
			}
		}
		for _, t := range tables {
			if _, ok := switches[t.Jump]; !ok && !dropped[t.Jump] {
				switches[t.Jump], changed = t.Targets, true
			}
		}
		if !changed || round+1 == maxSwitchRounds {
			break
		}
	}
	// The tables of the last round are those its edges stand for.
	r.Tables = slices.DeleteFunc(r.Tables, func(t JumpTable) bool {
		if dropped[t.Jump] {
			r.UnresolvedJumps = append(r.UnresolvedJumps, Unresolved{Addr: t.Jump, Reason: ReasonBoundUnknown, Detail: "bounded only before its cases were added"})
			return true
		}
		return false
	})
	slices.SortFunc(r.UnresolvedJumps, func(a, b Unresolved) int { return cmpU64(a.Addr, b.Addr) })
	r.Calls, r.UnresolvedCalls = ResolveIndirectCalls(r.Func, img, opt)
	r.Func.scr = nil // the caller's Scratch serves its next procedure, not this Func
	// A jump resolved as a tail call is no longer an unresolved jump.
	r.UnresolvedJumps = slices.DeleteFunc(r.UnresolvedJumps, func(u Unresolved) bool {
		return slices.ContainsFunc(r.Calls, func(c IndirectCall) bool { return c.Tail && c.Call == u.Addr })
	})
	return r, nil
}

// RewritePCThunks returns insns with each call that only obtains its own
// return address replaced by what it computes, so that constant
// propagation sees the program counter (i386 position-independent code
// has no PC-relative addressing):
//
//   - a call of a thunk whose first instruction loads the word at the
//     stack pointer into a register and whose second returns (GCC's
//     __x86.get_pc_thunk.bx: mov (%esp),%ebx; ret) becomes that register
//     set to the return address;
//   - a call of the next instruction (clang's call 1f; 1: pop %ebx) keeps
//     its push of the return address and loses the transfer, so that the
//     pop reads the pushed constant.
//
// liftAt lifts the instruction at an address outside insns (the thunk);
// the instructions of insns are not modified (a rewritten one is a copy).
func RewritePCThunks(arch *Arch, insns []*lift.Insn, liftAt func(addr uint64) (*lift.Insn, bool)) []*lift.Insn {
	var out []*lift.Insn
	for i, in := range insns {
		k := -1
		for j := range in.Stmts {
			if s := &in.Stmts[j]; s.Op == lift.Call && s.A.Kind == lift.Const {
				k = j
			}
		}
		if k < 0 {
			continue
		}
		tgt := in.Stmts[k].A.Lo
		var repl *lift.Insn
		if tgt == in.Next() {
			repl = &lift.Insn{Addr: in.Addr, Len: in.Len, Mnemonic: in.Mnemonic, Temps: in.Temps,
				Stmts: append(append([]lift.Stmt{}, in.Stmts[:k]...), in.Stmts[k+1:]...)}
		} else if reg, ok := thunkReg(arch, tgt, liftAt); ok {
			repl = &lift.Insn{Addr: in.Addr, Len: in.Len, Mnemonic: in.Mnemonic + " (pc thunk)",
				Stmts: []lift.Stmt{{Op: lift.Copy, Dst: reg, A: lift.C(reg.Width, in.Next())}}}
		}
		if repl == nil {
			continue
		}
		if out == nil {
			out = append([]*lift.Insn{}, insns...)
		}
		out[i] = repl
	}
	if out == nil {
		return insns
	}
	return out
}

// thunkReg recognises a PC thunk at addr: a load of the word at the stack
// pointer into a register (directly or through a temporary) with no other
// effect, then a return.
func thunkReg(arch *Arch, addr uint64, liftAt func(uint64) (*lift.Insn, bool)) (lift.Operand, bool) {
	first, ok := liftAt(addr)
	if !ok || first == nil {
		return lift.Operand{}, false
	}
	var dst lift.Operand
	loaded := lift.Operand{}
	for _, s := range first.Stmts {
		switch {
		case s.Op == lift.Load && s.A.Kind == lift.Reg && s.A.Name == arch.SP && s.Dst.Width == arch.PtrWidth && loaded.Kind == lift.None:
			loaded = s.Dst
			if s.Dst.Kind == lift.Reg {
				dst = s.Dst
			}
		case s.Op == lift.Copy && loaded.Kind == lift.Temp && s.A == loaded && s.Dst.Kind == lift.Reg && s.Dst.Width == arch.PtrWidth:
			dst = s.Dst
		default:
			return lift.Operand{}, false
		}
	}
	if dst.Kind != lift.Reg || dst.Name == arch.SP {
		return lift.Operand{}, false
	}
	second, ok := liftAt(first.Next())
	if !ok || second == nil {
		return lift.Operand{}, false
	}
	for _, s := range second.Stmts {
		if s.Op == lift.Return {
			return dst, true
		}
	}
	return lift.Operand{}, false
}
