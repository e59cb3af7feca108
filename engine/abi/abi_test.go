package abi

import (
	"slices"
	"testing"
)

// TestConventionsConsistent checks what each convention must hold by its
// standard: an argument or result register is never callee-saved, every
// argument and result register is clobbered by a call, and the stack
// pointer is neither.
func TestConventionsConsistent(t *testing.T) {
	for _, c := range []*Convention{SysV(), Win64(), CDecl(), StdCall(), FastCall(), AAPCS64(), GoAMD64(), GoARM64()} {
		for _, r := range slices.Concat(c.Args(), c.IntReturn, c.FloatReturn) {
			if slices.Contains(c.CalleeSaved, r) {
				t.Errorf("%s: %s is an argument or result and callee-saved", c.Name, r)
			}
			if !slices.Contains(c.Clobbered, r) {
				t.Errorf("%s: %s is an argument or result but a call keeps it", c.Name, r)
			}
		}
		if slices.Contains(c.Clobbered, c.SP) || slices.Contains(c.CalleeSaved, c.SP) {
			t.Errorf("%s: the stack pointer is listed", c.Name)
		}
		if c.PtrWidth != 32 && c.PtrWidth != 64 {
			t.Errorf("%s: pointer width %d", c.Name, c.PtrWidth)
		}
	}
	if got := ForArch("x86-64", "windows").Name; got != "win64" {
		t.Errorf("x86-64 windows: %s", got)
	}
	if ForArch("mips", "linux") != nil {
		t.Error("mips has a convention")
	}
}
