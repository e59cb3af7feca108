package lift

import "slices"

// Builder appends statements to one Insn and numbers its temporaries. The
// lifters use it; the helpers return the destination so that expressions
// read in order: b.Op2(Add, 64, x, y).
type Builder struct {
	In *Insn
}

// NewBuilder starts the instruction at addr of length n.
func NewBuilder(addr uint64, n int, mnemonic string) *Builder {
	return &Builder{In: &Insn{Addr: addr, Len: n, Mnemonic: mnemonic, Stmts: make([]Stmt, 0, 8)}}
}

// Temp returns a fresh temporary of width w.
func (b *Builder) Temp(w Width) Operand {
	t := Operand{Kind: Temp, Width: w, Index: int32(b.In.Temps)}
	b.In.Temps++
	return t
}

// Emit appends s.
func (b *Builder) Emit(s Stmt) { b.In.Stmts = append(b.In.Stmts, s) }

// Op1 emits t = op(a) into a new temporary of width w.
func (b *Builder) Op1(op Op, w Width, a Operand) Operand {
	t := b.Temp(w)
	b.Emit(Stmt{Op: op, Dst: t, A: a})
	return t
}

// Op2 emits t = op(x, y) into a new temporary of width w.
func (b *Builder) Op2(op Op, w Width, x, y Operand) Operand {
	t := b.Temp(w)
	b.Emit(Stmt{Op: op, Dst: t, A: x, B: y})
	return t
}

// Op3 emits t = op(x, y, z) into a new temporary of width w.
func (b *Builder) Op3(op Op, w Width, x, y, z Operand) Operand {
	t := b.Temp(w)
	b.Emit(Stmt{Op: op, Dst: t, A: x, B: y, C: z})
	return t
}

// Lanes emits t = op(x, y) element-wise over lanes of width lane.
func (b *Builder) Lanes(op Op, lane Width, x, y Operand) Operand {
	t := b.Temp(x.Width)
	b.Emit(Stmt{Op: op, Dst: t, A: x, B: y, Lane: lane})
	return t
}

// Float emits t = op(x, y) on floats of format fw (32 or 64) into a
// temporary of width w.
func (b *Builder) Float(op Op, w Width, fw int, x, y Operand) Operand {
	t := b.Temp(w)
	b.Emit(Stmt{Op: op, Dst: t, A: x, B: y, Aux: int32(fw)})
	return t
}

// Extract emits t = bits [lo, lo+w) of x.
func (b *Builder) Extract(x Operand, lo int, w Width) Operand {
	if lo == 0 && w == x.Width {
		return x
	}
	t := b.Temp(w)
	b.Emit(Stmt{Op: Extract, Dst: t, A: x, Aux: int32(lo)})
	return t
}

// Insert emits t = x with bits [lo, lo+width(y)) replaced by y.
func (b *Builder) Insert(x Operand, lo int, y Operand) Operand {
	t := b.Temp(x.Width)
	b.Emit(Stmt{Op: Insert, Dst: t, A: x, B: y, Aux: int32(lo)})
	return t
}

// Set emits dst = op(x, y, z) into a register or an existing temporary.
func (b *Builder) Set(dst Operand, op Op, x, y, z Operand) {
	b.Emit(Stmt{Op: op, Dst: dst, A: x, B: y, C: z})
}

// Assign emits dst = x.
func (b *Builder) Assign(dst, x Operand) { b.Emit(Stmt{Op: Copy, Dst: dst, A: x}) }

// Unmodelled makes the instruction a single Unmodelled statement, dropping
// whatever was emitted before: an instruction is modelled whole or not at
// all.
func (b *Builder) Unmodelled(mnemonic, reason string) {
	b.In.Stmts = b.In.Stmts[:0]
	b.In.Temps = 0
	b.Emit(Stmt{Op: Unmodelled, Text: mnemonic, Reason: reason})
}

// Scratch is the memory a lifter reuses from one instruction to the next:
// the statements of the instruction being built, and the chunks finished
// instructions and their statements are carved from (a lifter run over a
// procedure or a whole .text allocates once per chunk, not once per
// instruction and again per append). A chunk lives as long as any of its
// instructions. The zero Scratch is ready; it serves one lifter at a time.
type Scratch struct {
	stmts []Stmt // the instruction being built (its backing array)
	slab  []Stmt // the rest of the current statement chunk
	insns []Insn // the rest of the current instruction chunk
	// nslab and ninsns are the sizes of the last chunks: they double from
	// small ones, so that a short procedure's lifter wastes little.
	nslab, ninsns int
	b             Builder // the one Start hands out
	// slabs and insnSlabs are the chunks handed out since the last Reuse;
	// freeSlabs and freeInsns those Reuse gave back, handed out again
	// before new ones are made.
	slabs, freeSlabs     [][]Stmt
	insnSlabs, freeInsns [][]Insn
}

// maxKeptChunks bounds the chunks of each kind Reuse keeps for the next
// instructions (about 4 MB of statements): the odd huge procedure's
// memory is left to the collector, not pinned.
const maxKeptChunks = 128

const (
	stmtChunk = 128 // statements at most (about 30 KB)
	insnChunk = 64
)

// Start returns a Builder of the instruction at addr of length n, built in
// s's memory until Finish. The Builder is s's own: it serves until the
// next Start.
func (s *Scratch) Start(addr uint64, n int, mnemonic string) *Builder {
	if len(s.insns) == 0 {
		if k := len(s.freeInsns); k > 0 {
			s.insns, s.freeInsns = s.freeInsns[k-1], s.freeInsns[:k-1]
		} else {
			s.ninsns = min(insnChunk, max(4, 2*s.ninsns))
			s.insns = make([]Insn, s.ninsns)
		}
		s.insnSlabs = append(s.insnSlabs, s.insns)
	}
	in := &s.insns[0]
	s.insns = s.insns[1:]
	*in = Insn{Addr: addr, Len: n, Mnemonic: mnemonic, Stmts: s.stmts[:0]}
	s.b = Builder{In: in}
	return &s.b
}

// copyStmts returns a copy of st carved from s's chunk, its capacity its
// length (appending to it copies).
func (s *Scratch) copyStmts(st []Stmt) []Stmt {
	n := len(st)
	if n > stmtChunk/4 {
		return slices.Clone(st)
	}
	if len(s.slab) < n {
		if k := len(s.freeSlabs); k > 0 && len(s.freeSlabs[k-1]) >= n {
			s.slab, s.freeSlabs = s.freeSlabs[k-1], s.freeSlabs[:k-1]
		} else {
			s.nslab = min(stmtChunk, max(n, 16, 2*s.nslab))
			s.slab = make([]Stmt, s.nslab)
		}
		s.slabs = append(s.slabs, s.slab)
	}
	out := s.slab[:n:n]
	s.slab = s.slab[n:]
	copy(out, st)
	return out
}

// Reuse discards every instruction s has built since the last Reuse: their
// memory serves the instructions built next. The caller holds none of them
// (nor their statements) any more; a lifter over one procedure after
// another reuses its memory this way instead of leaving each procedure's
// to the collector. Chunks are not cleared: Start and copyStmts overwrite
// what they hand out, and what the stale contents point at (names, texts)
// is small and lives on anyway.
func (s *Scratch) Reuse() {
	for _, c := range s.slabs {
		if len(s.freeSlabs) < maxKeptChunks {
			s.freeSlabs = append(s.freeSlabs, c[:cap(c)])
		}
	}
	for _, c := range s.insnSlabs {
		if len(s.freeInsns) < maxKeptChunks {
			s.freeInsns = append(s.freeInsns, c[:cap(c)])
		}
	}
	clear(s.slabs)
	clear(s.insnSlabs)
	s.slabs, s.insnSlabs = s.slabs[:0], s.insnSlabs[:0]
	s.slab, s.insns = nil, nil
}

// Finish ends the instruction Start began: a non-empty fail makes it
// Unmodelled with that reason, the statements are copied out, and scr
// keeps the grown backing array for the next instruction.
func (b *Builder) Finish(fail string, scr *Scratch) *Insn {
	if fail != "" {
		b.Unmodelled(b.In.Mnemonic, fail)
	}
	scr.stmts = b.In.Stmts[:0]
	if len(b.In.Stmts) == 0 {
		b.In.Stmts = nil
	} else {
		b.In.Stmts = scr.copyStmts(b.In.Stmts)
	}
	return b.In
}
