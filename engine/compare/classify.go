package compare

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
)

// Classification compares a matched pair's normalized instructions, with
// references to other procedures compared through the matching: a call of
// f on the left equals a call of g on the right when f and g are paired, or
// when neither is paired and their code is structurally identical.

// sameTarget reports whether left procedure l and right procedure rt are
// the same callee: paired, or both unpaired and structurally identical
// (never two stubs: a stub is the import its name says).
func (r *run) sameTarget(l, rt int32) bool {
	if p := r.partner[left][l]; p >= 0 || r.partner[right][rt] >= 0 {
		return p == rt
	}
	L, R := r.s[left], r.s[right]
	if isStub(L.listing.Procedures[l]) || isStub(R.listing.Procedures[rt]) {
		return false // stubs of different imports may be the same code (i386: no slot named)
	}
	return L.structH != nil && L.code[l].complete && R.code[rt].complete && L.structH[l] == R.structH[rt]
}

func (r *run) insnEqual(a, b insn) bool {
	if a.tok() != b.tok() || a.ref() != b.ref() {
		return false
	}
	switch a.ref() {
	case refIntra:
		return a.val == b.val
	case refProc:
		return r.sameTarget(a.val, b.val)
	}
	return true
}

// maxDiff bounds the edit distance the exact diff computes; beyond it the
// similarity is that of the instruction multisets.
const maxDiff = 4096

// maxDiffLength bounds the sequences the exact diff takes: its cost grows
// with length times distance.
const maxDiffLength = 32768

// lcs is the length of a longest common subsequence of sequences of na and
// nb elements under eq (Myers' O((N+M)D) algorithm), or -1 when the edit
// distance exceeds maxDiff.
func lcs(na, nb int, eq func(i, j int) bool) int {
	if na+nb > maxDiffLength {
		return -1
	}
	maxD := min(na+nb, maxDiff)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < na && y < nb && eq(x, y) {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= na && y >= nb {
				return (na + nb - d) / 2
			}
		}
	}
	return -1
}

// similarity of left procedure l and right procedure rt: 2·LCS/(n+m) of
// their normalized instructions.
func (r *run) similarity(l, rt int32) float64 {
	a, b := r.s[left].code[l].insns, r.s[right].code[rt].insns
	if len(a)+len(b) == 0 {
		return 1
	}
	n := lcs(len(a), len(b), func(i, j int) bool { return r.insnEqual(a[i], b[j]) })
	if n < 0 {
		n = multisetCommon(a, b)
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}

// multisetCommon counts the instructions common to both (by token and
// reference kind), the bound when the diff is too long to compute.
func multisetCommon(a, b []insn) int {
	type key struct {
		tok uint32
		ref uint8
	}
	m := map[key]int{}
	for _, x := range a {
		m[key{x.tok(), x.ref()}]++
	}
	n := 0
	for _, x := range b {
		k := key{x.tok(), x.ref()}
		if m[k] > 0 {
			m[k]--
			n++
		}
	}
	return n
}

// blocks splits a procedure into basic blocks: [start, end) instruction
// index ranges.
func blocks(in []insn) [][2]int {
	if len(in) == 0 {
		return nil
	}
	leader := make([]bool, len(in)+1)
	leader[0] = true
	for i, x := range in {
		if x.ref() == refIntra {
			if t := i + int(x.val); t >= 0 && t < len(in) {
				leader[t] = true
			}
		}
		if x.flow() == flowJump || x.flow() == flowEnd {
			leader[i+1] = true
		}
	}
	var out [][2]int
	start := 0
	for i := 1; i <= len(in); i++ {
		if i == len(in) || leader[i] {
			out = append(out, [2]int{start, i})
			start = i
		}
	}
	return out
}

// blockKeys hashes each block of one side of a pair, references to other
// procedures written as the right side's procedure (left ones through the
// matching), so that equal keys are equal blocks.
func (r *run) blockKeys(w int, p int32) []digest {
	in := r.s[w].code[p].insns
	bs := blocks(in)
	out := make([]digest, len(bs))
	var b [13]byte
	for k, blk := range bs {
		h := sha256.New()
		for _, x := range in[blk[0]:blk[1]] {
			binary.LittleEndian.PutUint32(b[0:], x.tok())
			b[4] = x.ref()
			v := int64(x.val)
			if x.ref() == refProc {
				v = r.calleeKey(w, x.val)
			} else if x.ref() != refIntra {
				v = 0
			}
			binary.LittleEndian.PutUint64(b[5:], uint64(v))
			h.Write(b[:])
		}
		h.Sum(out[k][:0])
	}
	return out
}

// calleeKey names a callee the same way on both sides when sameTarget
// would call them the same: the right-side index of a paired callee, else
// a value derived from its structural hash.
func (r *run) calleeKey(w int, p int32) int64 {
	if w == left {
		if q := r.partner[left][p]; q >= 0 {
			return int64(q)
		}
	} else if r.partner[right][p] >= 0 {
		return int64(p)
	}
	s := r.s[w]
	if s.structH == nil || !s.code[p].complete || isStub(s.listing.Procedures[p]) {
		return -1 - int64(p) - int64(w)<<40 // never equal across sides
	}
	return -1<<62 | int64(binary.LittleEndian.Uint64(s.structH[p][:])>>2)
}

// classifyPair classifies matched pair (l, rt).
func (r *run) classifyPair(l, rt int32) class {
	L, R := r.s[left].code[l], r.s[right].code[rt]
	if !L.complete || !R.complete {
		return class{Status: statusCode(StatusUnknown)}
	}
	same := len(L.insns) == len(R.insns)
	for i := 0; same && i < len(L.insns); i++ {
		same = r.insnEqual(L.insns[i], R.insns[i])
	}
	if same {
		return class{Status: statusCode(StatusUnchanged)}
	}
	sim := math.Floor(r.similarity(l, rt)*1e4) / 1e4
	sim = math.Min(sim, 0.9999)
	a, b := r.blockKeys(left, l), r.blockKeys(right, rt)
	common := lcs(len(a), len(b), func(i, j int) bool { return a[i] == b[j] })
	if common < 0 {
		common = 0
		m := map[digest]int{}
		for _, x := range a {
			m[x]++
		}
		for _, x := range b {
			if m[x] > 0 {
				m[x]--
				common++
			}
		}
	}
	return class{Status: statusCode(StatusChanged), Similarity: sim, ChangedBlocks: max(len(a), len(b)) - common,
		Delta: r.delta(l, rt, a, b, common)}
}

var statusNames = [...]string{StatusUnchanged, StatusChanged, StatusAdded, StatusRemoved, StatusUnknown}

func statusCode(s string) uint8 { return uint8(statusOrder[s]) }

// classifyPhase classifies every left procedure (its pair, or it as a
// leftover) and then every unpaired right procedure.
func (r *run) classifyPhase(ctx context.Context) error {
	nl, nr := len(r.s[left].code), len(r.s[right].code)
	return r.loop(ctx, nl+nr, func(i int) error {
		var c class
		switch {
		case i < nl && r.partner[left][i] >= 0:
			c = r.classifyPair(int32(i), r.partner[left][i])
		case i < nl:
			c = r.leftover(left, i)
		case r.partner[right][i-nl] < 0:
			c = r.leftover(right, i-nl)
		default:
			c = class{Status: 255} // classified with its left partner
		}
		r.classes = append(r.classes, c)
		return nil
	}, nil)
}

// leftover classifies an unpaired procedure: added or removed when it has
// a name of its own that the other side lacks, decoded or not; unknown when
// it tied, or has no name of its own (it may be a changed procedure no
// evidence paired).
func (r *run) leftover(w, i int) class {
	s, o := r.s[w], r.s[1-w]
	if r.tie[w][i] || !s.real[i] {
		return class{Status: statusCode(StatusUnknown)}
	}
	p := s.listing.Procedures[i]
	for _, n := range append([]string{p.Name}, p.Aliases...) {
		if len(o.names[n]) > 0 && !syntheticName(n, p.Address) {
			return class{Status: statusCode(StatusUnknown)} // its name is there, but ambiguously
		}
	}
	if w == left {
		return class{Status: statusCode(StatusRemoved)}
	}
	return class{Status: statusCode(StatusAdded)}
}
