package dataflow

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/rea-re/rea/engine/lift"
)

// Jump tables (issue 25 item 5, CONTRACTS.md §19). A switch compiles to an
// indirect jump whose target is computed from a bounded index: a load from
// a table at base + index·size, optionally sign- or zero-extended, scaled
// and added to a base (PIC tables of offsets, arm64's byte and halfword
// tables relative to a label). Rather than matching each compiler's
// instruction sequence, ResolveJumpTables works on the SSA the passes left:
//
//  1. From the jump's target value it follows the arguments that are not
//     constants (after folding, the table base of a RIP-relative lea, an
//     adrp/add pair or an i386 GOT pointer is a constant) down to the table
//     load, and below it to the values the load's address depends on: a
//     chain that ends at the procedure's input (a register at entry, a
//     load of an argument from the stack, a phi).
//  2. A value of that chain is the index when its range is bounded: by the
//     comparisons of the branches that dominate the jump (the flag-folded
//     `ult 0xd, v` of cmp/ja or cmp/b.hi, and signed ones that bound both
//     ends), by an and with a mask, or through extensions, truncations and
//     additions of constants from a bounded value below it. The topmost
//     bounded value wins (a scaled index is not an interval: the scaling
//     ends the search upward).
//  3. The target is evaluated for each index value with the IR's own
//     semantics, the table read through the Image from bytes the program
//     cannot write.
//
// The search is bounded (the chain by maxChain values, the table by
// Options.MaxEntries) and every jump it does not resolve is reported with a
// named reason.

// Image is the memory of the file a procedure comes from.
type Image interface {
	// Read returns the n bytes at virtual address addr as the loaded file
	// holds them (dynamic relocations that the loader applies without a
	// symbol, such as RELATIVE, applied), whether the program may write
	// them once loaded (a RELRO range is not writable), and ok = false when
	// any of the bytes lies outside the file's loaded sections.
	Read(addr uint64, n int) (b []byte, writable, ok bool)
	// Executable reports whether addr lies in an executable section.
	Executable(addr uint64) bool
	// Import names the symbol a dynamic relocation binds the pointer-sized
	// slot at addr to (a GOT or IAT entry).
	Import(addr uint64) (string, bool)
}

// DefaultMaxEntries is the largest table ResolveJumpTables reads unless
// Options say otherwise.
const DefaultMaxEntries = 4096

// Options bound the resolution.
type Options struct {
	// Start and End delimit the procedure's code: a case target outside
	// [Start, End) refuses the table. With End = 0 a target must only lie
	// in an executable section of the Image (code split into cold parts
	// lies outside the procedure's own range).
	Start, End uint64
	// MaxEntries caps a table's index range (DefaultMaxEntries when 0).
	MaxEntries int
	// Lift lifts the instruction at an address outside the procedure
	// (ResolveProcedure reads PC thunks with it); nil: none is read.
	Lift func(addr uint64) (*lift.Insn, bool)
	// NoReturn says which direct calls never return (BuildExtra.NoReturn):
	// without it, the code after a call of exit merges into whatever
	// follows, and a table base kept in a register may no longer be one
	// value at the jump.
	NoReturn func(target uint64) bool
	// Scratch is working memory ResolveProcedure's builds and passes
	// reuse (nil: its own for this call).
	Scratch *Scratch
}

// JumpTable is one resolved indirect jump.
type JumpTable struct {
	Jump uint64 // the indirect jump
	// Table is the address of the entry of the first index; EntrySize its
	// width in bytes; Signed says entries are sign-extended.
	Table     uint64
	EntrySize int
	Signed    bool
	// Base and Scale: target = Base + entry·Scale (Base 0, Scale 1 for a
	// table of absolute addresses).
	Base  uint64
	Scale uint64
	// First is the lowest index value; Targets[i] is where index First+i
	// goes.
	First   uint64
	Targets []uint64
	// Default is where control goes when the bound check fails, when one
	// guards the jump (HasDefault).
	Default    uint64
	HasDefault bool
}

// Count is the number of index values the table covers.
func (t *JumpTable) Count() int { return len(t.Targets) }

// Unresolved reasons.
const (
	ReasonNoTable       = "no_table_load"       // the target is not computed from a load indexed by a value
	ReasonNoKnownTable  = "no_known_table"      // the load's address has no part in the file: an object's field, not a table
	ReasonBoundUnknown  = "bound_unknown"       // no comparison or mask bounds the index
	ReasonBoundTooLarge = "bound_beyond_cap"    // the index range exceeds Options.MaxEntries
	ReasonTableMemory   = "table_not_read_only" // the table is writable or not in the file
	ReasonTargetOutside = "target_outside_code" // a target lies outside the procedure's code
)

// Unresolved is an indirect jump or call data flow could not resolve, and
// why (one of the Reason constants; Detail says where, when it can).
type Unresolved struct {
	Addr   uint64
	Reason string
	Detail string
}

// maxChain bounds the values followed from a jump's target.
const maxChain = 64

// ResolveJumpTables resolves the indirect jumps of f (built and
// optimized) whose targets come from bounded tables of img.
func ResolveJumpTables(f *Func, img Image, opt Options) ([]JumpTable, []Unresolved) {
	if opt.MaxEntries <= 0 {
		opt.MaxEntries = DefaultMaxEntries
	}
	computeDominators(f)
	ai := &aliasInfo{f: f}
	var tables []JumpTable
	var refused []Unresolved
	for _, b := range f.Blocks {
		j := b.Control()
		if j == nil || j.Op != lift.Jump || len(j.Args) == 0 || j.Args[0].Kind == ConstValue || b.Exit {
			continue
		}
		t, reason, detail := resolveJump(f, b, j.Args[0], img, opt, ai)
		if reason != "" {
			refused = append(refused, Unresolved{Addr: j.Addr, Reason: reason, Detail: detail})
			continue
		}
		t.Jump = j.Addr
		tables = append(tables, t)
	}
	slices.SortFunc(tables, func(a, b JumpTable) int { return cmpU64(a.Jump, b.Jump) })
	slices.SortFunc(refused, func(a, b Unresolved) int { return cmpU64(a.Addr, b.Addr) })
	return tables, refused
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// tableLoad is what the analysis of one computed target found.
type tableLoad struct {
	load  *Value   // the table load
	chain []*Value // the values below it the load's address depends on, top first
}

// findTableLoad follows the non-constant arguments of target down to the
// topmost load whose address is not constant, and on below it while each
// value has exactly one non-constant argument.
func findTableLoad(ev *evaluator, target *Value) (tableLoad, bool) {
	var tl tableLoad
	cur := target
	for n := 0; n < maxChain; n++ {
		if tl.load != nil {
			tl.chain = append(tl.chain, cur)
		}
		if cur.Kind != OpValue || (!pure(cur) && cur.Op != lift.Load) {
			break
		}
		args := cur.Args
		if cur.Op == lift.Load {
			if tl.load == nil {
				tl.load = cur
			}
			args = args[:1] // the memory token is not a dependence of the value
		}
		var next *Value
		count := 0
		for _, a := range args {
			if _, ok := ev.constant(a); ok {
				continue
			}
			if a != next {
				count++
				next = a
			}
		}
		if count != 1 {
			break
		}
		cur = next
	}
	return tl, tl.load != nil && len(tl.chain) > 0
}

func resolveJump(f *Func, jb *Block, target *Value, img Image, opt Options, ai *aliasInfo) (JumpTable, string, string) {
	ev := newEvaluator(img, true)
	tl, ok := findTableLoad(ev, target)
	if !ok {
		return JumpTable{}, ReasonNoTable, ""
	}
	if !inImage(ev, tl.load.Args[0]) {
		return JumpTable{}, ReasonNoKnownTable, ""
	}
	cons := dominatingConstraints(jb)
	idx, rng, guard := boundIndex(tl.chain, cons, ai)
	if idx == nil {
		return JumpTable{}, ReasonBoundUnknown, ""
	}
	count := rng.hi - rng.lo
	if count >= uint64(opt.MaxEntries) {
		return JumpTable{}, ReasonBoundTooLarge, fmt.Sprintf("%d entries", count+1)
	}
	t := JumpTable{First: rng.lo, EntrySize: int(tl.load.Width / 8)}
	w := f.Arch.PtrWidth
	var reason, detail string
	t.Table, t.Targets, reason, detail = readTable(ev, idx, rng, tl.load, target, w, func(a uint64) bool { return inCode(img, opt, a) })
	if reason != "" {
		return JumpTable{}, reason, detail
	}
	// The entry's form: substitute the load by 0 and 1.
	ev.reset(idx, rng.lo)
	ev.override = tl.load
	if b0, ok := ev.evalWith(target, 0); ok {
		if b1, ok := ev.evalWith(target, 1); ok {
			t.Base, t.Scale = b0&mask(w), (b1-b0)&mask(w)
		}
	}
	t.Signed = signExtended(target, tl.load)
	if guard != nil {
		t.Default, t.HasDefault = guard.other.Addr, true
	}
	return t, "", ""
}

// readTable evaluates target once for each index of rng (idx set to it):
// the address the first entry is loaded from, and every target, each of
// which valid must accept. A jump table and a table of code pointers are
// read alike; they differ in what a target may be.
func readTable(ev *evaluator, idx *Value, rng interval, load, target *Value, w lift.Width, valid func(uint64) bool) (first uint64, targets []uint64, reason, detail string) {
	targets = make([]uint64, 0, rng.hi-rng.lo+1)
	for i := rng.lo; ; i++ {
		ev.reset(idx, i)
		addr, ok := ev.eval(load.Args[0])
		if !ok {
			return 0, nil, ReasonTableMemory, fmt.Sprintf("index %d", i)
		}
		if i == rng.lo {
			first = addr
		}
		tgt, ok := ev.eval(target)
		if !ok {
			return 0, nil, ReasonTableMemory, fmt.Sprintf("entry at %#x", addr)
		}
		tgt &= mask(w)
		if !valid(tgt) {
			return 0, nil, ReasonTargetOutside, fmt.Sprintf("index %d → %#x", i, tgt)
		}
		targets = append(targets, tgt)
		if i == rng.hi {
			return first, targets, "", ""
		}
	}
}

// inImage reports whether a value the address addr is computed from (a
// table's base, a GOT pointer) is an address in the file: without one the
// load reads an object the program built, not a table.
func inImage(ev *evaluator, addr *Value) bool {
	seen := map[*Value]bool{}
	var walk func(v *Value, depth int) bool
	walk = func(v *Value, depth int) bool {
		if seen[v] || depth > maxChain {
			return false
		}
		seen[v] = true
		if c, ok := ev.constant(v); ok {
			_, _, in := ev.img.Read(c, 1)
			return in
		}
		if v.Kind != OpValue || !pure(v) {
			return false
		}
		for _, a := range v.Args {
			if walk(a, depth+1) {
				return true
			}
		}
		return false
	}
	return walk(addr, 0)
}

func inCode(img Image, opt Options, a uint64) bool {
	if opt.End != 0 {
		return a >= opt.Start && a < opt.End
	}
	return img.Executable(a)
}

// signExtended reports whether the load's value reaches the target through
// a sign extension.
func signExtended(target, load *Value) bool {
	found := false
	seen := map[*Value]bool{}
	var walk func(v *Value, depth int) bool
	walk = func(v *Value, depth int) bool {
		if v == load {
			return true
		}
		if depth > maxChain || v.Kind != OpValue || v.Op == lift.Load || seen[v] {
			return false
		}
		seen[v] = true
		for _, a := range v.Args {
			if walk(a, depth+1) {
				if v.Op == lift.SExt {
					found = true
				}
				return true
			}
		}
		return false
	}
	walk(target, 0)
	return found
}

// interval is an unsigned range [lo, hi] of values of one width.
type interval struct{ lo, hi uint64 }

// constraint is what a dominating branch says about a value: it lies in
// rng (unsigned, or signed when signed is set), when control reaches the
// jump; other is the successor the branch takes when it does not.
type constraint struct {
	v      *Value
	rng    interval
	signed bool
	srng   [2]int64
	other  *Block
}

// dominatingConstraints collects the comparisons with a constant that hold
// at jb: for each dominator ending in a branch one of whose successors
// dominates jb and has that branch's block as its only predecessor.
func dominatingConstraints(jb *Block) []constraint {
	var out []constraint
	for d, prev := jb.Idom, jb; d != nil && prev != d; prev, d = d, d.Idom {
		c := d.Control()
		if c == nil || c.Op != lift.Branch || len(c.Args) != 1 || len(d.Succs) != 2 || d.Succs[0] == d.Succs[1] {
			continue
		}
		for k, s := range d.Succs {
			if len(s.Preds) != 1 || !dominates(s, jb) {
				continue
			}
			out = appendConstraint(out, c.Args[0], k == 0, d.Succs[1-k], 0)
		}
	}
	return out
}

func appendConstraint(out []constraint, cond *Value, truth bool, other *Block, depth int) []constraint {
	if depth > 4 || cond.Kind != OpValue {
		return out
	}
	a := cond.Args
	switch cond.Op {
	case lift.Xor:
		if len(a) == 2 && isConst(a[1], 1) {
			return appendConstraint(out, a[0], !truth, other, depth+1)
		}
		if len(a) == 2 && isConst(a[0], 1) {
			return appendConstraint(out, a[1], !truth, other, depth+1)
		}
		return out
	case lift.Not:
		return appendConstraint(out, a[0], !truth, other, depth+1)
	case lift.Copy:
		return appendConstraint(out, a[0], truth, other, depth+1)
	case lift.And:
		// Both hold when the conjunction does.
		if truth && len(a) == 2 {
			out = appendConstraint(out, a[0], true, other, depth+1)
			return appendConstraint(out, a[1], true, other, depth+1)
		}
		return out
	case lift.Or:
		if !truth && len(a) == 2 {
			out = appendConstraint(out, a[0], false, other, depth+1)
			return appendConstraint(out, a[1], false, other, depth+1)
		}
		return out
	case lift.Ult, lift.Ule, lift.Slt, lift.Sle, lift.Eq, lift.Ne:
	default:
		return out
	}
	if len(a) != 2 {
		return out
	}
	x, k, swapped := a[0], a[1], false
	if x.Kind == ConstValue {
		x, k, swapped = a[1], a[0], true
	}
	if k.Kind != ConstValue || x.Kind == ConstValue || x.Width > 64 {
		return out
	}
	w := x.Width
	m := mask(w)
	c := k.Lo & m
	full := interval{0, m}
	smin, smax := -int64(1)<<(w-1), int64(1)<<(w-1)-1
	if w == 64 {
		smin, smax = math.MinInt64, math.MaxInt64
	}
	sc := signExtend(c, w)
	r := constraint{v: x, rng: full, srng: [2]int64{smin, smax}, other: other}
	empty := func() []constraint { return out } // a contradiction: the path is dead; say nothing
	switch op := cond.Op; {
	case op == lift.Eq || op == lift.Ne:
		if (op == lift.Eq) != truth {
			return out
		}
		r.rng = interval{c, c}
	case op == lift.Ult || op == lift.Ule:
		strict := op == lift.Ult
		// Normalise to "x < c" / "x ≤ c" / "x > c" / "x ≥ c".
		less := !swapped // x op c: x is smaller when true
		if !truth {
			less, strict = !less, !strict
		}
		switch {
		case less && strict:
			if c == 0 {
				return empty()
			}
			r.rng.hi = c - 1
		case less:
			r.rng.hi = c
		case strict:
			if c == m {
				return empty()
			}
			r.rng.lo = c + 1
		default:
			r.rng.lo = c
		}
	default: // Slt, Sle
		strict := cond.Op == lift.Slt
		less := !swapped
		if !truth {
			less, strict = !less, !strict
		}
		r.signed = true
		switch {
		case less && strict:
			if sc == smin {
				return empty()
			}
			r.srng[1] = sc - 1
		case less:
			r.srng[1] = sc
		case strict:
			if sc == smax {
				return empty()
			}
			r.srng[0] = sc + 1
		default:
			r.srng[0] = sc
		}
	}
	return append(out, r)
}

// lowMask reports whether m is 2^k-1.
func lowMask(m uint64) bool { return m&(m+1) == 0 }

func signExtend(v uint64, w lift.Width) int64 {
	if w >= 64 {
		return int64(v)
	}
	s := 64 - uint(w)
	return int64(v<<s) >> s
}

// boundIndex finds the topmost value of chain whose range is bounded, and
// the constraint that bounded it from above (the jump's guard).
func boundIndex(chain []*Value, cons []constraint, ai *aliasInfo) (*Value, interval, *constraint) {
	type bound struct {
		rng   interval
		ok    bool // bounded (not the full range of the width)
		guard *constraint
	}
	bs := make([]bound, len(chain))
	for k := len(chain) - 1; k >= 0; k-- {
		v := chain[k]
		if v.Width == 0 || v.Width > 64 {
			continue
		}
		m := mask(v.Width)
		b := bound{rng: interval{0, m}}
		// What the value below says, through operations that keep an
		// interval an interval.
		if k+1 < len(chain) && bs[k+1].ok {
			if r, ok := derive(v, chain[k+1], bs[k+1].rng); ok {
				b.rng, b.ok, b.guard = r, true, bs[k+1].guard
			}
		}
		if v.Kind == OpValue && v.Op == lift.And && len(v.Args) == 2 {
			for _, a := range v.Args {
				if a.Kind == ConstValue && lowMask(a.Lo&m) && a.Lo&m < b.rng.hi {
					b.rng, b.ok = interval{0, a.Lo & m}, true
				}
			}
		}
		if v.Kind == OpValue && v.Op == lift.ZExt && len(v.Args) == 1 && v.Args[0].Width <= 16 && mask(v.Args[0].Width) < b.rng.hi {
			b.rng, b.ok = interval{0, mask(v.Args[0].Width)}, true
		}
		var s [2]int64
		signed := false
		for i := range cons {
			c := &cons[i]
			if !sameComputation(c.v, v, 0, ai) {
				continue
			}
			if c.signed {
				if !signed {
					s, signed = c.srng, true
				} else {
					s[0], s[1] = max(s[0], c.srng[0]), min(s[1], c.srng[1])
				}
				if s[0] >= 0 && uint64(s[1]) < b.rng.hi {
					b.rng, b.ok, b.guard = interval{max(b.rng.lo, uint64(s[0])), uint64(s[1])}, true, c
				}
				continue
			}
			if c.rng.hi < b.rng.hi {
				b.rng.hi, b.ok, b.guard = c.rng.hi, true, c
			}
			if c.rng.lo > b.rng.lo {
				b.rng.lo = c.rng.lo
			}
		}
		if b.rng.lo > b.rng.hi {
			b.ok = false // contradictory: a dead path
		}
		bs[k] = b
	}
	for k, b := range bs {
		if b.ok {
			return chain[k], b.rng, b.guard
		}
	}
	return nil, interval{}, nil
}

// derive is the range of v = op(below, constants) given below's range, for
// the operations that map an interval onto an interval.
func derive(v, below *Value, r interval) (interval, bool) {
	if v.Kind != OpValue {
		return interval{}, false
	}
	m := mask(v.Width)
	switch v.Op {
	case lift.Copy, lift.ZExt:
		if r.hi <= m {
			return r, true
		}
	case lift.SExt:
		// A non-negative value extends to itself.
		if r.hi <= mask(below.Width)>>1 {
			return r, true
		}
	case lift.Trunc:
		if r.hi <= m {
			return r, true
		}
	case lift.Extract:
		if v.Aux == 0 && r.hi <= m {
			return r, true
		}
	case lift.And:
		// Only a mask of low bits keeps an interval an interval.
		for _, a := range v.Args {
			if a.Kind == ConstValue && lowMask(a.Lo&m) {
				if r.hi <= a.Lo&m {
					return r, true
				}
				return interval{0, a.Lo & m}, true
			}
		}
	case lift.Add, lift.Sub:
		if len(v.Args) != 2 {
			return interval{}, false
		}
		var c uint64
		switch {
		case v.Args[1].Kind == ConstValue && v.Args[0] == below:
			c = v.Args[1].Lo
			if v.Op == lift.Sub {
				c = -c
			}
		case v.Args[0].Kind == ConstValue && v.Args[1] == below && v.Op == lift.Add:
			c = v.Args[0].Lo
		default:
			return interval{}, false
		}
		lo, hi := (r.lo+c)&m, (r.hi+c)&m
		if lo <= hi && r.hi-r.lo == hi-lo {
			return interval{lo, hi}, true
		}
	}
	return interval{}, false
}

// aliasInfo is what sameComputation knows of the stack: the values that
// are the entry stack pointer plus a known offset, tracked on first use
// (most procedures have no indirect transfer to ask about).
type aliasInfo struct {
	f      *Func
	offs   spTable
	traced bool
}

func (ai *aliasInfo) of(v *Value) (spOff, bool) {
	if !ai.traced {
		ai.offs, ai.traced = stackOffsets(ai.f), true
	}
	return ai.offs.of(v)
}

// sameMem reports whether a load from addr reads the same memory under
// tokens a and b: the same token, or one reached from the other through
// stores to the procedure's own frame (below the entry stack pointer: a
// push, a spill), which cannot alias memory the load of a non-stack
// address reads.
func (ai *aliasInfo) sameMem(a, b, addr *Value) bool {
	if a == b {
		return true
	}
	if ai == nil {
		return false
	}
	if _, ok := ai.of(addr); ok {
		return false // the load reads the frame itself
	}
	for _, p := range [2][2]*Value{{a, b}, {b, a}} {
		m := p[0]
		for i := 0; i < 16; i++ {
			if m == p[1] {
				return true
			}
			if m.Kind != OpValue || m.Op != lift.Store || len(m.Args) != 3 {
				break
			}
			o, ok := ai.of(m.Args[0])
			if !ok || o.off >= 0 {
				break
			}
			m = m.Args[2]
		}
	}
	return false
}

// sameComputation reports whether a and b compute the same value: the same SSA
// value, or the same pure operation (or load, with the same memory) over
// the same arguments, as a reload of a stack slot at -O0 is.
func sameComputation(a, b *Value, depth int, ai *aliasInfo) bool {
	if a == b {
		return true
	}
	if depth > 6 || a.Kind != b.Kind || a.Width != b.Width {
		return false
	}
	switch a.Kind {
	case ConstValue:
		return a.Lo == b.Lo && a.Hi == b.Hi
	case OpValue:
		if a.Op != b.Op || a.Aux != b.Aux || a.Lane != b.Lane || len(a.Args) != len(b.Args) || (!pure(a) && a.Op != lift.Load) {
			return false
		}
		if a.Op == lift.Load {
			return len(a.Args) == 2 && sameComputation(a.Args[0], b.Args[0], depth+1, ai) && ai.sameMem(a.Args[1], b.Args[1], a.Args[0])
		}
		for i := range a.Args {
			if !sameComputation(a.Args[i], b.Args[i], depth+1, ai) {
				return false
			}
		}
		return true
	}
	return false
}

// evaluator computes values of one procedure with the IR's semantics, one
// value (the index) set to a given constant, memory read from the Image.
type evaluator struct {
	img      Image
	readOnly bool // loads only from memory the program cannot write
	idx      *Value
	x        uint64
	override *Value // evalWith: this value is ox
	ox       uint64
	consts   map[*Value]constResult // the values without an index
	memo     map[*Value]constResult // the values under the current index
	cache    map[*Value]constResult // consts or memo, as eval1 runs
}

type constResult struct {
	v  uint64
	ok bool
}

func newEvaluator(img Image, readOnly bool) *evaluator {
	return &evaluator{img: img, readOnly: readOnly, consts: map[*Value]constResult{}, memo: map[*Value]constResult{}}
}

func (ev *evaluator) reset(idx *Value, x uint64) {
	ev.idx, ev.x, ev.override = idx, x, nil
	clear(ev.memo)
}

// constant evaluates v without an index (memoised).
func (ev *evaluator) constant(v *Value) (uint64, bool) {
	if v.Kind == ConstValue {
		return v.Lo, v.Hi == 0 || v.Width == 128
	}
	if r, ok := ev.consts[v]; ok {
		return r.v, r.ok
	}
	save, saveO := ev.idx, ev.override
	ev.idx, ev.override, ev.cache = nil, nil, ev.consts
	x, ok := ev.eval1(v, 0)
	ev.idx, ev.override = save, saveO
	return x, ok
}

func (ev *evaluator) eval(v *Value) (uint64, bool) {
	ev.cache = ev.memo
	return ev.eval1(v, 0)
}

func (ev *evaluator) evalWith(v *Value, x uint64) (uint64, bool) {
	ev.ox = x
	clear(ev.memo)
	ev.cache = ev.memo
	return ev.eval1(v, 0)
}

// eval1 evaluates v, memoised in ev.cache so that a value shared by many
// paths of the expression is computed once.
func (ev *evaluator) eval1(v *Value, depth int) (uint64, bool) {
	if r, ok := ev.cache[v]; ok {
		return r.v, r.ok
	}
	ev.cache[v] = constResult{} // a value that depends on itself is unknown
	x, ok := ev.eval2(v, depth)
	ev.cache[v] = constResult{x, ok}
	return x, ok
}

func (ev *evaluator) eval2(v *Value, depth int) (uint64, bool) {
	switch {
	case v == ev.idx:
		return ev.x & mask(v.Width), true
	case v == ev.override:
		return ev.ox & mask(v.Width), true
	case v.Kind == ConstValue:
		return v.Lo, v.Width <= 64
	case v.Kind == Phi && depth <= maxChain:
		return ev.phiWeb(v, depth)
	case v.Kind != OpValue || depth > maxChain || v.Width > 64 || v.Width == 0 || v.Lane != 0:
		return 0, false
	}
	if v.Op == lift.Load {
		// A load of what the store before it wrote there (clang's i386
		// call 1f; 1: pop %ebx, when the slot is not promoted).
		if len(v.Args) == 2 {
			if m := v.Args[1]; m.Kind == OpValue && m.Op == lift.Store && len(m.Args) == 3 && m.Args[0] == v.Args[0] && m.Args[1].Width == v.Width {
				return ev.eval1(m.Args[1], depth+1)
			}
		}
		a, ok := ev.eval1(v.Args[0], depth+1)
		if !ok {
			return 0, false
		}
		return ev.load(a, v.Width)
	}
	if !pure(v) || len(v.Args) > 3 {
		return 0, false
	}
	var args [3]uint64
	for i, a := range v.Args {
		x, ok := ev.eval1(a, depth+1)
		if !ok {
			return 0, false
		}
		args[i] = x
	}
	return apply(v, args[:len(v.Args)])
}

// maxPhiWeb bounds the phis phiWeb visits.
const maxPhiWeb = 256

// phiWeb evaluates a phi whose arguments, followed through other phis,
// are all one value: the cycles of phis a loop leaves around a register it
// never changes (Braun et al.'s redundant phi SCCs, which the trivial-phi
// removal of the passes does not see).
func (ev *evaluator) phiWeb(v *Value, depth int) (uint64, bool) {
	seen := map[*Value]bool{v: true}
	work := []*Value{v}
	var val uint64
	have := false
	for len(work) > 0 {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		for _, a := range p.Args {
			if a.Kind == Phi {
				if !seen[a] {
					if len(seen) >= maxPhiWeb {
						return 0, false
					}
					seen[a] = true
					work = append(work, a)
				}
				continue
			}
			x, ok := ev.eval1(a, depth+1)
			if !ok || have && x != val {
				return 0, false
			}
			val, have = x, true
		}
	}
	return val, have
}

func (ev *evaluator) load(a uint64, w lift.Width) (uint64, bool) {
	n := int(w / 8)
	if n == 0 || w%8 != 0 {
		return 0, false
	}
	b, writable, ok := ev.img.Read(a, n)
	if !ok || len(b) < n || (writable && ev.readOnly) {
		return 0, false
	}
	var buf [8]byte
	copy(buf[:], b[:n])
	return binary.LittleEndian.Uint64(buf[:]), true
}

// apply computes v's operation over constant arguments: the common integer
// operations directly, the rest with lift.Step so that the semantics stay
// the interpreter's.
func apply(v *Value, a []uint64) (uint64, bool) {
	m := mask(v.Width)
	arg := func(i int) uint64 { return a[i] & mask(v.Args[i].Width) }
	switch {
	case len(a) == 1:
		switch v.Op {
		case lift.Copy, lift.ZExt, lift.Trunc:
			return arg(0) & m, true
		case lift.SExt:
			return uint64(signExtend(arg(0), v.Args[0].Width)) & m, true
		case lift.Extract:
			if v.Aux >= 0 && v.Aux < 64 {
				return arg(0) >> uint(v.Aux) & m, true
			}
		case lift.Neg:
			return -arg(0) & m, true
		case lift.Not:
			return ^arg(0) & m, true
		}
	case len(a) == 2:
		x, y := arg(0), arg(1)
		switch v.Op {
		case lift.Add:
			return (x + y) & m, true
		case lift.Sub:
			return (x - y) & m, true
		case lift.Mul:
			return (x * y) & m, true
		case lift.And:
			return x & y & m, true
		case lift.Or:
			return (x | y) & m, true
		case lift.Xor:
			return (x ^ y) & m, true
		case lift.Shl:
			if y >= uint64(v.Width) {
				return 0, true
			}
			return x << y & m, true
		case lift.LShr:
			if y >= uint64(v.Width) {
				return 0, true
			}
			return x >> y & m, true
		}
	}
	s := lift.Stmt{Op: v.Op, Aux: v.Aux, Dst: lift.R("d", v.Width)}
	ops := [...]*lift.Operand{&s.A, &s.B, &s.C}
	for i, x := range a {
		*ops[i] = lift.C(v.Args[i].Width, x)
	}
	in := lift.Insn{Stmts: []lift.Stmt{s}}
	if lift.Validate(&in) != nil {
		return 0, false
	}
	st := lift.State{Regs: map[string]lift.Value{}}
	if _, err := lift.Step(&in, &st); err != nil {
		return 0, false
	}
	r := st.Regs["d"]
	if r.Undef {
		return 0, false
	}
	return r.Lo & m, true
}
