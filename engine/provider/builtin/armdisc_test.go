package builtin

import (
	"debug/elf"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// TestARMCallTargets (issue 13): on a stripped armhf program, call-target
// descent finds the directly called functions and the code pointers, each in
// its own mode: ARM code calls libgcc's Thumb division through blx. Before
// it, only the entry point and main were found.
func TestARMCallTargets(t *testing.T) {
	cc := needTool(t, "arm-linux-gnueabihf-gcc")
	strip := needTool(t, "arm-linux-gnueabihf-strip")
	src, err := filepath.Abs(filepath.Join("testdata", "corpus", "corpus.c"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"-marm", "-mthumb"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			full, stripped := filepath.Join(dir, "full"), filepath.Join(dir, "stripped")
			if err := run(dir, nil, cc, mode, "-O2", "-o", full, src); err != nil {
				t.Fatal(err)
			}
			if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
				t.Fatal(err)
			}
			// The oracle: function symbols and their Thumb bit.
			f, err := elf.Open(full)
			if err != nil {
				t.Fatal(err)
			}
			syms, err := f.Symbols()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			oracle := map[uint64]bool{}
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
					oracle[s.Value&^1] = s.Value&1 != 0
				}
			}
			_, _, pc := open(t, stripped)
			c := pc.(*Client)
			six, err := c.symbols(t.Context(), "test", progress.OrNop(nil))
			if err != nil {
				t.Fatal(err)
			}
			hits, thumbs, arms := 0, 0, 0
			for _, k := range six.procs {
				a := six.syms[k].addr
				want, ok := oracle[a]
				if !ok {
					continue
				}
				hits++
				got, inferred := c.armMode(six, a)
				if got != want || inferred != "" {
					t.Errorf("%#x: thumb %v (inferred %q), the symbol says %v", a, got, inferred, want)
				}
				if got {
					thumbs++
				} else {
					arms++
				}
			}
			if hits < 50 {
				// 43 from calls; the op_* callbacks from R_ARM_RELATIVE
				// slots; qsort's comparators and the visitors from
				// pc-relative address forms.
				t.Errorf("%d of %d function starts found (want >= 50)", hits, len(oracle))
			}
			if thumbs == 0 || arms == 0 {
				t.Errorf("%d Thumb and %d ARM procedures: want both (libgcc is Thumb code; the PLT and crt code ARM)", thumbs, arms)
			}
		})
	}
}

// armGapsC is a -nostdlib Thumb program in the shapes the stripped arm
// discovery must find without symbols (armswitch.go, armgaps.go): a tbb
// switch whose cases call, a function pointer table in .data that only an
// indirect call reads, computed-goto labels, an ARM function reached
// through ld's Thumb-to-ARM veneer, and a function nothing calls.
const armGapsC = `typedef int (*fn)(int);
__attribute__((noinline, target("arm"))) int arm_leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int dead(int x) { return x ^ 0x55; }
__attribute__((noinline)) static int t1(int x) { return x + 1; }
__attribute__((noinline)) static int t2(int x) { return x - 2; }
__attribute__((noinline)) static int t3(int x) { return arm_leaf(x); }
fn table[] = {t1, t2, t3};
__attribute__((noinline)) int sw(int x) {
	switch (x & 7) {
	case 0: return t1(x);
	case 1: return t2(x) + 5;
	case 2: return t3(x) * 2;
	case 3: return x << 2;
	case 4: return x - 9;
	case 5: return table[x & 1](x);
	default: return -x;
	}
}
__attribute__((noinline)) int gotos(int x) {
	static void *labels[] = {&&a, &&b, &&c};
	goto *labels[x % 3];
a:	return x + 7;
b:	return t2(x);
c:	return t1(x) * 3;
}
void _start(void) {
	volatile int r = sw(3) + gotos(2) + table[2](1);
	(void)r;
	for (;;) ;
}
`

// armGapsFlags build armGapsC small and static (page size 16), as the fuzz
// seed seed-armhf-gaps is.
var armGapsFlags = []string{"-mthumb", "-O2", "-nostdlib", "-nostartfiles", "-static", "-fno-pie", "-no-pie",
	"-fno-asynchronous-unwind-tables", "-Wl,--build-id=none", "-Wl,-z,max-page-size=0x10", "-Wl,-z,noseparate-code", "-Wl,-z,norelro"}

// buildARMGaps compiles armGapsC and returns the unstripped and stripped
// executables.
func buildARMGaps(t *testing.T) (full, stripped string) {
	t.Helper()
	cc := needTool(t, "arm-linux-gnueabihf-gcc")
	strip := needTool(t, "arm-linux-gnueabihf-strip")
	dir := t.TempDir()
	src := filepath.Join(dir, "gaps.c")
	if err := os.WriteFile(src, []byte(armGapsC), 0o644); err != nil {
		t.Fatal(err)
	}
	full, stripped = filepath.Join(dir, "gaps"), filepath.Join(dir, "gaps-stripped")
	if err := run(dir, nil, cc, append(slices.Clone(armGapsFlags), "-o", full, src)...); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
		t.Fatal(err)
	}
	return full, stripped
}

// TestARMStrippedGaps: every function of armGapsC is a procedure of the
// stripped executable, and nothing else is: before the jump tables, data
// labels, veneers and gaps were read, sw's cases (t1 through the table
// only), dead, and arm_leaf behind its veneer were missing.
func TestARMStrippedGaps(t *testing.T) {
	full, stripped := buildARMGaps(t)
	code, oracle := corpusOracle(t, full, false)
	for _, name := range []string{"dead", "t1", "t2", "t3", "arm_leaf", "sw", "gotos", "__arm_leaf_from_thumb"} {
		if !slices.Contains(slices.Collect(maps.Values(oracle)), name) {
			t.Fatalf("the oracle lacks %s: %v", name, oracle)
		}
	}
	for _, path := range []string{stripped, full} {
		n := corpusCompare(t, path, code, oracle, true)
		if n.hit != len(oracle) || n.found != len(oracle) {
			t.Errorf("%s: %d of %d functions found, %d procedures", filepath.Base(path), n.hit, len(oracle), n.found)
		}
	}
}

// TestWriteARMGapsSeed regenerates testdata/fuzz/FuzzELF/seed-armhf-gaps,
// the stripped armGapsC (REA_WRITE_FUZZ_SEEDS=1).
func TestWriteARMGapsSeed(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate the seed")
	}
	_, stripped := buildARMGaps(t)
	b, err := os.ReadFile(stripped)
	if err != nil {
		t.Fatal(err)
	}
	writeCorpus(t, filepath.Join("testdata", "fuzz", "FuzzELF", "seed-armhf-gaps"), b)
}

// armLabelsC is a Thumb shared object whose computed-goto table the dynamic
// linker relocates: R_ARM_RELATIVE words holding label addresses without
// the Thumb bit (GCC's &&label), as CPython's opcode_targets does.
const armLabelsC = `__attribute__((noinline)) int t1(int x) { return x + 1; }
__attribute__((noinline)) int t2(int x) { return x - 2; }
int gotos(int x) {
	static void *labels[] = {&&a, &&b, &&c, &&d, &&e, &&f};
	goto *labels[x % 6];
a:	return x + 7;
b:	return t2(x);
c:	return t1(x) * 3;
d:	return t1(x) ^ t2(x);
e:	return x << 3;
f:	return t2(x) - t1(x + 5);
}
`

// TestARMRelocatedLabels (issue 13): the labels of a relocated computed-goto
// table are no procedures of the stripped library. Taken as ARM function
// pointers (bit 0 clear), they were sub_ procedures decoded in the wrong
// mode, at 2 mod 4 where no ARM code can start; on armhf libpython3.11 their
// garbage calls were 2957 callees that resolved to no procedure.
func TestARMRelocatedLabels(t *testing.T) {
	cc := needTool(t, "arm-linux-gnueabihf-gcc")
	strip := needTool(t, "arm-linux-gnueabihf-strip")
	dir := t.TempDir()
	src, full, stripped := filepath.Join(dir, "labels.c"), filepath.Join(dir, "labels.so"), filepath.Join(dir, "labels-stripped.so")
	if err := os.WriteFile(src, []byte(armLabelsC), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, cc, "-mthumb", "-O2", "-nostdlib", "-shared", "-fPIC", "-o", full, src); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
		t.Fatal(err)
	}
	// The fixture holds what the rule reads: bit-0-clear label words, one
	// at 2 mod 4.
	f, err := elf.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var labels []uint64
	for _, s := range f.Sections {
		if s.Type != elf.SHT_REL {
			continue
		}
		b, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		for o := 0; o+8 <= len(b); o += 8 {
			if elf.R_ARM(f.ByteOrder.Uint32(b[o+4:])&0xff) != elf.R_ARM_RELATIVE {
				continue
			}
			off := uint64(f.ByteOrder.Uint32(b[o:]))
			for _, p := range f.Progs {
				var w [4]byte
				if p.Type == elf.PT_LOAD && off >= p.Vaddr && off+4 <= p.Vaddr+p.Filesz {
					if _, err := p.ReadAt(w[:], int64(off-p.Vaddr)); err != nil {
						t.Fatal(err)
					}
					labels = append(labels, uint64(f.ByteOrder.Uint32(w[:])))
				}
			}
		}
	}
	if len(labels) != 6 || !slices.ContainsFunc(labels, func(v uint64) bool { return v&3 == 2 }) {
		t.Fatalf("the fixture's label words %#x: want 6, bit 0 clear, one at 2 mod 4", labels)
	}
	_, _, c := open(t, stripped)
	procs := allProcedures(t, c)
	for _, p := range procs {
		a, err := provider.ParseAddress(p.Address)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(labels, a) {
			t.Errorf("label %s is procedure %s", p.Address, p.Value)
		}
	}
	if len(procs) != 5 {
		t.Errorf("%d procedures %v: want t1, t2, gotos and the two PLT stubs", len(procs), procs)
	}
	checkCalleesResolve(t, c, procs)
}
