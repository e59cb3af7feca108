package provider

import (
	"context"
	"regexp"
	"sort"
	"sync"

	"github.com/rea-re/rea/engine/fault"
)

// Selector is "auto" or a concrete provider id (CONTRACTS.md §5.1). One parser
// serves open_binary.provider_id, the CLI --provider flag and
// REA_ANALYSIS_PROVIDER.
type Selector string

// Auto selects the single usable candidate.
const Auto Selector = "auto"

var providerIDPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// ParseSelector validates a selector.
func ParseSelector(s string) (Selector, bool) {
	if s == string(Auto) {
		return Auto, true
	}
	if len(s) < 1 || len(s) > 64 || !providerIDPattern.MatchString(s) {
		return "", false
	}
	return Selector(s), true
}

// Selection sources of a binding.
const (
	SourceRequest     = "request"
	SourceEnvironment = "environment"
	SourceAuto        = "auto-single-candidate"
)

// Registry holds the registered providers, sorted by id.
type Registry struct {
	providers []Provider
}

// NewRegistry registers providers; ids must be unique.
func NewRegistry(ps ...Provider) *Registry {
	sorted := append([]Provider(nil), ps...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Identity().ID < sorted[j].Identity().ID })
	return &Registry{providers: sorted}
}

// Providers returns the providers sorted by id.
func (r *Registry) Providers() []Provider { return r.providers }

// Lookup finds a provider by id.
func (r *Registry) Lookup(id string) (Provider, bool) {
	for _, p := range r.providers {
		if p.Identity().ID == id {
			return p, true
		}
	}
	return nil, false
}

// IDs lists registered ids, sorted.
func (r *Registry) IDs() []string {
	ids := make([]string, len(r.providers))
	for i, p := range r.providers {
		ids[i] = p.Identity().ID
	}
	return ids
}

// Rejection explains why one candidate was not bound.
type Rejection struct {
	ProviderID  string         `json:"provider_id"`
	Code        string         `json:"code"`
	Reason      string         `json:"reason"`
	Diagnostics map[string]any `json:"diagnostics"`
}

// Selection reasons (§5.3).
const (
	ReasonUnknownProvider     = "unknown_provider"
	ReasonProviderUnavailable = "provider_unavailable"
	ReasonTargetUnsupported   = "target_unsupported"
	ReasonAmbiguous           = "ambiguous"
)

// SelectionFailure is a failed selection; Error() projects it to a fault.
type SelectionFailure struct {
	Operation           string      `json:"operation"`
	SelectionReason     string      `json:"selection_reason"`
	RequestedProviderID string      `json:"requested_provider_id"`
	CandidateIDs        []string    `json:"candidate_ids"`
	Rejections          []Rejection `json:"rejections"`
}

// Fault projects the failure per §5.3.
func (f *SelectionFailure) Fault() *fault.Error {
	details := map[string]any{
		"operation": f.Operation, "selection_reason": f.SelectionReason,
		"requested_provider_id": f.RequestedProviderID, "candidate_ids": f.CandidateIDs,
		"rejections": f.Rejections,
	}
	if f.SelectionReason == ReasonProviderUnavailable {
		return fault.New(fault.ProviderUnavailable, "The selected analysis provider is unavailable.",
			"Install or enable the provider (see binary_session analysis_provider_candidates and `rea doctor`), or open with another provider_id.", details)
	}
	text, known := map[string][2]string{
		ReasonUnknownProvider:   {"No analysis provider has that id.", "Choose a provider id from binary_session analysis_provider_candidates."},
		ReasonTargetUnsupported: {"The analysis provider does not support this target.", "Open the target with a provider whose target_support is supported, or open it without provider_id."},
		ReasonAmbiguous:         {"More than one analysis provider can analyze this target.", "Choose one with provider_id, --provider or REA_ANALYSIS_PROVIDER."},
	}[f.SelectionReason]
	if !known {
		text = [2]string{"The analysis provider could not be selected.", "Check provider_id and call again."}
	}
	return fault.New(fault.CapabilityUnavailable, text[0], text[1], details)
}

// Choice is a successful selection. Provider nil means the target opens unbound.
type Choice struct {
	Provider Provider
	Profile  Profile
	Source   string
}

// Effective is the selector a selection follows: the request's, else the
// environment's, else auto.
func Effective(request, env Selector) Selector {
	if request != "" {
		return request
	}
	if env != "" {
		return env
	}
	return Auto
}

// Select runs the selection algorithm of §5.2 for one open. request is the
// request/flag selector (empty when absent); env the REA_ANALYSIS_PROVIDER
// selector (empty when unset).
func (r *Registry) Select(ctx context.Context, t Target, request, env Selector) (Choice, *SelectionFailure, error) {
	if err := ctx.Err(); err != nil {
		return Choice{}, nil, fault.CancelledError("open_binary").WithCause(err)
	}
	type eval struct {
		p       Provider
		avail   Availability
		support TargetSupport
	}
	evals := make([]eval, len(r.providers))
	for i, p := range r.providers {
		evals[i] = eval{p, p.Availability(ctx), p.Support(t)}
	}
	selector, source := Effective(request, env), SourceRequest
	if request == "" {
		source = SourceEnvironment
	}
	if selector == Auto {
		source = SourceAuto
	}
	fail := func(reason string, rej []Rejection) *SelectionFailure {
		if rej == nil {
			rej = []Rejection{}
		}
		return &SelectionFailure{Operation: "open_binary", SelectionReason: reason,
			RequestedProviderID: string(selector), CandidateIDs: r.IDs(), Rejections: rej}
	}
	if request == "" && env != "" && env != Auto {
		allUnsupported := true
		for _, e := range evals {
			if e.support.Status != "unsupported" {
				allUnsupported = false
			}
		}
		if allUnsupported {
			return Choice{}, nil, nil
		}
	}
	if selector != Auto {
		var e *eval
		for i := range evals {
			if evals[i].p.Identity().ID == string(selector) {
				e = &evals[i]
			}
		}
		if e == nil {
			return Choice{}, fail(ReasonUnknownProvider, nil), nil
		}
		id := string(selector)
		if e.support.Status != "supported" {
			return Choice{}, fail(ReasonTargetUnsupported, []Rejection{supportRejection(id, e.support)}), nil
		}
		if e.avail.Status != "available" {
			return Choice{}, fail(ReasonProviderUnavailable, []Rejection{availRejection(id, e.avail)}), nil
		}
		prof, err := resolveProfile(ctx, e.p, t)
		if err != nil {
			if fault.Is(err, fault.Cancelled) {
				return Choice{}, nil, err
			}
			return Choice{}, fail(ReasonProviderUnavailable, []Rejection{unresolved(id)}), nil
		}
		return Choice{Provider: e.p, Profile: prof, Source: source}, nil, nil
	}

	// auto: resolve every available, supported candidate's profile concurrently.
	type resolved struct {
		prof Profile
		err  error
	}
	results := make([]resolved, len(evals))
	var wg sync.WaitGroup
	for i, e := range evals {
		if e.support.Status != "supported" || e.avail.Status != "available" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := resolveProfile(ctx, e.p, t)
			results[i] = resolved{p, err}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Choice{}, nil, fault.CancelledError("open_binary").WithCause(err)
	}
	var usable []int
	for i, e := range evals {
		if e.support.Status == "supported" && e.avail.Status == "available" && results[i].err == nil {
			usable = append(usable, i)
		}
	}
	switch len(usable) {
	case 0:
		return Choice{}, nil, nil
	case 1:
		i := usable[0]
		return Choice{Provider: evals[i].p, Profile: results[i].prof, Source: SourceAuto}, nil, nil
	}
	return Choice{}, fail(ReasonAmbiguous, nil), nil
}

func resolveProfile(ctx context.Context, p Provider, t Target) (Profile, error) {
	prof, err := p.Profile(ctx, t)
	if err != nil {
		return Profile{}, err
	}
	if err := prof.Verify(); err != nil {
		return Profile{}, err
	}
	id := p.Identity()
	if prof.Provider.ID != id.ID || prof.Provider.Name != id.Name || prof.Provider.Version == nil {
		return Profile{}, fault.New(fault.ProviderUnavailable, "The provider's analysis profile does not match its identity.", "Run `rea doctor`.", nil)
	}
	return prof, nil
}

func supportRejection(id string, s TargetSupport) Rejection {
	return Rejection{ProviderID: id, Code: deref(s.Code), Reason: deref(s.Reason), Diagnostics: orEmpty(s.Diagnostics)}
}

func availRejection(id string, a Availability) Rejection {
	return Rejection{ProviderID: id, Code: deref(a.Code), Reason: deref(a.Reason), Diagnostics: orEmpty(a.Diagnostics)}
}

func unresolved(id string) Rejection {
	return Rejection{ProviderID: id, Code: "version_unresolved", Reason: "The provider's analysis profile could not be resolved.", Diagnostics: map[string]any{}}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
