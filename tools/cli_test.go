package tools_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// TestAnalyzeSIGINTCancels: SIGINT reaches `rea analyze` as cancellation of
// the same context the hashing loop and providers receive.
func TestAnalyzeSIGINTCancels(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	if err := os.Truncate(fixture, 8<<30); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testkit.Rea(t), "--ledger", filepath.Join(dir, "ledger.db"), "analyze", "--json", fixture)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The ledger exists once rea has installed its signal handler and is
	// about to hash: a SIGINT before that would kill a process that has not
	// started, which tests nothing.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "ledger.db")); err == nil || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var env struct {
		Error struct{ Code string }
	}
	if jerr := json.Unmarshal([]byte(out.String()), &env); jerr != nil || env.Error.Code != "cancelled" {
		t.Fatalf("after SIGINT: %v, output %q", err, out.String())
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v", err)
	}
}

// TestAnalyzeOverview: the newcomer's command prints an Evidence-backed
// overview whose counts match the MCP answers.
func TestAnalyzeOverview(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	out, err := exec.Command(testkit.Rea(t), "--ledger", filepath.Join(dir, "ledger.db"), "analyze", "--json", fixture).Output()
	if err != nil {
		t.Fatal(err)
	}
	var ov struct {
		Target struct {
			Format, SHA256 string
			Binding        *struct{ Provider struct{ ID string } }
		}
		Profile     *string           `json:"analysis_profile_digest"`
		Counts      map[string]int    `json:"counts"`
		EvidenceIDs map[string]string `json:"evidence_ids"`
		Limitations []string          `json:"limitations"`
	}
	if err := json.Unmarshal(out, &ov); err != nil {
		t.Fatal(err)
	}
	if ov.Target.Format != "elf" || ov.Target.Binding == nil || ov.Target.Binding.Provider.ID != "builtin" || ov.Profile == nil {
		t.Fatalf("overview: %s", out)
	}
	for _, k := range []string{"segments", "procedures", "names", "strings"} {
		if ov.Counts[k] == 0 {
			t.Fatalf("count %s is zero: %s", k, out)
		}
	}
	// The four counts and the triage (issue 17), each its own Evidence.
	if len(ov.EvidenceIDs) != 5 || ov.EvidenceIDs["binary_triage"] == "" {
		t.Fatalf("evidence ids: %v", ov.EvidenceIDs)
	}
	// The same Evidence over MCP: the CLI and MCP normalize parameters alike.
	s := startStdio(t, filepath.Join(dir, "ledger.db"))
	s.ok("open_binary", map[string]any{"path": fixture})
	r := s.ok("list_procedures", map[string]any{"limit": 1})
	if claimed, _ := recomputeEvidenceID(t, s, r.Structured); claimed != ov.EvidenceIDs["list_procedures"] {
		t.Fatalf("MCP evidence %s, CLI %s", claimed, ov.EvidenceIDs["list_procedures"])
	}
	// The overview names every limitation of the Evidence behind its counts.
	if ov.Limitations == nil {
		t.Fatalf("overview without a limitations list: %s", out)
	}
	for _, l := range evidenceLimitations(t, r) {
		if !slices.Contains(ov.Limitations, l) {
			t.Errorf("overview limitations %q lack list_procedures' %q", ov.Limitations, l)
		}
	}
}
