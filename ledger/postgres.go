package ledger

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	mpgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/rea-re/rea/ledger/internal/chain"
	"github.com/rea-re/rea/migrations"
)

// The PostgreSQL backend (CONTRACTS.md §17): one database (schema) shared by
// every REA process of a team, with the same events, canonical bytes, hash
// chain, blobs and projection tables as an SQLite file.
//
// Writers of all processes serialize on the chain head with
// pg_advisory_xact_lock, taken in the BEGIN of every write transaction (one
// round trip, which also reads an append's state: pgWriteMode.begin) and
// released by its COMMIT or ROLLBACK. The
// alternative, a head row taken FOR UPDATE, would need that row updated by
// every append (a second write and a dead tuple per commit) to carry the
// head; the advisory lock costs no write, and the head itself is the last
// row of the events primary key. Under READ COMMITTED the statement after
// the lock sees every commit made before the lock was granted, so seq =
// head + 1 is always right; seq being the PRIMARY KEY makes a fork
// impossible even for a writer that skipped the lock.
//
// Commits release the head before they flush. A durable COMMIT holds its
// locks until the WAL is flushed, so with the head held through it the
// writers of different processes could never share a flush: four processes
// appended no faster than one (BENCHMARKS.md). So a write transaction
// commits with synchronous_commit off for itself alone (SET LOCAL): the
// commit record is written, the rows become visible and the head is free at
// once. Then, in the same round trip, a second transaction with the
// session's own synchronous_commit writes one WAL record
// (pg_logical_emit_message, transactional, so it has an xid and its commit
// flushes) and commits; it returns only when the WAL is durable up to its
// commit record, which lies after the append's, and only then does Commit
// return and the caller get an answer. Those second transactions of
// several processes wait on the WAL flush together, and PostgreSQL flushes
// once for all of them (its group commit), while the next append already
// holds the head. Durability before the answer is unchanged, and so is the
// level: the flush waits for whatever the session's synchronous_commit asks
// (remote_apply on a team server with a synchronous standby included).
//
// What changes is that another process may read an append (or chain after
// it) between its commit and its flush. That cannot fork or lose anything
// durable: WAL is flushed in order, so an append chained after it is durable
// only if it is, and a crash in between loses both, with both callers
// unanswered (their retries find their event IDs absent and append again).
// Tail, the one reader that shows events to a person as they commit, prints
// only what a flush of its own has made durable (Tail).
//
// A role that may not run pg_logical_emit_message (it is granted to PUBLIC
// by default) gets plain durable commits that hold the head through the
// flush, as before: correct, only slower with several writers.
//
// Within one process, appends still go through the group commit (group.go):
// one transaction and one COMMIT for the appends that queue meanwhile, under
// savepoints.

// IsURL reports whether a --ledger / REA_LEDGER_URL value names a
// PostgreSQL ledger (scheme postgres or postgresql) rather than a file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// RedactURL returns a PostgreSQL URL with its password (in the user info or
// a password parameter) replaced by ***, for printing. An unparsable URL is
// not echoed at all.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "postgres://***"
	}
	out := u.String()
	if _, ok := u.User.Password(); ok {
		v := *u
		v.User = url.UserPassword(u.User.Username(), "xxxxx")
		out = strings.Replace(v.String(), ":xxxxx@", ":***@", 1)
		u = &v
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		v := *u
		v.RawQuery = q.Encode()
		if _, ok := u.User.Password(); ok {
			v.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		out = strings.Replace(strings.Replace(v.String(), ":xxxxx@", ":***@", 1), "password=xxxxx", "password=***", 1)
	}
	return out
}

var postgresDialect = &dialect{
	name:          "postgres",
	putBlob:       `INSERT INTO blobs (sha256, data, encoding) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
	setLedgerID:   `INSERT INTO ledger_meta (key, value) VALUES ('ledger_id', ?) ON CONFLICT (key) DO NOTHING`,
	verifyDataLen: `CASE WHEN substring(canonical FROM ` + strconv.Itoa(chain.DataStart+1) + ` FOR octet_length(data)) = convert_to(data, 'UTF8') THEN octet_length(data) ELSE -1 END`,
	digestColumns: `SELECT column_name, CASE
			WHEN data_type IN ('bigint', 'integer', 'smallint') THEN 'integer'
			WHEN data_type IN ('double precision', 'real') THEN 'real'
			WHEN data_type = 'bytea' THEN 'blob'
			ELSE 'text' END
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
	indexes: `SELECT i.indexname, i.indexdef FROM pg_indexes i
		WHERE i.schemaname = current_schema() AND i.tablename = ?
			AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()))
		ORDER BY i.indexname`,
	readTx:       &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead},
	retryable:    pgRetryable,
	maxAttempts:  4, // three retries (CONTRACTS.md §17)
	exhausted:    ErrRetry,
	eventIDTaken: func(err error) bool { return pgConstraint(err, "23505", "events_event_id_key") },
	missingTable: func(err error) bool { return pgConstraint(err, "42P01", "") },
}

// ErrRetry: an append (or rebuild or import) could not commit because the
// connection to PostgreSQL was lost, the server restarted or the
// transaction failed to serialize, through every internal retry. Nothing of
// it is half-stored (a commit whose outcome was unknown was looked up by its
// first event ID before each retry): the caller may run it again
// (revision_conflict, retryable).
var ErrRetry = errors.New("ledger: transaction not committed (PostgreSQL connection lost or serialization failure); retry")

func pgConstraint(err error, code, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code && (constraint == "" || pe.ConstraintName == constraint)
}

// pgRetryable: the transaction failed for a reason that running it again on
// a new connection may not meet: a lost or refused connection, a server
// shutting down or starting, a serialization failure or deadlock, or a seq
// taken by another writer (impossible under the head lock; a retry reads
// the new head).
func pgRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "40001", pe.Code == "40P01": // serialization_failure, deadlock_detected
			return true
		case strings.HasPrefix(pe.Code, "08"): // connection exceptions
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // shutdown, crash, cannot connect now
			return true
		case pe.Code == "23505" && pe.ConstraintName == "events_pkey":
			return true
		}
		return false
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	return errors.Is(err, errCommitUnknown) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, net.ErrClosed) ||
		errors.As(err, &ne) || errors.As(err, &ce) || pgconn.SafeToRetry(err) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF")
}

// redactedError hides the password in an error's text (a driver may quote
// the connection settings) while keeping the chain for errors.Is/As.
type redactedError struct {
	err      error
	password string
}

func (e *redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.password, "***")
}

func (e *redactedError) Unwrap() error { return e.err }

func redact(err error, password string) error {
	if err == nil || password == "" {
		return err
	}
	return &redactedError{err: err, password: password}
}

// openPostgres opens the ledger at a postgres:// URL, migrating its schema
// first unless readOnly. The password comes from the URL, PGPASSWORD or
// ~/.pgpass (pgx reads them) and is never part of an error or of Path.
func openPostgres(ctx context.Context, rawURL string, opts Options, readOnly bool) (l *Ledger, err error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		// The parser's message may quote the URL.
		return nil, fmt.Errorf("ledger: %s: invalid PostgreSQL URL", RedactURL(rawURL))
	}
	defer func() { err = redact(err, cfg.Password) }()

	l = newLedger(RedactURL(rawURL), opts)
	l.d = postgresDialect
	l.readOnly = readOnly
	l.pg = cfg
	if !readOnly {
		if err := migratePostgres(pgDB(cfg, false)); err != nil {
			return nil, err
		}
		mode, err := writeModeFor(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("ledger: %s: %w", l.path, err)
		}
		l.w = pgWriterDB(cfg, mode)
		// One writer connection, as with SQLite: the group commit makes one
		// transaction at a time per process anyway, and PrepareRead relies
		// on it.
		l.w.SetMaxOpenConns(1)
		l.w.SetMaxIdleConns(1)
		if _, err := l.w.ExecContext(ctx, l.d.setLedgerID, newULID().String()); err != nil {
			l.Close()
			return nil, fmt.Errorf("ledger: set ledger_id: %w", err)
		}
	}
	l.r = pgDB(cfg, true)
	n := opts.ReadConns
	if n <= 0 {
		n = 4
	}
	n = max(n, 2)
	l.r.SetMaxOpenConns(n)
	l.r.SetMaxIdleConns(n)
	if !readOnly {
		if err := l.prepare(ctx); err != nil {
			l.Close()
			return nil, err
		}
	}
	if err := l.loadID(ctx); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// pgDB is a database/sql handle on cfg whose connections take SQLite's ?
// and ?N placeholders (rebind). Read handles are read-only sessions, as the
// SQLite read pool is query_only.
func pgDB(cfg *pgx.ConnConfig, readOnly bool) *sql.DB {
	return openPG(cfg, readOnly, nil)
}

// pgWriterDB is the writer handle: every transaction it begins takes the
// chain head and commits as mode says (pgWriteTx).
func pgWriterDB(cfg *pgx.ConnConfig, mode *pgWriteMode) *sql.DB {
	return openPG(cfg, false, mode)
}

func openPG(cfg *pgx.ConnConfig, readOnly bool, write *pgWriteMode) *sql.DB {
	c := cfg.Copy()
	if c.RuntimeParams == nil {
		c.RuntimeParams = map[string]string{}
	}
	if readOnly {
		c.RuntimeParams["default_transaction_read_only"] = "on"
	}
	if _, ok := c.RuntimeParams["application_name"]; !ok {
		c.RuntimeParams["application_name"] = "rea"
	}
	return sql.OpenDB(rebindConnector{Connector: stdlib.GetConnector(*c), readOnly: readOnly, write: write, seen: new(atomic.Bool)})
}

// migratePostgres applies migrations.PostgresFS through golang-migrate's
// pgx/v5 driver, whose lock is a PostgreSQL advisory lock and so holds
// across processes and hosts. Each migration commits atomically with its
// version (atomicDriver), PostgreSQL DDL being transactional too. It closes
// db.
func migratePostgres(db *sql.DB) error {
	inner, err := mpgx.WithInstance(db, &mpgx.Config{})
	if err != nil {
		db.Close()
		return fmt.Errorf("ledger: migrate: %w", err)
	}
	src, err := fs.Sub(migrations.PostgresFS, "postgres")
	if err != nil {
		inner.Close()
		return fmt.Errorf("ledger: migrate: %w", err)
	}
	return runMigrations(src, "postgres", &atomicDriver{Driver: inner, db: db})
}

// rebindConnector makes connections that rewrite SQLite placeholders.
//
// A server that restarts (or fails over) refuses connections for a moment:
// Connect retries for up to connectPatience, so a restart looks like a slow
// statement to the callers instead of a failure. (`pg_ctl restart -m fast`
// took 18 s on the loaded 2-core test machine; a minute covers that with a
// margin, and a caller's own deadline still ends the wait.) Only a server
// this handle has reached before is waited for: a wrong URL or a server that
// is down when REA starts fails at once.
type rebindConnector struct {
	driver.Connector
	readOnly bool
	write    *pgWriteMode  // the writer's transactions; nil: plain ones
	seen     *atomic.Bool  // a connection succeeded once
	patience time.Duration // 0: connectPatience
}

const connectPatience = time.Minute

// ErrUnavailable: a PostgreSQL ledger this process had reached stayed
// unreachable (refused, down, restarting) through the whole reconnect wait
// of a read or write. It is transient by nature: the caller may retry
// later. An append that fails this way through its retries reports
// ErrRetry instead (nothing of it is stored).
var ErrUnavailable error = unavailableError{}

type unavailableError struct{}

func (unavailableError) Error() string { return "ledger: PostgreSQL server unreachable; retry later" }

// LedgerUnavailable marks the failure as one a later call may not meet:
// callers report it as ledger_unavailable (retryable, fault.From), with
// no path: a PostgreSQL ledger's URL is never shown (CONTRACTS.md §0.3).
func (unavailableError) LedgerUnavailable() (reason, dir string) { return ReasonConnectionLost, "" }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	patience := c.patience
	if patience == 0 {
		patience = connectPatience
	}
	deadline := time.Now().Add(patience)
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, time.Second) {
		conn, err := c.Connector.Connect(ctx)
		if err == nil {
			c.seen.Store(true)
			return rebindConn{Conn: conn.(*stdlib.Conn), readOnly: c.readOnly, write: c.write}, nil
		}
		if !c.seen.Load() || !pgRetryable(err) || ctx.Err() != nil {
			return nil, err
		}
		if time.Now().Add(delay).After(deadline) {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// rebindConn is a pgx connection that takes the package's SQL, written with
// SQLite's ? and ?N placeholders, and hands PostgreSQL $N. Everything else
// is pgx's own.
//
// A pooled connection the server has closed (a restart, an administrator's
// pg_terminate_backend) fails its next use. Where running that use again on
// another connection cannot do anything twice — beginning a transaction,
// preparing, and any statement of a read-only session — the failure is
// reported as driver.ErrBadConn, which makes database/sql drop the
// connection and run it again on a fresh one. A write that failed that way
// is the ledger's to retry (its transaction, looked up by event ID).
type rebindConn struct {
	*stdlib.Conn
	readOnly bool
	write    *pgWriteMode
}

// badConn turns a lost connection into driver.ErrBadConn.
func badConn(err error) error {
	var pe *pgconn.PgError
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
		(!errors.As(err, &pe) || pe.Code == "57P01" || strings.HasPrefix(pe.Code, "08")) && pgRetryable(err) {
		return driver.ErrBadConn
	}
	return err
}

func (c rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.Conn.PrepareContext(ctx, rebind(query))
	if err != nil {
		return nil, badConn(err)
	}
	return rebindStmt{Stmt: st.(*stdlib.Stmt), readOnly: c.readOnly}, nil
}

// rebindStmt is a prepared statement of a rebindConn: on a read-only
// session a lost connection is driver.ErrBadConn, as for its statements.
type rebindStmt struct {
	*stdlib.Stmt
	readOnly bool
}

func (s rebindStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	res, err := s.Stmt.ExecContext(ctx, args)
	if s.readOnly {
		err = badConn(err)
	}
	return res, err
}

func (s rebindStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := s.Stmt.QueryContext(ctx, args)
	if s.readOnly {
		err = badConn(err)
	}
	return rows, err
}

func (c rebindConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.write == nil {
		tx, err := c.Conn.BeginTx(ctx, opts)
		return tx, badConn(err)
	}
	return c.write.begin(ctx, c.Conn.Conn().PgConn())
}

func (c rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) > 0 {
		query = rebind(query)
	}
	res, err := c.Conn.ExecContext(ctx, query, args)
	if c.readOnly {
		err = badConn(err)
	}
	return res, err
}

func (c rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) > 0 {
		query = rebind(query)
	}
	rows, err := c.Conn.QueryContext(ctx, query, args)
	if c.readOnly {
		err = badConn(err)
	}
	return rows, err
}

// rebind rewrites ? as $1, $2, … in order and ?N as $N, outside string
// literals, quoted identifiers, dollar-quoted bodies and comments.
func rebind(q string) string {
	if !strings.ContainsRune(q, '?') {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(q))
			b.WriteString(q[i:end])
			i = end - 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			end := len(q)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(q[i:end])
			i = end - 1
		case c == '$' && dollarTag(q[i:]) != "":
			tag := dollarTag(q[i:])
			j := strings.Index(q[i+len(tag):], tag)
			end := len(q)
			if j >= 0 {
				end = i + len(tag) + j + len(tag)
			}
			b.WriteString(q[i:end])
			i = end - 1
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(q[i+1 : j])
				i = j - 1
			} else {
				n++
				b.WriteString(strconv.Itoa(n))
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// dollarTag returns the opening $tag$ of a dollar-quoted string at the
// start of s, or "" ($1 is a parameter, not a tag).
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (j > 1 && c >= '0' && c <= '9') || c >= 0x80:
		default:
			return ""
		}
	}
	return ""
}

// pgWriteMode is how the writer connection's transactions begin and commit
// (see the comment at the top of this file).
type pgWriteMode struct {
	begin_, commit string
	flushes        bool // commit releases the head before it flushes
}

// The chain head's lock key is the database's and schema's, so two ledgers
// in one database (tests use a schema each) never wait for each other.
const pgLockHead = `SELECT pg_advisory_xact_lock(hashtextextended(current_database() || '.' || current_schema() || '.rea_ledger_head', 0))`

// pgFlush writes one WAL record in a transaction of its own and commits it
// at the session's synchronous_commit: when it returns, the WAL is durable
// up to its commit record, and so every commit before it.
const pgFlush = `SELECT pg_logical_emit_message(true, 'rea_ledger', '')`

var (
	pgWriteFlush = &pgWriteMode{
		begin_:  `BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL synchronous_commit TO off; ` + pgLockHead,
		commit:  `COMMIT; ` + pgFlush,
		flushes: true,
	}
	pgWriteDurable = &pgWriteMode{
		begin_: `BEGIN ISOLATION LEVEL READ COMMITTED; ` + pgLockHead,
		commit: `COMMIT`,
	}
)

// writeModeFor finds out whether the role may run pgFlush, by running it.
func writeModeFor(ctx context.Context, cfg *pgx.ConnConfig) (*pgWriteMode, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, pgFlush)
	switch {
	case err == nil:
		return pgWriteFlush, nil
	case pgNoFlush(err):
		return pgWriteDurable, nil
	default:
		return nil, err
	}
}

// pgNoFlush: pgFlush is refused (insufficient_privilege, undefined_function,
// read_only_sql_transaction), not failed.
func pgNoFlush(err error) bool {
	return pgConstraint(err, "42501", "") || pgConstraint(err, "42883", "") || pgConstraint(err, "25006", "")
}

// begin starts a transaction holding the chain head, in one round trip.
// When ctx carries an appendState it reads that too, in the same round
// trip: under READ COMMITTED each statement of the message takes a new
// snapshot, so the one after the lock sees every commit made before the
// lock was granted, as a statement of its own would. An append so needs one
// round trip fewer while it holds the head.
func (m *pgWriteMode) begin(ctx context.Context, pc *pgconn.PgConn) (driver.Tx, error) {
	if pc.IsClosed() {
		return nil, driver.ErrBadConn
	}
	q := m.begin_
	st, _ := ctx.Value(appendStateKey{}).(*appendState)
	if st != nil && (!dollarQuotable(st.stream) || !dollarQuotable(st.eventID)) {
		st = nil
	}
	if st != nil {
		q += "; " + strings.NewReplacer("?1", `$rea$`+st.stream+`$rea$`, "?2", `$rea$`+st.eventID+`$rea$`).Replace(appendStateSQL)
	}
	rs, err := pc.Exec(ctx, q).ReadAll()
	if err == nil && st != nil {
		err = st.parse(rs)
	}
	if err != nil {
		if !pc.IsClosed() && pc.TxStatus() != 'I' {
			_, _ = pc.Exec(context.Background(), `ROLLBACK`).ReadAll()
		}
		return nil, badConn(err) // nothing was done: database/sql may retry on a fresh connection
	}
	return pgWriteTx{pc: pc, mode: m}, nil
}

// dollarQuotable: s can be written as $rea$s$rea$ (no $, no NUL).
func dollarQuotable(s string) bool { return !strings.ContainsAny(s, "$\x00") }

// parse takes the appendStateSQL row, the last result of the message, in
// text format.
func (st *appendState) parse(rs []*pgconn.Result) error {
	if len(rs) == 0 || len(rs[len(rs)-1].Rows) != 1 || len(rs[len(rs)-1].Rows[0]) != 4 {
		return errors.New("ledger: append: no state in the answer to BEGIN")
	}
	row := rs[len(rs)-1].Rows[0]
	var err1, err2 error
	st.seq, err1 = strconv.ParseInt(string(row[0]), 10, 64)
	st.prevHash = string(row[1])
	st.firstVersion, err2 = strconv.ParseInt(string(row[2]), 10, 64)
	st.stored = string(row[3]) == "t"
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("ledger: append: state: %w", err)
	}
	st.ok = true
	return nil
}

// pgWriteTx is a transaction of the writer connection. database/sql runs its
// statements on the same connection, through rebindConn.
type pgWriteTx struct {
	pc   *pgconn.PgConn
	mode *pgWriteMode
}

// errCommitUnknown: COMMIT was sent but its outcome, or its flush, was not
// seen. The ledger's retry looks the batch up by event ID (and a repeated
// append that finds its events commits again, which flushes them).
var errCommitUnknown = errors.New("ledger: outcome of COMMIT unknown")

func (t pgWriteTx) Commit() error {
	rs, err := t.pc.Exec(context.Background(), t.mode.commit).ReadAll()
	if len(rs) > 0 {
		switch {
		case rs[0].Err != nil:
			return rs[0].Err
		case rs[0].CommandTag.String() != "COMMIT": // COMMIT of a failed transaction answers ROLLBACK
			return pgx.ErrTxCommitRollback
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", errCommitUnknown, err)
	}
	return nil
}

func (t pgWriteTx) Rollback() error {
	if t.pc.IsClosed() {
		return driver.ErrBadConn
	}
	_, err := t.pc.Exec(context.Background(), `ROLLBACK`).ReadAll()
	return badConn(err)
}
