package lift

import (
	"reflect"
	"testing"
)

// buildInsns builds n instructions of 1–3 statements each in s.
func buildInsns(s *Scratch, n int) []*Insn {
	var out []*Insn
	for i := range n {
		b := s.Start(uint64(0x1000+i), 1, "add")
		for k := 0; k <= i%3; k++ {
			b.Emit(Stmt{Op: Add, Dst: R("rax", 64), A: R("rax", 64), B: C(64, uint64(i*10+k))})
		}
		out = append(out, b.Finish("", s))
	}
	return out
}

// TestScratchReuse: after Reuse, the next instructions are built in the
// memory of the discarded ones, and read exactly as if built in fresh
// memory.
func TestScratchReuse(t *testing.T) {
	var s Scratch
	old := buildInsns(&s, 4+8+16+32+64) // chunks of 4, 8, … 64 instructions, each filled
	was := map[*Insn]bool{}
	for _, in := range old {
		was[in] = true
	}
	s.Reuse()
	got := buildInsns(&s, 100)
	want := buildInsns(&Scratch{}, 100)
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("instruction %d built after Reuse: %+v, want %+v", i, got[i], want[i])
		}
	}
	for i, in := range got {
		if !was[in] {
			t.Fatalf("instruction %d after Reuse is not built in the discarded memory", i)
		}
	}
}
