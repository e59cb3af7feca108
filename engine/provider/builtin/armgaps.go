package builtin

import (
	"math/bits"
	"sort"
	"strings"
)

// Gaps in stripped arm code. gcc emits no .ARM.exidx entry for C compiled
// without -funwind-tables, and a stripped static executable keeps none of
// its libc's symbols, so a function that no call, tail call or code pointer
// the descent decodes reaches — one a vtable in .data.rel.ro points to (no
// relocation marks it in a static executable), or dead code linked with the
// object file that holds a needed function (glibc's _IO_iter_begin) — is
// found only as code the descent left undecoded. armCover records what the
// descent decoded (instructions, the literal-pool words its loads read, the
// jump tables it followed), by halfword; nextGaps then returns, in each
// stretch of the executable sections outside it, the first instruction
// after the padding (zero halfwords, nops) as a function start, if it
// decodes as code up to a return or jump in the mode of the procedure
// before it, or else in the other mode. The descent decodes those in turn,
// so that the rest of each stretch is covered or found next round. It runs
// only for stripped images (without .symtab): a full symbol table names
// every function.

// maxGapProbe bounds the instructions decoded to accept a gap's start.
const maxGapProbe = 64

// armCover is a bitmap of the halfwords of the executable sections the
// descent decoded, one per section.
type armCover struct {
	secs []coverSec
}

type coverSec struct {
	start, end uint64 // file-backed executable bytes
	bits       []uint64
}

func newARMCover(img *image) *armCover {
	c := &armCover{}
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || !s.x || s.fsize == 0 || img.inPLT(s.addr) {
			continue
		}
		n := min(s.fsize, s.size) / 2
		c.secs = append(c.secs, coverSec{start: s.addr, end: s.addr + 2*n, bits: make([]uint64, (n+63)/64)})
	}
	sort.Slice(c.secs, func(i, j int) bool { return c.secs[i].start < c.secs[j].start })
	return c
}

func (c *armCover) sec(a uint64) *coverSec {
	i := sort.Search(len(c.secs), func(i int) bool { return c.secs[i].end > a })
	if i < len(c.secs) && a >= c.secs[i].start {
		return &c.secs[i]
	}
	return nil
}

// mark records [a, a+n) as decoded.
// markDecoded covers an instruction decoded at a, the literal it reads and
// the jump table its switch step has just read (which it then forgets).
func (c *armCover) markDecoded(a uint64, it insn, sw *armSwitch) {
	c.mark(a, uint64(it.n))
	if it.lit != 0 {
		c.mark(it.data, uint64(it.lit))
	}
	if sw.table.end > sw.table.start {
		c.mark(sw.table.start, sw.table.end-sw.table.start)
		sw.table = codeRange{}
	}
}

func (c *armCover) mark(a, n uint64) {
	s := c.sec(a)
	if s == nil {
		return
	}
	for h := (a - s.start) / 2; h < (min(a+n, s.end)-s.start+1)/2; h++ {
		s.bits[h/64] |= 1 << (h % 64)
	}
}

func (c *armCover) has(a uint64) bool {
	s := c.sec(a)
	if s == nil {
		return true // outside the sections covered: no gap
	}
	h := (a - s.start) / 2
	return s.bits[h/64]&(1<<(h%64)) != 0
}

// gaps calls fn with each maximal undecoded stretch [lo, hi).
func (c *armCover) gaps(fn func(lo, hi uint64)) {
	for i := range c.secs {
		s := &c.secs[i]
		n := (s.end - s.start) / 2
		for h := uint64(0); h < n; {
			w := s.bits[h/64] >> (h % 64)
			if w&1 != 0 {
				// skip decoded halfwords a word at a time
				run := uint64(bits.TrailingZeros64(^w))
				if run == 0 || h%64+run > 64 {
					run = 64 - h%64
				}
				h += run
				continue
			}
			lo := h
			for h < n && s.bits[h/64]&(1<<(h%64)) == 0 {
				h++
			}
			fn(s.start+2*lo, s.start+2*h)
		}
	}
}

// isPadding reports whether the halfword(s) at code are alignment padding:
// a zero halfword, Thumb nop or nop.w, ARM nop or mov r0, r0 (n: its size).
func isPadding(img *image, code []byte, a uint64) (n uint64, ok bool) {
	if len(code) >= 4 && a&3 == 0 {
		if w := img.bo.Uint32(code); w == 0xe320f000 || w == 0xe1a00000 || w == 0 {
			return 4, true
		}
	}
	if len(code) < 2 {
		return 0, false
	}
	switch h := img.bo.Uint16(code); {
	case h == 0 || h == 0xbf00:
		return 2, true
	case h == 0xf3af && len(code) >= 4 && img.bo.Uint16(code[2:]) == 0x8000:
		return 4, true
	}
	return 0, false
}

// probeCode reports whether the code at a decodes in the given mode as a
// function of its own: following its branches for up to maxGapProbe
// instructions, no undefined instruction, no branch or call out of the
// executable code, and no branch into, or fall-through into, code the
// descent decoded other than at a procedure's entry. Unreached code inside a
// function (the blocks of glibc's vfprintf that only its computed gotos
// reach, the entries of memcpy's unrolled copy that its computed jump skips)
// runs back into that function's decoded body; a function reaches another
// only at its entry.
func probeCode(img *image, data []byte, cov *armCover, procs map[uint64]bool, a uint64, thumb bool, budget *int) bool {
	if !thumb && a&3 != 0 {
		return false
	}
	if code, ok := execCode(img, data, a); !ok || !thumb && (len(code) < 4 || img.bo.Uint32(code)>>28 != 0xe) {
		return false // a function's first ARM instruction is unconditional
	}
	d := newDecoder(img)
	d.thumb = thumb
	foreign := func(t uint64) bool { return cov.sec(t) != nil && cov.has(t) && !procs[t] } // PLT stubs are no gap
	seen := map[uint64]bool{}
	work := []uint64{a}
	var resume []uint64 // after calls, last (seeds.go's descent does the same)
	pools := armPools{}
	n := 0
	for (len(work) > 0 || len(resume) > 0) && n < maxGapProbe {
		var pc uint64
		if len(work) > 0 {
			pc = work[len(work)-1]
			work = work[:len(work)-1]
		} else {
			pc, resume = popLowest(resume)
		}
		d.reset()
		for !seen[pc] && n < maxGapProbe {
			if pc != a && foreign(pc) {
				return false
			}
			if pc != a && procs[pc] {
				break // falls into a procedure's entry
			}
			code, ok := execCode(img, data, pc)
			if !ok {
				return false
			}
			seen[pc] = true
			n++
			if *budget--; *budget < 0 {
				return false
			}
			it := d.decode(code, pc, true)
			if pools.overlaps(it) {
				break
			}
			pools.note(it)
			if _, _, _, ok := thumbVeneer(img, data, pc); ok && thumb {
				break // a veneer: ARM code follows
			}
			if it.n == 0 || strings.HasPrefix(it.text, ".inst") || it.text == "(bad)" || strings.Contains(it.text, "<und>") ||
				strings.HasPrefix(it.text, "udf") || strings.HasPrefix(it.text, "bkpt") || it.flow == flowStop {
				return false
			}
			if n == 1 && it.flow == flowCondJump && !(thumb && code[1]&0xf5 == 0xb1) {
				return false // nor does it open with a branch on flags it has not set (cbz, cbnz test a register)
			}
			if it.hasTarget {
				t := it.target
				if !img.execAt(t) || foreign(t) {
					return false
				}
				if it.flow == flowJump || it.flow == flowCondJump {
					work = append(work, t)
				}
			}
			if it.flow == flowRet || it.flow == flowJump {
				break
			}
			pc += uint64(it.n)
			if it.flow == flowCall {
				resume = append(resume, pc)
				break
			}
		}
	}
	return true
}

// maxGapRetries bounds the positions tried in one gap after its first
// start is refused (literal-pool words no decoded load read, before the
// next function).
const maxGapRetries = 32

// gapSearch.next returns the start of each gap (see above) and its mode; modeAt
// gives the mode of the procedure before an address. A position whose probe
// fails in both modes is skipped by a halfword, up to maxGapRetries times.
//
// words are the code addresses data holds (armDataWords): a Thumb start
// whose address data holds without bit 0 is a computed-goto label of the
// function around it (glibc's vfprintf jump tables, in a static
// executable; Thumb function pointers have bit 0 set), covered with
// coverRegion instead (onCall takes its calls); one data holds with the
// mode's bit is a function pointer's target.
//
// The search keeps, across rounds, the positions it refused (refused) and
// the instructions its probes may still decode (budget, maxGapProbeInsns at
// first): a crafted file of nothing but undecodable gaps costs one bounded
// pass.
type gapSearch struct {
	refused map[uint64]bool
	budget  int
	rounds  int
}

// maxGapProbeInsns and maxGapRounds bound the gap search of one image.
const (
	maxGapProbeInsns = 1 << 22
	maxGapRounds     = 1 << 10
)

func newGapSearch() *gapSearch {
	return &gapSearch{refused: map[uint64]bool{}, budget: maxGapProbeInsns}
}

// exhausted reports whether the search stopped at one of its bounds.
func (g *gapSearch) exhausted() bool { return g.budget < 0 || g.rounds >= maxGapRounds }

func (g *gapSearch) next(img *image, data []byte, cov *armCover, procs map[uint64]bool, words map[uint64]bool, modeAt func(uint64) bool, onCall func(insn)) (starts []uint64, modes []bool, progress bool) {
	if g.exhausted() {
		return nil, nil, false
	}
	g.rounds++
	probe := func(a uint64, thumb bool) bool {
		return !g.refused[a] && g.budget >= 0 && probeCode(img, data, cov, procs, a, thumb, &g.budget)
	}
	cov.gaps(func(lo, hi uint64) {
		a := lo
		for try := 0; a < hi && try <= maxGapRetries; try++ {
			for a < hi {
				code, ok := execCode(img, data, a)
				if !ok {
					return
				}
				n, pad := isPadding(img, code[:min(uint64(len(code)), hi-a)], a)
				if !pad {
					break
				}
				a += n
			}
			if a >= hi {
				return
			}
			m := modeAt(a)
			if armLike(img, data, a) {
				m = false // ARM words open with the always condition
			}
			switch {
			case words[a|1] && probe(a, true):
				m = true // a Thumb function pointer's target
			case m && words[a] && !words[a|1]:
				coverRegion(img, data, cov, procs, a, true, onCall) // a label
				progress = true
				for a < hi && cov.has(a) {
					a += 2
				}
				try = 0
				continue
			case probe(a, m):
			case probe(a, !m):
				m = !m
			default:
				g.refused[a] = true
				if dataLike(img, data, a) {
					a += 4 // a table or pool word: no retry spent
					try--
					continue
				}
				a += 2
				continue
			}
			starts = append(starts, a)
			modes = append(modes, m)
			return
		}
	})
	return starts, modes, progress || len(starts) > 0
}

// armDataWords returns the aligned words of the allocated, file-backed,
// non-executable sections whose value is an address in executable code
// (bit 0 kept): the code pointers and code labels data holds, relocated or
// not (a static executable's vtables and computed-goto tables have no
// relocations).
func armDataWords(img *image, data []byte) map[uint64]bool {
	words := map[uint64]bool{}
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || s.x || s.fsize == 0 || s.off >= uint64(len(data)) {
			continue
		}
		end := min(satAdd(s.off, s.fsize), uint64(len(data)))
		for o := s.off + (4-s.addr&3)&3; o+4 <= end; o += 4 {
			if v := uint64(img.bo.Uint32(data[o:])); img.execAt(v&^1) && !img.inPLT(v&^1) {
				words[v] = true
			}
		}
	}
	return words
}

// coverRegion marks the code reachable from a (in the given mode) without
// calls as decoded, as the descent would, and reports each call in it: code
// that is no procedure of its own (a computed-goto label).
func coverRegion(img *image, data []byte, cov *armCover, procs map[uint64]bool, a uint64, thumb bool, onCall func(it insn)) {
	d := newDecoder(img)
	d.thumb = thumb
	d.code = func(a uint64) ([]byte, bool) { return execCode(img, data, a) }
	sw := &armSwitch{bo: img.bo, code: d.code}
	pools := armPools{}
	seen := map[uint64]bool{}
	work := []uint64{a}
	for n := 0; len(work) > 0 && n < maxDescentInsns; {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		d.reset()
		sw.reset()
		for n < maxDescentInsns && !seen[pc] && (pc == a || !cov.has(pc) && !procs[pc]) {
			seen[pc] = true
			code, ok := execCode(img, data, pc)
			if !ok {
				break
			}
			n++
			it := d.decode(code, pc, false)
			if pools.overlaps(it) {
				break
			}
			pools.note(it)
			work = append(work, sw.step(it, code, thumb, d.twrite)...)
			cov.markDecoded(pc, it, sw)
			if it.flow == flowCall && it.hasTarget {
				onCall(it)
			}
			if it.hasTarget && (it.flow == flowJump || it.flow == flowCondJump) {
				work = append(work, it.target)
			}
			if it.flow == flowJump || it.flow == flowRet || it.flow == flowStop {
				break
			}
			pc += uint64(it.n)
		}
	}
}

// dataLike reports whether the aligned word at a looks like data rather than
// code: a small or negative number (its high halfword 0 or 0xffff: the
// offsets of a jump table, a literal's constant) or an address of the image.
func dataLike(img *image, data []byte, a uint64) bool {
	if a&3 != 0 {
		return false
	}
	code, ok := execCode(img, data, a)
	if !ok || len(code) < 4 {
		return false
	}
	w := img.bo.Uint32(code)
	hi := w >> 16
	if hi == 0 || hi == 0xffff {
		return true
	}
	for i := range img.sections {
		if s := &img.sections[i]; s.mapped && uint64(w) >= s.addr && uint64(w) < s.end() {
			return true
		}
	}
	return false
}

// savesLR reports whether the code at a opens with a push of lr: Thumb push
// {..., lr} or stmdb sp!, {..., lr}; ARM push {..., lr} or str lr, [sp,
// #-4]!.
func savesLR(img *image, data []byte, a uint64, thumb bool) bool {
	code, ok := execCode(img, data, a)
	if !ok || len(code) < 2 {
		return false
	}
	if thumb {
		h := img.bo.Uint16(code)
		if h&0xff00 == 0xb500 {
			return true
		}
		return len(code) >= 4 && h == 0xe92d && img.bo.Uint16(code[2:])&0x4000 != 0
	}
	if len(code) < 4 {
		return false
	}
	x := img.bo.Uint32(code)
	return x&0xffff4000 == 0xe92d4000 || x == 0xe52de004
}

// armLike reports whether the code at a reads as ARM words: at least three
// of its first four aligned words carry the always condition (0xe), which
// Thumb code almost never shows in four consecutive second halfwords.
func armLike(img *image, data []byte, a uint64) bool {
	code, ok := execCode(img, data, a)
	if !ok || a&3 != 0 || len(code) < 16 {
		return false
	}
	n := 0
	for o := 0; o < 16; o += 4 {
		if img.bo.Uint32(code[o:])>>28 == 0xe {
			n++
		}
	}
	return n >= 3
}
