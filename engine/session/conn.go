package session

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/ledger"
)

// Manager holds what the connections of one engine share: the ledger port,
// the provider registry, the policy evaluator, the live connections (a
// policy reload changes every connection's tools) and the count of
// abandoned provider calls.
type Manager struct {
	cfg Config

	reloadMu    sync.Mutex
	conns       connections
	revokedMu   sync.Mutex
	revokedSeen int64 // policy-stream seq up to which ledger revocations are applied

	// abandoned counts provider calls still running whose caller already
	// has its answer (cancelled or provider_timeout; requestQueue.run).
	abandoned atomic.Int64
}

// New builds a Manager.
func New(cfg Config) *Manager { return &Manager{cfg: cfg} }

// AbandonedCalls is the number of provider calls still running after their
// callers stopped waiting (cancelled, timed out): calls of a provider that
// does not observe its context. Each keeps its client's request slot until
// it returns; analysis_activity shows it on its target.
func (m *Manager) AbandonedCalls() int64 { return m.abandoned.Load() }

// event builds a NewEvent with a fresh id.
func (m *Manager) event(typ string, data any) ledger.NewEvent {
	return ledger.NewEvent{ID: m.cfg.NewID(), Type: typ, Data: data}
}

// targetEvent builds a NewEvent of a type that names its target
// (events.SchemaVersionTargets).
func (m *Manager) targetEvent(typ string, data any) ledger.NewEvent {
	ev := m.event(typ, data)
	ev.SchemaVersion = events.SchemaVersionTargets
	return ev
}

// connections tracks live connections for engine-wide notices (a policy
// reload changes every connection's tools).
type connections struct {
	mu   sync.Mutex
	live map[*Conn]struct{}
}

func (m *Manager) track(c *Conn) {
	m.conns.mu.Lock()
	defer m.conns.mu.Unlock()
	if m.conns.live == nil {
		m.conns.live = map[*Conn]struct{}{}
	}
	m.conns.live[c] = struct{}{}
}

func (m *Manager) untrack(c *Conn) {
	m.conns.mu.Lock()
	defer m.conns.mu.Unlock()
	delete(m.conns.live, c)
}

func (m *Manager) forEachConn(fn func(*Conn)) {
	m.conns.mu.Lock()
	list := make([]*Conn, 0, len(m.conns.live))
	for c := range m.conns.live {
		list = append(list, c)
	}
	m.conns.mu.Unlock()
	for _, c := range list {
		fn(c)
	}
}

// Info describes a connection when it opens.
type Info struct {
	Transport       string // stdio | http | cli
	ProtocolVersion string
	Client          *events.Client
	Features        events.ClientFeatures
}

// Conn is one client connection (an MCP stdio process, an MCP HTTP
// session, or one CLI invocation). It holds up to MaxOpenTargets open
// targets (CONTRACTS.md §15.1), each named by a handle ("tgt_" + ULID) and
// each with its own binding, run, client, request queue, health overlay
// and cursor; the active target is the one most recently opened or
// re-opened. Opening and closing are serialized per connection; closing or
// switching a target drains the operations already admitted on that target
// only, so a call on one target never waits for another's open.
type Conn struct {
	m      *Manager
	id     string
	stream string
	info   Info

	transition chan struct{} // one-slot semaphore; waiting for it is cancellable

	mu          sync.Mutex
	targets     []*handle // open order
	activations uint64    // last activation stamp handed out
	closed      bool

	// OnToolsChanged is called after a committed change of targets,
	// bindings or provider health (the tools layer sends
	// notifications/tools/list_changed).
	OnToolsChanged func()
}

// MaxOpenTargets bounds the open targets of one connection (§15.1).
const MaxOpenTargets = 16

// handle is one target_id of a connection. Its run (openTarget) is replaced
// when the target switches providers; the handle, its place in the open
// order and its admission lock stay.
type handle struct {
	id    string
	calls sync.RWMutex // admitted operations hold R; a close or switch of this target holds W
	// Guarded by Conn.mu:
	open      *Target // nil once closed
	activated uint64
}

// Target is one open target's current run: its target, binding, client,
// request queue and health overlay. A call admitted on it (Admit) keeps it
// open until released.
type Target struct {
	targetID  string
	target    provider.Target
	runID     string
	requested *string
	binding   *Binding // nil: unbound
	client    provider.Client
	queue     *requestQueue
	health    map[string]string // operation ("*" = all) → unavailable reason
	cursor    string            // navigation cursor; "" until first read (then the entry point)
	// linkName is the client's Linker.LibraryName once asked
	// (linkNamed); guarded by Conn.mu.
	linkName  string
	linkNamed bool
	closing   chan struct{}  // closed when the target starts closing
	watchers  sync.WaitGroup // goroutines that record events about this target
}

// Binding is an immutable provider binding.
type Binding struct {
	Provider provider.Identity `json:"provider"`
	Source   string            `json:"selection_source"`
	Profile  provider.Profile  `json:"analysis_profile"`
	impl     provider.Provider
	// operations is Config.Operations(impl), computed once at binding: every
	// tools/call asks for the connection's State (per-connection tool
	// visibility), and a provider's declared operations do not change
	// while it is bound.
	operations []provider.Capability
}

func newConn(m *Manager, id string, info Info) *Conn {
	return &Conn{m: m, id: id, stream: events.ConnectionStream(id), info: info, transition: make(chan struct{}, 1)}
}

// ID is the connection id (a ULID).
func (c *Conn) ID() string { return c.id }

// Stream is the connection's ledger stream.
func (c *Conn) Stream() string { return c.stream }

// Info is what the connection said about itself when it opened.
func (c *Conn) Info() Info { return c.info }

func (c *Conn) notify() {
	if c.OnToolsChanged != nil {
		c.OnToolsChanged()
	}
}

func (c *Conn) lockTransition(ctx context.Context, op string) error {
	select {
	case c.transition <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fault.CancelledError(op).WithCause(ctx.Err())
	}
}

func (c *Conn) unlockTransition() { <-c.transition }

// activeLocked is the active handle, or nil when no target is open. c.mu
// is held.
func (c *Conn) activeLocked() *handle {
	var active *handle
	for _, h := range c.targets {
		if h.open != nil && (active == nil || h.activated > active.activated) {
			active = h
		}
	}
	return active
}

// removeLocked takes h out of the open order. c.mu is held.
func (c *Conn) removeLocked(h *handle) {
	c.targets = slices.DeleteFunc(c.targets, func(x *handle) bool { return x == h })
}

// activate makes h the active target. c.mu is held.
func (c *Conn) activateLocked(h *handle) {
	c.activations++
	h.activated = c.activations
}

// find resolves a target argument: "" is the active target (nil when none
// is open), anything else must name an open target of this connection.
func (c *Conn) find(op, ref string) (*handle, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ref == "" {
		return c.activeLocked(), nil
	}
	for _, h := range c.targets {
		if h.id == ref {
			return h, nil
		}
	}
	return nil, unknownTarget(op)
}

func unknownTarget(op string) *fault.Error {
	return fault.Invalid(op, fault.Issue{Path: "/target", Reason: "invalid_value",
		Message: "no open target of this connection has this id; binary_session lists them"})
}

// Admit resolves ref and holds its target open for one operation: the
// returned release must be called when the operation ends. It fails with
// no_target when ref is "" and nothing is open, and with invalid_request
// when ref names no open target. A target that closed or switched while
// the call waited is looked up again (a switched target keeps its handle).
func (c *Conn) Admit(op, ref string) (*Target, func(), error) {
	for {
		h, err := c.find(op, ref)
		if err != nil {
			return nil, nil, err
		}
		if h == nil {
			return nil, nil, noTarget()
		}
		h.calls.RLock()
		c.mu.Lock()
		o := h.open
		c.mu.Unlock()
		if o != nil {
			return o, h.calls.RUnlock, nil
		}
		h.calls.RUnlock() // closed meanwhile: resolve again
	}
}

// State is a snapshot of one open target's investigation state.
type State struct {
	Open     bool
	TargetID string
	Active   bool
	Target   provider.Target
	RunID    string
	Binding  *Binding
	// Capabilities are the bound provider's operations with the health overlay.
	Capabilities []provider.Capability
	Activity     *ProviderActivity // nil when no client is bound
}

// State is the active target's state; the zero State when none is open.
func (c *Conn) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.activeLocked()
	if h == nil {
		return State{}
	}
	return c.stateLocked(h, true)
}

// States are every open target's states, in open order.
func (c *Conn) States() []State {
	c.mu.Lock()
	defer c.mu.Unlock()
	active := c.activeLocked()
	out := make([]State, 0, len(c.targets))
	for _, h := range c.targets {
		if h.open != nil { // nil only while it switches providers
			out = append(out, c.stateLocked(h, h == active))
		}
	}
	return out
}

// StateOf is the state of the target ref names ("" = active); the zero
// State when ref is "" and nothing is open.
func (c *Conn) StateOf(op, ref string) (State, error) {
	if ref == "" {
		return c.State(), nil
	}
	h, err := c.find(op, ref)
	if err != nil {
		return State{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.open == nil {
		return State{}, unknownTarget(op)
	}
	return c.stateLocked(h, h == c.activeLocked()), nil
}

func (c *Conn) stateLocked(h *handle, active bool) State {
	o := h.open
	s := State{Open: true, TargetID: h.id, Active: active, Target: o.target, RunID: o.runID, Binding: o.binding}
	if o.binding != nil {
		s.Capabilities = make([]provider.Capability, 0, len(o.binding.operations))
		for _, capability := range o.binding.operations {
			capability.Available, capability.Reason, capability.AvailabilityCode = true, nil, nil
			if r, bad := o.health[capability.Operation]; bad {
				capability.Available, capability.Reason = false, &r
			} else if r, bad := o.health["*"]; bad {
				capability.Available, capability.Reason = false, &r
			}
			s.Capabilities = append(s.Capabilities, capability)
		}
		a := o.queue.snapshot(o.binding.Provider)
		s.Activity = &a
	}
	return s
}

// OpenResult is open_binary's result.
type OpenResult struct {
	TargetID     string         `json:"target_id"`
	Path         string         `json:"path"`
	Format       string         `json:"format"`
	Kind         string         `json:"kind"`
	SHA256       string         `json:"sha256"`
	Size         int64          `json:"size"`
	Architecture *string        `json:"architecture"`
	RunID        string         `json:"run_id"`
	Binding      *OpenedBinding `json:"binding"`
}

// OpenedBinding is the binding part of OpenResult.
type OpenedBinding struct {
	Provider        provider.Identity `json:"provider"`
	SelectionSource string            `json:"selection_source"`
}

func (o *Target) result() OpenResult {
	r := OpenResult{TargetID: o.targetID, Path: o.target.Path, Format: o.target.Format, Kind: o.target.Kind, SHA256: o.target.SHA256,
		Size: o.target.Size, Architecture: archPtr(o.target.Architecture), RunID: o.runID}
	if o.binding != nil {
		r.Binding = &OpenedBinding{Provider: o.binding.Provider, SelectionSource: o.binding.Source}
	}
	return r
}

func archPtr(a string) *string {
	if a == "" {
		return nil
	}
	return &a
}

// TargetRecord is a target's identity as events and binary_session show it.
func TargetRecord(t provider.Target) events.Target {
	return events.Target{Path: t.Path, SHA256: t.SHA256, Size: t.Size, Format: t.Format, Kind: t.Kind, Architecture: archPtr(t.Architecture)}
}

func noTarget() *fault.Error {
	return fault.New(fault.TargetUnavailable, "No target is open.", "Open a target with open_binary first.",
		map[string]any{"reason": "no_target"})
}
