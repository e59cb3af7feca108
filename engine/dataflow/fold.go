package dataflow

import (
	"github.com/rea-re/rea/engine/lift"
)

// foldConstants evaluates the pure operations whose arguments are all
// constants with lift.Step itself, so that folding and interpretation cannot
// disagree, and applies the algebraic identities that make flag folding and
// sub-register accesses read simply (x+0, x&x, extract of an insert, …).
// A select on a constant condition becomes the chosen value.
func foldConstants(f *Func) bool {
	changed, fw := foldPending(f)
	replaceAll(f, fw)
	return changed
}

// foldPending is foldConstants with the replacements of the values it
// folded left to the caller: fw holds them, not yet applied (Optimize
// hands them to valueNumberAfter, which applies them with its own in one
// sweep).
func foldPending(f *Func) (changed bool, fw *forwarding) {
	fw = newForwarding(f)
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if !pure(v) {
				continue
			}
			if c := evalConst(f, v); c != nil {
				fw.set(v, c)
				continue
			}
			if simplify(f, v) {
				changed = true
			}
		}
	}
	return changed || fw.n > 0, fw
}

func allConst(vs []*Value) bool {
	for _, a := range vs {
		if a.Kind != ConstValue {
			return false
		}
	}
	return len(vs) > 0
}

func operandOf(v *Value) lift.Operand {
	o := lift.C(v.Width, v.Lo)
	o.Hi = v.Hi
	return o
}

// evalConst folds v when its arguments are constants; nil when it cannot
// (an error of the interpreter, an undefined result).
func evalConst(f *Func, v *Value) *Value {
	if v.Op == lift.Select && len(v.Args) == 3 && v.Args[0].Kind == ConstValue {
		if v.Args[0].Lo&1 == 1 {
			return v.Args[1]
		}
		return v.Args[2]
	}
	if !allConst(v.Args) || len(v.Args) > 3 || !lift.ValidWidth(v.Width) {
		return nil
	}
	s := lift.Stmt{Op: v.Op, Lane: v.Lane, Aux: v.Aux, Dst: lift.R("d", v.Width)}
	ops := [...]*lift.Operand{&s.A, &s.B, &s.C}
	for i, a := range v.Args {
		*ops[i] = operandOf(a)
	}
	in := lift.Insn{Stmts: []lift.Stmt{s}}
	if lift.Validate(&in) != nil {
		return nil
	}
	st := lift.State{Regs: map[string]lift.Value{}}
	if _, err := lift.Step(&in, &st); err != nil {
		return nil
	}
	r := st.Regs["d"]
	if r.Undef {
		return nil
	}
	return f.Const(v.Width, r.Lo, r.Hi)
}

func isConst(v *Value, x uint64) bool {
	return v.Kind == ConstValue && v.Hi == 0 && v.Lo == x
}

func allOnes(v *Value) bool {
	if v.Kind != ConstValue {
		return false
	}
	c := lift.C(v.Width, ^uint64(0))
	return v.Lo == c.Lo && (v.Width < 128 || v.Hi == ^uint64(0))
}

func toCopy(v, x *Value) bool {
	if x.Width != v.Width {
		return false
	}
	v.Op, v.Args, v.Aux, v.Lane = lift.Copy, []*Value{x}, 0, 0
	return true
}

// simplify rewrites v in place by an algebraic identity; the arguments it
// leaves v with are arguments of v's arguments, so they dominate v.
func simplify(f *Func, v *Value) bool {
	if v.Kind != OpValue {
		return false
	}
	a := v.Args
	// An operand combined with itself, element-wise too (pxor x, x and
	// pcmpeqd x, x: the idioms for zero and all ones, which read nothing).
	if len(a) == 2 && a[0] == a[1] && v.Width <= 128 {
		switch v.Op {
		case lift.Xor, lift.Sub:
			v.Op, v.Args, v.Aux, v.Lane = lift.Copy, []*Value{f.Const(v.Width, 0, 0)}, 0, 0
			return true
		case lift.Eq:
			lo, hi := ^uint64(0), ^uint64(0)
			if v.Width <= 64 {
				lo, hi = ^uint64(0)>>(64-v.Width), 0
			} else {
				hi >>= 128 - v.Width
			}
			v.Op, v.Args, v.Aux, v.Lane = lift.Copy, []*Value{f.Const(v.Width, lo, hi)}, 0, 0
			return true
		}
	}
	if v.Lane != 0 {
		return false
	}
	switch v.Op {
	case lift.Add, lift.Or, lift.Xor:
		if len(a) == 2 && isConst(a[1], 0) {
			return toCopy(v, a[0])
		}
		if len(a) == 2 && isConst(a[0], 0) {
			return toCopy(v, a[1])
		}
		if len(a) == 2 && a[0] == a[1] && v.Op == lift.Or {
			return toCopy(v, a[0])
		}
		if len(a) == 2 && a[0] == a[1] && v.Op == lift.Xor {
			v.Op, v.Args = lift.Copy, []*Value{f.Const(v.Width, 0, 0)}
			return true
		}
	case lift.Sub:
		if len(a) == 2 && isConst(a[1], 0) {
			return toCopy(v, a[0])
		}
	case lift.And:
		if len(a) == 2 && (a[0] == a[1] || allOnes(a[1])) {
			return toCopy(v, a[0])
		}
		if len(a) == 2 && allOnes(a[0]) {
			return toCopy(v, a[1])
		}
	case lift.ZExt, lift.SExt, lift.Trunc:
		if len(a) == 1 && a[0].Width == v.Width {
			return toCopy(v, a[0])
		}
		if v.Op == lift.Trunc && len(a) == 1 {
			v.Op, v.Aux = lift.Extract, 0
			return true
		}
	case lift.Extract:
		if len(a) != 1 {
			return false
		}
		x := a[0]
		lo, hi := int(v.Aux), int(v.Aux)+int(v.Width)
		if lo == 0 && x.Width == v.Width {
			return toCopy(v, x)
		}
		if x.Kind != OpValue || x.Lane != 0 {
			return false
		}
		switch x.Op {
		case lift.Insert:
			if len(x.Args) != 2 {
				return false
			}
			ilo, ihi := int(x.Aux), int(x.Aux)+int(x.Args[1].Width)
			switch {
			case lo == ilo && hi == ihi:
				return toCopy(v, x.Args[1])
			case hi <= ilo || lo >= ihi:
				v.Args = []*Value{x.Args[0]}
				return true
			case lo >= ilo && hi <= ihi:
				v.Args, v.Aux = []*Value{x.Args[1]}, int32(lo-ilo)
				return true
			}
		case lift.ZExt:
			if len(x.Args) == 1 && lo == 0 && x.Args[0].Width == v.Width {
				return toCopy(v, x.Args[0])
			}
			if len(x.Args) == 1 && lo == 0 && x.Args[0].Width < v.Width {
				v.Op, v.Args, v.Aux = lift.ZExt, []*Value{x.Args[0]}, 0
				return true
			}
			if len(x.Args) == 1 && hi <= int(x.Args[0].Width) {
				v.Args = []*Value{x.Args[0]}
				return true
			}
		case lift.Extract:
			if len(x.Args) == 1 {
				v.Args, v.Aux = []*Value{x.Args[0]}, v.Aux+x.Aux
				return true
			}
		}
	case lift.Insert:
		// Inserting the whole width is the inserted value.
		if len(a) == 2 && v.Aux == 0 && a[1].Width == v.Width {
			return toCopy(v, a[1])
		}
		// Inserting the low bits into zero is a zero extension.
		if len(a) == 2 && v.Aux == 0 && isConst(a[0], 0) {
			v.Op, v.Args = lift.ZExt, []*Value{a[1]}
			return true
		}
	}
	return false
}

// vnKey identifies a pure operation for value numbering.
type vnKey struct {
	op         lift.Op
	width      lift.Width
	lane       lift.Width
	aux        int32
	a0, a1, a2 int
}

func (k *vnKey) hash() uint64 {
	h := uint64(k.op) | uint64(k.width)<<16 | uint64(k.lane)<<32 | uint64(uint32(k.aux))<<48
	h ^= uint64(k.a0) * 0x9e3779b97f4a7c15
	h ^= uint64(k.a1) * 0xc2b2ae3d27d4eb4f
	h ^= uint64(k.a2) * 0x165667b19e3779f9
	h ^= h >> 31
	h *= 0xd6e8feb86659fd93
	return h ^ h>>29
}

// vnTable maps vnKeys to values by open addressing (linear probing), for
// the value numbering's scoped table: the walk removes keys in the
// reverse order it entered them, which restores the slots exactly as
// they were before each entry, so no removal breaks a probe chain. A map
// cost most of the pass in hashing, and its deletions as much again.
type vnTable struct {
	slots []vnSlot // a power of two of them; empty between passes
	mask  int
	dups  []*Value // valueNumberAfter's replacements, in pairs; empty between passes
}

type vnSlot struct {
	k vnKey
	v *Value
}

// reset readies t for at most n entries.
func (t *vnTable) reset(n int) {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	if cap(t.slots) < size {
		t.slots = make([]vnSlot, size)
	}
	t.slots = t.slots[:size]
	t.mask = size - 1
}

// find returns the value entered for k, or nil and the slot k would take.
func (t *vnTable) find(k *vnKey) (*Value, int) {
	i := int(k.hash()) & t.mask
	for {
		sl := &t.slots[i]
		if sl.v == nil {
			return nil, i
		}
		if sl.k == *k {
			return sl.v, i
		}
		i = (i + 1) & t.mask
	}
}

// valueNumber replaces a pure operation by an identical one that dominates
// it (the dominator tree walked with a scoped table). Loads take part: two
// loads of one address from one memory token read the same bytes, and the
// second cannot fault where the first did not. Of equal operations the
// survivor is the first in dominator order (the tree walked in preorder,
// each block's values in order): a deterministic choice, and the earliest
// instruction computing the value on the way there.
func valueNumber(f *Func) bool {
	return valueNumberAfter(f, nil)
}

// valueNumberAfter is valueNumber run on f as replaceAll(f, pre) would
// leave it, without the sweep: it skips the values pre replaces and
// numbers each argument as what pre resolves it to, then applies pre's
// replacements and its own in one sweep (pre's values and its own are
// disjoint, and its survivors are replaced by nothing). pre may be nil.
func valueNumberAfter(f *Func, pre *forwarding) bool {
	if len(f.Blocks) == 0 {
		if pre != nil {
			replaceAll(f, pre)
		}
		return false
	}
	// The dominator tree is Build's, or foldBranches' after it changed the
	// graph; no other pass changes blocks or edges.
	s := f.scratch()
	table := &s.vn
	table.reset(f.nextID)
	fw := pre
	if fw == nil {
		fw = newForwarding(f)
	}
	var to []*Value
	if pre != nil {
		to = pre.to
	}
	// dups are the replacements found (value, survivor), entered in fw
	// after the walk when pre is set: until then fw resolves arguments
	// through pre's alone, as they would read after pre's sweep.
	dups := table.dups[:0]
	// added holds the slots each block on the dominator path filled, its
	// own from mark on: a stack shared by the whole walk.
	added := s.vnAdded[:0]
	var walk func(b *Block)
	walk = func(b *Block) {
		mark := len(added)
		for _, v := range b.Values {
			if !pure(v) && !(v.Kind == OpValue && v.Op == lift.Load) || len(v.Args) > 3 {
				continue
			}
			// pre's table is read inline for the common case, a value
			// not replaced (to is empty without pre).
			if v.ID < len(to) && to[v.ID] != nil {
				continue // pre's sweep drops it
			}
			k := vnKey{op: v.Op, width: v.Width, lane: v.Lane, aux: v.Aux}
			ids := [3]*int{&k.a0, &k.a1, &k.a2}
			for i, a := range v.Args {
				if a.ID < len(to) && to[a.ID] != nil {
					a = pre.resolve(a)
				}
				*ids[i] = a.ID
			}
			w, i := table.find(&k)
			if w != nil {
				if pre != nil {
					dups = append(dups, v, w)
				} else {
					fw.set(v, w)
				}
				continue
			}
			// Field by field: a pointer stored alone takes the write
			// barrier's fast path, a whole slot copied (or cleared below)
			// the bulk barrier's walk of its type while the collector runs.
			sl := &table.slots[i]
			sl.k, sl.v = k, v
			added = append(added, int32(i))
		}
		for _, c := range b.dom {
			walk(c)
		}
		for j := len(added) - 1; j >= mark; j-- {
			table.slots[added[j]].v = nil // a slot without a value is empty, whatever its key
		}
		added = added[:mark]
	}
	walk(f.Blocks[0])
	s.vnAdded = added[:0]
	found := fw.n > 0
	if pre != nil {
		found = len(dups) > 0
		for j := 0; j < len(dups); j += 2 {
			fw.set(dups[j], dups[j+1])
		}
		clear(dups)
		table.dups = dups[:0]
	}
	replaceAll(f, fw)
	return found
}
