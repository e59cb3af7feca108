package builtin

import (
	"context"
	"encoding/binary"
	"sync"

	"github.com/rea-re/rea/engine/provider"
)

// list_procedures' filters (provider.ProcedureFilter) and the jump thunks
// that thunk:true covers beside the import stubs the symbol pass flags
// (ELF PLT stubs, Mach-O stubs, PE IAT jump thunks).

// maxJumpThunk bounds the extent of a jump thunk: a landing pad and one
// jump (x86 `endbr64; jmp *rel32(%rip)` is 10 bytes, arm64 `bti c; b` 8).
const maxJumpThunk = 16

// jumpThunk reports whether the procedure at entry is a jump thunk: its
// known extent is exactly one unconditional jump that leaves it, after at
// most a landing pad (x86 endbr64/endbr32, arm64 bti). target is the jump's
// direct target; hasTarget is false for an indirect jump. A procedure of
// unknown extent is never one: its end is not known to follow the jump.
func (c *Client) jumpThunk(ctx context.Context, op string, six *symIndex, ex *extentIndex, entry uint64) (target uint64, hasTarget, ok bool, err error) {
	end, known := ex.extentOf(entry)
	if !known || end <= entry || end-entry > maxJumpThunk {
		return 0, false, false, nil
	}
	pc, err := c.decodeProc(ctx, op, six, ex, entry, false)
	if err != nil {
		return 0, false, false, err
	}
	defer c.releaseInsns(pc.insns)
	insns := pc.insns
	if len(insns) == 2 && c.landingPad(insns[0]) {
		insns = insns[1:]
	}
	if len(insns) != 1 {
		return 0, false, false, nil
	}
	j := insns[0]
	if j.flow != flowJump || j.bad || j.pool || j.addr+uint64(j.n) != end {
		return 0, false, false, nil
	}
	if j.indirect || !j.hasTarget {
		return 0, false, true, nil
	}
	if j.target >= entry && j.target < end {
		return 0, false, false, nil // a loop on itself, not a thunk
	}
	return j.target, true, true, nil
}

// jumpThunks maps the entry of every jump thunk to its direct target, or
// to noJumpTarget for an indirect jump.
type jumpThunks map[uint64]uint64

const noJumpTarget = ^uint64(0)

// jumpThunksOf finds every jump thunk once (the procedures of known extent
// up to maxJumpThunk bytes, decoded); a filtered listing reads them all on
// every page.
func (c *Client) jumpThunksOf(ctx context.Context, op string, six *symIndex, ex *extentIndex) (jumpThunks, error) {
	return c.ix.jumps.get(ctx, func(ctx context.Context) (jumpThunks, error) {
		m := jumpThunks{}
		for i, e := range ex.ext {
			if i&1023 == 1023 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if e.end <= e.start || e.end-e.start > maxJumpThunk {
				continue
			}
			t, has, ok, err := c.jumpThunk(ctx, op, six, ex, e.start)
			if err != nil {
				return nil, err
			}
			if ok {
				if !has {
					t = noJumpTarget
				}
				m[e.start] = t
			}
		}
		return m, nil
	})
}

// landingPad reports an x86 endbr64/endbr32 or an arm64 bti.
func (c *Client) landingPad(it insn) bool {
	code, ok := c.codeAt(it.addr)
	if !ok || len(code) < int(it.n) {
		return false
	}
	switch c.ix.img.arch {
	case "x86", "x86_64":
		return it.n == 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb)
	case "arm64":
		return it.n == 4 && binary.LittleEndian.Uint32(code)&0xffffff3f == 0xd503241f
	}
	return false
}

// classify fills the thunk classification of the k-th entry's item: an
// import stub the symbol pass flagged, else a jump thunk.
func (c *Client) classify(ctx context.Context, op string, six *symIndex, ex *extentIndex, k int, cl *provider.ProcedureInfo) error {
	lo, hi := six.entryRange(k)
	addr := six.syms[six.procs[lo]].addr
	for _, i := range six.procs[lo:hi] {
		s := &six.syms[i]
		cl.External = cl.External || s.flags&flagExternal != 0
		cl.Thunk = cl.Thunk || s.flags&flagThunk != 0
	}
	cl.ThunkTarget = six.thunkTarget(addr)
	if cl.Thunk {
		return nil
	}
	jumps, err := c.jumpThunksOf(ctx, op, six, ex)
	if err != nil {
		return buildFault(op, err)
	}
	t, ok := jumps[addr]
	if !ok {
		return nil
	}
	cl.Thunk = true
	if t != noJumpTarget {
		s := provider.FormatAddress(t)
		cl.ThunkTarget = &s
	}
	return nil
}

// named reports whether the k-th entry has a name from the binary or the
// user (provider.ProcedureFilter.NamedOnly).
func (n *namer) named(k int) bool {
	six := n.six
	lo, hi := six.entryRange(k)
	if _, user := n.user.At(six.syms[six.procs[lo]].addr); user {
		return true
	}
	for _, i := range six.procs[lo:hi] {
		if six.syms[i].source != srcAnalysis {
			return true
		}
	}
	return false
}

// procLength is procedure_info's length of the procedure at entry: its
// known extent, else the span of the instructions recursive descent finds.
func (c *Client) procLength(ctx context.Context, op string, six *symIndex, ex *extentIndex, entry uint64) (uint64, error) {
	if end, ok := ex.extentOf(entry); ok {
		return end - entry, nil
	}
	pc, err := c.decodeProc(ctx, op, six, ex, entry, false)
	if err != nil {
		return 0, err
	}
	defer c.releaseInsns(pc.insns)
	if n := len(pc.insns); n > 0 {
		last := pc.insns[n-1]
		return last.addr + uint64(last.n) - entry, nil
	}
	return 0, nil
}

// filteredListing remembers the last filtered listing of a client, so that
// paging through it filters once: it holds for the same filter, symbol
// index and user names (named_only reads them).
type filteredListing struct {
	mu   sync.Mutex
	six  *symIndex
	user *provider.NameSet
	f    provider.ProcedureFilter
	keys []uint32
}

// filteredEntries lists the entry indexes (into six.entries) that pass f,
// in address order.
func (n *namer) filteredEntries(ctx context.Context, op string, ex *extentIndex, f provider.ProcedureFilter) ([]uint32, error) {
	l := &n.c.filtered
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keys != nil && l.six == n.six && l.user == n.user && l.f == f {
		return l.keys, nil
	}
	keys, err := n.filter(ctx, op, ex, f)
	if err != nil {
		return nil, err
	}
	l.six, l.user, l.f, l.keys = n.six, n.user, f, keys
	return keys, nil
}

func (n *namer) filter(ctx context.Context, op string, ex *extentIndex, f provider.ProcedureFilter) ([]uint32, error) {
	c, six := n.c, n.six
	var keys []uint32
	for k := range six.entries {
		if k&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, buildFault(op, err)
			}
		}
		if f.NamedOnly && !n.named(k) {
			continue
		}
		lo, _ := six.entryRange(k)
		addr := six.syms[six.procs[lo]].addr
		if f.ExcludeThunks {
			var cl provider.ProcedureInfo
			if err := c.classify(ctx, op, six, ex, k, &cl); err != nil {
				return nil, err
			}
			if cl.Thunk {
				continue
			}
		}
		if f.MinLength > 0 {
			l, err := c.procLength(ctx, op, six, ex, addr)
			if err != nil {
				return nil, err
			}
			if l < f.MinLength {
				continue
			}
		}
		keys = append(keys, uint32(k))
	}
	if keys == nil {
		keys = []uint32{}
	}
	return keys, nil
}
