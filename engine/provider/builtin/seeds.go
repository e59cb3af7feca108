package builtin

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
)

// ELF code that .eh_frame does not describe (crtstuff's frame_dummy,
// __do_global_dtors_aux, register_tm_clones and deregister_tm_clones have no
// FDE) is found from two more sources, both bounded:
//
//   - "init-array": the code pointers of .preinit_array, .init_array and
//     .fini_array (the values stored in the file; a pointer that is zero or
//     outside executable sections is ignored), and the dynamic section's
//     DT_INIT and DT_FINI (_init and _fini, whose aarch64 crti code calls
//     call_weak_fn, a function without an FDE);
//   - "call-targets": recursive descent (x86, x86_64, arm64) from the entry
//     point and those pointers when no FDE covers them, following branches
//     and collecting direct call targets and tail jumps (an unconditional
//     direct jump to below the procedure's entry); each target not covered
//     by an FDE and not already a procedure becomes one and is descended in
//     turn. Code described by FDEs is never descended: FDEs already name it.
//
// arm ELF (no .eh_frame FDEs: arm unwinds through .ARM.exidx) adds:
//
//   - "arm-exidx": the function starts of .ARM.exidx (after any padding
//     they open on: armSkipPadding); the table gives no mode, so a start
//     takes the mode of a call that reaches it, Thumb if it is at 2 mod 4,
//     else the mode of the nearest procedure before it whose mode is known
//     (inferredMode, which armMode reads back with its limitation);
//   - "relative-relocs": the code pointers R_ARM_RELATIVE relocations store
//     (function pointer tables of a PIE or shared object);
//   - in the descent, which runs from every function symbol too, each
//     procedure decodes in its own mode: a bl or b target keeps it, a blx
//     immediate switches it, a Thumb-to-ARM veneer (bx pc) or an ldr pc,
//     [pc, #imm] veneer tail-calls in the mode it gives, and a code address
//     formed pc-relative (ldr rT, =off; add rD, pc, rT) is a procedure whose
//     bit 0 gives its mode (from Thumb code only with bit 0 set: without it,
//     it is a label, followed as a branch when an orr rD, #1 makes it a
//     computed jump). Bit 0 of an init/fini pointer, DT_INIT and DT_FINI is
//     the Thumb bit; the start of a static executable's .init and .fini has
//     no mode and is not descended. A procedure of known extent (a sized
//     symbol) is decoded linearly over it, as code.go does; one of unknown
//     extent by descent, following jump tables (armswitch.go), decoding
//     the code after a call last and never the literal-pool words its loads
//     read. A tail call is a branch below the entry, a branch out of a known
//     extent, a forward branch over another procedure's entry or to a push
//     of lr; with a full .symtab, only to a symbol. A call into a known
//     extent, or to code that the code before it falls into, makes no
//     procedure (a second entry);
//   - "code-gaps" (stripped images only): the code the descent left
//     undecoded, searched a round at a time (armgaps.go).
//
// x86, x86_64 and arm64 ELF without a full symbol table, Go function table
// or unwind tables for most of the code add "code-gaps" (elfgaps.go): the
// descent reads the jump tables it meets, then code pointers that
// relocations and data hold and the code left undecoded seed more
// procedures, a round at a time.
//
// New procedures are named sub_<hex>, source analysis, with no size.

// armJump is a direct jump of arm code at site to target, in Thumb code
// when thumb.
type armJump struct {
	site, target uint64
	thumb        bool
}

// maxSeedInsns and maxSeedProcs bound the call-target descent of one image.
const (
	maxSeedInsns = 1 << 16
	maxSeedProcs = 1 << 12
)

// elfInitArrays returns the code pointers of the init/fini arrays.
func elfInitArrays(img *image, data []byte) []uint64 {
	var out []uint64
	ps := uint64(4)
	if img.is64 {
		ps = 8
	}
	for i := range img.sections {
		s := &img.sections[i]
		switch s.name {
		case ".preinit_array", ".init_array", ".fini_array":
		default:
			continue
		}
		if s.fsize == 0 || s.off >= uint64(len(data)) {
			continue
		}
		end := min(satAdd(s.off, s.fsize), uint64(len(data)))
		for o := s.off; o+ps <= end && len(out) < maxSeedProcs; o += ps {
			var v uint64
			if ps == 8 {
				v = img.bo.Uint64(data[o:])
			} else {
				v = uint64(img.bo.Uint32(data[o:]))
			}
			if v, ok := codePointer(img, v); ok {
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// elfInitFini adds the DT_INIT and DT_FINI code pointers, and the starts of
// the .init and .fini sections (a static executable has no dynamic section;
// crti.o opens both sections with _init and _fini), to inits (sorted,
// unique). It returns the names of those addresses: DT_INIT is by
// definition the function ld's -init names, _init by default.
func elfInitFini(f *elf.File, img *image, inits []uint64) ([]uint64, map[uint64]string) {
	names := map[uint64]string{}
	add := func(v uint64, name string) {
		if v, ok := codePointer(img, v); ok && len(inits) < maxSeedProcs {
			inits = append(inits, v)
			if _, dup := names[v]; !dup {
				names[v] = name
			}
		}
	}
	for _, tag := range []elf.DynTag{elf.DT_INIT, elf.DT_FINI} {
		vs, err := f.DynValue(tag)
		if err != nil {
			break
		}
		for _, v := range vs {
			add(v, map[elf.DynTag]string{elf.DT_INIT: "_init", elf.DT_FINI: "_fini"}[tag])
		}
	}
	for i := range img.sections {
		if s := &img.sections[i]; s.mapped && s.x && s.size > 0 && (s.name == ".init" || s.name == ".fini") {
			if img.elf.machine == elf.EM_ARM {
				if _, known := img.elf.initMode[s.addr]; !known && img.execAt(s.addr) && len(inits) < maxSeedProcs {
					// A section start, not a pointer: no bit gives its mode
					// (thumbmode.go's armMode decides it).
					inits = append(inits, s.addr)
					if _, dup := names[s.addr]; !dup {
						names[s.addr] = "_" + s.name[1:]
					}
				}
				continue
			}
			add(s.addr, "_"+s.name[1:])
		}
	}
	slices.Sort(inits)
	return slices.Compact(inits), names
}

// codePointer checks a code pointer read from the file: nonzero, not ^0,
// in an executable section. On arm its bit 0 is the Thumb bit: it is cleared
// and the mode recorded in initMode.
func codePointer(img *image, v uint64) (uint64, bool) {
	if v == 0 || v == ^uint64(0) {
		return 0, false
	}
	info := img.elf
	if info.machine == elf.EM_ARM {
		thumb := v&1 != 0
		v &^= 1
		if !thumb && v&2 != 0 || !img.execAt(v) {
			// ARM code is 4-aligned: at 2 mod 4 without the Thumb bit
			// the word points at no function (a Thumb label's address).
			return 0, false
		}
		if info.initMode == nil {
			info.initMode = map[uint64]bool{}
		}
		info.initMode[v] = thumb
		return v, true
	}
	return v, img.execAt(v)
}

// armExidx returns the function starts of the .ARM.exidx sections (the ARM
// EHABI index: 8-byte entries, a prel31 offset to the function's start and
// its unwind data or an EXIDX_CANTUNWIND). The table gives no mode.
func armExidx(img *image, data []byte) []uint64 {
	var out []uint64
	for i := range img.sections {
		s := &img.sections[i]
		if s.name != ".ARM.exidx" || !s.mapped || s.fsize == 0 || s.off >= uint64(len(data)) {
			continue
		}
		end := min(satAdd(s.off, s.fsize), uint64(len(data)))
		for o := s.off; o+8 <= end && len(out) < maxSeedProcs; o += 8 {
			w := img.bo.Uint32(data[o:])
			if w&(1<<31) != 0 {
				continue // bit 31 is zero in a prel31 word
			}
			a := uint64(uint32(int64(s.addr+(o-s.off)) + sext(uint64(w), 31)))
			if a, ok := armSkipPadding(img, data, a); ok && img.execAt(a) {
				out = append(out, a)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// armSkipPadding returns where the code of an .ARM.exidx range starting at a
// begins: an entry may open on padding — the EXIDX_CANTUNWIND entry ld adds
// after a section's last function lands on its zero fill; glibc's signal
// restorers open their unwind range with nops before the function, as on
// x86 (fdePaddingStart) — so zero halfwords and nops (Thumb nop and nop.w,
// ARM nop and mov r0, r0) are skipped, up to 16 bytes. A range of nothing
// but padding has no function (ok false).
func armSkipPadding(img *image, data []byte, a uint64) (uint64, bool) {
	code, ok := execCode(img, data, a)
	if !ok {
		return a, true
	}
	o := 0
	for o < 16 && o+2 <= len(code) {
		if o+4 <= len(code) && (a+uint64(o))&3 == 0 {
			if w := img.bo.Uint32(code[o:]); w == 0xe320f000 || w == 0xe1a00000 {
				o += 4
				continue
			}
		}
		h := img.bo.Uint16(code[o:])
		switch {
		case h == 0 || h == 0xbf00:
			o += 2
			continue
		case h == 0xf3af && o+4 <= len(code) && img.bo.Uint16(code[o+2:]) == 0x8000:
			o += 4
			continue
		}
		return a + uint64(o), true
	}
	return a, o == 0
}

// armRelativePointers returns the code pointers that R_ARM_RELATIVE
// relocations store (a PIE's or shared object's function pointer tables;
// REL: the stored word is the addend), bit 0 the Thumb bit (codePointer).
// A word with bit 0 clear at 2 mod 4 points at no function (ARM code is
// 4-aligned, a Thumb function's pointer has bit 0 set; codePointer refuses
// it): it is a label of Thumb code, whose address GCC's &&label gives
// without bit 0 (CPython's opcode_targets, the computed-goto table of
// _PyEval_EvalFrameDefault). So is every bit-0-clear word of the same table
// (a run of consecutive relocated words), at 0 mod 4 too: decoded as ARM,
// those labels were procedures of garbage whose calls led outside the code.
func armRelativePointers(img *image, data []byte) []uint64 {
	type word struct{ off, v uint64 }
	var words []word
	_ = eachDynReloc(img, data, func(dr dynReloc, rela bool) (bool, error) {
		if relocKind(img.elf.machine, dr.typ) != relocRelative {
			return true, nil
		}
		v := uint64(uint32(dr.addend))
		if !rela {
			w, ok := elfWordAt(img, data, dr.off) // a 32-bit word on arm
			if !ok {
				return true, nil
			}
			v = w
		}
		if img.execAt(v &^ 1) {
			words = append(words, word{dr.off, v})
		}
		return len(words) < maxSeedProcs, nil
	})
	slices.SortFunc(words, func(x, y word) int { return cmp.Compare(x.off, y.off) })
	var out []uint64
	for i := 0; i < len(words); {
		j, labels := i+1, words[i].v&3 == 2
		for ; j < len(words) && words[j].off == words[j-1].off+4; j++ {
			labels = labels || words[j].v&3 == 2
		}
		for _, w := range words[i:j] {
			if labels && w.v&1 == 0 {
				continue
			}
			if v, ok := codePointer(img, w.v); ok {
				out = append(out, v)
			}
		}
		i = j
	}
	return out
}

// codeBytes is the size of the file-backed executable sections.
func codeBytes(img *image) uint64 {
	var n uint64
	for i := range img.sections {
		if s := &img.sections[i]; s.mapped && s.x {
			n += s.fsize
		}
	}
	return n
}

// pcRelAdd reports whether code starts with an arm add of the pc and a
// register (the instruction whose data reference is the address formed).
func pcRelAdd(code []byte, thumb bool) bool {
	if thumb {
		return len(code) >= 2 && binary.LittleEndian.Uint16(code)&0xff78 == 0x4478
	}
	return len(code) >= 4 && binary.LittleEndian.Uint32(code)&0x0fe00ff0 == 0x00800000
}

// seedDescentArch reports whether call-target descent runs for the image.
func seedDescentArch(img *image) bool {
	if img.elf == nil {
		return false
	}
	switch img.arch {
	case "x86", "x86_64", "arm64", "arm":
		return true
	}
	return false
}

// execCode returns the file bytes of the executable section containing a,
// from a to the section's file-backed end.
func execCode(img *image, data []byte, a uint64) ([]byte, bool) {
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || !s.x || a < s.addr || a >= s.end() {
			continue
		}
		rel := a - s.addr
		if rel >= s.fsize {
			return nil, false
		}
		off := s.off + rel
		end := min(satAdd(s.off, s.fsize), uint64(len(data)))
		if off >= end {
			return nil, false
		}
		return data[off:end], true
	}
	return nil, false
}

// inFDE reports whether a lies in some FDE range (sorted by start).
func inFDE(fdes []codeRange, a uint64) bool {
	i := sort.Search(len(fdes), func(i int) bool { return fdes[i].start > a })
	// fdes[i-1] is the last range starting at or below a; FDE ranges of one
	// image do not nest, but check a few before it in case they overlap.
	for k := i - 1; k >= 0 && k >= i-4; k-- {
		if a >= fdes[k].start && a < fdes[k].end {
			return true
		}
	}
	return false
}

// addSeedProcs adds the init/fini array pointers and the call targets found
// by descent from code no FDE covers (see the comment above), descending
// also from mains (main, located by mainentry.go).
func addSeedProcs(img *image, b *symBuilder, mains []uint64) error {
	info := img.elf
	if len(info.inits) == 0 && len(info.exidx) == 0 && !(info.callTargets && (img.hasEntry || len(mains) > 0)) {
		return nil
	}
	procs := map[uint64]bool{}
	// arm: each procedure decodes in its own mode. thumb holds the mode of
	// the procedures whose mode is known (a symbol's bit 0, e_entry's, an
	// init pointer's, the call that reached it); one of unknown mode is not
	// descended.
	arm := info.machine == elf.EM_ARM
	thumb := map[uint64]bool{}
	var symSeeds []uint64
	sized := map[uint64]uint64{} // arm: the end of each procedure of known extent
	for i := range b.syms {
		s := &b.syms[i]
		if s.flags&flagProcedure == 0 {
			continue
		}
		procs[s.addr] = true
		if arm && s.flags&flagThunk == 0 {
			// No FDE covers arm code: every function symbol seeds descent.
			thumb[s.addr] = s.flags&flagThumb != 0
			symSeeds = append(symSeeds, s.addr)
			if s.size > 0 {
				sized[s.addr] = max(sized[s.addr], satAdd(s.addr, s.size))
			}
		}
	}
	symtab := false // a full symbol table (.symtab) names every function
	for _, t := range info.tables {
		symtab = symtab || !t.dynamic
	}
	gapPhase := false   // arm, stripped: the descent is decoding gaps
	var gaps *gapSearch // arm, stripped: the search of gaps (armgaps.go)
	gapLimit := false
	var words map[uint64]bool // arm, stripped: the code addresses data holds
	var cov *armCover         // arm, stripped: what the descent decoded (armgaps.go)
	if arm && !symtab {
		cov = newARMCover(img)
	}
	var extents []codeRange // arm: the known extents, by start
	for a, end := range sized {
		extents = append(extents, codeRange{a, end})
	}
	sortRanges(extents)
	if arm {
		for a, t := range info.initMode {
			thumb[a] = t
		}
		if img.hasEntry {
			thumb[img.entry] = info.entryThumb
		}
	}
	add := func(a uint64, isThumb, modeKnown bool) {
		procs[a] = true
		if img.hasEntry && a == img.entry {
			return // named "entry" already
		}
		name, ok := info.initNames[a]
		if !ok {
			name = fmt.Sprintf("sub_%x", a)
		}
		s := symbol{addr: a, kind: kindFunction, source: srcAnalysis,
			flags: flagProcedure, rank: makeRank(srcAnalysis, kindFunction, bindGlobal)}
		if isThumb {
			s.flags |= flagThumb
		}
		if modeKnown {
			s.flags |= flagMode
		}
		b.addArena(s, name)
	}
	// .ARM.exidx starts bound the descent's walks at once; their symbols
	// are added at the end, in the mode a call gave them (or a start at 2
	// mod 4, which only Thumb code can have), else in armMode's inferred one.
	var exidx []uint64
	for _, a := range info.exidx {
		if !procs[a] {
			procs[a] = true
			exidx = append(exidx, a)
		}
		if a&2 != 0 {
			thumb[a] = true
		}
	}
	flush := func() {
		for _, a := range exidx {
			t, known := thumb[a]
			if _, inferred := info.inferredMode[a]; inferred {
				t, known = false, false // armMode reads the inference
			}
			add(a, t, known)
		}
	}
	var work []uint64
	work = append(work, info.exidx...)
	for _, a := range info.inits {
		if !procs[a] {
			t, known := thumb[a]
			add(a, arm && t, arm && known)
		}
		work = append(work, a)
	}
	if !info.callTargets {
		flush()
		return nil
	}
	if img.hasEntry {
		work = append(work, img.entry)
	}
	work = append(work, mains...)
	slices.Sort(symSeeds)
	work = append(work, slices.Compact(symSeeds)...)
	d := newDecoder(img)
	d.code = func(a uint64) ([]byte, bool) { return execCode(img, b.data, a) } // arm literal pools
	sw := &armSwitch{bo: img.bo, code: d.code}
	// arm descends from every function symbol (no FDE covers any code), so
	// its bounds grow with the code: one Thumb instruction per 2 bytes, one
	// procedure per 16.
	maxInsns, maxProcs := maxSeedInsns, maxSeedProcs
	// x86, x86_64 and arm64 without unwind tables or symbols search data
	// and gaps (elfgaps.go): their bounds grow with the code as arm's do.
	gapsOn := !arm && elfGapsOn(img, symtab)
	if arm || gapsOn {
		n := codeBytes(img)
		maxInsns, maxProcs = max(maxInsns, int(min(n/2, 1<<26))), max(maxProcs, int(min(n/16, 1<<22)))
	}
	caseTarget := map[uint64]bool{} // gapsOn: the targets of the jump tables read
	var got uint64                  // gapsOn, i386: the GOT register's value
	if gapsOn && img.arch == "x86" {
		got = elfGOT(img)
	}
	dataSeeded, gapRounds := false, 0
	pie, wordsSeeded := false, false // gapsOn: R_*_RELATIVE relocations exist; data words were read
	gapBudget := maxInsns * 4        // gapsOn: the instructions the gap probes may decode
	gapTried := map[uint64]bool{}    // gapsOn: the gap starts probed
	gapMark := 0                     // gapsOn: covered[gapMark:] was decoded since the last round
	budget := maxInsns
	byCall := map[uint64]bool{} // arm: procedures only a call made
	fall := map[uint64]bool{}   // arm: addresses decoded code falls through to
	done := map[uint64]bool{}
	var covered []codeRange // the instructions descent decoded
	searched := false
	var fwd []armJump     // arm: forward jumps to no known procedure
	var deferred []uint64 // arm: procedures of unknown mode
	defer func() {
		if len(work) > 0 && (budget <= 0 || len(done) >= maxProcs) {
			b.limit(fmt.Sprintf("call-target descent stopped at its bound (%d instructions, %d procedures): procedures reached only beyond it are missing", maxInsns, maxProcs))
		}
	}()
	// more: the descent has work and may still do it. Every later phase
	// goes back to the descent only then: work left beyond the bounds would
	// send it round forever (the ARM gap search keeps adding to work).
	more := func() bool { return len(work) > 0 && budget > 0 && len(done) < maxProcs }
descend:
	for more() {
		entry := work[len(work)-1]
		work = work[:len(work)-1]
		if done[entry] || inFDE(info.fdes, entry) {
			continue
		}
		mode, known := thumb[entry]
		if arm && !known {
			deferred = append(deferred, entry) // a mode neither a bit nor a call gives: inferred at the end
			continue
		}
		done[entry] = true
		d.thumb = mode
		// call records a call (or tail call) from code of the procedure
		// at entry to t, in the mode the instruction gives.
		call := func(it insn, t uint64) {
			tmode := mode != it.toggle // blx imm switches the mode
			if arm && it.flow != flowCall && symtab && !procs[t] {
				// A branch out of a procedure to code no symbol of a full
				// symbol table names: a local label of hand-written
				// assembly (glibc's strcmp branches back to code before its
				// symbol), where a tail call would reach a function symbol.
				return
			}
			if gapPhase && it.flow != flowCall && cov.has(t) && !procs[t] {
				// From code found in a gap, a branch into code the descent
				// decoded as another procedure's body: that body goes on
				// here, no tail call.
				return
			}
			if arm && sized[t] == 0 && inFDE(extents, t) {
				// Inside a procedure of known extent, not at its start: a
				// second entry of it (libgcc's __aeabi_idivmod calls
				// .divsi3_skip_div0_test, inside __divsi3), no procedure.
				return
			}
			if !procs[t] && img.execAt(t) && !inFDE(info.fdes, t) && !img.inPLT(t) /* an arm call may enter a stub past its Thumb prefix */ {
				add(t, arm && tmode, arm)
				if arm {
					byCall[t] = true
				}
			}
			if _, known := thumb[t]; arm && !known && procs[t] {
				thumb[t] = tmode
			}
			if procs[t] {
				work = append(work, t)
			}
		}
		// formed records a code address formed pc-relative (ldr rT, =off;
		// add rD, pc, rT): a function pointer, bit 0 its mode.
		formed := func(it insn) {
			// Thumb code forms a Thumb function's address with bit 0 set;
			// one without is data or a label (glibc's vfprintf forms its
			// computed-goto labels, then sets bit 0), as is an address
			// inside the procedure's own known extent.
			if it.data >= entry && it.data < sized[entry] {
				return
			}
			if mode && it.data&1 == 0 {
				return
			}
			if t, ok := codePointer(img, it.data); ok && (it.data&1 != 0 || t&3 == 0) && !img.inPLT(t) {
				if !procs[t] {
					add(t, it.data&1 != 0, true)
				}
				work = append(work, t)
			}
		}
		if end := sized[entry]; arm && end > entry {
			// A procedure of known extent is decoded linearly over it, as
			// code.go decodes it: its code that no branch reaches (C++
			// landing pads, which only the unwinder enters) calls too, and
			// a branch out of the extent is a tail call.
			d.reset()
			for a := entry; a < end && budget > 0; {
				if err := b.tick(); err != nil {
					return err
				}
				if e, ok := info.dataEnd(a); ok {
					a = max(e, a+1)
					d.reset()
					continue
				}
				code, ok := execCode(img, b.data, a)
				if !ok {
					break
				}
				budget--
				it := d.decode(code[:min(uint64(len(code)), end-a)], a, false)
				if cov != nil {
					cov.mark(a, uint64(it.n))
				}
				if _, label := thumbLabel(it, code); !label && it.hasData && pcRelAdd(code, mode) {
					formed(it)
				}
				switch {
				case !it.hasTarget:
				case it.flow == flowCall && it.target != a+uint64(it.n):
					call(it, it.target)
				case (it.flow == flowJump || it.flow == flowCondJump) && (it.target < entry || it.target >= end):
					call(it, it.target)
				}
				a += uint64(it.n)
			}
			continue
		}
		seen := map[uint64]bool{}
		branches := []uint64{entry}
		var lastData uint64  // gapsOn: the last data address the procedure's code named
		var lastBound uint64 // gapsOn: the entries of the last range check (x86CmpBound)
		var a64sw a64Switch  // gapsOn, arm64: the jump table being indexed
		// arm: the code after a call is decoded last, once the rest of the
		// procedure has shown which words its loads read as literal-pool
		// data (the call may not return: bl __stack_chk_fail is followed
		// by the pool, not by code).
		var resume []uint64
		pools := armPools{}
		for (len(branches) > 0 || len(resume) > 0) && budget > 0 {
			afterCall := false
			var a uint64
			if len(branches) > 0 {
				a = branches[len(branches)-1]
				branches = branches[:len(branches)-1]
			} else {
				a, resume = popLowest(resume)
				afterCall = true
			}
			d.reset()
			sw.reset()
			for !seen[a] && budget > 0 && (a == entry || !procs[a]) {
				if err := b.tick(); err != nil {
					return err
				}
				if arm && info.inData(a) {
					break // a literal pool or other data in code ($d)
				}
				code, ok := execCode(img, b.data, a)
				if !ok {
					break
				}
				seen[a] = true
				budget--
				it := d.decode(code, a, false)
				if arm {
					if pools.overlaps(it) {
						break // a literal pool a load of this procedure reads
					}
					pools.note(it)
					branches = append(branches, sw.step(it, code, mode, d.twrite)...)
					if cov != nil {
						cov.markDecoded(a, it, sw)
					}
				}
				if !arm { // unwindCallTargets' input; it does not run for arm
					covered = append(covered, codeRange{a, a + uint64(it.n)})
				}
				if gapsOn && img.arch == "arm64" && len(code) >= 4 {
					a64sw.note(binary.LittleEndian.Uint32(code), it, img)
					if it.flow == flowJump && it.indirect {
						for _, t := range a64sw.targets(img, b.data, entry, procs) {
							caseTarget[t] = true
							branches = append(branches, t)
						}
					}
				}
				if gapsOn && img.arch != "arm64" {
					if n, ok := x86CmpBound(code, img.arch == "x86_64"); ok {
						lastBound = n
					}
					if tab, ok := x86TableOperand(code, img.arch == "x86_64", got); ok {
						lastData = tab
					} else if it.hasData && it.flow == flowNone {
						lastData = it.data
					}
					if it.flow == flowJump && it.indirect {
						base := lastData
						if it.hasData {
							base = it.data
						} else if tab, ok := x86JumpTable(code); ok && img.arch == "x86" {
							base = tab
						} else if tab, ok := x64JumpTable(code); ok && img.arch == "x86_64" {
							base = tab
						}
						if base != 0 && !writableAt(img, base) {
							for _, t := range switchTable(img, b.data, base, entry, got, lastBound, procs) {
								caseTarget[t] = true
								branches = append(branches, t)
							}
						}
					}
				}
				if t, tthumb, end, ok := thumbVeneer(img, b.data, a); ok && mode {
					// A Thumb-to-ARM veneer: a tail call in the other mode.
					call(insn{addr: a, flow: flowCall, toggle: !tthumb}, t)
					if cov != nil {
						cov.mark(a, end-a)
					}
					break
				}
				if arm && !mode && it.flow == flowJump && it.indirect && it.lit == 4 {
					// ldr pc, [pc, #imm]: an ARM-to-Thumb veneer's jump to
					// the literal's code pointer, a tail call (bit 0: Thumb).
					if w, ok := execCode(img, b.data, it.data); ok && len(w) >= 4 {
						if v := uint64(img.bo.Uint32(w)); img.execAt(v&^1) && !img.inPLT(v&^1) {
							call(insn{addr: a, flow: flowCall, toggle: v&1 != 0}, v&^1)
						}
					}
				}
				if l, ok := thumbLabel(it, code); ok && mode {
					branches = append(branches, l) // a label of this procedure
				} else if arm && it.hasData && pcRelAdd(code, mode) {
					formed(it)
				}
				if it.hasTarget {
					switch {
					case it.flow == flowCall && it.target == a+uint64(it.n):
						// call $+5; pop reg (the i386 get-PC idiom): no
						// procedure, and the code goes on at the target.
					case it.flow == flowCall || it.flow == flowJump && it.target < entry:
						call(it, it.target)
					case arm && it.flow == flowJump && it.target > a && savesLR(img, b.data, it.target, mode):
						// A jump forward to a push of lr: the prologue of the
						// function it tail-calls (vfprintf's b.w to
						// buffered_vfprintf, right after its own code).
						call(it, it.target)
					case it.flow == flowJump || it.flow == flowCondJump:
						branches = append(branches, it.target)
						if arm && it.flow == flowJump && it.target > a && !procs[it.target] {
							fwd = append(fwd, armJump{a, it.target, mode})
						}
					}
				}
				// Code after a call may be a literal pool (the call did
				// not return): only code before any call counts.
				afterCall = afterCall || it.flow == flowCall
				if arm && !afterCall && (it.flow == flowNone || it.flow == flowCondJump) {
					if _, pad := isPadding(img, code[:it.n], a); !pad {
						// (falling through alignment nops ends a function:
						// no second entry follows)
						fall[a+uint64(it.n)] = true
					}
				}
				if it.flow == flowJump || it.flow == flowRet || it.flow == flowStop {
					break
				}
				a += uint64(it.n)
				if arm && it.flow == flowCall {
					resume = append(resume, a)
					break
				}
			}
		}
	}
	if arm && len(deferred) > 0 {
		// A procedure no bit, call or symbol gives a mode (an .ARM.exidx
		// start no call reaches) takes the mode of the nearest procedure
		// before it whose mode is known, else after it, else ARM; armMode
		// reads the inference back, with its limitation, so that every
		// operation decodes it as the descent did.
		known := make([]uint64, 0, len(thumb))
		for a := range thumb {
			known = append(known, a)
		}
		slices.Sort(known)
		if info.inferredMode == nil {
			info.inferredMode = map[uint64]bool{}
		}
		for _, a := range deferred {
			if _, ok := thumb[a]; ok || done[a] {
				continue
			}
			i := sort.Search(len(known), func(i int) bool { return known[i] >= a })
			t := a&2 != 0 // only Thumb code starts at 2 mod 4
			switch {
			case t:
			case i > 0:
				t = thumb[known[i-1]]
			case i < len(known):
				t = thumb[known[i]]
			}
			info.inferredMode[a] = t
			work = append(work, a)
		}
		for a, t := range info.inferredMode {
			thumb[a] = t
		}
		deferred = deferred[:0]
		if more() {
			goto descend
		}
	}
	if arm && len(fwd) > 0 && !symtab {
		// A forward jump over a procedure's entry leaves its procedure:
		// it is a tail call (libgcc's __aeabi_idivmod reaches
		// __aeabi_idiv0 by a b.w from __divsi3's code), its target a
		// procedure. Checked once the descent has found what it can, so
		// that the entries it jumps over are known.
		starts := make([]uint64, 0, len(procs))
		for p := range procs {
			starts = append(starts, p)
		}
		slices.Sort(starts)
		for _, j := range fwd {
			i := sort.Search(len(starts), func(i int) bool { return starts[i] > j.site })
			if i < len(starts) && starts[i] < j.target && !procs[j.target] && img.execAt(j.target) && !img.inPLT(j.target) {
				add(j.target, j.thumb, true)
				thumb[j.target] = j.thumb
				byCall[j.target] = true
				work = append(work, j.target)
			}
		}
		fwd = fwd[:0]
		if more() {
			goto descend
		}
	}
	if cov != nil {
		// Then the code the descent left undecoded (armgaps.go), a
		// round at a time.
		gapPhase = true
		known := make([]uint64, 0, len(thumb))
		for a := range thumb {
			known = append(known, a)
		}
		slices.Sort(known)
		modeAt := func(a uint64) bool {
			i := sort.Search(len(known), func(i int) bool { return known[i] > a })
			if i > 0 {
				return thumb[known[i-1]]
			}
			return i < len(known) && thumb[known[i]]
		}
		if words == nil {
			words = armDataWords(img, b.data)
		}
		var labelCalls []insn
		if gaps == nil {
			gaps = newGapSearch()
		}
		starts, modes, progress := gaps.next(img, b.data, cov, procs, words, modeAt, func(it insn) { labelCalls = append(labelCalls, it) })
		if gaps.exhausted() && !gapLimit {
			gapLimit = true
			b.limit(fmt.Sprintf("arm: the search of code no call reaches stopped at its bound (%d rounds, %d instructions probed): functions only it would find may be missing", maxGapRounds, maxGapProbeInsns))
		}
		for _, it := range labelCalls {
			// A call from a label's code (Thumb, as labels are found):
			// a procedure in the mode the call gives.
			t, tmode := it.target, !it.toggle
			if !procs[t] && img.execAt(t) && !img.inPLT(t) && !(sized[t] == 0 && inFDE(extents, t)) {
				add(t, tmode, true)
				thumb[t] = tmode
				work = append(work, t)
			}
		}
		if info.inferredMode == nil {
			info.inferredMode = map[uint64]bool{}
		}
		for i, a := range starts {
			if procs[a] || len(done) >= maxProcs {
				continue
			}
			add(a, false, false) // armMode reads the mode from inferredMode
			byCall[a] = true     // and code falling into it makes it no start (below)
			thumb[a], info.inferredMode[a] = modes[i], modes[i]
			work = append(work, a)
		}
		if more() || progress {
			goto descend
		}
	}
	if !searched {
		// Then calls from code FDEs cover to code neither they nor the
		// descent cover (i386 __x86.get_pc_thunk.bx, hand-written helpers),
		// whose targets are descended in turn.
		searched = true
		targets, truncated, err := unwindCallTargets(img, b.data, b.syms, procs, covered, b.tick)
		if err != nil {
			return err
		}
		if truncated {
			b.limit(fmt.Sprintf("calls from code .eh_frame describes were followed up to a bound (%d targets, %d instructions decoded): functions without an FDE reached only beyond it are missing", maxUnwindTargets, maxUnwindVerifyInsns))
		}
		for _, t := range targets {
			add(t, false, false)
			work = append(work, t)
		}
		if more() {
			goto descend
		}
	}
	if gapsOn && gapRounds < max(maxGapRoundsELF, maxProcs) && gapBudget > 0 && budget > 0 && len(done) < maxProcs {
		// Then discovery through data and gaps (elfgaps.go), a round at
		// a time, each round's starts descended before the next.
		var from []uint64 // the ends of the code decoded since the last round
		if gapRounds > 0 {
			from = make([]uint64, 0, len(covered)-gapMark)
			for _, r := range covered[gapMark:] {
				from = append(from, r.end)
			}
		}
		spans := mergeSpans(append(covered, info.fdes...))
		covered = []codeRange(spans)
		gapMark = len(covered)
		var starts []uint64
		d := newDecoder(img)
		seed := func(ptrs []uint64) {
			for _, t := range ptrs {
				if !procs[t] && !caseTarget[t] && !spans.contains(t) && elfProbe(img, b.data, d, t, spans, procs) {
					starts = append(starts, t)
				}
			}
		}
		if !dataSeeded {
			dataSeeded = true
			var ptrs []uint64
			ptrs, pie = elfRelocPointers(img, b.data, elfDynSymValue(img, b.data))
			seed(ptrs)
		}
		if len(starts) == 0 {
			gapRounds++
			starts = elfGapStarts(img, b.data, spans, from, procs, caseTarget, gapTried, &gapBudget)
			if len(starts) == 0 && !pie && !wordsSeeded {
				wordsSeeded = true
				seed(elfDataWords(img, b.data))
			}
			if gapRounds == max(maxGapRoundsELF, maxProcs) || gapBudget <= 0 {
				b.limit(fmt.Sprintf("the search of code no call reaches stopped at its bound (%d rounds, %d instructions probed): functions only it would find may be missing", max(maxGapRoundsELF, maxProcs), maxInsns*4))
			}
		}
		for _, t := range starts {
			if !procs[t] {
				add(t, false, false)
			}
			work = append(work, t)
		}
		if len(starts) > 0 && more() {
			goto descend
		}
	}
	flush()
	if len(byCall) > 0 {
		// A call target that the code before it falls into is a second
		// entry of that procedure (libgcc's __divsi3 falls into
		// .divsi3_skip_div0_test, which __aeabi_idivmod calls), no start;
		// nor is a gap's start that a procedure found later falls into
		// (glibc's memchr_neon, whose address its ifunc resolver forms).
		b.syms = slices.DeleteFunc(b.syms, func(s symbol) bool {
			return byCall[s.addr] && fall[s.addr] && s.source == srcAnalysis && s.flags&flagProcedure != 0
		})
	}
	return nil
}
