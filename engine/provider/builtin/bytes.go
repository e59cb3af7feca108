package builtin

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"slices"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// read_bytes and search_bytes (CONTRACTS.md §21) read the image as the
// loader maps it: an address inside a segment has the file byte its load
// range (program header, PE section, Mach-O segment) maps there, or zero
// where the segment is longer than its file bytes (.bss, a PE section's
// virtual tail). search_bytes scans the file-backed bytes of the mapped
// sections, each section on its own (a match never spans two), in address
// order, within a budget of the file's size.

// bytesChunk is how many match starts search_bytes scans between two
// looks at the context.
const bytesChunk = 1 << 20

func (c *Client) doBytes(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	if op == provider.OpReadBytes {
		return c.readBytes(op, in)
	}
	return c.searchBytes(ctx, op, in, rep)
}

func (c *Client) readBytes(op string, in provider.Params) (provider.Result, error) {
	a, err := provider.RequiredAddress(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	n, err := provider.ReadLength(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	img := c.ix.img
	if mapped := img.mappedRun(a, uint64(n)); mapped < uint64(n) {
		if mapped == 0 {
			return provider.Result{}, fault.Invalid(op, fault.Issue{Path: "/address", Reason: "out_of_range",
				Message: fmt.Sprintf("%s is outside every mapped segment (list_segments)", provider.FormatAddress(a))})
		}
		return provider.Result{}, fault.Invalid(op, fault.Issue{Path: "/length", Reason: "out_of_range",
			Message: fmt.Sprintf("only %d bytes from %s are inside the mapped segments", mapped, provider.FormatAddress(a)),
			Minimum: i64(1), Maximum: i64(int64(mapped))})
	}
	buf := make([]byte, n)
	zero, first := img.loadedBytes(c.data, a, buf)
	res := provider.ReadBytesResult{Address: provider.FormatAddress(a), Hex: hex.EncodeToString(buf)}
	if s := img.mappedSectionAt(a); s != nil {
		name := s.name
		res.Section = &name
	}
	if first >= 0 {
		off := int64(img.sliceOff) + first
		res.FileOffset = &off
	}
	lims := slices.Clip(img.limitations)
	for _, z := range zero {
		where := "outside every section"
		if s := img.mappedSectionAt(z[0]); s != nil {
			where = "in section " + quoteName(s.name)
		}
		lims = append(lims, fmt.Sprintf("bytes %s..%s (%d) are zero-fill %s: the file holds none of them; they read as zeros, as the loader maps them",
			provider.FormatAddress(z[0]), provider.FormatAddress(z[1]), z[1]-z[0], where))
	}
	return provider.Result{Normalized: res, Limitations: lims}, nil
}

// mappedRun is how many of the n bytes from a lie inside segments, counted
// from a without a gap.
func (img *image) mappedRun(a, n uint64) uint64 {
	end := satAdd(a, n)
	p := a
	for p < end {
		next := p
		for i := range img.segments {
			if sg := &img.segments[i]; p >= sg.start && p < sg.end {
				next = max(next, sg.end)
			}
		}
		if next == p {
			break
		}
		p = next
	}
	return min(p, end) - a
}

// loadedBytes fills dst with the bytes mapped at a (every byte inside a
// segment: mappedRun). It returns the zero-fill spans [start, end) and the
// file offset (within the analyzed bytes) of dst[0], or -1 when that byte
// is zero-fill.
func (img *image) loadedBytes(data []byte, a uint64, dst []byte) (zero [][2]uint64, first int64) {
	first = -1
	for i := 0; i < len(dst); {
		p := a + uint64(i)
		if r := img.loadAt(p); r != nil {
			off := r.off + (p - r.addr)
			k := copy(dst[i:], data[off:r.end])
			if i == 0 {
				first = int64(off)
			}
			i += k
			continue
		}
		// Zero-fill up to the next load range or the end of dst.
		k := len(dst) - i
		for j := range img.loads {
			if r := &img.loads[j]; r.addr > p && r.addr-p < uint64(k) {
				k = int(r.addr - p)
			}
		}
		clear(dst[i : i+k])
		if len(zero) > 0 && zero[len(zero)-1][1] == p {
			zero[len(zero)-1][1] = p + uint64(k)
		} else {
			zero = append(zero, [2]uint64{p, p + uint64(k)})
		}
		i += k
	}
	return zero, first
}

// loadAt is the load range whose file bytes are mapped at p, or nil.
func (img *image) loadAt(p uint64) *fileRange {
	for j := range img.loads {
		r := &img.loads[j]
		if p >= r.addr && p-r.addr < r.end-r.off {
			return r
		}
	}
	return nil
}

// mappedSectionAt is the first mapped section (zero-fill ones included)
// containing a, or nil.
func (img *image) mappedSectionAt(a uint64) *section {
	var best *section
	for i := range img.sections {
		s := &img.sections[i]
		if s.mapped && a >= s.addr && a < s.end() && (best == nil || s.addr < best.addr) {
			best = s
		}
	}
	return best
}

// byteRegion is one run of file-backed bytes search_bytes scans.
type byteRegion struct {
	name     string
	addr     uint64
	off, end uint64 // within the analyzed bytes
	x        bool   // code: its hits get their containing procedure
}

// byteRegions lists what search_bytes scans, by address, without address
// overlap (a later section loses the bytes an earlier one covers, so hits
// are in strictly increasing address order and never reported twice).
// Without file-backed sections (section headers stripped) the load ranges
// are scanned under their segment's name, which the limitation says.
func (c *Client) byteRegions(op string, in provider.Params) ([]byteRegion, []string, error) {
	img := c.ix.img
	filter, filtered := in.String("section")
	size := uint64(len(c.data))
	var rs []byteRegion
	var lims []string
	known, zeroFill := false, false
	hasFile := slices.ContainsFunc(img.sections, func(s section) bool { return s.mapped && s.fsize > 0 && s.size > 0 })
	if hasFile {
		for i := range img.sections {
			s := &img.sections[i]
			if !s.mapped || s.size == 0 || filtered && s.name != filter {
				continue
			}
			known = true
			if s.fsize < s.size {
				zeroFill = true
			}
			fsz := min(s.fsize, s.size)
			if s.off >= size || fsz == 0 {
				continue
			}
			rs = append(rs, byteRegion{name: s.name, addr: s.addr, off: s.off, end: s.off + min(fsz, size-s.off), x: s.x})
		}
	} else {
		for _, r := range img.loads {
			name := ""
			var x bool
			for i := range img.segments {
				if sg := &img.segments[i]; r.addr >= sg.start && r.addr < sg.end {
					name, x = sg.name, sg.x
					break
				}
			}
			if filtered && name != filter {
				continue
			}
			known = true
			rs = append(rs, byteRegion{name: name, addr: r.addr, off: r.off, end: r.end, x: x})
		}
		if len(rs) > 0 {
			lims = append(lims, "the image has no file-backed sections: its load segments were searched, and each hit names its segment")
		}
	}
	if filtered && !known {
		return nil, nil, fault.Invalid(op, fault.Issue{Path: "/section", Reason: "invalid_value",
			Message: "No mapped section has this name (list_segments lists them)."})
	}
	if zeroFill {
		lims = append(lims, "zero-fill bytes (such as .bss) were not searched: the file holds none of them")
	}
	slices.SortStableFunc(rs, func(a, b byteRegion) int {
		if a.addr != b.addr {
			if a.addr < b.addr {
				return -1
			}
			return 1
		}
		return 0
	})
	out := rs[:0]
	var covered uint64
	for i, r := range rs {
		if i > 0 && r.addr < covered {
			skip := covered - r.addr
			if skip >= r.end-r.off {
				continue
			}
			r.addr, r.off = covered, r.off+skip
		}
		out = append(out, r)
		covered = satAdd(r.addr, r.end-r.off)
	}
	return out, lims, nil
}

// byteMatcher finds a pattern by one of its literal bytes, the rarest in a
// sample of the bytes searched (bytes.IndexByte, vectorized, skips the
// rest); when even that byte is common (x86 code is full of 48, 89, 8b), by
// the pair of literal bytes whose sampled frequencies have the smallest
// product, tested eight positions at a time in two machine words. The other
// literal bytes are checked at each candidate, rarest first. Nothing is
// allocated per byte or per match.
type byteMatcher struct {
	n      int // pattern length
	o1, o2 int // offsets of the anchor byte(s) in the pattern
	b1, b2 byte
	pair   bool
	checks []byteCheck
}

type byteCheck struct {
	off int
	b   byte
}

// commonByte is the sampled share (per 1024) above which a byte is too
// frequent to search for alone: IndexByte would stop every few dozen bytes.
const commonByte = 16

// newByteMatcher chooses the anchor; freq is a byte histogram of a sample of
// the data (nil: every byte alike).
func newByteMatcher(p provider.BytePattern, freq *[256]int) *byteMatcher {
	if freq == nil {
		freq = new([256]int)
	}
	var total int
	for _, f := range freq {
		total += f
	}
	m := &byteMatcher{n: len(p.Bytes)}
	var lits []int
	for i, lit := range p.Literal {
		if lit {
			lits = append(lits, i)
		}
	}
	rare := lits[0]
	for _, i := range lits {
		if freq[p.Bytes[i]] < freq[p.Bytes[rare]] {
			rare = i
		}
	}
	m.o1, m.b1 = rare, p.Bytes[rare]
	if len(lits) > 1 && freq[m.b1]*1024 > commonByte*total {
		best := -1
		for x, i := range lits {
			for _, j := range lits[x+1:] {
				if c := freq[p.Bytes[i]] * freq[p.Bytes[j]]; best < 0 || c < best {
					best, m.o1, m.o2 = c, i, j
				}
			}
		}
		m.b1, m.b2, m.pair = p.Bytes[m.o1], p.Bytes[m.o2], true
	}
	for _, i := range lits {
		if i != m.o1 && (!m.pair || i != m.o2) {
			m.checks = append(m.checks, byteCheck{i, p.Bytes[i]})
		}
	}
	slices.SortStableFunc(m.checks, func(a, b byteCheck) int { return freq[a.b] - freq[b.b] })
	return m
}

// scan calls hit with every i in [from, to) where the pattern matches
// data[i:], in increasing order.
func (m *byteMatcher) scan(data []byte, from, to int, hit func(i int)) {
	to = min(to, len(data)-m.n+1)
	if m.pair {
		m.scanPair(data, from, to, hit)
		return
	}
	for i := from; i < to; {
		k := bytes.IndexByte(data[i+m.o1:to+m.o1], m.b1)
		if k < 0 {
			return
		}
		m.verify(data, i+k, hit)
		i += k + 1
	}
}

// scanPair tests eight candidate positions per step: a zero byte of
// (word at p+o1 XOR b1…) | (word at p+o2 XOR b2…) is a position where both
// anchor bytes are in place. Both loads stay inside data: p+7 < to and
// o1, o2 < n, so p+o+8 <= to-1+n <= len(data).
func (m *byteMatcher) scanPair(data []byte, from, to int, hit func(i int)) {
	const lo7, ones = 0x7f7f7f7f7f7f7f7f, 0x0101010101010101
	r1, r2 := uint64(m.b1)*ones, uint64(m.b2)*ones
	p := from
	for ; p+8 <= to; p += 8 {
		x := (binary.LittleEndian.Uint64(data[p+m.o1:]) ^ r1) | (binary.LittleEndian.Uint64(data[p+m.o2:]) ^ r2)
		// High bit of each byte of z set exactly where x has a zero byte.
		z := ^((x&lo7 + lo7) | x | lo7)
		for z != 0 {
			k := bits.TrailingZeros64(z) >> 3
			m.verify(data, p+k, hit)
			z &= z - 1
		}
	}
	for ; p < to; p++ {
		if data[p+m.o1] == m.b1 && data[p+m.o2] == m.b2 {
			m.verify(data, p, hit)
		}
	}
}

// verify calls hit with s when every checked literal byte is in place.
func (m *byteMatcher) verify(data []byte, s int, hit func(i int)) {
	for _, c := range m.checks {
		if data[s+c.off] != c.b {
			return
		}
	}
	hit(s)
}

// sampleFreq is a byte histogram of up to 64 windows of 4 KiB spread over
// the regions: enough to tell a rare byte from a common one in this file's
// code and data, for a fraction of a millisecond.
func sampleFreq(data []byte, regions []byteRegion) *[256]int {
	var freq [256]int
	var total uint64
	for _, r := range regions {
		total += r.end - r.off
	}
	const window = 4 << 10
	stride := max(total/64, window)
	var pos uint64 // in the regions laid end to end
	for _, r := range regions {
		n := r.end - r.off
		for ; pos < n; pos += stride {
			for _, b := range data[r.off+pos : r.off+min(pos+window, n)] {
				freq[b]++
			}
		}
		pos -= n
	}
	return &freq
}

// bytesHit is a hit kept for the page: its address and region.
type bytesHit struct {
	addr   uint64
	region int
}

func (c *Client) searchBytes(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	pat, err := provider.BytePatternParam(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	offset, limit, err := provider.PageParams(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	regions, lims, err := c.byteRegions(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	lims = append(slices.Clip(c.ix.img.limitations), lims...)
	m := newByteMatcher(pat, sampleFreq(c.data, regions))
	budget := len(c.data)
	scanned, matches, exhausted := 0, 0, false
	var kept []bytesHit
	ri := 0
	hit := func(i int) {
		if matches >= offset && len(kept) < limit {
			r := &regions[ri]
			kept = append(kept, bytesHit{addr: r.addr + uint64(i), region: ri})
		}
		matches++
	}
scan:
	for ri = range regions {
		r := &regions[ri]
		data := c.data[r.off:r.end]
		for from := 0; from < len(data); from += bytesChunk {
			if err := ctx.Err(); err != nil {
				return provider.Result{}, buildFault(op, err)
			}
			to := min(from+bytesChunk, len(data))
			if scanned+(to-from) > budget {
				to = from + (budget - scanned)
				exhausted = true
			}
			m.scan(data, from, to, hit)
			scanned += to - from
			rep.Report(progress.Update{Phase: "page", Completed: float64(scanned), Message: "bytes searched"})
			if exhausted {
				lims = append(lims, fmt.Sprintf("the scan budget (%d bytes, the file's size) was spent at %s: later bytes were not searched",
					budget, provider.FormatAddress(r.addr+uint64(to))))
				break scan
			}
		}
	}
	items := make([]provider.BytesItem, len(kept))
	var n *namer
	var ex *extentIndex
	cache := map[uint64][]insn{}
	for i, h := range kept {
		r := &regions[h.region]
		items[i] = provider.BytesItem{Address: provider.FormatAddress(h.addr), Section: r.name}
		if !r.x {
			continue // data: no procedure contains it
		}
		if n == nil {
			six, x, err := c.extents(ctx, op, rep)
			if err != nil {
				return provider.Result{}, err
			}
			n, ex = c.namer(six), x
		}
		entry, ok, _, err := n.containing(ctx, op, ex, h.addr, cache)
		if err != nil {
			return provider.Result{}, err
		}
		if ok {
			items[i].Procedure = n.procRef(entry)
		}
	}
	if n != nil {
		lims = append(lims, n.limitations()...)
	}
	p := provider.Page[provider.BytesItem]{Items: items, Offset: offset, Limit: limit, Returned: len(items)}
	if exhausted {
		// The count is not exact: resumable only past the hits found.
		p.Truncated = true
		if end := offset + len(items); end < matches {
			p.NextOffset = &end
		}
	} else {
		total := matches
		p.Total = &total
		if end := offset + len(items); end < total {
			p.NextOffset, p.Truncated = &end, true
		}
	}
	return provider.Result{Normalized: p, Limitations: lims}, nil
}
