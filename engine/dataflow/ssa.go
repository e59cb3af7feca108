package dataflow

import (
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/reuse"
)

// Arch is what the passes need to know about an architecture. The lifter
// package or the caller supplies it; the core names no register itself.
type Arch struct {
	Name     string
	PtrWidth lift.Width // the width of addresses and of the stack pointer
	SP       string     // the stack pointer register
	// CallPop is how far the stack pointer moves between the call
	// statement and the instruction after the call: the return address
	// the callee's return pops (x86: the pointer size; arm64: 0).
	CallPop int64
	// CallArgs are the registers a callee may read (argument registers);
	// CallClobbers those whose value after a call is unknown (caller-saved
	// registers, flags). The stack pointer belongs to neither.
	CallArgs     []string
	CallClobbers []string
	// LiveOut are the registers a return hands back to the caller: return
	// values and callee-saved registers.
	LiveOut []string
}

// Mem is the location of the memory token.
const Mem = "mem"

// Kind says what defines a Value.
type Kind uint8

const (
	OpValue    Kind = iota // an IR operation over Args (Op)
	ConstValue             // a constant (Lo, Hi); belongs to no block
	Phi                    // one argument per predecessor of its block
	Entry                  // the location's value when the procedure is entered
	Clobber                // the location's value after the call or unmodelled instruction Args[0]
)

// Value is one SSA value. Operations with a memory effect take the memory
// token among their arguments and, for Store, Call and Unmodelled, are the
// new memory token themselves (Width 0):
//
//	Load:       Args = addr, mem
//	Store:      Args = addr, data, mem
//	Call:       Args = target, mem, sp, then the Arch's CallArgs (Names)
//	Return:     Args = target, mem, then the Arch's LiveOut (Names)
//	Jump:       no Args when its target is the block's successor; a
//	            switch (BuildWith): Args = target, Succs the cases;
//	            else an exit: Args = target, mem, sp, then LiveOut ∪
//	            CallArgs (Names)
//	Branch:     Args = cond; Succs[0] is taken, Succs[1] falls through
//	TrapIf:     Args = cond
//	Unmodelled: Args = mem
type Value struct {
	ID    int
	Kind  Kind
	Op    lift.Op
	Width lift.Width // 0 for the memory token and for control
	Lane  lift.Width
	Aux   int32
	Args  []*Value
	Names []string // the locations of the trailing Args of Call, Return and exits
	Block *Block
	// Loc is the location an Entry, Phi or Clobber stands for, or the
	// register or stack slot an operation's result was written to (for
	// reading the output).
	Loc          string
	Lo, Hi       uint64 // ConstValue
	Text, Reason string // TrapIf, Unmodelled
	Addr         uint64 // the address of the instruction it comes from
	pos          int32  // the statement's index in the procedure, -1 if none
}

// IsMem reports whether v is a memory token.
func (v *Value) IsMem() bool {
	return v.Kind != ConstValue && v.Width == 0 && v.Op != lift.Branch && v.Op != lift.Jump && v.Op != lift.Return && v.Op != lift.TrapIf
}

// Block is a basic block: phis first, then operations, the last of which
// may be a control value (Jump, Branch, Return). A block without a control
// value falls through to Succs[0], or, with no successor, leaves the
// procedure by running off its end.
type Block struct {
	ID     int
	Addr   uint64
	Values []*Value
	Preds  []*Block
	Succs  []*Block
	Idom   *Block
	// Exit marks a block made for a branch whose target is outside the
	// procedure: it holds one exit Jump.
	Exit bool
	dom  []*Block // children in the dominator tree
	pre  int      // dominator tree preorder interval, for dominance tests
	post int
	rpo  int32  // the block's reverse postorder number (computeDominators)
	mark uint32 // the last reversePostorder walk that reached it
}

// Control is the block's control value, or nil if it falls through.
func (b *Block) Control() *Value {
	if n := len(b.Values); n > 0 {
		switch v := b.Values[n-1]; v.Op {
		case lift.Jump, lift.Branch, lift.Return:
			if v.Kind == OpValue {
				return v
			}
		}
	}
	return nil
}

// Slot is a promoted stack slot: Width bits at Offset from the frame base
// (Base 0 is the stack pointer at entry; another base is the realigned
// stack pointer an and-with-mask produced at statement index Base-1).
type Slot struct {
	Base   int32
	Offset int64
	Width  lift.Width
	// KeptStores says the slot lies at or above some call's stack pointer
	// (a possible outgoing argument), so its stores stay in memory too.
	KeptStores bool
}

// Func is one procedure in SSA form.
type Func struct {
	Arch   *Arch
	Entry  uint64
	Blocks []*Block // Blocks[0] is the entry block; reverse postorder
	Slots  []Slot   // the promoted stack slots
	// Limitations say what the form does not model for this procedure
	// (unmodelled instructions, unresolved indirect jumps).
	Limitations []string

	nextID int
	walks  uint32 // reversePostorder walks so far (Block.mark)
	consts map[constKey]*Value
	scr    *Scratch
	// vals and ptrs are the chunks values and argument lists are carved
	// from: a procedure's values live and die together, and one
	// allocation per chunk is far fewer than one per value.
	vals []Value
	ptrs []*Value
	// valChunks and ptrChunks are every chunk f carved from, for
	// recycle.
	valChunks [][]Value
	ptrChunks [][]*Value
}

const maxChunk = 1024

// value returns a copy of v allocated in f's chunks.
func (f *Func) value(v Value) *Value {
	if len(f.vals) == cap(f.vals) {
		if k := len(f.valChunks); k > 0 {
			f.valChunks[k-1] = f.vals // its length is what recycle clears
		}
		if s := f.scr; s != nil && len(s.freeVals) > 0 {
			f.vals = s.freeVals[len(s.freeVals)-1]
			s.freeVals = s.freeVals[:len(s.freeVals)-1]
		} else {
			f.vals = make([]Value, 0, min(maxChunk, max(32, 2*cap(f.vals))))
		}
		f.valChunks = append(f.valChunks, f.vals)
	}
	f.vals = append(f.vals, v)
	return &f.vals[len(f.vals)-1]
}

// pointers returns n nil pointers allocated in f's chunks; appending to the
// result copies it (its capacity is n).
func (f *Func) pointers(n int) []*Value {
	if n > maxChunk/4 {
		return make([]*Value, n)
	}
	if cap(f.ptrs)-len(f.ptrs) < n {
		if k := len(f.ptrChunks); k > 0 {
			f.ptrChunks[k-1] = f.ptrs
		}
		if s := f.scr; s != nil && len(s.freePtrs) > 0 && cap(s.freePtrs[len(s.freePtrs)-1]) >= n {
			f.ptrs = s.freePtrs[len(s.freePtrs)-1]
			s.freePtrs = s.freePtrs[:len(s.freePtrs)-1]
		} else {
			f.ptrs = make([]*Value, 0, max(n, min(maxChunk, max(64, 2*cap(f.ptrs)))))
		}
		f.ptrChunks = append(f.ptrChunks, f.ptrs)
	}
	k := len(f.ptrs)
	f.ptrs = f.ptrs[:k+n]
	return f.ptrs[k : k+n : k+n]
}

// args returns a copy of a allocated in f's chunks.
func (f *Func) args(a ...*Value) []*Value {
	if len(a) == 0 {
		return nil
	}
	s := f.pointers(len(a))
	copy(s, a)
	return s
}

// Scratch is working memory the passes reuse from one pass, one
// rebuild and (when a caller passes the same Scratch in Options) one
// procedure to the next, instead of allocating it per pass. A Scratch
// serves one procedure at a time: a caller lifting in parallel keeps one
// per worker (a sync.Pool of its own, say). The zero Scratch is ready.
type Scratch struct {
	fw      forwarding
	vn      vnTable
	vnAdded []int32
	// freeVals and freePtrs are chunks of a discarded Func (recycle), for
	// the next Func's values and argument lists.
	freeVals [][]Value
	freePtrs [][]*Value
	flags    []bool
	proc     procMem  // newProc's
	stack    stackMem // findSlots' stack tracking
}

// recycle hands f's chunks to f's Scratch for the next Func built with
// it: f is discarded, and nothing may read f or its values afterwards
// (buildValid's first construction, once the slots are found). The chunks
// are cleared, so that they keep nothing of f alive and pointers hands
// out nil pointers.
func (f *Func) recycle() {
	s := f.scr
	if s == nil {
		return
	}
	if k := len(f.valChunks); k > 0 {
		f.valChunks[k-1] = f.vals
	}
	if k := len(f.ptrChunks); k > 0 {
		f.ptrChunks[k-1] = f.ptrs
	}
	// Each chunk is cleared up to its length, what was handed out: the
	// rest was never written, so it is still zero.
	for _, c := range f.valChunks {
		if len(s.freeVals) == maxFreeChunks {
			break
		}
		clear(c)
		s.freeVals = append(s.freeVals, c[:0])
	}
	for _, c := range f.ptrChunks {
		if len(s.freePtrs) == maxFreeChunks {
			break
		}
		clear(c)
		s.freePtrs = append(s.freePtrs, c[:0])
	}
	f.vals, f.ptrs, f.valChunks, f.ptrChunks = nil, nil, nil, nil
}

// maxFreeChunks bounds the chunks of each kind a Scratch keeps (at most
// about 5 MB of values): what a huge procedure needed beyond that is left
// to the collector rather than pinned for the procedures after it.
const maxFreeChunks = 32

// Reclaim hands the memory of f's values and argument lists to s for the
// procedures built after it. The caller is done with f: nothing may read
// f, its blocks or its values afterwards (a Resolution's Func once the
// prototype and call sites are recovered from it). Lifting every
// procedure of a file allocates this memory once per worker instead of
// once per procedure, which is most of what the collector had to do.
func (s *Scratch) Reclaim(f *Func) {
	if f == nil {
		return
	}
	f.scr = s
	f.recycle()
	f.Blocks = nil
}

// scratch returns f's scratch memory, made on first use.
func (f *Func) scratch() *Scratch {
	if f.scr == nil {
		f.scr = &Scratch{}
	}
	return f.scr
}

// release drops what s still points at of the last procedure (reused
// memory keeps its capacity, not the values).
func (s *Scratch) release() {
	s.fw.reset()
	s.fw.to = s.fw.to[:0]
}

// bools returns n false values in s's reusable flag memory.
func (s *Scratch) bools(n int) []bool { return reuse.Zeroed(&s.flags, n) }

type constKey struct {
	w      lift.Width
	lo, hi uint64
}

// Const returns the constant v of width w.
func (f *Func) Const(w lift.Width, lo, hi uint64) *Value {
	c := lift.C(w, lo)
	if w == 128 {
		c.Hi = hi
	} else {
		hi = 0
	}
	k := constKey{w, c.Lo, hi}
	if v, ok := f.consts[k]; ok {
		return v
	}
	v := f.value(Value{ID: f.newID(), Kind: ConstValue, Width: w, Lo: c.Lo, Hi: hi, pos: -1})
	f.consts[k] = v
	return v
}

func (f *Func) newID() int { f.nextID++; return f.nextID }

// IDBound is above the ID of every value of f: a caller's per-value
// table can be a slice of this length.
func (f *Func) IDBound() int { return f.nextID + 1 }

// NumValues is the number of values in blocks.
func (f *Func) NumValues() int {
	n := 0
	for _, b := range f.Blocks {
		n += len(b.Values)
	}
	return n
}
