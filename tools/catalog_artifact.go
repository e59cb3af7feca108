package tools

import (
	"github.com/rea-re/rea/engine/artifact"

	"github.com/rea-re/rea/tools/catalog"
)

// Artifact tools (kind artifact, CONTRACTS.md §2.4, §10): need an open target
// of kind archive or directory.

func catArtifactTools() []func() catalog.Spec {
	return []func() catalog.Spec{catInventoryArtifact, catExtractArtifact}
}

// catTraversalLimits adds the traversal limits of §2.4 to props.
func catTraversalLimits(props catalog.M) catalog.M {
	return catalog.Merge(props, catalog.M{
		"max_entries":           catalog.Def(catalog.Int(1, 1000000), int64(10000)),
		"max_total_bytes":       catalog.Def(catalog.Int(1, catalog.MaxInt), int64(1073741824)),
		"max_entry_bytes":       catalog.D(catalog.Def(catalog.Int(1, catalog.MaxInt), int64(268435456)), "Larger entries are listed, not hashed."),
		"max_compression_ratio": catalog.Def(catalog.M{"type": "number", "minimum": int64(1), "maximum": int64(100000)}, int64(1000)),
		"max_depth":             catalog.Def(catalog.Int(0, 100), int64(20)),
		"max_path_bytes":        catalog.Def(catalog.Int(1, 65535), int64(4096)),
	})
}

func catLimitsResult() catalog.M {
	return catalog.Out(catalog.M{
		"max_entries": catalog.Count(), "max_total_bytes": catalog.Count(), "max_entry_bytes": catalog.Count(),
		"max_compression_ratio": catalog.M{"type": "number"}, "max_depth": catalog.Count(), "max_path_bytes": catalog.Count(),
	})
}

func catInventoryArtifact() catalog.Spec {
	props := catTraversalLimits(catalog.M{
		"node_offset":       catalog.OffsetIn(""),
		"occurrence_offset": catalog.OffsetIn(""),
		"edge_offset":       catalog.OffsetIn(""),
		"node_limit":        catalog.LimitIn(500, 100, ""),
		"occurrence_limit":  catalog.LimitIn(500, 100, ""),
		"edge_limit":        catalog.LimitIn(500, 100, ""),
		"integrity_policy": catalog.D(catalog.Def(catalog.Enum("fail", "record-and-continue"), "fail"),
			"record-and-continue records mismatches instead of failing; needs REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED=true."),
		"integrity_continue_approved": catalog.D(catalog.Bool(), "true exactly with record-and-continue."),
		"max_integrity_mismatches":    catalog.Def(catalog.Int(1, 100), int64(10)),
	})
	input := catalog.In(props)
	// The integrity union of §10.1, as constraints on the object above.
	union := []any{
		catalog.M{
			"properties": catalog.M{
				"integrity_policy":            catalog.Const("record-and-continue"),
				"integrity_continue_approved": catalog.Const(true),
			},
			"required": catalog.SortedRequired([]string{"integrity_policy", "integrity_continue_approved"}),
		},
		catalog.M{
			"properties": catalog.M{
				"integrity_policy":            catalog.Const("fail"),
				"integrity_continue_approved": catalog.Def(catalog.Const(false), false),
			},
		},
	}
	return catalog.Spec{
		Name:  "inventory_artifact",
		Title: "Inventory artifact",
		Description: "Inventory the open archive or directory: artifacts, paths, edges, integrity." +
			catalog.SampleText,
		Kind:       "artifact",
		Effects:    catalog.Effects("I"),
		Evidence:   true,
		Input:      input,
		InputUnion: union,
		Result: catalog.OutAll(catalog.M{
			"manifest": catalog.Manifest(),
			"nodes": catalog.PageOf(catalog.OutAll(catalog.M{
				"artifact_id":   catalog.Pat(catalog.PatArtifactID),
				"kind":          catalog.String(),
				"format":        catalog.Enum(catalog.SubjectFormats()...),
				"sha256":        catalog.Hex64(),
				"size":          catalog.Count(),
				"media_type":    catalog.Nullable(catalog.String()),
				"architecture":  catalog.Nullable(catalog.String()),
				"executable":    catalog.Bool(),
				"content_state": catalog.Enum("materialized", "embedded", "virtual"),
				"limitations":   catalog.List(catalog.String()),
			})),
			"occurrences": catalog.PageOf(catalog.OutAll(catalog.M{
				"occurrence_id":        catalog.Pat(catalog.PatOccurrence),
				"artifact_id":          catalog.Nullable(catalog.Pat(catalog.PatArtifactID)),
				"parent_occurrence_id": catalog.Nullable(catalog.Pat(catalog.PatOccurrence)),
				"logical_path":         catalog.String(),
				"entry_kind":           catalog.Enum("file", "directory", "symlink", "slice"),
				"declared_size":        catalog.Nullable(catalog.Count()),
				"declared_sha256":      catalog.Nullable(catalog.Hex64()),
				"compressed_size":      catalog.Nullable(catalog.Count()),
				"executable":           catalog.Bool(),
				"encrypted":            catalog.Bool(),
				"hash_status":          catalog.Enum("verified", "mismatched", "not-hashed-limit", "unavailable"),
				"source_location":      catalog.Nullable(catalog.OutAll(catalog.M{"offset": catalog.Count(), "length": catalog.Count()})),
				"limitations":          catalog.List(catalog.String()),
			})),
			"edges": catalog.PageOf(catalog.OutAll(catalog.M{
				"edge_id":            catalog.Pat(catalog.PatEdgeID),
				"ordinal":            catalog.Count(),
				"parent_artifact_id": catalog.Pat(catalog.PatArtifactID),
				"child_artifact_id":  catalog.Pat(catalog.PatArtifactID),
				"relation": catalog.Enum("contains", "extracts", "slice-of", "embeds", "loads", "maps-source",
					"derived-from"),
				"occurrence_id": catalog.Pat(catalog.PatOccurrence),
				"logical_path":  catalog.Nullable(catalog.String()),
				"producer":      catalog.M{"type": "null"},
			})),
			"limits":                   catLimitsResult(),
			"provenance":               catalog.List(catalog.Any()),
			"integrity_contradictions": catalog.Arr(catalog.Contradiction(), 0, 100),
			"limitations":              catalog.List(catalog.String()),
		}),
	}
}

func catExtractArtifact() catalog.Spec {
	props := catTraversalLimits(catalog.PageIn(catalog.M{
		"approved":           catalog.Const(true),
		"output_root":        catalog.AbsPathIn(4096, "Created if missing; files are never overwritten."),
		"occurrence_ids":     catalog.D(catalog.Arr(catalog.Pat(catalog.PatOccurrence), 1, 500), "From the current inventory; a directory selects its files."),
		"allow_hidden_paths": catalog.D(catalog.Def(catalog.Bool(), false), "Allow path components starting with '.'."),
	}, 500, 100))
	// Server maxima of an extraction (§0): PATH_MAX, 64 GiB.
	props["max_path_bytes"] = catalog.Def(catalog.Int(1, artifact.MaxExtractPathBytes), int64(4096))
	props["max_total_bytes"] = catalog.Def(catalog.Int(1, artifact.MaxExtractTotalBytes), int64(1073741824))
	return catalog.Spec{
		Name:  "extract_artifact",
		Title: "Extract artifact",
		Description: "Extract chosen occurrences of the open archive or directory safely; needs an artifact_extract grant." +
			catalog.SampleText,
		Kind:     "artifact",
		Effects:  catalog.Effects("W"),
		Evidence: true,
		Input:    catalog.In(props, "approved", "output_root", "occurrence_ids"),
		Result: catalog.OutAll(catalog.M{
			"manifest": catalog.Manifest(),
			"extraction_manifest": catalog.OutAll(catalog.M{
				"schema_version":          catalog.Const(int64(1)),
				"extraction_id":           catalog.Pat(catalog.PatExtraction),
				"source_manifest_id":      catalog.Pat(catalog.PatManifestID),
				"selected_occurrence_ids": catalog.List(catalog.Pat(catalog.PatOccurrence)),
				"files_sha256":            catalog.Hex64(),
				"output_root_alias":       catalog.Const("$OUTPUT_ROOT"),
			}),
			"output_root": catalog.String(),
			"artifacts": catalog.PageOf(catalog.Out(catalog.M{
				"artifact_id":   catalog.Pat(catalog.PatArtifactID),
				"relative_path": catalog.String(),
				"raw_name_hex":  catalog.Pat("^([0-9a-f]{2})+$"),
				"sha256":        catalog.Hex64(),
				"bytes_written": catalog.Count(),
				"created":       catalog.Const(true),
			}, "artifact_id", "relative_path", "sha256", "bytes_written", "created")),
			"containment_verified": catalog.Const(true),
			"cleanup": catalog.OutAll(catalog.M{
				"attempted": catalog.Bool(), "verified": catalog.Bool(), "residual_paths": catalog.List(catalog.String()),
			}),
			"limits":      catLimitsResult(),
			"provenance":  catalog.List(catalog.Any()),
			"limitations": catalog.List(catalog.String()),
		}),
	}
}
