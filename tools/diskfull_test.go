package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// A full disk under the ledger (CONTRACTS.md §0.3): a real `rea mcp` whose
// SQLite ledger is on a small tmpfs the test fills. Read-only tools that
// record Evidence cannot answer without it, so they fail with
// ledger_unavailable (category unavailable, retryable) naming the reason
// disk_full and the ledger's directory, never with execution_failure;
// after space is freed, the same calls succeed on the same connection and
// `rea ledger verify` passes.
func TestDiskFullLedgerUnavailable(t *testing.T) {
	fixture := compileFixture(t, t.TempDir())
	dir := testkit.SmallFilesystem(t, 8<<20)
	led := filepath.Join(dir, "ledger.db")
	s := startStdio(t, led)
	s.ok("open_binary", map[string]any{"path": fixture})

	// Each round asks for pages not seen before, so every answer is a new
	// Evidence record to append.
	calls := func(round int) []struct {
		name string
		args map[string]any
	} {
		return []struct {
			name string
			args map[string]any
		}{
			{"list_strings", map[string]any{"limit": 2, "offset": round % 6}},
			{"list_procedures", map[string]any{"limit": 1 + round%5}},
			{"binary_overview", map[string]any{"detail": []string{"concise", "detailed"}[round%2]}},
		}
	}
	for _, c := range calls(0) {
		s.ok(c.name, c.args)
	}

	filler := testkit.FillFilesystem(t, dir)
	type call struct {
		name string
		args map[string]any
	}
	var refused []call
	for round := 1; round <= 30 && len(refused) < 6; round++ {
		for _, c := range calls(round) {
			r := s.call(context.Background(), c.name, c.args)
			if !r.IsError {
				continue // the ledger's WAL still had room for it
			}
			var env struct {
				Error struct {
					Code, Category string
					Retryable      bool
					Remediation    struct{ Action string }
					Details        map[string]any
				}
			}
			if err := json.Unmarshal(r.Structured, &env); err != nil {
				t.Fatalf("%s: %s", c.name, r.Structured)
			}
			e := env.Error
			if e.Code != "ledger_unavailable" || e.Category != "unavailable" || !e.Retryable ||
				e.Details["reason"] != "disk_full" || e.Details["path"] != dir || e.Remediation.Action == "" {
				t.Fatalf("%s on a full disk: %s", c.name, r.Structured)
			}
			refused = append(refused, call{c.name, c.args})
		}
	}
	if len(refused) == 0 {
		t.Fatal("every call answered on a full disk: their Evidence cannot have been recorded")
	}

	// Space freed: the very calls that were refused now answer.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for _, c := range refused {
		s.ok(c.name, c.args)
	}
	out, err := exec.Command(testkit.Rea(t), "--ledger", led, "ledger", "verify").Output()
	var rep struct{ OK bool }
	if err != nil || json.Unmarshal(out, &rep) != nil || !rep.OK {
		t.Fatalf("ledger verify after the disk was full: %v %s", err, out)
	}
	t.Logf("%d calls refused with ledger_unavailable while the disk was full, each answered once space was freed", len(refused))
}
