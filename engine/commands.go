package engine

import (
	"context"
	"database/sql"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/session"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/ledger"
)

// The engine's surface for its side-effect commands (package
// engine/command: artifact inventory and extraction, process capture,
// Evidence bundle files). A command decides its own effect under the
// connection's policy and records what it did through these methods; the
// engine never calls back into it, so imports point one way: tools →
// command → engine. A command admits its target with the session's Admit
// or ActiveRun (session.Conn, promoted by Connection).

// Publish records rec as Evidence of a command on the connection, under
// on's run (nil: none). extra, if not nil, builds events that commit with
// the evidence_recorded event, in the same transaction.
func (c *Connection) Publish(ctx context.Context, rec *evidence.Record, on *session.Target, extra func(evidenceID string) []ledger.NewEvent) (Published, error) {
	return c.publishWith(ctx, rec, on, "tool", extra)
}

// Append appends events to the connection's stream; inTx, if not nil, runs
// in the appending transaction first (a command storing the blobs its
// events name).
func (c *Connection) Append(ctx context.Context, evs []ledger.NewEvent, inTx func(*sql.Tx) error) error {
	_, err := c.eng.appendEvents(ctx, c.sc.Stream(), -1, evs, inTx)
	return err
}

// Event builds an event with a fresh id; TargetEvent one of a type that
// names its target (events.SchemaVersionTargets).
func (e *Engine) Event(typ string, data any) ledger.NewEvent { return e.event(typ, data) }

// TargetEvent is Event for the event types that name their target.
func (e *Engine) TargetEvent(typ string, data any) ledger.NewEvent { return e.targetEvent(typ, data) }

// Config is the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// EvidenceDigest finds a published record's digest by evidence id.
func (e *Engine) EvidenceDigest(ctx context.Context, id string) (digest string, found bool, err error) {
	return e.evidenceDigest(ctx, id)
}

// LoadRecord reads a stored record body for op and re-verifies its id: a
// body the ledger does not hold is evidence_integrity_mismatch (missing), a
// read the request's cancellation ended is cancelled.
func (e *Engine) LoadRecord(ctx context.Context, op, digest string) (*evidence.Record, error) {
	return e.loadRecord(ctx, op, digest)
}

// SubjectOf is the Evidence subject of an opened target.
func SubjectOf(t provider.Target) *evidence.Subject { return subjectOf(t) }
