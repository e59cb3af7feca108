package jsapp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestLookaheadIsExact: scanning files ahead on other goroutines gives the
// sequential result exactly, also when the AST node, findings, text file and
// text byte budgets stop the loop part-way (the scans done ahead then ran
// with larger budgets than the ones left at commit).
func TestLookaheadIsExact(t *testing.T) {
	root := t.TempDir()
	copyTree(t, fixtureDir, root)
	for name, src := range tricky {
		p := filepath.Join(root, "tricky", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeTree(t, filepath.Join(root, "must"), mustTree) // preloads parsed late
	root = realAbs(t, root)
	full, err := analyzeWith(context.Background(), Request{InputPath: root, Limits: DefaultLimits()}, nil, options{procs: 1})
	if err != nil {
		t.Fatal(err)
	}
	var variants []Limits
	for n := int64(0); n <= full.Statistics.VisitedASTNodes+1; n += 1 + full.Statistics.VisitedASTNodes/40 {
		l := DefaultLimits()
		l.MaxASTNodes = n
		variants = append(variants, l)
	}
	for n := int64(1); n <= full.Statistics.Findings+1; n++ {
		l := DefaultLimits()
		l.MaxFindings = n
		variants = append(variants, l)
	}
	for n := int64(1); n <= full.Statistics.TextFilesSelected; n++ {
		l := DefaultLimits()
		l.MaxTextFiles = n
		variants = append(variants, l)
	}
	for n := int64(0); n <= full.Statistics.TextBytesRead; n += 1 + full.Statistics.TextBytesRead/20 {
		l := DefaultLimits()
		l.MaxTotalTextBytes = n
		variants = append(variants, l)
	}
	for _, l := range variants {
		for _, parseAll := range []bool{false, true} {
			req := Request{InputPath: root, Limits: l}
			seq, err := analyzeWith(context.Background(), req, nil, options{procs: 1, parseAll: parseAll})
			if err != nil {
				t.Fatal(err)
			}
			for _, procs := range []int{2, 5} {
				par, err := analyzeWith(context.Background(), req, nil, options{procs: procs, parseAll: parseAll})
				if err != nil {
					t.Fatal(err)
				}
				diff(t, par, seq)
			}
		}
	}
	t.Logf("%d budget variants", len(variants))
}
