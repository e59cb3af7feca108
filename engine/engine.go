// Package engine is REA's investigation engine: connections, targets, analysis
// runs, provider bindings and Evidence. Every state change it makes is an event
// appended to the ledger, folded into projections in the same transaction;
// answers about history are read back from those projections.
//
// The engine decides; it does not speak MCP. Tool handlers (package tools) and
// CLI commands (cmd/rea) decode input, call one engine method, and encode the
// result or its *fault.Error.
//
// Three places, with imports pointing one way (each uses only those
// before it; the compiler enforces it, and layout_test.go what it cannot:
// what the lower packages may import at all, and the order of the files
// inside this package and the session, each naming only what is declared
// in itself or before it):
//
//  1. A connection and its targets: package engine/session (handles, the
//     active target, open, switch and close, admission, each target's FIFO
//     request queue, lineage and the health overlay, the connection's
//     grants and the revocation of a project grant). It appends through
//     session.Ledger, which this package implements (engine.go: appends
//     fold the projections and type their failures), and knows nothing of
//     operations: which operations a binding offers is operationsOf
//     (engine.go), given to it.
//  2. Running an operation on a target and recording its Evidence, this
//     package, in file order: engine.go (the engine, its appends, ids and
//     policy evaluator, the operations it answers itself), connection.go
//     (Connection: the session's connection with the operations below),
//     candidates.go, operate.go (admission of a bound target → provider
//     call in its queue → publication), annotations.go (the operations the
//     engine answers itself), invoke.go (Operate and Compose: the engine's
//     own answer or the provider's, published), aggregates.go (navigation
//     and address context), linking.go (answers read across the
//     connection's targets), compare.go (compare_binaries: two targets'
//     procedures matched, its checkpoints and result in the ledger),
//     bundle.go (get_evidence_bundle from the projections), commands.go
//     (the narrow surface these give the side-effect commands). The
//     Evidence records, their ids and the bundle's bytes are data of
//     package engine/evidence (evidence.go names them here).
//  3. The side-effect commands, in package engine/command (artifact
//     inventory and extraction, process capture, Evidence bundle files):
//     they import this package; it never imports them.
package engine

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// Config wires an Engine.
type Config struct {
	Ledger   *ledger.Ledger
	Registry *provider.Registry
	// Version is the REA version; internal producers report it.
	Version string
	// EnvironmentSelector is the parsed REA_ANALYSIS_PROVIDER ("" when unset).
	EnvironmentSelector provider.Selector
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Policy decides local side effects; nil means no ceilings (§9).
	Policy *policy.Evaluator
	// IntegrityContinueEnabled is REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED=true (§10.1).
	IntegrityContinueEnabled bool
	// ExtractFreeSpace reports the free bytes of an extraction's output
	// filesystem (artifact.ExtractOptions.FreeSpace); nil is fstatfs. Tests
	// that cannot mount a small filesystem set it.
	ExtractFreeSpace func(fd int) (int64, error)
}

// Engine is safe for concurrent use by many connections.
type Engine struct {
	cfg         Config
	projections []ledger.Projection
	startedAt   time.Time

	idMu    sync.Mutex
	entropy *ulid.MonotonicEntropy

	sessions *session.Manager

	lookupOnce sync.Once
	lookup     *projections.Lookups
	lookupErr  error
}

// AbandonedCalls is the number of provider calls still running after their
// callers stopped waiting (cancelled, timed out): calls of a provider that
// does not observe its context. Each keeps its client's request slot until
// it returns; analysis_activity shows it on its target.
func (e *Engine) AbandonedCalls() int64 { return e.sessions.AbandonedCalls() }

// evidenceDigest finds a published record's digest by evidence id.
func (e *Engine) evidenceDigest(ctx context.Context, id string) (string, bool, error) {
	lookup, err := e.lookups(ctx)
	if err != nil {
		return "", false, err
	}
	return lookup.Digest(ctx, id)
}

func (e *Engine) lookups(ctx context.Context) (*projections.Lookups, error) {
	e.lookupOnce.Do(func() {
		e.lookup, e.lookupErr = projections.NewLookups(context.WithoutCancel(ctx), e.cfg.Ledger)
	})
	return e.lookup, e.lookupErr
}

// New builds an engine over an open ledger.
func New(cfg Config) *Engine {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	e := &Engine{
		cfg:         cfg,
		projections: projections.All(),
		startedAt:   cfg.Now().UTC(),
		entropy:     ulid.Monotonic(rand.Reader, 0),
	}
	if e.cfg.Policy == nil {
		e.cfg.Policy = noCeilings(cfg.Now, func() string { return e.NewULID().String() })
	}
	e.sessions = session.New(session.Config{Ledger: sessionLedger{e}, Registry: cfg.Registry,
		EnvironmentSelector: cfg.EnvironmentSelector, Policy: e.cfg.Policy, Version: cfg.Version, StartedAt: e.startedAt,
		Now: cfg.Now, NewID: e.NewULID, Operations: operationsOf})
	return e
}

// Permission policy (CONTRACTS.md §9): the connections' grants are the
// session's (session.Conn.Authorize). An engine configured without an
// evaluator gets one with no ceilings: every side effect is then outside
// the ceiling (policy_disabled in tool availability), decided and recorded
// like any other denial.

// Policy is the engine's evaluator.
func (e *Engine) Policy() *policy.Evaluator { return e.cfg.Policy }

func noCeilings(now func() time.Time, newID func() string) *policy.Evaluator {
	cfg, err := policy.LoadConfig(map[string]string{})
	if err != nil {
		panic(fmt.Sprintf("engine: an empty policy environment is invalid: %v", err)) // a build defect
	}
	return policy.New(cfg, nil, policy.Options{Now: now, NewID: newID})
}

// Projections are the read models this engine folds.
func (e *Engine) Projections() []ledger.Projection { return e.projections }

// Registry is the provider registry.
func (e *Engine) Registry() *provider.Registry { return e.cfg.Registry }

// Ledger is the engine's ledger.
func (e *Engine) Ledger() *ledger.Ledger { return e.cfg.Ledger }

// Version is the REA version.
func (e *Engine) Version() string { return e.cfg.Version }

// StartedAt is when the engine started, UTC.
func (e *Engine) StartedAt() time.Time { return e.startedAt }

// EnvironmentSelector is the REA_ANALYSIS_PROVIDER preference.
func (e *Engine) EnvironmentSelector() provider.Selector { return e.cfg.EnvironmentSelector }

// NewULID returns a monotonic ULID (unique within this process, ordered).
func (e *Engine) NewULID() ulid.ULID {
	e.idMu.Lock()
	defer e.idMu.Unlock()
	return ulid.MustNew(ulid.Timestamp(e.cfg.Now()), e.entropy)
}

// Timestamp renders t per CONTRACTS.md §1.1: RFC 3339 UTC, milliseconds, Z.
func Timestamp(t time.Time) string { return session.Timestamp(t) }

// appendEvents appends events of one stream and folds them into the
// projections in the same transaction. before runs inside that transaction
// first (e.g. to store a blob). Optimistic conflicts are retried by the
// caller-supplied expected version only when expected >= 0.
func (e *Engine) appendEvents(ctx context.Context, stream string, expected int64, evs []ledger.NewEvent, before func(*sql.Tx) error) ([]ledger.Event, error) {
	stored, err := e.cfg.Ledger.Append(ctx, stream, expected, evs, func(tx *sql.Tx, stored []ledger.Event) error {
		if before != nil {
			if err := before(tx); err != nil {
				return err
			}
		}
		return projections.Apply(tx, e.projections, stored)
	})
	if err != nil {
		return nil, e.appendFault(ctx, err)
	}
	return stored, nil
}

// appendFault types a failed append.
func (e *Engine) appendFault(ctx context.Context, err error) error {
	var conflict *ledger.ConflictError
	if errors.As(err, &conflict) {
		return fault.New(fault.RevisionConflict, "The ledger stream changed concurrently.", "Call again.",
			map[string]any{"stream": conflict.Stream, "expected_version": conflict.Expected}).WithCause(err)
	}
	if ctx.Err() != nil {
		return fault.CancelledError("ledger_append").WithCause(err)
	}
	var unavailable *ledger.UnavailableError
	if errors.As(err, &unavailable) {
		// The ledger's disk is full, read-only or failing, or its server
		// stayed unreachable: nothing was recorded, so no answer may be
		// given (CONTRACTS.md §0.3); a later call may succeed.
		return fault.LedgerUnavailableError("ledger_append", unavailable.Reason, unavailable.Dir).WithCause(err)
	}
	if errors.Is(err, ledger.ErrRetry) {
		// A PostgreSQL ledger lost its connection (or the server restarted)
		// through every retry; nothing was half-stored (CONTRACTS.md §17).
		return fault.New(fault.RevisionConflict, "The ledger could not commit the change; nothing was recorded.", "Call again.",
			map[string]any{"reason": "not_committed"}).WithCause(err)
	}
	return fault.Internal("ledger_append", err)
}

// appendMulti is appendEvents for several streams in one transaction.
func (e *Engine) appendMulti(ctx context.Context, appends []ledger.StreamAppend) ([]ledger.Event, error) {
	stored, err := e.cfg.Ledger.AppendMulti(ctx, appends, func(tx *sql.Tx, stored []ledger.Event) error {
		return projections.Apply(tx, e.projections, stored)
	})
	if err != nil {
		return nil, e.appendFault(ctx, err)
	}
	return stored, nil
}

// event builds a NewEvent with a fresh id.
func (e *Engine) event(typ string, data any) ledger.NewEvent {
	return ledger.NewEvent{ID: e.NewULID(), Type: typ, Data: data}
}

// targetEvent builds a NewEvent of a type that names its target
// (events.SchemaVersionTargets).
func (e *Engine) targetEvent(typ string, data any) ledger.NewEvent {
	ev := e.event(typ, data)
	ev.SchemaVersion = events.SchemaVersionTargets
	return ev
}

// sessionLedger is the engine's side of session.Ledger: its appends,
// which fold the projections and type their failures.
type sessionLedger struct{ e *Engine }

func (l sessionLedger) Append(ctx context.Context, stream string, expected int64, evs []ledger.NewEvent) ([]ledger.Event, error) {
	return l.e.appendEvents(ctx, stream, expected, evs, nil)
}

func (l sessionLedger) AppendMulti(ctx context.Context, appends []ledger.StreamAppend) ([]ledger.Event, error) {
	return l.e.appendMulti(ctx, appends)
}

func (l sessionLedger) ReadDB() *sql.DB { return l.e.cfg.Ledger.ReadDB() }

// engineOperations are answered by the engine for every bound provider.
var engineOperations = map[string]provider.Effects{
	"current_document":   {Idempotent: true},
	"current_address":    {Idempotent: true},
	"goto_address":       {MutatesSession: true, Idempotent: true},
	"comment":            {Idempotent: true},
	"inline_comment":     {Idempotent: true},
	"list_bookmarks":     {Idempotent: true},
	"set_comment":        {MutatesTarget: true, Idempotent: true},
	"set_inline_comment": {MutatesTarget: true, Idempotent: true},
	"set_bookmark":       {MutatesTarget: true, Idempotent: true},
	"unset_bookmark":     {MutatesTarget: true, Idempotent: true},
	"set_address_name":   {MutatesTarget: true, Idempotent: true},
}

// operationsOf is a binding's operations: the provider's declarations plus
// the engine's own, sorted by operation.
func operationsOf(p provider.Provider) []provider.Capability {
	caps := slices.Clone(p.Capabilities())
	for op, eff := range engineOperations {
		if slices.ContainsFunc(caps, func(c provider.Capability) bool { return c.Operation == op }) {
			continue
		}
		caps = append(caps, provider.Capability{Operation: op, InputContractVersion: 1, OutputContractVersion: 1,
			Pagination: "none", Exhaustive: true, Effects: eff, Limitations: []string{}})
	}
	sort.Slice(caps, func(i, j int) bool { return caps[i].Operation < caps[j].Operation })
	return caps
}
