package signature_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/internal/testkit"
)

// callConvC declares i386 functions of each convention; callConvWant is
// what its source says of each: the convention and where each parameter
// travels.
const callConvC = `#define NI __attribute__((noinline, noipa, used))
NI int __attribute__((stdcall)) s_add3(int a, int b, int c) { return a + b * c; }
NI int __attribute__((stdcall)) s_second(int a, int b) { return b + 1; }
NI double __attribute__((stdcall)) s_mix(double x, int n) { return x * n; }
NI int __attribute__((fastcall)) f_sub2(int a, int b) { return a - b; }
NI int __attribute__((fastcall)) f_sum4(int a, int b, int c, int d) { return a + b + c + d; }
NI int __attribute__((fastcall)) f_triple(int a) { return a * 3; }
NI int __attribute__((fastcall)) f_fourth(int a, int b, int c, int d) { return d ^ 5; }
NI int __attribute__((cdecl)) c_add2(int a, int b) { return a + b; }
NI int c_plain(int a, int b, int c) { return a * b - c; }
int main(int argc, char **argv) { return s_add3(1, 2, 3) + s_second(4, 5) + (int)s_mix(1.5, 6) + f_sub2(7, 8) + f_sum4(9, 10, 11, 12) + f_triple(13) + f_fourth(1, 2, 3, 4) + c_add2(14, argc) + c_plain(1, 2, argc); }
`

var callConvWant = map[string]struct {
	conv    string
	storage []string
	// ambiguous: a fastcall procedure that reads neither ecx nor edx is,
	// by its own code, a stdcall one with the same stack arguments; only
	// its callers (which load ecx and edx) tell them apart. Its stack
	// parameters and a callee-pops convention are what is checked.
	ambiguous bool
}{
	"s_add3":   {"stdcall", []string{"stack+0x4", "stack+0x8", "stack+0xc"}, false},
	"s_second": {"stdcall", []string{"stack+0x4", "stack+0x8"}, false},
	"s_mix":    {"stdcall", []string{"stack+0x4", "stack+0xc"}, false},
	"f_sub2":   {"fastcall", []string{"ecx", "edx"}, false},
	"f_sum4":   {"fastcall", []string{"ecx", "edx", "stack+0x4", "stack+0x8"}, false},
	"f_triple": {"fastcall", []string{"ecx"}, false},
	"f_fourth": {"fastcall", []string{"ecx", "edx", "stack+0x4", "stack+0x8"}, true},
	"c_add2":   {"cdecl", []string{"stack+0x4", "stack+0x8"}, false},
	"c_plain":  {"cdecl", []string{"stack+0x4", "stack+0x8", "stack+0xc"}, false},
}

// TestI386CalleePopsConventions: procedures a mingw i686 build compiled
// as stdcall (their returns pop imm16 bytes: imm/4 stack slots) and
// fastcall (ecx and edx read before written) are recovered under those
// conventions with the source's parameters, at -O0 and -O2; cdecl ones
// stay cdecl. DWARF's parameter count is checked too.
func TestI386CalleePopsConventions(t *testing.T) {
	cc, err := exec.LookPath("i686-w64-mingw32-gcc")
	if err != nil {
		testkit.SkipOrFail(t, "tool i686-w64-mingw32-gcc is not installed; install it to run this test")
		return
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "cc.c")
	if err := os.WriteFile(src, []byte(callConvC), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			out := filepath.Join(dir, "cc"+opt+".exe")
			if b, err := exec.Command(cc, opt, "-g", "-o", out, src).CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			p, err := corpus.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			env := envFor(p)
			env.Pops = map[uint64]int64{}
			right := 0
			for _, pr := range p.Procs {
				want, ok := callConvWant[pr.Name]
				if !ok {
					continue
				}
				env.Pops[pr.Addr] = signature.CalleePops(pr.Insns, env.Conv.SP)
				f, err := signature.Build(env, pr.Insns)
				if err != nil {
					t.Fatal(err)
				}
				q := signature.Infer(f, env)
				var got []string
				for _, a := range q.Params {
					got = append(got, a.Storage)
				}
				if want.ambiguous {
					var stack []string
					for _, s := range want.storage {
						if strings.HasPrefix(s, "stack+") {
							stack = append(stack, s)
						}
					}
					if (q.Convention != "stdcall" && q.Convention != "fastcall") || strings.Join(got, " ") != strings.Join(stack, " ") {
						t.Errorf("%s: %s %v, source's stack parameters %v", pr.Name, q.Convention, got, stack)
					} else {
						right++
						t.Logf("%s: %s %v (source: %s %v; the callee's code cannot tell)", pr.Name, q.Convention, got, want.conv, want.storage)
					}
					continue
				}
				if q.Convention != want.conv || strings.Join(got, " ") != strings.Join(want.storage, " ") || len(p.Params[pr.Name]) != len(want.storage) {
					t.Errorf("%s: %s %v (pops %d), source says %s %v, DWARF %d params", pr.Name, q.Convention, got, env.Pops[pr.Addr], want.conv, want.storage, len(p.Params[pr.Name]))
					continue
				}
				right++
			}
			t.Logf("%s: %d of %d functions with the source's convention and parameters", opt, right, len(callConvWant))
			if right+countMissing(t, p) != len(callConvWant) {
				t.Errorf("%d of %d", right, len(callConvWant))
			}
		})
	}
}

// countMissing reports the functions of callConvWant the build lacks (an
// error each).
func countMissing(t *testing.T, p *corpus.Program) int {
	n := 0
	for name := range callConvWant {
		found := false
		for _, pr := range p.Procs {
			found = found || pr.Name == name
		}
		if !found {
			t.Errorf("%s missing from the build", name)
			n++
		}
	}
	return n
}
