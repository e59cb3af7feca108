package policy

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

const opCapture = "capture_process_scenario:@/bin/tool"

// rq is a request for capability over roots (paths may start with "@").
func rq(capability, access string, roots ...string) Request {
	return Request{Scope: Scope{Capability: capability, Roots: roots, Network: NetworkNone},
		Access: access, OperationIdentity: "policy_explain:" + capability}
}

// pc is a process_capture request of @/bin/tool in dir.
func pc(dir string, env []string, network string) Request {
	return Request{Scope: Scope{Capability: ProcessCapture, Roots: []string{dir},
		Executables: []string{"@/bin/tool"}, EnvironmentNames: env, Network: network},
		Access: AccessRead, OperationIdentity: opCapture}
}

func with(r Request, f func(*Request)) Request { f(&r); return r }

// pg is a project grant; cg a connection grant.
func pg(id, capability string, roots, exes, env []string, network string) Grant {
	return grant(id, LifetimeProject, capability, roots, exes, env, network, nil, nil)
}

func cg(id, lifetime string, roots, exes, env []string, network string, opID *string) Grant {
	return grant(id, lifetime, ProcessCapture, roots, exes, env, network, opID, nil)
}

func withG(g Grant, f func(*Grant)) Grant { f(&g); return g }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type matrixCase struct {
	name     string
	req      Request
	project  []Grant
	conn     []Grant // overlay of connection A
	evalConn string  // default A
	revoke   []string
	consume  []string
	advance  time.Duration
	surface  Surface
	elicit   bool

	setupErr    bool  // installing the grants must fail
	canonErr    error // CanonicalizeRequest must fail with this
	allow       bool
	reason      string
	grantID     string
	remediation string
	missing     MissingScope
}

func TestPolicyMatrix(t *testing.T) {
	all := []string{"@"}
	bin := []string{"@/bin"}
	envAB := []string{"ALLOWED_A", "ALLOWED_B"}
	adminER := AdministratorGrantID(EvidenceRead)
	adminEW := AdministratorGrantID(EvidenceWrite)
	inOneHour := strp(FormatTime(t0.Add(time.Hour)))
	atT0 := strp(FormatTime(t0))
	otherOp := strp("capture_process_scenario:@/bin/other")

	cases := []matrixCase{
		// Containment and canonicalization against the evidence ceiling [root-a].
		{name: "read inside root", req: rq(EvidenceRead, AccessRead, "@/root-a/f.txt"), allow: true, grantID: adminER},
		{name: "read the root itself", req: rq(EvidenceRead, AccessRead, "@/root-a"), allow: true, grantID: adminER},
		{name: "sibling prefix /root-ab is not in /root-a", req: rq(EvidenceRead, AccessRead, "@/root-ab/g.txt"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/root-ab/g.txt"}}},
		{name: "sibling prefix directory itself", req: rq(EvidenceRead, AccessRead, "@/root-ab"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/root-ab"}}},
		{name: "outside ceiling from the CLI asks to configure", req: rq(EvidenceRead, AccessRead, "@/root-ab/g.txt"), surface: SurfaceCLI,
			reason: ReasonOutsideCeiling, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-ab/g.txt"}}},
		{name: "dotdot escape", req: rq(EvidenceRead, AccessRead, "@/root-a/../outside/secret.txt"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/outside/secret.txt"}}},
		{name: "dotdot that stays inside", req: rq(EvidenceRead, AccessRead, "@/root-a/sub/../f.txt"), allow: true, grantID: adminER},
		{name: "symlink out of the root", req: rq(EvidenceRead, AccessRead, "@/root-a/link-out/secret.txt"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/outside/secret.txt"}}},
		{name: "symlink inside the root", req: rq(EvidenceRead, AccessRead, "@/root-a/link-in"), allow: true, grantID: adminER},
		{name: "missing read path is invalid", req: rq(EvidenceRead, AccessRead, "@/root-a/nope.json"), canonErr: ErrNotFound},
		{name: "relative path is invalid", req: rq(EvidenceRead, AccessRead, "root-a/f.txt"), canonErr: ErrNotAbsolute},
		{name: "missing write leaf resolves through its parent", req: rq(EvidenceWrite, AccessWrite, "@/root-a/new.json"), allow: true, grantID: adminEW},
		{name: "missing write leaf in a missing directory", req: rq(EvidenceWrite, AccessWrite, "@/root-a/nodir/new.json"), canonErr: ErrNotFound},
		{name: "missing write leaf under a file", req: rq(EvidenceWrite, AccessWrite, "@/root-a/f.txt/new.json"), canonErr: ErrNotFound},
		{name: "missing write leaf through a symlinked parent", req: rq(EvidenceWrite, AccessWrite, "@/root-a/link-out/new.json"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/outside/new.json"}}},
		{name: "write leaf that is a dangling symlink out of the root", req: rq(EvidenceWrite, AccessWrite, "@/root-a/dangle-out"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/outside/created.json"}}},
		{name: "write leaf that is a dangling symlink inside the root", req: rq(EvidenceWrite, AccessWrite, "@/root-a/dangle-in"), allow: true, grantID: adminEW},
		{name: "dotdot after a symlink resolves physically", req: rq(EvidenceWrite, AccessWrite, "@/root-a/link-out/../new.json"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/new.json"}}},
		{name: "write into the sibling root", req: rq(EvidenceWrite, AccessWrite, "@/root-ab/new.json"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/root-ab/new.json"}}},
		{name: "capability without a ceiling", req: rq(InvestigationInput, AccessRead, "@/root-a/f.txt"),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"@/root-a/f.txt"}}},
		{name: "artifact extraction ceiling is /", req: rq(ArtifactExtract, AccessWrite, "@/outside/new-dir"), allow: true, grantID: AdministratorGrantID(ArtifactExtract)},
		{name: "native mount disabled", req: with(rq(NativeMount, AccessRead), func(r *Request) { r.Mount = true }),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Mount: true}},
		{name: "administrator grant wins over a project grant", req: rq(EvidenceRead, AccessRead, "@/root-a/f.txt"),
			project: []Grant{pg("p1", EvidenceRead, []string{"@/root-a"}, nil, nil, "")}, allow: true, grantID: adminER},

		// Process capture: inside base, executables under bin, two names, loopback.
		{name: "capture without a grant, elicitation possible", req: pc("@/root-a", nil, NetworkNone), elicit: true,
			reason: ReasonGrantRequired, remediation: RemediationElicit,
			missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "capture without a grant, no elicitation", req: pc("@/root-a", []string{"ALLOWED_A"}, NetworkLoopback),
			reason: ReasonGrantRequired, remediation: RemediationConfigure,
			missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}, EnvironmentNames: []string{"ALLOWED_A"}, Network: NetworkLoopback}},
		{name: "elicitation is never offered on the CLI", req: pc("@/root-a", nil, NetworkNone), elicit: true, surface: SurfaceCLI,
			reason: ReasonGrantRequired, remediation: RemediationConfigure,
			missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "executable outside the executable roots", req: with(pc("@/root-a", nil, NetworkNone), func(r *Request) { r.Executables = []string{"@/root-a/f.txt"} }),
			elicit: true, reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Executables: []string{"@/root-a/f.txt"}}},
		{name: "environment name outside the ceiling", req: pc("@/root-a", []string{"ALLOWED_A", "SECRET_NAME"}, NetworkNone), elicit: true,
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{EnvironmentNames: []string{"SECRET_NAME"}}},
		{name: "external network outside a loopback ceiling, no prompt", req: pc("@/root-a", nil, NetworkExternal), elicit: true,
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Network: NetworkExternal}},
		{name: "mount outside the capture ceiling", req: with(pc("@/root-a", nil, NetworkNone), func(r *Request) { r.Mount = true }),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Mount: true}},
		{name: "working directory outside the capture ceiling", req: pc("/", nil, NetworkNone),
			reason: ReasonOutsideCeiling, remediation: RemediationRestart, missing: MissingScope{Roots: []string{"/"}}},
		{name: "project grant covering the whole request", req: pc("@/root-a/sub", envAB, NetworkLoopback),
			project: []Grant{pg("p1", ProcessCapture, all, bin, envAB, NetworkLoopback)}, allow: true, grantID: "p1"},
		{name: "project grant root is not a prefix of its sibling", req: pc("@/root-ab", nil, NetworkNone),
			project: []Grant{pg("p1", ProcessCapture, []string{"@/root-a"}, bin, nil, "")},
			reason:  ReasonGrantRequired, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-ab"}}},
		{name: "partial grants never combine (roots)", req: with(pc("@/root-a", nil, NetworkNone), func(r *Request) { r.Roots = []string{"@/root-a", "@/root-ab"} }),
			project: []Grant{pg("p1", ProcessCapture, []string{"@/root-a"}, bin, nil, ""), pg("p2", ProcessCapture, []string{"@/root-ab"}, bin, nil, "")},
			reason:  ReasonGrantRequired, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-ab"}}},
		{name: "partial grants never combine (roots vs environment)", req: pc("@/root-a", []string{"ALLOWED_A"}, NetworkNone),
			project: []Grant{pg("p1", ProcessCapture, all, bin, nil, ""), pg("p2", ProcessCapture, nil, nil, envAB, "")},
			reason:  ReasonGrantRequired, remediation: RemediationConfigure, missing: MissingScope{EnvironmentNames: []string{"ALLOWED_A"}}},
		{name: "partial project and session grants never combine", req: pc("@/root-a", nil, NetworkLoopback),
			project: []Grant{pg("p1", ProcessCapture, all, bin, nil, NetworkNone)},
			conn:    []Grant{cg("s1", LifetimeSession, nil, nil, nil, NetworkLoopback, nil)},
			reason:  ReasonGrantRequired, remediation: RemediationConfigure, missing: MissingScope{Network: NetworkLoopback}},
		{name: "grant network none does not cover loopback", req: pc("@/root-a", nil, NetworkLoopback),
			project: []Grant{pg("p1", ProcessCapture, all, bin, nil, NetworkNone)},
			reason:  ReasonGrantRequired, remediation: RemediationConfigure, missing: MissingScope{Network: NetworkLoopback}},
		{name: "grant loopback covers none", req: pc("@/root-a", nil, NetworkNone),
			project: []Grant{pg("p1", ProcessCapture, all, bin, nil, NetworkLoopback)}, allow: true, grantID: "p1"},
		{name: "operation identity must match", req: pc("@/root-a", nil, NetworkNone),
			project: []Grant{withG(pg("p1", ProcessCapture, all, bin, nil, ""), func(g *Grant) { g.OperationIdentity = otherOp })},
			reason:  ReasonGrantRequired, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "operation identity that matches", req: pc("@/root-a", nil, NetworkNone),
			project: []Grant{withG(pg("p1", ProcessCapture, all, bin, nil, ""), func(g *Grant) { g.OperationIdentity = strp(opCapture) })},
			allow:   true, grantID: "p1"},
		{name: "expired project grant", req: pc("@/root-a", nil, NetworkNone), advance: 2 * time.Hour,
			project: []Grant{withG(pg("p1", ProcessCapture, all, bin, nil, ""), func(g *Grant) { g.ExpiresAt = inOneHour })},
			reason:  ReasonGrantExpired, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "grant not yet expired", req: pc("@/root-a", nil, NetworkNone), advance: 59 * time.Minute,
			project: []Grant{withG(pg("p1", ProcessCapture, all, bin, nil, ""), func(g *Grant) { g.ExpiresAt = inOneHour })},
			allow:   true, grantID: "p1"},
		{name: "expires_at equal to now is expired", req: pc("@/root-a", nil, NetworkNone),
			project: []Grant{withG(pg("p1", ProcessCapture, all, bin, nil, ""), func(g *Grant) { g.ExpiresAt = atT0 })},
			reason:  ReasonGrantExpired, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "expired grant, missing from the closest active one", req: pc("@/root-a", []string{"ALLOWED_A"}, NetworkNone), advance: 2 * time.Hour,
			project: []Grant{withG(pg("p1", ProcessCapture, all, bin, envAB, ""), func(g *Grant) { g.ExpiresAt = inOneHour }),
				pg("p2", ProcessCapture, all, bin, nil, "")},
			reason: ReasonGrantExpired, remediation: RemediationConfigure, missing: MissingScope{EnvironmentNames: []string{"ALLOWED_A"}}},
		{name: "revoked project grant", req: pc("@/root-a", nil, NetworkNone), revoke: []string{"p1"},
			project: []Grant{pg("p1", ProcessCapture, all, bin, nil, "")},
			reason:  ReasonGrantRevokedOrConsumed, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "revocation of one grant leaves another", req: pc("@/root-a", nil, NetworkNone), revoke: []string{"p1"},
			project: []Grant{pg("p1", ProcessCapture, all, bin, nil, ""), pg("p2", ProcessCapture, all, bin, nil, "")}, allow: true, grantID: "p2"},
		{name: "project grant outside the ceiling is refused", req: pc("@/root-a", nil, NetworkNone),
			project: []Grant{pg("p1", ProcessCapture, []string{"/"}, bin, nil, "")}, setupErr: true},
		{name: "project grant wider network than the ceiling is refused", req: pc("@/root-a", nil, NetworkNone),
			project: []Grant{pg("p1", ProcessCapture, all, bin, nil, NetworkExternal)}, setupErr: true},
		{name: "project grant for a capability without a ceiling is refused", req: rq(InvestigationInput, AccessRead, "@/root-a"),
			project: []Grant{pg("p1", InvestigationInput, all, nil, nil, "")}, setupErr: true},
		{name: "session grant outside the ceiling is refused", req: pc("@/root-a", nil, NetworkNone),
			conn: []Grant{cg("s1", LifetimeSession, all, bin, []string{"SECRET_NAME"}, "", nil)}, setupErr: true},
		{name: "session grant on this connection", req: pc("@/root-a", nil, NetworkLoopback),
			conn: []Grant{cg("s1", LifetimeSession, all, bin, nil, NetworkLoopback, nil)}, allow: true, grantID: "s1"},
		{name: "session grant of another connection", req: pc("@/root-a", nil, NetworkNone), evalConn: "B", elicit: true,
			conn:   []Grant{cg("s1", LifetimeSession, all, bin, nil, "", nil)},
			reason: ReasonGrantRequired, remediation: RemediationElicit, missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "once grant on this connection", req: pc("@/root-a", nil, NetworkNone),
			conn: []Grant{cg("o1", LifetimeOnce, all, bin, nil, "", strp(opCapture))}, allow: true, grantID: "o1"},
		{name: "once grant already consumed", req: pc("@/root-a", nil, NetworkNone), consume: []string{"o1"}, elicit: true,
			conn:   []Grant{cg("o1", LifetimeOnce, all, bin, nil, "", strp(opCapture))},
			reason: ReasonGrantRevokedOrConsumed, remediation: RemediationElicit, missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "once grant for another operation", req: pc("@/root-a", nil, NetworkNone),
			conn:   []Grant{cg("o1", LifetimeOnce, all, bin, nil, "", otherOp)},
			reason: ReasonGrantRequired, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
		{name: "project before session", req: pc("@/root-a", nil, NetworkNone),
			project: []Grant{pg("p9", ProcessCapture, all, bin, nil, "")},
			conn:    []Grant{cg("a1", LifetimeSession, all, bin, nil, "", nil)}, allow: true, grantID: "p9"},
		{name: "session before once", req: pc("@/root-a", nil, NetworkNone),
			conn:  []Grant{cg("z1", LifetimeSession, all, bin, nil, "", nil), cg("a1", LifetimeOnce, all, bin, nil, "", strp(opCapture))},
			allow: true, grantID: "z1"},
		{name: "grant_id orders grants of one lifetime", req: pc("@/root-a", nil, NetworkNone),
			project: []Grant{pg("p2", ProcessCapture, all, bin, nil, ""), pg("p1", ProcessCapture, all, bin, nil, "")}, allow: true, grantID: "p1"},
		{name: "revoked session grant", req: pc("@/root-a", nil, NetworkNone), revoke: []string{"s1"},
			conn:   []Grant{cg("s1", LifetimeSession, all, bin, nil, "", nil)},
			reason: ReasonGrantRevokedOrConsumed, remediation: RemediationConfigure, missing: MissingScope{Roots: []string{"@/root-a"}, Executables: []string{"@/bin/tool"}}},
	}
	if len(cases) < 40 {
		t.Fatalf("the matrix has %d cases; the acceptance item asks for at least 40", len(cases))
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			clk := newClock()
			clk.Set(t0)
			ev := New(tr.config(t, tr.env()), nil, Options{Now: clk.Now, NewID: (&ids{}).Next})

			expandGrant := func(g Grant) Grant {
				g = cloneGrant(g)
				g.Roots, g.Executables = tr.ps(g.Roots), tr.ps(g.Executables)
				if g.OperationIdentity != nil {
					v := tr.p(*g.OperationIdentity)
					g.OperationIdentity = &v
				}
				return g
			}
			var setupErr error
			var project []Grant
			for _, g := range tc.project {
				project = append(project, expandGrant(g))
			}
			if err := ev.SetProjectGrants(project, 7); err != nil {
				setupErr = err
			}
			for _, g := range tc.conn {
				if _, err := ev.AddConnectionGrant("A", expandGrant(g)); err != nil {
					setupErr = err
				}
			}
			if tc.setupErr {
				if setupErr == nil {
					t.Fatal("installing a grant outside the ceiling succeeded")
				}
				return
			}
			if setupErr != nil {
				t.Fatalf("setup: %v", setupErr)
			}
			for _, id := range tc.revoke {
				if !ev.RevokeProjectGrant(id) {
					if _, err := ev.RevokeConnectionGrant("A", id, SourceCLI); err != nil {
						t.Fatalf("revoke %s: %v", id, err)
					}
				}
			}
			for _, id := range tc.consume {
				if err := ev.MarkConsumed("A", id); err != nil {
					t.Fatal(err)
				}
			}
			clk.Set(t0.Add(tc.advance))

			raw := tc.req
			raw.Roots, raw.Executables = tr.ps(raw.Roots), tr.ps(raw.Executables)
			raw.OperationIdentity = tr.p(raw.OperationIdentity)
			req, err := CanonicalizeRequest("test", raw)
			if tc.canonErr != nil {
				if !errors.Is(err, tc.canonErr) {
					t.Fatalf("CanonicalizeRequest error = %v, want %v", err, tc.canonErr)
				}
				if fe := PathFault("test", "/roots/0", err); fe.Code != "invalid_request" {
					t.Fatalf("PathFault code = %s", fe.Code)
				}
				return
			}
			if err != nil {
				t.Fatalf("CanonicalizeRequest: %v", err)
			}
			conn := tc.evalConn
			if conn == "" {
				conn = "A"
			}
			d := ev.Evaluate(Input{ConnectionID: conn, Operation: "test_tool", Request: req,
				Surface: tc.surface, ElicitationForm: tc.elicit})

			if d.Allowed != tc.allow {
				t.Fatalf("allowed = %v (reason %s, missing %+v), want %v", d.Allowed, d.Reason, d.Missing, tc.allow)
			}
			if tc.allow {
				if d.Grant == nil || d.Grant.GrantID != tc.grantID || d.Reason != ReasonGranted {
					t.Fatalf("determining grant = %+v, want %s", d.Grant, tc.grantID)
				}
				if d.Err() != nil {
					t.Fatal("an allowed decision has an error")
				}
			} else {
				if d.Reason != tc.reason || d.Remediation != tc.remediation {
					t.Fatalf("reason/remediation = %s/%s, want %s/%s", d.Reason, d.Remediation, tc.reason, tc.remediation)
				}
				want := tc.missing
				want.Roots, want.Executables = tr.ps(want.Roots), tr.ps(want.Executables)
				if !reflect.DeepEqual(d.Missing, want) {
					t.Fatalf("missing = %+v, want %+v", d.Missing, want)
				}
				checkDenial(t, &d)
			}
			checkDecisionEvents(t, &d, conn)
		})
	}
}

// checkDenial verifies the permission_required envelope of §9.8.
func checkDenial(t *testing.T, d *Decision) {
	t.Helper()
	fe := d.Err()
	if fe == nil || fe.Code != "permission_required" || fe.Category != "permission_required" || fe.Retryable {
		t.Fatalf("denial envelope = %+v", fe)
	}
	if fe.Remediation.ElicitationSupported == nil {
		t.Fatal("elicitation_supported absent from a permission_required denial")
	}
	wantRestart := d.Reason == ReasonOutsideCeiling && d.Surface == SurfaceMCP
	if fe.Remediation.RestartRequired != wantRestart {
		t.Fatalf("restart_required = %v, want %v", fe.Remediation.RestartRequired, wantRestart)
	}
	if *fe.Remediation.ElicitationSupported != (d.Remediation == RemediationElicit) {
		t.Fatalf("elicitation_supported = %v with remediation %s", *fe.Remediation.ElicitationSupported, d.Remediation)
	}
	if d.Reason == ReasonOutsideCeiling && *fe.Remediation.ElicitationSupported {
		t.Fatal("a request outside the ceiling offers elicitation")
	}
	for _, k := range []string{"capability", "requested", "missing", "ceiling"} {
		if _, ok := fe.Details[k]; !ok {
			t.Fatalf("details lack %s: %+v", k, fe.Details)
		}
	}
	if len(fe.Details) != 4 {
		t.Fatalf("details carry extra fields: %+v", fe.Details)
	}
	if _, ok := fe.Details["requested"].(Scope); !ok {
		t.Fatalf("requested is %T, want a Scope (no operation identity or access)", fe.Details["requested"])
	}
}
