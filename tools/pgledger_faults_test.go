package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
)

// The acceptance runs of the team ledger that involve several real `rea mcp`
// processes (CONTRACTS.md §17, issue 18): SIGKILL of a writer mid-append,
// and a revocation from a fifth process while four write. They speak MCP
// over stdio to the real binary and look only at what a client and the
// ledger see.

// killable is a `rea mcp` process whose PID the test knows, and whose calls
// report a dead server as an error instead of failing the test.
type killable struct {
	c   *client.Client
	cmd *exec.Cmd
}

func startKillable(t *testing.T, pg string, env ...string) *killable {
	t.Helper()
	k := &killable{}
	tr := transport.NewStdioWithOptions(testkit.Rea(t), append(os.Environ(), env...), []string{"--ledger", pg, "mcp"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			k.cmd = exec.CommandContext(ctx, command, args...)
			k.cmd.Env = env
			return k.cmd, nil
		}))
	k.c = client.NewClient(tr)
	if err := k.c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: "rea-e2e", Version: "1"}
	if _, err := k.c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		k.c.Close()
		if k.cmd.Process != nil {
			_ = k.cmd.Process.Kill()
		}
	})
	return k
}

// toolResult is a tool call's structured content, or the call's failure.
type toolResult struct {
	isError    bool
	structured json.RawMessage
}

func (k *killable) call(ctx context.Context, name string, args any) (toolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := k.c.CallTool(ctx, req)
	if err != nil {
		return toolResult{}, err
	}
	b, err := json.Marshal(res.StructuredContent)
	return toolResult{isError: res.IsError, structured: b}, err
}

// answeredEvidence is the evidence_id of a successful analysis result.
func answeredEvidence(r toolResult) string {
	var out struct {
		Evidence struct {
			ID string `json:"evidence_id"`
		} `json:"evidence"`
	}
	if r.isError || json.Unmarshal(r.structured, &out) != nil {
		return ""
	}
	return out.Evidence.ID
}

// retryableError reports whether r is a typed error the caller may retry.
func retryableError(r toolResult) (code string, retryable bool) {
	var e struct {
		Error struct {
			Code      string `json:"code"`
			Retryable bool   `json:"retryable"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.structured, &e)
	return e.Error.Code, e.Error.Retryable
}

// writeLoop records Evidence through k until stop is closed: list_strings
// pages chosen by offset, each a new record. Every evidence_id it was
// answered with goes to acked; a failed call must be a typed retryable
// error (then it is retried), anything else ends the loop with an error.
// A transport failure ends the loop quietly when dead is true (a killed
// process).
func writeLoop(k *killable, offset func(i int) int, stop <-chan struct{}, acked func(string), dead func() bool) error {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return nil
		default:
		}
		r, err := k.call(context.Background(), "list_strings", map[string]any{"limit": 1, "offset": offset(i)})
		if err != nil {
			if dead() {
				return nil
			}
			return fmt.Errorf("list_strings: %w", err)
		}
		if id := answeredEvidence(r); id != "" {
			acked(id)
			continue
		}
		if code, ok := retryableError(r); !ok {
			return fmt.Errorf("list_strings: untyped or final error %q: %s", code, r.structured)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ledgerEvidence returns every evidence_id the ledger's evidence_recorded
// events name, after checking that the ledger verifies (seq gapless, every
// link, event IDs unique).
func ledgerEvidence(t *testing.T, pg string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.OpenReadOnly(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rep, err := l.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK {
		t.Fatalf("ledger does not verify: first bad seq %v, %+v", rep.FirstBadSeq, rep.Problems)
	}
	ids := map[string]bool{}
	next := int64(1)
	err = l.Scan(ctx, 1, func(e ledger.Event) error {
		if e.Seq != next {
			return fmt.Errorf("seq %d follows %d", e.Seq, next-1)
		}
		next++
		if e.Type == "evidence_recorded" {
			var d struct {
				ID string `json:"evidence_id"`
			}
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return err
			}
			ids[d.ID] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// rounds reads a positive count from an environment variable.
func rounds(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// SIGKILL of a `rea mcp` writer mid-append, REA_TEST_SIGKILL_ROUNDS times
// (default 20; 3 under -short), while another `rea mcp` process keeps writing: after each
// kill the ledger verifies (no gap, no duplicate event ID, every link), and
// every Evidence either process was answered with is in it; the surviving
// writer's calls only ever succeed or fail with a typed retryable error.
func TestPostgresSIGKILLWriter(t *testing.T) {
	pg := testkit.PostgresURL(t)
	fixture := compileFixture(t, t.TempDir())
	var mu sync.Mutex
	acked := map[string]bool{}
	calls := 0
	ack := func(id string) {
		mu.Lock()
		acked[id] = true
		calls++
		mu.Unlock()
	}

	survivor := startKillable(t, pg)
	if r, err := survivor.call(context.Background(), "open_binary", map[string]any{"path": fixture}); err != nil || r.isError {
		t.Fatalf("survivor open_binary: %v %s", err, r.structured)
	}
	stop := make(chan struct{})
	survived := make(chan error, 1)
	go func() {
		survived <- writeLoop(survivor, func(i int) int { return 2 * (i % 4) }, stop, ack, func() bool { return false })
	}()

	n := rounds("REA_TEST_SIGKILL_ROUNDS", 20)
	if testing.Short() && os.Getenv("REA_TEST_SIGKILL_ROUNDS") == "" {
		n = 3 // each round starts and kills a rea mcp; the full run keeps 20
	}
	for round := range n {
		victim := startKillable(t, pg)
		if r, err := victim.call(context.Background(), "open_binary", map[string]any{"path": fixture}); err != nil || r.isError {
			t.Fatalf("round %d: victim open_binary: %v %s", round, err, r.structured)
		}
		var killed sync.WaitGroup
		var dead bool
		var deadMu sync.Mutex
		isDead := func() bool { deadMu.Lock(); defer deadMu.Unlock(); return dead }
		first := make(chan struct{})
		var once sync.Once
		loopErr := make(chan error, 1)
		killed.Add(1)
		go func() {
			defer killed.Done()
			loopErr <- writeLoop(victim, func(i int) int { return 2*(i%4) + 1 }, nil, func(id string) {
				ack(id)
				once.Do(func() { close(first) })
			}, isDead)
		}()
		select {
		case <-first: // the victim is in its write loop
		case err := <-loopErr:
			t.Fatalf("round %d: victim: %v", round, err)
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: the victim recorded nothing in 30 s", round)
		}
		// A kill at a random point of the loop; the victim appends
		// continuously, so it lands inside an append's transaction, its
		// COMMIT or its flush most of the time.
		time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
		deadMu.Lock()
		dead = true
		deadMu.Unlock()
		if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = victim.cmd.Wait()
		victim.c.Close()
		killed.Wait()
		if err := <-loopErr; err != nil {
			t.Fatalf("round %d: victim before the kill: %v", round, err)
		}
		mu.Lock()
		answered := maps.Clone(acked) // before the scan: all of these must be in it
		mu.Unlock()
		stored := ledgerEvidence(t, pg)
		for id := range answered {
			if !stored[id] {
				t.Fatalf("round %d: Evidence %s was answered but is not in the ledger", round, id)
			}
		}
	}
	close(stop)
	if err := <-survived; err != nil {
		t.Fatalf("surviving writer: %v", err)
	}
	out, err := exec.Command(testkit.Rea(t), "--ledger", pg, "ledger", "verify").Output()
	var rep struct {
		OK      bool
		Checked struct{ Events int }
	}
	if err != nil || json.Unmarshal(out, &rep) != nil || !rep.OK {
		t.Fatalf("rea ledger verify after %d kills: %v %s", n, err, out)
	}
	if stored := ledgerEvidence(t, pg); len(stored) < len(acked) {
		t.Fatalf("%d Evidence answered, %d in the ledger", len(acked), len(stored))
	}
	t.Logf("%d SIGKILLs of a writer; %d events verified; %d answered calls (%d distinct Evidence), all stored", n, rep.Checked.Events, calls, len(acked))
}

// teamCapture is a project grant for process capture of /bin/sh in a work
// directory, stored in a project store, and the capture request it allows.
func teamCapture(t *testing.T) (environ []string, capture map[string]any) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, proj, storeDir := filepath.Join(base, "work"), filepath.Join(base, "proj"), filepath.Join(base, "st")
	for _, d := range []string{work, proj, storeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{
		policy.EnvProcessCaptureEnabled:  "true",
		policy.EnvProcessWorkingRoots:    mustJSON(t, []string{work}),
		policy.EnvProcessExecutableRoots: mustJSON(t, []string{"/bin", "/usr/bin"}),
		policy.EnvProcessAllowedEnv:      `[]`,
		policy.EnvProjectRoot:            proj,
		policy.EnvProjectStore:           filepath.Join(storeDir, "store.json"),
	}
	cfg, err := policy.LoadConfig(env)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := filepath.EvalSymlinks("/bin/sh") // grants name canonical executables
	if err != nil {
		t.Fatal(err)
	}
	grant := policy.Grant{Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: []string{work},
		Executables: []string{sh}, EnvironmentNames: []string{}, Network: policy.NetworkNone},
		GrantID: "team-capture", Lifetime: policy.LifetimeProject}
	if err := policy.WriteStore(context.Background(), *cfg.Store, cfg.Ceilings, []policy.Grant{grant}); err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	return environ, map[string]any{"executable": sh, "arguments": []string{"-c", "echo team"},
		"working_directory": work, "environment_names": []string{}, "timeout_ms": 20000}
}

// The single run: four `rea mcp` processes on one PostgreSQL ledger
// record Evidence for a bounded time (REA_TEST_FOUR_WRITERS_SECONDS,
// default 3; the figure is 30) and capture under a project grant; a
// fifth process runs `rea policy revoke` half-way; each of the four refuses
// its next capture (the revocation takes effect before its next decision,
// §9.6 across processes); afterwards the ledger verifies, and a
// ledger-scope bundle holds every process's Evidence.
func TestPostgresFourWritersRevoke(t *testing.T) {
	pg := testkit.PostgresURL(t)
	fixture := compileFixture(t, t.TempDir())
	environ, capture := teamCapture(t)
	d := time.Duration(rounds("REA_TEST_FOUR_WRITERS_SECONDS", 3)) * time.Second

	const writers = 4
	procs := make([]*killable, writers)
	for w := range procs {
		procs[w] = startKillable(t, pg, environ...)
		if r, err := procs[w].call(context.Background(), "open_binary", map[string]any{"path": fixture}); err != nil || r.isError {
			t.Fatalf("writer %d: open_binary: %v %s", w, err, r.structured)
		}
		if r, err := procs[w].call(context.Background(), "capture_process_scenario", capture); err != nil || r.isError {
			t.Fatalf("writer %d: capture before the revocation: %v %s", w, err, r.structured)
		}
	}
	var mu sync.Mutex
	acked := make([]map[string]bool, writers)
	stop := make(chan struct{})
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for w, k := range procs {
		acked[w] = map[string]bool{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- writeLoop(k, func(i int) int { return (w + writers*i) % 8 }, stop, func(id string) {
				mu.Lock()
				acked[w][id] = true
				mu.Unlock()
			}, func() bool { return false })
		}()
	}
	time.Sleep(d / 2)
	revoke := exec.Command(testkit.Rea(t), "--ledger", pg, "policy", "revoke", "team-capture", "--yes", "--json")
	revoke.Env = append(os.Environ(), environ...)
	if out, err := revoke.CombinedOutput(); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	// The revocation is committed: every process's next decision sees it,
	// while the others keep writing.
	for w, k := range procs {
		r, err := k.call(context.Background(), "capture_process_scenario", capture)
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if !r.isError || json.Unmarshal(r.structured, &e) != nil || !strings.HasPrefix(e.Error.Code, "permission_") {
			t.Fatalf("writer %d's first capture after the revocation: %s", w, r.structured)
		}
	}
	time.Sleep(d / 2)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	stored := ledgerEvidence(t, pg)
	all := map[string]bool{}
	for w := range acked {
		if len(acked[w]) == 0 {
			t.Fatalf("writer %d recorded nothing", w)
		}
		for id := range acked[w] {
			if !stored[id] {
				t.Fatalf("writer %d's Evidence %s is not in the ledger", w, id)
			}
			all[id] = true
		}
	}
	fifth := startStdio(t, pg, environ...)
	want := slices.Sorted(maps.Keys(all))
	b := fifth.ok("get_evidence_bundle", map[string]any{"evidence_ids": want, "scope": "ledger"})
	var bundle struct {
		Result struct {
			RecordCount int `json:"record_count"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b.Structured, &bundle); err != nil || bundle.Result.RecordCount != len(want) {
		t.Fatalf("ledger-scope bundle holds %d records, want %d (%v)", bundle.Result.RecordCount, len(want), err)
	}
	t.Logf("4 writers for %v, revoked from a fifth process half-way: %d distinct Evidence, all in the bundle", d, len(want))
}
