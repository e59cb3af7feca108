package builtin

import (
	"debug/elf"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/engine/progress"
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
