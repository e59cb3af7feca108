package arm64

import (
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/lift"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the lifter's output")

// goldenCases are representative instructions: the instruction word and
// the assembly it encodes (for the reader; pc-relative targets are as the
// word encodes them, relative to the case's address 0x401000).
var goldenCases = []struct {
	word uint32
	asm  string
}{
	{0x8b020020, "add x0, x1, x2"},
	{0x0b020020, "add w0, w1, w2 (zero-extends into x0)"},
	{0xb1004020, "adds x0, x1, #16"},
	{0x6b020020, "subs w0, w1, w2"},
	{0xeb01001f, "cmp x0, x1"},
	{0x910043e0, "add x0, sp, #16"},
	{0x8b22c820, "add x0, x1, w2, sxtw #2"},
	{0x9a020020, "adc x0, x1, x2"},
	{0x7a020020, "sbcs w0, w1, w2"},
	{0x92089c20, "and x0, x1, #0xff00ff00ff00ff00"},
	{0x6a020c20, "ands w0, w1, w2, lsl #3"},
	{0xaa0103e0, "orr x0, xzr, x1 (mov)"},
	{0x910003e0, "mov x0, sp"},
	{0xcac21c20, "eor x0, x1, x2, ror #7"},
	{0x0a220020, "bic w0, w1, w2"},
	{0xd2b7dde0, "movz x0, #0xbeef, lsl #16"},
	{0xf2f95fc0, "movk x0, #0xcafe, lsl #48"},
	{0x12800000, "movn w0, #0"},
	{0xd3442c20, "ubfx x0, x1, #4, #8"},
	{0x13031c20, "sbfx w0, w1, #3, #5"},
	{0xb3783c20, "bfi x0, x1, #8, #16"},
	{0x531d7020, "lsl w0, w1, #3"},
	{0x937ffc20, "asr x0, x1, #63"},
	{0x93407c20, "sxtw x0, w1"},
	{0x93c24420, "extr x0, x1, x2, #17"},
	{0x9ac22020, "lsl x0, x1, x2"},
	{0x9b020c20, "madd x0, x1, x2, x3"},
	{0x9b227c20, "smull x0, w1, w2"},
	{0x9bc27c20, "umulh x0, x1, x2"},
	{0x1ac20c20, "sdiv w0, w1, w2"},
	{0xdac01020, "clz x0, x1"},
	{0x5ac00020, "rbit w0, w1"},
	{0xdac00c20, "rev x0, x1"},
	{0x9a82b020, "csel x0, x1, x2, lt"},
	{0x1a9f17e0, "cset w0, eq"},
	{0x9a828420, "csinc x0, x1, x2, hi"},
	{0xfa411004, "ccmp x0, x1, #4, ne"},
	{0x90000000, "adrp x0, . + 0x3000"},
	{0x10000060, "adr x0, . + 12"},
	{0xf9400420, "ldr x0, [x1, #8]"},
	{0xb8404c20, "ldr w0, [x1, #4]!"},
	{0xf84107e0, "ldr x0, [sp], #16"},
	{0x38a26820, "ldrsb x0, [x1, x2]"},
	{0xf862d820, "ldr x0, [x1, w2, sxtw #3]"},
	{0xb9800420, "ldrsw x0, [x1, #4]"},
	{0x58000200, "ldr x0, . + 64 (literal)"},
	{0xa8c17bfd, "ldp x29, x30, [sp], #16"},
	{0xa9be7bfd, "stp x29, x30, [sp, #-32]!"},
	{0x69400440, "ldpsw x0, x1, [x2]"},
	{0xb900003f, "str wzr, [x1]"},
	{0x381ffc20, "strb w0, [x1, #-1]!"},
	{0x3dc00020, "ldr q0, [x1]"},
	{0x88dffc20, "ldar w0, [x1]"},
	{0x14000010, "b . + 64"},
	{0x97fffc00, "bl . - 4096"},
	{0x5400004a, "b.ge . + 8"},
	{0x34000080, "cbz w0, . + 16"},
	{0xb7400080, "tbnz x0, #40, . + 16"},
	{0xd61f0200, "br x16"},
	{0xd63f03c0, "blr x30"},
	{0xd65f03c0, "ret"},
	{0xd503201f, "nop"},
	{0xd503233f, "paciasp"},
	{0xd53bd040, "mrs x0, tpidr_el0"},
	{0x1e622820, "fadd d0, d1, d2"},
	{0x1e220820, "fmul s0, s1, s2"},
	{0x1e628820, "fnmul d0, d1, d2"},
	{0x1e214020, "fneg s0, s1"},
	{0x1e61c020, "fsqrt d0, d1"},
	{0x1e602008, "fcmp d0, #0.0"},
	{0x1e22cc20, "fcsel s0, s1, s2, gt"},
	{0x1e22c020, "fcvt d0, s1"},
	{0x1e620020, "scvtf d0, w1"},
	{0x9e780020, "fcvtzs x0, d1"},
	{0x1e6e1000, "fmov d0, #1.0"},
	{0x9e660020, "fmov x0, d1"},
	{0x9eaf0020, "fmov v0.d[1], x1"},
	{0x1f420c20, "fmadd d0, d1, d2, d3 (unmodelled)"},
	{0x6f00e400, "movi v0.2d, #0"},
	{0x4e040c20, "dup v0.4s, w1"},
	{0x0e1c3c20, "umov w0, v1.s[3]"},
	{0x4e181c20, "ins v0.d[1], x1"},
	{0x4ea28420, "add v0.4s, v1.4s, v2.4s"},
	{0x6e228c20, "cmeq v0.16b, v1.16b, v2.16b"},
	{0x6e621c20, "bsl v0.16b, v1.16b, v2.16b"},
	{0x0e205820, "cnt v0.8b, v1.8b"},
	{0x0e31b800, "addv b0, v0.8b"},
	{0x4cdfa020, "ld1 {v0.16b, v1.16b}, [x1], #32"},
	{0x6e024020, "ext v0.16b, v1.16b, v2.16b, #8"},
	{0xd4000001, "svc #0 (unmodelled)"},
	{0xc85f7c20, "ldxr x0, [x1] (unmodelled)"},
}

func liftGolden(t *testing.T) string {
	var sb strings.Builder
	for _, c := range goldenCases {
		code := binary.LittleEndian.AppendUint32(nil, c.word)
		in, err := Lift(code, 0x401000)
		if err != nil {
			t.Fatalf("%08x (%s): %v", c.word, c.asm, err)
		}
		if err := lift.Validate(in); err != nil {
			t.Errorf("%08x (%s): %v", c.word, c.asm, err)
		}
		sb.WriteString("# " + hex32(c.word) + "  " + c.asm + "\n")
		sb.WriteString(in.String())
		sb.WriteString("\n")
	}
	return sb.String()
}

func hex32(w uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := range b {
		b[7-i] = digits[w>>(4*i)&0xf]
	}
	return string(b[:])
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
