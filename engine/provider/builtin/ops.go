package builtin

import (
	"context"
	"errors"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// Do answers one operation. Panics (including memory faults on a mapping
// whose file shrank underneath it) become execution_failure.
func (c *Client) Do(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (res provider.Result, err error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return provider.Result{}, fault.New(fault.ProviderUnavailable, "The analysis client is closed.",
			"Open the target again.", map[string]any{"operation": op, "provider_id": ProviderID})
	}
	c.reg.enter(op, c.e)
	defer func() { // last: what the call built is accounted (registry.go)
		if lerr := c.reg.leave(op, c.e); lerr != nil && err == nil {
			res, err = provider.Result{}, lerr
		}
	}()
	defer func() { // after the recovery below
		if err == nil {
			res.TargetLimitations = c.targetLimitations(op) // limitations.go
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			res, err = provider.Result{}, fault.Internal(op, panicError(r))
		}
	}()
	rep = progress.OrNop(rep)
	o, declared := lookupOp(op) // optable.go
	switch {
	case !declared:
		return provider.Result{}, fault.New(fault.CapabilityUnavailable,
			"The bound provider does not offer this operation.",
			"Use an operation the built-in analyzer declares, or bind another provider.",
			map[string]any{"operation": op, "availability_reason": "provider_missing", "provider_id": ProviderID})
	case o.do == nil:
		// The engine answers it across targets, asking each one's Linker.
		return provider.Result{}, fault.New(fault.CapabilityUnavailable,
			op+" is answered by the engine through the provider's Linker, not as one provider operation.",
			"Call the "+op+" tool.",
			// Not provider_missing: that would mark the declared operation
			// unhealthy (engine healthScope), and the engine answers it.
			map[string]any{"operation": op, "availability_reason": "engine_operation", "provider_id": ProviderID})
	}
	if err := c.checkDocument(op, in); err != nil {
		return provider.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return provider.Result{}, buildFault(op, err)
	}
	return o.do(c, ctx, op, in, rep)
}

func (c *Client) checkDocument(op string, in provider.Params) error {
	v, present := in["document"]
	if !present || v == nil {
		return nil
	}
	if s, ok := v.(string); ok && s == c.doc {
		return nil
	}
	return fault.Invalid(op, fault.Issue{Path: "/document", Reason: "invalid_value",
		Message: "The document is not one of list_documents."})
}

// buildFault converts an index build failure. A cancelled context is
// cancelled; an expired deadline is provider_timeout (never cancelled,
// CONTRACTS §6.4), with the context error kept as the cause so the engine
// can restate it with its own budget.
func buildFault(op string, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return fault.CancelledError(op).WithCause(err)
	case errors.Is(err, context.DeadlineExceeded):
		return fault.New(fault.ProviderTimeout, "The operation exceeded its time budget.",
			"Retry; a first call on a large binary builds its index and takes longer than later calls.",
			map[string]any{"operation": op, "timeout_ms": int64(timeoutMS)}).WithCause(err)
	}
	return fault.From(op, err)
}

// reporter adapts index progress to the §6.2 "index" phase: completed is a
// monotonic count (symbols or bytes), the total unknown.
func indexReporter(rep progress.Reporter, what string) func(n int64) {
	var last int64 = -1
	return func(n int64) {
		if n <= last {
			return
		}
		last = n
		rep.Report(progress.Update{Phase: "index", Completed: float64(n), Message: what})
	}
}

func (c *Client) symbols(ctx context.Context, op string, rep progress.Reporter) (*symIndex, error) {
	six, err := c.ix.syms.get(ctx, func(ctx context.Context) (*symIndex, error) {
		return buildSymbols(ctx, c.ix.img, c.data, indexReporter(rep, "symbols indexed"))
	})
	if err != nil {
		return nil, buildFault(op, err)
	}
	return six, nil
}

func (c *Client) strings(ctx context.Context, op string, rep progress.Reporter) (*strIndex, error) {
	stx, err := c.ix.strs.get(ctx, func(ctx context.Context) (*strIndex, error) {
		return buildStrings(ctx, c.ix.img, c.data, indexReporter(rep, "bytes scanned for strings"))
	})
	if err != nil {
		return nil, buildFault(op, err)
	}
	return stx, nil
}

// buildSymbols runs the format's symbol pass and sorts the result.
func buildSymbols(ctx context.Context, img *image, data []byte, prog func(int64)) (*symIndex, error) {
	b := &symBuilder{ctx: ctx, data: data}
	if prog != nil {
		prog(0)
		b.prog = func(n int) { prog(int64(n)) }
	}
	var err error
	var mains []uint64 // addresses named main (mainentry.go)
	switch {
	case img.elf != nil:
		err = elfSymbols(img, b)
		if err == nil {
			err = addPclntabProcs(img, b)
		}
		if err == nil {
			mains, err = addMainNames(img, b)
		}
		if err == nil {
			err = addEhFrameProcs(img, b)
		}
		if err == nil {
			err = addSeedProcs(img, b, mains)
		}
	case img.pe != nil:
		err = peSymbols(img, b) // names main itself
	case img.macho != nil:
		err = machoSymbols(img, b)
		if err == nil {
			mains, err = addMainNames(img, b)
		}
	}
	if err != nil {
		return nil, err
	}
	if img.hasEntry && !slices.Contains(mains, img.entry) {
		// The entry point is a procedure; it gets a name only when no symbol names it.
		b.addArena(symbol{addr: img.entry, kind: kindFunction, source: srcAnalysis,
			flags: flagProcedure, rank: makeRank(srcAnalysis, kindFunction, bindGlobal)}, "entry")
	}
	six, err := b.finish()
	if err != nil {
		return nil, err
	}
	if b.prog != nil {
		b.prog(b.n) // the final count: tick reports only every 4096th
	}
	if img.hasEntry {
		six.dropSyntheticEntry(data, img.entry)
	}
	six.limitations = append(six.limitations, discoveryLimitations(img, six)...) // limitations.go
	return six, nil
}

// dropSyntheticEntry removes the synthetic "entry" name when a real
// procedure symbol already starts at the entry point.
func (ix *symIndex) dropSyntheticEntry(data []byte, entry uint64) {
	lo := sort.Search(len(ix.syms), func(i int) bool { return ix.syms[i].addr >= entry })
	hi, synth, real := lo, -1, false
	for ; hi < len(ix.syms) && ix.syms[hi].addr == entry; hi++ {
		s := &ix.syms[hi]
		if s.source == srcAnalysis && s.flags&flagArena != 0 {
			synth = hi
		} else if s.flags&flagProcedure != 0 {
			real = true
		}
	}
	if synth < 0 || !real {
		return
	}
	wasPrimary := ix.syms[synth].flags&flagPrimary != 0
	ix.syms = slices.Delete(ix.syms, synth, synth+1)
	hi--
	if wasPrimary {
		ix.markPrimary(data, lo, hi)
	}
	ix.indexProcs()
}

func (c *Client) segments() []provider.Segment {
	img := c.ix.img
	out := make([]provider.Segment, 0, len(img.segments))
	for _, sg := range img.segments {
		s := provider.Segment{
			Name: sg.name, Start: provider.FormatAddress(sg.start), End: provider.FormatAddress(sg.end),
			Readable: sg.r, Writable: sg.w, Sections: make([]provider.Section, 0, len(sg.sections)),
		}
		if sg.xKnown {
			x := sg.x
			s.Executable = &x
		}
		for _, si := range sg.sections {
			sec := &img.sections[si]
			s.Sections = append(s.Sections, provider.Section{
				Name: sec.name, Start: provider.FormatAddress(sec.addr), End: provider.FormatAddress(sec.end()),
				Readable: sec.r, Writable: sec.w, Executable: sec.x,
			})
		}
		out = append(out, s)
	}
	return out
}

// procedurePage lists procedures, one item per entry address.
func (n *namer) procedurePage(ctx context.Context, op string, ex *extentIndex, f provider.ProcedureFilter, offset, limit int) (provider.Page[provider.ProcedureItem], error) {
	six := n.six
	keys := six.entries // the page's items are entry indexes k: start+i unfiltered, keys[start+i] filtered
	if f.Active() {
		kept, err := n.filteredEntries(ctx, op, ex, f)
		if err != nil {
			return provider.Page[provider.ProcedureItem]{}, err
		}
		keys = kept
	}
	page := provider.PageOf(keys, offset, limit)
	start := min(offset, len(keys))
	items := make([]provider.ProcedureItem, 0, len(page.Items))
	least := 0 // a lower bound of the items' canonical bytes
	for i := range page.Items {
		k := start + i
		if f.Active() {
			k = int(page.Items[i])
		}
		addr, value, aliases := n.procedureNames(k)
		it := provider.ProcedureItem{Address: provider.FormatAddress(addr), Value: value, Aliases: aliases}
		if err := n.c.classify(ctx, op, six, ex, k, &it.Procedure); err != nil {
			return provider.Page[provider.ProcedureItem]{}, err
		}
		items = append(items, it)
		// Names are most of a page: once the items so far cannot fit the
		// byte budget, the rest of the page would be built only to be cut.
		if least += leastCanonicalSize(it) + 1; least > provider.ResultBudget {
			break
		}
	}
	page = page.Prefix(len(items))
	return provider.Page[provider.ProcedureItem]{Items: items, Offset: page.Offset, Limit: page.Limit,
		Returned: page.Returned, Total: page.Total, NextOffset: page.NextOffset, Truncated: page.Truncated}, nil
}

// procedureItemSkeleton is a ProcedureItem's canonical form with empty
// strings, no aliases and the shortest values of its other members.
const procedureItemSkeleton = `{"address":"","aliases":[],"procedure":{"external":true,"thunk":true,"thunk_target":null},"value":""}`

// leastCanonicalSize is a lower bound of the item's canonical bytes
// (escaping only adds to its strings).
func leastCanonicalSize(it provider.ProcedureItem) int {
	n := len(procedureItemSkeleton) + len(it.Address) + len(it.Value)
	for _, a := range it.Aliases {
		n += len(a) + 2
	}
	return n
}

// namePage lists the names, with the user's names merged in: a user name is
// the primary name of its address (source user_defined) and the symbols
// there are not; a user name equal to a symbol name there makes that symbol
// primary instead of adding an item.
func (n *namer) namePage(addr uint64, hasAddr bool, offset, limit int) provider.Page[provider.NameItem] {
	six, data := n.six, n.c.data
	syms := six.syms
	user := n.user.Sorted()
	if hasAddr {
		lo := sort.Search(len(syms), func(i int) bool { return syms[i].addr >= addr })
		hi := lo
		for hi < len(syms) && syms[hi].addr == addr {
			hi++
		}
		syms = syms[lo:hi]
		user = nil
		if u, ok := n.user.At(addr); ok {
			user = []provider.UserName{{Address: addr, Name: u}}
		}
	}
	refs, total := provider.MergeUserNames(len(syms), func(i int) (uint64, string) {
		return syms[i].addr, nameString(six.name(data, &syms[i]))
	}, user, offset, limit)
	items := make([]provider.NameItem, len(refs))
	for i, r := range refs {
		if u := r.User; u != nil {
			typ := "label"
			if lo, hi := procsAt(six, u.Address); lo < hi {
				typ = kindNames[kindFunction]
			}
			n.use.Shown(u.Address)
			items[i] = provider.NameItem{Address: provider.FormatAddress(u.Address), Value: u.Name,
				Symbol: provider.SymbolInfo{Primary: true, Type: typ, Source: "user_defined"}}
			continue
		}
		s := &syms[r.Base]
		value := nameString(six.name(data, s))
		primary := s.flags&flagPrimary != 0
		if u, ok := n.user.At(s.addr); ok {
			primary = u == value
		}
		items[i] = provider.NameItem{
			Address: provider.FormatAddress(s.addr),
			Value:   value,
			Symbol: provider.SymbolInfo{
				Primary:  primary,
				Dynamic:  s.flags&flagDynamic != 0,
				External: s.flags&flagExternal != 0,
				Type:     kindNames[s.kind],
				Source:   sourceNames[s.source],
			},
		}
	}
	p := provider.Page[provider.NameItem]{Items: items, Offset: offset, Limit: limit, Returned: len(items), Total: &total}
	if end := min(offset, total) + len(items); end < total {
		p.NextOffset, p.Truncated = &end, true
	}
	return p
}

func (c *Client) stringPage(ix *strIndex, addr uint64, hasAddr bool, offset, limit int) provider.Page[provider.StringItem] {
	lo, hi := 0, ix.Len()
	if hasAddr {
		lo = ix.search(addr)
		hi = lo
		for hi < ix.Len() && ix.addrOf(hi) == addr {
			hi++
		}
	}
	total := hi - lo
	start := min(offset, total)
	end := min(start+limit, total)
	items := make([]provider.StringItem, 0, end-start)
	img := c.ix.img
	for i, e := range ix.from(lo + start) {
		if i >= lo+end {
			break
		}
		a := ix.addrAt(i, e)
		v, trunc := e.value(c.data)
		it := provider.StringItem{
			Address: provider.FormatAddress(a), Value: v, ValueTruncated: trunc,
			String: provider.StringInfo{Encoding: "ascii", Termination: "missing", ByteLength: int(e.n)},
		}
		if e.meta&metaUTF16 != 0 {
			it.String.Encoding = "utf-16le"
		}
		if e.meta&metaTerminated != 0 {
			it.String.Termination = "present_or_not_required"
		}
		if sec := img.sectionAt(a, ix.sections); sec != nil {
			name := sec.name
			it.String.Section = &name
		}
		items = append(items, it)
	}
	p := provider.Page[provider.StringItem]{Items: items, Offset: offset, Limit: limit, Returned: len(items), Total: &total}
	if end < total {
		next := end
		p.NextOffset, p.Truncated = &next, true
	}
	return p
}
