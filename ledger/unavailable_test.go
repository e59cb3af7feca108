package ledger

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"

	"github.com/rea-re/rea/internal/testkit"
)

// A full disk under an SQLite ledger (a real tmpfs, filled): appends fail
// with an *UnavailableError of reason disk_full naming the ledger's
// directory, reads still answer, nothing half-written is left, and once
// space is freed the same appends succeed and the ledger verifies
// (CONTRACTS.md §0.3, ledger_unavailable).
func TestDiskFullIsUnavailable(t *testing.T) {
	dir := testkit.SmallFilesystem(t, 4<<20)
	l := openTest(t, filepath.Join(dir, "ledger.db"), Options{})
	ctx := context.Background()
	appendBody := func(i int) error {
		body := make([]byte, 256<<10) // random: stored as is, not deflated
		_, _ = rand.Read(body)
		_, err := l.Append(ctx, "connection-1", -1, []NewEvent{{Type: "evidence_recorded", Data: map[string]int{"n": i}}},
			func(tx *sql.Tx, _ []Event) error {
				_, err := l.PutBlob(tx, body)
				return err
			})
		return err
	}
	if err := appendBody(0); err != nil {
		t.Fatal(err)
	}
	filler := testkit.FillFilesystem(t, dir)
	var err error
	for i := 1; i <= 64 && err == nil; i++ { // the WAL may hold a few before it must grow
		err = appendBody(i)
	}
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Reason != ReasonDiskFull || ue.Dir != dir {
		t.Fatalf("append on a full disk: %v, want ledger unavailable (disk_full, %s)", err, dir)
	}
	t.Logf("append on a full disk: %v", err)
	head, _, herr := l.Head(ctx)
	if herr != nil {
		t.Fatalf("read on a full disk: %v", herr)
	}
	// An export file on the full disk: the file's failure, not the ledger's.
	f, ferr := os.OpenFile(filepath.Join(dir, "export.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if ferr == nil {
		_, ferr = l.Export(ctx, f, 0, 0, "test")
		f.Close()
		os.Remove(f.Name())
	}
	if ferr == nil || errors.As(ferr, &ue) {
		t.Fatalf("export onto the full disk: %v, want the file's own error", ferr)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := appendBody(100 + i); err != nil {
			t.Fatalf("append after space was freed: %v", err)
		}
	}
	if seq, _, _ := l.Head(ctx); seq != head+3 {
		t.Fatalf("head %d after three appends from %d", seq, head)
	}
	if rep, err := l.Verify(ctx); err != nil || !rep.OK {
		t.Fatalf("verify after the disk was full: %+v %v", rep, err)
	}
}

// A ledger whose directory's file system was remounted read-only (a real
// tmpfs): opening it for writing is an *UnavailableError of reason
// read_only naming the directory; once the file system is writable again
// it opens, appends and verifies.
func TestReadOnlyFilesystemIsUnavailable(t *testing.T) {
	dir := testkit.SmallFilesystem(t, 4<<20)
	path := filepath.Join(dir, "ledger.db")
	ctx := context.Background()
	l, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(ctx, "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); err != nil {
		t.Fatal(err)
	}
	l.Close()
	const flags = unix.MS_NOSUID | unix.MS_NODEV
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY|flags, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	_, err = Open(ctx, path, Options{})
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Reason != ReasonReadOnly || ue.Dir != dir {
		t.Fatalf("open on a read-only file system: %v, want ledger unavailable (read_only, %s)", err, dir)
	}
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|flags, ""); err != nil {
		t.Fatalf("remount read-write: %v", err)
	}
	l = openTest(t, path, Options{})
	if _, err := l.Append(ctx, "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); err != nil {
		t.Fatal(err)
	}
	if rep, err := l.Verify(ctx); err != nil || !rep.OK || rep.Head.Seq != 2 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// A PostgreSQL server that refuses writes (here a session whose
// transactions are read-only, as on a hot standby: SQLSTATE 25006) is an
// *UnavailableError of reason read_only with no location, at open and at
// append; the URL (with its password) is in neither.
func TestPostgresReadOnlyIsUnavailable(t *testing.T) {
	loc := freshPostgres(t)
	l := openTest(t, loc, Options{})
	ctx := context.Background()
	if _, err := l.Append(ctx, "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("default_transaction_read_only", "on")
	u.RawQuery = q.Encode()
	_, err = Open(ctx, u.String(), Options{})
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Reason != ReasonReadOnly || ue.Dir != "" {
		t.Fatalf("open on a read-only server: %v, want ledger unavailable (read_only)", err)
	}
	if p := passwordOf(t, loc); p != "" && strings.Contains(err.Error(), p) {
		t.Fatal("the error shows the password")
	}
	// The writable handle still appends.
	if _, err := l.Append(ctx, "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); err != nil {
		t.Fatal(err)
	}
}

// The classification of storage failures the tests cannot cause for real
// on this machine (an OS read-only or I/O error, PostgreSQL's disk_full and
// read-only states): each is typed with its reason, an SQLite ledger's
// directory and no location at all for PostgreSQL; other failures stay as
// they are, and an append PostgreSQL refused through its retries stays
// ErrRetry (revision_conflict) unless the server was unreachable.
func TestStorageFailureReasons(t *testing.T) {
	sqliteLedger := &Ledger{path: "/var/lib/rea/ledger.db", d: sqliteDialect}
	pgLedger := &Ledger{path: "postgres://u:***@h/db", d: postgresDialect}
	for _, c := range []struct {
		l      *Ledger
		err    error
		reason string
		dir    string
	}{
		{sqliteLedger, fmt.Errorf("write: %w", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}), ReasonDiskFull, "/var/lib/rea"},
		{sqliteLedger, &os.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, ReasonReadOnly, "/var/lib/rea"},
		{sqliteLedger, &os.PathError{Op: "read", Path: "x", Err: syscall.EIO}, ReasonIO, "/var/lib/rea"},
		{pgLedger, pgError("53100"), ReasonDiskFull, ""},
		{pgLedger, pgError("25006"), ReasonReadOnly, ""},
		{pgLedger, pgError("58030"), ReasonIO, ""},
		{pgLedger, pgError("08006"), ReasonConnectionLost, ""},
		{pgLedger, fmt.Errorf("read: %w", ErrUnavailable), ReasonConnectionLost, ""},
		{pgLedger, fmt.Errorf("%w: %w", ErrRetry, ErrUnavailable), ReasonConnectionLost, ""},
		{pgLedger, fmt.Errorf("%w: %v", ErrRetry, pgError("08006")), "", ""},
		{pgLedger, pgError("23505"), "", ""},
		{sqliteLedger, ErrConflict, "", ""},
		{sqliteLedger, fmt.Errorf("export: %w", &fileError{syscall.ENOSPC}), "", ""}, // the export file's disk
	} {
		got := c.l.storageFailure(c.err)
		var ue *UnavailableError
		if c.reason == "" {
			if errors.As(got, &ue) || got != c.err {
				t.Errorf("%v: typed as %v", c.err, got)
			}
			continue
		}
		if !errors.As(got, &ue) || ue.Reason != c.reason || ue.Dir != c.dir || !errors.Is(got, c.err) {
			t.Errorf("%v: %#v, want reason %s dir %q", c.err, got, c.reason, c.dir)
		}
	}
}

func pgError(code string) error { return &pgconn.PgError{Code: code, Message: "test"} }
