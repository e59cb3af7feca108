package tools

import (
	"slices"

	"github.com/rea-re/rea/engine/events"
	engsession "github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/tools/catalog"
)

// Several targets per connection (CONTRACTS.md §15). The tools that act on
// a target take an optional target argument naming one of the
// connection's handles; absent, they act on the active target. The
// argument is taken off the parameters before the handler runs (it
// travels as input.target): Evidence parameters never include it (the subject names the bytes, so the same
// call on the same bytes gives the same id whichever handle named them).

// activeFirst is open (a connection's States, in open order) with the
// active target first; one zero State when none is open.
func activeFirst(open []engsession.State) []engsession.State {
	if len(open) == 0 {
		return []engsession.State{{}}
	}
	out := make([]engsession.State, 0, len(open))
	i := max(slices.IndexFunc(open, func(s engsession.State) bool { return s.Active }), 0)
	out = append(out, open[i])
	out = append(out, open[:i]...)
	return append(out, open[i+1:]...)
}

// evaluateAcross is the §15.2 listing rule: a tool's entry is computed for
// the active target, it is available when the active target or any other
// open target can serve it, and available_for names every open target
// that can (sorted). states come from activeFirst.
func (s *Server) evaluateAcross(spec catalog.Spec, states []engsession.State, features events.ClientFeatures) ToolAvailability {
	a := s.evaluate(spec, states[0], features)
	if !spec.TakesTarget() && !spec.NamesItsTargets() || !states[0].Open {
		return a
	}
	var serving []string
	for i, st := range states {
		v := a
		if i > 0 {
			v = s.evaluate(spec, st, features)
		}
		if v.Available {
			serving = append(serving, st.TargetID)
		}
	}
	slices.Sort(serving)
	a.AvailableFor = serving
	if a.AvailableFor == nil {
		a.AvailableFor = []string{}
	}
	return a
}

// listed says whether tools/list shows the tool in a legacy era (§15.2).
func (a ToolAvailability) listed() bool { return a.Available || len(a.AvailableFor) > 0 }

// targetVerdict decides a call on a target-taking tool before it runs: an
// unknown or closed target is invalid_request at /target; a target that
// cannot serve the tool gets the 2026-07-28 era's typed error (§4, §15.2).
// Legacy-era calls without a target keep the first edition's behaviour
// (the engine's own typed errors), which single-target clients rely on.
func (s *Server) targetVerdict(spec catalog.Spec, sess *session, ref string, modern bool) error {
	if !spec.TakesTarget() {
		// A tool that names its targets gets each one's typed error from
		// the engine (the active target may be neither).
		if modern && !spec.NamesItsTargets() {
			if a := s.availabilityOf(spec.Name, sess.conn.State(), sess.features); !a.Available {
				return unavailableToolError(spec.Name, a)
			}
		}
		return nil
	}
	if ref == "" && !modern {
		return nil
	}
	st, err := sess.conn.StateOf(spec.Name, ref)
	if err != nil {
		return err
	}
	if spec.Name == "close_binary" {
		return nil
	}
	if a := s.availabilityOf(spec.Name, st, sess.features); !a.Available {
		fe := unavailableToolError(spec.Name, a)
		if st.Open {
			fe.Details["target_id"] = st.TargetID
		}
		return fe
	}
	return nil
}
