package builtin

import (
	"debug/macho"
	"fmt"
	"slices"
)

// Mach-O LC_FUNCTION_STARTS (function discovery source "function-starts"):
// the linker records the start of every function it laid out in executable
// sections, as a __LINKEDIT blob of ULEB128 deltas. The first delta is from
// the __TEXT segment's address (where the Mach-O header is mapped), each next
// one from the previous start, and a zero delta (or the blob's end; ld64 pads
// it with zeros to pointer alignment) ends the list. Stripping keeps the blob,
// so on a stripped Mach-O it names every function the symbol table did.
// Starts where no procedure symbol is become procedures named sub_<hex>
// (source analysis) with no size: the blob gives no end, and the distance to
// the next start is not an extent (procs.go).

// lcFunctionStarts is LC_FUNCTION_STARTS; its command is a
// linkedit_data_command {cmd, cmdsize, dataoff, datasize}.
const lcFunctionStarts = 0x26

// parseFunctionStarts decodes an LC_FUNCTION_STARTS blob into ascending
// addresses from base. Damage (a ULEB128 cut off by the blob's end, one that
// does not fit 64 bits, an address past 2^64) stops the walk: the starts
// decoded so far are kept and the damage is returned as a limitation. Work
// and memory are linear in len(b): each start takes at least one byte.
func parseFunctionStarts(b []byte, base uint64) ([]uint64, []string) {
	var out []uint64
	addr := base
	for p := 0; p < len(b); {
		var d uint64
		var shift uint
		ok := false
		for p < len(b) {
			c := b[p]
			p++
			if shift == 63 && c&0x7e != 0 || shift > 63 {
				return out, []string{fmt.Sprintf("LC_FUNCTION_STARTS: a delta at byte %d does not fit 64 bits; the starts after it are missing", p-1)}
			}
			d |= uint64(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				ok = true
				break
			}
		}
		if !ok {
			return out, []string{"LC_FUNCTION_STARTS: the last delta is cut off by the end of the data; the starts after it are missing"}
		}
		if d == 0 {
			break
		}
		if addr+d < addr {
			return out, []string{"LC_FUNCTION_STARTS: a start lies past the end of the address space; the starts from it on are missing"}
		}
		addr += d
		out = append(out, addr)
	}
	return slices.Clip(out), nil
}

// machoFunctionStarts reads the image's LC_FUNCTION_STARTS blob (load command
// lb) and keeps the starts in mapped executable sections. ARM Thumb starts
// carry the low bit, which is dropped as it is for symbols.
func machoFunctionStarts(img *image, data []byte, lb []byte, textAddr uint64) ([]uint64, []string) {
	off, ok1 := readU(lb, img.bo, 8, 4)
	size, ok2 := readU(lb, img.bo, 12, 4)
	if !ok1 || !ok2 {
		return nil, []string{"LC_FUNCTION_STARTS: the load command is truncated; function starts are missing"}
	}
	if size == 0 {
		return nil, nil
	}
	if off > uint64(len(data)) || size > uint64(len(data))-off {
		return nil, []string{"LC_FUNCTION_STARTS: the data lies outside the file; function starts are missing"}
	}
	all, lims := parseFunctionStarts(data[off:off+size], textAddr)
	out := all[:0]
	outside := 0
	for _, a := range all {
		if img.macho.cpu == macho.CpuArm {
			a &^= 1
		}
		if img.execAt(a) {
			out = append(out, a)
		} else {
			outside++
		}
	}
	if outside > 0 {
		lims = append(lims, fmt.Sprintf("LC_FUNCTION_STARTS: %d start(s) outside executable sections were ignored", outside))
	}
	slices.Sort(out)
	return slices.Clip(slices.Compact(out)), lims
}

// addFunctionStarts adds a procedure named sub_<hex> (source analysis, no
// size) at each function start where no procedure symbol starts and that is
// not the entry point (named "entry" already).
func addFunctionStarts(img *image, b *symBuilder) error {
	starts := img.macho.funcStarts
	if len(starts) == 0 {
		return nil
	}
	have := make([]uint64, 0, len(b.syms))
	for i := range b.syms {
		if b.syms[i].flags&flagProcedure != 0 {
			have = append(have, b.syms[i].addr)
		}
	}
	slices.Sort(have)
	for _, a := range starts {
		if err := b.tick(); err != nil {
			return err
		}
		if _, found := slices.BinarySearch(have, a); found {
			continue
		}
		if img.hasEntry && a == img.entry {
			continue
		}
		b.addArena(symbol{addr: a, kind: kindFunction, source: srcAnalysis,
			flags: flagProcedure, rank: makeRank(srcAnalysis, kindFunction, bindGlobal)}, fmt.Sprintf("sub_%x", a))
	}
	return nil
}
