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

// TestStackOffsetsLoopAroundCall: a loop that pushes an argument, calls
// and pops keeps its stack pointer (a phi of itself around the back
// edge), so the incoming arguments it reads inside the loop are known
// offsets.
func TestStackOffsetsLoopAroundCall(t *testing.T) {
	const asm = `
	.text
	.globl f
	.type f, @function
f:
	sub $12, %esp
	xor %esi, %esi
1:
	mov 16(%esp), %eax
	push %eax
	call *24(%esp)
	add $4, %esp
	inc %esi
	cmp $3, %esi
	jne 1b
	add $12, %esp
	ret
	.size f, .-f
`
	obj := assembleObject(t, "loopcall", asm, "-m32")
	procs := objectProcs(t, obj, 32)
	if len(procs) != 1 {
		t.Fatalf("%d procedures", len(procs))
	}
	_, f := buildOpt(t, i386, procs[0])
	offs := StackOffsets(f)
	got := map[int64]bool{}
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if v.Kind == OpValue && v.Op == lift.Load {
				if o, ok := offs[v.Args[0]]; ok && o.Base == 0 {
					got[o.Off] = true
				}
			}
		}
	}
	if !got[4] || !got[8] {
		t.Fatalf("loads at entry offsets %v, want +4 (the pushed argument) and +8 (the call's target)\n%s", got, f)
	}
}
