package builtin

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/rea-re/rea/engine/dataflow"
)

// TestLiftDump writes, for every procedure of REA_LIFT_DUMP_FILE, what
// lifting and decompiling answer, to REA_LIFT_DUMP (to diff two builds).
// REA_LIFT_DUMP_PSEUDO_FIRST decompiles each procedure before lifting it,
// so that the lift cache's entry is the one decompiling fills;
// REA_LIFT_DUMP_PREFETCH=n lifts callees' prototypes on n goroutines as
// procedure_pseudo_code does.
func TestLiftDump(t *testing.T) {
	out := os.Getenv("REA_LIFT_DUMP")
	path := os.Getenv("REA_LIFT_DUMP_FILE")
	if out == "" || path == "" {
		t.Skip("REA_LIFT_DUMP, REA_LIFT_DUMP_FILE")
	}
	c, six, ex := openExtents(t, path)
	ctx := context.Background()
	pe, err := c.pseudoEnvOf(ctx, "test", six, ex)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	w := bufio.NewWriter(fh)
	defer w.Flush()
	pseudo := os.Getenv("REA_LIFT_DUMP_PSEUDO") != ""
	pseudoFirst := os.Getenv("REA_LIFT_DUMP_PSEUDO_FIRST") != ""
	pe.prefetch, _ = strconv.Atoi(os.Getenv("REA_LIFT_DUMP_PREFETCH"))
	for _, p := range allProcedures(t, c) {
		a, _ := strconv.ParseUint(p.Address[2:], 16, 64)
		var pp *pseudoProc
		decompile := func() {
			if pp, err = c.decompileProc(ctx, "test", pe, nil, a); err != nil {
				t.Fatal(err)
			}
		}
		if pseudoFirst {
			decompile()
		}
		lp, err := c.lifted(ctx, "test", six, ex, a)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "== %#x\nproto %+v\n", a, lp.proto)
		if lp.proto != nil {
			for _, q := range lp.proto.Params {
				fmt.Fprintf(w, " param %+v\n", q)
			}
			if lp.proto.Return != nil {
				fmt.Fprintf(w, " ret %+v\n", *lp.proto.Return)
			}
		}
		calls, _ := unpackCalls(lp.calls)
		for _, cs := range calls {
			fmt.Fprintf(w, "call %+v\n", cs)
		}
		keys := make([]uint64, 0, len(lp.resolved))
		for k := range lp.resolved {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "resolved %#x %x\n", k, lp.resolved[k])
		}
		if lp.frame != nil {
			fmt.Fprintf(w, "frame %d %v\n", lp.frame.size, lp.frame.saved)
		}
		fmt.Fprintf(w, "lims %q\n", lp.lims)
		pc, err := c.decodeProc(ctx, "test", six, ex, a, false)
		if err != nil {
			t.Fatal(err)
		}
		res, _, lims := liftForDecompile(pe.tgt, pe.view, c.codeAt, pc, ex, a)
		fmt.Fprintf(w, "dlims %q\n", lims)
		if res != nil {
			w.WriteString(res.Func.String())
			fmt.Fprintf(w, "tables %+v\nucalls %+v\nujumps %+v\ncalls %+v\n", res.Tables, res.UnresolvedCalls, res.UnresolvedJumps, res.Calls)
			// the relative order of the values' IDs (decompile compares them)
			var vs []*dataflow.Value
			for _, b := range res.Func.Blocks {
				vs = append(vs, b.Values...)
			}
			idx := make([]int, len(vs))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(x, y int) int { return vs[x].ID - vs[y].ID })
			fmt.Fprintf(w, "idorder %v\n", idx)
			for _, v := range vs {
				fmt.Fprintf(w, "%x/%s/%d ", v.Addr, v.Loc, v.Aux)
			}
			w.WriteString("\n")
		}
		if pseudo || pseudoFirst {
			if pp == nil {
				decompile()
			}
			fmt.Fprintf(w, "failure %q\n%s\n%s\nlims %q\nmap %v\nstruct %+v\n", pp.failure, pp.whole.Prelude, pp.whole.Code, pp.whole.Limitations, pp.whole.AddressMap, pp.whole.Structure)
		}
	}
}
