package dataflow

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/rea-re/rea/engine/lift"
)

// Memory the differential states map: a stack below stackTop and a data
// buffer for pointer arguments.
const (
	stackTop  = 0x7ff000
	stackSize = 0x400
	dataBase  = 0x100000
	dataSize  = 0x200
	retAddr   = 0x5eed0000
)

var gprs64 = []string{"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

// randomState gives every register the lifter names a random value, the
// argument registers small values (loops are bounded by them) or, where
// ptrArgs says, the data buffer, and maps the stack with the return
// address on top.
func randomState(r *rand.Rand, ptrArgs map[int]bool) *lift.State {
	st := lift.NewState()
	for _, g := range gprs64 {
		st.Regs[g] = lift.V64(r.Uint64())
	}
	for i := 0; i < 16; i++ {
		st.Regs["xmm"+itoa(i)] = lift.Value{Lo: r.Uint64(), Hi: r.Uint64()}
	}
	for _, f := range flagsX86 {
		st.Regs[f] = lift.V64(r.Uint64() & 1)
	}
	st.Regs["df"] = lift.V64(0)
	st.Regs["fs_base"] = lift.V64(0)
	st.Regs["gs_base"] = lift.V64(0)
	edge := []uint64{0, 1, 2, 7, 8, 100, 101, 200, 201, 1000, 1001, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 63, ^uint64(0), ^uint64(10), ^uint64(11)}
	for i, a := range []string{"rdi", "rsi", "rdx", "rcx"} {
		switch {
		case ptrArgs[i]:
			st.Regs[a] = lift.V64(dataBase)
		case r.IntN(3) == 0:
			st.Regs[a] = lift.V64(edge[r.IntN(len(edge))])
		case r.IntN(2) == 0:
			st.Regs[a] = lift.V64(uint64(r.Int64N(80) - 20))
		default:
			st.Regs[a] = lift.V64(r.Uint64()&0xffffffff00000000 | uint64(r.IntN(60)))
		}
	}
	for a := uint64(stackTop - stackSize); a < stackTop+0x100; a++ {
		st.Mem[a] = byte(r.Uint32())
	}
	for a := uint64(dataBase); a < dataBase+dataSize; a++ {
		st.Mem[a] = byte(r.Uint32())
	}
	st.Regs["rsp"] = lift.V64(stackTop)
	for i := 0; i < 8; i++ {
		st.Mem[stackTop+uint64(i)] = byte(uint64(retAddr) >> (8 * i))
	}
	return st
}

func itoa(i int) string {
	if i >= 10 {
		return string(rune('0'+i/10)) + string(rune('0'+i%10))
	}
	return string(rune('0' + i))
}

func cloneState(st *lift.State) *lift.State {
	c := lift.NewState()
	for k, v := range st.Regs {
		c.Regs[k] = v
	}
	for k, v := range st.Mem {
		c.Mem[k] = v
	}
	for k, v := range st.MemUndef {
		c.MemUndef[k] = v
	}
	return c
}

// errSkip marks a run the comparison cannot use (a call, the step limit).
var errSkip = errors.New("run not comparable")

// runLifted runs the lifted instructions with lift.Step from their entry
// until a return.
func runLifted(p procedure, st *lift.State, limit int) (uint64, error) {
	at := map[uint64]*lift.Insn{}
	for _, in := range p.insns {
		at[in.Addr] = in
	}
	pc := p.addr
	for n := 0; n < limit; n++ {
		in, ok := at[pc]
		if !ok {
			return 0, errSkip // left the procedure other than by a return
		}
		out, err := lift.Step(in, st)
		if err != nil {
			return 0, err
		}
		switch out.Flow {
		case lift.Called:
			return 0, errSkip
		case lift.Returned:
			return out.Next, nil
		}
		pc = out.Next
	}
	return 0, errSkip
}

func sameValue(a, b lift.Value, w int) bool {
	if a.Undef || b.Undef {
		return true
	}
	m := lift.Value{Lo: ^uint64(0), Hi: ^uint64(0)}
	if w <= 64 {
		m.Hi = 0
		if w < 64 {
			m.Lo = 1<<w - 1
		}
	}
	return a.Lo&m.Lo == b.Lo&m.Lo && a.Hi&m.Hi == b.Hi&m.Hi
}

// TestDifferentialCorpus runs every procedure of the corpus, at -O0, -O1
// and -O2, lifted and in SSA after all the passes, from the same random
// states, and compares where they return, the registers they hand back
// (the return value and callee-saved registers) and memory (the data
// buffer and the stack at and above the entry stack pointer: promoted
// slots below it are no longer memory, by design).
func TestDifferentialCorpus(t *testing.T) {
	for _, opt := range []string{"-O0", "-O1", "-O2"} {
		procs := objectProcs(t, corpusObject(t, opt), 64)
		if len(procs) < 12 {
			t.Fatalf("%s: %d procedures in the corpus object", opt, len(procs))
		}
		for _, p := range procs {
			t.Run(opt+"/"+p.name, func(t *testing.T) {
				differential(t, amd64, p, func(r *rand.Rand) *lift.State { return randomState(r, corpusPtrArgs[p.name]) })
			})
		}
	}
}

// TestDifferentialCorpus386 is TestDifferentialCorpus for i386 (gcc -m32,
// arguments on the stack, where stack-pointer tracking meets cdecl).
func TestDifferentialCorpus386(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		procs := objectProcs(t, corpusObject(t, opt+" -m32"), 32)
		if len(procs) < 12 {
			t.Fatalf("%s: %d procedures in the corpus object", opt, len(procs))
		}
		for _, p := range procs {
			t.Run(opt+"/"+p.name, func(t *testing.T) {
				differential(t, i386, p, func(r *rand.Rand) *lift.State { return randomState386(r, corpusPtrArgs[p.name]) })
			})
		}
	}
}

// corpusPtrArgs are the corpus's pointer parameters, by position.
var corpusPtrArgs = map[string]map[int]bool{"store_squares": {0: true}, "count_down": {1: true}}

// randomState386 is randomState for i386: 32-bit registers, and the
// arguments on the stack above the return address.
func randomState386(r *rand.Rand, ptrArgs map[int]bool) *lift.State {
	st := randomState(r, nil)
	for _, g := range gprs64 {
		delete(st.Regs, g)
	}
	for _, g := range []string{"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp"} {
		st.Regs[g] = lift.V64(uint64(r.Uint32()))
	}
	st.Regs["esp"] = lift.V64(stackTop)
	for i := 0; i < 4; i++ {
		st.Mem[stackTop+uint64(i)] = byte(uint64(retAddr) >> (8 * i))
	}
	for a := 0; a < 4; a++ {
		v := uint32(r.Int32N(80) - 20)
		switch {
		case ptrArgs[a]:
			v = dataBase
		case r.IntN(3) == 0:
			v = r.Uint32()
		}
		for i := 0; i < 4; i++ {
			st.Mem[stackTop+4+uint64(4*a+i)] = byte(v >> (8 * i))
		}
	}
	return st
}

// differential compares p lifted and in SSA after the passes on 150
// random states.
func differential(t *testing.T, arch *Arch, p procedure, state func(*rand.Rand) *lift.State) {
	_, f := buildOpt(t, arch, p)
	r := rand.New(rand.NewPCG(uint64(len(p.insns)), 25))
	compared := 0
	for i := 0; i < 150; i++ {
		st := state(r)
		want := cloneState(st)
		tgt, err := runLifted(p, want, 5000)
		if err != nil {
			continue // a fault, a call: nothing to compare
		}
		got := cloneState(st)
		exit, err := Run(f, got, 1000000)
		if err != nil {
			t.Fatalf("input %d: SSA run failed where the lifted code returned: %v\n%s", i, err, f)
		}
		if !exit.Return || exit.Target != tgt {
			t.Fatalf("input %d: SSA left to %#x (return %v), lifted code returned to %#x\n%s", i, exit.Target, exit.Return, tgt, f)
		}
		for name, v := range exit.Regs {
			w := int(arch.PtrWidth)
			if name[0] == 'x' {
				w = 128
			}
			if !sameValue(v, want.Regs[name], w) {
				t.Fatalf("input %d: %s = %#x, lifted code %#x\n%s", i, name, v.Lo, want.Regs[name].Lo, f)
			}
		}
		for a, b := range want.Mem {
			if a < stackTop && a >= stackTop-stackSize {
				continue
			}
			if got.Mem[a] != b && !want.MemUndef[a] {
				t.Fatalf("input %d: memory %#x = %#x, lifted code %#x\n%s", i, a, got.Mem[a], b, f)
			}
		}
		compared++
	}
	if compared < 50 {
		t.Fatalf("only %d of 150 random inputs ran to a return", compared)
	}
}
