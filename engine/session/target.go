package session

import (
	"context"
	"slices"
	"time"

	"github.com/rea-re/rea/engine/provider"
)

// What an operation needs of an admitted target. The engine root runs
// operations through these; the session does not know what they do.

// ID is the target's handle ("tgt_…").
func (o *Target) ID() string { return o.targetID }

// Target is what was opened.
func (o *Target) Target() provider.Target { return o.target }

// RunID is the target's current analysis run.
func (o *Target) RunID() string { return o.runID }

// Binding is the target's provider binding; nil when it is unbound.
func (o *Target) Binding() *Binding { return o.binding }

// Client is the bound provider's client; nil when the target is unbound.
func (o *Target) Client() provider.Client { return o.client }

// Requested is the provider the open named (nil: auto).
func (o *Target) Requested() *string { return o.requested }

// Run runs fn as one request of operation op in the target's request
// queue, under timeout (0 = none): see requestQueue.run. It returns nil
// when fn returned (fn keeps its own results), cancelled or
// provider_timeout when the caller left first, execution_failure when fn
// panicked, and the closed-target error when the target closed before fn
// could run.
func (o *Target) Run(ctx context.Context, op string, timeout time.Duration, fn func(ctx context.Context)) error {
	return o.queue.run(ctx, op, timeout, fn)
}

// Busy reports whether the client is held by a call whose caller already
// left: a request would wait for it for as long as it runs.
func (o *Target) Busy() bool { return o.queue.abandonedActive() }

// Impl is the bound provider.
func (b *Binding) Impl() provider.Provider { return b.impl }

// Operations are the binding's operations (Config.Operations at binding),
// sorted by operation.
func (b *Binding) Operations() []provider.Capability { return b.operations }

// Known is nil when ref ("" always) names an open target of this
// connection, else the invalid_request of an unknown target.
func (c *Conn) Known(op, ref string) error {
	_, err := c.find(op, ref)
	return err
}

// ActiveRun is the active target's run, which a target-free derived answer
// is recorded under; nil when nothing is open.
func (c *Conn) ActiveRun() *Target {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.activeLocked(); h != nil {
		return h.open
	}
	return nil
}

// AdmitOthers admits every open, bound target of the connection but
// except, in open order, each held open (as by Admit) until release.
func (c *Conn) AdmitOthers(except *Target) (targets []*Target, release func()) {
	var releases []func()
	release = func() {
		for _, r := range releases {
			r()
		}
	}
	c.mu.Lock()
	handles := slices.Clone(c.targets)
	c.mu.Unlock()
	for _, h := range handles {
		h.calls.RLock()
		c.mu.Lock()
		o := h.open
		c.mu.Unlock()
		if o == nil || o == except || o.binding == nil {
			h.calls.RUnlock()
			continue
		}
		releases = append(releases, h.calls.RUnlock)
		targets = append(targets, o)
	}
	return targets, release
}
