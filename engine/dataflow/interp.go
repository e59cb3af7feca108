package dataflow

import (
	"errors"
	"fmt"

	"github.com/rea-re/rea/engine/lift"
)

// Errors of Run.
var (
	ErrNotInterpreted = errors.New("dataflow: calls and unmodelled instructions are not interpreted")
	ErrStepLimit      = errors.New("dataflow: step limit reached")
	ErrFellOff        = errors.New("dataflow: control runs off the procedure")
)

// Exit is how a run of a procedure ended: the address control left to and,
// for a return, the values of the Arch's LiveOut registers.
type Exit struct {
	Target uint64
	Return bool
	Regs   map[string]lift.Value
}

// Run interprets f from the registers and memory of st, each operation by
// lift.Step on a one-statement instruction so that the semantics are the
// IR interpreter's own; stores change st.Mem. It stops at a return or an
// exit, after maxSteps values, or at the first error.
func Run(f *Func, st *lift.State, maxSteps int) (*Exit, error) {
	vals := make([]lift.Value, f.nextID+1)
	scratch := &lift.State{Regs: map[string]lift.Value{}, Mem: st.Mem, MemUndef: st.MemUndef}
	insn := &lift.Insn{Stmts: make([]lift.Stmt, 1)}
	get := func(v *Value) lift.Value {
		if v.Kind == ConstValue {
			return lift.Value{Lo: v.Lo, Hi: v.Hi}
		}
		return vals[v.ID]
	}
	names := [...]string{"a", "b", "c"}
	step := func(v *Value, s lift.Stmt) (lift.Value, error) {
		ops := [...]*lift.Operand{&s.A, &s.B, &s.C}
		for i, a := range v.Args {
			if i >= 3 {
				break
			}
			if a.Width == 0 { // the memory token is the state's memory
				continue
			}
			*ops[i] = lift.R(names[i], a.Width)
			scratch.Regs[names[i]] = get(a)
		}
		insn.Stmts[0] = s
		if _, err := lift.Step(insn, scratch); err != nil {
			return lift.Value{}, err
		}
		return scratch.Regs["d"], nil
	}
	b, from := f.Blocks[0], (*Block)(nil)
	steps := 0
	phiVals := []lift.Value{}
	for {
		// Phis read their arguments in parallel, on entry.
		if from != nil {
			k := -1
			for i, p := range b.Preds {
				if p == from {
					k = i
					break
				}
			}
			phiVals = phiVals[:0]
			for _, v := range b.Values {
				if v.Kind != Phi {
					break
				}
				phiVals = append(phiVals, get(v.Args[k]))
			}
			for i, x := range phiVals {
				vals[b.Values[i].ID] = x
			}
		}
		var next *Block
		for _, v := range b.Values {
			if steps++; steps > maxSteps {
				return nil, ErrStepLimit
			}
			switch v.Kind {
			case Phi:
				continue
			case Entry:
				if v.Width == 0 {
					continue
				}
				x, ok := st.Regs[v.Loc]
				if !ok {
					return nil, fmt.Errorf("%w: %s", lift.ErrNoRegister, v.Loc)
				}
				vals[v.ID] = x
				continue
			case Clobber:
				return nil, fmt.Errorf("%w: %#x", ErrNotInterpreted, v.Addr)
			}
			var err error
			switch v.Op {
			case lift.Call, lift.Unmodelled:
				return nil, fmt.Errorf("%w: %#x", ErrNotInterpreted, v.Addr)
			case lift.Undef:
				vals[v.ID] = lift.Value{Undef: true}
			case lift.Load:
				vals[v.ID], err = step(v, lift.Stmt{Op: lift.Load, Dst: lift.R("d", v.Width)})
			case lift.Store:
				_, err = step(v, lift.Stmt{Op: lift.Store})
			case lift.TrapIf:
				_, err = step(v, lift.Stmt{Op: lift.TrapIf, Text: v.Text})
			case lift.Branch:
				c := get(v.Args[0])
				if c.Undef {
					return nil, fmt.Errorf("%#x: %w", v.Addr, lift.ErrUndefined)
				}
				next = b.Succs[1]
				if c.Lo&1 == 1 {
					next = b.Succs[0]
				}
			case lift.Jump:
				if len(v.Args) == 0 {
					next = b.Succs[0]
					break
				}
				t := get(v.Args[0])
				if t.Undef {
					return nil, fmt.Errorf("%#x: %w", v.Addr, lift.ErrUndefined)
				}
				if len(v.Args) == 1 { // a switch: the case whose block starts at the target
					for _, s := range b.Succs {
						if s.Addr == t.Lo {
							next = s
						}
					}
					if next != nil {
						break
					}
				}
				return &Exit{Target: t.Lo}, nil
			case lift.Return:
				t := get(v.Args[0])
				if t.Undef {
					return nil, fmt.Errorf("%#x: %w", v.Addr, lift.ErrUndefined)
				}
				e := &Exit{Target: t.Lo, Return: true, Regs: map[string]lift.Value{}}
				named := len(v.Args) - len(v.Names)
				for i, n := range v.Names {
					e.Regs[n] = get(v.Args[named+i])
				}
				return e, nil
			default:
				vals[v.ID], err = step(v, lift.Stmt{Op: v.Op, Lane: v.Lane, Aux: v.Aux, Dst: lift.R("d", v.Width)})
			}
			if err != nil {
				return nil, fmt.Errorf("%#x: %w", v.Addr, err)
			}
		}
		if next == nil {
			if len(b.Succs) == 0 {
				return nil, ErrFellOff
			}
			next = b.Succs[0]
		}
		from, b = b, next
	}
}
