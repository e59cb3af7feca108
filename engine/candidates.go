package engine

import (
	"context"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
)

// The operations a binding offers (the provider's declarations and the
// engine's own), and the candidates of analysis_provider_candidates.

// Candidate is one entry of analysis_provider_candidates (CONTRACTS.md §3.5).
type Candidate struct {
	Provider      provider.Identity      `json:"provider"`
	Availability  provider.Availability  `json:"availability"`
	TargetSupport provider.TargetSupport `json:"target_support"`
	Selected      bool                   `json:"selected"`
	Capabilities  []provider.Capability  `json:"capabilities"`
}

// Candidates evaluates every registered provider against the connection's
// target (or none), sorted by id.
func (c *Connection) Candidates(ctx context.Context) []Candidate {
	return c.eng.Candidates(ctx, c.State())
}

// Candidates evaluates every registered provider against st's target (none
// when st is zero), sorted by id. It never starts a client: availability and
// support are cheap facts probed once per process.
func (e *Engine) Candidates(ctx context.Context, st session.State) []Candidate {
	out := []Candidate{}
	for _, p := range e.cfg.Registry.Providers() {
		cand := Candidate{Provider: p.Identity(), Availability: p.Availability(ctx), TargetSupport: provider.UnknownSupport()}
		if st.Open {
			cand.TargetSupport = p.Support(st.Target)
			if st.Binding != nil && st.Binding.Provider.ID == cand.Provider.ID {
				cand.Selected, cand.Provider = true, st.Binding.Provider
			}
		}
		for _, capability := range operationsOf(p) {
			if cand.Availability.Status == "available" {
				capability.Available, capability.Reason, capability.AvailabilityCode = true, nil, nil
			} else {
				capability.Available, capability.Reason, capability.AvailabilityCode = false, cand.Availability.Reason, cand.Availability.Code
			}
			if capability.Limitations == nil {
				capability.Limitations = []string{}
			}
			cand.Capabilities = append(cand.Capabilities, capability)
		}
		if cand.Capabilities == nil {
			cand.Capabilities = []provider.Capability{}
		}
		out = append(out, cand)
	}
	return out
}
