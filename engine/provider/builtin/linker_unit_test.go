package builtin

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// Unit tests of the linker's decoders on hand-built bytes: what the
// fixtures' toolchains do not write (special ordinals, re-exports,
// resolvers, absolute exports, damage).

func TestMachOBindOrdinals(t *testing.T) {
	lc := machoLoadInfo{flags: mhTwoLevel, id: "@rpath/libself.dylib",
		dylibs: []machoDylib{{"/usr/lib/libA.dylib", "load_dylib"}, {"/usr/lib/libB.dylib", "weak_dylib"}}}
	all := []string{"/usr/lib/libA.dylib", "/usr/lib/libB.dylib"}
	for _, c := range []struct {
		ordinal       int
		lookup, lib   string
		search        []string
		weak, limited bool
	}{
		{1, provider.LookupLibrary, "/usr/lib/libA.dylib", nil, false, false},
		{2, provider.LookupLibrary, "/usr/lib/libB.dylib", nil, true, false},
		{0, provider.LookupSelf, "@rpath/libself.dylib", nil, false, false},
		{-1, provider.LookupMainExecutable, "", nil, false, false},
		{-2, provider.LookupSearch, "", all, false, false},
		{-3, provider.LookupSearch, "", all, false, false},
		{3, provider.LookupSearch, "", all, false, true},
	} {
		var im linkImport
		lim := lc.bindOrdinal(&im, c.ordinal)
		if im.lookup != c.lookup || im.library != c.lib || !slices.Equal(im.searchOrder, c.search) || im.weak != c.weak || (lim != "") != c.limited {
			t.Errorf("ordinal %d: %+v %q", c.ordinal, im, lim)
		}
	}
	flat := lc
	flat.flags = 0
	var im linkImport
	if flat.bindOrdinal(&im, 1); im.lookup != provider.LookupSearch || im.library != "" || im.recorded != "/usr/lib/libA.dylib" ||
		!strings.Contains(strings.Join(im.answer().Limitations, ""), "flat-namespace") {
		t.Errorf("flat image: %+v", im)
	}
}

// bindOps is a stream exercising every bind opcode.
var bindOps = []byte{
	0x11,              // SET_DYLIB_ORDINAL_IMM 1
	0x40, '_', 'a', 0, // SET_SYMBOL_TRAILING_FLAGS_IMM 0 "_a"
	0x51,       // SET_TYPE_IMM pointer
	0x71, 0x10, // SET_SEGMENT_AND_OFFSET_ULEB seg 1, 0x10
	0x90,              // DO_BIND -> seg1+0x10
	0xb1,              // DO_BIND_ADD_ADDR_IMM_SCALED 1 -> seg1+0x18, then +16
	0x3e,              // SET_DYLIB_SPECIAL_IMM -2 (flat lookup)
	0x41, '_', 'b', 0, // weak import "_b"
	0x60, 0x7f, // SET_ADDEND_SLEB -1
	0xc0, 0x02, 0x08, // DO_BIND_ULEB_TIMES_SKIPPING_ULEB 2, 8 -> +0x28, +0x38
	0x20, 0xac, 0x02, // SET_DYLIB_ORDINAL_ULEB 300
	0x80, 0x08, // ADD_ADDR_ULEB 8
	0xa0, 0x10, // DO_BIND_ADD_ADDR_ULEB 16 -> +0x50
	0x3f, // SET_DYLIB_SPECIAL_IMM -1 (main executable)
	0x30, // SET_DYLIB_SPECIAL_IMM 0 (self)
	0x90, // DO_BIND -> +0x68
	0x00, // DONE
	0x90, // not read after DONE
}

func TestMachOBinds(t *testing.T) {
	segs := []uint64{0, 0x1000}
	got, lims := machoBinds(bindOps, false, segs, 8)
	want := []machoBind{
		{0x1010, "_a", 1, false}, {0x1018, "_a", 1, false},
		{0x1028, "_b", -2, true}, {0x1038, "_b", -2, true},
		{0x1050, "_b", 300, true}, {0x1068, "_b", 0, true},
	}
	if !slices.Equal(got, want) || lims != nil {
		t.Errorf("binds %+v %v\nwant %+v", got, lims, want)
	}
	// A lazy stream goes on after DONE.
	if got, _ := machoBinds(bindOps, true, segs, 8); len(got) != len(want)+1 {
		t.Errorf("lazy binds %d", len(got))
	}
	for _, bad := range [][]byte{
		{0x40, '_', 'a'},   // unterminated name
		{0x75, 0x00, 0x90}, // segment 5 does not exist
		{0x70, 0x80},       // truncated ULEB
		{0xe0},             // unknown opcode
		{0xd1},             // threaded (arm64e)
		{0x70, 0x00, 0xc0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00}, // a huge repeat count is bounded
	} {
		if got, lims := machoBinds(bad, false, segs, 8); len(lims) != 1 || len(got) > maxMachOBinds {
			t.Errorf("% x: %d binds, %v", bad, len(got), lims)
		}
	}
}

// testTrie assembles an export trie: a root with one edge per entry, each
// leading to a leaf whose terminal bytes are given.
func testTrie(entries [][2]string) []byte {
	root := []byte{0, byte(len(entries))}
	size := len(root)
	for _, e := range entries {
		size += len(e[0]) + 2 // edge, NUL, one-byte offset
	}
	var leaves []byte
	for _, e := range entries {
		root = append(root, e[0]...)
		root = append(root, 0, byte(size+len(leaves)))
		leaves = append(leaves, byte(len(e[1])))
		leaves = append(leaves, e[1]...)
		leaves = append(leaves, 0) // no children
	}
	return append(root, leaves...)
}

var trieEntries = [][2]string{
	{"_a", "\x00\x80\x02"},         // regular, offset 0x100
	{"_re", "\x08\x01_orig\x00"},   // re-export of _orig from ordinal 1
	{"_s", "\x10\x80\x04\x80\x06"}, // stub 0x200 and resolver 0x300
	{"_x", "\x02\xb4\x24"},         // absolute 0x1234
	{"_q", "\x08\x01\x00"},         // re-export under the same name
	{"_bad", "\x08\x05\x00"},       // re-export from an ordinal that names no dylib
}

func TestMachOTrie(t *testing.T) {
	trie := testTrie(trieEntries)
	data := append([]byte("HEADER"), trie...)
	x := &machoExports{trie: [2]uint64{6, uint64(len(trie))}, base: 0x1000, dylibs: []machoDylib{{"/usr/lib/libB.dylib", "reexport_dylib"}}}
	for _, c := range []struct {
		name, addr, fwd string
		found, limited  bool
	}{
		{"_a", "0x1100", "", true, false}, {"a", "0x1100", "", true, false},
		{"_re", "", "/usr/lib/libB.dylib _orig", true, false},
		{"_s", "0x1200", "", true, true},
		{"_x", "0x1234", "", true, false},
		{"_q", "", "/usr/lib/libB.dylib _q", true, false}, {"q", "", "/usr/lib/libB.dylib _q", true, false},
		{"_bad", "", "", false, true},
		{"_", "", "", false, false}, {"_ab", "", "", false, false}, {"_r", "", "", false, false}, {"zz", "", "", false, false},
	} {
		e, a, found, err := x.lookup(data, c.name)
		addr, fwd := "", ""
		if found && e.Forwarder == nil {
			addr = provider.FormatAddress(a)
		}
		if e.Forwarder != nil {
			fwd = e.Forwarder.Library + " " + e.Forwarder.Name
		}
		if err != nil || found != c.found || addr != c.addr || fwd != c.fwd || (len(e.Limitations) > 0) != c.limited {
			t.Errorf("%s: %+v %s %v %v", c.name, e, addr, found, err)
		}
	}
	// A child at offset 0 (the root) ends the walk, as in dyld.
	if _, _, found, _ := (&machoExports{trie: [2]uint64{0, 5}}).lookup([]byte{0, 1, '_', 0, 0}, "_abc"); found {
		t.Error("a child at offset 0 was followed")
	}
	// Damage is a limitation, never a panic.
	for _, bad := range [][]byte{{0, 1, '_', 0, 99}, {0x80}, {0, 2, '_'}, {5, 0}} {
		x := &machoExports{trie: [2]uint64{0, uint64(len(bad))}}
		if e, _, found, err := x.lookup(bad, "_abc"); err != nil || found || len(e.Limitations) != 1 {
			t.Errorf("% x: %+v %v %v", bad, e, found, err)
		}
	}
}

func FuzzMachOTrie(f *testing.F) {
	f.Add(testTrie(trieEntries), "_a")
	f.Add(testTrie(trieEntries), "_re")
	f.Add([]byte{0, 1, '_', 0, 0}, "_abc")
	f.Fuzz(func(t *testing.T, trie []byte, name string) {
		if len(name) > 1024 {
			return
		}
		x := &machoExports{trie: [2]uint64{0, uint64(len(trie))}, dylibs: []machoDylib{{"/l", "load_dylib"}}}
		if _, _, _, err := x.lookup(trie, name); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzMachOBinds(f *testing.F) {
	f.Add(bindOps, false)
	f.Add(bindOps, true)
	f.Fuzz(func(t *testing.T, ops []byte, lazy bool) {
		got, lims := machoBinds(ops, lazy, []uint64{0, 0x1000, 0x2000}, 8)
		if len(got) > maxMachOBinds || len(lims) > 1 {
			t.Fatalf("%d binds, %v", len(got), lims)
		}
	})
}

// peExportImage is a PE image model whose one section maps every RVA of
// data to the same file offset, for the export directory decoder.
func peExportImage(data []byte) *image {
	info := &peInfo{secByRVA: []int{0}, secVA: []uint32{0}, secRaw: []uint32{0}, secRawSize: []uint32{uint32(len(data))}}
	return &image{format: "pe", pe: info, arch: "x86_64",
		sections: []section{{name: ".text", addr: 0, size: uint64(len(data)), fsize: uint64(len(data)), x: true, mapped: true}}}
}

// testExportDir builds an export directory at RVA 0x10: ordinal base 5,
// four functions (the third a forwarder, the fourth unused), names sorted.
func testExportDir() []byte {
	d := make([]byte, 0x200)
	put := func(at int, v uint32) {
		d[at], d[at+1], d[at+2], d[at+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	put(0x10+16, 5)    // base
	put(0x10+20, 4)    // functions
	put(0x10+24, 3)    // names
	put(0x10+28, 0x40) // EAT
	put(0x10+32, 0x60) // names
	put(0x10+36, 0x80) // ordinals
	put(0x40, 0x1000)  // [0]
	put(0x44, 0x1010)  // [1]
	put(0x48, 0x100)   // [2] forwarder text inside the directory
	put(0x4c, 0)       // [3] unused
	put(0x60, 0xa0)    // "Alpha" -> 1
	put(0x64, 0xb0)    // "Beta"  -> 0
	put(0x68, 0xc0)    // "Fwd"   -> 2
	d[0x80], d[0x82], d[0x84] = 1, 0, 2
	copy(d[0xa0:], "Alpha\x00")
	copy(d[0xb0:], "Beta\x00")
	copy(d[0xc0:], "Fwd\x00")
	copy(d[0x100:], "NTDLL.#9\x00")
	return d
}

func TestPEExportLookup(t *testing.T) {
	data := testExportDir()
	img := peExportImage(data)
	dir, ok, lim := decodePEExportDir(img.pe, data, 0x10)
	if !ok || lim != "" {
		t.Fatalf("decode: %v %q", ok, lim)
	}
	x := &peExportTable{dir: dir, ok: true, dirRVA: 0x10, dirEnd: 0x180}
	for _, c := range []struct {
		q    provider.ExportQuery
		want string
	}{
		{provider.ExportQuery{Name: "Alpha"}, "0x1010"}, {provider.ExportQuery{Name: "Beta"}, "0x1000"},
		{provider.ExportQuery{Name: "Fwd"}, "NTDLL.dll #9"}, {provider.ExportQuery{Ordinal: intp(7)}, "NTDLL.dll #9"},
		{provider.ExportQuery{Ordinal: intp(5)}, "0x1000"}, {provider.ExportQuery{Ordinal: intp(6)}, "0x1010"},
		{provider.ExportQuery{Ordinal: intp(8)}, ""}, {provider.ExportQuery{Ordinal: intp(9)}, ""}, {provider.ExportQuery{Ordinal: intp(4)}, ""},
		{provider.ExportQuery{Name: "alpha"}, ""}, {provider.ExportQuery{Name: "Gamma"}, ""}, {provider.ExportQuery{Name: "A"}, ""},
	} {
		e, a, found := x.lookup(img, data, c.q)
		got := ""
		switch {
		case found && e.Forwarder != nil:
			got = e.Forwarder.Library + " #" + itoa(uint64(*e.Forwarder.Ordinal))
		case found:
			got = provider.FormatAddress(a)
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.q, got, c.want)
		}
	}
	// The loader's binary search: names out of order hide one.
	data[0x60], data[0x68] = 0xc0, 0xa0 // Fwd, Beta, Alpha
	if _, _, found := x.lookup(img, data, provider.ExportQuery{Name: "Alpha"}); found {
		t.Error("an unsorted name table: Alpha found where the loader's binary search misses it")
	}
}

func FuzzPEExportDir(f *testing.F) {
	f.Add(testExportDir(), uint32(0x10), "Alpha", 6)
	f.Add(testExportDir(), uint32(0x10), "Fwd", 7)
	f.Fuzz(func(t *testing.T, data []byte, rva uint32, name string, ord int) {
		img := peExportImage(data)
		dir, ok, _ := decodePEExportDir(img.pe, data, uint64(rva))
		x := &peExportTable{dir: dir, ok: ok, dirRVA: uint64(rva), dirEnd: uint64(rva) + 0x100}
		x.lookup(img, data, provider.ExportQuery{Name: name})
		x.lookup(img, data, provider.ExportQuery{Ordinal: &ord})
	})
}

// exerciseLinker calls every Linker method on a fuzzed image: by the
// names and addresses of its own symbols, and some it does not have.
func exerciseLinker(t *testing.T, c *Client, six *symIndex) {
	ctx := context.Background()
	if _, err := c.LibraryName(ctx); err != nil {
		t.Fatalf("LibraryName: %v", err)
	}
	names := []string{"printf", "printf@GLIBC_2.2.5", "KERNEL32.dll!#1", "#2", "_main"}
	var addrs []uint64
	for i := range six.syms {
		if i%max(1, len(six.syms)/8) == 0 {
			names = append(names, nameString(six.name(c.data, &six.syms[i])))
			addrs = append(addrs, six.syms[i].addr)
		}
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if _, err := c.Import(ctx, provider.ImportQuery{Name: n}); err != nil && !isInvalid(err) {
			t.Fatalf("Import %q: %v", n, err)
		}
		if _, err := c.Export(ctx, provider.ExportQuery{Name: n}); err != nil {
			t.Fatalf("Export %q: %v", n, err)
		}
	}
	for _, a := range addrs {
		if _, err := c.Import(ctx, provider.ImportQuery{Address: provider.FormatAddress(a)}); err != nil {
			t.Fatalf("Import %x: %v", a, err)
		}
	}
}

func isInvalid(err error) bool { return fault.Is(err, fault.InvalidRequest) }

// TestLinkerConcurrentAndClosed: concurrent calls share one index build; a
// closed client answers provider_unavailable.
func TestLinkerConcurrentAndClosed(t *testing.T) {
	_, exe, _, libTwo := linkApp(t)
	p := New("test")
	c := startOn(t, p, targetFor(t, exe))
	l := c.(provider.Linker)
	two := startOn(t, p, targetFor(t, libTwo)).(provider.Linker)
	ctx := context.Background()
	done := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			im, err := l.Import(ctx, provider.ImportQuery{Name: "two_fn"})
			if err == nil && deref(im.Library) != "libtwo.so.1" {
				err = fmt.Errorf("two_fn: %+v", im)
			}
			if err == nil {
				_, err = two.Export(ctx, provider.ExportQuery{Name: "two_fn", Version: im.Version})
			}
			done <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := startOn(t, p, targetFor(t, libTwo)).(provider.Linker).LibraryName(cctx); !fault.Is(err, fault.Cancelled) {
		t.Errorf("a cancelled call: %v", err)
	}
	if _, err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.LibraryName(ctx); !fault.Is(err, fault.ProviderUnavailable) {
		t.Errorf("a closed client: %v", err)
	}
}

// testChained builds chained fixups (format DYLD_CHAINED_PTR_64_OFFSET)
// for a segment 1 at file offset and vm offset 0x1000: binds of _a
// (ordinal 1) at +0x10 and of the weak _b (flat lookup) at +0x20, with a
// rebase between them. It returns the image bytes and the fixups blob.
func testChained() (data, fix []byte) {
	data = make([]byte, 0x2000)
	le := binary.LittleEndian
	le.PutUint64(data[0x1010:], 1<<63|2<<51|0) // bind import 0, next +8
	le.PutUint64(data[0x1018:], 2<<51|0x1234)  // rebase, next +8
	le.PutUint64(data[0x1020:], 1<<63|0<<51|1) // bind import 1, end
	fix = make([]byte, 84)
	le.PutUint32(fix[4:], 32)              // starts_offset
	le.PutUint32(fix[8:], 68)              // imports_offset
	le.PutUint32(fix[12:], 76)             // symbols_offset
	le.PutUint32(fix[16:], 2)              // imports_count
	le.PutUint32(fix[20:], 1)              // DYLD_CHAINED_IMPORT
	le.PutUint32(fix[32:], 2)              // seg_count
	le.PutUint32(fix[40:], 12)             // segment 1's starts at 32+12
	le.PutUint16(fix[48:], 0x1000)         // page_size
	le.PutUint16(fix[50:], 6)              // DYLD_CHAINED_PTR_64_OFFSET
	le.PutUint64(fix[52:], 0x1000)         // segment_offset
	le.PutUint16(fix[64:], 1)              // page_count
	le.PutUint16(fix[66:], 0x10)           // page_start[0]
	le.PutUint32(fix[68:], 1|1<<9)         // ordinal 1, "_a"
	le.PutUint32(fix[72:], 0xfe|1<<8|4<<9) // flat lookup, weak, "_b"
	copy(fix[76:], "\x00_a\x00_b\x00")
	return data, fix
}

func TestMachOChainedBinds(t *testing.T) {
	data, fix := testChained()
	segs, files := []uint64{0, 0x100001000}, []uint64{0, 0x1000}
	got, lims := machoChainedBinds(data, fix, 0x100000000, segs, files)
	want := []machoBind{{0x100001010, "_a", 1, false}, {0x100001020, "_b", -2, true}}
	if !slices.Equal(got, want) || lims != nil {
		t.Errorf("binds %+v %v, want %+v", got, lims, want)
	}
	for name, damage := range map[string]func(d, f []byte){
		"a chain leaving its page": func(d, f []byte) { binary.LittleEndian.PutUint64(d[0x1020:], 1<<63|0xfff<<51|1) },
		"an import index":          func(d, f []byte) { binary.LittleEndian.PutUint64(d[0x1020:], 1<<63|7) },
		"imports table":            func(d, f []byte) { binary.LittleEndian.PutUint32(f[16:], 1<<30) },
		"import name":              func(d, f []byte) { binary.LittleEndian.PutUint32(f[72:], 0xfe|400<<9) },
		"header":                   func(d, f []byte) { f[0] = 1 },
		"pointer format":           func(d, f []byte) { binary.LittleEndian.PutUint16(f[50:], 11) },
	} {
		d, f := testChained()
		damage(d, f)
		if _, lims := machoChainedBinds(d, f, 0x100000000, segs, files); len(lims) != 1 {
			t.Errorf("%s: %v", name, lims)
		}
	}
}

func FuzzMachOChained(f *testing.F) {
	data, fix := testChained()
	f.Add(fix, data[0x1000:0x1030])
	f.Fuzz(func(t *testing.T, fix, page []byte) {
		data := append(make([]byte, 0x1000), page...)
		got, _ := machoChainedBinds(data, fix, 0x100000000, []uint64{0, 0x100001000, 0x100002000}, []uint64{0, 0x1000, 0x2000})
		if len(got) > maxChainSteps {
			t.Fatalf("%d binds", len(got))
		}
	})
}
