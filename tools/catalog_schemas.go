package tools

// Schema constructors and the shapes shared by several tools (CONTRACTS.md
// §1.3–§1.6, §3, §7). Input objects are strict (additionalProperties false);
// result objects list their required keys but stay open, so a documented
// shape never rejects an answer that only adds information.

import "sort"

type scM = map[string]any

// scResultDepth is the depth to which result shapes are spelled out
// (scCompact).
const scResultDepth = 1

// scMaxInt is the bound of an unbounded `int` (§ notation: 0..2^53-1).
const scMaxInt int64 = 1<<53 - 1

// Patterns.
const (
	scPatAddressIn  = `^(0[xX])?[0-9a-fA-F]{1,16}$`
	scPatAddressOut = `^0x(0|[1-9a-f][0-9a-f]{0,15})$`
	scPatHex64      = `^[0-9a-f]{64}$`
	scPatEvidenceID = `^ev_[0-9a-f]{64}$`
	scPatOccurrence = `^occ_[0-9a-f]{64}$`
	scPatArtifactID = `^art_[0-9a-f]{64}$`
	scPatEdgeID     = `^edge_[0-9a-f]{64}$`
	scPatManifestID = `^agm_[0-9a-f]{64}$`
	scPatExtraction = `^aex_[0-9a-f]{64}$`
	scPatContradict = `^ic_[0-9a-f]{64}$`
	scPatUUID       = `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`
	scPatULID       = `^[0-9A-HJKMNP-TV-Z]{26}$`
	scPatProvider   = `^(auto|[a-z][a-z0-9-]{0,63})$`
	scPatEnvName    = `^[A-Za-z_][A-Za-z0-9_]*$`
	scPatHexBytes   = `^([0-9a-f]{2})*$`
)

// ---------------------------------------------------------------------------
// Constructors

func scSortedRequired(required []string) []any {
	r := append([]string(nil), required...)
	sort.Strings(r)
	out := make([]any, len(r))
	for i, s := range r {
		out[i] = s
	}
	return out
}

// scIn is a strict input object.
func scIn(props scM, required ...string) scM {
	s := scM{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = scSortedRequired(required)
	}
	return s
}

// scOut is a result object with the given required keys.
func scOut(props scM, required ...string) scM {
	s := scM{"type": "object"}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = scSortedRequired(required)
	}
	return s
}

// scOutAll is a result object whose every property is required.
func scOutAll(props scM) scM {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	return scOut(props, keys...)
}

// scStr is a string of min..max Unicode characters (max < 0: unbounded).
func scStr(min, max int64) scM {
	s := scM{"type": "string"}
	if min > 0 {
		s["minLength"] = min
	}
	if max >= 0 {
		s["maxLength"] = max
	}
	return s
}

func scString() scM { return scM{"type": "string"} }

// scInt is an integer in min..max.
func scInt(min, max int64) scM {
	return scM{"type": "integer", "minimum": min, "maximum": max}
}

// scCount is a non-negative result integer.
func scCount() scM { return scM{"type": "integer", "minimum": int64(0)} }

func scBool() scM { return scM{"type": "boolean"} }

func scEnum(vals ...string) scM {
	e := make([]any, len(vals))
	for i, v := range vals {
		e[i] = v
	}
	return scM{"type": "string", "enum": e}
}

func scConst(v any) scM {
	s := scM{"const": v}
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

// scArr is an array of items with min..max items (max < 0: unbounded).
func scArr(items scM, min, max int64) scM {
	s := scM{"type": "array", "items": items}
	if min > 0 {
		s["minItems"] = min
	}
	if max >= 0 {
		s["maxItems"] = max
	}
	return s
}

// scList is an unbounded result array.
func scList(items scM) scM { return scArr(items, 0, -1) }

// scAny is any JSON value.
func scAny() scM { return scM{} }

// scNullable widens a result schema s to also accept null. Output schemas
// carry no type:[T,"null"] arrays (several clients reject them, §0): the type
// is dropped instead, so an object's properties and required keys, which
// apply to objects only, still describe the non-null value, and an enum gains
// null.
func scNullable(s scM) scM {
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

// scD sets a description; "" sets none.
func scD(s scM, desc string) scM {
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// scDef sets a default.
func scDef(s scM, def any) scM { s["default"] = def; return s }

// scMerge adds the properties of extra to props (returned for chaining).
func scMerge(props scM, extras ...scM) scM {
	for _, x := range extras {
		for k, v := range x {
			props[k] = v
		}
	}
	return props
}

// scDeepCopy copies a schema tree.
func scDeepCopy(s scM) scM {
	if s == nil {
		return nil
	}
	c, _ := vdDeepCopy(s).(map[string]any)
	return c
}

// ---------------------------------------------------------------------------
// Shared inputs (§2 shared fields)

// scDocIn is `doc` = document?: string 1..256. Shared arguments are
// explained once, in the server instructions (instructions.go), not in every
// tool.
func scDocIn() scM { return scStr(1, 256) }

// scAddrIn is an input address (§1.3): optional 0x/0X, 1..16 hex digits, any case.
func scAddrIn(desc string) scM {
	return scD(scM{"type": "string", "pattern": scPatAddressIn, "format": vdFormatAddress}, desc)
}

// scProcIn is `proc` = procedure: string 1..1024.
func scProcIn() scM { return scStr(1, 1024) }

// scAbsPathIn is an absolute POSIX path of 1..max characters.
func scAbsPathIn(max int64, desc string) scM {
	s := scStr(1, max)
	s["format"] = vdFormatAbsPath
	return scD(s, desc)
}

// scOffsetIn is `offset: int >= 0 = 0`.
func scOffsetIn(desc string) scM {
	return scD(scDef(scInt(0, scMaxInt), int64(0)), desc)
}

// scLimitIn is `limit: int 1..L = D`.
func scLimitIn(l, d int64, desc string) scM {
	return scD(scDef(scInt(1, l), d), desc)
}

// scPageIn adds page(L,D) to props.
func scPageIn(props scM, l, d int64) scM {
	props["offset"] = scOffsetIn("")
	props["limit"] = scLimitIn(l, d, "")
	return props
}

// scEvidenceIDsIn is [ev_id] min..max.
func scEvidenceIDsIn(min, max int64, desc string) scM {
	return scD(scArr(scM{"type": "string", "pattern": scPatEvidenceID}, min, max), desc)
}

// ---------------------------------------------------------------------------
// Shared outputs

func scAddrOut() scM     { return scM{"type": "string", "pattern": scPatAddressOut} }
func scHex64() scM       { return scM{"type": "string", "pattern": scPatHex64} }
func scEvIDOut() scM     { return scM{"type": "string", "pattern": scPatEvidenceID} }
func scUUIDOut() scM     { return scM{"type": "string", "pattern": scPatUUID} }
func scTimeOut() scM     { return scM{"type": "string", "format": "date-time"} }
func scPat(p string) scM { return scM{"type": "string", "pattern": p} }

// scPageOf is the one offset page shape of §1.4: every key required, only
// items spelled out (the server instructions describe the page keys once).
func scPageOf(item scM) scM {
	p := scOut(scM{"items": scList(item)}, "items", "offset", "limit", "returned", "total", "next_offset", "truncated")
	p[scPageMark] = true
	return p
}

// scPageMark marks a page for scCompact: a page is a frame around its items,
// so it takes no depth level of its own. The mark is never published.
const scPageMark = "x-rea-page"

var (
	scTargetFormats  = []string{"elf", "pe", "mach-o", "mach-o-universal", "zip", "apk", "ipa", "msix", "appx", "asar", "directory"}
	scTargetKinds    = []string{"executable", "archive", "directory"}
	scArchitectures  = []string{"x86", "x86_64", "arm", "arm64"}
	scToolKinds      = []string{"session", "provider", "composed", "artifact", "application"}
	scClientFeatures = []string{"elicitation_form", "elicitation_url", "roots", "sampling"}
	scRejectionCodes = []string{"not_configured", "executable_missing", "runtime_missing", "unsupported_host",
		"unsupported_version", "open_options_invalid", "version_unresolved", "target_kind_unsupported",
		"target_format_unsupported", "architecture_unsupported", "target_role_unsupported", "managed_target_unsupported"}
	scTargetCodes = []string{"target_kind_unsupported", "target_format_unsupported", "architecture_unsupported",
		"target_role_unsupported", "managed_target_unsupported"}
	scAvailabilityReasons = []string{"client_capability_missing", "target_required", "provider_missing",
		"provider_unavailable", "target_unsupported", "unsupported_host", "policy_disabled", "not_in_toolset"}
)

func scArchitectureOut() scM { return scNullable(scEnum(scArchitectures...)) }

// scErrorEnvelope is E of §1.6, compactly: its required keys (the envelope is
// always an object, so required says enough). Their types, the codes,
// categories and per-code details are stated once, in the server
// instructions and the contract (CONTRACTS.md §1.6, §1.7), not in every tool.
func scErrorEnvelope() scM {
	return scM{"required": scSortedRequired([]string{"code", "category", "message", "retryable", "remediation"})}
}

// scProviderIdentity is ProviderId = {id, name, version:string|null}.
func scProviderIdentity() scM {
	return scOutAll(scM{"id": scString(), "name": scString(), "version": scNullable(scString())})
}

// scConcreteProvider is {id, name, version} with a concrete version.
func scConcreteProvider() scM {
	return scOutAll(scM{"id": scString(), "name": scString(), "version": scString()})
}

// scProfile is an analysis profile (§3.6).
func scProfile() scM {
	return scOutAll(scM{
		"schema_version":                  scConst(int64(1)),
		"provider":                        scConcreteProvider(),
		"provider_profile_schema_version": scInt(1, scMaxInt),
		"parameters":                      scM{"type": "object"},
		"digest":                          scHex64(),
	})
}

// scEffectsOut is the eight camelCase effects.
func scEffectsOut() scM {
	return scOutAll(scM{
		"mutatesTarget": scBool(), "mutatesSession": scBool(), "writesFilesystem": scBool(),
		"launchesProcess": scBool(), "accessesNetwork": scBool(), "changesUiState": scBool(),
		"mayDiscardData": scBool(), "idempotent": scBool(),
	})
}

// scAnnotationsOut is the four hints in REA's spelling.
func scAnnotationsOut() scM {
	return scOutAll(scM{"read_only": scBool(), "destructive": scBool(), "idempotent": scBool(), "open_world": scBool()})
}

// scSubjectFormats are the §7.1 subject formats.
func scSubjectFormats() []string {
	return append(append([]string(nil), scTargetFormats...), "file", "javascript", "unknown")
}

// scEvidenceProperties are the Evidence v2 record keys shared by the record
// and the EvidenceContext (§7.1).
func scEvidenceProperties() scM {
	return scM{
		"schema_version": scConst(int64(2)),
		"evidence_id":    scEvIDOut(),
		"subject": scNullable(scOut(scM{
			"name":         scString(),
			"digest":       scOutAll(scM{"sha256": scHex64()}),
			"format":       scEnum(scSubjectFormats()...),
			"architecture": scNullable(scString()),
			"local_path":   scString(),
		}, "digest", "format", "architecture")),
		"provider":         scProviderIdentity(),
		"analysis_profile": scProfile(),
		"predicate_type":   scEnum("rea.analysis/v2", "rea.process-capture/v1"),
		"operation":        scString(),
		"parameters":       scM{"type": "object"},
		"confidence":       scEnum("observed", "derived", "inferred"),
		"authority": scEnum("shipped-artifact", "controlled-replay", "historical-reference",
			"external-service", "analyst-inference"),
		"environment": scNullable(scOutAll(scM{
			"id": scString(), "platform": scString(), "architecture": scString(),
			"isolation": scEnum("none", "process", "container", "virtual-machine"),
		})),
		"limitations": scList(scString()),
		"locations": scList(scOut(scM{
			"kind":    scEnum("address", "address-range", "artifact-path", "file-offset", "file-offset-range"),
			"address": scAddrOut(),
			"start":   scM{"anyOf": []any{scString(), scCount()}},
			"end":     scM{"anyOf": []any{scString(), scCount()}},
			"path":    scString(),
			"offset":  scCount(),
		}, "kind")),
		"evidence_links": scList(scEvIDOut()),
	}
}

var scEvidenceRequired = []string{"schema_version", "evidence_id", "subject", "provider", "predicate_type",
	"operation", "parameters", "confidence", "authority", "environment", "limitations", "locations", "evidence_links"}

// scEvidenceRecord is a full Evidence v2 record (§7.1).
func scEvidenceRecord() scM {
	props := scEvidenceProperties()
	props["raw_result"] = scAny()
	props["normalized_result"] = scAny()
	return scOut(props, append(append([]string(nil), scEvidenceRequired...), "raw_result", "normalized_result")...)
}

// scEvidenceContext is the EvidenceContext of §0/§1.5 as each tool declares
// it: an object with the evidence_id a client passes on. Its other keys
// (ledger, subject, provider, analysis_profile_digest, confidence,
// authority, limitations) and their types are stated once, in the server
// instructions, instead of in every tool; the schema stays open, so the
// compact context and the first edition's long one
// (REA_EVIDENCE_CONTEXT=full) both validate. The whole record is documented
// once, in get_evidence_bundle's result.
func scEvidenceContext() scM { return scM{"required": []any{"evidence_id"}} }

// scBundle is an Evidence bundle (§7.4): its records spelled out, the one
// place the whole Evidence record is documented; the lists derived from them
// (artifacts, providers, environments, scenarios, captures, unknowns) are the
// contract's.
func scBundle() scM {
	return scOutAll(scM{
		"bundle_version": scConst(int64(2)),
		"records":        scList(scEvidenceRecord()),
	})
}

// scTargetOut is Target of §3.2.
func scTargetOut() scM {
	return scOutAll(scM{
		"path": scString(), "format": scEnum(scTargetFormats...), "kind": scEnum(scTargetKinds...),
		"sha256": scHex64(), "size": scCount(), "architecture": scArchitectureOut(),
	})
}

// scBinding is analysis_provider_binding (§3.6).
func scBinding() scM {
	return scOutAll(scM{
		"provider":         scConcreteProvider(),
		"selection_source": scEnum("request", "environment", "auto-single-candidate"),
		"analysis_profile": scProfile(),
	})
}

// scAlignment is Alignment of §3.3.
func scAlignment() scM {
	return scOutAll(scM{
		"state":       scEnum("unknown", "aligned", "mcp_server_restart_required"),
		"reasons":     scList(scEnum("package_version_mismatch", "catalog_digest_mismatch", "registration_path_mismatch")),
		"remediation": scNullable(scString()),
	})
}

// scActivity is analysis_activity (§3.8).
func scActivity() scM {
	return scOutAll(scM{
		"status": scEnum("not_observed", "idle", "busy", "timed_out_busy"),
		"providers": scList(scOutAll(scM{
			"provider":        scProviderIdentity(),
			"queued_requests": scCount(),
			"active": scNullable(scOutAll(scM{
				"request_id": scInt(1, scMaxInt), "operation": scString(), "elapsed_ms": scCount(),
				"timeout_ms": scCount(), "caller_state": scEnum("waiting", "timed_out", "cancelled"),
			})),
		})),
	})
}

// scClientFeaturesOut is ClientFeatures (§3.4).
func scClientFeaturesOut() scM {
	return scOutAll(scM{"elicitation_form": scBool(), "elicitation_url": scBool(), "roots": scBool(), "sampling": scBool()})
}

// scToolAvailability is ToolAvailability (§3.4).
func scToolAvailability() scM {
	feats := func() scM { return scList(scEnum(scClientFeatures...)) }
	reasons := append([]string{"available"}, scAvailabilityReasons...)
	return scOut(scM{
		"name": scString(),
		"kind": scEnum(scToolKinds...),
		"client_requirements": scOutAll(scM{
			"required": feats(), "optional": feats(), "missing_required": feats(), "missing_optional": feats(),
		}),
		"effects":                scEffectsOut(),
		"annotations":            scAnnotationsOut(),
		"default_mode_available": scBool(),
		"modes": scList(scOutAll(scM{
			"name":               scEnum("current_selection", "explicit_document"),
			"available":          scBool(),
			"missing_operations": scList(scString()),
			"remediation":        scNullable(scString()),
		})),
		"available":   scBool(),
		"reason":      scEnum(reasons...),
		"remediation": scNullable(scString()),
	}, "name", "kind", "client_requirements", "available", "reason", "remediation")
}

// scCapability is ProviderCapability (§3.5).
func scCapability() scM {
	return scOutAll(scM{
		"operation":               scString(),
		"input_contract_version":  scInt(1, scMaxInt),
		"output_contract_version": scInt(1, scMaxInt),
		"pagination":              scEnum("none", "offset", "cursor"),
		"exhaustive":              scBool(),
		"effects":                 scEffectsOut(),
		"limits": scOutAll(scM{
			"max_results": scNullable(scCount()), "max_payload_bytes": scNullable(scCount()),
			"timeout_ms": scNullable(scCount()),
		}),
		"limitations":       scList(scString()),
		"available":         scBool(),
		"reason":            scNullable(scString()),
		"availability_code": scNullable(scEnum(scRejectionCodes...)),
	})
}

// scCandidate is an analysis_provider_candidates entry (§3.5).
func scCandidate() scM {
	return scOutAll(scM{
		"provider": scProviderIdentity(),
		"availability": scOutAll(scM{
			"status":      scEnum("available", "unavailable"),
			"code":        scNullable(scEnum(scRejectionCodes...)),
			"reason":      scNullable(scString()),
			"remediation": scNullable(scString()),
			"diagnostics": scM{"type": "object"},
		}),
		"target_support": scOutAll(scM{
			"status":      scEnum("unknown", "supported", "unsupported"),
			"code":        scNullable(scEnum(scTargetCodes...)),
			"reason":      scNullable(scString()),
			"diagnostics": scM{"type": "object"},
		}),
		"selected":     scBool(),
		"capabilities": scList(scCapability()),
	})
}

// scRun is analysis_run (§3.7).
func scRun() scM {
	obs := scOut(scM{
		"status":              scEnum("verified", "unavailable"),
		"observed_at":         scTimeOut(),
		"schema_version":      scConst(int64(1)),
		"launcher_pid":        scInt(1, scMaxInt),
		"launcher_parent_pid": scCount(),
		"process_group_id":    scInt(1, scMaxInt),
		"descendants": scList(scOutAll(scM{
			"pid": scInt(1, scMaxInt), "parent_pid": scCount(), "process_group_id": scInt(1, scMaxInt),
		})),
		"reason": scStr(1, -1),
	}, "status", "observed_at", "launcher_pid", "process_group_id")
	return scOutAll(scM{
		"run_id": scUUIDOut(),
		"process_lineage": scOut(scM{
			"status":    scEnum("not_observed", "snapshots"),
			"snapshots": scList(scOutAll(scM{"provider": scProviderIdentity(), "observation": obs})),
		}, "status"),
	})
}

// scServerIdentity is Identity of §3.3.
func scServerIdentity() scM {
	return scOutAll(scM{
		"package": scOutAll(scM{
			"name": scConst("rea"), "version": scString(), "build_commit": scNullable(scString()), "go_version": scString(),
		}),
		"server": scOutAll(scM{
			"name": scConst("rea"), "version": scString(), "started_at": scTimeOut(), "pid": scInt(1, scMaxInt),
			"command_path": scString(),
		}),
		"sdk":                         scOutAll(scM{"module": scString(), "version": scString()}),
		"negotiated_protocol_version": scNullable(scString()),
		"client":                      scNullable(scOutAll(scM{"name": scString(), "version": scString()})),
		"catalog": scOutAll(scM{
			"counts": scOutAll(scM{"mcp_tools": scInt(3, 42), "cli_commands": scCount()}),
			"digests": scOutAll(scM{
				"tools_sha256": scHex64(), "cli_sha256": scHex64(), "combined_sha256": scHex64(),
			}),
		}),
		"protocol_features": scOutAll(scM{
			"progress": scBool(), "cancellation": scBool(), "tools_list_changed": scBool(), "elicitation_form": scBool(),
		}),
		"alignment": scAlignment(),
	})
}

// scProcRef is {address, name}.
func scProcRef() scM { return scOutAll(scM{"address": scAddrOut(), "name": scString()}) }

// scContradiction is Contradiction of §10.1.
func scContradiction() scM {
	return scOutAll(scM{
		"contradiction_id":   scPat(scPatContradict),
		"occurrence_id":      scPat(scPatOccurrence),
		"parent_artifact_id": scPat(scPatArtifactID),
		"logical_path":       scString(),
		"declared_sha256":    scHex64(),
		"observed_sha256":    scHex64(),
		"entry_kind":         scEnum("file", "slice"),
		"unpacked":           scBool(),
		"trust":              scConst("observed-untrusted"),
		"provenance":         scConst("container-integrity-metadata-versus-observed-bytes"),
		"mismatched_blocks":  scArr(scCount(), 0, 100),
		"limitations":        scArr(scString(), 1, -1),
	})
}

// scManifest is the inventory manifest of §10.3.
func scManifest() scM {
	return scOutAll(scM{
		"schema_version":   scConst(int64(1)),
		"manifest_id":      scPat(scPatManifestID),
		"root_artifact_id": scPat(scPatArtifactID),
		"root_sha256":      scHex64(),
		"root_format":      scString(),
		"graph_sha256":     scHex64(),
		"node_count":       scCount(),
		"occurrence_count": scCount(),
		"edge_count":       scCount(),
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
func scCompact(s scM, depth int) scM {
	if s == nil {
		return nil
	}
	if s[scPageMark] == true {
		depth++
	}
	out := scM{}
	for k, v := range s {
		switch k {
		case "pattern", "format", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems",
			"default", "description", "required", scPageMark:
		case "properties":
			if depth <= 0 {
				continue
			}
			props := scM{}
			for n, p := range v.(scM) {
				props[n] = scCompact(p.(scM), depth-1)
			}
			out[k] = props
		case "additionalProperties":
			if depth > 0 {
				out[k] = v
			}
		case "items":
			out[k] = scCompact(v.(scM), depth)
		case "oneOf", "anyOf":
			if depth <= 0 {
				continue
			}
			bs := make([]any, 0, len(v.([]any)))
			for _, b := range v.([]any) {
				bs = append(bs, scCompact(b.(scM), depth))
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
func scDropImpliedType(s scM) {
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
func scInputView(s scM) scM {
	out := scM{}
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
			props := scM{}
			for n, p := range v.(scM) {
				props[n] = scInputView(p.(scM))
			}
			v = props
		case "items", "not":
			v = scInputView(v.(scM))
		case "anyOf", "oneOf":
			bs := make([]any, 0, len(v.([]any)))
			for _, b := range v.([]any) {
				bs = append(bs, scInputView(b.(scM)))
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
	case scM:
		return len(v) == 0
	}
	return false
}

// scEnumMax is the longest enum a compacted result keeps.
const scEnumMax = 4
