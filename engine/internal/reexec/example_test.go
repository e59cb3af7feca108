package reexec_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rea-re/rea/engine/internal/reexec"
)

// The decompiler's test: build every case in every cell, decompile the
// function from each binary, check the unit against the case's main, and
// print the table; the cells below the goal fail the test.
func ExampleHarness_Sweep() {
	dir, _ := os.MkdirTemp("", "reexec")
	defer os.RemoveAll(dir)
	h := reexec.New(dir, 2)
	cases, err := reexec.Cases()
	if err != nil {
		panic(err)
	}
	decompile := func(ctx context.Context, c reexec.Case, b reexec.Binary) (string, error) {
		// Decompile b.Func at b.Addr in b.Path; return prelude + code.
		return reexec.Stub(c), nil
	}
	tab, _, err := h.Sweep(context.Background(), cases, reexec.Matrix(), decompile)
	if err != nil {
		panic(err) // a missing tool (errors.Is(err, reexec.ErrMissingTool)) or a cancelled context
	}
	fmt.Print(tab)
	for _, cell := range tab.Below(reexec.Goal) {
		fmt.Println("below the goal:", cell, tab.Failures(cell))
	}
}
