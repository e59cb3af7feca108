package builtin

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"sort"
)

// section is one section of the analyzed image, in the provider's own model.
// Offsets are relative to the analyzed bytes (the chosen slice of a universal
// Mach-O, else the whole file).
type section struct {
	name   string
	addr   uint64
	size   uint64 // size in memory
	off    uint64 // file offset
	fsize  uint64 // file-backed bytes (0 for zero-fill sections)
	r, w   bool
	x      bool
	mapped bool // allocated in memory at addr (and listed in a segment)
}

func (s *section) end() uint64 { return satAdd(s.addr, s.size) }

// segment is a loadable range of the address space.
type segment struct {
	name     string
	start    uint64
	end      uint64
	r, w     bool
	x        bool
	xKnown   bool
	sections []int // indices into image.sections, by start then name
}

// fileRange maps file bytes [off, end) to addresses starting at addr. The
// ranges of an image are sorted by off and do not overlap.
type fileRange struct {
	off, end uint64
	addr     uint64
}

// symbolTable locates an ELF or Mach-O symbol table and its string table.
type symbolTable struct {
	off, size  uint64 // entries
	entsize    uint64
	strOff     uint64 // string table
	strSize    uint64
	dynamic    bool
	sectionIdx int // ELF section index of the table (for relocation links)
	// ELF .gnu.version of a dynamic table: one half-word per symbol, whose
	// bit 15 marks a hidden (non-default, compatibility) version.
	versymOff, versymSize uint64
}

// image is the header-level model of an executable: everything a cheap parse
// of headers yields. It holds no reference to the file bytes, so one image is
// shared by every client of the same content.
type image struct {
	format    string // elf, pe, mach-o (the analyzed slice of a universal file is mach-o)
	container string // target format as opened: elf, pe, mach-o, mach-o-universal
	arch      string // x86, x86_64, arm, arm64, or ""
	bo        binary.ByteOrder
	is64      bool

	sliceOff, sliceSize uint64 // analyzed bytes within the file
	fileSize            uint64

	entry    uint64
	hasEntry bool

	sections []section
	segments []segment // sorted by start, then name
	ranges   []fileRange
	loads    []fileRange // the load ranges as the headers give them, by address (read_bytes, bytes.go)

	pcln        *pclnLoc // the Go function table, when there is one (pclntab.go)
	discovery   []string // function discovery sources used, in canonical order
	limitations []string // header-level damage noticed while parsing

	elf   *elfInfo
	pe    *peInfo
	macho *machoInfo
}

// discoveryOrder is the canonical order of function_discovery sources.
var discoveryOrder = []string{"symbols", "dynamic-symbols", "exports", "imports", "plt", "stubs", "entry-point", "start-code", "eh-frame", "arm-exidx", "pdata", "function-starts", "pclntab", "init-array", "relative-relocs", "call-targets", "code-gaps"}

func (img *image) setDiscovery(used map[string]bool) {
	img.discovery = img.discovery[:0]
	for _, s := range discoveryOrder {
		if used[s] {
			img.discovery = append(img.discovery, s)
		}
	}
}

// data returns the analyzed bytes within the file bytes b.
func (img *image) data(b []byte) []byte {
	if img.sliceOff == 0 && img.sliceSize == uint64(len(b)) {
		return b
	}
	if img.sliceOff > uint64(len(b)) {
		return nil
	}
	end := min(satAdd(img.sliceOff, img.sliceSize), uint64(len(b)))
	return b[img.sliceOff:end]
}

// finishLayout sorts segments, attaches sections to them by address
// containment, and builds the non-overlapping file ranges for string scanning.
func (img *image) finishLayout(raw []fileRange) {
	sort.SliceStable(img.segments, func(i, j int) bool {
		a, b := img.segments[i], img.segments[j]
		if a.start != b.start {
			return a.start < b.start
		}
		return a.name < b.name
	})
	order := make([]int, 0, len(img.sections))
	for i := range img.sections {
		if img.sections[i].mapped && img.sections[i].size > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := &img.sections[order[i]], &img.sections[order[j]]
		if a.addr != b.addr {
			return a.addr < b.addr
		}
		return a.name < b.name
	})
	for si := range img.segments {
		sg := &img.segments[si]
		sg.sections = nil
		// Sections are sorted by start: find the first that may fit.
		k := sort.Search(len(order), func(i int) bool { return img.sections[order[i]].addr >= sg.start })
		for ; k < len(order); k++ {
			s := &img.sections[order[k]]
			if s.addr >= sg.end {
				break
			}
			if s.end() <= sg.end && s.end() > s.addr {
				sg.sections = append(sg.sections, order[k])
			}
		}
	}
	img.ranges = normalizeRanges(raw, img.sliceSize)
	// ranges drop file bytes two ranges share, which a string scan must
	// read once; an address still has its bytes from its own range.
	img.loads = make([]fileRange, 0, len(raw))
	for _, r := range raw {
		if r.off < img.sliceSize && r.end > r.off {
			r.end = min(r.end, img.sliceSize)
			img.loads = append(img.loads, r)
		}
	}
	slices.SortStableFunc(img.loads, func(a, b fileRange) int { return cmp.Compare(a.addr, b.addr) })
}

// normalizeRanges clips ranges to the data size, sorts them by file offset and
// removes overlaps (the earlier range in file order wins), so a string scan
// reads each file byte at most once.
func normalizeRanges(raw []fileRange, size uint64) []fileRange {
	rs := make([]fileRange, 0, len(raw))
	for _, r := range raw {
		if r.off >= size || r.end <= r.off {
			continue
		}
		r.end = min(r.end, size)
		rs = append(rs, r)
	}
	slices.SortStableFunc(rs, func(a, b fileRange) int {
		if a.off != b.off {
			if a.off < b.off {
				return -1
			}
			return 1
		}
		if a.end != b.end {
			if a.end > b.end {
				return -1
			}
			return 1
		}
		return 0
	})
	out := rs[:0]
	var covered uint64
	for _, r := range rs {
		if len(out) > 0 && r.off < covered {
			if r.end <= covered {
				continue
			}
			r.addr += covered - r.off
			r.off = covered
		}
		out = append(out, r)
		covered = r.end
	}
	return out
}

// sectionAt returns the mapped, file-backed section containing addr, or nil.
func (img *image) sectionAt(addr uint64, index []int) *section {
	k := sort.Search(len(index), func(i int) bool { return img.sections[index[i]].addr > addr }) - 1
	// Sections normally do not overlap; look back a few in case they do.
	for n := 0; k >= 0 && n < 8; k, n = k-1, n+1 {
		s := &img.sections[index[k]]
		if addr >= s.addr && addr < s.end() {
			return s
		}
	}
	return nil
}

// fileSectionIndex lists mapped, file-backed sections by address.
func (img *image) fileSectionIndex() []int {
	var idx []int
	for i := range img.sections {
		s := &img.sections[i]
		if s.mapped && s.fsize > 0 && s.size > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool { return img.sections[idx[i]].addr < img.sections[idx[j]].addr })
	return idx
}

// mappedSectionIndex lists mapped sections of nonzero size by address,
// zero-fill ones included.
func (img *image) mappedSectionIndex() []int {
	var idx []int
	for i := range img.sections {
		if s := &img.sections[i]; s.mapped && s.size > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool { return img.sections[idx[i]].addr < img.sections[idx[j]].addr })
	return idx
}

// satAdd adds without wrapping past the top of the address space.
func satAdd(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}

// readU reads an unsigned integer of width n (1, 2, 4 or 8) at off, or ok=false.
func readU(b []byte, bo binary.ByteOrder, off uint64, n int) (uint64, bool) {
	if off > uint64(len(b)) || uint64(len(b))-off < uint64(n) {
		return 0, false
	}
	p := b[off:]
	switch n {
	case 1:
		return uint64(p[0]), true
	case 2:
		return uint64(bo.Uint16(p)), true
	case 4:
		return uint64(bo.Uint32(p)), true
	case 8:
		return bo.Uint64(p), true
	}
	return 0, false
}

// cstring returns the NUL-terminated string at off within tab[start:end),
// at most maxNameLen bytes, as (offset, length) in b, or ok=false.
func cstring(b []byte, start, end, off uint64) (uint64, uint32, bool) {
	end = min(end, uint64(len(b)))
	if start > end || off >= end-start {
		return 0, 0, false
	}
	p := start + off
	lim := min(end, p+maxNameLen)
	if i := bytes.IndexByte(b[p:lim], 0); i >= 0 {
		return p, uint32(i), true
	}
	return p, uint32(lim - p), true
}

// maxNameLen bounds one symbol name (and the bytes searched for its end).
const maxNameLen = 16 << 10
