package decompile

import (
	"slices"

	"github.com/rea-re/rea/engine/dataflow"
)

// varLive is the liveness of the named values: per block, the values
// live on entry and on exit, and each value's definition and reads.
type varLive struct {
	in, out map[*dataflow.Block]map[*value]bool
	def     map[*value]int       // position in its block (-1: a phi)
	reads   map[*value][]useSite // where the variable is read
	pos     map[*value]int       // position of each value in its block
	phiArgs map[*dataflow.Block][]*value
}

// coalesce gives a phi and its arguments one variable when their live
// ranges do not interfere, so that the copies of its edges disappear (a
// loop's induction variable is assigned in place). The check is the
// classic one on SSA: two values interfere when one is live where the
// other is defined.
func (e *emitter) coalesce() {
	lv := e.liveVars()
	parent := map[*value]*value{}
	var find func(v *value) *value
	find = func(v *value) *value {
		p, ok := parent[v]
		if !ok || p == v {
			return v
		}
		r := find(p)
		parent[v] = r
		return r
	}
	members := map[*value][]*value{}
	for v := range lv.def {
		members[v] = []*value{v}
	}
	for _, b := range e.f.Blocks {
		for _, p := range b.Values {
			if p.Kind != dataflow.Phi || e.vars[p] == "" {
				continue
			}
			for _, a := range p.Args {
				if _, ok := lv.def[a]; !ok || e.vars[a] == "" || a.Width != p.Width {
					continue
				}
				ra, rp := find(a), find(p)
				if ra == rp || !e.disjoint(lv, members[ra], members[rp]) {
					continue
				}
				parent[ra] = rp
				members[rp] = append(members[rp], members[ra]...)
				delete(members, ra)
			}
		}
	}
	// rename: a class takes the name of its first variable
	rename := map[string]string{}
	for r, ms := range members {
		if len(ms) < 2 {
			continue
		}
		first := e.vars[r]
		for _, m := range ms {
			if n := e.vars[m]; e.varIndex(n) < e.varIndex(first) {
				first = n
			}
		}
		for _, m := range ms {
			if n := e.vars[m]; n != first {
				rename[n] = first
				e.vars[m] = first
			}
		}
	}
	if len(rename) > 0 {
		e.decl = slices.DeleteFunc(e.decl, func(n string) bool { _, ok := rename[n]; return ok })
	}
}

func (e *emitter) varIndex(n string) int {
	return slices.Index(e.decl, n)
}

// disjoint reports whether no value of xs interferes with one of ys.
func (e *emitter) disjoint(lv *varLive, xs, ys []*value) bool {
	for _, x := range xs {
		for _, y := range ys {
			if x.Kind == dataflow.Phi && y.Kind == dataflow.Phi && x.Block == y.Block {
				return false
			}
			if lv.liveAt(x, y) || lv.liveAt(y, x) {
				return false
			}
		}
	}
	return true
}

// liveAt reports whether x is live just after y's definition.
func (lv *varLive) liveAt(x, y *value) bool {
	b, i := y.Block, lv.def[y]
	if x.Block == b {
		if lv.def[x] > i {
			return false
		}
	} else if !lv.in[b][x] {
		return false
	}
	if lv.out[b][x] {
		return true
	}
	for _, u := range lv.reads[x] {
		if u.block == b && u.pos > i {
			return true
		}
	}
	return false
}

// liveVars computes the liveness of the variables: reads at the
// evaluation point of the expression that reads them, a phi's argument
// read at the end of its predecessor.
func (e *emitter) liveVars() *varLive {
	lv := &varLive{in: map[*dataflow.Block]map[*value]bool{}, out: map[*dataflow.Block]map[*value]bool{},
		def: map[*value]int{}, reads: map[*value][]useSite{}, pos: map[*value]int{}}
	for _, b := range e.f.Blocks {
		for i, v := range b.Values {
			lv.pos[v] = i
			if e.vars[v] != "" {
				if v.Kind == dataflow.Phi {
					lv.def[v] = -1
				} else {
					lv.def[v] = i
				}
			}
		}
	}
	for _, b := range e.f.Blocks {
		for i, v := range b.Values {
			if !e.live[v] {
				continue
			}
			if v.Kind == dataflow.Phi {
				if e.vars[v] == "" {
					continue
				}
				for k, a := range v.Args {
					if _, ok := lv.def[a]; ok && k < len(b.Preds) {
						p := b.Preds[k]
						lv.reads[a] = append(lv.reads[a], useSite{p, len(p.Values)})
					}
				}
				continue
			}
			pt := i
			if e.inline[v] {
				pt = e.evalPt[v]
			}
			for _, d := range e.deps(v) {
				if _, ok := lv.def[d]; ok {
					lv.reads[d] = append(lv.reads[d], useSite{b, pt})
				}
			}
		}
	}
	// upward-exposed reads, then the backward fixpoint
	use := map[*dataflow.Block]map[*value]bool{}
	for _, b := range e.f.Blocks {
		use[b] = map[*value]bool{}
		lv.in[b] = map[*value]bool{}
		lv.out[b] = map[*value]bool{}
	}
	for x, us := range lv.reads {
		for _, u := range us {
			if x.Block != u.block {
				use[u.block][x] = true
			}
			if u.pos == len(u.block.Values) {
				lv.out[u.block][x] = true // read by an edge copy
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for i := len(e.f.Blocks) - 1; i >= 0; i-- {
			b := e.f.Blocks[i]
			for _, s := range b.Succs {
				for x := range lv.in[s] {
					if !lv.out[b][x] {
						lv.out[b][x] = true
						changed = true
					}
				}
			}
			for x := range use[b] {
				if !lv.in[b][x] {
					lv.in[b][x] = true
					changed = true
				}
			}
			for x := range lv.out[b] {
				if x.Block != b && !lv.in[b][x] {
					lv.in[b][x] = true
					changed = true
				}
			}
		}
	}
	return lv
}
