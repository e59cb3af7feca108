package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// PostgreSQL-only behaviour (CONTRACTS.md §17): the URL's password is never
// shown, placeholders are rewritten outside literals, and a connection lost
// in the middle of an append is retried without a gap, a fork or a
// duplicate.

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:s3cret@db.example:5432/rea?sslmode=require": "postgres://u:***@db.example:5432/rea?sslmode=require",
		"postgresql://u@/rea?host=/run/pg":                        "postgresql://u@/rea?host=/run/pg",
		"postgres:///rea?host=/tmp&password=s3cret":               "postgres:///rea?host=%2Ftmp&password=***",
		"postgres://u:s3cret@h/rea?password=other":                "postgres://u:***@h/rea?password=***",
		"postgres://u:%zz@h/":                                     "postgres://***",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(RedactURL(in), "s3cret") || strings.Contains(RedactURL(in), "other") {
			t.Errorf("RedactURL(%q) shows the password", in)
		}
	}
	if !IsURL("postgres://x") || !IsURL("postgresql://x") || IsURL("/var/lib/ledger.db") || IsURL("postgres.db") {
		t.Fatal("IsURL")
	}
}

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT ? , ?`:                           `SELECT $1 , $2`,
		`SELECT ?2, ?1`:                          `SELECT $2, $1`,
		`SELECT '?', "a?b", ? -- ?` + "\n" + `?`: `SELECT '?', "a?b", $1 -- ?` + "\n" + `$2`,
		`SELECT 'it''s ?', ? /* ? */`:            `SELECT 'it''s ?', $1 /* ? */`,
		`DO $x$ ? $x$; SELECT $1, ?`:             `DO $x$ ? $x$; SELECT $1, $1`,
		`SELECT 1`:                               `SELECT 1`,
	} {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

// The password of the URL never appears in Path, Stats or an error, also
// when the server refuses it.
func TestPostgresPasswordNeverShown(t *testing.T) {
	loc := freshPostgres(t)
	cfgPassword := func(raw string) string {
		l, err := Open(context.Background(), raw, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		s, err := l.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return l.Path() + " " + s.Path
	}
	pw := passwordOf(t, loc)
	if pw == "" {
		t.Skip("the test URL has no password")
	}
	if shown := cfgPassword(loc); strings.Contains(shown, pw) || !strings.Contains(shown, ":***@") {
		t.Fatalf("path shows %q", shown)
	}
	// The password from PGPASSWORD instead of the URL (pgx also reads
	// ~/.pgpass the same way).
	t.Setenv("PGPASSWORD", pw)
	if shown := cfgPassword(strings.Replace(loc, ":"+pw+"@", "@", 1)); strings.Contains(shown, pw) {
		t.Fatalf("path shows %q", shown)
	}
	t.Setenv("PGPASSWORD", "")
	wrong := strings.Replace(loc, ":"+pw+"@", ":"+pw+"x@", 1)
	_, err := Open(context.Background(), wrong, Options{})
	if err == nil {
		t.Fatal("a wrong password was accepted")
	}
	if strings.Contains(err.Error(), pw) {
		t.Fatalf("error shows the password: %v", err)
	}
}

func passwordOf(t *testing.T, raw string) string {
	t.Helper()
	i, j := strings.Index(raw, "://"), strings.Index(raw, "@")
	if i < 0 || j < 0 {
		return ""
	}
	userinfo := raw[i+3 : j]
	if k := strings.IndexByte(userinfo, ':'); k >= 0 {
		return userinfo[k+1:]
	}
	return ""
}

// The writer's server connection is terminated in the middle of an append
// (inside the apply callback, after the events are inserted): the append is
// retried on a new connection and commits once. No gap, no duplicate, and
// the projection row is there once.
func TestPostgresConnectionLostMidAppend(t *testing.T) {
	l, loc := postgresBackend.tempLedger(t)
	createCountsTableIn(t, l.w, loc)
	admin := rawDB(t, loc)
	defer admin.Close()
	ctx := context.Background()
	var kills atomic.Int32
	for i := 0; i < 5; i++ {
		runs := 0
		evs, err := l.Append(ctx, "connection-1", -1, []NewEvent{{ID: testID(uint64(100 + i)), Type: "evidence_recorded",
			Data: map[string]int{"n": i}}}, func(tx *sql.Tx, evs []Event) error {
			runs++
			if runs == 1 {
				var pid int
				if err := tx.QueryRow(`SELECT pg_backend_pid()`).Scan(&pid); err != nil {
					return err
				}
				if _, err := admin.Exec(`SELECT pg_terminate_backend(?)`, pid); err != nil {
					return err
				}
				kills.Add(1)
			}
			return Fold(countsProjection{})(tx, evs)
		})
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if runs < 2 || evs[0].Seq != int64(i+1) {
			t.Fatalf("append %d: apply ran %d times, seq %d", i, runs, evs[0].Seq)
		}
	}
	if kills.Load() != 5 {
		t.Fatalf("%d kills", kills.Load())
	}
	versions := checkChain(t, l)
	if versions["connection-1"] != 5 {
		t.Fatalf("versions %v", versions)
	}
	var n int
	if err := l.ReadDB().QueryRow(`SELECT events FROM ` + countsTable + ` WHERE stream = 'connection-1'`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("projection counted %d (%v)", n, err)
	}
	checkRebuild(t, l, []Projection{countsProjection{}})
}

// A connection that stays lost through every retry is a typed, retryable
// error (ErrRetry), and nothing of the append is stored.
func TestPostgresConnectionLostEveryTime(t *testing.T) {
	l, loc := postgresBackend.tempLedger(t)
	admin := rawDB(t, loc)
	defer admin.Close()
	runs := 0
	_, err := l.Append(context.Background(), "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, func(tx *sql.Tx, _ []Event) error {
		runs++
		var pid int
		if err := tx.QueryRow(`SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			return err
		}
		_, err := admin.Exec(`SELECT pg_terminate_backend(?)`, pid)
		return err
	})
	if !errors.Is(err, ErrRetry) {
		t.Fatalf("want ErrRetry, got %v", err)
	}
	if runs != postgresDialect.maxAttempts {
		t.Fatalf("apply ran %d times, want %d", runs, postgresDialect.maxAttempts)
	}
	if seq, _, _ := l.Head(context.Background()); seq != 0 {
		t.Fatalf("head %d after a failed append", seq)
	}
	// The ledger is usable again once the connection is.
	if _, err := l.Append(context.Background(), "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); err != nil {
		t.Fatal(err)
	}
}

// Several ledgers (as several processes would) append while the server is
// restarted with `pg_ctl restart -m fast`: every append either succeeds or
// fails with ErrRetry; every success is stored exactly once, and the chain
// verifies without a gap. Needs REA_TEST_POSTGRES_RESTART (.ci/postgres.sh
// prints it).
func TestPostgresServerRestartWhileAppending(t *testing.T) {
	loc, restart := testkit.PostgresRestart(t) // the cluster alone: the restart cuts every connection
	const writers = 4
	handles := make([]*Ledger, writers)
	for i := range handles {
		handles[i] = openTest(t, loc, Options{})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stop := make(chan struct{})
	var mu sync.Mutex
	committed := map[string]bool{}
	var retries atomic.Int32
	var wg sync.WaitGroup
	for w, l := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := newULID()
				_, err := l.Append(ctx, fmt.Sprintf("connection-%d", w), -1, []NewEvent{{ID: id, Type: "cursor_moved",
					Data: map[string]int{"w": w, "i": i}}}, nil)
				switch {
				case err == nil:
					mu.Lock()
					committed[id.String()] = true
					mu.Unlock()
				case errors.Is(err, ErrRetry):
					retries.Add(1)
					time.Sleep(50 * time.Millisecond)
				default:
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if out, err := exec.Command("sh", "-c", restart).CombinedOutput(); err != nil {
		close(stop)
		wg.Wait()
		t.Fatalf("restart: %v: %s", err, out)
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	l := handles[0]
	checkChain(t, l)
	stored := map[string]bool{}
	if err := l.Scan(context.Background(), 1, func(e Event) error {
		if stored[e.ID.String()] {
			return fmt.Errorf("event %s stored twice", e.ID)
		}
		stored[e.ID.String()] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id := range committed {
		if !stored[id] {
			t.Fatalf("acknowledged event %s is not stored", id)
		}
	}
	t.Logf("%d acknowledged appends, %d stored, %d ErrRetry across the restart", len(committed), len(stored), retries.Load())
}

// A server that cannot be reached when the ledger is opened is an error at
// once (the wait for a restarting server is for servers reached before),
// naming the URL without its password.
func TestPostgresUnreachableFailsAtOnce(t *testing.T) {
	// Were it waited for, the deadline would end the wait instead.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Open(ctx, "postgres://rea:hunter2@/rea?host="+t.TempDir(), Options{})
	if err == nil {
		t.Fatal("opened a ledger on no server")
	}
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("waited for a server never reached: %v", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error shows the password: %v", err)
	}
}

// ProjectionDigest reads PostgreSQL's typed columns as the storage classes
// SQLite's STRICT tables have, so the same rows digest alike on both
// backends, and rows that differ only in type, NULL-ness or where a string
// is split still digest apart.
func TestProjectionDigestSameAcrossBackends(t *testing.T) {
	rows := [][4]any{
		{int64(1), nil, nil, nil}, {nil, "1", nil, nil}, {nil, nil, []byte("1"), nil}, {nil, nil, nil, 1.0},
		{nil, "", nil, nil}, {int64(-1), "é\u2028", []byte{0, 255}, -0.5}, {int64(1) << 53, "b", []byte("a"), 2.5},
	}
	digests := map[string][]string{}
	for _, b := range []backend{sqliteBackend, postgresBackend} {
		t.Run(b.name, func(t *testing.T) {
			l, loc := b.tempLedger(t)
			db := rawDB(t, loc)
			defer db.Close()
			mustExec(t, db, testDDL(loc, `CREATE TABLE dig (a INTEGER, b TEXT, c BLOB, d REAL) STRICT`))
			p := tableProjection{"dig"}
			var all []string
			for _, r := range rows {
				mustExec(t, db, `DELETE FROM dig`)
				mustExec(t, db, `INSERT INTO dig VALUES (?, ?, ?, ?)`, r[0], r[1], r[2], r[3])
				d, err := l.ProjectionDigest(context.Background(), []Projection{p})
				if err != nil {
					t.Fatal(err)
				}
				if slices.Contains(all, d) {
					t.Fatalf("row %v digests like an earlier one", r)
				}
				all = append(all, d)
			}
			// Several rows at once: sorted the same way (NULL first, bytes
			// in order) on both backends.
			for _, r := range rows {
				mustExec(t, db, `INSERT INTO dig VALUES (?, ?, ?, ?)`, r[0], r[1], r[2], r[3])
			}
			d, err := l.ProjectionDigest(context.Background(), []Projection{p})
			if err != nil {
				t.Fatal(err)
			}
			digests[b.name] = append(all, d)
		})
	}
	if pg, ok := digests["postgres"]; ok && !slices.Equal(pg, digests["sqlite"]) {
		t.Fatalf("digests differ between backends:\nsqlite   %v\npostgres %v", digests["sqlite"], pg)
	}
}
