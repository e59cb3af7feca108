package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/internal/jcs"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
)

// TestMultiTargetReplay is issue 14's replay acceptance: a realistic
// multi-target session — three targets, two providers, a failed
// selection, a switch, closes and reopens — then, on copies of its ledger,
// rea ledger rebuild and export + import reproduce the projection digest,
// and get_evidence_bundle gives the same bytes from a new process (a
// restart) as the session itself gave before it ended.
func TestMultiTargetReplay(t *testing.T) {
	testkit.Need(t, "gdb")
	dir := t.TempDir()
	progs := distinctFixtures(t, dir, 3)
	path := filepath.Join(dir, "ledger.db")
	s := startStdio(t, path, "REA_GDB_ENABLED=true")

	a := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": progs[0], "provider_id": "builtin"}).Structured).Result.TargetID
	b := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": progs[1], "provider_id": "gdb"}).Structured).Result.TargetID
	// builtin and gdb both support it: auto selection is ambiguous (§5.2),
	// a failed selection the ledger records; a and b stay open.
	s.errorOf("open_binary", map[string]any{"path": progs[2]})
	if n := len(decode[sessionSummary](t, s.ok("binary_session", map[string]any{}).Structured).Result.Targets); n != 2 {
		t.Fatalf("%d targets open after a failed selection, want 2", n)
	}
	c := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": progs[2], "provider_id": "builtin"}).Structured).Result.TargetID
	for _, tgt := range []string{a, b, c} {
		s.ok("list_procedures", map[string]any{"target": tgt, "limit": 5})
	}
	s.ok("procedure_info", map[string]any{"target": a, "procedure": "main"})
	s.ok("set_comment", map[string]any{"target": c, "address": "0x1000", "comment": "replayed"})
	s.ok("goto_address", map[string]any{"target": a, "address": "0x1000"})
	s.ok("goto_address", map[string]any{"target": c, "address": "0x1000"})
	s.ok("list_dependencies", map[string]any{"target": c})
	// b switches to builtin (same handle), then closes; a closes and reopens.
	if sw := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": progs[1], "provider_id": "builtin"}).Structured).Result.TargetID; sw != b {
		t.Fatalf("switch gave handle %s, want %s", sw, b)
	}
	s.ok("list_procedures", map[string]any{"target": b, "limit": 5})
	s.ok("close_binary", map[string]any{"target": b})
	s.ok("close_binary", map[string]any{"target": a})
	a2 := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": progs[0], "provider_id": "builtin"}).Structured).Result.TargetID
	if a2 == a {
		t.Fatalf("a reopened closed target kept its handle %s", a)
	}
	s.ok("list_procedures", map[string]any{"limit": 5})
	r := s.ok("get_evidence_bundle", map[string]any{"scope": "ledger"})
	var env struct {
		Result struct {
			Bundle json.RawMessage `json:"bundle"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.Text), &env); err != nil {
		t.Fatal(err)
	}
	before, err := jcs.Transform(env.Result.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	s.c.Close()
	waitClosed(t, path, 1)

	led, err := ledger.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var failed int
	err = led.ReadDB().QueryRow(`SELECT count(*) FROM events WHERE type = 'provider_selection_failed'`).Scan(&failed)
	led.Close()
	if err != nil || failed != 1 {
		t.Fatalf("%d provider_selection_failed events (%v), want 1", failed, err)
	}
	ids := legacyInventory(t, path)
	if len(ids.RunIDs) < 5 || len(ids.EvidenceIDs) < 8 {
		t.Fatalf("the session recorded %d runs and %d evidence ids", len(ids.RunIDs), len(ids.EvidenceIDs))
	}
	obs := observeLegacy(t, path, ids) // rebuild = live, export + import = live, bundles by new processes
	if !bytes.Equal(obs.Bundle, before) {
		t.Errorf("whole-ledger bundle after a restart: %d bytes (sha256 %s), the session gave %d (sha256 %s)",
			len(obs.Bundle), sha256Hex(obs.Bundle), len(before), sha256Hex(before))
	}
}
