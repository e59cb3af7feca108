package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// Issue 4 through a real `rea mcp`: gdb is a second candidate, selection
// follows CONTRACTS.md §5.2, and gdb's process is observed and its death
// becomes a health transition.

type candidateView struct {
	Provider     struct{ ID string } `json:"provider"`
	Availability struct {
		Status string  `json:"status"`
		Code   *string `json:"code"`
		Reason *string `json:"reason"`
	} `json:"availability"`
}

func candidatesOf(t *testing.T, s *session) []candidateView {
	t.Helper()
	var full struct {
		Result struct {
			Candidates []candidateView `json:"analysis_provider_candidates"`
		} `json:"result"`
	}
	if err := json.Unmarshal(s.ok("binary_session", map[string]any{"detail": "full"}).Structured, &full); err != nil {
		t.Fatal(err)
	}
	return full.Result.Candidates
}

type openView struct {
	Result struct {
		Binding *struct {
			Provider struct {
				ID      string  `json:"id"`
				Version *string `json:"version"`
			} `json:"provider"`
			Source string `json:"selection_source"`
		} `json:"binding"`
	} `json:"result"`
}

func openWith(t *testing.T, s *session, args map[string]any) openView {
	t.Helper()
	return decode[openView](t, s.ok("open_binary", args).Structured)
}

func TestGDBSelection(t *testing.T) {
	testkit.Need(t, "gdb")
	dir := t.TempDir()
	bin := compileFixture(t, dir)

	t.Run("disabled", func(t *testing.T) {
		s := startStdio(t, filepath.Join(t.TempDir(), "l.db"), "REA_GDB_ENABLED=")
		cands := candidatesOf(t, s)
		if len(cands) != 2 || cands[0].Provider.ID != "builtin" || cands[1].Provider.ID != "gdb" {
			t.Fatalf("candidates %+v", cands)
		}
		g := cands[1].Availability
		if g.Status != "unavailable" || g.Code == nil || *g.Code != "not_configured" || g.Reason == nil || *g.Reason == "" {
			t.Fatalf("gdb availability %+v", g)
		}
		o := openWith(t, s, map[string]any{"path": bin})
		if o.Result.Binding == nil || o.Result.Binding.Provider.ID != "builtin" || o.Result.Binding.Source != "auto-single-candidate" {
			t.Fatalf("auto binding %+v", o.Result.Binding)
		}
	})

	t.Run("enabled", func(t *testing.T) {
		s := startStdio(t, filepath.Join(t.TempDir(), "l.db"), "REA_GDB_ENABLED=true")
		for _, c := range candidatesOf(t, s) {
			if c.Availability.Status != "available" {
				t.Fatalf("candidate %s %+v", c.Provider.ID, c.Availability)
			}
		}
		e := s.errorOf("open_binary", map[string]any{"path": bin})
		d := e["details"].(map[string]any)
		if e["code"] != "capability_unavailable" || d["selection_reason"] != "ambiguous" || d["requested_provider_id"] != "auto" ||
			!jsonEqual(mustJSON(t, d["candidate_ids"]), `["builtin","gdb"]`) {
			t.Fatalf("auto with two usable candidates: %v", e)
		}
		o := openWith(t, s, map[string]any{"path": bin, "provider_id": "gdb"})
		b := o.Result.Binding
		if b == nil || b.Provider.ID != "gdb" || b.Provider.Version == nil || *b.Provider.Version == "" || b.Source != "request" {
			t.Fatalf("gdb binding %+v", b)
		}
	})

	t.Run("environment", func(t *testing.T) {
		s := startStdio(t, filepath.Join(t.TempDir(), "l.db"), "REA_GDB_ENABLED=true", "REA_ANALYSIS_PROVIDER=gdb")
		if b := openWith(t, s, map[string]any{"path": bin}).Result.Binding; b == nil || b.Provider.ID != "gdb" || b.Source != "environment" {
			t.Fatalf("environment binding %+v", b)
		}
		if b := openWith(t, s, map[string]any{"path": bin, "provider_id": "builtin"}).Result.Binding; b == nil || b.Provider.ID != "builtin" || b.Source != "request" {
			t.Fatalf("a request must beat the environment: %+v", b)
		}
	})

	t.Run("missing executable", func(t *testing.T) {
		s := startStdio(t, filepath.Join(t.TempDir(), "l.db"), "REA_GDB_ENABLED=true", "REA_GDB_PATH=", "PATH="+t.TempDir())
		g := candidatesOf(t, s)[1].Availability
		if g.Code == nil || *g.Code != "executable_missing" {
			t.Fatalf("gdb availability without gdb: %+v", g)
		}
		e := s.errorOf("open_binary", map[string]any{"path": bin, "provider_id": "gdb"})
		if e["code"] != "provider_unavailable" {
			t.Fatalf("provider_id gdb without gdb: %v", e)
		}
	})
}

type lineageView struct {
	Status    string `json:"status"`
	Snapshots []struct {
		Provider    struct{ ID string } `json:"provider"`
		Observation struct {
			Status            string `json:"status"`
			LauncherPID       int    `json:"launcher_pid"`
			LauncherParentPID int    `json:"launcher_parent_pid"`
			ProcessGroupID    int    `json:"process_group_id"`
			Reason            string `json:"reason"`
		} `json:"observation"`
	} `json:"snapshots"`
}

func fullLineage(t *testing.T, s *session) (lineageView, string) {
	t.Helper()
	var full struct {
		Result struct {
			Run struct {
				Lineage lineageView `json:"process_lineage"`
			} `json:"analysis_run"`
			Binding struct {
				Provider struct{ ID string } `json:"provider"`
			} `json:"analysis_provider_binding"`
		} `json:"result"`
	}
	if err := json.Unmarshal(s.ok("binary_session", map[string]any{"detail": "full"}).Structured, &full); err != nil {
		t.Fatal(err)
	}
	return full.Result.Run.Lineage, full.Result.Binding.Provider.ID
}

// procStat returns the ppid and pgid of pid from /proc.
func procStat(t *testing.T, pid int) (ppid, pgid int) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ppid, _ = strconv.Atoi(f[1])
	pgid, _ = strconv.Atoi(f[2])
	return ppid, pgid
}

func TestGDBLineageAndDeath(t *testing.T) {
	testkit.Need(t, "gdb")
	bin := compileFixture(t, t.TempDir())
	s := startStdio(t, filepath.Join(t.TempDir(), "l.db"), "REA_GDB_ENABLED=true")
	openWith(t, s, map[string]any{"path": bin, "provider_id": "gdb"})
	s.ok("list_procedures", map[string]any{})

	lin, _ := fullLineage(t, s)
	if lin.Status != "snapshots" || len(lin.Snapshots) != 1 || lin.Snapshots[0].Provider.ID != "gdb" {
		t.Fatalf("lineage %+v", lin)
	}
	obs := lin.Snapshots[0].Observation
	if obs.Status != "verified" {
		t.Fatalf("observation %+v", obs)
	}
	ppid, pgid := procStat(t, obs.LauncherPID)
	if ppid != obs.LauncherParentPID || pgid != obs.ProcessGroupID || pgid != obs.LauncherPID {
		t.Fatalf("observation %+v, /proc says ppid %d pgid %d", obs, ppid, pgid)
	}
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(obs.LauncherPID) + "/comm")
	parent, _ := os.ReadFile("/proc/" + strconv.Itoa(ppid) + "/cmdline")
	if strings.TrimSpace(string(comm)) != "gdb" || !slices.Contains(strings.Split(string(parent), "\x00"), "mcp") {
		t.Fatalf("launcher %q, parent %q", comm, parent)
	}

	drainChanged(s)
	if err := syscall.Kill(obs.LauncherPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.waitChanged()
	lin, bound := fullLineage(t, s)
	if bound != "gdb" {
		t.Fatalf("binding after gdb died: %q", bound)
	}
	if o := lin.Snapshots[0].Observation; o.Status != "unavailable" || o.Reason == "" {
		t.Fatalf("observation after gdb died: %+v", o)
	}
	// This legacy-era client no longer sees gdb's operations (§4); a
	// 2026-07-28 client would get provider_unavailable from the call.
	if names := s.toolNames(); names["list_procedures"] || !names["binary_session"] {
		t.Fatalf("tools/list after gdb died still has list_procedures: %v", names)
	}
	var caps struct {
		Result struct {
			Availability []struct {
				Name   string `json:"name"`
				Reason string `json:"reason"`
			} `json:"tool_availability"`
		} `json:"result"`
	}
	json.Unmarshal(s.ok("binary_session", map[string]any{"detail": "full"}).Structured, &caps)
	found := false
	for _, a := range caps.Result.Availability {
		if a.Name == "list_procedures" {
			found = true
			if a.Reason != "provider_unavailable" {
				t.Fatalf("tool_availability of list_procedures: %+v", a)
			}
		}
	}
	if !found {
		t.Fatal("no tool_availability entry for list_procedures")
	}
	s.ok("close_binary", map[string]any{})
}

func drainChanged(s *session) {
	for {
		select {
		case <-s.notify:
		case <-time.After(200 * time.Millisecond):
			return
		}
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type sessionRun struct {
	Result struct {
		Run *struct {
			RunID string `json:"run_id"`
		} `json:"analysis_run"`
		Binding *struct {
			Provider struct{ ID string } `json:"provider"`
		} `json:"analysis_provider_binding"`
	} `json:"result"`
}

// TestReopenAndFailedSwitch: reopening the same target and profile keeps its
// run; a switch whose provider fails to start restores the previous binding
// under a fresh run, and answers with the start failure. The "gdb" here is a
// script that passes the startup probe (`--version`) and then fails.
func TestReopenAndFailedSwitch(t *testing.T) {
	bin := compileFixture(t, t.TempDir())
	fake := filepath.Join(t.TempDir(), "gdb")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'GNU gdb (fake) 13.1'; exit 0; fi\nexit 3\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := startStdio(t, filepath.Join(t.TempDir(), "l.db"), "REA_GDB_ENABLED=true", "REA_GDB_PATH="+fake)
	full := func() sessionRun {
		return decode[sessionRun](t, s.ok("binary_session", map[string]any{"detail": "full"}).Structured)
	}
	openWith(t, s, map[string]any{"path": bin, "provider_id": "builtin"})
	first := full().Result.Run.RunID
	openWith(t, s, map[string]any{"path": bin, "provider_id": "builtin"})
	if again := full().Result.Run.RunID; again != first || first == "" {
		t.Fatalf("reopening the same target and profile changed the run: %q then %q", first, again)
	}
	e := s.errorOf("open_binary", map[string]any{"path": bin, "provider_id": "gdb"})
	if e["code"] != "provider_unavailable" {
		t.Fatalf("switch to a gdb that cannot start: %v", e)
	}
	after := full().Result
	if after.Binding == nil || after.Binding.Provider.ID != "builtin" || after.Run == nil || after.Run.RunID == first {
		t.Fatalf("after the failed switch: binding %+v run %+v (previous run %s)", after.Binding, after.Run, first)
	}
}
