package session_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// The session is tested at its own level: a Manager over a real ledger,
// through the port the engine implements (appends that fold every
// projection in the same transaction), with a provider declared here.

// portLedger is session.Ledger over a ledger, as the engine's is, without
// the engine's typing of append failures (no test here provokes one).
type portLedger struct{ led *ledger.Ledger }

func (p portLedger) Append(ctx context.Context, stream string, expected int64, evs []ledger.NewEvent) ([]ledger.Event, error) {
	return p.led.Append(ctx, stream, expected, evs, func(tx *sql.Tx, stored []ledger.Event) error {
		return projections.Apply(tx, projections.All(), stored)
	})
}

func (p portLedger) AppendMulti(ctx context.Context, appends []ledger.StreamAppend) ([]ledger.Event, error) {
	return p.led.AppendMulti(ctx, appends, func(tx *sql.Tx, stored []ledger.Event) error {
		return projections.Apply(tx, projections.All(), stored)
	})
}

func (p portLedger) ReadDB() *sql.DB { return p.led.ReadDB() }

// standin declares one operation, "probe", whose calls wait until the
// test lets them return (gate). It stands for any provider: the session
// never asks what an operation does.
type standin struct{ gate chan struct{} }

func (standin) Identity() provider.Identity {
	v := "1"
	return provider.Identity{ID: "standin", Name: "Stand-in provider", Version: &v}
}
func (standin) Availability(context.Context) provider.Availability { return provider.Available() }
func (standin) Support(provider.Target) provider.TargetSupport     { return provider.Supported() }
func (standin) Capabilities() []provider.Capability {
	return []provider.Capability{{Operation: "probe", InputContractVersion: 1, OutputContractVersion: 1,
		Pagination: "none", Exhaustive: true, Effects: provider.Effects{Idempotent: true}, Limitations: []string{}}}
}
func (p standin) Profile(context.Context, provider.Target) (provider.Profile, error) {
	return provider.NewProfile(p.Identity(), 1, nil)
}
func (p standin) Start(context.Context, provider.Target, provider.Profile, provider.Run) (provider.Client, error) {
	return standinClient(p), nil
}

type standinClient standin

func (c standinClient) Do(ctx context.Context, op string, _ provider.Params, _ progress.Reporter) (provider.Result, error) {
	<-c.gate
	return provider.Result{Normalized: op}, nil
}
func (standinClient) Lineage(context.Context) (lineage.Observation, bool) {
	return lineage.Observation{}, false
}
func (standinClient) Close(context.Context) (provider.Cleanup, error) {
	return provider.Cleanup{Complete: true}, nil
}

// withOwn is a Config.Operations: the provider's declarations plus one
// operation "the engine answers itself".
func withOwn(p provider.Provider) []provider.Capability {
	return append(slices.Clone(p.Capabilities()), provider.Capability{Operation: "own", InputContractVersion: 1,
		OutputContractVersion: 1, Pagination: "none", Exhaustive: true, Limitations: []string{}})
}

func newManager(t *testing.T, ev *policy.Evaluator, p provider.Provider) (*session.Manager, *ledger.Ledger) {
	t.Helper()
	led, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	if ev == nil {
		cfg, err := policy.LoadConfig(map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		ev = policy.New(cfg, nil, policy.Options{})
	}
	var mu sync.Mutex
	entropy := ulid.Monotonic(rand.Reader, 0)
	return session.New(session.Config{Ledger: portLedger{led}, Registry: provider.NewRegistry(p), Policy: ev,
		Version: "test", StartedAt: time.Now(), Now: time.Now, Operations: withOwn,
		NewID: func() ulid.ULID {
			mu.Lock()
			defer mu.Unlock()
			return ulid.MustNew(ulid.Now(), entropy)
		}}), led
}

func self(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// streamTypes are the event types of one stream, in order.
func streamTypes(t *testing.T, led *ledger.Ledger, stream string) []string {
	t.Helper()
	var out []string
	if err := led.Scan(context.Background(), 1, func(e ledger.Event) error {
		if e.Stream == stream {
			out = append(out, e.Type)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func code(err error) fault.Code {
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return ""
}

// A target is opened (run allocated, provider bound, operations those of
// Config.Operations), admitted by its handle or as the active target,
// re-opened on the same handle and run, closed, and then no longer
// admitted; each step is on the connection's stream, in order.
func TestOpenAdmitReopenClose(t *testing.T) {
	ctx := context.Background()
	gate := make(chan struct{})
	close(gate)
	m, led := newManager(t, nil, standin{gate})
	conn, err := m.Open(ctx, session.Info{Transport: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := conn.OpenBinary(ctx, self(t), "standin", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(opened.TargetID, "tgt_") || opened.Binding == nil || opened.Binding.Provider.ID != "standin" || len(opened.SHA256) != 64 {
		t.Fatalf("opened %+v", opened)
	}
	st := conn.State()
	var ops []string
	for _, c := range st.Capabilities {
		if c.Available {
			ops = append(ops, c.Operation)
		}
	}
	if !st.Open || !st.Active || st.TargetID != opened.TargetID || st.RunID != opened.RunID || !slices.Equal(ops, []string{"probe", "own"}) {
		t.Fatalf("state %+v (available %v)", st, ops)
	}

	for _, ref := range []string{"", opened.TargetID} {
		o, release, err := conn.Admit("probe", ref)
		if err != nil {
			t.Fatal(err)
		}
		if o.ID() != opened.TargetID || o.RunID() != opened.RunID || o.Client() == nil || o.Binding().Impl().Identity().ID != "standin" {
			t.Fatalf("admitted %s run %s", o.ID(), o.RunID())
		}
		release()
	}
	if _, _, err := conn.Admit("probe", "tgt_unknown"); code(err) != fault.InvalidRequest {
		t.Fatalf("unknown handle admitted: %v", err)
	}

	again, err := conn.OpenBinary(ctx, self(t), "", nil)
	if err != nil || again.TargetID != opened.TargetID || again.RunID != opened.RunID {
		t.Fatalf("re-open gave %+v, %v", again, err)
	}

	closed, err := conn.CloseBinary(ctx, "")
	if err != nil || !closed.Closed || *closed.RunID != opened.RunID {
		t.Fatalf("close %+v, %v", closed, err)
	}
	if _, _, err := conn.Admit("probe", ""); code(err) != fault.TargetUnavailable {
		t.Fatalf("admitted with nothing open: %v", err)
	}
	if _, _, err := conn.Admit("probe", opened.TargetID); code(err) != fault.InvalidRequest {
		t.Fatalf("closed handle admitted: %v", err)
	}
	if err := conn.Close(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	want := []string{events.ConnectionOpened, events.AnalysisRunAllocated, events.TargetOpened, events.ProviderBound, events.TargetClosed, events.ConnectionClosed}
	if got := streamTypes(t, led, conn.Stream()); !slices.Equal(got, want) {
		t.Fatalf("connection stream %v, want %v", got, want)
	}
}

// A target's client runs one request at a time: a second call waits in the
// queue, analysis_activity (State.Activity) shows both, and the second runs
// once the first returns.
func TestCallsOnATargetQueue(t *testing.T) {
	ctx := context.Background()
	gate := make(chan struct{})
	m, _ := newManager(t, nil, standin{gate})
	conn, err := m.Open(ctx, session.Info{Transport: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx, "test")
	if _, err := conn.OpenBinary(ctx, self(t), "standin", nil); err != nil {
		t.Fatal(err)
	}
	o, release, err := conn.Admit("probe", "")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	answered := make(chan error, 2)
	for range 2 {
		go func() {
			answered <- o.Run(ctx, "probe", 0, func(ctx context.Context) { o.Client().Do(ctx, "probe", nil, nil) })
		}()
	}
	for { // until one runs and the other waits
		a := conn.State().Activity
		if a.Active != nil && a.QueuedRequests == 1 {
			if a.Active.Operation != "probe" || a.Active.CallerState != "waiting" {
				t.Fatalf("active %+v", a.Active)
			}
			break
		}
		runtime.Gosched()
	}
	close(gate)
	for range 2 {
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
	}
	if a := conn.State().Activity; a.Active != nil || a.QueuedRequests != 0 {
		t.Fatalf("after both returned: %+v", a)
	}
}

// A connection's grants are its own: a session grant added to one
// connection allows its request, not another connection's; revoked, it
// allows nothing; each decision and grant change is on the ledger.
func TestGrantsAreTheConnectionsOwn(t *testing.T) {
	ctx := context.Background()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, bin := filepath.Join(base, "work"), filepath.Join(base, "bin")
	for _, d := range []string{work, bin} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	tool := filepath.Join(bin, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	js := func(xs ...string) string { b, _ := json.Marshal(xs); return string(b) }
	cfg, err := policy.LoadConfig(map[string]string{policy.EnvProcessCaptureEnabled: "true",
		policy.EnvProcessWorkingRoots: js(work), policy.EnvProcessExecutableRoots: js(bin)})
	if err != nil {
		t.Fatal(err)
	}
	m, led := newManager(t, policy.New(cfg, nil, policy.Options{}), standin{})
	one, err := m.Open(ctx, session.Info{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := m.Open(ctx, session.Info{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	const op = "capture_process_scenario"
	req := policy.Request{Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: []string{work},
		Executables: []string{tool}, Network: policy.NetworkNone}, OperationIdentity: op + ":" + tool, Access: policy.AccessRead}

	if d, err := one.Authorize(ctx, op, req); err == nil || d.Allowed {
		t.Fatalf("allowed without a grant: %+v", d)
	}
	g := policy.Grant{Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: []string{work},
		Executables: []string{bin}, EnvironmentNames: []string{}, Network: policy.NetworkNone}, GrantID: "g1", Lifetime: policy.LifetimeSession}
	if err := one.AddConnectionGrant(ctx, g); err != nil {
		t.Fatal(err)
	}
	if d, err := one.Authorize(ctx, op, req); err != nil || !d.Allowed || d.Grant.GrantID != "g1" {
		t.Fatalf("with its grant: %+v, %v", d, err)
	}
	if d, err := other.Authorize(ctx, op, req); err == nil || d.Allowed {
		t.Fatalf("another connection's grant allowed: %+v", d)
	}
	if err := one.RevokeConnectionGrant(ctx, "g1", policy.SourceElicitationRollback); err != nil {
		t.Fatal(err)
	}
	if d, err := one.Authorize(ctx, op, req); err == nil || d.Allowed {
		t.Fatalf("allowed by a revoked grant: %+v", d)
	}
	want := []string{events.ConnectionOpened, events.PermissionDecided, events.GrantAdded, events.PermissionDecided, events.GrantRevoked, events.PermissionDecided}
	if got := streamTypes(t, led, one.Stream()); !slices.Equal(got, want) {
		t.Fatalf("connection stream %v, want %v", got, want)
	}
}
