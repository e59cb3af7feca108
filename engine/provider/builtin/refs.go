package builtin

import (
	"context"
	"slices"
	"sort"
	"strconv"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// Call edges and cross-references. Callees are read from the procedure's own
// decoded instructions. Callers and xrefs use one reference index per target,
// built on first use by a linear sweep of every file-backed executable
// section (x86, x86_64, arm64), resynchronized at every procedure entry, or of
// the procedures of known extent (arm: each in its ARM or Thumb mode).
// References are direct calls and jumps, RIP-relative memory operands
// (x86_64), absolute memory operands and GOT-relative operands of PIC code
// (x86, base from a get_pc_thunk call), immediates naming a mapped address in
// images based at 64 KiB or above (x86, x86_64), ADRP+ADD/LDR pairs, ADR and
// literal loads (arm64), and literal-pool loads with the pc-relative address
// they form by ldr + add pc (arm). Indirect calls are counted, never resolved.

const maxEdgeResults = 1000

// edge is one reference: the instruction at from refers to to.
type edge struct{ to, from uint64 }

// refIndex is the target's reference index.
type refIndex struct {
	refs        []edge // every reference, by (to, from), unique
	calls       []edge // direct calls, by (to, from), unique
	indirect    int    // indirect call sites
	limitations []string
}

func sortEdges(ctx context.Context, es []edge) ([]edge, error) {
	g := sortGuard{ctx: ctx}
	err := g.run(func() {
		slices.SortFunc(es, func(a, b edge) int {
			g.tick()
			switch {
			case a.to != b.to:
				if a.to < b.to {
					return -1
				}
				return 1
			case a.from < b.from:
				return -1
			case a.from > b.from:
				return 1
			}
			return 0
		})
	})
	if err != nil {
		return nil, err
	}
	return slices.Clip(slices.Compact(es)), nil
}

func (c *Client) buildRefs(ctx context.Context, six *symIndex, ex *extentIndex, prog func(int64)) (*refIndex, error) {
	img := c.ix.img
	rx := &refIndex{}
	entries := make([]uint64, 0, len(six.procs))
	for _, k := range six.procs {
		if a := six.syms[k].addr; len(entries) == 0 || entries[len(entries)-1] != a {
			entries = append(entries, a)
		}
	}
	d := newDecoder(img)
	d.code = c.codeAt
	var n, swept int64
	add := func(it insn) {
		switch {
		case it.flow == flowCall && it.indirect:
			rx.indirect++
		case it.flow == flowCall && it.hasTarget:
			rx.calls = append(rx.calls, edge{it.target, it.addr})
			rx.refs = append(rx.refs, edge{it.target, it.addr})
		case it.hasTarget:
			rx.refs = append(rx.refs, edge{it.target, it.addr})
		}
		if it.hasData {
			rx.refs = append(rx.refs, edge{it.data, it.addr})
		}
	}
	sweep := func(start, end uint64, code []byte) error {
		d.reset()
		next := sort.Search(len(entries), func(i int) bool { return entries[i] > start })
		for a := start; a < end; {
			n++
			if n&4095 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				prog(swept + int64(a-start))
			}
			lim := end
			if next < len(entries) && entries[next] < end {
				lim = entries[next]
			}
			var it insn
			if e, ok := c.dataEnd(a); ok {
				it = poolInsn(code[a-start:min(lim, max(e, a+1))-start], a, img.bo, false)
				d.reset()
			} else {
				it = d.decode(code[a-start:lim-start], a, false)
			}
			add(it)
			a += uint64(it.n)
			if next < len(entries) && a >= entries[next] {
				// Resynchronize at a procedure entry.
				a = entries[next]
				d.reset()
				for next < len(entries) && entries[next] <= a {
					next++
				}
			}
		}
		swept += int64(end - start)
		return nil
	}
	prog(0)
	if img.arch == "arm" {
		for _, e := range ex.ext {
			code, ok := c.codeAt(e.start)
			if !ok {
				continue
			}
			d.thumb = c.isThumb(six, e.start) // each procedure in its own mode (thumbmode.go)
			end := min(e.end, e.start+uint64(len(code)))
			if err := sweep(e.start, end, code); err != nil {
				return nil, err
			}
		}
		rx.limitations = append(rx.limitations, "arm: only procedures of known extent are decoded for references")
	} else {
		for i := range img.sections {
			s := &img.sections[i]
			if !s.mapped || !s.x || s.fsize == 0 || s.size == 0 {
				continue
			}
			code, ok := c.codeAt(s.addr)
			if !ok {
				continue
			}
			if err := sweep(s.addr, s.addr+uint64(len(code)), code); err != nil {
				return nil, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prog(swept) // the final count: the sweep reports only every 4096th instruction
	var err error
	if rx.refs, err = sortEdges(ctx, rx.refs); err != nil {
		return nil, err
	}
	if rx.calls, err = sortEdges(ctx, rx.calls); err != nil {
		return nil, err
	}
	return rx, nil
}

func (c *Client) references(ctx context.Context, op string, rep progress.Reporter, six *symIndex, ex *extentIndex) (*refIndex, error) {
	rx, err := c.ix.refs.get(ctx, func(ctx context.Context) (*refIndex, error) {
		return c.buildRefs(ctx, six, ex, indexReporter(rep, "code bytes decoded for references"))
	})
	if err != nil {
		return nil, buildFault(op, err)
	}
	return rx, nil
}

// edgesTo returns the references to a.
func edgesTo(es []edge, a uint64) []edge {
	lo := sort.Search(len(es), func(i int) bool { return es[i].to >= a })
	hi := lo
	for hi < len(es) && es[hi].to == a {
		hi++
	}
	return es[lo:hi]
}

func edgePage(op string, in provider.Params) (int, int, error) {
	offset := in.Int("offset", 0)
	limit := in.Int("limit", maxEdgeResults)
	if offset < 0 {
		return 0, 0, fault.Invalid(op, fault.Issue{Path: "/offset", Reason: "out_of_range", Minimum: i64(0)})
	}
	if limit < 1 || limit > maxEdgeResults {
		return 0, 0, fault.Invalid(op, fault.Issue{Path: "/limit", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(maxEdgeResults)})
	}
	return int(min(offset, 1<<53)), int(limit), nil
}

func sortedUnique(as []uint64) []uint64 {
	slices.Sort(as)
	return slices.Compact(as)
}

// doRefOp answers procedure_callees, procedure_callers and xrefs.
func (c *Client) doRefOp(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	offset, limit, err := edgePage(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	six, ex, err := c.extents(ctx, op, rep)
	if err != nil {
		return provider.Result{}, err
	}
	n := c.namer(six)
	lims := append(slices.Clip(c.ix.img.limitations), six.limitations...)
	var addrs []uint64
	switch op {
	case provider.OpProcedureCallees:
		entry, err := n.resolveProc(op, in, ex)
		if err != nil {
			return provider.Result{}, err
		}
		pc, err := c.decodeProc(ctx, op, six, ex, entry, false)
		if err != nil {
			return provider.Result{}, err
		}
		lims = append(lims, pc.lims...)
		indirect, nowhere, data := 0, 0, 0
		for _, it := range pc.insns {
			if it.flow != flowCall {
				continue
			}
			if it.indirect {
				indirect++
			} else if it.hasTarget && !c.inSegments(it.target) {
				nowhere++ // a static link resolves an undefined weak function to 0
			} else if _, code := c.codeAt(it.target); it.hasTarget && !code {
				// No code is there: the "call" is data decoded as one (a
				// stripped arm library's literal pool after a function's
				// last return, in the extent its symbol gives).
				data++
			} else if it.hasTarget {
				addrs = append(addrs, it.target)
			}
		}
		lims = append(lims, strconv.Itoa(indirect)+" indirect call(s) unresolved")
		if nowhere > 0 {
			lims = append(lims, strconv.Itoa(nowhere)+" direct call(s) to an address outside every segment (an undefined weak function) omitted")
		}
		if data > 0 {
			lims = append(lims, strconv.Itoa(data)+" direct call(s) to an address in no executable section omitted: data decoded as an instruction, no call")
		}
	case provider.OpProcedureCallers:
		entry, err := n.resolveProc(op, in, ex)
		if err != nil {
			return provider.Result{}, err
		}
		rx, err := c.references(ctx, op, rep, six, ex)
		if err != nil {
			return provider.Result{}, err
		}
		lims = append(lims, rx.limitations...)
		outside := 0
		cache := map[uint64][]insn{}
		for _, e := range edgesTo(rx.calls, entry) {
			if p, ok, _, err := n.containing(ctx, op, ex, e.from, cache); err != nil {
				return provider.Result{}, err
			} else if ok {
				addrs = append(addrs, p)
			} else {
				outside++
			}
		}
		lims = append(lims, strconv.Itoa(rx.indirect)+" indirect call(s) unresolved")
		if outside > 0 {
			lims = append(lims, strconv.Itoa(outside)+" call site(s) outside every known procedure")
		}
	default: // OpXrefs
		a, err := provider.RequiredAddress(op, in)
		if err != nil {
			return provider.Result{}, err
		}
		rx, err := c.references(ctx, op, rep, six, ex)
		if err != nil {
			return provider.Result{}, err
		}
		lims = append(lims, rx.limitations...)
		for _, e := range edgesTo(rx.refs, a) {
			addrs = append(addrs, e.from)
		}
	}
	page, err := n.addressItems(ctx, op, ex, provider.PageOf(sortedUnique(addrs), offset, limit))
	if err != nil {
		return provider.Result{}, err
	}
	return provider.Result{Normalized: page, Limitations: append(lims, n.limitations()...)}, nil
}
