package artifact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

// Fuzz targets for the two parsers of untrusted container bytes. Every
// input must list or fail with a typed error, never panic, and a listed
// entry's bytes must stay inside the input. Seeds live in testdata/fuzz/.

var fuzzLimits = Limits{MaxEntries: 10000, MaxTotalBytes: 1 << 24, MaxEntryBytes: 1 << 22, MaxCompressionRatio: 100, MaxDepth: 2, MaxPathBytes: 4096}

func fuzzList(t *testing.T, data []byte, walk func(io.ReaderAt, int64) (*listing, error)) {
	l, err := walk(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code == fault.ExecutionFailure {
			t.Fatalf("untyped failure: %v", err)
		}
		return
	}
	if err := finishListing(l, "fuzz"); err != nil {
		return
	}
	for _, e := range l.Entries {
		if !checkPath(e.Path) {
			t.Fatalf("unsafe path listed: %q", e.Path)
		}
		if e.Loc != nil && (e.Loc.Offset < 0 || e.Loc.Offset+e.Loc.Length > int64(len(data))) {
			t.Fatalf("entry %q outside the input: %+v", e.Path, e.Loc)
		}
		if e.open == nil {
			continue
		}
		rc, err := e.open()
		if err != nil {
			continue
		}
		hashStream(context.Background(), rc, e, fuzzLimits, nil)
		rc.Close()
	}
}

func FuzzASARHeader(f *testing.F) {
	f.Add(asarBytes(`{"files":{"a.js":{"size":2,"offset":"0","integrity":{"algorithm":"SHA256","hash":"`+sum([]byte("hi"))+`","blockSize":4194304,"blocks":["`+sum([]byte("hi"))+`"]}},"d":{"files":{"l":{"link":"a.js"}}}}}`, []byte("hi")))
	f.Add(asarBytes(`{"files":{"u":{"size":3,"unpacked":true},"x":{"size":1,"offset":"1","executable":true}}}`, []byte("ab")))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzList(t, data, func(r io.ReaderAt, n int64) (*listing, error) {
			return walkASAR(r, n, nil, fuzzLimits, 0, "fuzz")
		})
		fuzzOpenASAR(t, data)
	})
}

// fuzzOpenASAR drives the exported reader engine/jsapp uses: it accepts
// what walkASAR accepts, and every packed file reads back inside the input.
func fuzzOpenASAR(t *testing.T, data []byte) {
	a, err := OpenASAR(bytes.NewReader(data), int64(len(data)), ASAROptions{Operation: "fuzz", Limits: fuzzLimits})
	if err != nil {
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code == fault.ExecutionFailure {
			t.Fatalf("untyped failure: %v", err)
		}
		return
	}
	defer a.Close()
	entries := a.Entries()
	for i := range entries {
		e := &entries[i]
		if e.Kind != EntryFile || e.Unpacked {
			continue
		}
		if e.Offset < 0 || e.Offset+e.Size > int64(len(data)) {
			t.Fatalf("entry %q at %d+%d outside the input", e.Path, e.Offset, e.Size)
		}
		if e.Size <= fuzzLimits.MaxEntryBytes {
			a.ReadFile(context.Background(), e)
		}
	}
}

func FuzzZip(f *testing.F) {
	f.Add(zipBytes(f, zipEntry{name: "a/b.txt", data: []byte("hello")}, zipEntry{name: "c/", data: nil}))
	f.Add(zipBytes(f, zipEntry{name: "s", data: []byte("target"), mode: os.ModeSymlink | 0o777}, zipEntry{name: "z", data: bytes.Repeat([]byte("z"), 5000), method: 8}))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzList(t, data, func(r io.ReaderAt, n int64) (*listing, error) {
			return walkZip(r, n, fuzzLimits, 0, "fuzz")
		})
	})
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/ (REA_WRITE_FUZZ_SEEDS=1):
// well-formed and hostile containers of both formats.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate the seed corpus")
	}
	h := sum([]byte("x"))
	seeds := map[string]map[string][]byte{
		"FuzzASARHeader": {
			"integrity":      asarBytes(`{"files":{"a":{"size":1,"offset":"0","integrity":{"algorithm":"SHA256","hash":"`+h+`","blockSize":4194304,"blocks":["`+h+`"]}}}}`, []byte("x")),
			"past-eof":       asarBytes(`{"files":{"a":{"size":10,"offset":"5"}}}`, []byte("short")),
			"negative-size":  asarBytes(`{"files":{"a":{"size":-1,"offset":"0"}}}`, []byte("x")),
			"unknown-algo":   asarBytes(`{"files":{"a":{"size":1,"offset":"0","integrity":{"algorithm":"MD5","hash":"`+h+`","blockSize":1,"blocks":[]}}}}`, []byte("x")),
			"nested-dirs":    asarBytes(`{"files":{"a":{"unpacked":true,"files":{"b":{"files":{"c":{"size":0}}}}}}}`, nil),
			"duplicate-name": asarBytes(`{"files":{"a":{"size":1,"offset":"0"},"a":{"size":1,"offset":"0"}}}`, []byte("x")),
		},
		"FuzzZip": {
			"slip":      zipBytes(t, zipEntry{name: "../evil", data: []byte("x")}),
			"duplicate": zipBytes(t, zipEntry{name: "a", data: []byte("x")}, zipEntry{name: "a", data: []byte("y")}),
			"symlink":   zipBytes(t, zipEntry{name: "l", data: []byte("/etc"), mode: os.ModeSymlink | 0o777}, zipEntry{name: "l/p", data: []byte("x")}),
			"nested":    deepZip(t, 2),
			"deflate":   zipBytes(t, zipEntry{name: "z", data: bytes.Repeat([]byte{0}, 100000), method: 8}),
		},
	}
	for target, m := range seeds {
		dir := filepath.Join("testdata", "fuzz", target)
		os.MkdirAll(dir, 0o755)
		for name, b := range m {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
			if err := os.WriteFile(filepath.Join(dir, "seed-"+name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
