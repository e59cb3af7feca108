package builtin

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// Honest limitations (limitations.go): for every unreadSources entry, a
// fixture that has the source carries the entry's limitation on every
// discovery-dependent operation, as a target limitation too (and not on
// list_strings); the other
// fixtures do not carry it. An entry whose source the image now reads (its
// read name is in function_discovery) must be silent.

// freestandingPE is a CRT-free Windows program for clang + lld-link.
const freestandingPE = `__attribute__((noinline)) int f(int x) { return x * 3; }
__attribute__((noinline)) int g(int x) { return f(x) + 1; }
int mainCRTStartup(void) { return g(4); }
`

func clangPE(t testing.TB, target string) string {
	return fixture(t, "lim-clang-"+target+".exe", func(dir, out string) (string, error) {
		for _, tool := range []string{"clang", "lld-link"} {
			if _, err := lookPath(tool); err != nil {
				return "tool " + tool + " is not installed (packages clang, lld); install it to run this test", nil
			}
		}
		src := filepath.Join(dir, "p.c")
		if err := os.WriteFile(src, []byte(freestandingPE), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, "clang", "-target", target, "-O0", "-fuse-ld=lld", "-nostdlib",
			"-Wl,/entry:mainCRTStartup", "-Wl,/subsystem:console", "-o", out, src)
	})
}

// clangMachONoStarts is clangMachO's program linked without LC_FUNCTION_STARTS.
func clangMachONoStarts(t testing.TB) string {
	return fixture(t, "lim-macho-no-function-starts", func(dir, out string) (string, error) {
		if _, err := lookPath("clang"); err != nil {
			return "tool clang is not installed (package clang); install it to run this test", nil
		}
		_, e1 := lookPath("ld64.lld")
		_, e2 := lookPath("ld64.lld-14")
		if e1 != nil && e2 != nil {
			return "tool ld64.lld is not installed (package lld); install it to run this test", nil
		}
		src := filepath.Join(dir, "fixture.c")
		if err := os.WriteFile(src, []byte(fixtureCFree), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, "clang", "-target", "arm64-apple-macos11", "-O1", "-nostdlib", "-fuse-ld=lld",
			"-Wl,-undefined,dynamic_lookup", "-Wl,-platform_version,macos,11.0,11.0", "-Wl,-no_function_starts", "-o", out, src)
	})
}

// gapFixtures are the fixtures and the unreadSources entries each has the
// source of. An entry id that is no longer in the table is ignored (its
// source is read now); an entry without a fixture here fails the test.
var gapFixtures = []struct {
	name  string
	build func(t testing.TB) string
	gaps  []string
}{
	{"elf-x86_64", func(t testing.TB) string { return cFixture(t, "lim-gcc", "gcc", "-O2") }, nil},
	{"elf-armhf", func(t testing.TB) string { return cFixture(t, "lim-armhf", "arm-linux-gnueabihf-gcc", "-O2") }, nil},
	{"pe-i686", func(t testing.TB) string { return cFixture(t, "lim-mingw32.exe", "i686-w64-mingw32-gcc", "-O2") }, []string{"pe-call-targets"}},
	{"pe-x86_64", func(t testing.TB) string { return cFixture(t, "lim-mingw64.exe", "x86_64-w64-mingw32-gcc", "-O2") }, nil},
	{"pe-arm64", func(t testing.TB) string { return clangPE(t, "aarch64-pc-windows-msvc") }, []string{"pe-arm64-pdata", "pe-call-targets"}},
	{"pe-arm", func(t testing.TB) string { return clangPE(t, "armv7-pc-windows-msvc") }, []string{"pe-call-targets"}},
	{"go-elf", func(t testing.TB) string { return goFixture(t, "linux", "amd64") }, nil},
	{"go-pe", func(t testing.TB) string { return goFixture(t, "windows", "amd64") }, nil},
	{"go-macho", func(t testing.TB) string { return goFixture(t, "darwin", "arm64") }, nil},
	{"macho-arm64", func(t testing.TB) string { return clangMachO(t, "arm64-apple-macos11") }, nil},
	{"macho-no-function-starts", clangMachONoStarts, []string{"macho-unwind-info"}},
}

func TestUnreadSourceLimitations(t *testing.T) {
	covered := map[string]bool{}
	for _, fx := range gapFixtures {
		for _, g := range fx.gaps {
			covered[g] = true
		}
	}
	for _, u := range unreadSources {
		if !covered[u.id] {
			t.Errorf("unreadSources entry %s has no fixture in gapFixtures", u.id)
		}
	}
	for _, fx := range gapFixtures {
		t.Run(fx.name, func(t *testing.T) {
			path := fx.build(t)
			p, tg, c := open(t, path)
			prof, err := p.Profile(context.Background(), tg)
			if err != nil {
				t.Fatal(err)
			}
			disc, _ := prof.Parameters["function_discovery"].([]any)
			var want []string
			for _, u := range unreadSources {
				switch {
				case !slices.Contains(fx.gaps, u.id):
				case u.read != "" && slices.Contains(disc, any(u.read)):
					t.Logf("%s: source %s is read now (%s in function_discovery)", fx.name, u.id, u.read)
				default:
					want = append(want, u.text)
				}
			}
			first := allProcedures(t, c)[0].Address
			dependent := map[string]provider.Params{
				provider.OpListProcedures:    {"offset": int64(0), "limit": int64(1)},
				provider.OpListNames:         {"offset": int64(0), "limit": int64(1)},
				provider.OpProcedureAddress:  {"procedure": first},
				provider.OpResolveContaining: {"address": first},
				provider.OpSearchProcedures:  {"pattern": "a", "mode": "literal", "offset": int64(0), "limit": int64(1)},
			}
			for op, in := range dependent {
				r := do(t, c, op, in)
				if got := gapLimitations(r.Limitations); !slices.Equal(got, sorted(want)) {
					t.Errorf("%s limitations about unread sources:\n got %q\nwant %q", op, got, sorted(want))
				}
				// Target-wide: the engine carries them into composed operations.
				if got := gapLimitations(r.TargetLimitations); !slices.Equal(got, sorted(want)) {
					t.Errorf("%s target limitations about unread sources:\n got %q\nwant %q", op, got, sorted(want))
				}
			}
			if got := gapLimitations(do(t, c, provider.OpListStrings, provider.Params{"offset": int64(0), "limit": int64(1)}).Limitations); len(got) != 0 {
				t.Errorf("list_strings carries discovery limitations %q", got)
			}
			t.Logf("%s (function_discovery %v): %q", fx.name, disc, want)
		})
	}
}

// gapLimitations are the unreadSources texts among lims, sorted.
func gapLimitations(lims []string) []string {
	var out []string
	for _, l := range lims {
		if slices.ContainsFunc(unreadSources, func(u unreadSource) bool { return u.text == l }) {
			out = append(out, l)
		}
	}
	return sorted(out)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}
