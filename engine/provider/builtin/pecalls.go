package builtin

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
)

// PE procedures that no symbol names: the passes after the symbols (.pdata
// starts, call targets of .pdata code, call targets by descent where there
// is no .pdata) add their starts through one peProcSet, which
//
//   - names a start by the symbol-table labels at it when there are any
//     (mingw's ___chkstk_ms is an assembly label: COFF type 0, not a
//     function), else sub_<hex> (source analysis);
//   - names a call target that is an IAT jump thunk after its import
//     (source imported, thunk, external), as addIATThunks does, and scans
//     the thunks next to it;
//   - and knows every procedure start so far, so nothing is added twice.
//
// Call-target descent (discovery source "call-targets") serves a PE without
// .pdata (i386, and any machine whose exception directory is absent or not
// read) on a machine whose code is decoded (x86, x86_64, arm64): recursive
// descent from the entry point and every procedure known (symbols, exports,
// main, .eh_frame FDE starts of mingw i686), following jumps and conditional branches within a procedure and
// stopping at returns, indirect jumps and other procedure starts; each
// direct call target and backward tail jump (an unconditional direct jump
// below the procedure's entry) in executable code becomes a procedure and is
// descended in turn. The work is bounded by maxPdataInsns instructions; a
// walk cut off by the bound is a limitation.

type peProcSet struct {
	img   *image
	b     *symBuilder
	procs map[uint64]bool
	named map[uint64][]int // symbol-table names in executable code: indices into b.syms
	slots map[uint64]int   // IAT slot address -> its import symbol (index into b.syms)

	// Discovery through data (pedata.go): the code the descent decoded,
	// i386 jump-table entries and the words of their tables, and the
	// addresses base relocations patch (nil: the image has none).
	spans      []codeRange
	caseTarget map[uint64]bool
	tableWord  map[uint64]bool
	relocAt    map[uint64]bool
	operand    map[uint64]bool // values of relocated words in code
}

// newPEProcSet indexes b's symbols; it is valid while symbols are only
// appended (mainLocator.add removes some: build the set after it).
func newPEProcSet(img *image, b *symBuilder) *peProcSet {
	ps := &peProcSet{img: img, b: b, procs: map[uint64]bool{}, named: map[uint64][]int{}, slots: iatSlots(b),
		caseTarget: map[uint64]bool{}, tableWord: map[uint64]bool{}, operand: map[uint64]bool{}}
	for i := range b.syms {
		s := &b.syms[i]
		if s.flags&flagProcedure != 0 {
			ps.procs[s.addr] = true
		}
		if s.source == srcDefault && (s.kind == kindLabel || s.kind == kindFunction) && img.execAt(s.addr) {
			ps.named[s.addr] = append(ps.named[s.addr], i)
		}
	}
	if img.hasEntry {
		ps.procs[img.entry] = true // named "entry" unless a symbol names it
	}
	return ps
}

// add makes a a procedure of the given size (0: unknown).
func (ps *peProcSet) add(a, size uint64) {
	if ps.procs[a] {
		return
	}
	ps.procs[a] = true
	if ps.thunk(a) {
		return
	}
	labeled := false
	for _, k := range ps.named[a] {
		if s := &ps.b.syms[k]; s.kind == kindLabel {
			s.flags |= flagProcedure
			if s.size == 0 {
				s.size = size
			}
			labeled = true
		}
	}
	if labeled {
		return
	}
	ps.b.addArena(symbol{addr: a, size: size, kind: kindFunction, source: srcAnalysis,
		flags: flagProcedure, rank: makeRank(srcAnalysis, kindFunction, bindGlobal)}, fmt.Sprintf("sub_%x", a))
}

// thunk adds the IAT jump thunk at a, and the thunks laid out next to it,
// reporting whether a is one.
func (ps *peProcSet) thunk(a uint64) bool {
	if _, _, ok := iatThunkAt(ps.img, ps.b, ps.slots, a); !ok {
		return false
	}
	// Import libraries lay thunks out back to back (x86: 8 bytes apart, 6
	// padded with nop or int3; arm64: 12 bytes): walk both ways while they
	// continue.
	step := uint64(8)
	if ps.img.arch == "arm64" {
		step = 12
	}
	lo := a
	for lo >= step {
		if _, _, ok := iatThunkAt(ps.img, ps.b, ps.slots, lo-step); !ok {
			break
		}
		lo -= step
	}
	for t := lo; ; t += step {
		k, n, ok := iatThunkAt(ps.img, ps.b, ps.slots, t)
		if !ok {
			break
		}
		ps.procs[t] = true
		ps.addThunk(t, n, k)
	}
	return true
}

// iatSlots maps each IAT slot of a named import to its symbol.
func iatSlots(b *symBuilder) map[uint64]int {
	slots := map[uint64]int{}
	for i := range b.syms {
		if s := &b.syms[i]; s.kind == kindImport && s.source == srcImported && s.nameLen > 0 {
			if _, dup := slots[s.addr]; !dup {
				slots[s.addr] = i
			}
		}
	}
	return slots
}

// iatThunkAt reports the import whose IAT slot the jump thunk at a goes
// through (iatThunkSlot), and the thunk's size.
func iatThunkAt(img *image, b *symBuilder, slots map[uint64]int, a uint64) (int, uint64, bool) {
	slot, n, ok := iatThunkSlot(img, b.data, a)
	if !ok {
		return 0, 0, false
	}
	k, ok := slots[slot]
	return k, n, ok
}

// iatThunkSlot decodes the IAT jump thunk at a: x86_64 `jmp [rip+disp32]`
// and x86 `jmp [abs32]` (ff 25, 6 bytes); arm64 `adrp x16, page; ldr x16,
// [x16, #off]; br x16` (12 bytes, as lld-link and link.exe write them). It
// returns the address of the slot the jump reads and the thunk's size.
func iatThunkSlot(img *image, data []byte, a uint64) (uint64, uint64, bool) {
	code, ok := execCode(img, data, a)
	if !ok {
		return 0, 0, false
	}
	switch img.arch {
	case "x86_64", "x86":
		if len(code) < 6 || code[0] != 0xff || code[1] != 0x25 {
			return 0, 0, false
		}
		v := binary.LittleEndian.Uint32(code[2:])
		if img.arch == "x86_64" {
			return a + 6 + uint64(int64(int32(v))), 6, true
		}
		return uint64(v), 6, true
	case "arm64":
		if len(code) < 12 {
			return 0, 0, false
		}
		adrp, ldr, br := binary.LittleEndian.Uint32(code), binary.LittleEndian.Uint32(code[4:]), binary.LittleEndian.Uint32(code[8:])
		if adrp&0x9f00001f != 0x90000010 || ldr&0xffc003ff != 0xf9400210 || br != 0xd61f0200 {
			return 0, 0, false
		}
		imm := uint64(adrp>>29&3) | uint64(adrp>>5&0x7ffff)<<2
		page := a&^0xfff + uint64(sext(imm, 21))<<12
		return page + uint64(ldr>>10&0xfff)*8, 12, true
	}
	return 0, 0, false
}

// addThunk adds the thunk of size n at a named after import symbol k
// (source imported, thunk, external). A symbol-table name of the thunk with
// the same name (mingw's import libraries label each thunk) gets the same
// flags, so the thunk is classified alike with or without a symbol table.
func (ps *peProcSet) addThunk(a, n uint64, k int) {
	b := ps.b
	u := b.syms[k]
	name := symName(b.data, b.arena, &u)
	const flags = flagDynamic | flagExternal | flagProcedure | flagThunk
	for _, i := range ps.named[a] {
		if s := &b.syms[i]; string(symName(b.data, b.arena, s)) == string(name) {
			s.flags |= flags
		}
	}
	b.add(symbol{addr: a, size: n, nameOff: u.nameOff, nameLen: u.nameLen,
		kind: kindFunction, source: srcImported, flags: u.flags&flagArena | flags,
		rank: makeRank(srcImported, kindFunction, bindGlobal)})
}

// peDescentArch reports whether call-target descent runs for a PE image
// (see above).
func peDescentArch(img *image) bool {
	switch img.arch {
	case "x86", "x86_64":
		// x86-64 with .pdata too: a compiler told to emit no unwind tables
		// (mingw's -fno-asynchronous-unwind-tables) leaves functions that
		// call others, and so everything they call, outside .pdata
		return true
	case "arm64":
		return len(img.pe.pdataStarts) == 0
	}
	return false
}

// addPECallTargets runs call-target descent (see above).
func addPECallTargets(img *image, b *symBuilder, ps *peProcSet) error {
	if !peDescentArch(img) {
		return nil
	}
	work := make([]uint64, 0, len(ps.procs))
	for a := range ps.procs {
		if img.execAt(a) {
			work = append(work, a)
		}
	}
	// Descend from the highest address first (work is a stack): the order
	// is deterministic, and so is the answer when the budget runs out.
	slices.Sort(work)
	budget := maxPdataInsns
	var relocs []peReloc
	if img.arch == "x86" || img.arch == "x86_64" {
		relocs = peRelocWords(img, b.data)
		if len(relocs) > 0 {
			ps.relocAt = make(map[uint64]bool, len(relocs))
			for _, r := range relocs {
				ps.relocAt[r.at] = true
				if img.execAt(r.at) {
					ps.operand[r.val] = true
				}
			}
		}
	}
	if err := ps.descend(work, nil, &budget); err != nil {
		return err
	}
	if len(relocs) == 0 {
		return nil
	}
	return ps.addPEDataSeeds(relocs, &budget)
}

// descend walks code from each entry in work (a stack) as call-target
// descent does (see above), adding the procedures it finds and descending
// them in turn. arm64 code whose address an ADRP+ADD pair takes outside
// every range of covered (the .pdata ranges) is a procedure too: the
// address of a function passed as a callback (qsort's comparison); arm64
// compilers keep no data in .text. budget is shared by the calls of one
// symbol pass; running out is a limitation.
func (ps *peProcSet) descend(work []uint64, covered []codeRange, budget *int) error {
	img, b := ps.img, ps.b
	d := newDecoder(img)
	done := map[uint64]bool{}
	for len(work) > 0 && *budget > 0 {
		entry := work[len(work)-1]
		work = work[:len(work)-1]
		if done[entry] {
			continue
		}
		done[entry] = true
		seen := map[uint64]bool{}
		branches := []uint64{entry}
		for len(branches) > 0 && *budget > 0 {
			a := branches[len(branches)-1]
			branches = branches[:len(branches)-1]
			d.reset()
			run := a
			for !seen[a] && *budget > 0 && (a == entry || !ps.procs[a]) {
				if err := b.tick(); err != nil {
					return err
				}
				code, ok := execCode(img, b.data, a)
				if !ok {
					break
				}
				seen[a] = true
				*budget--
				it := d.decode(code, a, false)
				if t, ok := ps.codeAddress(it, covered); ok {
					work = append(work, t)
				}
				if it.flow == flowJump && it.indirect && img.arch == "x86" {
					if tab, ok := x86JumpTable(code); ok {
						for k, t := range ps.jumpTableEntries(tab) {
							ps.tableWord[tab+4*uint64(k)] = true
							ps.caseTarget[t] = true
							branches = append(branches, t)
						}
					}
				}
				if it.hasTarget {
					switch {
					case it.flow == flowCall || it.flow == flowJump && it.target < entry:
						if t := it.target; img.execAt(t) {
							if !ps.procs[t] {
								ps.add(t, 0)
							}
							work = append(work, t)
						}
					case it.flow == flowJump || it.flow == flowCondJump:
						branches = append(branches, it.target)
					}
				}
				if it.flow == flowJump || it.flow == flowRet || it.flow == flowStop {
					a += uint64(it.n)
					break
				}
				a += uint64(it.n)
			}
			if a > run {
				ps.spans = append(ps.spans, codeRange{run, a})
			}
		}
	}
	if *budget <= 0 {
		b.limit(fmt.Sprintf("call targets were followed for the first %d instructions only; procedures reached only after them are missing", maxPdataInsns))
	}
	return nil
}

// codeAddress adds the procedure whose address an arm64 ADRP+ADD pair
// takes (see descend; reported on the ADD), reporting it when it is new. An
// ADR takes jump-table bases inside a function and is not used.
func (ps *peProcSet) codeAddress(it insn, covered []codeRange) (uint64, bool) {
	if ps.img.arch != "arm64" || !it.hasData || it.flow != flowNone || it.data&3 != 0 {
		return 0, false
	}
	if w, ok := execCode(ps.img, ps.b.data, it.addr); !ok || len(w) < 4 || binary.LittleEndian.Uint32(w)&0x7f800000 != 0x11000000 {
		return 0, false // not ADD (immediate)
	}
	t := it.data
	if ps.procs[t] || !ps.img.execAt(t) || inFDE(covered, t) {
		return 0, false
	}
	ps.add(t, 0)
	return t, true
}

// peCtorLists reads mingw's constructor and destructor tables, which its
// linker script places at the very end of .text: __CTOR_LIST__ = {-1,
// pointers…, 0}, then __DTOR_LIST__ alike (the C runtime walks them
// before and after main). Read back from the section's end, both lists
// must be whole, every pointer in executable code, or nothing is taken.
func peCtorLists(img *image, data []byte) []uint64 {
	i := namedSection(img, ".text", "")
	if i < 0 {
		return nil
	}
	s := &img.sections[i]
	w := uint64(4)
	if img.is64 {
		w = 8
	}
	end := min(s.size, s.fsize) &^ (w - 1)
	word := func(p uint64) uint64 {
		v, _ := readU(data, img.bo, satAdd(s.off, p), int(w))
		return v
	}
	ones := ^uint64(0) >> (64 - 8*w)
	p := end
	var out []uint64
	list := func() bool {
		if p < w || word(p-w) != 0 {
			return false
		}
		for p -= w; p >= w && len(out) < maxSeedProcs; {
			p -= w
			v := word(p)
			if v == ones {
				return true
			}
			if v == 0 || !img.execAt(v) {
				return false
			}
			out = append(out, v)
		}
		return false
	}
	if !list() || !list() {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ARM64 code that no .pdata range covers is leaf code (a function that
// calls nothing and keeps its frame in registers needs no unwind data),
// laid out between the ranges. addARM64Gaps reads it linearly (arm64
// instructions are fixed-width and its compilers keep no data in .text):
//
//   - the first instruction of each gap (after nop/zero padding) starts a
//     function, since code after a function's end belongs to the next;
//   - each direct call target, each direct jump target outside the gap (a
//     jump within it may be a branch of the same function) and each code
//     address an ADRP+ADD takes becomes a procedure;
//
// and the base relocations (peRelocCode) name code whose address is stored
// in data: function pointer tables, arm64 jump tables being relative.
func addARM64Gaps(img *image, b *symBuilder, ps *peProcSet, budget *int) ([]uint64, error) {
	info := img.pe
	var gaps []codeRange
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || !s.x || s.fsize == 0 {
			continue
		}
		cur, end := s.addr, s.addr+min(s.size, s.fsize)
		k := sort.Search(len(info.pdata), func(k int) bool { return info.pdata[k].end > cur })
		for ; k < len(info.pdata) && info.pdata[k].start < end; k++ {
			if r := info.pdata[k]; r.start > cur {
				gaps = append(gaps, codeRange{cur, r.start})
			}
			cur = max(cur, info.pdata[k].end)
		}
		if cur < end {
			gaps = append(gaps, codeRange{cur, end})
		}
	}
	var found []uint64
	add := func(t uint64) {
		if !ps.procs[t] && img.execAt(t) {
			ps.add(t, 0)
			found = append(found, t)
		}
	}
	d := newDecoder(img)
	for _, g := range gaps {
		code, ok := execCode(img, b.data, g.start)
		if !ok {
			continue
		}
		code = code[:min(uint64(len(code)), g.end-g.start)]
		lead := true
		d.reset()
		for p := 0; p+4 <= len(code); p += 4 {
			if *budget <= 0 {
				return found, nil // descend states the limitation
			}
			*budget--
			if err := b.tick(); err != nil {
				return nil, err
			}
			a := g.start + uint64(p)
			if lead {
				if w := binary.LittleEndian.Uint32(code[p:]); w == 0 || w == 0xd503201f {
					continue
				}
				lead = false
				add(a)
			}
			it := d.decode(code[p:], a, false)
			if t, ok := ps.codeAddress(it, info.pdata); ok {
				found = append(found, t)
			}
			if it.hasTarget && (it.flow == flowCall || it.flow == flowJump && (it.target < g.start || it.target >= g.end)) {
				add(it.target)
			}
		}
	}
	for _, t := range peRelocCode(img, b.data) {
		add(t)
	}
	return found, nil
}

// maxPERelocs bounds the base relocations read.
const maxPERelocs = 1 << 22

// peRelocCode returns the code addresses stored at the 64-bit base
// relocations (IMAGE_REL_BASED_DIR64) of data sections (eachPEReloc).
func peRelocCode(img *image, data []byte) []uint64 {
	if !img.is64 {
		return nil
	}
	var out []uint64
	eachPEReloc(img, data, func(r peReloc) {
		if !img.execAt(r.at) && r.val&3 == 0 && img.execAt(r.val) {
			out = append(out, r.val)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}
