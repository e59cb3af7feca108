package engine

import (
	"context"
	"sync"

	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/projections"
)

// Connection is one client connection as tools/ and cmd/ hold it: the
// session's connection (package engine/session: its targets, admission,
// queues, health and grants) with the operations this package runs on
// its targets.
type Connection struct {
	// sc is named, not embedded: its methods for the operations below
	// (the stream, admission of other targets, health, selection failures)
	// are not for tools/ and cmd/, which reach the session through the
	// façade methods below.
	sc  *session.Conn
	eng *Engine

	// mu guards the operations' own state of each run below, keyed by run
	// id (a switch of providers starts afresh, as any new run does; a key
	// is a few bytes, and holds nothing of a closed run).
	mu sync.Mutex
	// cursors are the navigation cursors; absent until first read (then
	// the entry point).
	cursors map[string]string
	// linkNames are the clients' Linker.LibraryName once asked.
	linkNames map[string]string
}

// OpenConnection appends connection_opened and returns the connection.
func (e *Engine) OpenConnection(ctx context.Context, info session.Info) (*Connection, error) {
	sc, err := e.sessions.Open(ctx, info)
	if err != nil {
		return nil, err
	}
	return &Connection{sc: sc, eng: e}, nil
}

// Engine is the connection's engine.
func (c *Connection) Engine() *Engine { return c.eng }

// ReloadPolicy is session.Manager.ReloadPolicy.
func (e *Engine) ReloadPolicy(ctx context.Context, trigger string) error {
	return e.sessions.ReloadPolicy(ctx, trigger)
}

// RevokeProjectGrant is session.Manager.RevokeProjectGrant: `rea policy
// revoke` (CONTRACTS.md §9.7).
func (e *Engine) RevokeProjectGrant(ctx context.Context, cfg *policy.Config, grantID string, shown *policy.Grant) (projections.LedgerPosition, error) {
	return e.sessions.RevokeProjectGrant(ctx, cfg, grantID, shown)
}

// The session's methods that tools/ and cmd/ use, each session.Conn's own
// (documented there); the rest of session.Conn serves the operations of
// this package only.

// ID is session.Conn.ID: the connection id.
func (c *Connection) ID() string { return c.sc.ID() }

// Close is session.Conn.Close.
func (c *Connection) Close(ctx context.Context, reason string) error { return c.sc.Close(ctx, reason) }

// OpenBinary is session.Conn.OpenBinary.
func (c *Connection) OpenBinary(ctx context.Context, path string, selector provider.Selector, rep progress.Reporter) (session.OpenResult, error) {
	return c.sc.OpenBinary(ctx, path, selector, rep)
}

// CloseBinary is session.Conn.CloseBinary.
func (c *Connection) CloseBinary(ctx context.Context, ref string) (session.CloseResult, error) {
	return c.sc.CloseBinary(ctx, ref)
}

// ActiveRun is session.Conn.ActiveRun.
func (c *Connection) ActiveRun() *session.Target { return c.sc.ActiveRun() }

// Admit is session.Conn.Admit.
func (c *Connection) Admit(op, ref string) (*session.Target, func(), error) {
	return c.sc.Admit(op, ref)
}

// State is session.Conn.State.
func (c *Connection) State() session.State { return c.sc.State() }

// StateOf is session.Conn.StateOf.
func (c *Connection) StateOf(op, ref string) (session.State, error) { return c.sc.StateOf(op, ref) }

// States is session.Conn.States.
func (c *Connection) States() []session.State { return c.sc.States() }

// Authorize is session.Conn.Authorize.
func (c *Connection) Authorize(ctx context.Context, op string, req policy.Request) (policy.Decision, error) {
	return c.sc.Authorize(ctx, op, req)
}

// AuthorizeAsking is session.Conn.AuthorizeAsking.
func (c *Connection) AuthorizeAsking(ctx context.Context, op string, req policy.Request, canAsk bool) (policy.Decision, error) {
	return c.sc.AuthorizeAsking(ctx, op, req, canAsk)
}

// AddConnectionGrant is session.Conn.AddConnectionGrant.
func (c *Connection) AddConnectionGrant(ctx context.Context, g policy.Grant) error {
	return c.sc.AddConnectionGrant(ctx, g)
}

// RevokeConnectionGrant is session.Conn.RevokeConnectionGrant.
func (c *Connection) RevokeConnectionGrant(ctx context.Context, grantID, source string) error {
	return c.sc.RevokeConnectionGrant(ctx, grantID, source)
}

// ObserveLineage is session.Conn.ObserveLineage.
func (c *Connection) ObserveLineage(ctx context.Context) error { return c.sc.ObserveLineage(ctx) }

// LineageSnapshots is session.Conn.LineageSnapshots.
func (c *Connection) LineageSnapshots(ctx context.Context, runID string) ([]projections.LineageSnapshot, error) {
	return c.sc.LineageSnapshots(ctx, runID)
}

// OnToolsChanged sets session.Conn.OnToolsChanged (called after a committed
// change of targets, bindings or provider health); set it before the
// connection serves calls.
func (c *Connection) OnToolsChanged(f func()) { c.sc.OnToolsChanged = f }
