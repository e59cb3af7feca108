package tools_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// compactKeys are the keys of the compact inline context (CONTRACTS.md §0).
var compactKeys = []string{"analysis_profile_digest", "authority", "confidence", "evidence_id", "ledger", "limitations", "provider", "subject"}

// The context is a view, not the record (issue 12 acceptance): the same call
// under REA_EVIDENCE_CONTEXT=compact and =full names the same evidence_id;
// the full answer recomputes from itself; the compact answer's id fetches,
// via get_evidence_bundle, a record whose id recomputes with the JCS rule.
// Sizes: the compact inline evidence of an answer without limitations is at
// most 512 bytes, the whole current_address answer at most 600.
func TestEvidenceContextCompactAndFull(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	calls := []struct {
		name string
		args map[string]any
	}{
		{"current_address", map[string]any{}},
		{"list_procedures", map[string]any{"limit": 5}},
		{"procedure_info", map[string]any{"procedure": "main"}},
		{"procedure_callees", map[string]any{"procedure": "main"}},
		{"binary_overview", map[string]any{}},
	}
	ids := map[string][2]string{}
	for form, env := range []string{"REA_EVIDENCE_CONTEXT=compact", "REA_EVIDENCE_CONTEXT=full"} {
		s := startStdio(t, filepath.Join(dir, env[len("REA_EVIDENCE_CONTEXT="):]+".db"), env)
		if form == 0 {
			// Empty is unset: compact, like the explicit value.
			empty := startStdio(t, filepath.Join(dir, "empty.db"), "REA_EVIDENCE_CONTEXT=")
			empty.ok("open_binary", map[string]any{"path": fixture})
			ev := decode[struct{ Evidence map[string]any }](t, empty.ok("current_address", map[string]any{}).Structured).Evidence
			if _, full := ev["operation"]; full || len(ev) != len(compactKeys) {
				t.Fatalf("REA_EVIDENCE_CONTEXT empty: %v", ev)
			}
		}
		s.ok("open_binary", map[string]any{"path": fixture})
		withoutLimitations := 0
		for _, c := range calls {
			r := s.ok(c.name, c.args)
			claimed, recomputed := recomputeEvidenceID(t, s, r.Structured)
			if claimed != recomputed {
				t.Fatalf("%s %s: evidence_id %s, recomputed %s", env, c.name, claimed, recomputed)
			}
			pair := ids[c.name]
			pair[form] = claimed
			ids[c.name] = pair
			body := decode[struct {
				Evidence map[string]json.RawMessage `json:"evidence"`
			}](t, r.Structured)
			inline, err := json.Marshal(body.Evidence)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: answer %d B, inline evidence %d B", env, c.name, len(r.Structured), len(inline))
			if form == 1 {
				if _, full := body.Evidence["parameters"]; !full {
					t.Fatalf("full form without parameters: %s", inline)
				}
				continue
			}
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range body.Evidence {
					if !yield(k) {
						return
					}
				}
			})
			if !slices.Equal(keys, compactKeys) {
				t.Fatalf("%s: compact evidence keys %v, want %v", c.name, keys, compactKeys)
			}
			if string(body.Evidence["limitations"]) == "[]" {
				withoutLimitations++
				if len(inline) > 512 {
					t.Errorf("%s: inline evidence is %d B, over 512: %s", c.name, len(inline), inline)
				}
			}
			if c.name == "current_address" && len(r.Structured) > 600 {
				t.Errorf("current_address answer is %d B, over 600: %s", len(r.Structured), r.Structured)
			}
		}
		if form == 0 && withoutLimitations == 0 {
			t.Fatal("no answer without limitations: the 512-byte bound was not checked")
		}
	}
	for name, pair := range ids {
		if pair[0] != pair[1] {
			t.Errorf("%s: compact names %s, full %s", name, pair[0], pair[1])
		}
	}
}

// REA_EVIDENCE_CONTEXT is exactly compact or full (empty is unset, as for
// REA's other variables); anything else stops
// `rea mcp` at startup with configuration_invalid naming the variable,
// never its value.
func TestEvidenceContextInvalidValue(t *testing.T) {
	const secret = "secret-looking-value"
	for _, v := range []string{"FULL", "compact ", "none", secret} {
		cmd := exec.Command(testkit.Rea(t), "--ledger", filepath.Join(t.TempDir(), "l.db"), "mcp")
		cmd.Env = append(cmd.Environ(), "REA_EVIDENCE_CONTEXT="+v)
		var stderr bytes.Buffer
		cmd.Stdin, cmd.Stderr = strings.NewReader(""), &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("REA_EVIDENCE_CONTEXT=%q: %v, want exit 1; stderr %s", v, err, &stderr)
		}
		msg := stderr.String()
		if !strings.Contains(msg, "configuration_invalid") || !strings.Contains(msg, "REA_EVIDENCE_CONTEXT") {
			t.Fatalf("REA_EVIDENCE_CONTEXT=%q: stderr %q", v, msg)
		}
		if strings.Contains(msg, secret) {
			t.Fatalf("the value %q is echoed: %q", v, msg)
		}
	}
}
