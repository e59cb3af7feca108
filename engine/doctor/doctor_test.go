package doctor

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
)

// secret is planted in env blocks; no output may ever contain it.
const secret = "rea-test-secret-5f2c9a1e"

// fakeHost makes a home directory with every client's marker directory and
// an executable standing in for the running rea.
func fakeHost(t *testing.T) Host {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	bin := filepath.Join(root, "bin")
	for _, d := range []string{home, bin} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(bin, "rea")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		t.Fatal(err)
	}
	h := Host{Home: home, GOOS: "linux", Executable: real}
	h.LookPath = func(name string) (string, error) { return lookIn(bin, name) }
	for _, c := range Clients(h.GOOS) {
		if err := os.MkdirAll(filepath.Join(home, c.Marker), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// lookIn is a PATH lookup restricted to dir.
func lookIn(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
		return "", os.ErrNotExist
	}
	return p, nil
}

// fixtures are registration bodies per format and expected state. %EXE% is
// the running rea; every fixture carries the secret in an env block.
var fixtures = map[Format][]struct {
	name  string
	body  string
	state State
	cmd   []string
}{
	JSON: {
		{"aligned", `{"theme":"dark","mcpServers":{"other":{"command":"npx","args":["x"],"env":{"TOKEN":"` + secret + `"}},
			"rea":{"command":"%EXE%","args":["mcp"],"env":{"K":"` + secret + `"}}}}`, Aligned, []string{"%EXE%", "mcp"}},
		{"aligned-via-path", `{"mcpServers":{"rea":{"command":"rea","args":["mcp"],"env":{"K":"` + secret + `"}}}}`, Aligned, []string{"rea", "mcp"}},
		{"aligned-via-symlink", `{"mcpServers":{"rea":{"command":"%LINK%","args":["mcp"],"env":{"K":"` + secret + `"}}}}`, Aligned, []string{"%LINK%", "mcp"}},
		{"stale-binary", `{"mcpServers":{"rea":{"command":"/opt/old/rea","args":["mcp"],"env":{"K":"` + secret + `"}}}}`, Stale, []string{"/opt/old/rea", "mcp"}},
		{"stale-args", `{"mcpServers":{"rea":{"command":"%EXE%","args":["mcp","--http","127.0.0.1:1"],"env":{"K":"` + secret + `"}}}}`, Stale, []string{"%EXE%", "mcp", "--http", "127.0.0.1:1"}},
		{"stale-no-args", `{"mcpServers":{"rea":{"command":"%EXE%","env":{"K":"` + secret + `"}}}}`, Stale, []string{"%EXE%"}},
		{"stale-url-only", `{"mcpServers":{"rea":{"url":"http://127.0.0.1:7777/mcp","env":{"K":"` + secret + `"}}}}`, Stale, []string{}},
		{"stale-unresolvable", `{"mcpServers":{"rea":{"command":"not-on-path","args":["mcp"]}}}`, Stale, []string{"not-on-path", "mcp"}},
		{"stale-case", `{"mcpServers":{"rea":{"COMMAND":"%EXE%","url":"http://x","args":["mcp"]}}}`, Stale, []string{}},
		{"missing-key", `{"mcpServers":{"other":{"command":"npx","env":{"TOKEN":"` + secret + `"}},"REA":{"command":"%EXE%","args":["mcp"]}}}`, Missing, []string{}},
		{"missing-table", `{"projects":{"/x":{"mcpServers":{"rea":{"command":"%EXE%","args":["mcp"]}}}},"env":{"K":"` + secret + `"}}`, Missing, []string{}},
		{"missing-null-table", `{"mcpServers":null}`, Missing, []string{}},
		{"invalid-syntax", `{"mcpServers":{"rea":{"command":"%EXE%","env":{"K":"` + secret + `"` + "\n" + `}}`, Invalid, []string{}},
		{"invalid-syntax-secret-first", `{"env":{"K":` + secret + `}}`, Invalid, []string{}},
		{"invalid-top-array", `[{"mcpServers":{}}]`, Invalid, []string{}},
		{"invalid-trailing", `{"mcpServers":{}} {"env":"` + secret + `"}`, Invalid, []string{}},
		{"invalid-table", `{"mcpServers":["rea"]}`, Invalid, []string{}},
		{"invalid-entry", `{"mcpServers":{"rea":"%EXE% mcp"}}`, Invalid, []string{}},
		{"invalid-command-type", `{"mcpServers":{"rea":{"command":["%EXE%"],"args":["mcp"],"env":{"K":"` + secret + `"}}}}`, Invalid, []string{}},
		{"invalid-command-empty", `{"mcpServers":{"rea":{"command":"","args":["mcp"]}}}`, Invalid, []string{}},
		{"invalid-command-absent", `{"mcpServers":{"rea":{"env":{"K":"` + secret + `"}}}}`, Invalid, []string{}},
		{"invalid-args", `{"mcpServers":{"rea":{"command":"%EXE%","args":"mcp"}}}`, Invalid, []string{}},
		{"invalid-args-null-element", `{"mcpServers":{"rea":{"command":"%EXE%","args":["mcp",null]}}}`, Invalid, []string{}},
	},
	TOML: {
		{"aligned", "model = \"o3\" # a comment\n[mcp_servers.other]\ncommand = \"npx\"\nenv = { TOKEN = \"" + secret + "\" }\n\n[mcp_servers.rea]\ncommand = \"%EXE%\"\nargs = [\"mcp\"]\n[mcp_servers.rea.env]\nK = \"" + secret + "\"\n", Aligned, []string{"%EXE%", "mcp"}},
		{"aligned-inline", "mcp_servers = { rea = { command = '%EXE%', args = ['mcp'], env = { K = '" + secret + "' } } }\n", Aligned, []string{"%EXE%", "mcp"}},
		{"aligned-dotted", "mcp_servers.rea.command = \"%EXE%\"\nmcp_servers.rea.args = [\"mcp\"]\nmcp_servers.rea.env.K = \"" + secret + "\"\n", Aligned, []string{"%EXE%", "mcp"}},
		{"aligned-quoted-key", "[mcp_servers.\"rea\"]\n\"command\" = \"%EXE%\"\nargs = [\"mcp\"]\n", Aligned, []string{"%EXE%", "mcp"}},
		{"aligned-via-path", "[mcp_servers.rea]\ncommand = \"rea\"\nargs = [\"mcp\"]\nenv = { K = \"" + secret + "\" }\n", Aligned, []string{"rea", "mcp"}},
		{"stale-binary", "[mcp_servers.rea]\ncommand = \"/opt/old/rea\"\nargs = [\"mcp\"]\nenv = { K = \"" + secret + "\" }\n", Stale, []string{"/opt/old/rea", "mcp"}},
		{"stale-args", "[mcp_servers.rea]\ncommand = \"%EXE%\"\nargs = []\n", Stale, []string{"%EXE%"}},
		{"stale-url-only", "[mcp_servers.rea]\nurl = \"http://127.0.0.1:7777/mcp\"\n[mcp_servers.rea.env]\nK = \"" + secret + "\"\n", Stale, []string{}},
		{"missing-key", "[mcp_servers.other]\ncommand = \"npx\"\nenv = { TOKEN = \"" + secret + "\" }\n[mcp_servers.REA]\ncommand = \"%EXE%\"\nargs = [\"mcp\"]\n", Missing, []string{}},
		{"missing-table", "model = \"o3\"\n[env]\nK = \"" + secret + "\"\n", Missing, []string{}},
		{"missing-empty-file", "", Missing, []string{}},
		{"invalid-syntax", "[mcp_servers.rea]\ncommand = \"%EXE%\nenv = { K = \"" + secret + "\" }\n", Invalid, []string{}},
		{"invalid-duplicate", "[mcp_servers.rea]\ncommand = \"%EXE%\"\n[mcp_servers.rea]\nargs = [\"mcp\"]\n", Invalid, []string{}},
		{"invalid-table", "mcp_servers = 3\n", Invalid, []string{}},
		{"invalid-array-table", "[[mcp_servers]]\nname = \"rea\"\n", Invalid, []string{}},
		{"invalid-entry", "[mcp_servers]\nrea = \"%EXE% mcp\"\n", Invalid, []string{}},
		{"invalid-command-type", "[mcp_servers.rea]\ncommand = 42\nargs = [\"mcp\"]\nenv = { K = \"" + secret + "\" }\n", Invalid, []string{}},
		{"invalid-command-absent", "[mcp_servers.rea.env]\nK = \"" + secret + "\"\n", Invalid, []string{}},
		{"invalid-args", "[mcp_servers.rea]\ncommand = \"%EXE%\"\nargs = [\"mcp\", 1]\n", Invalid, []string{}},
	},
}

// fill substitutes the placeholders of a fixture.
func fill(h Host, s string) string {
	link := filepath.Join(filepath.Dir(h.Home), "link-to-rea")
	return strings.NewReplacer("%EXE%", h.Executable, "%LINK%", link).Replace(s)
}

func writeFixture(t *testing.T, h Host, c Client, body string) string {
	t.Helper()
	path := filepath.Join(h.Home, c.File)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(fill(h, body)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestClassifyStates: every client's file in the aligned, stale, missing and
// invalid states gives that state, and nothing in the result (JSON or the
// text problem) carries the secret of an env block.
func TestClassifyStates(t *testing.T) {
	for _, c := range Clients("linux") {
		for _, f := range fixtures[c.Format] {
			t.Run(c.ID+"/"+f.name, func(t *testing.T) {
				h := fakeHost(t)
				if err := os.Symlink(h.Executable, filepath.Join(filepath.Dir(h.Home), "link-to-rea")); err != nil {
					t.Fatal(err)
				}
				path := writeFixture(t, h, c, f.body)
				regs := Inspect(h, []Client{c})
				if len(regs) != 1 {
					t.Fatalf("registrations: %+v", regs)
				}
				r := regs[0]
				want := make([]string, len(f.cmd))
				for i, s := range f.cmd {
					want[i] = fill(h, s)
				}
				if r.State != f.state || r.ConfigPath != path || r.Client != c.ID || !slices.Equal(r.Command, want) {
					t.Fatalf("got %+v, want state %s command %q", r, f.state, want)
				}
				if (r.Remediation == nil) != (f.state == Aligned) {
					t.Fatalf("remediation %v for %s", r.Remediation, r.State)
				}
				out, _ := json.Marshal(r)
				if bytes.Contains(out, []byte(secret)) || strings.Contains(r.Problem, secret) {
					t.Fatalf("secret leaked: %s / %q", out, r.Problem)
				}
			})
		}
	}
}

// TestClassifyMissingFile: no file at all is missing, with command [].
func TestClassifyMissingFile(t *testing.T) {
	h := fakeHost(t)
	for _, r := range Inspect(h, Clients("linux")) {
		if r.State != Missing || r.Command == nil || len(r.Command) != 0 || r.Remediation == nil {
			t.Fatalf("%+v", r)
		}
	}
}

// TestInspectMarker: a client whose marker directory is absent is omitted,
// even when its file exists; the rest are sorted by client id.
func TestInspectMarker(t *testing.T) {
	h := fakeHost(t)
	cs := Clients("linux")
	if err := os.RemoveAll(filepath.Join(h.Home, ".cursor")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(h.Home, ".claude")); err != nil {
		t.Fatal(err)
	}
	writeFixture(t, h, cs[0], `{"mcpServers":{}}`) // .claude.json without .claude
	var got []string
	for _, r := range Inspect(h, cs) {
		got = append(got, r.Client)
	}
	if want := []string{"claude_desktop", "codex", "gemini_cli", "windsurf"}; !slices.Equal(got, want) {
		t.Fatalf("clients %v, want %v", got, want)
	}
}

func TestClientPaths(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":  ".config/Claude/claude_desktop_config.json",
		"darwin": "Library/Application Support/Claude/claude_desktop_config.json",
	} {
		cs := Clients(goos)
		if cs[1].ID != "claude_desktop" || cs[1].File != want || cs[1].Marker != filepath.Dir(want) {
			t.Fatalf("%s: %+v", goos, cs[1])
		}
	}
	if !slices.IsSortedFunc(Clients("linux"), func(a, b Client) int { return strings.Compare(a.ID, b.ID) }) {
		t.Fatal("clients not sorted")
	}
	_, err := ResolveClients("doctor", "linux", []string{"cursor", "vim"})
	if !fault.Is(err, fault.InvalidRequest) {
		t.Fatalf("unknown client: %v", err)
	}
	cs, err := ResolveClients("doctor", "linux", []string{"cursor", "codex", "cursor"})
	if err != nil || len(cs) != 2 || cs[0].ID != "codex" || cs[1].ID != "cursor" {
		t.Fatalf("%v %+v", err, cs)
	}
}

// decodeAny decodes a registration file completely, for comparing what
// setup kept (tests may read env blocks; the package may not).
func decodeAny(t *testing.T, f Format, b []byte) map[string]any {
	t.Helper()
	m := map[string]any{}
	var err error
	if f == TOML {
		err = toml.Unmarshal(b, &m)
	} else {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatalf("decode %s: %v\n%s", f, err, b)
	}
	return m
}

var fixedNow = func() time.Time { return time.Date(2026, 11, 25, 10, 11, 12, 0, time.UTC) }

// TestSetupThenAligned: from every non-invalid starting state setup writes
// an aligned entry, keeps every other key (other servers, the entry's env),
// backs the old file up, writes owner-only, and a second run is unchanged.
func TestSetupThenAligned(t *testing.T) {
	ctx := context.Background()
	for _, c := range Clients("linux") {
		for _, f := range append(fixtures[c.Format], struct {
			name  string
			body  string
			state State
			cmd   []string
		}{name: "no-file", state: Missing}) {
			if f.state == Invalid || strings.Contains(f.body, "%LINK%") {
				continue
			}
			t.Run(c.ID+"/"+f.name, func(t *testing.T) {
				h := fakeHost(t)
				path := filepath.Join(h.Home, c.File)
				var before []byte
				if f.name != "no-file" {
					writeFixture(t, h, c, f.body)
					if err := os.Chmod(path, 0o644); err != nil {
						t.Fatal(err)
					}
					before, _ = os.ReadFile(path)
				}
				res, err := Setup(ctx, h, []Client{c}, SetupOptions{Now: fixedNow})
				if err != nil {
					t.Fatal(err)
				}
				r := res[0]
				wantAction := Updated
				switch {
				case f.state == Aligned:
					wantAction = Unchanged
				case f.name == "no-file":
					wantAction = Created
				}
				if r.Action != wantAction || r.Client != c.ID || r.ConfigPath != path {
					t.Fatalf("result %+v, want action %s", r, wantAction)
				}
				after, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if got := Classify(h, c); got.State != Aligned {
					t.Fatalf("after setup: %+v\n%s", got, after)
				}
				switch wantAction {
				case Unchanged:
					if r.BackupPath != nil || !bytes.Equal(after, before) {
						t.Fatalf("unchanged rewrote the file or made a backup: %+v", r)
					}
					return
				case Created:
					if r.BackupPath != nil {
						t.Fatalf("backup of a new file: %v", *r.BackupPath)
					}
				case Updated:
					want := path + ".rea-backup-20261125T101112Z"
					if r.BackupPath == nil || *r.BackupPath != want {
						t.Fatalf("backup %v, want %s", r.BackupPath, want)
					}
					b, err := os.ReadFile(want)
					if err != nil || !bytes.Equal(b, before) {
						t.Fatalf("backup content differs: %v", err)
					}
					assertMode(t, want, 0o600)
					keptEverythingElse(t, c, before, after)
				}
				assertMode(t, path, 0o600)
				// Idempotent: a second run changes nothing and backs nothing up.
				res, err = Setup(ctx, h, []Client{c}, SetupOptions{Now: fixedNow})
				if err != nil || res[0].Action != Unchanged || res[0].BackupPath != nil {
					t.Fatalf("second run: %v %+v", err, res)
				}
				again, _ := os.ReadFile(path)
				if !bytes.Equal(again, after) {
					t.Fatal("second run rewrote the file")
				}
				entries, _ := os.ReadDir(filepath.Dir(path))
				for _, e := range entries {
					if strings.Contains(e.Name(), ".rea-tmp-") {
						t.Fatalf("temporary file left: %s", e.Name())
					}
				}
			})
		}
	}
}

// keptEverythingElse compares the two documents with the rea entry's
// command, args and remote keys set aside.
func keptEverythingElse(t *testing.T, c Client, before, after []byte) {
	t.Helper()
	b, a := decodeAny(t, c.Format, before), decodeAny(t, c.Format, after)
	strip := func(m map[string]any) {
		tbl, _ := m[c.Table].(map[string]any)
		if tbl == nil {
			delete(m, c.Table)
			return
		}
		ent, _ := tbl[ServerKey].(map[string]any)
		if ent == nil {
			delete(tbl, ServerKey)
			return
		}
		for _, k := range append([]string{"command", "args", "type"}, remoteKeys...) {
			delete(ent, k)
		}
		if len(ent) == 0 {
			delete(tbl, ServerKey)
		}
		if len(tbl) == 0 {
			delete(m, c.Table)
		}
	}
	strip(b)
	strip(a)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("setup changed other keys:\nbefore %v\nafter  %v", b, a)
	}
	ent := decodeAny(t, c.Format, after)[c.Table].(map[string]any)[ServerKey].(map[string]any)
	if _, ok := ent["url"]; ok {
		t.Fatalf("url kept in a command entry: %v", ent)
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != want {
		t.Fatalf("%s: mode %o, want %o", path, fi.Mode().Perm(), want)
	}
}

// TestSetupDryRun writes nothing: no file, no backup, no directory.
func TestSetupDryRun(t *testing.T) {
	h := fakeHost(t)
	cs := Clients("linux")
	stale := writeFixture(t, h, cs[3], `{"mcpServers":{"rea":{"command":"/old/rea","args":["mcp"]}}}`)
	if err := os.RemoveAll(filepath.Join(h.Home, ".gemini")); err != nil {
		t.Fatal(err)
	}
	snap := snapshot(t, h.Home)
	res, err := Setup(context.Background(), h, cs, SetupOptions{DryRun: true, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]string{}
	for _, r := range res {
		actions[r.Client] = r.Action
		if r.BackupPath != nil {
			t.Fatalf("dry run names a backup: %+v", r)
		}
	}
	if actions["cursor"] != Updated || actions["codex"] != Created || actions["gemini_cli"] != Created || len(res) != 6 {
		t.Fatalf("plan %v", actions)
	}
	if res[3].Before.State != Stale || res[3].ConfigPath != stale {
		t.Fatalf("plan for cursor: %+v", res[3])
	}
	if got := snapshot(t, h.Home); !reflect.DeepEqual(got, snap) {
		t.Fatalf("dry run wrote:\nbefore %v\nafter  %v", snap, got)
	}
}

// snapshot lists every path under dir with its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() {
			out[p] = "dir"
			return nil
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

// TestSetupInvalidNotOverwritten: an invalid file is a typed
// configuration_invalid naming it, and no file (not even another client's
// valid one) is written.
func TestSetupInvalidNotOverwritten(t *testing.T) {
	for _, c := range Clients("linux") {
		t.Run(c.ID, func(t *testing.T) {
			h := fakeHost(t)
			var body string
			for _, f := range fixtures[c.Format] {
				if f.name == "invalid-syntax" {
					body = f.body
				}
			}
			writeFixture(t, h, c, body)
			snap := snapshot(t, h.Home)
			_, err := Setup(context.Background(), h, Clients("linux"), SetupOptions{Now: fixedNow})
			if !fault.Is(err, fault.ConfigurationInvalid) {
				t.Fatalf("error %v, want configuration_invalid", err)
			}
			fe := fault.From("setup", err)
			regs, _ := fe.Details["registrations"].([]map[string]any)
			if len(regs) != 1 || regs[0]["client"] != c.ID {
				t.Fatalf("details %v", fe.Details)
			}
			out, _ := json.Marshal(fe)
			if bytes.Contains(out, []byte(secret)) {
				t.Fatalf("secret in the error: %s", out)
			}
			if got := snapshot(t, h.Home); !reflect.DeepEqual(got, snap) {
				t.Fatal("setup wrote despite an invalid registration")
			}
		})
	}
}

// TestSetupThroughSymlink: a registration file that is a symlink stays one;
// the target gets the new content.
func TestSetupThroughSymlink(t *testing.T) {
	h := fakeHost(t)
	c := Clients("linux")[3] // cursor
	dotfiles := filepath.Join(filepath.Dir(h.Home), "dotfiles")
	if err := os.MkdirAll(dotfiles, 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dotfiles, "mcp.json")
	if err := os.WriteFile(target, []byte(`{"mcpServers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(h.Home, c.File)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	res, err := Setup(context.Background(), h, []Client{c}, SetupOptions{Now: fixedNow})
	if err != nil || res[0].Action != Updated {
		t.Fatalf("%v %+v", err, res)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if Classify(h, c).State != Aligned {
		t.Fatal("not aligned through the link")
	}
}

// TestSetupKeepsJSONOrder: keys keep their document order and unusual
// values (big numbers, escapes) their exact spelling.
func TestSetupKeepsJSONOrder(t *testing.T) {
	in := `{"z":1,"numbers":[12345678901234567890,1e400],"s":"\u00e9<>&","mcpServers":{"b":{"command":"x"},"rea":{"env":{"K":"v"},"command":"/old","type":"http","url":"http://x"},"a":{}},"m":null}`
	out, err := setJSONEntry("mcpServers", []byte(in), "/usr/bin/rea&co")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, out); err != nil {
		t.Fatal(err)
	}
	want := `{"z":1,"numbers":[12345678901234567890,1e400],"s":"\u00e9<>&","mcpServers":{"b":{"command":"x"},"rea":{"env":{"K":"v"},"command":"/usr/bin/rea&co","args":["mcp"]},"a":{}},"m":null}`
	if compact.String() != want {
		t.Fatalf("got  %s\nwant %s", compact.String(), want)
	}
}

// TestCheckLedger: missing is healthy (nothing created), a verified ledger
// is ok with its head, a tampered one is corrupt with the first bad seq, and
// a file that is not a ledger is unreadable.
func TestCheckLedger(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	missing := filepath.Join(dir, "none", "ledger.db")
	st, ch := CheckLedger(ctx, missing)
	if st.State != "missing" || ch.Classification != Healthy || st.Head != nil {
		t.Fatalf("%+v %+v", st, ch)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Fatal("the check created the ledger directory")
	}

	path := filepath.Join(dir, "ledger.db")
	l, err := ledger.Open(ctx, path, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, ch = CheckLedger(ctx, path)
	if st.State != "ok" || ch.Classification != Healthy || st.Head != nil {
		t.Fatalf("empty ledger: %+v %+v", st, ch)
	}
	var last []ledger.Event
	for i := range 3 {
		if last, err = l.Append(ctx, "test-stream", -1, []ledger.NewEvent{{Type: "test_event", Data: map[string]any{"i": i}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	before, _ := os.ReadFile(path)
	st, ch = CheckLedger(ctx, path)
	if st.State != "ok" || ch.Classification != Healthy || st.Head == nil || st.Head.Seq != 3 || st.Head.Hash != last[0].Hash || st.FirstBadSeq != nil {
		t.Fatalf("ledger: %+v %+v", st, ch)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the check wrote to the ledger")
	}

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TRIGGER events_no_update`, `UPDATE events SET canonical = CAST(replace(CAST(canonical AS TEXT), '"i":1', '"i":7') AS BLOB), data = '{"i":7}' WHERE seq = 2`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	st, ch = CheckLedger(ctx, path)
	if st.State != "corrupt" || ch.Classification != LedgerIntegrity || st.FirstBadSeq == nil || *st.FirstBadSeq != 2 {
		t.Fatalf("tampered: %+v %+v", st, ch)
	}

	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte("not a database at all, just text padding padding padding"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, ch = CheckLedger(ctx, junk)
	if st.State != "unreadable" || ch.Classification != LedgerIntegrity {
		t.Fatalf("junk: %+v %+v", st, ch)
	}
}

func TestLatestMigration(t *testing.T) {
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "l.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	v, err := l.SchemaVersion(ctx)
	if err != nil || v != LatestMigration() || v < 1 {
		t.Fatalf("schema %d (%v), latest %d", v, err, LatestMigration())
	}
}

// TestEnvironmentProblems names variables and fixed reasons, never values;
// the policy variables are judged by the policy package's own loader.
func TestEnvironmentProblems(t *testing.T) {
	dir := t.TempDir()
	list := func(v ...string) string { b, _ := json.Marshal(v); return string(b) }
	loose := filepath.Join(dir, "store.json")
	if err := os.WriteFile(loose, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		env  map[string]string
		want []EnvProblem
	}{
		{map[string]string{}, nil},
		{map[string]string{"REA_GDB_ENABLED": "true", "REA_EVIDENCE_ROOTS_JSON": list(dir), "REA_ANALYSIS_PROVIDER": "gdb"}, nil},
		{map[string]string{"REA_GDB_ENABLED": secret}, []EnvProblem{{"REA_GDB_ENABLED", "invalid_boolean"}}},
		{map[string]string{"REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED": "yes"}, []EnvProblem{{"REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED", "invalid_boolean"}}},
		{map[string]string{"REA_ANALYSIS_PROVIDER": "Not A Provider " + secret}, []EnvProblem{{"REA_ANALYSIS_PROVIDER", "invalid_value"}}},
		{map[string]string{"REA_EVIDENCE_CONTEXT": "full"}, nil},
		{map[string]string{"REA_EVIDENCE_CONTEXT": "compact"}, nil},
		{map[string]string{"REA_EVIDENCE_CONTEXT": "Full " + secret}, []EnvProblem{{"REA_EVIDENCE_CONTEXT", "invalid_value"}}},
		{map[string]string{"REA_EVIDENCE_ROOTS_JSON": "[" + secret}, []EnvProblem{{"REA_EVIDENCE_ROOTS_JSON", "invalid_json"}}},
		{map[string]string{"REA_REFERENCE_ROOTS_JSON": list("relative/" + secret)}, []EnvProblem{{"REA_REFERENCE_ROOTS_JSON", "relative_path"}}},
		{map[string]string{"REA_REFERENCE_ROOTS_JSON": list(filepath.Join(dir, "gone"))}, []EnvProblem{{"REA_REFERENCE_ROOTS_JSON", "root_not_found"}}},
		{map[string]string{"REA_PROCESS_CAPTURE_ENABLED": "true", "REA_PROCESS_WORKING_ROOTS_JSON": list(dir)},
			[]EnvProblem{{"REA_PROCESS_EXECUTABLE_ROOTS_JSON", "roots_required"}}},
		{map[string]string{"REA_PERMISSION_PROJECT_ROOT": dir}, []EnvProblem{{"REA_PERMISSION_PROJECT_STORE", "incomplete_pair"}}},
		{map[string]string{"REA_PERMISSION_PROJECT_ROOT": dir, "REA_PERMISSION_PROJECT_STORE": loose},
			[]EnvProblem{{"REA_PERMISSION_PROJECT_STORE", "not_owner_only"}}},
		{map[string]string{"REA_PERMISSION_PROJECT_ROOT": dir, "REA_PERMISSION_PROJECT_STORE": filepath.Join(dir, "absent.json")}, nil},
	}
	for i, c := range cases {
		got := EnvironmentProblems(c.env)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d: got %v, want %v", i, got, c.want)
		}
		ch := configurationCheck(c.env, nil)
		if strings.Contains(ch.Detail, secret) || (len(c.want) > 0) != (ch.Classification == ConfigurationInvalid) {
			t.Errorf("case %d: check %+v", i, ch)
		}
	}
}

// TestProbeGDB: the gdb check names the path and the version `gdb
// --version` prints, or says it is not installed; it never fails.
func TestProbeGDB(t *testing.T) {
	ctx := context.Background()
	gone := filepath.Join(t.TempDir(), "no-gdb")
	d := ProbeGDB(ctx, map[string]string{"REA_GDB_PATH": gone})
	if !strings.HasPrefix(d, "not installed (looked up through REA_GDB_PATH)") || !strings.Contains(d, "disabled") {
		t.Fatalf("absent: %q", d)
	}
	gdb := testkit.Need(t, "gdb")
	out, err := exec.Command(gdb, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	m := gdbVersion.FindStringSubmatch(strings.TrimSpace(first))
	if m == nil {
		t.Fatalf("cannot parse %q", first)
	}
	d = ProbeGDB(ctx, map[string]string{"REA_GDB_ENABLED": "true"})
	if !strings.HasPrefix(d, gdb+": version "+m[1]+" (") || !strings.HasSuffix(d, "; enabled") {
		t.Fatalf("present: %q (want %s version %s)", d, gdb, m[1])
	}
	// A file that exists but does not run is reported, still as a detail.
	broken := filepath.Join(t.TempDir(), "gdb")
	if err := os.WriteFile(broken, []byte("\x7fELF garbage"), 0o755); err != nil {
		t.Fatal(err)
	}
	if d := ProbeGDB(ctx, map[string]string{"REA_GDB_PATH": broken}); !strings.Contains(d, "present but `gdb --version` failed") {
		t.Fatalf("broken: %q", d)
	}
}

// TestRunReport: the whole report over a fixture home, a real ledger and a
// policy environment: shape, check ids, exit verdict, and no secret from an
// env block or from the environment anywhere in it.
func TestRunReport(t *testing.T) {
	ctx := context.Background()
	h := fakeHost(t)
	cs := Clients("linux")
	writeFixture(t, h, cs[2], fixtures[TOML][0].body)  // codex aligned
	writeFixture(t, h, cs[3], fixtures[JSON][3].body)  // cursor stale
	writeFixture(t, h, cs[4], fixtures[JSON][12].body) // gemini invalid
	for _, c := range []string{".claude", ".config/Claude", ".codeium/windsurf"} {
		os.RemoveAll(filepath.Join(h.Home, c))
	}
	in := Input{Host: h, Clients: cs, Version: "9.9.9", BuildCommit: "", LedgerPath: filepath.Join(t.TempDir(), "ledger.db"),
		Env: map[string]string{"REA_GDB_ENABLED": secret, "REA_GDB_PATH": "/nonexistent/gdb"}}
	r := Run(ctx, in)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(secret)) {
		t.Fatalf("secret in the report: %s", b)
	}
	var doc map[string]any
	json.Unmarshal(b, &doc)
	for _, k := range []string{"rea", "registrations", "live_server", "ledger", "providers", "checks"} {
		if _, ok := doc[k]; !ok {
			t.Fatalf("report lacks %s: %s", k, b)
		}
	}
	if r.LiveServer.State != "unknown" || r.REA.BuildCommit != nil || r.REA.Executable != h.Executable || r.Ledger.State != "missing" {
		t.Fatalf("report: %s", b)
	}
	var ids []string
	cls := map[string]string{}
	for _, c := range r.Checks {
		ids = append(ids, c.ID)
		cls[c.ID] = c.Classification
	}
	want := []string{"registration:codex", "registration:cursor", "registration:gemini_cli", "ledger", "gdb", "configuration"}
	if !slices.Equal(ids, want) {
		t.Fatalf("checks %v, want %v", ids, want)
	}
	if cls["registration:codex"] != Healthy || cls["registration:cursor"] != ConfigDrift || cls["registration:gemini_cli"] != ConfigDrift ||
		cls["ledger"] != Healthy || cls["gdb"] != Healthy || cls["configuration"] != ConfigurationInvalid || r.Healthy() {
		t.Fatalf("classifications %v", cls)
	}
}
