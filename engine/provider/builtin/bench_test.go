package builtin

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"slices"
	"testing"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// Benchmarks build indexes from scratch each iteration (no cache). Set
// REA_BENCH_FILE to a large executable, e.g. /usr/bin/node or
// /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1, to measure against
// `nm FILE` and `strings -a FILE`.

func benchFile(b *testing.B) string {
	p := os.Getenv("REA_BENCH_FILE")
	if p == "" {
		b.Skip("set REA_BENCH_FILE to a large executable")
	}
	return p
}

type benchWhat int

const (
	benchProcedures benchWhat = 1 << iota
	benchStrings
	benchAll = benchProcedures | benchStrings
)

func benchIndex(b *testing.B, path string, what benchWhat) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		m, err := openMapping(path)
		if err != nil {
			b.Fatal(err)
		}
		img, err := parseImage(m.data)
		if err != nil {
			b.Fatal(err)
		}
		data := img.data(m.data)
		if what&benchProcedures != 0 {
			if _, err := buildSymbols(ctx, img, data, nil); err != nil {
				b.Fatal(err)
			}
		}
		if what&benchStrings != 0 {
			if _, err := buildStrings(ctx, img, data, nil); err != nil {
				b.Fatal(err)
			}
		}
		if what == benchAll {
			c := &Client{ix: &index{img: img}, data: data}
			c.segments()
		}
		m.close()
	}
}

func BenchmarkIndexProcedures(b *testing.B) { benchIndex(b, benchFile(b), benchProcedures) }
func BenchmarkIndexStrings(b *testing.B)    { benchIndex(b, benchFile(b), benchStrings) }
func BenchmarkIndexAll(b *testing.B)        { benchIndex(b, benchFile(b), benchAll) }

// BenchmarkIndexFixture indexes the Go linux/arm64 fixture (about 2 MB).
func BenchmarkIndexFixture(b *testing.B) {
	benchIndex(b, goFixture(b, "linux", "arm64"), benchAll)
}

// BenchmarkProcedureAssembly measures procedure_assembly on the largest
// procedure of REA_BENCH_FILE that it returns whole (at most 20,000
// instructions), with the symbolized text (the operation) and without it;
// the difference is the cost of symbolization. The symbol tables are built
// before the timing starts. BenchmarkSymbolizer measures their one-time
// build.
func BenchmarkProcedureAssembly(b *testing.B) {
	c, entry := benchLargestProcedure(b)
	in := provider.Params{"procedure": provider.FormatAddress(entry)}
	ctx := context.Background()
	for _, symbolize := range []bool{true, false} {
		if _, err := c.codeOp(ctx, provider.OpProcedureAssembly, in, progress.OrNop(nil), symbolize); err != nil {
			b.Fatal(err)
		}
		name := "plain"
		if symbolize {
			name = "symbolized"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.codeOp(ctx, provider.OpProcedureAssembly, in, progress.OrNop(nil), symbolize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The annotation step alone, over the texts the operation decodes: less
	// exposed to the machine's noise than the difference of the two above.
	six, ex, err := c.extents(ctx, "bench", progress.OrNop(nil))
	if err != nil {
		b.Fatal(err)
	}
	pcode, err := c.decodeProc(ctx, "bench", six, ex, entry, false)
	if err != nil {
		b.Fatal(err)
	}
	z, err := c.symbolizer(ctx, "bench", six)
	if err != nil {
		b.Fatal(err)
	}
	d := newDecoder(c.ix.img)
	texts := make([]string, len(pcode.insns))
	for i, it := range pcode.insns {
		code, _ := c.codeAt(it.addr)
		texts[i] = d.decode(code[:it.n], it.addr, true).text
	}
	an := &annotator{z: z, img: c.ix.img, data: c.data}
	b.Run("annotations-only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, it := range pcode.insns {
				_ = an.annotate(texts[i], it)
			}
		}
	})
}

func BenchmarkSymbolizer(b *testing.B) {
	c, _ := benchLargestProcedure(b)
	six, err := c.symbols(context.Background(), "bench", progress.OrNop(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildSymbolizer(context.Background(), c.ix.img, c.data, six); err != nil {
			b.Fatal(err)
		}
	}
}

// benchLargestProcedure opens REA_BENCH_FILE and returns the entry of its
// largest procedure of known extent (by bytes) with at most
// maxAssemblyInsns instructions.
func benchLargestProcedure(b *testing.B) (*Client, uint64) {
	path := benchFile(b)
	_, _, pc := open(b, path)
	c := pc.(*Client)
	ctx := context.Background()
	six, ex, err := c.extents(ctx, "bench", progress.OrNop(nil))
	if err != nil {
		b.Fatal(err)
	}
	exts := slices.Clone(ex.ext)
	slices.SortFunc(exts, func(x, y extent) int { return cmp.Compare(y.end-y.start, x.end-x.start) })
	for _, e := range exts {
		pcode, err := c.decodeProc(ctx, "bench", six, ex, e.start, false)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(pcode.insns); n > 0 && provider.AssemblyFits("bench", n) == nil {
			name, _ := c.namer(six).displayName(e.start)
			b.Logf("%s: largest procedure procedure_assembly returns whole: %s at %#x, %d bytes, %d instructions",
				path, name, e.start, e.end-e.start, n)
			return c, e.start
		}
	}
	b.Fatal("no procedure to disassemble")
	return nil, 0
}

// BenchmarkProcedurePage is one list_procedures page of 500 (the contract's
// largest) on REA_BENCH_FILE, index built beforehand, and its canonical
// encoding (what Evidence records and the client receives, cut by the byte
// budget): the provider's share of a page in the MCP paging benchmark.
func BenchmarkProcedurePage(b *testing.B) {
	path := benchFile(b)
	c := startOn(b, New("bench"), targetFor(b, path))
	first := do(b, c, provider.OpListProcedures, provider.Params{"offset": int64(0), "limit": int64(500), "document": nil})
	total := *first.Normalized.(provider.Page[provider.ProcedureItem]).Total
	b.ReportAllocs()
	var off, items int
	var buf []byte
	for b.Loop() {
		r := do(b, c, provider.OpListProcedures, provider.Params{"offset": int64(off), "limit": int64(500), "document": nil})
		p := r.Normalized.(provider.Page[provider.ProcedureItem])
		buf, _ = p.AppendCanonical(buf[:0])
		n := bytes.Count(buf, []byte(`"address":`))
		items += n
		if off += n; off >= total {
			off = 0
		}
	}
	b.ReportMetric(float64(items)/float64(b.N), "items/op")
}

// BenchmarkProcedurePageFiltered is one list_procedures page of 500 at
// each filter of issue 27 (every page filters every entry again: a filtered
// listing is not cached), cycling through the pages.
func BenchmarkProcedurePageFiltered(b *testing.B) {
	path := benchFile(b)
	c := startOn(b, New("bench"), targetFor(b, path))
	for _, bc := range []struct {
		name    string
		filters provider.Params
	}{
		{"none", nil},
		{"named_only+exclude_thunks", provider.Params{"named_only": true, "exclude_thunks": true}},
		{"exclude_thunks", provider.Params{"exclude_thunks": true}},
		{"min_length=64", provider.Params{"min_length": int64(64)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			page := func(off int) provider.Page[provider.ProcedureItem] {
				in := provider.Params{"offset": int64(off), "limit": int64(500), "document": nil}
				for k, v := range bc.filters {
					in[k] = v
				}
				return do(b, c, provider.OpListProcedures, in).Normalized.(provider.Page[provider.ProcedureItem])
			}
			total := *page(0).Total
			b.ReportAllocs()
			off, items := 0, 0
			for b.Loop() {
				p := page(off)
				items += len(p.Items)
				if off += len(p.Items); off >= total {
					off = 0
				}
			}
			b.ReportMetric(float64(items)/float64(b.N), "items/op")
			b.ReportMetric(float64(total), "total")
		})
		if bc.filters == nil {
			continue
		}
		// The first page of a filter: every entry filtered (the jump
		// thunks and the extents already found).
		b.Run(bc.name+"/first", func(b *testing.B) {
			in := provider.Params{"offset": int64(0), "limit": int64(500), "document": nil}
			for k, v := range bc.filters {
				in[k] = v
			}
			for b.Loop() {
				c.(*Client).filtered.mu.Lock()
				c.(*Client).filtered.keys = nil
				c.(*Client).filtered.mu.Unlock()
				do(b, c, provider.OpListProcedures, in)
			}
		})
	}
}

// BenchmarkJumpThunks finds every jump thunk of REA_BENCH_FILE (the index a
// list_procedures call builds once after the extents).
func BenchmarkJumpThunks(b *testing.B) {
	c := startOn(b, New("bench"), targetFor(b, benchFile(b))).(*Client)
	ctx := context.Background()
	six, ex, err := c.extents(ctx, provider.OpListProcedures, progress.Nop{})
	if err != nil {
		b.Fatal(err)
	}
	var n int
	for b.Loop() {
		c.ix.jumps.reset()
		m, err := c.jumpThunksOf(ctx, provider.OpListProcedures, six, ex)
		if err != nil {
			b.Fatal(err)
		}
		n = len(m)
	}
	b.ReportMetric(float64(n), "thunks")
	b.ReportMetric(float64(len(six.entries)), "procedures")
}
