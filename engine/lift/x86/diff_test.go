package x86

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/internal/lifttest"
	"github.com/rea-re/rea/internal/testkit"
)

// The differential test runs instruction sequences on the CPU (the harness
// in testdata/harness.c) and through Lift + lift.Step from the same random
// states, and compares registers, the flags the ISA defines and memory.
// What the IR marks undefined (lift.Undef and what is computed from it) is
// not compared: that is how undefined flags are masked per instruction.

const (
	codeBase = 0x10000000
	memBase  = 0x20000000
	memSize  = 1024
	recSize  = 16*8 + 8 + 32*8 + memSize
)

// flagBits are the rflags bits the IR models, by register name.
var flagBits = []struct {
	name string
	bit  uint
}{{"cf", 0}, {"pf", 2}, {"af", 4}, {"zf", 6}, {"sf", 7}, {"df", 10}, {"of", 11}}

type machine struct {
	gpr    [16]uint64
	rflags uint64
	xmm    [32]uint64
	mem    [memSize]byte
}

func (m *machine) encode(w *bytes.Buffer) {
	for _, v := range m.gpr {
		binary.Write(w, binary.LittleEndian, v)
	}
	binary.Write(w, binary.LittleEndian, m.rflags)
	for _, v := range m.xmm {
		binary.Write(w, binary.LittleEndian, v)
	}
	w.Write(m.mem[:])
}

func decodeMachine(b []byte) machine {
	var m machine
	for i := range m.gpr {
		m.gpr[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	m.rflags = binary.LittleEndian.Uint64(b[128:])
	for i := range m.xmm {
		m.xmm[i] = binary.LittleEndian.Uint64(b[136+8*i:])
	}
	copy(m.mem[:], b[136+256:])
	return m
}

// cpuResult is the harness's answer for one state.
type cpuResult struct {
	signal uint64
	out    machine
}

// compiler is the C compiler of mode: gcc for x86-64, Debian's i686 cross
// compiler for i386 (whose static executables the x86-64 kernel runs).
func compiler(t *testing.T, mode int) string {
	t.Helper()
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the differential harness runs x86 code natively on linux/amd64")
	}
	if mode == 32 {
		return testkit.Need(t, "i686-linux-gnu-gcc")
	}
	return testkit.Need(t, "gcc")
}

// harness builds testdata/harness.c for mode.
func harness(t *testing.T, mode int) string {
	t.Helper()
	gcc := compiler(t, mode)
	src, err := os.ReadFile(filepath.Join("testdata", "harness.c"))
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"-O1"}
	if mode == 32 {
		flags = append(flags, "-static")
	}
	exe, err := testkit.BuildC(gcc, t.TempDir(), "harness", string(src), flags...)
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func runCPU(exe string, code []byte, states []machine) ([]cpuResult, error) {
	job := lifttest.HarnessJob{Code: code, States: make([][]byte, len(states))}
	for i := range states {
		var w bytes.Buffer
		states[i].encode(&w)
		job.States[i] = w.Bytes()
	}
	out, err := lifttest.RunHarness(exec.Command(exe), []lifttest.HarnessJob{job}, recSize)
	if err != nil {
		return nil, err
	}
	res := make([]cpuResult, len(states))
	for i, r := range out[0] {
		res[i] = cpuResult{signal: r.Signal, out: decodeMachine(r.State)}
	}
	return res, nil
}

// runIR interprets the sequence from m; it returns the final state, or the
// error of the instruction that faulted.
func runIR(insns map[uint64]*lift.Insn, end uint64, m *machine, mode int) (*lift.State, error) {
	st := lift.NewState()
	if mode == 32 {
		for i, n := range gpr32 {
			st.Regs[n] = lift.V64(uint64(uint32(m.gpr[i])))
		}
	} else {
		for i, v := range m.gpr {
			st.Regs[gpr64[i]] = lift.V64(v)
		}
	}
	for _, f := range flagBits {
		st.Regs[f.name] = lift.V64(m.rflags >> f.bit & 1)
	}
	for i := 0; i < xmmCount(mode); i++ {
		st.Regs[fmt.Sprintf("xmm%d", i)] = lift.Value{Lo: m.xmm[2*i], Hi: m.xmm[2*i+1]}
	}
	for i, by := range m.mem {
		st.Mem[memBase+uint64(i)] = by
	}
	// The harness starts every state with an empty x87 stack and the
	// control word 0x027f (precision control: double).
	for i := 0; i < 8; i++ {
		st.Regs[fmt.Sprintf("st%d", i)] = lift.Value{Undef: true}
	}
	st.Regs["fpcw"] = lift.V64(0x027f)
	if err := lifttest.Run(insns, st, codeBase, end); err != nil {
		return nil, err
	}
	return st, nil
}

// compare reports the differences between the CPU's state and the IR's,
// skipping values the IR marks undefined.
func compare(cpu *machine, st *lift.State, mode int) []string {
	var diffs []string
	names := gpr64[:]
	if mode == 32 {
		names = gpr32[:]
	}
	for i, name := range names {
		v := st.Regs[name]
		if !v.Undef && v.Lo != cpu.gpr[i] {
			diffs = append(diffs, fmt.Sprintf("%s: cpu %#x ir %#x", name, cpu.gpr[i], v.Lo))
		}
	}
	for _, f := range flagBits {
		v := st.Regs[f.name]
		if c := cpu.rflags >> f.bit & 1; !v.Undef && v.Lo != c {
			diffs = append(diffs, fmt.Sprintf("%s: cpu %d ir %d", f.name, c, v.Lo))
		}
	}
	for i := 0; i < xmmCount(mode); i++ {
		v := st.Regs[fmt.Sprintf("xmm%d", i)]
		if !v.Undef && (v.Lo != cpu.xmm[2*i] || v.Hi != cpu.xmm[2*i+1]) {
			diffs = append(diffs, fmt.Sprintf("xmm%d: cpu %#016x_%016x ir %#016x_%016x", i, cpu.xmm[2*i+1], cpu.xmm[2*i], v.Hi, v.Lo))
		}
	}
	for i := range cpu.mem {
		a := memBase + uint64(i)
		if !st.MemUndef[a] && st.Mem[a] != cpu.mem[i] {
			diffs = append(diffs, fmt.Sprintf("mem[%#x]: cpu %#02x ir %#02x", a, cpu.mem[i], st.Mem[a]))
			break
		}
	}
	return diffs
}

// sequence is a run of instructions to test and the roles of its registers.
type sequence struct {
	name string
	mode int // 64 or 32
	code []byte
	addr map[int]bool // gpr indices that must hold addresses in memory
	idx  map[int]bool // gpr indices used as memory indices (kept small)
}

// analyse lifts every instruction of s at codeBase and derives the register
// roles from its memory operands. It reports an error when an instruction
// does not decode or is unmodelled.
func analyse(s *sequence) (map[uint64]*lift.Insn, error) {
	s.addr, s.idx = map[int]bool{4: true}, map[int]bool{}
	insns := map[uint64]*lift.Insn{}
	for off := 0; off < len(s.code); {
		pc := codeBase + uint64(off)
		in, err := Lift(s.code[off:], pc, s.mode)
		if err != nil {
			return nil, err
		}
		if st, bad := in.Unmodelled(); bad {
			return nil, fmt.Errorf("%s unmodelled: %s", st.Text, st.Reason)
		}
		if err := lift.Validate(in); err != nil {
			return nil, err
		}
		insns[pc] = in
		if inst, err := x86asm.Decode(s.code[off:], s.mode); err == nil {
			for _, a := range inst.Args {
				if m, ok := a.(x86asm.Mem); ok {
					if i := gprIndex(m.Base); i >= 0 {
						s.addr[i] = true
					}
					if i := gprIndex(m.Index); i >= 0 {
						s.idx[i] = true
					}
				}
			}
			switch inst.Op {
			case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ, x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ:
				s.addr[6], s.addr[7], s.idx[1] = true, true, true
			case x86asm.LEAVE:
				s.addr[5] = true
			}
		}
		off += in.Len
	}
	return insns, nil
}

func gprIndex(r x86asm.Reg) int {
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX)
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX)
	}
	return -1
}

func randXMM(r *rand.Rand) (lo, hi uint64) {
	switch r.IntN(4) {
	case 0:
		return lifttest.RandFloat64(r), lifttest.RandFloat64(r)
	case 1:
		return uint64(lifttest.RandFloat32(r)) | uint64(lifttest.RandFloat32(r))<<32, uint64(lifttest.RandFloat32(r)) | uint64(lifttest.RandFloat32(r))<<32
	case 2:
		return uint64(r.IntN(40)), uint64(r.IntN(40))
	}
	return r.Uint64(), r.Uint64()
}

func randomState(r *rand.Rand, s *sequence) machine {
	var m machine
	for i := range m.gpr {
		switch {
		case i == 4:
			m.gpr[i] = memBase + memSize/2
		case s.addr[i]:
			m.gpr[i] = memBase + 256 + uint64(r.IntN(32))*8
		case s.idx[i]:
			m.gpr[i] = uint64(r.IntN(16))
		default:
			m.gpr[i] = lifttest.RandInt(r)
		}
	}
	m.rflags = 0x2 | r.Uint64()&0x8d5
	if r.IntN(8) == 0 {
		m.rflags |= 1 << 10
	}
	for i := 0; i < 16; i++ {
		m.xmm[2*i], m.xmm[2*i+1] = randXMM(r)
	}
	for i := range m.mem {
		m.mem[i] = byte(r.Uint32())
	}
	// Some memory holds floats and small integers as well.
	for i := 0; i < memSize; i += 8 {
		switch r.IntN(4) {
		case 0:
			binary.LittleEndian.PutUint64(m.mem[i:], lifttest.RandFloat64(r))
		case 1:
			binary.LittleEndian.PutUint32(m.mem[i:], lifttest.RandFloat32(r))
			binary.LittleEndian.PutUint32(m.mem[i+4:], lifttest.RandFloat32(r))
		case 2:
			binary.LittleEndian.PutUint64(m.mem[i:], lifttest.RandInt(r))
		}
	}
	return m
}

// diffResult counts one sequence's states.
type diffResult struct {
	states, faulted int
}

// differential runs s on n random states and reports every mismatch.
func differential(t *testing.T, exe string, s *sequence, n int, r *rand.Rand) diffResult {
	t.Helper()
	insns, err := analyse(s)
	if err != nil {
		t.Errorf("%s: %v", s.name, err)
		return diffResult{}
	}
	states := make([]machine, n)
	for i := range states {
		states[i] = randomState(r, s)
	}
	res, err := runCPU(exe, s.code, states)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	var dr diffResult
	failures := 0
	for i := range states {
		in := states[i]
		st, err := runIR(insns, codeBase+uint64(len(s.code)), &in, s.mode)
		cpu := res[i]
		dr.states++
		switch {
		case cpu.signal != 0 && err != nil && (errors.Is(err, lift.ErrFault) || errors.Is(err, lift.ErrUnmapped)):
			dr.faulted++
			continue
		case cpu.signal != 0:
			t.Errorf("%s state %d: the CPU faulted (signal %d), the IR did not (err %v)", s.name, i, cpu.signal, err)
		case err != nil:
			t.Errorf("%s state %d: the IR failed where the CPU did not: %v", s.name, i, err)
		default:
			if d := compare(&cpu.out, st, s.mode); len(d) != 0 {
				t.Errorf("%s state %d (%s): %s", s.name, i, describe(&in), strings.Join(d, "; "))
			} else {
				continue
			}
		}
		if failures++; failures >= 3 {
			t.Errorf("%s: more mismatches not shown", s.name)
			break
		}
	}
	return dr
}

func describe(m *machine) string {
	var parts []string
	for i, v := range m.gpr {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%#x", gpr64[i], v))
		}
	}
	parts = append(parts, fmt.Sprintf("rflags=%#x xmm0=%#x_%#x xmm1=%#x_%#x", m.rflags, m.xmm[1], m.xmm[0], m.xmm[3], m.xmm[2]))
	return strings.Join(parts, " ")
}

// corpusSequences compiles lifttest.Corpus with gcc -O2 and returns
// windows of up to four consecutive straight-line instructions that use
// memory only through registers not written earlier in the window.
func corpusSequences(t *testing.T, gcc string, mode int) []sequence {
	t.Helper()
	dir := t.TempDir()
	flags := []string{"-O2", "-c", "-fcf-protection=none", "-fno-pic"}
	if mode == 32 {
		// SSE floats: the harness's record holds no x87 state, so x87
		// code is tested by the self-contained hand-picked sequences
		flags = append(flags, "-msse2", "-mfpmath=sse")
	}
	obj, err := testkit.BuildC(gcc, dir, "corpus", lifttest.Corpus, flags...)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	type ins struct {
		off, n int
		ok     bool
		mem    []int // full gpr indices used for addressing
		writes map[string]bool
	}
	var list []ins
	for off := 0; off < len(text); {
		inst, err := x86asm.Decode(text[off:], mode)
		if err != nil || inst.Len == 0 {
			off++
			list = append(list, ins{off: off, n: 1})
			continue
		}
		it := ins{off: off, n: inst.Len, ok: true, writes: map[string]bool{}}
		in := LiftInst(inst, codeBase)
		if _, bad := in.Unmodelled(); bad {
			it.ok = false
		}
		for _, s := range in.Stmts {
			if s.Op.IsControl() || s.Op == lift.TrapIf && inst.Op != x86asm.DIV && inst.Op != x86asm.IDIV {
				it.ok = false
			}
			if s.Dst.Kind == lift.Reg {
				it.writes[s.Dst.Name] = true
			}
		}
		for _, a := range inst.Args {
			if m, ok := a.(x86asm.Mem); ok {
				if m.Base == x86asm.RIP || m.Segment == x86asm.FS || m.Segment == x86asm.GS || m.Base == 0 && m.Index == 0 {
					it.ok = false
				}
				for _, r := range []x86asm.Reg{m.Base, m.Index} {
					if i := gprIndex(r); i >= 0 {
						it.mem = append(it.mem, i)
					}
				}
			}
		}
		if inst.Op == x86asm.NOP || inst.Op == x86asm.PUSH || inst.Op == x86asm.POP {
			it.ok = false // nothing to test, or the stack pointer's own role
		}
		list = append(list, it)
		off += inst.Len
	}
	seen := map[string]bool{}
	var seqs []sequence
	for i := range list {
		for n := 1; n <= 4 && i+n <= len(list); n++ {
			w := list[i : i+n]
			good := true
			written := map[string]bool{}
			for _, it := range w {
				if !it.ok {
					good = false
					break
				}
				for _, r := range it.mem {
					if mode == 64 && written[gpr64[r]] || mode == 32 && r < 8 && written[gpr32[r]] {
						good = false
					}
				}
				for r := range it.writes {
					written[r] = true
				}
			}
			if !good {
				break
			}
			code := text[w[0].off : w[n-1].off+w[n-1].n]
			if seen[string(code)] {
				continue
			}
			seen[string(code)] = true
			seqs = append(seqs, sequence{name: fmt.Sprintf("corpus%d+%#x/%d", mode, w[0].off, n), mode: mode, code: code})
		}
	}
	return seqs
}

// TestDifferentialAgainstCPU is the lifter's semantic test: every
// hand-picked sequence (one or more per modelled mnemonic) and every
// straight-line window of a gcc -O2 corpus, each from random states, on the
// CPU and in the IR interpreter. -short runs fewer states.
func TestDifferentialAgainstCPU(t *testing.T) { testDifferential(t, 64, handPicked, 48, 24, 10000) }

// TestDifferentialAgainstCPU386 is the same for i386 (mode 32), with the
// i686 cross compiler's corpus and the harness built for i386.
func TestDifferentialAgainstCPU386(t *testing.T) {
	testDifferential(t, 32, handPicked32, 32, 16, 5000)
}

func testDifferential(t *testing.T, mode int, hand []string, perHand, perCorpus, minStates int) {
	exe := harness(t, mode)
	gcc := compiler(t, mode)
	if testing.Short() {
		perHand, perCorpus = 6, 3
	}
	r := rand.New(rand.NewPCG(25, uint64(mode)))
	codes := lifttest.Assemble(t, gcc, ".intel_syntax noprefix", hand)
	total, faulted, nseq := 0, 0, 0
	mnemonics := map[string]bool{}
	for i, code := range codes {
		s := sequence{name: fmt.Sprintf("%q", hand[i]), mode: mode, code: code}
		dr := differential(t, exe, &s, perHand, r)
		total += dr.states
		faulted += dr.faulted
		nseq++
		for off := 0; off < len(code); {
			in, err := Lift(code[off:], 0, mode)
			if err != nil {
				break
			}
			mnemonics[in.Mnemonic] = true
			off += in.Len
		}
	}
	corpus := corpusSequences(t, gcc, mode)
	if len(corpus) < 100 {
		t.Errorf("the corpus gave %d sequences, want ≥ 100", len(corpus))
	}
	for i := range corpus {
		dr := differential(t, exe, &corpus[i], perCorpus, r)
		total += dr.states
		faulted += dr.faulted
		nseq++
	}
	t.Logf("mode %d: %d sequences (%d hand-picked covering %d mnemonics, %d from the corpus), %d states, %d of them faulting on both sides",
		mode, nseq, len(codes), len(mnemonics), len(corpus), total, faulted)
	if !testing.Short() && total < minStates {
		t.Errorf("%d states, want ≥ %d", total, minStates)
	}
	if total > 0 && faulted*4 > total {
		t.Errorf("%d of %d states faulted: the states test too little", faulted, total)
	}
}

func xmmCount(mode int) int {
	if mode == 32 {
		return 8
	}
	return 16
}
