package builtin

import (
	"debug/elf"
	"debug/gosym"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

type pclnFunc struct {
	entry uint64
	name  string
}

// synthPclntab writes a function table in the layout of Go version v (12,
// 116, 118, 120), the independent description being runtime/symtab.go and
// debug/gosym, which reads it back in TestPclntabSynthetic. Function i has
// code up to 4 bytes before the next entry (the rest is padding; the last
// has 12 bytes), stack delta 0, file synthFile, line synthLine+i.
func synthPclntab(v int, ptr int, bo binary.AppendByteOrder, text uint64, fns []pclnFunc) []byte {
	magic := map[int]uint32{12: pclnMagic12, 116: pclnMagic116, 118: pclnMagic118, 120: pclnMagic120}[v]
	put := func(b []byte, n int, x uint64) []byte {
		switch n {
		case 4:
			return bo.AppendUint32(b, uint32(x))
		default:
			return bo.AppendUint64(b, x)
		}
	}
	var names []byte
	nameOff := make([]uint64, len(fns))
	for i, f := range fns {
		nameOff[i] = uint64(len(names))
		names = append(append(names, f.name...), 0)
	}
	field := ptr // function table field size
	if v >= 118 {
		field = 4
	}
	hdr := bo.AppendUint32(nil, magic)
	hdr = append(hdr, 0, 0, 1, byte(ptr))
	end := fns[len(fns)-1].entry + 16
	entryField := func(e uint64) uint64 {
		if v >= 118 {
			return e - text
		}
		return e
	}
	// pc-value tables: one (value delta, pc delta) pair and the end mark.
	fileNo := uint64(0) // 1.16+: index into the unit's cutab entries
	if v == 12 {
		fileNo = 1 // 1.2: index into filetab, whose slot 0 holds the count
	}
	pcs := []byte{0} // offset 0 means "no table"
	var tabs [][3]uint64
	for i, f := range fns {
		next := end
		if i+1 < len(fns) {
			next = fns[i+1].entry
		}
		size := next - f.entry - 4
		var offs [3]uint64
		for k, val := range []uint64{0, fileNo, uint64(synthLine + i)} {
			offs[k] = uint64(len(pcs))
			pcs = binary.AppendUvarint(pcs, 2*(val+1)) // zig-zag of val - (-1)
			pcs = binary.AppendUvarint(pcs, size)
			pcs = append(pcs, 0)
		}
		tabs = append(tabs, offs)
	}
	// functab, then one record per function: entry, name offset, args,
	// deferreturn, pcsp, pcfile, pcln, npcdata, cuOffset, one more word.
	ftab := func(funcBase int, recAt func(i int) int) []byte {
		var b []byte
		for i, f := range fns {
			b = put(b, field, entryField(f.entry))
			b = put(b, field, uint64(recAt(i)-funcBase))
		}
		return put(b, field, entryField(end))
	}
	rec := func(i int, tabNames, tabPcs int) []byte {
		var b []byte
		if v >= 118 {
			b = put(b, 4, fns[i].entry-text)
		} else {
			b = put(b, ptr, fns[i].entry)
		}
		b = put(b, 4, uint64(tabNames)+nameOff[i])
		b = put(b, 4, 0)
		b = put(b, 4, 0)
		for _, o := range tabs[i] {
			b = put(b, 4, uint64(tabPcs)+o)
		}
		return append(b, make([]byte, 4*3)...)
	}
	recSize := len(rec(0, 0, 0))
	switch v {
	case 12:
		// header(8) nfunc functab fileoff | names | records | filetab | file name | pc tables
		tabAt := 8 + ptr
		ftabSize := (2*len(fns) + 1) * ptr
		namesAt := tabAt + ftabSize + 4
		recsAt := namesAt + len(names)
		fileAt := recsAt + recSize*len(fns)
		fileNameAt := fileAt + 8
		pcsAt := fileNameAt + len(synthFile) + 1
		b := put(hdr, ptr, uint64(len(fns)))
		b = append(b, ftab(0, func(i int) int { return recsAt + recSize*i })...)
		b = put(b, 4, uint64(fileAt))
		b = append(b, names...)
		for i := range fns {
			b = append(b, rec(i, namesAt, pcsAt)...)
		}
		b = put(b, 4, 2) // file count, slot 0 included
		b = put(b, 4, uint64(fileNameAt))
		b = append(append(b, synthFile...), 0)
		return append(b, pcs...)
	default:
		words := 7
		if v >= 118 {
			words = 8
		}
		// header | names | cutab | filetab | pctab | functab | records
		namesAt := 8 + words*ptr
		cuAt := namesAt + len(names)
		filesAt := cuAt + 4
		pctabAt := filesAt + len(synthFile) + 1
		pclnAt := pctabAt + len(pcs)
		ftabSize := (2*len(fns) + 1) * field
		var w []uint64
		if v >= 118 {
			w = []uint64{uint64(len(fns)), 1, text, uint64(namesAt), uint64(cuAt), uint64(filesAt), uint64(pctabAt), uint64(pclnAt)}
		} else {
			w = []uint64{uint64(len(fns)), 1, uint64(namesAt), uint64(cuAt), uint64(filesAt), uint64(pctabAt), uint64(pclnAt)}
		}
		b := hdr
		for _, x := range w {
			b = put(b, ptr, x)
		}
		b = append(b, names...)
		b = put(b, 4, 0) // cutab: the unit's file 0 is filetab offset 0
		b = append(append(b, synthFile...), 0)
		b = append(b, pcs...)
		b = append(b, ftab(pclnAt, func(i int) int { return pclnAt + ftabSize + recSize*i })...)
		for i := range fns {
			b = append(b, rec(i, 0, 0)...)
		}
		return b
	}
}

const (
	synthFile = "/src/fixture/main.go"
	synthLine = 10
)

var synthFuncs = []pclnFunc{{0x401000, "runtime.main"}, {0x401040, "main.helper"}, {0x401100, "main.main"}, {0x401180, "main.init"}}

func TestPclntabSynthetic(t *testing.T) {
	const text = 0x401000
	for _, v := range []int{12, 116, 118, 120} {
		for _, ptr := range []int{4, 8} {
			for _, bo := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
				t.Run(fmt.Sprintf("go%d-ptr%d-%s", v, ptr, bo), func(t *testing.T) {
					b := synthPclntab(v, ptr, bo, text, synthFuncs)
					tab, err := parsePclntab(b, text)
					if err != nil {
						t.Fatal(err)
					}
					// debug/gosym reads the same bytes: the writer agrees with Go.
					gt, err := gosym.NewTable(nil, gosym.NewLineTable(b, text))
					if err != nil {
						t.Fatal(err)
					}
					if tab.numFuncs() != len(synthFuncs) || len(gt.Funcs) != len(synthFuncs) {
						t.Fatalf("%d functions, gosym %d, want %d", tab.numFuncs(), len(gt.Funcs), len(synthFuncs))
					}
					for i, f := range synthFuncs {
						off, n, ok := tab.name(i)
						if !ok || string(b[off:off+uint64(n)]) != f.name || tab.entry(i) != f.entry {
							t.Errorf("function %d: %#x %q, want %#x %q", i, tab.entry(i), b[off:off+uint64(n)], f.entry, f.name)
						}
						if gt.Funcs[i].Name != f.name || gt.Funcs[i].Entry != f.entry {
							t.Errorf("gosym function %d: %#x %s", i, gt.Funcs[i].Entry, gt.Funcs[i].Name)
						}
					}
					for i, f := range synthFuncs {
						file, line, _ := gt.PCToLine(f.entry)
						fo, fn, ln, ok := tab.source(i)
						if file != synthFile || line != synthLine+i || !ok || string(b[fo:fo+uint64(fn)]) != file || ln != line {
							t.Errorf("function %d: source %v %q:%d, gosym %q:%d", i, ok, b[fo:fo+uint64(fn)], ln, file, line)
						}
						next := f.entry + 16 // the last one
						if i+1 < len(synthFuncs) {
							next = synthFuncs[i+1].entry
						}
						if size, ok := tab.codeSize(i); !ok || size != next-f.entry-4 {
							t.Errorf("function %d: code size %d %v, want %d", i, size, ok, next-f.entry-4)
						}
						if k, ok := tab.find(f.entry); !ok || k != i {
							t.Errorf("find %#x: %d %v", f.entry, k, ok)
						}
					}
					if _, ok := tab.find(0x401001); ok {
						t.Errorf("find inside a function succeeded")
					}
					if a, ok := tab.lookup("main.main"); !ok || a != 0x401100 {
						t.Errorf("lookup main.main: %#x %v", a, ok)
					}
					if _, ok := tab.lookup("main.mai"); ok {
						t.Errorf("lookup of a prefix succeeded")
					}
					// Every truncation is refused or reads within bounds.
					for k := 0; k < len(b); k++ {
						if tt, err := parsePclntab(b[:k], text); err == nil {
							for i := 0; i < tt.numFuncs(); i++ {
								tt.entry(i)
								tt.name(i)
							}
						}
					}
				})
			}
		}
	}
	if _, err := parsePclntab([]byte("\xf1\xff\xff\xff\x00\x00\x01\x08"), 0); err == nil {
		t.Errorf("a bare header parsed")
	}
}

// TestPclntabGosym reads the table of real Go binaries (ELF, Mach-O, PE)
// and compares every function with debug/gosym's reading of the same bytes.
func TestPclntabGosym(t *testing.T) {
	for _, gt := range [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "arm64"}, {"windows", "amd64"}} {
		t.Run(gt[0]+"-"+gt[1], func(t *testing.T) {
			path := goMainFixture(t, gt[0], gt[1], true)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			img, err := parseImage(data)
			if err != nil {
				t.Fatal(err)
			}
			m := &mainLocator{img: img, data: img.data(data), b: &symBuilder{ctx: t.Context(), data: img.data(data)}}
			tab, ok := m.goTable()
			if !ok {
				t.Fatal("no pclntab found")
			}
			// The oracle's bytes and text start come from the standard
			// library's own format readers, not from REA's sections.
			var pcln []byte
			var text uint64
			switch gt[0] {
			case "linux":
				f, err := elf.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				pcln, _ = f.Section(".gopclntab").Data()
				text = f.Section(".text").Addr
			case "darwin":
				f, err := macho.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				pcln, _ = f.Section("__gopclntab").Data()
				text = f.Section("__text").Addr
			default:
				pcln = tab.data // PE: the table REA found by its magic
				text = img.entry &^ 0xfff
				for i := range img.sections {
					if img.sections[i].name == ".text" {
						text = img.sections[i].addr
					}
				}
			}
			st, err := gosym.NewTable(nil, gosym.NewLineTable(pcln, text))
			if err != nil {
				t.Fatal(err)
			}
			if tab.numFuncs() != len(st.Funcs) || len(st.Funcs) < 1000 {
				t.Fatalf("%d functions, gosym %d", tab.numFuncs(), len(st.Funcs))
			}
			for i, f := range st.Funcs {
				off, n, ok := tab.name(i)
				if !ok || string(tab.data[off:off+uint64(n)]) != f.Name || tab.entry(i) != f.Entry {
					t.Fatalf("function %d: %#x %q, gosym %#x %s", i, tab.entry(i), tab.data[off:off+uint64(n)], f.Entry, f.Name)
				}
				// The entry's source position (pcfile, pcln) agrees too.
				file, line, _ := st.PCToLine(f.Entry)
				if fo, fn, ln, ok := tab.source(i); !ok || string(tab.data[fo:fo+uint64(fn)]) != file || ln != line {
					if file != "" || ok {
						t.Fatalf("function %s: source %v %q:%d, gosym %q:%d", f.Name, ok, tab.data[fo:fo+uint64(fn)], ln, file, line)
					}
				}
				if size, ok := tab.codeSize(i); ok && f.Entry+size > f.End {
					t.Fatalf("function %s: code size %d past the next function at %#x", f.Name, size, f.End)
				}
			}
			t.Logf("%s: %d functions agree with debug/gosym (Go %d table)", path, tab.numFuncs(), tab.version)
		})
	}
}

func FuzzPclntab(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, text uint64) {
		tab, err := parsePclntab(data, text)
		if err != nil {
			return
		}
		for i := 0; i < tab.numFuncs(); i++ {
			tab.entry(i)
			if off, n, ok := tab.name(i); ok && off+uint64(n) > uint64(len(data)) {
				t.Fatalf("name %d out of bounds", i)
			}
		}
		tab.lookup("main.main")
		for i := 0; i < min(tab.numFuncs(), 64); i++ {
			tab.codeSize(i)
			tab.abiInternal(tab.entry(i))
			if off, n, _, ok := tab.source(i); ok && off+uint64(n) > uint64(len(data)) {
				t.Fatalf("source %d out of bounds", i)
			}
		}
		tab.find(text)
	})
}

// TestWritePclntabSeeds regenerates testdata/fuzz/FuzzPclntab when
// REA_WRITE_FUZZ_SEEDS=1: synthetic tables of each version.
func TestWritePclntabSeeds(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate testdata/fuzz/FuzzPclntab seeds")
	}
	d := filepath.Join("testdata", "fuzz", "FuzzPclntab")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		v, ptr int
		bo     binary.AppendByteOrder
	}{{12, 8, binary.LittleEndian}, {116, 8, binary.LittleEndian}, {118, 4, binary.BigEndian}, {120, 8, binary.LittleEndian}} {
		b := synthPclntab(s.v, s.ptr, s.bo, 0x401000, synthFuncs)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nuint64(%d)\n", strconv.Quote(string(b)), 0x401000)
		name := fmt.Sprintf("seed-go%d-ptr%d", s.v, s.ptr)
		if err := os.WriteFile(filepath.Join(d, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
