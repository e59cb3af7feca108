package builtin

import (
	"context"
	"os"
	"testing"
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
