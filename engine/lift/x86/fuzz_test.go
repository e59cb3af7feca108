package x86

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/rea-re/rea/engine/lift"
)

// maxStmts bounds what one instruction may lift to: the largest modelled
// forms (pmovmskb, the unpacks) stay well below it.
const maxStmts = 256

// FuzzLift: any bytes, in either mode, decode and lift without a panic to a
// bounded, printable instruction whose length is the decoder's; running it
// on a full state ends without a panic (any error is a typed one).
func FuzzLift(f *testing.F) {
	for _, c := range goldenCases {
		code, err := hex.DecodeString(c.hex)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(code, true)
		f.Add(code, false)
	}
	f.Add([]byte{0xf3, 0x48, 0xa5}, true)
	f.Add([]byte{0x66, 0x0f, 0xd7, 0xc0}, false)
	f.Add([]byte{0xf7, 0xf9}, false)
	// x87: every escape byte, with a memory and a register operand
	for op := byte(0xd8); op <= 0xdf; op++ {
		for _, m := range []byte{0x04, 0x1c, 0x28, 0x38, 0xc1, 0xc9, 0xd1, 0xe0, 0xe9, 0xf1, 0xf9} {
			f.Add([]byte{op, m, 0x24, 0, 0, 0, 0}, false)
		}
	}
	f.Fuzz(func(t *testing.T, code []byte, long bool) {
		mode := 32
		if long {
			mode = 64
		}
		in, err := Lift(code, 0x1000, mode)
		if err != nil {
			return
		}
		if in.Len <= 0 || in.Len > len(code) || in.Len > 15 {
			t.Fatalf("length %d of %d bytes", in.Len, len(code))
		}
		if len(in.Stmts) > maxStmts {
			t.Fatalf("%d statements:\n%s", len(in.Stmts), in)
		}
		_ = in.String()
		if err := lift.Validate(in); err != nil {
			t.Fatalf("%v\n%s", err, in)
		}
		for _, s := range in.Stmts {
			for _, o := range []lift.Operand{s.Dst, s.A, s.B, s.C} {
				if o.Kind != lift.None && !lift.ValidWidth(o.Width) {
					t.Fatalf("operand %v of width %d in\n%s", o, o.Width, in)
				}
			}
		}
		st := fullState(mode)
		_, _ = lift.Step(in, st)
	})
}

// fullState has every register the lifter names set, and a little memory.
func fullState(mode int) *lift.State {
	st := lift.NewState()
	names := gpr64[:]
	if mode == 32 {
		names = gpr32[:]
	}
	for i, n := range names {
		st.Regs[n] = lift.V64(0x2000 + uint64(i)*8)
	}
	for _, f := range []string{"cf", "pf", "af", "zf", "sf", "of", "df"} {
		st.Regs[f] = lift.V64(0)
	}
	for i := 0; i < 16; i++ {
		st.Regs[fmt.Sprintf("xmm%d", i)] = lift.Value{Lo: uint64(i)}
	}
	st.Regs["fs_base"], st.Regs["gs_base"] = lift.V64(0), lift.V64(0)
	for a := uint64(0x1f00); a < 0x2200; a++ {
		st.Mem[a] = byte(a)
	}
	return st
}
