package policy

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/events"
)

// checkDecisionEvents verifies the events a decision asks to append.
func checkDecisionEvents(t *testing.T, d *Decision, conn string) {
	t.Helper()
	if d.ID == "" || len(d.Events) == 0 {
		t.Fatalf("a live decision has id %q and %d events", d.ID, len(d.Events))
	}
	first := d.Events[0]
	data, ok := first.Data.(events.PermissionDecidedData)
	if first.Type != events.PermissionDecided || !ok || first.Stream != events.ConnectionStream(conn) {
		t.Fatalf("first event = %s on %s (%T)", first.Type, first.Stream, first.Data)
	}
	if data.DecisionID != d.ID || data.ConnectionID != conn || data.Reason != d.Reason ||
		data.Outcome != map[bool]string{true: "allow", false: "deny"}[d.Allowed] ||
		!reflect.DeepEqual(data.Missing, d.Missing) || data.PolicySeq != d.PolicySeq {
		t.Fatalf("permission_decided = %+v for decision %+v", data, d)
	}
	if d.Allowed != (data.GrantID != nil) || d.Allowed == (data.Remediation != nil) {
		t.Fatalf("grant_id / remediation presence wrong: %+v", data)
	}
	consumed := d.Allowed && d.Grant.Lifetime == LifetimeOnce
	if consumed != (len(d.Events) == 2) {
		t.Fatalf("%d events for a decision by %+v", len(d.Events), d.Grant)
	}
	if consumed {
		c := d.Events[1].Data.(events.GrantConsumedData)
		if d.Events[1].Type != events.GrantConsumed || c.DecisionID != d.ID || c.GrantID != d.Grant.GrantID || c.ConnectionID != conn {
			t.Fatalf("grant_consumed = %+v", c)
		}
	}
	// Every payload encodes; the timestamp is the contract's spelling.
	if _, err := parseTime(data.EvaluatedAt); err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Events {
		mustJSON(t, e.Data)
	}
}

func captureSetup(t testing.TB) (*tree, *Evaluator, *clock, Request) {
	t.Helper()
	tr := newTree(t)
	clk := newClock()
	ev := New(tr.config(t, tr.env()), nil, Options{Now: clk.Now, NewID: (&ids{}).Next})
	req, err := CanonicalizeRequest("test", Request{Scope: Scope{Capability: ProcessCapture,
		Roots: []string{tr.p("@/root-a")}, Executables: []string{tr.p("@/bin/tool")}, Network: NetworkLoopback},
		Access: AccessRead, OperationIdentity: "capture_process_scenario:" + tr.p("@/bin/tool")})
	if err != nil {
		t.Fatal(err)
	}
	return tr, ev, clk, req
}

func onceGrant(tr *tree, id string, req Request) Grant {
	op := req.OperationIdentity
	return grant(id, LifetimeOnce, ProcessCapture, []string{tr.p("@")}, []string{tr.p("@/bin")}, nil, NetworkLoopback, &op, nil)
}

// 100 concurrent authorizations of one once grant: exactly one succeeds, and
// only it carries grant_consumed. The same grant id on another connection is
// consumed independently.
func TestOnceGrantConsumedExactlyOnce(t *testing.T) {
	tr, ev, _, req := captureSetup(t)
	for _, conn := range []string{"A", "B"} {
		if _, err := ev.AddConnectionGrant(conn, onceGrant(tr, "01ONCE", req)); err != nil {
			t.Fatal(err)
		}
	}
	const n = 100
	var wins, consumedEvents atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			d := ev.Evaluate(Input{ConnectionID: "A", Operation: "capture_process_scenario", Request: req})
			if d.Allowed {
				wins.Add(1)
			} else if d.Reason != ReasonGrantRevokedOrConsumed {
				t.Errorf("a losing evaluation has reason %s", d.Reason)
			}
			for _, e := range d.Events {
				if e.Type == events.GrantConsumed {
					consumedEvents.Add(1)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	if wins.Load() != 1 || consumedEvents.Load() != 1 {
		t.Fatalf("%d of %d authorizations succeeded with %d grant_consumed; want exactly 1", wins.Load(), n, consumedEvents.Load())
	}
	d := ev.Evaluate(Input{ConnectionID: "B", Operation: "capture_process_scenario", Request: req})
	if !d.Allowed || d.Grant.GrantID != "01ONCE" {
		t.Fatalf("B's once grant with the same id was consumed by A: %+v", d)
	}
	checkDecisionEvents(t, &d, "B")
}

func TestDryRunConsumesNothing(t *testing.T) {
	tr, ev, _, req := captureSetup(t)
	if _, err := ev.AddConnectionGrant("A", onceGrant(tr, "o1", req)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		d := ev.Evaluate(Input{ConnectionID: "A", Request: req, DryRun: true})
		if !d.Allowed || d.ID != "" || len(d.Events) != 0 {
			t.Fatalf("dry run %d: %+v", i, d)
		}
	}
	// explain has no connection: the overlay is not consulted.
	if d := ev.Evaluate(Input{Request: req, DryRun: true, Surface: SurfaceCLI}); d.Allowed || d.Reason != ReasonGrantRequired {
		t.Fatalf("explain without a connection saw a connection grant: %+v", d)
	}
	if d := ev.Evaluate(Input{ConnectionID: "A", Request: req}); !d.Allowed {
		t.Fatalf("the once grant was consumed by a dry run: %+v", d)
	}
	if d := ev.Evaluate(Input{ConnectionID: "A", Request: req}); d.Allowed {
		t.Fatal("a once grant allowed twice")
	}
}

// A decision already made keeps its outcome; later evaluations see the
// revocation.
func TestRevocationAffectsLaterEvaluationsOnly(t *testing.T) {
	tr, ev, _, req := captureSetup(t)
	if err := ev.SetProjectGrants([]Grant{pg("p1", ProcessCapture, []string{tr.p("@")}, []string{tr.p("@/bin")}, nil, NetworkLoopback)}, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.AddConnectionGrant("A", grant("s1", LifetimeSession, ProcessCapture, []string{tr.p("@")}, []string{tr.p("@/bin")}, nil, NetworkLoopback, nil, nil)); err != nil {
		t.Fatal(err)
	}
	before := ev.Evaluate(Input{ConnectionID: "A", Request: req})
	if !before.Allowed || before.Grant.GrantID != "p1" || before.PolicySeq != 3 {
		t.Fatalf("before: %+v", before)
	}
	snapshot := mustJSON(t, before.Events)
	if !ev.RevokeProjectGrant("p1") {
		t.Fatal("p1 was not in effect")
	}
	if !before.Allowed || before.Grant.GrantID != "p1" || mustJSON(t, before.Events) != snapshot {
		t.Fatal("revocation changed a decision already made")
	}
	after := ev.Evaluate(Input{ConnectionID: "A", Request: req})
	if !after.Allowed || after.Grant.GrantID != "s1" {
		t.Fatalf("after revoking p1: %+v", after)
	}
	if _, err := ev.RevokeConnectionGrant("A", "s1", SourceElicitationRollback); err != nil {
		t.Fatal(err)
	}
	last := ev.Evaluate(Input{ConnectionID: "A", Request: req})
	if last.Allowed || last.Reason != ReasonGrantRevokedOrConsumed {
		t.Fatalf("after revoking both: %+v", last)
	}
	l := ev.List()
	if last := l[len(l)-1]; len(l) != 6 || last.GrantID != "p1" || last.State != "revoked" || last.Source != "project" || l[0].Source != "administrator" {
		// Five administrator grants (evidence roots and artifact_extract), then p1.
		t.Fatalf("list = %+v", l)
	}
}

// B closing does not clear A's grants; A's grants never authorize B.
func TestConnectionOverlaysAreLocal(t *testing.T) {
	tr, ev, _, req := captureSetup(t)
	g := grant("s1", LifetimeSession, ProcessCapture, []string{tr.p("@")}, []string{tr.p("@/bin")}, nil, NetworkLoopback, nil, nil)
	emit, err := ev.AddConnectionGrant("A", g)
	if err != nil {
		t.Fatal(err)
	}
	added := emit.Data.(events.GrantAddedData)
	if emit.Type != events.GrantAdded || emit.Stream != events.ConnectionStream("A") || added.Source != SourceElicitation ||
		added.ConnectionID == nil || *added.ConnectionID != "A" || added.Grant.GrantID != "s1" {
		t.Fatalf("grant_added = %+v", emit)
	}
	if d := ev.Evaluate(Input{ConnectionID: "B", Request: req}); d.Allowed {
		t.Fatal("A's session grant authorized B")
	}
	ev.CloseConnection("B")
	if d := ev.Evaluate(Input{ConnectionID: "A", Request: req}); !d.Allowed {
		t.Fatal("B's close cleared A's grant")
	}
	if _, err := ev.RevokeConnectionGrant("B", "s1", SourceElicitationRollback); err == nil {
		t.Fatal("B revoked A's grant")
	}
	if err := ev.MarkConsumed("B", "s1"); err == nil {
		t.Fatal("B consumed A's grant")
	}
	ev.CloseConnection("A")
	if d := ev.Evaluate(Input{ConnectionID: "A", Request: req}); d.Allowed {
		t.Fatal("A's grant survived A's close")
	}
}

func TestConnectionGrantValidation(t *testing.T) {
	tr, ev, _, req := captureSetup(t)
	all, bin := []string{tr.p("@")}, []string{tr.p("@/bin")}
	bad := map[string]Grant{
		"project lifetime":         grant("x", LifetimeProject, ProcessCapture, all, bin, nil, "", nil, nil),
		"once without identity":    grant("x", LifetimeOnce, ProcessCapture, all, bin, nil, "", nil, nil),
		"no id":                    grant("", LifetimeSession, ProcessCapture, all, bin, nil, "", nil, nil),
		"relative root":            grant("x", LifetimeSession, ProcessCapture, []string{"rel"}, bin, nil, "", nil, nil),
		"wider than the ceiling":   grant("x", LifetimeSession, ProcessCapture, []string{"/"}, bin, nil, "", nil, nil),
		"external network":         grant("x", LifetimeSession, ProcessCapture, all, bin, nil, NetworkExternal, nil, nil),
		"bad expiry":               grant("x", LifetimeSession, ProcessCapture, all, bin, nil, "", nil, strp("tomorrow")),
		"no ceiling":               grant("x", LifetimeSession, InvestigationInput, all, nil, nil, "", nil, nil),
		"invalid environment name": grant("x", LifetimeSession, ProcessCapture, all, bin, []string{"A-B"}, "", nil, nil),
	}
	for name, g := range bad {
		if _, err := ev.AddConnectionGrant("A", g); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ev.AddConnectionGrant("A", onceGrant(tr, "o1", req)); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.AddConnectionGrant("A", onceGrant(tr, "o1", req)); err == nil {
		t.Fatal("a duplicate grant id on one connection was accepted")
	}
}

// A session grant with expires_at stops at that instant under the injected
// clock.
func TestConnectionGrantExpiry(t *testing.T) {
	tr, ev, clk, req := captureSetup(t)
	clk.Set(t0)
	exp := FormatTime(t0.Add(time.Minute))
	g := grant("s1", LifetimeSession, ProcessCapture, []string{tr.p("@")}, []string{tr.p("@/bin")}, nil, NetworkLoopback, nil, &exp)
	if _, err := ev.AddConnectionGrant("A", g); err != nil {
		t.Fatal(err)
	}
	if d := ev.Evaluate(Input{ConnectionID: "A", Request: req}); !d.Allowed {
		t.Fatal(d.Reason)
	}
	clk.Set(t0.Add(time.Minute))
	if d := ev.Evaluate(Input{ConnectionID: "A", Request: req}); d.Allowed || d.Reason != ReasonGrantExpired {
		t.Fatalf("at expires_at: %+v", d)
	}
}

// Environment values never enter a grant, a denial, a decision or an event:
// the vocabulary carries names only, and a configuration error names the
// variable, never its value.
func TestEnvironmentValuesNeverLeak(t *testing.T) {
	const secret = "s3cr3t-VALUE-never-logged-7f2c"
	t.Setenv("ALLOWED_A", secret)
	t.Setenv("SECRET_NAME", secret)
	tr, ev, _, req := captureSetup(t)
	var outputs []any

	req.EnvironmentNames = []string{"ALLOWED_A"}
	d := ev.Evaluate(Input{ConnectionID: "A", Operation: "capture_process_scenario", Request: req, ElicitationForm: true})
	outputs = append(outputs, d.Events, d.Err(), d.Missing)
	g := grant("s1", LifetimeSession, ProcessCapture, []string{tr.p("@")}, []string{tr.p("@/bin")}, []string{"ALLOWED_A"}, NetworkLoopback, nil, nil)
	emit, err := ev.AddConnectionGrant("A", g)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, emit)
	d = ev.Evaluate(Input{ConnectionID: "A", Operation: "capture_process_scenario", Request: req})
	if !d.Allowed {
		t.Fatal(d.Reason)
	}
	outputs = append(outputs, d.Events, d.Grant)
	req.EnvironmentNames = []string{"ALLOWED_A", "SECRET_NAME"}
	d = ev.Evaluate(Input{ConnectionID: "A", Operation: "capture_process_scenario", Request: req})
	outputs = append(outputs, d.Events, d.Err())
	emit, _ = ev.RevokeConnectionGrant("A", "s1", SourceElicitationRollback)
	outputs = append(outputs, emit)
	r, err := ev.Reload(TriggerStartup)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, r.Events, ev.List(), ev.Ceilings().Scopes())

	// Bad variables: the error names the variable and the reason only.
	for _, env := range []map[string]string{
		{EnvEvidenceRoots: secret},
		{EnvEvidenceRoots: jsonList("/" + secret)},
		{EnvProcessAllowedEnv: jsonList(secret + "-x")},
		{EnvProcessCaptureEnabled: secret},
		{EnvProjectRoot: "/" + secret, EnvProjectStore: "/tmp/store.json"},
	} {
		_, err := LoadConfig(env)
		if err == nil {
			t.Fatalf("LoadConfig accepted %v", env)
		}
		outputs = append(outputs, err, err.Error())
	}

	all := mustJSON(t, outputs)
	if strings.Contains(all, secret) {
		t.Fatalf("an environment value leaked: %s", all)
	}
	if !strings.Contains(all, "ALLOWED_A") || !strings.Contains(all, "SECRET_NAME") {
		t.Fatal("environment names are missing from the outputs (the test checked nothing)")
	}
}

func TestCeilingsFromEnvironment(t *testing.T) {
	tr := newTree(t)
	env := tr.env()
	env[EnvProcessAllowExternalNetwork] = "true"
	env[EnvNativeMountEnabled] = "true"
	env[EnvInvestigationInputRoots] = jsonList(tr.p("@/root-a/link-in"), tr.p("@/root-a/sub"))
	env[EnvAnalysisSnapshotRoots] = jsonList(tr.p("@/root-ab"))
	env[EnvReferenceRoots] = jsonList(tr.p("@/outside"))
	cfg := tr.config(t, env)
	c := cfg.Ceilings
	want := map[string]*Scope{
		ProcessCapture: {Capability: ProcessCapture, Roots: []string{tr.base}, Executables: []string{tr.p("@/bin")},
			EnvironmentNames: []string{"ALLOWED_A", "ALLOWED_B"}, Network: NetworkExternal},
		EvidenceRead:                rootScope(EvidenceRead, []string{tr.p("@/root-a")}),
		EvidenceWrite:               rootScope(EvidenceWrite, []string{tr.p("@/root-a")}),
		InvestigationInput:          rootScope(InvestigationInput, []string{tr.p("@/root-a/sub")}), // realpath'd and deduplicated
		InvestigationWorkspaceRead:  rootScope(InvestigationWorkspaceRead, []string{tr.p("@/root-a")}),
		InvestigationWorkspaceWrite: rootScope(InvestigationWorkspaceWrite, []string{tr.p("@/root-a")}),
		SnapshotRead:                rootScope(SnapshotRead, []string{tr.p("@/root-ab")}),
		SnapshotWrite:               rootScope(SnapshotWrite, []string{tr.p("@/root-ab")}),
		ArtifactExtract:             rootScope(ArtifactExtract, []string{"/"}),
		NativeMount:                 {Capability: NativeMount, Roots: []string{}, Executables: []string{}, EnvironmentNames: []string{}, Network: NetworkNone, Mount: true},
		ReferenceRead:               rootScope(ReferenceRead, []string{tr.p("@/outside")}),
	}
	if len(Capabilities()) != 11 || len(want) != 11 {
		t.Fatal("the capability list is not CONTRACTS.md's eleven")
	}
	for _, capability := range Capabilities() {
		if got := c.Ceiling(capability); !reflect.DeepEqual(got, want[capability]) {
			t.Errorf("%s ceiling = %+v, want %+v", capability, got, want[capability])
		}
	}
	if got := len(c.Scopes()); got != 11 {
		t.Errorf("%d scopes", got)
	}
	var ids []string
	for _, g := range c.AdministratorGrants() {
		ids = append(ids, g.GrantID)
	}
	if len(ids) != 10 || strings.Contains(strings.Join(ids, ","), ProcessCapture) {
		t.Errorf("administrator grants = %v (every capability but process_capture)", ids)
	}
	// The digest is of the recorded scopes, and a replay rebuilds the same ceilings.
	again, err := CeilingsFromScopes(c.Scopes())
	if err != nil || again.Digest() != c.Digest() {
		t.Fatalf("CeilingsFromScopes: %v", err)
	}

	// Defaults: nothing set gives only the artifact_extract ceiling.
	empty := tr.config(t, map[string]string{})
	if s := empty.Ceilings.Scopes(); len(s) != 1 || s[0].Capability != ArtifactExtract || empty.Store != nil {
		t.Fatalf("empty environment: %+v", s)
	}
	if mustJSON(t, empty.Ceilings.Ceiling(ProcessCapture)) != "null" {
		t.Fatal("process capture has a ceiling without REA_PROCESS_CAPTURE_ENABLED")
	}

	// REA_ARTIFACT_EXTRACT_ROOTS_JSON narrows artifact_extract (realpath'd
	// like every root list); an explicit [] leaves no ceiling, so nothing
	// may be extracted.
	narrowed := tr.config(t, map[string]string{EnvArtifactExtractRoots: jsonList(tr.p("@/root-a/link-in"), tr.p("@/root-ab"))})
	if got, want := narrowed.Ceilings.Ceiling(ArtifactExtract), rootScope(ArtifactExtract, []string{tr.p("@/root-a/sub"), tr.p("@/root-ab")}); !reflect.DeepEqual(got, want) {
		t.Errorf("narrowed artifact_extract = %+v, want %+v", got, want)
	}
	if off := tr.config(t, map[string]string{EnvArtifactExtractRoots: "[]"}); off.Ceilings.Ceiling(ArtifactExtract) != nil {
		t.Errorf("[] leaves artifact_extract %+v", off.Ceilings.Ceiling(ArtifactExtract))
	}
	// Capture enabled with loopback by default.
	env = tr.env()
	if c := tr.config(t, env).Ceilings.Ceiling(ProcessCapture); c.Network != NetworkLoopback {
		t.Fatalf("default capture network %s", c.Network)
	}
}

func TestConfigurationErrors(t *testing.T) {
	tr := newTree(t)
	many := make([]string, 129)
	for i := range many {
		many[i] = tr.p("@/root-a")
	}
	cases := []struct {
		name     string
		env      map[string]string
		variable string
		reason   string
	}{
		{"not json", map[string]string{EnvEvidenceRoots: "/root"}, EnvEvidenceRoots, ReasonInvalidJSON},
		{"json object", map[string]string{EnvEvidenceRoots: `{"a":1}`}, EnvEvidenceRoots, ReasonInvalidJSON},
		{"json null", map[string]string{EnvEvidenceRoots: `null`}, EnvEvidenceRoots, ReasonInvalidJSON},
		{"non-string entry", map[string]string{EnvEvidenceRoots: `[1]`}, EnvEvidenceRoots, ReasonInvalidJSON},
		{"trailing data", map[string]string{EnvEvidenceRoots: `[] []`}, EnvEvidenceRoots, ReasonInvalidJSON},
		{"129 entries", map[string]string{EnvEvidenceRoots: jsonList(many...)}, EnvEvidenceRoots, ReasonTooManyEntries},
		{"empty entry", map[string]string{EnvReferenceRoots: jsonList("")}, EnvReferenceRoots, ReasonEmptyEntry},
		{"relative root", map[string]string{EnvAnalysisSnapshotRoots: jsonList("rel/dir")}, EnvAnalysisSnapshotRoots, ReasonRelativePath},
		{"relative extract root", map[string]string{EnvArtifactExtractRoots: jsonList("rel/dir")}, EnvArtifactExtractRoots, ReasonRelativePath},
		{"missing extract root", map[string]string{EnvArtifactExtractRoots: jsonList(tr.p("@/nope"))}, EnvArtifactExtractRoots, ReasonRootNotFound},
		{"missing root", map[string]string{EnvInvestigationInputRoots: jsonList(tr.p("@/nope"))}, EnvInvestigationInputRoots, ReasonRootNotFound},
		{"bad boolean", map[string]string{EnvProcessCaptureEnabled: "yes"}, EnvProcessCaptureEnabled, ReasonInvalidBoolean},
		{"bad boolean case", map[string]string{EnvNativeMountEnabled: "TRUE"}, EnvNativeMountEnabled, ReasonInvalidBoolean},
		{"bad external boolean", map[string]string{EnvProcessAllowExternalNetwork: "1"}, EnvProcessAllowExternalNetwork, ReasonInvalidBoolean},
		{"bad env name", map[string]string{EnvProcessAllowedEnv: jsonList("A B")}, EnvProcessAllowedEnv, ReasonInvalidName},
		{"capture without working roots", map[string]string{EnvProcessCaptureEnabled: "true", EnvProcessExecutableRoots: jsonList(tr.p("@/bin"))}, EnvProcessWorkingRoots, ReasonRootsRequired},
		{"capture without executable roots", map[string]string{EnvProcessCaptureEnabled: "true", EnvProcessWorkingRoots: jsonList(tr.p("@"))}, EnvProcessExecutableRoots, ReasonRootsRequired},
		{"capture with an empty executable list", map[string]string{EnvProcessCaptureEnabled: "true", EnvProcessWorkingRoots: jsonList(tr.p("@")), EnvProcessExecutableRoots: "[]"}, EnvProcessExecutableRoots, ReasonRootsRequired},
		{"store without root", map[string]string{EnvProjectStore: tr.p("@/project/store.json")}, EnvProjectRoot, ReasonIncompletePair},
		{"root without store", map[string]string{EnvProjectRoot: tr.p("@/project")}, EnvProjectStore, ReasonIncompletePair},
		{"relative project root", map[string]string{EnvProjectRoot: "project", EnvProjectStore: tr.p("@/s.json")}, EnvProjectRoot, ReasonRelativePath},
		{"relative store", map[string]string{EnvProjectRoot: tr.p("@/project"), EnvProjectStore: "s.json"}, EnvProjectStore, ReasonRelativePath},
		{"missing project root", map[string]string{EnvProjectRoot: tr.p("@/gone"), EnvProjectStore: tr.p("@/s.json")}, EnvProjectRoot, StoreProjectNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfig(tc.env)
			if err == nil {
				t.Fatal("accepted")
			}
			b, _ := json.Marshal(err)
			var e struct {
				Code    string
				Details map[string]string
			}
			_ = json.Unmarshal(b, &e)
			if e.Code != "configuration_invalid" || e.Details["variable"] != tc.variable || e.Details["reason"] != tc.reason {
				t.Fatalf("error = %s, want %s/%s", b, tc.variable, tc.reason)
			}
		})
	}
}

func TestCanonicalizeRequestValidation(t *testing.T) {
	tr := newTree(t)
	base := Request{Scope: Scope{Capability: EvidenceRead, Roots: []string{tr.p("@/root-a/f.txt"), tr.p("@/root-a/link-in/../f.txt")},
		Network: NetworkNone}, Access: AccessRead, OperationIdentity: "import_evidence:x"}
	got, err := CanonicalizeRequest("op", base)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Roots, []string{tr.p("@/root-a/f.txt")}) || got.Executables == nil || got.EnvironmentNames == nil {
		t.Fatalf("canonical request = %+v (deduplicated, sorted, never null)", got)
	}
	for name, mutate := range map[string]func(*Request){
		"capability":  func(r *Request) { r.Capability = "root_shell" },
		"network":     func(r *Request) { r.Network = "host" },
		"access":      func(r *Request) { r.Access = "append" },
		"identity":    func(r *Request) { r.OperationIdentity = "" },
		"environment": func(r *Request) { r.EnvironmentNames = []string{"1BAD"} },
	} {
		r := base
		mutate(&r)
		if _, err := CanonicalizeRequest("op", r); err == nil || !strings.Contains(err.Error(), "invalid_request") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A missing executable is a missing read path, whatever the access.
	r := base
	r.Access, r.Executables = AccessWrite, []string{tr.p("@/bin/none")}
	if _, err := CanonicalizeRequest("op", r); err == nil || PathFault("op", "/executable", err).Code != "invalid_request" {
		t.Fatalf("missing executable: %v", err)
	}
}
