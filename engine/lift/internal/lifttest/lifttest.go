// Package lifttest holds what the lifters' differential tests share: the
// assembly of hand-picked instruction sequences with a real assembler, and
// the random operands the states are drawn from. Each lifter keeps its own
// machine state, harness and comparison, which differ by architecture.
package lifttest

import (
	"debug/elf"
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Corpus is the C source of small functions every lifter's differential
// test compiles at -O2 and takes straight-line windows of instructions from
// (a lifter adds its architecture's own functions after it).
//
//go:embed testdata/corpus.c
var Corpus string

// Assemble assembles each sequence (instructions separated by ';') with cc
// after the directives in prologue (the syntax and architecture lines), and
// returns each sequence's bytes.
func Assemble(t testing.TB, cc, prologue string, seqs []string) [][]byte {
	t.Helper()
	var src strings.Builder
	src.WriteString(prologue + "\n.text\n")
	for i, s := range seqs {
		fmt.Fprintf(&src, "s%d:\n", i)
		for _, ins := range strings.Split(s, ";") {
			fmt.Fprintf(&src, "\t%s\n", strings.TrimSpace(ins))
		}
		fmt.Fprintf(&src, "e%d:\n", i)
	}
	dir := t.TempDir()
	sf, of := filepath.Join(dir, "seqs.s"), filepath.Join(dir, "seqs.o")
	if err := os.WriteFile(sf, []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-c", "-o", of, sf).CombinedOutput(); err != nil {
		t.Fatalf("assembling the hand-picked sequences: %v\n%s", err, out)
	}
	f, err := elf.Open(of)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]uint64{}
	for _, s := range syms {
		at[s.Name] = s.Value
	}
	out := make([][]byte, len(seqs))
	for i := range seqs {
		out[i] = text[at[fmt.Sprintf("s%d", i)]:at[fmt.Sprintf("e%d", i)]]
	}
	return out
}

// interesting are the integer edge values instructions most often get wrong.
var interesting = []uint64{0, 1, 2, 7, 8, 31, 32, 63, 64, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 1<<63 - 1, 1 << 63, ^uint64(0), ^uint64(0) - 1}

// RandInt draws a register value: an edge value, a small one, or any.
func RandInt(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return interesting[r.IntN(len(interesting))]
	case 1:
		return uint64(r.IntN(64)) - 16
	}
	return r.Uint64()
}

// RandFloat64 draws a double's bits: a special value, a small integer, or
// any magnitude in 2^±40.
func RandFloat64(r *rand.Rand) uint64 {
	switch r.IntN(8) {
	case 0:
		return math.Float64bits([]float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.Inf(1), math.Inf(-1), math.NaN(), 2147483648.0, -2147483649.0, 9.3e18, 1e300}[r.IntN(12)])
	case 1, 2:
		return math.Float64bits(float64(r.IntN(2001) - 1000))
	}
	return math.Float64bits((r.Float64() - 0.5) * math.Pow(2, float64(r.IntN(80)-40)))
}

// RandFloat32 draws a float's bits the way RandFloat64 draws a double's.
func RandFloat32(r *rand.Rand) uint32 {
	return math.Float32bits(float32(math.Float64frombits(RandFloat64(r))))
}

// Count is one key of a tally and how often it occurred.
type Count struct {
	Key string
	N   int
}

// Top returns the n most frequent keys of by, most frequent first (ties by
// key), as the unmodelled-instruction reports print them.
func Top(by map[string]int, n int) []Count {
	top := make([]Count, 0, len(by))
	for k, v := range by {
		top = append(top, Count{k, v})
	}
	slices.SortFunc(top, func(a, b Count) int {
		if a.N != b.N {
			return b.N - a.N
		}
		return strings.Compare(a.Key, b.Key)
	})
	return top[:min(n, len(top))]
}
