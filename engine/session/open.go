package session

import (
	"context"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/target"
	"github.com/rea-re/rea/ledger"
)

// A connection's transitions: it opens; targets open, switch providers
// and close; it closes. Each is recorded before it is answered.

// Open appends connection_opened and returns the connection.
func (m *Manager) Open(ctx context.Context, info Info) (*Conn, error) {
	id := m.cfg.NewID().String()
	var pv *string
	if info.ProtocolVersion != "" {
		pv = &info.ProtocolVersion
	}
	data := events.ConnectionOpenedData{
		ConnectionID: id, Transport: info.Transport, ProtocolVersion: pv, Client: info.Client,
		ClientFeatures: info.Features,
		Server:         events.Server{Version: m.cfg.Version, PID: os.Getpid(), StartedAt: Timestamp(m.cfg.StartedAt)},
	}
	c := newConn(m, id, info)
	if _, err := m.cfg.Ledger.Append(ctx, c.stream, 0, []ledger.NewEvent{m.event(events.ConnectionOpened, data)}); err != nil {
		return nil, err
	}
	m.track(c)
	return c, nil
}

// warm lets every provider that can (provider.Warmer) and may be selected
// start on the file at path while it is hashed, and returns what abandons
// whatever was not taken over by the selected provider's Profile. A concrete
// selector leaves the other providers cold.
func (m *Manager) warm(path string, fi fs.FileInfo, selector provider.Selector) (abandon func()) {
	var abandons []func()
	for _, p := range m.cfg.Registry.Providers() {
		if selector != provider.Auto && provider.Selector(p.Identity().ID) != selector {
			continue
		}
		if w, ok := p.(provider.Warmer); ok {
			abandons = append(abandons, w.Warm(path, fi))
		}
	}
	return func() {
		for _, a := range abandons {
			a()
		}
	}
}

// OpenBinary identifies, hashes and opens the target at path, selecting and
// starting a provider (CONTRACTS.md §2.1, §5, §15.1). selector is "" when
// the request named none. Bytes already open on the connection (same real
// path and sha256) keep their handle and become active; a selector naming
// another binding switches that target (§5.5). Detection, hashing and
// selection run before anything changes: their failure leaves every open
// target, binding and run untouched.
func (c *Conn) OpenBinary(ctx context.Context, path string, selector provider.Selector, rep progress.Reporter) (OpenResult, error) {
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
		defer c.m.warm(real, fi, provider.Effective(selector, c.m.cfg.EnvironmentSelector))()
		t.SHA256, err = target.HashFile(ctx, real, fi.Size(), rep)
	}
	if err != nil {
		return OpenResult{}, err
	}

	c.mu.Lock()
	var h *handle
	for _, open := range c.targets {
		if o := open.open; o != nil && o.target.Path == t.Path && o.target.SHA256 == t.SHA256 {
			h = open
		}
	}
	count := len(c.targets)
	var cur *Target
	if h != nil {
		cur = h.open
	}
	c.mu.Unlock()
	reopen := func() (OpenResult, error) {
		c.mu.Lock()
		moved := c.activeLocked() != h
		c.activateLocked(h)
		c.mu.Unlock()
		if moved {
			// Calls without a target now act on h, and tool_availability
			// is computed for it: a client should list again.
			c.notify()
		}
		return cur.result(), nil
	}
	if h != nil && selector == "" {
		return reopen()
	}
	if h == nil && count >= MaxOpenTargets {
		return OpenResult{}, fault.New(fault.Truncated, "The connection already holds the most open targets it may.",
			"Close a target with close_binary {target} first.",
			map[string]any{"operation": op, "limit": "open_targets", "maximum": MaxOpenTargets, "truncated": true})
	}

	candidates := progress.Total(float64(len(c.m.cfg.Registry.Providers())))
	rep.Report(progress.Update{Phase: "select", Completed: 0, Total: candidates, Message: "selecting provider"})
	choice, failure, err := c.m.cfg.Registry.Select(ctx, t, selector, c.m.cfg.EnvironmentSelector)
	if err != nil {
		return OpenResult{}, err
	}
	// Select evaluated every candidate.
	rep.Report(progress.Update{Phase: "select", Completed: *candidates, Total: candidates, Message: "selected"})
	if failure != nil {
		return OpenResult{}, c.RecordSelectionFailure(ctx, failure)
	}
	if h != nil && bindingEquals(cur.binding, choice) {
		return reopen()
	}
	var requested *string
	if selector != "" {
		s := string(selector)
		requested = &s
	}

	if h == nil {
		h = &handle{id: "tgt_" + c.m.cfg.NewID().String()}
		opened, err := c.start(ctx, h, t, choice, requested, nil, "open", rep)
		c.notify()
		if err != nil {
			return OpenResult{}, err
		}
		return opened.result(), nil
	}

	if cur.queue.abandonedActive() {
		// The calls admitted on this target would drain behind a call that
		// may never return; they give way to the switch, as to a close.
		cur.queue.shutdown()
	}
	h.calls.Lock() // drain the calls admitted on this target
	defer h.calls.Unlock()
	if err := c.closeOpen(ctx, h, cur, "switch"); err != nil {
		c.notify()
		return OpenResult{}, err
	}
	opened, err := c.start(ctx, h, t, choice, requested, &cur.runID, "switch", rep)
	if err != nil {
		// Restore the previous binding with a fresh client and run; the
		// original error is what the caller gets.
		restoreChoice := provider.Choice{}
		if cur.binding != nil {
			restoreChoice = provider.Choice{Provider: cur.binding.impl, Profile: cur.binding.Profile, Source: cur.binding.Source}
		}
		lastRun := &cur.runID
		if opened != nil {
			lastRun = &opened.runID
		}
		if _, rerr := c.start(context.WithoutCancel(ctx), h, cur.target, restoreChoice, cur.requested, lastRun, "restore", nil); rerr != nil {
			c.mu.Lock()
			c.removeLocked(h)
			c.mu.Unlock()
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

// start allocates a run, starts the chosen provider (if any), records the
// open and installs the run as h's, h becoming the active target. On a
// start failure it returns the partly opened state (its run id) and the
// error, and h is not open.
func (c *Conn) start(ctx context.Context, h *handle, t provider.Target, choice provider.Choice, requested, previousRun *string, cause string, rep progress.Reporter) (*Target, error) {
	const op = "open_binary"
	rep = progress.OrNop(rep)
	o := &Target{targetID: h.id, target: t, runID: newRunID(), requested: requested, health: map[string]string{}, queue: newRequestQueue(&c.m.abandoned),
		closing: make(chan struct{})}
	// The run id is recorded before any provider starts (§5.5).
	if _, err := c.m.cfg.Ledger.Append(ctx, c.stream, -1, []ledger.NewEvent{c.m.targetEvent(events.AnalysisRunAllocated, events.AnalysisRunAllocatedData{
		ConnectionID: c.id, RunID: o.runID, TargetID: h.id, TargetSHA256: t.SHA256, PreviousRunID: previousRun, Cause: cause,
	})}); err != nil {
		return nil, err
	}
	evs := []ledger.NewEvent{c.m.targetEvent(events.TargetOpened, events.TargetOpenedData{
		ConnectionID: c.id, RunID: o.runID, TargetID: h.id, Target: TargetRecord(t), RequestedProviderID: requested,
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
			operations: c.m.cfg.Operations(choice.Provider)}
		evs = append(evs, c.m.targetEvent(events.ProviderBound, events.ProviderBoundData{
			ConnectionID: c.id, RunID: o.runID, TargetID: h.id, Provider: id, SelectionSource: choice.Source, AnalysisProfile: choice.Profile,
		}))
	}
	if _, err := c.m.cfg.Ledger.Append(ctx, c.stream, -1, evs); err != nil {
		if o.client != nil {
			o.client.Close(context.WithoutCancel(ctx))
		}
		return o, err
	}
	c.mu.Lock()
	if !slices.Contains(c.targets, h) {
		c.targets = append(c.targets, h)
	}
	h.open = o
	c.activateLocked(h)
	c.mu.Unlock()
	if o.client != nil {
		if err := c.observeLineage(ctx, o); err != nil {
			return o, err
		}
		c.watchHealth(ctx, o)
	}
	return o, nil
}

// RecordSelectionFailure records provider_selection_failed and returns
// the failure's typed error (§5.4).
func (c *Conn) RecordSelectionFailure(ctx context.Context, f *provider.SelectionFailure) error {
	data := events.ProviderSelectionFailedData{ConnectionID: c.id, Operation: f.Operation, SelectionReason: f.SelectionReason,
		RequestedProviderID: f.RequestedProviderID, CandidateIDs: f.CandidateIDs, Rejections: f.Rejections}
	if _, err := c.m.cfg.Ledger.Append(ctx, c.stream, -1, []ledger.NewEvent{c.m.event(events.ProviderSelectionFailed, data)}); err != nil {
		return err
	}
	return f.Fault()
}

// closeOpen closes h's run o (the caller holds h.calls for writing): its
// client is closed, target_closed appended, and h is no longer open; a
// close (not a switch) also takes h out of the open order. Unconfirmed
// cleanup leaves nothing open and fails with cleanup_incomplete.
func (c *Conn) closeOpen(ctx context.Context, h *handle, o *Target, reason string) error {
	cleanup := provider.Cleanup{Complete: true}
	close(o.closing)
	o.watchers.Wait() // nothing about this target is recorded after target_closed
	if o.client != nil {
		c.observeLineage(ctx, o) // best effort: the close goes on, and its own cleanup check decides
		cleanup = closeClient(ctx, o)
	}
	data := events.TargetClosedData{ConnectionID: c.id, RunID: o.runID, TargetID: h.id, Reason: reason, Cleanup: "complete", Resources: []string{}}
	if !cleanup.Complete {
		data.Cleanup, data.Resources = "incomplete", cleanup.Resources
	}
	c.mu.Lock()
	h.open = nil
	if reason != "switch" {
		c.removeLocked(h)
	} // a switch keeps the handle's place for the run start installs
	c.mu.Unlock()
	if _, err := c.m.cfg.Ledger.Append(context.WithoutCancel(ctx), c.stream, -1, []ledger.NewEvent{c.m.targetEvent(events.TargetClosed, data)}); err != nil {
		return err
	}
	if !cleanup.Complete {
		return fault.New(fault.CleanupIncomplete, "Owned resources could not be confirmed released.",
			"Run `rea doctor` and inspect the listed resources.",
			map[string]any{"operation": "close_binary", "cleanup": "incomplete", "resources": cleanup.Resources})
	}
	return nil
}

// closeGrace is how long closing a target waits for a call still running on
// its client (one whose caller already left, requestQueue.run) before it
// gives up waiting: the same grace as a process termination (§6.7).
const closeGrace = 2 * time.Second

// closeClient closes o's client once no call runs on it: Close never runs
// beside a Do (provider.Client is called one request at a time, and the
// builtin's Close waits for its running operation). When a call abandoned
// by its caller still holds the client after closeGrace, the client is
// closed when that call returns, and the cleanup is reported incomplete
// (§6.5): the client, and what it holds, remain until then.
func closeClient(ctx context.Context, o *Target) provider.Cleanup {
	closeNow := func() provider.Cleanup {
		cleanup, err := o.client.Close(context.WithoutCancel(ctx))
		if err != nil && cleanup.Complete {
			cleanup = provider.Cleanup{Complete: false, Resources: []string{"provider-client"}}
		}
		return cleanup
	}
	if o.queue.takeForClose(closeGrace) {
		defer func() { <-o.queue.slot }()
		return closeNow()
	}
	go func() {
		o.queue.slot <- struct{}{}
		defer func() { <-o.queue.slot }()
		closeNow()
	}()
	return provider.Cleanup{Complete: false, Resources: []string{"provider-client"}}
}

// CloseResult is close_binary's result.
type CloseResult struct {
	Closed   bool    `json:"closed"`
	TargetID *string `json:"target_id"`
	RunID    *string `json:"run_id"`
}

// CloseBinary closes the target ref names ("" = the active one, if any);
// the most recently activated remaining target becomes active.
func (c *Conn) CloseBinary(ctx context.Context, ref string) (CloseResult, error) {
	const op = "close_binary"
	if err := c.lockTransition(ctx, op); err != nil {
		return CloseResult{}, err
	}
	defer c.unlockTransition()
	h, err := c.find(op, ref)
	if err != nil {
		return CloseResult{}, err
	}
	if h == nil {
		return CloseResult{Closed: false}, nil
	}
	return c.closeHandle(ctx, h, op)
}

func (c *Conn) closeHandle(ctx context.Context, h *handle, reason string) (CloseResult, error) {
	c.mu.Lock()
	if o := h.open; o != nil {
		// Calls still waiting for the target's client give way to the
		// close: one of them may wait behind a call that never returns.
		o.queue.shutdown()
	}
	c.mu.Unlock()
	h.calls.Lock()
	defer h.calls.Unlock()
	c.mu.Lock()
	o := h.open
	c.mu.Unlock()
	if o == nil {
		return CloseResult{Closed: false}, nil
	}
	err := c.closeOpen(ctx, h, o, reason)
	c.notify()
	if err != nil {
		return CloseResult{}, err
	}
	return CloseResult{Closed: true, TargetID: &h.id, RunID: &o.runID}, nil
}

// Close ends the connection: closes every target and appends
// connection_closed.
func (c *Conn) Close(ctx context.Context, reason string) error {
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
	var cerr error
	for {
		c.mu.Lock()
		var h *handle
		if len(c.targets) > 0 {
			h = c.targets[0]
		}
		c.mu.Unlock()
		if h == nil {
			break
		}
		if _, err := c.closeHandle(ctx, h, "connection_closed"); err != nil && cerr == nil {
			cerr = err
		}
	}
	c.m.untrack(c)
	if ev := c.m.cfg.Policy; ev != nil {
		ev.CloseConnection(c.id) // its once/session grants end with it, and only its own
	}
	_, err := c.m.cfg.Ledger.Append(ctx, c.stream, -1, []ledger.NewEvent{c.m.event(events.ConnectionClosed, events.ConnectionClosedData{ConnectionID: c.id, Reason: reason})})
	if cerr != nil {
		return cerr
	}
	return err
}
