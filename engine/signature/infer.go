package signature

import (
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/reuse"
)

type use struct {
	v *dataflow.Value
	i int
}

// userIndex is every value's uses (the values reading it, and at which
// argument), in block and argument order, held densely by value ID: one
// slice for the procedure instead of a map entry and a slice per value.
type userIndex struct {
	start []int32 // value ID → its first use in uses; start[ID+1] ends it
	uses  []use
}

func newUserIndex(f *dataflow.Func, m *userMem) userIndex {
	start := reuse.Zeroed(&m.start, f.IDBound()+1)
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			for _, x := range v.Args {
				start[x.ID+1]++
			}
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	uses := reuse.Zeroed(&m.uses, int(start[len(start)-1]))
	next := reuse.Zeroed(&m.next, len(start)-1)
	copy(next, start)
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			for i, x := range v.Args {
				uses[next[x.ID]] = use{v, i}
				next[x.ID]++
			}
		}
	}
	return userIndex{start: start, uses: uses}
}

// userMem is the memory newUserIndex reuses (a Scratch's).
type userMem struct {
	start, next []int32
	uses        []use
}

// Scratch is the memory Analyze reuses from one procedure to the next:
// the stack table and the use index, sized by the largest procedure seen.
// One serves one procedure at a time (one per worker); the zero Scratch
// is ready.
type Scratch struct {
	offs  dataflow.StackTable
	users userMem
}

// of returns the uses of v (nil for none).
func (x *userIndex) of(v *dataflow.Value) []use {
	if v == nil || v.ID+1 >= len(x.start) {
		return nil
	}
	lo, hi := x.start[v.ID], x.start[v.ID+1]
	if lo == hi {
		return nil
	}
	return x.uses[lo:hi:hi]
}

// analysis is what Infer and Calls share about one procedure.
type analysis struct {
	f     *dataflow.Func
	env   *Env
	scr   *Scratch
	offs  *dataflow.StackTable
	users userIndex
	entry map[string]*dataflow.Value
	// slotLoads are the loads at each known stack offset (frames whose
	// slots were not promoted keep their spills in memory).
	slotLoads map[dataflow.StackOffset][]*dataflow.Value
	callees   map[*dataflow.Value]*callee
	// names are the registers the procedure reads or writes anywhere
	// (a register it never names passes through it unchanged).
	names   map[string]bool
	escapes map[int32]bool
	// outgoingStores caches, per transfer, the stores on its memory
	// chain and the outgoing argument offset each writes (-1: none).
	outgoingStores map[*dataflow.Value]map[*dataflow.Value]int64
	// ignore is a use realUse disregards (saveArea's store).
	ignore    *dataflow.Value
	transfers []*dataflow.Value
	passed    map[string]Param
	// noReturnFlow: realUse does not count a value handed back in a
	// register (as the upper bits of a partly written ecx copied to edx,
	// a result register, would be) as read
	noReturnFlow bool
}

func (a *analysis) named(r string) bool { return a.names[r] }

// newAnalysis prepares the analysis of f in scr's memory: the analysis
// is scr's until the next newAnalysis with it. (An i386 procedure's
// second analysis, under another convention, rebuilds the same tables of
// the same f in that memory: the first one reads them unchanged.)
func newAnalysis(f *dataflow.Func, env *Env, scr *Scratch) *analysis {
	scr.offs.Track(f)
	a := &analysis{f: f, env: env, offs: &scr.offs, users: newUserIndex(f, &scr.users), scr: scr,
		entry: map[string]*dataflow.Value{}, slotLoads: map[dataflow.StackOffset][]*dataflow.Value{}, callees: map[*dataflow.Value]*callee{}}
	a.names = map[string]bool{}
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if v.Loc != "" {
				a.names[v.Loc] = true
			}
			for _, n := range v.Names {
				a.names[n] = true
			}
			if isTransfer(v) {
				a.transfers = append(a.transfers, v)
			}
			if v.Kind == dataflow.Entry {
				a.entry[v.Loc] = v
			}
			if v.Kind == dataflow.OpValue && v.Op == lift.Load {
				if o, ok := a.offs.Of(v.Args[0]); ok {
					a.slotLoads[o] = append(a.slotLoads[o], v)
				}
			}
		}
	}
	a.escapes = escaped(f, a.offs, &a.users)
	a.outgoingStores = map[*dataflow.Value]map[*dataflow.Value]int64{}
	return a
}

// isTransfer reports whether v is a call or an exit jump (a tail call),
// whose trailing arguments are the registers named by v.Names.
func isTransfer(v *dataflow.Value) bool {
	if v.Kind != dataflow.OpValue {
		return false
	}
	return v.Op == lift.Call || (v.Op == lift.Jump && len(v.Args) >= 3)
}

// takes reports whether the callee of transfer t is known to read register
// loc as an argument.
func (a *analysis) takes(t *dataflow.Value, loc string) bool {
	if a.callee(t).proto == nil || a.recursive(t) {
		return false
	}
	params, _, _ := a.callParams(t)
	for _, p := range params {
		if p.Storage == loc {
			return true
		}
	}
	return false
}

// bits is a set of bit positions of a value up to 128 bits wide (an
// xmm register).
type bits struct{ lo, hi uint64 }

func bitRange(lo, n int) bits {
	var b bits
	for i := lo; i < lo+n && i < 128; i++ {
		if i < 64 {
			b.lo |= 1 << i
		} else {
			b.hi |= 1 << (i - 64)
		}
	}
	return b
}

func (b bits) and(c bits) bits    { return bits{b.lo & c.lo, b.hi & c.hi} }
func (b bits) andNot(c bits) bits { return bits{b.lo &^ c.lo, b.hi &^ c.hi} }
func (b bits) or(c bits) bits     { return bits{b.lo | c.lo, b.hi | c.hi} }
func (b bits) zero() bool         { return b.lo == 0 && b.hi == 0 }

// recursive reports whether transfer t calls the procedure itself: what
// its own previous prototype says it takes is no evidence of what it
// takes (the fixpoint would keep any parameter once assumed).
func (a *analysis) recursive(t *dataflow.Value) bool {
	c := a.callee(t)
	return c.HasAddress && c.Address == a.f.Entry
}

// realUse reports whether v (the entry value of loc) is read for the
// procedure's own purposes.
func (a *analysis) realUse(v *dataflow.Value, loc string) bool {
	return a.realBits(v, loc, bitRange(0, int(v.Width)), map[*dataflow.Value]bits{}, map[dataflow.StackOffset]bool{})
}

// realBits reports whether the bits live of v (the entry value of loc,
// or a value carrying some of its bits unchanged) are read for the
// procedure's own purposes. Bits a partial-register write replaces are
// not live past it, so writing cl into an otherwise untouched rcx does not
// make rcx a parameter; a value pushed only to align the stack (clang's
// push rax) and never loaded back is not read either.
func (a *analysis) realBits(v *dataflow.Value, loc string, live bits, seen map[*dataflow.Value]bits, slots map[dataflow.StackOffset]bool) bool {
	if live.andNot(seen[v]).zero() {
		return false
	}
	seen[v] = seen[v].or(live)
	for _, u := range a.users.of(v) {
		switch {
		case u.v == a.ignore:
		case u.v.Kind == dataflow.Phi:
			if a.realBits(u.v, loc, live, seen, slots) {
				return true
			}
		case u.v.Kind == dataflow.Clobber:
			// an unmodelled instruction's clobber: not a read
		case u.v.Op == lift.Return:
			if (u.i < 2 || u.v.Names[u.i-2] != loc) && !a.noReturnFlow {
				return true
			}
		case isTransfer(u.v) && u.i >= 3:
			if u.v.Names[u.i-3] != loc || a.takes(u.v, loc) {
				return true
			}
		case u.v.Op == lift.Insert && u.i == 0 && len(u.v.Args) == 2:
			rest := live.andNot(bitRange(int(u.v.Aux), int(u.v.Args[1].Width)))
			if !rest.zero() && a.realBits(u.v, loc, rest, seen, slots) {
				return true
			}
		case u.v.Op == lift.Extract && len(u.v.Args) == 1:
			if !live.and(bitRange(int(u.v.Aux), int(u.v.Width))).zero() {
				return true
			}
		case u.v.Op == lift.Store && u.i == 1:
			o, ok := a.offs.Of(u.v.Args[0])
			if !ok || a.escapes[o.Base] || a.mayBeArgument(o) {
				return true
			}
			if slots[o] {
				continue
			}
			slots[o] = true
			for _, l := range a.slotLoads[o] {
				if precedes(l, u.v) {
					continue
				}
				if a.realBits(l, loc, bitRange(0, int(l.Width)), seen, slots) {
					return true
				}
			}
		default:
			return true
		}
	}
	return false
}

// escaped reports the frame bases some address of which leaves the
// reach of stack-pointer tracking (stored, passed in a register, offset
// by a non-constant): their slots may be read through it.
func escaped(f *dataflow.Func, offs *dataflow.StackTable, users *userIndex) map[int32]bool {
	out := map[int32]bool{}
	for v, o := range knownOffsets(f, offs) {
		for _, u := range users.of(v) {
			if _, ok := offs.Of(u.v); ok {
				continue
			}
			x := u.v
			switch {
			case x.Kind == dataflow.OpValue && (x.Op == lift.Load || x.Op == lift.Store) && u.i == 0:
			case isTransfer(x) && u.i == 2:
			default:
				out[o.Base] = true
			}
		}
	}
	return out
}

// knownOffsets yields the values of f's blocks whose stack offset offs
// knows, in block order.
func knownOffsets(f *dataflow.Func, offs *dataflow.StackTable) iter.Seq2[*dataflow.Value, dataflow.StackOffset] {
	return func(yield func(*dataflow.Value, dataflow.StackOffset) bool) {
		for _, b := range f.Blocks {
			for _, v := range b.Values {
				if o, ok := offs.Of(v); ok && !yield(v, o) {
					return
				}
			}
		}
	}
}

// mayBeArgument reports whether the stack slot at o may be an outgoing stack
// argument a callee reads: it lies at or above the stack pointer of a
// call that passes an argument there (by the callee's prototype, or by
// what the caller writes when there is none), or whose variadic callee's
// count is unknown.
func (a *analysis) mayBeArgument(o dataflow.StackOffset) bool {
	if o.Base == 0 && o.Off >= 0 {
		return true // the caller's frame: an incoming argument's slot
	}
	for _, t := range a.transfers {
		sp, ok := a.offs.Of(t.Args[2])
		if !ok {
			return true
		}
		if sp.Base != o.Base || o.Off < sp.Off {
			continue
		}
		// Without a prototype, callParams gives the arguments the caller
		// writes: the stack slots only once every argument register is
		// set, as the convention fills them.
		c := a.callee(t)
		params, _, _ := a.callParams(t)
		if c.proto != nil && c.proto.Variadic && c.proto.format != ctypes.FormatNone && len(params) == len(c.proto.Params) {
			return true // a format the data flow does not know: any count
		}
		// The transfer's stack pointer is the callee's at entry (a call's
		// return address already pushed).
		at := StackName(o.Off - sp.Off)
		for _, p := range params {
			if p.Storage == at {
				return true
			}
		}
	}
	return false
}

// saveArea finds the register save area of a variadic procedure's
// va_start: the last integer argument registers, each stored whole and
// only stored, to consecutive slots in register order ending with the
// last register. It returns those registers (none when there is no such
// area). A procedure that merely spills its parameters stores them in
// its own order, not as a run ending at the convention's last register
// with nothing else done with them.
func (a *analysis) saveArea() map[string]bool {
	cv := a.env.Conv
	if cv.Positional || len(cv.IntArgs) < 4 {
		return nil
	}
	slot := func(loc string) (dataflow.StackOffset, bool) {
		if e := a.entry[loc]; e == nil || e.Width != cv.PtrWidth {
			return dataflow.StackOffset{}, false
		}
		return a.storedOnly(loc)
	}
	n := len(cv.IntArgs)
	last, ok := slot(cv.IntArgs[n-1])
	if !ok {
		return nil
	}
	out := map[string]bool{cv.IntArgs[n-1]: true}
	step := int64(cv.PtrWidth / 8)
	for i := n - 2; i >= 0; i-- {
		o, ok := slot(cv.IntArgs[i])
		if !ok || o.Base != last.Base || o.Off != last.Off-int64(n-1-i)*step {
			break
		}
		out[cv.IntArgs[i]] = true
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// homeSaveArea finds the save area of a Win64 variadic procedure's
// va_start: the argument registers from the first unnamed one to the last
// are each stored whole, and only stored, to their home slots (the 32 bytes
// above the return address), and the address of the first of those slots
// is taken as a value (the va_list). A procedure that merely spills its
// parameters home (gcc -O0) takes no slot's address. It returns those
// registers (none when there is no such area or the convention has no
// home slots).
func (a *analysis) homeSaveArea() map[string]bool {
	cv := a.env.Conv
	if !cv.Positional || cv.StackSlot == 0 {
		return nil
	}
	n := len(cv.IntArgs)
	home := func(i int) int64 { return cv.RetAddr + int64(i)*cv.StackSlot }
	first := -1
	for v, o := range knownOffsets(a.f, a.offs) {
		if o.Base != 0 || o.Off < home(1) || o.Off > home(n-1) || (o.Off-home(0))%cv.StackSlot != 0 {
			continue
		}
		i := int((o.Off - home(0)) / cv.StackSlot)
		for _, u := range a.users.of(v) {
			if _, ok := a.offs.Of(u.v); ok {
				continue
			}
			x := u.v
			if x.Kind == dataflow.OpValue && (x.Op == lift.Load || x.Op == lift.Store) && u.i == 0 || x.Kind == dataflow.Clobber {
				continue
			}
			if first < 0 || i < first {
				first = i
			}
		}
	}
	if first < 1 {
		return nil
	}
	out := map[string]bool{}
	for i := first; i < n; i++ {
		loc := cv.IntArgs[i]
		if e := a.entry[loc]; e == nil || e.Width != cv.PtrWidth {
			return nil
		}
		o, ok := a.storedOnly(loc)
		if !ok || o.Base != 0 || o.Off != home(i) {
			return nil
		}
		out[loc] = true
	}
	return out
}

// vaStart reports whether the procedure takes the address of its incoming
// stack arguments as a value (va_start of a convention that passes every
// argument on the stack): an address of that area used other than to load
// or store at it.
func (a *analysis) vaStart() bool {
	for v, o := range knownOffsets(a.f, a.offs) {
		if o.Base != 0 || o.Off < a.env.Conv.StackArgs {
			continue
		}
		for _, u := range a.users.of(v) {
			if _, ok := a.offs.Of(u.v); ok {
				continue
			}
			x := u.v
			if x.Kind == dataflow.OpValue && (x.Op == lift.Load || x.Op == lift.Store) && u.i == 0 {
				continue
			}
			if x.Kind == dataflow.Clobber {
				continue
			}
			return true // a phi not known as an offset: a moving pointer
		}
	}
	return false
}

// storedOnly reports where the entry value of loc is stored to a stack
// slot when nothing but that store reads it.
func (a *analysis) storedOnly(loc string) (dataflow.StackOffset, bool) {
	e := a.entry[loc]
	if e == nil {
		return dataflow.StackOffset{}, false
	}
	for _, u := range a.users.of(e) {
		if u.v.Kind != dataflow.OpValue || u.v.Op != lift.Store || u.i != 1 {
			continue
		}
		o, ok := a.offs.Of(u.v.Args[0])
		if !ok {
			continue
		}
		a.ignore = u.v
		real := a.realUse(e, loc)
		a.ignore = nil
		if !real {
			return o, true
		}
	}
	return dataflow.StackOffset{}, false
}

// onlySpilled reports whether every use of v stores it to memory.
func (a *analysis) onlySpilled(v *dataflow.Value) bool {
	for _, u := range a.users.of(v) {
		x := u.v
		if x.Kind == dataflow.OpValue && (x.Op == lift.Extract || x.Op == lift.Trunc) && a.onlySpilled(x) {
			continue
		}
		if x.Kind == dataflow.OpValue && x.Op == lift.Store && u.i == 1 {
			continue
		}
		if x.Kind == dataflow.OpValue && (x.Op == lift.Return || isTransfer(x)) {
			continue
		}
		return false
	}
	return true
}

// facts are what the uses of a parameter say about its type.
type facts struct {
	ptr, signed, unsigned bool
	fwidth                int
}

// precedes reports whether load l certainly reads memory from before
// store st: its memory chain, followed back through stores and calls,
// reaches the procedure's entry without meeting st. A join (a phi) or
// anything else ends the walk with "not certainly".
func precedes(l, st *dataflow.Value) bool {
	if len(l.Args) < 2 {
		return false
	}
	m := l.Args[1]
	for n := 0; n < 256; n++ {
		switch {
		case m == st:
			return false
		case m.Kind == dataflow.Entry:
			return true
		case m.Kind == dataflow.OpValue && m.Op == lift.Store && len(m.Args) == 3:
			m = m.Args[2]
		case m.Kind == dataflow.OpValue && m.Op == lift.Call && len(m.Args) >= 2:
			m = m.Args[1]
		default:
			return false
		}
	}
	return false
}

// isIndexLike reports whether v looks like an array index added to a
// base pointer: scaled (a shift or multiply, or arm64's lsl lifted as a
// rotate and mask), extended from a narrower integer, or an induction
// variable (a phi starting at a small constant).
func isIndexLike(v *dataflow.Value) bool {
	if v.Kind == dataflow.Phi {
		for _, x := range v.Args {
			if x.Kind == dataflow.ConstValue && x.Width <= 64 {
				// a small constant, either sign
				c := int64(x.Lo << (64 - x.Width))
				c >>= 64 - x.Width
				if c > -0x10000 && c < 0x10000 {
					return true
				}
			}
		}
		return false
	}
	if v.Kind != dataflow.OpValue {
		return false
	}
	switch v.Op {
	case lift.Shl, lift.Mul, lift.SExt, lift.ZExt, lift.Ror:
		return true
	case lift.And:
		return len(v.Args) == 2 && v.Args[1].Kind == dataflow.ConstValue && isIndexLike(v.Args[0])
	}
	return false
}

// walk follows the values derived from roots and collects what their uses
// say.
func (a *analysis) walk(roots []*dataflow.Value) facts {
	var fs facts
	pw := a.f.Arch.PtrWidth
	seen := map[*dataflow.Value]bool{}
	work := slices.Clone(roots)
	add := func(v *dataflow.Value) {
		if !seen[v] {
			work = append(work, v)
		}
	}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		for _, u := range a.users.of(x) {
			v := u.v
			if v.Kind == dataflow.Phi {
				add(v)
				continue
			}
			if v.Kind != dataflow.OpValue {
				continue
			}
			switch v.Op {
			case lift.Copy:
				add(v)
			case lift.Extract, lift.Trunc:
				if v.Op == lift.Trunc || v.Aux == 0 {
					add(v)
				}
			case lift.ZExt:
				if v.Width > x.Width {
					fs.unsigned = true
				}
				add(v)
			case lift.SExt:
				fs.signed = true
				add(v)
			case lift.Load:
				if u.i == 0 && x.Width == pw {
					fs.ptr = true
				}
			case lift.Store:
				if u.i == 0 && x.Width == pw {
					fs.ptr = true
				}
				if u.i == 1 && x.Width == pw && a.passedAsPointer(v) {
					fs.ptr = true
				}
				if u.i == 1 {
					if o, ok := a.offs.Of(v.Args[0]); ok {
						for _, l := range a.slotLoads[o] {
							if !precedes(l, v) {
								add(l)
							}
						}
					}
				}
			case lift.Add, lift.Sub:
				other := v.Args[1-u.i]
				if other.Kind == dataflow.ConstValue || (v.Op == lift.Add && isIndexLike(other) && !isIndexLike(x)) {
					if v.Op == lift.Add || u.i == 0 {
						add(v)
					}
				}
			case lift.Slt, lift.Sle, lift.SDiv, lift.SRem, lift.AShr:
				fs.signed = true
			case lift.Ult, lift.Ule, lift.UDiv, lift.URem, lift.LShr:
				if !(v.Op == lift.Ult || v.Op == lift.Ule) || v.Args[1-u.i].Kind != dataflow.ConstValue || v.Args[1-u.i].Lo != 0 {
					fs.unsigned = true
				}
			case lift.FAdd, lift.FSub, lift.FMul, lift.FDiv, lift.FSqrt, lift.FEq, lift.FLt, lift.FLe, lift.FUnord,
				lift.FToS, lift.FToSTrunc, lift.FMA, lift.FMin, lift.FMax, lift.FMinNum, lift.FMaxNum, lift.FToUTrunc:
				if fs.fwidth == 0 || int(x.Width) < fs.fwidth {
					fs.fwidth = int(x.Width)
				}
				if v.Aux == 32 || v.Aux == 64 {
					fs.fwidth = int(v.Aux)
				}
			case lift.FConv:
				fs.fwidth = int(x.Width)
			case lift.Select:
				if u.i > 0 {
					add(v)
				}
			case lift.Call, lift.Jump:
				if u.i == 0 && x.Width == pw {
					fs.ptr = true // called: a code pointer
				}
				if isTransfer(v) && u.i >= 3 {
					if c := a.callee(v); c.proto != nil {
						params, _, _ := a.callParams(v)
						for _, p := range params {
							if p.Storage == v.Names[u.i-3] && p.Class == ctypes.ClassPointer && x.Width == pw {
								fs.ptr = true
							}
						}
					}
				}
			}
		}
	}
	return fs
}

// argStores maps the stores on transfer t's memory chain to the outgoing
// argument offset each writes (-1: none), cached.
func (a *analysis) argStores(t *dataflow.Value) map[*dataflow.Value]int64 {
	if out, ok := a.outgoingStores[t]; ok {
		return out
	}
	out := map[*dataflow.Value]int64{}
	for m, n := t.Args[1], 0; n < 256 && m.Kind == dataflow.OpValue && m.Op == lift.Store; m, n = m.Args[2], n+1 {
		out[m] = -1
	}
	sp, spOK := a.offs.Of(t.Args[2])
	for rel, v := range a.outgoing(t) {
		for m := range out {
			if m.Args[1] != v {
				continue
			}
			if o, ok := a.offs.Of(m.Args[0]); ok && spOK && o.Off-sp.Off == rel {
				out[m] = rel
			}
		}
	}
	a.outgoingStores[t] = out
	return out
}

// passedAsPointer reports whether store st writes an outgoing stack
// argument that a callee's prototype types as a pointer.
func (a *analysis) passedAsPointer(st *dataflow.Value) bool {
	for _, t := range a.transfers {
		if a.callee(t).proto == nil {
			continue
		}
		out := a.argStores(t)
		rel, ok := out[st]
		if !ok || rel < 0 {
			continue
		}
		params, _, _ := a.callParams(t)
		for _, p := range params {
			if p.Storage == StackName(rel) && p.Class == ctypes.ClassPointer {
				return true
			}
		}
	}
	return false
}

// usedWidth is the widest part of root its direct uses read.
func (a *analysis) usedWidth(root *dataflow.Value) int {
	w := 0
	for _, u := range a.users.of(root) {
		uw := int(root.Width)
		if u.v.Kind == dataflow.OpValue {
			switch u.v.Op {
			case lift.Extract, lift.Trunc:
				uw = int(u.v.Width)
			case lift.Call, lift.Jump, lift.Return:
				continue
			}
		}
		w = max(w, uw)
	}
	if w == 0 {
		w = int(root.Width)
	}
	return w
}

// Infer recovers the prototype of the procedure f under env.
func Infer(f *dataflow.Func, env *Env) *Prototype {
	return newAnalysis(f, env, &Scratch{}).infer()
}

// Analyze is Infer and Calls of f under env, sharing one analysis of f
// (stack offsets, uses, callees) instead of building it twice.
func Analyze(f *dataflow.Func, env *Env) (*Prototype, []Call) {
	return (&Scratch{}).Analyze(f, env)
}

// Analyze is the package's Analyze in s's memory.
func (s *Scratch) Analyze(f *dataflow.Func, env *Env) (*Prototype, []Call) {
	a := newAnalysis(f, env, s)
	p := a.infer()
	return p, a.calls()
}

// infer is the prototype; an i386 procedure assumed cdecl whose code says
// otherwise (stdcall's pops, fastcall's registers) is analysed again under
// that convention.
func (a *analysis) infer() *Prototype {
	if cv := a.i386Convention(); cv != nil {
		e := *a.env
		e.Conv = cv
		a = newAnalysis(a.f, &e, a.scr)
	}
	env := a.env
	cv := env.Conv
	p := &Prototype{Convention: cv.Name, Source: "inferred"}
	type regParam struct {
		loc  string
		used bool
	}
	for _, loc := range cv.Hidden {
		if slices.Contains(cv.IntArgs, loc) {
			continue
		}
		if e := a.entry[loc]; e != nil && cv.Name == "sysv" && a.realUse(e, loc) {
			p.Variadic = true // al: the number of vector registers a variadic call passes
		}
	}
	if len(cv.IntArgs) == 0 && a.vaStart() {
		p.Variadic = true
	}
	saved := a.saveArea()
	if cv.Positional {
		saved = a.homeSaveArea()
	}
	if len(saved) > 0 {
		p.Variadic = true
		for _, loc := range cv.FloatArgs {
			if _, ok := a.storedOnly(loc); ok {
				saved[loc] = true // the vector half of the save area
			}
		}
	}
	lastInt, lastFloat := -1, -1
	usedReg := map[string]bool{}
	for _, loc := range slices.Concat(cv.IntArgs, cv.FloatArgs) {
		e := a.entry[loc]
		if e == nil || !a.realUse(e, loc) {
			continue
		}
		if saved[loc] || p.Variadic && a.onlySpilled(e) {
			continue // the register save area of va_start
		}
		usedReg[loc] = true
		if i := slices.Index(cv.IntArgs, loc); i >= 0 {
			lastInt = max(lastInt, i)
			if cv.Positional {
				lastFloat = max(lastFloat, i)
			}
		} else if i := slices.Index(cv.FloatArgs, loc); i >= 0 {
			lastFloat = max(lastFloat, i)
			if cv.Positional {
				lastInt = max(lastInt, i)
			}
		}
	}
	// Registers the procedure never names but hands to a callee whose
	// prototype reads them: its own arguments passed on.
	passed := map[string]Param{}
	for _, t := range a.transfers {
		if a.callee(t).proto == nil || a.recursive(t) {
			continue
		}
		params, _, _ := a.callParams(t)
		for _, q := range params {
			if _, _, isArg := cv.IsArg(q.Storage); !isArg || a.named(q.Storage) {
				continue
			}
			if _, ok := passed[q.Storage]; !ok {
				passed[q.Storage] = q
			}
			usedReg[q.Storage] = true
			if i := slices.Index(cv.IntArgs, q.Storage); i >= 0 {
				lastInt = max(lastInt, i)
			} else if i := slices.Index(cv.FloatArgs, q.Storage); i >= 0 {
				lastFloat = max(lastFloat, i)
			}
		}
	}
	a.passed = passed
	if p.Variadic && lastInt < 0 && lastFloat < 0 && len(cv.IntArgs) > 0 {
		lastInt = 0 // a variadic function has a named parameter
	}
	if cv.Positional {
		for i := 0; i <= lastInt; i++ {
			loc := cv.IntArgs[i]
			if i < len(cv.FloatArgs) && usedReg[cv.FloatArgs[i]] && !usedReg[loc] {
				loc = cv.FloatArgs[i]
			}
			p.Params = append(p.Params, a.regParam(loc, usedReg[loc]))
		}
	} else {
		for i := 0; i <= lastInt; i++ {
			p.Params = append(p.Params, a.regParam(cv.IntArgs[i], usedReg[cv.IntArgs[i]]))
		}
		for i := 0; i <= lastFloat; i++ {
			p.Params = append(p.Params, a.regParam(cv.FloatArgs[i], usedReg[cv.FloatArgs[i]]))
		}
	}
	if len(saved) == 0 {
		// With a register save area, not every integer register holds a
		// named parameter, so the stack slots read are va_arg's overflow
		// area, not parameters.
		stack := a.stackParams()
		if pops := env.Pops[a.f.Entry]; cv.CalleePops && pops > 0 {
			stack = poppedParams(cv, stack, pops)
		}
		p.Params = append(p.Params, stack...)
	}
	p.Return = a.inferReturn()
	return p
}

func (a *analysis) regParam(loc string, used bool) Param {
	cv := a.env.Conv
	float := slices.Contains(cv.FloatArgs, loc)
	q := Param{Storage: loc, Class: ctypes.ClassInteger, Width: int(cv.PtrWidth), Signed: true, Used: used}
	if float {
		q.Class, q.Width = ctypes.ClassFloating, 64
	}
	if q, ok := a.passed[loc]; ok {
		q.Used = true
		return q
	}
	e := a.entry[loc]
	if !used || e == nil {
		if !float {
			q.Width = 32
		}
		return q
	}
	fs := a.walk([]*dataflow.Value{e})
	w := a.usedWidth(e)
	switch {
	case float:
		switch {
		case fs.fwidth == 32 || (fs.fwidth == 0 && w == 32):
			q.Width = 32
		default:
			q.Width = 64
		}
	case fs.ptr:
		q.Class, q.Width, q.Signed = ctypes.ClassPointer, int(cv.PtrWidth), false
	default:
		q.Width = min(w, int(cv.PtrWidth))
		q.Signed = fs.signed || !fs.unsigned
	}
	return q
}

// stackParams are the incoming stack slots the procedure loads.
func (a *analysis) stackParams() []Param {
	cv := a.env.Conv
	byOff := map[int64][]*dataflow.Value{}
	for o, loads := range a.slotLoads {
		if o.Base == 0 && o.Off >= cv.StackArgs {
			byOff[o.Off] = append(byOff[o.Off], loads...)
		}
	}
	if len(byOff) == 0 {
		return nil
	}
	wide := map[int64]Param{}
	a.mergeHalves(byOff, wide)
	offs := make([]int64, 0, len(byOff))
	for o := range byOff {
		offs = append(offs, o)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	var out []Param
	next := cv.StackArgs
	for _, o := range offs {
		if o < next {
			continue // a part of a wider argument already counted
		}
		for next < o { // an unused slot before a used one
			out = append(out, Param{Storage: StackName(next), Class: ctypes.ClassInteger, Width: 32, Signed: true})
			next += cv.StackSlot
		}
		loads := byOff[o]
		w := 0
		for _, l := range loads {
			w = max(w, int(l.Width))
		}
		wq, isWide := wide[o]
		if isWide {
			w = 64
		}
		fs := a.walk(loads)
		q := Param{Storage: StackName(o), Class: ctypes.ClassInteger, Width: w, Signed: fs.signed || !fs.unsigned, Used: true}
		switch {
		case isWide && wq.Class == ctypes.ClassFloating:
			q.Class = ctypes.ClassFloating
		case fs.fwidth != 0:
			q.Class, q.Width = ctypes.ClassFloating, fs.fwidth
		case fs.ptr && w == int(cv.PtrWidth):
			q.Class, q.Signed = ctypes.ClassPointer, false
		}
		out = append(out, q)
		size := int64(w / 8)
		next = o + max(cv.StackSlot, (size+cv.StackSlot-1)/cv.StackSlot*cv.StackSlot)
	}
	return out
}

// mergeHalves joins the two 32-bit halves of a 64-bit stack argument:
// those the procedure copies, half by half, into a local it then reads
// whole (GCC's -O0 copy of a double parameter on i386), a long long's
// halves computed on as one (longLong), and halves passed on together as
// one 64-bit argument of a call (forwardedWhole), which it marks in wide
// with the class known.
func (a *analysis) mergeHalves(byOff map[int64][]*dataflow.Value, wide map[int64]Param) {
	if a.env.Conv.PtrWidth != 32 {
		return
	}
	copied := func(loads []*dataflow.Value) (dataflow.StackOffset, bool) {
		for _, l := range loads {
			if l.Width != 32 {
				continue
			}
			for _, u := range a.users.of(l) {
				if u.v.Kind == dataflow.OpValue && u.v.Op == lift.Store && u.i == 1 {
					if o, ok := a.offs.Of(u.v.Args[0]); ok {
						return o, true
					}
				}
			}
		}
		return dataflow.StackOffset{}, false
	}
	offs := make([]int64, 0, len(byOff))
	for o := range byOff {
		offs = append(offs, o)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	for _, o := range offs {
		lo, hi := byOff[o], byOff[o+4]
		if lo == nil || hi == nil {
			continue
		}
		if a.longLong(lo, hi) {
			wide[o] = Param{Class: ctypes.ClassInteger}
			delete(byOff, o+4)
			continue
		}
		if q, ok := a.forwardedWhole(lo, hi); ok {
			wide[o] = q
			delete(byOff, o+4)
			continue
		}
		l, ok1 := copied(lo)
		h, ok2 := copied(hi)
		if !ok1 || !ok2 || h.Base != l.Base || h.Off != l.Off+4 {
			continue
		}
		var wide []*dataflow.Value
		for _, x := range a.slotLoads[l] {
			if x.Width == 64 {
				wide = append(wide, x)
			}
		}
		if len(wide) > 0 {
			byOff[o] = append(byOff[o], wide...)
			delete(byOff, o+4)
		}
	}
}

// forwardedWhole reports whether the two halves are stored as the two
// halves of one outgoing 64-bit stack argument of a call whose prototype
// (or format string) types that argument, and returns that parameter.
func (a *analysis) forwardedWhole(lo, hi []*dataflow.Value) (Param, bool) {
	// through one copy into a local (GCC -O0 copies its parameters)
	via := func(vs []*dataflow.Value) []*dataflow.Value {
		out := slices.Clone(vs)
		for _, v := range vs {
			for _, u := range a.users.of(v) {
				if u.v.Kind == dataflow.OpValue && u.v.Op == lift.Store && u.i == 1 {
					if o, ok := a.offs.Of(u.v.Args[0]); ok && o.Off < 0 {
						out = append(out, a.slotLoads[o]...)
					}
				}
			}
		}
		return out
	}
	lo, hi = via(lo), via(hi)
	rels := func(vs []*dataflow.Value, t *dataflow.Value) map[int64]bool {
		out := a.argStores(t)
		set := map[int64]bool{}
		for _, v := range vs {
			for _, u := range a.users.of(v) {
				if rel, ok := out[u.v]; ok && rel >= 0 && u.i == 1 {
					set[rel] = true
				}
			}
		}
		return set
	}
	for _, t := range a.transfers {
		if a.callee(t).proto == nil {
			continue
		}
		rl, rh := rels(lo, t), rels(hi, t)
		if len(rl) == 0 || len(rh) == 0 {
			continue
		}
		params, _, _ := a.callParams(t)
		for _, p := range params {
			if p.Width != 64 || !strings.HasPrefix(p.Storage, "stack+") {
				continue
			}
			if at := parseStack(p.Storage); rl[at] && rh[at+4] {
				return p, true
			}
		}
	}
	return Param{}, false
}

// longLong reports whether the 32-bit values loaded from two adjacent
// stack slots are the low and high halves of one 64-bit integer: the low
// half's carry (add/adc, sub/sbb) reaches an operation on the high half,
// or the low half is multiplied widening (mul: the product's upper half
// read) and the high half truncating by another argument's half (the
// cross terms of a 64-bit multiply).
func (a *analysis) longLong(lo, hi []*dataflow.Value) bool {
	isOp := func(v *dataflow.Value, ops ...lift.Op) bool {
		return v.Kind == dataflow.OpValue && slices.Contains(ops, v.Op)
	}
	carryIn := func(v *dataflow.Value) bool {
		for _, x := range v.Args {
			if isOp(x, lift.ZExt) && isOp(x.Args[0], lift.CarryAdd, lift.BorrowSub) {
				return true
			}
		}
		return false
	}
	low := func(v *dataflow.Value) bool {
		for _, u := range a.users.of(v) {
			if isOp(u.v, lift.CarryAdd, lift.BorrowSub) {
				return true
			}
			if isOp(u.v, lift.ZExt) && u.v.Width == 64 {
				for _, m := range a.users.of(u.v) {
					if isOp(m.v, lift.Mul) {
						for _, e := range a.users.of(m.v) {
							if isOp(e.v, lift.Extract) && e.v.Aux == 32 {
								return true
							}
						}
					}
				}
			}
		}
		return false
	}
	high := func(v *dataflow.Value) bool {
		for _, u := range a.users.of(v) {
			x := u.v
			if isOp(x, lift.Add, lift.Sub) {
				if carryIn(x) {
					return true
				}
				for _, u2 := range a.users.of(x) {
					if isOp(u2.v, lift.Add, lift.Sub) && carryIn(u2.v) {
						return true
					}
				}
			}
			if isOp(x, lift.SExt, lift.ZExt) && x.Width == 64 {
				for _, m := range a.users.of(x) {
					if !isOp(m.v, lift.Mul) {
						continue
					}
					other := m.v.Args[1-m.i]
					if isOp(other, lift.SExt, lift.ZExt) {
						other = other.Args[0]
					}
					if !isOp(other, lift.Load) {
						continue
					}
					truncated := len(a.users.of(m.v)) > 0
					for _, e := range a.users.of(m.v) {
						if !isOp(e.v, lift.Extract) || e.v.Aux != 0 {
							truncated = false
						}
					}
					if truncated {
						return true
					}
				}
			}
		}
		return false
	}
	return slices.ContainsFunc(lo, low) && slices.ContainsFunc(hi, high)
}

// inferReturn reads what reaches the procedure's returns.
func (a *analysis) inferReturn() *Param {
	cv := a.env.Conv
	// every return path counts: a procedure whose early exit returns a
	// 32-bit constant and whose loop returns a 64-bit sum returns 64 bits
	var intVals, floatVals []*dataflow.Value
	fw := 64
	var tailRet *Param // what a tail-called callee of known prototype returns
	for _, b := range a.f.Blocks {
		for _, v := range b.Values {
			if isTransfer(v) && v.Op == lift.Jump && tailRet == nil && !a.recursive(v) {
				if c := a.callee(v); c.proto != nil && c.proto.Return != nil {
					r := *c.proto.Return
					r.Used = true
					tailRet = &r
				}
			}
			if v.Kind != dataflow.OpValue || v.Op != lift.Return {
				continue
			}
			for i, n := range v.Names {
				x := v.Args[i+2]
				// an entry value moved here from another register is set
				set := x.Kind != dataflow.Entry || x.Loc != n
				if x.Kind == dataflow.Clobber {
					set = false
					if len(x.Args) > 0 {
						if c := a.callee(x.Args[0]); c.proto != nil && c.proto.Return != nil {
							set = c.proto.Return.Storage == n
						}
					}
				}
				if !set {
					continue
				}
				switch {
				case len(cv.IntReturn) > 0 && n == cv.IntReturn[0]:
					intVals = append(intVals, x)
				case len(cv.FloatReturn) > 0 && n == cv.FloatReturn[0]:
					floatVals = append(floatVals, x)
					if x.Kind == dataflow.OpValue && x.Op == lift.Insert && len(x.Args) == 2 && x.Args[1].Width == 32 {
						fw = 32
					}
				}
			}
		}
	}
	if len(floatVals) > 0 && len(intVals) > 0 && !slices.ContainsFunc(intVals, func(x *dataflow.Value) bool {
		return !slices.ContainsFunc(floatVals, func(f *dataflow.Value) bool { return sameBits(x, f) }) &&
			!a.addressing(x, map[*dataflow.Value]bool{})
	}) {
		// the integer register holds the float's bits (a copy made at
		// -O0) or an index or address the procedure used: scratch, not
		// the result
		intVals = nil
	}
	switch {
	case len(floatVals) > 0 && len(intVals) == 0:
		return &Param{Storage: cv.FloatReturn[0], Class: ctypes.ClassFloating, Width: fw, Used: true}
	case len(intVals) > 0:
		q := &Param{Storage: cv.IntReturn[0], Class: ctypes.ClassInteger, Width: 32, Signed: true, Used: true}
		seen := map[*dataflow.Value]bool{}
		if slices.ContainsFunc(intVals, func(x *dataflow.Value) bool {
			return x.Width == cv.PtrWidth && a.wideReturn(x, cv.PtrWidth, seen)
		}) {
			q.Width = int(cv.PtrWidth)
		}
		return q
	case tailRet != nil:
		// the procedure returns what the procedure it jumps to returns
		return tailRet
	}
	return nil
}

// bitsOf strips the moves of bits between widths and registers from v.
func bitsOf(v *dataflow.Value) *dataflow.Value {
	for v != nil && v.Kind == dataflow.OpValue && len(v.Args) > 0 {
		switch v.Op {
		case lift.Extract, lift.Trunc, lift.ZExt:
			v = v.Args[0]
		case lift.Insert:
			if len(v.Args) < 2 {
				return v
			}
			v = v.Args[1]
		default:
			return v
		}
	}
	return v
}

// sameBits reports whether the returned integer value x is the returned
// float value f's bits.
func sameBits(x, f *dataflow.Value) bool {
	return x != nil && f != nil && bitsOf(x) == bitsOf(f)
}

// addressing reports whether v (or, for a phi, any of its incoming values
// other than constants) is an index or address of a memory access: added
// into a load's or store's address, or that address itself.
func (a *analysis) addressing(v *dataflow.Value, seen map[*dataflow.Value]bool) bool {
	if v == nil || seen[v] {
		return false
	}
	seen[v] = true
	if v.Kind == dataflow.Phi {
		for _, y := range v.Args {
			if y.Kind != dataflow.ConstValue && a.addressing(y, seen) {
				return true
			}
		}
	}
	for _, u := range a.users.of(v) {
		x := u.v
		if x.Kind == dataflow.Phi && a.addressing(x, seen) {
			return true // a loop's induction variable
		}
		if x.Kind != dataflow.OpValue {
			continue
		}
		if (x.Op == lift.Load || x.Op == lift.Store) && u.i == 0 {
			return true
		}
		if x.Op == lift.Add || x.Op == lift.Mul || x.Op == lift.Shl {
			for _, w := range a.users.of(x) {
				if w.v.Kind == dataflow.OpValue && (w.v.Op == lift.Load || w.v.Op == lift.Store) && w.i == 0 {
					return true
				}
			}
		}
	}
	return false
}

// wideReturn reports whether the returned value x holds more than 32
// bits: a load or an operation of the full width (a pointer, a size), a
// parameter register passed on whole, a callee's full-width return, a
// constant beyond 32 bits or an address in the image, or a phi of any of
// those. A 32-bit result the
// architecture widens (x86-64's zero extension of 32-bit writes) is not.
func (a *analysis) wideReturn(x *dataflow.Value, w lift.Width, seen map[*dataflow.Value]bool) bool {
	if seen[x] || x.Width < w {
		return false
	}
	seen[x] = true
	switch x.Kind {
	case dataflow.Phi:
		for _, y := range x.Args {
			if a.wideReturn(y, w, seen) {
				return true
			}
		}
		return false
	case dataflow.ConstValue:
		if x.Lo >= 0x100 && a.env.Image != nil && a.env.Image.Mapped(x.Lo) {
			return true // an address: a string, a table
		}
		// a 32-bit write zero-extends (0xffffffff is a 32-bit -1); a
		// 64-bit -1 is wide
		return x.Lo>>32 != 0
	case dataflow.Entry:
		// a parameter register passed on whole; the return register's own
		// entry value is whatever the caller left there
		return a.env.Conv == nil || x.Loc != a.env.Conv.IntReturn[0]
	case dataflow.Clobber:
		if len(x.Args) > 0 {
			if c := a.callee(x.Args[0]); c.proto != nil && c.proto.Return != nil {
				return c.proto.Return.Width >= int(w)
			}
		}
		return false
	case dataflow.OpValue:
		switch x.Op {
		case lift.ZExt, lift.SExt:
			return len(x.Args) > 0 && x.Args[0].Width >= w
		}
		return true
	}
	return false
}

// String renders p as a C prototype of a procedure called name.
func (p *Prototype) String(name string) string {
	var sb strings.Builder
	if p.Return == nil {
		sb.WriteString("void")
	} else {
		sb.WriteString(p.Return.Type())
	}
	sb.WriteString(" " + name + "(")
	for i, q := range p.Params {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(q.Type() + " a" + strconv.Itoa(i+1))
	}
	if p.Variadic {
		if len(p.Params) > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("...")
	} else if len(p.Params) == 0 {
		sb.WriteString("void")
	}
	sb.WriteString(")")
	return sb.String()
}
