package arm64

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/arch/arm64/arm64asm"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/internal/lifttest"
	"github.com/rea-re/rea/internal/testkit"
)

// The differential test runs instruction sequences on a CPU (the harness in
// testdata/harness.c under qemu-aarch64) and through Lift + lift.Step from
// the same random states, and compares x0-x30, sp, NZCV, v0-v31 and memory.
// What the IR marks undefined is not compared. qemu runs a Cortex-A57
// (ARMv8.0: no pointer authentication, no BTI), the CPU the package doc
// says the hints are modelled for.

const (
	codeBase = 0x01000008 // after the harness's trampoline
	memBase  = 0x20000000
	memSize  = 4096
	recSize  = 31*8 + 8 + 8 + 64*8 + memSize
)

type machine struct {
	x    [31]uint64
	sp   uint64
	nzcv uint64
	v    [64]uint64
	mem  [memSize]byte
}

func (m *machine) encode(w *bytes.Buffer) {
	binary.Write(w, binary.LittleEndian, m.x)
	binary.Write(w, binary.LittleEndian, m.sp)
	binary.Write(w, binary.LittleEndian, m.nzcv)
	binary.Write(w, binary.LittleEndian, m.v)
	w.Write(m.mem[:])
}

func decodeMachine(b []byte) machine {
	var m machine
	for i := range m.x {
		m.x[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	m.sp = binary.LittleEndian.Uint64(b[248:])
	m.nzcv = binary.LittleEndian.Uint64(b[256:])
	for i := range m.v {
		m.v[i] = binary.LittleEndian.Uint64(b[264+8*i:])
	}
	copy(m.mem[:], b[264+512:])
	return m
}

type cpuResult struct {
	signal uint64
	out    machine
}

// tools returns the cross compiler and qemu-aarch64, skipping (failing
// under REA_REQUIRE_ALL_TOOLS=1) when either is absent.
func tools(t *testing.T) (gcc, qemu string) {
	t.Helper()
	return testkit.Need(t, "aarch64-linux-gnu-gcc"), testkit.Need(t, "qemu-aarch64")
}

// harness builds testdata/harness.c, static, for AArch64.
func harness(t *testing.T, gcc string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "harness.c"))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := testkit.BuildC(gcc, t.TempDir(), "harness", string(src), "-O1", "-static")
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// job is one sequence, its lifted instructions, the states to run it from
// and the CPU's results.
type job struct {
	seq    *sequence
	insns  map[uint64]*lift.Insn
	states []machine
	cpu    []cpuResult
}

// runCPU runs every job in one harness process under qemu.
func runCPU(qemu, exe string, jobs []*job) error {
	in := make([]lifttest.HarnessJob, len(jobs))
	for k, j := range jobs {
		in[k] = lifttest.HarnessJob{Code: j.seq.code, States: make([][]byte, len(j.states))}
		for i := range j.states {
			var w bytes.Buffer
			j.states[i].encode(&w)
			in[k].States[i] = w.Bytes()
		}
	}
	out, err := lifttest.RunHarness(exec.Command(qemu, "-cpu", "cortex-a57", exe), in, recSize)
	if err != nil {
		return err
	}
	for k, j := range jobs {
		j.cpu = make([]cpuResult, len(j.states))
		for i, r := range out[k] {
			j.cpu[i] = cpuResult{signal: r.Signal, out: decodeMachine(r.State)}
		}
	}
	return nil
}

var flagBits = []struct {
	name string
	bit  uint
}{{"n", 31}, {"z", 30}, {"c", 29}, {"v", 28}}

func runIR(insns map[uint64]*lift.Insn, end uint64, m *machine) (*lift.State, error) {
	st := lift.NewState()
	for i, v := range m.x {
		st.Regs[xNames[i]] = lift.V64(v)
	}
	st.Regs["sp"] = lift.V64(m.sp)
	for _, f := range flagBits {
		st.Regs[f.name] = lift.V64(m.nzcv >> f.bit & 1)
	}
	for i := range vNames {
		st.Regs[vNames[i]] = lift.Value{Lo: m.v[2*i], Hi: m.v[2*i+1]}
	}
	for i, by := range m.mem {
		st.Mem[memBase+uint64(i)] = by
	}
	if err := lifttest.Run(insns, st, codeBase, end); err != nil {
		return nil, err
	}
	return st, nil
}

// nanEqual reports whether two V register values differ only in the bits
// of a NaN the operation generated: the IR's float operations give the
// host's NaN, whose payload (x86's default NaN is negative, AArch64's
// positive) is not modelled.
func nanEqual(alo, ahi, blo, bhi uint64) bool {
	if ahi != bhi {
		return false
	}
	if math.IsNaN(math.Float64frombits(alo)) && math.IsNaN(math.Float64frombits(blo)) {
		return true
	}
	return alo>>32 == blo>>32 && math.IsNaN(float64(math.Float32frombits(uint32(alo)))) &&
		math.IsNaN(float64(math.Float32frombits(uint32(blo))))
}

func compare(cpu *machine, st *lift.State) []string {
	var diffs []string
	for i, name := range xNames {
		if v := st.Regs[name]; !v.Undef && v.Lo != cpu.x[i] {
			diffs = append(diffs, fmt.Sprintf("%s: cpu %#x ir %#x", name, cpu.x[i], v.Lo))
		}
	}
	if v := st.Regs["sp"]; !v.Undef && v.Lo != cpu.sp {
		diffs = append(diffs, fmt.Sprintf("sp: cpu %#x ir %#x", cpu.sp, v.Lo))
	}
	for _, f := range flagBits {
		v := st.Regs[f.name]
		if c := cpu.nzcv >> f.bit & 1; !v.Undef && v.Lo != c {
			diffs = append(diffs, fmt.Sprintf("%s: cpu %d ir %d", f.name, c, v.Lo))
		}
	}
	for i, name := range vNames {
		v := st.Regs[name]
		lo, hi := cpu.v[2*i], cpu.v[2*i+1]
		if !v.Undef && (v.Lo != lo || v.Hi != hi) && !nanEqual(v.Lo, v.Hi, lo, hi) {
			diffs = append(diffs, fmt.Sprintf("%s: cpu %#016x_%016x ir %#016x_%016x", name, hi, lo, v.Hi, v.Lo))
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
	code []byte
	addr map[int]bool // x registers that must hold addresses in memory
	idx  map[int]bool // x registers used as memory indices (kept small)
}

// memRegs reports the base and index registers of inst's memory operands
// (-1 for sp or none).
func memRegs(inst arm64asm.Inst) (bases, idxs []int) {
	num := func(r arm64asm.Reg) int {
		switch {
		case r >= arm64asm.X0 && r <= arm64asm.X30:
			return int(r - arm64asm.X0)
		case r >= arm64asm.W0 && r <= arm64asm.W30:
			return int(r - arm64asm.W0)
		}
		return -1
	}
	for _, a := range inst.Args {
		switch m := a.(type) {
		case arm64asm.MemImmediate:
			if i := num(arm64asm.Reg(m.Base)); i >= 0 {
				bases = append(bases, i)
			}
		case arm64asm.MemExtend:
			if i := num(arm64asm.Reg(m.Base)); i >= 0 {
				bases = append(bases, i)
			}
			if i := num(m.Index); i >= 0 {
				idxs = append(idxs, i)
			}
		}
	}
	return bases, idxs
}

func analyse(s *sequence) (map[uint64]*lift.Insn, error) {
	s.addr, s.idx = map[int]bool{}, map[int]bool{}
	insns := map[uint64]*lift.Insn{}
	for off := 0; off+4 <= len(s.code); off += 4 {
		pc := codeBase + uint64(off)
		in, err := Lift(s.code[off:], pc)
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
		if inst, err := Decode(s.code[off:]); err == nil {
			bases, idxs := memRegs(inst)
			for _, i := range bases {
				s.addr[i] = true
			}
			for _, i := range idxs {
				s.idx[i] = true
			}
		}
	}
	return insns, nil
}

func randomState(r *rand.Rand, s *sequence) machine {
	var m machine
	for i := range m.x {
		switch {
		case s.addr[i]:
			m.x[i] = memBase + 1024 + uint64(r.IntN(128))*8
		case s.idx[i]:
			m.x[i] = uint64(r.IntN(16))
		default:
			m.x[i] = lifttest.RandInt(r)
		}
	}
	m.sp = memBase + memSize/2
	m.nzcv = uint64(r.IntN(16)) << 28
	for i := 0; i < 32; i++ {
		switch r.IntN(4) {
		case 0:
			m.v[2*i], m.v[2*i+1] = lifttest.RandFloat64(r), lifttest.RandFloat64(r)
		case 1:
			m.v[2*i] = uint64(lifttest.RandFloat32(r)) | uint64(lifttest.RandFloat32(r))<<32
			m.v[2*i+1] = r.Uint64()
		case 2:
			m.v[2*i], m.v[2*i+1] = uint64(r.IntN(40)), uint64(r.IntN(40))
		default:
			m.v[2*i], m.v[2*i+1] = r.Uint64(), r.Uint64()
		}
	}
	for i := range m.mem {
		m.mem[i] = byte(r.Uint32())
	}
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

type diffResult struct {
	states, faulted int
}

// prepare lifts s and draws n random states for it; nil when s does not
// lift (reported as an error).
func prepare(t *testing.T, s *sequence, n int, r *rand.Rand) *job {
	t.Helper()
	insns, err := analyse(s)
	if err != nil {
		t.Errorf("%s: %v", s.name, err)
		return nil
	}
	j := &job{seq: s, insns: insns, states: make([]machine, n)}
	for i := range j.states {
		j.states[i] = randomState(r, s)
	}
	return j
}

// check compares the CPU's results of j with the IR's, reporting every
// mismatch (three per sequence at most).
func check(t *testing.T, j *job) diffResult {
	t.Helper()
	s := j.seq
	var dr diffResult
	failures := 0
	for i := range j.states {
		in := j.states[i]
		st, err := runIR(j.insns, codeBase+uint64(len(s.code)), &in)
		cpu := j.cpu[i]
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
			if d := compare(&cpu.out, st); len(d) != 0 {
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
	for i, v := range m.x[:8] {
		parts = append(parts, fmt.Sprintf("x%d=%#x", i, v))
	}
	parts = append(parts, fmt.Sprintf("nzcv=%#x v0=%#x_%#x v1=%#x_%#x", m.nzcv>>28, m.v[1], m.v[0], m.v[3], m.v[2]))
	return strings.Join(parts, " ")
}

// corpusSequences compiles lifttest.Corpus and testdata/corpus_arm64.c with cc (the cross compiler,
// or clang with an AArch64 target in flags) at -O2 and returns windows of up to four consecutive straight-line instructions
// that use memory only through registers not written earlier in the window
// (literal loads read the code, which the states do not hold).
func corpusSequences(t *testing.T, label, cc string, flags ...string) []sequence {
	t.Helper()
	extra, err := os.ReadFile(filepath.Join("testdata", "corpus_arm64.c"))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := testkit.BuildC(cc, t.TempDir(), "corpus", lifttest.Corpus+"\n"+string(extra), append([]string{"-O2", "-c"}, flags...)...)
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
		off    int
		ok     bool
		mem    []int
		writes map[string]bool
	}
	var list []ins
	for off := 0; off+4 <= len(text); off += 4 {
		it := ins{off: off, writes: map[string]bool{}}
		inst, err := Decode(text[off:])
		if err == nil {
			it.ok = true
			in := LiftInst(inst, codeBase)
			if _, bad := in.Unmodelled(); bad {
				it.ok = false
			}
			for _, s := range in.Stmts {
				if s.Op.IsControl() {
					it.ok = false
				}
				if s.Op == lift.Load && s.A.IsConst() {
					it.ok = false // a literal load
				}
				if s.Dst.Kind == lift.Reg {
					it.writes[s.Dst.Name] = true
				}
			}
			b, x := memRegs(inst)
			it.mem = append(b, x...)
			if len(in.Stmts) == 0 {
				it.ok = false // hints: nothing to test
			}
		}
		list = append(list, it)
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
					if written[xNames[r]] {
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
			code := text[w[0].off : w[n-1].off+4]
			if seen[string(code)] {
				continue
			}
			seen[string(code)] = true
			seqs = append(seqs, sequence{name: fmt.Sprintf("%s corpus+%#x/%d", label, w[0].off, n), code: code})
		}
	}
	return seqs
}

// TestDifferentialAgainstCPU is the lifter's semantic test: every
// hand-picked sequence (one or more per modelled mnemonic) and every
// straight-line window of the corpus built by gcc -O2 and clang -O2, each
// from random states, under qemu-aarch64 and in the IR interpreter. -short
// runs fewer states.
func TestDifferentialAgainstCPU(t *testing.T) {
	gcc, qemu := tools(t)
	exe := harness(t, gcc)
	perHand, perCorpus, minStates := 40, 16, 10000
	if testing.Short() {
		perHand, perCorpus = 6, 3
	}
	r := rand.New(rand.NewPCG(25, 64))
	hand := append(append([]string{}, handPicked...), handPickedSystem...)
	codes := lifttest.Assemble(t, gcc, ".arch armv8.5-a", hand)
	var jobs []*job
	mnemonics := map[string]bool{}
	for i, code := range codes {
		s := &sequence{name: fmt.Sprintf("%q", hand[i]), code: code}
		if j := prepare(t, s, perHand, r); j != nil {
			jobs = append(jobs, j)
		}
		for off := 0; off+4 <= len(code); off += 4 {
			if in, err := Lift(code[off:], 0); err == nil {
				mnemonics[in.Mnemonic] = true
			}
		}
	}
	corpus := corpusSequences(t, "gcc", gcc)
	if len(corpus) < 100 {
		t.Errorf("the gcc corpus gave %d sequences, want ≥ 100", len(corpus))
	}
	// clang's half of the corpus is optional: without clang the gcc half
	// still runs (and REA_REQUIRE_ALL_TOOLS=1 makes its absence a failure).
	if cc, err := exec.LookPath("clang"); err == nil {
		clang := corpusSequences(t, "clang", cc, "--target=aarch64-linux-gnu")
		if len(clang) < 100 {
			t.Errorf("the clang corpus gave %d sequences, want ≥ 100", len(clang))
		}
		corpus = append(corpus, clang...)
	} else if testkit.RequireAll() {
		t.Fatal("tool clang is not installed; install it to run the clang corpus")
	} else {
		t.Log("clang is not installed: the clang half of the corpus is skipped")
	}
	for i := range corpus {
		if j := prepare(t, &corpus[i], perCorpus, r); j != nil {
			jobs = append(jobs, j)
		}
	}
	if err := runCPU(qemu, exe, jobs); err != nil {
		t.Fatal(err)
	}
	total, faulted, nseq := 0, 0, len(jobs)
	for _, j := range jobs {
		dr := check(t, j)
		total += dr.states
		faulted += dr.faulted
	}
	t.Logf("%d sequences (%d hand-picked covering %d mnemonics, %d from the corpus), %d states, %d of them faulting on both sides",
		nseq, len(codes), len(mnemonics), len(corpus), total, faulted)
	if !testing.Short() && total < minStates {
		t.Errorf("%d states, want ≥ %d", total, minStates)
	}
	if total > 0 && faulted*4 > total {
		t.Errorf("%d of %d states faulted: the states test too little", faulted, total)
	}
}
