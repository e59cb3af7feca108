package dataflow

import (
	"github.com/rea-re/rea/engine/lift"
)

// Optimize runs the passes over f until nothing changes (bounded): copy
// propagation, constant folding, global value numbering, flag folding,
// branches on constants made jumps (and the blocks no longer reached
// removed) and dead-code elimination.
//
// A pass known to change nothing if run on f as it is is skipped: each
// pass is a deterministic function of f, and one that reports no change
// made none, so skipping it leaves every later pass, and the result,
// exactly as running it would. What is known (idle): a pass that found
// nothing still finds nothing until another pass changes f; copy
// propagation, branch folding and dead-code elimination leave nothing
// for a second run of themselves; and what dead-code elimination removes
// enables no pass. When every pass is idle the remaining rounds would
// change nothing: most of the round that used to confirm it is saved.
func Optimize(f *Func) {
	const (
		fold = iota
		vn
		flags
		branches
		copies
		dead
		npass
	)
	passes := [npass]func(*Func) bool{foldConstants, valueNumber, foldFlags, foldBranches, copyPropagate, eliminateDeadCode}
	var idle [npass]bool
	var pending *forwarding // foldPending's replacements, not applied yet
	// ran records what pass i's run leaves known.
	ran := func(i int, changed bool) {
		switch {
		case !changed || i == dead:
			// Nothing changed, or only values no live value reads,
			// directly or through others, were removed: no live value's
			// arguments (nor theirs) changed. Constant, flag and branch
			// folding look at a value, its arguments and theirs alone;
			// value numbering found no two equal values among more
			// values than remain; copy propagation's trivial phis are
			// phis and their arguments (a live phi's arguments are
			// live); dead-code elimination finds the same live values.
		default:
			idle = [npass]bool{}
		}
		// Constant folding, value numbering and flag folding may find more
		// in what they themselves rewrote (a chain folds one link a run).
		if !changed || i == copies || i == branches || i == dead {
			idle[i] = true
		}
	}
	done := [npass]bool{true, true, true, true, true, true}
	for round := 0; round < 8 && idle != done; round++ {
		// After the first round the copies are already propagated: the
		// last pass of a round, dead-code elimination, only removes
		// values nothing live reads, which makes no copy and no trivial
		// phi (a live phi's arguments are live).
		if round == 0 {
			ran(copies, copyPropagate(f))
		}
		for i, pass := range passes {
			if idle[i] {
				continue
			}
			// Constant folding's replacements wait for value numbering,
			// whose sweep applies both: folding that replaced a value
			// changed f, so value numbering is not idle and runs next.
			var changed bool
			switch i {
			case fold:
				changed, pending = foldPending(f)
				if pending.n == 0 {
					pending = nil
				}
			case vn:
				changed = valueNumberAfter(f, pending)
				pending = nil
			default:
				changed = pass(f)
			}
			ran(i, changed)
			if idle == done {
				break
			}
		}
	}
}

// forwarding maps values (by ID) to their replacements.
type forwarding struct {
	to []*Value
	n  int
	// touched are the IDs whose entry was set since the last reset, which
	// clears those alone: clearing the whole table before every pass
	// costs more than the passes over small procedures (while the
	// collector runs, each cleared pointer pays a write barrier).
	touched []int32
}

// reset makes every entry of fw's table nil again (up to its capacity).
func (fw *forwarding) reset() {
	to := fw.to[:cap(fw.to)]
	for _, id := range fw.touched {
		to[id] = nil
	}
	fw.touched = fw.touched[:0]
	fw.n = 0
}

// newForwarding returns an empty forwarding over f's values, in f's
// scratch memory: a pass holds one at a time, and the next pass's call
// reuses it.
func newForwarding(f *Func) *forwarding {
	s := f.scratch()
	s.fw.reset()
	n := f.nextID + 1
	if cap(s.fw.to) < n {
		s.fw.to = make([]*Value, n, n+n/4)
	} else {
		s.fw.to = s.fw.to[:n]
	}
	return &s.fw
}

func (fw *forwarding) set(v, w *Value) {
	if fw.to[v.ID] == nil {
		fw.n++
		fw.touched = append(fw.touched, int32(v.ID))
	}
	fw.to[v.ID] = w
}

// resolve returns what v's uses become by fw's replacements: v itself,
// or the end of its chain of replacements.
func (fw *forwarding) resolve(v *Value) *Value {
	for seen := 0; seen <= fw.n; seen++ {
		x := fw.get(v)
		if x == nil || x == v {
			break
		}
		v = x
	}
	return v
}

func (fw *forwarding) get(v *Value) *Value {
	if v.ID < len(fw.to) {
		return fw.to[v.ID]
	}
	return nil
}

// replaceAll rewrites every use through fw (resolving chains) and drops
// the replaced values from their blocks. It reports whether an argument of
// a phi changed.
func replaceAll(f *Func, fw *forwarding) bool {
	return sweep(f, fw, nil)
}

// sweep is replaceAll; with found, it also appends to *found, in block
// order, the values it keeps and rewrites that are copies or trivial phis
// once rewritten (forwardOf).
func sweep(f *Func, fw *forwarding, found *[]*Value) bool {
	if fw.n == 0 {
		return false
	}
	phiChanged := false
	resolve := func(v *Value) *Value {
		w := fw.get(v)
		if w == nil {
			return v
		}
		for seen := 0; seen <= fw.n; seen++ {
			x := fw.get(w)
			if x == nil || x == w {
				break
			}
			w = x
		}
		if fw.to[v.ID] != w {
			fw.to[v.ID] = w
		}
		return w
	}
	// Pointers are written only where they change: with the collector
	// running, every pointer store pays a write barrier. The table is
	// read inline for the common case, a value not replaced.
	to := fw.to
	for _, b := range f.Blocks {
		n := 0
		for k, v := range b.Values {
			if v.ID < len(to) && to[v.ID] != nil {
				continue
			}
			rewritten := false
			for i, a := range v.Args {
				if a.ID >= len(to) || to[a.ID] == nil {
					continue
				}
				if r := resolve(a); r != a {
					v.Args[i] = r
					rewritten = true
				}
			}
			if rewritten {
				phiChanged = phiChanged || v.Kind == Phi
				if found != nil && forwardOf(v) != nil {
					*found = append(*found, v)
				}
			}
			if n != k {
				b.Values[n] = v
			}
			n++
		}
		if n < len(b.Values) {
			clear(b.Values[n:])
			b.Values = b.Values[:n]
		}
	}
	return phiChanged
}

// forwardOf returns what copy propagation replaces v by: the source of a
// copy, the one value of a trivial phi (every argument the phi itself or
// that value); nil for any other value.
func forwardOf(v *Value) *Value {
	switch {
	case v.Kind == OpValue && v.Op == lift.Copy && len(v.Args) == 1 && v.Args[0].Width == v.Width && v.Lane == 0:
		return v.Args[0]
	case v.Kind == Phi:
		var same *Value
		for _, a := range v.Args {
			if a == v || a == same {
				continue
			}
			if same != nil {
				return nil
			}
			same = a
		}
		return same
	}
	return nil
}

// breakCycles drops from fw the first value, in order, of each cycle of
// forwardings (phis of unreachable loops forwarding into each other only),
// so that it stays; it reports whether there was one.
func breakCycles(order []*Value, fw *forwarding) bool {
	broke := false
	for _, v := range order {
		w := fw.get(v)
		for seen := 0; w != nil && seen <= fw.n; seen++ {
			if w == v {
				fw.to[v.ID] = nil
				fw.n--
				broke = true
				break
			}
			w = fw.get(w)
		}
	}
	return broke
}

// copyPropagate replaces copies by their source and trivial phis (every
// argument the phi itself or one value) by that value, until none is left.
func copyPropagate(f *Func) bool {
	fw := newForwarding(f)
	order := scanCopies(f, fw, nil)
	any := false
	for fw.n > 0 {
		broke := breakCycles(order, fw)
		any = true
		// Another round finds something only where this one changed a
		// phi's arguments (a copy stays a copy whatever its argument, of
		// the same width, is replaced by) or left a cycle's first. Unless
		// it left one, what the next round finds is among the values the
		// sweep rewrote (any other it keeps was no copy nor trivial phi
		// before and reads as it did), and the sweep collects those as it
		// goes, instead of a scan of every value after it.
		found := order[:0]
		if !sweep(f, fw, &found) && !broke {
			break
		}
		fw = newForwarding(f)
		if broke {
			order = scanCopies(f, fw, found[:0])
			continue
		}
		order = found
		for _, v := range order {
			fw.set(v, forwardOf(v))
		}
	}
	return any
}

// scanCopies enters in fw every copy and trivial phi of f (forwardOf),
// which it appends to order, in block order.
func scanCopies(f *Func, fw *forwarding, order []*Value) []*Value {
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if w := forwardOf(v); w != nil {
				fw.set(v, w)
				order = append(order, v)
			}
		}
	}
	return order
}

// pure reports whether v computes a value from its arguments alone, with no
// effect and no fault (division is left alone: it may trap).
func pure(v *Value) bool {
	if v.Kind != OpValue {
		return false
	}
	switch v.Op {
	case lift.Load, lift.Store, lift.Call, lift.Return, lift.Jump, lift.Branch, lift.TrapIf, lift.Unmodelled,
		lift.Undef, lift.UDiv, lift.SDiv, lift.URem, lift.SRem, lift.Invalid:
		return false
	}
	return true
}

// eliminateDeadCode removes the values nothing live reads. Live from the
// start: stores (to memory that is not a promoted slot: promoted stores are
// already gone), calls, traps, unmodelled instructions and control.
func eliminateDeadCode(f *Func) bool {
	s := f.scratch()
	live := s.bools(f.nextID + 1)
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if v.Kind == OpValue && !live[v.ID] {
				switch v.Op {
				case lift.Store, lift.Call, lift.Return, lift.Jump, lift.Branch, lift.TrapIf, lift.Unmodelled,
					lift.UDiv, lift.SDiv, lift.URem, lift.SRem:
					live[v.ID] = true
					markArgs(live, v)
				}
			}
		}
	}
	changed := false
	for _, b := range f.Blocks {
		n := 0
		for k, v := range b.Values {
			if live[v.ID] {
				if n != k {
					b.Values[n] = v
				}
				n++
			}
		}
		if n < len(b.Values) {
			changed = true
			clear(b.Values[n:])
			b.Values = b.Values[:n]
		}
	}
	return changed
}

// markArgs marks live what v reads, directly or through others. It
// recurses on the goroutine's stack instead of pushing onto a worklist in
// the heap: while the collector runs, every pointer pushed there pays a
// write barrier, which cost more than the marking itself. (The live set,
// everything the roots reach, does not depend on the order of the walk.)
func markArgs(live []bool, v *Value) {
	for _, a := range v.Args {
		if !live[a.ID] && a.Kind != ConstValue {
			live[a.ID] = true
			markArgs(live, a)
		}
	}
}

// foldBranches turns a branch on a constant into a jump to the successor it
// always takes, then removes the blocks the entry no longer reaches. Phis
// lose the argument of each removed edge.
func foldBranches(f *Func) bool {
	changed := false
	for _, b := range f.Blocks {
		c := b.Control()
		if c == nil || c.Op != lift.Branch || len(c.Args) != 1 || c.Args[0].Kind != ConstValue || len(b.Succs) != 2 {
			continue
		}
		keep, drop := b.Succs[0], b.Succs[1]
		if c.Args[0].Lo&1 == 0 {
			keep, drop = drop, keep
		}
		removeEdge(b, drop)
		b.Succs = []*Block{keep}
		c.Op, c.Args = lift.Jump, nil
		changed = true
	}
	if !changed {
		return false
	}
	reach := map[*Block]bool{}
	for _, b := range reversePostorder(f) {
		reach[b] = true
	}
	out := f.Blocks[:0]
	for _, b := range f.Blocks {
		if !reach[b] {
			for _, s := range b.Succs {
				if reach[s] {
					removeEdge(b, s)
				}
			}
			continue
		}
		out = append(out, b)
	}
	clear(f.Blocks[len(out):])
	f.Blocks = out
	for i, b := range f.Blocks {
		b.ID = i
	}
	computeDominators(f)
	return true
}

// removeEdge removes one edge from → to from to's predecessors and the
// matching phi arguments (from's successor list is the caller's).
func removeEdge(from, to *Block) {
	k := -1
	for i, p := range to.Preds {
		if p == from {
			k = i
			break
		}
	}
	if k < 0 {
		return
	}
	to.Preds = append(to.Preds[:k:k], to.Preds[k+1:]...)
	for _, v := range to.Values {
		if v.Kind == Phi && k < len(v.Args) {
			v.Args = append(v.Args[:k:k], v.Args[k+1:]...)
		}
	}
}
