package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// revokeFixture is a real layout for project-grant revocation: a working
// root with an executable, a project root and an owner-only store
// directory, the configuration that makes them ceilings, and the store
// holding two capture grants.
type revokeFixture struct {
	work, tool, store string
	cfg               *policy.Config
	grants            []policy.Grant
}

func newRevokeFixture(t *testing.T) *revokeFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &revokeFixture{work: filepath.Join(base, "work"), tool: filepath.Join(base, "bin", "tool"),
		store: filepath.Join(base, "st", "store.json")}
	for _, d := range []string{f.work, filepath.Dir(f.tool), filepath.Join(base, "proj"), filepath.Dir(f.store)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.tool, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	js := func(xs ...string) string { b, _ := json.Marshal(xs); return string(b) }
	f.cfg, err = policy.LoadConfig(map[string]string{
		policy.EnvProcessCaptureEnabled:  "true",
		policy.EnvProcessWorkingRoots:    js(f.work),
		policy.EnvProcessExecutableRoots: js(filepath.Dir(f.tool)),
		policy.EnvProjectRoot:            filepath.Join(base, "proj"),
		policy.EnvProjectStore:           f.store,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"proj-a", "proj-b"} {
		f.grants = append(f.grants, policy.Grant{Scope: policy.Scope{Capability: policy.ProcessCapture,
			Roots: []string{f.work}, Executables: []string{filepath.Dir(f.tool)}, EnvironmentNames: []string{},
			Network: policy.NetworkNone}, GrantID: id, Lifetime: policy.LifetimeProject})
	}
	if err := policy.WriteStore(context.Background(), *f.cfg.Store, f.cfg.Ceilings, f.grants); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *revokeFixture) storeBytes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(f.store)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (f *revokeFixture) captureRequest() policy.Request {
	return policy.Request{Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: []string{f.work},
		Executables: []string{f.tool}, Network: policy.NetworkNone},
		OperationIdentity: "capture_process_scenario:" + f.tool, Access: policy.AccessRead}
}

func openLedger(t *testing.T, path string) *ledger.Ledger {
	t.Helper()
	led, err := ledger.Open(context.Background(), path, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	return led
}

// policyStream lists the policy stream as type[:grant_id[:source]].
func policyStream(t *testing.T, led *ledger.Ledger) (projections.PolicyStream, []string) {
	t.Helper()
	ps, err := projections.ReadPolicyStream(context.Background(), led.ReadDB(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ps.Events {
		switch {
		case e.Added != nil:
			out = append(out, e.Type+":"+e.Added.Grant.GrantID)
		case e.Revoked != nil:
			out = append(out, e.Type+":"+e.Revoked.GrantID+":"+e.Revoked.Source)
		default:
			out = append(out, e.Type)
		}
	}
	return ps, out
}

// TestRevokeProjectGrant: the revocation records the startup events, then
// removes the grant from the store and records grant_revoked (source cli)
// at the position it returns; a live engine sharing the ledger denies its
// next request the revoked grant allowed. Refusals (no store, a grant the
// store does not hold, a store changed since the grant was shown) leave the
// store as it was.
func TestRevokeProjectGrant(t *testing.T) {
	ctx := context.Background()
	f := newRevokeFixture(t)
	led := openLedger(t, filepath.Join(t.TempDir(), "ledger.db"))

	// A live process holding the store: its capture is allowed by proj-a.
	live := engine.New(engine.Config{Ledger: led, Policy: policy.New(f.cfg, nil, policy.Options{})})
	if err := live.ReloadPolicy(ctx, policy.TriggerStartup); err != nil {
		t.Fatal(err)
	}
	conn, err := live.OpenConnection(ctx, session.Info{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := conn.Authorize(ctx, "capture_process_scenario", f.captureRequest()); err != nil || d.Grant.GrantID != "proj-a" {
		t.Fatalf("before the revocation: %v (grant %v)", err, d.Grant)
	}

	eng := engine.New(engine.Config{Ledger: led})
	_, before := policyStream(t, led)
	shown := f.grants[0]
	at, err := eng.RevokeProjectGrant(ctx, f.cfg, "proj-a", &shown)
	if err != nil {
		t.Fatal(err)
	}
	ps, types := policyStream(t, led)
	if want := append(slices.Clone(before), "policy_reloaded", "grant_revoked:proj-a:cli"); !slices.Equal(types, want) {
		t.Fatalf("policy stream = %v, want %v", types, want)
	}
	if at != ps.Head {
		t.Fatalf("returned position %v, ledger head %v", at, ps.Head)
	}
	snap, err := policy.ReadStore(*f.cfg.Store, f.cfg.Ceilings)
	if err != nil || len(snap.Grants) != 1 || snap.Grants[0].GrantID != "proj-b" {
		t.Fatalf("store after the revocation: %v, %v", snap.Grants, err)
	}
	// proj-b covers the same request: revoke it too, and the live
	// connection is denied without a reload.
	if _, err := eng.RevokeProjectGrant(ctx, f.cfg, "proj-b", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Authorize(ctx, "capture_process_scenario", f.captureRequest()); !fault.Is(err, fault.PermissionRequired) {
		t.Fatalf("after the revocations: %v, want permission_required", err)
	}

	// Refusals.
	if err := policy.WriteStore(ctx, *f.cfg.Store, f.cfg.Ceilings, f.grants); err != nil {
		t.Fatal(err)
	}
	orig := f.storeBytes(t)
	if _, err := eng.RevokeProjectGrant(ctx, f.cfg, "absent", nil); !errors.Is(err, policy.ErrGrantNotFound) {
		t.Fatalf("absent grant: %v, want ErrGrantNotFound", err)
	}
	changed := f.grants[1]
	changed.Network = policy.NetworkLoopback
	if _, err := eng.RevokeProjectGrant(ctx, f.cfg, "proj-b", &changed); !fault.Is(err, fault.RevisionConflict) {
		t.Fatalf("a grant other than the one shown: %v, want revision_conflict", err)
	}
	noStore := *f.cfg
	noStore.Store = nil
	_, types = policyStream(t, led)
	if _, err := eng.RevokeProjectGrant(ctx, &noStore, "proj-b", nil); !errors.Is(err, policy.ErrStoreNotConfigured) {
		t.Fatalf("no store: %v, want ErrStoreNotConfigured", err)
	}
	if _, after := policyStream(t, led); !slices.Equal(after, types) {
		t.Fatalf("a revocation without a store appended %v", after[len(types):])
	}
	if !slices.Equal(f.storeBytes(t), orig) {
		t.Fatal("a refused revocation changed the store")
	}
}

// TestRevokeProjectGrantLedgerFull: when the ledger's disk is full the
// revocation fails with ledger_unavailable (disk_full, naming the ledger's
// directory) through the engine's append path, before the store is
// touched: a grant is never removed without its removal being recorded.
func TestRevokeProjectGrantLedgerFull(t *testing.T) {
	ctx := context.Background()
	f := newRevokeFixture(t)
	dir := testkit.SmallFilesystem(t, 4<<20)
	led, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	eng := engine.New(engine.Config{Ledger: led})
	orig := f.storeBytes(t)
	testkit.FillFilesystem(t, dir)

	// Should the ledger's WAL still have room for a whole revocation, it
	// succeeds, recorded; the grant is put back and the next attempt made,
	// until the disk refuses one (in practice the first).
	var fe *fault.Error
	for range 200 {
		_, err = eng.RevokeProjectGrant(ctx, f.cfg, "proj-a", nil)
		if err != nil {
			break
		}
		if err := policy.WriteStore(ctx, *f.cfg.Store, f.cfg.Ceilings, f.grants); err != nil {
			t.Fatal(err)
		}
		orig = f.storeBytes(t)
	}
	if !errors.As(err, &fe) || fe.Code != fault.LedgerUnavailable || !fe.Retryable ||
		fe.Details["reason"] != fault.LedgerDiskFull || fe.Details["path"] != dir {
		t.Fatalf("revocation on a full ledger disk: %v, want ledger_unavailable (disk_full, %s)", err, dir)
	}
	if !slices.Equal(f.storeBytes(t), orig) {
		t.Fatal("the store changed though the ledger could not record it")
	}
}
