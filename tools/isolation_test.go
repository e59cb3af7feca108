package tools_test

import (
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// TestTargetIsolation is issue 14's isolation acceptance: two targets on
// one connection, gdb bound to one and builtin to the other. Killing the
// gdb process marks only that target's operations unavailable (a
// list_changed is sent), the builtin target keeps answering, and the gdb
// binding is not replaced.
func TestTargetIsolation(t *testing.T) {
	testkit.Need(t, "gdb")
	dir := t.TempDir()
	progs := distinctFixtures(t, dir, 2)
	s := startStdio(t, filepath.Join(dir, "l.db"), "REA_GDB_ENABLED=true")
	viaGDB := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": progs[0], "provider_id": "gdb"}).Structured).Result.TargetID
	viaBuiltin := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": progs[1], "provider_id": "builtin"}).Structured).Result.TargetID
	s.ok("list_procedures", map[string]any{"target": viaGDB})
	s.ok("list_procedures", map[string]any{"target": viaBuiltin})

	var full struct {
		Result struct {
			Targets []struct {
				TargetID string `json:"target_id"`
				Binding  struct {
					Provider struct{ ID string } `json:"provider"`
				} `json:"analysis_provider_binding"`
				Run struct {
					Lineage lineageView `json:"process_lineage"`
				} `json:"analysis_run"`
			} `json:"targets"`
			Availability []struct {
				Name         string   `json:"name"`
				Available    bool     `json:"available"`
				AvailableFor []string `json:"available_for"`
			} `json:"tool_availability"`
		} `json:"result"`
	}
	session := func() {
		t.Helper()
		if err := json.Unmarshal(s.ok("binary_session", map[string]any{"detail": "full"}).Structured, &full); err != nil {
			t.Fatal(err)
		}
	}
	session()
	if len(full.Result.Targets) != 2 || full.Result.Targets[0].TargetID != viaGDB || full.Result.Targets[0].Binding.Provider.ID != "gdb" ||
		full.Result.Targets[1].Binding.Provider.ID != "builtin" {
		t.Fatalf("targets %+v", full.Result.Targets)
	}
	lin := full.Result.Targets[0].Run.Lineage
	if lin.Status != "snapshots" || len(lin.Snapshots) != 1 || lin.Snapshots[0].Observation.Status != "verified" {
		t.Fatalf("gdb lineage %+v", lin)
	}
	if l := full.Result.Targets[1].Run.Lineage; l.Status != "not_observed" {
		t.Fatalf("builtin target lineage %+v", l)
	}

	drainChanged(s)
	if err := syscall.Kill(lin.Snapshots[0].Observation.LauncherPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.waitChanged()

	// The gdb target's calls fail typed; the builtin target answers.
	e := s.errorOf("list_procedures", map[string]any{"target": viaGDB})
	if e["code"] != "provider_unavailable" {
		t.Fatalf("gdb target after its provider died: %v", e)
	}
	s.ok("list_procedures", map[string]any{"target": viaBuiltin})
	s.ok("list_procedures", map[string]any{}) // the active target is the builtin one

	session()
	if full.Result.Targets[0].Binding.Provider.ID != "gdb" {
		t.Fatalf("gdb binding replaced: %+v", full.Result.Targets[0])
	}
	if o := full.Result.Targets[0].Run.Lineage.Snapshots[0].Observation; o.Status != "unavailable" {
		t.Fatalf("gdb observation after its death: %+v", o)
	}
	for _, a := range full.Result.Availability {
		if a.Name == "list_procedures" {
			if !a.Available || len(a.AvailableFor) != 1 || a.AvailableFor[0] != viaBuiltin {
				t.Fatalf("list_procedures availability %+v, want available for %s only", a, viaBuiltin)
			}
		}
	}
	// The tool stays listed: another open target can serve it (§15.2).
	if names := s.toolNames(); !names["list_procedures"] {
		t.Fatal("list_procedures unlisted while the builtin target can serve it")
	}
}
