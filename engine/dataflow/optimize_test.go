package dataflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// optimizeEveryPass is Optimize as it was before it skipped passes: every
// pass in every round until a round changes nothing, constant folding's
// replacements applied before value numbering, copy propagation scanning
// every value each time round.
func optimizeEveryPass(f *Func) {
	for round := 0; round < 8; round++ {
		changed := round == 0 && copyPropagateScanning(f)
		changed = foldConstants(f) || changed
		changed = valueNumber(f) || changed
		changed = foldFlags(f) || changed
		changed = foldBranches(f) || changed
		changed = copyPropagateScanning(f) || changed
		changed = eliminateDeadCode(f) || changed
		if !changed {
			break
		}
	}
}

// copyPropagateScanning is copyPropagate finding the copies and trivial
// phis by a scan of every value before each sweep.
func copyPropagateScanning(f *Func) bool {
	any := false
	for {
		fw := newForwarding(f)
		order := scanCopies(f, fw, nil)
		if fw.n == 0 {
			return any
		}
		broke := breakCycles(order, fw)
		any = true
		if !replaceAll(f, fw) && !broke {
			return any
		}
	}
}

// TestOptimizeSkipsOnlyNoOps checks that what Optimize skips changes
// nothing: on the corpus (amd64 at -O0, -O1 and -O2, i386 at -O2) and the
// golden inputs, each procedure built as ResolveProcedure builds it
// (copies left to the passes) and as Build does reads the same after
// Optimize as after optimizeEveryPass, value numbers included.
func TestOptimizeSkipsOnlyNoOps(t *testing.T) {
	type object struct {
		arch *Arch
		mode int
		path string
	}
	var objs []object
	for _, opt := range []string{"-O0", "-O1", "-O2"} {
		objs = append(objs, object{amd64, 64, corpusObject(t, opt)})
	}
	objs = append(objs, object{i386, 32, corpusObject(t, "-O2 -m32")})
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.s"))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range files {
		name := strings.TrimSuffix(filepath.Base(src), ".s")
		asm, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		o := object{amd64, 64, ""}
		var flags []string
		if strings.HasPrefix(name, "i386") {
			o.arch, o.mode, flags = i386, 32, []string{"-m32"}
		}
		o.path = assembleObject(t, name, string(asm), flags...)
		objs = append(objs, o)
	}
	procs := 0
	for _, o := range objs {
		for _, p := range objectProcs(t, o.path, o.mode) {
			if validate(p.insns) != nil {
				continue
			}
			for _, optimizing := range []bool{true, false} {
				got := buildValid(o.arch, p.insns, BuildExtra{}, optimizing)
				want := buildValid(o.arch, p.insns, BuildExtra{}, optimizing)
				Optimize(got)
				optimizeEveryPass(want)
				if g, w := got.String(), want.String(); g != w {
					t.Errorf("%s (optimizing %v): Optimize gives\n%s\nevery pass gives\n%s", describe(p), optimizing, g, w)
				}
			}
			procs++
		}
	}
	t.Logf("%d procedures compared", procs)
	if procs < 40 {
		t.Errorf("%d procedures compared", procs)
	}
}
