package dataflow

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/reuse"
)

// ErrEmpty is returned by Build for a procedure without instructions.
var ErrEmpty = errors.New("dataflow: procedure has no instructions")

// ErrMalformed is returned by Build for instructions that break the IR's
// rules in a way SSA construction cannot represent (lift.Validate names the
// rule).
var ErrMalformed = errors.New("dataflow: malformed IR")

// Build constructs the SSA form of the procedure whose lifted instructions
// are insns, in increasing address order; insns[0] is the entry. Stack
// slots are promoted (see the package doc); the passes are [Optimize]'s.
func Build(arch *Arch, insns []*lift.Insn) (*Func, error) {
	return BuildWith(arch, insns, BuildExtra{})
}

// BuildExtra is what a caller knows of a procedure's control flow beyond
// its instructions.
type BuildExtra struct {
	// Switches are the targets of resolved indirect jumps (the jump's
	// address → its targets, from ResolveJumpTables): such a jump ends its
	// block with a Jump on its target value whose successors are the
	// targets inside the procedure, so that the cases are blocks of the
	// procedure. A target outside the procedure is not an edge.
	Switches map[uint64][]uint64
	// NoReturn reports whether a direct call's target never returns
	// (exit, abort, a PLT stub of one): the block ends at the call, with
	// no fall-through into the code the compiler placed after it.
	NoReturn func(target uint64) bool
	// Scratch is working memory the passes over the result reuse (nil:
	// the Func's own, made on first use).
	Scratch *Scratch
}

// BuildWith is Build with what extra says of the control flow.
func BuildWith(arch *Arch, insns []*lift.Insn, extra BuildExtra) (*Func, error) {
	if err := validate(insns); err != nil {
		return nil, err
	}
	return buildValid(arch, insns, extra, false), nil
}

// validate checks insns as BuildWith requires.
func validate(insns []*lift.Insn) error {
	if len(insns) == 0 {
		return ErrEmpty
	}
	for _, in := range insns {
		if err := lift.Validate(in); err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
	}
	return nil
}

// buildValid is BuildWith of instructions validate accepted. With
// optimizing (the caller runs Optimize on the result, whose first pass
// propagates copies) the copies of a Func built without promotion are
// left to Optimize.
func buildValid(arch *Arch, insns []*lift.Insn, extra BuildExtra, optimizing bool) *Func {
	p := newProc(insns, extra)
	p.link()
	p.findDeadWrites(arch)
	scr := extra.Scratch
	if scr == nil {
		scr = &Scratch{} // shared by both constructions and the passes
	}
	// The dominator tree waits until f is known to be the result:
	// findSlots does not read it, and a second construction replaces f.
	f := p.ssa(arch, nil, scr)
	if p.unmodelled {
		computeDominators(f)
		return f // any memory may change: no slot is promoted
	}
	// Copies and trivial phis change nothing findSlots decides: stack
	// tracking and the escape taint follow them (same width, same offset),
	// and accesses are loads and stores. So they are propagated only in
	// the Func returned.
	promote, slots := findSlots(f)
	if len(slots) == 0 {
		computeDominators(f)
		if !optimizing {
			copyPropagate(f)
		}
		return f
	}
	// f is done with: the second construction reuses its memory.
	f.recycle()
	g := p.ssa(arch, promote, scr)
	computeDominators(g)
	g.Slots = slots
	return g
}

// proc is the procedure's statements, numbered in order (a statement's
// global index g is the instruction's first index plus its own), and its
// blocks before SSA.
type proc struct {
	insns      []*lift.Insn
	first      []int32 // first[i]: global index of insns[i]'s first statement; first[len] = n
	insnOf     []int32 // insnOf[g]: the instruction of statement g
	byAddr     map[uint64]int32
	n          int32
	protos     []proto
	protoAt    []int32 // leader statement → proto
	unmodelled bool
	regs       []string         // every register the procedure names, sorted
	regIdx     map[string]int32 // a register's index in regs
	regW       []lift.Width     // widths by index in regs
	// refs are the registers each statement names (stmtRegs), by global
	// index: the liveness below and construction read them without
	// hashing names.
	refs []stmtRegs
	// exits are the targets outside the procedure that protos' negative
	// successors name (link).
	exits []lift.Operand
	// dead marks the statements whose register result a later statement
	// of the same block overwrites before anything reads it (most of
	// x86's flags): construction skips them.
	dead []bool
	// switches maps an indirect jump statement to the statements its
	// resolved targets start at.
	switches map[int32][]int32
	// noReturn marks the calls that do not return.
	noReturn map[int32]bool
}

// stmtRegs are the indexes in proc.regs of a statement's Dst, A, B and C
// when they are registers, else -1.
type stmtRegs [4]int32

// proto is a block before SSA: statements [start, end), and successors
// (proto indices; a negative index -1-k names exits[k], a target outside).
type proto struct {
	start, end int32
	succs      []int32
}

func newProc(insns []*lift.Insn, extra BuildExtra) *proc {
	switches := extra.Switches
	m := &procMem{}
	if extra.Scratch != nil {
		m = &extra.Scratch.proc
	}
	p := &proc{insns: insns, first: reuse.Zeroed(&m.first, len(insns)+1), byAddr: m.addrs(len(insns)), regIdx: m.names()}
	for i, in := range insns {
		p.first[i+1] = p.first[i] + int32(len(in.Stmts))
		if _, dup := p.byAddr[in.Addr]; !dup {
			p.byAddr[in.Addr] = int32(i)
		}
	}
	p.n = p.first[len(insns)]
	p.insnOf = reuse.Zeroed(&m.insnOf, int(p.n))
	p.refs = reuse.Zeroed(&m.refs, int(p.n))
	// leaders[g]: a block starts at statement g (g may be p.n).
	leaders := reuse.Zeroed(&m.leaders, int(p.n)+1)
	leaders[0] = true
	// Registers are numbered as they are met, with one lookup of each
	// name, and renumbered in name order below. A small cache of the
	// names met answers most lookups before the map: a procedure names
	// few registers, each many times, and a lifter's names share their
	// bytes, which string comparison checks first.
	type cached struct {
		name string
		r    int32
	}
	var cache [64]cached
	for i, in := range insns {
		for j := range in.Stmts {
			s := &in.Stmts[j]
			g := p.first[i] + int32(j)
			p.insnOf[g] = int32(i)
			rs := &p.refs[g]
			for k, o := range [...]*lift.Operand{&s.Dst, &s.A, &s.B, &s.C} {
				rs[k] = -1
				if o.Kind != lift.Reg {
					continue
				}
				name := o.Name
				var c *cached
				r, ok := int32(0), false
				if n := len(name); n > 0 {
					c = &cache[(n*7+int(name[0])*3+int(name[n-1]))&63]
					r, ok = c.r, c.name == name
				}
				if !ok {
					r, ok = p.regIdx[name]
					if !ok {
						r = int32(len(p.regs))
						p.regIdx[name] = r
						p.regs = append(p.regs, name)
						p.regW = append(p.regW, o.Width)
					}
					if c != nil {
						*c = cached{name, r}
					}
				}
				if o.Width > p.regW[r] {
					p.regW[r] = o.Width
				}
				rs[k] = r
			}
			switch s.Op {
			case lift.Unmodelled:
				p.unmodelled = true
			case lift.Call:
				if extra.NoReturn != nil && s.A.Kind == lift.Const && extra.NoReturn(s.A.Lo) {
					if p.noReturn == nil {
						p.noReturn = map[int32]bool{}
					}
					p.noReturn[g] = true
					leaders[g+1] = true
				}
			case lift.Branch, lift.Jump:
				tgt := s.B
				if s.Op == lift.Jump {
					tgt = s.A
				}
				if t, ok := p.target(tgt); ok {
					leaders[t] = true
				} else if tgts, ok := switches[in.Addr]; ok && s.Op == lift.Jump && tgt.Kind != lift.Const {
					if p.switches == nil {
						p.switches = map[int32][]int32{}
					}
					seen := map[int32]bool{}
					for _, a := range tgts {
						if t, ok := p.target(lift.C(64, a)); ok && !seen[t] {
							seen[t] = true
							leaders[t] = true
							p.switches[g] = append(p.switches[g], t)
						}
					}
				}
				leaders[g+1] = true
			case lift.Return:
				leaders[g+1] = true
			}
		}
	}
	p.sortRegs()
	nstarts := 0
	for _, l := range leaders[:max(p.n, 1)] {
		if l {
			nstarts++
		}
	}
	p.protos = make([]proto, 0, nstarts)
	p.protoAt = reuse.Zeroed(&m.protoAt, int(p.n)+1)
	for g := int32(0); g < max(p.n, 1); g++ {
		if !leaders[g] {
			continue
		}
		if k := len(p.protos); k > 0 {
			p.protos[k-1].end = g
		}
		p.protoAt[g] = int32(len(p.protos))
		p.protos = append(p.protos, proto{start: g, end: p.n})
	}
	return p
}

// procMem is the memory newProc reuses from one build to the next (a
// Scratch's): a proc lives only while buildValid builds from it.
type procMem struct {
	first, insnOf, protoAt []int32
	refs                   []stmtRegs
	leaders                []bool
	byAddr                 map[uint64]int32
	regIdx                 map[string]int32
}

// addrs returns m's empty address map, a new one for about n instructions
// when there is none yet or the last held a large procedure (clearing a
// map costs what it once held, each time).
func (m *procMem) addrs(n int) map[uint64]int32 {
	if m.byAddr == nil || len(m.byAddr) > maxKeptAddrs {
		m.byAddr = make(map[uint64]int32, n)
	}
	clear(m.byAddr)
	return m.byAddr
}

const maxKeptAddrs = 2048

// names returns m's empty register map.
func (m *procMem) names() map[string]int32 {
	if m.regIdx == nil {
		m.regIdx = map[string]int32{}
	}
	clear(m.regIdx)
	return m.regIdx
}

// sortRegs renumbers the registers in name order (regs, regW, regIdx and
// refs), as construction numbers its locations.
func (p *proc) sortRegs() {
	n := len(p.regs)
	order := make([]int32, n) // order[new] = old
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(p.regs[a], p.regs[b]) })
	renum := make([]int32, n) // renum[old] = new
	regs, regW := make([]string, n), make([]lift.Width, n)
	for i, o := range order {
		renum[o] = int32(i)
		regs[i], regW[i] = p.regs[o], p.regW[o]
		p.regIdx[regs[i]] = int32(i)
	}
	p.regs, p.regW = regs, regW
	for g := range p.refs {
		rs := &p.refs[g]
		for k, r := range rs {
			if r >= 0 {
				rs[k] = renum[r]
			}
		}
	}
}

// link computes the successors of the protos, once for both
// constructions (they do not depend on promotion).
func (p *proc) link() {
	for k := range p.protos {
		pr := &p.protos[k]
		pr.succs = pr.succs[:0]
		last := pr.end - 1
		if pr.end == pr.start {
			continue
		}
		_, s := p.stmt(last)
		addFall := func() {
			if t, ok := p.fallthrough_(last); ok {
				pr.succs = append(pr.succs, p.protoAt[t])
				return
			}
			// Control runs past the procedure's last instruction (after a
			// call that does not return, or bytes that are not code): an
			// exit to the address after it, as the processor would go.
			p.exits = append(p.exits, lift.C(64, p.insns[p.insnOf[last]].Next()))
			pr.succs = append(pr.succs, -int32(len(p.exits)))
		}
		switch s.Op {
		case lift.Branch:
			if t, ok := p.target(s.B); ok {
				pr.succs = append(pr.succs, p.protoAt[t])
			} else {
				p.exits = append(p.exits, s.B)
				pr.succs = append(pr.succs, -int32(len(p.exits)))
			}
			addFall()
		case lift.Jump:
			if t, ok := p.target(s.A); ok {
				pr.succs = append(pr.succs, p.protoAt[t])
			}
			for _, t := range p.switches[last] {
				pr.succs = append(pr.succs, p.protoAt[t])
			}
		case lift.Return:
		default:
			if !p.noReturn[last] {
				addFall()
			}
		}
	}
}

// target resolves a transfer's target operand to the global index of an
// instruction of the procedure.
func (p *proc) target(o lift.Operand) (int32, bool) {
	if o.Kind != lift.Const {
		return 0, false
	}
	i, ok := p.byAddr[o.Lo]
	if !ok || p.first[i] >= p.n {
		return 0, false
	}
	return p.first[i], true
}

// fallthrough is where control goes after statement g when it does not
// transfer: the next statement of the instruction, or the instruction at
// the address after it.
func (p *proc) fallthrough_(g int32) (int32, bool) {
	i := p.insnOf[g]
	if g+1 < p.first[i+1] {
		return g + 1, true
	}
	return p.target(lift.C(64, p.insns[i].Next()))
}

func (p *proc) stmt(g int32) (*lift.Insn, *lift.Stmt) {
	in := p.insns[p.insnOf[g]]
	return in, &in.Stmts[g-p.first[p.insnOf[g]]]
}

// slotRef is how the second construction treats a load or store promoted to
// a stack slot.
type slotRef struct {
	loc       string
	width     lift.Width
	keepStore bool
	slot      int32 // the slot's index in findSlots' list
}

// pendingPhi is an incomplete phi and its location's number (builder.defs).
type pendingPhi struct {
	v  *Value
	id int32
}

// builder is Braun et al.'s construction state for one pass over proc.
type builder struct {
	p       *proc
	f       *Func
	arch    *Arch
	promote map[int32]slotRef
	blocks  []*Block // by proto index; nil when unreachable
	// defs are each block's definitions by location number: a
	// register's is its index in proc.regs, the memory token's and the
	// stack pointer's (when the procedure does not name it) follow, then
	// the promoted slots' (slotBase plus the slot's index).
	defs     [][]*Value
	nlocs    int32
	sealed   []bool
	filled   []bool
	pending  [][]pendingPhi // incomplete phis of unsealed blocks
	phis     [][]*Value     // each block's phis, in the order they were made
	temps    []*Value
	exitLocs []string
	// args is the argument list of the call, return or exit being built
	// (reused: the value keeps a copy in f's chunks).
	args []*Value
	// callNames, retNames and exitNames are the registers of the Arch's
	// lists that the procedure names, shared by every call, return or
	// exit of the Func (nothing writes a Value's Names).
	callNames, retNames, exitNames []string
	// callIDs, retIDs, exitIDs and clobbers number the registers of those
	// lists and of the Arch's CallClobbers that the procedure names.
	callIDs, retIDs, exitIDs, clobbers []int32
	memID, spID, slotBase              int32 // location numbers of Mem, the stack pointer and the first slot
	spW                                lift.Width
}

// regIDs numbers the registers of names (all named by the procedure).
func (p *proc) regIDs(names []string) []int32 {
	ids := make([]int32, len(names))
	for i, r := range names {
		ids[i] = p.regIdx[r]
	}
	return ids
}

// namedOf returns the registers of all that the procedure names.
func (p *proc) namedOf(all []string) []string {
	var out []string
	for _, r := range all {
		if p.named(r) {
			out = append(out, r)
		}
	}
	return slices.Clip(out)
}

// ssa constructs p's SSA form, promoting the accesses of promote; the
// caller computes its dominator tree (computeDominators) if it keeps it.
func (p *proc) ssa(arch *Arch, promote map[int32]slotRef, scr *Scratch) *Func {
	f := &Func{Arch: arch, Entry: p.insns[0].Addr, consts: map[constKey]*Value{}, scr: scr}
	bd := &builder{p: p, f: f, arch: arch, promote: promote}
	// LiveOut ∪ CallArgs, in that order: a few dozen names, which a scan
	// dedups faster than a map built for each construction.
	bd.exitLocs = make([]string, 0, len(arch.LiveOut)+len(arch.CallArgs))
	for _, names := range [...][]string{arch.LiveOut, arch.CallArgs} {
		for _, r := range names {
			if !slices.Contains(bd.exitLocs, r) {
				bd.exitLocs = append(bd.exitLocs, r)
			}
		}
	}
	bd.callNames, bd.retNames, bd.exitNames = p.namedOf(arch.CallArgs), p.namedOf(arch.LiveOut), p.namedOf(bd.exitLocs)
	exits := p.exits
	// Reverse postorder from the entry.
	order := make([]int32, 0, len(p.protos))
	visited := make([]bool, len(p.protos))
	var dfs func(k int32)
	dfs = func(k int32) {
		visited[k] = true
		for _, s := range p.protos[k].succs {
			if s >= 0 && !visited[s] {
				dfs(s)
			}
		}
		order = append(order, k)
	}
	dfs(0)
	slices.Reverse(order)

	// The blocks are one allocation, and each block's values start in f's
	// chunks with room for about one value a statement (what construction
	// emits, short of a call's clobbers): appending then seldom regrows.
	blks := make([]Block, 1+len(order)+len(exits))
	entry := &blks[0]
	*entry = Block{ID: 0, Addr: f.Entry}
	f.Blocks = make([]*Block, 0, len(order)+len(exits)+1)
	f.Blocks = append(f.Blocks, entry)
	bd.blocks = make([]*Block, len(p.protos))
	for _, k := range order {
		b := &blks[len(f.Blocks)]
		*b = Block{ID: len(f.Blocks), Addr: f.Entry}
		pr := p.protos[k]
		if st := pr.start; st < p.n {
			b.Addr = p.insns[p.insnOf[st]].Addr
		}
		b.Values = f.pointers(int(min(pr.end-pr.start+2, maxChunk/4)))[:0]
		bd.blocks[k] = b
		f.Blocks = append(f.Blocks, b)
	}
	var exitBlocks []*Block
	for i, e := range exits {
		b := &blks[1+len(order)+i]
		*b = Block{ID: -1, Addr: e.Lo & mask(arch.PtrWidth), Exit: true}
		exitBlocks = append(exitBlocks, b)
	}
	// The edges in the order they are linked; each block's successor and
	// predecessor lists are then carved from one slice each, capacity
	// their length (appending to one copies it), instead of growing by
	// appends.
	type edge struct{ from, to *Block }
	edges := make([]edge, 0, len(order)+1)
	edges = append(edges, edge{entry, bd.blocks[0]})
	for _, k := range order {
		for _, s := range p.protos[k].succs {
			if s >= 0 {
				edges = append(edges, edge{bd.blocks[k], bd.blocks[s]})
			} else {
				edges = append(edges, edge{bd.blocks[k], exitBlocks[-s-1]})
			}
		}
	}
	// Block.rpo counts the block's edges until computeDominators sets it.
	for _, e := range edges {
		e.from.rpo++
	}
	lists := make([]*Block, 2*len(edges))
	// carve gives each block's list the room its count says, from lists
	carve := func(list func(*Block) *[]*Block) {
		for i := range blks {
			b := &blks[i]
			if n := b.rpo; n > 0 {
				*list(b), lists, b.rpo = lists[:0:n], lists[n:], 0
			}
		}
	}
	carve(func(b *Block) *[]*Block { return &b.Succs })
	for _, e := range edges {
		e.from.Succs = append(e.from.Succs, e.to)
		e.to.rpo++
	}
	carve(func(b *Block) *[]*Block { return &b.Preds })
	for _, e := range edges {
		e.to.Preds = append(e.to.Preds, e.from)
	}
	for _, b := range exitBlocks {
		if len(b.Preds) > 0 { // from a reachable block
			b.ID = len(f.Blocks)
			f.Blocks = append(f.Blocks, b)
		}
	}
	nb := len(f.Blocks)
	bd.defs = make([][]*Value, nb)
	// Locations are numbered without a map: the registers by proc.regs
	// (what statements name, proc.refs), the rest by what they are.
	nregs := int32(len(p.regs))
	bd.memID, bd.spID, bd.slotBase = nregs, nregs+1, nregs+2
	if r, ok := p.regIdx[arch.SP]; ok {
		bd.spID = r
	}
	bd.nlocs = bd.slotBase
	for _, r := range promote {
		bd.nlocs = max(bd.nlocs, bd.slotBase+r.slot+1)
	}
	bd.spW = p.widthOf(arch.SP, arch.PtrWidth)
	bd.callIDs, bd.retIDs, bd.exitIDs = p.regIDs(bd.callNames), p.regIDs(bd.retNames), p.regIDs(bd.exitNames)
	bd.clobbers = p.regIDs(p.namedOf(arch.CallClobbers))
	bd.sealed = make([]bool, nb)
	bd.filled = make([]bool, nb)
	bd.pending = make([][]pendingPhi, nb)
	bd.phis = make([][]*Value, nb)

	bd.sealed[0], bd.filled[0] = true, true
	bd.trySeal(bd.blocks[0])
	for _, k := range order {
		b := bd.blocks[k]
		bd.fill(b, p.protos[k])
		bd.filled[b.ID] = true
		for _, s := range b.Succs {
			bd.trySeal(s)
		}
	}
	for _, b := range f.Blocks {
		if b.Exit {
			bd.fillExit(b)
			bd.filled[b.ID] = true
		}
	}
	for _, b := range f.Blocks {
		if !bd.sealed[b.ID] {
			bd.seal(b)
		}
	}
	bd.joinPhis()
	return f
}

// joinPhis puts each block's phis in front of its operations.
func (bd *builder) joinPhis() {
	for _, b := range bd.f.Blocks {
		phis := bd.phis[b.ID]
		if len(phis) == 0 {
			continue
		}
		vs := bd.f.pointers(len(phis) + len(b.Values))
		copy(vs, phis)
		copy(vs[len(phis):], b.Values)
		b.Values = vs
	}
}

func (bd *builder) trySeal(b *Block) {
	if bd.sealed[b.ID] {
		return
	}
	for _, p := range b.Preds {
		if !bd.filled[p.ID] {
			return
		}
	}
	bd.seal(b)
}

func (bd *builder) seal(b *Block) {
	bd.sealed[b.ID] = true
	for _, phi := range bd.pending[b.ID] {
		bd.addPhiOperands(phi.v, phi.id)
	}
	bd.pending[b.ID] = nil
}

// writeID records v as block b's definition of the location numbered id
// (builder.defs): statements' registers are numbered once (proc.refs),
// not hashed at every read and write.
func (bd *builder) writeID(b *Block, id int32, v *Value) {
	d := bd.defs[b.ID]
	if d == nil {
		d = bd.f.pointers(int(bd.nlocs))
		bd.defs[b.ID] = d
	}
	d[id] = v
}

// readID returns block b's value of the location numbered id, named loc,
// at width w (Braun et al.'s readVariable).
func (bd *builder) readID(b *Block, id int32, loc string, w lift.Width) *Value {
	if d := bd.defs[b.ID]; d != nil {
		if v := d[id]; v != nil {
			return v
		}
	}
	var v *Value
	switch {
	case !bd.sealed[b.ID]:
		v = bd.newPhi(b, loc, w)
		bd.pending[b.ID] = append(bd.pending[b.ID], pendingPhi{v, id})
	case len(b.Preds) == 0:
		v = bd.entryValue(loc, w)
	case len(b.Preds) == 1:
		v = bd.readID(b.Preds[0], id, loc, w)
	default:
		v = bd.newPhi(b, loc, w)
		bd.writeID(b, id, v)
		bd.addPhiOperands(v, id)
	}
	bd.writeID(b, id, v)
	return v
}

func (bd *builder) newPhi(b *Block, loc string, w lift.Width) *Value {
	v := bd.f.value(Value{ID: bd.f.newID(), Kind: Phi, Width: w, Loc: loc, Block: b, Addr: b.Addr, pos: -1})
	// Phis go in front of the block's operations, in the order they were
	// made, when construction ends (joinPhis): inserting each in front
	// would move the block's values every time.
	bd.phis[b.ID] = append(bd.phis[b.ID], v)
	return v
}

func (bd *builder) addPhiOperands(phi *Value, id int32) {
	phi.Args = bd.f.pointers(len(phi.Block.Preds))
	for i, p := range phi.Block.Preds {
		phi.Args[i] = bd.conv(p, bd.readID(p, id, phi.Loc, phi.Width), phi.Width)
	}
}

func (bd *builder) entryValue(loc string, w lift.Width) *Value {
	e := bd.f.Blocks[0]
	v := bd.f.value(Value{ID: bd.f.newID(), Kind: Entry, Width: w, Loc: loc, Block: e, Addr: bd.f.Entry, pos: -1})
	if _, slot := bd.slotWidth(loc); slot {
		// A slot read before any write reads whatever the stack held.
		v.Kind, v.Op = OpValue, lift.Undef
	}
	e.Values = append(e.Values, v)
	return v
}

func (bd *builder) slotWidth(loc string) (lift.Width, bool) {
	if len(loc) > 5 && loc[:5] == "stack" {
		return 0, true
	}
	return 0, false
}

// conv returns v at width w, truncating or zero-extending where a register
// is read at another width than it was written (the IR keeps registers
// full-width, so this is the exception).
func (bd *builder) conv(b *Block, v *Value, w lift.Width) *Value {
	if v.Width == w || v.Width == 0 || w == 0 {
		return v
	}
	if v.Kind == ConstValue {
		return bd.f.Const(w, v.Lo, v.Hi)
	}
	op := lift.ZExt
	if v.Width > w {
		op = lift.Trunc
	}
	c := bd.f.value(Value{ID: bd.f.newID(), Kind: OpValue, Op: op, Width: w, Args: bd.f.args(v), Block: b, Addr: v.Addr, pos: -1})
	// Conversions of phi arguments go before the predecessor's control.
	n := len(b.Values)
	if b.Control() != nil {
		n--
	}
	b.Values = slices.Insert(b.Values, n, c)
	return c
}

// operand is the value of o, which is register number r (proc.regs) when
// it is a register.
func (bd *builder) operand(b *Block, o *lift.Operand, r int32) *Value {
	switch o.Kind {
	case lift.Const:
		return bd.f.Const(o.Width, o.Lo, o.Hi)
	case lift.Reg:
		return bd.conv(b, bd.readID(b, r, o.Name, bd.p.regW[r]), o.Width)
	case lift.Temp:
		if int(o.Index) < len(bd.temps) && bd.temps[o.Index] != nil {
			return bd.temps[o.Index]
		}
	}
	return nil
}

func (bd *builder) emit(b *Block, v *Value) *Value {
	v.ID = bd.f.newID()
	v.Block = b
	b.Values = append(b.Values, v)
	return v
}

func (bd *builder) fill(b *Block, pr proto) {
	var cur int32 = -1
	for g := pr.start; g < pr.end; g++ {
		in, s := bd.p.stmt(g)
		if i := bd.p.insnOf[g]; i != cur {
			cur = i
			if g != bd.p.first[i] && len(bd.temps) >= in.Temps {
				// Continuing an instruction split by a branch: its
				// temporaries are still those of the earlier part, which
				// is this block's only predecessor.
			} else if cap(bd.temps) >= in.Temps {
				// Reused from instruction to instruction: nothing keeps
				// the slice, only the values.
				bd.temps = bd.temps[:in.Temps]
				clear(bd.temps)
			} else {
				bd.temps = make([]*Value, in.Temps)
			}
		}
		bd.stmt(b, in, s, g)
	}
}

func (bd *builder) stmt(b *Block, in *lift.Insn, s *lift.Stmt, g int32) {
	if bd.p.dead != nil && bd.p.dead[g] {
		return
	}
	f, arch := bd.f, bd.arch
	rs := &bd.p.refs[g]
	mk := func(op lift.Op, w lift.Width, args ...*Value) *Value {
		return f.value(Value{Kind: OpValue, Op: op, Width: w, Args: f.args(args...), Addr: in.Addr, pos: g, Lane: s.Lane, Aux: s.Aux, Text: s.Text, Reason: s.Reason})
	}
	def := func(v *Value) {
		switch s.Dst.Kind {
		case lift.Temp:
			bd.temps[s.Dst.Index] = v
		case lift.Reg:
			if v.Loc == "" && v.Kind == OpValue {
				v.Loc = s.Dst.Name
			}
			r := rs[0]
			bd.writeID(b, r, bd.conv(b, v, bd.p.regW[r]))
		}
	}
	mem := func() *Value { return bd.readID(b, bd.memID, Mem, 0) }
	sp := func() *Value { return bd.readID(b, bd.spID, arch.SP, bd.spW) }
	switch s.Op {
	case lift.Load:
		addr := bd.operand(b, &s.A, rs[1])
		if r, ok := bd.promote[g]; ok {
			v := bd.conv(b, bd.readID(b, bd.slotBase+r.slot, r.loc, r.width), s.Dst.Width)
			def(v)
			return
		}
		def(bd.emit(b, mk(lift.Load, s.Dst.Width, addr, mem())))
	case lift.Store:
		addr, data := bd.operand(b, &s.A, rs[1]), bd.operand(b, &s.B, rs[2])
		if r, ok := bd.promote[g]; ok {
			bd.writeID(b, bd.slotBase+r.slot, data)
			if data.Kind == OpValue && data.Loc == "" {
				data.Loc = r.loc
			}
			if !r.keepStore {
				return
			}
		}
		st := bd.emit(b, mk(lift.Store, 0, addr, data, mem()))
		bd.writeID(b, bd.memID, st)
	case lift.Call:
		args := append(bd.args[:0], bd.operand(b, &s.A, rs[1]), mem(), sp())
		names := bd.callNames
		for i, r := range bd.callIDs {
			args = append(args, bd.readID(b, r, names[i], bd.p.regW[r]))
		}
		c := mk(lift.Call, 0, args...)
		c.Names = names
		bd.args = args[:0]
		bd.emit(b, c)
		bd.writeID(b, bd.memID, c)
		for _, r := range bd.clobbers {
			bd.writeID(b, r, bd.emit(b, f.value(Value{Kind: Clobber, Loc: bd.p.regs[r], Width: bd.p.regW[r], Args: f.args(c), Addr: in.Addr, pos: -1})))
		}
		if arch.CallPop != 0 {
			w := bd.spW
			v := bd.emit(b, f.value(Value{Kind: OpValue, Op: lift.Add, Width: w, Args: f.args(sp(), f.Const(w, uint64(arch.CallPop), 0)), Loc: arch.SP, Addr: in.Addr, pos: -1}))
			bd.writeID(b, bd.spID, v)
		}
	case lift.Return:
		args := append(bd.args[:0], bd.operand(b, &s.A, rs[1]), mem())
		names := bd.retNames
		for i, r := range bd.retIDs {
			args = append(args, bd.readID(b, r, names[i], bd.p.regW[r]))
		}
		r := mk(lift.Return, 0, args...)
		r.Names = names
		bd.args = args[:0]
		bd.emit(b, r)
	case lift.Jump:
		if _, ok := bd.p.target(s.A); ok {
			bd.emit(b, mk(lift.Jump, 0))
			return
		}
		if len(bd.p.switches[g]) > 0 {
			bd.emit(b, mk(lift.Jump, 0, bd.operand(b, &s.A, rs[1])))
			return
		}
		bd.emit(b, bd.exit(b, bd.operand(b, &s.A, rs[1]), in.Addr, g))
		if s.A.Kind != lift.Const {
			f.Limitations = append(f.Limitations, fmt.Sprintf("%#x: indirect jump not resolved", in.Addr))
		}
	case lift.Branch:
		bd.emit(b, mk(lift.Branch, 0, bd.operand(b, &s.A, rs[1])))
	case lift.TrapIf:
		bd.emit(b, mk(lift.TrapIf, 0, bd.operand(b, &s.A, rs[1])))
	case lift.Unmodelled:
		u := bd.emit(b, mk(lift.Unmodelled, 0, mem()))
		bd.writeID(b, bd.memID, u)
		for i, r := range bd.p.regs {
			bd.writeID(b, int32(i), bd.emit(b, f.value(Value{Kind: Clobber, Loc: r, Width: bd.p.regW[i], Args: f.args(u), Addr: in.Addr, pos: -1})))
		}
		f.Limitations = append(f.Limitations, fmt.Sprintf("%#x: %s not modelled (%s)", in.Addr, s.Text, s.Reason))
	default:
		var ops [3]*Value
		n := 0
		for k, o := range [...]*lift.Operand{&s.A, &s.B, &s.C} {
			if o.Kind != lift.None {
				ops[n] = bd.operand(b, o, rs[k+1])
				n++
			}
		}
		def(bd.emit(b, mk(s.Op, s.Dst.Width, ops[:n]...)))
	}
}

// exit builds the Jump that leaves the procedure for target, keeping every
// location a callee or the caller could read.
func (bd *builder) exit(b *Block, target *Value, addr uint64, g int32) *Value {
	arch := bd.arch
	args := append(bd.args[:0], target, bd.readID(b, bd.memID, Mem, 0), bd.readID(b, bd.spID, arch.SP, bd.spW))
	names := bd.exitNames
	for i, r := range bd.exitIDs {
		args = append(args, bd.readID(b, r, names[i], bd.p.regW[r]))
	}
	j := bd.f.value(Value{Kind: OpValue, Op: lift.Jump, Args: bd.f.args(args...), Names: names, Addr: addr, pos: g})
	bd.args = args[:0]
	return j
}

func (bd *builder) fillExit(b *Block) {
	w := bd.p.widthOf(bd.arch.SP, bd.arch.PtrWidth)
	bd.emit(b, bd.exit(b, bd.f.Const(w, b.Addr, 0), b.Addr, -1))
}

// named reports whether the procedure names register r. Registers it never
// names pass through it unchanged, so calls, returns and exits leave them
// out.
func (p *proc) named(r string) bool {
	_, ok := p.regIdx[r]
	return ok
}

// widthOf is the width the procedure uses for register r, or def when it
// never names it.
func (p *proc) widthOf(r string, def lift.Width) lift.Width {
	if i, ok := p.regIdx[r]; ok {
		return p.regW[i]
	}
	return def
}

func mask(w lift.Width) uint64 { return lift.C(w, ^uint64(0)).Lo }

// findDeadWrites marks the pure statements whose register result nothing
// reads: on every path from the statement, a later statement writes the
// register again before any reads it (most of x86's flags). Liveness runs
// across blocks. A statement reads what its SSA value takes as arguments:
// its operands; a call also the Arch's CallArgs and the stack pointer (and
// it writes the CallClobbers); a return its LiveOut; a way out of the
// procedure (an exit, a jump out, the end of a block without successors)
// LiveOut, CallArgs and the stack pointer. An unmodelled statement counts
// as reading every register.
//
// A dead write costs construction and every pass a value each. Dropping one
// may drop the value global value numbering kept of two equal ones; the
// survivor is then the other, the next in dominator order (valueNumber):
// the same computation, attributed to the later instruction.
func (p *proc) findDeadWrites(arch *Arch) {
	p.dead = make([]bool, p.n)
	nw := (len(p.regs) + 63) / 64
	np := len(p.protos)
	// One allocation for every set of registers (by index in p.regs): the
	// fixed sets, each proto's upward-exposed reads (use), writes (def)
	// and live-in registers, and the scans' working sets.
	const fixed = 7
	sets := make([]uint64, (fixed+3*np)*nw)
	at := func(i int) []uint64 { return sets[i*nw : (i+1)*nw : (i+1)*nw] }
	all, callRead, clobber, retRead, exitRead, killed, out := at(0), at(1), at(2), at(3), at(4), at(5), at(6)
	set := func(i, k int) []uint64 { return at(fixed + 3*k + i) }
	for r := range len(p.regs) {
		all[r>>6] |= 1 << (r & 63)
	}
	add := func(s []uint64, names ...[]string) {
		for _, ns := range names {
			for _, n := range ns {
				if r, ok := p.regIdx[n]; ok {
					s[r>>6] |= 1 << (r & 63)
				}
			}
		}
	}
	sp := []string{arch.SP}
	add(callRead, arch.CallArgs, sp)
	add(clobber, arch.CallClobbers)
	add(retRead, arch.LiveOut)
	add(exitRead, arch.LiveOut, arch.CallArgs, sp)
	// reads returns the registers statement g (s) reads beyond its
	// operands, and those it writes beyond its Dst.
	reads := func(s *lift.Stmt, g int32) (rd, wr []uint64) {
		switch s.Op {
		case lift.Call:
			return callRead, clobber
		case lift.Return:
			return retRead, nil
		case lift.Unmodelled:
			return all, nil
		case lift.Jump:
			if _, ok := p.target(s.A); !ok && len(p.switches[g]) == 0 {
				return exitRead, nil
			}
		}
		return nil, nil
	}
	for k, pr := range p.protos {
		use, def := set(0, k), set(1, k)
		for g := pr.start; g < pr.end; g++ {
			_, s := p.stmt(g)
			rs := &p.refs[g]
			for _, r := range rs[1:] {
				if r >= 0 && def[r>>6]&(1<<(r&63)) == 0 {
					use[r>>6] |= 1 << (r & 63)
				}
			}
			rd, wr := reads(s, g)
			for i, w := range rd {
				use[i] |= w &^ def[i]
			}
			for i, w := range wr {
				def[i] |= w
			}
			if r := rs[0]; r >= 0 {
				def[r>>6] |= 1 << (r & 63)
			}
		}
		copy(set(2, k), use)
	}
	// liveOut sets out to the registers live at the end of proto k.
	liveOut := func(k int) {
		pr := &p.protos[k]
		if len(pr.succs) == 0 {
			copy(out, exitRead)
			return
		}
		clear(out)
		for _, s := range pr.succs {
			in := exitRead
			if s >= 0 {
				in = set(2, int(s))
			}
			for i, w := range in {
				out[i] |= w
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for k := np - 1; k >= 0; k-- {
			liveOut(k)
			use, def, in := set(0, k), set(1, k), set(2, k)
			for i := range in {
				if w := use[i] | out[i]&^def[i]; w != in[i] {
					in[i], changed = w, true
				}
			}
		}
	}
	// Backwards through each block: killed are the registers written
	// later with no read in between (or not live at the block's end).
	for k, pr := range p.protos {
		liveOut(k)
		for i := range killed {
			killed[i] = all[i] &^ out[i]
		}
		for g := pr.end - 1; g >= pr.start; g-- {
			_, s := p.stmt(g)
			rs := &p.refs[g]
			rd, wr := reads(s, g)
			for i, w := range wr {
				killed[i] |= w
			}
			if r := rs[0]; r >= 0 {
				if killed[r>>6]&(1<<(r&63)) != 0 && mayDrop(s.Op) {
					p.dead[g] = true
					continue
				}
				killed[r>>6] |= 1 << (r & 63)
			}
			for i, w := range rd {
				killed[i] &^= w
			}
			for _, r := range rs[1:] {
				if r >= 0 {
					killed[r>>6] &^= 1 << (r & 63)
				}
			}
		}
	}
}

// mayDrop reports whether a statement of op whose result nothing reads
// may be left out: it has no effect and cannot fault. (Control, calls and
// unmodelled statements write no Dst the IR allows, but are never dropped
// whatever their operands.)
func mayDrop(op lift.Op) bool {
	switch op {
	case lift.Load, lift.UDiv, lift.SDiv, lift.URem, lift.SRem,
		lift.Store, lift.Call, lift.Return, lift.Jump, lift.Branch, lift.TrapIf, lift.Unmodelled:
		return false
	}
	return true
}
