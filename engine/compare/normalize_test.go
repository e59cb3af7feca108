package compare

import "testing"

// TestNormalizeSlots: a reference through a GOT or IAT slot keeps the
// symbol the slot names, wherever the slot sits; an offset from a symbol,
// a section-relative label and an address-derived name do not; a stub's
// relocation index is masked.
func TestNormalizeSlots(t *testing.T) {
	pic := &sideIndex{entries: map[uint64]int32{0x1200: 0}, pic: true}
	for _, c := range []struct {
		a, b  string
		stub  bool
		equal bool
	}{
		{"call qword ptr [rip+0x2e6b] ; 0x3fb8 <strlen>", "call qword ptr [rip+0x2f6b] ; 0x40b8 <strlen>", false, true},
		{"call qword ptr [rip+0x2e6b] ; 0x3fb8 <strlen>", "call qword ptr [rip+0x2e6b] ; 0x3fb8 <malloc>", false, false},
		{"mov rax, qword ptr [rip+0x10] ; 0x4020 <xmlFree>", "mov rax, qword ptr [rip+0x30] ; 0x4040 <xmlMalloc>", false, false},
		{"mov rax, qword ptr [rip+0x10] ; 0x4020 <buf.12>", "mov rax, qword ptr [rip+0x30] ; 0x4040 <buf.13>", false, true},
		{"mov rax, qword ptr [rip+0x10] ; 0x4020 <_fini+0x978>", "mov rax, qword ptr [rip+0x30] ; 0x4040 <_fini+0x998>", false, true},
		{"mov rax, qword ptr [rip+0x10] ; 0x4020 <.rodata+0x20>", "mov rax, qword ptr [rip+0x30] ; 0x4040 <.rodata+0x40>", false, true},
		{"mov rax, qword ptr [rip+0x10] ; 0x4020 <data_4020>", "mov rax, qword ptr [rip+0x30] ; 0x4040 <data_4040>", false, true},
		{"push 0xb3", "push 0xb4", true, true},
		{"push 0xb3", "push 0xb4", false, false},
	} {
		a, b := normalizeText(c.a, pic, c.stub), normalizeText(c.b, pic, c.stub)
		if (a.tok == b.tok) != c.equal {
			t.Errorf("%q (%q) and %q (%q): equal %v, want %v", c.a, a.tok, c.b, b.tok, a.tok == b.tok, c.equal)
		}
	}
	if n := slotName(normalizeText("jmp qword ptr [rip+0x2e6b] ; 0x3fb8 <perror>", pic, true).tok); n != "perror" {
		t.Errorf("slot name %q, want perror", n)
	}
}

// TestEachImmediate: immediates outside memory operands, not masked
// addresses, targets or annotations.
func TestEachImmediate(t *testing.T) {
	for tok, want := range map[string]string{
		"and eax, -0x78000001":                "-0x78000001",
		"mov dword ptr [rax+0xac], 0x40":      "0x40",
		"mov ecx, 0x2394 ;D":                  "0x2394",
		"lea rdi, ptr [rip+#] ;\"1.0 and 2\"": "",
		"movq xmm0, qword ptr [rax+0x20]":     "",
		"call @":                              "",
		"mov x0, #0x10":                       "0x10",
	} {
		got := ""
		eachImmediate(tok, func(v string) { got += v })
		if got != want {
			t.Errorf("%q: %q, want %q", tok, got, want)
		}
	}
}
