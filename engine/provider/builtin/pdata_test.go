package builtin

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// PE x64: COFF symbols have no sizes; .pdata gives the extents, so addresses
// inside a function resolve and its instructions end at the function's ret.
func TestPEPdataExtents(t *testing.T) {
	path := mingwFixture(t, "mingw.exe", "-O1")
	od := objdumpInsns(t, mingw+"objdump", path)
	nm := nmAddrs(t, []string{mingw + "nm"}, path)
	_, _, c := open(t, path)
	for _, fn := range []string{"rea_add", "rea_mul"} {
		if len(nm[fn]) != 1 {
			t.Fatalf("nm %s: %v", fn, nm[fn])
		}
		a := nm[fn][0]
		pi := procInfo(t, c, fn)
		if pi.Length == 0 || pi.Entrypoint != provider.FormatAddress(a) {
			t.Fatalf("%s: %+v", fn, pi)
		}
		if got := containing(t, c, a+pi.Length-1); !got.Found || got.Procedure.Name != fn {
			t.Errorf("resolve end of %s: %+v", fn, got)
		}
		fi := readInsns(t, c, fn)
		var want []objInsn
		for x := a; x < a+pi.Length; x++ {
			if in, ok := od[x]; ok {
				want = append(want, in)
			}
		}
		items := fi.Instructions.Items
		if len(items) != len(want) || len(items) == 0 {
			t.Fatalf("%s: %d instructions, objdump %d", fn, len(items), len(want))
		}
		for i := range items {
			if items[i].Address != provider.FormatAddress(want[i].addr) || items[i].Bytes != want[i].bytes {
				t.Errorf("%s #%d: %+v, objdump %+v", fn, i, items[i], want[i])
			}
		}
		if last := items[len(items)-1]; !strings.HasPrefix(last.Text, "ret") {
			t.Errorf("%s ends with %q", fn, last.Text)
		}
		for _, l := range fi.Limitations {
			if strings.Contains(l, "recursive descent") {
				t.Errorf("%s: extent should be known: %v", fn, fi.Limitations)
			}
		}
	}
}

func FuzzParsePdata(f *testing.F) {
	entry := func(b, e, u uint32) []byte {
		var x [12]byte
		binary.LittleEndian.PutUint32(x[0:], b)
		binary.LittleEndian.PutUint32(x[4:], e)
		binary.LittleEndian.PutUint32(x[8:], u)
		return x[:]
	}
	f.Add(append(entry(0x1000, 0x1010, 0x5000), entry(0x1010, 0x1040, 0x5008)...), uint64(0x140000000))
	f.Add(entry(0x2000, 0x1000, 0), uint64(0))
	f.Add([]byte{1, 2, 3}, uint64(0x400000))
	f.Fuzz(func(t *testing.T, b []byte, base uint64) {
		rs := parsePdata(b, base)
		if len(rs) > len(b)/12 {
			t.Fatalf("%d ranges from %d bytes", len(rs), len(b))
		}
		for i, r := range rs {
			if r.end-r.start == 0 || r.end-r.start > maxPdataRange || i > 0 && rs[i-1].start > r.start {
				t.Fatalf("range %d %+v", i, r)
			}
		}
	})
}
