package builtin

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"

	"golang.org/x/arch/x86/x86asm"
)

// Call targets from unwind-covered code. The call-target descent of
// seeds.go never decodes code that an .eh_frame FDE describes (the FDEs
// already name those procedures), so a function without an FDE that only
// FDE-covered code calls (the i386 __x86.get_pc_thunk.bx of a static
// executable, with hundreds of call sites; hand-written assembly helpers)
// would stay unnamed. Decoding every FDE would cost a full disassembly of
// the image at index time, so the call encoding is searched for instead (x86
// E8 rel32, arm64 BL), and a target is kept only when it lies in executable
// code outside every FDE and PLT section and is no known procedure; then one
// of its call sites is confirmed by decoding the FDEs holding its call
// sites linearly from their start (x86: a byte E8 may lie inside another
// instruction; arm64 instructions are aligned words, so the word is the
// instruction).

// maxUnwindCallSites bounds the call sites kept per candidate target,
// maxUnwindTargets the candidates, maxUnwindVerifyInsns the instructions
// decoded to confirm them (a crafted file could make every byte a call).
const (
	maxUnwindCallSites   = 4
	maxUnwindTargets     = maxSeedProcs
	maxUnwindVerifyInsns = 1 << 20
)

// unwindCallTargets returns the confirmed targets, sorted; covered is the
// code the call-target descent decoded, which is no gap either, nor are
// the extents of sized procedure symbols. Where the FDEs, the descent and
// the symbols leave nothing but padding (libLLVM-14: all of its 30 MB of
// code), or the file has a .symtab, nothing is searched.
func unwindCallTargets(img *image, data []byte, syms []symbol, procs map[uint64]bool, covered []codeRange, tick func() error) (targets []uint64, truncated bool, err error) {
	info := img.elf
	if info == nil || len(info.fdes) == 0 || (img.arch != "x86" && img.arch != "x86_64" && img.arch != "arm64") {
		return nil, false, nil
	}
	for _, t := range info.tables {
		if !t.dynamic {
			// A .symtab names the functions without an FDE itself (node:
			// OpenSSL's tables in .text would make the search run for
			// nothing); the search is for stripped files.
			return nil, false, nil
		}
	}
	gaps := unwindGaps(img, data, mergeRanges(info.fdes, covered))
	if len(gaps) > 0 {
		gaps = minusSymbols(img, data, gaps, syms)
	}
	if len(gaps) == 0 {
		return nil, false, nil
	}
	// A page map of the gaps rejects most call targets in O(1).
	lo, hi := gaps[0].start, gaps[len(gaps)-1].end
	shift := uint(12)
	for (hi-lo)>>shift > 1<<16 { // sections far apart: coarser pages
		shift++
	}
	pages := make([]bool, (hi-lo)>>shift+1)
	for _, g := range gaps {
		for p := (g.start - lo) >> shift; p <= (g.end-1-lo)>>shift; p++ {
			pages[p] = true
		}
	}
	inGap := func(t uint64) bool {
		if t < lo || t >= hi || !pages[(t-lo)>>shift] {
			return false
		}
		i := sort.Search(len(gaps), func(i int) bool { return gaps[i].end > t })
		return i < len(gaps) && t >= gaps[i].start
	}
	sites := map[uint64][]int{} // candidate target -> indices into info.fdes of call sites' FDEs
	siteAt := map[uint64][]uint64{}
	keep := func(fi int, site, t uint64) {
		if t == site || !inGap(t) || procs[t] || len(sites[t]) >= maxUnwindCallSites {
			return
		}
		if _, seen := sites[t]; !seen && len(sites) >= maxUnwindTargets {
			truncated = true
			return
		}
		sites[t] = append(sites[t], fi)
		siteAt[t] = append(siteAt[t], site)
	}
	n := 0
	fdes := info.fdes
	for si := range img.sections {
		sec := &img.sections[si]
		if !sec.mapped || !sec.x || sec.fsize == 0 || sec.off >= uint64(len(data)) || img.inPLT(sec.addr) {
			continue
		}
		secCode := data[sec.off:min(satAdd(sec.off, sec.fsize), uint64(len(data)))]
		secEnd := sec.addr + uint64(len(secCode))
		fi := sort.Search(len(fdes), func(k int) bool { return fdes[k].start >= sec.addr })
		for ; fi < len(fdes) && fdes[fi].start < secEnd; fi++ {
			r := fdes[fi]
			if n++; n&1023 == 0 {
				if err := tick(); err != nil {
					return nil, false, err
				}
			}
			code := secCode[r.start-sec.addr : min(r.end, secEnd)-sec.addr]
			if img.arch == "arm64" {
				for o := 0; o+4 <= len(code); o += 4 {
					w := img.bo.Uint32(code[o:])
					if w&0xfc000000 != 0x94000000 {
						continue
					}
					site := r.start + uint64(o)
					keep(fi, site+4, uint64(int64(site)+sext(uint64(w&0x3ffffff)<<2, 28)))
				}
				continue
			}
			for o := 0; ; {
				i := bytes.IndexByte(code[o:], 0xe8)
				if i < 0 || o+i+5 > len(code) {
					break
				}
				at := o + i
				next := r.start + uint64(at) + 5
				t := uint64(int64(next) + int64(int32(binary.LittleEndian.Uint32(code[at+1:]))))
				if img.arch == "x86" {
					t &= 0xffffffff
				}
				keep(fi, next, t) // t == next: call $+5 (get-PC), no procedure
				o = at + 1
			}
		}
	}
	if len(sites) == 0 {
		return nil, truncated, nil
	}
	var out []uint64
	if img.arch == "arm64" {
		for t := range sites {
			out = append(out, t)
		}
		slices.Sort(out)
		return out, truncated, nil
	}
	// Decode each FDE holding a candidate site once, within a budget.
	var todo []int
	for _, fis := range sites {
		todo = append(todo, fis...)
	}
	slices.Sort(todo)
	todo = slices.Compact(todo)
	calls := map[uint64]uint64{} // call instruction's end -> target
	d := newDecoder(img)
	budget := maxUnwindVerifyInsns
	for _, fi := range todo {
		r := info.fdes[fi]
		code, ok := execCode(img, data, r.start)
		if !ok {
			continue
		}
		d.reset()
		for a := r.start; a < r.end && a-r.start < uint64(len(code)); {
			if budget--; budget < 0 {
				truncated = true
				break
			}
			if budget&4095 == 0 {
				if err := tick(); err != nil {
					return nil, false, err
				}
			}
			it := d.decode(code[a-r.start:], a, false)
			if it.flow == flowCall && it.hasTarget {
				calls[a+uint64(it.n)] = it.target
			}
			a += uint64(it.n)
		}
	}
	for t := range sites {
		for _, next := range siteAt[t] {
			if c, ok := calls[next]; ok && c == t {
				out = append(out, t)
				break
			}
		}
	}
	slices.Sort(out)
	return out, truncated, nil
}

// mergeRanges returns the union of sorted (FDE) ranges x and unsorted y
// as sorted, disjoint ranges.
func mergeRanges(x, y []codeRange) []codeRange {
	y = slices.Clone(y)
	sortRanges(y)
	out := make([]codeRange, 0, len(x)+len(y))
	add := func(r codeRange) {
		if n := len(out); n > 0 && r.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, r.end)
			return
		}
		out = append(out, r)
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		if j == len(y) || i < len(x) && x[i].start <= y[j].start {
			add(x[i])
			i++
		} else {
			add(y[j])
			j++
		}
	}
	return out
}

func sortRanges(rs []codeRange) {
	slices.SortFunc(rs, func(p, q codeRange) int {
		switch {
		case p.start < q.start:
			return -1
		case p.start > q.start:
			return 1
		}
		return 0
	})
}

// minusSymbols removes from the gaps the extents of sized procedure symbols
// (code a symbol table describes is no unknown code), dropping what is left
// as padding; only the symbols that meet a gap are collected.
func minusSymbols(img *image, data []byte, gaps []codeRange, syms []symbol) []codeRange {
	var in []codeRange
	for i := range syms {
		s := &syms[i]
		if s.flags&flagProcedure == 0 || s.size == 0 {
			continue
		}
		end := satAdd(s.addr, s.size)
		k := sort.Search(len(gaps), func(k int) bool { return gaps[k].end > s.addr })
		if k < len(gaps) && gaps[k].start < end {
			in = append(in, codeRange{s.addr, end})
		}
	}
	if len(in) == 0 {
		return gaps
	}
	known := mergeRanges(nil, in)
	var out []codeRange
	piece := func(lo, hi uint64) {
		if code, ok := execCode(img, data, lo); ok && hi-lo <= uint64(len(code)) && paddingOnly(img, code[:hi-lo]) {
			return
		}
		out = append(out, codeRange{lo, hi})
	}
	for _, g := range gaps {
		a := g.start
		k := sort.Search(len(known), func(k int) bool { return known[k].end > a })
		for ; a < g.end && k < len(known) && known[k].start < g.end; k++ {
			if known[k].start > a {
				piece(a, known[k].start)
			}
			a = max(a, known[k].end)
		}
		if a < g.end {
			piece(a, g.end)
		}
	}
	return out
}

// unwindGaps returns the parts of the mapped executable sections that no
// known range covers and that hold more than padding, outside PLT sections
// (whose stubs are procedures of their own), sorted by start. Alignment
// padding between FDEs holds no function: most gaps of a large image are
// padding.
func unwindGaps(img *image, data []byte, known []codeRange) []codeRange {
	var gaps []codeRange
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || !s.x || s.size == 0 || s.fsize == 0 || s.off >= uint64(len(data)) || img.inPLT(s.addr) {
			continue
		}
		code := data[s.off:min(satAdd(s.off, s.fsize), uint64(len(data)))]
		a, end := s.addr, s.addr+uint64(len(code))
		gap := func(lo, hi uint64) {
			if !paddingOnly(img, code[lo-s.addr:hi-s.addr]) {
				gaps = append(gaps, codeRange{lo, hi})
			}
		}
		k := sort.Search(len(known), func(k int) bool { return known[k].end > a })
		for ; a < end && k < len(known) && known[k].start < end; k++ {
			if known[k].start > a {
				gap(a, known[k].start)
			}
			a = max(a, known[k].end)
		}
		if a < end {
			gap(a, end)
		}
	}
	sortRanges(gaps)
	return gaps
}

// fdePaddingStart returns where the code of the x86 FDE range r begins: an
// FDE opened before the function's alignment (glibc's hand-written
// `cfi_startproc; .align 16`, and its signal restorers, whose FDE starts at
// the nop before __restore_rt so that an unwinder looking up pc-1 finds it)
// starts with padding. When r starts unaligned with nothing but NOPs up to
// the next 16-byte boundary inside r, the function starts at that boundary.
func fdePaddingStart(img *image, data []byte, r codeRange) uint64 {
	if (img.arch != "x86" && img.arch != "x86_64") || r.start%16 == 0 {
		return r.start
	}
	aligned := (r.start + 15) &^ 15
	if aligned >= r.end {
		return r.start
	}
	code, ok := execCode(img, data, r.start)
	if !ok {
		return r.start
	}
	mode := 64
	if img.arch == "x86" {
		mode = 32
	}
	for a := r.start; a < aligned; {
		if a-r.start >= uint64(len(code)) {
			return r.start
		}
		in, err := x86asm.Decode(code[a-r.start:], mode)
		if err != nil || !x86Padding(in) {
			return r.start
		}
		a += uint64(in.Len)
		if a > aligned {
			return r.start
		}
	}
	return aligned
}

// paddingOnly reports whether code holds nothing but padding: x86 NOPs,
// int3 or zero bytes; arm64 nop or zero words.
func paddingOnly(img *image, code []byte) bool {
	if len(code) > 64 {
		return false
	}
	switch img.arch {
	case "arm64":
		for o := 0; o+4 <= len(code); o += 4 {
			if w := img.bo.Uint32(code[o:]); w != 0xd503201f && w != 0 { // nop, or zero fill
				return false
			}
		}
		return len(code)%4 == 0
	case "x86", "x86_64":
		// The bytes of the NOP forms assemblers pad with (0x90, 66 90,
		// 0f 1f /0 with prefixes and displacements, i386's lea and mov
		// no-ops): code that does something has other bytes, at least its
		// ret or jump.
		for _, c := range code {
			if !x86PadByte[c] {
				return false
			}
		}
		return true
	}
	return false
}

var x86PadByte = func() (m [256]bool) {
	for _, c := range []byte{0x00, 0x0f, 0x1f, 0x26, 0x27, 0x2e, 0x36, 0x40, 0x44, 0x66, 0x74, 0x76, 0x80, 0x84, 0x89, 0x8d, 0x90, 0xb4, 0xb6, 0xbc, 0xbf, 0xcc, 0xf6} {
		m[c] = true
	}
	return m
}()

// x86Padding reports the instructions assemblers emit as padding: nop (all
// lengths), xchg ax,ax and the i386 no-op lea reg,[reg(+eiz)+0].
func x86Padding(in x86asm.Inst) bool {
	switch in.Op {
	case x86asm.NOP:
		return true
	case x86asm.XCHG:
		return in.Args[0] == x86asm.AX && in.Args[1] == x86asm.AX
	case x86asm.LEA:
		r, ok := in.Args[0].(x86asm.Reg)
		m, okm := in.Args[1].(x86asm.Mem)
		return ok && okm && m.Base == r && m.Disp == 0 && (m.Index == 0 || m.Index == x86asm.ESP && m.Scale == 1) && m.Segment == 0
	}
	return false
}
