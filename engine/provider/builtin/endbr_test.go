package builtin

import "testing"

// x86asm reads endbr64/endbr32 as a lone REP prefix; the decoder must not.
func TestDecodeEndbr(t *testing.T) {
	for _, tc := range []struct {
		arch, text string
		code       []byte
	}{
		{"x86_64", "endbr64", []byte{0xf3, 0x0f, 0x1e, 0xfa, 0x55}},
		{"x86", "endbr32", []byte{0xf3, 0x0f, 0x1e, 0xfb, 0x55}},
	} {
		d := &decoder{arch: tc.arch}
		in := d.decodeX86(tc.code, 0x1000, true)
		if in.n != 4 || in.text != tc.text {
			t.Errorf("%s: decoded %d bytes %q", tc.arch, in.n, in.text)
		}
		if next := d.decodeX86(tc.code[4:], 0x1004, true); next.n != 1 || next.text == "(bad)" {
			t.Errorf("%s: push after it: %d bytes %q", tc.arch, next.n, next.text)
		}
	}
}
