package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"slices"
	"strings"
	"sync"
)

// Projection is a read model folded from events into tables of the ledger
// database. The tables are created by migrations; the projection owns their
// rows. Apply must be a pure function of the event and the tables' current
// rows, so that live appends, Rebuild and Import all arrive at the same rows.
type Projection interface {
	Name() string
	// Tables lists every table the projection writes; Rebuild empties them
	// and ProjectionDigest dumps them, in this order.
	Tables() []string
	Apply(tx *sql.Tx, e Event) error
}

// Flusher is a Projection that buffers rows in Apply and writes them in
// Flush, so that many rows can go to SQLite in one statement. Fold calls
// Flush after every batch of events, inside the same transaction, so buffered
// rows always commit with the events that produced them, and also after a
// failed Apply, so a buffer is always empty after a fold. Only a projection
// whose folds never read its own tables may buffer.
type Flusher interface {
	Flush(tx *sql.Tx) error
}

// Fold returns an apply callback for Append that folds the new events into
// ps, in order, then flushes every Flusher.
func Fold(ps ...Projection) func(*sql.Tx, []Event) error {
	return func(tx *sql.Tx, events []Event) error {
		var err error
	fold:
		for _, e := range events {
			for _, p := range ps {
				if err = p.Apply(tx, e); err != nil {
					err = fmt.Errorf("ledger: projection %s: seq %d: %w", p.Name(), e.Seq, err)
					break fold
				}
			}
		}
		// Flush even after a failed Apply: the failure rolls back this
		// transaction or savepoint, rows flushed into it go with it, and
		// rows left buffered would be written by the next fold, beside
		// another append's events (of the same group transaction, say).
		for _, p := range ps {
			if f, ok := p.(Flusher); ok {
				if ferr := f.Flush(tx); ferr != nil && err == nil {
					err = fmt.Errorf("ledger: projection %s: flush: %w", p.Name(), ferr)
				}
			}
		}
		return err
	}
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Rebuild empties every projection table and folds every event again, in seq
// order, in one transaction: readers see the old rows until the new ones
// commit, and a failure leaves the old rows in place.
func (l *Ledger) Rebuild(ctx context.Context, ps []Projection) (err error) {
	defer l.typeStorage(&err)
	if l.readOnly {
		return ErrReadOnly
	}
	return l.writeTx(ctx, true, func(tx *sql.Tx) (bool, error) {
		return true, rebuildTx(ctx, tx, l.d, ps, l.committedEvents)
	})
}

// eventSource streams every event, in seq order, to fn in batches.
type eventSource func(ctx context.Context, fn func([]Event) error) error

// foldBatch is how many events a rebuild folds per Fold call, so buffering
// projections (Flusher) write many rows per statement.
const foldBatch = 1024

// eventsIn reads the events through tx itself: Import folds rows it has
// inserted but not yet committed. It reads one batch at a time and closes
// its cursor before folding it: the fold runs statements on the same
// connection, and a PostgreSQL connection cannot run one while a result is
// still being read from it (imports of more than one batch failed so).
func eventsIn(tx *sql.Tx) eventSource {
	return func(ctx context.Context, fn func([]Event) error) error {
		batch := make([]Event, 0, foldBatch)
		for after := int64(0); ; {
			rows, err := tx.QueryContext(ctx, `SELECT `+eventColumns+` FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, after, foldBatch)
			if err != nil {
				return fmt.Errorf("ledger: rebuild: %w", err)
			}
			batch = batch[:0]
			err = scanRows(rows, func(e Event) error {
				batch = append(batch, e)
				return nil
			})
			rows.Close()
			if err != nil {
				return err
			}
			if len(batch) == 0 {
				return nil
			}
			if err := fn(batch); err != nil {
				return err
			}
			if len(batch) < foldBatch {
				return nil
			}
			after = batch[len(batch)-1].Seq
		}
	}
}

// committedEvents reads the events through the read pool on its own
// goroutine and SQLite connection, so that reading and decoding overlap with
// the fold on the writer. It is called inside Rebuild's write transaction:
// no event can be appended meanwhile, and the reader's snapshot, taken after
// that transaction began, holds every committed event.
func (l *Ledger) committedEvents(ctx context.Context, fn func([]Event) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []Event, 4)
	readErr := make(chan error, 1)
	go func() {
		defer close(batches)
		readErr <- func() error {
			rows, err := l.r.QueryContext(ctx, `SELECT `+eventColumns+` FROM events ORDER BY seq`)
			if err != nil {
				return fmt.Errorf("ledger: rebuild: %w", err)
			}
			defer rows.Close()
			pending := make([]Event, 0, foldBatch)
			send := func() error {
				select {
				case batches <- pending:
					pending = make([]Event, 0, foldBatch)
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if err := scanRows(rows, func(e Event) error {
				if pending = append(pending, e); len(pending) < foldBatch {
					return nil
				}
				return send()
			}); err != nil {
				return err
			}
			return send()
		}()
	}()
	for batch := range batches {
		if err := fn(batch); err != nil {
			cancel()
			for range batches { // let the reader finish
			}
			return err
		}
	}
	return <-readErr
}

func rebuildTx(ctx context.Context, tx *sql.Tx, d *dialect, ps []Projection, source eventSource) error {
	var tables []string
	for _, p := range ps {
		for _, t := range p.Tables() {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+quoteIdent(t)); err != nil {
				return fmt.Errorf("ledger: rebuild: projection %s: empty %s: %w", p.Name(), t, err)
			}
			tables = append(tables, t)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	// Secondary indexes are dropped while the fold runs and created again
	// after it, in this same transaction: building an index from the finished
	// table is far cheaper than maintaining it row by row. Primary keys and
	// UNIQUE constraints (which folds may rely on) are untouched.
	indexes, err := secondaryIndexes(ctx, tx, d, tables)
	if err != nil {
		return fmt.Errorf("ledger: rebuild: %w", err)
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, `DROP INDEX `+quoteIdent(ix.name)); err != nil {
			return fmt.Errorf("ledger: rebuild: drop index %s: %w", ix.name, err)
		}
	}
	fold := Fold(ps...)
	if err := source(ctx, func(batch []Event) error { return fold(tx, batch) }); err != nil {
		return err
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix.create); err != nil {
			return fmt.Errorf("ledger: rebuild: create index %s: %w", ix.name, err)
		}
	}
	return nil
}

type secondaryIndex struct{ name, create string }

// secondaryIndexes lists the explicitly created indexes (CREATE INDEX, so
// with SQL text) of tables, in a stable order.
func secondaryIndexes(ctx context.Context, tx *sql.Tx, d *dialect, tables []string) ([]secondaryIndex, error) {
	var out []secondaryIndex
	for _, t := range tables {
		rows, err := tx.QueryContext(ctx, d.indexes, t)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var ix secondaryIndex
			if err := rows.Scan(&ix.name, &ix.create); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, ix)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ProjectionDigest is a sha256 over a canonical dump of the projections'
// tables, read in one snapshot: projections sorted by Name, tables in the
// order Tables gives, columns in table order, rows sorted by every column
// (binary collation), and each value written with a type tag and a length so
// that no two different dumps encode alike. Equal digests before and after
// Rebuild (or across Export and Import) mean the read models are identical.
func (l *Ledger) ProjectionDigest(ctx context.Context, ps []Projection) (_ string, err error) {
	defer l.typeStorage(&err)
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b Projection) int { return strings.Compare(a.Name(), b.Name()) })

	tx, err := l.r.BeginTx(ctx, l.d.readTx)
	if err != nil {
		return "", fmt.Errorf("ledger: projection digest: %w", err)
	}
	defer tx.Rollback()

	h := sha256.New()
	writeField(h, 'V', []byte("rea-projection-digest/1"))
	for _, p := range sorted {
		writeField(h, 'P', []byte(p.Name()))
		for _, t := range p.Tables() {
			if err := digestTable(ctx, tx, l.d, h, t); err != nil {
				return "", fmt.Errorf("ledger: projection digest: %s.%s: %w", p.Name(), t, err)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func digestTable(ctx context.Context, tx *sql.Tx, d *dialect, h hash.Hash, table string) error {
	var cols, classes []string
	rows, err := tx.QueryContext(ctx, d.digestColumns, table)
	if err != nil {
		return err
	}
	for rows.Next() {
		var c, class string
		if err := rows.Scan(&c, &class); err != nil {
			rows.Close()
			return err
		}
		cols, classes = append(cols, c), append(classes, class)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(cols) == 0 {
		return fmt.Errorf("no such table")
	}
	writeField(h, 'T', []byte(table))
	var sel, order []string
	for i, c := range cols {
		writeField(h, 'C', []byte(c))
		typ, val, ord := d.digestSelect(c, classes[i])
		sel = append(sel, typ, val)
		order = append(order, ord)
	}
	rows, err = tx.QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+quoteIdent(table)+
		" ORDER BY "+strings.Join(order, ", "))
	if err != nil {
		return err
	}
	defer rows.Close()
	types := make([]string, len(cols))
	vals := make([]any, len(cols))
	dest := make([]any, 2*len(cols))
	for i := range cols {
		dest[2*i] = &types[i]
		dest[2*i+1] = &vals[i]
	}
	var n uint64
	var num [8]byte
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		n++
		h.Write([]byte{'R'})
		for i := range cols {
			switch types[i] {
			case "null":
				h.Write([]byte{'n'})
			case "integer":
				v, ok := vals[i].(int64)
				if !ok {
					return fmt.Errorf("column %s: integer read as %T", cols[i], vals[i])
				}
				binary.BigEndian.PutUint64(num[:], uint64(v))
				h.Write([]byte{'i'})
				h.Write(num[:])
			case "real":
				v, ok := vals[i].(float64)
				if !ok {
					return fmt.Errorf("column %s: real read as %T", cols[i], vals[i])
				}
				binary.BigEndian.PutUint64(num[:], math.Float64bits(v))
				h.Write([]byte{'r'})
				h.Write(num[:])
			case "text", "blob":
				var b []byte
				switch v := vals[i].(type) {
				case []byte:
					b = v
				case string:
					b = []byte(v)
				case nil:
				default:
					return fmt.Errorf("column %s: %s read as %T", cols[i], types[i], vals[i])
				}
				writeField(h, types[i][0], b)
			default:
				return fmt.Errorf("column %s: unknown storage class %q", cols[i], types[i])
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	binary.BigEndian.PutUint64(num[:], n)
	h.Write([]byte{'E'})
	h.Write(num[:])
	return nil
}

// writeField writes a tag, a length and the bytes.
func writeField(h hash.Hash, tag byte, b []byte) {
	var hdr [9]byte
	hdr[0] = tag
	binary.BigEndian.PutUint64(hdr[1:], uint64(len(b)))
	h.Write(hdr[:])
	h.Write(b)
}

// StmtCache prepares a projection's queries once per transaction instead of
// once per event. database/sql's Tx.Exec with a query string makes SQLite
// parse and plan the statement on every call, which costs more than the
// insert itself when Rebuild or Import folds thousands of events in one
// transaction. The zero value is ready to use and safe for concurrent use;
// statements are closed by database/sql when their transaction ends.
//
//	var stmts ledger.StmtCache
//	func (p proj) Apply(tx *sql.Tx, e ledger.Event) error {
//		st, err := stmts.Stmt(tx, `INSERT INTO t (a, b) VALUES (?, ?)`)
//		...
//		_, err = st.Exec(a, b)
type StmtCache struct {
	mu sync.Mutex
	tx *sql.Tx
	m  map[string]*sql.Stmt
}

// Stmt returns query prepared within tx.
func (c *StmtCache) Stmt(tx *sql.Tx, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tx != tx {
		// Holding the previous tx keeps its address from being reused while
		// it is cached, so a pointer match always means the same transaction.
		c.tx, c.m = tx, make(map[string]*sql.Stmt)
	}
	if st, ok := c.m[query]; ok {
		return st, nil
	}
	st, err := tx.Prepare(query)
	if err != nil {
		return nil, err
	}
	c.m[query] = st
	return st, nil
}
