package builtin

import (
	"bufio"
	"bytes"
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

	"github.com/rea-re/rea/engine/provider"
)

// strippedC is the stripped-recall program: about 30 functions compiled with
// gcc -O2 (static helpers, recursion, a cold path split into foo.cold,
// function pointers, a switch, varargs, noreturn).
const strippedC = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#define NI __attribute__((noinline))
int g_count;
static int table[64];
NI static int sq(int x) { return x * x + g_count; }
NI static int cube(int x) { return x * sq(x); }
NI int add3(int a, int b, int c) { return a + b + c + table[a & 63]; }
NI int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NI int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
NI static void fill(int seed) { for (int i = 0; i < 64; i++) table[i] = seed * i ^ (i >> 2); }
NI int sum_table(void) { int s = 0; for (int i = 0; i < 64; i++) s += table[i]; return s; }
NI int classify(int x) {
	switch (x & 7) { case 0: return sq(x); case 1: return cube(x); case 2: return fib(x & 15);
	case 3: return fact(x & 7); case 4: return x * 7; case 5: return x - 3; default: return -x; }
}
NI __attribute__((noreturn)) void die(const char *m) { fprintf(stderr, "fatal: %s\n", m); exit(3); }
NI int checked_div(int a, int b) {
	if (__builtin_expect(b == 0, 0)) { fprintf(stderr, "division by zero at %d\n", a); die("div"); }
	return a / b;
}
NI int logf_(const char *fmt, ...) { va_list ap; va_start(ap, fmt); int n = vfprintf(stdout, fmt, ap); va_end(ap); return n; }
typedef int (*op_fn)(int, int);
NI static int op_add(int a, int b) { return a + b; }
NI static int op_sub(int a, int b) { return a - b; }
NI static int op_mul(int a, int b) { return a * b; }
NI static int op_xor(int a, int b) { return a ^ b; }
static op_fn ops[] = { op_add, op_sub, op_mul, op_xor };
NI int apply(int i, int a, int b) { return ops[i & 3](a, b); }
NI size_t slen(const char *s) { size_t n = 0; while (s[n]) n++; return n; }
NI void rev(char *s) { size_t n = slen(s); for (size_t i = 0; i < n / 2; i++) { char t = s[i]; s[i] = s[n-1-i]; s[n-1-i] = t; } }
NI unsigned hash(const char *s) { unsigned h = 5381; while (*s) h = h * 33 + (unsigned char)*s++; return h; }
NI int gcd(int a, int b) { while (b) { int t = a % b; a = b; b = t; } return a; }
NI int lcm(int a, int b) { return a / gcd(a, b) * b; }
NI static int is_prime(int n) { if (n < 2) return 0; for (int i = 2; i * i <= n; i++) if (n % i == 0) return 0; return 1; }
NI int count_primes(int n) { int c = 0; for (int i = 0; i < n; i++) c += is_prime(i); return c; }
NI void *xmalloc(size_t n) { void *p = malloc(n); if (!p) die("oom"); return p; }
NI char *dup(const char *s) { size_t n = strlen(s); char *p = xmalloc(n + 1); memcpy(p, s, n + 1); return p; }
NI int bits(unsigned x) { int c = 0; while (x) { c += x & 1; x >>= 1; } return c; }
NI long poly(long x) { return ((3 * x + 2) * x - 7) * x + 11; }
NI int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
NI void sort_table(void) { qsort(table, 64, sizeof table[0], cmp_int); }
NI int max_of(int n, const int *v) { int m = v[0]; for (int i = 1; i < n; i++) if (v[i] > m) m = v[i]; return m; }
int main(int argc, char **argv) {
	fill(argc);
	char *s = dup(argc > 1 ? argv[1] : "stripped recall");
	rev(s);
	int r = classify(argc) + add3(argc, 2, 3) + checked_div(100, argc) + apply(argc, 7, 5) + lcm(argc + 3, 4);
	r += count_primes(100 + argc) + bits((unsigned)argc * 77u) + (int)poly(argc) + (int)hash(s);
	sort_table();
	r += max_of(64, table) + sum_table();
	logf_("%s %d\n", s, r);
	free(s);
	return r & 1;
}
`

// TestStrippedRecall compiles strippedC with gcc -O2, strips a copy and
// compares the procedure entries found in the stripped file's .text with the
// unstripped symbol table (nm: T/t symbols in .text).
func TestStrippedRecall(t *testing.T) {
	gcc := needTool(t, "gcc")
	strip := needTool(t, "strip")
	nm := needTool(t, "nm")
	dir := t.TempDir()
	src := filepath.Join(dir, "recall.c")
	if err := os.WriteFile(src, []byte(strippedC), 0o644); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(dir, "recall")
	stripped := filepath.Join(dir, "recall-stripped")
	if err := run(dir, nil, gcc, "-O2", "-o", full, src); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
		t.Fatal(err)
	}
	lo, hi := textRange(t, stripped)
	out, err := exec.Command(nm, full).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || (f[1] != "T" && f[1] != "t") {
			continue
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil || a < lo || a >= hi {
			continue
		}
		want[a] = f[2]
	}
	if len(want) < 30 {
		t.Fatalf("only %d text symbols in the unstripped fixture", len(want))
	}
	_, _, c := open(t, stripped)
	got := map[uint64]string{}
	for _, p := range allProcedures(t, c) {
		a, err := provider.ParseAddress(p.Address)
		if err != nil {
			t.Fatal(err)
		}
		if a >= lo && a < hi {
			got[a] = p.Value
		}
	}
	hit := 0
	for a, name := range want {
		if _, ok := got[a]; ok {
			hit++
		} else {
			t.Logf("missed %#x %s", a, name)
		}
	}
	for a, name := range got {
		if _, ok := want[a]; !ok {
			t.Logf("extra %#x %s", a, name)
		}
	}
	recall := float64(hit) / float64(len(want))
	precision := 0.0
	if len(got) > 0 {
		precision = float64(hit) / float64(len(got))
	}
	t.Logf("stripped -O2: %d text symbols, %d procedures found in .text, %d agree: recall %.2f%%, precision %.2f%%",
		len(want), len(got), hit, 100*recall, 100*precision)
	if recall < 0.98 || precision < 0.98 {
		t.Errorf("recall %.2f%% / precision %.2f%%, want both >= 98%%", 100*recall, 100*precision)
	}
	// The profile names the source.
	prof, err := New("v1").Profile(t.Context(), targetFor(t, stripped))
	if err != nil {
		t.Fatal(err)
	}
	disc, _ := prof.Parameters["function_discovery"].([]any)
	if !slices.Contains(disc, any("eh-frame")) {
		t.Errorf("function_discovery %v lacks eh-frame", disc)
	}
}

func textRange(t *testing.T, path string) (uint64, uint64) {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil {
		t.Fatal("no .text")
	}
	return s.Addr, s.Addr + s.Size
}

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
