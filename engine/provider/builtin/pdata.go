package builtin

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// PE x64 exception directory (.pdata): RUNTIME_FUNCTION entries
// {BeginAddress, EndAddress, UnwindInfoAddress} (RVAs, 12 bytes each). A
// range whose begin is a procedure entry gives that procedure its extent when
// no symbol size does (the primary range of a function; chained ranges of
// split functions start elsewhere and are not used).

// codeRange is an address range [start, end).
type codeRange struct{ start, end uint64 }

// maxPdataRange bounds one function's range (a damaged entry is ignored).
const maxPdataRange = 64 << 20

// parsePdata decodes RUNTIME_FUNCTION entries from b, sorted by start,
// keeping only well-formed ones (begin < end, bounded length).
func parsePdata(b []byte, imageBase uint64) []codeRange {
	var out []codeRange
	for o := 0; o+12 <= len(b) && len(out) < maxPEEntries; o += 12 {
		begin := uint64(binary.LittleEndian.Uint32(b[o:]))
		end := uint64(binary.LittleEndian.Uint32(b[o+4:]))
		if begin == 0 && end == 0 {
			continue
		}
		if end <= begin || end-begin > maxPdataRange {
			continue
		}
		out = append(out, codeRange{imageBase + begin, imageBase + end})
	}
	slices.SortFunc(out, func(a, b codeRange) int { return cmp.Compare(a.start, b.start) })
	return out
}

// pdataRanges returns the x64 PE exception ranges of the image, or nil.
func pdataRanges(img *image, data []byte) []codeRange {
	if img.pe == nil || img.arch != "x86_64" || img.pe.exceptDir[1] == 0 {
		return nil
	}
	off, ok := img.pe.rvaOff(uint64(img.pe.exceptDir[0]))
	if !ok || off >= uint64(len(data)) {
		return nil
	}
	end := min(satAdd(off, uint64(img.pe.exceptDir[1])), uint64(len(data)))
	return parsePdata(data[off:end], img.pe.imageBase)
}
