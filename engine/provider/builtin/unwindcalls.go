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
// of its call sites is confirmed by decoding its FDE linearly from the
// start (x86: a byte E8 may lie inside another instruction; arm64
// instructions are aligned words, so the word is the instruction).

// maxUnwindCallSites bounds the call sites kept per candidate target.
const maxUnwindCallSites = 4

// unwindCallTargets returns the confirmed targets, sorted.
func unwindCallTargets(img *image, data []byte, procs map[uint64]bool, tick func() error) ([]uint64, error) {
	info := img.elf
	if info == nil || len(info.fdes) == 0 || (img.arch != "x86" && img.arch != "x86_64" && img.arch != "arm64") {
		return nil, nil
	}
	gaps := unwindGaps(img)
	if len(gaps) == 0 {
		return nil, nil
	}
	lo, hi := gaps[0].start, gaps[len(gaps)-1].end
	inGap := func(t uint64) bool {
		if t < lo || t >= hi {
			return false
		}
		i := sort.Search(len(gaps), func(i int) bool { return gaps[i].end > t })
		return i < len(gaps) && t >= gaps[i].start
	}
	sites := map[uint64][]int{} // candidate target -> indices into info.fdes of call sites' FDEs
	siteAt := map[uint64][]uint64{}
	n := 0
	for fi, r := range info.fdes {
		code, ok := execCode(img, data, r.start)
		if !ok {
			continue
		}
		code = code[:min(uint64(len(code)), r.end-r.start)]
		keep := func(site, t uint64) {
			if t == site || procs[t] || !inGap(t) || len(sites[t]) >= maxUnwindCallSites {
				return
			}
			sites[t] = append(sites[t], fi)
			siteAt[t] = append(siteAt[t], site)
		}
		if img.arch == "arm64" {
			for o := 0; o+4 <= len(code); o += 4 {
				if n++; n&65535 == 0 {
					if err := tick(); err != nil {
						return nil, err
					}
				}
				w := img.bo.Uint32(code[o:])
				if w&0xfc000000 != 0x94000000 {
					continue
				}
				site := r.start + uint64(o)
				keep(site+4, uint64(int64(site)+sext(uint64(w&0x3ffffff)<<2, 28)))
			}
			continue
		}
		for o := 0; ; {
			i := bytes.IndexByte(code[o:], 0xe8)
			if i < 0 || o+i+5 > len(code) {
				break
			}
			if n++; n&65535 == 0 {
				if err := tick(); err != nil {
					return nil, err
				}
			}
			at := o + i
			next := r.start + uint64(at) + 5
			rel := int64(int32(binary.LittleEndian.Uint32(code[at+1:])))
			t := uint64(int64(next) + rel)
			if img.arch == "x86" {
				t &= 0xffffffff
			}
			keep(next, t) // t == next: call $+5 (get-PC), no procedure
			o = at + 1
		}
	}
	if len(sites) == 0 {
		return nil, nil
	}
	var out []uint64
	if img.arch == "arm64" {
		for t := range sites {
			out = append(out, t)
		}
		slices.Sort(out)
		return out, nil
	}
	d := newDecoder(img)
	for t, fis := range sites {
		for k, fi := range fis {
			if err := tick(); err != nil {
				return nil, err
			}
			if x86CallAt(img, data, d, info.fdes[fi], siteAt[t][k]-5, t) {
				out = append(out, t)
				break
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// x86CallAt decodes the FDE range r linearly from its start and reports
// whether an instruction starts at site and is a direct call to t.
func x86CallAt(img *image, data []byte, d *decoder, r codeRange, site, t uint64) bool {
	code, ok := execCode(img, data, r.start)
	if !ok {
		return false
	}
	d.reset()
	for a := r.start; a <= site && a < r.end; {
		off := a - r.start
		if off >= uint64(len(code)) {
			return false
		}
		it := d.decode(code[off:], a, false)
		if a == site {
			return it.flow == flowCall && it.hasTarget && it.target == t
		}
		a += uint64(it.n)
	}
	return false
}

// unwindGaps returns the parts of the mapped executable sections that no FDE
// covers, outside PLT sections (whose stubs are procedures of their own),
// sorted by start.
func unwindGaps(img *image) []codeRange {
	fdes := img.elf.fdes
	var gaps []codeRange
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || !s.x || s.size == 0 || s.fsize == 0 || img.inPLT(s.addr) {
			continue
		}
		a, end := s.addr, s.end()
		k := sort.Search(len(fdes), func(k int) bool { return fdes[k].end > a })
		for ; a < end && k < len(fdes) && fdes[k].start < end; k++ {
			if fdes[k].start > a {
				gaps = append(gaps, codeRange{a, fdes[k].start})
			}
			a = max(a, fdes[k].end)
		}
		if a < end {
			gaps = append(gaps, codeRange{a, end})
		}
	}
	slices.SortFunc(gaps, func(x, y codeRange) int {
		switch {
		case x.start < y.start:
			return -1
		case x.start > y.start:
			return 1
		}
		return 0
	})
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
