package catalog

// Schema constructors and the shapes shared by several tools (CONTRACTS.md
// §1.3–§1.6, §3, §7). Input objects are strict (additionalProperties false);
// result objects list their required keys but stay open, so a documented
// shape never rejects an answer that only adds information.

import (
	"sort"

	"github.com/rea-re/rea/tools/schema"
)

type M = map[string]any

// scResultDepth is the depth to which result shapes are spelled out
// (scCompact).
const scResultDepth = 1

// MaxInt is the bound of an unbounded `int` (§ notation: 0..2^53-1).
const MaxInt int64 = 1<<53 - 1

// Patterns.
const (
	scPatAddressIn  = `^(0[xX])?[0-9a-fA-F]{1,16}$`
	scPatAddressOut = `^0x(0|[1-9a-f][0-9a-f]{0,15})$`
	PatHex64        = `^[0-9a-f]{64}$`
	scPatEvidenceID = `^ev_[0-9a-f]{64}$`
	PatOccurrence   = `^occ_[0-9a-f]{64}$`
	PatArtifactID   = `^art_[0-9a-f]{64}$`
	PatEdgeID       = `^edge_[0-9a-f]{64}$`
	PatManifestID   = `^agm_[0-9a-f]{64}$`
	PatExtraction   = `^aex_[0-9a-f]{64}$`
	scPatContradict = `^ic_[0-9a-f]{64}$`
	PatUUID         = `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`
	scPatULID       = `^[0-9A-HJKMNP-TV-Z]{26}$`
	PatProvider     = `^(auto|[a-z][a-z0-9-]{0,63})$`
	PatEnvName      = `^[A-Za-z_][A-Za-z0-9_]*$`
	PatHexBytes     = `^([0-9a-f]{2})*$`
)

// ---------------------------------------------------------------------------
// Constructors

func SortedRequired(required []string) []any {
	r := append([]string(nil), required...)
	sort.Strings(r)
	out := make([]any, len(r))
	for i, s := range r {
		out[i] = s
	}
	return out
}

// In is a strict input object.
func In(props M, required ...string) M {
	s := M{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = SortedRequired(required)
	}
	return s
}

// Out is a result object with the given required keys.
func Out(props M, required ...string) M {
	s := M{"type": "object"}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = SortedRequired(required)
	}
	return s
}

// OutAll is a result object whose every property is required.
func OutAll(props M) M {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	return Out(props, keys...)
}

// Str is a string of min..max Unicode characters (max < 0: unbounded).
func Str(min, max int64) M {
	s := M{"type": "string"}
	if min > 0 {
		s["minLength"] = min
	}
	if max >= 0 {
		s["maxLength"] = max
	}
	return s
}

func String() M { return M{"type": "string"} }

// Int is an integer in min..max.
func Int(min, max int64) M {
	return M{"type": "integer", "minimum": min, "maximum": max}
}

// Count is a non-negative result integer.
func Count() M { return M{"type": "integer", "minimum": int64(0)} }

func Bool() M { return M{"type": "boolean"} }

func Enum(vals ...string) M {
	e := make([]any, len(vals))
	for i, v := range vals {
		e[i] = v
	}
	return M{"type": "string", "enum": e}
}

func Const(v any) M {
	s := M{"const": v}
	switch v.(type) {
	case string:
		s["type"] = "string"
	case bool:
		s["type"] = "boolean"
	case int, int64:
		s["type"] = "integer"
	}
	return s
}

// Arr is an array of items with min..max items (max < 0: unbounded).
func Arr(items M, min, max int64) M {
	s := M{"type": "array", "items": items}
	if min > 0 {
		s["minItems"] = min
	}
	if max >= 0 {
		s["maxItems"] = max
	}
	return s
}

// List is an unbounded result array.
func List(items M) M { return Arr(items, 0, -1) }

// Any is any JSON value.
func Any() M { return M{} }

// Nullable widens a result schema s to also accept null. Output schemas
// carry no type:[T,"null"] arrays (several clients reject them, §0): the type
// is dropped instead, so an object's properties and required keys, which
// apply to objects only, still describe the non-null value, and an enum gains
// null.
func Nullable(s M) M {
	delete(s, "type")
	if e, ok := s["enum"].([]any); ok {
		s["enum"] = append(e, nil)
	}
	if c, ok := s["const"]; ok {
		delete(s, "const")
		s["enum"] = []any{c, nil}
	}
	return s
}

// D sets a description; "" sets none.
func D(s M, desc string) M {
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// Def sets a default.
func Def(s M, def any) M { s["default"] = def; return s }

// Merge adds the properties of extra to props (returned for chaining).
func Merge(props M, extras ...M) M {
	for _, x := range extras {
		for k, v := range x {
			props[k] = v
		}
	}
	return props
}

// DeepCopy copies a schema tree.
func DeepCopy(s M) M {
	if s == nil {
		return nil
	}
	c, _ := schema.DeepCopy(s).(map[string]any)
	return c
}

// ---------------------------------------------------------------------------
// Shared inputs (§2 shared fields)

// DocIn is `doc` = document?: string 1..256. Shared arguments are
// explained once, in the server instructions (instructions.go), not in every
// tool.
func DocIn() M { return Str(1, 256) }

// AddrIn is an input address (§1.3): optional 0x/0X, 1..16 hex digits, any case.
func AddrIn(desc string) M {
	return D(M{"type": "string", "pattern": scPatAddressIn, "format": schema.FormatAddress}, desc)
}

// ProcIn is `proc` = procedure: string 1..1024.
func ProcIn() M { return Str(1, 1024) }

// AbsPathIn is an absolute POSIX path of 1..max characters.
func AbsPathIn(max int64, desc string) M {
	s := Str(1, max)
	s["format"] = schema.FormatAbsPath
	return D(s, desc)
}

// OffsetIn is `offset: int >= 0 = 0`.
func OffsetIn(desc string) M {
	return D(Def(Int(0, MaxInt), int64(0)), desc)
}

// LimitIn is `limit: int 1..L = D`.
func LimitIn(l, d int64, desc string) M {
	return D(Def(Int(1, l), d), desc)
}

// PageIn adds page(L,D) to props.
func PageIn(props M, l, d int64) M {
	props["offset"] = OffsetIn("")
	props["limit"] = LimitIn(l, d, "")
	return props
}

// EvidenceIDsIn is [ev_id] min..max.
func EvidenceIDsIn(min, max int64, desc string) M {
	return D(Arr(M{"type": "string", "pattern": scPatEvidenceID}, min, max), desc)
}

// ---------------------------------------------------------------------------
// Shared outputs

func AddrOut() M     { return M{"type": "string", "pattern": scPatAddressOut} }
func Hex64() M       { return M{"type": "string", "pattern": PatHex64} }
func EvIDOut() M     { return M{"type": "string", "pattern": scPatEvidenceID} }
func UUIDOut() M     { return M{"type": "string", "pattern": PatUUID} }
func TimeOut() M     { return M{"type": "string", "format": "date-time"} }
func Pat(p string) M { return M{"type": "string", "pattern": p} }

// PageOf is the one offset page shape of §1.4: every key required, only
// items spelled out (the server instructions describe the page keys once).
func PageOf(item M) M {
	p := Out(M{"items": List(item)}, "items", "offset", "limit", "returned", "total", "next_offset", "truncated")
	p[scPageMark] = true
	return p
}

// scPageMark marks a page for scCompact: a page is a frame around its items,
// so it takes no depth level of its own. The mark is never published.
const scPageMark = "x-rea-page"

var (
	TargetFormats    = []string{"elf", "pe", "mach-o", "mach-o-universal", "zip", "apk", "ipa", "msix", "appx", "asar", "directory"}
	TargetKinds      = []string{"executable", "archive", "directory"}
	scArchitectures  = []string{"x86", "x86_64", "arm", "arm64"}
	ToolKinds        = []string{"session", "provider", "composed", "artifact", "application"}
	scClientFeatures = []string{"elicitation_form", "elicitation_url", "roots", "sampling"}
	scRejectionCodes = []string{"not_configured", "executable_missing", "runtime_missing", "unsupported_host",
		"unsupported_version", "open_options_invalid", "version_unresolved", "target_kind_unsupported",
		"target_format_unsupported", "architecture_unsupported", "target_role_unsupported", "managed_target_unsupported"}
	scTargetCodes = []string{"target_kind_unsupported", "target_format_unsupported", "architecture_unsupported",
		"target_role_unsupported", "managed_target_unsupported"}
	scAvailabilityReasons = []string{"client_capability_missing", "target_required", "provider_missing",
		"provider_unavailable", "target_unsupported", "unsupported_host", "policy_disabled", "not_in_toolset"}
)

func ArchitectureOut() M { return Nullable(Enum(scArchitectures...)) }

// ErrorEnvelope is E of §1.6, compactly: its required keys (the envelope is
// always an object, so required says enough). Their types, the codes,
// categories and per-code details are stated once, in the server
// instructions and the contract (CONTRACTS.md §1.6, §1.7), not in every tool.
func ErrorEnvelope() M {
	return M{"required": SortedRequired([]string{"code", "category", "message", "retryable", "remediation"})}
}

// ProviderIdentity is ProviderId = {id, name, version:string|null}.
func ProviderIdentity() M {
	return OutAll(M{"id": String(), "name": String(), "version": Nullable(String())})
}

// ConcreteProvider is {id, name, version} with a concrete version.
func ConcreteProvider() M {
	return OutAll(M{"id": String(), "name": String(), "version": String()})
}

// scProfile is an analysis profile (§3.6).
func scProfile() M {
	return OutAll(M{
		"schema_version":                  Const(int64(1)),
		"provider":                        ConcreteProvider(),
		"provider_profile_schema_version": Int(1, MaxInt),
		"parameters":                      M{"type": "object"},
		"digest":                          Hex64(),
	})
}

// scEffectsOut is the eight camelCase effects.
func scEffectsOut() M {
	return OutAll(M{
		"mutatesTarget": Bool(), "mutatesSession": Bool(), "writesFilesystem": Bool(),
		"launchesProcess": Bool(), "accessesNetwork": Bool(), "changesUiState": Bool(),
		"mayDiscardData": Bool(), "idempotent": Bool(),
	})
}

// scAnnotationsOut is the four hints in REA's spelling.
func scAnnotationsOut() M {
	return OutAll(M{"read_only": Bool(), "destructive": Bool(), "idempotent": Bool(), "open_world": Bool()})
}

// SubjectFormats are the §7.1 subject formats.
func SubjectFormats() []string {
	return append(append([]string(nil), TargetFormats...), "file", "javascript", "unknown")
}

// scEvidenceProperties are the Evidence v2 record keys shared by the record
// and the EvidenceContext (§7.1).
func scEvidenceProperties() M {
	return M{
		"schema_version": Const(int64(2)),
		"evidence_id":    EvIDOut(),
		"subject": Nullable(Out(M{
			"name":         String(),
			"digest":       OutAll(M{"sha256": Hex64()}),
			"format":       Enum(SubjectFormats()...),
			"architecture": Nullable(String()),
			"local_path":   String(),
		}, "digest", "format", "architecture")),
		"provider":         ProviderIdentity(),
		"analysis_profile": scProfile(),
		"predicate_type":   Enum("rea.analysis/v2", "rea.process-capture/v1"),
		"operation":        String(),
		"parameters":       M{"type": "object"},
		"confidence":       Enum("observed", "derived", "inferred"),
		"authority": Enum("shipped-artifact", "controlled-replay", "historical-reference",
			"external-service", "analyst-inference"),
		"environment": Nullable(OutAll(M{
			"id": String(), "platform": String(), "architecture": String(),
			"isolation": Enum("none", "process", "container", "virtual-machine"),
		})),
		"limitations": List(String()),
		"locations": List(Out(M{
			"kind":    Enum("address", "address-range", "artifact-path", "file-offset", "file-offset-range"),
			"address": AddrOut(),
			"start":   M{"anyOf": []any{String(), Count()}},
			"end":     M{"anyOf": []any{String(), Count()}},
			"path":    String(),
			"offset":  Count(),
		}, "kind")),
		"evidence_links": List(EvIDOut()),
	}
}

var scEvidenceRequired = []string{"schema_version", "evidence_id", "subject", "provider", "predicate_type",
	"operation", "parameters", "confidence", "authority", "environment", "limitations", "locations", "evidence_links"}

// scEvidenceRecord is a full Evidence v2 record (§7.1).
func scEvidenceRecord() M {
	props := scEvidenceProperties()
	props["raw_result"] = Any()
	props["normalized_result"] = Any()
	return Out(props, append(append([]string(nil), scEvidenceRequired...), "raw_result", "normalized_result")...)
}

// scEvidenceContext is the EvidenceContext of §0/§1.5 as each tool declares
// it: an object with the evidence_id a client passes on. Its other keys
// (ledger, subject, provider, analysis_profile_digest, confidence,
// authority, limitations) and their types are stated once, in the server
// instructions, instead of in every tool; the schema stays open, so the
// compact context and the first edition's long one
// (REA_EVIDENCE_CONTEXT=full) both validate. The whole record is documented
// once, in get_evidence_bundle's result.
func scEvidenceContext() M { return M{"required": []any{"evidence_id"}} }

// Bundle is an Evidence bundle (§7.4): its records spelled out, the one
// place the whole Evidence record is documented; the lists derived from them
// (artifacts, providers, environments, scenarios, captures, unknowns) are the
// contract's.
func Bundle() M {
	return OutAll(M{
		"bundle_version": Const(int64(2)),
		"records":        List(scEvidenceRecord()),
	})
}

// TargetOut is Target of §3.2.
func TargetOut() M {
	return OutAll(M{
		"path": String(), "format": Enum(TargetFormats...), "kind": Enum(TargetKinds...),
		"sha256": Hex64(), "size": Count(), "architecture": ArchitectureOut(),
	})
}

// Binding is analysis_provider_binding (§3.6).
func Binding() M {
	return OutAll(M{
		"provider":         ConcreteProvider(),
		"selection_source": Enum("request", "environment", "auto-single-candidate"),
		"analysis_profile": scProfile(),
	})
}

// Alignment is Alignment of §3.3.
func Alignment() M {
	return OutAll(M{
		"state":       Enum("unknown", "aligned", "mcp_server_restart_required"),
		"reasons":     List(Enum("package_version_mismatch", "catalog_digest_mismatch", "registration_path_mismatch")),
		"remediation": Nullable(String()),
	})
}

// Activity is analysis_activity (§3.8).
func Activity() M {
	return OutAll(M{
		"status": Enum("not_observed", "idle", "busy", "timed_out_busy"),
		"providers": List(OutAll(M{
			"provider":        ProviderIdentity(),
			"queued_requests": Count(),
			"active": Nullable(OutAll(M{
				"request_id": Int(1, MaxInt), "operation": String(), "elapsed_ms": Count(),
				"timeout_ms": Count(), "caller_state": Enum("waiting", "timed_out", "cancelled"),
			})),
		})),
	})
}

// ClientFeaturesOut is ClientFeatures (§3.4).
func ClientFeaturesOut() M {
	return OutAll(M{"elicitation_form": Bool(), "elicitation_url": Bool(), "roots": Bool(), "sampling": Bool()})
}

// ToolAvailability is ToolAvailability (§3.4).
func ToolAvailability() M {
	feats := func() M { return List(Enum(scClientFeatures...)) }
	reasons := append([]string{"available"}, scAvailabilityReasons...)
	return Out(M{
		"name": String(),
		"kind": Enum(ToolKinds...),
		"client_requirements": OutAll(M{
			"required": feats(), "optional": feats(), "missing_required": feats(), "missing_optional": feats(),
		}),
		"effects":                scEffectsOut(),
		"annotations":            scAnnotationsOut(),
		"default_mode_available": Bool(),
		"modes": List(OutAll(M{
			"name":               Enum("current_selection", "explicit_document"),
			"available":          Bool(),
			"missing_operations": List(String()),
			"remediation":        Nullable(String()),
		})),
		"available":   Bool(),
		"reason":      Enum(reasons...),
		"remediation": Nullable(String()),
	}, "name", "kind", "client_requirements", "available", "reason", "remediation")
}

// scCapability is ProviderCapability (§3.5).
func scCapability() M {
	return OutAll(M{
		"operation":               String(),
		"input_contract_version":  Int(1, MaxInt),
		"output_contract_version": Int(1, MaxInt),
		"pagination":              Enum("none", "offset", "cursor"),
		"exhaustive":              Bool(),
		"effects":                 scEffectsOut(),
		"limits": OutAll(M{
			"max_results": Nullable(Count()), "max_payload_bytes": Nullable(Count()),
			"timeout_ms": Nullable(Count()),
		}),
		"limitations":       List(String()),
		"available":         Bool(),
		"reason":            Nullable(String()),
		"availability_code": Nullable(Enum(scRejectionCodes...)),
	})
}

// Candidate is an analysis_provider_candidates entry (§3.5).
func Candidate() M {
	return OutAll(M{
		"provider": ProviderIdentity(),
		"availability": OutAll(M{
			"status":      Enum("available", "unavailable"),
			"code":        Nullable(Enum(scRejectionCodes...)),
			"reason":      Nullable(String()),
			"remediation": Nullable(String()),
			"diagnostics": M{"type": "object"},
		}),
		"target_support": OutAll(M{
			"status":      Enum("unknown", "supported", "unsupported"),
			"code":        Nullable(Enum(scTargetCodes...)),
			"reason":      Nullable(String()),
			"diagnostics": M{"type": "object"},
		}),
		"selected":     Bool(),
		"capabilities": List(scCapability()),
	})
}

// Run is analysis_run (§3.7).
func Run() M {
	obs := Out(M{
		"status":              Enum("verified", "unavailable"),
		"observed_at":         TimeOut(),
		"schema_version":      Const(int64(1)),
		"launcher_pid":        Int(1, MaxInt),
		"launcher_parent_pid": Count(),
		"process_group_id":    Int(1, MaxInt),
		"descendants": List(OutAll(M{
			"pid": Int(1, MaxInt), "parent_pid": Count(), "process_group_id": Int(1, MaxInt),
		})),
		"reason": Str(1, -1),
	}, "status", "observed_at", "launcher_pid", "process_group_id")
	return OutAll(M{
		"run_id": UUIDOut(),
		"process_lineage": Out(M{
			"status":    Enum("not_observed", "snapshots"),
			"snapshots": List(OutAll(M{"provider": ProviderIdentity(), "observation": obs})),
		}, "status"),
	})
}

// ServerIdentity is Identity of §3.3.
func ServerIdentity() M {
	return OutAll(M{
		"package": OutAll(M{
			"name": Const("rea"), "version": String(), "build_commit": Nullable(String()), "go_version": String(),
		}),
		"server": OutAll(M{
			"name": Const("rea"), "version": String(), "started_at": TimeOut(), "pid": Int(1, MaxInt),
			"command_path": String(),
		}),
		"sdk":                         OutAll(M{"module": String(), "version": String()}),
		"negotiated_protocol_version": Nullable(String()),
		"client":                      Nullable(OutAll(M{"name": String(), "version": String()})),
		"catalog": OutAll(M{
			"counts": OutAll(M{"mcp_tools": Int(3, 42), "cli_commands": Count()}),
			"digests": OutAll(M{
				"tools_sha256": Hex64(), "cli_sha256": Hex64(), "combined_sha256": Hex64(),
			}),
		}),
		"protocol_features": OutAll(M{
			"progress": Bool(), "cancellation": Bool(), "tools_list_changed": Bool(), "elicitation_form": Bool(),
		}),
		"alignment": Alignment(),
	})
}

// ProcRef is {address, name}.
func ProcRef() M { return OutAll(M{"address": AddrOut(), "name": String()}) }

// Contradiction is Contradiction of §10.1.
func Contradiction() M {
	return OutAll(M{
		"contradiction_id":   Pat(scPatContradict),
		"occurrence_id":      Pat(PatOccurrence),
		"parent_artifact_id": Pat(PatArtifactID),
		"logical_path":       String(),
		"declared_sha256":    Hex64(),
		"observed_sha256":    Hex64(),
		"entry_kind":         Enum("file", "slice"),
		"unpacked":           Bool(),
		"trust":              Const("observed-untrusted"),
		"provenance":         Const("container-integrity-metadata-versus-observed-bytes"),
		"mismatched_blocks":  Arr(Count(), 0, 100),
		"limitations":        Arr(String(), 1, -1),
	})
}

// Manifest is the inventory manifest of §10.3.
func Manifest() M {
	return OutAll(M{
		"schema_version":   Const(int64(1)),
		"manifest_id":      Pat(PatManifestID),
		"root_artifact_id": Pat(PatArtifactID),
		"root_sha256":      Hex64(),
		"root_format":      String(),
		"graph_sha256":     Hex64(),
		"node_count":       Count(),
		"occurrence_count": Count(),
		"edge_count":       Count(),
	})
}

// scCompact reduces a result schema to what a client needs to read an
// answer: its keys and their types, down to depth nested object levels (an
// array's items take no level of their own, nor does a page), with consts and
// short enums. Required lists, patterns, bounds, formats, defaults,
// descriptions and enums longer than scEnumMax go (the contract states them),
// and oneOf becomes anyOf, since branches compacted to the same shape would
// otherwise reject a value that matches both; a type that a const, enum,
// properties or items imply is left to them (scDropImpliedType). The result
// is less specific, never wrong: every answer that matches s matches it.
func scCompact(s M, depth int) M {
	if s == nil {
		return nil
	}
	if s[scPageMark] == true {
		depth++
	}
	out := M{}
	for k, v := range s {
		switch k {
		case "pattern", "format", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems",
			"default", "description", "required", scPageMark:
		case "properties":
			if depth <= 0 {
				continue
			}
			props := M{}
			for n, p := range v.(M) {
				props[n] = scCompact(p.(M), depth-1)
			}
			out[k] = props
		case "additionalProperties":
			if depth > 0 {
				out[k] = v
			}
		case "items":
			out[k] = scCompact(v.(M), depth)
		case "oneOf", "anyOf":
			if depth <= 0 {
				continue
			}
			bs := make([]any, 0, len(v.([]any)))
			for _, b := range v.([]any) {
				bs = append(bs, scCompact(b.(M), depth))
			}
			out["anyOf"] = bs
		case "enum":
			if len(v.([]any)) <= scEnumMax {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	scDropImpliedType(out)
	return out
}

// scDropImpliedType drops a result type that the schema's const, enum,
// properties or items already say. (Argument schemas keep theirs.)
func scDropImpliedType(s M) {
	_, c := s["const"]
	_, e := s["enum"]
	_, p := s["properties"]
	_, i := s["items"]
	if c || e || p || i {
		delete(s, "type")
	}
}

// scInputView is the inputSchema a client is shown: Input without what only
// REA's own check needs. Numeric, length and count bounds, patterns and
// REA-specific formats (the server instructions state the address, path and
// id rules once), and additionalProperties:false go; types (some clients
// refuse an argument without one), enums, consts, defaults, required keys and
// descriptions stay, except a default that is its type's zero value (0,
// false, "", [], {}): that is what a client assumes of an optional argument,
// and the view is in every tools/list. Decode still enforces the whole Input
// (and applies every default), so the view is
// less specific than what REA accepts, never wrong: a value it lets through
// and Input rejects gets the typed invalid_request of §1.6, which names the
// bound.
func scInputView(s M) M {
	out := M{}
	for k, v := range s {
		switch k {
		case "format", "pattern", "maxLength", "minLength", "minimum", "maximum", "minItems", "maxItems",
			"additionalProperties":
			continue
		case "default":
			if scZeroValue(v) {
				continue
			}
		case "properties":
			props := M{}
			for n, p := range v.(M) {
				props[n] = scInputView(p.(M))
			}
			v = props
		case "items", "not":
			v = scInputView(v.(M))
		case "anyOf", "oneOf":
			bs := make([]any, 0, len(v.([]any)))
			for _, b := range v.([]any) {
				bs = append(bs, scInputView(b.(M)))
			}
			v = bs
		}
		out[k] = v
	}
	return out
}

// scZeroValue says whether a schema default is its type's zero value.
func scZeroValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case int64:
		return v == 0
	case int:
		return v == 0
	case float64:
		return v == 0
	case []any:
		return len(v) == 0
	case []string:
		return len(v) == 0
	case M:
		return len(v) == 0
	}
	return false
}

// scEnumMax is the longest enum a compacted result keeps.
const scEnumMax = 4
