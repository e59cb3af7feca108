package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// reaIn runs the built binary in dir with the test's environment minus
// REA_* variables.
func reaIn(t *testing.T, dir string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(testkit.Rea(t), args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := runResult{out.Bytes(), errb.Bytes(), 0}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCLIRelativePaths: every CLI path — the analyzed file, --ledger,
// export -o, verify FILE and --previous, import FILE, evidence bundle -o —
// may be relative and is resolved against the working directory (`rea
// analyze prog` failed with "path must be absolute"); a relative path that
// does not exist is reported not found under its resolved name.
func TestCLIRelativePaths(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile("/bin/true")
	if err != nil {
		testkit.SkipOrFail(t, "no /bin/true to analyze: "+err.Error())
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "prog"), prog, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	ok := func(r runResult, what string) {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("%s: exit %d\nstdout %s\nstderr %s", what, r.code, r.stdout, r.stderr)
		}
	}
	for _, arg := range []string{"prog", "./prog", "sub/../prog"} {
		r := reaIn(t, dir, "--ledger", "state/ledger.db", "analyze", "--json", arg)
		ok(r, "analyze "+arg)
		var ov struct {
			Target struct{ Path string } `json:"target"`
		}
		if err := json.Unmarshal(r.stdout, &ov); err != nil || ov.Target.Path != filepath.Join(dir, "prog") {
			t.Fatalf("analyze %s: target %q (%v)", arg, ov.Target.Path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "state", "ledger.db")); err != nil {
		t.Fatalf("the relative --ledger is not in the working directory: %v", err)
	}
	r := reaIn(t, filepath.Join(dir, "sub"), "--ledger", "../state/ledger.db", "analyze", "../prog")
	ok(r, "analyze ../prog")
	if !strings.Contains(string(r.stdout), filepath.Join(dir, "prog")) {
		t.Fatalf("overview does not name the resolved path:\n%s", r.stdout)
	}

	ok(reaIn(t, dir, "--ledger", "state/ledger.db", "ledger", "export", "-o", "export.jsonl"), "ledger export -o")
	ok(reaIn(t, filepath.Join(dir, "sub"), "ledger", "verify", "../export.jsonl", "--previous", "../export.jsonl"), "ledger verify FILE --previous")
	ok(reaIn(t, dir, "--ledger", "state/ledger.db", "ledger", "verify", "--previous", "export.jsonl"), "ledger verify --previous")
	ok(reaIn(t, dir, "--ledger", "imported.db", "ledger", "import", "export.jsonl"), "ledger import FILE")
	r = reaIn(t, dir, "--ledger", "state/ledger.db", "evidence", "bundle", "-o", "bundle.json")
	ok(r, "evidence bundle -o")
	var wrote struct{ Path string }
	if err := json.Unmarshal(r.stdout, &wrote); err != nil || wrote.Path != filepath.Join(dir, "bundle.json") {
		t.Fatalf("evidence bundle -o: %s (%v)", r.stdout, err)
	}
	for _, f := range []string{"export.jsonl", "imported.db", "bundle.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}

	// Not found names the resolved path, in text and in JSON.
	r = reaIn(t, dir, "--ledger", "state/ledger.db", "analyze", "ls")
	missing := filepath.Join(dir, "ls")
	if r.code != 1 || !strings.Contains(string(r.stderr), "target_unavailable") || !strings.Contains(string(r.stderr), "path: "+missing) ||
		!strings.Contains(string(r.stderr), "reason: not_found") {
		t.Fatalf("analyze ls without ./ls: exit %d\n%s", r.code, r.stderr)
	}
	r = reaIn(t, dir, "--ledger", "state/ledger.db", "analyze", "--json", "ls")
	var env struct {
		Error struct {
			Code    string
			Details map[string]any
		}
	}
	if err := json.Unmarshal(r.stdout, &env); err != nil || env.Error.Code != "target_unavailable" || env.Error.Details["path"] != missing {
		t.Fatalf("analyze --json ls: %s (%v)", r.stdout, err)
	}
}

// TestCLIValidationFailurePrintsItsIssues: a validation failure's text
// says which argument failed and why (it printed only "The request failed
// validation."); --json keeps the envelope.
func TestCLIValidationFailurePrintsItsIssues(t *testing.T) {
	dir := t.TempDir()
	r := reaIn(t, dir, "--ledger", "ledger.db", "analyze", "--provider", "Not A Provider!", "/bin/true")
	if r.code != 1 || !strings.Contains(string(r.stderr), "invalid_request") || !strings.Contains(string(r.stderr), "/provider_id: invalid_format") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	r = reaIn(t, dir, "--ledger", "ledger.db", "analyze", "")
	if r.code != 1 || !strings.Contains(string(r.stderr), "/path: invalid_value: the path is empty") {
		t.Fatalf("empty path: exit %d\n%s", r.code, r.stderr)
	}
	r = reaIn(t, dir, "--ledger", "ledger.db", "analyze", "--json", "--provider", "Not A Provider!", "/bin/true")
	var env struct {
		Error struct {
			Code    string
			Details struct {
				Operation string
				Issues    []struct{ Path, Reason string }
			}
		}
	}
	if err := json.Unmarshal(r.stdout, &env); err != nil || env.Error.Code != "invalid_request" || len(env.Error.Details.Issues) != 1 ||
		env.Error.Details.Issues[0].Path != "/provider_id" || env.Error.Details.Issues[0].Reason != "invalid_format" || len(r.stderr) != 0 {
		t.Fatalf("--json: %s / %s (%v)", r.stdout, r.stderr, err)
	}
}
