package arm64

import (
	"errors"
	"testing"

	"github.com/rea-re/rea/engine/lift"
)

// TestLiftErrors: bytes that are not an instruction are ErrDecode, never
// an Insn; an instruction that decodes but is not modelled is one
// lift.Unmodelled statement with its family, which the interpreter refuses.
func TestLiftErrors(t *testing.T) {
	for _, code := range [][]byte{nil, {0x1f, 0x20, 0x03}, {0, 0, 0, 0}} {
		if in, err := Lift(code, 0x1000); !errors.Is(err, ErrDecode) || in != nil {
			t.Errorf("% x: got %v, %v; want ErrDecode", code, in, err)
		}
	}
	in, err := Lift([]byte{0x01, 0x00, 0x00, 0xd4}, 0x1000) // svc #0
	if err != nil {
		t.Fatal(err)
	}
	s, bad := in.Unmodelled()
	if !bad || len(in.Stmts) != 1 || s.Text != "svc" || s.Reason == "" {
		t.Fatalf("svc lifted to\n%s", in)
	}
	if _, err := lift.Step(in, fullState()); !errors.Is(err, lift.ErrUnmodelled) {
		t.Errorf("stepping svc: %v, want ErrUnmodelled", err)
	}
}
