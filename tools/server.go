// Package tools is REA's MCP surface: the tool catalog, handlers, per-connection
// availability and notifications. Handlers decode and validate input, call one
// engine method, and encode the result or the typed error envelope; business
// rules live in the engine.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/rea-re/rea/engine/evidence"
	engsession "github.com/rea-re/rea/engine/session"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/tools/catalog"
	"github.com/rea-re/rea/tools/schema"
	"github.com/rea-re/rea/tools/wire"
)

// CLICommand is one CLI command of the catalog digest (§3.3).
type CLICommand struct {
	Path  string   `json:"path"`
	Flags []string `json:"flags"`
}

// Options configure a Server.
type Options struct {
	Transport   string       // stdio | http
	CLICommands []CLICommand // for catalog digests
	BuildCommit string       // vcs.revision, "" when unknown
	// LookupEnv reads REA's own environment for the variables a capture
	// names (values reach only the captured child); nil: none.
	LookupEnv func(string) (string, bool)
	// Toolsets are the toolsets served (catalog.ParseToolsets); nil serves every
	// tool (catalog/toolsets.go).
	Toolsets []string
	// EvidenceContext is the inline Evidence context's form
	// (REA_EVIDENCE_CONTEXT); the zero value is compact.
	EvidenceContext evidence.ContextForm
}

// EvidenceContextFromEnv reads REA_EVIDENCE_CONTEXT through lookup (see
// evidence.ParseContextForm); an invalid value is configuration_invalid
// naming the variable, never the value.
func EvidenceContextFromEnv(lookup func(string) (string, bool)) (evidence.ContextForm, error) {
	v, _ := lookup(evidence.ContextFormEnv)
	form, ok := evidence.ParseContextForm(v)
	if !ok {
		return form, fault.New(fault.ConfigurationInvalid, evidence.ContextFormEnv+" must be compact or full.",
			"Set "+evidence.ContextFormEnv+" to compact or full (or unset it), then restart the registered server or its client.",
			map[string]any{"variable": evidence.ContextFormEnv, "reason": "invalid_value"})
	}
	return form, nil
}

// Server is one MCP server over an engine. Each MCP session is one engine
// connection.
type Server struct {
	eng     *engine.Engine
	mcp     *server.MCPServer
	opts    Options
	all     []catalog.Spec          // the 44 tools, built once: the catalog is static
	catalog []catalog.Spec          // the tools served under opts.Toolsets
	byName  map[string]catalog.Spec // all 42, by name
	digests Digests                 // of the catalog, computed once
	static  staticIdentity

	mu    sync.Mutex
	conns map[string]*session // by MCP session id

	captureProbe   sync.Once // the host check of capture_process_scenario, once per process
	captureHostErr error
	states         *requestStates // 2026-07-28 elicitation state, keyed per process
}

type session struct {
	id       string
	conn     *engine.Connection
	features events.ClientFeatures
	protocol string
	client   *events.Client
	notified atomic.Int64 // list_changed notifications sent to this session
}

// New builds the MCP server and registers the tools of opts.Toolsets (all
// 42 by default); the others are not registered at all (catalog/toolsets.go).
func New(eng *engine.Engine, opts Options) *Server {
	s := &Server{eng: eng, opts: opts, all: Catalog(), byName: map[string]catalog.Spec{},
		static: newStaticIdentity(), conns: map[string]*session{}, states: newRequestStates()}
	for _, spec := range s.all {
		s.byName[spec.Name] = spec
		if catalog.Enabled(spec.Name, opts.Toolsets) {
			s.catalog = append(s.catalog, spec)
		}
	}
	digests, err := CatalogDigests(opts.CLICommands, opts.Toolsets)
	if err != nil {
		panic(fmt.Sprintf("tools: catalog digest: %v", err)) // the static catalog is not JSON-encodable: a build defect
	}
	s.digests = digests
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(s.afterInitialize)
	hooks.AddOnUnregisterSession(func(ctx context.Context, cs server.ClientSession) {
		s.dropSession(ctx, cs.SessionID(), "client_closed")
	})
	s.mcp = server.NewMCPServer("rea", eng.Version(),
		server.WithInstructions(catalog.Instructions),
		server.WithToolCapabilities(true),
		server.WithHooks(hooks),
		server.WithToolFilter(s.filterTools),
		server.WithRecovery(),
		server.WithElicitation(),
	)
	idx := catIndex()
	for _, spec := range s.catalog {
		s.mcp.AddTool(spec.MCPTool(), s.wrap(spec, idx[spec.Name].handle))
	}
	return s
}

// MCP is the underlying mcp-go server (for in-process clients and transports).
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// ServeStdio serves one connection over r/w until EOF or ctx ends, then
// closes it: client_closed at the end of the input, transport_error when
// reading failed, server_shutdown when ctx ended first.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	return wire.ServeStdio(ctx, s.mcp, r, w, func(err error) {
		reason := "client_closed"
		switch {
		case ctx.Err() != nil:
			reason = "server_shutdown"
		case err != nil:
			reason = "transport_error"
		}
		s.CloseAll(context.WithoutCancel(ctx), reason)
	})
}

// ServeStreamableHTTP serves MCP over streamable HTTP until ctx ends, then
// cancels in-flight calls and closes every connection (server_shutdown).
func (s *Server) ServeStreamableHTTP(ctx context.Context, opts wire.HTTPOptions) error {
	return wire.ServeStreamableHTTP(ctx, s.mcp, s, opts)
}

// Detach forgets the engine connection of MCP session id and returns what
// closes it (wire.Connections); nil when it has none.
func (s *Server) Detach(id string) func(ctx context.Context, reason string) {
	s.mu.Lock()
	sess := s.conns[id]
	delete(s.conns, id)
	s.mu.Unlock()
	if sess == nil || sess.conn == nil {
		return nil
	}
	return func(ctx context.Context, reason string) { sess.conn.Close(ctx, reason) }
}

// CloseAll closes every engine connection (server shutdown).
func (s *Server) CloseAll(ctx context.Context, reason string) {
	s.mu.Lock()
	ids := make([]string, 0, len(s.conns))
	for id := range s.conns {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.dropSession(ctx, id, reason)
	}
}

func (s *Server) dropSession(ctx context.Context, id, reason string) {
	s.mu.Lock()
	sess := s.conns[id]
	delete(s.conns, id)
	s.mu.Unlock()
	if sess != nil && sess.conn != nil {
		sess.conn.Close(ctx, reason)
	}
}

func (s *Server) afterInitialize(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil {
		return
	}
	client := &events.Client{Name: req.Params.ClientInfo.Name, Version: req.Params.ClientInfo.Version}
	s.ensureSession(ctx, cs.SessionID(), res.ProtocolVersion, client, featuresOf(&req.Params.Capabilities))
}

func featuresOf(c *mcp.ClientCapabilities) events.ClientFeatures {
	if c == nil {
		return events.ClientFeatures{}
	}
	var f events.ClientFeatures
	if c.Elicitation != nil {
		form, url := c.Elicitation.Form != nil, c.Elicitation.URL != nil
		f.ElicitationForm = form || (!form && !url)
		f.ElicitationURL = url
	}
	f.Roots = c.Roots != nil
	f.Sampling = c.Sampling != nil
	return f
}

// ensureSession returns the session's connection, opening it on first use
// (after initialize, or at the first modern request).
func (s *Server) ensureSession(ctx context.Context, id, protocol string, client *events.Client, features events.ClientFeatures) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.conns[id]; ok {
		return sess
	}
	sess := &session{id: id, protocol: protocol, client: client, features: features}
	conn, err := s.eng.OpenConnection(context.WithoutCancel(ctx), engsession.Info{
		Transport: s.opts.Transport, ProtocolVersion: protocol, Client: client, Features: features,
	})
	if err != nil {
		return sess // calls on it fail with the typed error of the ledger
	}
	sess.conn = conn
	if !server.IsModernRequest(ctx) {
		conn.OnToolsChanged(func() {
			sess.notified.Add(1)
			s.mcp.SendNotificationToSpecificClient(id, mcp.MethodNotificationToolsListChanged, nil)
		})
	}
	s.conns[id] = sess
	return sess
}

// sessionFor finds (or, for a modern request, opens) the caller's session.
func (s *Server) sessionFor(ctx context.Context) *session {
	cs := server.ClientSessionFromContext(ctx)
	id := "stateless"
	if cs != nil {
		id = cs.SessionID()
	}
	s.mu.Lock()
	sess := s.conns[id]
	s.mu.Unlock()
	if sess != nil {
		return sess
	}
	var client *events.Client
	var features events.ClientFeatures
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil {
		if info.ClientInfo != nil {
			client = &events.Client{Name: info.ClientInfo.Name, Version: info.ClientInfo.Version}
		}
		features = featuresOf(info.ClientCapabilities)
	}
	return s.ensureSession(ctx, id, server.RequestProtocolVersion(ctx), client, features)
}

// filterTools implements per-connection tools/list for legacy eras (§4); a
// 2026-07-28 request gets the full stable catalog.
func (s *Server) filterTools(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	if server.IsModernRequest(ctx) {
		return tools
	}
	states := []engsession.State{{}}
	var features events.ClientFeatures
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		s.mu.Lock()
		sess := s.conns[cs.SessionID()]
		s.mu.Unlock()
		if sess != nil && sess.conn != nil {
			states, features = activeFirst(sess.conn.States()), sess.features
		}
	}
	out := tools[:0:0]
	for _, t := range tools {
		spec, known := s.byName[t.Name]
		// Tools outside REA's catalog (none in production) are not REA's to hide.
		if !known || s.evaluateAcross(spec, states, features).listed() {
			out = append(out, t)
		}
	}
	return out
}

func (s *Server) wrap(spec catalog.Spec, h handler) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sess := s.sessionFor(ctx)
		rep := newReporter(ctx, s.mcp, req, spec.Name)
		notifiedBefore := sess.notified.Load()
		ctx = context.WithValue(ctx, roundTripKey{}, req.Params.MultiRoundTripParams)
		out, err := s.call(ctx, spec, sess, req, h, rep)
		rep.finish(err == nil)
		if rep.sentAny() || sess.notified.Load() != notifiedBefore {
			drainNotifications(ctx)
		}
		if err != nil {
			return wire.ErrorResult(fault.From(spec.Name, err)), nil
		}
		if asking, ok := out.(*mcp.CallToolResult); ok { // a 2026-07-28 input request
			return asking, nil
		}
		return s.successResult(out)
	}
}

// roundTripKey carries a 2026-07-28 call's input responses and request
// state to its handler.
type roundTripKey struct{}

func (s *Server) call(ctx context.Context, spec catalog.Spec, sess *session, req mcp.CallToolRequest, h handler, rep *reporter) (any, error) {
	if sess.conn == nil {
		return nil, fault.New(fault.ExecutionFailure, "The ledger could not record this connection.",
			"Run `rea doctor` and `rea ledger verify`.", map[string]any{"operation": spec.Name, "reason": "ledger"})
	}
	in, err := s.arguments(ctx, spec, sess, req)
	if err != nil {
		return nil, err
	}
	rep.start()
	return h(s, ctx, sess, in, rep)
}

// arguments decodes a call's arguments once into its handler's input: the
// parse that names the target is the one validation reads (CONTRACTS.md
// §15.1: the target's availability is decided before the arguments are
// validated, and an invalid target value is left to validation).
func (s *Server) arguments(ctx context.Context, spec catalog.Spec, sess *session, req mcp.CallToolRequest) (input, error) {
	var args any = req.Params.RawArguments
	if len(req.Params.RawArguments) == 0 {
		if req.Params.Arguments == nil {
			args = json.RawMessage("{}")
		} else {
			// An in-process client's map: through its JSON encoding, as
			// from the wire (integers as exact literals).
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return input{}, fault.Invalid(spec.Name, fault.Issue{Path: "", Reason: "invalid_type", Message: "arguments must be an object"})
			}
			args = json.RawMessage(b)
		}
	}
	parsed, perr := schema.Parse(spec.Name, args)
	var ref string
	if perr == nil && spec.TakesTarget() {
		ref = parsed.String("target")
	}
	if err := s.targetVerdict(spec, sess, ref, server.IsModernRequest(ctx)); err != nil {
		return input{}, err
	}
	if perr != nil {
		return input{}, perr
	}
	params, err := spec.DecodeParsed(parsed)
	if err != nil {
		return input{}, err
	}
	in := input{Params: params, tool: spec.Name}
	if spec.TakesTarget() {
		in.target, _ = params.String("target")
		delete(params, "target")
	}
	return in, nil
}

// unavailableToolError answers a 2026-07-28 call to an unavailable tool (§4).
func unavailableToolError(name string, a ToolAvailability) *fault.Error {
	var fe *fault.Error
	switch a.Reason {
	case "target_required":
		fe = fault.New(fault.TargetUnavailable, "No target is open.", "", map[string]any{"reason": "no_target"})
	case "provider_unavailable":
		fe = fault.New(fault.ProviderUnavailable, "The provider is unavailable.", "", map[string]any{"operation": name, "provider_id": nil})
	default:
		fe = fault.New(fault.CapabilityUnavailable, "The tool is not available on this connection now.", "",
			map[string]any{"operation": name, "provider_id": nil})
	}
	fe.Details["availability_reason"] = a.Reason
	if a.Remediation != nil {
		fe.Remediation.Action = *a.Remediation
	}
	return fe
}

// notificationFlusher is a session that can tell when its queued
// notifications have been written (REA's stdio transport).
type notificationFlusher interface {
	FlushNotifications(ctx context.Context) error
}

// drainNotifications makes a tool's notifications precede its result
// (§6.1): on a session that can flush (stdio), it waits until they are
// written and read by the client, at most 2 s — a client that has not read
// them would not see an answer written earlier any sooner, and on a loaded
// machine 100 ms was seen to be too short for the TypeScript SDK client; on
// mcp-go's own sessions (HTTP), which cannot say so, it waits (≤100 ms)
// until the queue is empty and then 5 ms for the last one.
func drainNotifications(ctx context.Context) {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil {
		return
	}
	if f, ok := cs.(notificationFlusher); ok {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = f.FlushNotifications(ctx)
		return
	}
	ch := cs.NotificationChannel()
	deadline := time.Now().Add(100 * time.Millisecond)
	for len(ch) > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(5 * time.Millisecond)
}

func (s *Server) successResult(out any) (*mcp.CallToolResult, error) {
	var b []byte
	var err error
	switch v := out.(type) {
	case engine.Published:
		// The result is canonical JSON the engine produced or verified; it is
		// spliced in as is, since re-encoding a 10 KB page for every call is a
		// measurable share of paging through a large binary. The compact
		// context writes itself for the same reason.
		b = make([]byte, 0, len(v.Result)+512)
		b = append(append(append(b, `{"result":`...), v.Result...), `,"evidence":`...)
		if s.opts.EvidenceContext == evidence.FullForm {
			var ev []byte
			if ev, err = json.Marshal(v.Evidence); err == nil {
				b = append(b, ev...)
			}
		} else {
			b = v.Evidence.Compact().AppendJSON(b)
		}
		b = append(b, '}')
	default:
		b, err = json.Marshal(struct {
			Result any `json:"result"`
		}{v})
	}
	if err != nil {
		return wire.ErrorResult(fault.Internal("encode", err)), nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.TextContent{Type: "text", Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}, nil
}
