package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/tools"
)

// overview is what `rea analyze` prints.
type overview struct {
	Target      session.OpenResult `json:"target"`
	Profile     *string            `json:"analysis_profile_digest"`
	Counts      map[string]int     `json:"counts"`
	EvidenceIDs map[string]string  `json:"evidence_ids"`
	// Limitations are those of the counted operations' Evidence, each once in
	// order of first appearance: what the counts may lack (a discovery
	// source not read, bytes not scanned), so no count reads as complete
	// when it is not.
	Limitations []string `json:"limitations"`
	// Triage is the binary_triage answer (identity, toolchain, hardening,
	// loading, anomalies), Evidence of its own; absent when the provider
	// does not offer it.
	Triage json.RawMessage `json:"triage,omitempty"`
}

// countedOperations are the collections an overview counts, each one recorded
// as Evidence of its own.
var countedOperations = []string{"list_segments", "list_procedures", "list_names", "list_strings"}

func newAnalyzeCommand(g *globals) *cobra.Command {
	var asJSON, all bool
	var providerID string
	c := &cobra.Command{
		Use:   "analyze PATH",
		Short: "Open a binary on the embedded defaults and print an Evidence-backed overview",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var selector provider.Selector
			if providerID != "" {
				sel, ok := provider.ParseSelector(providerID)
				if !ok {
					return failWith(cmd, asJSON, fault.Invalid("open_binary", fault.Issue{Path: "/provider_id", Reason: "invalid_format"}))
				}
				selector = sel
			}
			path, err := absPath("open_binary", "/path", args[0])
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			eng, closeLedger, err := g.openEngine(ctx)
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			defer closeLedger()
			rep, clearLine := terminalProgress(cmd.ErrOrStderr())
			ov, err := analyze(ctx, eng, path, selector, rep)
			clearLine()
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), ov)
			}
			printOverview(cmd.OutOrStdout(), ov, all)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	c.Flags().BoolVar(&all, "all", false, "list every Go dependency (the report collapses them beyond 20)")
	c.Flags().StringVar(&providerID, "provider", "", "provider id or auto (default $REA_ANALYSIS_PROVIDER or auto)")
	return c
}

func analyze(ctx context.Context, eng *engine.Engine, path string, selector provider.Selector, rep progress.Reporter) (overview, error) {
	conn, err := eng.OpenConnection(ctx, session.Info{Transport: "cli"})
	if err != nil {
		return overview{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx), "client_closed")
	opened, err := conn.OpenBinary(ctx, path, selector, rep)
	if err != nil {
		return overview{}, err
	}
	ov := overview{Target: opened, Counts: map[string]int{}, EvidenceIDs: map[string]string{}, Limitations: []string{}}
	st := conn.State()
	if st.Binding == nil {
		return ov, nil
	}
	ov.Profile = &st.Binding.Profile.Digest
	for _, op := range countedOperations {
		spec, _ := tools.Lookup(op)
		args := `{"limit":1}`
		if op == "list_segments" {
			args = `{}`
		}
		params, err := spec.Decode(json.RawMessage(args))
		if err != nil {
			return ov, err
		}
		pub, err := conn.Operate(ctx, "", op, params, rep)
		var fe *fault.Error
		if errors.As(err, &fe) && fe.Code == fault.CapabilityUnavailable {
			// A provider without this collection (gdb has no string scan):
			// the count is absent and said so, and the rest still runs.
			ov.Limitations = append(ov.Limitations, op[len("list_"):]+": the bound provider does not offer "+op)
			continue
		}
		if err != nil {
			return ov, err
		}
		ov.EvidenceIDs[op] = pub.Evidence.EvidenceID
		for _, l := range pub.Evidence.Limitations {
			if !slices.Contains(ov.Limitations, l) {
				ov.Limitations = append(ov.Limitations, l)
			}
		}
		var page struct {
			Total *int `json:"total"`
		}
		if op == "list_segments" {
			var segs []json.RawMessage
			json.Unmarshal(pub.Result, &segs)
			ov.Counts["segments"] = len(segs)
			continue
		}
		json.Unmarshal(pub.Result, &page)
		if page.Total != nil {
			ov.Counts[op[len("list_"):]] = *page.Total
		}
	}
	return ov, addTriage(ctx, conn, &ov, rep)
}

func printOverview(w io.Writer, ov overview, all bool) {
	t := ov.Target
	arch := "unknown"
	if t.Architecture != nil {
		arch = *t.Architecture
	}
	fmt.Fprintf(w, "path          %s\nformat        %s (%s)\narchitecture  %s\nsha256        %s\nsize          %d\nrun           %s\n",
		termText(t.Path), termText(t.Format), termText(t.Kind), termText(arch), t.SHA256, t.Size, t.RunID)
	if t.Binding == nil {
		fmt.Fprintln(w, "provider      none (the target opened unbound)")
		return
	}
	fmt.Fprintf(w, "provider      %s %s (%s)\nprofile       %s\n", termText(t.Binding.Provider.ID),
		termText(t.Binding.Provider.VersionString()), termText(t.Binding.SelectionSource), *ov.Profile)
	for _, op := range countedOperations {
		key := op[len("list_"):]
		if _, ok := ov.EvidenceIDs[op]; !ok {
			fmt.Fprintf(w, "%-13s %s\n", key, "not offered by the provider")
			continue
		}
		fmt.Fprintf(w, "%-13s %-9d %s\n", key, ov.Counts[key], ov.EvidenceIDs[op])
	}
	if ov.Triage != nil {
		printTriage(w, ov.Triage, ov.EvidenceIDs[triageOperation], all)
	}
	for _, l := range ov.Limitations {
		fmt.Fprintf(w, "limitation    %s\n", termText(l))
	}
}

// terminalProgress renders progress on w when w is a terminal, else nothing;
// clearLine erases the progress line before the result is printed.
func terminalProgress(w io.Writer) (rep progress.Reporter, clearLine func()) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return progress.Nop{}, func() {}
	}
	var mu sync.Mutex
	var last time.Time
	clearLine = func() {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprint(f, "\r\033[K")
	}
	return progress.Func(func(u progress.Update) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < 100*time.Millisecond && !u.Terminal {
			return
		}
		last = time.Now()
		if u.Total != nil && *u.Total > 0 {
			fmt.Fprintf(f, "\r\033[K%s: %3.0f%% %s", termText(u.Phase), 100*u.Completed / *u.Total, termText(u.Message))
		} else {
			fmt.Fprintf(f, "\r\033[K%s: %s", termText(u.Phase), termText(u.Message))
		}
	}), clearLine
}
