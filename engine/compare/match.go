package compare

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"runtime"
	"slices"
	"sync"
)

// minSimilarity is how alike two procedures paired by shape or by the call
// graph must be (their normalized instruction streams, calls compared
// through the matching): below it the evidence is too thin, and the
// procedures stay unpaired.
const minSimilarity = 0.5

// fingerprint computes a procedure's structural hash (its normalized
// instruction stream, references to other procedures masked) and its
// shape hash (mnemonics, flow and branch distances only).
// buf is the caller's scratch space, reused from one procedure to the next.
func (r *run) fingerprint(s *side, i int, buf *[2][]byte) {
	hb, gb := buf[0][:0], buf[1][:0]
	for _, in := range s.code[i].insns {
		tok := r.toks.bytes(in.tok())
		mn, _, _ := bytes.Cut(tok, []byte(" "))
		v := uint32(0)
		if in.ref() == refIntra {
			v = uint32(in.val)
		}
		hb = append(hb, in.ref(), in.flow())
		hb = binary.LittleEndian.AppendUint32(hb, v)
		gb = append(gb, hb[len(hb)-6:]...)
		hb = append(append(hb, tok...), 0)
		gb = append(append(gb, mn...), 0)
	}
	s.structH[i], s.shapeH[i] = sha256.Sum256(hb), sha256.Sum256(gb)
	buf[0], buf[1] = hb, gb
}

func (r *run) allocFingerprints() {
	for _, s := range r.s {
		if s.structH == nil {
			s.structH = make([]digest, len(s.code))
			s.shapeH = make([]digest, len(s.code))
		}
	}
}

// fingerprintRange computes the fingerprints of procedures [from, to) of
// both sides in a row (the left side's, then the right's), on every core:
// each is a function of its own procedure and the (by now immutable) token
// table, written to its own slot.
func (r *run) fingerprintRange(from, to int) {
	nl := len(r.s[left].code)
	workers := min(runtime.GOMAXPROCS(0), max((to-from)/256, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf [2][]byte
			for i := from + w; i < to; i += workers {
				if i < nl {
					r.fingerprint(r.s[left], i, &buf)
				} else {
					r.fingerprint(r.s[right], i-nl, &buf)
				}
			}
		})
	}
	wg.Wait()
}

// fingerprintChunk is how many procedures fingerprintPhase computes at once
// between two progress updates and cancellation checks.
const fingerprintChunk = 2048

func (r *run) fingerprintPhase(ctx context.Context) error {
	r.allocFingerprints()
	n := len(r.s[left].code) + len(r.s[right].code)
	next := 0
	return r.loop(ctx, n, func(i int) error {
		if i >= next {
			next = min(i+fingerprintChunk, n)
			r.fingerprintRange(i, next)
		}
		return nil
	}, nil)
}

func (r *run) allocMatches() {
	if r.partner[left] == nil {
		for w := range 2 {
			n := len(r.s[w].code)
			r.partner[w] = make([]int32, n)
			for i := range r.partner[w] {
				r.partner[w][i] = -1
			}
			r.tie[w] = make([]bool, n)
		}
		r.kind = make([]uint8, len(r.s[left].code))
	}
}

func (r *run) pair(l, rt int32, k uint8) {
	r.partner[left][l], r.partner[right][rt], r.kind[l] = rt, l, k
}

// matchNamePhase pairs procedures by a name of their own that is unique on
// both sides; a procedure whose unique names point to different partners
// is a tie.
func (r *run) matchNamePhase(ctx context.Context) error {
	r.allocMatches()
	L, R := r.s[left], r.s[right]
	return r.loop(ctx, len(L.code), func(i int) error {
		p := L.listing.Procedures[i]
		cand := int32(-1)
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			ls, rs := L.names[n], R.names[n]
			if len(ls) != 1 || len(rs) != 1 || ls[0] != int32(i) {
				continue
			}
			if cand >= 0 && cand != rs[0] {
				r.tie[left][i], r.tie[right][cand], r.tie[right][rs[0]] = true, true, true
				return nil
			}
			cand = rs[0]
		}
		if cand >= 0 && r.partner[right][cand] < 0 {
			// The partner's own unique names must not point elsewhere.
			q := R.listing.Procedures[cand]
			for _, n := range append([]string{q.Name}, q.Aliases...) {
				if ls, rs := L.names[n], R.names[n]; len(ls) == 1 && len(rs) == 1 && rs[0] == cand && ls[0] != int32(i) {
					r.tie[left][i], r.tie[right][cand] = true, true
					return nil
				}
			}
			r.pair(int32(i), cand, kindName)
		}
		return nil
	}, nil)
}

// structGroups groups the complete, unmatched procedures of one side not
// matched by kinds in done, by key.
func (r *run) groups(w int, key func(s *side, i int) digest, eligible func(i int) bool) map[digest][]int32 {
	s := r.s[w]
	g := map[digest][]int32{}
	for i := range s.code {
		if eligible(i) {
			g[key(s, i)] = append(g[key(s, i)], int32(i))
		}
	}
	return g
}

// matchStructurePhase pairs, first, complete procedures whose structural
// hash is unique on both sides among the procedures no name paired; then,
// among those still unpaired, procedures whose shape is unique on both
// sides, when one of them has no name of its own (two different names of
// their own with different code are a removal and an addition) and they
// are alike. A hash shared by several procedures on a side is a tie.
func (r *run) matchStructurePhase(ctx context.Context) error {
	nl := len(r.s[left].code)
	structKey := func(s *side, i int) digest { return s.structH[i] }
	shapeKey := func(s *side, i int) digest { return s.shapeH[i] }
	// Eligibility is fixed by the matches made before each pass, so that a
	// resumed pass sees the groups an uninterrupted one saw.
	before := func(w int, i int, kinds ...uint8) bool {
		if !r.s[w].code[i].complete || isStub(r.s[w].listing.Procedures[i]) {
			return false // a stub is its import: paired by name only
		}
		p := r.partner[w][i]
		if p < 0 {
			return true
		}
		l := int32(i)
		if w == right {
			l = p
		}
		return !slices.Contains(kinds, r.kind[l])
	}
	var gs [2]map[digest][]int32
	pass := -1
	build := func(p int) {
		if pass == p {
			return
		}
		pass = p
		for w := range 2 {
			if p == 0 {
				gs[w] = r.groups(w, structKey, func(i int) bool { return before(w, i, kindName) })
			} else {
				gs[w] = r.groups(w, shapeKey, func(i int) bool { return before(w, i, kindName, kindStructHash) })
			}
		}
	}
	return r.loop(ctx, 2*nl, func(step int) error {
		p, i := step/nl, step%nl
		build(p)
		L, R := r.s[left], r.s[right]
		if p == 0 && !before(left, i, kindName) || p == 1 && !before(left, i, kindName, kindStructHash) {
			return nil
		}
		var k digest
		if p == 0 {
			k = L.structH[i]
		} else {
			k = L.shapeH[i]
		}
		ls, rs := gs[left][k], gs[right][k]
		if len(rs) == 0 {
			return nil
		}
		if len(ls) != 1 || len(rs) != 1 {
			if p == 0 {
				for _, x := range ls {
					r.tie[left][x] = true
				}
				for _, x := range rs {
					r.tie[right][x] = true
				}
			}
			return nil
		}
		rt := rs[0]
		if r.partner[right][rt] >= 0 || r.partner[left][i] >= 0 {
			return nil
		}
		if p == 1 && (L.real[i] && R.real[rt] || r.similarity(int32(i), rt) < minSimilarity) {
			return nil
		}
		kk := kindStructHash
		if p == 1 {
			kk = kindShape
		}
		r.pair(int32(i), rt, kk)
		return nil
	}, nil)
}

// references derives each procedure's callees (in instruction order) and
// callers.
func (r *run) references() {
	for _, s := range r.s {
		if s.callees != nil {
			continue
		}
		s.callees = make([][]int32, len(s.code))
		s.callers = make([][]int32, len(s.code))
		for i, pc := range s.code {
			var seen map[int32]bool
			for _, in := range pc.insns {
				if in.ref() != refProc || in.val == int32(i) {
					continue
				}
				if seen == nil {
					seen = map[int32]bool{}
				}
				if !seen[in.val] {
					seen[in.val] = true
					s.callees[i] = append(s.callees[i], in.val)
					s.callers[in.val] = append(s.callers[in.val], int32(i))
				}
			}
		}
	}
}

// maxRounds bounds call-graph propagation.
const maxRounds = 32

// matchCallGraphPhase propagates matches from matched neighbours, in
// rounds: each matched pair votes for pairs of its unmatched callees (at
// the same position when both call as many procedures, or the only
// unmatched one of each side) and of its unmatched callers (the only one of
// each side). At the end of a round a vote that is the only one for both
// procedures becomes a match when they are alike and not two different
// names of their own; conflicting votes are ties. A round that adds
// nothing ends the phase.
func (r *run) matchCallGraphPhase(ctx context.Context) error {
	r.references()
	L, R := r.s[left], r.s[right]
	name := phases[r.phase]
	for r.round < maxRounds {
		pairs := r.matchedLefts()
		for r.roundPos < len(pairs) {
			if err := ctx.Err(); err != nil {
				return err
			}
			if r.roundPos&63 == 0 {
				r.report(name, r.cursor, nil)
			}
			l := pairs[r.roundPos]
			rt := r.partner[left][l]
			r.vote(L.callees[l], R.callees[rt], true)
			r.vote(L.callers[l], R.callers[rt], false)
			r.roundPos++
			r.cursor++
			if r.cursor%r.every == 0 {
				if err := r.checkpoint(ctx, false, nil); err != nil {
					return err
				}
			}
		}
		added := r.tally()
		r.round++
		r.roundPos = 0
		r.votes = nil
		if added == 0 {
			break
		}
	}
	return r.finishPhase(ctx, r.cursor, nil)
}

func (r *run) matchedLefts() []int32 {
	var out []int32
	for l, p := range r.partner[left] {
		if p >= 0 {
			out = append(out, int32(l))
		}
	}
	return out
}

// vote records the pairs that a matched pair's callees (ls, rs, in call
// order) or callers suggest. Callee lists of equal length whose matched
// positions all agree align: each unmatched position is a strong vote,
// needing no likeness (the procedure called in the same place by the same
// caller). Otherwise the only unmatched procedure of each side is a vote
// that must also be alike.
func (r *run) vote(ls, rs []int32, positional bool) {
	if positional && len(ls) == len(rs) {
		agree := true
		for i := range ls {
			if r.partner[left][ls[i]] != rs[i] && (r.partner[left][ls[i]] >= 0 || r.partner[right][rs[i]] >= 0) {
				agree = false
				break
			}
		}
		if agree {
			for i := range ls {
				if r.partner[left][ls[i]] < 0 {
					r.votes = append(r.votes, [3]int32{ls[i], rs[i], 1})
				}
			}
			return
		}
	}
	var ul, ur []int32
	for _, x := range ls {
		if r.partner[left][x] < 0 {
			ul = append(ul, x)
		}
	}
	for _, x := range rs {
		if r.partner[right][x] < 0 {
			ur = append(ur, x)
		}
	}
	if len(ul) == 1 && len(ur) == 1 {
		r.votes = append(r.votes, [3]int32{ul[0], ur[0], 0})
	}
}

// tally turns the round's votes into matches; it returns how many.
func (r *run) tally() int {
	v := slices.Clone(r.votes)
	slices.SortFunc(v, func(a, b [3]int32) int {
		for k := range a {
			if a[k] != b[k] {
				return int(a[k] - b[k])
			}
		}
		return 0
	})
	v = slices.Compact(v)
	// One entry per pair, strong when any vote for it was.
	var u [][3]int32
	for _, x := range v {
		if n := len(u); n > 0 && u[n-1][0] == x[0] && u[n-1][1] == x[1] {
			u[n-1][2] = max(u[n-1][2], x[2])
			continue
		}
		u = append(u, x)
	}
	byL, byR := map[int32]int{}, map[int32]int{}
	for _, x := range u {
		byL[x[0]]++
		byR[x[1]]++
	}
	L, R := r.s[left], r.s[right]
	var accept [][3]int32
	for _, x := range u {
		l, rt := x[0], x[1]
		if byL[l] != 1 || byR[rt] != 1 {
			r.tie[left][l], r.tie[right][rt] = true, true
			continue
		}
		if !L.code[l].complete || !R.code[rt].complete || L.real[l] && R.real[rt] {
			continue
		}
		if x[2] == 0 && r.similarity(l, rt) < minSimilarity {
			continue
		}
		accept = append(accept, x)
	}
	for _, x := range accept {
		r.pair(x[0], x[1], kindCallGraph)
	}
	return len(accept)
}
