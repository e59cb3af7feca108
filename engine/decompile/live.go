package decompile

import (
	"fmt"
	"slices"

	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/lift"
)

// sideEffect reports whether v is a statement C must keep for its effect.
func sideEffect(v *value) bool {
	if v.Kind != dataflow.OpValue {
		return false
	}
	switch v.Op {
	case lift.Call, lift.TrapIf, lift.Unmodelled, lift.Branch, lift.Jump, lift.Return:
		return true
	}
	return false
}

// memEffect reports whether v writes memory (or may: calls, unmodelled).
func memEffect(v *value) bool {
	if v.Kind != dataflow.OpValue {
		return false
	}
	switch v.Op {
	case lift.Store, lift.Call, lift.Unmodelled:
		return true
	case lift.Jump:
		return len(v.Block.Succs) == 0 // a tail call
	}
	return false
}

// retValue is the value the Return v hands back as the procedure's
// result, nil when the prototype returns nothing or it is not named.
func (e *emitter) retValue(v *value) *value {
	if e.proto.Return == nil {
		return nil
	}
	if k := slices.Index(v.Names, e.proto.Return.Storage); k >= 0 && 2+k < len(v.Args) {
		return v.Args[2+k]
	}
	return nil
}

// deps are the values the C text of v reads.
func (e *emitter) deps(v *value) []*value {
	var out []*value
	add := func(vs ...*value) {
		for _, x := range vs {
			if x != nil && !x.IsMem() && x.Kind != dataflow.ConstValue {
				out = append(out, x)
			}
		}
	}
	switch v.Kind {
	case dataflow.Phi:
		if v.Width != 0 {
			add(v.Args...)
		}
		return out
	case dataflow.OpValue:
	default:
		return nil
	}
	switch v.Op {
	case lift.Load:
		add(v.Args[0])
	case lift.Store:
		add(v.Args[0], v.Args[1])
	case lift.Call:
		add(e.info[v].deps...)
	case lift.Branch, lift.TrapIf:
		add(v.Args[0])
	case lift.Jump:
		switch {
		case len(v.Args) == 0:
		case len(v.Block.Succs) > 0:
			if si := e.switches[v]; si != nil {
				add(si.index)
			} else {
				add(v.Args[0])
			}
		case e.info[v] != nil:
			add(e.info[v].deps...)
		case v.Args[0].Kind != dataflow.ConstValue:
			add(v.Args[0])
		}
	case lift.Return:
		add(e.retValue(v))
	case lift.Unmodelled:
	default:
		add(v.Args...)
	}
	return out
}

// liveness marks what the C text needs: the roots (effects, control and
// stores outside the frame) and what they read; a store to the frame
// joins them when a live load may read it, or when an address of the
// frame escapes.
func (e *emitter) liveness() {
	var work []*value
	mark := func(v *value) {
		if v != nil && !e.live[v] {
			e.live[v] = true
			work = append(work, v)
		}
	}
	var frameStores []*value
	for _, b := range e.f.Blocks {
		for _, v := range b.Values {
			switch {
			case sideEffect(v):
				mark(v)
			case v.Kind == dataflow.OpValue && v.Op == lift.Store:
				if _, ok := e.offs[v.Args[0]]; ok {
					frameStores = append(frameStores, v)
				} else {
					mark(v)
				}
			}
		}
	}
	for {
		for len(work) > 0 {
			v := work[len(work)-1]
			work = work[:len(work)-1]
			for _, d := range e.deps(v) {
				mark(d)
			}
		}
		escaped := e.frameEscapes()
		changed := false
		for _, s := range frameStores {
			if e.live[s] {
				continue
			}
			if escaped || e.storeRead(s) {
				mark(s)
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for _, b := range e.f.Blocks {
		for i, v := range b.Values {
			if !e.live[v] {
				continue
			}
			if v.Kind == dataflow.Phi {
				for k, a := range v.Args {
					if a.IsMem() || a.Kind == dataflow.ConstValue || k >= len(b.Preds) {
						continue
					}
					p := b.Preds[k]
					e.uses[a] = append(e.uses[a], useSite{p, len(p.Values)})
				}
				continue
			}
			for _, d := range e.deps(v) {
				e.uses[d] = append(e.uses[d], useSite{b, i})
			}
		}
	}
}

// frameEscapes reports whether a live value uses an address of the frame
// other than as the address of a load or store or in further address
// arithmetic.
func (e *emitter) frameEscapes() bool {
	for v := range e.live {
		if _, ok := e.offs[v]; ok {
			continue // address arithmetic: itself an address of the frame
		}
		for i, d := range e.deps(v) {
			if _, ok := e.offs[d]; !ok {
				continue
			}
			if v.Kind == dataflow.OpValue && (v.Op == lift.Load || v.Op == lift.Store) && i == 0 && d == v.Args[0] {
				continue
			}
			return true
		}
	}
	return false
}

// storeRead reports whether a live load may read what the frame store s
// writes.
func (e *emitter) storeRead(s *value) bool {
	so := e.offs[s.Args[0]]
	sw := int64(s.Args[1].Width / 8)
	for v := range e.live {
		if v.Kind != dataflow.OpValue || v.Op != lift.Load {
			continue
		}
		lo, ok := e.offs[v.Args[0]]
		if !ok {
			continue
		}
		if lo.Base != so.Base {
			return true
		}
		if lo.Off < so.Off+sw && so.Off < lo.Off+int64(v.Width/8) {
			return true
		}
	}
	return false
}

// decide chooses which live values are inlined into their single use and
// names the others.
func (e *emitter) decide() {
	eval := map[*value]int{}
	e.evalPt = eval
	for _, b := range e.f.Blocks {
		n := len(b.Values)
		cnt := make([]int, n+1)
		for i, v := range b.Values {
			cnt[i+1] = cnt[i]
			if memEffect(v) {
				cnt[i+1]++
			}
		}
		for i := n - 1; i >= 0; i-- {
			v := b.Values[i]
			if !e.live[v] || v.Kind != dataflow.OpValue || sideEffect(v) || v.Op == lift.Store {
				continue
			}
			us := e.uses[v]
			if len(us) != 1 || us[0].block != b {
				continue
			}
			j := us[0].pos
			pt := j
			if j < n && e.inline[b.Values[j]] {
				pt = eval[b.Values[j]]
			}
			if v.Op == lift.Load && cnt[pt]-cnt[i+1] > 0 {
				continue
			}
			e.inline[v] = true
			eval[v] = pt
		}
	}
	for v := range e.live {
		if e.cheap(v) {
			e.inline[v] = true
		}
	}
	for _, b := range e.f.Blocks {
		for _, v := range b.Values {
			if !e.live[v] || e.inline[v] || len(e.uses[v]) == 0 {
				continue
			}
			switch {
			case v.Kind == dataflow.Phi && v.Width != 0,
				v.Kind == dataflow.Clobber && e.retOf[v] != nil,
				v.Kind == dataflow.OpValue && !sideEffect(v) && v.Op != lift.Store:
				e.newVar(v)
			}
		}
	}
}

func (e *emitter) newVar(v *value) string {
	e.nvar++
	n := fmt.Sprintf("v%d", e.nvar)
	e.vars[v] = n
	e.decl = append(e.decl, n)
	e.vtype[n] = uT(v.Width)
	return n
}

// cheap reports whether v is worth repeating at each use rather than
// naming: a conversion of a value that never changes (a parameter, the
// entry stack pointer, a constant) or one operation on such values.
func (e *emitter) cheap(v *value) bool {
	if v.Kind != dataflow.OpValue || sideEffect(v) || v.Lane != 0 {
		return false
	}
	switch v.Op {
	case lift.Trunc, lift.ZExt, lift.SExt, lift.Extract, lift.Copy, lift.Add, lift.Sub:
	case lift.Load:
		_, ok := e.constLoad(v)
		return ok
	default:
		return false
	}
	for _, a := range v.Args {
		if a.IsMem() {
			continue
		}
		if a.Kind != dataflow.Entry && a.Kind != dataflow.ConstValue {
			if v.Op == lift.Add || v.Op == lift.Sub || !e.cheapLeaf(a) {
				return false
			}
		}
	}
	return true
}

// cheapLeaf: a conversion of a parameter is itself cheap (two casts).
func (e *emitter) cheapLeaf(a *value) bool {
	if a.Kind != dataflow.OpValue {
		return false
	}
	switch a.Op {
	case lift.Trunc, lift.ZExt, lift.SExt, lift.Extract:
		return a.Args[0].Kind == dataflow.Entry
	}
	return false
}
