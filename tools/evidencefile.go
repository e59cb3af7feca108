package tools

import (
	"context"

	"github.com/rea-re/rea/engine/command"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/tools/catalog"
)

// Evidence file tools (CONTRACTS.md §7.5): the engine decides the permission
// and does the file work; these only unpack arguments.

func evidenceFileTools() []tool {
	return []tool{
		{catExportEvidenceBundle, (*Server).exportEvidenceBundle},
		{catImportEvidenceBundle, (*Server).importEvidenceBundle},
	}
}

func catExportEvidenceBundle() catalog.Spec {
	return catalog.Spec{
		Name:        "export_evidence_bundle",
		Title:       "Export Evidence bundle",
		Description: "Write this connection's Evidence bundle to a file in an approved Evidence root.",
		Kind:        "session",
		Effects:     catalog.Effects("W D"),
		Input: catalog.In(catalog.M{
			"path":      catalog.AbsPathIn(4096, ""),
			"overwrite": catalog.Def(catalog.Bool(), false),
		}, "path"),
		Result: catalog.OutAll(catalog.M{
			"path":          catalog.String(),
			"bytes":         catalog.Count(),
			"records":       catalog.Count(),
			"bundle_digest": catalog.Hex64(),
		}),
	}
}

func catImportEvidenceBundle() catalog.Spec {
	return catalog.Spec{
		Name:        "import_evidence_bundle",
		Title:       "Import Evidence bundle",
		Description: "Verify a bundle file in an approved Evidence root and merge its records atomically.",
		Kind:        "session",
		Effects:     catalog.Effects("S I"),
		Input: catalog.In(catalog.M{
			"path": catalog.AbsPathIn(4096, ""),
		}, "path"),
		Result: catalog.OutAll(catalog.M{
			"imported":      catalog.Count(),
			"duplicates":    catalog.Count(),
			"total":         catalog.Count(),
			"bundle_digest": catalog.Hex64(),
		}),
	}
}

func (s *Server) exportEvidenceBundle(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	path, _ := in.Params.String("path")
	overwrite := in.Params.Bool("overwrite", false)
	return command.ExportEvidenceBundle(ctx, sess.conn, path, overwrite, rep)
}

func (s *Server) importEvidenceBundle(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	path, _ := in.Params.String("path")
	return command.ImportEvidenceBundle(ctx, sess.conn, path, rep)
}

// evidenceRootsConfigured is step 2 of §3.4 for the Evidence file tools: no
// REA_EVIDENCE_ROOTS_JSON roots means no ceiling, so they are policy_disabled.
func (s *Server) evidenceRootsConfigured(name string) bool {
	capability := policy.EvidenceWrite
	if name == "import_evidence_bundle" {
		capability = policy.EvidenceRead
	}
	return s.eng.Policy().Ceilings().Ceiling(capability) != nil
}
