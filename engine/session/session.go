// Package session is the engine's place 1: a client connection and its
// open targets. It holds each target's handle, run, binding and provider
// client, admits calls on a target (the per-target admission lock and the
// FIFO request queue of each client), keeps the health overlay and records
// process lineage, and decides the connection's grants under the policy
// evaluator. Every change it makes is appended through Ledger, a port the
// engine implements (appends fold the projections in the same transaction
// and fail with typed faults).
//
// It knows nothing of operations: which operations a binding offers is
// Config.Operations, the engine's answer; what an operation does, and the
// Evidence it records, is the engine root's (place 2), which imports this
// package and is never imported by it.
//
// Files, each naming only what it or a file before it declares: session.go
// (the port and the configuration), queue.go (a client's FIFO request
// queue), conn.go (the manager, a connection and its targets' state,
// admission), health.go (lineage and the health overlay), open.go (the
// transitions: open, switch, close), grants.go (the permission policy's
// decisions and grants), target.go (what an operation uses of an
// admitted target).
package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/ledger"
)

// Ledger is what a session needs of the ledger. The engine implements it.
type Ledger interface {
	// Append appends evs to stream at its expected version (-1: any) and
	// folds them into the projections in the same transaction. A failure
	// is a typed fault (revision_conflict, ledger_unavailable, cancelled)
	// wrapping the ledger's error.
	Append(ctx context.Context, stream string, expected int64, evs []ledger.NewEvent) ([]ledger.Event, error)
	// AppendMulti is Append for several streams in one transaction.
	AppendMulti(ctx context.Context, appends []ledger.StreamAppend) ([]ledger.Event, error)
	// ReadDB is the projections' read pool.
	ReadDB() *sql.DB
}

// Config wires a Manager.
type Config struct {
	Ledger   Ledger
	Registry *provider.Registry
	// EnvironmentSelector is the parsed REA_ANALYSIS_PROVIDER ("" when unset).
	EnvironmentSelector provider.Selector
	// Policy decides local side effects; it must not be nil.
	Policy *policy.Evaluator
	// Version is the REA version and StartedAt when the server started
	// (connection_opened names both).
	Version   string
	StartedAt time.Time
	// Now is the clock.
	Now func() time.Time
	// NewID returns a fresh, monotonic event id.
	NewID func() ulid.ULID
	// Operations are the operations a binding of p offers: its
	// declarations and whatever the engine answers for every provider.
	Operations func(p provider.Provider) []provider.Capability
}

// Timestamp renders t per CONTRACTS.md §1.1: RFC 3339 UTC, milliseconds, Z.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// newRunID is a UUID v4 from crypto/rand.
func newRunID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("engine: crypto/rand: %v", err)) // the OS entropy source failing is not recoverable
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
