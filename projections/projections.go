// Package projections holds REA's read models: tables folded from ledger
// events. The same Apply code runs inside every live append transaction and
// during `rea ledger rebuild`, so an answer read from a projection is the same
// whether the process has been up for hours, was just restarted, or rebuilt
// the ledger from an import on another machine.
//
// Folds must depend only on the event (its seq, type and data) — never on the
// clock, the environment or other process state — or a rebuild would diverge.
//
// The SQL is the subset SQLite and PostgreSQL share (upserts are ON CONFLICT
// … DO UPDATE, not INSERT OR REPLACE), with ? placeholders, which the
// PostgreSQL ledger rewrites: the same folds serve both backends.
package projections

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/ledger"
)

// All returns every projection, in the order they are applied. They share one
// prepared-statement cache, so a replay prepares each statement once per
// transaction instead of once per event.
func All() []ledger.Projection {
	c := &statements{}
	return []ledger.Projection{
		connections{c}, runs{c}, selectionFailures{c}, &evidence{stmts: c}, health{c}, lineages{c}, annotations{c}, cursors{c},
		comparisons{c},
	}
}

// Apply folds events into every projection (ledger.Fold: apply, then flush).
func Apply(tx *sql.Tx, ps []ledger.Projection, evs []ledger.Event) error {
	return ledger.Fold(ps...)(tx, evs)
}

type statements struct{ cache ledger.StmtCache }

func (c *statements) exec(tx *sql.Tx, query string, args ...any) error {
	st, err := c.cache.Stmt(tx, query)
	if err != nil {
		return err
	}
	_, err = st.Exec(args...)
	return err
}

func decode(e ledger.Event, v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("decode %s: %w", e.Type, err)
	}
	return nil
}

// targetID is the target an event names: its target_id, or for a
// schema_version 1 event (a connection held one target) the legacy id of
// its run (CONTRACTS.md §15.3).
func targetID(id, runID string) string {
	if id == "" {
		return events.LegacyTargetID(runID)
	}
	return id
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

type connections struct{ stmts *statements }

func (connections) Name() string     { return "connections" }
func (connections) Tables() []string { return []string{"proj_connections"} }
func (f connections) Apply(tx *sql.Tx, e ledger.Event) error {
	switch e.Type {
	case events.ConnectionOpened:
		var d events.ConnectionOpenedData
		if err := decode(e, &d); err != nil {
			return err
		}
		var name, version any
		if d.Client != nil {
			name, version = d.Client.Name, d.Client.Version
		}
		err := f.stmts.exec(tx, `INSERT INTO proj_connections(connection_id, transport, protocol_version, client_name, client_version, opened_seq)
			VALUES (?,?,?,?,?,?)`, d.ConnectionID, d.Transport, d.ProtocolVersion, name, version, e.Seq)
		return err
	case events.ConnectionClosed:
		var d events.ConnectionClosedData
		if err := decode(e, &d); err != nil {
			return err
		}
		err := f.stmts.exec(tx, `UPDATE proj_connections SET closed_seq=?, close_reason=? WHERE connection_id=?`, e.Seq, d.Reason, d.ConnectionID)
		return err
	}
	return nil
}

type runs struct{ stmts *statements }

func (runs) Name() string     { return "runs" }
func (runs) Tables() []string { return []string{"proj_runs"} }
func (f runs) Apply(tx *sql.Tx, e ledger.Event) error {
	switch e.Type {
	case events.AnalysisRunAllocated:
		var d events.AnalysisRunAllocatedData
		if err := decode(e, &d); err != nil {
			return err
		}
		err := f.stmts.exec(tx, `INSERT INTO proj_runs(run_id, connection_id, target_id, target_sha256, previous_run_id, cause, allocated_seq)
			VALUES (?,?,?,?,?,?,?)`, d.RunID, d.ConnectionID, targetID(d.TargetID, d.RunID), d.TargetSHA256, d.PreviousRunID, d.Cause, e.Seq)
		return err
	case events.TargetOpened:
		var d events.TargetOpenedData
		if err := decode(e, &d); err != nil {
			return err
		}
		t, err := jsonText(d.Target)
		if err != nil {
			return err
		}
		err = f.stmts.exec(tx, `UPDATE proj_runs SET target=?, requested_provider_id=?, opened_seq=? WHERE run_id=?`, t, d.RequestedProviderID, e.Seq, d.RunID)
		return err
	case events.ProviderBound:
		var d events.ProviderBoundData
		if err := decode(e, &d); err != nil {
			return err
		}
		p, err := jsonText(d.Provider)
		if err != nil {
			return err
		}
		prof, err := jsonText(d.AnalysisProfile)
		if err != nil {
			return err
		}
		err = f.stmts.exec(tx, `UPDATE proj_runs SET provider=?, selection_source=?, analysis_profile=? WHERE run_id=?`, p, d.SelectionSource, prof, d.RunID)
		return err
	case events.TargetClosed:
		var d events.TargetClosedData
		if err := decode(e, &d); err != nil {
			return err
		}
		err := f.stmts.exec(tx, `UPDATE proj_runs SET closed_seq=?, close_reason=?, cleanup=? WHERE run_id=?`, e.Seq, d.Reason, d.Cleanup, d.RunID)
		return err
	}
	return nil
}

type selectionFailures struct{ stmts *statements }

func (selectionFailures) Name() string     { return "selection_failures" }
func (selectionFailures) Tables() []string { return []string{"proj_selection_failures"} }
func (f selectionFailures) Apply(tx *sql.Tx, e ledger.Event) error {
	if e.Type != events.ProviderSelectionFailed {
		return nil
	}
	var d events.ProviderSelectionFailedData
	if err := decode(e, &d); err != nil {
		return err
	}
	rej, err := jsonText(d.Rejections)
	if err != nil {
		return err
	}
	err = f.stmts.exec(tx, `INSERT INTO proj_selection_failures(seq, connection_id, operation, selection_reason, requested_provider_id, rejections)
		VALUES (?,?,?,?,?,?)`, e.Seq, d.ConnectionID, d.Operation, d.SelectionReason, d.RequestedProviderID, rej)
	return err
}

// evidence folds evidence_recorded into proj_evidence_publications. Its rows
// depend on nothing but the event, so it buffers them and writes up to
// evidenceRowsPerInsert rows per statement on Flush (ledger.Flusher).
type evidence struct {
	stmts *statements
	mu    sync.Mutex
	rows  []any // evidenceColumns values per row, flattened
}

const (
	evidenceColumns       = 5
	evidenceRowsPerInsert = 500
)

func (*evidence) Name() string { return "evidence" }
func (*evidence) Tables() []string {
	return []string{"proj_evidence_publications"}
}
func (f *evidence) Apply(tx *sql.Tx, e ledger.Event) error {
	if e.Type != events.EvidenceRecorded {
		return nil
	}
	d, err := decodeEvidenceRecorded(e)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.rows = append(f.rows, e.Seq, d.ConnectionID, d.RunID, d.EvidenceID, d.RecordDigest)
	f.mu.Unlock()
	return nil
}

// Flush writes the buffered rows; the buffer is empty afterwards whether or
// not the write succeeded (a failed write fails the whole transaction).
func (f *evidence) Flush(tx *sql.Tx) error {
	f.mu.Lock()
	rows := f.rows
	f.rows = nil
	f.mu.Unlock()
	for len(rows) > 0 {
		n := min(len(rows)/evidenceColumns, evidenceRowsPerInsert)
		query := fullEvidenceInsert
		if n < evidenceRowsPerInsert {
			query = evidenceInsert(n)
		}
		if err := f.stmts.exec(tx, query, rows[:n*evidenceColumns]...); err != nil {
			return err
		}
		rows = rows[n*evidenceColumns:]
	}
	return nil
}

// fullEvidenceInsert is built once: a replay flushes thousands of full batches.
var fullEvidenceInsert = evidenceInsert(evidenceRowsPerInsert)

func evidenceInsert(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO proj_evidence_publications(seq, connection_id, run_id, evidence_id, record_digest) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?)")
	}
	return b.String()
}

type health struct{ stmts *statements }

func (health) Name() string     { return "provider_health" }
func (health) Tables() []string { return []string{"proj_provider_health"} }
func (f health) Apply(tx *sql.Tx, e ledger.Event) error {
	if e.Type != events.ProviderHealthChanged {
		return nil
	}
	var d events.ProviderHealthChangedData
	if err := decode(e, &d); err != nil {
		return err
	}
	op := "*"
	if d.Operation != nil {
		op = *d.Operation
	}
	err := f.stmts.exec(tx, `INSERT INTO proj_provider_health(run_id, provider_id, operation, connection_id, state, reason, seq)
		VALUES (?,?,?,?,?,?,?) ON CONFLICT (run_id, provider_id, operation) DO UPDATE SET connection_id = excluded.connection_id,
		state = excluded.state, reason = excluded.reason, seq = excluded.seq`, d.RunID, d.ProviderID, op, d.ConnectionID, d.State, d.Reason, e.Seq)
	return err
}

type lineages struct{ stmts *statements }

func (lineages) Name() string     { return "lineage" }
func (lineages) Tables() []string { return []string{"proj_lineage"} }
func (f lineages) Apply(tx *sql.Tx, e ledger.Event) error {
	if e.Type != events.LineageObserved {
		return nil
	}
	var d events.LineageObservedData
	if err := decode(e, &d); err != nil {
		return err
	}
	p, err := jsonText(d.Provider)
	if err != nil {
		return err
	}
	o, err := jsonText(d.Observation)
	if err != nil {
		return err
	}
	err = f.stmts.exec(tx, `INSERT INTO proj_lineage(run_id, provider_id, provider, observation, seq) VALUES (?,?,?,?,?)
		ON CONFLICT (run_id, provider_id) DO UPDATE SET provider = excluded.provider, observation = excluded.observation, seq = excluded.seq`,
		d.RunID, d.Provider.ID, p, o, e.Seq)
	return err
}

type annotations struct{ stmts *statements }

func (annotations) Name() string     { return "annotations" }
func (annotations) Tables() []string { return []string{"proj_annotations"} }
func (f annotations) Apply(tx *sql.Tx, e ledger.Event) error {
	switch e.Type {
	case events.AnnotationSet:
		var d events.AnnotationSetData
		if err := decode(e, &d); err != nil {
			return err
		}
		err := f.stmts.exec(tx, `INSERT INTO proj_annotations(target_sha256, kind, address, value, seq) VALUES (?,?,?,?,?)
			ON CONFLICT (target_sha256, kind, address) DO UPDATE SET value = excluded.value, seq = excluded.seq`,
			d.TargetSHA256, d.Kind, d.Address, d.Value, e.Seq)
		return err
	case events.AnnotationRemoved:
		var d events.AnnotationRemovedData
		if err := decode(e, &d); err != nil {
			return err
		}
		err := f.stmts.exec(tx, `DELETE FROM proj_annotations WHERE target_sha256=? AND kind=? AND address=?`, d.TargetSHA256, d.Kind, d.Address)
		return err
	}
	return nil
}

type cursors struct{ stmts *statements }

func (cursors) Name() string     { return "cursors" }
func (cursors) Tables() []string { return []string{"proj_cursors"} }
func (f cursors) Apply(tx *sql.Tx, e ledger.Event) error {
	if e.Type != events.CursorMoved {
		return nil
	}
	var d events.CursorMovedData
	if err := decode(e, &d); err != nil {
		return err
	}
	err := f.stmts.exec(tx, `INSERT INTO proj_cursors(connection_id, target_id, run_id, document, address, seq) VALUES (?,?,?,?,?,?)
		ON CONFLICT (connection_id, target_id) DO UPDATE SET run_id = excluded.run_id, document = excluded.document, address = excluded.address,
			seq = excluded.seq`,
		d.ConnectionID, targetID(d.TargetID, d.RunID), d.RunID, d.Document, d.Address, e.Seq)
	return err
}
