package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rea-re/rea/ledger"
)

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

const (
	evidenceDigestQuery = `SELECT record_digest FROM proj_evidence_publications WHERE evidence_id = ? LIMIT 1`
	annotationsQuery    = `SELECT address, value FROM proj_annotations WHERE target_sha256 = ? AND kind = ? ORDER BY address`
)

// Lookups are the read queries that run on every provider call or
// publication, on statements prepared once: parsing the SQL each time
// costs more than the indexed lookup itself (a list_procedures page made
// both, the annotations read to share user names with the provider and
// the digest lookup before publishing).
type Lookups struct {
	digest      *sql.Stmt // on the read pool
	digestInTx  *sql.Stmt // on the writer connection; nil for a read-only ledger
	annotations *sql.Stmt // on the read pool
}

// NewLookups prepares the lookups on l's read pool and, unless l is
// read-only, the digest lookup on its writer connection for DigestIn.
func NewLookups(ctx context.Context, l *ledger.Ledger) (*Lookups, error) {
	lk := &Lookups{}
	var err error
	if lk.digest, err = l.ReadDB().PrepareContext(ctx, evidenceDigestQuery); err != nil {
		return nil, fmt.Errorf("projections: prepare evidence lookup: %w", err)
	}
	if lk.annotations, err = l.ReadDB().PrepareContext(ctx, annotationsQuery); err != nil {
		lk.Close()
		return nil, fmt.Errorf("projections: prepare annotations lookup: %w", err)
	}
	if lk.digestInTx, err = l.PrepareRead(ctx, evidenceDigestQuery); err != nil && !errors.Is(err, ledger.ErrReadOnly) {
		lk.Close()
		return nil, fmt.Errorf("projections: prepare evidence lookup: %w", err)
	}
	return lk, nil
}

// Digest returns the stored record digest of id and whether it exists.
func (l *Lookups) Digest(ctx context.Context, id string) (string, bool, error) {
	return scanDigest(l.digest.QueryRowContext(ctx, id))
}

// DigestIn is Digest inside an append transaction: it sees the
// transaction's own snapshot and costs no read-pool round trip.
func (l *Lookups) DigestIn(ctx context.Context, tx *sql.Tx, id string) (string, bool, error) {
	if l.digestInTx == nil {
		return "", false, ledger.ErrReadOnly
	}
	return scanDigest(tx.StmtContext(ctx, l.digestInTx).QueryRowContext(ctx, id))
}

// AnnotationsOfKind lists a target's annotations of one kind, sorted by
// address.
func (l *Lookups) AnnotationsOfKind(ctx context.Context, sha256, kind string) ([]StoredAnnotation, error) {
	rows, err := l.annotations.QueryContext(ctx, sha256, kind)
	if err != nil {
		return nil, fmt.Errorf("projections: annotations: %w", err)
	}
	defer rows.Close()
	var out []StoredAnnotation
	for rows.Next() {
		var a StoredAnnotation
		if err := rows.Scan(&a.Address, &a.Value); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Close releases the statements.
func (l *Lookups) Close() error {
	for _, st := range []*sql.Stmt{l.digestInTx, l.annotations} {
		if st != nil {
			st.Close()
		}
	}
	if l.digest == nil {
		return nil
	}
	return l.digest.Close()
}

func scanDigest(row *sql.Row) (string, bool, error) {
	var d string
	err := row.Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return d, err == nil, err
}

// Annotation returns a target's annotation of one kind at one address.
func Annotation(ctx context.Context, db *sql.DB, sha256, kind, address string) (string, bool, error) {
	var v string
	err := db.QueryRowContext(ctx, `SELECT value FROM proj_annotations WHERE target_sha256 = ? AND kind = ? AND address = ?`,
		sha256, kind, address).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("projections: annotation: %w", err)
	}
	return v, true, nil
}

// StoredAnnotation is one annotation as folded.
type StoredAnnotation struct {
	Address, Value string
}

// LineageSnapshot is the latest observation of one provider's processes in a run.
type LineageSnapshot struct {
	Provider    json.RawMessage `json:"provider"`
	Observation json.RawMessage `json:"observation"`
}

// LineageSnapshots lists the latest observation per provider of run, sorted
// by provider id; empty when no process-backed provider was observed.
func LineageSnapshots(ctx context.Context, db *sql.DB, runID string) ([]LineageSnapshot, error) {
	rows, err := db.QueryContext(ctx, `SELECT provider, observation FROM proj_lineage WHERE run_id = ? ORDER BY provider_id`, runID)
	if err != nil {
		return nil, fmt.Errorf("projections: lineage: %w", err)
	}
	defer rows.Close()
	var out []LineageSnapshot
	for rows.Next() {
		var p, o string
		if err := rows.Scan(&p, &o); err != nil {
			return nil, err
		}
		out = append(out, LineageSnapshot{Provider: json.RawMessage(p), Observation: json.RawMessage(o)})
	}
	return out, rows.Err()
}
