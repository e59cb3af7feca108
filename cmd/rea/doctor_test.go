package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/doctor"
	"github.com/rea-re/rea/internal/testkit"
)

// secret sits in env blocks and in the environment; no output may carry it.
const secret = "cli-secret-7d41b09c"

// stateBodies are one registration per state and format, each with the
// secret in an env block (and a second server with its own env).
func stateBody(format doctor.Format, state doctor.State, exe string) string {
	if format == doctor.TOML {
		other := "[mcp_servers.other]\ncommand = \"npx\"\nenv = { TOKEN = \"" + secret + "\" }\n"
		switch state {
		case doctor.Aligned:
			return other + fmt.Sprintf("[mcp_servers.rea]\ncommand = %q\nargs = [\"mcp\"]\nenv = { K = %q }\n", exe, secret)
		case doctor.Stale:
			return other + fmt.Sprintf("[mcp_servers.rea]\ncommand = \"/usr/local/old/rea\"\nargs = [\"mcp\"]\nenv = { K = %q }\n", secret)
		case doctor.Missing:
			return other
		}
		return other + fmt.Sprintf("[mcp_servers.rea]\ncommand = %q\nenv = { K = \"%s }\n", exe, secret)
	}
	other := `"other":{"command":"npx","env":{"TOKEN":"` + secret + `"}}`
	switch state {
	case doctor.Aligned:
		return fmt.Sprintf(`{"mcpServers":{%s,"rea":{"command":%q,"args":["mcp"],"env":{"K":%q}}}}`, other, exe, secret)
	case doctor.Stale:
		return fmt.Sprintf(`{"mcpServers":{%s,"rea":{"command":"/usr/local/old/rea","args":["mcp"],"env":{"K":%q}}}}`, other, secret)
	case doctor.Missing:
		return `{"mcpServers":{` + other + `}}`
	}
	return fmt.Sprintf(`{"mcpServers":{%s,"rea":{"command":%q,"env":{"K":"%s`, other, exe, secret)
}

// fixtureHome writes every client's registration in state (no file at all
// for "absent") and returns the home directory.
func fixtureHome(t *testing.T, state doctor.State, exe string) string {
	t.Helper()
	home := t.TempDir()
	for _, c := range doctor.Clients(runtime.GOOS) {
		if err := os.MkdirAll(filepath.Join(home, c.Marker), 0o700); err != nil {
			t.Fatal(err)
		}
		if state == "absent" {
			continue
		}
		p := filepath.Join(home, c.File)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(stateBody(c.Format, state, exe)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

type runResult struct {
	stdout, stderr []byte
	code           int
}

// runRea runs the built binary with exactly env (plus PATH) and no
// inherited REA_* variables.
func runRea(t *testing.T, home string, env []string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(testkit.Rea(t), args...)
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := runResult{out.Bytes(), errb.Bytes(), 0}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(r.stdout, []byte(secret)) || bytes.Contains(r.stderr, []byte(secret)) {
		t.Fatalf("rea %v printed the secret:\nstdout %s\nstderr %s", args, r.stdout, r.stderr)
	}
	return r
}

type doctorJSON struct {
	Registrations []struct {
		Client      string
		ConfigPath  string `json:"config_path"`
		State       string
		Command     []string
		Remediation *string
	}
	LiveServer struct{ State string } `json:"live_server"`
	Ledger     struct{ State string }
	Checks     []struct{ ID, Classification, Detail string }
}

func decodeDoctor(t *testing.T, r runResult) doctorJSON {
	t.Helper()
	var d doctorJSON
	if err := json.Unmarshal(r.stdout, &d); err != nil {
		t.Fatalf("doctor output: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	return d
}

// TestDoctorStates: through the binary, a home with every client's file
// aligned, stale, missing (no rea key, or no file) or invalid reports that
// state for all six clients, exit 0 only when all are aligned, and neither
// the JSON nor the text output ever carries an env block's secret.
func TestDoctorStates(t *testing.T) {
	exe := testkit.Rea(t)
	for _, state := range []doctor.State{doctor.Aligned, doctor.Stale, doctor.Missing, "absent", doctor.Invalid} {
		t.Run(string(state), func(t *testing.T) {
			home := fixtureHome(t, state, exe)
			r := runRea(t, home, nil, "doctor", "--json")
			d := decodeDoctor(t, r)
			want := state
			if state == "absent" {
				want = doctor.Missing
			}
			if len(d.Registrations) != 6 {
				t.Fatalf("registrations: %s", r.stdout)
			}
			for i, reg := range d.Registrations {
				c := doctor.Clients(runtime.GOOS)[i]
				if reg.Client != c.ID || reg.ConfigPath != filepath.Join(home, c.File) || doctor.State(reg.State) != want {
					t.Fatalf("%s: %+v, want %s", c.ID, reg, want)
				}
				if (reg.Remediation == nil) != (want == doctor.Aligned) {
					t.Fatalf("%s remediation %v", c.ID, reg.Remediation)
				}
			}
			if d.LiveServer.State != "unknown" || d.Ledger.State != "missing" {
				t.Fatalf("live server / ledger: %s", r.stdout)
			}
			if (r.code == 0) != (want == doctor.Aligned) {
				t.Fatalf("exit %d for %s\n%s", r.code, state, r.stdout)
			}
			text := runRea(t, home, nil, "doctor")
			if text.code != r.code || !bytes.Contains(text.stdout, []byte(string(want))) {
				t.Fatalf("text: exit %d\n%s", text.code, text.stdout)
			}
			if _, err := os.Stat(filepath.Join(home, ".local")); !os.IsNotExist(err) {
				t.Fatal("doctor created the ledger directory")
			}
		})
	}
}

// TestDoctorEnvironmentNeverEchoed: an invalid policy value is reported by
// variable name; the value (the secret) appears nowhere.
func TestDoctorEnvironmentNeverEchoed(t *testing.T) {
	home := fixtureHome(t, doctor.Aligned, testkit.Rea(t))
	r := runRea(t, home, []string{"REA_GDB_ENABLED=" + secret, "REA_EVIDENCE_ROOTS_JSON=[\"" + secret + "\"]"}, "doctor", "--json")
	d := decodeDoctor(t, r)
	var cfg string
	for _, c := range d.Checks {
		if c.ID == "configuration" {
			cfg = c.Classification + " " + c.Detail
		}
	}
	if r.code != 1 || !strings.HasPrefix(cfg, "configuration_invalid ") || !strings.Contains(cfg, "REA_GDB_ENABLED") ||
		!strings.Contains(cfg, "REA_EVIDENCE_ROOTS_JSON") {
		t.Fatalf("exit %d, configuration check %q", r.code, cfg)
	}
	runRea(t, home, []string{"REA_GDB_ENABLED=" + secret}, "doctor")

	// REA_TOOLSETS is checked as `rea mcp` checks it, by name only.
	r = runRea(t, home, []string{"REA_TOOLSETS=triage," + secret}, "doctor", "--json")
	d = decodeDoctor(t, r)
	cfg = ""
	for _, c := range d.Checks {
		if c.ID == "configuration" {
			cfg = c.Classification + " " + c.Detail
		}
	}
	if r.code != 1 || cfg != "configuration_invalid REA_TOOLSETS: unknown_toolset" || bytes.Contains(r.stdout, []byte(secret)) {
		t.Fatalf("exit %d, configuration check %q", r.code, cfg)
	}
}

// TestDoctorClientFilter: --client narrows the registrations; an unknown id
// is a typed invalid_request.
func TestDoctorClientFilter(t *testing.T) {
	home := fixtureHome(t, doctor.Stale, testkit.Rea(t))
	d := decodeDoctor(t, runRea(t, home, nil, "doctor", "--json", "--client", "cursor", "--client", "codex"))
	if len(d.Registrations) != 2 || d.Registrations[0].Client != "codex" || d.Registrations[1].Client != "cursor" {
		t.Fatalf("%+v", d.Registrations)
	}
	r := runRea(t, home, nil, "doctor", "--json", "--client", "vim")
	var env struct{ Error struct{ Code string } }
	if json.Unmarshal(r.stdout, &env); r.code != 1 || env.Error.Code != "invalid_request" {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
}

type setupJSON struct {
	DryRun  bool `json:"dry_run"`
	Clients []struct {
		Client     string  `json:"client"`
		ConfigPath string  `json:"config_path"`
		Action     string  `json:"action"`
		BackupPath *string `json:"backup_path"`
	}
}

// TestSetupThenDoctor: through the binary, dry-run writes nothing; setup
// creates or updates every client's registration (backing up the old
// files, keeping the other servers and the env blocks), doctor then says
// aligned and exits 0, and a second setup changes nothing.
func TestSetupThenDoctor(t *testing.T) {
	exe := testkit.Rea(t)
	for _, state := range []doctor.State{doctor.Stale, doctor.Missing, "absent"} {
		t.Run(string(state), func(t *testing.T) {
			home := fixtureHome(t, state, exe)
			all := []string{"--client", "claude_code,claude_desktop,codex", "--client", "cursor", "--client", "gemini_cli", "--client", "windsurf"}
			before := tree(t, home)

			r := runRea(t, home, nil, append([]string{"setup", "--dry-run", "--json"}, all...)...)
			var plan setupJSON
			if err := json.Unmarshal(r.stdout, &plan); err != nil || r.code != 0 || !plan.DryRun || len(plan.Clients) != 6 {
				t.Fatalf("dry run: %v exit %d\n%s%s", err, r.code, r.stdout, r.stderr)
			}
			if text := runRea(t, home, nil, append([]string{"setup", "--dry-run"}, all...)...); !bytes.Contains(text.stdout, []byte("nothing was written")) {
				t.Fatalf("dry run text:\n%s", text.stdout)
			}
			if after := tree(t, home); !equalTrees(before, after) {
				t.Fatal("dry run wrote files")
			}

			r = runRea(t, home, nil, append([]string{"setup", "--json"}, all...)...)
			var done setupJSON
			if err := json.Unmarshal(r.stdout, &done); err != nil || r.code != 0 || done.DryRun {
				t.Fatalf("setup: %v exit %d\n%s%s", err, r.code, r.stdout, r.stderr)
			}
			wantAction := "updated"
			if state == "absent" {
				wantAction = "created"
			}
			for i, c := range done.Clients {
				if c.Action != wantAction || c.Action != plan.Clients[i].Action {
					t.Fatalf("%s: action %s (planned %s), want %s", c.Client, c.Action, plan.Clients[i].Action, wantAction)
				}
				if (c.BackupPath != nil) != (wantAction == "updated") {
					t.Fatalf("%s: backup %v", c.Client, c.BackupPath)
				}
				if c.BackupPath != nil {
					b, err := os.ReadFile(*c.BackupPath)
					if err != nil || string(b) != before[c.ConfigPath] {
						t.Fatalf("%s: backup differs from the old file: %v", c.Client, err)
					}
					if !strings.HasPrefix(*c.BackupPath, c.ConfigPath+".rea-backup-") {
						t.Fatalf("backup name %s", *c.BackupPath)
					}
				}
				fi, err := os.Stat(c.ConfigPath)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("%s: %v mode %v", c.Client, err, fi.Mode())
				}
				if b, _ := os.ReadFile(c.ConfigPath); state != "absent" && (!bytes.Contains(b, []byte(secret)) || !bytes.Contains(b, []byte("other"))) {
					t.Fatalf("%s: setup dropped another server or an env block:\n%s", c.Client, b)
				}
			}

			d := runRea(t, home, nil, "doctor", "--json")
			for _, reg := range decodeDoctor(t, d).Registrations {
				if reg.State != "aligned" || len(reg.Command) != 2 || reg.Command[0] != exe || reg.Command[1] != "mcp" {
					t.Fatalf("after setup: %+v", reg)
				}
			}
			if d.code != 0 {
				t.Fatalf("doctor exit %d after setup\n%s", d.code, d.stdout)
			}

			snap := tree(t, home)
			r = runRea(t, home, nil, append([]string{"setup", "--json"}, all...)...)
			var again setupJSON
			json.Unmarshal(r.stdout, &again)
			for _, c := range again.Clients {
				if c.Action != "unchanged" || c.BackupPath != nil {
					t.Fatalf("second setup: %+v", c)
				}
			}
			if !equalTrees(snap, tree(t, home)) {
				t.Fatal("second setup wrote files")
			}
		})
	}
}

// TestSetupRefusesInvalid: an invalid registration is never overwritten:
// typed configuration_invalid, exit 1, no file touched (not even the valid
// clients named with it), no backup.
func TestSetupRefusesInvalid(t *testing.T) {
	home := fixtureHome(t, doctor.Invalid, testkit.Rea(t))
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.WriteFile(cursor, []byte(stateBody(doctor.JSON, doctor.Stale, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	before := tree(t, home)
	r := runRea(t, home, nil, "setup", "--json", "--client", "cursor,codex")
	var env struct {
		Error struct {
			Code    string
			Details struct {
				Reason        string
				Registrations []struct{ Client string }
			}
		}
	}
	if err := json.Unmarshal(r.stdout, &env); err != nil || r.code != 1 || env.Error.Code != "configuration_invalid" ||
		len(env.Error.Details.Registrations) != 1 || env.Error.Details.Registrations[0].Client != "codex" {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
	if !equalTrees(before, tree(t, home)) {
		t.Fatal("setup touched files despite an invalid registration")
	}
	text := runRea(t, home, nil, "setup", "--client", "codex")
	if text.code != 1 || !bytes.Contains(text.stderr, []byte("configuration_invalid")) {
		t.Fatalf("text: exit %d\n%s", text.code, text.stderr)
	}
	if r := runRea(t, home, nil, "setup", "--json"); r.code != 1 || !bytes.Contains(r.stdout, []byte("invalid_request")) {
		t.Fatalf("setup without --client: exit %d %s", r.code, r.stdout)
	}
}

// tree maps every file under dir to its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
