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
package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/engine/events"
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

// Manager holds what the connections of one engine share: the ledger port,
// the provider registry, the policy evaluator, the live connections (a
// policy reload changes every connection's tools) and the count of
// abandoned provider calls.
type Manager struct {
	cfg Config

	reloadMu    sync.Mutex
	conns       connections
	revokedMu   sync.Mutex
	revokedSeen int64 // policy-stream seq up to which ledger revocations are applied

	// abandoned counts provider calls still running whose caller already
	// has its answer (cancelled or provider_timeout; requestQueue.run).
	abandoned atomic.Int64
}

// New builds a Manager.
func New(cfg Config) *Manager { return &Manager{cfg: cfg} }

// AbandonedCalls is the number of provider calls still running after their
// callers stopped waiting (cancelled, timed out): calls of a provider that
// does not observe its context. Each keeps its client's request slot until
// it returns; analysis_activity shows it on its target.
func (m *Manager) AbandonedCalls() int64 { return m.abandoned.Load() }

// warm lets every provider that can (provider.Warmer) and may be selected
// start on the file at path while it is hashed, and returns what abandons
// whatever was not taken over by the selected provider's Profile. A concrete
// selector leaves the other providers cold.
func (m *Manager) warm(path string, fi fs.FileInfo, selector provider.Selector) (abandon func()) {
	var abandons []func()
	for _, p := range m.cfg.Registry.Providers() {
		if selector != provider.Auto && provider.Selector(p.Identity().ID) != selector {
			continue
		}
		if w, ok := p.(provider.Warmer); ok {
			abandons = append(abandons, w.Warm(path, fi))
		}
	}
	return func() {
		for _, a := range abandons {
			a()
		}
	}
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

// event builds a NewEvent with a fresh id.
func (m *Manager) event(typ string, data any) ledger.NewEvent {
	return ledger.NewEvent{ID: m.cfg.NewID(), Type: typ, Data: data}
}

// targetEvent builds a NewEvent of a type that names its target
// (events.SchemaVersionTargets).
func (m *Manager) targetEvent(typ string, data any) ledger.NewEvent {
	ev := m.event(typ, data)
	ev.SchemaVersion = events.SchemaVersionTargets
	return ev
}

// Info describes a connection when it opens.
type Info struct {
	Transport       string // stdio | http | cli
	ProtocolVersion string
	Client          *events.Client
	Features        events.ClientFeatures
}

// Open appends connection_opened and returns the connection.
func (m *Manager) Open(ctx context.Context, info Info) (*Conn, error) {
	id := m.cfg.NewID().String()
	var pv *string
	if info.ProtocolVersion != "" {
		pv = &info.ProtocolVersion
	}
	data := events.ConnectionOpenedData{
		ConnectionID: id, Transport: info.Transport, ProtocolVersion: pv, Client: info.Client,
		ClientFeatures: info.Features,
		Server:         events.Server{Version: m.cfg.Version, PID: os.Getpid(), StartedAt: Timestamp(m.cfg.StartedAt)},
	}
	c := newConn(m, id, info)
	if _, err := m.cfg.Ledger.Append(ctx, c.stream, 0, []ledger.NewEvent{m.event(events.ConnectionOpened, data)}); err != nil {
		return nil, err
	}
	m.track(c)
	return c, nil
}
