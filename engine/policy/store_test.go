package policy

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
)

type storeFixture struct {
	tr   *tree
	cfg  *Config
	ev   *Evaluator
	clk  *clock
	req  Request // a capture request inside @/root-a
	path string
}

func newStoreFixture(t *testing.T, baseline []Grant) *storeFixture {
	t.Helper()
	tr := newTree(t)
	if err := os.Mkdir(tr.p("@/state"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := tr.env()
	env[EnvProjectRoot] = tr.p("@/project")
	env[EnvProjectStore] = tr.p("@/state/grants.json")
	cfg := tr.config(t, env)
	clk := newClock()
	ev := New(cfg, baseline, Options{Now: clk.Now, NewID: (&ids{}).Next})
	raw := pc(tr.p("@/root-a"), nil, NetworkNone)
	raw.Executables = []string{tr.p("@/bin/tool")}
	raw.OperationIdentity = tr.p(raw.OperationIdentity)
	req, err := CanonicalizeRequest("test", raw)
	if err != nil {
		t.Fatal(err)
	}
	return &storeFixture{tr: tr, cfg: cfg, ev: ev, clk: clk, req: req, path: cfg.Store.Path}
}

func (f *storeFixture) grant(id, root string) Grant {
	return pg(id, ProcessCapture, []string{f.tr.p(root)}, []string{f.tr.p("@/bin")}, nil, "")
}

func (f *storeFixture) write(t *testing.T, grants ...Grant) {
	t.Helper()
	if err := WriteStore(context.Background(), *f.cfg.Store, f.cfg.Ceilings, grants); err != nil {
		t.Fatalf("WriteStore: %v", err)
	}
}

func (f *storeFixture) writeRaw(t *testing.T, b []byte, mode os.FileMode) {
	t.Helper()
	os.Remove(f.path)
	if err := os.WriteFile(f.path, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f.path, mode); err != nil {
		t.Fatal(err)
	}
}

func (f *storeFixture) reload(t *testing.T, trigger string, seq int64) *Reload {
	t.Helper()
	r, err := f.ev.Reload(trigger)
	if err != nil {
		t.Fatalf("Reload: %v", err)
	}
	if err := r.Apply(seq); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return r
}

func (f *storeFixture) allowedBy(t *testing.T) string {
	t.Helper()
	d := f.ev.Evaluate(Input{ConnectionID: "A", Request: f.req})
	if !d.Allowed {
		return "deny:" + d.Reason
	}
	return d.Grant.GrantID
}

func eventTypes(es []Emit) string {
	var out []string
	for _, e := range es {
		id := ""
		switch d := e.Data.(type) {
		case events.GrantAddedData:
			id = ":" + d.Grant.GrantID
		case events.GrantRevokedData:
			id = ":" + d.GrantID
		}
		out = append(out, e.Type+id)
	}
	return strings.Join(out, ",")
}

func storeReason(t *testing.T, err error) string {
	t.Helper()
	var fe *fault.Error
	if !errors.As(err, &fe) {
		t.Fatalf("untyped store error %v", err)
	}
	return StoreReason(err)
}

func TestReloadAppliesStoreDiffs(t *testing.T) {
	f := newStoreFixture(t, []Grant{{Scope: Scope{Capability: ProcessCapture}, GrantID: "gone", Lifetime: LifetimeProject}})
	f.write(t, f.grant("p1", "@/root-a"), f.grant("p2", "@/root-ab"))
	r := f.reload(t, TriggerStartup, 5)
	if got := eventTypes(r.Events); got != "policy_reloaded,grant_revoked:gone,grant_added:p1,grant_added:p2" {
		t.Fatalf("startup events = %s", got)
	}
	pr := r.Events[0].Data.(events.PolicyReloadedData)
	if pr.Trigger != TriggerStartup || pr.Outcome != "applied" || pr.ErrorReason != nil || pr.ProjectStore == nil ||
		pr.ProjectStore.State != "enabled" || pr.ProjectStore.GrantCount != 2 || pr.ProjectStore.StoreSHA256 == nil ||
		pr.CeilingsDigest != f.cfg.Ceilings.Digest() || len(pr.AdministratorCeilings) != 6 {
		t.Fatalf("policy_reloaded = %+v", pr)
	}
	for _, e := range r.Events {
		if e.Stream != events.PolicyStream {
			t.Fatalf("%s on stream %s", e.Type, e.Stream)
		}
	}
	d := f.ev.Evaluate(Input{ConnectionID: "A", Request: f.req})
	if !d.Allowed || d.Grant.GrantID != "p1" || d.PolicySeq != 5 || d.Source != "project" {
		t.Fatalf("after startup: %+v", d)
	}

	// A session grant of a live connection outlives the reload and is
	// evaluated against the new policy.
	if _, err := f.ev.AddConnectionGrant("A", grant("s1", LifetimeSession, ProcessCapture, []string{f.tr.p("@/root-a")}, []string{f.tr.p("@/bin")}, nil, "", nil, nil)); err != nil {
		t.Fatal(err)
	}
	// Edit the store: p1 goes, p2 changes, p3 arrives.
	f.write(t, f.grant("p2", "@/root-a/sub"), f.grant("p3", "@/outside"))
	r = f.reload(t, TriggerSIGHUP, 9)
	if got := eventTypes(r.Events); got != "policy_reloaded,grant_revoked:p1,grant_revoked:p2,grant_added:p2,grant_added:p3" {
		t.Fatalf("sighup events = %s", got)
	}
	if got := f.allowedBy(t); got != "s1" {
		t.Fatalf("after reload allowed by %s, want the session grant", got)
	}
	f.ev.CloseConnection("A")
	if got := f.allowedBy(t); got != "deny:"+ReasonGrantRevokedOrConsumed {
		t.Fatalf("a grant the reload removed explains the denial: %s", got)
	}
	if f.ev.PolicySeq() != 9 {
		t.Fatal(f.ev.PolicySeq())
	}
	// Reloading an unchanged store changes nothing.
	r = f.reload(t, TriggerSIGHUP, 11)
	if got := eventTypes(r.Events); got != "policy_reloaded" {
		t.Fatalf("unchanged store: %s", got)
	}
}

func TestReloadWithoutStore(t *testing.T) {
	tr := newTree(t)
	ev := New(tr.config(t, tr.env()), nil, Options{})
	r, err := ev.Reload(TriggerStartup)
	if err != nil || r.Apply(1) != nil {
		t.Fatal(err)
	}
	if pr := r.Events[0].Data.(events.PolicyReloadedData); pr.ProjectStore != nil || len(r.Events) != 1 {
		t.Fatalf("%+v", r.Events)
	}
	if ev.Store() != nil {
		t.Fatal("store configured")
	}
}

func TestAbsentStoreFileHasNoGrants(t *testing.T) {
	f := newStoreFixture(t, nil)
	r := f.reload(t, TriggerStartup, 1)
	pr := r.Events[0].Data.(events.PolicyReloadedData)
	if pr.ProjectStore == nil || pr.ProjectStore.State != "enabled" || pr.ProjectStore.GrantCount != 0 || pr.ProjectStore.StoreSHA256 != nil {
		t.Fatalf("%+v", pr.ProjectStore)
	}
}

// A bad store is rejected whole: the old policy stays in effect and the
// rejection is reported.
func TestBadStoreKeepsOldPolicy(t *testing.T) {
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("p1", "@/root-a"))
	f.reload(t, TriggerStartup, 3)
	good, _ := os.ReadFile(f.path)
	otherRoot := StoreConfig{Path: f.path, Root: f.tr.p("@/outside")}

	bad := map[string]struct {
		bytes  []byte
		mode   os.FileMode
		reason string
	}{
		"corrupted":         {[]byte(`{"schema_version":1,"grants":[`), 0o600, StoreInvalid},
		"trailing data":     {append(append([]byte{}, good...), []byte("{}")...), 0o600, StoreInvalid},
		"unknown field":     {bytes.Replace(good, []byte(`"schema_version"`), []byte(`"extra":1,"schema_version"`), 1), 0o600, StoreInvalid},
		"wrong schema":      {bytes.Replace(good, []byte(`"schema_version": 1`), []byte(`"schema_version": 2`), 1), 0o600, StoreInvalid},
		"relocated store":   {bytes.Replace(good, []byte(f.cfg.Store.ProjectID()), []byte(otherRoot.ProjectID()), 1), 0o600, StoreInvalid},
		"duplicate ids":     {bytes.Replace(good, []byte(`"grants": [`), []byte(`"grants": [{"grant_id":"p1","capability":"process_capture","roots":[],"executables":[],"environment_names":[],"network":"none","mount":false,"lifetime":"project","operation_identity":null,"expires_at":null},`), 1), 0o600, StoreInvalid},
		"one grant outside": {bytes.Replace(good, []byte(`"grants": [`), []byte(`"grants": [{"grant_id":"p0","capability":"process_capture","roots":["/"],"executables":[],"environment_names":[],"network":"none","mount":false,"lifetime":"project","operation_identity":null,"expires_at":null},`), 1), 0o600, StoreInvalid},
		"session lifetime":  {bytes.Replace(good, []byte(`"lifetime": "project"`), []byte(`"lifetime": "session"`), 1), 0o600, StoreInvalid},
		"group readable":    {good, 0o640, StoreNotOwnerOnly},
		"world writable":    {good, 0o602, StoreNotOwnerOnly},
	}
	for name, tc := range bad {
		t.Run(name, func(t *testing.T) {
			if bytes.Equal(tc.bytes, good) && tc.mode == 0o600 {
				t.Fatal("the mutation did not apply")
			}
			f.writeRaw(t, tc.bytes, tc.mode)
			r, err := f.ev.Reload(TriggerSIGHUP)
			if err == nil {
				t.Fatal("a bad store was accepted")
			}
			if got := storeReason(t, err); got != tc.reason {
				t.Fatalf("reason = %s, want %s (%v)", got, tc.reason, err)
			}
			pr := r.Events[0].Data.(events.PolicyReloadedData)
			if r.Applied || len(r.Events) != 1 || pr.Outcome != "rejected" || pr.ErrorReason == nil || *pr.ErrorReason != tc.reason ||
				pr.ProjectStore.State != "error" || pr.ProjectStore.GrantCount != 1 {
				t.Fatalf("rejected reload = %+v / %+v", r, pr)
			}
			if r.Apply(99) == nil {
				t.Fatal("a rejected reload applied")
			}
			if got := f.allowedBy(t); got != "p1" || f.ev.PolicySeq() != 3 {
				t.Fatalf("the old policy is gone: %s, seq %d", got, f.ev.PolicySeq())
			}
		})
	}
}

func TestSymlinkedStoreRefused(t *testing.T) {
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("p1", "@/root-a"))
	real := f.tr.p("@/state/real.json")
	if err := os.Rename(f.path, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, f.path); err != nil {
		t.Fatal(err)
	}
	_, err := ReadStore(*f.cfg.Store, f.cfg.Ceilings)
	if storeReason(t, err) != StoreInvalid {
		t.Fatalf("symlinked store: %v", err)
	}
	// Revocation refuses it too, and leaves the target alone.
	before, _ := os.ReadFile(real)
	if _, _, err := RevokeFromStore(context.Background(), *f.cfg.Store, f.cfg.Ceilings, "p1", nil); err == nil {
		t.Fatal("revoked through a symlinked store")
	}
	after, _ := os.ReadFile(real)
	if !bytes.Equal(before, after) {
		t.Fatal("the symlink target changed")
	}
}

func TestStoreNotRegularFile(t *testing.T) {
	f := newStoreFixture(t, nil)
	if err := syscall.Mkfifo(f.path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadStore(*f.cfg.Store, f.cfg.Ceilings); done <- err }()
	select {
	case err := <-done:
		if storeReason(t, err) != StoreInvalid {
			t.Fatalf("fifo store: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("reading a FIFO store hung")
	}
}

func TestStoreWrongOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing a file's owner needs root; the owner check is exercised only as root")
	}
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("p1", "@/root-a"))
	if err := os.Chown(f.path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStore(*f.cfg.Store, f.cfg.Ceilings); storeReason(t, err) != StoreNotOwnerOnly {
		t.Fatalf("foreign store: %v", err)
	}
}

func TestStoreProjectRootGone(t *testing.T) {
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("p1", "@/root-a"))
	if err := os.Remove(f.tr.p("@/project")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStore(*f.cfg.Store, f.cfg.Ceilings); storeReason(t, err) != StoreProjectNotFound {
		t.Fatalf("%v", err)
	}
}

func TestStoreTooManyGrants(t *testing.T) {
	f := newStoreFixture(t, nil)
	var gs []Grant
	for i := 0; i <= 1000; i++ {
		gs = append(gs, f.grant("g"+strconv.Itoa(i), "@/root-a"))
	}
	if err := WriteStore(context.Background(), *f.cfg.Store, f.cfg.Ceilings, gs); storeReason(t, err) != StoreInvalid {
		t.Fatalf("1001 grants: %v", err)
	}
	if err := WriteStore(context.Background(), *f.cfg.Store, f.cfg.Ceilings, gs[:1000]); err != nil {
		t.Fatalf("1000 grants: %v", err)
	}
}

func TestRevokeFromStore(t *testing.T) {
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("p1", "@/root-a"), f.grant("p2", "@/root-ab"))
	f.reload(t, TriggerStartup, 2)
	ctx := context.Background()
	store := *f.cfg.Store

	// Not found: the store is untouched.
	before, _ := os.ReadFile(f.path)
	if _, _, err := RevokeFromStore(ctx, store, f.cfg.Ceilings, "nope", nil); !errors.Is(err, ErrGrantNotFound) {
		t.Fatalf("absent grant: %v", err)
	}
	// The grant changed since it was shown: revision_conflict, store untouched.
	shown := f.grant("p1", "@/root-a/sub")
	if _, _, err := RevokeFromStore(ctx, store, f.cfg.Ceilings, "p1", &shown); !fault.Is(err, fault.RevisionConflict) {
		t.Fatalf("changed grant: %v", err)
	}
	if after, _ := os.ReadFile(f.path); !bytes.Equal(before, after) {
		t.Fatal("a refused revocation changed the store")
	}

	shown = f.grant("p1", "@/root-a")
	removed, emit, err := RevokeFromStore(ctx, store, f.cfg.Ceilings, "p1", &shown)
	if err != nil {
		t.Fatal(err)
	}
	rv := emit.Data.(events.GrantRevokedData)
	if removed.GrantID != "p1" || emit.Type != events.GrantRevoked || emit.Stream != events.PolicyStream ||
		rv.Source != SourceCLI || rv.GrantID != "p1" || rv.ConnectionID != nil {
		t.Fatalf("revoke = %+v %+v", removed, emit)
	}
	fi, err := os.Lstat(f.path)
	if err != nil || fi.Mode().Perm() != 0o600 || !fi.Mode().IsRegular() {
		t.Fatalf("store after revoke: %v %v", fi.Mode(), err)
	}
	snap, err := ReadStore(store, f.cfg.Ceilings)
	if err != nil || len(snap.Grants) != 1 || snap.Grants[0].GrantID != "p2" {
		t.Fatalf("store after revoke: %+v %v", snap.Grants, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(f.path), ".grants.json.tmp-*")); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
	// The live evaluator honours the ledger revocation before any SIGHUP.
	if !f.ev.RevokeProjectGrant("p1") {
		t.Fatal("p1 was not in effect")
	}
	if got := f.allowedBy(t); got != "deny:"+ReasonGrantRevokedOrConsumed {
		t.Fatalf("after revoke: %s", got)
	}
	// The next reload does not announce the revocation a second time.
	if r := f.reload(t, TriggerSIGHUP, 4); eventTypes(r.Events) != "policy_reloaded" {
		t.Fatalf("reload after revoke: %s", eventTypes(r.Events))
	}
}

func TestRevokeLockedStore(t *testing.T) {
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("p1", "@/root-a"))
	// flock belongs to the open file description: a second open in this
	// process contends like another process would.
	lf, err := os.OpenFile(f.path+".lock", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(f.path)
	_, _, err = RevokeFromStore(context.Background(), *f.cfg.Store, f.cfg.Ceilings, "p1", nil)
	if storeReason(t, err) != StoreLocked {
		t.Fatalf("locked store: %v", err)
	}
	if after, _ := os.ReadFile(f.path); !bytes.Equal(before, after) {
		t.Fatal("a locked revocation changed the store")
	}
}

func TestRevokeNeedsOwnerOnlyDirectory(t *testing.T) {
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("p1", "@/root-a"))
	if err := os.Chmod(filepath.Dir(f.path), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := RevokeFromStore(context.Background(), *f.cfg.Store, f.cfg.Ceilings, "p1", nil); storeReason(t, err) != StoreNotOwnerOnly {
		t.Fatalf("0755 parent: %v", err)
	}
}

// A reload read before another policy change must not overwrite it.
func TestStaleReloadRefused(t *testing.T) {
	f := newStoreFixture(t, nil)
	f.write(t, f.grant("p1", "@/root-a"))
	f.reload(t, TriggerStartup, 1)
	r, err := f.ev.Reload(TriggerSIGHUP)
	if err != nil {
		t.Fatal(err)
	}
	f.ev.RevokeProjectGrant("p1")
	if err := r.Apply(2); !errors.Is(err, ErrStaleReload) {
		t.Fatalf("stale apply: %v", err)
	}
	if got := f.allowedBy(t); got != "deny:"+ReasonGrantRevokedOrConsumed {
		t.Fatalf("the revocation was lost: %s", got)
	}
}
