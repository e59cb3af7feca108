package policy

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEvaluate measures one evaluation (not the ledger append, which is
// separate, CONTRACTS.md §9.4) with 1,000 active project grants of the
// requested capability plus a session overlay on the connection.
//
//	go test -run '^$' -bench Evaluate -count 10 ./engine/policy/
func BenchmarkEvaluate(b *testing.B) {
	tr := newTree(b)
	ev := New(tr.config(b, tr.env()), nil, Options{NewID: (&ids{}).Next})
	const n = 1000
	grants := make([]Grant, 0, n)
	for i := 0; i < n; i++ {
		grants = append(grants, pg(fmt.Sprintf("g%04d", i), ProcessCapture,
			[]string{tr.p(fmt.Sprintf("@/work/p%04d", i))}, []string{tr.p("@/bin")}, []string{"ALLOWED_A"}, NetworkLoopback))
	}
	if err := ev.SetProjectGrants(grants, 1); err != nil {
		b.Fatal(err)
	}
	if _, err := ev.AddConnectionGrant("A", grant("s1", LifetimeSession, ProcessCapture, []string{tr.p("@/session")},
		[]string{tr.p("@/bin")}, nil, NetworkNone, nil, nil)); err != nil {
		b.Fatal(err)
	}
	req := func(root string, env ...string) Request {
		if env == nil {
			env = []string{}
		}
		// Already canonical: the paths need not exist for evaluation.
		return Request{Scope: Scope{Capability: ProcessCapture, Roots: []string{tr.p(root)},
			Executables: []string{tr.p("@/bin/tool")}, EnvironmentNames: env, Network: NetworkLoopback},
			Access: AccessRead, OperationIdentity: "capture_process_scenario:" + tr.p("@/bin/tool")}
	}
	cases := []struct {
		name  string
		req   Request
		allow bool
	}{
		// Covered by the last grant in grant_id order.
		{"allow-last-of-1000", req("@/work/p0999/sub/dir", "ALLOWED_A"), true},
		// Every grant covers part of it (executable, environment, network):
		// the fewest-uncovered search visits all 1,000.
		{"deny-partial-1000", req("@/elsewhere", "ALLOWED_A"), false},
		// Inside the ceiling, covered by nothing.
		{"deny-none", req("@/elsewhere", "ALLOWED_B"), false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			in := Input{ConnectionID: "A", Operation: "capture_process_scenario", Request: c.req}
			if d := ev.Evaluate(in); d.Allowed != c.allow {
				b.Fatalf("allowed = %v (%s)", d.Allowed, d.Reason)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				ev.Evaluate(in)
			}
			// On a shared machine wall time includes waiting for other
			// processes; the process's CPU time does not.
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
