package engine

import (
	"context"
	"sync"

	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/projections"
)

// Connection is one client connection as tools/ and cmd/ hold it: the
// session's connection (package engine/session: its targets, admission,
// queues, health and grants) with the operations this package runs on
// its targets.
type Connection struct {
	*session.Conn
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
	return &Connection{Conn: sc, eng: e}, nil
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
