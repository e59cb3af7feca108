package arm64

import (
	"encoding/binary"
	"testing"

	"github.com/rea-re/rea/engine/lift"
)

// maxStmts bounds what one instruction may lift to: the largest modelled
// forms (rbit, addv over sixteen lanes) stay well below it.
const maxStmts = 128

// FuzzLift: any instruction word decodes and lifts without a panic to a
// bounded, valid, printable instruction of four bytes; running it on a full
// state ends without a panic (any error is a typed one).
func FuzzLift(f *testing.F) {
	for _, c := range goldenCases {
		f.Add(c.word)
	}
	f.Add(uint32(0xd503233f)) // paciasp
	f.Add(uint32(0x4ea01c20)) // mov v0.16b, v1.16b
	f.Add(uint32(0x0e205800)) // cnt v0.8b, v0.8b
	f.Fuzz(func(t *testing.T, word uint32) {
		code := binary.LittleEndian.AppendUint32(nil, word)
		in, err := Lift(code, 0x1000)
		if err != nil {
			return
		}
		if in.Len != 4 {
			t.Fatalf("length %d", in.Len)
		}
		if len(in.Stmts) > maxStmts {
			t.Fatalf("%d statements:\n%s", len(in.Stmts), in)
		}
		_ = in.String()
		if err := lift.Validate(in); err != nil {
			t.Fatalf("%v\n%s", err, in)
		}
		_, _ = lift.Step(in, fullState())
	})
}

// fullState has every register the lifter names set, and a little memory
// around the addresses the registers hold.
func fullState() *lift.State {
	st := lift.NewState()
	for i, n := range xNames {
		st.Regs[n] = lift.V64(0x2000 + uint64(i)*8)
	}
	st.Regs["sp"] = lift.V64(0x2100)
	for _, f := range []string{"n", "z", "c", "v"} {
		st.Regs[f] = lift.V64(0)
	}
	for i, n := range vNames {
		st.Regs[n] = lift.Value{Lo: uint64(i), Hi: uint64(i) << 32}
	}
	st.Regs["tpidr_el0"] = lift.V64(0x2000)
	for a := uint64(0x1f00); a < 0x2200; a++ {
		st.Mem[a] = byte(a)
	}
	return st
}
