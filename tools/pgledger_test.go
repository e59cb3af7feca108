package tools_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
)

// The team ledger end to end (CONTRACTS.md §17): `rea analyze` records
// Evidence into a PostgreSQL ledger, every `rea ledger` command works on it
// without showing the URL's password, and an export moves between the
// backends (PostgreSQL → SQLite → PostgreSQL) with the same projection
// digest, which `rea ledger rebuild` reproduces on each.
func TestPostgresLedgerCLI(t *testing.T) {
	pg := testkit.PostgresURL(t)
	password := ""
	if i, j := strings.Index(pg, "://"), strings.Index(pg, "@"); i >= 0 && j > i {
		if k := strings.IndexByte(pg[i+3:j], ':'); k >= 0 {
			password = pg[i+3+k+1 : j]
		}
	}
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	rea := testkit.Rea(t)
	run := func(env []string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(rea, args...)
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if password != "" && (bytes.Contains(out, []byte(password)) || bytes.Contains(stderr.Bytes(), []byte(password))) {
			t.Fatalf("rea %s printed the password", args[len(args)-1])
		}
		if err != nil {
			t.Fatalf("rea %v: %v\n%s%s", args[2:], err, out, stderr.Bytes())
		}
		return out
	}
	var analyzed struct {
		EvidenceIDs map[string]string `json:"evidence_ids"`
	}
	if err := json.Unmarshal(run(nil, "--ledger", pg, "analyze", "--json", fixture), &analyzed); err != nil || len(analyzed.EvidenceIDs) != 5 {
		t.Fatalf("analyze on PostgreSQL: %v %v", analyzed, err)
	}
	// REA_LEDGER_URL selects the same ledger.
	var rep struct {
		OK      bool
		Checked struct{ Events, Blobs int }
	}
	if err := json.Unmarshal(run([]string{"REA_LEDGER_URL=" + pg}, "ledger", "verify"), &rep); err != nil || !rep.OK ||
		rep.Checked.Events == 0 || rep.Checked.Blobs < 4 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	var stats struct {
		Path   string
		Events int
	}
	if err := json.Unmarshal(run(nil, "--ledger", pg, "ledger", "stats"), &stats); err != nil || stats.Events != rep.Checked.Events {
		t.Fatalf("stats: %+v %v", stats, err)
	}
	if password != "" && !strings.Contains(stats.Path, ":***@") {
		t.Fatalf("stats path %q does not redact the password", stats.Path)
	}
	var rebuilt struct {
		Before, After string
		Matches       bool
	}
	if err := json.Unmarshal(run(nil, "--ledger", pg, "ledger", "rebuild"), &rebuilt); err != nil || !rebuilt.Matches {
		t.Fatalf("rebuild on PostgreSQL: %+v %v", rebuilt, err)
	}

	// PostgreSQL → SQLite → PostgreSQL.
	export := filepath.Join(dir, "pg.jsonl")
	run(nil, "--ledger", pg, "ledger", "export", "-o", export)
	sqlite := filepath.Join(dir, "copy.db")
	var imported struct {
		Digest string `json:"projection_digest"`
	}
	if err := json.Unmarshal(run(nil, "--ledger", sqlite, "ledger", "import", export), &imported); err != nil || imported.Digest != rebuilt.After {
		t.Fatalf("import into SQLite: digest %s, PostgreSQL's %s (%v)", imported.Digest, rebuilt.After, err)
	}
	if err := json.Unmarshal(run(nil, "--ledger", sqlite, "ledger", "rebuild"), &rebuilt); err != nil || !rebuilt.Matches ||
		rebuilt.After != imported.Digest {
		t.Fatalf("rebuild on SQLite: %+v %v", rebuilt, err)
	}
	back := filepath.Join(dir, "sqlite.jsonl")
	run(nil, "--ledger", sqlite, "ledger", "export", "-o", back)
	pg2 := testkit.PostgresURL(t)
	var again struct {
		Digest string `json:"projection_digest"`
	}
	if err := json.Unmarshal(run(nil, "--ledger", pg2, "ledger", "import", back), &again); err != nil || again.Digest != imported.Digest {
		t.Fatalf("import back into PostgreSQL: digest %s, want %s (%v)", again.Digest, imported.Digest, err)
	}

	// doctor checks the connection and names the ledger without the password.
	// (Its exit status reflects this machine's client registrations too.)
	dcmd := exec.Command(rea, "doctor", "--json")
	dcmd.Env = append(os.Environ(), "REA_LEDGER_URL="+pg)
	doc, _ := dcmd.Output()
	var report struct {
		Ledger struct{ Path, State string }
	}
	if err := json.Unmarshal(doc, &report); err != nil || report.Ledger.State != "ok" ||
		(password != "" && (bytes.Contains(doc, []byte(password)) || !strings.Contains(report.Ledger.Path, ":***@"))) {
		t.Fatalf("doctor's ledger check: %+v %v", report.Ledger, err)
	}

	// Both variables set is a configuration error.
	cmd := exec.Command(rea, "ledger", "stats")
	cmd.Env = append(os.Environ(), "REA_LEDGER_URL="+pg, "REA_LEDGER_PATH="+sqlite)
	out, err := cmd.CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte("configuration_invalid")) || (password != "" && bytes.Contains(out, []byte(password))) {
		t.Fatalf("both REA_LEDGER_URL and REA_LEDGER_PATH: %v %s", err, out)
	}
}

// Four `rea mcp` processes on one PostgreSQL ledger, each opening the
// fixture and recording Evidence (pages of its own, so every process's
// records are distinct) for a bounded time (REA_TEST_FOUR_WRITERS_SECONDS,
// default 3; the figure is 30): the ledger verifies (seq gapless,
// every link), and a fifth process's ledger-scope bundle holds every
// process's Evidence.
func TestPostgresFourWriters(t *testing.T) {
	// With REA_TEST_POSTGRES_RESTART (.ci/postgres.sh prints it) the server
	// is restarted half-way through: the test then has the cluster alone
	// (testkit.PostgresRestart), since a restart cuts every connection.
	var pg, restart string
	if os.Getenv(testkit.EnvPostgresRestart) != "" {
		pg, restart = testkit.PostgresRestart(t)
	} else {
		pg = testkit.PostgresURL(t)
	}
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	d := 3 * time.Second
	if s, err := strconv.Atoi(os.Getenv("REA_TEST_FOUR_WRITERS_SECONDS")); err == nil && s > 0 {
		d = time.Duration(s) * time.Second
	}
	const writers = 4
	sessions := make([]*session, writers)
	for w := range sessions {
		sessions[w] = startStdio(t, pg)
	}
	ids := make([]map[string]bool, writers)
	errs := make(chan error, writers)
	var retried atomic.Int32
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for w, s := range sessions {
		ids[w] = map[string]bool{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := s.call(context.Background(), "open_binary", map[string]any{"path": fixture}); r.IsError {
				errs <- fmt.Errorf("writer %d: open_binary: %s", w, r.Structured)
				return
			}
			for i := 0; time.Now().Before(deadline); i++ {
				r := s.call(context.Background(), "list_strings", map[string]any{"limit": 1, "offset": (w + writers*i) % 8})
				if r.IsError {
					// Across a server restart a call may fail, but only
					// with a typed retryable error; it is then retried.
					var e struct {
						Error struct {
							Code      string
							Retryable bool
						}
					}
					if json.Unmarshal(r.Structured, &e) == nil && e.Error.Retryable {
						retried.Add(1)
						time.Sleep(100 * time.Millisecond)
						continue
					}
					errs <- fmt.Errorf("writer %d: list_strings: %s", w, r.Structured)
					return
				}
				var out struct {
					Evidence struct {
						ID string `json:"evidence_id"`
					} `json:"evidence"`
				}
				if err := json.Unmarshal(r.Structured, &out); err != nil || out.Evidence.ID == "" {
					errs <- fmt.Errorf("writer %d: no evidence: %s", w, r.Structured)
					return
				}
				ids[w][out.Evidence.ID] = true
			}
		}()
	}
	// The restart (pg_ctl restart -m fast), half-way through.
	restarted := false
	if restart != "" {
		time.Sleep(d / 2)
		if out, err := exec.Command("sh", "-c", restart).CombinedOutput(); err != nil {
			t.Errorf("restart: %v %s", err, out)
		}
		restarted = true
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for w := range ids {
		if len(ids[w]) == 0 {
			t.Fatalf("writer %d recorded nothing", w)
		}
		for id := range ids[w] {
			all[id] = true
		}
	}
	for _, s := range sessions {
		s.c.Close()
	}

	out, err := exec.Command(testkit.Rea(t), "--ledger", pg, "ledger", "verify").Output()
	var rep struct {
		OK      bool
		Checked struct{ Events int }
	}
	if err != nil || json.Unmarshal(out, &rep) != nil || !rep.OK {
		t.Fatalf("verify after four writers: %v %s", err, out)
	}
	fifth := startStdio(t, pg)
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
	t.Logf("%d events from %d processes in %v (server restarted: %v; %d retryable errors retried), %d distinct Evidence records, verified",
		rep.Checked.Events, writers, d, restarted, retried.Load(), len(want))
}

// `rea ledger tail --json` follows what another process commits, on both
// backends: export event lines from the head on, every prev_hash the hash of
// the line before, until SIGINT (exit 0).
func TestLedgerTailCLI(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			loc := filepath.Join(dir, "ledger.db")
			if backend == "postgres" {
				loc = testkit.PostgresURL(t)
			}
			fixture := compileFixture(t, dir)
			rea := testkit.Rea(t)
			if out, err := exec.Command(rea, "--ledger", loc, "analyze", fixture).CombinedOutput(); err != nil {
				t.Fatalf("analyze: %v %s", err, out)
			}
			var stats struct{ Head struct{ Seq int64 } }
			out, err := exec.Command(rea, "--ledger", loc, "ledger", "stats").Output()
			if err != nil || json.Unmarshal(out, &stats) != nil {
				t.Fatalf("stats: %v %s", err, out)
			}
			tail := exec.Command(rea, "--ledger", loc, "ledger", "tail", "--json")
			stdout, err := tail.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			tail.Stderr = &stderr
			if err := tail.Start(); err != nil {
				t.Fatal(err)
			}
			defer tail.Process.Kill()
			time.Sleep(500 * time.Millisecond) // tail reads the head before the next analyze commits
			if out, err := exec.Command(rea, "--ledger", loc, "analyze", fixture).CombinedOutput(); err != nil {
				t.Fatalf("second analyze: %v %s", err, out)
			}
			out, err = exec.Command(rea, "--ledger", loc, "ledger", "stats").Output()
			var after struct{ Head struct{ Seq int64 } }
			if err != nil || json.Unmarshal(out, &after) != nil || after.Head.Seq <= stats.Head.Seq {
				t.Fatalf("stats after: %v %s", err, out)
			}
			lines := make(chan []byte)
			go func() {
				sc := bufio.NewScanner(stdout)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					lines <- bytes.Clone(sc.Bytes())
				}
				close(lines)
			}()
			want, prev := stats.Head.Seq+1, ""
			for want <= after.Head.Seq {
				select {
				case line, ok := <-lines:
					if !ok {
						t.Fatalf("tail ended at seq %d: %s", want, stderr.Bytes())
					}
					var ev struct {
						Kind, Hash, Canonical string
						PrevHash              string `json:"prev_hash"`
						Seq                   int64
					}
					if err := json.Unmarshal(line, &ev); err != nil || ev.Kind != "event" || ev.Seq != want ||
						(prev != "" && ev.PrevHash != prev) || ev.Canonical == "" {
						t.Fatalf("line for seq %d: %s (%v)", want, line, err)
					}
					want, prev = want+1, ev.Hash
				case <-time.After(20 * time.Second):
					t.Fatalf("tail printed nothing for seq %d within 20s", want)
				}
			}
			if err := tail.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if err := tail.Wait(); err != nil {
				t.Fatalf("tail after SIGINT: %v %s", err, stderr.Bytes())
			}
		})
	}
}

// §9.6 across processes on one PostgreSQL ledger: two `rea mcp` processes
// capture under a project grant; `rea policy revoke` in a third process
// revokes it, and each of the two refuses its next capture; `rea policy
// explain --decision` in a fourth process replays a decision the first one
// recorded.
func TestPostgresRevocationAcrossProcesses(t *testing.T) {
	pg := testkit.PostgresURL(t)
	environ, capture := teamCapture(t)

	a, b := startStdio(t, pg, environ...), startStdio(t, pg, environ...)
	a.ok("capture_process_scenario", capture)
	b.ok("capture_process_scenario", capture)

	rea := testkit.Rea(t)
	revoke := exec.Command(rea, "--ledger", pg, "policy", "revoke", "team-capture", "--yes", "--json")
	revoke.Env = append(os.Environ(), environ...)
	if out, err := revoke.CombinedOutput(); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	for name, s := range map[string]*session{"first": a, "second": b} {
		e := s.errorOf("capture_process_scenario", capture)
		if code, _ := e["code"].(string); !strings.HasPrefix(code, "permission_") {
			t.Fatalf("%s process after the revocation: %v", name, e)
		}
	}

	// The first process's allowed decision, replayed by another process.
	led, err := ledger.OpenReadOnly(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	var decisions []string
	err = led.Scan(context.Background(), 1, func(e ledger.Event) error {
		if e.Type == "permission_decided" {
			var d struct {
				ID      string `json:"decision_id"`
				Outcome string `json:"outcome"`
			}
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return err
			}
			decisions = append(decisions, d.ID+":"+d.Outcome)
		}
		return nil
	})
	led.Close()
	if err != nil || len(decisions) != 4 || !strings.HasSuffix(decisions[0], ":allow") || !strings.HasSuffix(decisions[3], ":deny") {
		t.Fatalf("decisions %v (%v)", decisions, err)
	}
	explain := exec.Command(rea, "--ledger", pg, "policy", "explain", "--decision", strings.TrimSuffix(decisions[0], ":allow"), "--json")
	explain.Env = append(os.Environ(), environ...)
	out, err := explain.Output()
	var replay struct {
		ReplayMatches bool `json:"replay_matches"`
		Allowed       bool `json:"allowed"`
	}
	if err != nil || json.Unmarshal(out, &replay) != nil || !replay.ReplayMatches || !replay.Allowed {
		t.Fatalf("explain --decision: %v %s", err, out)
	}
}
