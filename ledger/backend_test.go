package ledger

import (
	"context"
	"database/sql"
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

// freshPostgres is a new, empty schema of the test database (testkit).
func freshPostgres(t testing.TB) string { return testkit.PostgresURL(t) }

// pgAdmin is a plain connection to the test database.
func pgAdmin(t testing.TB, raw string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		t.Fatalf("%s does not parse", testkit.EnvPostgresURL)
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
