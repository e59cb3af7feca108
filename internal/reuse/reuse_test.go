package reuse

import "testing"

func TestZeroed(t *testing.T) {
	var buf []int
	a := Zeroed(&buf, 8)
	for i := range a {
		a[i] = i + 1
	}
	b := Zeroed(&buf, 5)
	if &a[0] != &b[0] {
		t.Fatal("a shorter table is not made in the memory of the one before")
	}
	for i, x := range b {
		if x != 0 {
			t.Fatalf("b[%d] = %d, want 0", i, x)
		}
	}
	if c := Zeroed(&buf, 100); len(c) != 100 || cap(c) < 100 {
		t.Fatalf("len %d cap %d, want 100", len(c), cap(c))
	}
}
