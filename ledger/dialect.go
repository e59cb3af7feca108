package ledger

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/rea-re/rea/ledger/internal/chain"
)

// dialect is everything that differs between the SQLite and PostgreSQL
// backends (CONTRACTS.md §17): a few statements, how writers serialize, how a
// read snapshot is asked for, and how errors are recognized. The rest of the
// package is one code path: statements are written with SQLite's ? and ?N
// placeholders, which the PostgreSQL connection rewrites (postgres.go).
type dialect struct {
	name string

	// putBlob stores a blob unless its key is already stored.
	putBlob string
	// setLedgerID inserts the ledger_id unless one is set.
	setLedgerID string
	// verifyDataLen is the expression Verify reads as chain.Columns.DataLen:
	// the byte length of data when canonical holds exactly those bytes at
	// chain.DataStart, else -1.
	verifyDataLen string
	// digestColumns lists a table's columns in order with their storage
	// class ("" = per value, SQLite's typeof) for ProjectionDigest.
	digestColumns string
	// indexes lists a table's explicitly created indexes (name, CREATE
	// statement), for Rebuild.
	indexes string
	// readTx asks for one consistent snapshot of several statements.
	readTx *sql.TxOptions

	// retryable: the transaction may be run again from the start (a busy
	// SQLite file; a lost PostgreSQL connection or a serialization failure).
	retryable func(error) bool
	// maxAttempts bounds the runs of a transaction that keeps failing
	// retryably; exhausted is the error then reported.
	maxAttempts int
	exhausted   error
	// eventIDTaken: the insert failed on the event_id UNIQUE constraint.
	eventIDTaken func(error) bool
	// missingTable: the statement named a table that does not exist.
	missingTable func(error) bool
}

var sqliteDialect = &dialect{
	name:        "sqlite",
	putBlob:     `INSERT OR IGNORE INTO blobs (sha256, data, encoding) VALUES (?, ?, ?)`,
	setLedgerID: `INSERT OR IGNORE INTO ledger_meta (key, value) VALUES ('ledger_id', ?)`,
	verifyDataLen: `CASE WHEN substr(canonical, ` + strconv.Itoa(chain.DataStart+1) + `, octet_length(data)) = CAST(data AS BLOB)
			THEN octet_length(data) ELSE -1 END`,
	digestColumns: `SELECT name, '' FROM pragma_table_info(?) ORDER BY cid`,
	indexes:       `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`,
	readTx:        &sql.TxOptions{ReadOnly: true},
	retryable:     isBusy,
	maxAttempts:   maxBusyAttempts,
	exhausted:     ErrBusy,
	eventIDTaken:  func(err error) bool { return strings.Contains(err.Error(), "events.event_id") },
	missingTable:  func(err error) bool { return strings.Contains(err.Error(), "no such table") },
}

// digestSelect returns the select-list items (storage class, value) and the
// ORDER BY term of column col for ProjectionDigest. Text is ordered by its
// bytes on both backends (BINARY, "C"), NULL first as SQLite orders it.
func (d *dialect) digestSelect(col, class string) (typ, val, order string) {
	q := quoteIdent(col)
	if class == "" {
		// typeof keeps the storage class; text is read through a BLOB cast so
		// the driver hands over its exact bytes (never a parsed time).
		return "typeof(" + q + ")", "CASE typeof(" + q + ") WHEN 'text' THEN CAST(" + q + " AS BLOB) ELSE " + q + " END",
			q + " COLLATE BINARY"
	}
	typ = "CASE WHEN " + q + " IS NULL THEN 'null' ELSE '" + class + "' END"
	if class == "text" {
		return typ, q, q + ` COLLATE "C" NULLS FIRST`
	}
	return typ, q, q + " NULLS FIRST"
}

// beginWrite begins a write transaction on the writer connection. Its
// BEGIN serializes the writers of every process on the chain head: SQLite's
// BEGIN IMMEDIATE takes the file's write lock, PostgreSQL's takes the
// head's advisory lock (pgWriteMode).
func (l *Ledger) beginWrite(ctx context.Context) (*sql.Tx, error) {
	return l.w.BeginTx(ctx, nil)
}

// retryable reports whether the failed transaction may run again.
func (l *Ledger) retryable(err error) bool { return l.d.retryable(err) }
