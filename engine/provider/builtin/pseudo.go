package builtin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/signature"
)

// Pseudo-code (CONTRACTS.md §20): a procedure is lifted as lifted.go lifts
// it and rendered as C by package decompile; the text is kept per
// procedure in the index (pseudoCache), counted in its memory estimate, so
// search_pseudo_code decompiles each procedure once per index.
//
// The text holds names, and the user's names (set_address_name) belong to
// the client, not to the shared index: an entry records which addresses'
// user names it consulted and what they were, and is used only while they
// are the same (a rename shows on the next call, and only the procedures
// whose text holds the renamed address are decompiled again).

// maxPseudoCache bounds the text the index keeps; past it a procedure's
// text is computed for its answer and not kept.
const maxPseudoCache = 256 << 20

// pseudoProc is one procedure's decompilation.
type pseudoProc struct {
	whole provider.PseudoCode // every line; Procedure.Name as decompiled
	lines []string            // whole.Code's lines, for search
	// users are the addresses whose user names the text consulted, with
	// the name each had ("" none).
	users []provider.UserName
	// failure says why the procedure has no text ("" when it has one).
	failure string
	size    int64
	took    time.Duration // the decompilation's wall time (benchmarks read it)
}

// current reports whether p's names are those of the user's names now.
func (p *pseudoProc) current(user *provider.NameSet) bool {
	for _, u := range p.users {
		if n, _ := user.At(u.Address); n != u.Name {
			return false
		}
	}
	return true
}

// pseudoCache holds the decompiled procedures of one index.
type pseudoCache struct {
	mu    sync.Mutex
	procs map[uint64]*pseudoProc
	size  int64
}

func (pc *pseudoCache) reset() {
	pc.mu.Lock()
	pc.procs, pc.size = nil, 0
	pc.mu.Unlock()
}

func (pc *pseudoCache) memSize() int64 {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.size
}

func (pc *pseudoCache) get(entry uint64, user *provider.NameSet) (*pseudoProc, bool) {
	pc.mu.Lock()
	p, ok := pc.procs[entry]
	pc.mu.Unlock()
	if !ok || !p.current(user) {
		return nil, false
	}
	return p, true
}

func (pc *pseudoCache) put(entry uint64, p *pseudoProc) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.procs == nil {
		pc.procs = map[uint64]*pseudoProc{}
	}
	if old, ok := pc.procs[entry]; ok {
		pc.size -= old.size
	} else if pc.size+p.size > maxPseudoCache {
		return
	}
	pc.procs[entry] = p
	pc.size += p.size
}

// pseudoEnv is what decompiling any procedure of the index reads.
type pseudoEnv struct {
	tgt  liftTarget
	six  *symIndex
	ex   *extentIndex
	z    *symbolizer
	view *liftView
	// thunks are the image's jump thunks: a call through one is a call
	// to what it jumps to, whose prototype the thunk does not have.
	thunks jumpThunks
	// prefetch is how many goroutines lift the callees' prototypes while
	// the procedure itself is lifted (0: the emitter lifts each as it
	// reaches its call). One procedure_pseudo_code sets it; search's
	// workers already keep the cores busy.
	prefetch int
}

// pseudoUnavailable is the typed failure of an architecture (or a
// procedure) the decompiler does not handle.
func pseudoUnavailable(op, reason string) error {
	return fault.New(fault.CapabilityUnavailable, "Pseudo-code is not available: "+reason+".",
		"Read the procedure with procedure_assembly.",
		map[string]any{"operation": op, "availability_reason": "not_decompilable", "provider_id": ProviderID, "reason": reason})
}

func (c *Client) pseudoEnvOf(ctx context.Context, op string, six *symIndex, ex *extentIndex) (*pseudoEnv, error) {
	tgt, why := liftTargetOf(c.ix.img)
	if why != "" {
		arch := c.ix.img.arch
		if arch == "" {
			arch = "unknown"
		}
		return nil, pseudoUnavailable(op, arch+" code is not decompiled")
	}
	tab, err := c.ix.lifted.tabs.get(ctx, func(context.Context) (*liftTables, error) { return buildLiftTables(c.ix.img, c.data), nil })
	if err != nil {
		return nil, buildFault(op, err)
	}
	z, err := c.symbolizer(ctx, op, six)
	if err != nil {
		return nil, err
	}
	thunks, err := c.jumpThunksOf(ctx, op, six, ex)
	if err != nil {
		return nil, err
	}
	return &pseudoEnv{tgt: tgt, six: six, ex: ex, z: z, thunks: thunks, view: &liftView{img: c.ix.img, data: c.data, tab: tab, z: z}}, nil
}

// procPrototype is the recovered prototype of the procedure whose entry is
// a, from the lift cache (lifting it on first use; independent of what was
// lifted before, so an answer does not depend on the order of the calls):
// a call to it passes its parameters, a reference to it declares it. A
// jump thunk, a variadic or unlifted procedure, or an address that is no
// procedure's entry has none.
func (c *Client) procPrototype(ctx context.Context, op string, pe *pseudoEnv, a uint64) (*signature.Prototype, bool) {
	if _, ok := pe.ex.extentOf(a); !ok {
		return nil, false
	}
	if _, thunk := pe.thunks[a]; thunk {
		return nil, false
	}
	lp, err := c.lifted(ctx, op, pe.six, pe.ex, a)
	if err != nil || lp.proto == nil || lp.proto.Variadic {
		return nil, false
	}
	return lp.proto, true
}

// pseudo returns the decompilation of the procedure at entry under the
// user's names, from the cache when its names are current.
func (c *Client) pseudo(ctx context.Context, op string, pe *pseudoEnv, user *provider.NameSet, entry uint64) (*pseudoProc, error) {
	if p, ok := c.ix.pseudo.get(entry, user); ok {
		return p, nil
	}
	p, err := c.decompileProc(ctx, op, pe, user, entry)
	if err != nil {
		return nil, err
	}
	c.ix.pseudo.put(entry, p)
	return p, nil
}

// liftForDecompile lifts the procedure pc decodes and resolves its jump
// tables as liftProcedure does, returning the resolution, the lifted
// instructions and the limitations of the lifting; res is nil (with a
// limitation saying why) when no SSA could be built.
func liftForDecompile(tgt liftTarget, view *liftView, codeAt func(uint64) ([]byte, bool), pc *procCode, ex *extentIndex, entry uint64) (*dataflow.Resolution, []*lift.Insn, []string) {
	if pc.thumb {
		return nil, nil, []string{"Thumb code is not lifted"}
	}
	lr, err := liftAndResolve(tgt, view, codeAt, pc, ex, entry, nil, nil)
	return decompileLifting(lr, err)
}

// decompileLifting is liftForDecompile's answer for the lifting lr (and
// its error) of a procedure that is not Thumb code.
func decompileLifting(lr liftResult, err error) (*dataflow.Resolution, []*lift.Insn, []string) {
	var lims []string
	if lr.below {
		lims = append(lims, "code below the procedure's entry is not decompiled")
	}
	if lr.bad > 0 {
		lims = append(lims, strconv.Itoa(lr.bad)+" instruction(s) do not lift: the text calls a helper for each")
	}
	switch {
	case errors.Is(err, errNoEntryInsn):
		return nil, nil, []string{"no instruction was decoded at the entry"}
	case err != nil:
		return nil, nil, append(lims, "the procedure's SSA form could not be built: "+err.Error())
	}
	return lr.res, lr.insns, lims
}

// ownLifting is the lifting of the procedure being decompiled.
type ownLifting struct {
	res   *dataflow.Resolution // nil: no SSA (lims says why)
	insns []*lift.Insn
	lims  []string
	// own is the procedure's prototype as procPrototype gives it, when
	// shared says the lift cache's entry came from this lifting.
	own    *signature.Prototype
	shared bool
	// callees lifts the callees' prototypes meanwhile (nil: none).
	callees *calleePrefetch
}

// liftOwn lifts the procedure at entry for the decompiler. When the lift
// cache has no entry for it yet and c.lifted would lift it the same way
// (the same convention: a Go procedure's differs), the cache entry is
// recovered from this same lifting, before the decompiler rewrites the
// SSA, instead of lifting the procedure a second time.
func (c *Client) liftOwn(ctx context.Context, op string, pe *pseudoEnv, entry uint64) (*ownLifting, error) {
	scr := c.liftScratch()
	pc, err := c.decodeProcForLift(ctx, op, pe.six, pe.ex, entry, scr.x86[:0])
	if err != nil {
		return nil, err
	}
	ol := &ownLifting{}
	if pc.thumb {
		c.releaseInsns(pc.insns)
		c.keepLiftScratch(scr, pc)
		ol.lims = append(slices.Clip(pc.lims), "Thumb code is not lifted")
		return ol, nil
	}
	if pe.prefetch > 0 {
		ol.callees = c.prefetchCallees(ctx, op, pe, c.calleesToLift(pe, entry, pc.insns))
	}
	lr, lerr := liftAndResolve(pe.tgt, pe.view, c.codeAt, pc, pe.ex, entry, nil, &liftingScratch(scr, pc).df)
	c.releaseInsns(pc.insns)
	c.keepLiftScratch(scr, pc)
	res, insns, lims := decompileLifting(lr, lerr)
	ol.res, ol.insns, ol.lims = res, insns, append(slices.Clip(pc.lims), lims...)
	_, inExtent := pe.ex.extentOf(entry)
	_, thunk := pe.thunks[entry]
	if res == nil || !inExtent || thunk || goConvention(pe.tgt, c.ix.img, c.data, entry) != pe.tgt.conv {
		return ol, nil
	}
	if _, cached := c.ix.lifted.get(entry); cached {
		return ol, nil
	}
	// As c.lifted: no callee's recovered prototype is consulted.
	lp, calls := liftedFrom(pe.tgt, pe.view, entry, lr, lerr, nil, nil)
	lp.calls = packCalls(calls)
	ol.shared = true
	if ctx.Err() != nil {
		return ol, nil // c.lifted fails: no prototype
	}
	c.ix.lifted.put(entry, lp)
	if lp.proto != nil && !lp.proto.Variadic {
		ol.own = lp.proto
	}
	return ol, nil
}

// calleesToLift are the direct call and tail-jump targets among insns
// whose prototypes the emitter will ask procPrototype for and the lift
// cache does not hold yet: procedures of known extent, not jump thunks,
// not named in the prototype table (signature takes those from it).
func (c *Client) calleesToLift(pe *pseudoEnv, entry uint64, insns []insn) []uint64 {
	end, endKnown := pe.ex.extentOf(entry)
	seen := map[uint64]bool{entry: true} // the procedure itself: liftOwn
	var out []uint64
	for _, it := range insns {
		if !it.hasTarget || it.flow != flowCall && it.flow != flowJump {
			continue
		}
		t := it.target
		if it.flow == flowJump && (!endKnown || t >= entry && t < end) {
			continue // a branch within the procedure
		}
		if seen[t] {
			continue
		}
		seen[t] = true
		if _, ok := pe.ex.extentOf(t); !ok {
			continue
		}
		if _, thunk := pe.thunks[t]; thunk {
			continue
		}
		if n, _, ok := pe.view.Symbol(t); ok {
			if _, ok := ctypes.Lookup(n, pe.tgt.abi); ok {
				continue
			}
		}
		if _, ok := c.ix.lifted.get(t); ok {
			continue
		}
		out = append(out, t)
	}
	return out
}

// calleePrefetch lifts a list of callees on goroutines of its own; the
// decompiling goroutine takes its share once its own lifting is done
// (finish), so no callee is lifted twice and none waits on an idle core.
// The lift cache's entries do not depend on the order they are filled in,
// so the text is the same as when the emitter lifts each callee itself.
type calleePrefetch struct {
	c       *Client
	ctx     context.Context
	op      string
	pe      *pseudoEnv
	targets []uint64
	next    atomic.Int64
	wg      sync.WaitGroup
}

func (c *Client) prefetchCallees(ctx context.Context, op string, pe *pseudoEnv, targets []uint64) *calleePrefetch {
	if len(targets) == 0 {
		return nil
	}
	p := &calleePrefetch{c: c, ctx: ctx, op: op, pe: pe, targets: targets}
	for range min(pe.prefetch, len(targets)) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			// A panic lifting a callee is left to the emitter, whose
			// goroutine makes it the procedure's failure: here it only
			// ends this worker.
			defer func() { _ = recover() }()
			p.run()
		}()
	}
	return p
}

// run lifts the next callees until none is left.
func (p *calleePrefetch) run() {
	for p.ctx.Err() == nil {
		k := int(p.next.Add(1) - 1)
		if k >= len(p.targets) {
			return
		}
		p.c.procPrototype(p.ctx, p.op, p.pe, p.targets[k])
	}
}

// finish lifts the callees no goroutine has taken yet and waits for the
// others.
func (p *calleePrefetch) finish() {
	if p == nil {
		return
	}
	p.run()
	p.wg.Wait()
}

// stop lets no goroutine take another callee and waits for those lifting
// one.
func (p *calleePrefetch) stop() {
	if p == nil {
		return
	}
	p.next.Store(int64(len(p.targets)))
	p.wg.Wait()
}

// decompileProc decompiles the procedure at entry; a procedure that cannot
// be decompiled is a pseudoProc with its failure.
func (c *Client) decompileProc(ctx context.Context, op string, pe *pseudoEnv, user *provider.NameSet, entry uint64) (p *pseudoProc, err error) {
	start := time.Now()
	p = &pseudoProc{}
	consulted := map[uint64]string{}
	userName := func(a uint64) (string, bool) {
		n, ok := user.At(a)
		consulted[a] = n
		return n, ok
	}
	name, ok := userName(entry)
	if !ok {
		if s := pe.six.primaryAt(entry); s != nil {
			name = nameString(pe.six.name(c.data, s))
		} else {
			name = "sub_" + strconv.FormatUint(entry, 16)
		}
	}
	p.whole.Procedure = provider.ProcRef{Address: provider.FormatAddress(entry), Name: name}
	finish := func() {
		p.took = time.Since(start)
		for a, n := range consulted {
			p.users = append(p.users, provider.UserName{Address: a, Name: n})
		}
		sort.Slice(p.users, func(i, j int) bool { return p.users[i].Address < p.users[j].Address })
		p.size = int64(len(p.whole.Prelude)+len(p.whole.Code)+len(p.failure)) + int64(len(p.lines))*16 +
			int64(len(p.whole.AddressMap))*64 + int64(len(p.users))*48 + 256
		for _, l := range p.whole.Limitations {
			p.size += int64(len(l)) + 16
		}
	}
	// A panic in the emitter is this procedure's failure, not the process's
	// (search runs procedures on worker goroutines that Do does not guard).
	defer func() {
		if r := recover(); r != nil {
			p, err = &pseudoProc{whole: p.whole, failure: fmt.Sprintf("the decompiler failed: %v", r)}, nil
			finish()
		}
	}()
	ol, err := c.liftOwn(ctx, op, pe, entry)
	if err != nil {
		return nil, err
	}
	defer ol.callees.stop()
	res, insns, lims, own := ol.res, ol.insns, ol.lims, ol.own
	if res == nil {
		p.failure = lims[len(lims)-1]
		finish()
		return p, nil
	}
	if n := unreachedEffects(res.Func, insns); n > 0 {
		lims = append(lims, strconv.Itoa(n)+" call or store instruction(s) of the procedure are not reached from its entry (exception landing pads, code only a table reaches): the text leaves them out")
	}
	env := &signature.Env{Conv: pe.tgt.conv, ABI: pe.tgt.abi, Image: pe.view,
		Pops:  map[uint64]int64{entry: signature.CalleePops(insns, pe.tgt.conv.SP)},
		Known: func(a uint64) (*signature.Prototype, bool) { return c.procPrototype(ctx, op, pe, a) }}
	// The procedure's own prototype is the one its callers' text declares
	// (procedure_info's, from the lift cache), so that units agree.
	if !ol.shared {
		own, _ = c.procPrototype(ctx, op, pe, entry)
	}
	ol.callees.finish()
	in := decompile.Input{Func: res.Func, Env: env, Prototype: own, Name: name, Tables: res.Tables, Insns: insns, Limitations: lims,
		Names: userName,
		SymbolAt: func(a uint64) (string, uint64, uint64, bool) {
			return c.objectAt(pe, userName, a)
		},
		ReadOnly: func(a uint64, n int) ([]byte, bool) {
			b, w, ok := pe.view.Read(a, n)
			return b, ok && !w
		},
	}
	r, err := decompile.Decompile(ctx, in)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, buildFault(op, cerr)
		}
		p.failure = err.Error()
		finish()
		return p, nil
	}
	w := &p.whole
	w.Language, w.Prelude, w.Code = "c", r.Prelude, r.Code
	p.lines = provider.SplitLines(r.Code)
	w.Lines = provider.PseudoLines{Offset: 0, Limit: len(p.lines), Total: len(p.lines)}
	w.AddressMap = make([]provider.PseudoLineMap, 0, len(r.Lines))
	for _, m := range r.Lines {
		lm := provider.PseudoLineMap{Line: m.Line, Ranges: make([][2]string, len(m.Ranges))}
		for i, rg := range m.Ranges {
			lm.Ranges[i] = [2]string{provider.FormatAddress(rg[0]), provider.FormatAddress(rg[1])}
		}
		w.AddressMap = append(w.AddressMap, lm)
	}
	w.Structure = provider.PseudoStructure{Gotos: r.Structure.Gotos, Loops: r.Structure.Loops, Switches: r.Structure.Switches,
		UnresolvedIndirect: r.Structure.UnresolvedIndirect}
	w.Limitations = append([]string{}, r.Limitations...)
	finish()
	return p, nil
}

// objectAt names the object an address lies in (decompile.Input.SymbolAt):
// the nearest symbol at or below it whose size covers it, under the user's
// name of its start when there is one.
func (c *Client) objectAt(pe *pseudoEnv, userName func(uint64) (string, bool), a uint64) (string, uint64, uint64, bool) {
	z := pe.z
	i := sort.Search(len(z.ents), func(i int) bool { return z.ents[i].addr > a }) - 1
	if i < 0 || z.ents[i].ref < 0 {
		return "", 0, 0, false
	}
	s := &z.six.syms[z.ents[i].ref]
	if s.size == 0 || a-s.addr >= s.size {
		return "", 0, 0, false
	}
	if n, ok := userName(s.addr); ok {
		return n, s.addr, s.size, true
	}
	return nameString(z.six.name(c.data, s)), s.addr, s.size, true
}

func (c *Client) doProcedurePseudoCode(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	if _, _, err := provider.PseudoWindow(op, in); err != nil {
		return provider.Result{}, err
	}
	n, ex, entry, err := c.procedureOf(ctx, op, in, rep)
	if err != nil {
		return provider.Result{}, err
	}
	pe, err := c.pseudoEnvOf(ctx, op, n.six, ex)
	if err != nil {
		return provider.Result{}, err
	}
	pe.prefetch = min(runtime.GOMAXPROCS(0)-1, 3)
	rep.Report(progress.Update{Phase: "index", Message: "decompiling procedure"})
	p, err := c.pseudo(ctx, op, pe, n.user, entry)
	if err != nil {
		return provider.Result{}, err
	}
	if p.failure != "" {
		return provider.Result{}, pseudoUnavailable(op, "the procedure at "+provider.FormatAddress(entry)+" was not decompiled: "+p.failure)
	}
	for _, u := range p.users {
		if u.Name != "" {
			n.use.Shown(u.Address)
		}
	}
	lims := append(slices.Clip(c.ix.img.limitations), p.whole.Limitations...)
	// The answer is whole: the tool pages it (provider.PseudoView).
	return provider.Result{Normalized: p.whole, Limitations: append(lims, n.limitations()...)}, nil
}

// pseudoWorkers is how many procedures search_pseudo_code decompiles at
// once.
func pseudoWorkers() int { return max(1, min(runtime.GOMAXPROCS(0), 4)) }

func (c *Client) doSearchPseudoCode(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	re, offset, limit, err := searchParams(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	if limit > provider.MaxPseudoSearch {
		return provider.Result{}, fault.Invalid(op, fault.Issue{Path: "/limit", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(provider.MaxPseudoSearch)})
	}
	six, ex, err := c.extents(ctx, op, rep)
	if err != nil {
		return provider.Result{}, err
	}
	n := c.namer(six)
	pe, err := c.pseudoEnvOf(ctx, op, six, ex)
	if err != nil {
		return provider.Result{}, err
	}
	procs, skipped, err := c.pseudoAll(ctx, op, pe, n.user, rep)
	if err != nil {
		return provider.Result{}, err
	}
	items, failed := searchPseudo(re, procs, offset, limit)
	for _, p := range procs {
		for _, u := range p.users {
			if u.Name != "" {
				n.use.Shown(u.Address)
			}
		}
	}
	lims := append(slices.Clip(c.ix.img.limitations), six.limitations...)
	if skipped > 0 {
		lims = append(lims, strconv.Itoa(skipped)+" thunk or external procedure(s) were not searched")
	}
	if failed > 0 {
		lims = append(lims, strconv.Itoa(failed)+" procedure(s) have no pseudo-code and were not searched")
	}
	return provider.Result{Normalized: items, Limitations: append(lims, n.limitations()...)}, nil
}

// searchableEntries are the entries of the procedures with code of their
// own, in entry order, and how many thunks (PLT stubs, import jumps) and
// external procedures were left out.
func searchableEntries(six *symIndex) (entries []uint64, skipped int) {
	entries = make([]uint64, 0, len(six.entries))
	for k := range six.entries {
		lo, hi := six.entryRange(k)
		thunk := false
		for _, i := range six.procs[lo:hi] {
			thunk = thunk || six.syms[i].flags&(flagThunk|flagExternal) != 0
		}
		if thunk {
			skipped++
			continue
		}
		entries = append(entries, six.syms[six.procs[lo]].addr)
	}
	return entries, skipped
}

// pseudoAll decompiles every procedure of the index in entry order on a
// bounded pool of workers, reporting progress by procedure; cancellation is
// read between procedures.
func (c *Client) pseudoAll(ctx context.Context, op string, pe *pseudoEnv, user *provider.NameSet, rep progress.Reporter) ([]*pseudoProc, int, error) {
	// Thunks (PLT stubs, import jumps) and external procedures hold no
	// code of their own to search: they are left out, and counted.
	entries, skipped := searchableEntries(pe.six)
	out := make([]*pseudoProc, len(entries))
	total := float64(len(entries))
	var next, done atomic.Int64
	var failMu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	var repMu sync.Mutex
	rep.Report(progress.Update{Phase: "index", Message: "decompiling procedures", Completed: 0, Total: &total})
	for w := 0; w < pseudoWorkers(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(entries) {
					return
				}
				if err := ctx.Err(); err != nil {
					failMu.Lock()
					if firstErr == nil {
						firstErr = buildFault(op, err)
					}
					failMu.Unlock()
					return
				}
				p, err := c.pseudo(ctx, op, pe, user, entries[k])
				if err != nil {
					failMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					failMu.Unlock()
					return
				}
				out[k] = p
				if d := done.Add(1); d&63 == 0 || d == int64(len(entries)) {
					repMu.Lock()
					rep.Report(progress.Update{Phase: "index", Message: "decompiling procedures", Completed: float64(d), Total: &total})
					repMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	return out, skipped, nil
}

// searchPseudo pages the lines of procs that re matches, in entry and line
// order; failed counts the procedures without text.
func searchPseudo(re *regexp.Regexp, procs []*pseudoProc, offset, limit int) (provider.Page[provider.PseudoLine], int) {
	items := []provider.PseudoLine{}
	matches, failed := 0, 0
	for _, p := range procs {
		if p.failure != "" {
			failed++
			continue
		}
		for i, l := range p.lines {
			if !re.MatchString(l) {
				continue
			}
			if matches >= offset && len(items) < limit {
				items = append(items, provider.PseudoLine{Procedure: p.whole.Procedure, Line: i + 1, Text: l})
			}
			matches++
		}
	}
	page := provider.Page[provider.PseudoLine]{Items: items, Offset: offset, Limit: limit, Returned: len(items), Total: &matches}
	if end := offset + len(items); end < matches {
		page.NextOffset, page.Truncated = &end, true
	}
	return page, failed
}

// unreachedEffects counts the lifted calls and stores that no block of f
// holds: code the procedure's extent covers that its entry does not reach
// (an exception landing pad is reached through the unwinder's tables only).
// Calls and stores have effects, so optimization never removes them: one
// missing from f was never reached.
func unreachedEffects(f *dataflow.Func, insns []*lift.Insn) int {
	seen := map[uint64]bool{}
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			seen[v.Addr] = true
		}
	}
	n := 0
	for _, in := range insns {
		if seen[in.Addr] {
			continue
		}
		for _, st := range in.Stmts {
			if st.Op == lift.Call || st.Op == lift.Store {
				n++
				break
			}
		}
	}
	return n
}
