package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// polFixture is a real layout for `rea policy`: an evidence root, a working
// root with an executable, a project root and an owner-only store directory,
// a ledger path, and the environment that makes them ceilings. ALLOWED_A is
// an allowed environment NAME whose value is the secret.
type polFixture struct {
	base, ev, outside, work, bin, tool, proj, storeDir, store, ledger string
	env                                                               map[string]string
	cfg                                                               *policy.Config
}

// The clock of the recorded history: far in the past, so a grant expiring
// an hour later is expired for a live `rea policy` run too.
var polT0 = time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)

func newPolFixture(t *testing.T) *polFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &polFixture{base: base, ev: filepath.Join(base, "ev"), outside: filepath.Join(base, "outside"),
		work: filepath.Join(base, "work"), bin: filepath.Join(base, "bin"), proj: filepath.Join(base, "proj"),
		storeDir: filepath.Join(base, "st"), ledger: filepath.Join(base, "state", "ledger.db")}
	f.tool = filepath.Join(f.bin, "tool")
	f.store = filepath.Join(f.storeDir, "store.json")
	for _, d := range []string{f.ev + "/sub", f.outside, f.work, f.bin, f.proj, f.storeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.tool, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	js := func(xs ...string) string { b, _ := json.Marshal(xs); return string(b) }
	f.env = map[string]string{
		policy.EnvEvidenceRoots:          js(f.ev),
		policy.EnvProcessCaptureEnabled:  "true",
		policy.EnvProcessWorkingRoots:    js(f.work),
		policy.EnvProcessExecutableRoots: js(f.bin),
		policy.EnvProcessAllowedEnv:      js("ALLOWED_A", "ALLOWED_B"),
		policy.EnvProjectRoot:            f.proj,
		policy.EnvProjectStore:           f.store,
		"REA_LEDGER_PATH":                f.ledger,
		"ALLOWED_A":                      secret,
	}
	if f.cfg, err = policy.LoadConfig(f.env); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *polFixture) environ(drop ...string) []string {
	var out []string
	for k, v := range f.env {
		if !slices.Contains(drop, k) {
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

func strPtr(s string) *string { return &s }

func capture(id string, roots, exes, names []string, network string, opID, expires *string) policy.Grant {
	return policy.Grant{Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: roots, Executables: exes,
		EnvironmentNames: names, Network: network}, GrantID: id, Lifetime: policy.LifetimeProject,
		OperationIdentity: opID, ExpiresAt: expires}
}

// grants are the store's: proj-capture covers the tool with ALLOWED_A and no
// network; proj-exp adds loopback and expires an hour after polT0; proj-ev
// is an evidence_read grant inside the evidence ceiling.
func (f *polFixture) grants() []policy.Grant {
	exp := policy.FormatTime(polT0.Add(time.Hour))
	return []policy.Grant{
		capture("proj-capture", []string{f.work}, []string{f.bin}, []string{"ALLOWED_A"}, policy.NetworkNone, nil, nil),
		capture("proj-exp", []string{f.work}, []string{f.bin}, []string{}, policy.NetworkLoopback, nil, &exp),
		{Scope: policy.Scope{Capability: policy.EvidenceRead, Roots: []string{f.ev + "/sub"}, Executables: []string{},
			EnvironmentNames: []string{}, Network: policy.NetworkNone}, GrantID: "proj-ev", Lifetime: policy.LifetimeProject},
	}
}

func (f *polFixture) writeStore(t *testing.T, grants []policy.Grant) {
	t.Helper()
	if err := policy.WriteStore(context.Background(), *f.cfg.Store, f.cfg.Ceilings, grants); err != nil {
		t.Fatal(err)
	}
}

func (f *polFixture) run(t *testing.T, args ...string) runResult {
	t.Helper()
	return runRea(t, f.base, f.environ(), args...)
}

func (f *polFixture) openLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	led, err := ledger.Open(context.Background(), f.ledger, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return led
}

func appendEmits(t *testing.T, led *ledger.Ledger, emits []policy.Emit) []ledger.Event {
	t.Helper()
	var out []ledger.Event
	for _, e := range emits {
		stored, err := led.Append(context.Background(), e.Stream, -1, []ledger.NewEvent{{Type: e.Type, Data: e.Data}},
			func(tx *sql.Tx, evs []ledger.Event) error { return projections.Apply(tx, projections.All(), evs) })
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, stored...)
	}
	return out
}

// decodeObject decodes stdout as one JSON object and checks its key set.
func decodeObject(t *testing.T, r runResult, keys ...string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.stdout, &m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s\nstderr %s", err, r.stdout, r.stderr)
	}
	checkKeys(t, "output", m, keys...)
	return m
}

func checkKeys(t *testing.T, what string, v any, keys ...string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object: %v", what, v)
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	want := slices.Clone(keys)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s keys = %v, want %v (%v)", what, got, want, m)
	}
}

var (
	scopeKeys = []string{"capability", "roots", "executables", "environment_names", "network", "mount"}
	grantKeys = append(slices.Clone(scopeKeys), "grant_id", "lifetime", "operation_identity", "expires_at")
	asOfKeys  = []string{"seq", "head_hash"}
)

func checkAsOf(t *testing.T, v any, seq int64, hash string) {
	t.Helper()
	checkKeys(t, "as_of", v, asOfKeys...)
	m := v.(map[string]any)
	if int64(m["seq"].(float64)) != seq || m["head_hash"] != hash {
		t.Fatalf("as_of = %v, want {%d %s}", m, seq, hash)
	}
}

func ledgerHead(t *testing.T, path string) (int64, string) {
	t.Helper()
	led, err := ledger.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	seq, hash, err := led.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return seq, hash
}

func TestPolicyStatus(t *testing.T) {
	f := newPolFixture(t)
	f.writeStore(t, f.grants())

	// No ledger yet: as_of is the empty ledger, and none is created.
	r := f.run(t, "policy", "status", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	m := decodeObject(t, r, "as_of", "administrator_ceilings", "administrator_grants", "project_store", "reload", "ceilings_change_requires")
	checkAsOf(t, m["as_of"], 0, ledger.GenesisHash())
	if _, err := os.Stat(f.ledger); !os.IsNotExist(err) {
		t.Fatalf("status created the ledger: %v", err)
	}
	if m["reload"] != "SIGHUP" || m["ceilings_change_requires"] != "restart" {
		t.Fatalf("reload/ceilings_change_requires = %v / %v", m["reload"], m["ceilings_change_requires"])
	}
	var caps []string
	for _, c := range m["administrator_ceilings"].([]any) {
		checkKeys(t, "ceiling", c, scopeKeys...)
		caps = append(caps, c.(map[string]any)["capability"].(string))
	}
	wantCaps := []string{"process_capture", "evidence_read", "evidence_write", "investigation_workspace_read",
		"investigation_workspace_write", "artifact_extract"}
	if !slices.Equal(caps, wantCaps) {
		t.Fatalf("ceilings = %v, want %v", caps, wantCaps)
	}
	pc := m["administrator_ceilings"].([]any)[0].(map[string]any)
	if names := pc["environment_names"].([]any); len(names) != 2 || names[0] != "ALLOWED_A" || pc["network"] != "loopback" {
		t.Fatalf("process_capture ceiling = %v", pc)
	}
	var grants []string
	for _, g := range m["administrator_grants"].([]any) {
		grants = append(grants, g.(string))
	}
	if slices.Contains(grants, "administrator:process_capture") || !slices.Contains(grants, "administrator:artifact_extract") || len(grants) != 5 {
		t.Fatalf("administrator_grants = %v", grants)
	}
	ps := m["project_store"]
	checkKeys(t, "project_store", ps, "path", "project_root", "state", "grant_count")
	if p := ps.(map[string]any); p["path"] != f.store || p["project_root"] != f.proj || p["state"] != "enabled" || p["grant_count"] != 3.0 {
		t.Fatalf("project_store = %v", p)
	}

	// Readable: every capability of the vocabulary, configured or not, and
	// the restart rule.
	r = f.run(t, "policy", "status")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	for _, c := range policy.Capabilities() {
		if !bytes.Contains(r.stdout, []byte(c)) {
			t.Fatalf("readable status lacks %s:\n%s", c, r.stdout)
		}
	}
	for _, s := range []string{"no ceiling (set REA_ANALYSIS_SNAPSHOT_ROOTS_JSON)", "restart", "SIGHUP", "ALLOWED_A"} {
		if !bytes.Contains(r.stdout, []byte(s)) {
			t.Fatalf("readable status lacks %q:\n%s", s, r.stdout)
		}
	}

	// With events, as_of is the head; status appends nothing.
	led := f.openLedger(t)
	stored := appendEmits(t, led, []policy.Emit{{Stream: events.ConnectionStream("c1"), Type: events.ConnectionClosed,
		Data: map[string]any{"connection_id": "c1", "reason": "client_closed"}}})
	led.Close()
	r = f.run(t, "policy", "status", "--json")
	checkAsOf(t, decodeObject(t, r, "as_of", "administrator_ceilings", "administrator_grants", "project_store", "reload",
		"ceilings_change_requires")["as_of"], stored[0].Seq, stored[0].Hash)
	if seq, _ := ledgerHead(t, f.ledger); seq != stored[0].Seq {
		t.Fatalf("status appended: head %d", seq)
	}

	// A store readable by others: state error with its reason, exit 0.
	if err := os.Chmod(f.store, 0o644); err != nil {
		t.Fatal(err)
	}
	r = f.run(t, "policy", "status", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	ps = decodeObject(t, r, "as_of", "administrator_ceilings", "administrator_grants", "project_store", "reload", "ceilings_change_requires")["project_store"]
	checkKeys(t, "project_store", ps, "path", "project_root", "state", "reason", "grant_count")
	if p := ps.(map[string]any); p["state"] != "error" || p["reason"] != policy.StoreNotOwnerOnly {
		t.Fatalf("project_store = %v", p)
	}

	// Store disabled: null.
	r = runRea(t, f.base, f.environ(policy.EnvProjectRoot, policy.EnvProjectStore), "policy", "status", "--json")
	if m := decodeObject(t, r, "as_of", "administrator_ceilings", "administrator_grants", "project_store", "reload", "ceilings_change_requires"); m["project_store"] != nil {
		t.Fatalf("project_store = %v, want null", m["project_store"])
	}
}

// A bad variable fails closed with configuration_invalid naming it, never
// its value (runRea fails on the secret).
func TestPolicyConfigurationInvalid(t *testing.T) {
	f := newPolFixture(t)
	f.env[policy.EnvEvidenceRoots] = `["` + secret + `"]`
	for _, args := range [][]string{{"status"}, {"list"}, {"explain", "evidence_read"}, {"revoke", "x", "--yes"}} {
		r := f.run(t, append(append([]string{"policy"}, args...), "--json")...)
		if r.code != 1 {
			t.Fatalf("%v: exit %d", args, r.code)
		}
		var out struct {
			Error struct {
				Code    string
				Details map[string]any
			}
		}
		if err := json.Unmarshal(r.stdout, &out); err != nil {
			t.Fatal(err)
		}
		if out.Error.Code != "configuration_invalid" || out.Error.Details["variable"] != policy.EnvEvidenceRoots {
			t.Fatalf("%v: %s", args, r.stdout)
		}
	}
}

func TestPolicyList(t *testing.T) {
	f := newPolFixture(t)
	f.writeStore(t, f.grants())
	// The ledger recorded proj-ev as added and then revoked (by another
	// process's revoke); the store still has it, so it lists as revoked.
	led := f.openLedger(t)
	var projEv policy.Grant
	for _, g := range f.grants() {
		if g.GrantID == "proj-ev" {
			projEv = g
		}
	}
	stored := appendEmits(t, led, []policy.Emit{
		{Stream: events.PolicyStream, Type: events.GrantAdded, Data: events.GrantAddedData{Grant: projEv, Source: policy.SourceProjectStore}},
		{Stream: events.PolicyStream, Type: events.GrantRevoked, Data: events.GrantRevokedData{GrantID: "proj-ev", Source: policy.SourceCLI}},
	})
	led.Close()
	head := stored[len(stored)-1]

	r := f.run(t, "policy", "list", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	m := decodeObject(t, r, "as_of", "grants")
	checkAsOf(t, m["as_of"], head.Seq, head.Hash)
	state := map[string]string{}
	var order []string
	for _, g := range m["grants"].([]any) {
		checkKeys(t, "grant", g, append(slices.Clone(grantKeys), "source", "state")...)
		gm := g.(map[string]any)
		id := gm["grant_id"].(string)
		order = append(order, id)
		state[id] = gm["source"].(string) + "/" + gm["lifetime"].(string) + "/" + gm["state"].(string)
	}
	want := map[string]string{
		"administrator:evidence_read": "administrator/administrator/active", "administrator:evidence_write": "administrator/administrator/active",
		"administrator:investigation_workspace_read": "administrator/administrator/active", "administrator:investigation_workspace_write": "administrator/administrator/active",
		"administrator:artifact_extract": "administrator/administrator/active",
		"proj-capture":                   "project/project/active", "proj-exp": "project/project/expired", "proj-ev": "project/project/revoked",
	}
	if len(state) != len(want) {
		t.Fatalf("grants = %v", state)
	}
	for id, s := range want {
		if state[id] != s {
			t.Fatalf("%s = %q, want %q (all %v)", id, state[id], s, state)
		}
	}
	if !strings.HasPrefix(order[0], "administrator:") || order[len(order)-1] != "proj-exp" {
		t.Fatalf("order = %v: administrator grants first, then project grants by id", order)
	}

	r = f.run(t, "policy", "list")
	if r.code != 0 || !bytes.Contains(r.stdout, []byte("proj-ev  project, project, revoked")) {
		t.Fatalf("readable list (exit %d):\n%s", r.code, r.stdout)
	}

	r = runRea(t, f.base, f.environ(policy.EnvProjectRoot, policy.EnvProjectStore), "policy", "list", "--json")
	if r.code != 1 {
		t.Fatalf("disabled store: exit %d", r.code)
	}
	if m := decodeObject(t, r, "error"); m["error"] != "project policy is not configured" {
		t.Fatalf("disabled store: %v", m)
	}
}

var explainKeys = []string{"as_of", "request", "allowed", "reason", "determining", "missing", "ceiling", "remediation"}

func TestPolicyExplain(t *testing.T) {
	f := newPolFixture(t)
	f.writeStore(t, f.grants())
	led := f.openLedger(t)
	stored := appendEmits(t, led, []policy.Emit{{Stream: events.ConnectionStream("c1"), Type: events.ConnectionClosed,
		Data: map[string]any{"connection_id": "c1", "reason": "client_closed"}}})
	led.Close()
	head := stored[0]
	before, err := os.ReadFile(f.ledger)
	if err != nil {
		t.Fatal(err)
	}

	type want struct {
		allowed     bool
		reason      string
		determining map[string]any
		missing     string // canonical JSON
		ceiling     bool
		remediation any
	}
	grantDet := func(id, lifetime, source string) map[string]any {
		return map[string]any{"kind": "grant", "grant_id": id, "lifetime": lifetime, "source": source}
	}
	cases := []struct {
		name string
		args []string
		want want
	}{
		{"administrator allows", []string{"evidence_read", "--root", f.ev + "/sub"},
			want{true, "granted", grantDet("administrator:evidence_read", "administrator", "administrator"), `{}`, true, nil}},
		{"write leaf may be missing", []string{"evidence_write", "--root", f.ev + "/new.json", "--write"},
			want{true, "granted", grantDet("administrator:evidence_write", "administrator", "administrator"), `{}`, true, nil}},
		{"project grant allows", []string{"process_capture", "--root", f.work, "--executable", f.tool, "--environment-name", "ALLOWED_A"},
			want{true, "granted", grantDet("proj-capture", "project", "project"), `{}`, true, nil}},
		{"inside the ceiling, no grant", []string{"process_capture", "--root", f.work, "--executable", f.tool, "--environment-name", "ALLOWED_B"},
			want{false, "grant_required", nil, `{"environment_names":["ALLOWED_B"]}`, true, "configure"}},
		{"expired grant would have covered", []string{"process_capture", "--root", f.work, "--executable", f.tool, "--network", "loopback"},
			want{false, "grant_expired", nil, `{"network":"loopback"}`, true, "configure"}},
		{"outside the ceiling", []string{"evidence_read", "--root", f.outside},
			want{false, "outside_administrator_ceiling", nil, `{"roots":["` + f.outside + `"]}`, true, "configure"}},
		{"symlink out of the root", []string{"evidence_read", "--root", f.ev + "/out"},
			want{false, "outside_administrator_ceiling", nil, `{"roots":["` + f.outside + `"]}`, true, "configure"}},
		{"network beyond the ceiling", []string{"process_capture", "--root", f.work, "--executable", f.tool, "--network", "external"},
			want{false, "outside_administrator_ceiling", nil, `{"network":"external"}`, true, "configure"}},
		{"no ceiling at all", []string{"snapshot_read", "--root", f.ev},
			want{false, "outside_administrator_ceiling", nil, `{"roots":["` + f.ev + `"]}`, false, "configure"}},
	}
	if err := os.Symlink(f.outside, f.ev+"/out"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.run(t, append([]string{"policy", "explain", "--json"}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
			}
			m := decodeObject(t, r, explainKeys...)
			checkAsOf(t, m["as_of"], head.Seq, head.Hash)
			checkKeys(t, "request", m["request"], scopeKeys...)
			if m["allowed"] != tc.want.allowed || m["reason"] != tc.want.reason || m["remediation"] != tc.want.remediation {
				t.Fatalf("got %s", r.stdout)
			}
			miss, _ := json.Marshal(m["missing"])
			if string(miss) != tc.want.missing {
				t.Fatalf("missing = %s, want %s", miss, tc.want.missing)
			}
			if (m["ceiling"] != nil) != tc.want.ceiling {
				t.Fatalf("ceiling = %v", m["ceiling"])
			}
			det := m["determining"].(map[string]any)
			if tc.want.allowed {
				checkKeys(t, "determining", det, "kind", "grant_id", "lifetime", "source")
				for k, v := range tc.want.determining {
					if det[k] != v {
						t.Fatalf("determining = %v, want %v", det, tc.want.determining)
					}
				}
			} else {
				checkKeys(t, "determining", det, "kind", "capability", "ceiling")
				if det["kind"] != "ceiling" || det["capability"] != m["request"].(map[string]any)["capability"] {
					t.Fatalf("determining = %v", det)
				}
			}
		})
	}

	// Readable: the same fields.
	r := f.run(t, "policy", "explain", "process_capture", "--root", f.work, "--executable", f.tool, "--environment-name", "ALLOWED_B")
	for _, s := range []string{"denied (grant_required)", "missing       environment names ALLOWED_B", "remediation   configure", "ledger seq"} {
		if !bytes.Contains(r.stdout, []byte(s)) {
			t.Fatalf("readable explain lacks %q:\n%s", s, r.stdout)
		}
	}

	// Unknown capability → {error}; a missing read path → invalid_request.
	r = f.run(t, "policy", "explain", "no_such_capability", "--json")
	if m := decodeObject(t, r, "error"); r.code != 1 || !strings.Contains(m["error"].(string), "unknown capability") {
		t.Fatalf("unknown capability: exit %d %v", r.code, m)
	}
	r = f.run(t, "policy", "explain", "evidence_read", "--root", f.ev+"/absent", "--json")
	if r.code != 1 || !bytes.Contains(r.stdout, []byte(`"invalid_request"`)) || !bytes.Contains(r.stdout, []byte(`/roots/0`)) {
		t.Fatalf("missing path: exit %d %s", r.code, r.stdout)
	}

	// Explain records nothing.
	after, err := os.ReadFile(f.ledger)
	if err != nil {
		t.Fatal(err)
	}
	if seq, _ := ledgerHead(t, f.ledger); seq != head.Seq || !bytes.Equal(before, after) {
		t.Fatalf("explain changed the ledger (head %d)", seq)
	}
}

// recorded is one decision the test made through the evaluator and appended.
type recorded struct {
	id, outcome, reason string
	seq                 int64
}

// TestPolicyExplainDecisionReplay records decisions the way a live process
// does (startup reload, the one evaluator, overlays from elicitation, a
// consumed once grant, a CLI revocation, expiry, a SIGHUP reload), rebuilds
// the projections, and replays every decision from the ledger.
func TestPolicyExplainDecisionReplay(t *testing.T) {
	f := newPolFixture(t)
	f.writeStore(t, f.grants())
	ctx := context.Background()

	now := polT0
	ev := policy.New(f.cfg, nil, policy.Options{Now: func() time.Time { return now }})
	led := f.openLedger(t)
	reload := func(trigger string) {
		r, err := ev.Reload(trigger)
		if err != nil {
			t.Fatal(err)
		}
		stored := appendEmits(t, led, r.Events)
		if err := r.Apply(stored[0].Seq); err != nil {
			t.Fatal(err)
		}
	}
	reload(policy.TriggerStartup)

	const conn = "01JTESTCONNECTION000000000"
	var decisions []recorded
	decide := func(req policy.Request, surface policy.Surface, form bool, outcome, reason string) {
		t.Helper()
		if req.OperationIdentity == "" {
			req.OperationIdentity = "capture_process_scenario:" + f.tool
		}
		if req.Network == "" {
			req.Network = policy.NetworkNone
		}
		req.Access = policy.AccessRead
		q, err := policy.CanonicalizeRequest("test", req)
		if err != nil {
			t.Fatal(err)
		}
		d := ev.Evaluate(policy.Input{ConnectionID: conn, Operation: "capture_process_scenario", Request: q, Surface: surface, ElicitationForm: form})
		got := "deny"
		if d.Allowed {
			got = "allow"
		}
		if got != outcome || d.Reason != reason {
			t.Fatalf("decision %d: %s/%s, want %s/%s", len(decisions)+1, got, d.Reason, outcome, reason)
		}
		stored := appendEmits(t, led, d.Events)
		decisions = append(decisions, recorded{d.ID, got, d.Reason, stored[0].Seq})
	}
	capReq := func(names []string, network string) policy.Request {
		return policy.Request{Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: []string{f.work},
			Executables: []string{f.tool}, EnvironmentNames: names, Network: network}}
	}
	evReq := func(root string) policy.Request {
		return policy.Request{Scope: policy.Scope{Capability: policy.EvidenceRead, Roots: []string{root}}, OperationIdentity: "import_evidence:" + root}
	}

	decide(evReq(f.ev+"/sub"), policy.SurfaceMCP, false, "allow", "granted")                                       // 1 administrator
	decide(capReq([]string{"ALLOWED_A"}, ""), policy.SurfaceMCP, false, "allow", "granted")                        // 2 project
	decide(capReq([]string{"ALLOWED_B"}, ""), policy.SurfaceMCP, false, "deny", "grant_required")                  // 3
	decide(capReq([]string{"ALLOWED_B"}, ""), policy.SurfaceMCP, true, "deny", "grant_required")                   // 4 elicit
	decide(evReq(f.outside), policy.SurfaceMCP, false, "deny", "outside_administrator_ceiling")                    // 5 restart
	decide(capReq(nil, policy.NetworkExternal), policy.SurfaceCLI, false, "deny", "outside_administrator_ceiling") // 6 configure
	decide(capReq(nil, policy.NetworkLoopback), policy.SurfaceMCP, false, "allow", "granted")                      // 7 proj-exp still valid

	// An accepted elicitation: a session grant for ALLOWED_B.
	sess := capture("sess-1", []string{f.work}, []string{f.bin}, []string{"ALLOWED_B"}, policy.NetworkNone, nil, nil)
	sess.Lifetime = policy.LifetimeSession
	emit, err := ev.AddConnectionGrant(conn, sess)
	if err != nil {
		t.Fatal(err)
	}
	appendEmits(t, led, []policy.Emit{emit})
	decide(capReq([]string{"ALLOWED_B"}, ""), policy.SurfaceMCP, true, "allow", "granted") // 8 session

	// A once grant for loopback with ALLOWED_B: consumed by the first use.
	once := capture("once-1", []string{f.work}, []string{f.bin}, []string{"ALLOWED_B"}, policy.NetworkLoopback,
		strPtr("capture_process_scenario:"+f.tool), nil)
	once.Lifetime = policy.LifetimeOnce
	if emit, err = ev.AddConnectionGrant(conn, once); err != nil {
		t.Fatal(err)
	}
	appendEmits(t, led, []policy.Emit{emit})
	decide(capReq([]string{"ALLOWED_B"}, policy.NetworkLoopback), policy.SurfaceMCP, true, "allow", "granted")                  // 9 once
	decide(capReq([]string{"ALLOWED_B"}, policy.NetworkLoopback), policy.SurfaceMCP, true, "deny", "grant_revoked_or_consumed") // 10

	// `rea policy revoke proj-capture` in another process: the store loses
	// it, the ledger records it, this process honours it.
	_, emit, err = policy.RevokeFromStore(ctx, *f.cfg.Store, f.cfg.Ceilings, "proj-capture", nil)
	if err != nil {
		t.Fatal(err)
	}
	appendEmits(t, led, []policy.Emit{emit})
	ev.RevokeProjectGrant("proj-capture")
	decide(capReq([]string{"ALLOWED_A"}, ""), policy.SurfaceMCP, false, "deny", "grant_revoked_or_consumed") // 11

	// Two hours on, proj-exp has expired.
	now = polT0.Add(2 * time.Hour)
	decide(capReq(nil, policy.NetworkLoopback), policy.SurfaceMCP, false, "deny", "grant_expired") // 12

	// A SIGHUP reload adds proj-new (ALLOWED_A again, by another id).
	grants := slices.DeleteFunc(f.grants(), func(g policy.Grant) bool { return g.GrantID == "proj-capture" })
	grants = append(grants, capture("proj-new", []string{f.work}, []string{f.bin}, []string{"ALLOWED_A"}, policy.NetworkNone, nil, nil))
	f.writeStore(t, grants)
	reload(policy.TriggerSIGHUP)
	decide(capReq([]string{"ALLOWED_A"}, ""), policy.SurfaceMCP, false, "allow", "granted")                    // 13 proj-new
	decide(capReq([]string{"ALLOWED_A", "ALLOWED_B"}, ""), policy.SurfaceMCP, false, "deny", "grant_required") // 14 no combining
	led.Close()

	r := f.run(t, "ledger", "rebuild")
	if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"matches": true`)) {
		t.Fatalf("rebuild: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	headSeq, _ := ledgerHead(t, f.ledger)

	for i, d := range decisions {
		r := f.run(t, "policy", "explain", "--decision", d.id, "--json")
		if r.code != 0 {
			t.Fatalf("decision %d: exit %d %s %s", i+1, r.code, r.stdout, r.stderr)
		}
		m := decodeObject(t, r, append(slices.Clone(explainKeys), "decision_id", "recorded", "replay_matches")...)
		checkKeys(t, "recorded", m["recorded"], "seq", "event_id", "outcome", "reason")
		rec := m["recorded"].(map[string]any)
		if m["replay_matches"] != true || m["decision_id"] != d.id || rec["outcome"] != d.outcome || rec["reason"] != d.reason ||
			int64(rec["seq"].(float64)) != d.seq || m["reason"] != d.reason || m["allowed"] != (d.outcome == "allow") {
			t.Fatalf("decision %d (%s/%s) replayed as:\n%s", i+1, d.outcome, d.reason, r.stdout)
		}
		if asOf := m["as_of"].(map[string]any); int64(asOf["seq"].(float64)) != d.seq {
			t.Fatalf("decision %d: as_of %v, want seq %d", i+1, asOf, d.seq)
		}
	}
	if len(decisions) < 10 {
		t.Fatalf("only %d decisions", len(decisions))
	}

	r = f.run(t, "policy", "explain", "--decision", decisions[8].id)
	if r.code != 0 || !bytes.Contains(r.stdout, []byte("the replay matches")) || !bytes.Contains(r.stdout, []byte("grant once-1 (once, connection)")) {
		t.Fatalf("readable replay (exit %d):\n%s", r.code, r.stdout)
	}
	r = f.run(t, "policy", "explain", "--decision", decisions[0].id, "--root", f.ev, "--json")
	if r.code != 1 || !bytes.Contains(r.stdout, []byte(`"invalid_request"`)) {
		t.Fatalf("--decision with a request flag: exit %d %s", r.code, r.stdout)
	}
	r = f.run(t, "policy", "explain", "--decision", "no-such-decision", "--json")
	if m := decodeObject(t, r, "error", "decision_id"); r.code != 1 || m["error"] != "decision not found" {
		t.Fatalf("unknown decision: exit %d %v", r.code, m)
	}
	if seq, _ := ledgerHead(t, f.ledger); seq != headSeq {
		t.Fatalf("explain --decision appended (head %d, was %d)", seq, headSeq)
	}
}

func TestPolicyRevoke(t *testing.T) {
	f := newPolFixture(t)
	f.writeStore(t, f.grants())
	storeBytes := func() []byte {
		b, err := os.ReadFile(f.store)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	orig := storeBytes()

	// No --yes and no terminal (stdin is /dev/null): refused, store
	// byte-identical, nothing recorded, with JSON and readable output alike.
	for _, args := range [][]string{{"--json"}, {}} {
		r := f.run(t, append([]string{"policy", "revoke", "proj-capture"}, args...)...)
		if r.code == 0 {
			t.Fatalf("%v: exit 0", args)
		}
		if len(args) > 0 {
			m := decodeObject(t, r, "error", "grant_id")
			if m["error"] != "confirmation required; rerun interactively or with --yes" || m["grant_id"] != "proj-capture" {
				t.Fatalf("%v: %v", args, m)
			}
		} else if len(r.stdout) != 0 || !bytes.Contains(r.stderr, []byte("confirmation required")) {
			t.Fatalf("readable refusal: stdout %q stderr %q", r.stdout, r.stderr)
		}
		if !bytes.Contains(r.stderr, []byte(`"grant_id": "proj-capture"`)) {
			t.Fatalf("the grant is not shown on stderr: %s", r.stderr)
		}
		if !bytes.Equal(storeBytes(), orig) {
			t.Fatalf("%v: the store changed", args)
		}
		if _, err := os.Stat(f.ledger); !os.IsNotExist(err) {
			t.Fatalf("%v: the refusal created the ledger", args)
		}
	}

	// Absent grant; disabled store.
	r := f.run(t, "policy", "revoke", "nope", "--yes", "--json")
	if m := decodeObject(t, r, "error", "grant_id"); r.code != 1 || m["error"] != "grant not found" {
		t.Fatalf("absent: exit %d %v", r.code, m)
	}
	r = runRea(t, f.base, f.environ(policy.EnvProjectRoot, policy.EnvProjectStore), "policy", "revoke", "proj-capture", "--yes", "--json")
	if m := decodeObject(t, r, "error"); r.code != 1 || m["error"] != "project policy is not configured" {
		t.Fatalf("disabled: exit %d %v", r.code, m)
	}
	if !bytes.Equal(storeBytes(), orig) {
		t.Fatal("the store changed")
	}

	// --yes: removed from the store, startup events then grant_revoked
	// (source cli) on the policy stream.
	r = f.run(t, "policy", "revoke", "proj-capture", "--yes", "--json")
	if r.code != 0 {
		t.Fatalf("--yes: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	m := decodeObject(t, r, "as_of", "revoked", "reload")
	if m["revoked"] != "proj-capture" || m["reload"] != "SIGHUP" {
		t.Fatalf("--yes: %v", m)
	}
	headSeq, headHash := ledgerHead(t, f.ledger)
	checkAsOf(t, m["as_of"], headSeq, headHash)
	snap, err := policy.ReadStore(*f.cfg.Store, f.cfg.Ceilings)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(snap.Grants, func(g policy.Grant) bool { return g.GrantID == "proj-capture" }) || len(snap.Grants) != 2 {
		t.Fatalf("store after revoke: %v", snap.Grants)
	}
	types := policyStreamTypes(t, f.ledger)
	wantTypes := []string{"policy_reloaded", "grant_added:proj-capture", "grant_added:proj-ev", "grant_added:proj-exp", "grant_revoked:proj-capture:cli"}
	if !slices.Equal(types, wantTypes) {
		t.Fatalf("policy stream = %v, want %v", types, wantTypes)
	}

	// -y, on a second grant: the startup diffs are now against the ledger
	// (nothing new), then its revocation.
	r = f.run(t, "policy", "revoke", "proj-ev", "-y")
	if r.code != 0 || !bytes.Contains(r.stdout, []byte("Revoked project grant proj-ev")) {
		t.Fatalf("-y: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	types = policyStreamTypes(t, f.ledger)
	if got := types[len(wantTypes):]; !slices.Equal(got, []string{"policy_reloaded", "grant_revoked:proj-ev:cli"}) {
		t.Fatalf("second revoke appended %v", got)
	}
	r = f.run(t, "policy", "list", "--json")
	if bytes.Contains(r.stdout, []byte("proj-capture")) || bytes.Contains(r.stdout, []byte("proj-ev")) {
		t.Fatalf("list after revoke: %s", r.stdout)
	}
	if r = f.run(t, "ledger", "verify"); r.code != 0 {
		t.Fatalf("verify: %s", r.stdout)
	}
	// The allowed environment NAME is recorded; its value never is.
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(f.ledger + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("the ledger%s holds the secret", suffix)
		}
	}
}

// policyStreamTypes lists the policy stream as type[:grant_id[:source]]
// (grant_revoked with its source), in order.
func policyStreamTypes(t *testing.T, path string) []string {
	t.Helper()
	led, err := ledger.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
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
			if e.Revoked.ConnectionID != nil {
				t.Fatalf("grant_revoked with a connection: %v", *e.Revoked.ConnectionID)
			}
			out = append(out, e.Type+":"+e.Revoked.GrantID+":"+e.Revoked.Source)
		default:
			out = append(out, e.Type)
		}
	}
	return out
}

// TestPolicyRevokeInteractive answers the question on a real terminal
// (util-linux script gives the command a PTY): "n" cancels and leaves the
// store byte-identical; "y" revokes.
func TestPolicyRevokeInteractive(t *testing.T) {
	scriptPath := testkit.Need(t, "script") // util-linux
	f := newPolFixture(t)
	f.writeStore(t, f.grants())
	orig, err := os.ReadFile(f.store)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(reply string) (string, int) {
		cmd := exec.Command(scriptPath, "-qec", "'"+testkit.Rea(t)+"' policy revoke proj-exp", "/dev/null")
		cmd.Env = append([]string{"HOME=" + f.base, "PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh"}, f.environ()...)
		cmd.Stdin = strings.NewReader(reply + "\n")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out, []byte(secret)) {
			t.Fatalf("the terminal showed the secret:\n%s", out)
		}
		return string(out), code
	}

	out, code := answer("n")
	if code == 0 || !strings.Contains(out, "Revoke this project grant? [y/N]") || !strings.Contains(out, "revocation cancelled") ||
		!strings.Contains(out, `"grant_id": "proj-exp"`) {
		t.Fatalf("answer n: exit %d\n%s", code, out)
	}
	if now, _ := os.ReadFile(f.store); !bytes.Equal(now, orig) {
		t.Fatal("a cancelled revocation changed the store")
	}

	out, code = answer("y")
	if code != 0 || !strings.Contains(out, "Revoked project grant proj-exp") {
		t.Fatalf("answer y: exit %d\n%s", code, out)
	}
	if now, _ := os.ReadFile(f.store); bytes.Contains(now, []byte("proj-exp")) {
		t.Fatal("proj-exp is still in the store")
	}
}
