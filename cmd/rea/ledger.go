package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// The ledger commands load no policy and append nothing (CONTRACTS.md §13.2).
func newLedgerCommand(g *globals) *cobra.Command {
	l := &cobra.Command{Use: "ledger", Short: "Audit the evidence ledger: export, verify, import, rebuild, stats"}

	var from, to int64
	var out string
	export := &cobra.Command{
		Use:   "export -o FILE",
		Short: "Export events (JSON Lines: manifest, events, blobs)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			led, err := g.openLedger(ctx)
			if err != nil {
				return failWith(cmd, true, err)
			}
			defer led.Close()
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return failWith(cmd, true, fmt.Errorf("export: %w", err))
			}
			w := bufio.NewWriterSize(f, 1<<20)
			m, err := led.Export(ctx, w, from, to, version)
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
				os.Remove(out)
				return failWith(cmd, true, err)
			}
			return printJSON(cmd.OutOrStdout(), m)
		},
	}
	export.Flags().StringVarP(&out, "output", "o", "", "file to create (0600; must not exist)")
	export.Flags().Int64Var(&from, "from", 0, "first seq (default 1)")
	export.Flags().Int64Var(&to, "to", 0, "last seq (default head)")
	export.MarkFlagRequired("output")

	var previous string
	verify := &cobra.Command{
		Use:   "verify [FILE]",
		Short: "Verify the live ledger, or an export file, and report the first bad seq",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var rep ledger.VerifyReport
			var err error
			if len(args) == 1 {
				rep, err = verifyExportFile(cmd, args[0], previous)
			} else {
				path, perr := g.resolveLedgerPath()
				if perr != nil {
					return failWith(cmd, true, perr)
				}
				led, oerr := ledger.OpenReadOnly(ctx, path)
				if oerr != nil {
					return failWith(cmd, true, oerr)
				}
				defer led.Close()
				rep, err = led.Verify(ctx)
			}
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
	verify.Flags().StringVar(&previous, "previous", "", "an earlier export of the same ledger; checks append-only prefix")

	imp := &cobra.Command{
		Use:   "import FILE",
		Short: "Import an export into an empty ledger and fold its projections",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			led, err := g.openLedger(ctx)
			if err != nil {
				return failWith(cmd, true, err)
			}
			defer led.Close()
			f, err := os.Open(args[0])
			if err != nil {
				return failWith(cmd, true, err)
			}
			defer f.Close()
			m, err := led.Import(ctx, bufio.NewReaderSize(f, 1<<20), projections.All())
			if err != nil {
				return failWith(cmd, true, err)
			}
			digest, err := led.ProjectionDigest(ctx, projections.All())
			if err != nil {
				return failWith(cmd, true, err)
			}
			return printJSON(cmd.OutOrStdout(), map[string]any{"manifest": m, "projection_digest": digest})
		},
	}

	rebuild := &cobra.Command{
		Use:   "rebuild",
		Short: "Drop every projection and fold all events again; prints the digest before and after",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			led, err := g.openLedger(ctx)
			if err != nil {
				return failWith(cmd, true, err)
			}
			defer led.Close()
			before, err := led.ProjectionDigest(ctx, projections.All())
			if err != nil {
				return failWith(cmd, true, err)
			}
			if err := led.Rebuild(ctx, projections.All()); err != nil {
				return failWith(cmd, true, err)
			}
			after, err := led.ProjectionDigest(ctx, projections.All())
			if err != nil {
				return failWith(cmd, true, err)
			}
			printJSON(cmd.OutOrStdout(), map[string]any{"before": before, "after": after, "matches": before == after})
			if before != after {
				return exitError{1}
			}
			return nil
		},
	}

	stats := &cobra.Command{
		Use:   "stats",
		Short: "Print ledger facts: id, schema version, head, counts by event type",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			path, err := g.resolveLedgerPath()
			if err != nil {
				return failWith(cmd, true, err)
			}
			led, err := ledger.OpenReadOnly(ctx, path)
			if err != nil {
				return failWith(cmd, true, err)
			}
			defer led.Close()
			s, err := led.Stats(ctx)
			if err != nil {
				return failWith(cmd, true, err)
			}
			return printJSON(cmd.OutOrStdout(), s)
		},
	}
	l.AddCommand(export, verify, imp, rebuild, stats)
	return l
}

func verifyExportFile(cmd *cobra.Command, path, previous string) (ledger.VerifyReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return ledger.VerifyReport{}, err
	}
	defer f.Close()
	var prev *os.File
	if previous != "" {
		if prev, err = os.Open(previous); err != nil {
			return ledger.VerifyReport{}, err
		}
		defer prev.Close()
	}
	if prev == nil {
		return ledger.VerifyExport(cmd.Context(), bufio.NewReader(f), nil)
	}
	return ledger.VerifyExport(cmd.Context(), bufio.NewReader(f), bufio.NewReader(prev))
}
