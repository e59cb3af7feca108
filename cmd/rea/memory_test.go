package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// A malformed REA_MEMORY_LIMIT fails closed at startup with
// configuration_invalid naming the variable, never its value (runRea fails
// on the secret), for `rea mcp` and the commands that analyze (CONTRACTS.md
// §0.3 "Resources"); a valid one starts them.
func TestMemoryLimitConfigurationInvalid(t *testing.T) {
	home := t.TempDir()
	ledger := filepath.Join(home, "ledger.db")
	bad := []string{"REA_MEMORY_LIMIT=512MB-" + secret}
	r := runRea(t, home, bad, "--ledger", ledger, "analyze", "/bin/true", "--json")
	var out struct {
		Error struct {
			Code    string
			Details map[string]any
		}
	}
	if err := json.Unmarshal(r.stdout, &out); err != nil || r.code != 1 {
		t.Fatalf("analyze: exit %d %v\n%s", r.code, err, r.stdout)
	}
	if out.Error.Code != "configuration_invalid" || out.Error.Details["variable"] != "REA_MEMORY_LIMIT" {
		t.Fatalf("analyze: %s", r.stdout)
	}
	r = runRea(t, home, bad, "--ledger", ledger, "mcp")
	if r.code != 1 || !bytes.Contains(r.stderr, []byte("configuration_invalid")) || !bytes.Contains(r.stderr, []byte("REA_MEMORY_LIMIT")) {
		t.Fatalf("mcp: exit %d\n%s", r.code, r.stderr)
	}
	if r := runRea(t, home, []string{"REA_MEMORY_LIMIT=512MiB"}, "--ledger", ledger, "analyze", "/bin/true", "--json"); r.code != 0 {
		t.Fatalf("analyze with REA_MEMORY_LIMIT=512MiB: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
