package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/tools"
	"github.com/rea-re/rea/tools/catalog"
)

func newProvidersCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "providers",
		Short: "List analysis providers with their host availability (target-free; starts nothing)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := newRegistry()
			if err != nil {
				return err
			}
			eng := engine.New(engine.Config{Registry: reg, Version: version})
			cands := eng.Candidates(cmd.Context(), session.State{})
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"providers": cands})
			}
			for _, c := range cands {
				line := fmt.Sprintf("%-10s %-8s %s %s", c.Provider.ID, c.Provider.VersionString(), c.Availability.Status, c.Provider.Name)
				if c.Availability.Reason != nil {
					line += " — " + *c.Availability.Reason
				}
				fmt.Fprintln(cmd.OutOrStdout(), line)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

type capabilityEntry struct {
	Name        string              `json:"name"`
	Kind        string              `json:"kind"`
	Toolset     string              `json:"toolset"`
	Evidence    bool                `json:"evidence"`
	Effects     provider.Effects    `json:"effects"`
	Annotations catalog.Annotations `json:"annotations"`
	Providers   []string            `json:"providers"`
}

func newCapabilitiesCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "capabilities",
		Short: "List REA's tools and which providers declare each operation",
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := newRegistry()
			if err != nil {
				return err
			}
			declared := map[string][]string{}
			for _, p := range reg.Providers() {
				for _, capability := range p.Capabilities() {
					declared[capability.Operation] = append(declared[capability.Operation], p.Identity().ID)
				}
			}
			var out []capabilityEntry
			for _, s := range tools.Catalog() {
				ps := declared[s.Name]
				if ps == nil {
					ps = []string{}
				}
				out = append(out, capabilityEntry{Name: s.Name, Kind: s.Kind, Toolset: catalog.ToolsetOf(s.Name), Evidence: s.Evidence, Effects: s.Effects, Annotations: s.Annotations(), Providers: ps})
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"tools": out})
			}
			for _, e := range out {
				fmt.Fprintf(cmd.OutOrStdout(), "%-32s %-12s %-15s %v\n", e.Name, e.Kind, e.Toolset, e.Providers)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

func newEvidenceCommand(g *globals) *cobra.Command {
	ev := &cobra.Command{Use: "evidence", Short: "Read retained Evidence"}
	var runID, out string
	bundle := &cobra.Command{
		Use:   "bundle",
		Short: "Write the canonical Evidence bundle of the ledger (optionally one run)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			eng, closeLedger, err := g.openEngine(ctx)
			if err != nil {
				return failWith(cmd, true, err)
			}
			defer closeLedger()
			res, err := eng.EvidenceBundle(ctx, "", engine.BundleRequest{Scope: "ledger", RunID: runID})
			if err != nil {
				return failWith(cmd, true, err)
			}
			if out == "" {
				_, err := cmd.OutOrStdout().Write(append(res.Bundle, '\n'))
				return err
			}
			if err := writeNewFile(out, func(w io.Writer) error { _, err := w.Write(res.Bundle); return err }); err != nil {
				return failWith(cmd, true, err)
			}
			return printJSON(cmd.OutOrStdout(), map[string]any{"path": out, "bytes": res.Bytes, "records": res.RecordCount, "bundle_digest": res.BundleDigest})
		},
	}
	bundle.Flags().StringVar(&runID, "run", "", "only records of this run id")
	bundle.Flags().VarP(pathValue{&out}, "output", "o", "write to FILE (0600; must not exist) instead of stdout")
	ev.AddCommand(bundle)
	return ev
}
