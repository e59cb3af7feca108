package dataflow

import "github.com/rea-re/rea/engine/abi"

// ArchFor is what SSA construction needs of calling convention c: the
// registers a call reads (every argument register, hidden ones included)
// and destroys, and those a return hands back (results and callee-saved
// registers).
func ArchFor(c *abi.Convention) *Arch {
	return &Arch{
		Name: c.Arch, PtrWidth: c.PtrWidth, SP: c.SP, CallPop: c.RetAddr,
		CallArgs:     c.Args(),
		CallClobbers: append([]string(nil), c.Clobbered...),
		LiveOut:      c.Returns(),
	}
}
