package tools_test

import (
	"path/filepath"
	"testing"
)

// TestProcedureCallsAndPrototypeOverStdio: through a real `rea mcp`,
// procedure_calls shows main's printf with the fixture's format string and
// helper_add's literal-free call, procedure_info gives DWARF's prototype;
// each answer's evidence_id recomputes from its record.
func TestProcedureCallsAndPrototypeOverStdio(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	s := startStdio(t, filepath.Join(dir, "ledger.db"))
	s.ok("open_binary", map[string]any{"path": fixture})
	s.waitChanged()

	r := s.ok("procedure_calls", map[string]any{"procedure": "main"})
	if claimed, recomputed := recomputeEvidenceID(t, s, r.Structured); claimed != recomputed {
		t.Fatalf("procedure_calls evidence_id %s, recomputed %s", claimed, recomputed)
	}
	calls := decode[struct {
		Result struct {
			Items []struct {
				Address string `json:"address"`
				Callee  struct {
					Address *string `json:"address"`
					Name    *string `json:"name"`
					Kind    string  `json:"kind"`
				} `json:"callee"`
				Arguments []struct {
					Index   int    `json:"index"`
					Storage string `json:"storage"`
					Value   struct {
						Kind   string  `json:"kind"`
						Text   string  `json:"text"`
						String *string `json:"string"`
					} `json:"value"`
				} `json:"arguments"`
				ResolvedTargets []string `json:"resolved_targets"`
			} `json:"items"`
		} `json:"result"`
	}](t, r.Structured).Result.Items
	for len(calls) > 0 && (calls[0].Callee.Name == nil || *calls[0].Callee.Name != "printf") {
		calls = calls[1:] // main's calls before printf's (exported_twice)
	}
	if len(calls) < 1 || calls[0].Callee.Name == nil || *calls[0].Callee.Name != "printf" || calls[0].Callee.Kind != "import" ||
		len(calls[0].Arguments) < 1 || calls[0].Arguments[0].Storage != "rdi" || calls[0].Arguments[0].Value.Kind != "string" ||
		calls[0].Arguments[0].Value.String == nil || *calls[0].Arguments[0].Value.String != "%s %d\n" || calls[0].ResolvedTargets == nil {
		t.Fatalf("procedure_calls main→printf: %s", r.Structured)
	}
	rec := recordOf(t, s, r)
	if rec.Operation != "procedure_calls" {
		t.Errorf("record operation %q", rec.Operation)
	}

	info := s.ok("procedure_info", map[string]any{"procedure": "helper_add"})
	if claimed, recomputed := recomputeEvidenceID(t, s, info.Structured); claimed != recomputed {
		t.Fatalf("procedure_info evidence_id %s, recomputed %s", claimed, recomputed)
	}
	pi := decode[struct {
		Result struct {
			Signature *string `json:"signature"`
			Prototype *struct {
				Params []struct{ Name, Type, Storage, Source string } `json:"params"`
				Source string                                         `json:"source"`
			} `json:"prototype"`
			Frame *struct {
				Size *int64 `json:"size"`
			} `json:"frame"`
		} `json:"result"`
	}](t, info.Structured).Result
	if pi.Prototype == nil || pi.Prototype.Source != "dwarf" || len(pi.Prototype.Params) != 2 ||
		pi.Prototype.Params[0].Name != "a" || pi.Prototype.Params[0].Storage != "rdi" || pi.Prototype.Params[1].Storage != "rsi" ||
		pi.Signature == nil || *pi.Signature != "int helper_add(int a, int b)" || pi.Frame == nil || pi.Frame.Size == nil {
		t.Fatalf("procedure_info helper_add: %s", info.Structured)
	}
}
