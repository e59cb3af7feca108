package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
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

// TestHTTPSessionsLateConnection: a request validated just before its
// session ended may open a connection for the dead id (sessionFor); the last
// request of that session closes it with the reason the session ended.
func TestHTTPSessionsLateConnection(t *testing.T) {
	ctx := context.Background()
	led, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"})
	srv := New(eng, Options{Transport: "http"})
	ids := newHTTPSessions(srv)
	open := func(id string) *engine.Connection {
		return srv.ensureSession(ctx, id, "2025-11-25", nil, events.ClientFeatures{}).conn
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
