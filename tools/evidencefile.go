package tools

import (
	"context"

	"github.com/rea-re/rea/engine/command"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// Evidence file tools (CONTRACTS.md §7.5): the engine decides the permission
// and does the file work; these only unpack arguments.

func (s *Server) exportEvidenceBundle(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	path, _ := params.String("path")
	overwrite := params.Bool("overwrite", false)
	return command.ExportEvidenceBundle(ctx, sess.conn, path, overwrite, rep)
}

func (s *Server) importEvidenceBundle(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	path, _ := params.String("path")
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
