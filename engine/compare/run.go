package compare

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

const (
	left  = 0
	right = 1
)

// Internal match kinds (the order they are found in); structHash and shape
// are both reported as "structure".
const (
	kindNone uint8 = iota
	kindName
	kindStructHash
	kindShape
	kindCallGraph
)

// tooManyTokens is the error of a comparison whose sides spell more than
// maxTokens distinct normalized instructions.
func tooManyTokens() error {
	return fault.New(fault.Truncated, "The targets have more distinct instructions than one comparison can hold.",
		"Compare smaller targets.", map[string]any{"operation": Operation, "limit": "instructions",
			"maximum": int64(maxTokens), "truncated": true})
}

type digest = [sha256.Size]byte

// procCode is one decoded procedure.
type procCode struct {
	complete bool
	reason   string
	insns    []insn
}

// side is one side's data: what decode read (immutable once decoded) and
// what is derived from it.
type side struct {
	listing Listing
	idx     sideIndex
	real    []bool // the procedure has a name of its own
	names   map[string][]int32
	code    []procCode // decoded so far, in listing order

	structH, shapeH []digest
	callees         [][]int32 // distinct procedures referenced, in instruction order
	callers         [][]int32 // sorted
	partsListing    string
	partsBatches    []string
}

// run is one comparison in progress.
type run struct {
	c    *Comparison
	id   string
	toks tokens
	s    [2]*side
	rep  progress.Reporter

	// State that Checkpoint serializes.
	phase     int // index into phases of the phase in progress
	cursor    int // procedures done within it
	partner   [2][]int32
	kind      []uint8 // by left index
	tie       [2][]bool
	round     int
	roundPos  int
	votes     [][3]int32
	classes   []class // classify's output so far
	handed    map[string]bool
	pending   []Part
	pf        *prefetch
	every     int
	doneTotal int
}

// class is the classification of one classify step.
type class struct {
	Status        uint8   `json:"s"`
	Similarity    float64 `json:"m"`
	ChangedBlocks int     `json:"b"`
	Delta         *Delta  `json:"d,omitempty"`
}

func (c *Comparison) newRun() (*run, error) {
	if c.Left == nil || c.Right == nil {
		return nil, fault.Internal(Operation, fmt.Errorf("compare: both sides are required"))
	}
	id, err := c.ID()
	if err != nil {
		return nil, fault.Internal(Operation, err)
	}
	return &run{c: c, id: id, s: [2]*side{{}, {}},
		rep: progress.OrNop(c.Progress), handed: map[string]bool{}, every: cmp.Or(c.every, CheckpointEvery)}, nil
}

func (r *run) run(ctx context.Context) (*Result, error) {
	if r.phase == PhaseIndex(PhaseDecodeLeft) && !sameSide(r.c.Left, r.c.Right) {
		// The right side is read while the left one is: the two targets'
		// providers are independent, and reading dominates the time.
		r.pf = startPrefetch(ctx, r.c.Right, &r.toks)
		defer r.pf.stop()
	}
	for r.phase < len(phases) {
		if err := ctx.Err(); err != nil {
			return nil, fault.From(Operation, err)
		}
		var err error
		switch phases[r.phase] {
		case PhaseDecodeLeft:
			err = r.decode(ctx, left)
		case PhaseDecodeRight:
			err = r.decode(ctx, right)
		case PhaseFingerprint:
			err = r.fingerprintPhase(ctx)
		case PhaseMatchName:
			err = r.matchNamePhase(ctx)
		case PhaseMatchStructure:
			err = r.matchStructurePhase(ctx)
		case PhaseMatchCallGraph:
			err = r.matchCallGraphPhase(ctx)
		case PhaseClassify:
			err = r.classifyPhase(ctx)
		}
		if err != nil {
			return nil, fault.From(Operation, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fault.From(Operation, err)
	}
	return r.result()
}

// loop runs fn for each step from the cursor to total, checkpointing every
// CheckpointEvery steps and when the phase ends. total < 0: unknown.
func (r *run) loop(ctx context.Context, total int, fn func(i int) error, before func() error) error {
	var tp *int
	if total >= 0 {
		tp = &total
	}
	name := phases[r.phase]
	for i := r.cursor; i < total; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i&63 == 0 {
			r.report(name, i, tp)
		}
		if err := fn(i); err != nil {
			return err
		}
		r.cursor = i + 1
		if r.cursor%r.every == 0 && r.cursor < total {
			if before != nil {
				if err := before(); err != nil {
					return err
				}
			}
			if err := r.checkpoint(ctx, false, tp); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if before != nil {
		if err := before(); err != nil {
			return err
		}
	}
	return r.finishPhase(ctx, total, tp)
}

// finishPhase checkpoints the end of the phase and moves to the next.
func (r *run) finishPhase(ctx context.Context, completed int, tp *int) error {
	r.cursor = completed
	r.report(phases[r.phase], completed, tp) // the phase's final count (progress package doc)
	if err := r.checkpoint(ctx, true, tp); err != nil {
		return err
	}
	r.doneTotal += completed
	r.phase++
	r.cursor = 0
	return nil
}

func (r *run) report(phase string, completed int, total *int) {
	u := progress.Update{Phase: phase, Completed: float64(completed), Message: "comparing procedures"}
	if total != nil {
		u.Total = progress.Total(float64(*total))
	}
	r.rep.Report(u)
}

// decode reads one side: its listing, then every procedure's instructions.
func (r *run) decode(ctx context.Context, which int) error {
	s := r.s[which]
	if s.partsListing == "" {
		var l Listing
		var err error
		if which == right && r.pf != nil {
			l, err = r.pf.list(ctx)
		} else {
			l, err = r.sideOf(which).List(ctx)
		}
		if err != nil {
			return err
		}
		if n := len(l.Procedures); n > r.c.maxProcedures() {
			return fault.New(fault.Truncated, "A target has more procedures than max_procedures.",
				"Raise max_procedures (at most 1,000,000) or compare smaller targets.",
				map[string]any{"operation": Operation, "limit": "procedures", "maximum": int64(r.c.maxProcedures()),
					"actual": int64(n), "truncated": true})
		}
		if err := validListing(l); err != nil {
			return err
		}
		s.setListing(l)
		b := encodeListing(l)
		s.partsListing = r.addPart(b)
	}
	procs := s.listing.Procedures
	batchStart := len(s.partsBatches) * r.every
	flush := func() error {
		if len(s.code) > batchStart {
			s.partsBatches = append(s.partsBatches, r.addPart(encodeBatch(&r.toks, s.code[batchStart:])))
			batchStart = len(s.code)
		}
		return nil
	}
	return r.loop(ctx, len(procs), func(i int) error {
		if which == right && r.pf != nil {
			pc, err := r.pf.next(ctx)
			if err != nil {
				return err
			}
			s.code = append(s.code, pc)
		} else {
			code, err := r.sideOf(which).Instructions(ctx, procs[i])
			if err != nil {
				return err
			}
			s.code = append(s.code, normalizeCode(&r.toks, s, code, isStub(procs[i])))
		}
		if r.toks.isFull() {
			return tooManyTokens()
		}
		return nil
	}, flush)
}

func (r *run) sideOf(which int) Side {
	if which == left {
		return r.c.Left
	}
	return r.c.Right
}

// normalizeCode normalizes a procedure's instructions. No-operations are
// left out (alignment padding moves with the code); a branch to one goes to
// the instruction after it.
func normalizeCode(toks *tokens, s *side, code Code, stub bool) procCode {
	pc := procCode{complete: code.Complete, reason: code.Reason}
	if len(code.Instructions) == 0 && pc.complete {
		pc.complete, pc.reason = false, "no instructions were decoded"
	}
	ns := make([]normalized, len(code.Instructions))
	at := make(map[uint64]int, len(code.Instructions))
	kept := 0
	for i, in := range code.Instructions {
		ns[i] = normalizeText(in.Text, &s.idx, stub)
		if i > 0 && ns[i-1].flow == flowCall && ns[i-1].hasTgt {
			if tok, ok := gotBase(in, &s.idx); ok {
				ns[i].tok = tok
			}
		}
		at[in.Address] = kept
		if !isNop(ns[i].tok) {
			kept++
		}
	}
	pc.insns = make([]insn, 0, kept)
	toks.mu.Lock() // once a procedure: the other side's reader interns into the same table
	defer toks.mu.Unlock()
	for i, in := range code.Instructions {
		n := ns[i]
		if isNop(n.tok) {
			continue
		}
		if n.tok == "(bad)" && pc.complete {
			pc.complete, pc.reason = false, "undecodable bytes at "+formatAddr(in.Address)
		}
		ref, val := refNone, int32(0)
		k := len(pc.insns)
		if n.hasTgt {
			if j, ok := at[n.target]; ok && n.flow != flowCall && j < kept {
				ref, val = refIntra, int32(j-k)
			} else if p, ok := s.idx.entries[n.target]; ok {
				ref, val = refProc, p
			} else {
				ref = refOther
			}
		}
		pc.insns = append(pc.insns, newInsn(toks.id(n.tok), ref, n.flow, val))
	}
	return pc
}

// gotBase recognizes i386 position-independent code's GOT base, the
// "add ebx, 0x2df8" after the call of __x86.get_pc_thunk.bx (in.Address is
// the thunk's return address): its immediate is the distance from the code
// to the GOT, which changes whenever the code moves. It is one when the sum
// lands in a segment other than the code's (the GOT is writable data); the
// token then masks it.
func gotBase(in Instruction, six *sideIndex) (string, bool) {
	reg, imm, ok := strings.Cut(strings.TrimPrefix(in.Text, "add "), ", ")
	if !ok || len(in.Text) < 4 || in.Text[:4] != "add " || len(reg) != 3 || reg[0] != 'e' {
		return "", false
	}
	v, ok := parseHex(imm)
	if !ok {
		return "", false
	}
	at := uint64(uint32(in.Address + v))
	code, data := -1, -1
	for k, g := range six.segments {
		if in.Address >= g.Start && in.Address < g.End {
			code = k
		}
		if at >= g.Start && at < g.End {
			data = k
		}
	}
	if code < 0 || data < 0 || code == data {
		return "", false
	}
	return "add " + reg + ", #", true
}

// isStub reports whether p is a stub through a slot: a PLT entry (of an
// import, or of the image's own interposable function) or an import thunk,
// which list_procedures marks thunk.
func isStub(p Procedure) bool { return p.Thunk }

func (s *side) setListing(l Listing) {
	s.listing = l
	s.idx = sideIndex{entries: make(map[uint64]int32, len(l.Procedures)), segments: l.Segments}
	for _, g := range l.Segments {
		s.idx.pic = s.idx.pic || g.Start == 0
	}
	s.real = make([]bool, len(l.Procedures))
	s.names = map[string][]int32{}
	for i, p := range l.Procedures {
		s.idx.entries[p.Address] = int32(i)
		seen := map[string]bool{}
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if n == "" || seen[n] || syntheticName(n, p.Address) {
				continue
			}
			seen[n] = true
			s.real[i] = true
			s.names[n] = append(s.names[n], int32(i))
		}
	}
}

func validListing(l Listing) error {
	for i := 1; i < len(l.Procedures); i++ {
		if l.Procedures[i].Address <= l.Procedures[i-1].Address {
			return fault.Internal(Operation, fmt.Errorf("compare: procedures are not sorted and unique at %s", formatAddr(l.Procedures[i].Address)))
		}
	}
	return nil
}

// addPart registers an immutable part and returns its digest.
func (r *run) addPart(b []byte) string {
	d := sha256.Sum256(b)
	h := fmt.Sprintf("%x", d)
	if !r.handed[h] {
		r.pending = append(r.pending, Part{Digest: h, Bytes: b})
	}
	return h
}

func formatAddr(a uint64) string { return fmt.Sprintf("0x%x", a) }

// result assembles the Result from the classification.
func (r *run) result() (*Result, error) {
	L, R := r.s[left], r.s[right]
	nl := len(L.code)
	ref := func(s *side, i int) *ProcRef {
		p := s.listing.Procedures[i]
		return &ProcRef{Address: formatAddr(p.Address), Name: p.Name}
	}
	res := &Result{Version: resultVersion, ComparisonID: r.id, Left: r.c.LeftID, Right: r.c.RightID, Items: []Item{}}
	kinds := map[uint8]string{kindName: MatchName, kindStructHash: MatchStructure, kindShape: MatchStructure, kindCallGraph: MatchCallGraph}
	var undecoded [2][]string
	for w, s := range r.s {
		for i, pc := range s.code {
			if !pc.complete {
				p := s.listing.Procedures[i]
				undecoded[w] = append(undecoded[w], formatAddr(p.Address)+" "+p.Name+": "+pc.reason)
			}
		}
	}
	for i, c := range r.classes {
		if c.Status == 255 {
			continue
		}
		it := Item{Status: statusNames[c.Status]}
		if i < nl {
			it.Left, it.leftAddr = ref(L, i), L.listing.Procedures[i].Address
			if p := r.partner[left][i]; p >= 0 {
				it.Right, it.rightAddr = ref(R, int(p)), R.listing.Procedures[p].Address
				k := kinds[r.kind[i]]
				it.Match = &k
				switch k {
				case MatchName:
					res.Summary.MatchedBy.Name++
				case MatchStructure:
					res.Summary.MatchedBy.Structure++
				default:
					res.Summary.MatchedBy.CallGraph++
				}
			}
		} else {
			it.Right, it.rightAddr = ref(R, i-nl), R.listing.Procedures[i-nl].Address
		}
		if it.Status == StatusChanged {
			s, b := c.Similarity, c.ChangedBlocks
			it.Similarity, it.ChangedBlocks, it.Delta = &s, &b, c.Delta
		}
		switch it.Status {
		case StatusUnchanged:
			res.Summary.Unchanged++
		case StatusChanged:
			res.Summary.Changed++
		case StatusAdded:
			res.Summary.Added++
		case StatusRemoved:
			res.Summary.Removed++
		default:
			res.Summary.Unknown++
		}
		res.Items = append(res.Items, it)
	}
	sortItems(res.Items)
	res.Limitations = r.limitations(res, undecoded)
	return res, nil
}

// maxListed bounds the procedures a limitation names one by one.
const maxListed = 20

func (r *run) limitations(res *Result, undecoded [2][]string) []string {
	out := []string{}
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if res.Summary.Unknown > 0 {
		add(fmt.Sprintf("%d procedure(s) are unknown: not decoded completely, tied with equally good candidates, or without a name of their own and unpaired; unknown never counts as unchanged.", res.Summary.Unknown))
	}
	for w, name := range [2]string{"left", "right"} {
		if n := len(undecoded[w]); n > 0 {
			add(fmt.Sprintf("%s: %d procedure(s) could not be decoded completely.", name, n))
			for _, u := range undecoded[w][:min(n, maxListed)] {
				add(name + ": not decoded completely: " + u)
			}
		}
		for _, l := range r.s[w].listing.Limitations {
			add(name + ": " + l)
		}
	}
	return out
}

// sameSide reports whether two sides are one client (a target compared
// with itself), which must not be called from two goroutines.
func sameSide(a, b Side) bool {
	if a == b {
		return true
	}
	pa, ok1 := a.(*ProviderSide)
	pb, ok2 := b.(*ProviderSide)
	return ok1 && ok2 && pa.Client == pb.Client
}

// prefetch reads and normalizes one side (its listing, then every
// procedure in order) in a goroutine of its own, ahead of the phase that
// consumes it, interning its tokens into the comparison's table (which
// normalizeCode locks once a procedure). Token ids so depend on how the
// two readers interleave; nothing of the result or of a checkpoint does
// (ids are only compared with each other within a run, and parts spell
// their tokens out).
type prefetch struct {
	listed  chan struct{}
	listing Listing
	listErr error
	codes   chan fetched
	cancel  context.CancelFunc
	done    chan struct{}
}

type fetched struct {
	code procCode
	err  error
}

func startPrefetch(ctx context.Context, sd Side, toks *tokens) *prefetch {
	ctx, cancel := context.WithCancel(ctx)
	p := &prefetch{listed: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.listing, p.listErr = sd.List(ctx)
		if p.listErr == nil {
			p.codes = make(chan fetched, len(p.listing.Procedures)) // never blocks: the reader runs ahead freely
		}
		close(p.listed)
		if p.listErr != nil {
			return
		}
		s := &side{}
		s.setListing(p.listing)
		for _, pr := range p.listing.Procedures {
			c, err := sd.Instructions(ctx, pr)
			if err != nil {
				p.codes <- fetched{err: err}
				return
			}
			pc := normalizeCode(toks, s, c, isStub(pr))
			if toks.isFull() {
				p.codes <- fetched{err: tooManyTokens()}
				return
			}
			p.codes <- fetched{code: pc}
		}
	}()
	return p
}

func (p *prefetch) list(ctx context.Context) (Listing, error) {
	select {
	case <-p.listed:
		return p.listing, p.listErr
	case <-ctx.Done():
		return Listing{}, ctx.Err()
	}
}

// next returns the next procedure.
func (p *prefetch) next(ctx context.Context) (procCode, error) {
	if _, err := p.list(ctx); err != nil {
		return procCode{}, err
	}
	var f fetched
	select {
	case f = <-p.codes:
	case <-ctx.Done():
		return procCode{}, ctx.Err()
	case <-p.done:
		select { // the last ones sent before it ended
		case f = <-p.codes:
		default:
			if err := ctx.Err(); err != nil {
				return procCode{}, err
			}
			return procCode{}, fmt.Errorf("compare: the right side's reader stopped early")
		}
	}
	return f.code, f.err
}

// stop ends the reader and waits for it: no call on the side's client
// outlives the comparison.
func (p *prefetch) stop() {
	p.cancel()
	<-p.done
}
