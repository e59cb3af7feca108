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
