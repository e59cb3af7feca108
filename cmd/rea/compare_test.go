package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
)

// listed collects the procedure names `rea compare` prints for each status:
// "<status> <left address> <name>  ->  <right address> <name> …", "-" for
// a missing side.
func listed(out string) map[string][]string {
	line := regexp.MustCompile(`^(unchanged|changed|added|removed|unknown) +(?:-|0x[0-9a-f]+ (\S+))(?:  ->  (?:-|0x[0-9a-f]+ (\S+)))?`)
	got := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name := m[3]
		if name == "" {
			name = m[2]
		}
		got[m[1]] = append(got[m[1]], name)
	}
	for _, l := range got {
		slices.Sort(l)
	}
	return got
}

// TestCompareCLIFixture: `rea compare OLD NEW` on the ground-truth
// fixture prints the known edit list (x86-64 -O2 and arm64 -O0), --status
// narrows it, --json carries the same procedures, and the second run is
// served from the stored result.
func TestCompareCLIFixture(t *testing.T) {
	edits := testkit.CompareFixtureEdits(t)
	for _, build := range []struct{ arch, opt string }{{"x86_64", "-O2"}, {"arm64", "-O0"}} {
		t.Run(build.arch+build.opt, func(t *testing.T) {
			t.Parallel() // each build has its own directory and ledger
			oldPath, newPath := testkit.CompareFixture(t, build.arch, build.opt, false)
			dir := t.TempDir()
			r := reaIn(t, dir, "--ledger", "ledger.db", "compare", oldPath, newPath)
			if r.code != 0 {
				t.Fatalf("rea compare: exit %d\n%s", r.code, r.stderr)
			}
			got := listed(string(r.stdout))
			for status, want := range map[string][]string{"changed": edits.Changed, "added": edits.Added, "removed": edits.Removed} {
				if !slices.Equal(got[status], want) {
					t.Errorf("%s: printed %v, want %v\n%s", status, got[status], want, r.stdout)
				}
			}
			if len(got["unchanged"]) != 0 || !strings.Contains(string(r.stderr), "starting (no checkpoint)") {
				t.Errorf("default listing: %v; stderr %s", got, r.stderr)
			}
			// Each changed line is followed by its delta.
			if n := len(regexp.MustCompile(`(?m)^changed .*\n {10}blocks \+\d+ -\d+ ~\d+`).FindAll(r.stdout, -1)); n != len(edits.Changed) {
				t.Errorf("%d changed lines with a delta line, want %d:\n%s", n, len(edits.Changed), r.stdout)
			}
			if !regexp.MustCompile(`summary +\d+ unchanged, 6 changed, 3 added, 2 removed, 0 unknown`).Match(r.stdout) {
				t.Errorf("summary line:\n%s", r.stdout)
			}

			r = reaIn(t, dir, "--ledger", "ledger.db", "compare", "--status", "changed", oldPath, newPath)
			if got := listed(string(r.stdout)); r.code != 0 || len(got) != 1 || !slices.Equal(got["changed"], edits.Changed) {
				t.Errorf("--status changed: exit %d, %v", r.code, got)
			}
			if !strings.Contains(string(r.stderr), "served from its stored result") {
				t.Errorf("second run's stderr: %s", r.stderr)
			}

			r = reaIn(t, dir, "--ledger", "ledger.db", "compare", "--json", "--status", "added,removed", oldPath, newPath)
			var report struct {
				Procedures []struct {
					Status      string
					Left, Right *struct{ Name string }
				} `json:"procedures"`
				EvidenceIDs []string `json:"evidence_ids"`
			}
			if err := json.Unmarshal(r.stdout, &report); err != nil || r.code != 0 {
				t.Fatalf("--json: exit %d, %v\n%s", r.code, err, r.stdout)
			}
			var names []string
			for _, p := range report.Procedures {
				if p.Right != nil {
					names = append(names, p.Right.Name)
				} else {
					names = append(names, p.Left.Name)
				}
			}
			slices.Sort(names)
			want := slices.Sorted(slices.Values(append(slices.Clone(edits.Added), edits.Removed...)))
			if !slices.Equal(names, want) || len(report.EvidenceIDs) != 1 {
				t.Errorf("--json procedures %v (want %v), evidence %v", names, want, report.EvidenceIDs)
			}
		})
	}
}

// TestCompareCLICtrlC: SIGINT during the comparison of two large
// executables (testkit.CompareLargePair) ends `rea compare` with the
// cancelled status once a checkpoint is stored; the next run says on
// stderr from which phase it resumes and completes.
func TestCompareCLICtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compares two large executables (libgs, or Go's vet and fix) twice; tools.TestAnalyzeSIGINTCancels keeps a SIGINT in the quick loop")
	}
	left, right := testkit.CompareLargePair(t)
	dir := t.TempDir()
	ledgerPath := filepath.Join(dir, "ledger.db")
	cmd := exec.Command(testkit.Rea(t), "--ledger", ledgerPath, "compare", left, right)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGINT once the first checkpoint is in the ledger.
	deadline := time.Now().Add(60 * time.Second)
	var phase string
	for phase == "" {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no comparison_checkpoint within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
		if _, err := os.Stat(ledgerPath); err != nil {
			continue
		}
		phase = lastCheckpointPhase(t, ledgerPath)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 || !strings.Contains(stderr.String(), "rea: cancelled:") {
		t.Fatalf("rea compare after SIGINT: %v\nstderr %s", err, stderr.String())
	}
	if strings.Contains(stdout.String(), "summary") {
		t.Fatalf("a cancelled comparison printed a result:\n%s", stdout.String())
	}
	phase = lastCheckpointPhase(t, ledgerPath)
	t.Logf("cancelled; the last checkpoint is in phase %s", phase)

	r := reaIn(t, dir, "--ledger", ledgerPath, "compare", left, right)
	if r.code != 0 {
		t.Fatalf("second run: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(string(r.stderr), "resuming from the checkpoint in phase "+phase+" ") {
		t.Fatalf("second run's stderr does not say it resumes from phase %s:\n%s", phase, r.stderr)
	}
	if !strings.Contains(string(r.stdout), "summary ") {
		t.Fatalf("second run printed no summary:\n%s", r.stdout)
	}
}

// lastCheckpointPhase is the phase of the ledger's last comparison
// checkpoint ("" when there is none yet).
func lastCheckpointPhase(t *testing.T, ledgerPath string) string {
	t.Helper()
	led, err := ledger.OpenReadOnly(context.Background(), ledgerPath)
	if err != nil {
		return "" // not created completely yet
	}
	defer led.Close()
	var phase string
	if err := led.ReadDB().QueryRow(`SELECT coalesce(phase, '') FROM proj_comparisons ORDER BY checkpoint_seq DESC LIMIT 1`).Scan(&phase); err != nil {
		return ""
	}
	return phase
}

// TestCompareLedgerExportImport: `rea ledger export` of a ledger holding a
// completed comparison carries its result (and checkpoint states); the
// imported ledger verifies, and `rea compare` on it pages the stored
// result without computing it again.
func TestCompareLedgerExportImport(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O2", false)
	dir := t.TempDir()
	first := reaIn(t, dir, "--ledger", "a.db", "compare", oldPath, newPath)
	if first.code != 0 {
		t.Fatalf("rea compare: exit %d\n%s", first.code, first.stderr)
	}
	if r := reaIn(t, dir, "--ledger", "a.db", "ledger", "export", "-o", "a.jsonl"); r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	if r := reaIn(t, dir, "--ledger", "b.db", "ledger", "import", "a.jsonl"); r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	if r := reaIn(t, dir, "--ledger", "b.db", "ledger", "verify"); r.code != 0 {
		t.Fatalf("verify of the import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	second := reaIn(t, dir, "--ledger", "b.db", "compare", oldPath, newPath)
	if second.code != 0 || !strings.Contains(string(second.stderr), "served from its stored result") {
		t.Fatalf("rea compare on the imported ledger: exit %d\n%s", second.code, second.stderr)
	}
	if got, want := listed(string(second.stdout)), listed(string(first.stdout)); len(got) != 3 || !equalListings(got, want) {
		t.Fatalf("imported listing %v, original %v", got, want)
	}
	led, err := ledger.OpenReadOnly(context.Background(), filepath.Join(dir, "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	var completions, blobs int
	db := led.ReadDB()
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE type = 'comparison_completed'`).Scan(&completions); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM blobs WHERE sha256 IN (SELECT state_digest FROM proj_comparisons UNION SELECT result_digest FROM proj_comparisons)`).Scan(&blobs); err != nil {
		t.Fatal(err)
	}
	if completions != 1 || blobs != 2 {
		t.Fatalf("imported ledger after the second run: %d comparison_completed (want 1), %d of the state and result blobs (want 2)", completions, blobs)
	}
}

func equalListings(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
