package builtin

import (
	"bytes"
	"context"
	"slices"
	"sort"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// Procedure operations (CONTRACTS.md §2.2). A procedure's extent is known only
// from a symbol size (ELF st_size; PLT entry and Mach-O stub sizes for import
// stubs) or, without one, from a PE x64 .pdata range starting at its entry; a
// procedure without either contains exactly the instructions its recursive
// descent decoding reaches, so resolve_containing_procedure never guesses
// from nearby symbols.

// extent is the known address range [start, end) of one procedure.
type extent struct {
	start, end uint64
	sym        uint32 // index into symIndex.syms of the procedure's name
}

// extentIndex lists the procedures of known extent by start, with the
// running maximum end so a containment search can stop early.
type extentIndex struct {
	ext    []extent
	maxEnd []uint64
}

func buildExtents(ctx context.Context, six *symIndex, extra []codeRange) (*extentIndex, error) {
	ix := &extentIndex{}
	for n, k := range six.procs {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s := &six.syms[k]
		size := s.size
		if size == 0 {
			// No symbol size: a range that starts at the entry (PE .pdata).
			i, found := slices.BinarySearchFunc(extra, s.addr, func(r codeRange, a uint64) int {
				switch {
				case r.start < a:
					return -1
				case r.start > a:
					return 1
				}
				return 0
			})
			if !found {
				continue
			}
			size = extra[i].end - extra[i].start
		}
		end := satAdd(s.addr, size)
		if m := len(ix.ext); m > 0 && ix.ext[m-1].start == s.addr {
			ix.ext[m-1].end = max(ix.ext[m-1].end, end) // aliases: the longest extent
			continue
		}
		ix.ext = append(ix.ext, extent{start: s.addr, end: end, sym: k})
	}
	ix.maxEnd = make([]uint64, len(ix.ext))
	var m uint64
	for i, e := range ix.ext {
		m = max(m, e.end)
		ix.maxEnd[i] = m
	}
	return ix, nil
}

// containing returns the innermost (latest-starting) known procedure extent
// containing a.
func (ix *extentIndex) containing(a uint64) (uint64, bool) {
	i := sort.Search(len(ix.ext), func(i int) bool { return ix.ext[i].start > a }) - 1
	for ; i >= 0 && ix.maxEnd[i] > a; i-- {
		if e := ix.ext[i]; a >= e.start && a < e.end {
			return e.start, true
		}
	}
	return 0, false
}

// extentOf returns the known extent of the procedure at entry.
func (ix *extentIndex) extentOf(entry uint64) (uint64, bool) {
	i := sort.Search(len(ix.ext), func(i int) bool { return ix.ext[i].start >= entry })
	if i < len(ix.ext) && ix.ext[i].start == entry {
		return ix.ext[i].end, true
	}
	return 0, false
}

func (c *Client) extents(ctx context.Context, op string, rep progress.Reporter) (*symIndex, *extentIndex, error) {
	six, err := c.symbols(ctx, op, rep)
	if err != nil {
		return nil, nil, err
	}
	ex, err := c.ix.ext.get(ctx, func(ctx context.Context) (*extentIndex, error) {
		return buildExtents(ctx, six, unwindRanges(c.ix.img, c.data))
	})
	if err != nil {
		return nil, nil, buildFault(op, err)
	}
	return six, ex, nil
}

// procsAt returns the range of six.procs whose symbols are at addr.
func procsAt(six *symIndex, addr uint64) (int, int) {
	lo := sort.Search(len(six.procs), func(i int) bool { return six.syms[six.procs[i]].addr >= addr })
	hi := lo
	for hi < len(six.procs) && six.syms[six.procs[hi]].addr == addr {
		hi++
	}
	return lo, hi
}

// procedureOf resolves the operation's procedure argument to its entry,
// with the indexes the operation needs next and the namer of its answer.
func (c *Client) procedureOf(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (*namer, *extentIndex, uint64, error) {
	six, ex, err := c.extents(ctx, op, rep)
	if err != nil {
		return nil, nil, 0, err
	}
	n := c.namer(six)
	entry, err := n.resolveProc(op, in, ex)
	return n, ex, entry, err
}

// resolveProc resolves the "procedure" argument (CONTRACTS §2 "proc") to an
// entry address: a 0x value is an address; any other value is an exact name
// (a user name, else any procedure symbol name, aliases included), and only
// when no procedure has that name and it is valid hex, an address. An
// address that is not an entry resolves to the known procedure containing
// it.
func (n *namer) resolveProc(op string, in provider.Params, ex *extentIndex) (uint64, error) {
	c, six := n.c, n.six
	return provider.ResolveProcedure(op, in, provider.ProcedureLookup{
		Named: func(v string) []uint64 {
			var found []uint64
			name := []byte(v)
			for _, k := range six.procs {
				s := &six.syms[k]
				if bytes.Equal(six.name(c.data, s), name) {
					if n := len(found); n == 0 || found[n-1] != s.addr {
						found = append(found, s.addr)
					}
				}
			}
			return found
		},
		At: func(a uint64) (uint64, bool, error) {
			if lo, hi := procsAt(six, a); lo < hi {
				return a, true, nil
			}
			e, ok := ex.containing(a)
			return e, ok, nil
		},
		User: n.user,
		Use:  &n.use,
	})
}

// containingByDescent finds the procedure of unknown extent containing a:
// the nearest procedure entry at or below a whose recursive-descent decoding
// (code.go) has an instruction covering a. A procedure of known extent is
// answered by extentIndex.containing instead. cache holds decodings by entry.
func (c *Client) containingByDescent(ctx context.Context, op string, six *symIndex, ex *extentIndex, a uint64, cache map[uint64][]insn) (uint64, bool, error) {
	i := sort.Search(len(six.procs), func(i int) bool { return six.syms[six.procs[i]].addr > a }) - 1
	if i < 0 {
		return 0, false, nil
	}
	entry := six.syms[six.procs[i]].addr
	if _, known := ex.extentOf(entry); known {
		return 0, false, nil
	}
	insns, ok := cache[entry]
	if !ok {
		pc, err := c.decodeProc(ctx, op, six, ex, entry, false)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return 0, false, buildFault(op, cerr)
			}
			cache[entry] = nil // not decodable: contains nothing known
			return 0, false, nil
		}
		insns = pc.insns
		if cache != nil {
			cache[entry] = insns
		}
	}
	k := sort.Search(len(insns), func(k int) bool { return insns[k].addr > a }) - 1
	if k >= 0 && a < insns[k].addr+uint64(insns[k].n) {
		return entry, true, nil
	}
	return 0, false, nil
}

// inSegments reports whether a lies in some segment.
func (c *Client) inSegments(a uint64) bool {
	for _, sg := range c.ix.img.segments {
		if a >= sg.start && a < sg.end {
			return true
		}
	}
	return false
}

// doProcOp answers procedure_address, address_name and
// resolve_containing_procedure.
func (c *Client) doProcOp(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	six, ex, err := c.extents(ctx, op, rep)
	if err != nil {
		return provider.Result{}, err
	}
	n := c.namer(six)
	lims := append(slices.Clip(c.ix.img.limitations), six.limitations...)
	switch op {
	case provider.OpProcedureAddress:
		a, err := n.resolveProc(op, in, ex)
		if err != nil {
			return provider.Result{}, err
		}
		return provider.Result{Normalized: provider.FormatAddress(a), Limitations: append(lims, n.limitations()...)}, nil
	case provider.OpAddressName:
		a, err := provider.RequiredAddress(op, in)
		if err != nil {
			return provider.Result{}, err
		}
		return provider.Result{Normalized: n.namePtr(a), Limitations: append(lims, n.limitations()...)}, nil
	default: // OpResolveContaining
		a, err := provider.RequiredAddress(op, in)
		if err != nil {
			return provider.Result{}, err
		}
		r := provider.ContainingResult{QueryAddress: provider.FormatAddress(a)}
		var reason string
		if !c.inSegments(a) {
			reason = "outside_segments"
		} else if e, ok, byDescent, err := n.containing(ctx, op, ex, a, map[uint64][]insn{}); err != nil {
			return provider.Result{}, err
		} else if ok {
			// An entry point is in its procedure even when the extent is unknown.
			r.Found, r.Procedure = true, n.procRef(e)
			if byDescent {
				lims = append(lims, "the containing procedure's extent is unknown: its instructions were found by recursive descent from its entry")
			}
		} else {
			reason = "not_in_procedure"
		}
		if !r.Found {
			r.Reason = &reason
		}
		return provider.Result{Normalized: r, Limitations: append(lims, n.limitations()...)}, nil
	}
}
