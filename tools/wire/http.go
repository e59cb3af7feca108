package wire

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
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine/fault"
)

// Streamable HTTP transport (CONTRACTS.md §4 and §0): one engine connection
// per MCP session, legacy protocol revisions only, loopback binds unless the
// operator allows remote clients, a bearer token on every bind (a loopback
// bind may opt out with InsecureNoToken), each session bound to the
// credential that created it, Origin and Host checks against DNS rebinding,
// and idle sessions expired with their connection.

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

	// RequestReadTimeout bounds the reading of a request's headers, and
	// separately of its body (CONTRACTS.md §0.3 "Resources"), so a client
	// that sends slowly cannot hold a connection for longer.
	RequestReadTimeout = 30 * time.Second
	// MaxHTTPConnections is how many connections the server keeps open at
	// once (CONTRACTS.md §0.3 "Resources"); another is answered 503 with
	// Retry-After and closed.
	MaxHTTPConnections = 256
)

// testReadTimeout, when set at link time (go build -ldflags
// "-X github.com/rea-re/rea/tools/wire.testReadTimeout=2s"), replaces
// RequestReadTimeout. Only tests build with it, so the deadline tests of a
// real `rea mcp --http` take seconds, not RequestReadTimeout; nothing at run
// time can set it (decision: no environment variable, the contract fixes 30 s).
var testReadTimeout string

// HTTPOptions configure ServeStreamableHTTP.
type HTTPOptions struct {
	Addr        string // host:port; host is an IP literal or "localhost"; port 0 picks one
	AllowRemote bool   // --allow-remote: permits a non-loopback Addr (with BearerToken)
	BearerToken string // REA_HTTP_BEARER_TOKEN; "" = read or generate one in TokenFile
	// TokenFile, used when BearerToken is "" on a loopback bind, is where
	// the token is read from or generated into (HTTPTokenPath,
	// LoadOrCreateHTTPToken) before anything binds.
	TokenFile string
	// InsecureNoToken (--insecure-no-token) serves a loopback bind without
	// a token; it excludes BearerToken and TokenFile.
	InsecureNoToken bool
	AllowedOrigins  []string      // --allowed-origin: exact Origin values accepted besides the bound origin
	SessionIdle     time.Duration // --session-idle; 0 = DefaultSessionIdle
	// Ready, when set, is called once with the bound address before the
	// first request is served (port 0 binds report their port this way).
	Ready func(net.Addr)
	// TokenFileReady, when set, is called with TokenFile once the token is
	// in it, and whether it was generated now (false: an existing one was
	// read). It never receives the token.
	TokenFileReady func(path string, generated bool)
}

// httpConfig is a validated HTTPOptions.
type httpConfig struct {
	bind     netip.AddrPort
	loopback bool
	token    []byte // sha256 of the token; nil = none (InsecureNoToken, or TokenFile not read yet)
	// originHost is the host of the bound origin as the operator named it
	// ("localhost" or the IP literal); "" for an unspecified (all
	// interfaces) bind, which has no origin of its own.
	originHost string
	self       string // the bound origin, http://originHost[:port]; "" = none
	origins    map[string]bool
	idle       time.Duration
	// readTimeout bounds the headers and, separately, the body of each
	// request; maxConns is the connection cap.
	readTimeout time.Duration
	maxConns    int
}

// setPort records the port actually bound (port 0 picks one).
func (c *httpConfig) setPort(port uint16) {
	c.bind = netip.AddrPortFrom(c.bind.Addr(), port)
	c.self = ""
	if c.originHost != "" {
		c.self, _ = normalizeOrigin("http://" + net.JoinHostPort(c.originHost, strconv.Itoa(int(port))))
	}
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
		c.originHost = "localhost"
	default:
		if ip, err = netip.ParseAddr(host); err != nil {
			return c, configInvalid("The --http host must be an IP address or localhost.",
				"Pass --http 127.0.0.1:PORT; a host name could resolve to a non-loopback address.",
				map[string]any{"reason": "http_address_invalid"})
		}
		ip = ip.Unmap()
		if !ip.IsUnspecified() {
			c.originHost = ip.String()
		}
	}
	c.bind, c.loopback = netip.AddrPortFrom(ip, uint16(port)), ip.IsLoopback()
	c.setPort(uint16(port))
	if o.BearerToken != "" {
		if err := CheckBearerToken(o.BearerToken); err != nil {
			return c, err
		}
		c.token = tokenDigest(o.BearerToken)
	}
	if !c.loopback {
		if !o.AllowRemote {
			return c, configInvalid("REA serves HTTP on loopback addresses only unless --allow-remote is given.",
				"Bind 127.0.0.1 or [::1], or pass --allow-remote and set "+BearerTokenEnv+".",
				map[string]any{"reason": "remote_bind_not_allowed"})
		}
		if o.InsecureNoToken {
			return c, configInvalid("--insecure-no-token applies to loopback binds only.",
				"Drop --insecure-no-token and set "+BearerTokenEnv+" to at least 32 random bytes.",
				map[string]any{"reason": "insecure_no_token_remote"})
		}
		// A generated token is for the local user's clients; an operator
		// exposing REA to the network chooses the secret (decision).
		if c.token == nil {
			return c, configInvalid("A non-loopback bind needs a bearer token.",
				"Set "+BearerTokenEnv+" to at least 32 random bytes.",
				map[string]any{"variable": BearerTokenEnv, "reason": "missing"})
		}
	}
	switch {
	case o.InsecureNoToken && (o.BearerToken != "" || o.TokenFile != ""):
		return c, configInvalid("--insecure-no-token was given although a bearer token is configured.",
			"Unset "+BearerTokenEnv+" to serve without a token, or drop --insecure-no-token.",
			map[string]any{"variable": BearerTokenEnv, "reason": "token_conflict"})
	case o.InsecureNoToken || c.token != nil:
	case o.TokenFile == "":
		return c, configInvalid("Serving HTTP needs a bearer token, and REA has no place to write a generated one.",
			"Set "+BearerTokenEnv+" to at least 32 random bytes, or set XDG_RUNTIME_DIR or HOME so REA can generate one "+
				"(or pass --insecure-no-token to serve loopback clients without one).",
			map[string]any{"variable": BearerTokenEnv, "reason": "missing"})
	case !filepath.IsAbs(o.TokenFile):
		return c, configInvalid("The bearer token file must be an absolute path.", "Set XDG_RUNTIME_DIR or HOME to an absolute path.",
			map[string]any{"reason": "token_file_invalid"})
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
	c.readTimeout, c.maxConns = RequestReadTimeout, MaxHTTPConnections
	if d, err := time.ParseDuration(testReadTimeout); err == nil && d > 0 {
		c.readTimeout = d
	}
	return c, nil
}

// normalizeOrigin returns the serialized origin of an http(s) URL with no
// path, query, fragment or user info: scheme and host lower case, an IP
// literal in its canonical form, the scheme's default port omitted (as
// browsers send it).
func normalizeOrigin(v string) (string, bool) {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.Unmap().String()
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return "", false
		}
		if !(scheme == "http" && n == 80) && !(scheme == "https" && n == 443) {
			host += ":" + strconv.FormatUint(n, 10)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", false
	}
	return scheme + "://" + host, true
}

// Connections is what the HTTP transport needs of the server behind it:
// the engine connection of each MCP session, to close when the session
// ends. The transport never sees the connections themselves.
type Connections interface {
	// Detach forgets the connection of MCP session id and returns what
	// closes it with a reason; nil when the session has none.
	Detach(id string) func(ctx context.Context, reason string)
	// CloseAll closes every connection left (server shutdown).
	CloseAll(ctx context.Context, reason string)
}

// ServeStreamableHTTP serves srv over streamable HTTP until ctx ends, then
// cancels in-flight calls and closes every connection (server_shutdown).
func ServeStreamableHTTP(ctx context.Context, srv *server.MCPServer, conns Connections, opts HTTPOptions) error {
	cfg, err := opts.check()
	if err != nil {
		return err
	}
	if cfg.token == nil && !opts.InsecureNoToken {
		tok, generated, err := LoadOrCreateHTTPToken(opts.TokenFile)
		if err != nil {
			return err
		}
		cfg.token = tokenDigest(tok)
		if opts.TokenFileReady != nil {
			opts.TokenFileReady(opts.TokenFile, generated)
		}
	}
	ln, err := net.Listen("tcp", cfg.bind.String())
	if err != nil {
		return fault.New(fault.ExecutionFailure, "REA could not listen on the --http address.",
			"Choose a free port, or port 0 for any.", map[string]any{"reason": "listen_failed"}).WithCause(err)
	}
	if ap, perr := netip.ParseAddrPort(ln.Addr().String()); perr == nil {
		cfg.setPort(ap.Port()) // port 0 → the chosen one
	}
	if opts.Ready != nil {
		opts.Ready(ln.Addr())
	}
	return serveHTTP(ctx, srv, conns, newConnLimit(ln, cfg.maxConns), cfg)
}

func serveHTTP(ctx context.Context, srv *server.MCPServer, conns Connections, ln net.Listener, cfg httpConfig) error {
	ids := newHTTPSessions(conns)
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	hs := &http.Server{
		// The body's deadline is set by httpGuard, per request: a server-wide
		// ReadTimeout would also end the GET streams and the SSE answers of
		// long calls, whose contexts net/http cancels when a read deadline
		// passes after the body.
		ReadHeaderTimeout: cfg.readTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// Cancelled at shutdown: in-flight calls see cancellation and GET
		// streams end, so closing their connections does not wait on them.
		BaseContext: func(net.Listener) context.Context { return base },
		ErrorLog:    log.New(io.Discard, "", 0),
	}
	sh := server.NewStreamableHTTPServer(srv,
		server.WithEndpointPath(HTTPEndpoint),
		server.WithStreamableHTTPServer(hs),
		server.WithSessionIdManagerResolver(ids),
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
	conns.CloseAll(context.WithoutCancel(ctx), "server_shutdown") // sessions mcp-go no longer tracked
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
	if r.ContentLength != 0 { // a body follows (-1: chunked)
		// The body gets its own deadline (CONTRACTS.md §0.3 "Resources");
		// serveMessage lifts it once the body is in. A refusal below
		// leaves it standing, so net/http's discarding of an unread body
		// cannot wait on a slow client either.
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(g.cfg.readTimeout))
	}
	if !g.hostAllowed(r.Host) {
		refuse(w, "Forbidden: the Host header does not name this server", http.StatusForbidden)
		return
	}
	if origins := r.Header.Values("Origin"); len(origins) > 1 || (len(origins) == 1 && !g.originAllowed(origins[0])) {
		refuse(w, "Forbidden: Origin not allowed", http.StatusForbidden)
		return
	}
	cred := credential(r)
	if g.cfg.token != nil && subtle.ConstantTimeCompare(cred[:], g.cfg.token) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="rea"`)
		refuse(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	}
	id := r.Header.Get(server.HeaderKeySessionID)
	if !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
		// mcp-go does not validate the session of a GET (it would create
		// one) or a DELETE (it would answer 200 for any id); a stateful
		// server answers an unknown session with 404 so the client starts
		// over.
		if id == "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) {
			refuse(w, "Bad Request: Mcp-Session-Id header required", http.StatusBadRequest)
			return
		}
		// A session answers only the credential that created it; to any
		// other it does not exist.
		if id != "" && !g.ids.heldBy(id, cred) {
			refuse(w, "Session not found", http.StatusNotFound)
			return
		}
		if r.Method == http.MethodDelete {
			g.ids.setReason(id, "client_closed")
		}
	}
	if id != "" && r.Method == http.MethodPost {
		g.ids.enter(id)
		defer g.ids.leave(id)
	}
	g.serveMessage(w, r)
}

// refuse answers a request the guard turns away and closes its connection
// after the answer: a client without the token (or with a forged Host or
// Origin) keeps no connection, idle or with its body unread, that would
// count against MaxHTTPConnections.
func refuse(w http.ResponseWriter, message string, code int) {
	w.Header().Set("Connection", "close")
	http.Error(w, message, code)
}

// noCredential is the credential of a request without a bearer token.
var noCredential = sha256.Sum256(nil)

// credential is the digest of the request's bearer token (noCredential when
// there is none). Digests of equal length are what is compared, in constant
// time, so neither the token's content nor its length leaks.
func credential(r *http.Request) [sha256.Size]byte {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return noCredential
	}
	return sha256.Sum256([]byte(strings.TrimSpace(tok)))
}

func tokenDigest(tok string) []byte {
	sum := sha256.Sum256([]byte(tok))
	return sum[:]
}

// CheckBearerToken accepts at least 32 bytes of printable ASCII without spaces
// (what an Authorization header carries unaltered). The refusal never
// echoes the token.
func CheckBearerToken(tok string) error {
	if len(tok) < minBearerToken {
		return configInvalid("The bearer token is shorter than 32 bytes.",
			"Set "+BearerTokenEnv+" to at least 32 random bytes (for example `openssl rand -hex 32`).",
			map[string]any{"variable": BearerTokenEnv, "reason": "too_short"})
	}
	for i := 0; i < len(tok); i++ {
		if b := tok[i]; b < 0x21 || b > 0x7e {
			return configInvalid("The bearer token must be printable ASCII without spaces.",
				"Set "+BearerTokenEnv+" to a hex or base64 string.",
				map[string]any{"variable": BearerTokenEnv, "reason": "invalid"})
		}
	}
	return nil
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

// originAllowed: the bound origin itself (scheme, host and port, as the
// --http address names it) or an exact --allowed-origin value. A page on
// another loopback port is another origin and is refused, as is "null"
// (sandboxed or file: pages).
func (g *httpGuard) originAllowed(origin string) bool {
	norm, ok := normalizeOrigin(origin)
	return ok && ((g.cfg.self != "" && norm == g.cfg.self) || g.cfg.origins[norm])
}

// httpSessions is the session id manager: ids are 128-bit random, live
// until DELETE, idle expiry or shutdown, each bound to the credential of the
// request that created it. Terminating one closes its engine connection
// with the reason that ended it.
type httpSessions struct {
	conns Connections

	mu       sync.Mutex
	live     map[string][sha256.Size]byte // id → credential that created it
	reasons  map[string]string            // set by the transport before mcp-go terminates
	inflight map[string]int               // POSTs being served, by session
	ended    map[string]string            // sessions terminated while a POST was in flight → reason
	shutdown bool
	closing  sync.WaitGroup
}

func newHTTPSessions(conns Connections) *httpSessions {
	return &httpSessions{conns: conns, live: map[string][sha256.Size]byte{}, reasons: map[string]string{},
		inflight: map[string]int{}, ended: map[string]string{}}
}

// ResolveSessionIdManager gives mcp-go, per request, a manager whose
// Generate binds the new session to that request's credential; without a
// request (the idle sweeper, shutdown) the shared one.
func (m *httpSessions) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r == nil {
		return m
	}
	return boundSessions{m, credential(r)}
}

// boundSessions is httpSessions seen from one request.
type boundSessions struct {
	*httpSessions
	cred [sha256.Size]byte
}

func (b boundSessions) Generate() string { return b.generate(b.cred) }

// Generate binds to no credential; mcp-go generates through a request's
// boundSessions.
func (m *httpSessions) Generate() string { return m.generate(noCredential) }

func (m *httpSessions) generate(cred [sha256.Size]byte) string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics on a broken source)
	id := "mcp-session-" + hex.EncodeToString(b[:])
	m.mu.Lock()
	m.live[id] = cred
	m.mu.Unlock()
	return id
}

// heldBy reports whether id is a live session created with cred (compared
// in constant time).
func (m *httpSessions) heldBy(id string, cred [sha256.Size]byte) bool {
	m.mu.Lock()
	bound, ok := m.live[id]
	m.mu.Unlock()
	return ok && subtle.ConstantTimeCompare(bound[:], cred[:]) == 1
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
	closer := m.detach(id)
	if reason == "idle_timeout" {
		// Close waits for a call still running; the sweeper must not.
		go m.closeConn(closer, reason)
	} else {
		m.closeConn(closer, reason)
	}
	return false, nil
}

func (m *httpSessions) detach(id string) func(context.Context, string) {
	return m.conns.Detach(id)
}

func (m *httpSessions) closeConn(closeConn func(context.Context, string), reason string) {
	defer m.closing.Done()
	if closeConn != nil {
		closeConn(context.Background(), reason)
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
