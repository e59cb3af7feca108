package reexec

import (
	"context"
	"fmt"
	"sync"
)

// Outcome is one case's verdict in one cell of a Sweep.
type Outcome struct {
	Case   string
	Config Config
	Result Result // Stage "unit" when the unit function failed
}

// UnitFunc makes the translation unit checked for a case from its build
// (the decompiler's output, for the decompiler's test). An error is that
// case's failure in that cell, not the sweep's.
type UnitFunc func(ctx context.Context, c Case, b Binary) (string, error)

// Sweep builds every case in every cell, asks unit for a translation unit
// from each build, checks it against the case's test main, and returns
// the table and every outcome (in no particular order). It stops at the
// first error that keeps a check from happening (a missing tool, a
// cancelled ctx).
func (h *Harness) Sweep(ctx context.Context, cases []Case, cells []Config, unit UnitFunc) (*Table, []Outcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		c    Case
		cell Config
	}
	var (
		tab   Table
		mu    sync.Mutex
		outs  []Outcome
		first error
		once  sync.Once
		wg    sync.WaitGroup
	)
	fail := func(err error) { once.Do(func() { first = err; cancel() }) }
	jobs := make(chan job)
	for range 2 * cap(h.slots) { // more workers than slots keep the slots busy
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				b, err := h.Build(ctx, j.c, j.cell.Toolchain, j.cell.Level, j.cell.Arch)
				if err != nil {
					fail(fmt.Errorf("%s %s: %w", j.c.Name, j.cell, err))
					continue
				}
				var r Result
				if u, uerr := unit(ctx, j.c, b); uerr != nil {
					if ctx.Err() != nil {
						fail(ctx.Err())
						continue
					}
					r = Result{Stage: "unit", Output: uerr.Error()}
				} else if r, err = h.Check(ctx, j.c, j.cell.Toolchain, j.cell.Arch, u); err != nil {
					fail(fmt.Errorf("%s %s: %w", j.c.Name, j.cell, err))
					continue
				}
				tab.Add(j.cell, j.c.Name, r.Pass)
				mu.Lock()
				outs = append(outs, Outcome{Case: j.c.Name, Config: j.cell, Result: r})
				mu.Unlock()
			}
		}()
	}
feed:
	for _, cell := range cells {
		for _, c := range cases {
			select {
			case jobs <- job{c, cell}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return nil, nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return &tab, outs, nil
}
