package dataflow

import (
	"testing"

	"github.com/rea-re/rea/engine/lift"
)

// TestSelfCombinedIdioms: an operand combined with itself, element-wise
// too, folds to the constant the idiom produces (pcmpeqd x, x: all ones;
// pxor x, x and psubq x, x: zero), so that
// the register's entry value is not read.
func TestSelfCombinedIdioms(t *testing.T) {
	const asm = `
	.text
	.globl f
	.type f, @function
f:
	pcmpeqd %xmm0, %xmm0
	pcmpeqb %xmm2, %xmm2
	psubq %xmm3, %xmm3
	pxor %xmm1, %xmm1
	pand %xmm2, %xmm0
	paddq %xmm3, %xmm0
	por %xmm1, %xmm0
	ret
	.size f, .-f
`
	obj := assembleObject(t, "idioms", asm)
	procs := objectProcs(t, obj, 64)
	if len(procs) != 1 {
		t.Fatalf("%d procedures", len(procs))
	}
	_, f := buildOpt(t, amd64, procs[0])
	// xmm0 (the register the return hands back) combines them all
	want := map[string][2]uint64{"xmm0": {^uint64(0), ^uint64(0)}}
	found := 0
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if v.Kind != OpValue || v.Op != lift.Return {
				continue
			}
			for i, n := range v.Names {
				w, ok := want[n]
				if !ok {
					continue
				}
				found++
				x := v.Args[i+2]
				if x.Kind != ConstValue || x.Lo != w[0] || x.Hi != w[1] {
					t.Errorf("%s returned as %v (kind %v), want the constant %#x_%016x\n%s", n, x, x.Kind, w[1], w[0], f)
				}
			}
		}
	}
	if found != len(want) {
		t.Fatalf("the return hands back %d of %v\n%s", found, want, f)
	}
}
