package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"github.com/rea-re/rea/ledger/internal/chain"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// fixedClock returns a clock that advances one millisecond per call from
// 2026-01-01T00:00:00.000Z, so ledgers built in tests are byte-identical.
func fixedClock() func() time.Time {
	var n atomic.Int64
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { return start.Add(time.Duration(n.Add(1)-1) * time.Millisecond) }
}

// testID is a deterministic ULID (timestamp 0, entropy n).
func testID(n uint64) ulid.ULID {
	var id ulid.ULID
	for i := 0; i < 8; i++ {
		id[15-i] = byte(n >> (8 * i))
	}
	return id
}

func openTest(t testing.TB, path string, opts Options) *Ledger {
	t.Helper()
	l, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func tempLedger(t testing.TB) (*Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	return openTest(t, path, Options{Now: fixedClock()}), path
}

// countsProjection is a small projection used by the tests: per stream, the
// number of events, the last type and seq, the sum of data.n and the last
// note as a blob. Its table is created by createCountsTable, standing in for
// a migration.
type countsProjection struct{}

const countsTable = "test_stream_counts"

func (countsProjection) Name() string     { return "test_counts" }
func (countsProjection) Tables() []string { return []string{countsTable} }
func (countsProjection) Apply(tx *sql.Tx, e Event) error {
	var d struct {
		N    float64 `json:"n"`
		Note string  `json:"note"`
	}
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return err
	}
	_, err := tx.Exec(`INSERT INTO `+countsTable+` (stream, events, last_type, last_seq, total, note)
		VALUES (?, 1, ?, ?, ?, ?)
		ON CONFLICT (stream) DO UPDATE SET events = `+countsTable+`.events + 1, last_type = excluded.last_type,
			last_seq = excluded.last_seq, total = `+countsTable+`.total + excluded.total, note = excluded.note`,
		e.Stream, e.Type, e.Seq, d.N, []byte(d.Note))
	return err
}

func createCountsTable(t testing.TB, loc string) {
	t.Helper()
	db := rawDB(t, loc)
	defer db.Close()
	createCountsTableIn(t, db, loc)
}

func createCountsTableIn(t testing.TB, db *sql.DB, loc string) {
	t.Helper()
	if _, err := db.Exec(testDDL(loc, `CREATE TABLE IF NOT EXISTS `+countsTable+` (
		stream TEXT PRIMARY KEY, events INTEGER NOT NULL, last_type TEXT, last_seq INTEGER,
		total REAL, note BLOB) STRICT`)); err != nil {
		t.Fatal(err)
	}
}

// rawDB opens the ledger's database directly, bypassing the ledger: what a
// tamperer (or a migration) would do. loc is a file path or a PostgreSQL URL.
func rawDB(t testing.TB, loc string) *sql.DB {
	t.Helper()
	if IsURL(loc) {
		return pgAdmin(t, loc)
	}
	db, err := sql.Open("sqlite", sqliteURI(loc, url.Values{"_pragma": {"busy_timeout(10000)"}}))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

type payload struct {
	N      int    `json:"n"`
	Note   string `json:"note"`
	Digest string `json:"record_digest,omitempty"`
}

// fill appends n events over three streams, one event per transaction, each
// with a blob referenced by record_digest, folding countsProjection.
func fill(t testing.TB, l *Ledger, n int, idBase uint64) {
	t.Helper()
	// Through the ledger's own writer: a PostgreSQL ledger's Path hides the
	// password a new connection would need.
	createCountsTableIn(t, l.w, l.Path())
	ctx := context.Background()
	for i := 0; i < n; i++ {
		stream := fmt.Sprintf("connection-%d", i%3)
		body := []byte(fmt.Sprintf("evidence body %d", i))
		_, err := l.Append(ctx, stream, -1, []NewEvent{{ID: testID(idBase + uint64(i)), Type: "evidence_recorded",
			Data: testPayload(i, body)}}, func(tx *sql.Tx, evs []Event) error {
			if _, err := l.PutBlob(tx, body); err != nil {
				return err
			}
			return Fold(countsProjection{})(tx, evs)
		})
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
}

func testPayload(i int, body []byte) payload {
	return payload{N: i, Note: fmt.Sprintf("note <%d> & \u2028 é", i), Digest: chain.SHA256Hex(body)}
}
