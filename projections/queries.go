package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Publication is one evidence_recorded event as folded.
type Publication struct {
	Seq          int64
	ConnectionID string
	RunID        sql.NullString
	EvidenceID   string
	RecordDigest string
}

// EvidenceFilter selects publications; empty fields do not filter.
type EvidenceFilter struct {
	ConnectionID string   // scope "connection" when set; all of the ledger otherwise
	RunID        string   // keep publications carrying this run
	EvidenceIDs  []string // keep exactly these
}

// EvidenceRecords lists the distinct records in scope with their digests,
// sorted by evidence_id.
func EvidenceRecords(ctx context.Context, db *sql.DB, f EvidenceFilter) (map[string]string, error) {
	var where []string
	var args []any
	if f.ConnectionID != "" {
		where = append(where, "p.connection_id = ?")
		args = append(args, f.ConnectionID)
	}
	if f.RunID != "" {
		where = append(where, "p.run_id = ?")
		args = append(args, f.RunID)
	}
	q := `SELECT DISTINCT p.evidence_id, p.record_digest FROM proj_evidence_publications p`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("projections: evidence records: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, digest string
		if err := rows.Scan(&id, &digest); err != nil {
			return nil, err
		}
		out[id] = digest
	}
	return out, rows.Err()
}

// EvidenceDigest returns the stored record digest of an evidence id.
func EvidenceDigest(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (string, bool, error) {
	var d string
	err := q.QueryRowContext(ctx, `SELECT record_digest FROM proj_evidence_publications WHERE evidence_id = ? LIMIT 1`, id).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return d, err == nil, err
}

// Annotation is one REA-owned annotation of a target.
type Annotation struct {
	Kind, Address, Value string
}

// Annotations lists a target's annotations of one kind (all kinds when kind is
// empty), by address.
func Annotations(ctx context.Context, db *sql.DB, sha256, kind string) ([]Annotation, error) {
	rows, err := db.QueryContext(ctx, `SELECT kind, address, value FROM proj_annotations
		WHERE target_sha256 = ? AND (? = '' OR kind = ?) ORDER BY kind, address`, sha256, kind, kind)
	if err != nil {
		return nil, fmt.Errorf("projections: annotations: %w", err)
	}
	defer rows.Close()
	var out []Annotation
	for rows.Next() {
		var a Annotation
		if err := rows.Scan(&a.Kind, &a.Address, &a.Value); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// LineageObservation is the latest retained observation of one provider in a run.
type LineageObservation struct {
	Provider, Observation string // JSON
}

// Lineage lists a run's retained observations, by provider id.
func Lineage(ctx context.Context, db *sql.DB, runID string) ([]LineageObservation, error) {
	rows, err := db.QueryContext(ctx, `SELECT provider, observation FROM proj_lineage WHERE run_id = ? ORDER BY provider_id`, runID)
	if err != nil {
		return nil, fmt.Errorf("projections: lineage: %w", err)
	}
	defer rows.Close()
	var out []LineageObservation
	for rows.Next() {
		var o LineageObservation
		if err := rows.Scan(&o.Provider, &o.Observation); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
