package dataflow

import (
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"
)

// memImage is an Image over a few regions the test lays out.
type memImage struct{ regions []memRegion }

type memRegion struct {
	addr           uint64
	data           []byte
	writable, exec bool
}

func (m *memImage) region(addr uint64) *memRegion {
	for i := range m.regions {
		r := &m.regions[i]
		if addr >= r.addr && addr-r.addr < uint64(len(r.data)) {
			return r
		}
	}
	return nil
}

func (m *memImage) Read(addr uint64, n int) ([]byte, bool, bool) {
	r := m.region(addr)
	if r == nil || n < 0 || addr-r.addr+uint64(n) > uint64(len(r.data)) {
		return nil, false, false
	}
	return r.data[addr-r.addr:][:n], r.writable, true
}

func (m *memImage) Executable(addr uint64) bool {
	r := m.region(addr)
	return r != nil && r.exec
}

func (m *memImage) Import(uint64) (string, bool) { return "", false }

// asmProc assembles x86-64 asm at textBase and returns its lifted
// instructions and code.
func asmProc(t *testing.T, name, asm string) ([]byte, procedure) {
	t.Helper()
	obj := assembleObject(t, name, ".text\n.globl f\nf:\n"+asm)
	ef, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	code, err := ef.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	return code, procedure{name: name, addr: textBase, insns: liftRange(code, textBase, 64)}
}

const tableAddr = 0x600000

// table8 is a table of n 8-byte entries, entry i = base + 4·i.
func table8(n int, base uint64) []byte {
	b := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(b[8*i:], base+4*uint64(i))
	}
	return b
}

// TestJumpTableReasons checks each refusal and the bounds that are not a
// cmp/ja: an and with a mask, two signed comparisons.
func TestJumpTableReasons(t *testing.T) {
	cases := []struct {
		name, asm  string
		entries    int
		inside     bool // the entries point into the procedure
		writable   bool
		wantReason string
		wantCount  int
	}{
		{"unbounded", "mov (%rdi),%eax\njmp *0x600000(,%rax,8)\n", 8, true, false, ReasonBoundUnknown, 0},
		{"beyond-cap", "mov %edi,%eax\ncmp $5000,%eax\nja 1f\njmp *0x600000(,%rax,8)\n1: ret\n", 8, true, false, ReasonBoundTooLarge, 0},
		{"outside", "mov %edi,%eax\ncmp $3,%eax\nja 1f\njmp *0x600000(,%rax,8)\n1: ret\n", 8, false, false, ReasonTargetOutside, 0},
		{"tail-call", "mov %edi,%eax\ncmp $3,%eax\nja 1f\njmp *0x600000(,%rax,8)\n1: ret\n", 8, false, false, "tail", 4},
		{"writable", "mov %edi,%eax\ncmp $3,%eax\nja 1f\njmp *0x600000(,%rax,8)\n1: ret\n", 8, true, true, ReasonTableMemory, 0},
		{"short-table", "mov %edi,%eax\ncmp $9,%eax\nja 1f\njmp *0x600000(,%rax,8)\n1: ret\n", 8, true, false, ReasonTableMemory, 0},
		{"mask", "mov %edi,%eax\nand $7,%eax\njmp *0x600000(,%rax,8)\n", 8, true, false, "", 8},
		{"signed", "test %edi,%edi\njs 1f\ncmp $3,%edi\njg 1f\nmovslq %edi,%rax\njmp *0x600000(,%rax,8)\n1: ret\n", 8, true, false, "", 4},
		{"not-a-table", "mov %rdi,%rax\njmp *%rax\n", 8, true, false, ReasonNoTable, 0},
		{"object-field", "mov (%rdi),%rax\njmp *0x20(%rax)\n", 8, true, false, ReasonNoKnownTable, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, p := asmProc(t, tc.name, tc.asm)
			base := uint64(textBase + 0x80) // the padding after the code
			switch {
			case tc.wantReason == "tail":
				base = 0x500000 // another procedure's code
			case !tc.inside:
				base = 0x700000 // no code
			}
			code = append(code, make([]byte, 256-len(code))...)
			img := &memImage{regions: []memRegion{
				{addr: textBase, data: code, exec: true},
				{addr: 0x500000, data: make([]byte, 64), exec: true},
				{addr: tableAddr, data: table8(tc.entries, base), writable: tc.writable},
			}}
			res, err := ResolveProcedure(amd64, p.insns, img, Options{Start: textBase, End: textBase + uint64(len(code))})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantReason == "tail" {
				if len(res.Calls) != 1 || !res.Calls[0].Tail || len(res.Calls[0].Targets) != tc.wantCount || len(res.UnresolvedJumps) != 0 || len(res.Tables) != 0 {
					t.Fatalf("got calls %+v tables %+v unresolved %+v, want a tail call through a table of %d", res.Calls, res.Tables, res.UnresolvedJumps, tc.wantCount)
				}
				return
			}
			if tc.wantReason != "" {
				if len(res.UnresolvedJumps) != 1 || res.UnresolvedJumps[0].Reason != tc.wantReason || len(res.Tables) != 0 {
					t.Fatalf("got tables %+v unresolved %+v, want the reason %s", res.Tables, res.UnresolvedJumps, tc.wantReason)
				}
				return
			}
			if len(res.Tables) != 1 || len(res.UnresolvedJumps) != 0 {
				t.Fatalf("got tables %+v unresolved %+v", res.Tables, res.UnresolvedJumps)
			}
			tb := res.Tables[0]
			if tb.Count() != tc.wantCount || tb.Table != tableAddr || tb.EntrySize != 8 || tb.Base != 0 || tb.Scale != 1 {
				t.Fatalf("table %+v, want %d entries of 8 bytes at %#x", tb, tc.wantCount, tableAddr)
			}
			for i, tgt := range tb.Targets {
				if tgt != base+4*uint64(i) {
					t.Fatalf("entry %d → %#x, want %#x", i, tgt, base+4*uint64(i))
				}
			}
		})
	}
}

// TestJumpTableNoReturn: the code after a call that never returns sets the
// table base register to another value and falls into the switch; unless
// the call is known not to return, the base is two values at the jump.
func TestJumpTableNoReturn(t *testing.T) {
	code, p := asmProc(t, "noreturn", `mov $0x600000,%ebx
test %esi,%esi
jne 1f
call exit
mov $0x700000,%ebx
1: mov %edi,%eax
cmp $3,%eax
ja 2f
jmp *(%rbx,%rax,8)
2: ret
`)
	code = append(code, make([]byte, 256-len(code))...)
	img := &memImage{regions: []memRegion{
		{addr: textBase, data: code, exec: true},
		{addr: tableAddr, data: table8(4, textBase+0x80)},
		{addr: 0x700000, data: table8(4, textBase+0x90)},
	}}
	opt := Options{Start: textBase, End: textBase + 256}
	res, err := ResolveProcedure(amd64, p.insns, img, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != 0 || len(res.UnresolvedJumps) != 1 {
		t.Fatalf("without NoReturn: tables %+v unresolved %+v, want the jump unresolved", res.Tables, res.UnresolvedJumps)
	}
	opt.NoReturn = func(uint64) bool { return true }
	res, err = ResolveProcedure(amd64, p.insns, img, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != 1 || res.Tables[0].Table != tableAddr || res.Tables[0].Count() != 4 {
		t.Fatalf("with NoReturn: tables %+v unresolved %+v, want the table at %#x", res.Tables, res.UnresolvedJumps, tableAddr)
	}
}

// TestJumpTableI386CallNext: clang's i386 PIC prologue (call 1f; 1: pop)
// gives the GOT pointer even when an unmodelled instruction keeps the
// stack slots from being promoted.
func TestJumpTableI386CallNext(t *testing.T) {
	obj := assembleObject(t, "callnext", `.text
.globl f
f:
	cpuid
	push %ebx
	call 1f
1:	pop %ebx
	add $0x1ff000, %ebx
	mov 8(%esp),%eax
	cmp $3,%eax
	ja 2f
	mov 0x100(%ebx,%eax,4),%eax
	add %ebx,%eax
	jmp *%eax
2:	pop %ebx
	ret
`, "-m32")
	ef, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	code, err := ef.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	insns := liftRange(code, textBase, 32)
	got := uint64(textBase + 8 + 0x1ff000) // the pop's address + the constant
	tab := make([]byte, 16)
	for i := range 4 {
		binary.LittleEndian.PutUint32(tab[4*i:], uint32(textBase+0x80+4*uint64(i)-got))
	}
	code = append(code, make([]byte, 256-len(code))...)
	// The GOT (its first bytes) and the table after it.
	img := &memImage{regions: []memRegion{{addr: textBase, data: code, exec: true}, {addr: got, data: append(make([]byte, 0x100), tab...)}}}
	res, err := ResolveProcedure(i386, insns, img, Options{Start: textBase, End: textBase + 256, Lift: liftAt(i386, img)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Func.Limitations, "\n"), "cpuid") {
		t.Fatalf("cpuid is modelled now; the test needs another unmodelled instruction: %v", res.Func.Limitations)
	}
	if len(res.Tables) != 1 || res.Tables[0].Count() != 4 || res.Tables[0].Base != got {
		t.Fatalf("tables %+v unresolved %+v", res.Tables, res.UnresolvedJumps)
	}
	for i, tgt := range res.Tables[0].Targets {
		if tgt != textBase+0x80+4*uint64(i) {
			t.Fatalf("entry %d → %#x", i, tgt)
		}
	}
}
