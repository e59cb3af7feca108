package dataflow

import (
	"encoding/binary"
	"testing"
)

// FuzzResolveJumpTables lifts random bytes as code (x86-64, i386 or arm64:
// the first byte picks) and lays the rest out as a read-only table region
// and a writable one, then resolves the procedure's jump tables and
// indirect calls: no panic, every table within the cap and its targets
// inside the procedure.
func FuzzResolveJumpTables(f *testing.F) {
	tab := make([]byte, 64)
	for i := range 8 {
		binary.LittleEndian.PutUint64(tab[8*i:], textBase+uint64(4*i))
	}
	seed := func(arch byte, code []byte) []byte {
		b := append([]byte{arch, byte(len(code))}, code...)
		return append(b, tab...)
	}
	// mov %edi,%eax; cmp $7,%eax; ja +7; jmp *0x600000(,%rax,8); ret
	f.Add(seed(0, []byte{0x89, 0xf8, 0x83, 0xf8, 0x07, 0x77, 0x07, 0xff, 0x24, 0xc5, 0x00, 0x00, 0x60, 0x00, 0xc3}))
	// and $7,%eax; jmp *0x600000(,%eax,4) (i386)
	f.Add(seed(1, []byte{0x83, 0xe0, 0x07, 0xff, 0x24, 0x85, 0x00, 0x00, 0x60, 0x00}))
	// call *0x600000 (i386: a slot)
	f.Add(seed(1, []byte{0xff, 0x15, 0x00, 0x00, 0x60, 0x00, 0xc3}))
	// arm64: cmp w0,#7; b.hi +16; adrp x1, 0x600000 … ldrb w2,[x1,w0,uxtw]; adr x3; add x3,x3,w2,sxtb #2; br x3
	f.Add(seed(2, []byte{0x1f, 0x1c, 0x00, 0x71, 0x88, 0x00, 0x00, 0x54, 0x01, 0x10, 0x00, 0xb0, 0x22, 0x48, 0x60, 0x38, 0x03, 0x00, 0x00, 0x10, 0x63, 0x88, 0x22, 0x8b, 0x60, 0x00, 0x1f, 0xd6, 0xc0, 0x03, 0x5f, 0xd6}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 || len(data) > 8192 {
			return
		}
		arch := []*Arch{amd64, i386, arm64Arch}[int(data[0])%3]
		n := min(int(data[1])*4+1, len(data)-2)
		code, rest := data[2:2+n], data[2+n:]
		half := len(rest) / 2
		img := &memImage{regions: []memRegion{
			{addr: textBase, data: code, exec: true},
			{addr: tableAddr, data: rest[:half]},
			{addr: tableAddr + 0x10000, data: rest[half:], writable: true},
		}}
		insns := liftProc(arch, code, textBase)
		if len(insns) == 0 {
			return
		}
		end := insns[len(insns)-1].Next()
		opt := Options{Start: textBase, End: end, MaxEntries: 512, Lift: liftAt(arch, img)}
		res, err := ResolveProcedure(arch, insns, img, opt)
		if err != nil {
			return // the lifter's IR rules rejected an instruction
		}
		for _, tb := range res.Tables {
			if tb.Count() == 0 || tb.Count() > 512 {
				t.Fatalf("table of %d entries", tb.Count())
			}
			for _, tgt := range tb.Targets {
				if tgt < textBase || tgt >= end {
					t.Fatalf("target %#x outside [%#x, %#x)", tgt, uint64(textBase), end)
				}
			}
		}
		for _, c := range res.Calls {
			if len(c.Targets) > 512 {
				t.Fatalf("call with %d candidates", len(c.Targets))
			}
		}
	})
}
