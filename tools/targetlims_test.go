package tools_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/rea-re/rea/engine/provider/builtin"
)

// Issue 13 item 8, the engine's part: a provider's target-wide limitations
// (provider.Result.TargetLimitations: a discovery source not read, damage
// found while indexing) reach the Evidence of the call that reported them
// and of every composed operation built on it.

func evidenceLimitations(t *testing.T, r reply) []string {
	t.Helper()
	return decode[struct {
		Evidence struct {
			Limitations []string `json:"limitations"`
		} `json:"evidence"`
	}](t, r.Structured).Evidence.Limitations
}

func TestTargetLimitationsReachComposedEvidence(t *testing.T) {
	bin := compileFixture(t, t.TempDir())

	t.Run("injected", func(t *testing.T) {
		const tag = "test: a discovery source this provider does not read"
		s := startWith(t, &faultyProvider{Provider: builtin.New("test"), tag: tag})
		s.ok("open_binary", map[string]any{"path": bin})
		mainA := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "main"}))
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"list_procedures", map[string]any{}},
			{"binary_overview", map[string]any{}},
			{"get_call_graph", map[string]any{"address": mainA, "depth": 1}},
		} {
			if l := evidenceLimitations(t, s.ok(c.tool, c.args)); !slices.Contains(l, tag) {
				t.Errorf("%s Evidence limitations %q lack the provider's target limitation", c.tool, l)
			}
		}
	})

	// The builtin provider's own: whatever list_procedures and list_strings
	// say about the target, the composed operations say too.
	t.Run("builtin", func(t *testing.T) {
		s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
		s.ok("open_binary", map[string]any{"path": bin})
		procs := evidenceLimitations(t, s.ok("list_procedures", map[string]any{}))
		strs := evidenceLimitations(t, s.ok("list_strings", map[string]any{}))
		mainA := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "main"}))
		overview := evidenceLimitations(t, s.ok("binary_overview", map[string]any{}))
		graph := evidenceLimitations(t, s.ok("get_call_graph", map[string]any{"address": mainA, "depth": 1}))
		for _, l := range append(slices.Clone(procs), strs...) {
			if !slices.Contains(overview, l) {
				t.Errorf("binary_overview Evidence lacks %q", l)
			}
		}
		for _, l := range procs {
			if !slices.Contains(graph, l) {
				t.Errorf("get_call_graph Evidence lacks %q", l)
			}
		}
		t.Logf("list_procedures limitations %q; binary_overview %q; get_call_graph %q", procs, overview, graph)
	})
}
