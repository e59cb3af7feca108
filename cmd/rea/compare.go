package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/compare"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/tools"
)

// comparisonReport is what `rea compare` prints: the first page's frame
// (targets, summary, comparison id, limitations) and every procedure the
// status filter selects, gathered page by page from the stored result, with
// the Evidence id of each page.
type comparisonReport struct {
	Left         compare.AnswerSide `json:"left"`
	Right        compare.AnswerSide `json:"right"`
	LeftPath     string             `json:"left_path"`
	RightPath    string             `json:"right_path"`
	Summary      compare.Summary    `json:"summary"`
	ComparisonID string             `json:"comparison_id"`
	Status       []string           `json:"status"`
	Procedures   []json.RawMessage  `json:"procedures"`
	Limitations  []string           `json:"limitations"`
	EvidenceIDs  []string           `json:"evidence_ids"`
}

func newCompareCommand(g *globals) *cobra.Command {
	var asJSON bool
	var status string
	c := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare the procedures of two binaries on the embedded defaults and print what changed",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var paths [2]string
			for i, a := range args {
				p, err := absPath("open_binary", "/path", a)
				if err != nil {
					return failWith(cmd, asJSON, err)
				}
				paths[i] = p
			}
			statuses := []string{}
			for _, s := range strings.Split(status, ",") {
				if s = strings.TrimSpace(s); s != "" {
					statuses = append(statuses, s)
				}
			}
			eng, closeLedger, err := g.openEngine(ctx)
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			defer closeLedger()
			rep, clearLine := terminalProgress(cmd.ErrOrStderr())
			report, err := compareFiles(ctx, eng, paths, statuses, rep, func(s engine.ComparisonStart) {
				clearLine()
				logStart(cmd.ErrOrStderr(), s)
			})
			clearLine()
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), report)
			}
			printComparison(cmd.OutOrStdout(), report)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	c.Flags().StringVar(&status, "status", "changed,added,removed", "statuses to list, comma-separated (unchanged, changed, added, removed, unknown)")
	return c
}

// logStart says on stderr where the comparison started: a run interrupted
// before (Ctrl-C) resumes from its last checkpoint.
func logStart(w io.Writer, s engine.ComparisonStart) {
	switch {
	case s.Stored:
		fmt.Fprintf(w, "rea: comparison %s: served from its stored result\n", s.ComparisonID)
	case s.Phase != "":
		of := ""
		if s.Total != nil {
			of = fmt.Sprintf(" of %d", *s.Total)
		}
		fmt.Fprintf(w, "rea: comparison %s: resuming from the checkpoint in phase %s (%d%s procedures done)\n",
			s.ComparisonID, s.Phase, s.Completed, of)
	default:
		fmt.Fprintf(w, "rea: comparison %s: starting (no checkpoint)\n", s.ComparisonID)
	}
}

// compareFiles opens both files on one CLI connection and pages the
// comparison through compare_binaries: the first page computes (or
// resumes, or reads the stored result), the others read the stored result.
func compareFiles(ctx context.Context, eng *engine.Engine, paths [2]string, statuses []string, rep progress.Reporter, from func(engine.ComparisonStart)) (comparisonReport, error) {
	conn, err := eng.OpenConnection(ctx, session.Info{Transport: "cli"})
	if err != nil {
		return comparisonReport{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx), "client_closed")
	var ids [2]string
	for i, p := range paths {
		opened, err := conn.OpenBinary(ctx, p, provider.Auto, rep)
		if err != nil {
			return comparisonReport{}, err
		}
		ids[i] = opened.TargetID
	}
	spec, _ := tools.Lookup(compare.Operation)
	report := comparisonReport{LeftPath: paths[0], RightPath: paths[1], Status: statuses, Procedures: []json.RawMessage{}, EvidenceIDs: []string{}}
	for offset := 0; ; {
		args, err := json.Marshal(map[string]any{"left_target": ids[0], "right_target": ids[1], "status": statuses,
			"offset": offset, "limit": compare.MaxLimit})
		if err != nil {
			return report, err
		}
		params, err := spec.Decode(args)
		if err != nil {
			return report, err
		}
		pub, err := conn.CompareBinaries(ctx, params, rep, from)
		if err != nil {
			return report, err
		}
		from = nil // later pages are served from the stored result
		var page struct {
			compare.Answer
			Procedures struct {
				Items      []json.RawMessage `json:"items"`
				NextOffset *int              `json:"next_offset"`
			} `json:"procedures"`
		}
		if err := json.Unmarshal(pub.Result, &page); err != nil {
			return report, err
		}
		report.Left, report.Right, report.Summary = page.Left, page.Right, page.Summary
		report.ComparisonID, report.Limitations = page.ComparisonID, page.Limitations
		report.Procedures = append(report.Procedures, page.Procedures.Items...)
		report.EvidenceIDs = append(report.EvidenceIDs, pub.Evidence.EvidenceID)
		if page.Procedures.NextOffset == nil {
			return report, nil
		}
		offset = *page.Procedures.NextOffset
	}
}

func printComparison(w io.Writer, r comparisonReport) {
	fmt.Fprintf(w, "old         %s\n            sha256 %s\nnew         %s\n            sha256 %s\ncomparison  %s\n",
		termText(r.LeftPath), r.Left.SHA256, termText(r.RightPath), r.Right.SHA256, r.ComparisonID)
	s := r.Summary
	fmt.Fprintf(w, "summary     %d unchanged, %d changed, %d added, %d removed, %d unknown (matched by name %d, structure %d, call graph %d)\n",
		s.Unchanged, s.Changed, s.Added, s.Removed, s.Unknown, s.MatchedBy.Name, s.MatchedBy.Structure, s.MatchedBy.CallGraph)
	side := func(p *compare.ProcRef) string {
		if p == nil {
			return "-"
		}
		return termText(p.Address) + " " + termText(p.Name) // names are the sample's symbols
	}
	for _, raw := range r.Procedures {
		var it compare.Item
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		line := fmt.Sprintf("%-9s %s", termText(it.Status), side(it.Left))
		if it.Left == nil || it.Right == nil || it.Left.Name != it.Right.Name || it.Left.Address != it.Right.Address {
			line += "  ->  " + side(it.Right)
		}
		if it.Similarity != nil {
			line += fmt.Sprintf("  similarity %.2f", *it.Similarity)
		}
		if it.ChangedBlocks != nil {
			line += fmt.Sprintf("  changed blocks %d", *it.ChangedBlocks)
		}
		if it.Match != nil {
			line += "  (" + termText(*it.Match) + ")"
		}
		fmt.Fprintln(w, line)
		if it.Delta != nil {
			fmt.Fprintln(w, "          "+deltaText(it.Delta))
		}
	}
	for _, l := range r.Limitations {
		fmt.Fprintln(w, "limitation  "+termText(l))
	}
	fmt.Fprintf(w, "evidence    %s\n", strings.Join(r.EvidenceIDs, " "))
}

// deltaText is a changed item's delta on one line: "blocks +added
// -removed ~changed", then the calls and strings added (+) and removed (-)
// and the count of changed constants, each only when there are some.
func deltaText(d *compare.Delta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "blocks +%d -%d ~%d", d.BlocksAdded, d.BlocksRemoved, d.BlocksChanged)
	list := func(label string, added, removed []string, quote bool) {
		if len(added)+len(removed) == 0 {
			return
		}
		b.WriteString("  " + label)
		for i, l := range [][]string{added, removed} {
			for _, v := range l {
				if quote {
					v = strconv.Quote(v)
				}
				b.WriteString(" " + "+-"[i:i+1] + termText(v)) // names and strings are the sample's
			}
		}
	}
	list("calls", d.CallsAdded, d.CallsRemoved, false)
	list("strings", d.StringsAdded, d.StringsRemoved, true)
	if d.ConstantsChanged > 0 {
		fmt.Fprintf(&b, "  constants %d", d.ConstantsChanged)
	}
	return b.String()
}
