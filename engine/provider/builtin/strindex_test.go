package builtin

import (
	"context"
	"errors"
	"math/rand"
	"reflect"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// chunkedImage returns bytes spanning several scan chunks, with strings
// across every chunk boundary, and an image mapping them as three ranges at
// the given addresses.
func chunkedImage(addrs [3]uint64) (*image, []byte) {
	r := rand.New(rand.NewSource(3))
	buf := make([]byte, 2*scanChunk+scanChunk/2+12345)
	for i := range buf {
		switch r.Intn(6) {
		case 0:
			buf[i] = 0
		case 1, 2:
			buf[i] = byte('a' + r.Intn(26))
		default:
			buf[i] = byte(r.Intn(256))
		}
	}
	for _, b := range []int{scanChunk, 2 * scanChunk} {
		copy(buf[b-10:], "straddling-the-chunk-boundary\x00")
		copy(buf[b+4000-7:], "s\x00t\x00r\x00a\x00d\x00d\x00l\x00e\x00\x00\x00")
	}
	// The middle range holds only UTF-16 strings, and the scan goes on
	// after it, on the worker that scanned it.
	split := scanChunk + scanChunk/3 // not on a chunk boundary
	wide := split + scanChunk/4
	for i := split; i < wide; i++ {
		buf[i] = 0x01
	}
	for i := split + 100; i+20 < wide; i += 997 {
		copy(buf[i:], "w\x00i\x00d\x00e\x00!\x00\x00\x00")
	}
	ranges := []fileRange{
		{off: 0, end: uint64(split), addr: addrs[0]},
		{off: uint64(split), end: uint64(wide), addr: addrs[1]},
		{off: uint64(wide), end: uint64(len(buf)), addr: addrs[2]},
	}
	img := &image{format: "elf", sliceSize: uint64(len(buf)), fileSize: uint64(len(buf)), ranges: ranges}
	for i, rg := range ranges {
		img.sections = append(img.sections, section{name: []string{".a", ".b", ".c"}[i], addr: rg.addr,
			size: rg.end - rg.off, off: rg.off, fsize: rg.end - rg.off, r: true, mapped: true})
	}
	return img, buf
}

// joinedStrings scans each range of img whole and joins the results: the
// single slice buildStrings used to make.
func joinedStrings(img *image, data []byte) []strEntry {
	var all []strEntry
	for _, r := range img.ranges {
		rb := data[r.off:r.end]
		all = append(all, mergeEntries(scanASCII(rb, 0, uint64(len(rb)), r.off, nil), scanUTF16(rb, 0, uint64(len(rb)), r.off, nil))...)
	}
	return all
}

// The chunked index pages, looks up and walks exactly like one joined slice,
// across chunk boundaries.
func TestStringIndexAcrossChunks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		addrs  [3]uint64
		sorted bool // addresses do not follow file order: sortByAddress joins
	}{
		{"file-order", [3]uint64{0x400000, 0x1000000, 0x2000000}, false},
		{"reordered", [3]uint64{0x2000000, 0x400000, 0x1000000}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, data := chunkedImage(tc.addrs)
			ctx := context.Background()
			stx, err := buildStrings(ctx, img, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.sorted && len(stx.chunks) < 3 {
				t.Fatalf("%d chunks; the test needs several", len(stx.chunks))
			}
			ref := &strIndex{ranges: stx.ranges, sections: stx.sections}
			ref.setChunks([][]strEntry{joinedStrings(img, data)})
			if tc.sorted {
				if err := ref.sortByAddress(ctx); err != nil {
					t.Fatal(err)
				}
			}
			want := ref.chunks[0]
			if stx.Len() != len(want) {
				t.Fatalf("Len %d, joined %d", stx.Len(), len(want))
			}
			n := 0
			for i, e := range stx.from(0) {
				if i != n || e != want[i] || stx.at(i) != want[i] || stx.addrOf(i) != ref.addrOf(i) || stx.addrAt(i, e) != ref.addrOf(i) {
					t.Fatalf("entry %d (%d): %+v, joined %+v", n, i, e, want[n])
				}
				n++
			}
			if n != len(want) {
				t.Fatalf("walked %d entries, want %d", n, len(want))
			}

			c := bareClient("t", "", img, data)
			page := func(addr uint64, hasAddr bool, off, lim int) {
				t.Helper()
				got := c.stringPage(stx, addr, hasAddr, off, lim)
				exp := c.stringPage(ref, addr, hasAddr, off, lim)
				if !reflect.DeepEqual(got, exp) {
					t.Fatalf("page(%#x, %v, %d, %d) differs from the joined index", addr, hasAddr, off, lim)
				}
			}
			for off := 0; off <= len(want); off += provider.MaxPageResults {
				page(0, false, off, provider.MaxPageResults)
			}
			r := rand.New(rand.NewSource(4))
			for _, s := range stx.starts {
				for _, d := range []int{-3, -1, 0, 1} {
					page(0, false, max(0, s+d), 1+r.Intn(9))
				}
				for _, d := range []int{-2, -1, 0} {
					if i := s + d; i >= 0 && i < len(want) {
						a := ref.addrOf(i)
						for _, aa := range []uint64{a - 1, a, a + 1} {
							page(aa, true, 0, 10)
							if got, exp := stx.search(aa), ref.search(aa); got != exp {
								t.Fatalf("search(%#x) = %d, joined %d", aa, got, exp)
							}
						}
					}
				}
			}
			for range 500 {
				page(0, false, r.Intn(len(want)+10), 1+r.Intn(provider.MaxPageResults))
				a := ref.addrOf(r.Intn(len(want)))
				page(a, true, 0, 3)
			}
			for _, a := range []uint64{0, tc.addrs[0] - 1, 0x3000000, ^uint64(0)} {
				page(a, true, 0, 10)
				if got, exp := stx.search(a), ref.search(a); got != exp {
					t.Fatalf("search(%#x) = %d, joined %d", a, got, exp)
				}
			}
		})
	}
}

// The join of an unusual layout stops when the request is cancelled.
func TestStringSortCancelled(t *testing.T) {
	img, data := chunkedImage([3]uint64{0x2000000, 0x400000, 0x1000000})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ix := &strIndex{ranges: img.ranges}
	ix.setChunks([][]strEntry{joinedStrings(img, data)})
	if err := ix.sortByAddress(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// An index with no strings answers every accessor.
func TestStringIndexEmpty(t *testing.T) {
	var set strIndex
	set.setChunks([][]strEntry{nil, {}})
	for _, ix := range []*strIndex{{}, &set} {
		n := 0
		for range ix.from(0) {
			n++
		}
		if ix.Len() != 0 || ix.search(5) != 0 || n != 0 {
			t.Fatalf("empty index: Len %d, search %d, walked %d", ix.Len(), ix.search(5), n)
		}
	}
}
