package tools_test

import (
	"path/filepath"
	"testing"
)

// TestListDependenciesOverMCP: list_dependencies answers with Evidence whose
// record verifies, whose parameters carry consulted:[] (§15.4: no other
// target is open to read), and libc's candidate path.
func TestListDependenciesOverMCP(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": fixture})
	r := s.ok("list_dependencies", map[string]any{})
	claimed, recomputed := recomputeEvidenceID(t, s, r.Structured)
	if claimed != recomputed {
		t.Fatalf("evidence id %s recomputes to %s", claimed, recomputed)
	}
	body := decode[struct {
		Result []struct {
			Name          string  `json:"name"`
			Kind          string  `json:"kind"`
			CandidatePath *string `json:"candidate_path"`
			Resolved      any     `json:"resolved"`
		} `json:"result"`
	}](t, r.Structured)
	if len(body.Result) != 1 || body.Result[0].Name != "libc.so.6" || body.Result[0].Kind != "needed" ||
		body.Result[0].CandidatePath == nil || body.Result[0].Resolved != nil {
		t.Fatalf("dependencies %s", r.Structured)
	}
	bundle := decode[struct {
		Result struct {
			Bundle struct {
				Records []struct {
					Operation  string         `json:"operation"`
					Parameters map[string]any `json:"parameters"`
				} `json:"records"`
			} `json:"bundle"`
		} `json:"result"`
	}](t, s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{claimed}}).Structured)
	rec := bundle.Result.Bundle.Records[0]
	if c, ok := rec.Parameters["consulted"].([]any); rec.Operation != "list_dependencies" || !ok || len(c) != 0 || len(rec.Parameters) != 1 {
		t.Fatalf("record parameters %v", rec.Parameters)
	}
	// A target argument must name an open target.
	if e := s.errorOf("list_dependencies", map[string]any{"target": "tgt_x"}); e["code"] != "invalid_request" {
		t.Fatalf("target argument: %v", e)
	}
}
