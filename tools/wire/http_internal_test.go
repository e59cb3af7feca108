package wire

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/ledger"
)

// TestBoundedEventStore: replay follows one stream after the given id; a
// session keeps at most maxSessionEvents events and the oldest go first.
func TestBoundedEventStore(t *testing.T) {
	ctx := context.Background()
	b := newBoundedEventStore()
	var ids []string
	for i := range 10 {
		stream := "s1"
		if i%2 == 1 {
			stream = "s2"
		}
		id, err := b.StoreEvent(ctx, "sess", stream, json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var got []string
	stream, err := b.ReplayEventsAfter(ctx, "sess", ids[2], func(id string, m json.RawMessage) error {
		got = append(got, string(m))
		return nil
	})
	if err != nil || stream != "s1" || fmt.Sprint(got) != `[{"n":4} {"n":6} {"n":8}]` {
		t.Fatalf("replay after %s: %s %v %v", ids[2], stream, got, err)
	}
	for _, bad := range []struct{ sess, id string }{{"other", ids[0]}, {"sess", "999"}, {"sess", "x"}, {"sess", ""}} {
		if _, err := b.ReplayEventsAfter(ctx, bad.sess, bad.id, func(string, json.RawMessage) error { return nil }); !errors.Is(err, server.ErrUnknownEventID) {
			t.Fatalf("replay %v: %v", bad, err)
		}
	}
	sendErr := errors.New("gone")
	if _, err := b.ReplayEventsAfter(ctx, "sess", ids[0], func(string, json.RawMessage) error { return sendErr }); !errors.Is(err, sendErr) {
		t.Fatalf("send error: %v", err)
	}

	for range maxSessionEvents + 100 {
		b.StoreEvent(ctx, "big", "s", json.RawMessage(`{}`))
	}
	if n := len(b.sessions["big"].events); n != maxSessionEvents {
		t.Fatalf("%d events kept, want %d", n, maxSessionEvents)
	}
	if _, err := b.ReplayEventsAfter(ctx, "big", ids[0], func(string, json.RawMessage) error { return nil }); !errors.Is(err, server.ErrUnknownEventID) {
		t.Fatalf("trimmed id: %v", err)
	}
	large := json.RawMessage(`"` + string(make([]byte, 3<<20)) + `"`)
	for range 5 {
		b.StoreEvent(ctx, "large", "s", large)
	}
	if l := b.sessions["large"]; l.bytes > maxSessionBytes || len(l.events) != 2 {
		t.Fatalf("large: %d bytes in %d events", l.bytes, len(l.events))
	}
	b.PurgeSession(ctx, "sess")
	if _, err := b.ReplayEventsAfter(ctx, "sess", ids[8], func(string, json.RawMessage) error { return nil }); !errors.Is(err, server.ErrUnknownEventID) {
		t.Fatalf("after purge: %v", err)
	}
}

// TestHTTPGuardRemote: the Host and Origin rules of a remote bind (tests
// never bind one; the guard is checked directly).
func TestHTTPGuardRemote(t *testing.T) {
	cfg, err := HTTPOptions{Addr: "0.0.0.0:8443", AllowRemote: true, BearerToken: "0123456789abcdef0123456789abcdef",
		AllowedOrigins: []string{"https://App.Example:9000"}}.check()
	if err != nil {
		t.Fatal(err)
	}
	g := &httpGuard{cfg: cfg}
	for host, want := range map[string]bool{
		"192.0.2.1:8443": true, "[2001:db8::1]:8443": true, "192.0.2.1:9": false,
		"app.example:9000": true, "evil.example:8443": false, "localhost:8443": false,
	} {
		if got := g.hostAllowed(host); got != want {
			t.Errorf("host %q: %v, want %v", host, got, want)
		}
	}
	for origin, want := range map[string]bool{
		"https://app.example:9000": true, "https://APP.example:9000": true, "http://app.example:9000": false,
		"http://localhost:8443": false, "http://127.0.0.1": false, "null": false,
	} {
		if got := g.originAllowed(origin); got != want {
			t.Errorf("origin %q: %v, want %v", origin, got, want)
		}
	}
	specific, err := HTTPOptions{Addr: "192.0.2.7:80", AllowRemote: true, BearerToken: "0123456789abcdef0123456789abcdef"}.check()
	if err != nil {
		t.Fatal(err)
	}
	g = &httpGuard{cfg: specific}
	if specific.bind != netip.MustParseAddrPort("192.0.2.7:80") {
		t.Fatalf("bind %v", specific.bind)
	}
	for host, want := range map[string]bool{"192.0.2.7": true, "192.0.2.7:80": true, "192.0.2.8:80": false} {
		if got := g.hostAllowed(host); got != want {
			t.Errorf("host %q: %v, want %v", host, got, want)
		}
	}
}

// engineConns is the server's side of Connections over real engine
// connections, one per MCP session id, as tools.Server keeps them.
type engineConns struct {
	mu    sync.Mutex
	conns map[string]*engine.Connection
}

func (c *engineConns) Detach(id string) func(context.Context, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	conn := c.conns[id]
	delete(c.conns, id)
	if conn == nil {
		return nil
	}
	return func(ctx context.Context, reason string) { conn.Close(ctx, reason) }
}

func (c *engineConns) CloseAll(ctx context.Context, reason string) {
	c.mu.Lock()
	ids := make([]string, 0, len(c.conns))
	for id := range c.conns {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	for _, id := range ids {
		if closeConn := c.Detach(id); closeConn != nil {
			closeConn(ctx, reason)
		}
	}
}

// TestHTTPSessionsLateConnection: a request validated just before its
// session ended may open a connection for the dead id (tools' sessionFor);
// the last request of that session closes it with the reason the session
// ended.
func TestHTTPSessionsLateConnection(t *testing.T) {
	ctx := context.Background()
	led, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"})
	srv := &engineConns{conns: map[string]*engine.Connection{}}
	ids := newHTTPSessions(srv)
	open := func(id string) *engine.Connection {
		conn, err := eng.OpenConnection(ctx, session.Info{Transport: "http", ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		srv.mu.Lock()
		srv.conns[id] = conn
		srv.mu.Unlock()
		return conn
	}
	closedReason := func(connID string) string {
		var reason string
		led.Scan(ctx, 1, func(e ledger.Event) error {
			var d events.ConnectionClosedData
			if e.Type == "connection_closed" && json.Unmarshal(e.Data, &d) == nil && d.ConnectionID == connID {
				reason = d.Reason
			}
			return nil
		})
		return reason
	}

	id := ids.Generate()
	first := open(id)
	ids.enter(id)
	ids.enter(id)
	ids.setReason(id, "client_closed")
	ids.Terminate(id) // DELETE while two POSTs are in flight
	if r := closedReason(first.ID()); r != "client_closed" {
		t.Fatalf("first connection: %q", r)
	}
	late := open(id) // one of them reached sessionFor after the DELETE
	ids.leave(id)
	if r := closedReason(late.ID()); r != "" {
		t.Fatalf("closed while a request is still in flight: %q", r)
	}
	ids.leave(id)
	if r := closedReason(late.ID()); r != "client_closed" {
		t.Fatalf("late connection: %q", r)
	}
	srv.mu.Lock()
	n := len(srv.conns)
	srv.mu.Unlock()
	if n != 0 || len(ids.inflight) != 0 || len(ids.ended) != 0 {
		t.Fatalf("left behind: %d conns, %v, %v", n, ids.inflight, ids.ended)
	}

	// Idle expiry closes asynchronously with its own reason.
	id = ids.Generate()
	c := open(id)
	ids.Terminate(id)
	ids.wait()
	if r := closedReason(c.ID()); r != "idle_timeout" {
		t.Fatalf("idle: %q", r)
	}
	if _, err := ids.Validate(id); err == nil {
		t.Fatal("a terminated id validates")
	}
	ids.beginShutdown()
	id = ids.Generate()
	c = open(id)
	ids.Terminate(id)
	if r := closedReason(c.ID()); r != "server_shutdown" {
		t.Fatalf("shutdown: %q", r)
	}
}

// BenchmarkHTTPGuardCredential: what the token check and the session
// binding add to a request over the first edition's tokenless loopback
// path: one SHA-256 of the Authorization value and two constant-time
// comparisons of digests (BENCHMARKS.md, issue 16).
func BenchmarkHTTPGuardCredential(b *testing.B) {
	ids := newHTTPSessions(nil)
	tok := "0123456789abcdef0123456789abcdef-test-token"
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	id := ids.generate(credential(r))
	want := tokenDigest(tok)
	for b.Loop() {
		cred := credential(r)
		if subtle.ConstantTimeCompare(cred[:], want) != 1 || !ids.heldBy(id, cred) {
			b.Fatal("refused")
		}
	}
}

// TestNormalizeOrigin: origins compare by scheme, host and port, as a
// browser serializes them.
func TestNormalizeOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8765":     "http://127.0.0.1:8765",
		"HTTP://LOCALHOST:8765/":    "http://localhost:8765",
		"http://127.0.0.1:80":       "http://127.0.0.1",
		"https://app.example:443":   "https://app.example",
		"https://app.example:0443":  "https://app.example",
		"http://[::1]:8765":         "http://[::1]:8765",
		"http://[0:0:0:0:0:0:0:1]":  "http://[::1]",
		"http://[::ffff:127.0.0.1]": "http://127.0.0.1",
		"null":                      "",
		"http://a.example:0":        "",
		"http://a.example:":         "",
		"http://a.example:99999":    "",
		"ftp://a.example":           "",
		"http://u@a.example":        "",
		"http://a.example/path":     "",
		"http://a.example?q":        "",
	} {
		got, ok := normalizeOrigin(in)
		if got != want || ok != (want != "") {
			t.Errorf("normalizeOrigin(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestHTTPTokenFile: where the generated token lives, and when an existing
// file is reused or replaced.
func TestHTTPTokenFile(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	for _, tc := range []struct {
		env  func(string) (string, bool)
		want string
	}{
		{env("XDG_RUNTIME_DIR", "/run/user/1000", "XDG_STATE_HOME", "/s", "HOME", "/h"), "/run/user/1000/rea/http-token"},
		{env("XDG_RUNTIME_DIR", "", "XDG_STATE_HOME", "/s", "HOME", "/h"), "/s/rea/http-token"},
		{env("XDG_RUNTIME_DIR", "run", "XDG_STATE_HOME", "state", "HOME", "/h"), "/h/.local/state/rea/http-token"},
		{env("HOME", "/h"), "/h/.local/state/rea/http-token"},
		{env("HOME", "h"), ""},
		{env(), ""},
	} {
		got, ok := HTTPTokenPath(tc.env)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("HTTPTokenPath = %q %v, want %q", got, ok, tc.want)
		}
	}

	dir := filepath.Join(t.TempDir(), "a", "rea")
	path := filepath.Join(dir, "http-token")
	tok, generated, err := LoadOrCreateHTTPToken(path)
	if err != nil || !generated || len(tok) != 64 {
		t.Fatalf("first: %d bytes, %v, %v", len(tok), generated, err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700, filepath.Dir(dir): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want %o", p, err, fi.Mode(), want)
		}
	}
	if again, generated, err := LoadOrCreateHTTPToken(path); err != nil || generated || again != tok {
		t.Fatalf("reuse: %v %v", generated, err)
	}
	// Replaced: too short, readable by others, a symlink (its target is
	// left alone).
	target := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(target, []byte(tok), 0o600)
	for name, prepare := range map[string]func() error{
		"short":    func() error { return os.WriteFile(path, []byte("abc\n"), 0o600) },
		"readable": func() error { return os.Chmod(path, 0o640) },
		"symlink":  func() error { os.Remove(path); return os.Symlink(target, path) },
	} {
		if err := prepare(); err != nil {
			t.Fatal(err)
		}
		fresh, generated, err := LoadOrCreateHTTPToken(path)
		fi, _ := os.Lstat(path)
		if err != nil || !generated || fresh == tok || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v %v", name, generated, err, fi.Mode())
		}
		tok = fresh
	}
	if b, _ := os.ReadFile(target); string(b) == tok {
		t.Fatal("the symlink's target was written")
	}
	// The directory cannot be made: execution_failure naming the path,
	// never a token.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	_, _, err = LoadOrCreateHTTPToken(filepath.Join(blocker, "rea", "http-token"))
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.ExecutionFailure || fe.Details["reason"] != "token_file_failed" {
		t.Fatalf("blocked: %v", err)
	}
}
