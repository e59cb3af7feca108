package tools

import "github.com/rea-re/rea/engine/artifact"

// Artifact tools (kind artifact, CONTRACTS.md §2.4, §10): need an open target
// of kind archive or directory.

func catArtifactTools() []func() Spec {
	return []func() Spec{catInventoryArtifact, catExtractArtifact}
}

// catTraversalLimits adds the traversal limits of §2.4 to props.
func catTraversalLimits(props scM) scM {
	return scMerge(props, scM{
		"max_entries":           scDef(scInt(1, 1000000), int64(10000)),
		"max_total_bytes":       scDef(scInt(1, scMaxInt), int64(1073741824)),
		"max_entry_bytes":       scD(scDef(scInt(1, scMaxInt), int64(268435456)), "Larger entries are listed, not hashed."),
		"max_compression_ratio": scDef(scM{"type": "number", "minimum": int64(1), "maximum": int64(100000)}, int64(1000)),
		"max_depth":             scDef(scInt(0, 100), int64(20)),
		"max_path_bytes":        scDef(scInt(1, 65535), int64(4096)),
	})
}

func catLimitsResult() scM {
	return scOut(scM{
		"max_entries": scCount(), "max_total_bytes": scCount(), "max_entry_bytes": scCount(),
		"max_compression_ratio": scM{"type": "number"}, "max_depth": scCount(), "max_path_bytes": scCount(),
	})
}

func catInventoryArtifact() Spec {
	props := catTraversalLimits(scM{
		"node_offset":       scOffsetIn(""),
		"occurrence_offset": scOffsetIn(""),
		"edge_offset":       scOffsetIn(""),
		"node_limit":        scLimitIn(500, 100, ""),
		"occurrence_limit":  scLimitIn(500, 100, ""),
		"edge_limit":        scLimitIn(500, 100, ""),
		"integrity_policy": scD(scDef(scEnum("fail", "record-and-continue"), "fail"),
			"record-and-continue records mismatches instead of failing; needs REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED=true."),
		"integrity_continue_approved": scD(scBool(), "true exactly with record-and-continue."),
		"max_integrity_mismatches":    scDef(scInt(1, 100), int64(10)),
	})
	input := scIn(props)
	// The integrity union of §10.1, as constraints on the object above.
	union := []any{
		scM{
			"properties": scM{
				"integrity_policy":            scConst("record-and-continue"),
				"integrity_continue_approved": scConst(true),
			},
			"required": scSortedRequired([]string{"integrity_policy", "integrity_continue_approved"}),
		},
		scM{
			"properties": scM{
				"integrity_policy":            scConst("fail"),
				"integrity_continue_approved": scDef(scConst(false), false),
			},
		},
	}
	return Spec{
		Name:  "inventory_artifact",
		Title: "Inventory artifact",
		Description: "Inventory the open archive or directory: artifacts, paths, edges, integrity." +
			catSampleText,
		Kind:       "artifact",
		Effects:    catEffects("I"),
		Evidence:   true,
		Input:      input,
		inputUnion: union,
		Result: scOutAll(scM{
			"manifest": scManifest(),
			"nodes": scPageOf(scOutAll(scM{
				"artifact_id":   scPat(scPatArtifactID),
				"kind":          scString(),
				"format":        scEnum(scSubjectFormats()...),
				"sha256":        scHex64(),
				"size":          scCount(),
				"media_type":    scNullable(scString()),
				"architecture":  scNullable(scString()),
				"executable":    scBool(),
				"content_state": scEnum("materialized", "embedded", "virtual"),
				"limitations":   scList(scString()),
			})),
			"occurrences": scPageOf(scOutAll(scM{
				"occurrence_id":        scPat(scPatOccurrence),
				"artifact_id":          scNullable(scPat(scPatArtifactID)),
				"parent_occurrence_id": scNullable(scPat(scPatOccurrence)),
				"logical_path":         scString(),
				"entry_kind":           scEnum("file", "directory", "symlink", "slice"),
				"declared_size":        scNullable(scCount()),
				"declared_sha256":      scNullable(scHex64()),
				"compressed_size":      scNullable(scCount()),
				"executable":           scBool(),
				"encrypted":            scBool(),
				"hash_status":          scEnum("verified", "mismatched", "not-hashed-limit", "unavailable"),
				"source_location":      scNullable(scOutAll(scM{"offset": scCount(), "length": scCount()})),
				"limitations":          scList(scString()),
			})),
			"edges": scPageOf(scOutAll(scM{
				"edge_id":            scPat(scPatEdgeID),
				"ordinal":            scCount(),
				"parent_artifact_id": scPat(scPatArtifactID),
				"child_artifact_id":  scPat(scPatArtifactID),
				"relation": scEnum("contains", "extracts", "slice-of", "embeds", "loads", "maps-source",
					"derived-from"),
				"occurrence_id": scPat(scPatOccurrence),
				"logical_path":  scNullable(scString()),
				"producer":      scM{"type": "null"},
			})),
			"limits":                   catLimitsResult(),
			"provenance":               scList(scAny()),
			"integrity_contradictions": scArr(scContradiction(), 0, 100),
			"limitations":              scList(scString()),
		}),
	}
}

func catExtractArtifact() Spec {
	props := catTraversalLimits(scPageIn(scM{
		"approved":           scConst(true),
		"output_root":        scAbsPathIn(4096, "Created if missing; files are never overwritten."),
		"occurrence_ids":     scD(scArr(scPat(scPatOccurrence), 1, 500), "From the current inventory; a directory selects its files."),
		"allow_hidden_paths": scD(scDef(scBool(), false), "Allow path components starting with '.'."),
	}, 500, 100))
	// Server maxima of an extraction (§0): PATH_MAX, 64 GiB.
	props["max_path_bytes"] = scDef(scInt(1, artifact.MaxExtractPathBytes), int64(4096))
	props["max_total_bytes"] = scDef(scInt(1, artifact.MaxExtractTotalBytes), int64(1073741824))
	return Spec{
		Name:  "extract_artifact",
		Title: "Extract artifact",
		Description: "Extract chosen occurrences of the open archive or directory safely; needs an artifact_extract grant." +
			catSampleText,
		Kind:     "artifact",
		Effects:  catEffects("W"),
		Evidence: true,
		Input:    scIn(props, "approved", "output_root", "occurrence_ids"),
		Result: scOutAll(scM{
			"manifest": scManifest(),
			"extraction_manifest": scOutAll(scM{
				"schema_version":          scConst(int64(1)),
				"extraction_id":           scPat(scPatExtraction),
				"source_manifest_id":      scPat(scPatManifestID),
				"selected_occurrence_ids": scList(scPat(scPatOccurrence)),
				"files_sha256":            scHex64(),
				"output_root_alias":       scConst("$OUTPUT_ROOT"),
			}),
			"output_root": scString(),
			"artifacts": scPageOf(scOut(scM{
				"artifact_id":   scPat(scPatArtifactID),
				"relative_path": scString(),
				"raw_name_hex":  scPat("^([0-9a-f]{2})+$"),
				"sha256":        scHex64(),
				"bytes_written": scCount(),
				"created":       scConst(true),
			}, "artifact_id", "relative_path", "sha256", "bytes_written", "created")),
			"containment_verified": scConst(true),
			"cleanup": scOutAll(scM{
				"attempted": scBool(), "verified": scBool(), "residual_paths": scList(scString()),
			}),
			"limits":      catLimitsResult(),
			"provenance":  scList(scAny()),
			"limitations": scList(scString()),
		}),
	}
}
