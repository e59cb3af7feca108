package session

import (
	"context"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// Process lineage (CONTRACTS.md §3.7). A process-backed provider's client
// observes its own process tree; the engine records each observation as
// lineage_observed at three points: after the provider has started, on every
// binary_session full view, and before the client is closed. Observing never
// sends a signal. An observation that cannot verify the launcher means the
// provider is gone: the provider is marked unavailable (§5.5) and the tool
// list changes, but the binding stays.

// ObserveLineage records an observation of every open target's provider
// processes, where there are any. It is binary_session's full-view point.
func (c *Conn) ObserveLineage(ctx context.Context) error {
	for _, o := range c.runs() {
		if o.client != nil {
			if err := c.observeLineage(ctx, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// runs are the open targets' current runs, in open order.
func (c *Conn) runs() []*Target {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Target, 0, len(c.targets))
	for _, h := range c.targets {
		if h.open != nil {
			out = append(out, h.open)
		}
	}
	return out
}

func (c *Conn) observeLineage(ctx context.Context, o *Target) error {
	obs, ok := o.client.Lineage(ctx)
	if !ok {
		return nil
	}
	data := events.LineageObservedData{ConnectionID: c.id, RunID: o.runID, TargetID: o.targetID, Provider: o.binding.Provider, Observation: obs}
	if _, err := c.m.cfg.Ledger.Append(context.WithoutCancel(ctx), c.stream, -1,
		[]ledger.NewEvent{c.m.targetEvent(events.LineageObserved, data)}); err != nil {
		return err
	}
	if obs.Status != lineage.StatusVerified {
		c.ObserveHealth(ctx, o, "lineage", fault.New(fault.ProviderUnavailable, "The provider's process could not be verified.",
			"Reopen the target to restart the provider.", map[string]any{"reason": obs.Reason}))
	}
	return nil
}

// LineageSnapshots are the latest observations of a run (binary_session
// passes each open target's), by provider id; empty when nothing was
// observed (status not_observed).
func (c *Conn) LineageSnapshots(ctx context.Context, runID string) ([]projections.LineageSnapshot, error) {
	if runID == "" {
		return nil, nil
	}
	return projections.LineageSnapshots(ctx, c.m.cfg.Ledger.ReadDB(), runID)
}

// healthReporter is implemented by clients whose provider can die under
// them (a process-backed provider). Unhealthy closes once, for good; Health
// is then the provider_unavailable error.
type healthReporter interface {
	Health() error
	Unhealthy() <-chan struct{}
}

// watchHealth turns a provider's death into the health transition of §5.5
// as soon as it happens, not at the next request: provider_health_changed is
// recorded, the tool list changes, and the binding stays. A client closed by
// REA also reports itself unhealthy; that is not a transition.
func (c *Conn) watchHealth(ctx context.Context, o *Target) {
	hr, ok := o.client.(healthReporter)
	if !ok {
		return
	}
	ctx = context.WithoutCancel(ctx)
	o.watchers.Add(1)
	go func() {
		defer o.watchers.Done()
		select {
		case <-o.closing:
			return
		case <-hr.Unhealthy():
		}
		select {
		case <-o.closing:
			return
		default:
		}
		fe := fault.From("health", hr.Health())
		if fe == nil || fe.Code != fault.ProviderUnavailable {
			fe = fault.New(fault.ProviderUnavailable, "The provider stopped answering.", "Reopen the target to restart the provider.", nil)
		}
		c.ObserveHealth(ctx, o, "health", fe)
		c.observeLineage(ctx, o)
	}()
}

// ObserveHealth maintains the health overlay (§5.5): success clears an
// operation's mark; a failure changes health only as healthScope says. Each
// change is an event and a tools change.
func (c *Conn) ObserveHealth(ctx context.Context, o *Target, op string, fe *fault.Error) {
	key, state, reason := op, "available", ""
	if fe != nil {
		switch key = healthScope(op, fe); key {
		case "":
			return // the failure stays with its call
		case "*":
			state, reason = "unavailable", "provider became unavailable during this session"
		default:
			state, reason = "unavailable", "the provider reported the operation unavailable"
		}
	}
	c.mu.Lock()
	_, marked := o.health[key]
	changed := (state == "available") == marked
	if changed {
		if state == "available" {
			delete(o.health, key)
		} else {
			o.health[key] = reason
		}
	}
	c.mu.Unlock()
	if !changed {
		return
	}
	data := events.ProviderHealthChangedData{ConnectionID: c.id, RunID: o.runID, TargetID: o.targetID, ProviderID: o.binding.Provider.ID, State: state}
	if key != "*" {
		data.Operation = &op
	}
	if reason != "" {
		data.Reason = &reason
	}
	c.m.cfg.Ledger.Append(context.WithoutCancel(ctx), c.stream, -1, []ledger.NewEvent{c.m.targetEvent(events.ProviderHealthChanged, data)})
	c.notify()
}

// healthScope says which part of the health overlay a failed call changes
// (issue 13: a failure stays with its call). Health is a claim about the
// provider, not about one input, so only failures that no other input could
// avoid mark anything:
//
//   - "*" (every operation): provider_unavailable. The provider's process
//     died or exited, its start or health check failed, or its client is
//     closed; any later call would fail the same way.
//   - op (this operation): capability_unavailable with availability_reason
//     "provider_missing": the provider declared the operation but answers
//     that it does not offer it at all, whatever the arguments.
//   - "" (nothing; the typed error goes back to this call only): every other
//     failure. This includes capability_unavailable for any other reason,
//     which names something about this input (thumb_code_unsupported: this
//     procedure's instruction set is not decoded) or gives no reason;
//     invalid_request (a procedure not found, an invalid argument);
//     truncated; execution_failure (e.g. a provider panic on a malformed
//     region of the file); unreadable_output (one malformed answer);
//     provider_timeout and cancelled (the call's own budget). A timeout or
//     cancellation that kills a process-backed provider is seen by its
//     health reporter (watchHealth) and by the next call's
//     provider_unavailable, so it still marks "*", from the provider's
//     state rather than from the call.
//
// A process-backed provider's death seen by watchHealth or the lineage check
// comes here as provider_unavailable too.
func healthScope(op string, fe *fault.Error) string {
	switch fe.Code {
	case fault.ProviderUnavailable:
		return "*"
	case fault.CapabilityUnavailable:
		if r, _ := fe.Details["availability_reason"].(string); r == "provider_missing" {
			return op
		}
	}
	return ""
}

// Unhealthy is the reason o's provider is marked unavailable for op (or
// for every operation), if it is.
func (c *Conn) Unhealthy(o *Target, op string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, bad := o.health["*"]; bad {
		return r, true
	}
	r, bad := o.health[op]
	return r, bad
}
