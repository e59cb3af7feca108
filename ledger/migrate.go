package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	msqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/rea-re/rea/migrations"
)

// prepareFile creates the database file if needed and brings its schema up
// to date. It holds an exclusive flock on path+".lock" throughout, because
// golang-migrate's own lock is an in-memory flag that does not stop a second
// process (an MCP server and a CLI started together) from migrating the same
// file at the same time.
func (l *Ledger) prepareFile(ctx context.Context) (err error) {
	unlock, err := lockFile(ctx, l.path+".lock")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()

	// Create the file ourselves so it is 0600 from its first byte. O_EXCL:
	// never open (and then close) a descriptor of an existing database,
	// because closing any descriptor drops every POSIX lock this process
	// holds on the file, including those of other connections.
	if f, cerr := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); cerr == nil {
		if cerr = f.Close(); cerr != nil {
			return fmt.Errorf("ledger: create: %w", cerr)
		}
	} else if !errors.Is(cerr, os.ErrExist) {
		return fmt.Errorf("ledger: create: %w", cerr)
	}
	_ = os.Chmod(l.path, 0o600)

	if err := migrateUp(l.path); err != nil {
		return err
	}
	return ensureLedgerID(ctx, l.path)
}

// migrateUp applies every migration in migrations.FS. It gets its own
// *sql.DB because migrate.Close closes the handle it was given.
func migrateUp(path string) error {
	db, err := sql.Open("sqlite", writerDSN(path))
	if err != nil {
		return fmt.Errorf("ledger: migrate: %w", err)
	}
	inner, err := msqlite.WithInstance(db, &msqlite.Config{})
	if err != nil {
		db.Close()
		return fmt.Errorf("ledger: migrate: %w", err)
	}
	return runMigrations(migrations.FS, "sqlite", &atomicDriver{Driver: inner, db: db})
}

// runMigrations applies every migration of src through drv (which it closes).
func runMigrations(fsys fs.FS, name string, drv *atomicDriver) (err error) {
	src, err := iofs.New(fsys, ".")
	if err != nil {
		drv.Close()
		return fmt.Errorf("ledger: migrate: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, name, drv)
	if err != nil {
		src.Close()
		drv.Close()
		return fmt.Errorf("ledger: migrate: %w", err)
	}
	defer func() {
		serr, derr := m.Close()
		err = errors.Join(err, serr, derr)
	}()
	if _, dirty, verr := m.Version(); verr == nil && dirty {
		return errors.New("ledger: migrate: schema is dirty (a migration failed half-way); restore from an export")
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("ledger: migrate: %w", err)
	}
	return nil
}

// atomicDriver wraps golang-migrate's sqlite driver so that each migration
// and its version bump commit in ONE transaction (the PostgreSQL backend
// wraps golang-migrate's pgx driver the same way). golang-migrate marks the
// version dirty, runs the body and marks it clean in three separate
// transactions; a process killed in between leaves a file that every later
// Open refuses. SQLite DDL is transactional, so holding the three steps in a
// single transaction makes a crash roll back to the previous clean version.
type atomicDriver struct {
	database.Driver
	db *sql.DB
	tx *sql.Tx
}

func (d *atomicDriver) SetVersion(version int, dirty bool) error {
	if d.tx == nil {
		if !dirty {
			return d.Driver.SetVersion(version, dirty)
		}
		tx, err := d.db.Begin()
		if err != nil {
			return err
		}
		d.tx = tx
	}
	if _, err := d.tx.Exec(`DELETE FROM ` + msqlite.DefaultMigrationsTable); err != nil {
		return d.abort(err)
	}
	if version >= 0 || (version == database.NilVersion && dirty) {
		if _, err := d.tx.Exec(`INSERT INTO `+msqlite.DefaultMigrationsTable+` (version, dirty) VALUES (?, ?)`, version, dirty); err != nil { // pgx's table has the same name
			return d.abort(err)
		}
	}
	if dirty {
		return nil // the body follows in the same transaction
	}
	err := d.tx.Commit()
	d.tx = nil
	return err
}

func (d *atomicDriver) Run(migration io.Reader) error {
	if d.tx == nil {
		return d.Driver.Run(migration)
	}
	body, err := io.ReadAll(migration)
	if err != nil {
		return d.abort(err)
	}
	if _, err := d.tx.Exec(string(body)); err != nil {
		return d.abort(&database.Error{OrigErr: err, Query: body})
	}
	return nil
}

func (d *atomicDriver) abort(err error) error {
	if d.tx != nil {
		err = errors.Join(err, d.tx.Rollback())
		d.tx = nil
	}
	return err
}

func (d *atomicDriver) Close() error {
	var err error
	if d.tx != nil {
		err = d.tx.Rollback()
		d.tx = nil
	}
	return errors.Join(err, d.Driver.Close())
}

// ensureLedgerID gives a new ledger its identity. INSERT OR IGNORE makes it
// idempotent; it runs under the same file lock as the migrations.
func ensureLedgerID(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", writerDSN(path))
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, sqliteDialect.setLedgerID, newULID().String()); err != nil {
		return fmt.Errorf("ledger: set ledger_id: %w", err)
	}
	return nil
}
