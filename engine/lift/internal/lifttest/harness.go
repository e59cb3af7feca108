package lifttest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os/exec"

	"github.com/rea-re/rea/engine/lift"
)

// The CPU harnesses (each lifter's testdata/harness.c) read jobs from
// stdin — a uint32 code length, the code, a uint32 state count, the
// states — and answer each state with a uint64 signal (0: none) and the
// state the CPU left.

// HarnessJob is one sequence's code and its start states, each encoded as
// the harness reads it.
type HarnessJob struct {
	Code   []byte
	States [][]byte
}

// HarnessResult is the CPU's answer for one state: the signal it raised
// (0: none) and the encoded state it left, recSize bytes.
type HarnessResult struct {
	Signal uint64
	State  []byte
}

// RunHarness runs every job in one harness process (cmd, its stdin and
// stdout taken here) and returns each job's results in state order.
func RunHarness(cmd *exec.Cmd, jobs []HarnessJob, recSize int) ([][]HarnessResult, error) {
	var in bytes.Buffer
	want := 0
	for _, j := range jobs {
		binary.Write(&in, binary.LittleEndian, uint32(len(j.Code)))
		in.Write(j.Code)
		binary.Write(&in, binary.LittleEndian, uint32(len(j.States)))
		for _, s := range j.States {
			in.Write(s)
		}
		want += len(j.States)
	}
	cmd.Stdin = &in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("harness: %w: %s", err, errb.String())
	}
	b := out.Bytes()
	if len(b) != want*(8+recSize) {
		return nil, fmt.Errorf("harness: %d bytes of output for %d states", len(b), want)
	}
	res := make([][]HarnessResult, len(jobs))
	for k, j := range jobs {
		res[k] = make([]HarnessResult, len(j.States))
		for i := range res[k] {
			r := b[:8+recSize]
			b = b[8+recSize:]
			res[k][i] = HarnessResult{Signal: binary.LittleEndian.Uint64(r), State: r[8:]}
		}
	}
	return res, nil
}

// Run steps st through the lifted instructions from start until control
// reaches end (the sequence's fall-through); leaving the sequence or more
// than 10,000 steps is an error.
func Run(insns map[uint64]*lift.Insn, st *lift.State, start, end uint64) error {
	pc := start
	for steps := 0; pc != end; steps++ {
		in, ok := insns[pc]
		if !ok || steps > 10000 {
			return fmt.Errorf("control left the sequence at %#x after %d steps", pc, steps)
		}
		out, err := lift.Step(in, st)
		if err != nil {
			return err
		}
		pc = out.Next
	}
	return nil
}
