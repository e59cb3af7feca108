package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// ledgerAction is the body of a ledger command: it returns the JSON document
// to print and whether the command succeeded (exit 0).
type ledgerAction func(ctx context.Context, led *ledger.Ledger, args []string) (out any, ok bool, err error)

// runLedger opens the ledger — read-only for the commands that only read —
// runs action, prints its document, and maps failure to exit 1.
func (g *globals) runLedger(readOnly bool, action ledgerAction) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		path, err := g.resolveLedgerPath()
		if err != nil {
			return failWith(cmd, true, err)
		}
		var led *ledger.Ledger
		if readOnly {
			led, err = ledger.OpenReadOnly(ctx, path)
		} else {
			led, err = ledger.Open(ctx, path, ledger.Options{})
		}
		if err != nil {
			return failWith(cmd, true, err)
		}
		defer led.Close()
		out, ok, err := action(ctx, led, args)
		if err != nil {
			return failWith(cmd, true, err)
		}
		if err := printJSON(cmd.OutOrStdout(), out); err != nil {
			return err
		}
		if !ok {
			return exitError{1}
		}
		return nil
	}
}

// The ledger commands load no policy and append nothing (CONTRACTS.md §13.2).
func newLedgerCommand(g *globals) *cobra.Command {
	l := &cobra.Command{Use: "ledger", Short: "Audit the evidence ledger: export, verify, import, rebuild, stats"}

	var from, to int64
	var out string
	export := &cobra.Command{
		Use:   "export -o FILE",
		Short: "Export events (JSON Lines: manifest, events, blobs)",
		RunE: g.runLedger(true, func(ctx context.Context, led *ledger.Ledger, _ []string) (any, bool, error) {
			var m ledger.ExportManifest
			err := writeNewFile(out, func(w io.Writer) (err error) {
				m, err = led.Export(ctx, w, from, to, version)
				return err
			})
			return m, err == nil, err
		}),
	}
	export.Flags().VarP(pathValue{&out}, "output", "o", "file to create (0600; must not exist)")
	export.Flags().Int64Var(&from, "from", 0, "first seq (default 1)")
	export.Flags().Int64Var(&to, "to", 0, "last seq (default head)")
	export.MarkFlagRequired("output")

	var previous string
	verifyLive := g.runLedger(true, func(ctx context.Context, led *ledger.Ledger, _ []string) (any, bool, error) {
		replayGC()
		if previous == "" {
			rep, err := led.Verify(ctx)
			return rep, rep.OK, err
		}
		prev, err := os.Open(previous)
		if err != nil {
			return nil, false, err
		}
		defer prev.Close()
		rep, err := led.VerifyAgainst(ctx, bufio.NewReader(prev))
		return rep, rep.OK, err
	})
	verify := &cobra.Command{
		Use:   "verify [FILE]",
		Short: "Verify the live ledger, or an export file, and report the first bad seq",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return verifyLive(cmd, args)
			}
			replayGC()
			file, err := absPath("ledger_verify", "/file", args[0])
			if err != nil {
				return failWith(cmd, true, err)
			}
			rep, err := verifyExportFile(cmd.Context(), file, previous)
			if err != nil {
				return failWith(cmd, true, err)
			}
			printJSON(cmd.OutOrStdout(), rep)
			if !rep.OK {
				return exitError{1}
			}
			return nil
		},
	}
	verify.Flags().Var(pathValue{&previous}, "previous", "an earlier export of the same ledger; checks append-only prefix")

	imp := &cobra.Command{
		Use:   "import FILE",
		Short: "Import an export into an empty ledger and fold its projections",
		Args:  cobra.ExactArgs(1),
		RunE: g.runLedger(false, func(ctx context.Context, led *ledger.Ledger, args []string) (any, bool, error) {
			replayGC()
			file, err := absPath("ledger_import", "/file", args[0])
			if err != nil {
				return nil, false, err
			}
			f, err := os.Open(file)
			if err != nil {
				return nil, false, err
			}
			defer f.Close()
			m, err := led.Import(ctx, bufio.NewReaderSize(f, 1<<20), projections.All())
			if err != nil {
				return nil, false, err
			}
			digest, err := led.ProjectionDigest(ctx, projections.All())
			return map[string]any{"manifest": m, "projection_digest": digest}, true, err
		}),
	}

	rebuild := &cobra.Command{
		Use:   "rebuild",
		Short: "Drop every projection and fold all events again; prints the digest before and after",
		RunE: g.runLedger(false, func(ctx context.Context, led *ledger.Ledger, _ []string) (any, bool, error) {
			replayGC()
			before, err := led.ProjectionDigest(ctx, projections.All())
			if err != nil {
				return nil, false, err
			}
			if err := led.Rebuild(ctx, projections.All()); err != nil {
				return nil, false, err
			}
			after, err := led.ProjectionDigest(ctx, projections.All())
			return map[string]any{"before": before, "after": after, "matches": before == after}, before == after, err
		}),
	}

	stats := &cobra.Command{
		Use:   "stats",
		Short: "Print ledger facts: id, schema version, head, counts by event type",
		// An empty ledger — a PostgreSQL database no REA process has
		// written to yet included — has stats too: no events (StatsAt).
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := g.resolveLedgerPath()
			if err != nil {
				return failWith(cmd, true, err)
			}
			s, err := ledger.StatsAt(cmd.Context(), path)
			if err != nil {
				return failWith(cmd, true, err)
			}
			return printJSON(cmd.OutOrStdout(), s)
		},
	}
	var tailFrom int64
	var tailJSON bool
	tail := &cobra.Command{
		Use:   "tail [--from SEQ] [--json]",
		Short: "Follow events as they commit, checking each chain link; exits 1 at the first broken link",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.tailLedger(cmd, tailFrom, tailJSON)
		},
	}
	tail.Flags().Int64Var(&tailFrom, "from", 0, "first seq to print (default: the next event to commit)")
	tail.Flags().BoolVar(&tailJSON, "json", false, "print export event lines (JSON Lines) instead of a readable line per event")
	l.AddCommand(export, verify, imp, rebuild, stats, tail)
	return l
}

// replayGCPercent is the GOGC of the commands that read a whole ledger
// (rebuild, import, verify).
// A replay keeps a small live heap (one fold batch) while it allocates a few
// short-lived values per event, so collecting less often buys about a third
// more throughput for a few extra MiB (BENCHMARKS.md).
const replayGCPercent = 400

// replayGC sets the collector for a process that replays and then exits.
func replayGC() { debug.SetGCPercent(replayGCPercent) }

// writeNewFile creates path (0600, must not exist), lets write fill it through
// a buffer, syncs it, and removes it again on any failure.
func writeNewFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

func verifyExportFile(ctx context.Context, path, previous string) (ledger.VerifyReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return ledger.VerifyReport{}, err
	}
	defer f.Close()
	if previous == "" {
		return ledger.VerifyExport(ctx, bufio.NewReader(f), nil)
	}
	prev, err := os.Open(previous)
	if err != nil {
		return ledger.VerifyReport{}, err
	}
	defer prev.Close()
	return ledger.VerifyExport(ctx, bufio.NewReader(f), bufio.NewReader(prev))
}

// tailLedger is `rea ledger tail` (CONTRACTS.md §17): every committed event
// from --from on (default: what commits after it starts), as an export
// event line with --json, until interrupted. It appends nothing.
func (g *globals) tailLedger(cmd *cobra.Command, from int64, asJSON bool) error {
	ctx := cmd.Context()
	path, err := g.resolveLedgerPath()
	if err != nil {
		return failWith(cmd, asJSON, err)
	}
	led, err := ledger.OpenReadOnly(ctx, path)
	if err != nil {
		return failWith(cmd, asJSON, err)
	}
	defer led.Close()
	if from <= 0 {
		head, _, err := led.Head(ctx)
		if err != nil {
			return failWith(cmd, asJSON, err)
		}
		from = head + 1
	}
	w := bufio.NewWriter(cmd.OutOrStdout())
	var line []byte
	err = led.Tail(ctx, from, func(e ledger.Event) error {
		if asJSON {
			line = ledger.AppendEventLine(line[:0], e)
		} else {
			line = fmt.Appendf(line[:0], "%d\t%s\t%s\t%s v%d\t%s\n", e.Seq, ledger.FormatTime(e.RecordedAt), e.Type, e.Stream, e.StreamVersion, e.Hash)
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
		return w.Flush() // each event as it commits
	})
	if err != nil {
		w.Flush()
		return failWith(cmd, asJSON, err)
	}
	return w.Flush()
}
