package x86

import (
	"encoding/hex"
	"flag"
	"github.com/rea-re/rea/engine/lift"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the lifter's output")

// goldenCases are representative instructions, one per line: hex bytes and
// the assembly they encode (for the reader; the header line of each case
// prints the decoder's mnemonic).
var goldenCases = []struct{ hex, asm string }{
	{"4801d8", "add rax, rbx"},
	{"01d8", "add eax, ebx (zero-extends into rax)"},
	{"00e0", "add al, ah (merges)"},
	{"4839d8", "cmp rax, rbx"},
	{"4811d8", "adc rax, rbx"},
	{"ffc0", "inc eax"},
	{"48f7d8", "neg rax"},
	{"31c0", "xor eax, eax"},
	{"85ff", "test edi, edi"},
	{"48c1e003", "shl rax, 3"},
	{"d3f8", "sar eax, cl"},
	{"48d1c8", "ror rax, 1"},
	{"480fafc3", "imul rax, rbx"},
	{"6bc00c", "imul eax, eax, 12"},
	{"48f7e3", "mul rbx"},
	{"f7f9", "idiv ecx"},
	{"4899", "cqo"},
	{"4898", "cdqe"},
	{"0f9cc0", "setl al"},
	{"480f4fc3", "cmovg rax, rbx"},
	{"7c10", "jl +0x10"},
	{"e800000000", "call next"},
	{"ffd0", "call rax"},
	{"ff2500100000", "jmp [rip+0x1000]"},
	{"c3", "ret"},
	{"c9", "leave"},
	{"55", "push rbp"},
	{"5d", "pop rbp"},
	{"488d440802", "lea rax, [rax+rcx*1+2]"},
	{"488b0437", "mov rax, [rdi+rsi]"},
	{"64488b042528000000", "mov rax, fs:[0x28]"},
	{"0fb6c0", "movzx eax, al"},
	{"4863c7", "movsxd rax, edi"},
	{"4887d8", "xchg rax, rbx"},
	{"480fc8", "bswap rax"},
	{"480fa3d8", "bt rax, rbx"},
	{"0fbcc7", "bsf eax, edi"},
	{"f30fbcc7", "tzcnt eax, edi"},
	{"f3480fb8c7", "popcnt rax, rdi"},
	{"f348a5", "rep movsq"},
	{"f3aa", "rep stosb"},
	{"f30f1efa", "endbr64"},
	{"0f1f440000", "nop dword [rax+rax]"},
	{"f30f58c1", "addss xmm0, xmm1"},
	{"f20f5dc1", "minsd xmm0, xmm1"},
	{"f20f2ac7", "cvtsi2sd xmm0, edi"},
	{"f2480f2cc0", "cvttsd2si rax, xmm0"},
	{"660f2ec1", "ucomisd xmm0, xmm1"},
	{"0f57c0", "xorps xmm0, xmm0"},
	{"660ffec1", "paddd xmm0, xmm1"},
	{"660f70c11b", "pshufd xmm0, xmm1, 0x1b"},
	{"660f62c1", "punpckldq xmm0, xmm1"},
	{"660fd7c0", "pmovmskb eax, xmm0"},
	{"660f72e01f", "psrad xmm0, 31"},
	{"0fa2", "cpuid (unmodelled)"},
	{"dfe0", "fnstsw ax (x87 status word, unmodelled)"},
	{"c5f9efc0", "vpxor xmm0, xmm0, xmm0 (AVX, unmodelled)"},
}

// goldenCases32 are i386 (mode 32) instructions: 32-bit registers are the
// full registers, the stack moves by 4.
var goldenCases32 = []struct{ hex, asm string }{
	{"55", "push ebp"},
	{"89e5", "mov ebp, esp"},
	{"8b442404", "mov eax, [esp+4]"},
	{"01d8", "add eax, ebx (no zero extension: eax is the full register)"},
	{"00e0", "add al, ah"},
	{"e800000000", "call next"},
	{"c3", "ret"},
	{"c20800", "ret 8"},
	{"99", "cdq"},
	{"f7f9", "idiv ecx"},
	{"dd442404", "fld qword [esp+4] (x87: a push of the named slots)"},
	{"d9442404", "fld dword [esp+4]"},
	{"dec1", "faddp st1, st0"},
	{"d9c9", "fxch st1"},
	{"dfe9", "fucomip st0, st1"},
	{"db18", "fistp dword [eax] (the rounding control of fpcw)"},
	{"658b0514000000", "mov eax, gs:[0x14]"},
	{"0f5ec1", "divps xmm0, xmm1"},
}

func liftGolden(t *testing.T) string {
	var sb strings.Builder
	type gc struct {
		hex, asm string
		mode     int
	}
	var all []gc
	for _, c := range goldenCases {
		all = append(all, gc{c.hex, c.asm, 64})
	}
	for _, c := range goldenCases32 {
		all = append(all, gc{c.hex, c.asm + " [mode 32]", 32})
	}
	for _, c := range all {
		code, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatalf("%s: %v", c.hex, err)
		}
		in, err := Lift(code, 0x401000, c.mode)
		if err != nil {
			t.Fatalf("%s (%s): %v", c.hex, c.asm, err)
		}
		if err := lift.Validate(in); err != nil {
			t.Errorf("%s (%s): %v", c.hex, c.asm, err)
		}
		if in.Len != len(code) {
			t.Errorf("%s (%s): length %d, want %d", c.hex, c.asm, in.Len, len(code))
		}
		sb.WriteString("# " + c.hex + "  " + c.asm + "\n")
		sb.WriteString(in.String())
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestGoldenIR compares the printed IR of representative instructions with
// testdata/golden.txt, which a reviewer reads instruction by instruction;
// run with -update to rewrite it after a deliberate change.
func TestGoldenIR(t *testing.T) {
	got := liftGolden(t)
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("golden IR differs at line %d:\n got: %s\nwant: %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("golden IR differs in length: got %d lines, want %d", len(gl), len(wl))
	}
}
