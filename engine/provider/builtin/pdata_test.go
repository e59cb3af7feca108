package builtin

import (
	"encoding/binary"
	"fmt"
	"slices"
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

// syntheticPE is an x86_64 PE image with .text at RVA 0x1000 (file 0x400),
// .xdata at 0x2000 (file 0x500) and .pdata at 0x3000 (file 0x600), each 0x100
// bytes, for the unwind and thunk walks; fill writes the file bytes.
func syntheticPE(fill func(data []byte)) (*image, []byte) {
	const base = 0x140000000
	img := &image{arch: "x86_64", bo: binary.LittleEndian, is64: true, sections: []section{
		{name: ".text", addr: base + 0x1000, size: 0x100, off: 0x400, fsize: 0x100, r: true, x: true, mapped: true},
		{name: ".xdata", addr: base + 0x2000, size: 0x100, off: 0x500, fsize: 0x100, r: true, mapped: true},
		{name: ".pdata", addr: base + 0x3000, size: 0x100, off: 0x600, fsize: 0x100, r: true, mapped: true},
	}}
	img.pe = &peInfo{imageBase: base, exceptDir: [2]uint32{0x3000, 0}, secByRVA: []int{0, 1, 2},
		secVA: []uint32{0x1000, 0x2000, 0x3000}, secRaw: []uint32{0x400, 0x500, 0x600}, secRawSize: []uint32{0x100, 0x100, 0x100}}
	data := make([]byte, 0x700)
	fill(data)
	return img, data
}

// A chained range (UNW_FLAG_CHAININFO, or an indirect UnwindData with the low
// bit set) continues another function: an extent, not a function start.
func TestPdataChainedRangesAreNotStarts(t *testing.T) {
	entry := func(b, e, u uint32) []byte {
		var x [12]byte
		binary.LittleEndian.PutUint32(x[0:], b)
		binary.LittleEndian.PutUint32(x[4:], e)
		binary.LittleEndian.PutUint32(x[8:], u)
		return x[:]
	}
	var tab []byte
	tab = append(tab, entry(0x1000, 0x1020, 0x2000)...) // primary
	tab = append(tab, entry(0x1020, 0x1030, 0x2010)...) // UNW_FLAG_CHAININFO
	tab = append(tab, entry(0x1040, 0x1050, 0x3001)...) // indirect: a RUNTIME_FUNCTION
	tab = append(tab, entry(0x1060, 0x1070, 0x9000)...) // unwind info outside the file
	img, data := syntheticPE(func(d []byte) {
		d[0x500] = 0x01           // version 1, no flags
		d[0x510] = 0x01 | 0x04<<3 // version 1, UNW_FLAG_CHAININFO
		copy(d[0x600:], tab)
	})
	img.pe.exceptDir[1] = uint32(len(tab))
	ranges, starts, lims := peUnwind(img, data)
	if len(lims) != 0 {
		t.Errorf("limitations %q", lims)
	}
	const base = 0x140000000
	if len(ranges) != 4 {
		t.Errorf("ranges %x", ranges)
	}
	if want := []uint64{base + 0x1000, base + 0x1060}; !slices.Equal(starts, want) {
		t.Errorf("starts %x, want %x", starts, want)
	}
}

// The IAT thunk walk accepts jmp [rip+slot] only from a known boundary over
// padding: a tail jump through the IAT after other code is not a thunk.
func TestIATThunkWalk(t *testing.T) {
	const base = 0x140000000
	const slot = base + 0x2080 // IAT slot in .xdata's range, for the test
	jmpAt := func(d []byte, rva uint32) {
		d[0x400+rva-0x1000] = 0xff
		d[0x400+rva-0x1000+1] = 0x25
		binary.LittleEndian.PutUint32(d[0x400+rva-0x1000+2:], uint32(slot-(base+uint64(rva)+6)))
	}
	img, data := syntheticPE(func(d []byte) {
		for i := 0x400; i < 0x500; i++ {
			d[i] = 0x31 // xor: "other code"
		}
		d[0x400+0x20], d[0x400+0x21] = 0x90, 0xcc // padding after the .pdata range
		jmpAt(d, 0x1022)                          // thunk
		d[0x400+0x28], d[0x400+0x29] = 0x90, 0x90
		jmpAt(d, 0x102a) // thunk
		// GNU ld's 8-byte nopl between two import libraries' thunk runs
		copy(d[0x400+0x30:], []byte{0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0})
		jmpAt(d, 0x1038) // thunk
		jmpAt(d, 0x1050) // after other code: a tail jump, not a thunk
		copy(d[0x600:], []byte{0x00, 0x10, 0, 0, 0x20, 0x10, 0, 0, 0x00, 0x20, 0, 0})
	})
	img.pe.exceptDir[1] = 12
	img.pe.pdata, img.pe.pdataStarts, _ = peUnwind(img, data)
	b := &symBuilder{ctx: t.Context(), data: data}
	b.addArena(symbol{addr: slot, kind: kindImport, source: srcImported, flags: flagDynamic | flagExternal}, "ExitProcess")
	if err := addIATThunks(img, b); err != nil {
		t.Fatal(err)
	}
	six, err := b.finish()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range six.procs {
		s := &six.syms[k]
		got = append(got, fmt.Sprintf("%x %s %d %v", s.addr, six.name(data, s), s.size, s.flags&flagThunk != 0))
	}
	want := []string{"140001022 ExitProcess 6 true", "14000102a ExitProcess 6 true", "140001038 ExitProcess 6 true"}
	if !slices.Equal(got, want) {
		t.Errorf("thunks %q, want %q", got, want)
	}
}

func TestX86PadLen(t *testing.T) {
	for _, c := range []struct {
		code []byte
		want int
	}{
		{[]byte{0x90}, 1},
		{[]byte{0xcc, 0x90}, 1},
		{[]byte{0x66, 0x90}, 2},
		{[]byte{0x0f, 0x1f, 0x00}, 3},
		{[]byte{0x0f, 0x1f, 0x40, 0x00}, 4},
		{[]byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, 5},
		{[]byte{0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}, 6},
		{[]byte{0x0f, 0x1f, 0x80, 0, 0, 0, 0}, 7},
		{[]byte{0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, 8},
		{[]byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, 10},
		{[]byte{0x0f, 0x1f, 0x84, 0, 0}, 0}, // cut short
		{[]byte{0x0f, 0x1f, 0x48, 0x00}, 0}, // reg 1: not a nop
		{[]byte{0xff, 0x25, 0, 0, 0, 0}, 0},
		{nil, 0},
	} {
		if got := x86PadLen(c.code); got != c.want {
			t.Errorf("x86PadLen(% x) = %d, want %d", c.code, got, c.want)
		}
	}
}
