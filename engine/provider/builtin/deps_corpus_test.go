package builtin

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDependenciesCorpusEqualLdd compares the first dynamically linked
// programs of /usr/bin and libraries of /usr/lib/x86_64-linux-gnu (by
// name) with ldd, every entry; REA_DEPS_CORPUS_ALL=1 compares all of
// them. Skipped under -short.
func TestDependenciesCorpusEqualLdd(t *testing.T) {
	if testing.Short() {
		t.Skip("the ldd corpus comparison is skipped under -short")
	}
	needTool(t, "ldd")
	limit := 40
	if os.Getenv("REA_DEPS_CORPUS_ALL") == "1" {
		limit = 1 << 30
	}
	for _, dir := range []string{"/usr/bin", "/usr/lib/x86_64-linux-gnu"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Skip(err)
		}
		n := 0
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			if n == limit || !e.Type().IsRegular() {
				continue
			}
			f, err := elf.Open(p)
			if err != nil {
				continue
			}
			needed, _ := f.DynString(elf.DT_NEEDED)
			dyn := f.Machine == elf.EM_X86_64 && slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_DYNAMIC })
			f.Close()
			if !dyn || len(needed) == 0 {
				continue
			}
			n++
			t.Run(e.Name(), func(t *testing.T) {
				t.Parallel() // ldd is a subprocess: the other core can take the next object meanwhile
				deps, _ := dependenciesOf(t, p)
				checkAgainstLdd(t, p, deps)
			})
		}
		t.Logf("%s: %d objects compared", dir, n)
	}
}
