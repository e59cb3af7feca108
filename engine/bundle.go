package engine

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/projections"
)

// BundleRequest selects the records of get_evidence_bundle.
type BundleRequest struct {
	EvidenceIDs []string // nil: every record in scope
	RunID       string
	Scope       string // connection | ledger
}

// BundleResult is get_evidence_bundle's result.
type BundleResult struct {
	Scope        string          `json:"scope"`
	BundleDigest string          `json:"bundle_digest"`
	Bytes        int             `json:"bytes"`
	RecordCount  int             `json:"record_count"`
	Bundle       json.RawMessage `json:"bundle"`
}

// EvidenceBundle assembles a canonical bundle of this connection's records
// (scope "connection") or of the whole ledger (scope "ledger").
func (c *Connection) EvidenceBundle(ctx context.Context, req BundleRequest) (BundleResult, error) {
	connectionID := c.ID()
	if req.Scope == "ledger" {
		connectionID = ""
	}
	return c.eng.EvidenceBundle(ctx, connectionID, req)
}

// EvidenceBundle assembles a canonical bundle from the projections: records
// published on connectionID, or in the whole ledger when it is empty. The same
// ledger history gives byte-identical bundles in any process.
func (e *Engine) EvidenceBundle(ctx context.Context, connectionID string, req BundleRequest) (BundleResult, error) {
	const op = "get_evidence_bundle"
	f := projections.EvidenceFilter{RunID: req.RunID, ConnectionID: connectionID}
	inScope, err := projections.EvidenceRecords(ctx, e.cfg.Ledger.ReadDB(), f)
	if err != nil {
		return BundleResult{}, fault.From(op, err)
	}
	selected := inScope
	if req.EvidenceIDs != nil {
		selected = map[string]string{}
		for _, id := range req.EvidenceIDs {
			d, ok := inScope[id]
			if !ok {
				return BundleResult{}, fault.New(fault.EvidenceIntegrityMismatch, "A requested Evidence record is not in scope.",
					"Request ids published on this connection, or use scope \"ledger\".",
					map[string]any{"evidence_id": id, "reason": "missing"})
			}
			selected[id] = d
		}
	}
	if len(selected) > evidence.MaxBundleRecords {
		return BundleResult{}, tooLarge("records", evidence.MaxBundleRecords, len(selected))
	}
	ids := make([]string, 0, len(selected))
	for id := range selected {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	records := make([]*evidence.Record, 0, len(ids))
	total := 0
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return BundleResult{}, fault.CancelledError(op).WithCause(err)
		}
		r, err := e.loadRecord(ctx, op, selected[id])
		if err != nil {
			return BundleResult{}, err
		}
		records = append(records, r)
		if total += len(r.NormalizedResult) + len(r.RawResult); total > evidence.MaxBundleBytes {
			return BundleResult{}, tooLarge("bytes", evidence.MaxBundleBytes, total)
		}
	}
	b, err := evidence.BuildBundle(records)
	if err != nil {
		return BundleResult{}, fault.Internal(op, err)
	}
	if len(b) > evidence.MaxBundleBytes {
		return BundleResult{}, tooLarge("bytes", evidence.MaxBundleBytes, len(b))
	}
	return BundleResult{Scope: scopeName(req.Scope), BundleDigest: canon.SHA256Hex(b), Bytes: len(b), RecordCount: len(records), Bundle: b}, nil
}

func scopeName(s string) string {
	if s == "ledger" {
		return s
	}
	return "connection"
}

func tooLarge(limit string, maximum, actual int) *fault.Error {
	return fault.New(fault.Truncated, "The bundle would exceed its bound.", "Narrow the request by evidence_ids or run_id.",
		map[string]any{"operation": "get_evidence_bundle", "limit": limit, "maximum": maximum, "actual": actual, "truncated": true})
}
