package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/ledger"
)

// comparisons folds compare_binaries checkpoints and completions (§16.2)
// into one row per comparison_id: its last checkpoint and, once completed,
// its result. A call looks its comparison up here to page a stored result
// or resume from the last checkpoint, also after a restart.
type comparisons struct{ stmts *statements }

func (comparisons) Name() string     { return "comparisons" }
func (comparisons) Tables() []string { return []string{"proj_comparisons"} }
func (f comparisons) Apply(tx *sql.Tx, e ledger.Event) error {
	switch e.Type {
	case events.ComparisonCheckpoint:
		var d events.ComparisonCheckpointData
		if err := decode(e, &d); err != nil {
			return err
		}
		var total any
		if d.Total != nil {
			total = int64(*d.Total)
		}
		return f.stmts.exec(tx, `INSERT INTO proj_comparisons(comparison_id, checkpoints, phase, completed, total, state_digest, checkpoint_seq)
			VALUES (?,1,?,?,?,?,?)
			ON CONFLICT (comparison_id) DO UPDATE SET checkpoints = proj_comparisons.checkpoints + 1, phase = excluded.phase,
				completed = excluded.completed, total = excluded.total, state_digest = excluded.state_digest,
				checkpoint_seq = excluded.checkpoint_seq`,
			d.ComparisonID, d.Phase, int64(d.Completed), total, d.StateDigest, e.Seq)
	case events.ComparisonCompleted:
		var d events.ComparisonCompletedData
		if err := decode(e, &d); err != nil {
			return err
		}
		return f.stmts.exec(tx, `INSERT INTO proj_comparisons(comparison_id, checkpoints, result_digest, completed_seq) VALUES (?,0,?,?)
			ON CONFLICT (comparison_id) DO UPDATE SET result_digest = excluded.result_digest, completed_seq = excluded.completed_seq`,
			d.ComparisonID, d.ResultDigest, e.Seq)
	}
	return nil
}

// Comparison is what the ledger knows of one comparison.
type Comparison struct {
	ComparisonID string
	Checkpoints  int
	// The last checkpoint (Phase "" when there is none).
	Phase       string
	Completed   int64
	Total       *int64
	StateDigest string
	// The stored result ("" until comparison_completed).
	ResultDigest string
}

// ComparisonByID returns the comparison's row; ok is false when the ledger
// has neither a checkpoint nor a completion of it.
func ComparisonByID(ctx context.Context, db *sql.DB, id string) (c Comparison, ok bool, err error) {
	var phase, state, result sql.NullString
	var completed, total sql.NullInt64
	err = db.QueryRowContext(ctx, `SELECT checkpoints, phase, completed, total, state_digest, result_digest
		FROM proj_comparisons WHERE comparison_id = ?`, id).Scan(&c.Checkpoints, &phase, &completed, &total, &state, &result)
	if errors.Is(err, sql.ErrNoRows) {
		return Comparison{}, false, nil
	}
	if err != nil {
		return Comparison{}, false, fmt.Errorf("projections: comparison %s: %w", id, err)
	}
	c.ComparisonID, c.Phase, c.Completed, c.StateDigest, c.ResultDigest = id, phase.String, completed.Int64, state.String, result.String
	if total.Valid {
		c.Total = &total.Int64
	}
	return c, true, nil
}
