package engine

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/target"
	"github.com/rea-re/rea/ledger"
)

// Connection is one client connection (an MCP stdio process, an MCP HTTP
// session, or one CLI invocation). Its target, binding, run and health overlay
// are connection-local; target transitions are serialized, and a transition
// drains the operations already admitted before it replaces the client.
type Connection struct {
	eng    *Engine
	id     string
	stream string
	info   ConnectionInfo

	transition chan struct{} // one-slot semaphore; waiting for it is cancellable
	calls      sync.RWMutex  // admitted operations hold R; a transition holds W

	mu     sync.Mutex
	open   *openTarget // nil when nothing is open
	closed bool

	// OnToolsChanged is called after a committed change of target, binding or
	// provider health (the tools layer sends notifications/tools/list_changed).
	OnToolsChanged func()
}

type openTarget struct {
	target    provider.Target
	runID     string
	requested *string
	binding   *Binding // nil: unbound
	client    provider.Client
	queue     *requestQueue
	health    map[string]string // operation ("*" = all) → unavailable reason
	cursor    string            // navigation cursor; "" until first read (then the entry point)
	closing   chan struct{}     // closed when the target starts closing
	watchers  sync.WaitGroup    // goroutines that record events about this target
}

// Binding is an immutable provider binding.
type Binding struct {
	Provider provider.Identity `json:"provider"`
	Source   string            `json:"selection_source"`
	Profile  provider.Profile  `json:"analysis_profile"`
	impl     provider.Provider
	// operations is operationsOf(impl), computed once at binding: every
	// tools/call asks for the connection's State (per-connection tool
	// visibility), and a provider's declared operations do not change
	// while it is bound.
	operations []provider.Capability
}

func newConnection(e *Engine, id string, info ConnectionInfo) *Connection {
	return &Connection{eng: e, id: id, stream: events.ConnectionStream(id), info: info, transition: make(chan struct{}, 1)}
}

// ID is the connection id (a ULID).
func (c *Connection) ID() string { return c.id }

// Engine is the connection's engine.
func (c *Connection) Engine() *Engine { return c.eng }

// Info is what the connection said about itself when it opened.
func (c *Connection) Info() ConnectionInfo { return c.info }

func (c *Connection) notify() {
	if c.OnToolsChanged != nil {
		c.OnToolsChanged()
	}
}

func (c *Connection) lockTransition(ctx context.Context, op string) error {
	select {
	case c.transition <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fault.CancelledError(op).WithCause(ctx.Err())
	}
}

func (c *Connection) unlockTransition() { <-c.transition }

// State is a snapshot of the connection's investigation state.
type State struct {
	Open    bool
	Target  provider.Target
	RunID   string
	Binding *Binding
	// Capabilities are the bound provider's operations with the health overlay.
	Capabilities []provider.Capability
	Activity     *ProviderActivity // nil when no client is bound
}

// State returns a snapshot.
func (c *Connection) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.open
	if o == nil {
		return State{}
	}
	s := State{Open: true, Target: o.target, RunID: o.runID, Binding: o.binding}
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

func (o *openTarget) result() OpenResult {
	r := OpenResult{Path: o.target.Path, Format: o.target.Format, Kind: o.target.Kind, SHA256: o.target.SHA256,
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

// OpenBinary identifies, hashes and opens the target at path, selecting and
// starting a provider (CONTRACTS.md §2.1, §5). selector is "" when the request
// named none. Detection, hashing and selection run before anything changes:
// their failure leaves the current target, binding and run untouched.
func (c *Connection) OpenBinary(ctx context.Context, path string, selector provider.Selector, rep progress.Reporter) (OpenResult, error) {
	const op = "open_binary"
	rep = progress.OrNop(rep)
	if err := c.lockTransition(ctx, op); err != nil {
		return OpenResult{}, err
	}
	defer c.unlockTransition()

	real, fi, err := target.Resolve(path)
	if err != nil {
		return OpenResult{}, err
	}
	rep.Report(progress.Update{Phase: "detect", Message: "identifying content"})
	det, err := target.Detect(real, fi)
	if err != nil {
		return OpenResult{}, err
	}
	t := provider.Target{Path: real, Size: fi.Size(), Format: det.Format, Kind: det.Kind, Architecture: det.Architecture}
	if det.Kind == target.KindDirectory {
		t.Size = 0
		t.SHA256, err = target.HashDirectory(ctx, real, rep)
	} else {
		defer c.eng.warm(real, fi, provider.Effective(selector, c.eng.cfg.EnvironmentSelector))()
		t.SHA256, err = target.HashFile(ctx, real, fi.Size(), rep)
	}
	if err != nil {
		return OpenResult{}, err
	}

	c.mu.Lock()
	cur := c.open
	c.mu.Unlock()
	same := cur != nil && cur.target.Path == t.Path && cur.target.SHA256 == t.SHA256
	if same && selector == "" {
		return cur.result(), nil
	}

	candidates := progress.Total(float64(len(c.eng.cfg.Registry.Providers())))
	rep.Report(progress.Update{Phase: "select", Completed: 0, Total: candidates, Message: "selecting provider"})
	choice, failure, err := c.eng.cfg.Registry.Select(ctx, t, selector, c.eng.cfg.EnvironmentSelector)
	if err != nil {
		return OpenResult{}, err
	}
	// Select evaluated every candidate.
	rep.Report(progress.Update{Phase: "select", Completed: *candidates, Total: candidates, Message: "selected"})
	if failure != nil {
		return OpenResult{}, c.recordSelectionFailure(ctx, failure)
	}
	if same && bindingEquals(cur.binding, choice) {
		return cur.result(), nil
	}
	var requested *string
	if selector != "" {
		s := string(selector)
		requested = &s
	}

	c.calls.Lock() // drain admitted calls
	defer c.calls.Unlock()

	var previousRun *string
	cause := "open"
	if cur != nil {
		if err := c.closeOpen(ctx, cur, "switch"); err != nil {
			c.notify()
			return OpenResult{}, err
		}
		previousRun, cause = &cur.runID, "switch"
	}
	opened, err := c.start(ctx, t, choice, requested, previousRun, cause, rep)
	if err != nil {
		if cur != nil {
			// Restore the previous target with a fresh client and run; the
			// original error is what the caller gets.
			restoreChoice := provider.Choice{}
			if cur.binding != nil {
				restoreChoice = provider.Choice{Provider: cur.binding.impl, Profile: cur.binding.Profile, Source: cur.binding.Source}
			}
			lastRun := previousRun
			if opened != nil {
				lastRun = &opened.runID
			}
			if _, rerr := c.start(context.WithoutCancel(ctx), cur.target, restoreChoice, cur.requested, lastRun, "restore", nil); rerr != nil {
				c.mu.Lock()
				c.open = nil
				c.mu.Unlock()
			}
		}
		c.notify()
		return OpenResult{}, err
	}
	c.notify()
	return opened.result(), nil
}

func bindingEquals(b *Binding, ch provider.Choice) bool {
	if b == nil || ch.Provider == nil {
		return b == nil && ch.Provider == nil
	}
	return b.Provider.ID == ch.Provider.Identity().ID && b.Profile.Digest == ch.Profile.Digest
}

// start allocates a run, starts the chosen provider (if any) and records the
// open. On a start failure it returns the partly opened state (its run id) and
// the error; nothing is left open.
func (c *Connection) start(ctx context.Context, t provider.Target, choice provider.Choice, requested, previousRun *string, cause string, rep progress.Reporter) (*openTarget, error) {
	const op = "open_binary"
	rep = progress.OrNop(rep)
	o := &openTarget{target: t, runID: newRunID(), requested: requested, health: map[string]string{}, queue: newRequestQueue(),
		closing: make(chan struct{})}
	// The run id is recorded before any provider starts (§5.5).
	if _, err := c.eng.appendEvents(ctx, c.stream, -1, []ledger.NewEvent{c.eng.event(events.AnalysisRunAllocated, events.AnalysisRunAllocatedData{
		ConnectionID: c.id, RunID: o.runID, TargetSHA256: t.SHA256, PreviousRunID: previousRun, Cause: cause,
	})}, nil); err != nil {
		return nil, err
	}
	evs := []ledger.NewEvent{c.eng.event(events.TargetOpened, events.TargetOpenedData{
		ConnectionID: c.id, RunID: o.runID, Target: TargetRecord(t), RequestedProviderID: requested,
	})}
	if choice.Provider != nil {
		rep.Report(progress.Update{Phase: "start_provider", Message: "starting " + choice.Provider.Identity().ID})
		id := choice.Profile.Provider
		client, err := choice.Provider.Start(ctx, t, choice.Profile, provider.Run{ID: o.runID})
		if err != nil {
			if ctx.Err() != nil {
				return o, fault.CancelledError(op).WithCause(err)
			}
			return o, fault.From(op, err)
		}
		if err := ctx.Err(); err != nil {
			client.Close(context.WithoutCancel(ctx))
			return o, fault.CancelledError(op).WithCause(err)
		}
		o.client = client
		o.binding = &Binding{Provider: id, Source: choice.Source, Profile: choice.Profile, impl: choice.Provider,
			operations: operationsOf(choice.Provider)}
		evs = append(evs, c.eng.event(events.ProviderBound, events.ProviderBoundData{
			ConnectionID: c.id, RunID: o.runID, Provider: id, SelectionSource: choice.Source, AnalysisProfile: choice.Profile,
		}))
	}
	if _, err := c.eng.appendEvents(ctx, c.stream, -1, evs, nil); err != nil {
		if o.client != nil {
			o.client.Close(context.WithoutCancel(ctx))
		}
		return o, err
	}
	c.mu.Lock()
	c.open = o
	c.mu.Unlock()
	if o.client != nil {
		if err := c.observeLineage(ctx, o); err != nil {
			return o, err
		}
		c.watchHealth(ctx, o)
	}
	return o, nil
}

func (c *Connection) recordSelectionFailure(ctx context.Context, f *provider.SelectionFailure) error {
	data := events.ProviderSelectionFailedData{ConnectionID: c.id, Operation: f.Operation, SelectionReason: f.SelectionReason,
		RequestedProviderID: f.RequestedProviderID, CandidateIDs: f.CandidateIDs, Rejections: f.Rejections}
	if _, err := c.eng.appendEvents(ctx, c.stream, -1, []ledger.NewEvent{c.eng.event(events.ProviderSelectionFailed, data)}, nil); err != nil {
		return err
	}
	return f.Fault()
}

// closeOpen closes o's client and appends target_closed. Unconfirmed cleanup
// leaves nothing open and fails with cleanup_incomplete.
func (c *Connection) closeOpen(ctx context.Context, o *openTarget, reason string) error {
	cleanup := provider.Cleanup{Complete: true}
	close(o.closing)
	o.watchers.Wait() // nothing about this target is recorded after target_closed
	if o.client != nil {
		var err error
		c.observeLineage(ctx, o) // best effort: the close goes on, and its own cleanup check decides
		cleanup, err = o.client.Close(context.WithoutCancel(ctx))
		if err != nil && cleanup.Complete {
			cleanup = provider.Cleanup{Complete: false, Resources: []string{"provider-client"}}
		}
	}
	data := events.TargetClosedData{ConnectionID: c.id, RunID: o.runID, Reason: reason, Cleanup: "complete", Resources: []string{}}
	if !cleanup.Complete {
		data.Cleanup, data.Resources = "incomplete", cleanup.Resources
	}
	c.mu.Lock()
	c.open = nil
	c.mu.Unlock()
	if _, err := c.eng.appendEvents(context.WithoutCancel(ctx), c.stream, -1, []ledger.NewEvent{c.eng.event(events.TargetClosed, data)}, nil); err != nil {
		return err
	}
	if !cleanup.Complete {
		return fault.New(fault.CleanupIncomplete, "Owned resources could not be confirmed released.",
			"Run `rea doctor` and inspect the listed resources.",
			map[string]any{"operation": "close_binary", "cleanup": "incomplete", "resources": cleanup.Resources})
	}
	return nil
}

// CloseResult is close_binary's result.
type CloseResult struct {
	Closed bool    `json:"closed"`
	RunID  *string `json:"run_id"`
}

// CloseBinary closes the open target, if any.
func (c *Connection) CloseBinary(ctx context.Context) (CloseResult, error) {
	if err := c.lockTransition(ctx, "close_binary"); err != nil {
		return CloseResult{}, err
	}
	defer c.unlockTransition()
	return c.closeTarget(ctx, "close_binary")
}

func (c *Connection) closeTarget(ctx context.Context, reason string) (CloseResult, error) {
	c.calls.Lock()
	defer c.calls.Unlock()
	c.mu.Lock()
	o := c.open
	c.mu.Unlock()
	if o == nil {
		return CloseResult{Closed: false}, nil
	}
	err := c.closeOpen(ctx, o, reason)
	c.notify()
	if err != nil {
		return CloseResult{}, err
	}
	return CloseResult{Closed: true, RunID: &o.runID}, nil
}

// Close ends the connection: closes its target and appends connection_closed.
func (c *Connection) Close(ctx context.Context, reason string) error {
	ctx = context.WithoutCancel(ctx)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.transition <- struct{}{}
	defer c.unlockTransition()
	_, cerr := c.closeTarget(ctx, "connection_closed")
	c.eng.untrack(c)
	if ev := c.eng.cfg.Policy; ev != nil {
		ev.CloseConnection(c.id) // its once/session grants end with it, and only its own
	}
	_, err := c.eng.appendEvents(ctx, c.stream, -1, []ledger.NewEvent{c.eng.event(events.ConnectionClosed, events.ConnectionClosedData{ConnectionID: c.id, Reason: reason})}, nil)
	if cerr != nil {
		return cerr
	}
	return err
}

// DocumentName is the builtin document name of a target (its basename).
func DocumentName(t provider.Target) string { return filepath.Base(t.Path) }
