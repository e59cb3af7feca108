package engine

import (
	"context"
	"database/sql"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/ledger"
)

// The engine's surface for its side-effect commands (package
// engine/command: artifact inventory and extraction, process capture,
// Evidence bundle files). A command decides its own effect under the
// connection's policy and records what it did through these methods; the
// engine never calls back into it, so imports point one way: tools →
// command → engine.

// OpenTarget is one open target's current run, as a command sees it:
// admitted by Admit or named by ActiveRun, it stays open until released.
type OpenTarget = openTarget

// ID is the target's handle ("tgt_…").
func (o *openTarget) ID() string { return o.targetID }

// Target is what was opened.
func (o *openTarget) Target() provider.Target { return o.target }

// RunID is the target's current analysis run.
func (o *openTarget) RunID() string { return o.runID }

// Admit holds the target ref names ("" = active) open for one command;
// release must be called when it ends (§15.1 errors when none is open or
// ref names no open target).
func (c *Connection) Admit(op, ref string) (o *OpenTarget, release func(), err error) {
	return c.admit(op, ref)
}

// ActiveRun is the active target's run, which a target-free derived answer
// is recorded under; nil when nothing is open.
func (c *Connection) ActiveRun() *OpenTarget {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.activeLocked(); h != nil {
		return h.open
	}
	return nil
}

// Publish records rec as Evidence of a command on the connection, under
// on's run (nil: none). extra, if not nil, builds events that commit with
// the evidence_recorded event, in the same transaction.
func (c *Connection) Publish(ctx context.Context, rec *Record, on *OpenTarget, extra func(evidenceID string) []ledger.NewEvent) (Published, error) {
	return c.publishWith(ctx, rec, on, "tool", extra)
}

// Append appends events to the connection's stream; inTx, if not nil, runs
// in the appending transaction first (a command storing the blobs its
// events name).
func (c *Connection) Append(ctx context.Context, evs []ledger.NewEvent, inTx func(*sql.Tx) error) error {
	_, err := c.eng.appendEvents(ctx, c.stream, -1, evs, inTx)
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

// LoadRecord reads a stored record body and re-verifies its id.
func (e *Engine) LoadRecord(ctx context.Context, digest string) (*Record, error) {
	return e.loadRecord(ctx, digest)
}

// SubjectOf is the Evidence subject of an opened target.
func SubjectOf(t provider.Target) *Subject { return subjectOf(t) }
