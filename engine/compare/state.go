package compare

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
)

// Checkpoint state: a small canonical JSON manifest (the matching so far,
// the phase and its cursor) that names by digest the immutable parts: each
// side's listing and its decoded procedures, CheckpointEvery per part, in a
// compact binary form. Fingerprints and call references are recomputed
// from the decoded procedures on resume: they are pure functions of them.

// stateVersion and resultVersion name what a stored state or result
// holds; one stored by another version is stale (ErrStale) and computed
// again: the comparison_id names the inputs only. Version 2: stubs compare
// by the symbol their slot names, changed items carry delta.
const (
	stateVersion  = 2
	resultVersion = 2
)

// ErrStale is the error of a checkpoint state or a stored result written
// by another version of the comparison: the caller computes afresh.
var ErrStale = errors.New("compare: stored by another version of the comparison")

// StaleState reports whether a checkpoint state was written by another
// version of the comparison (Resume would refuse it with ErrStale).
func StaleState(state []byte) bool {
	var m struct {
		Version int `json:"version"`
	}
	return json.Unmarshal(state, &m) == nil && m.Version != stateVersion
}

type manifest struct {
	Version      int        `json:"version"`
	ComparisonID string     `json:"comparison_id"`
	Phase        string     `json:"phase"`
	Done         bool       `json:"done"`
	Completed    int        `json:"completed"`
	Sides        [2]sideRef `json:"sides"`
	Matches      [][3]int32 `json:"matches"` // left, right, internal kind
	Ties         [2][]int32 `json:"ties"`
	Round        int        `json:"round"`
	RoundPos     int        `json:"round_pos"`
	Votes        [][3]int32 `json:"votes"`
	Classes      []class    `json:"classes"`
	DoneTotal    int        `json:"done_total"`
}

type sideRef struct {
	Listing string   `json:"listing"`
	Batches []string `json:"batches"`
}

// checkpoint serializes the state and hands it over.
func (r *run) checkpoint(ctx context.Context, done bool, total *int) error {
	m := manifest{Version: stateVersion, ComparisonID: r.id, Phase: phases[r.phase], Done: done,
		Completed: r.cursor, Round: r.round, RoundPos: r.roundPos, Votes: r.votes, Classes: r.classes,
		DoneTotal: r.doneTotal}
	for w, s := range r.s {
		m.Sides[w] = sideRef{Listing: s.partsListing, Batches: s.partsBatches}
		if r.tie[w] != nil {
			for i, t := range r.tie[w] {
				if t {
					m.Ties[w] = append(m.Ties[w], int32(i))
				}
			}
		}
	}
	for l, p := range r.partner[left] {
		if p >= 0 {
			m.Matches = append(m.Matches, [3]int32{int32(l), p, int32(r.kind[l])})
		}
	}
	b, err := canon.Marshal(m)
	if err != nil {
		return fault.Internal(Operation, err)
	}
	parts := r.pending
	r.pending = nil
	for _, p := range parts {
		r.handed[p.Digest] = true
	}
	if r.c.Checkpoint == nil {
		return nil
	}
	return r.c.Checkpoint(ctx, Checkpoint{ComparisonID: r.id, Phase: m.Phase, Done: done, Completed: r.cursor,
		Total: total, State: b, StateDigest: canon.SHA256Hex(b), Parts: parts})
}

// errState is the error of a state that does not belong to this comparison
// or does not parse.
var errState = errors.New("compare: checkpoint state is not valid for this comparison")

func stateErr(format string, a ...any) error {
	return fault.Internal(Operation, fmt.Errorf("%w: "+format, append([]any{errState}, a...)...))
}

// restore loads a manifest and its parts.
func (r *run) restore(ctx context.Context, state []byte, load func(string) ([]byte, error)) error {
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(state))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return stateErr("%v", err)
	}
	if m.Version != stateVersion {
		return fault.Internal(Operation, fmt.Errorf("%w: checkpoint state version %d", ErrStale, m.Version))
	}
	if m.ComparisonID != r.id {
		return stateErr("version %d, comparison %s", m.Version, m.ComparisonID)
	}
	ph := -1
	for i, p := range phases {
		if p == m.Phase {
			ph = i
		}
	}
	if ph < 0 || m.Completed < 0 || m.DoneTotal < 0 {
		return stateErr("phase %q", m.Phase)
	}
	get := func(d string) ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := load(d)
		if err != nil {
			return nil, fmt.Errorf("compare: load part %s: %w", d, err)
		}
		if s := sha256.Sum256(b); hex.EncodeToString(s[:]) != d {
			return nil, stateErr("part %s does not match its digest", d)
		}
		r.handed[d] = true
		return b, nil
	}
	for w, ref := range m.Sides {
		s := r.s[w]
		if ref.Listing == "" {
			if len(ref.Batches) > 0 {
				return stateErr("batches without a listing")
			}
			continue
		}
		b, err := get(ref.Listing)
		if err != nil {
			return err
		}
		l, err := decodeListing(b)
		if err != nil {
			return stateErr("%v", err)
		}
		if err := validListing(l); err != nil {
			return stateErr("%v", err)
		}
		s.setListing(l)
		s.partsListing = ref.Listing
		for _, d := range ref.Batches {
			b, err := get(d)
			if err != nil {
				return err
			}
			if err := decodeBatch(b, r, s); err != nil {
				return stateErr("%v", err)
			}
			s.partsBatches = append(s.partsBatches, d)
		}
		if len(s.code) > len(l.Procedures) {
			return stateErr("more decoded procedures than listed")
		}
	}
	// The decode cursor is the decoded count: a checkpoint is taken only
	// at a part boundary.
	r.phase, r.cursor, r.doneTotal = ph, m.Completed, m.DoneTotal
	for w := range 2 {
		if ph > w || ph == w && m.Done {
			if len(r.s[w].code) != len(r.s[w].listing.Procedures) || r.s[w].partsListing == "" {
				return stateErr("side %d is not fully decoded", w)
			}
		}
	}
	if ph <= PhaseIndex(PhaseDecodeRight) && !m.Done {
		if r.cursor != len(r.s[ph].code) {
			return stateErr("decode cursor %d, %d decoded", r.cursor, len(r.s[ph].code))
		}
	}
	if ph >= PhaseIndex(PhaseFingerprint) {
		r.allocFingerprints()
		r.fingerprintRange(0, len(r.s[left].code)+len(r.s[right].code))
	}
	if ph >= PhaseIndex(PhaseMatchName) {
		r.allocMatches()
		nl, nr := len(r.s[left].code), len(r.s[right].code)
		for _, x := range m.Matches {
			l, rt, k := x[0], x[1], x[2]
			if l < 0 || int(l) >= nl || rt < 0 || int(rt) >= nr || k < int32(kindName) || k > int32(kindCallGraph) ||
				r.partner[left][l] >= 0 || r.partner[right][rt] >= 0 {
				return stateErr("match %v", x)
			}
			r.pair(l, rt, uint8(k))
		}
		for w, ts := range m.Ties {
			for _, t := range ts {
				if t < 0 || int(t) >= len(r.tie[w]) {
					return stateErr("tie %d", t)
				}
				r.tie[w][t] = true
			}
		}
		for _, v := range m.Votes {
			if v[0] < 0 || int(v[0]) >= nl || v[1] < 0 || int(v[1]) >= nr || v[2] < 0 || v[2] > 1 {
				return stateErr("vote %v", v)
			}
		}
		r.round, r.roundPos, r.votes = m.Round, m.RoundPos, m.Votes
		if r.round < 0 || r.roundPos < 0 || r.round > maxRounds {
			return stateErr("round %d", r.round)
		}
		for _, c := range m.Classes {
			if int(c.Status) >= len(statusNames) && c.Status != 255 {
				return stateErr("class %d", c.Status)
			}
		}
		r.classes = m.Classes
		if ph == PhaseIndex(PhaseClassify) && len(r.classes) != r.cursor {
			return stateErr("classify cursor %d, %d classes", r.cursor, len(r.classes))
		}
		if r.cursor > nl+nr+maxRounds*(nl+1) {
			return stateErr("cursor %d", r.cursor)
		}
	} else if len(m.Matches) > 0 || len(m.Classes) > 0 {
		return stateErr("matches before matching")
	}
	if m.Done {
		r.doneTotal += r.cursor
		r.phase++
		r.cursor = 0
		r.round, r.roundPos, r.votes = 0, 0, nil
		if r.phase > PhaseIndex(PhaseMatchCallGraph) {
			r.round = 0
		}
	}
	return nil
}

// PhaseIndex is a phase's position in Phases, or -1.
func PhaseIndex(phase string) int {
	for i, p := range phases {
		if p == phase {
			return i
		}
	}
	return -1
}

// Part encodings: a magic, then uvarint-framed fields.
var (
	magicListing = []byte("REACMPL1")
	magicBatch   = []byte("REACMPB1")
)

type enc struct{ b []byte }

func (e *enc) u(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) i(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) s(v string)  { e.u(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) bs(v []byte) { e.u(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) byte(v byte) { e.b = append(e.b, v) }

type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("malformed part: %s", what)
	}
}

func (d *dec) u() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("uvarint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) i() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// n reads a count that the remaining bytes can hold at min bytes each.
func (d *dec) n(minEach int) int {
	v := d.u()
	if d.err == nil && v > uint64(len(d.b)/max(minEach, 1)) {
		d.fail("count")
		return 0
	}
	return int(v)
}

func (d *dec) s() string {
	n := d.n(1)
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *dec) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail("byte")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *dec) magic(m []byte) {
	if !bytes.HasPrefix(d.b, m) {
		d.fail("magic")
		return
	}
	d.b = d.b[len(m):]
}

func (d *dec) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	return d.err
}

func encodeListing(l Listing) []byte {
	e := &enc{b: append([]byte(nil), magicListing...)}
	e.u(uint64(len(l.Procedures)))
	for _, p := range l.Procedures {
		e.u(p.Address)
		e.s(p.Name)
		e.u(uint64(len(p.Aliases)))
		for _, a := range p.Aliases {
			e.s(a)
		}
		var f byte
		if p.External {
			f |= 1
		}
		if p.Thunk {
			f |= 2
		}
		e.byte(f)
	}
	e.u(uint64(len(l.Segments)))
	for _, s := range l.Segments {
		e.u(s.Start)
		e.u(s.End)
	}
	e.u(uint64(len(l.Limitations)))
	for _, s := range l.Limitations {
		e.s(s)
	}
	return e.b
}

func decodeListing(b []byte) (Listing, error) {
	d := &dec{b: b}
	d.magic(magicListing)
	var l Listing
	n := d.n(3)
	l.Procedures = make([]Procedure, 0, n)
	for range n {
		p := Procedure{Address: d.u(), Name: d.s()}
		na := d.n(1)
		for range na {
			p.Aliases = append(p.Aliases, d.s())
		}
		f := d.byte()
		p.External, p.Thunk = f&1 != 0, f&2 != 0
		if f > 3 {
			d.fail("flags")
		}
		l.Procedures = append(l.Procedures, p)
	}
	ns := d.n(2)
	for range ns {
		l.Segments = append(l.Segments, Range{d.u(), d.u()})
	}
	nl := d.n(1)
	l.Limitations = []string{}
	for range nl {
		l.Limitations = append(l.Limitations, d.s())
	}
	return l, d.end()
}

// encodeBatch writes decoded procedures with a dictionary of their tokens.
func encodeBatch(t *tokens, code []procCode) []byte {
	local := map[uint32]uint64{}
	var dict []uint32
	for _, pc := range code {
		for _, in := range pc.insns {
			if _, ok := local[in.tok()]; !ok {
				local[in.tok()] = uint64(len(dict))
				dict = append(dict, in.tok())
			}
		}
	}
	e := &enc{b: append([]byte(nil), magicBatch...)}
	e.u(uint64(len(dict)))
	t.mu.Lock() // the other side's reader may be interning
	for _, id := range dict {
		e.bs(t.bytes(id))
	}
	t.mu.Unlock()
	e.u(uint64(len(code)))
	for _, pc := range code {
		var f byte
		if pc.complete {
			f = 1
		}
		e.byte(f)
		e.s(pc.reason)
		e.u(uint64(len(pc.insns)))
		for _, in := range pc.insns {
			e.u(local[in.tok()])
			e.byte(in.ref()<<4 | in.flow())
			if in.ref() == refIntra || in.ref() == refProc {
				e.i(int64(in.val))
			}
		}
	}
	return e.b
}

// decodeBatch appends a batch's procedures to s.
func decodeBatch(b []byte, r *run, s *side) error {
	d := &dec{b: b}
	d.magic(magicBatch)
	nd := d.n(1)
	dict := make([]uint32, nd)
	r.toks.mu.Lock()
	for i := range dict {
		dict[i] = r.toks.id(d.s())
	}
	full := r.toks.full
	r.toks.mu.Unlock()
	if full {
		return tooManyTokens()
	}
	np := d.n(3)
	for range np {
		pc := procCode{}
		f := d.byte()
		pc.complete = f == 1
		if f > 1 {
			d.fail("flags")
		}
		pc.reason = d.s()
		ni := d.n(2)
		pc.insns = make([]insn, ni)
		idx := len(s.code)
		for k := range pc.insns {
			t := d.u()
			fl := d.byte()
			ref, flow := fl>>4, fl&15
			if t >= uint64(len(dict)) || ref > refOther || flow > flowEnd {
				d.fail("instruction")
				return d.err
			}
			in := newInsn(dict[t], ref, flow, 0)
			if ref == refIntra || ref == refProc {
				v := d.i()
				if v < -(1<<31) || v >= 1<<31 {
					d.fail("value")
				}
				in.val = int32(v)
				if ref == refIntra && (k+int(v) < 0 || k+int(v) >= ni) ||
					ref == refProc && (v < 0 || v >= int64(len(s.listing.Procedures))) {
					d.fail("reference")
				}
			}
			pc.insns[k] = in
		}
		if d.err != nil {
			return d.err
		}
		if idx >= len(s.listing.Procedures) {
			d.fail("procedure count")
			return d.err
		}
		s.code = append(s.code, pc)
	}
	return d.end()
}
