package dataflow

import (
	"debug/elf"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// callSource is the indirect call fixture: a table of code pointers
// indexed by a masked value, a table of structs indexed after a bound
// check, and a call of an import (through its GOT slot with -fno-plt).
const callSource = `
#ifdef __clang__
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noclone))
#endif
KEEP static int f0(int a) { return a + 1; }
KEEP static int f1(int a) { return a * 3; }
KEEP static int f2(int a) { return a ^ 0x55; }
KEEP static int f3(int a) { return a - 7; }
KEEP static int f4(int a) { return a << 2; }
KEEP static int f5(int a) { return a >> 1; }
KEEP static int f6(int a) { return a | 9; }
KEEP static int f7(int a) { return a & 0x77; }
typedef int (*fn)(int);
static fn const tab[8] = {f0, f1, f2, f3, f4, f5, f6, f7};
int call_tab(unsigned i, int a) { return tab[i & 7](a); }
struct op { const char *name; int (*fn)(int); };
static const struct op ops[4] = {{"zero", f3}, {"one", f2}, {"two", f1}, {"three", f0}};
int call_op(unsigned i, int a) { if (i >= 4) return -1; return ops[i].fn(a); }
extern int ext_import(int);
int call_got(int a) { return ext_import(a) + 1; }
`

// TestIndirectCallsMatrix resolves the fixture's indirect calls on each
// architecture with gcc and clang: the tables' candidates are the
// functions the source puts in them (the -g twin's symbols), the GOT call
// names its import.
func TestIndirectCallsMatrix(t *testing.T) {
	want := map[string][]string{
		"call_tab": {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"},
		"call_op":  {"f3", "f2", "f1", "f0"},
	}
	var report []string
	cache := &testkit.BuildCache{Dir: t.TempDir()}
	for _, c := range jtCells(testing.Short()) {
		t.Run(strings.ReplaceAll(c.String(), "/", "_"), func(t *testing.T) {
			driver := c.arch.gcc
			if c.compiler == "clang" {
				driver = c.arch.clang
			}
			// The PIC build calls its import through the GOT; the static
			// one defines it (the call is direct).
			flags := []string{c.level, "-fPIC", "-shared", "-fno-plt"}
			files := [][2]string{{"calls.c", callSource}}
			if !c.pic {
				flags = []string{c.level, "-fno-pic", "-no-pie", "-static", "-Wl,-e,0"}
				if c.compiler == "clang" {
					flags = []string{c.level, "-fno-pic", "-static", "-Wl,-e,0", "-Wl,-no-pie"}
				}
				files = append(files, [2]string{"ext.c", "int ext_import(int a) { return a - 1; }\n"})
			}
			stripped, debug, skip, err := buildFixture(cache, driver, flags, files)
			if err != nil {
				t.Fatal(err)
			}
			if skip != "" {
				testkit.SkipOrFail(t, skip)
			}
			testkit.Need(t, c.arch.objdump)
			ef, df, img := openTwins(t, stripped, debug)
			syms := funcSyms(df)
			resolved, present, candidates := 0, 0, 0
			for _, name := range []string{"call_tab", "call_op", "call_got"} {
				s := syms[name]
				sec, code, err := textOf(ef, s.Value)
				if err != nil {
					t.Fatal(err)
				}
				off := s.Value - sec.Addr
				insns := liftProc(c.arch.arch, code[off:off+s.Size], s.Value)
				res, err := ResolveProcedure(c.arch.arch, insns, img, Options{Start: s.Value, End: s.Value + s.Size, Lift: liftAt(c.arch.arch, img)})
				if err != nil {
					t.Fatal(err)
				}
				for _, u := range res.UnresolvedCalls {
					t.Errorf("%s %s: call at %#x not resolved: %s %s", c, name, u.Addr, u.Reason, u.Detail)
				}
				jumps, err := indirectJumps(c.arch.objdump, stripped, s.Value, s.Value+s.Size)
				if err != nil {
					t.Fatal(err)
				}
				calls, err := indirectCalls(c.arch.objdump, stripped, s.Value, s.Value+s.Size)
				if err != nil {
					t.Fatal(err)
				}
				if len(jumps)+len(calls) == 0 {
					t.Logf("%s %s: no indirect transfer (the compiler called through the PLT)", c, name)
					continue
				}
				present++
				if len(res.Calls) != 1 {
					t.Errorf("%s %s: %d indirect calls resolved, want 1", c, name, len(res.Calls))
					continue
				}
				call := res.Calls[0]
				resolved++
				candidates += len(call.Targets)
				if name == "call_got" {
					if call.Import != "ext_import" || len(call.Targets) != 0 {
						t.Errorf("%s %s: %+v, want the import ext_import", c, name, call)
					}
					continue
				}
				var got []string
				for _, a := range call.Targets {
					got = append(got, symbolAt(syms, a))
				}
				if !slices.Equal(got, want[name]) {
					t.Errorf("%s %s: candidates %v, want %v", c, name, got, want[name])
				}
			}
			report = append(report, fmt.Sprintf("%-28s indirect calls present %d resolved %d, candidates %2d", c, present, resolved, candidates))
		})
	}
	t.Log("\n" + strings.Join(report, "\n"))
}

// indirectCalls lists the addresses of the indirect calls objdump shows
// in [lo, hi).
func indirectCalls(objdump, path string, lo, hi uint64) ([]uint64, error) {
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", fmt.Sprintf("--start-address=%#x", lo), fmt.Sprintf("--stop-address=%#x", hi), path).Output()
	if err != nil {
		return nil, err
	}
	var res []uint64
	re := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(?:notrack\s+)?(call\s+\*|blr\s+x)`)
	for _, l := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			res = append(res, a)
		}
	}
	return res, nil
}

func symbolAt(syms map[string]elf.Symbol, a uint64) string {
	for n, s := range syms {
		if s.Value == a {
			return n
		}
	}
	return fmt.Sprintf("%#x", a)
}
