package ledger

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rea-re/rea/internal/testkit"
)

// The ledger's test cases run against both backends: each takes a backend,
// which makes fresh, empty ledger locations (CONTRACTS.md §17: same
// semantics on SQLite and PostgreSQL).
//
// The PostgreSQL backend needs a server: REA_TEST_POSTGRES_URL names a
// database where the tests may create schemas (`.ci/postgres.sh start DIR`
// makes a private cluster and prints it; .ci/run exports it). Without it the
// PostgreSQL cases skip, and fail under REA_REQUIRE_ALL_TOOLS=1.
type backend struct {
	name string
	// fresh returns the location of a new, empty ledger: a file path in the
	// test's temporary directory, or a URL on a PostgreSQL schema of its
	// own that is dropped when the test ends.
	fresh func(t testing.TB) string
}

// envPostgresURL names the test database (the password in it is a test
// cluster's; still, tests never print it).
const envPostgresURL = "REA_TEST_POSTGRES_URL"

var (
	sqliteBackend = backend{name: "sqlite", fresh: func(t testing.TB) string {
		return filepath.Join(t.TempDir(), "ledger.db")
	}}
	postgresBackend = backend{name: "postgres", fresh: freshPostgres}
)

// forEachBackend runs fn as a subtest per backend (named sqlite, postgres).
func forEachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range []backend{sqliteBackend, postgresBackend} {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

// tempLedger opens a fresh ledger of b with the fixed clock and returns it
// with its location.
func (b backend) tempLedger(t testing.TB) (*Ledger, string) {
	t.Helper()
	loc := b.fresh(t)
	return openTest(t, loc, Options{Now: fixedClock()}), loc
}

// postgresURL returns the test database's URL, skipping (or failing under
// REA_REQUIRE_ALL_TOOLS=1) when there is none.
func postgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(envPostgresURL)
	if u == "" {
		testkit.SkipOrFail(t, envPostgresURL+" is not set: start a PostgreSQL test cluster with "+
			"`eval \"$(.ci/postgres.sh start /tmp/rea-pg)\"` (Debian package postgresql) to run the PostgreSQL ledger tests")
	}
	return u
}

// freshPostgres creates a schema of its own for the test and returns the
// URL whose connections use it (search_path), so every test starts from an
// empty ledger and tests never see each other's rows.
func freshPostgres(t testing.TB) string {
	t.Helper()
	base := postgresURL(t)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	schema := "rea_t_" + hex.EncodeToString(rnd[:])
	admin := pgAdmin(t, base)
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	return withParam(t, base, "search_path", schema)
}

// withParam adds a query parameter (a run-time setting for pgx) to a URL.
func withParam(t testing.TB, raw, key, value string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("%s does not parse", envPostgresURL)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// pgAdmin is a plain connection to the test database.
func pgAdmin(t testing.TB, raw string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		t.Fatalf("%s does not parse", envPostgresURL)
	}
	db := pgDB(cfg, false)
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatalf("connect to %s: %v", RedactURL(raw), redact(err, cfg.Password))
	}
	return db
}

// testDDL turns the tests' SQLite DDL into PostgreSQL's when loc is a URL.
func testDDL(loc, ddl string) string {
	if !IsURL(loc) {
		return ddl
	}
	return strings.NewReplacer(") STRICT", ")", "INTEGER", "BIGINT", "REAL", "DOUBLE PRECISION", "BLOB", "BYTEA").Replace(ddl)
}
