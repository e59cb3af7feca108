package builtin

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"slices"
	"sort"
)

// The decoding mode of ARM code. A procedure is Thumb code when, in order of
// authority: its ELF function symbol has the low bit set (or clear: ARM; an
// ELF PLT stub is ARM code); e_entry's low bit, for the entry point; the
// ARM mapping symbol ($t, $a) covering its entry says so; it is in a PE
// image (Windows on ARM is Thumb-2 only); the nearest function symbol before
// it is Thumb (objdump's rule for code without mapping symbols, e.g. a
// stripped library's procedures found from .eh_frame).

// armMapSym is one ARM mapping symbol: kind 'a', 't' or 'd' at addr.
type armMapSym struct {
	addr uint64
	kind byte
}

func (info *elfInfo) addMapping(kind byte, addr uint64) {
	if info.machine == elf.EM_ARM && (kind == 'a' || kind == 't' || kind == 'd') {
		info.armMap = append(info.armMap, armMapSym{addr, kind})
	}
}

// sortMapping orders the mapping symbols once they are all read.
func (info *elfInfo) sortMapping() {
	slices.SortStableFunc(info.armMap, func(x, y armMapSym) int { return cmp.Compare(x.addr, y.addr) })
}

// mappingAt returns the kind of the mapping symbol covering a, or 0.
func (info *elfInfo) mappingAt(a uint64) byte {
	i := sort.Search(len(info.armMap), func(i int) bool { return info.armMap[i].addr > a })
	if i == 0 {
		return 0
	}
	return info.armMap[i-1].kind
}

// isThumb reports whether the procedure at entry is Thumb code.
func (c *Client) isThumb(six *symIndex, entry uint64) bool {
	thumb, _ := c.armMode(six, entry)
	return thumb
}

// armMode is isThumb with the reason when the mode was inferred from the
// nearest function symbol (or defaulted to ARM): "" when a symbol, mapping
// symbol or the format says it.
func (c *Client) armMode(six *symIndex, entry uint64) (thumb bool, inferred string) {
	img := c.ix.img
	if img.arch != "arm" {
		return false, ""
	}
	lo, hi := procsAt(six, entry)
	known := false
	for _, k := range six.procs[lo:hi] {
		s := &six.syms[k]
		if s.flags&flagThumb != 0 {
			return true, ""
		}
		if img.format == "elf" && s.flags&flagThunk != 0 {
			return false, "" // a PLT stub: the ARM PLT
		}
		known = known || img.format == "elf" && (s.flags&flagMode != 0 || s.kind == kindFunction && s.source == srcDefault && s.flags&flagThunk == 0)
	}
	if known {
		return false, ""
	}
	if img.elf != nil && img.hasEntry && entry == img.entry {
		return img.elf.entryThumb, "" // e_entry's interworking bit
	}
	if img.elf != nil {
		switch img.elf.mappingAt(entry) {
		case 't':
			return true, ""
		case 'a':
			return false, ""
		}
	}
	if img.format == "pe" {
		return true, ""
	}
	if img.elf != nil {
		if t, ok := img.elf.inferredMode[entry]; ok {
			mode := "ARM"
			if t {
				mode = "Thumb"
			}
			return t, "arm: no symbol, mapping symbol or call gives this procedure's instruction set; it is decoded as " +
				mode + ", the mode of the nearest procedure before it whose mode is known"
		}
	}
	for i := lo - 1; i >= 0; i-- {
		s := &six.syms[six.procs[i]]
		if s.kind == kindFunction && s.source == srcDefault && s.flags&flagThunk == 0 {
			mode := "ARM"
			if s.flags&flagThumb != 0 {
				mode = "Thumb"
			}
			return s.flags&flagThumb != 0, "arm: no symbol or mapping symbol gives this procedure's instruction set; it is decoded as " +
				mode + ", the mode of the function symbol before it"
		}
	}
	return false, "arm: no symbol or mapping symbol gives this procedure's instruction set; it is decoded as ARM"
}

// dataEnd reports whether a is in data that an ARM $d mapping symbol marks
// inside code (a literal pool, a jump table) and where that data ends: the
// next mapping symbol, or ^0.
func (c *Client) dataEnd(a uint64) (uint64, bool) {
	return c.ix.img.elf.dataEnd(a)
}

// inData reports whether a $d mapping symbol marks a as data.
func (info *elfInfo) inData(a uint64) bool {
	_, ok := info.dataEnd(a)
	return ok
}

// dataEnd is Client.dataEnd on the image's mapping symbols.
func (info *elfInfo) dataEnd(a uint64) (uint64, bool) {
	if info == nil || len(info.armMap) == 0 {
		return 0, false
	}
	i := sort.Search(len(info.armMap), func(i int) bool { return info.armMap[i].addr > a })
	if i == 0 || info.armMap[i-1].kind != 'd' {
		return 0, false
	}
	if i < len(info.armMap) {
		return info.armMap[i].addr, true
	}
	return ^uint64(0), true
}

// poolInsn is one unit of marked data at pc: a word, as objdump writes it,
// or the halfword or byte left before the data's end.
func poolInsn(code []byte, pc uint64, bo binary.ByteOrder, withText bool) insn {
	it := insn{addr: pc, pool: true}
	switch {
	case len(code) >= 4:
		it.n = 4
		if withText {
			it.text = ".word 0x" + hex8(bo.Uint32(code))
		}
	case len(code) >= 2:
		it.n = 2
		if withText {
			it.text = ".short 0x" + hex4(uint32(bo.Uint16(code)))
		}
	default:
		it.n = 1
		if withText {
			it.text = ".byte 0x" + hex4(uint32(code[0]))[2:]
		}
	}
	return it
}

// armPools holds, by halfword, the literal-pool bytes the pc-relative loads
// decoded so far read (insn.lit): the descents stop before decoding them as
// code.
type armPools map[uint64]bool

func (p armPools) note(it insn) {
	for o := uint64(0); o < uint64(it.lit); o += 2 {
		p[it.data+o] = true
	}
}

// overlaps reports whether the instruction it reads pool bytes.
func (p armPools) overlaps(it insn) bool {
	return p[it.addr] || it.n == 4 && p[it.addr+2]
}

// popLowest removes and returns the lowest address of the descents' code
// after calls: decoded in address order, the code after the earlier calls
// (with the loads that name the literal pool at the function's end) comes
// before the pool itself, which follows a last call that does not return.
func popLowest(as []uint64) (uint64, []uint64) {
	k := 0
	for i, a := range as {
		if a < as[k] {
			k = i
		}
	}
	a := as[k]
	as[k] = as[len(as)-1]
	return a, as[:len(as)-1]
}
