package tools_test

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestProcedureReferencesOverStdio: through a real `rea mcp`,
// procedure_references of the fixture's main lists printf's format string,
// the printf import and the exported_twice procedure it calls, and its
// evidence_id recomputes from its record.
func TestProcedureReferencesOverStdio(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	s := startStdio(t, filepath.Join(dir, "ledger.db"))
	s.ok("open_binary", map[string]any{"path": fixture})
	s.waitChanged()

	r := s.ok("procedure_references", map[string]any{"procedure": "main"})
	if claimed, recomputed := recomputeEvidenceID(t, s, r.Structured); claimed != recomputed {
		t.Fatalf("procedure_references evidence_id %s, recomputed %s", claimed, recomputed)
	}
	type named struct{ Address, Name string }
	refs := decode[struct {
		Result struct {
			Strings []struct {
				Address, Value string
			} `json:"strings"`
			Imports    []named `json:"imports"`
			Procedures []named `json:"procedures"`
			Truncated  bool    `json:"truncated"`
		} `json:"result"`
	}](t, r.Structured).Result
	has := func(list []named, name string) bool {
		return slices.ContainsFunc(list, func(n named) bool { return n.Name == name })
	}
	if refs.Truncated || !has(refs.Imports, "printf") || !has(refs.Procedures, "exported_twice") ||
		!slices.ContainsFunc(refs.Strings, func(s struct{ Address, Value string }) bool { return s.Value == "%s %d\n" }) {
		t.Fatalf("procedure_references main: %s", r.Structured)
	}
	if rec := recordOf(t, s, r); rec.Operation != "procedure_references" {
		t.Errorf("record operation %q", rec.Operation)
	}
}
