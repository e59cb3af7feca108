package ledger

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/rea-re/rea/internal/testkit"
)

// How a PostgreSQL writer commits (postgres.go): a role that may run
// pg_logical_emit_message commits with the head released before the flush
// (pgWriteFlush); one that may not gets plain durable commits
// (pgWriteDurable). Writers of both kinds share one chain, and Tail works
// for either.
func TestPostgresWriteModes(t *testing.T) {
	flushURL := testkit.PostgresURL(t) // skips without a test cluster
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(flushURL)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := writeModeFor(ctx, cfg); err != nil || m != pgWriteFlush {
		t.Fatalf("superuser: mode %v (%v), want pgWriteFlush", m, err)
	}

	// A database of its own where PUBLIC may not run pg_logical_emit_message
	// (function privileges are per database, so nothing else is affected),
	// and a role that is not a superuser (a superuser may run anything).
	base := os.Getenv(testkit.EnvPostgresURL)
	admin := pgAdmin(t, base)
	defer admin.Close()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := "rea_nf_" + hex.EncodeToString(rnd[:])
	password := hex.EncodeToString(rnd[:]) + "Pw"
	for _, q := range []string{
		`CREATE ROLE ` + name + ` LOGIN PASSWORD '` + password + `'`,
		`CREATE DATABASE ` + name + ` OWNER ` + name,
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
		_, _ = admin.Exec(`DROP ROLE IF EXISTS ` + name)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	superURL := u.String()
	super := pgAdmin(t, superURL)
	if _, err := super.Exec(`REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text),
		pg_logical_emit_message(boolean, text, bytea) FROM PUBLIC`); err != nil {
		t.Fatal(err)
	}
	super.Close()
	u.User = url.UserPassword(name, password)
	roleURL := u.String()
	roleCfg, err := pgx.ParseConfig(roleURL)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := writeModeFor(ctx, roleCfg); err != nil || m != pgWriteDurable {
		t.Fatalf("role without pg_logical_emit_message: mode %v (%v), want pgWriteDurable", m, err)
	}

	durable := openTest(t, roleURL, Options{})
	flushing := openTest(t, superURL, Options{})
	tailCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	seen := make(chan int64, 16)
	tailErr := make(chan error, 1)
	go func() {
		tailErr <- durable.Tail(tailCtx, 1, func(e Event) error {
			seen <- e.Seq
			return nil
		})
	}()
	for i := range 6 {
		l := durable
		if i%2 == 1 {
			l = flushing
		}
		evs, err := l.Append(ctx, "connection-1", int64(i), []NewEvent{{Type: "t", Data: map[string]int{"i": i}}}, nil)
		if err != nil || evs[0].Seq != int64(i+1) {
			t.Fatalf("append %d: %v %v", i, evs, err)
		}
	}
	for want := int64(1); want <= 6; want++ {
		select {
		case got := <-seen:
			if got != want {
				t.Fatalf("tail printed seq %d, want %d", got, want)
			}
		case err := <-tailErr:
			t.Fatalf("tail ended: %v", err)
		case <-tailCtx.Done():
			t.Fatalf("tail did not print seq %d", want)
		}
	}
	cancel()
	if err := <-tailErr; err != nil {
		t.Fatal(err)
	}
	checkChain(t, durable)
}

// A server this process had reached that stays unreachable through the
// reconnect wait is ErrUnavailable (retryable), not a bare network error:
// here the server sits behind a TCP proxy the test closes.
func TestPostgresUnreachableAfterWaitIsTyped(t *testing.T) {
	raw := testkit.PostgresURL(t)
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cfg.Host, "/") {
		t.Skip("the test cluster is not on a Unix socket")
	}
	socket := filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", socket)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	tcp := cfg.Copy()
	tcp.Host = "127.0.0.1"
	tcp.Port = uint16(ln.Addr().(*net.TCPAddr).Port)
	tcp.TLSConfig, tcp.Fallbacks = nil, nil
	db := sql.OpenDB(rebindConnector{Connector: stdlib.GetConnector(*tcp), readOnly: true, seen: new(atomic.Bool),
		patience: 300 * time.Millisecond})
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	ln.Close() // the "server" goes away: new connections are refused
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	var n int
	err = db.QueryRow(`SELECT 1`).Scan(&n)
	if !errors.Is(err, ErrUnavailable) || !pgRetryable(err) {
		t.Fatalf("read from an unreachable server: %v, want ErrUnavailable", err)
	}
	// What a ledger's reads return then: ledger_unavailable with reason
	// connection_lost and no location (CONTRACTS.md §0.3).
	var ue *UnavailableError
	if typed := (&Ledger{path: RedactURL(raw), d: postgresDialect}).storageFailure(fmt.Errorf("ledger: scan: %w", err)); !errors.As(typed, &ue) ||
		ue.Reason != ReasonConnectionLost || ue.Dir != "" {
		t.Fatalf("typed as %v, want connection_lost without a path", typed)
	}
}

// The writer's BEGIN reads the first event's state in its own round trip,
// under the head lock: what it reads is what appendStateSQL reads after.
func TestPostgresBeginReadsAppendState(t *testing.T) {
	l, _ := postgresBackend.tempLedger(t)
	ctx := context.Background()
	evs, err := l.Append(ctx, "connection-1", -1, []NewEvent{{ID: testID(7), Type: "t", Data: map[string]int{}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stream, id string
		version    int64
		stored     bool
	}{{"connection-1", testID(7).String(), 1, true}, {"connection-2", testID(8).String(), 0, false}} {
		st := &appendState{stream: c.stream, eventID: c.id}
		tx, err := l.w.BeginTx(context.WithValue(ctx, appendStateKey{}, st), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = tx.Rollback()
		if !st.ok || st.seq != 1 || st.prevHash != evs[0].Hash || st.firstVersion != c.version || st.stored != c.stored {
			t.Fatalf("%s: state %+v", c.stream, st)
		}
	}
}

// Every append of a lone writer is flushed before Append returns: with the
// head released at an asynchronous COMMIT, the flush transaction after it
// is what makes the answer durable, so n sequential appends cost at least n
// WAL syncs (pg_stat_wal, PostgreSQL 14+). A flush transaction that wrote no
// WAL of its own would commit without syncing, and this would fail.
func TestPostgresAppendsAreFlushed(t *testing.T) {
	loc := freshPostgres(t)
	admin := pgAdmin(t, loc)
	defer admin.Close()
	walSyncs := func() int64 {
		var n int64
		if err := admin.QueryRow(`SELECT wal_sync FROM pg_stat_wal`).Scan(&n); err != nil {
			t.Skipf("pg_stat_wal: %v", err)
		}
		return n
	}
	before := walSyncs()
	l := openTest(t, loc, Options{})
	const n = 20
	for i := range n {
		if _, err := l.Append(context.Background(), "s", -1, []NewEvent{{Type: "t", Data: map[string]int{"i": i}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// A backend reports its WAL counters when idle for a second or when it
	// exits; closing the ledger ends its backends.
	l.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := walSyncs() - before
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d appends, %d WAL syncs", n, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
