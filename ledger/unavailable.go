package ledger

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// Reasons of an UnavailableError (CONTRACTS.md §0.3, ledger_unavailable).
const (
	ReasonDiskFull       = "disk_full"
	ReasonReadOnly       = "read_only"
	ReasonIO             = "io"
	ReasonConnectionLost = "connection_lost"
)

// UnavailableError: the ledger could not append or read because its
// storage failed: the disk is full, the file system (or the PostgreSQL
// server) is read-only, an I/O error, or a PostgreSQL server that stayed
// unreachable. Nothing of a failed append is stored, and a later call may
// succeed once the cause is gone (ledger_unavailable, retryable).
type UnavailableError struct {
	Reason string // ReasonDiskFull, ReasonReadOnly, ReasonIO, ReasonConnectionLost
	// Dir is the directory of an SQLite ledger (what an operator frees
	// space in), "" for PostgreSQL: its URL may carry a password.
	Dir string
	Err error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("ledger: storage unavailable (%s): %v", e.Reason, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// LedgerUnavailable makes the failure ledger_unavailable where fault types
// it (fault.From, fault.Internal).
func (e *UnavailableError) LedgerUnavailable() (reason, dir string) { return e.Reason, e.Dir }

// typeStorage is storageFailure for a method's named error result.
func (l *Ledger) typeStorage(err *error) { *err = l.storageFailure(*err) }

// storageFailure types err as an *UnavailableError when it says the
// ledger's storage failed, and returns it unchanged otherwise.
func (l *Ledger) storageFailure(err error) error {
	dir := ""
	if l.d != postgresDialect {
		dir = filepath.Dir(l.path)
	}
	return storageFailureIn(dir, err)
}

// storageFailureIn is storageFailure for a ledger in directory dir ("" for
// PostgreSQL).
func storageFailureIn(dir string, err error) error {
	if err == nil {
		return nil
	}
	var ue *UnavailableError
	var fe *fileError
	if errors.As(err, &ue) || errors.As(err, &fe) {
		return err
	}
	// An append that PostgreSQL refused through every retry is
	// revision_conflict (CONTRACTS.md §17) unless its last attempt found
	// the server unreachable through the whole reconnect wait.
	if errors.Is(err, ErrRetry) && !errors.Is(err, ErrUnavailable) {
		return err
	}
	reason := storageReason(err)
	if reason == "" {
		return err
	}
	return &UnavailableError{Reason: reason, Dir: dir, Err: err}
}

// storageReason classifies a driver's or the OS's error: SQLite's
// SQLITE_FULL, SQLITE_READONLY and SQLITE_IOERR (with their extended
// codes), ENOSPC/EDQUOT, EROFS and EIO from a file operation, and
// PostgreSQL's disk_full (53100), read_only_sql_transaction (25006, a
// standby or a server set read-only), io_error (58030), a server
// unreachable through the reconnect wait (ErrUnavailable) and a connection
// lost under a read. "" when err is none of them.
func storageReason(err error) string {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 13: // SQLITE_FULL
			return ReasonDiskFull
		case 8: // SQLITE_READONLY
			return ReasonReadOnly
		case 10: // SQLITE_IOERR
			return ReasonIO
		}
	}
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return ReasonDiskFull
	case errors.Is(err, syscall.EROFS):
		return ReasonReadOnly
	case errors.Is(err, syscall.EIO):
		return ReasonIO
	case errors.Is(err, ErrUnavailable):
		return ReasonConnectionLost
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "53100": // disk_full
			return ReasonDiskFull
		case pe.Code == "25006": // read_only_sql_transaction
			return ReasonReadOnly
		case pe.Code == "58030": // io_error
			return ReasonIO
		case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03":
			return ReasonConnectionLost
		}
		return ""
	}
	return ""
}

// fileError is a failure of a file the caller handed the ledger (the
// export being written, the export being imported): a full disk there is
// not the ledger's (storageFailure leaves it untyped).
type fileError struct{ err error }

func (e *fileError) Error() string { return e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// callerWriter and callerReader mark their errors as fileErrors.
type callerWriter struct{ w io.Writer }

func (c callerWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil {
		err = &fileError{err}
	}
	return n, err
}

type callerReader struct{ r io.Reader }

func (c callerReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		err = &fileError{err}
	}
	return n, err
}
