package tools_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/tools/wire"
)

// linkedReadTimeout is the request read deadline of the rea that
// TestHTTPSlowClientsAndConnectionCap runs (wire.RequestReadTimeout, 30 s,
// replaced at link time so the test takes seconds).
const linkedReadTimeout = 2 * time.Second

// cutWithin bounds how long after its dial a slow connection may stay
// open: well above linkedReadTimeout (the machine may be loaded), well
// below wire.RequestReadTimeout (so the linked deadline is what cut it).
const cutWithin = 20 * time.Second

// reaLinkedWithReadTimeout builds cmd/rea with linkedReadTimeout in place of
// wire.RequestReadTimeout. Only the link step differs from testkit.Rea's
// build, which the build cache keeps.
func reaLinkedWithReadTimeout(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rea")
	cmd := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X github.com/rea-re/rea/tools/wire.testReadTimeout="+linkedReadTimeout.String(), "github.com/rea-re/rea/cmd/rea")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// connCounter counts the open TCP connections of an HTTP client.
type connCounter struct{ open atomic.Int64 }

func (cc *connCounter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cc.open.Add(1)
	return &countedConn{Conn: c, cc: cc}, nil
}

type countedConn struct {
	net.Conn
	cc   *connCounter
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.cc.open.Add(-1) })
	return c.Conn.Close()
}

// bearerVia is bearer over a transport of the caller's.
type bearerVia struct {
	token string
	rt    http.RoundTripper
}

func (b bearerVia) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

// slowConn is one connection of the flood and what became of it.
type slowConn struct {
	kind   string // "header": headers never end; "body": authenticated, body never ends; "unauthenticated": no token, body never ends
	dialed time.Time

	// Set by watch once the server closed the connection (or cutWithin passed).
	status     string // status code of the answer, "" for none
	retryAfter string
	open       time.Duration // from dial to the close
	err        error         // the error that is not the close (cutWithin passed, …)
}

// slowRequest is what a slow connection of kind sends before it stalls.
func slowRequest(kind, addr string) string {
	head := "POST " + wire.HTTPEndpoint + " HTTP/1.1\r\nHost: " + addr + "\r\n"
	if kind == "header" {
		return head + "Content-Ty"
	}
	if kind == "body" {
		head += "Authorization: Bearer " + testToken + "\r\n"
	}
	return head + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Content-Length: 512\r\n\r\n" + `{"jsonrpc":"2.0","id":1,`
}

// flood dials one connection per kind, in order, each sending its slow
// request, calls dialed (if not nil) once all are, and returns once every
// one was closed by the server (or cutWithin passed). It holds at most
// len(kinds) sockets and goroutines.
func flood(t *testing.T, addr string, kinds []string, dialed func()) (conns []*slowConn, dialing time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	start := time.Now()
	for _, kind := range kinds {
		sc := &slowConn{kind: kind, dialed: time.Now()}
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", len(conns), err)
		}
		conns = append(conns, sc)
		// A refused connection may be closed before the write: its error
		// is the server's doing, read below.
		io.WriteString(c, slowRequest(kind, addr))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			sc.watch(c)
		}()
	}
	dialing = time.Since(start)
	if dialed != nil {
		dialed()
	}
	wg.Wait()
	return conns, dialing
}

// watch reads what the server answers until it closes the connection.
func (sc *slowConn) watch(c net.Conn) {
	c.SetReadDeadline(sc.dialed.Add(cutWithin))
	r := bufio.NewReader(io.LimitReader(c, 64<<10))
	if status, err := r.ReadString('\n'); err == nil {
		if f := strings.Fields(status); len(f) >= 2 {
			sc.status = f[1]
		}
		for {
			h, err := r.ReadString('\n')
			if err != nil || h == "\r\n" {
				break
			}
			if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(k, "Retry-After") {
				sc.retryAfter = strings.TrimSpace(v)
			}
		}
	}
	_, err := io.Copy(io.Discard, r)
	sc.open = time.Since(sc.dialed)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		sc.err = fmt.Errorf("still open %v after its dial", cutWithin)
	}
	// A reset (the server closing with our unread bytes) is a close too.
}

// TestHTTPSlowClientsAndConnectionCap: a real `rea mcp --http` (its read
// deadline linked at linkedReadTimeout) under 300 slow connections on
// loopback (CONTRACTS.md §0.3 "Resources"). With an authenticated client
// holding its POST and GET-stream connections, the connections that fill
// the remaining slots of the 256 are held and the next ones are answered
// 503 with Retry-After; each held one (headers that never end, or an
// authenticated body that never ends) is cut at the read deadline, as are
// the refused ones when dialed again; requests without the token are
// answered 401 and closed with their body unread. The authenticated
// client's calls succeed throughout, and a new client connects afterwards.
func TestHTTPSlowClientsAndConnectionCap(t *testing.T) {
	built := time.Now()
	bin := reaLinkedWithReadTimeout(t)
	t.Logf("rea linked with a %v read deadline in %v", linkedReadTimeout, time.Since(built))
	began := time.Now()
	defer func() { t.Logf("flood and checks: %v", time.Since(began)) }()
	_, url, _ := reaHTTPBinary(t, bin, []string{wire.BearerTokenEnv + "=" + testToken}, filepath.Join(t.TempDir(), "ledger.db"))
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), wire.HTTPEndpoint)

	// The steady client: mcp-go over a transport whose connections are
	// counted, with the GET stream that carries notifications.
	var steadyConns connCounter
	tr := &http.Transport{DialContext: steadyConns.dial, MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	steady, err := client.NewStreamableHttpClient(url, transport.WithContinuousListening(),
		transport.WithLogger(slog.New(slog.DiscardHandler)),
		transport.WithHTTPBasicClient(&http.Client{Transport: bearerVia{testToken, tr}}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := steady.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer steady.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "steady", Version: "1"}
	if _, err := steady.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	call := func() error {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "binary_session", map[string]any{}
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		defer ccancel()
		res, err := steady.CallTool(cctx, req)
		if err == nil && res.IsError {
			err = fmt.Errorf("binary_session answered an error: %v", res.Content)
		}
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	// The GET stream opens after initialize: wait for the POST connection
	// and it, and for the count to settle (the initialized notification
	// may have gone out on a connection of its own).
	for deadline, stable, last := time.Now().Add(10*time.Second), 0, int64(-1); time.Now().Before(deadline); {
		n := steadyConns.open.Load()
		if n >= 2 && n == last {
			if stable++; stable == 10 {
				break
			}
		} else {
			stable = 0
		}
		last = n
		time.Sleep(50 * time.Millisecond)
	}

	// Calls every 50 ms from here to the end of the flood (each logged
	// with the steady client's connection count when that changes).
	var calls, failed atomic.Int64
	var firstFailure atomic.Value
	stopCalls := make(chan struct{})
	callsDone := make(chan struct{})
	go func() {
		defer close(callsDone)
		last := steadyConns.open.Load()
		for {
			if n := steadyConns.open.Load(); n != last {
				t.Logf("%v: the steady client holds %d connections", time.Since(began).Round(time.Millisecond), n)
				last = n
			}
			select {
			case <-stopCalls:
				return
			case <-time.After(50 * time.Millisecond):
			}
			calls.Add(1)
			if err := call(); err != nil {
				failed.Add(1)
				firstFailure.CompareAndSwap(nil, err.Error())
			}
		}
	}()

	// Wave 1: 300 connections that hold their slot until the deadline.
	held := steadyConns.open.Load()
	kinds := make([]string, 300)
	for i := range kinds {
		kinds[i] = "body"
		if i%5 == 0 {
			kinds[i] = "header"
		}
	}
	var heldAfter int64
	wave1, dialing := flood(t, addr, kinds, func() { heldAfter = steadyConns.open.Load() })
	if heldAfter != held {
		// Its POST connections are the transport's to open and close.
		t.Logf("the steady client's connections went from %d to %d while the flood was dialed", held, heldAfter)
		dialing = linkedReadTimeout // only the lower bounds below hold
	}
	first503 := -1
	for i, sc := range wave1 {
		if sc.status == "503" {
			first503 = i
			break
		}
	}
	slots := wire.MaxHTTPConnections - int(held)
	t.Logf("steady client: %d connections; wave 1 dialed in %v; first 503 at connection %d of the flood", held, dialing, first503+1)
	switch {
	case first503 < 0:
		t.Fatalf("no connection of 300 was refused (the steady client holds %d, cap %d)", held, wire.MaxHTTPConnections)
	case first503 < slots:
		t.Errorf("connection %d of the flood was refused; %d slots were free", first503+1, slots)
	case first503 > slots && dialing < linkedReadTimeout:
		// Dialing outlasting the deadline frees slots as it goes: then
		// only the lower bound holds.
		t.Errorf("connection %d of the flood was the first refused, want %d (the %dth of the server)",
			first503+1, slots+1, wire.MaxHTTPConnections+1)
	}
	var refused int
	for i, sc := range wave1 {
		switch {
		case sc.err != nil:
			t.Errorf("wave 1 connection %d (%s): %v", i+1, sc.kind, sc.err)
		case sc.status == "503":
			refused++
			if sc.retryAfter == "" {
				t.Errorf("wave 1 connection %d: 503 without Retry-After", i+1)
			}
		case i >= first503 && dialing < linkedReadTimeout:
			t.Errorf("wave 1 connection %d (%s) was served (%q) after the server was full", i+1, sc.kind, sc.status)
		case sc.open < linkedReadTimeout:
			t.Errorf("wave 1 connection %d (%s) closed after %v, before the read deadline (answer %q)", i+1, sc.kind, sc.open, sc.status)
		case sc.kind == "body" && sc.status != "408":
			t.Errorf("wave 1 connection %d (slow body) answered %q, want 408", i+1, sc.status)
		}
	}

	// Wave 2: the refused ones again, now that the held ones are cut, and
	// 20 without the token.
	kinds = kinds[:0]
	for range refused {
		kinds = append(kinds, "body")
	}
	for range 20 {
		kinds = append(kinds, "unauthenticated")
	}
	wave2, _ := flood(t, addr, kinds, nil)
	var cut int
	for i, sc := range wave2 {
		switch {
		case sc.err != nil:
			t.Errorf("wave 2 connection %d (%s): %v", i+1, sc.kind, sc.err)
		case sc.kind == "unauthenticated":
			if sc.status != "401" {
				t.Errorf("wave 2 connection %d (no token, slow body) answered %q, want 401", i+1, sc.status)
			}
		case sc.status != "408" || sc.open < linkedReadTimeout:
			t.Errorf("wave 2 connection %d (slow body): answered %q, closed after %v", i+1, sc.status, sc.open)
		default:
			cut++
		}
	}
	for _, sc := range wave1 {
		if sc.status != "503" && sc.err == nil && sc.open >= linkedReadTimeout {
			cut++
		}
	}
	if cut != 300 {
		t.Errorf("%d slow connections were cut at the read deadline, want 300", cut)
	}

	close(stopCalls)
	<-callsDone
	if n := failed.Load(); n > 0 || calls.Load() < 10 {
		t.Errorf("steady client: %d of %d calls failed during the flood (first: %v)", n, calls.Load(), firstFailure.Load())
	}
	t.Logf("steady client: %d calls during the flood, all answered", calls.Load())
	// Every slot is free again: a new client connects and calls.
	if !sessionOpenOK(t, connectHTTP(t, url, "after", testToken)) {
		t.Error("a new client after the flood could not call")
	}
}

// sessionOpenOK: binary_session answers (no target is open).
func sessionOpenOK(t *testing.T, s *session) bool {
	t.Helper()
	return !sessionOpen(t, s)
}
