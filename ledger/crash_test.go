package ledger

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashChildEnv makes the test binary a crash-test child: it appends to the
// ledger named by the variable until it is killed.
const crashChildEnv = "REA_LEDGER_TEST_CRASH_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		os.Exit(crashChild(path))
	}
	os.Exit(m.Run())
}

// crashChild appends batches of 1-4 events, each with a blob and the test
// projection, as fast as it can. It prints "ready" after its first commit.
func crashChild(path string) int {
	ctx := context.Background()
	l, err := Open(ctx, path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		return 2
	}
	if _, err = l.w.Exec(testDDL(path, `CREATE TABLE IF NOT EXISTS `+countsTable+` (
			stream TEXT PRIMARY KEY, events INTEGER NOT NULL, last_type TEXT, last_seq INTEGER,
			total REAL, note BLOB) STRICT`)); err != nil {
		fmt.Fprintln(os.Stderr, "create table:", err)
		return 2
	}
	pid := os.Getpid()
	for i := 0; ; i++ {
		n := 1 + i%4
		evs := make([]NewEvent, n)
		bodies := make([][]byte, n)
		for j := range evs {
			bodies[j] = []byte(fmt.Sprintf("body %d/%d/%d", pid, i, j))
			evs[j] = NewEvent{Type: "evidence_recorded", Data: testPayload(i, bodies[j])}
		}
		_, err := l.Append(ctx, fmt.Sprintf("connection-%d", i%5), -1, evs, func(tx *sql.Tx, stored []Event) error {
			for _, b := range bodies {
				if _, err := l.PutBlob(tx, b); err != nil {
					return err
				}
			}
			return Fold(countsProjection{})(tx, stored)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "append:", err)
			return 3
		}
		if i == 0 {
			fmt.Println("ready")
		}
	}
}

// killChild starts a crash-test child appending to path, waits for its
// first commit when wantReady, lets it run for d and SIGKILLs it.
func killChild(t *testing.T, path string, i int, wantReady bool, d time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line == "ready\n"
	}()
	if wantReady {
		select {
		case ok := <-ready:
			if !ok {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("kill %d: child failed before its first commit: %s", i, stderr.String())
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("kill %d: child never became ready: %s", i, stderr.String())
		}
	}
	time.Sleep(d)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("kill %d: child exited by itself (%v): %s", i, cmd.ProcessState, stderr.String())
	}
}

// TestCrashRecovery SIGKILLs an appending child process at random moments
// and checks after every kill that the ledger opens, verifies, has a gapless
// seq, and that the projection committed exactly with its events (a rebuild
// reproduces its digest). The first kills may land while the child is still
// creating and migrating the file. On PostgreSQL the child is a writer
// process killed mid-append: the server rolls its transaction back and
// releases the head lock with the connection.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	forEachBackend(t, testCrashRecovery)
}

func testCrashRecovery(t *testing.T, b backend) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	t.Logf("seed %d", seed)
	path := b.fresh(t)
	ctx := context.Background()
	const kills = 24
	var lastHead int64
	for i := 0; i < kills; i++ {
		killChild(t, path, i, i >= 3, time.Duration(5+rng.IntN(56))*time.Millisecond)

		l, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("kill %d: open after crash: %v", i, err)
		}
		rep, err := l.Verify(ctx)
		if err != nil || !rep.OK {
			l.Close()
			t.Fatalf("kill %d: verify after crash: %+v %v", i, rep, err)
		}
		// Up to the verified head only: PostgreSQL may still commit a killed
		// writer's last append after Verify has read the chain (its COMMIT
		// had reached the server), which is no gap; the next round verifies
		// it.
		var n, lo, hi int64
		if err := l.ReadDB().QueryRow(`SELECT COUNT(*), COALESCE(MIN(seq), 0), COALESCE(MAX(seq), 0) FROM events WHERE seq <= ?`,
			rep.Head.Seq).Scan(&n, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		if n != hi || (n > 0 && lo != 1) || n != rep.Head.Seq {
			t.Fatalf("kill %d: seq not gapless: count %d min %d max %d head %d", i, n, lo, hi, rep.Head.Seq)
		}
		if n < lastHead {
			t.Fatalf("kill %d: committed events lost: head %d < %d", i, n, lastHead)
		}
		lastHead = n
		if n > 0 {
			ps := []Projection{countsProjection{}}
			live, err := l.ProjectionDigest(ctx, ps)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Rebuild(ctx, ps); err != nil {
				t.Fatal(err)
			}
			if rebuilt, _ := l.ProjectionDigest(ctx, ps); rebuilt != live {
				t.Fatalf("kill %d: projection not atomic with events", i)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if lastHead == 0 {
		t.Fatal("no child ever committed")
	}
	t.Logf("%d kills, %d events survived", kills, lastHead)
}

// One writer process SIGKILLed mid-append, twenty times, while another
// writer (a handle of this process) keeps appending to the same PostgreSQL
// chain: the survivor's appends each succeed or fail with ErrRetry, every
// acknowledged one is stored exactly once, and the chain verifies without a
// gap.
func TestPostgresWriterKilledWhileAnotherAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := freshPostgres(t)
	survivor := openTest(t, path, Options{})
	createCountsTableIn(t, survivor.w, path)
	ctx := context.Background()
	stop := make(chan struct{})
	acked := map[string]bool{}
	var retries int
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			id := newULID()
			_, err := survivor.Append(ctx, "connection-survivor", -1, []NewEvent{{ID: id, Type: "cursor_moved", Data: map[string]int{"i": i}}},
				Fold(countsProjection{}))
			switch {
			case err == nil:
				acked[id.String()] = true
			case errors.Is(err, ErrRetry):
				retries++
			default:
				errc <- err
				return
			}
		}
	}()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for i := 0; i < 20; i++ {
		killChild(t, path, i, true, time.Duration(5+rng.IntN(40))*time.Millisecond)
	}
	close(stop)
	if err := <-errc; err != nil {
		t.Fatalf("survivor: %v", err)
	}
	checkChain(t, survivor)
	stored := map[string]int{}
	if err := survivor.Scan(ctx, 1, func(e Event) error { stored[e.ID.String()]++; return nil }); err != nil {
		t.Fatal(err)
	}
	for id := range acked {
		if stored[id] != 1 {
			t.Fatalf("acknowledged event %s stored %d times", id, stored[id])
		}
	}
	checkRebuild(t, survivor, []Projection{countsProjection{}})
	t.Logf("20 kills; the survivor's %d appends were acknowledged (%d ErrRetry); %d events in all", len(acked), retries, len(stored))
}
