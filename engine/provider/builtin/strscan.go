package builtin

import (
	"cmp"
	"context"
	"encoding/binary"
	"iter"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
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

// strIndex is every string of the mapped file ranges, by address. It keeps
// the entries as the scan workers produced them, one slice per scan chunk:
// the chunks are already in address order, and joining them into one slice
// meant copying libLLVM-14's million entries (15 MB) into memory fresh from
// the operating system, 190–300 ms of page faults on the measurement machine
// and 15 MB more at the peak. starts holds the running counts that turn an
// index into (chunk, position), so paging, lookup by address and search
// see one sequence.
type strIndex struct {
	chunks      [][]strEntry // non-empty, in address order
	starts      []int        // starts[k] = entries before chunks[k]; one more element than chunks
	addrs       []uint64     // nil when addresses follow file order; else parallel to the single chunk
	ranges      []fileRange
	sections    []int
	limitations []string
}

// setChunks makes chunks the index's entries, dropping empty ones.
func (ix *strIndex) setChunks(chunks [][]strEntry) {
	ix.chunks = ix.chunks[:0]
	ix.starts = append(ix.starts[:0], 0)
	n := 0
	for _, c := range chunks {
		if len(c) == 0 {
			continue
		}
		n += len(c)
		ix.chunks = append(ix.chunks, c)
		ix.starts = append(ix.starts, n)
	}
}

// Len returns the number of strings.
func (ix *strIndex) Len() int {
	if len(ix.starts) == 0 {
		return 0
	}
	return ix.starts[len(ix.starts)-1]
}

// locate returns the chunk holding entry i and i's position in it.
func (ix *strIndex) locate(i int) (k, j int) {
	k = sort.Search(len(ix.chunks), func(k int) bool { return ix.starts[k+1] > i })
	return k, i - ix.starts[k]
}

// at returns entry i.
func (ix *strIndex) at(i int) strEntry {
	k, j := ix.locate(i)
	return ix.chunks[k][j]
}

// addrOf returns the address of entry i.
func (ix *strIndex) addrOf(i int) uint64 {
	if ix.addrs != nil {
		return ix.addrs[i]
	}
	return ix.addrFromOff(ix.at(i).off)
}

// addrAt returns the address of e, which is entry i; from's callers have
// e at hand, which spares addrOf's search for its chunk.
func (ix *strIndex) addrAt(i int, e strEntry) uint64 {
	if ix.addrs != nil {
		return ix.addrs[i]
	}
	return ix.addrFromOff(e.off)
}

// from yields the entries from index i on, with their indexes, finding the
// first chunk once rather than for every entry.
func (ix *strIndex) from(i int) iter.Seq2[int, strEntry] {
	return func(yield func(int, strEntry) bool) {
		if i < 0 || i >= ix.Len() {
			return
		}
		k, j := ix.locate(i)
		for ; k < len(ix.chunks); k, j = k+1, 0 {
			for _, e := range ix.chunks[k][j:] {
				if !yield(i, e) {
					return
				}
				i++
			}
		}
	}
}

// search returns the index of the first entry at or above addr (Len when
// there is none).
func (ix *strIndex) search(addr uint64) int {
	if ix.addrs != nil {
		i, _ := slices.BinarySearch(ix.addrs, addr)
		return i
	}
	k := sort.Search(len(ix.chunks), func(k int) bool {
		c := ix.chunks[k]
		return ix.addrFromOff(c[len(c)-1].off) >= addr
	})
	if k == len(ix.chunks) {
		return ix.Len()
	}
	c := ix.chunks[k]
	return ix.starts[k] + sort.Search(len(c), func(j int) bool { return ix.addrFromOff(c[j].off) >= addr })
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
			// Sized for a chunk of code or data (Go's compile: about one
			// ASCII string every 50 bytes), so few jobs grow them.
			scratchA, scratchU := make([]strEntry, 0, scanChunk/32), make([]strEntry, 0, scanChunk/1024)
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
					// Both workers would otherwise keep both processors of a
					// two-core machine until the scheduler preempts them (every
					// 10–20 ms), and the goroutine that reads
					// notifications/cancelled would wait that long to run.
					runtime.Gosched()
				}
				scratchA, scratchU = out, u // keep the grown buffers for the next job
				// The result must not share memory with the scratch buffers,
				// which the next job overwrites: mergeEntries returns one of
				// its arguments when the other is empty.
				var err error
				if len(out) > 0 && len(u) > 0 {
					results[job.seq] = mergeEntries(out, u)
				} else {
					only := out // one of the two is empty
					if len(u) > 0 {
						only = u
					}
					results[job.seq], err = appendChecked(ctx, make([]strEntry, 0, len(only)), only)
				}
				if err != nil {
					errOnce.Do(func() { firstErr = err; close(stop) })
					return
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
	if prog != nil {
		prog(scanned.Load()) // the final count: the ticker saw only some of it
	}
	ix.setChunks(results)
	// Entries are in file order. When addresses do not increase with file
	// offsets (unusual layouts, damaged headers), sort by address explicitly.
	inOrder := true
	var prevEnd uint64 // exclusive end address of the previous range
	for i, r := range img.ranges {
		last := r.addr + (r.end - r.off - 1)
		if last < r.addr || i > 0 && r.addr < prevEnd { // wraps past 2^64, or overlaps/precedes
			inOrder = false
			break
		}
		prevEnd = last + 1
		if prevEnd == 0 { // ends exactly at the top of the address space
			prevEnd = ^uint64(0)
		}
	}
	if !inOrder {
		if err := ix.sortByAddress(ctx); err != nil {
			return nil, err
		}
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

// sortByAddress joins the chunks into one, in address order, and records
// each entry's address. Only unusual layouts need it, so its copies are
// tolerable; they stop when ctx ends, like the sort.
func (ix *strIndex) sortByAddress(ctx context.Context) error {
	type pair struct {
		a uint64
		e strEntry
	}
	ps := make([]pair, 0, ix.Len())
	for i, e := range ix.from(0) {
		if i&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		ps = append(ps, pair{ix.addrFromOff(e.off), e})
	}
	g := sortGuard{ctx: ctx}
	err := g.run(func() {
		slices.SortStableFunc(ps, func(x, y pair) int {
			g.tick()
			if c := cmp.Compare(x.a, y.a); c != 0 {
				return c
			}
			return int(x.e.meta&metaUTF16) - int(y.e.meta&metaUTF16)
		})
	})
	if err != nil {
		return err
	}
	entries := make([]strEntry, len(ps))
	ix.addrs = make([]uint64, len(ps))
	for i, p := range ps {
		ix.addrs[i], entries[i] = p.a, p.e
	}
	ix.setChunks([][]strEntry{entries})
	return nil
}

// Masks for the branch-free scanners: all ones for a printable byte (or a
// zero byte), else zero.
var printMask, zeroMask = func() (p, z [256]uint64) {
	for c := range 256 {
		if printable[c] {
			p[c] = ^uint64(0)
		}
	}
	z[0] = ^uint64(0)
	return
}()

// scanASCII appends the runs that start in rb[start:end); a run may extend
// past end. base is rb's offset within the analyzed bytes. The loop keeps a
// run-length counter without data-dependent branches: only the end of a run
// of minStringLen or more branches, which is rare in code and predictable in
// text.
func scanASCII(rb []byte, start, end, base uint64, out []strEntry) []strEntry {
	n := uint64(len(rb))
	end = min(end, n)
	i := start
	if i > 0 && i < n && printable[rb[i-1]] {
		for i < n && printable[rb[i]] { // owned by the previous chunk
			i++
		}
	}
	var cnt uint64
	if i < end {
		w := rb[i:end]
		for k, c := range w {
			m := printMask[c]
			if cnt >= minStringLen && m == 0 {
				out = appendRun(out, base+i+uint64(k)-cnt, cnt, 0, c == 0)
			}
			cnt = (cnt + 1) & m
		}
		i = end
	}
	if cnt > 0 { // the last run goes on past end
		for i < n && printable[rb[i]] {
			i++
			cnt++
		}
		if cnt >= minStringLen {
			out = appendRun(out, base+i-cnt, cnt, 0, i < n && rb[i] == 0)
		}
	}
	return out
}

func appendRun(out []strEntry, off, n uint64, meta uint32, terminated bool) []strEntry {
	if n > 1<<32-1 {
		return out
	}
	if terminated {
		meta |= metaTerminated
	}
	return append(out, strEntry{off: off, n: uint32(n), meta: meta})
}

// scanUTF16 appends the UTF-16LE runs starting in rb[start:end), both byte
// alignments, in offset order.
func scanUTF16(rb []byte, start, end, base uint64, out []strEntry) []strEntry {
	n := uint64(len(rb))
	end = min(end, n)
	valid := func(j uint64) bool { return j+1 < n && rb[j+1] == 0 && printable[rb[j]] }
	var lists [2][]strEntry
	for p := uint64(0); p < 2; p++ {
		j := start + (p+2-start%2)%2 // first index >= start with parity p
		if j >= 2 && valid(j-2) {
			for valid(j) { // owned by the previous chunk
				j += 2
			}
		}
		var cnt uint64
		lim := min(end, n-min(n, 1)) // a unit at j needs rb[j+1]
		if j < lim {
			w := rb[j : lim+1]
			k := 0
			unit := func() {
				lo, hi := w[k], w[k+1]
				m := printMask[lo] & zeroMask[hi]
				if cnt >= minStringLen && m == 0 {
					lists[p] = appendRun(lists[p], base+j+uint64(k)-2*cnt, 2*cnt, metaUTF16, lo == 0 && hi == 0)
				}
				cnt = (cnt + 1) & m
			}
			// Four units at a time, as far as utf16Candidates tells: a block
			// without a possible character only ends the current run; and
			// outside a run (cnt 0) no run of four can end inside a block,
			// so one whose last unit is no character leaves cnt 0. Most
			// code and data is such blocks; the rest is read unit by unit.
			for ; k+8 <= len(w); k += 8 {
				c := utf16Candidates(binary.LittleEndian.Uint64(w[k:]))
				switch {
				case cnt == 0 && c>>63 == 0:
				case c == 0:
					if cnt >= minStringLen {
						lists[p] = appendRun(lists[p], base+j+uint64(k)-2*cnt, 2*cnt, metaUTF16, w[k] == 0 && w[k+1] == 0)
					}
					cnt = 0
				default:
					for e := k + 8; k < e; k += 2 {
						unit()
					}
					k -= 8
				}
			}
			for ; k+1 < len(w); k += 2 {
				unit()
			}
			j += uint64(k)
		}
		if cnt > 0 {
			for valid(j) {
				j += 2
				cnt++
			}
			if cnt >= minStringLen {
				lists[p] = appendRun(lists[p], base+j-2*cnt, 2*cnt, metaUTF16, j+1 < n && rb[j] == 0 && rb[j+1] == 0)
			}
		}
	}
	u := mergeEntries(lists[0], lists[1])
	return append(out, u...)
}

// utf16Candidates returns, for the four little-endian UTF-16 units in v,
// the high bit of each 16-bit lane whose unit is in 0x0009..0x007f: a
// superset of the printable units (printMask&zeroMask), computed without
// branches. No lane carries into the next: below, each lane of v|high is at
// least 0x8000 before 9 is subtracted, and x&^high+0x7fff stays below
// 0x10000.
func utf16Candidates(v uint64) uint64 {
	const high = 0x8000800080008000
	x := v & 0xff80ff80ff80ff80 // zero lane: unit < 0x80
	nonzero := (x&^high + 0x7fff7fff7fff7fff) | x
	atLeast9 := (v | high) - 0x0009000900090009
	return ^nonzero & atLeast9 & high
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
