package engine

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
func (c *Connection) ObserveLineage(ctx context.Context) error {
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
func (c *Connection) runs() []*openTarget {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*openTarget, 0, len(c.targets))
	for _, h := range c.targets {
		if h.open != nil {
			out = append(out, h.open)
		}
	}
	return out
}

func (c *Connection) observeLineage(ctx context.Context, o *openTarget) error {
	obs, ok := o.client.Lineage(ctx)
	if !ok {
		return nil
	}
	data := events.LineageObservedData{ConnectionID: c.id, RunID: o.runID, TargetID: o.targetID, Provider: o.binding.Provider, Observation: obs}
	if _, err := c.eng.appendEvents(context.WithoutCancel(ctx), c.stream, -1,
		[]ledger.NewEvent{c.eng.targetEvent(events.LineageObserved, data)}, nil); err != nil {
		return err
	}
	if obs.Status != lineage.StatusVerified {
		c.observeHealth(ctx, o, "lineage", fault.New(fault.ProviderUnavailable, "The provider's process could not be verified.",
			"Reopen the target to restart the provider.", map[string]any{"reason": obs.Reason}))
	}
	return nil
}

// LineageSnapshots are the latest observations of a run (binary_session
// passes each open target's), by provider id; empty when nothing was
// observed (status not_observed).
func (c *Connection) LineageSnapshots(ctx context.Context, runID string) ([]projections.LineageSnapshot, error) {
	if runID == "" {
		return nil, nil
	}
	return projections.LineageSnapshots(ctx, c.eng.cfg.Ledger.ReadDB(), runID)
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
func (c *Connection) watchHealth(ctx context.Context, o *openTarget) {
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
		c.observeHealth(ctx, o, "health", fe)
		c.observeLineage(ctx, o)
	}()
}
