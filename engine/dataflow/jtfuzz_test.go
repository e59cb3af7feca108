package dataflow

import (
	"encoding/binary"
	"slices"
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
		b := append([]byte{arch, byte(len(code) / 4)}, code...)
		return append(b, tab...)
	}
	// mov %edi,%eax; cmp $7,%eax; ja +7; jmp *0x600000(,%rax,8); ret; nop
	f.Add(seed(0, []byte{0x89, 0xf8, 0x83, 0xf8, 0x07, 0x77, 0x07, 0xff, 0x24, 0xc5, 0x00, 0x00, 0x60, 0x00, 0xc3, 0x90}))
	// and $7,%eax; jmp *0x600000(,%eax,4); nop; nop (i386)
	f.Add(seed(1, []byte{0x83, 0xe0, 0x07, 0xff, 0x24, 0x85, 0x00, 0x00, 0x60, 0x00, 0x90, 0x90}))
	// call *0x600000; ret (i386: a slot)
	f.Add(seed(1, []byte{0xff, 0x15, 0x00, 0x00, 0x60, 0x00, 0xc3, 0x90}))
	// arm64: sub w8,w0,#1; cmp w8,#3; b.hi; adr x9,tab; adr x10,base;
	// ldrb w11,[x9,x8]; add x10,x10,x11,lsl #2; br x10; three cases; tab
	f.Add(seed(2, []byte{
		0x08, 0x04, 0x00, 0x51, 0x1f, 0x0d, 0x00, 0x71, 0x48, 0x01, 0x00, 0x54,
		0x69, 0x01, 0x00, 0x10, 0x8a, 0x00, 0x00, 0x10, 0x2b, 0x69, 0x68, 0x38,
		0x4a, 0x09, 0x0b, 0x8b, 0x40, 0x01, 0x1f, 0xd6, 0x20, 0x00, 0x80, 0x52,
		0xc0, 0x03, 0x5f, 0xd6, 0x40, 0x00, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6,
		0x00, 0x00, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6, 0x00, 0x02, 0x00, 0x02}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 || len(data) > 8192 {
			return
		}
		arch := []*Arch{amd64, i386, arm64Arch}[int(data[0])%3]
		n := min(int(data[1])*4, len(data)-2)
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

// TestFuzzSeedsResolve checks that the fuzz target's seeds reach a
// resolved table (the fuzzing starts from inputs that exercise it).
func TestFuzzSeedsResolve(t *testing.T) {
	x86tab := make([]byte, 64)
	for i := range 8 {
		binary.LittleEndian.PutUint64(x86tab[8*i:], textBase+uint64(4*i))
	}
	code := []byte{0x89, 0xf8, 0x83, 0xf8, 0x07, 0x77, 0x07, 0xff, 0x24, 0xc5, 0x00, 0x00, 0x60, 0x00, 0xc3, 0x90}
	img := &memImage{regions: []memRegion{{addr: textBase, data: append(code, make([]byte, 32)...), exec: true}, {addr: tableAddr, data: x86tab}}}
	res, err := ResolveProcedure(amd64, liftProc(amd64, code, textBase), img, Options{Start: textBase, End: textBase + 48})
	if err != nil || len(res.Tables) != 1 || res.Tables[0].Count() != 8 {
		t.Fatalf("x86-64 seed: %v %+v %+v", err, res.Tables, res.UnresolvedJumps)
	}
	a64 := []byte{
		0x08, 0x04, 0x00, 0x51, 0x1f, 0x0d, 0x00, 0x71, 0x48, 0x01, 0x00, 0x54,
		0x69, 0x01, 0x00, 0x10, 0x8a, 0x00, 0x00, 0x10, 0x2b, 0x69, 0x68, 0x38,
		0x4a, 0x09, 0x0b, 0x8b, 0x40, 0x01, 0x1f, 0xd6, 0x20, 0x00, 0x80, 0x52,
		0xc0, 0x03, 0x5f, 0xd6, 0x40, 0x00, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6,
		0x00, 0x00, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6, 0x00, 0x02, 0x00, 0x02}
	img = &memImage{regions: []memRegion{{addr: textBase, data: a64, exec: true}}}
	res, err = ResolveProcedure(arm64Arch, liftProc(arm64Arch, a64, textBase), img, Options{Start: textBase, End: textBase + 56})
	if err != nil || len(res.Tables) != 1 {
		t.Fatalf("arm64 seed: %v %+v %+v", err, res.Tables, res.UnresolvedJumps)
	}
	want := []uint64{textBase + 32, textBase + 40, textBase + 32, textBase + 40}
	if tb := res.Tables[0]; !slices.Equal(tb.Targets, want) || tb.Default != textBase+48 || tb.EntrySize != 1 || tb.Scale != 4 {
		t.Fatalf("arm64 seed: %+v, want targets %#x default %#x", tb, want, textBase+48)
	}
}
