package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// Permission policy (CONTRACTS.md §9). Every local side effect is decided by
// the one evaluator the engine holds, the same one `rea policy explain`
// dry-runs, and every decision and grant change is appended to the ledger
// before the operation proceeds, so the history explains itself.

// appendEmits appends policy events in order, in one transaction even when
// they span streams (a reload's events and a decision's consumption commit
// together or not at all).
func (m *Manager) appendEmits(ctx context.Context, emits []policy.Emit) ([]ledger.Event, error) {
	var appends []ledger.StreamAppend
	for _, em := range emits {
		if n := len(appends); n == 0 || appends[n-1].Stream != em.Stream {
			appends = append(appends, ledger.StreamAppend{Stream: em.Stream, ExpectedVersion: -1})
		}
		last := &appends[len(appends)-1]
		last.Events = append(last.Events, m.event(em.Type, em.Data))
	}
	if len(appends) == 0 {
		return nil, nil
	}
	return m.cfg.Ledger.AppendMulti(ctx, appends)
}

// ReloadPolicy re-reads the project store (trigger startup or sighup),
// records policy_reloaded and its grant diffs whether or not the store was
// accepted, and applies an accepted store to every live connection. A
// rejected store keeps the old policy and is returned as the error. Reloads
// are serialized.
func (m *Manager) ReloadPolicy(ctx context.Context, trigger string) error {
	ev := m.cfg.Policy
	m.reloadMu.Lock()
	defer m.reloadMu.Unlock()
	r, rerr := ev.Reload(trigger)
	if r == nil {
		return rerr
	}
	stored, err := m.appendEmits(context.WithoutCancel(ctx), r.Events)
	if err != nil {
		return err
	}
	if rerr != nil || !r.Applied {
		if rerr == nil {
			rerr = fmt.Errorf("policy: the project store was rejected")
		}
		return rerr
	}
	if err := r.Apply(stored[0].Seq); err != nil {
		return err
	}
	// The store just read already reflects every earlier revocation.
	m.revokedMu.Lock()
	m.revokedSeen = max(m.revokedSeen, stored[len(stored)-1].Seq)
	m.revokedMu.Unlock()
	if trigger != policy.TriggerStartup {
		m.forEachConn(func(c *Conn) { c.notify() })
	}
	return nil
}

// Authorize decides one side effect of op for this connection: the decision
// (and the consumption of a once grant) is recorded before the caller
// proceeds; a denial is the permission_required failure of §9.8.
func (c *Conn) Authorize(ctx context.Context, op string, req policy.Request) (policy.Decision, error) {
	return c.AuthorizeAsking(ctx, op, req, c.info.Features.ElicitationForm)
}

// AuthorizeAsking is Authorize where the caller says whether it can ask the
// user (form elicitation on this request's protocol revision), which decides
// whether a denial inside the ceiling offers elicitation.
func (c *Conn) AuthorizeAsking(ctx context.Context, op string, req policy.Request, canAsk bool) (policy.Decision, error) {
	ev := c.m.cfg.Policy
	if err := c.m.honourLedgerRevocations(ctx); err != nil {
		return policy.Decision{}, err
	}
	canonical, err := policy.CanonicalizeRequest(op, req)
	if err != nil {
		var re *policy.RequestError
		if errors.As(err, &re) {
			return policy.Decision{}, policy.PathFault(op, fmt.Sprintf("/%s/%d", re.Field, re.Index), re.Err)
		}
		return policy.Decision{}, err
	}
	d := ev.Evaluate(policy.Input{ConnectionID: c.id, Operation: op, Request: canonical,
		Surface: c.surface(), ElicitationForm: canAsk})
	if _, err := c.m.appendEmits(context.WithoutCancel(ctx), d.Events); err != nil {
		return d, err
	}
	if !d.Allowed {
		return d, d.Err()
	}
	return d, nil
}

// AddConnectionGrant adds an approved once/session grant to this connection's
// overlay (elicitation accept) and records grant_added.
func (c *Conn) AddConnectionGrant(ctx context.Context, g policy.Grant) error {
	emit, err := c.m.cfg.Policy.AddConnectionGrant(c.id, g)
	if err != nil {
		return err
	}
	_, err = c.m.appendEmits(context.WithoutCancel(ctx), []policy.Emit{emit})
	return err
}

func (c *Conn) surface() policy.Surface {
	if c.info.Transport == "cli" {
		return policy.SurfaceCLI
	}
	return policy.SurfaceMCP
}

// RevokeConnectionGrant removes a grant from this connection's overlay and
// records grant_revoked with source (an elicitation rollback).
func (c *Conn) RevokeConnectionGrant(ctx context.Context, grantID, source string) error {
	emit, err := c.m.cfg.Policy.RevokeConnectionGrant(c.id, grantID, source)
	if err != nil {
		return err
	}
	_, err = c.m.appendEmits(context.WithoutCancel(ctx), []policy.Emit{emit})
	return err
}

// honourLedgerRevocations applies the project-grant revocations other
// processes recorded (`rea policy revoke`) since the last look: a revocation
// takes effect at once in every process sharing the ledger, while additions
// wait for a reload (CONTRACTS.md §9.6).
func (m *Manager) honourLedgerRevocations(ctx context.Context) error {
	m.revokedMu.Lock()
	defer m.revokedMu.Unlock()
	ids, seen, err := projections.ProjectRevocationsSince(ctx, m.cfg.Ledger.ReadDB(), m.revokedSeen)
	if err != nil {
		return fault.Internal("policy", err)
	}
	for _, id := range ids {
		m.cfg.Policy.RevokeProjectGrant(id)
	}
	m.revokedSeen = seen
	return nil
}

// maxStartupAttempts bounds the retries of a revocation's startup events
// when another process appends to the policy stream at the same time.
const maxStartupAttempts = 5

// RevokeProjectGrant removes the project grant grantID from the store of cfg
// and records it, as a process that starts, revokes and exits does (`rea
// policy revoke`, CONTRACTS.md §9.7). It first appends the startup events
// (§13.2: policy_reloaded and the store's diffs against the ledger, at the
// policy stream's expected version, retried when another process appended
// meanwhile), so the ledger holds the grant before it records its removal;
// then it rewrites the store (under its lock, against shown, the grant the
// person confirmed, when not nil) and records grant_revoked, source cli.
// Every process sharing the ledger honours the revocation at its next
// decision (honourLedgerRevocations).
//
// It returns the position of the grant_revoked appended. Without a project
// store it is policy.ErrStoreNotConfigured; a grant the store does not hold
// is policy.ErrGrantNotFound; a store that became invalid is its store
// fault, recorded as a rejected reload first. Appends fail as every append
// through the Ledger port does (revision_conflict, ledger_unavailable).
func (m *Manager) RevokeProjectGrant(ctx context.Context, cfg *policy.Config, grantID string, shown *policy.Grant) (projections.LedgerPosition, error) {
	var at projections.LedgerPosition
	if cfg.Store == nil {
		return at, policy.ErrStoreNotConfigured
	}
	for attempt := 1; ; attempt++ {
		stream, err := projections.ReadPolicyStream(ctx, m.cfg.Ledger.ReadDB(), 0)
		if err != nil {
			return at, fault.Internal("policy_revoke", err)
		}
		baseline := projections.Active(projections.ProjectGrants(stream.Events))
		r, reloadErr := policy.New(cfg, baseline, policy.Options{Now: m.cfg.Now}).Reload(policy.TriggerStartup)
		if r == nil {
			return at, reloadErr
		}
		evs := make([]ledger.NewEvent, 0, len(r.Events))
		for _, em := range r.Events {
			evs = append(evs, m.event(em.Type, em.Data))
		}
		_, err = m.cfg.Ledger.Append(ctx, events.PolicyStream, stream.Version, evs)
		if errors.Is(err, ledger.ErrConflict) && attempt < maxStartupAttempts {
			continue
		}
		if err != nil {
			return at, err
		}
		if reloadErr != nil {
			return at, reloadErr // the store went bad meanwhile; its rejection is recorded
		}
		break
	}

	_, emit, err := policy.RevokeFromStore(ctx, *cfg.Store, cfg.Ceilings, grantID, shown)
	if err != nil {
		return at, err
	}
	// The store has changed: record it even if interrupted now. No expected
	// version: the store write, under its lock and against the grant shown,
	// is what validated the revocation, so the event lands whatever else the
	// policy stream received meanwhile.
	stored, err := m.cfg.Ledger.Append(context.WithoutCancel(ctx), emit.Stream, -1, []ledger.NewEvent{m.event(emit.Type, emit.Data)})
	if err != nil {
		return at, err
	}
	last := stored[len(stored)-1]
	return projections.LedgerPosition{Seq: last.Seq, HeadHash: last.Hash}, nil
}
