package builtin

import (
	"context"
	"encoding/binary"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf16"
)

// String scanning follows GNU `strings`: a run of at least minStringLen
// printable characters (0x20..0x7e plus TAB). UTF-16LE strings are runs of
// code units whose high byte is zero and whose low byte is such a character
// (`strings -e l`), at least minStringLen units, at any byte alignment.
const (
	minStringLen = 4
	maxValueLen  = 1024    // characters materialized per value
	scanChunk    = 4 << 20 // bytes per parallel work item
	scanTick     = 1 << 20 // cancellation/progress granularity
)

var printable = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = true
	}
	t['\t'] = true
	return
}()

// strEntry is one found string: file offset (within the analyzed bytes) and
// byte length; meta holds the encoding and termination bits.
type strEntry struct {
	off  uint64
	n    uint32
	meta uint32
}

const (
	metaUTF16      = 1 << 0
	metaTerminated = 1 << 1
)

// strIndex is every string of the mapped file ranges, by address.
type strIndex struct {
	entries     []strEntry
	addrs       []uint64 // parallel to entries; nil when addresses follow file order (see addrOf)
	ranges      []fileRange
	sections    []int
	limitations []string
}

// addrOf returns the address of entry i.
func (ix *strIndex) addrOf(i int) uint64 {
	if ix.addrs != nil {
		return ix.addrs[i]
	}
	return ix.addrFromOff(ix.entries[i].off)
}

func (ix *strIndex) addrFromOff(off uint64) uint64 {
	k, _ := slices.BinarySearchFunc(ix.ranges, off, func(r fileRange, o uint64) int {
		switch {
		case r.end <= o:
			return -1
		case r.off > o:
			return 1
		}
		return 0
	})
	if k >= len(ix.ranges) {
		return 0
	}
	r := ix.ranges[k]
	return r.addr + (off - r.off)
}

type scanJob struct {
	seq        int
	rng        int    // index into ranges
	start, end uint64 // chunk within the range, relative to the range start
}

// buildStrings scans every mapped file range of img, in parallel chunks.
func buildStrings(ctx context.Context, img *image, data []byte, prog func(done int64)) (*strIndex, error) {
	ix := &strIndex{ranges: img.ranges, sections: img.fileSectionIndex()}
	var jobs []scanJob
	var mapped uint64
	for ri, r := range img.ranges {
		if r.end > uint64(len(data)) {
			continue
		}
		mapped += r.end - r.off
		for s := uint64(0); s < r.end-r.off; s += scanChunk {
			jobs = append(jobs, scanJob{seq: len(jobs), rng: ri, start: s, end: min(s+scanChunk, r.end-r.off)})
		}
	}
	results := make([][]strEntry, len(jobs))
	var next, scanned atomic.Int64
	var firstErr error
	var errOnce sync.Once
	workers := min(runtime.GOMAXPROCS(0), 2, max(len(jobs), 1))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratchA, scratchU []strEntry
			// A mapped file truncated underneath us faults: make that a panic.
			debug.SetPanicOnFault(true)
			defer func() {
				if r := recover(); r != nil {
					errOnce.Do(func() { firstErr = panicError(r); close(stop) })
				}
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				j := int(next.Add(1) - 1)
				if j >= len(jobs) {
					return
				}
				job := jobs[j]
				r := img.ranges[job.rng]
				rb := data[r.off:r.end]
				out, u := scratchA[:0], scratchU[:0]
				for s := job.start; s < job.end; s += scanTick {
					if err := ctx.Err(); err != nil {
						errOnce.Do(func() { firstErr = err; close(stop) })
						return
					}
					e := min(s+scanTick, job.end)
					out = scanASCII(rb, s, e, r.off, out)
					u = scanUTF16(rb, s, e, r.off, u)
					scanned.Add(int64(e - s))
				}
				scratchA, scratchU = out, u // keep the grown buffers for the next job
				if len(u) > 0 {
					results[job.seq] = mergeEntries(out, u)
				} else {
					results[job.seq] = slices.Clone(out)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if prog != nil {
		prog(0)
	}
	ticker := time.NewTicker(progressEvery)
	defer ticker.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-ctx.Done():
			// Workers notice at their next tick; wait so none outlives the call.
			<-done
			break wait
		case <-ticker.C:
			if prog != nil {
				prog(scanned.Load())
			}
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := 0
	for _, r := range results {
		total += len(r)
	}
	ix.entries = make([]strEntry, 0, total)
	for _, r := range results {
		ix.entries = append(ix.entries, r...)
	}
	// Entries are in file order. When addresses do not increase with file
	// offsets (unusual layouts, damaged headers), sort by address explicitly.
	inOrder := true
	for i := 1; i < len(img.ranges); i++ {
		a, b := img.ranges[i-1], img.ranges[i]
		if b.addr < a.addr+(a.end-a.off) || a.addr+(a.end-a.off) < a.addr {
			inOrder = false
			break
		}
	}
	if !inOrder {
		ix.sortByAddress()
	}
	if unscanned := int64(img.sliceSize) - int64(mapped); unscanned > 0 {
		ix.limitations = append(ix.limitations, unscannedLimitation(uint64(unscanned)))
	}
	return ix, nil
}

func unscannedLimitation(n uint64) string {
	return "strings are listed only where the file bytes are mapped to addresses; " +
		itoa(n) + " byte(s) outside every loaded segment (headers not loaded, non-allocated sections such as symbol, " +
		"debug and comment sections, overlays) were not scanned, although `strings -a` would scan them"
}

func (ix *strIndex) sortByAddress() {
	type pair struct {
		a uint64
		e strEntry
	}
	ps := make([]pair, len(ix.entries))
	for i, e := range ix.entries {
		ps[i] = pair{ix.addrFromOff(e.off), e}
	}
	slices.SortStableFunc(ps, func(x, y pair) int {
		if x.a != y.a {
			if x.a < y.a {
				return -1
			}
			return 1
		}
		return int(x.e.meta&metaUTF16) - int(y.e.meta&metaUTF16)
	})
	ix.addrs = make([]uint64, len(ps))
	for i, p := range ps {
		ix.addrs[i], ix.entries[i] = p.a, p.e
	}
}

// scanASCII appends the runs that start in rb[start:end); a run may extend
// past end. base is rb's offset within the analyzed bytes. Runs of
// non-printable bytes and of printable bytes are crossed eight bytes at a time
// where possible (SWAR tests on 64-bit words).
func scanASCII(rb []byte, start, end, base uint64, out []strEntry) []strEntry {
	n := uint64(len(rb))
	i := start
	if i > 0 && printable[rb[i-1]] {
		i = asciiRunEnd(rb, i) // owned by the previous chunk
	}
	for i < end {
		for i+8 <= end && !anyPrintable(binary.LittleEndian.Uint64(rb[i:])) {
			i += 8
		}
		for i < end && !printable[rb[i]] {
			i++
		}
		if i >= end {
			break
		}
		s := i
		i = asciiRunEnd(rb, i)
		if i-s >= minStringLen && i-s <= 1<<32-1 {
			e := strEntry{off: base + s, n: uint32(i - s)}
			if i < n && rb[i] == 0 {
				e.meta |= metaTerminated
			}
			out = append(out, e)
		}
	}
	return out
}

// asciiRunEnd returns the end of the printable run containing rb[i].
func asciiRunEnd(rb []byte, i uint64) uint64 {
	n := uint64(len(rb))
	for i+8 <= n && allPrintable(binary.LittleEndian.Uint64(rb[i:])) {
		i += 8
	}
	for i < n && printable[rb[i]] {
		i++
	}
	return i
}

const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// hasBetween reports a byte b of x with m < b < n (0 <= m <= 127, n <= 128).
func hasBetween(x uint64, m, n uint64) bool {
	return (swarLo*(127+n)-(x&(swarLo*127)))&^x&((x&(swarLo*127))+swarLo*(127-m))&swarHi != 0
}

// anyPrintable reports whether some byte of x is 0x20..0x7e or TAB.
func anyPrintable(x uint64) bool { return hasBetween(x, 0x1f, 0x7f) || hasBetween(x, 0x08, 0x0a) }

// allPrintable reports whether every byte of x is 0x20..0x7e (a TAB makes it
// false; the byte loop then decides).
func allPrintable(x uint64) bool {
	hasLess := (x - swarLo*0x20) &^ x & swarHi
	hasMore := ((x + swarLo*(127-0x7e)) | x) & swarHi
	return hasLess|hasMore == 0
}

// hasZero reports whether some byte of x is zero.
func hasZero(x uint64) bool { return (x-swarLo)&^x&swarHi != 0 }

// scanUTF16 appends the UTF-16LE runs starting in rb[start:end), both byte
// alignments, in offset order.
func scanUTF16(rb []byte, start, end, base uint64, out []strEntry) []strEntry {
	n := uint64(len(rb))
	valid := func(j uint64) bool { return j+1 < n && rb[j+1] == 0 && printable[rb[j]] }
	var lists [2][]strEntry
	for p := uint64(0); p < 2; p++ {
		j := start + (p+2-start%2)%2 // first index >= start with parity p
		if j >= 2 && valid(j-2) {
			for valid(j) {
				j += 2
			}
		}
		for j < end {
			// A unit needs a zero high byte: where the eight bytes from j+1
			// hold none, units j..j+7 are all invalid.
			for j+9 <= end && !hasZero(binary.LittleEndian.Uint64(rb[j+1:])) {
				j += 8
			}
			for j < end && !(j+1 < n && rb[j+1] == 0 && printable[rb[j]]) {
				j += 2
			}
			if j >= end {
				break
			}
			s := j
			for valid(j) {
				j += 2
			}
			if (j-s)/2 >= minStringLen && j-s <= 1<<32-1 {
				e := strEntry{off: base + s, n: uint32(j - s), meta: metaUTF16}
				if j+1 < n && rb[j] == 0 && rb[j+1] == 0 {
					e.meta |= metaTerminated
				}
				lists[p] = append(lists[p], e)
			}
		}
	}
	u := mergeEntries(lists[0], lists[1])
	return append(out, u...)
}

func mergeEntries(a, b []strEntry) []strEntry {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]strEntry, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].off < b[j].off || a[i].off == b[j].off && a[i].meta&metaUTF16 == 0 {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// value materializes a string's text (at most maxValueLen characters).
func (e strEntry) value(data []byte) (string, bool) {
	if e.off > uint64(len(data)) {
		return "", false
	}
	end := min(e.off+uint64(e.n), uint64(len(data)))
	b := data[e.off:end]
	if e.meta&metaUTF16 == 0 {
		if len(b) > maxValueLen {
			return string(b[:maxValueLen]), true
		}
		return string(b), false
	}
	units := len(b) / 2
	trunc := false
	if units > maxValueLen {
		units, trunc = maxValueLen, true
	}
	u := make([]uint16, units)
	for k := range u {
		u[k] = uint16(b[2*k]) | uint16(b[2*k+1])<<8
	}
	return string(utf16.Decode(u)), trunc
}
