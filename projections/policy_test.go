package projections

import (
	"errors"
	"slices"
	"testing"

	"github.com/rea-re/rea/engine/events"
)

func pgrant(id string) events.Grant {
	return events.Grant{Scope: events.Scope{Capability: "evidence_read", Roots: []string{"/r"}, Executables: []string{},
		EnvironmentNames: []string{}, Network: "none"}, GrantID: id, Lifetime: "project"}
}

func reloadEv(seq int64, trigger string) PolicyEvent {
	return PolicyEvent{Seq: seq, Type: events.PolicyReloaded, Reload: &events.PolicyReloadedData{Trigger: trigger, Outcome: "applied",
		AdministratorCeilings: []events.Scope{{Capability: "evidence_read", Roots: []string{"/r" + trigger}}}}}
}

func addEv(seq int64, id string) PolicyEvent {
	return PolicyEvent{Seq: seq, Type: events.GrantAdded, Added: &events.GrantAddedData{Grant: pgrant(id), Source: "project_store"}}
}

func revokeEv(seq int64, id, source string) PolicyEvent {
	return PolicyEvent{Seq: seq, Type: events.GrantRevoked, Revoked: &events.GrantRevokedData{GrantID: id, Source: source}}
}

// TestPolicyForDecision: which project grants a recorded decision was made
// under, from the policy stream before it.
func TestPolicyForDecision(t *testing.T) {
	// seq 1–3: an earlier process (startup adds a, old; old is revoked by
	// the CLI). seq 10: this process's startup, whose diff revokes a (it
	// left the store) and adds b, c. seq 20: a CLI revocation of c (and
	// the CLI's own startup reload at 18, adding d, which this process
	// does not hold until a SIGHUP). seq 30: a SIGHUP adding d.
	evs := []PolicyEvent{
		reloadEv(1, "startup"), addEv(2, "a"), addEv(3, "old"), revokeEv(4, "old", "cli"),
		reloadEv(10, "startup"), revokeEv(11, "a", "project_store"), addEv(12, "b"), addEv(13, "c"),
		reloadEv(18, "startup"), addEv(19, "d"), revokeEv(20, "c", "cli"),
		reloadEv(30, "sighup"), addEv(31, "d"),
	}
	ids := func(gs []events.Grant) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.GrantID)
		}
		return out
	}
	cases := []struct {
		name         string
		before       int64 // the decision's seq
		policySeq    int64
		project      []string
		revoked      []string
		ceilingsFrom string
		wantNoReload bool
	}{
		{"after this startup", 15, 10, []string{"b", "c"}, nil, "startup", false},
		{"after the CLI revoke, before SIGHUP", 25, 10, []string{"b", "c"}, []string{"c"}, "startup", false},
		{"after SIGHUP", 35, 30, []string{"b", "c", "d"}, []string{"c"}, "sighup", false},
		{"the earlier process", 5, 1, []string{"a", "old"}, []string{"old"}, "startup", false},
		{"no reload applied", 15, 0, nil, nil, "startup", false},
		{"unknown policy_seq", 15, 7, nil, nil, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var in []PolicyEvent
			for _, e := range evs {
				if e.Seq < tc.before {
					in = append(in, e)
				}
			}
			dp, err := PolicyForDecision(in, tc.policySeq)
			if tc.wantNoReload {
				if !errors.Is(err, ErrNoReload) {
					t.Fatalf("err = %v, want ErrNoReload", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(dp.Project); !slices.Equal(got, tc.project) {
				t.Fatalf("project = %v, want %v", got, tc.project)
			}
			if !slices.Equal(dp.Revoked, tc.revoked) {
				t.Fatalf("revoked = %v, want %v", dp.Revoked, tc.revoked)
			}
			if dp.Reload.Trigger != tc.ceilingsFrom {
				t.Fatalf("ceilings from the %s reload, want %s", dp.Reload.Trigger, tc.ceilingsFrom)
			}
		})
	}
}

func TestProjectGrantsLatestWins(t *testing.T) {
	st := ProjectGrants([]PolicyEvent{addEv(1, "x"), revokeEv(2, "x", "cli"), addEv(3, "y"), revokeEv(4, "y", "cli"), addEv(5, "y"),
		revokeEv(6, "never-added", "cli")})
	if !st["x"].Revoked || st["x"].RevokedSeq != 2 || st["y"].Revoked || st["y"].AddedSeq != 5 {
		t.Fatalf("states = %+v", st)
	}
	if _, ok := st["never-added"]; ok {
		t.Fatal("a revocation alone made a grant")
	}
	if got := Active(st); len(got) != 1 || got[0].GrantID != "y" {
		t.Fatalf("active = %v", got)
	}
}
