package tools

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine/fault"
)

// Streamable HTTP transport (CONTRACTS.md §4): one engine connection per MCP
// session, legacy protocol revisions only, loopback binds unless the operator
// allows remote clients with a bearer token, Origin and Host checks against
// DNS rebinding, and idle sessions expired with their connection.

const (
	// BearerTokenEnv names the variable holding the bearer token. It is never
	// a flag: `ps` would show it.
	BearerTokenEnv = "REA_HTTP_BEARER_TOKEN"
	// DefaultSessionIdle is how long a session may stay silent before it and
	// its connection are closed.
	DefaultSessionIdle = 30 * time.Minute
	// HTTPEndpoint is the MCP endpoint path.
	HTTPEndpoint = "/mcp"

	minBearerToken   = 32
	maxRequestBody   = 8 << 20 // tool arguments are small; files are read from disk, never posted
	shutdownGrace    = 10 * time.Second
	maxSessionEvents = 512     // per session, for stream resumption
	maxSessionBytes  = 8 << 20 // per session, for stream resumption
)

// HTTPOptions configure ServeStreamableHTTP.
type HTTPOptions struct {
	Addr           string        // host:port; host is an IP literal or "localhost"; port 0 picks one
	AllowRemote    bool          // --allow-remote: permits a non-loopback Addr (with BearerToken)
	BearerToken    string        // REA_HTTP_BEARER_TOKEN; "" = none (loopback binds only)
	AllowedOrigins []string      // --allowed-origin: exact Origin values accepted besides loopback ones
	SessionIdle    time.Duration // --session-idle; 0 = DefaultSessionIdle
	// Ready, when set, is called once with the bound address before the
	// first request is served (port 0 binds report their port this way).
	Ready func(net.Addr)
}

// httpConfig is a validated HTTPOptions.
type httpConfig struct {
	bind     netip.AddrPort
	loopback bool
	token    []byte // sha256 of the token; nil = none
	origins  map[string]bool
	idle     time.Duration
}

func configInvalid(message, action string, details map[string]any) *fault.Error {
	return fault.New(fault.ConfigurationInvalid, message, action, details)
}

// Validate reports a refused configuration (configuration_invalid) without
// binding, so a command can refuse before it opens anything.
func (o HTTPOptions) Validate() error {
	_, err := o.check()
	return err
}

// check validates the options; every refusal is configuration_invalid and
// never echoes the token.
func (o HTTPOptions) check() (httpConfig, error) {
	var c httpConfig
	host, portText, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return c, configInvalid("The --http address must be HOST:PORT.",
			"Pass --http 127.0.0.1:PORT (or [::1]:PORT).", map[string]any{"reason": "http_address_invalid"})
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return c, configInvalid("The --http port must be a number from 0 to 65535.",
			"Pass --http 127.0.0.1:PORT.", map[string]any{"reason": "http_address_invalid"})
	}
	var ip netip.Addr
	switch {
	case host == "":
		ip = netip.IPv4Unspecified() // every interface: a remote bind
	case strings.EqualFold(host, "localhost"):
		// Not resolved: /etc/hosts could map localhost anywhere.
		ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	default:
		if ip, err = netip.ParseAddr(host); err != nil {
			return c, configInvalid("The --http host must be an IP address or localhost.",
				"Pass --http 127.0.0.1:PORT; a host name could resolve to a non-loopback address.",
				map[string]any{"reason": "http_address_invalid"})
		}
		ip = ip.Unmap()
	}
	c.bind, c.loopback = netip.AddrPortFrom(ip, uint16(port)), ip.IsLoopback()
	if o.BearerToken != "" {
		if len(o.BearerToken) < minBearerToken {
			return c, configInvalid("The bearer token is shorter than 32 bytes.",
				"Set "+BearerTokenEnv+" to at least 32 random bytes (for example `openssl rand -hex 32`).",
				map[string]any{"variable": BearerTokenEnv, "reason": "too_short"})
		}
		for i := 0; i < len(o.BearerToken); i++ {
			if b := o.BearerToken[i]; b < 0x21 || b > 0x7e {
				return c, configInvalid("The bearer token must be printable ASCII without spaces.",
					"Set "+BearerTokenEnv+" to a hex or base64 string.",
					map[string]any{"variable": BearerTokenEnv, "reason": "invalid"})
			}
		}
		sum := sha256.Sum256([]byte(o.BearerToken))
		c.token = sum[:]
	}
	if !c.loopback {
		if !o.AllowRemote {
			return c, configInvalid("REA serves HTTP on loopback addresses only unless --allow-remote is given.",
				"Bind 127.0.0.1 or [::1], or pass --allow-remote and set "+BearerTokenEnv+".",
				map[string]any{"reason": "remote_bind_not_allowed"})
		}
		if c.token == nil {
			return c, configInvalid("A non-loopback bind needs a bearer token.",
				"Set "+BearerTokenEnv+" to at least 32 random bytes.",
				map[string]any{"variable": BearerTokenEnv, "reason": "missing"})
		}
	}
	c.origins = map[string]bool{}
	for _, v := range o.AllowedOrigins {
		norm, ok := normalizeOrigin(v)
		if !ok {
			return c, configInvalid("An --allowed-origin value is not an origin (scheme://host[:port]).",
				"Pass origins such as https://app.example:8443, without a path.",
				map[string]any{"reason": "allowed_origin_invalid"})
		}
		c.origins[norm] = true
	}
	switch {
	case o.SessionIdle < 0:
		return c, configInvalid("--session-idle must be positive.", "Pass a duration such as 30m.",
			map[string]any{"reason": "session_idle_invalid"})
	case o.SessionIdle == 0:
		c.idle = DefaultSessionIdle
	default:
		c.idle = o.SessionIdle
	}
	return c, nil
}

// normalizeOrigin returns the serialized origin of an http(s) URL with no
// path, query, fragment or user info.
func normalizeOrigin(v string) (string, bool) {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	return scheme + "://" + strings.ToLower(u.Host), true
}

// ServeStreamableHTTP serves MCP over streamable HTTP until ctx ends, then
// cancels in-flight calls and closes every connection (server_shutdown).
func (s *Server) ServeStreamableHTTP(ctx context.Context, opts HTTPOptions) error {
	cfg, err := opts.check()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.bind.String())
	if err != nil {
		return fault.New(fault.ExecutionFailure, "REA could not listen on the --http address.",
			"Choose a free port, or port 0 for any.", map[string]any{"reason": "listen_failed"}).WithCause(err)
	}
	if ap, perr := netip.ParseAddrPort(ln.Addr().String()); perr == nil {
		cfg.bind = netip.AddrPortFrom(cfg.bind.Addr(), ap.Port()) // port 0 → the chosen one
	}
	if opts.Ready != nil {
		opts.Ready(ln.Addr())
	}
	return s.serveHTTP(ctx, ln, cfg)
}

func (s *Server) serveHTTP(ctx context.Context, ln net.Listener, cfg httpConfig) error {
	ids := &httpSessions{srv: s, live: map[string]struct{}{}, reasons: map[string]string{},
		inflight: map[string]int{}, ended: map[string]string{}}
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	hs := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// Cancelled at shutdown: in-flight calls see cancellation and GET
		// streams end, so closing their connections does not wait on them.
		BaseContext: func(net.Listener) context.Context { return base },
		ErrorLog:    log.New(io.Discard, "", 0),
	}
	sh := server.NewStreamableHTTPServer(s.mcp,
		server.WithEndpointPath(HTTPEndpoint),
		server.WithStreamableHTTPServer(hs),
		server.WithSessionIdManager(ids),
		server.WithSessionIdleTTL(cfg.idle),
		server.WithEventStore(newBoundedEventStore()),
		server.WithStreamableHTTPProtocolVersions(mcp.LegacyProtocolVersions()...),
		server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)),
	)
	mux := http.NewServeMux()
	mux.Handle(HTTPEndpoint, sh)
	hs.Handler = &httpGuard{cfg: cfg, ids: ids, next: mux}

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	var serveErr error
	select {
	case serveErr = <-served:
	case <-ctx.Done():
	}
	ids.beginShutdown()
	cancelBase()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := sh.Shutdown(sctx); err != nil {
		hs.Close()
	}
	ids.wait()
	s.CloseAll(context.WithoutCancel(ctx), "server_shutdown") // sessions mcp-go no longer tracked
	if serveErr == nil {
		serveErr = <-served
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fault.New(fault.ExecutionFailure, "The HTTP listener failed.", "Restart `rea mcp --http`.",
			map[string]any{"reason": "listen_failed"}).WithCause(serveErr)
	}
	return nil
}

// httpGuard runs the transport's security checks before any MCP handling.
type httpGuard struct {
	cfg  httpConfig
	ids  *httpSessions
	next http.Handler
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		http.Error(w, "Forbidden: the Host header does not name this server", http.StatusForbidden)
		return
	}
	if origins := r.Header.Values("Origin"); len(origins) > 1 || (len(origins) == 1 && !g.originAllowed(origins[0])) {
		http.Error(w, "Forbidden: Origin not allowed", http.StatusForbidden)
		return
	}
	if g.cfg.token != nil && !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="rea"`)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	}
	// mcp-go does not validate the session of a GET (it would create one) or
	// a DELETE (it would answer 200 for any id); a stateful server answers an
	// unknown session with 404 so the client starts over.
	if (r.Method == http.MethodGet || r.Method == http.MethodDelete) && !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
		id := r.Header.Get(server.HeaderKeySessionID)
		if id == "" {
			http.Error(w, "Bad Request: Mcp-Session-Id header required", http.StatusBadRequest)
			return
		}
		if !g.ids.isLive(id) {
			http.Error(w, "Session not found", http.StatusNotFound)
			return
		}
		if r.Method == http.MethodDelete {
			g.ids.setReason(id, "client_closed")
		}
	}
	if id := r.Header.Get(server.HeaderKeySessionID); id != "" && r.Method == http.MethodPost {
		g.ids.enter(id)
		defer g.ids.leave(id)
	}
	g.serveMessage(w, r)
}

// hostAllowed: the Host header must name the bound address (DNS-rebinding
// guard): for loopback binds the bound IP or localhost, on the bound port.
// Remote binds also accept the host of an --allowed-origin, which is how a
// client reaching the server by name presents itself.
func (g *httpGuard) hostAllowed(hostHeader string) bool {
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil {
		host, port = hostHeader, "80"
	}
	if port != strconv.Itoa(int(g.cfg.bind.Port())) {
		if g.cfg.loopback {
			return false
		}
		return g.originHostAllowed(hostHeader)
	}
	bound := g.cfg.bind.Addr()
	if strings.EqualFold(host, "localhost") {
		return g.cfg.loopback
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if err == nil {
		ip = ip.Unmap()
		if ip == bound || (!g.cfg.loopback && bound.IsUnspecified()) {
			return true
		}
	}
	return !g.cfg.loopback && g.originHostAllowed(hostHeader)
}

func (g *httpGuard) originHostAllowed(hostHeader string) bool {
	h := strings.ToLower(hostHeader)
	for o := range g.cfg.origins {
		if u, err := url.Parse(o); err == nil && u.Host == h {
			return true
		}
	}
	return false
}

// originAllowed: a loopback origin (for loopback binds) or an exact
// --allowed-origin value. "null" (sandboxed or file: pages) is refused.
func (g *httpGuard) originAllowed(origin string) bool {
	norm, ok := normalizeOrigin(origin)
	if !ok {
		return false
	}
	if g.cfg.origins[norm] {
		return true
	}
	if !g.cfg.loopback {
		return false
	}
	u, err := url.Parse(norm)
	if err != nil {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// authorized compares the bearer token in constant time (digests of equal
// length, so neither the content nor the length leaks).
func (g *httpGuard) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], g.cfg.token) == 1
}

// httpSessions is the session id manager: ids are 128-bit random, live
// until DELETE, idle expiry or shutdown. Terminating one closes its engine
// connection with the reason that ended it.
type httpSessions struct {
	srv *Server

	mu       sync.Mutex
	live     map[string]struct{}
	reasons  map[string]string // set by the transport before mcp-go terminates
	inflight map[string]int    // POSTs being served, by session
	ended    map[string]string // sessions terminated while a POST was in flight → reason
	shutdown bool
	closing  sync.WaitGroup
}

func (m *httpSessions) Generate() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics on a broken source)
	id := "mcp-session-" + hex.EncodeToString(b[:])
	m.mu.Lock()
	m.live[id] = struct{}{}
	m.mu.Unlock()
	return id
}

func (m *httpSessions) Validate(id string) (isTerminated bool, err error) {
	if !m.isLive(id) {
		return false, errors.New("unknown session")
	}
	return false, nil
}

// Terminate is called by mcp-go on DELETE, idle expiry and shutdown, before
// it unregisters the session (whose hook would then find nothing to close).
func (m *httpSessions) Terminate(id string) (isNotAllowed bool, err error) {
	m.mu.Lock()
	_, ok := m.live[id]
	delete(m.live, id)
	reason, marked := m.reasons[id]
	delete(m.reasons, id)
	switch {
	case marked:
	case m.shutdown:
		reason = "server_shutdown"
	default:
		reason = "idle_timeout" // mcp-go's sweeper is the only unmarked caller
	}
	if ok {
		m.closing.Add(1)
		if m.inflight[id] > 0 {
			m.ended[id] = reason
		}
	}
	m.mu.Unlock()
	if !ok {
		return false, nil
	}
	// Detached now, before mcp-go's unregister hook could close it as
	// client_closed.
	sess := m.detach(id)
	if reason == "idle_timeout" {
		// Close waits for a call still running; the sweeper must not.
		go m.closeConn(sess, reason)
	} else {
		m.closeConn(sess, reason)
	}
	return false, nil
}

func (m *httpSessions) detach(id string) *session {
	m.srv.mu.Lock()
	defer m.srv.mu.Unlock()
	sess := m.srv.conns[id]
	delete(m.srv.conns, id)
	return sess
}

func (m *httpSessions) closeConn(sess *session, reason string) {
	defer m.closing.Done()
	if sess != nil && sess.conn != nil {
		sess.conn.Close(context.Background(), reason)
	}
}

func (m *httpSessions) enter(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inflight[id]++
}

// leave ends one POST. A request validated just before its session ended
// can reach a handler that opens a connection for the dead id; the last
// such request closes it with the reason the session ended.
func (m *httpSessions) leave(id string) {
	m.mu.Lock()
	m.inflight[id]--
	if m.inflight[id] > 0 {
		m.mu.Unlock()
		return
	}
	delete(m.inflight, id)
	reason, ended := m.ended[id]
	delete(m.ended, id)
	if ended {
		m.closing.Add(1)
	}
	m.mu.Unlock()
	if ended {
		m.closeConn(m.detach(id), reason)
	}
}

func (m *httpSessions) isLive(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.live[id]
	return ok
}

func (m *httpSessions) setReason(id, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.live[id]; ok {
		m.reasons[id] = reason
	}
}

func (m *httpSessions) beginShutdown() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutdown = true
}

func (m *httpSessions) wait() { m.closing.Wait() }

// boundedEventStore is mcp-go's resumption store with a per-session bound:
// mcp-go records every SSE message of a session until it ends, which for a
// long session is without limit. The oldest events go first; resuming from
// one of them is answered as an unknown event id.
type boundedEventStore struct {
	mu       sync.Mutex
	seq      int64
	sessions map[string]*eventLog
}

type eventLog struct {
	events []storedEvent // seq ascending
	bytes  int
}

type storedEvent struct {
	seq    int64
	stream string
	msg    json.RawMessage
}

func newBoundedEventStore() *boundedEventStore {
	return &boundedEventStore{sessions: map[string]*eventLog{}}
}

func (b *boundedEventStore) StoreEvent(_ context.Context, sessionID, streamID string, message json.RawMessage) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.sessions[sessionID]
	if l == nil {
		l = &eventLog{}
		b.sessions[sessionID] = l
	}
	b.seq++
	l.events = append(l.events, storedEvent{seq: b.seq, stream: streamID, msg: append(json.RawMessage(nil), message...)})
	l.bytes += len(message)
	for len(l.events) > 1 && (len(l.events) > maxSessionEvents || l.bytes > maxSessionBytes) {
		l.bytes -= len(l.events[0].msg)
		l.events[0] = storedEvent{}
		l.events = l.events[1:]
	}
	return strconv.FormatInt(b.seq, 10), nil
}

func (b *boundedEventStore) ReplayEventsAfter(_ context.Context, sessionID, lastEventID string, send func(eventID string, message json.RawMessage) error) (string, error) {
	seq, err := strconv.ParseInt(lastEventID, 10, 64)
	b.mu.Lock()
	l := b.sessions[sessionID]
	if err != nil || l == nil {
		b.mu.Unlock()
		return "", fmt.Errorf("%w: %s", server.ErrUnknownEventID, lastEventID)
	}
	i := sort.Search(len(l.events), func(i int) bool { return l.events[i].seq >= seq })
	if i == len(l.events) || l.events[i].seq != seq {
		b.mu.Unlock()
		return "", fmt.Errorf("%w: %s", server.ErrUnknownEventID, lastEventID)
	}
	stream := l.events[i].stream
	var tail []storedEvent
	for _, e := range l.events[i+1:] {
		if e.stream == stream {
			tail = append(tail, e)
		}
	}
	b.mu.Unlock()
	for _, e := range tail {
		if err := send(strconv.FormatInt(e.seq, 10), e.msg); err != nil {
			return "", err
		}
	}
	return stream, nil
}

func (b *boundedEventStore) PurgeSession(_ context.Context, sessionID string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.sessions, sessionID)
	return nil
}
