// Package ledger is REA's event store: one SQLite file holding an
// append-only, hash-chained log of events, the content-addressed blobs they
// refer to, and (in the same database) the projection tables folded from
// them.
//
// Everything REA knows is an event here; every other table is a cache that
// `rea ledger rebuild` can throw away and fold again. So the package keeps
// four promises and tests each of them:
//
//   - Atomicity: Append runs one BEGIN IMMEDIATE transaction that checks the
//     stream version, chains and inserts the events, and applies the
//     projections; either all of it commits or none of it does. A request
//     whose context is cancelled never publishes. Concurrent appends share
//     one transaction and one durable COMMIT (group commit), each under its
//     own savepoint, and none returns before that COMMIT.
//   - Order: seq is a gapless global position and stream_version a gapless
//     per-stream one; a stale expected version is a typed *ConflictError.
//   - Tamper evidence: hash = sha256hex(prev_hash || C), where C is the RFC
//     8785 envelope stored byte for byte (CONTRACTS.md §13.1). Triggers refuse
//     UPDATE and DELETE; Verify and VerifyExport find any changed, removed,
//     reordered or inserted row, and a truncated tail against an earlier
//     export, and name the first bad seq.
//   - Portability: Export writes JSON Lines that VerifyExport checks offline
//     and Import loads verbatim into an empty ledger.
//
// The package is a leaf adapter: it imports no other REA package, and knows
// nothing about event types beyond the record_digest blob reference.
//
// A postgres:// URL opens the same ledger on PostgreSQL instead, for a team
// whose REA processes on many hosts share one chain (CONTRACTS.md §17,
// postgres.go). The two backends differ only in a dialect (dialect.go): a
// few statements, how writers serialize across processes, how a read
// snapshot is asked for and how errors are recognized.
//
// SQLite is used the way Litestream recommends: WAL, one writer connection
// (SQLite has one writer anyway; queueing in Go is cheaper than spinning on
// SQLITE_BUSY), a separate pool of read connections that never block the
// writer, synchronous=FULL because an acknowledged event must survive power
// loss, and a busy timeout plus bounded retries for the other processes that
// may share the file (an MCP server and a CLI command, say).
package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Options tunes Open. The zero value is the production configuration.
type Options struct {
	// ReadConns is the size of the read pool (default 4, at least 2).
	ReadConns int
	// Now is the clock for recorded_at and exported_at (default time.Now).
	// Tests set it to get byte-identical ledgers.
	Now func() time.Time
}

// Ledger is an open ledger file. It is safe for concurrent use; several
// Ledgers (in one process or many) may share one file.
type Ledger struct {
	path     string // the file, or the URL with its password redacted
	readOnly bool
	now      func() time.Time
	d        *dialect        // sqliteDialect or postgresDialect
	pg       *pgx.ConnConfig // PostgreSQL only: for Tail's LISTEN connection

	w *sql.DB // writer: exactly one connection; nil when read-only
	r *sql.DB // read pool

	// Statements prepared once on the writer connection; within a
	// transaction tx.StmtContext reuses them instead of re-parsing SQL.
	stAppendState, stStreamVersion, stByID, stInsert, stPutBlob *sql.Stmt

	group groupCommit // the append queue (group.go)

	mu sync.RWMutex
	id string // ledger_id; replaced by Import
}

// Errors a caller may test with errors.Is.
var (
	// ErrConflict: the stream's version differs from the expected one.
	ErrConflict = errors.New("ledger: stream version conflict")
	// ErrReadOnly: a write on a ledger opened with OpenReadOnly.
	ErrReadOnly = errors.New("ledger: opened read-only")
	// ErrNotFound: no such blob.
	ErrNotFound = errors.New("ledger: not found")
	// ErrEventIDReused: an event ID is already stored with different content,
	// or only part of a batch is already stored.
	ErrEventIDReused = errors.New("ledger: event id already used for a different event")
	// ErrNotEmpty: Import into a ledger that already has events.
	ErrNotEmpty = errors.New("ledger: ledger is not empty")
	// ErrVerifyFailed: Import of an export that does not verify; the error is
	// a *VerifyError carrying the report.
	ErrVerifyFailed = errors.New("ledger: verification failed")
	// ErrBusy: the database stayed locked by another process through every
	// retry (minutes); it does not occur in normal operation.
	ErrBusy = errors.New("ledger: database busy")
	// ErrNotLedger: the file is not an REA ledger (no ledger_id).
	ErrNotLedger = errors.New("ledger: not an REA ledger")
	// ErrNoLedger: no ledger has been created at the location yet (a
	// PostgreSQL database or schema without the ledger's tables, an SQLite
	// file that does not exist or is empty); errors.Is ErrNotLedger too.
	ErrNoLedger = fmt.Errorf("%w: no ledger has been created here yet", ErrNotLedger)
)

// ConflictError reports a failed optimistic-concurrency check.
type ConflictError struct {
	Stream   string
	Expected int64
	Actual   int64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("ledger: stream %q is at version %d, expected %d", e.Stream, e.Actual, e.Expected)
}

// Is makes errors.Is(err, ErrConflict) true for a *ConflictError.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// DefaultPath is ${XDG_STATE_HOME:-$HOME/.local/state}/rea/ledger.db. A
// relative XDG_STATE_HOME is ignored, as the XDG base directory spec says.
func DefaultPath() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("ledger: no state directory: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "rea", "ledger.db"), nil
}

// sqliteURI turns a file path into an SQLite URI with the given query. URI
// form is needed for mode=ro; '?', '#' and '%' in the path are escaped so they
// are not taken as URI syntax.
func sqliteURI(path string, q url.Values) string {
	p := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	// url.Values.Encode escapes the parentheses of _pragma values, which the
	// driver unescapes again; keep them readable instead.
	enc := strings.NewReplacer("%28", "(", "%29", ")").Replace(q.Encode())
	return "file:" + p + "?" + enc
}

// writerDSN is the configuration of every connection that may write.
//
// page_size only takes effect when the file is created, so it must run
// before journal_mode=WAL writes the first page: the driver applies the
// _journal_mode key after every _pragma, which is why WAL is requested that
// way.
//
// The page size trades replay against live appends. Every b-tree a commit
// touches costs one whole page in the WAL, and an Evidence publication
// touches about ten (the event and its two indexes, the record body and its
// key, the publications projection and its two indexes, the header; a
// body that does not fit its leaf even deflated adds overflow pages), so a
// single-event commit writes ten pages whatever their size, and the fsync
// after it takes longer the more bytes it flushes. A replay or verify, on
// the other hand, reads fewer pages the larger they are. Measured on the
// 2-core machine (BENCHMARKS.md): 16 KiB pages replay at 132–146k events/s
// and append 1.5–2.4k durable events/s; 8 KiB pages replay at 114–119k
// (issue 2's floor is 100k), append 2.8k/s, and page through a large
// binary's procedures over MCP about 8% faster; 4 KiB pages replay below
// the floor. temp_store(2) keeps the sorts of Rebuild's index builds in
// memory instead of temporary files (about 10% of a replay).
func writerDSN(path string) string {
	return sqliteURI(path, url.Values{
		"_pragma":       {"busy_timeout(10000)", "page_size(8192)", "synchronous(FULL)", "foreign_keys(1)", "temp_store(2)"},
		"_journal_mode": {"WAL"},
		"_txlock":       {"immediate"},
	})
}

func readerDSN(path string, readOnlyFile bool) string {
	q := url.Values{
		"_pragma":     {"busy_timeout(10000)", "foreign_keys(1)"},
		"_query_only": {"1"},
	}
	if readOnlyFile {
		q.Set("mode", "ro")
	}
	return sqliteURI(path, q)
}

// Open opens the ledger at path, creating it (parent directory 0700, file
// 0600) and applying every pending migration first. A postgres:// or
// postgresql:// URL (IsURL) opens a PostgreSQL ledger instead (postgres.go).
func Open(ctx context.Context, path string, opts Options) (_ *Ledger, err error) {
	if IsURL(path) {
		// A server that is read-only (a standby) or out of disk fails here
		// already: ledger_unavailable, with no location.
		defer func() { err = storageFailureIn("", err) }()
		return openPostgres(ctx, path, opts, false)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	// A directory on a full or read-only file system fails here already
	// (the lock file, the schema): ledger_unavailable, as for an append.
	defer func() { err = storageFailureIn(filepath.Dir(abs), err) }()
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: create directory: %w", err)
	}
	l := newLedger(abs, opts)
	if err := l.prepareFile(ctx); err != nil {
		return nil, err
	}
	if l.w, err = sql.Open("sqlite", writerDSN(abs)); err != nil {
		return nil, fmt.Errorf("ledger: open writer: %w", err)
	}
	l.w.SetMaxOpenConns(1)
	l.w.SetMaxIdleConns(1)
	l.w.SetConnMaxLifetime(0)
	l.w.SetConnMaxIdleTime(0)
	if err := l.openReaders(opts, false); err != nil {
		l.Close()
		return nil, err
	}
	if err := l.prepare(ctx); err != nil {
		l.Close()
		return nil, err
	}
	if err := l.loadID(ctx); err != nil {
		l.Close()
		return nil, err
	}
	l.tightenModes()
	return l, nil
}

// OpenReadOnly opens an existing ledger for verify, export and doctor: no
// migration runs and nothing is written (SQLite mode=ro, query_only).
func OpenReadOnly(ctx context.Context, path string) (*Ledger, error) {
	if IsURL(path) {
		return openPostgres(ctx, path, Options{}, true)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNoLedger, abs)
		}
		return nil, fmt.Errorf("ledger: %w", err)
	}
	l := newLedger(abs, Options{})
	l.readOnly = true
	if err := l.openReaders(Options{}, true); err != nil {
		return nil, err
	}
	if err := l.loadID(ctx); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func newLedger(abs string, opts Options) *Ledger {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Ledger{path: abs, now: now, d: sqliteDialect, group: groupCommit{writer: make(chan struct{}, 1)}}
}

func (l *Ledger) openReaders(opts Options, readOnlyFile bool) error {
	n := opts.ReadConns
	if n <= 0 {
		n = 4
	}
	n = max(n, 2) // Verify reads events and blobs on two connections at once

	r, err := sql.Open("sqlite", readerDSN(l.path, readOnlyFile))
	if err != nil {
		return fmt.Errorf("ledger: open readers: %w", err)
	}
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	l.r = r
	return nil
}

// appendStateSQL reads the head (0 and "" when empty), a stream's version
// (?1) and whether an event ID (?2) is stored, in one statement (appendTx).
const appendStateSQL = `SELECT
		COALESCE((SELECT seq FROM events ORDER BY seq DESC LIMIT 1), 0),
		COALESCE((SELECT hash FROM events ORDER BY seq DESC LIMIT 1), ''),
		(SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream = ?1),
		EXISTS (SELECT 1 FROM events WHERE event_id = ?2)`

func (l *Ledger) prepare(ctx context.Context) error {
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = l.w.PrepareContext(ctx, q)
		return st
	}
	l.stAppendState = prep(appendStateSQL)
	l.stStreamVersion = prep(`SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream = ?`)
	l.stByID = prep(`SELECT ` + eventColumns + ` FROM events WHERE event_id = ?`)
	l.stInsert = prep(`INSERT INTO events (seq, event_id, stream, stream_version, type, schema_version,
		recorded_at, data, canonical, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	l.stPutBlob = prep(l.d.putBlob)
	if err != nil {
		return fmt.Errorf("ledger: prepare: %w", err)
	}
	return nil
}

func (l *Ledger) loadID(ctx context.Context) error {
	var id string
	err := l.r.QueryRowContext(ctx, `SELECT value FROM ledger_meta WHERE key = 'ledger_id'`).Scan(&id)
	if err != nil {
		if l.d.missingTable(err) {
			return fmt.Errorf("%w: %s", ErrNoLedger, l.path)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNotLedger, l.path)
		}
		return fmt.Errorf("ledger: read ledger_id: %w", err)
	}
	l.mu.Lock()
	l.id = id
	l.mu.Unlock()
	return nil
}

// tightenModes makes the ledger and its WAL side files 0600, best effort.
// SQLite gives -wal and -shm the database file's mode when it creates them,
// so this only matters for files made by something else.
func (l *Ledger) tightenModes() {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		p := l.path + suffix
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(p, 0o600)
		}
	}
}

// Close closes every connection. The ledger must not be used afterwards.
func (l *Ledger) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{l.stAppendState, l.stStreamVersion, l.stByID, l.stInsert, l.stPutBlob} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if l.w != nil {
		errs = append(errs, l.w.Close())
	}
	if l.r != nil {
		errs = append(errs, l.r.Close())
	}
	return errors.Join(errs...)
}

// ID is the ledger_id, a ULID made when the file was created (or adopted
// from the export by Import).
func (l *Ledger) ID() string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.id
}

// Path is the absolute path of the database file, or the PostgreSQL URL
// with its password replaced by *** (RedactURL).
func (l *Ledger) Path() string { return l.path }

// PrepareRead prepares a read-only query on the writer connection, for use
// through tx.StmtContext inside an append transaction (typically in its apply
// callback), where it sees the rows the transaction has written so far and
// costs no read-pool round trip. Prepare before the transaction begins: the
// writer has one connection, which the transaction holds.
func (l *Ledger) PrepareRead(ctx context.Context, query string) (*sql.Stmt, error) {
	if l.w == nil {
		return nil, ErrReadOnly
	}
	if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), "SELECT") {
		return nil, fmt.Errorf("ledger: PrepareRead takes a SELECT, not %.20q", query)
	}
	return l.w.PrepareContext(ctx, query)
}

// ReadDB is the read pool, for projection queries. Its connections are
// query_only; writes go through Append.
func (l *Ledger) ReadDB() *sql.DB { return l.r }

// SchemaVersion is the version of the last applied migration.
func (l *Ledger) SchemaVersion(ctx context.Context) (_ int, err error) {
	defer l.typeStorage(&err)
	var v int
	var dirty bool
	err = l.r.QueryRowContext(ctx, `SELECT version, dirty FROM schema_migrations LIMIT 1`).Scan(&v, &dirty)
	if err != nil {
		return 0, fmt.Errorf("ledger: schema version: %w", err)
	}
	if dirty {
		return v, fmt.Errorf("ledger: schema version %d is dirty (a migration failed half-way)", v)
	}
	return v, nil
}

func newULID() ulid.ULID { return ulid.Make() }
