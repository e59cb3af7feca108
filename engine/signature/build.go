package signature

import (
	"fmt"
	"strings"

	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/lift"
)

// Build constructs and optimises the SSA form of a procedure for
// signature recovery. On i386 a call to a position-independent code thunk
// (__x86.get_pc_thunk.bx and its kin, named by env.Image) becomes what the
// thunk does, loading the return address into its register, so that the
// addresses computed from it are constants.
func Build(env *Env, insns []*lift.Insn) (*dataflow.Func, error) {
	if env.Conv.Arch == "i386" && env.Image != nil {
		insns = rewriteThunks(env, insns)
	}
	f, err := dataflow.Build(dataflow.ArchFor(env.Conv), insns)
	if err != nil {
		return nil, fmt.Errorf("signature: %w", err)
	}
	dataflow.Optimize(f)
	return f, nil
}

func rewriteThunks(env *Env, insns []*lift.Insn) []*lift.Insn {
	var out []*lift.Insn
	changed := false
	var popped *lift.Insn
	for i, in := range insns {
		if in == popped {
			in = &lift.Insn{Addr: in.Addr, Len: in.Len, Mnemonic: in.Mnemonic}
		}
		for j := range in.Stmts {
			s := &in.Stmts[j]
			if s.Op != lift.Call || !s.A.IsConst() {
				continue
			}
			if s.A.Lo == in.Next() {
				// call to the next instruction (clang's PIC base idiom:
				// the pop that follows reads the pushed address): only
				// the push happens
				if !changed {
					out, changed = append(out, insns[:i]...), true
				}
				c := &lift.Insn{Addr: in.Addr, Len: in.Len, Mnemonic: in.Mnemonic, Temps: in.Temps}
				if reg, ok := popInto(insns, i+1); ok {
					// and the pop is the address loaded
					c.Temps = 0
					c.Stmts = []lift.Stmt{{Op: lift.Copy, Dst: lift.R(reg, 32), A: lift.C(32, in.Next())}}
					popped = insns[i+1]
				} else {
					for _, t := range in.Stmts {
						if t.Op != lift.Call {
							c.Stmts = append(c.Stmts, t)
						}
					}
				}
				in = c
				break
			}
			name, _, ok := env.Image.Symbol(s.A.Lo)
			if !ok || !strings.HasPrefix(name, "__x86.get_pc_thunk.") {
				continue
			}
			reg := "e" + strings.TrimPrefix(name, "__x86.get_pc_thunk.")
			if !changed {
				out, changed = append(out, insns[:i]...), true
			}
			in = &lift.Insn{Addr: in.Addr, Len: in.Len, Mnemonic: in.Mnemonic,
				Stmts: []lift.Stmt{{Op: lift.Copy, Dst: lift.R(reg, 32), A: lift.C(32, in.Next())}}}
			break
		}
		if changed {
			out = append(out, in)
		}
	}
	if !changed {
		return insns
	}
	return out
}

// popInto reports the register the pop at insns[i] loads, if it is one.
func popInto(insns []*lift.Insn, i int) (string, bool) {
	if i >= len(insns) || insns[i].Mnemonic != "pop" {
		return "", false
	}
	for _, s := range insns[i].Stmts {
		if s.Dst.Kind == lift.Reg && s.Dst.Name != "esp" && s.Dst.Width == 32 {
			return s.Dst.Name, true
		}
	}
	return "", false
}

// Program recovers the prototypes of a set of procedures together: a
// procedure that passes a register on to a callee counts it as a
// parameter only when the callee's prototype takes it, so prototypes are
// recomputed until none changes (at most rounds times).
func Program(funcs map[uint64]*dataflow.Func, env *Env, rounds int) map[uint64]*Prototype {
	protos := map[uint64]*Prototype{}
	e := *env
	prev := env.Known
	e.Known = func(addr uint64) (*Prototype, bool) {
		if p, ok := protos[addr]; ok {
			return p, true
		}
		if prev != nil {
			return prev(addr)
		}
		return nil, false
	}
	for r := 0; r < max(rounds, 1); r++ {
		next := make(map[uint64]*Prototype, len(funcs))
		changed := false
		for addr, f := range funcs {
			p := Infer(f, &e)
			next[addr] = p
			if old, ok := protos[addr]; !ok || old.String("f") != p.String("f") {
				changed = true
			}
		}
		protos = next
		if !changed {
			break
		}
	}
	return protos
}
