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

const evidenceDigestQuery = `SELECT record_digest FROM proj_evidence_publications WHERE evidence_id = ? LIMIT 1`

// EvidenceLookup finds the stored record digest of an evidence id, on
// statements prepared once: it runs before every publication, and parsing
// the SQL each time costs more than the indexed lookup itself.
type EvidenceLookup struct {
	stmt *sql.Stmt // on the read pool
	inTx *sql.Stmt // on the writer connection; nil for a read-only ledger
}

// NewEvidenceLookup prepares the lookup on l's read pool and, unless l is
// read-only, on its writer connection for DigestIn.
func NewEvidenceLookup(ctx context.Context, l *ledger.Ledger) (*EvidenceLookup, error) {
	st, err := l.ReadDB().PrepareContext(ctx, evidenceDigestQuery)
	if err != nil {
		return nil, fmt.Errorf("projections: prepare evidence lookup: %w", err)
	}
	in, err := l.PrepareRead(ctx, evidenceDigestQuery)
	if err != nil && !errors.Is(err, ledger.ErrReadOnly) {
		st.Close()
		return nil, fmt.Errorf("projections: prepare evidence lookup: %w", err)
	}
	return &EvidenceLookup{stmt: st, inTx: in}, nil
}

// Digest returns the stored record digest of id and whether it exists.
func (l *EvidenceLookup) Digest(ctx context.Context, id string) (string, bool, error) {
	return scanDigest(l.stmt.QueryRowContext(ctx, id))
}

// DigestIn is Digest inside an append transaction: it sees the
// transaction's own snapshot and costs no read-pool round trip.
func (l *EvidenceLookup) DigestIn(ctx context.Context, tx *sql.Tx, id string) (string, bool, error) {
	if l.inTx == nil {
		return "", false, ledger.ErrReadOnly
	}
	return scanDigest(tx.StmtContext(ctx, l.inTx).QueryRowContext(ctx, id))
}

// Close releases the statements.
func (l *EvidenceLookup) Close() error {
	if l.inTx != nil {
		l.inTx.Close()
	}
	return l.stmt.Close()
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

// AnnotationsOfKind lists a target's annotations of one kind.
func AnnotationsOfKind(ctx context.Context, db *sql.DB, sha256, kind string) ([]StoredAnnotation, error) {
	rows, err := db.QueryContext(ctx, `SELECT address, value FROM proj_annotations WHERE target_sha256 = ? AND kind = ? ORDER BY address`, sha256, kind)
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
