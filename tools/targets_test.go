package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

type openedTarget struct {
	Result struct {
		TargetID string `json:"target_id"`
		RunID    string `json:"run_id"`
		Path     string `json:"path"`
	} `json:"result"`
}

type sessionSummary struct {
	Result struct {
		Target *struct {
			Path string `json:"path"`
		} `json:"target"`
		Targets []struct {
			TargetID   string  `json:"target_id"`
			Active     bool    `json:"active"`
			Path       string  `json:"path"`
			ProviderID *string `json:"provider_id"`
			RunID      string  `json:"run_id"`
		} `json:"targets"`
	} `json:"result"`
}

// distinctFixtures builds n C programs whose bytes differ (a constant each).
func distinctFixtures(t *testing.T, dir string, n int) []string {
	t.Helper()
	out := make([]string, n)
	for i := range out {
		src := fmt.Sprintf("#include <stdio.h>\nint main(void) { printf(\"target %d\\n\"); return %d; }\n", i, i)
		out[i] = testkit.CompileC(t, dir, fmt.Sprintf("t%02d", i), src, "-O0")
	}
	return out
}

// TestTargetHandles: §15.1 on one connection — each open returns its own
// handle, reopening bytes returns the same handle and makes it active, the
// 17th open is truncated naming the limit, an unknown or closed handle is
// invalid_request at /target, and closing the active target makes the most
// recently activated remaining one active. Calls without target act on the
// active target; calls naming one act on it.
func TestTargetHandles(t *testing.T) {
	dir := t.TempDir()
	paths := distinctFixtures(t, dir, 17)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	ids := make([]string, 16)
	for i := range 16 {
		r := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": paths[i]}).Structured)
		if r.Result.TargetID == "" || len(r.Result.TargetID) < 5 || r.Result.TargetID[:4] != "tgt_" {
			t.Fatalf("open %d: target_id %q", i, r.Result.TargetID)
		}
		ids[i] = r.Result.TargetID
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("handle %s handed out twice", id)
		}
		seen[id] = true
	}
	e := s.errorOf("open_binary", map[string]any{"path": paths[16]})
	d, _ := e["details"].(map[string]any)
	if e["code"] != "truncated" || d["limit"] != "open_targets" || d["maximum"] != float64(16) || d["operation"] != "open_binary" {
		t.Fatalf("17th open: %v", e)
	}

	// Reopening the third target: same handle and run, now active.
	again := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": paths[2]}).Structured)
	if again.Result.TargetID != ids[2] {
		t.Fatalf("reopen gave %s, want %s", again.Result.TargetID, ids[2])
	}
	sum := decode[sessionSummary](t, s.ok("binary_session", map[string]any{}).Structured)
	if len(sum.Result.Targets) != 16 || sum.Result.Target == nil || sum.Result.Target.Path != again.Result.Path {
		t.Fatalf("summary after reopen: %d targets, active %+v", len(sum.Result.Targets), sum.Result.Target)
	}
	for i, tg := range sum.Result.Targets {
		if tg.TargetID != ids[i] || tg.Active != (i == 2) || tg.ProviderID == nil || *tg.ProviderID != "builtin" {
			t.Fatalf("targets[%d] = %+v (want %s, active %v)", i, tg, ids[i], i == 2)
		}
	}

	// A call without target acts on the active target; one naming another
	// target acts on that one (its document is its basename).
	docOf := func(args map[string]any) string {
		return decode[struct {
			Result string `json:"result"`
		}](t, s.ok("current_document", args).Structured).Result
	}
	if got := docOf(map[string]any{}); got != filepath.Base(paths[2]) {
		t.Fatalf("active document %q, want %q", got, filepath.Base(paths[2]))
	}
	if got := docOf(map[string]any{"target": ids[7]}); got != filepath.Base(paths[7]) {
		t.Fatalf("target %s document %q", ids[7], got)
	}

	// Unknown and closed handles.
	for _, bad := range []string{"tgt_01NOTOPEN", "x"} {
		e := s.errorOf("list_segments", map[string]any{"target": bad})
		if !invalidAt(e, "/target", "invalid_value") {
			t.Fatalf("target %q: %v", bad, e)
		}
	}
	closed := decode[struct {
		Result struct {
			Closed   bool   `json:"closed"`
			TargetID string `json:"target_id"`
		} `json:"result"`
	}](t, s.ok("close_binary", map[string]any{"target": ids[5]}).Structured)
	if !closed.Result.Closed || closed.Result.TargetID != ids[5] {
		t.Fatalf("close %s: %+v", ids[5], closed)
	}
	if e := s.errorOf("list_segments", map[string]any{"target": ids[5]}); !invalidAt(e, "/target", "invalid_value") {
		t.Fatalf("closed target: %v", e)
	}
	if e := s.errorOf("close_binary", map[string]any{"target": ids[5]}); !invalidAt(e, "/target", "invalid_value") {
		t.Fatalf("closing a closed target: %v", e)
	}

	// Activate 9 then 4; closing 4 (active, no target argument) makes 9 active.
	s.ok("open_binary", map[string]any{"path": paths[9]})
	s.ok("open_binary", map[string]any{"path": paths[4]})
	s.ok("close_binary", map[string]any{})
	if got := docOf(map[string]any{}); got != filepath.Base(paths[9]) {
		t.Fatalf("after closing the active target the active document is %q, want %q", got, filepath.Base(paths[9]))
	}
	// A slot is free again: the 17th program opens now.
	if r := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": paths[16]}).Structured); seen[r.Result.TargetID] {
		t.Fatalf("a new target reused handle %s", r.Result.TargetID)
	}
	if _, err := os.Stat(paths[16]); err != nil {
		t.Fatal(err)
	}
}

// invalidAt says whether e is invalid_request with an issue at path.
func invalidAt(e map[string]any, path, reason string) bool {
	if e["code"] != "invalid_request" {
		return false
	}
	d, _ := e["details"].(map[string]any)
	issues, _ := d["issues"].([]any)
	for _, is := range issues {
		m, _ := is.(map[string]any)
		if m["path"] == path && m["reason"] == reason {
			return true
		}
	}
	return false
}

// TestVisibilityAcrossTargets: §15.2 in a legacy era — with an ELF and a
// zip open, tools/list shows the tools either can serve; a call naming a
// target that cannot serve the tool gets the 2026-07-28 era's typed error
// for that target's reason, and tool_availability names who can.
func TestVisibilityAcrossTargets(t *testing.T) {
	dir := t.TempDir()
	elf := distinctFixtures(t, dir, 1)[0]
	zipPath := filepath.Join(dir, "a.zip")
	if err := writeZip(zipPath, map[string]string{"a.txt": "hello"}); err != nil {
		t.Fatal(err)
	}
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	exe := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": elf}).Structured).Result.TargetID
	s.waitChanged()
	arc := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": zipPath}).Structured).Result.TargetID
	s.waitChanged()
	names := s.toolNames()
	if !names["list_procedures"] || !names["inventory_artifact"] || !names["compare_binaries"] {
		t.Fatalf("tools/list with an ELF and a zip (active) open lacks list_procedures, inventory_artifact or compare_binaries")
	}
	e := s.errorOf("list_procedures", map[string]any{"target": arc})
	d, _ := e["details"].(map[string]any)
	if e["code"] != "capability_unavailable" || d["availability_reason"] != "target_unsupported" || d["target_id"] != arc {
		t.Fatalf("list_procedures on the zip: %v", e)
	}
	e = s.errorOf("inventory_artifact", map[string]any{"target": exe})
	if d, _ := e["details"].(map[string]any); e["code"] != "capability_unavailable" || d["availability_reason"] != "target_unsupported" {
		t.Fatalf("inventory_artifact on the ELF: %v", e)
	}
	s.ok("inventory_artifact", map[string]any{}) // the zip is active
	s.ok("list_procedures", map[string]any{"target": exe})
	caps := decode[struct {
		Result struct {
			Capabilities struct {
				Items []struct {
					Name         string   `json:"name"`
					Available    bool     `json:"available"`
					AvailableFor []string `json:"available_for"`
				} `json:"items"`
			} `json:"capabilities"`
		} `json:"result"`
	}](t, s.ok("binary_session", map[string]any{"detail": "capabilities", "limit": 100}).Structured)
	want := map[string]struct {
		available bool
		by        string
	}{"list_procedures": {false, exe}, "inventory_artifact": {true, arc}}
	for _, it := range caps.Result.Capabilities.Items {
		if w, ok := want[it.Name]; ok {
			if it.Available != w.available || len(it.AvailableFor) != 1 || it.AvailableFor[0] != w.by {
				t.Errorf("%s: available %v for %v, want %v for %s (the active target is the zip)", it.Name, it.Available, it.AvailableFor, w.available, w.by)
			}
			delete(want, it.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("no capabilities entry for %v", want)
	}
	// Closing the zip changes the set: list_changed, and inventory_artifact leaves the list.
	s.ok("close_binary", map[string]any{"target": arc})
	s.waitChanged()
	if names := s.toolNames(); names["inventory_artifact"] || !names["list_procedures"] {
		t.Fatalf("after closing the zip: inventory_artifact %v, list_procedures %v", names["inventory_artifact"], names["list_procedures"])
	}
}
