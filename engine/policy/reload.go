package policy

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
)

// Reload triggers (policy_reloaded.trigger).
const (
	TriggerStartup = "startup"
	TriggerSIGHUP  = "sighup"
)

// maxTombstones bounds the removed project grants kept to explain a denial as
// grant_revoked_or_consumed.
const maxTombstones = 1000

// Reload is a read and validated project store, not yet in effect. Its Events
// are to be appended in order (policy_reloaded, then grant_revoked and
// grant_added diffs, all on the policy stream) whether or not it applies;
// Apply then puts it in effect with the seq the policy_reloaded got.
type Reload struct {
	Events  []Emit
	Applied bool // false: rejected, the old policy stays in effect

	e       *Evaluator
	gen     uint64
	project []Grant
	tombs   []*entry
	known   map[string]Grant
}

// Reload re-reads the project store and validates it against the ceilings,
// all or nothing: a store with one bad grant is rejected, returned as the
// error (configuration_invalid with its reason), and the policy in effect is
// unchanged. Ceilings are never re-read: they change only with a restart. The
// caller serializes reloads; Apply refuses a reload overtaken by another
// policy change.
func (e *Evaluator) Reload(trigger string) (*Reload, error) {
	e.mu.Lock()
	gen := e.gen
	known := make(map[string]Grant, len(e.known))
	for id, g := range e.known {
		known[id] = g
	}
	cur := e.snap.Load()
	e.mu.Unlock()

	data := events.PolicyReloadedData{Trigger: trigger, Outcome: "applied",
		AdministratorCeilings: e.ceilings.Scopes(), CeilingsDigest: e.ceilings.Digest()}
	r := &Reload{e: e, gen: gen}

	var grants []Grant
	if e.store != nil {
		snap, err := ReadStore(*e.store, e.ceilings)
		if err != nil {
			reason := StoreReason(err)
			if reason == "" {
				reason = StoreIO
			}
			data.Outcome, data.ErrorReason = "rejected", &reason
			data.ProjectStore = &events.ProjectStoreState{Path: e.store.Path, State: "error", GrantCount: len(cur.project)}
			r.Events = []Emit{{Stream: events.PolicyStream, Type: events.PolicyReloaded, Data: data}}
			return r, err
		}
		grants = snap.Grants
		data.ProjectStore = &events.ProjectStoreState{Path: e.store.Path, State: "enabled",
			GrantCount: len(grants), StoreSHA256: snap.SHA256}
	}
	r.Events = []Emit{{Stream: events.PolicyStream, Type: events.PolicyReloaded, Data: data}}

	next := make(map[string]Grant, len(grants))
	for _, g := range grants {
		next[g.GrantID] = g
	}
	var revoked, added []string
	for id, old := range known {
		if g, ok := next[id]; !ok || !equalGrant(old, g) {
			revoked = append(revoked, id)
		}
	}
	for id, g := range next {
		if old, ok := known[id]; !ok || !equalGrant(old, g) {
			added = append(added, id)
		}
	}
	slices.Sort(revoked)
	slices.Sort(added)
	for _, id := range revoked {
		r.Events = append(r.Events, Emit{Stream: events.PolicyStream, Type: events.GrantRevoked,
			Data: events.GrantRevokedData{GrantID: id, Source: SourceProjectStore}})
	}
	for _, id := range added {
		r.Events = append(r.Events, Emit{Stream: events.PolicyStream, Type: events.GrantAdded,
			Data: events.GrantAddedData{Grant: cloneGrant(next[id]), Source: SourceProjectStore}})
	}

	// Grants that leave the policy are kept, revoked, to explain a denial.
	for _, en := range cur.project {
		if g, ok := next[en.g.GrantID]; !ok || !equalGrant(en.g, g) {
			t, err := newEntry(en.g, LifetimeProject)
			if err != nil {
				continue
			}
			t.revoked.Store(true)
			r.tombs = append(r.tombs, t)
		}
	}
	for _, ix := range cur.byCap {
		r.tombs = append(r.tombs, ix.tombs...)
	}
	if len(r.tombs) > maxTombstones {
		r.tombs = r.tombs[len(r.tombs)-maxTombstones:]
	}
	r.project, r.known, r.Applied = grants, next, true
	return r, nil
}

// Apply puts an accepted reload in effect for every connection (their
// overlays are evaluated against it from the next evaluation), recording
// policySeq as the seq of its policy_reloaded event.
func (r *Reload) Apply(policySeq int64) error {
	if !r.Applied {
		return errors.New("policy: a rejected reload cannot be applied")
	}
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gen != r.gen {
		return ErrStaleReload
	}
	snap, err := e.buildSnapshot(r.project, r.tombs, policySeq)
	if err != nil {
		return fmt.Errorf("policy: apply reload: %w", err)
	}
	e.snap.Store(snap)
	e.known = r.known
	e.gen++
	return nil
}

func equalGrant(a, b Grant) bool {
	x, err1 := canon.Marshal(a)
	y, err2 := canon.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// ProjectGrants are the project grants in effect (ledger-revoked ones
// included), by grant_id.
func (e *Evaluator) ProjectGrants() []Grant {
	var out []Grant
	for _, en := range e.snap.Load().project {
		out = append(out, cloneGrant(en.g))
	}
	slices.SortFunc(out, func(a, b Grant) int { return strings.Compare(a.GrantID, b.GrantID) })
	return out
}
