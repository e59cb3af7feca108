package dataflow

import (
	"fmt"
	"slices"

	"github.com/rea-re/rea/engine/lift"
)

// IndirectCall is an indirect call whose target data flow resolves: a load
// from a slot a dynamic relocation binds to an import (a GOT or IAT entry),
// from a read-only slot holding a code address, or from a bounded table of
// code addresses (`call *tab(,%rax,8)`, `ops[i].fn(x)`).
type IndirectCall struct {
	Call uint64 // the call instruction
	// Import names the symbol of the slot the target is loaded from ("" for
	// a table or a slot without a relocation); Slot is that slot, or the
	// table's entry for the first index.
	Import string
	Slot   uint64
	// Targets are the candidate targets in the file (empty for an import):
	// one per index value from First for a table.
	First   uint64
	Targets []uint64
	// Tail says the transfer is a jump that leaves the procedure (a tail
	// call), not a call.
	Tail bool
}

// Reasons an indirect call stays unresolved, besides those of jump tables.
const (
	ReasonNotLoaded    = "target_not_loaded" // the target is not a load from memory data flow knows
	ReasonSlotWritable = "slot_writable"     // the target is loaded from memory the program may write
)

// ResolveIndirectCalls resolves the indirect calls of f (built and
// optimized) whose targets are loaded from slots or bounded tables of img.
// Calls whose target is a constant are direct and not listed.
func ResolveIndirectCalls(f *Func, img Image, opt Options) ([]IndirectCall, []Unresolved) {
	if opt.MaxEntries <= 0 {
		opt.MaxEntries = DefaultMaxEntries
	}
	computeDominators(f)
	ai := &aliasInfo{f: f}
	var calls []IndirectCall
	var refused []Unresolved
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if v.Kind != OpValue || len(v.Args) == 0 || v.Args[0].Kind == ConstValue {
				continue
			}
			tail := false
			switch {
			case v.Op == lift.Call:
			case v.Op == lift.Jump && v == b.Control() && !b.Exit:
				// An indirect jump that is no jump table may be a tail
				// call through a slot or a table of code pointers.
				if _, reason, _ := resolveJump(f, b, v.Args[0], img, opt, ai); reason == "" {
					continue
				}
				tail = true
			default:
				continue
			}
			c, reason, detail := resolveCall(f, b, v.Args[0], img, opt, ai)
			if tail && reason != "" {
				continue // stays an unresolved jump
			}
			c.Tail = tail
			if reason != "" {
				refused = append(refused, Unresolved{Addr: v.Addr, Reason: reason, Detail: detail})
				continue
			}
			c.Call = v.Addr
			calls = append(calls, c)
		}
	}
	slices.SortFunc(calls, func(a, b IndirectCall) int { return cmpU64(a.Call, b.Call) })
	slices.SortFunc(refused, func(a, b Unresolved) int { return cmpU64(a.Addr, b.Addr) })
	return calls, refused
}

func resolveCall(f *Func, b *Block, target *Value, img Image, opt Options, ai *aliasInfo) (IndirectCall, string, string) {
	ev := newEvaluator(img, true)
	w := f.Arch.PtrWidth
	if target.Kind == OpValue && target.Op == lift.Load && target.Width == w {
		if addr, ok := ev.constant(target.Args[0]); ok {
			if name, ok := img.Import(addr); ok {
				return IndirectCall{Import: name, Slot: addr}, "", ""
			}
			v, ok := ev.load(addr, w)
			if !ok {
				return IndirectCall{}, ReasonSlotWritable, fmt.Sprintf("slot %#x", addr)
			}
			if !img.Executable(v) {
				return IndirectCall{}, ReasonTargetOutside, fmt.Sprintf("slot %#x → %#x", addr, v)
			}
			return IndirectCall{Slot: addr, Targets: []uint64{v}}, "", ""
		}
	}
	tl, ok := findTableLoad(ev, target)
	if !ok {
		return IndirectCall{}, ReasonNotLoaded, ""
	}
	if !inImage(ev, tl.load.Args[0]) {
		return IndirectCall{}, ReasonNoKnownTable, ""
	}
	idx, rng, _ := boundIndex(tl.chain, dominatingConstraints(b), ai)
	if idx == nil {
		return IndirectCall{}, ReasonBoundUnknown, ""
	}
	if rng.hi-rng.lo >= uint64(opt.MaxEntries) {
		return IndirectCall{}, ReasonBoundTooLarge, fmt.Sprintf("%d entries", rng.hi-rng.lo+1)
	}
	c := IndirectCall{First: rng.lo}
	var reason, detail string
	c.Slot, c.Targets, reason, detail = readTable(ev, idx, rng, tl.load, target, w, img.Executable)
	if reason != "" {
		return IndirectCall{}, reason, detail
	}
	return c, "", ""
}
