package builtin

import (
	"bytes"
	"context"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// The oracle of read_bytes and search_bytes reads the file with the
// standard library's debug/elf, debug/pe and debug/macho (its section and
// load tables, its Section.Data), and scans section bytes naively, position
// by position: it shares no code with the builtin's header model, its load
// ranges or its anchored matcher. objdump -d would show the bytes of code
// sections only, split at instruction boundaries; the section bytes are
// what search_bytes searches.

type oracleSeg struct{ addr, memsz, off, filesz uint64 }

type oracleSec struct {
	name string
	addr uint64
	size uint64
	data []byte // file-backed bytes; shorter than size for zero-fill
	exec bool
}

type byteOracle struct {
	segmentsOnly bool // secs are the load segments: the file has no section headers
	sliceOff     uint64
	segs         []oracleSeg
	secs         []oracleSec
}

func elfOracle(t *testing.T, path string) *byteOracle {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o := &byteOracle{}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			o.segs = append(o.segs, oracleSeg{p.Vaddr, p.Memsz, p.Off, p.Filesz})
		}
	}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Size == 0 || s.Type == elf.SHT_NOBITS && s.Flags&elf.SHF_TLS != 0 {
			continue
		}
		sec := oracleSec{name: s.Name, addr: s.Addr, size: s.Size, exec: s.Flags&elf.SHF_EXECINSTR != 0}
		if s.Type != elf.SHT_NOBITS {
			if sec.data, err = s.Data(); err != nil {
				t.Fatal(err)
			}
		}
		o.secs = append(o.secs, sec)
	}
	return o
}

func peOracle(t *testing.T, path string) *byteOracle {
	f, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var base uint64
	switch h := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		base = h.ImageBase
	case *pe.OptionalHeader32:
		base = uint64(h.ImageBase)
	}
	o := &byteOracle{}
	for _, s := range f.Sections {
		vsize := uint64(s.VirtualSize)
		if vsize == 0 {
			vsize = uint64(s.Size)
		}
		fsz := min(uint64(s.Size), vsize)
		if s.Offset == 0 {
			fsz = 0
		}
		o.segs = append(o.segs, oracleSeg{base + uint64(s.VirtualAddress), vsize, uint64(s.Offset), fsz})
		data, err := s.Data()
		if err != nil && fsz > 0 {
			t.Fatal(err)
		}
		o.secs = append(o.secs, oracleSec{name: s.Name, addr: base + uint64(s.VirtualAddress), size: vsize,
			data: data[:fsz], exec: s.Characteristics&pe.IMAGE_SCN_MEM_EXECUTE != 0})
	}
	return o
}

// machoOracle reads a thin file, or the slice of a universal one at off.
func machoOracle(t *testing.T, path string, universal bool) *byteOracle {
	var f *macho.File
	o := &byteOracle{}
	if universal {
		ff, err := macho.OpenFat(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ff.Close()
		for _, a := range ff.Arches {
			if a.Cpu == macho.CpuAmd64 {
				f, o.sliceOff = a.File, uint64(a.Offset)
			}
		}
	} else {
		var err error
		if f, err = macho.Open(path); err != nil {
			t.Fatal(err)
		}
		defer f.Close()
	}
	for _, l := range f.Loads {
		if s, ok := l.(*macho.Segment); ok && s.Memsz > 0 && s.Prot != 0 {
			o.segs = append(o.segs, oracleSeg{s.Addr, s.Memsz, s.Offset, min(s.Filesz, s.Memsz)})
		}
	}
	for _, s := range f.Sections {
		typ := s.Flags & 0xff
		sec := oracleSec{name: s.Seg + "," + s.Name, addr: s.Addr, size: s.Size, exec: s.Flags&0x80000400 != 0}
		if s.Size == 0 {
			continue
		}
		if typ != 0x1 && typ != 0xc && typ != 0x12 { // not zero-fill
			data, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			sec.data = data
		}
		o.secs = append(o.secs, sec)
	}
	return o
}

// bytesAt is what the loader maps at [a, a+n): ok is false when a byte lies
// outside every load segment.
func (o *byteOracle) bytesAt(file []byte, a uint64, n int) ([]byte, bool) {
	out := make([]byte, n)
	for i := range out {
		p, in := a+uint64(i), false
		for _, s := range o.segs {
			if p >= s.addr && p-s.addr < s.memsz {
				in = true
				if d := p - s.addr; d < s.filesz {
					out[i] = file[o.sliceOff+s.off+d]
				}
				break
			}
		}
		if !in {
			return nil, false
		}
	}
	return out, true
}

// find is every address where the pattern matches inside one section's
// file bytes (section "" = every section), in address order.
func (o *byteOracle) find(pattern, section string) []string {
	var pat []byte
	var lit []bool
	for _, tok := range strings.Fields(pattern) {
		b, err := hex.DecodeString(tok)
		pat, lit = append(pat, append(b, 0)[0]), append(lit, err == nil)
	}
	var addrs []uint64
	for _, s := range o.secs {
		if section != "" && s.name != section {
			continue
		}
	pos:
		for i := 0; i+len(pat) <= len(s.data); i++ {
			for j := range pat {
				if lit[j] && s.data[i+j] != pat[j] {
					continue pos
				}
			}
			addrs = append(addrs, s.addr+uint64(i))
		}
	}
	slices.Sort(addrs)
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = provider.FormatAddress(a)
	}
	return out
}

func invalidIssue(t *testing.T, err error) fault.Issue {
	t.Helper()
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest {
		t.Fatalf("%v, want invalid_request", err)
	}
	issues, _ := fe.Details["issues"].([]fault.Issue)
	if len(issues) != 1 {
		t.Fatalf("issues %+v", issues)
	}
	return issues[0]
}

// checkReadBytes: read_bytes at every section start and at random
// addresses equals what the oracle maps there; zero-fill reads zeros with
// the limitation and no file offset; outside the segments is out_of_range.
func checkReadBytes(t *testing.T, c provider.Client, file []byte, o *byteOracle, randomReads int) {
	ctx := context.Background()
	read := func(a uint64, n int) (provider.ReadBytesResult, []string, error) {
		r, err := c.Do(ctx, provider.OpReadBytes, provider.Params{"address": provider.FormatAddress(a), "length": int64(n)}, nil)
		if err != nil {
			return provider.ReadBytesResult{}, nil, err
		}
		return r.Normalized.(provider.ReadBytesResult), r.Limitations, nil
	}
	check := func(a uint64, n int) {
		t.Helper()
		want, ok := o.bytesAt(file, a, n)
		got, lims, err := read(a, n)
		if !ok {
			if issue := invalidIssue(t, err); issue.Reason != "out_of_range" {
				t.Fatalf("%#x+%d: %+v, want out_of_range", a, n, issue)
			}
			return
		}
		if err != nil {
			t.Fatalf("%#x+%d: %v", a, n, err)
		}
		if got.Hex != hex.EncodeToString(want) || got.Address != provider.FormatAddress(a) {
			t.Fatalf("%#x+%d: %.80s…, want %.80s…", a, n, got.Hex, hex.EncodeToString(want))
		}
		var zero bool
		for _, s := range o.segs {
			if a >= s.addr && a-s.addr < s.memsz {
				zero = a-s.addr >= s.filesz
				if !zero && (got.FileOffset == nil || uint64(*got.FileOffset) != o.sliceOff+s.off+a-s.addr) {
					t.Fatalf("%#x: file_offset %v, want %#x", a, got.FileOffset, o.sliceOff+s.off+a-s.addr)
				}
				break
			}
		}
		if zero && got.FileOffset != nil {
			t.Fatalf("%#x: zero-fill with file_offset %d", a, *got.FileOffset)
		}
		if zero && !slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "zero-fill") }) {
			t.Fatalf("%#x: zero-fill without the limitation: %q", a, lims)
		}
	}
	bss := 0
	for _, s := range o.secs {
		n := int(min(s.size, provider.MaxReadBytes))
		check(s.addr, n)
		got, lims, err := read(s.addr, n)
		if err != nil {
			t.Fatalf("section %s: %v", s.name, err)
		}
		if (got.Section == nil) != o.segmentsOnly {
			t.Errorf("section %s: section %v", s.name, got.Section)
		}
		if len(s.data) == 0 {
			bss++
			if strings.Trim(got.Hex, "0") != "" || got.FileOffset != nil || !slices.ContainsFunc(lims, func(l string) bool {
				return strings.Contains(l, "zero-fill") && strings.Contains(l, s.name)
			}) {
				t.Errorf("zero-fill section %s: %.40s file_offset %v limitations %q", s.name, got.Hex, got.FileOffset, lims)
			}
		}
	}
	rng := rand.New(rand.NewPCG(27, 2))
	for range randomReads {
		s := o.segs[rng.IntN(len(o.segs))]
		check(s.addr+rng.Uint64N(s.memsz), 1+rng.IntN(provider.MaxReadBytes))
	}
	// Past the highest segment, and a range crossing its end.
	var top uint64
	for _, s := range o.segs {
		top = max(top, s.addr+s.memsz)
	}
	if _, _, err := read(top, 1); invalidIssue(t, err).Path != "/address" {
		t.Errorf("%#x: %v, want /address out_of_range", top, err)
	}
	if _, _, err := read(top-10, 100); invalidIssue(t, err).Maximum == nil || *invalidIssue(t, err).Maximum != 10 {
		t.Errorf("%#x+100: %v, want /length out_of_range maximum 10", top-10, err)
	}
	if _, _, err := read(^uint64(0)-5, 4096); invalidIssue(t, err).Reason != "out_of_range" {
		t.Errorf("wrapping range: %v", err)
	}
}

// searchAll pages through search_bytes with an odd page size; the union of
// the pages, in order, must be the whole collection of the limit-500 page.
func searchAll(t *testing.T, c provider.Client, pattern, section string) []provider.BytesItem {
	t.Helper()
	in := provider.Params{"pattern": pattern}
	if section != "" {
		in["section"] = section
	}
	var out []provider.BytesItem
	total := -1
	for off := 0; ; {
		in["offset"], in["limit"] = int64(off), int64(97)
		p := do(t, c, provider.OpSearchBytes, in).Normalized.(provider.Page[provider.BytesItem])
		if p.Total == nil || total >= 0 && *p.Total != total {
			t.Fatalf("%q: total %v", pattern, p.Total)
		}
		total = *p.Total
		out = append(out, p.Items...)
		if !p.Truncated {
			break
		}
		if p.NextOffset == nil || *p.NextOffset != off+len(p.Items) {
			t.Fatalf("%q: next_offset %v after %d+%d", pattern, p.NextOffset, off, len(p.Items))
		}
		off = *p.NextOffset
	}
	if len(out) != total {
		t.Fatalf("%q: %d items, total %d", pattern, len(out), total)
	}
	in["offset"], in["limit"] = int64(0), int64(provider.MaxPageResults)
	whole := do(t, c, provider.OpSearchBytes, in).Normalized.(provider.Page[provider.BytesItem])
	if n := min(total, provider.MaxPageResults); whole.Returned != n || n > 0 && !reflect.DeepEqual(whole.Items, out[:n]) {
		for i := range min(len(whole.Items), len(out)) {
			if !reflect.DeepEqual(whole.Items[i], out[i]) {
				t.Logf("item %d: %+v %+v vs %+v %+v", i, whole.Items[i], whole.Items[i].Procedure, out[i], out[i].Procedure)
				break
			}
		}
		t.Fatalf("%q: the limit-500 page (%d) differs from the union of the limit-97 pages", pattern, whole.Returned)
	}
	return out
}

func checkSearchBytes(t *testing.T, c provider.Client, o *byteOracle, pattern, section string) {
	t.Helper()
	got := searchAll(t, c, pattern, section)
	want := o.find(pattern, section)
	if len(want) == 0 {
		t.Fatalf("%q in %q: the oracle finds nothing; choose a pattern that occurs", pattern, section)
	}
	addrs := make([]string, len(got))
	for i, it := range got {
		addrs[i] = it.Address
		var sec *oracleSec
		a, _ := provider.ParseAddress(it.Address)
		for k := range o.secs {
			if s := &o.secs[k]; a >= s.addr && a-s.addr < uint64(len(s.data)) {
				sec = s
				break
			}
		}
		if sec == nil || it.Section != sec.name {
			t.Fatalf("%q: %s in section %q, oracle %v", pattern, it.Address, it.Section, sec)
		}
		if it.Procedure != nil {
			entry, _ := provider.ParseAddress(it.Procedure.Address)
			if !sec.exec || entry > a {
				t.Fatalf("%q: %s (%s) in procedure %+v", pattern, it.Address, sec.name, it.Procedure)
			}
		}
	}
	if !slices.Equal(addrs, want) {
		t.Fatalf("%q in %q: %d hits, oracle %d; first difference %s", pattern, section, len(addrs), len(want), firstAddrDiff(addrs, want))
	}
	t.Logf("%q in %q: %d hits equal the oracle's", pattern, section, len(want))
}

func firstAddrDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] + " vs " + b[i]
		}
	}
	return "at the end"
}

// TestBytesLibc: read_bytes and search_bytes on libc.so.6 against the
// debug/elf oracle: every section start, 400 random reads, .bss, the
// unmapped; ten patterns with wildcards, some limited to a section, each
// found exactly where the naive scan finds it and nowhere else.
func TestBytesLibc(t *testing.T) {
	skipLarge(t)
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	file, err := os.ReadFile(libc)
	if err != nil {
		if requireAll() {
			t.Fatal(err)
		}
		t.Skipf("%s is not present (Debian x86-64 libc6): %v", libc, err)
	}
	_, _, c := open(t, libc)
	o := elfOracle(t, libc)
	checkReadBytes(t, c, file, o, 400)
	for _, p := range []struct{ pattern, section string }{
		{"41 57 41 56 ?? ?? 41", ""},                    // push r15; push r14; two bytes; a REX prefix
		{"e8 ?? ?? ?? ?? 48 85 c0 74", ".text"},         // call; test rax,rax; je
		{"48 8d 3d ?? ?? ?? ?? e8", ""},                 // lea rdi,[rip+x]; call
		{"0f 05 48 3d 00 f0 ff ff", ""},                 // syscall; cmp rax,-4096
		{"64 48 8b 04 25 28 00 00 00", ".text"},         // the stack protector's canary
		{"48 89 ?? 24 ?? 48 89", ""},                    // two stores, one to the stack
		{"c3 ?? 0f 1f", ""},                             // ret, then padding
		{"?? ?? 0f 0b", ""},                             // ud2 after two bytes
		{"25 73 ?? 25 73", ".rodata"},                   // "%s?%s" in format strings
		{"ff 25 ?? ?? ?? ?? ?? ?? ?? ?? ?? ??", ".plt"}, // jmp [rip+slot] stubs
	} {
		checkSearchBytes(t, c, o, p.pattern, p.section)
	}
	// Every hit in .text is inside a procedure of libc (it has symbols).
	for _, it := range searchAll(t, c, "0f 05 48 3d 00 f0 ff ff", ".text") {
		if it.Procedure == nil {
			t.Errorf("syscall at %s: no containing procedure", it.Address)
		}
	}
}

// TestBytesFormats: the same oracle on a mingw PE, a Mach-O and the same
// Mach-O as the one slice of a universal file (whose file offsets count from the
// file's start).
func TestBytesFormats(t *testing.T) {
	t.Run("pe", func(t *testing.T) {
		needTool(t, mingw+"gcc")
		path := mingwFixture(t, "mingw.exe", "-O1")
		checkBytesFixture(t, path, peOracle(t, path), "48 89 ?? 24")
	})
	t.Run("macho", func(t *testing.T) {
		path := clangMachO(t, "x86_64-apple-macos11")
		checkBytesFixture(t, path, machoOracle(t, path, false), "48 89 ?? ??")
	})
	t.Run("macho-universal", func(t *testing.T) {
		thin, err := os.ReadFile(clangMachO(t, "x86_64-apple-macos11"))
		if err != nil {
			t.Fatal(err)
		}
		// One slice at 0x4000: fat_header, one fat_arch (big-endian).
		fat := binary.BigEndian.AppendUint32(nil, 0xcafebabe)
		for _, v := range []uint32{1, uint32(macho.CpuAmd64), 3, 0x4000, uint32(len(thin)), 14} {
			fat = binary.BigEndian.AppendUint32(fat, v)
		}
		fat = append(append(fat, make([]byte, 0x4000-len(fat))...), thin...)
		path := t.TempDir() + "/universal"
		if err := os.WriteFile(path, fat, 0o644); err != nil {
			t.Fatal(err)
		}
		checkBytesFixture(t, path, machoOracle(t, path, true), "48 89 ?? ??")
	})
}

func checkBytesFixture(t *testing.T, path string, o *byteOracle, pattern string) {
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, c := open(t, path)
	checkReadBytes(t, c, file, o, 200)
	checkSearchBytes(t, c, o, pattern, "")
}

// TestBytesErrors: bad arguments are typed, naming the argument.
func TestBytesErrors(t *testing.T) {
	path := cFixture(t, "bytes-errors", "gcc", "-O1")
	_, _, c := open(t, path)
	ctx := context.Background()
	for _, tc := range []struct {
		op   string
		in   provider.Params
		path string
	}{
		{provider.OpReadBytes, provider.Params{"length": int64(4)}, "/address"},
		{provider.OpReadBytes, provider.Params{"address": "0x1000"}, "/length"},
		{provider.OpReadBytes, provider.Params{"address": "0x1000", "length": int64(4097)}, "/length"},
		{provider.OpSearchBytes, provider.Params{"pattern": "9"}, "/pattern"},
		{provider.OpSearchBytes, provider.Params{"pattern": "?? ??"}, "/pattern"},
		{provider.OpSearchBytes, provider.Params{"pattern": "90", "section": ".no-such"}, "/section"},
		{provider.OpSearchBytes, provider.Params{"pattern": "90", "limit": int64(501)}, "/limit"},
	} {
		_, err := c.Do(ctx, tc.op, tc.in, nil)
		if issue := invalidIssue(t, err); issue.Path != tc.path {
			t.Errorf("%s %v: %+v, want %s", tc.op, tc.in, issue, tc.path)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Do(cctx, provider.OpSearchBytes, provider.Params{"pattern": "90"}, nil); !fault.Is(err, fault.Cancelled) {
		t.Errorf("cancelled search: %v", err)
	}
}

// TestByteMatcher: the anchored scan equals the naive one on random data
// and random patterns, including overlapping matches and an anchor at
// either end.
func TestByteMatcher(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 1<<16)
	for i := range data {
		data[i] = byte(rng.IntN(4)) // a small alphabet: many overlapping matches
	}
	for range 500 {
		n := 1 + rng.IntN(8)
		p := provider.BytePattern{Bytes: make([]byte, n), Literal: make([]bool, n)}
		for i := range n {
			p.Bytes[i], p.Literal[i] = byte(rng.IntN(4)), rng.IntN(3) > 0
		}
		if !slices.Contains(p.Literal, true) {
			p.Literal[rng.IntN(n)] = true
		}
		var got []int
		m := newByteMatcher(p, nil)
		if rng.IntN(2) == 0 {
			m = newByteMatcher(p, sampleFreq(data, []byteRegion{{off: 0, end: uint64(len(data))}}))
		}
		for from := 0; from < len(data); from += 1000 { // chunked as searchBytes scans
			m.scan(data, from, from+1000, func(i int) { got = append(got, i) })
		}
		var want []int
	pos:
		for i := 0; i+n <= len(data); i++ {
			for j := range n {
				if p.Literal[j] && data[i+j] != p.Bytes[j] {
					continue pos
				}
			}
			want = append(want, i)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pattern %v/%v: %d matches, naive %d", p.Bytes, p.Literal, len(got), len(want))
		}
	}
	var freq [256]int
	freq[1], freq[2], freq[3] = 1000, 10, 1
	if m := newByteMatcher(provider.BytePattern{Bytes: []byte{1, 0, 2, 3}, Literal: []bool{true, false, true, true}}, &freq); m.pair || m.o1 != 3 {
		t.Errorf("anchor %+v: want the rarest byte, 3 at 3", m)
	}
	freq[1], freq[2], freq[3] = 1000, 500, 100
	if m := newByteMatcher(provider.BytePattern{Bytes: []byte{1, 0, 2, 3}, Literal: []bool{true, false, true, true}}, &freq); !m.pair || m.o1 != 2 || m.o2 != 3 {
		t.Errorf("anchor %+v: want the pair 2, 3 at 2 and 3", m)
	}
}

// BenchmarkSearchBytes: one search_bytes page (offset 0, limit 100) over
// REA_BENCH_FILE for REA_BENCH_PATTERN (default: a 12-byte pattern with 4
// wildcards, mov; test rax,rax; je; mov), on a warm client: the first call,
// which builds the symbol index the page's procedures are named from, is
// made before the timer and reported as first-call-s. Besides wall time it reports the process's CPU
// time per search (cpu-s/op, as BenchmarkThumbLibc reports it): on a shared machine wall time also counts
// waiting for a core. bench/search_bytes.sh compares both with grep -P.
func BenchmarkSearchBytes(b *testing.B) {
	path := benchFile(b)
	pattern := os.Getenv("REA_BENCH_PATTERN")
	if pattern == "" {
		pattern = "48 8b ?? ?? 48 85 c0 74 ?? 48 8b ??"
	}
	_, _, c := open(b, path)
	in := provider.Params{"pattern": pattern, "offset": int64(0), "limit": int64(100)}
	t0 := time.Now()
	first := do(b, c, provider.OpSearchBytes, in).Normalized.(provider.Page[provider.BytesItem])
	firstCall := time.Since(t0)
	cpu0 := cpuTime(b)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		do(b, c, provider.OpSearchBytes, in)
		n++
	}
	b.StopTimer()
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(n), "cpu-s/op")
	b.ReportMetric(float64(*first.Total), "hits")
	b.ReportMetric(firstCall.Seconds(), "first-call-s") // after ResetTimer, which drops metrics
}

// TestBytesNoSections: an ELF whose section headers are gone is searched
// by its load segments, each hit naming its segment, which a limitation
// says; read_bytes still reads through the program headers.
func TestBytesNoSections(t *testing.T) {
	b, err := os.ReadFile(cFixture(t, "bytes-nosections", "gcc", "-O1"))
	if err != nil {
		t.Fatal(err)
	}
	// e_shoff, e_shnum and e_shstrndx of an ELF64 header.
	clear(b[0x28:0x30])
	clear(b[0x3c:0x40])
	path := t.TempDir() + "/nosections"
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Sections) != 0 {
		t.Fatalf("%d sections left", len(f.Sections))
	}
	o := &byteOracle{segmentsOnly: true}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		o.segs = append(o.segs, oracleSeg{p.Vaddr, p.Memsz, p.Off, p.Filesz})
		o.secs = append(o.secs, oracleSec{name: "LOAD[" + strconv.Itoa(len(o.secs)) + "]", addr: p.Vaddr, size: p.Memsz,
			data: b[p.Off : p.Off+p.Filesz], exec: p.Flags&elf.PF_X != 0})
	}
	_, _, c := open(t, path)
	checkReadBytes(t, c, b, o, 200)
	checkSearchBytes(t, c, o, "48 ?? ??", "")
	r := do(t, c, provider.OpSearchBytes, provider.Params{"pattern": "48 ?? ??"})
	if !slices.ContainsFunc(r.Limitations, func(l string) bool { return strings.Contains(l, "no file-backed sections") }) {
		t.Errorf("limitations %q", r.Limitations)
	}
}

// TestBytesBudget: sections that map the same file bytes at several
// addresses cannot make a search read more than the file's size: two
// allocated sections stretched over the whole file at addresses of their
// own exhaust the budget, and the page says so (truncated, total null).
func TestBytesBudget(t *testing.T) {
	b, err := os.ReadFile(cFixture(t, "bytes-budget", "gcc", "-O1"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	shoff, shentsize := binary.LittleEndian.Uint64(b[0x28:]), uint64(binary.LittleEndian.Uint16(b[0x3a:]))
	stretched := 0
	for i, s := range f.Sections {
		if s.Name != ".comment" && s.Name != ".interp" {
			continue
		}
		h := b[shoff+uint64(i)*shentsize:]
		binary.LittleEndian.PutUint32(h[4:], uint32(elf.SHT_PROGBITS))
		binary.LittleEndian.PutUint64(h[8:], uint64(elf.SHF_ALLOC))
		binary.LittleEndian.PutUint64(h[16:], uint64(0x10000000*(stretched+1))) // addr
		binary.LittleEndian.PutUint64(h[24:], 0)                                // offset
		binary.LittleEndian.PutUint64(h[32:], uint64(len(b)))                   // size
		stretched++
	}
	if stretched != 2 {
		t.Fatalf("%d sections stretched", stretched)
	}
	path := t.TempDir() + "/stretched"
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, c := open(t, path)
	r := do(t, c, provider.OpSearchBytes, provider.Params{"pattern": "7f 45 4c 46"})
	p := r.Normalized.(provider.Page[provider.BytesItem])
	if !p.Truncated || p.Total != nil || p.NextOffset != nil ||
		!slices.ContainsFunc(r.Limitations, func(l string) bool { return strings.Contains(l, "scan budget") }) {
		t.Fatalf("page %+v limitations %q: want truncated by the budget", p, r.Limitations)
	}
}
