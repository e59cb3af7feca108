package builtin

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzEhFrame feeds arbitrary bytes to the .eh_frame walker as the section
// at addr (64-bit and 32-bit little-endian, and 32-bit big-endian, for the
// same bytes). Seeds are .eh_frame sections of compiled programs
// (testdata/README.md; TestWriteEhFrameSeeds regenerates them).
func FuzzEhFrame(f *testing.F) {
	f.Add([]byte{}, uint64(0x1000))
	f.Fuzz(func(t *testing.T, data []byte, addr uint64) {
		for _, in := range []ehFrameInput{
			{data: data, addr: addr, bo: binary.LittleEndian, ptrSize: 8, textBase: 0x1000, dataBase: 0x4000},
			{data: data, addr: addr, bo: binary.LittleEndian, ptrSize: 4, dataBase: 0x4000},
			{data: data, addr: addr, bo: binary.BigEndian, ptrSize: 4},
		} {
			rs, _ := parseEhFrame(in)
			for i, r := range rs {
				if r.end <= r.start || r.end-r.start > maxPdataRange {
					t.Fatalf("bad range %+v", r)
				}
				if i > 0 && rs[i-1].start >= r.start {
					t.Fatalf("ranges out of order")
				}
			}
		}
	})
}

// ehSeedC has a cleanup handler so -fexceptions gives a "zPLR" CIE (personality
// and LSDA) next to the plain "zR" ones.
const ehSeedC = `#include <stdio.h>
void (*volatile hook)(int) = 0;
static void done(int *p) { printf("cleanup %d\\n", *p); }
__attribute__((noinline)) int helper(int x) { int v __attribute__((cleanup(done))) = x; if (hook) hook(v); return v * 3; }
int main(int c, char **v) { return helper(c) + (v[0][0] == 'x'); }
`

// TestWriteEhFrameSeeds regenerates testdata/fuzz/FuzzEhFrame when
// REA_WRITE_FUZZ_SEEDS=1 (needs gcc, gcc-aarch64-linux-gnu, gcc-i686-linux-gnu).
func TestWriteEhFrameSeeds(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate testdata/fuzz seeds")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "eh.c")
	if err := os.WriteFile(src, []byte(ehSeedC), 0o644); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join("testdata", "fuzz", "FuzzEhFrame")
	os.MkdirAll(d, 0o755)
	for _, tc := range []struct {
		name, cc string
		flags    []string
	}{
		{"x86_64-zR", "gcc", []string{"-O2"}},
		{"x86_64-zPLR", "gcc", []string{"-O2", "-fexceptions"}},
		{"aarch64-zR", "aarch64-linux-gnu-gcc", []string{"-O2"}},
		{"i686-zPLR", "i686-linux-gnu-gcc", []string{"-O2", "-fexceptions"}},
	} {
		cc := needTool(t, tc.cc)
		out := filepath.Join(dir, tc.name)
		if err := run(dir, nil, cc, append(tc.flags, "-o", out, src)...); err != nil {
			t.Fatal(err)
		}
		f, err := elf.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		s := f.Section(".eh_frame")
		if s == nil {
			t.Fatalf("%s: no .eh_frame", tc.name)
		}
		b, err := s.Data()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nuint64(%d)\n", strconv.Quote(string(b)), s.Addr)
		if err := os.WriteFile(filepath.Join(d, "seed-"+tc.name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEhFrameMatchesReadelf compares the FDE ranges of the seed programs'
// .eh_frame with readelf --debug-dump=frames (zR and zPLR CIEs, x86_64,
// i686 and aarch64).
func TestEhFrameMatchesReadelf(t *testing.T) {
	readelf := needTool(t, "readelf")
	dir := t.TempDir()
	src := filepath.Join(dir, "eh.c")
	if err := os.WriteFile(src, []byte(ehSeedC), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cc    string
		flags []string
	}{{"gcc", []string{"-O2", "-fexceptions"}}, {"i686-linux-gnu-gcc", []string{"-O2", "-fexceptions"}}, {"aarch64-linux-gnu-gcc", []string{"-O2", "-fexceptions"}}} {
		cc := needTool(t, tc.cc)
		out := filepath.Join(dir, tc.cc)
		if err := run(dir, nil, cc, append(tc.flags, "-o", out, src)...); err != nil {
			t.Fatal(err)
		}
		f, err := elf.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		s := f.Section(".eh_frame")
		b, _ := s.Data()
		ps := 8
		if f.Class == elf.ELFCLASS32 {
			ps = 4
		}
		got, lims := parseEhFrame(ehFrameInput{data: b, addr: s.Addr, bo: f.ByteOrder, ptrSize: ps})
		f.Close()
		if len(lims) != 0 {
			t.Errorf("%s: limitations %v", tc.cc, lims)
		}
		dump, err := exec.Command(readelf, "--debug-dump=frames", out).Output()
		if err != nil {
			t.Fatal(err)
		}
		var want []codeRange
		for _, line := range strings.Split(string(dump), "\n") {
			i := strings.Index(line, " pc=")
			if !strings.Contains(line, " FDE ") || i < 0 {
				continue
			}
			lo, hi, _ := strings.Cut(line[i+4:], "..")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			e, err2 := strconv.ParseUint(strings.TrimSpace(hi), 16, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("readelf line %q", line)
			}
			want = append(want, codeRange{a, e})
		}
		slices.SortFunc(want, func(x, y codeRange) int { return cmpU64(x.start, y.start) })
		if len(want) < 4 || !slices.Equal(got, want) {
			t.Errorf("%s: FDEs\n got %x\nwant %x", tc.cc, got, want)
		}
	}
}
