package tools_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/tools/wire"
)

// Issue 16 item 4 through a real `rea mcp --http`: a token on every bind,
// generated into an owner-only file when REA_HTTP_BEARER_TOKEN is unset,
// sessions bound to the credential that created them, the bound origin
// only, and `rea setup --http` registrations that carry the header.

// generatedTokenEnv runs REA without a token in its environment and with
// its runtime directory under the test (it does not exist yet).
func generatedTokenEnv(t *testing.T) (env []string, tokenPath string) {
	run := filepath.Join(t.TempDir(), "run")
	return []string{wire.BearerTokenEnv + "=", "XDG_RUNTIME_DIR=" + run}, filepath.Join(run, "rea", "http-token")
}

// readToken returns the token in path, checking the file's and its
// directory's modes.
func readToken(t *testing.T, path string) string {
	t.Helper()
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %o, want %o", p, fi.Mode().Perm(), want)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(string(b))
	if raw, err := hex.DecodeString(tok); err != nil || len(raw) != 32 {
		t.Fatalf("the token file holds %d bytes that are not 32 hex-encoded bytes", len(b))
	}
	return tok
}

// sessionCall posts one ping on session id with the Authorization header
// auth ("" sends none).
func sessionCall(t *testing.T, method, url, id, auth string) int {
	t.Helper()
	body := ""
	if method == http.MethodPost {
		body = `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	}
	status, _ := rawRequest(t, method, url, body, map[string]string{
		mcp.HeaderProtocolVersion: "2025-11-25", "Mcp-Session-Id": id, "Authorization": auth})
	return status
}

// notInFiles fails when secret occurs in any file under dir.
func notInFiles(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
}

// TestHTTPGeneratedToken: with REA_HTTP_BEARER_TOKEN unset, `rea mcp --http`
// on loopback generates a token into a 0600 file in a 0700 directory and
// names the file, never the token, on stderr; requests without it or with
// another are 401, a session replayed with another token is 401, a page on
// another loopback port is 403 even with the token. The token reaches
// neither the ledger nor stderr; a restart reuses it, unless the file had
// become readable by others, which replaces it.
func TestHTTPGeneratedToken(t *testing.T) {
	env, tokenPath := generatedTokenEnv(t)
	ledgerDir := t.TempDir()
	ledgerPath := filepath.Join(ledgerDir, "ledger.db")
	cmd, url, stderr := reaHTTPEnv(t, env, ledgerPath)
	if !strings.Contains(stderr, "generated into "+tokenPath) {
		t.Fatalf("stderr does not name the token file:\n%s", stderr)
	}
	tok := readToken(t, tokenPath)
	if strings.Contains(stderr, tok) {
		t.Fatal("stderr shows the token")
	}

	for _, tc := range []struct {
		name, auth string
		want       int
	}{
		{"missing", "", http.StatusUnauthorized},
		{"another token", "Bearer " + testToken, http.StatusUnauthorized},
		{"the token", "Bearer " + tok, http.StatusOK},
	} {
		if res := post(t, url, map[string]string{"Authorization": tc.auth}); res.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, res.StatusCode, tc.want)
		}
	}
	s := connectHTTP(t, url, "generated", tok)
	s.ok("binary_session", map[string]any{})

	host, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(url, "http://"), wire.HTTPEndpoint))
	for origin, want := range map[string]int{
		"http://" + host + ":" + port:               http.StatusOK,
		"http://" + host + ":" + otherPort(t, port): http.StatusForbidden,
		"http://localhost:" + otherPort(t, port):    http.StatusForbidden,
	} {
		if res := post(t, url, map[string]string{"Authorization": "Bearer " + tok, "Origin": origin}); res.StatusCode != want {
			t.Errorf("Origin %s: status %d, want %d", origin, res.StatusCode, want)
		}
	}

	// The session answers only its token; a replay changes nothing for it.
	id := s.c.GetSessionId()
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		for _, auth := range []string{"Bearer " + testToken, ""} {
			if got := sessionCall(t, m, url, id, auth); got != http.StatusUnauthorized {
				t.Errorf("%s on the session with %q: %d, want 401", m, auth, got)
			}
		}
	}
	if got := sessionCall(t, http.MethodPost, url, id, "Bearer "+tok); got != http.StatusOK {
		t.Fatalf("the session with its own token: %d", got)
	}
	s.ok("binary_session", map[string]any{})

	stopRea(t, cmd, syscall.SIGTERM, ledgerPath)
	notInFiles(t, ledgerDir, tok)

	// A restart reads the same token.
	cmd, url, stderr = reaHTTPEnv(t, env, ledgerPath)
	if !strings.Contains(stderr, "read from "+tokenPath) || readToken(t, tokenPath) != tok {
		t.Fatalf("restart did not reuse the token:\n%s", stderr)
	}
	connectHTTP(t, url, "again", tok).ok("binary_session", map[string]any{})
	stopRea(t, cmd, syscall.SIGTERM, ledgerPath)

	// A token file others could read is replaced, with a fresh token.
	if err := os.Chmod(tokenPath, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(tokenPath), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, url, stderr = reaHTTPEnv(t, env, ledgerPath)
	fresh := readToken(t, tokenPath) // 0600 and 0700 again
	if !strings.Contains(stderr, "generated into "+tokenPath) || fresh == tok || strings.Contains(stderr, fresh) {
		t.Fatalf("a readable token file was kept:\n%s", stderr)
	}
	if res := post(t, url, map[string]string{"Authorization": "Bearer " + tok}); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the replaced token: %d", res.StatusCode)
	}
	stopRea(t, cmd, syscall.SIGTERM, ledgerPath)
	notInFiles(t, ledgerDir, fresh)
}

// TestHTTPInsecureNoToken: --insecure-no-token serves a loopback client
// without a token and writes no token file; a session still answers only
// the credential it was created with (another token or none → 404), and
// the Origin rule still holds.
func TestHTTPInsecureNoToken(t *testing.T) {
	env, tokenPath := generatedTokenEnv(t)
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	cmd, url, stderr := reaHTTPEnv(t, env, ledgerPath, "--insecure-no-token")
	if !strings.Contains(stderr, "--insecure-no-token") {
		t.Fatalf("no warning on stderr:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Dir(tokenPath)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a token directory was made: %v", err)
	}
	open := connectHTTP(t, url, "no-token", "")
	open.ok("binary_session", map[string]any{})

	res := post(t, url, map[string]string{"Authorization": "Bearer " + testToken})
	held := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || held == "" {
		t.Fatalf("initialize with a token: %d %q", res.StatusCode, held)
	}
	other := "Bearer " + strings.Repeat("z", len(testToken))
	for _, tc := range []struct {
		id, auth string
		want     int
	}{
		{held, other, http.StatusNotFound},
		{held, "", http.StatusNotFound},
		{held, "Bearer " + testToken, http.StatusOK},
		{open.c.GetSessionId(), "Bearer " + testToken, http.StatusNotFound},
		{open.c.GetSessionId(), "", http.StatusOK},
	} {
		if got := sessionCall(t, http.MethodPost, url, tc.id, tc.auth); got != tc.want {
			t.Errorf("session %s with %q: %d, want %d", tc.id, tc.auth, got, tc.want)
		}
	}
	if got := sessionCall(t, http.MethodDelete, url, held, other); got != http.StatusNotFound {
		t.Errorf("DELETE with another token: %d", got)
	}
	if got := sessionCall(t, http.MethodPost, url, held, "Bearer "+testToken); got != http.StatusOK {
		t.Errorf("the session after a foreign DELETE: %d", got)
	}
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(url, "http://"), wire.HTTPEndpoint))
	if res := post(t, url, map[string]string{"Authorization": "", "Origin": "http://127.0.0.1:" + otherPort(t, port)}); res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign-port Origin without a token: %d", res.StatusCode)
	}
	stopRea(t, cmd, syscall.SIGTERM, ledgerPath)
}

// TestHTTPSetupRegistration: `rea setup --http URL` writes every
// HTTP-capable client's registration with the server's token in the
// Authorization header (never printing it), and a client built from that
// registration drives the real server; Claude Desktop is refused.
func TestHTTPSetupRegistration(t *testing.T) {
	env, tokenPath := generatedTokenEnv(t)
	home := t.TempDir()
	env = append(env, "HOME="+home)
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	cmd, url, _ := reaHTTPEnv(t, env, ledgerPath)
	tok := readToken(t, tokenPath)

	setup := func(args ...string) (int, string) {
		c := exec.Command(testkit.Rea(t), append([]string{"setup", "--http", url}, args...)...)
		c.Env = append(os.Environ(), env...)
		out, err := c.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if bytes.Contains(out, []byte(tok)) {
			t.Fatalf("rea setup printed the token:\n%s", out)
		}
		return c.ProcessState.ExitCode(), string(out)
	}
	code, out := setup("--client", "claude_code,codex,cursor,gemini_cli,windsurf")
	if code != 0 || strings.Count(out, "Authorization") != 5 || !strings.Contains(out, tokenPath) {
		t.Fatalf("setup exit %d:\n%s", code, out)
	}
	files := map[string]struct{ file, urlKey, headersKey string }{
		"claude_code": {".claude.json", "url", "headers"},
		"codex":       {".codex/config.toml", "url", "http_headers"},
		"cursor":      {".cursor/mcp.json", "url", "headers"},
		"gemini_cli":  {".gemini/settings.json", "httpUrl", "headers"},
		"windsurf":    {".codeium/windsurf/mcp_config.json", "serverUrl", "headers"},
	}
	for client, f := range files {
		b, err := os.ReadFile(filepath.Join(home, f.file))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]map[string]map[string]any
		if strings.HasSuffix(f.file, ".toml") {
			err = toml.Unmarshal(b, &doc)
		} else {
			err = json.Unmarshal(b, &doc)
		}
		table := "mcpServers"
		if client == "codex" {
			table = "mcp_servers"
		}
		ent := doc[table]["rea"]
		hdrs, _ := ent[f.headersKey].(map[string]any)
		if err != nil || ent[f.urlKey] != url || hdrs["Authorization"] != "Bearer "+tok {
			t.Fatalf("%s: %v: entry with %s=%v and %d headers", client, err, f.urlKey, ent[f.urlKey], len(hdrs))
		}
		// The registration drives the server.
		auth, _ := hdrs["Authorization"].(string)
		connectHTTP(t, ent[f.urlKey].(string), "registered-"+client, strings.TrimPrefix(auth, "Bearer ")).ok("binary_session", map[string]any{})
	}
	if code, out := setup("--client", "cursor"); code != 0 || !strings.Contains(out, "unchanged") {
		t.Fatalf("second setup exit %d:\n%s", code, out)
	}
	if code, out := setup("--client", "claude_desktop"); code != 1 || !strings.Contains(out, "invalid_request") {
		t.Fatalf("claude_desktop exit %d:\n%s", code, out)
	}
	stopRea(t, cmd, syscall.SIGTERM, ledgerPath)
}
