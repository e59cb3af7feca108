package builtin

import (
	"debug/macho"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// machoFuncStartsBlob returns the LC_FUNCTION_STARTS data of a Mach-O file
// and the __TEXT segment's address, read with debug/macho.
func machoFuncStartsBlob(t *testing.T, path string) ([]byte, uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := macho.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Segment("__TEXT")
	if text == nil {
		t.Fatal("no __TEXT")
	}
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) >= 16 && f.ByteOrder.Uint32(raw) == lcFunctionStarts {
			off, size := f.ByteOrder.Uint32(raw[8:]), f.ByteOrder.Uint32(raw[12:])
			return b[off : off+size], text.Addr
		}
	}
	t.Fatal("no LC_FUNCTION_STARTS")
	return nil, 0
}

// TestFunctionStartsMatchObjdump compares the decoded LC_FUNCTION_STARTS of
// the clang + lld fixtures (x86_64, arm64) with llvm-objdump --function-starts,
// both for the raw decoder and for the image's filtered starts.
func TestFunctionStartsMatchObjdump(t *testing.T) {
	for _, target := range []string{"x86_64-apple-macos11", "arm64-apple-macos11"} {
		t.Run(target, func(t *testing.T) {
			path := clangMachO(t, target)
			out := toolOutput(t, "llvm-objdump", "--macho", "--function-starts", path)
			var want []uint64
			for _, ln := range strings.Split(out, "\n") {
				if a, err := strconv.ParseUint(strings.TrimSpace(ln), 16, 64); err == nil {
					want = append(want, a)
				}
			}
			if len(want) < 3 {
				t.Fatalf("llvm-objdump lists %d function starts:\n%s", len(want), out)
			}
			blob, base := machoFuncStartsBlob(t, path)
			got, lims := parseFunctionStarts(blob, base)
			if len(lims) != 0 || !slices.Equal(got, want) {
				t.Errorf("decoded %x (limitations %v), llvm-objdump %x", got, lims, want)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			img, err := openMachO(b)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(img.macho.funcStarts, want) || !slices.Contains(img.discovery, "function-starts") {
				t.Errorf("image starts %x, discovery %v", img.macho.funcStarts, img.discovery)
			}
		})
	}
}

func TestParseFunctionStartsDamage(t *testing.T) {
	for _, tc := range []struct {
		name string
		blob []byte
		want []uint64
		lim  string
	}{
		{"empty", nil, nil, ""},
		{"deltas, zero end, padding", []byte{0x80, 0x20, 0x10, 0x00, 0x00, 0x00}, []uint64{0x1000, 0x1010}, ""},
		{"no terminator", []byte{0x80, 0x20, 0x10}, []uint64{0x1000, 0x1010}, ""},
		{"cut-off delta", []byte{0x80, 0x20, 0x90}, []uint64{0x1000}, "cut off"},
		{"too wide", []byte{0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, []uint64{0x10}, "64 bits"},
		{"eleven bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, nil, "64 bits"},
		{"wraps", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01}, []uint64{^uint64(0)}, "address space"},
	} {
		got, lims := parseFunctionStarts(tc.blob, 0)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: starts %x, want %x", tc.name, got, tc.want)
		}
		if tc.lim == "" && len(lims) != 0 || tc.lim != "" && (len(lims) != 1 || !strings.Contains(lims[0], tc.lim)) {
			t.Errorf("%s: limitations %v, want %q", tc.name, lims, tc.lim)
		}
	}
	// The largest delta that fits: 2^64-1 from base 0.
	max := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	if got, lims := parseFunctionStarts(max, 0); len(got) != 1 || got[0] != ^uint64(0) || len(lims) != 0 {
		t.Errorf("2^64-1: %x %v", got, lims)
	}
}

// FuzzFunctionStarts feeds arbitrary bytes to the LC_FUNCTION_STARTS decoder
// as the blob of an image whose __TEXT segment is at base. Seeds are the
// blobs of the clang + lld fixtures (testdata/README.md;
// TestWriteFunctionStartsSeeds regenerates them).
func FuzzFunctionStarts(f *testing.F) {
	f.Add([]byte{0x80, 0x20, 0x10, 0x00}, uint64(0x100000000))
	f.Fuzz(func(t *testing.T, data []byte, base uint64) {
		got, lims := parseFunctionStarts(data, base)
		if len(got) > len(data) {
			t.Fatalf("%d starts from %d bytes", len(got), len(data))
		}
		for i, a := range got {
			if a <= base || i > 0 && got[i-1] >= a {
				t.Fatalf("start %d %#x out of order (base %#x)", i, a, base)
			}
		}
		if len(lims) > 1 {
			t.Fatalf("limitations %v", lims)
		}
	})
}

// TestWriteFunctionStartsSeeds regenerates testdata/fuzz/FuzzFunctionStarts
// from strippedCFree built with clang -O2 + lld (about 30 starts each) when
// REA_WRITE_FUZZ_SEEDS=1.
func TestWriteFunctionStartsSeeds(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate testdata/fuzz seeds")
	}
	d := filepath.Join("testdata", "fuzz", "FuzzFunctionStarts")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	needLd64(t)
	cc := needTool(t, "clang")
	dir := t.TempDir()
	src := filepath.Join(dir, "recall.c")
	if err := os.WriteFile(src, []byte(strippedCFree), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"x86_64": "x86_64-apple-macos11", "arm64": "arm64-apple-macos11"} {
		out := filepath.Join(dir, name)
		if err := run(dir, nil, cc, append([]string{"-target", target, "-O2", "-o", out, src}, machoCCArgs...)...); err != nil {
			t.Fatal(err)
		}
		blob, base := machoFuncStartsBlob(t, out)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nuint64(%d)\n", strconv.Quote(string(blob)), base)
		if err := os.WriteFile(filepath.Join(d, "seed-"+name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
