package dataflow

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.ssa from the current output")

// TestGolden prints the SSA, after all the passes, of every procedure of
// testdata/golden/*.s (gcc 12's -O0 and -O2 output of source.c for x86-64
// and i386, kept as assembly so that the test does not depend on the
// compiler's version) and compares it with the .ssa file beside it: a
// loop (sum_loop), an if/else chain (classify), stack locals (scalars at
// -O0) and a call with stack arguments (caller). The object files are not
// linked: caller's call has the assembler's placeholder target.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.s"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, src := range files {
		name := strings.TrimSuffix(filepath.Base(src), ".s")
		t.Run(name, func(t *testing.T) {
			asm, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			arch, mode, flags := amd64, 64, []string(nil)
			if strings.HasPrefix(name, "i386") {
				arch, mode, flags = i386, 32, []string{"-m32"}
			}
			obj := assembleObject(t, name, string(asm), flags...)
			var sb strings.Builder
			for _, p := range objectProcs(t, obj, mode) {
				_, f := buildOpt(t, arch, p)
				sb.WriteString("# " + p.name + "\n")
				sb.WriteString(f.String())
				sb.WriteString("\n")
			}
			got := sb.String()
			path := strings.TrimSuffix(src, ".s") + ".ssa"
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o600); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("SSA of %s differs from %s (run with -update after checking):\n%s", name, path, got)
			}
		})
	}
}
