package dataflow

import (
	"testing"
)

// FuzzBuild lifts random bytes as x86-64 or i386 (the first byte picks),
// one procedure of up to 4 KiB, and runs construction, the passes and
// validation: no panic, well-formed SSA before and after the passes.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0x8b, 0x45, 0xfc, 0x5d, 0xc3})                         // push rbp; mov rbp,rsp; mov [rbp-4],edi; mov eax,[rbp-4]; pop rbp; ret
	f.Add([]byte{0, 0x48, 0x39, 0xf7, 0x7c, 0x06, 0xb8, 0x01, 0, 0, 0, 0xc3, 0xb8, 0x02, 0, 0, 0, 0xc3})             // cmp rdi,rsi; jl; …
	f.Add([]byte{0, 0x31, 0xc0, 0x48, 0x85, 0xff, 0x7e, 0x08, 0x48, 0x01, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xf8, 0xc3}) // a loop
	f.Add([]byte{1, 0x55, 0x89, 0xe5, 0x83, 0xe4, 0xf0, 0x83, 0xec, 0x10, 0xe8, 0, 0, 0, 0, 0xc9, 0xc3})             // i386: realign, call, leave
	f.Add([]byte{0, 0xf3, 0xaa, 0xff, 0xe0})                                                                         // rep stosb; jmp rax
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 4096 {
			return
		}
		mode, arch := 64, amd64
		if data[0]&1 == 1 {
			mode, arch = 32, i386
		}
		insns := liftRange(data[1:], textBase, mode)
		fn, err := Build(arch, insns)
		if err != nil {
			return // the lifter's own IR rules rejected an instruction
		}
		if err := Validate(fn); err != nil {
			t.Fatalf("after construction: %v\n%s", err, fn)
		}
		Optimize(fn)
		if err := Validate(fn); err != nil {
			t.Fatalf("after the passes: %v\n%s", err, fn)
		}
		_ = fn.String()
	})
}
