package policy

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// reference is §9.4 written plainly: every grant tested with Uncovered, in
// order. The evaluator's index must agree with it on every decision.
func reference(grants []Grant, revoked map[string]bool, now time.Time, q *Request) (allow bool, id, reason string, missing MissingScope) {
	grants = slices.Clone(grants)
	slices.SortFunc(grants, func(a, b Grant) int {
		if c := lifetimeRank(a.Lifetime) - lifetimeRank(b.Lifetime); c != 0 {
			return c
		}
		return strings.Compare(a.GrantID, b.GrantID)
	})
	bestUnc := -1
	would := ""
	for _, g := range grants {
		if g.Capability != q.Capability || (g.OperationIdentity != nil && *g.OperationIdentity != q.OperationIdentity) {
			continue
		}
		m, unc := Uncovered(&g.Scope, q)
		expired := false
		if g.ExpiresAt != nil {
			t, _ := parseTime(*g.ExpiresAt)
			expired = !t.After(now)
		}
		if revoked[g.GrantID] || expired {
			if unc == 0 && would == "" {
				would = ReasonGrantExpired
				if revoked[g.GrantID] {
					would = ReasonGrantRevokedOrConsumed
				}
			}
			continue
		}
		if unc == 0 {
			return true, g.GrantID, ReasonGranted, MissingScope{}
		}
		if bestUnc < 0 || unc < bestUnc {
			bestUnc, missing = unc, m
		}
	}
	if bestUnc < 0 {
		missing = WholeRequest(q)
	}
	if would == "" {
		would = ReasonGrantRequired
	}
	return false, "", would, missing
}

func TestEvaluateMatchesReference(t *testing.T) {
	tr := newTree(t)
	env := tr.env()
	env[EnvProcessAllowExternalNetwork] = "true"
	env[EnvProcessAllowedEnv] = jsonList("A", "B", "C")
	cfg := tr.config(t, env)
	rng := rand.New(rand.NewPCG(5, 2026))
	dirs := []string{"@", "@/a", "@/a/x", "@/a/x/y", "@/ab", "@/ab/x", "@/b", "@/bin", "@/bin/sub"}
	exes := []string{"@/bin/tool", "@/bin/sub/t2", "@/bin/other"}
	names := []string{"A", "B", "C"}
	nets := []string{NetworkNone, NetworkLoopback, NetworkExternal}
	ops := []string{"op:1", "op:2"}
	subset := func(xs []string, max int) []string {
		var out []string
		for _, i := range rng.Perm(len(xs))[:rng.IntN(max+1)] {
			out = append(out, tr.p(xs[i]))
		}
		return out
	}
	now := t0
	seen := map[string]int{}
	defer func() {
		for _, r := range []string{ReasonGranted, ReasonGrantRequired, ReasonGrantExpired, ReasonGrantRevokedOrConsumed} {
			if seen[r] == 0 {
				t.Errorf("no decision with reason %s: the generator does not exercise it (%v)", r, seen)
			}
		}
	}()
	for round := 0; round < 200; round++ {
		var grants []Grant
		revoked := map[string]bool{}
		ev := New(cfg, nil, Options{Now: func() time.Time { return now }})
		for i, n := 0, rng.IntN(40); i < n; i++ {
			g := pg(fmt.Sprintf("g%02d", rng.IntN(100)), ProcessCapture, subset(dirs, 3), subset([]string{"@/bin", "@/bin/sub"}, 2),
				nil, nets[rng.IntN(3)])
			g.EnvironmentNames = subset(names, 3)
			for k := range g.EnvironmentNames {
				g.EnvironmentNames[k] = strings.TrimPrefix(g.EnvironmentNames[k], tr.base)
			}
			if rng.IntN(3) == 0 {
				g.OperationIdentity = strp(ops[rng.IntN(2)])
			}
			if rng.IntN(4) == 0 {
				g.ExpiresAt = strp(FormatTime(now.Add(time.Duration(rng.IntN(3)-1) * time.Hour)))
			}
			if slices.ContainsFunc(grants, func(o Grant) bool { return o.GrantID == g.GrantID }) {
				continue
			}
			grants = append(grants, g)
		}
		if err := ev.SetProjectGrants(grants, 1); err != nil {
			t.Fatal(err)
		}
		for _, g := range grants {
			if rng.IntN(5) == 0 {
				revoked[g.GrantID] = true
				ev.RevokeProjectGrant(g.GrantID)
			}
		}
		canon := func(g []Grant) []Grant {
			out := make([]Grant, len(g))
			for i := range g {
				out[i] = cloneGrant(g[i])
				out[i].Scope, _ = normalizeScope(out[i].Scope)
			}
			return out
		}
		for k := 0; k < 30; k++ {
			raw := Request{Scope: Scope{Capability: ProcessCapture, Roots: subset(dirs, 2), Executables: subset(exes, 2),
				EnvironmentNames: subset(names, 2), Network: nets[rng.IntN(3)]}, OperationIdentity: ops[rng.IntN(2)], Access: AccessRead}
			for i := range raw.EnvironmentNames {
				raw.EnvironmentNames[i] = strings.TrimPrefix(raw.EnvironmentNames[i], tr.base)
			}
			q := raw
			q.Roots, q.Executables, q.EnvironmentNames = sortedSet(q.Roots), sortedSet(q.Executables), sortedSet(q.EnvironmentNames)
			d := ev.Evaluate(Input{ConnectionID: "A", Request: q, DryRun: true})
			allow, id, reason, missing := reference(canon(grants), revoked, now, &q)
			seen[d.Reason]++
			gotID := ""
			if d.Grant != nil {
				gotID = d.Grant.GrantID
			}
			if d.Allowed != allow || gotID != id || d.Reason != reason || !reflect.DeepEqual(d.Missing, missing) {
				t.Fatalf("round %d: request %+v\ngrants %s\nrevoked %v\nevaluator: %v %s %s %+v\nreference: %v %s %s %+v",
					round, q, mustJSON(t, grants), revoked, d.Allowed, gotID, d.Reason, d.Missing, allow, id, reason, missing)
			}
		}
	}
}
