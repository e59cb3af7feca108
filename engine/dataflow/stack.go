package dataflow

import (
	"fmt"
	"slices"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/reuse"
)

// spOff is what stack-pointer tracking knows of a value: entry_sp + off
// (base 0), or realigned_sp + off (base g+1 for the and at statement g).
type spOff struct {
	// off first: 16 bytes a value instead of 24 (the table has one per
	// value ID).
	off   int64
	base  int32
	known bool
}

// spTable is what stack-pointer tracking knows of f's values, indexed by
// value ID (dense: a procedure's IDs are small consecutive integers, and
// the passes ask of nearly every value).
type spTable []spOff

// of returns the known offset of v; ok is false when tracking does not
// know v as a frame base plus a constant.
func (t spTable) of(v *Value) (spOff, bool) {
	if v.ID < len(t) && t[v.ID].known {
		return t[v.ID], true
	}
	return spOff{}, false
}

// stackOffsets tracks the stack pointer through f: the optimistic fixpoint
// over reverse postorder, so that a loop that restores the stack pointer
// keeps it known and one that moves it makes it unknown.
func stackOffsets(f *Func) spTable { return trackStack(f, &stackMem{}) }

// stackMem is the memory trackStack's table and flags are made in.
type stackMem struct {
	offs  []spOff
	top   []bool
	taint []int32 // findSlots'
}

// trackStack is stackOffsets in m's memory: the table is m's until the
// next trackStack with m.
func trackStack(f *Func, m *stackMem) spTable {
	offs := spTable(reuse.Zeroed(&m.offs, f.nextID+1))
	// Values not yet evaluated: a phi ignores them (optimistically, so
	// that a loop which pushes and pops around a call, its stack pointer
	// a phi of itself, keeps its offset).
	top := reuse.Zeroed(&m.top, f.nextID+1)
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			top[v.ID] = true
		}
	}
	signed := func(c *Value) int64 {
		w := c.Width
		if w >= 64 {
			return int64(c.Lo)
		}
		return int64(c.Lo<<(64-w)) >> (64 - w)
	}
	eval := func(v *Value) (spOff, bool) {
		switch v.Kind {
		case Entry:
			if v.Loc == f.Arch.SP {
				return spOff{known: true}, true
			}
			return spOff{}, false
		case Phi:
			var r spOff
			first := true
			for _, a := range v.Args {
				if top[a.ID] {
					continue
				}
				x, ok := offs.of(a)
				if !ok {
					return spOff{}, false
				}
				if first {
					r, first = x, false
				} else if r != x {
					return spOff{}, false
				}
			}
			if first {
				return spOff{}, false
			}
			return r, true
		case OpValue:
		default:
			return spOff{}, false
		}
		if len(v.Args) == 0 || v.Lane != 0 || v.Width != f.Arch.PtrWidth {
			return spOff{}, false
		}
		x, ok := offs.of(v.Args[0])
		switch v.Op {
		case lift.Copy:
			return x, ok
		case lift.Add, lift.Sub:
			a, c := v.Args[0], v.Args[1]
			if v.Op == lift.Add && !ok && c.Kind != ConstValue {
				a, c = c, a
				x, ok = offs.of(a)
			}
			if !ok || c.Kind != ConstValue {
				return spOff{}, false
			}
			if v.Op == lift.Add {
				x.off += signed(c)
			} else {
				x.off -= signed(c)
			}
			return x, true
		case lift.And:
			c := v.Args[1]
			if !ok || c.Kind != ConstValue {
				return spOff{}, false
			}
			if m := -signed(c); m > 0 && m&(m-1) == 0 && v.pos >= 0 {
				return spOff{base: v.pos + 1, known: true}, true
			}
		}
		return spOff{}, false
	}
	for round := 0; round < 64; round++ {
		changed := false
		for _, b := range f.Blocks {
			for _, v := range b.Values {
				r, ok := eval(v)
				old := offs[v.ID]
				top[v.ID] = false
				if !ok {
					if old.known {
						offs[v.ID] = spOff{}
						changed = true
					}
					continue
				}
				if old != r {
					offs[v.ID] = r
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	return offs
}

type access struct {
	pos   int32
	base  int32
	off   int64
	width lift.Width
}

// findSlots decides which stack slots of f (built without promotion) to
// promote: the loads and stores at a known offset below the entry stack
// pointer (or from a realigned base) whose frame addresses do not escape
// and which no access overlaps partially.
func findSlots(f *Func) (map[int32]slotRef, []Slot) {
	m := &f.scratch().stack
	offs := trackStack(f, m)
	var accs []access
	// A frame address escapes when it, or a value computed from it (the
	// taint below: any operation wider than one bit over a tainted
	// argument that is not itself a known offset), is stored as data, is
	// passed to a call in an argument register, or is the address of a
	// load or store without being a known offset (an array indexed by a
	// register). An escaped frame address can reach any slot of its frame,
	// so an escape poisons the whole base. One-bit results (the flags of
	// `sub rsp, 16`, comparisons) carry no address.
	// taint[id] is the base plus one of a tainted value, 0 when untainted.
	taint := reuse.Zeroed(&m.taint, len(offs))
	for id, x := range offs {
		if x.known {
			taint[id] = x.base + 1
		}
	}
	// spread taints v from its first tainted argument; it reports
	// whether v is tainted now.
	spread := func(v *Value) bool {
		for _, a := range v.Args {
			if a.ID < len(taint) && taint[a.ID] != 0 {
				taint[v.ID] = taint[a.ID]
				return true
			}
		}
		return false
	}
	// The first sweep visits every value; the later ones, in the same
	// order, only those it left untainted that may carry an address (the
	// others' visits change nothing). open holds their places (block,
	// index) rather than pointers, which the collector need not track.
	var open []int32
	changed := false
	for bi, b := range f.Blocks {
		for vi, v := range b.Values {
			if taint[v.ID] != 0 || len(v.Args) == 0 || v.Width <= 1 || v.Kind == ConstValue || v.Kind == Clobber {
				continue
			}
			if v.Kind == OpValue && (v.Op == lift.Load || v.Op == lift.Store || v.Op == lift.Call || v.Op == lift.Unmodelled) {
				continue
			}
			if spread(v) {
				changed = true
			} else {
				open = append(open, int32(bi), int32(vi))
			}
		}
	}
	for changed {
		changed = false
		for k := 0; k < len(open); k += 2 {
			v := f.Blocks[open[k]].Values[open[k+1]]
			if taint[v.ID] == 0 && spread(v) {
				changed = true
			}
		}
	}
	poison := map[int32]bool{}
	type callSP struct {
		spOff
		ok bool
	}
	var calls []callSP
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if v.Kind != OpValue {
				continue
			}
			for k, a := range v.Args {
				if a.ID >= len(taint) || taint[a.ID] == 0 {
					continue
				}
				base := taint[a.ID] - 1
				_, known := offs.of(a)
				switch v.Op {
				case lift.Load, lift.Store:
					if k == 1 || k == 0 && !known {
						poison[base] = true
					}
				case lift.Call:
					if k >= 3 {
						poison[base] = true
					}
				}
			}
			switch {
			case v.Kind == OpValue && v.Op == lift.Load:
				if x, ok := offs.of(v.Args[0]); ok {
					accs = append(accs, access{v.pos, x.base, x.off, v.Width})
				}
			case v.Kind == OpValue && v.Op == lift.Store:
				if x, ok := offs.of(v.Args[0]); ok {
					accs = append(accs, access{v.pos, x.base, x.off, v.Args[1].Width})
				}
			case v.Kind == OpValue && v.Op == lift.Call:
				x, ok := offs.of(v.Args[2])
				calls = append(calls, callSP{x, ok})
			}
		}
	}
	slices.SortFunc(accs, func(a, b access) int {
		if a.base != b.base {
			return int(a.base - b.base)
		}
		if a.off != b.off {
			if a.off < b.off {
				return -1
			}
			return 1
		}
		return int(a.width) - int(b.width)
	})
	// Group equal (base, off, width); a group overlapping another is out.
	bad := make([]bool, len(accs))
	for i := 0; i < len(accs); i++ {
		for j := i + 1; j < len(accs) && accs[j].base == accs[i].base && accs[j].off < accs[i].off+int64(accs[i].width/8); j++ {
			if accs[j].off != accs[i].off || accs[j].width != accs[i].width {
				bad[i], bad[j] = true, true
			}
		}
	}
	promote := map[int32]slotRef{}
	var slots []Slot
	for i := 0; i < len(accs); {
		j := i
		ok := true
		for j < len(accs) && accs[j].base == accs[i].base && accs[j].off == accs[i].off && accs[j].width == accs[i].width {
			ok = ok && !bad[j]
			j++
		}
		a := accs[i]
		if a.base == 0 && a.off+int64(a.width/8) > 0 {
			ok = false // incoming arguments, the return address: the caller's
		}
		if poison[a.base] {
			ok = false
		}
		if a.width%8 != 0 || a.width == 0 {
			ok = false
		}
		if ok {
			s := Slot{Base: a.base, Offset: a.off, Width: a.width}
			for _, c := range calls {
				if !c.ok || c.base != a.base || a.off+int64(a.width/8) > c.off {
					s.KeptStores = true
				}
			}
			ref := slotRef{loc: slotName(s), width: a.width, keepStore: s.KeptStores, slot: int32(len(slots))}
			for k := i; k < j; k++ {
				promote[accs[k].pos] = ref
			}
			slots = append(slots, s)
		}
		i = j
	}
	return promote, slots
}

func slotName(s Slot) string {
	sign, off := "+", s.Offset
	if off < 0 {
		sign, off = "-", -off
	}
	if s.Base != 0 {
		return fmt.Sprintf("stack@%d%s%#x", s.Base, sign, off)
	}
	return fmt.Sprintf("stack%s%#x", sign, off)
}

// StackOffset is what stack-pointer tracking knows of a value: it is the
// frame base Base plus Off (Base 0 is the stack pointer at entry; another
// base is the stack pointer realigned by the and at statement Base-1).
type StackOffset struct {
	Base int32
	Off  int64
}

// StackTable is what stack-pointer tracking knows of the values of one
// Func (see StackOffsets), held densely by value ID: prototype and
// call-argument recovery ask of most values, a map per procedure costs
// more than the tracking itself.
type StackTable struct {
	t   spTable
	mem stackMem
}

// NewStackTable tracks the stack pointer through f. The table describes f
// as it is: a pass run on f afterwards makes it stale.
func NewStackTable(f *Func) *StackTable {
	s := &StackTable{}
	s.Track(f)
	return s
}

// Track makes s describe f instead, in the memory s held (one table per
// worker serves procedure after procedure).
func (s *StackTable) Track(f *Func) { s.t = trackStack(f, &s.mem) }

// Of returns what tracking knows of v: a frame base plus a constant, or
// ok=false.
func (s *StackTable) Of(v *Value) (StackOffset, bool) {
	x, ok := s.t.of(v)
	return StackOffset{Base: x.base, Off: x.off}, ok
}

// StackOffsets returns the values of f that stack-pointer tracking knows
// as a frame base plus a constant: the stack pointer's own values, frame
// pointers, the addresses of stack slots and of incoming stack arguments.
// Prototype and call-argument recovery read incoming arguments and
// outgoing stack arguments from it (through StackTable, its dense form).
func StackOffsets(f *Func) map[*Value]StackOffset {
	t := stackOffsets(f)
	out := map[*Value]StackOffset{}
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if x, ok := t.of(v); ok {
				out[v] = StackOffset{Base: x.base, Off: x.off}
			}
		}
	}
	return out
}
