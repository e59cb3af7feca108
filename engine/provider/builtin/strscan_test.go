package builtin

import (
	"math/rand"
	"testing"
)

// scanASCII and scanUTF16 over random chunkings equal one whole scan.
func TestScanChunkingInvariant(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for n := 0; n < 300; n++ {
		buf := make([]byte, r.Intn(3000))
		for i := range buf {
			switch r.Intn(5) {
			case 0:
				buf[i] = 0
			case 1:
				buf[i] = byte('a' + r.Intn(26))
			case 2:
				if i > 0 && buf[i-1] != 0 {
					buf[i] = 0
				} else {
					buf[i] = byte('a' + r.Intn(26))
				}
			default:
				buf[i] = byte(r.Intn(256))
			}
		}
		whole := mergeEntries(scanASCII(buf, 0, uint64(len(buf)), 7, nil), scanUTF16(buf, 0, uint64(len(buf)), 7, nil))
		var a, u []strEntry
		for s := 0; s < len(buf); {
			e := min(s+1+r.Intn(200), len(buf))
			a = scanASCII(buf, uint64(s), uint64(e), 7, a)
			u = scanUTF16(buf, uint64(s), uint64(e), 7, u)
			s = e
		}
		parts := mergeEntries(a, u)
		if len(parts) != len(whole) {
			t.Fatalf("chunked %d entries, whole %d", len(parts), len(whole))
		}
		for i := range parts {
			if parts[i] != whole[i] {
				t.Fatalf("entry %d: %+v vs %+v", i, parts[i], whole[i])
			}
		}
		// naive reference for ASCII
		var ref []strEntry
		for i := 0; i < len(buf); {
			if !printable[buf[i]] {
				i++
				continue
			}
			s := i
			for i < len(buf) && printable[buf[i]] {
				i++
			}
			if i-s >= 4 {
				e := strEntry{off: 7 + uint64(s), n: uint32(i - s)}
				if i < len(buf) && buf[i] == 0 {
					e.meta |= metaTerminated
				}
				ref = append(ref, e)
			}
		}
		var uref []strEntry
		valid := func(j int) bool { return j+1 < len(buf) && buf[j+1] == 0 && printable[buf[j]] }
		for p := 0; p < 2; p++ {
			var l []strEntry
			for j := p; j < len(buf); {
				if !valid(j) {
					j += 2
					continue
				}
				s := j
				for valid(j) {
					j += 2
				}
				if (j-s)/2 >= 4 {
					e := strEntry{off: 7 + uint64(s), n: uint32(j - s), meta: metaUTF16}
					if j+1 < len(buf) && buf[j] == 0 && buf[j+1] == 0 {
						e.meta |= metaTerminated
					}
					l = append(l, e)
				}
			}
			uref = mergeEntries(uref, l)
		}
		if gu := scanUTF16(buf, 0, uint64(len(buf)), 7, nil); len(gu) != len(uref) {
			t.Fatalf("utf16 %d vs reference %d", len(gu), len(uref))
		} else {
			for i := range gu {
				if gu[i] != uref[i] {
					t.Fatalf("utf16 entry %d: %+v vs %+v", i, gu[i], uref[i])
				}
			}
		}
		got := scanASCII(buf, 0, uint64(len(buf)), 7, nil)
		if len(got) != len(ref) {
			t.Fatalf("ascii %d vs reference %d", len(got), len(ref))
		}
		for i := range ref {
			if got[i] != ref[i] {
				t.Fatalf("ascii entry %d: %+v vs %+v", i, got[i], ref[i])
			}
		}
	}
}

// utf16Candidates marks exactly the lanes holding 0x0009..0x007f, whatever
// the other lanes hold, so it never hides a printable unit.
func TestUTF16Candidates(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for u := range 1 << 16 {
		for lane := range 4 {
			v := r.Uint64()
			v = v&^(0xffff<<(16*lane)) | uint64(u)<<(16*lane)
			got := utf16Candidates(v)>>(16*lane+15)&1 == 1
			if want := u >= 9 && u <= 0x7f; got != want {
				t.Fatalf("unit %#04x in lane %d of %#016x: candidate %v, want %v", u, lane, v, got, want)
			}
			if printMask[u&0xff]&zeroMask[u>>8] != 0 && !got {
				t.Fatalf("printable unit %#04x hidden", u)
			}
		}
	}
}
