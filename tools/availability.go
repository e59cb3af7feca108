package tools

import (
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/provider"
	engsession "github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/tools/catalog"
)

// ClientRequirements are a tool's client features (§3.4).
type ClientRequirements struct {
	Required        []string `json:"required"`
	Optional        []string `json:"optional"`
	MissingRequired []string `json:"missing_required"`
	MissingOptional []string `json:"missing_optional"`
}

// Mode is one get_navigation_context mode.
type Mode struct {
	Name              string   `json:"name"`
	Available         bool     `json:"available"`
	MissingOperations []string `json:"missing_operations"`
	Remediation       *string  `json:"remediation"`
}

// ToolAvailability explains whether one tool is callable now (§3.4).
type ToolAvailability struct {
	Name                 string               `json:"name"`
	Kind                 string               `json:"kind"`
	ClientRequirements   ClientRequirements   `json:"client_requirements"`
	Effects              *provider.Effects    `json:"effects,omitempty"`
	Annotations          *catalog.Annotations `json:"annotations,omitempty"`
	DefaultModeAvailable *bool                `json:"default_mode_available,omitempty"`
	Modes                []Mode               `json:"modes,omitempty"`
	Available            bool                 `json:"available"`
	Reason               string               `json:"reason"`
	Remediation          *string              `json:"remediation"`
	// AvailableFor are the open targets that can serve the tool (§15.2);
	// absent for tools that take no target and when nothing is open.
	AvailableFor []string `json:"available_for,omitempty"`
}

var navigationModes = []struct {
	name string
	ops  []string
}{
	{"current_selection", []string{"current_document", "current_address", "resolve_containing_procedure"}},
	{"explicit_document", []string{"current_address", "resolve_containing_procedure"}},
}

// availability is every tool's entry for the connection's targets
// (activeFirst): computed for the active target, with available_for.
func (s *Server) availability(states []engsession.State, features events.ClientFeatures) []ToolAvailability {
	out := make([]ToolAvailability, 0, len(s.all))
	for _, spec := range s.all {
		out = append(out, s.evaluateAcross(spec, states, features))
	}
	return out
}

// brief is an entry as binary_session's full view lists it: an available
// tool's effects and annotations are those of its tools/list entry (and of
// the capabilities view), so the full view leaves them out (CONTRACTS.md
// §0, §3.2); an unavailable tool's stay, since tools/list omits the tool.
func (a ToolAvailability) brief() ToolAvailability {
	if a.Available {
		a.Effects, a.Annotations = nil, nil
	}
	return a
}

func (s *Server) availabilityOf(name string, st engsession.State, features events.ClientFeatures) ToolAvailability {
	return s.evaluate(s.byName[name], st, features)
}

// evaluate applies the decision order of §3.4 to one tool.
func (s *Server) evaluate(spec catalog.Spec, st engsession.State, features events.ClientFeatures) ToolAvailability {
	effects, annotations := spec.Effects, spec.Annotations()
	a := ToolAvailability{Name: spec.Name, Kind: spec.Kind, Effects: &effects, Annotations: &annotations,
		ClientRequirements: requirementsOf(spec.Name, features)}
	unavailable := func(reason, remediation string) ToolAvailability {
		a.Available, a.Reason, a.Remediation = false, reason, &remediation
		return a
	}
	if spec.Name == "get_navigation_context" {
		a.Modes, a.DefaultModeAvailable = navigationModesOf(st), new(bool)
	}
	if !catalog.Enabled(spec.Name, s.opts.Toolsets) {
		// Not served at all: nothing else about it matters (§0, §3.4).
		return unavailable("not_in_toolset", catalog.NotInToolset(spec.Name))
	}
	verdict := func() ToolAvailability {
		if (spec.Name == "export_evidence_bundle" || spec.Name == "import_evidence_bundle") && !s.evidenceRootsConfigured(spec.Name) {
			return unavailable("policy_disabled", "Set REA_EVIDENCE_ROOTS_JSON to the approved Evidence directories, then restart the registered server or its client.")
		}
		if spec.Name == "capture_process_scenario" {
			if reason, remediation, bad := s.captureGate(); bad {
				return unavailable(reason, remediation)
			}
		}
		if spec.Kind == "artifact" {
			if !st.Open {
				return unavailable("target_required", "Open a target with open_binary.")
			}
			if st.Target.Kind == "executable" {
				return unavailable("target_unsupported", "This tool needs an archive or directory target (zip family, ASAR or a directory); the open target is an executable.")
			}
			return a
		}
		needsExecutable := spec.Kind == "provider" || spec.Kind == "composed" ||
			spec.Name == "get_navigation_context" || spec.Name == "inspect_address_context"
		if !needsExecutable {
			return a
		}
		if !st.Open {
			return unavailable("target_required", "Open a target with open_binary.")
		}
		if st.Target.Kind != "executable" {
			return unavailable("target_unsupported", "This tool needs an executable target (ELF, PE or Mach-O); the open target is a "+st.Target.Kind+".")
		}
		ops := spec.RequiredOperations
		if spec.Name == "get_navigation_context" {
			for _, m := range a.Modes {
				if m.Available {
					return a
				}
			}
			ops = navigationModes[1].ops
		}
		return s.providerVerdict(a, st, ops, spec.Name == "inspect_address_context", unavailable)
	}()
	if verdict.Remediation == nil {
		verdict.Available, verdict.Reason = true, "available"
	}
	if len(verdict.ClientRequirements.MissingRequired) > 0 {
		return unavailable("client_capability_missing", "Use a client that advertises: "+strings.Join(verdict.ClientRequirements.MissingRequired, ", ")+".")
	}
	if spec.Name == "get_navigation_context" {
		*verdict.DefaultModeAvailable = verdict.Modes[0].Available
	}
	return verdict
}

// providerVerdict is step 4 of §3.4 for the operations a tool needs; anyOf
// means one usable operation suffices (inspect_address_context's facets).
func (s *Server) providerVerdict(a ToolAvailability, st engsession.State, ops []string, anyOf bool, unavailable func(string, string) ToolAvailability) ToolAvailability {
	if st.Binding == nil {
		return unavailable("provider_missing", "No analysis provider is bound; reopen the target with provider_id (or --provider / REA_ANALYSIS_PROVIDER) naming a provider that offers "+strings.Join(ops, ", ")+".")
	}
	var missing, down []string
	for _, op := range ops {
		i := slices.IndexFunc(st.Capabilities, func(c provider.Capability) bool { return c.Operation == op })
		switch {
		case i < 0:
			missing = append(missing, op)
		case !st.Capabilities[i].Available:
			down = append(down, op)
		default:
			if anyOf {
				return a
			}
		}
	}
	switch {
	case anyOf && len(missing) == len(ops):
		return unavailable("provider_missing", "The bound provider "+st.Binding.Provider.ID+" offers none of "+strings.Join(ops, ", ")+"; reopen with provider_id (or --provider / REA_ANALYSIS_PROVIDER) naming one that does.")
	case !anyOf && len(missing) > 0:
		return unavailable("provider_missing", "The bound provider "+st.Binding.Provider.ID+" does not offer "+strings.Join(missing, ", ")+"; reopen with provider_id (or --provider / REA_ANALYSIS_PROVIDER) naming one that does.")
	case len(down) > 0:
		return unavailable("provider_unavailable", "The provider became unavailable during this session ("+strings.Join(down, ", ")+"); reopen the target and run `rea doctor`.")
	}
	return a
}

func navigationModesOf(st engsession.State) []Mode {
	modes := make([]Mode, 0, 2)
	for _, m := range navigationModes {
		var missing []string
		for _, op := range m.ops {
			if !slices.ContainsFunc(st.Capabilities, func(c provider.Capability) bool { return c.Operation == op && c.Available }) {
				missing = append(missing, op)
			}
		}
		mode := Mode{Name: m.name, Available: len(missing) == 0, MissingOperations: []string{}}
		if !mode.Available {
			r := "Bind a provider that offers " + strings.Join(missing, ", ") + "."
			mode.MissingOperations, mode.Remediation = missing, &r
		}
		modes = append(modes, mode)
	}
	return modes
}

func requirementsOf(name string, f events.ClientFeatures) ClientRequirements {
	r := ClientRequirements{Required: []string{}, Optional: []string{}, MissingRequired: []string{}, MissingOptional: []string{}}
	if name == "capture_process_scenario" {
		r.Optional = []string{"elicitation_form"}
		if !f.ElicitationForm {
			r.MissingOptional = []string{"elicitation_form"}
		}
	}
	return r
}
