package compare

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// Two versions of one program: the right one imports more functions, so
// every import's PLT entry, GOT slot or IAT thunk moves; same() is the
// same code, swapped() calls another import with the same arguments.
const slotsLeft = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) int same(const char *s) { return (int)strlen(s) + puts(s); }
__attribute__((noinline)) void swapped(const char *s) { perror(s); }
int main(int argc, char **argv) { swapped(argv[argc - 1]); return same(argv[0]); }
`

const slotsRight = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) int added(const char *s) { return atoi(getenv(s)) + (int)strspn(s, "ab") + abs(rand()); }
__attribute__((noinline)) int same(const char *s) { return (int)strlen(s) + puts(s); }
__attribute__((noinline)) void swapped(const char *s) { remove(s); }
int main(int argc, char **argv) { swapped(argv[argc - 1]); return same(argv[0]) + added(argv[0]); }
`

// TestCompareSlotsMoved: a procedure whose calls reach the same imports
// through slots that moved is unchanged, and so are the stubs themselves;
// one that calls another import is changed, its delta naming both (PLT
// stubs of x86-64, arm64 and i386, whose code moved relative to its GOT;
// -fno-plt GOT calls; x86-64 and i686 PE import thunks).
func TestCompareSlotsMoved(t *testing.T) {
	for _, c := range []struct {
		name, cc, ext  string
		flags          []string
		prefix         string // of C names (i686 PE)
		removed, added string
	}{
		{"elf-plt", "gcc", "", []string{"-O2"}, "", "perror@plt", "remove@plt"},
		{"elf-got", "gcc", "", []string{"-O2", "-fno-plt"}, "", "perror", "remove"},
		{"pe-iat", "x86_64-w64-mingw32-gcc", ".exe", []string{"-O2"}, "", "perror", "remove"},
		{"arm64-plt", "aarch64-linux-gnu-gcc", "", []string{"-O2"}, "", "perror@plt", "remove@plt"},
		{"i686-plt", "i686-linux-gnu-gcc", "", []string{"-O2"}, "", "perror@plt", "remove@plt"},
		{"pe-i686-iat", "i686-w64-mingw32-gcc", ".exe", []string{"-O2"}, "_", "_perror", "_remove"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cc := testkit.Need(t, c.cc)
			dir := t.TempDir()
			var bins [2]string
			for i, src := range []string{slotsLeft, slotsRight} {
				name := []string{"left", "right"}[i]
				if err := os.WriteFile(filepath.Join(dir, name+".c"), []byte(src), 0o600); err != nil {
					t.Fatal(err)
				}
				bins[i] = filepath.Join(dir, name+c.ext)
				args := append(slices.Clone(c.flags), "-o", bins[i], name+".c")
				cmd := exec.Command(cc, args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %v: %v\n%s", cc, args, err, out)
				}
			}
			res := compareFiles(t, bins[0], bins[1])
			byName := map[string]Item{}
			for _, it := range res.Items {
				if it.Left != nil {
					byName[it.Left.Name] = it
				}
			}
			if it := byName[c.prefix+"same"]; it.Status != StatusUnchanged || it.Right == nil || it.Right.Name != c.prefix+"same" {
				t.Errorf("same: %s, paired with %+v; want unchanged", it.Status, it.Right)
			}
			sw := byName[c.prefix+"swapped"]
			if sw.Status != StatusChanged || sw.Delta == nil {
				t.Fatalf("swapped: %s %+v; want changed with a delta", sw.Status, sw.Delta)
			}
			if !slices.Equal(sw.Delta.CallsAdded, []string{c.added}) || !slices.Equal(sw.Delta.CallsRemoved, []string{c.removed}) {
				t.Errorf("swapped: calls added %q removed %q; want [%s] [%s]", sw.Delta.CallsAdded, sw.Delta.CallsRemoved, c.added, c.removed)
			}
			// The stubs of imports both sides have: unchanged, though they moved.
			moved := 0
			for _, it := range res.Items {
				if it.Left == nil || it.Right == nil || !strings.Contains(it.Left.Name, "strlen") && !strings.Contains(it.Left.Name, "puts") {
					continue
				}
				if it.leftAddr != it.rightAddr {
					moved++
				}
				if it.Status != StatusUnchanged {
					t.Errorf("%s: %s", it.Left.Name, it.Status)
				}
			}
			same := byName[c.prefix+"same"]
			if moved == 0 && same.leftAddr == same.rightAddr {
				t.Fatal("neither the stubs nor same() moved: the fixture does not test moved slots")
			}
		})
	}
}
