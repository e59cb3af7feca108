package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/internal/jcs"
	"github.com/rea-re/rea/ledger/internal/chain"
)

// CONTRACTS.md §14: the event test vector.
const (
	vectorConnection = "01JZ0000000000000000000001"
	vectorEventID    = "01JZ0000000000000000000002"
	vectorHash       = "2b619b1be48d46e19683845721a1f460565f5e45902e76716da3b08edc90e6f2"
	vectorC          = `{"data":{"connection_id":"01JZ0000000000000000000001","reason":"client_closed"},` +
		`"event_id":"01JZ0000000000000000000002","recorded_at":"2026-01-01T00:00:00.000Z","schema_version":1,` +
		`"seq":1,"stream":"connection-01JZ0000000000000000000001","stream_version":1,"type":"connection_closed"}`
)

func TestHashTestVector(t *testing.T) {
	data, err := encodeData(map[string]string{"reason": "client_closed", "connection_id": vectorConnection})
	if err != nil {
		t.Fatal(err)
	}
	f := chain.Fields{Seq: 1, EventID: vectorEventID, Stream: "connection-" + vectorConnection, StreamVersion: 1,
		Type: "connection_closed", SchemaVersion: 1, RecordedAt: "2026-01-01T00:00:00.000Z", Data: data}
	c := chain.AppendCanonical(nil, &f)
	if string(c) != vectorC {
		t.Fatalf("canonical bytes:\n got %s\nwant %s", c, vectorC)
	}
	if h := chain.Hash(GenesisHash(), c); h != vectorHash {
		t.Fatalf("hash = %s, want %s", h, vectorHash)
	}
}

// The same vector through the real append path: Append must store exactly
// these bytes and this hash.
func TestHashTestVectorThroughAppend(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		l := openTest(t, b.fresh(t), Options{Now: func() time.Time { return start }})
		evs, err := l.Append(context.Background(), "connection-"+vectorConnection, 0, []NewEvent{{
			ID:   ulid.MustParseStrict(vectorEventID),
			Type: "connection_closed",
			Data: json.RawMessage(`{ "reason": "client_closed", "connection_id": "01JZ0000000000000000000001" }`),
		}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if evs[0].Hash != vectorHash || string(evs[0].Canonical) != vectorC {
			t.Fatalf("stored hash %s canonical %s", evs[0].Hash, evs[0].Canonical)
		}
		var stored Event
		if err := l.Scan(context.Background(), 1, func(e Event) error { stored = e; return nil }); err != nil {
			t.Fatal(err)
		}
		if stored.Hash != vectorHash || string(stored.Canonical) != vectorC || stored.PrevHash != GenesisHash() {
			t.Fatalf("scanned %+v", stored)
		}
	})
}

func TestAppendScanRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx := context.Background()
		if seq, h, err := l.Head(ctx); err != nil || seq != 0 || h != GenesisHash() {
			t.Fatalf("empty head = %d %s %v", seq, h, err)
		}
		type D struct {
			A string `json:"a"`
			Z int    `json:"z"`
			M string `json:"m"`
		}
		var appended []Event
		for i := 0; i < 5; i++ {
			evs, err := l.Append(ctx, "policy", -1, []NewEvent{
				{Type: "policy_reloaded", Data: D{A: "<&>", Z: i, M: "x"}},
				{Type: "grant_added", Data: map[string]any{"i": i, "nested": map[string]any{"b": 1, "a": []int{3, 2}}}},
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			appended = append(appended, evs...)
		}
		var scanned []Event
		if err := l.Scan(ctx, 1, func(e Event) error { scanned = append(scanned, e); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(scanned) != 10 {
			t.Fatalf("scanned %d events", len(scanned))
		}
		for i, e := range scanned {
			a := appended[i]
			if e.Seq != int64(i+1) || e.StreamVersion != int64(i+1) || e.ID != a.ID || e.Stream != "policy" ||
				e.Type != a.Type || e.SchemaVersion != 1 || !e.RecordedAt.Equal(a.RecordedAt) ||
				!bytes.Equal(e.Data, a.Data) || !bytes.Equal(e.Canonical, a.Canonical) || e.Hash != a.Hash || e.PrevHash != a.PrevHash {
				t.Fatalf("event %d: scanned %+v\nappended %+v", i, e, a)
			}
			if !jcs.IsCanonical(e.Data) || e.Data[0] != '{' {
				t.Fatalf("data not canonical: %s", e.Data)
			}
			if i > 0 && e.PrevHash != scanned[i-1].Hash {
				t.Fatalf("chain broken at %d", e.Seq)
			}
		}
		if got := string(scanned[0].Data); got != `{"a":"<&>","m":"x","z":0}` {
			t.Fatalf("data = %s", got)
		}
		// Scan from the middle.
		var n int
		if err := l.Scan(ctx, 7, func(e Event) error { n++; return nil }); err != nil || n != 4 {
			t.Fatalf("scan from 7: %d %v", n, err)
		}
		seq, h, err := l.Head(ctx)
		if err != nil || seq != 10 || h != scanned[9].Hash {
			t.Fatalf("head = %d %s %v", seq, h, err)
		}
		if v, err := l.StreamVersion(ctx, "policy"); err != nil || v != 10 {
			t.Fatalf("stream version %d %v", v, err)
		}
		if v, err := l.StreamVersion(ctx, "nope"); err != nil || v != 0 {
			t.Fatalf("empty stream version %d %v", v, err)
		}
		rep, err := l.Verify(ctx)
		if err != nil || !rep.OK || rep.Head.Seq != 10 || rep.Checked.Events != 10 {
			t.Fatalf("verify: %+v %v", rep, err)
		}
	})
}

func TestAppendIdempotentByID(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx := context.Background()
		batch := []NewEvent{
			{ID: testID(1), Type: "a", Data: map[string]int{"x": 1}},
			{ID: testID(2), Type: "b", Data: map[string]int{"x": 2}},
		}
		applied := 0
		apply := func(*sql.Tx, []Event) error { applied++; return nil }
		first, err := l.Append(ctx, "s", 0, batch, apply)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(ctx, "s", -1, []NewEvent{{Type: "c", Data: map[string]int{}}}, apply); err != nil {
			t.Fatal(err)
		}
		// The retry carries the now-stale expected version 0: it must still be
		// answered with the stored events, not a conflict, and apply must not run.
		again, err := l.Append(ctx, "s", 0, batch, apply)
		if err != nil {
			t.Fatalf("idempotent retry: %v", err)
		}
		if applied != 2 {
			t.Fatalf("apply ran %d times, want 2", applied)
		}
		if len(again) != 2 || again[0].Seq != first[0].Seq || again[1].Hash != first[1].Hash ||
			!bytes.Equal(again[0].Canonical, first[0].Canonical) {
			t.Fatalf("retry returned %+v, want %+v", again, first)
		}
		if seq, _, _ := l.Head(ctx); seq != 3 {
			t.Fatalf("head %d, want 3", seq)
		}
		// Same ID, different content: refused.
		_, err = l.Append(ctx, "s", -1, []NewEvent{{ID: testID(1), Type: "a", Data: map[string]int{"x": 9}}}, nil)
		if !errors.Is(err, ErrEventIDReused) {
			t.Fatalf("reused id with other data: %v", err)
		}
		// Part of a batch stored: refused, nothing appended.
		_, err = l.Append(ctx, "s", -1, []NewEvent{{ID: testID(7), Type: "a", Data: map[string]int{}}, batch[0]}, nil)
		if !errors.Is(err, ErrEventIDReused) {
			t.Fatalf("partly stored batch: %v", err)
		}
		_, err = l.Append(ctx, "s", -1, []NewEvent{batch[0], {ID: testID(8), Type: "a", Data: map[string]int{}}}, nil)
		if !errors.Is(err, ErrEventIDReused) {
			t.Fatalf("partly stored batch (first stored): %v", err)
		}
		// Duplicate inside one batch.
		_, err = l.Append(ctx, "s", -1, []NewEvent{{ID: testID(9), Type: "a", Data: map[string]int{}}, {ID: testID(9), Type: "a", Data: map[string]int{}}}, nil)
		if !errors.Is(err, ErrEventIDReused) {
			t.Fatalf("duplicate in batch: %v", err)
		}
		if seq, _, _ := l.Head(ctx); seq != 3 {
			t.Fatalf("head %d after refused appends, want 3", seq)
		}
	})
}

func TestAppendExpectedVersionConflict(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx := context.Background()
		ev := func() []NewEvent { return []NewEvent{{Type: "t", Data: map[string]int{}}} }
		if _, err := l.Append(ctx, "target-x", 0, ev(), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(ctx, "target-x", 1, ev(), nil); err != nil {
			t.Fatal(err)
		}
		applied := false
		_, err := l.Append(ctx, "target-x", 1, ev(), func(*sql.Tx, []Event) error { applied = true; return nil })
		var ce *ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
			t.Fatalf("want *ConflictError, got %T %v", err, err)
		}
		if ce.Stream != "target-x" || ce.Expected != 1 || ce.Actual != 2 || applied {
			t.Fatalf("conflict %+v applied=%v", ce, applied)
		}
		_, err = l.Append(ctx, "fresh", 3, ev(), nil)
		if !errors.As(err, &ce) || ce.Actual != 0 {
			t.Fatalf("empty stream conflict: %v", err)
		}
		if seq, _, _ := l.Head(ctx); seq != 2 {
			t.Fatalf("head %d", seq)
		}
	})
}

func TestAppendMulti(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx := context.Background()
		if _, err := l.Append(ctx, "a", -1, []NewEvent{{Type: "x", Data: map[string]int{}}}, nil); err != nil {
			t.Fatal(err)
		}
		evs, err := l.AppendMulti(ctx, []StreamAppend{
			{Stream: "a", ExpectedVersion: 1, Events: []NewEvent{{Type: "y", Data: map[string]int{}}}},
			{Stream: "b", ExpectedVersion: 0, Events: []NewEvent{{Type: "z", Data: map[string]int{}}, {Type: "z", Data: map[string]int{}}}},
			{Stream: "a", ExpectedVersion: 2, Events: []NewEvent{{Type: "w", Data: map[string]int{}}}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, e := range evs {
			got += e.Stream + ":" + string(rune('0'+e.StreamVersion)) + ":" + string(rune('0'+e.Seq)) + " "
		}
		if got != "a:2:2 b:1:3 b:2:4 a:3:5 " {
			t.Fatalf("got %s", got)
		}
		// A version-only entry (no events) fails the whole call.
		_, err = l.AppendMulti(ctx, []StreamAppend{
			{Stream: "b", ExpectedVersion: 1},
			{Stream: "a", ExpectedVersion: -1, Events: []NewEvent{{Type: "x", Data: map[string]int{}}}},
		}, nil)
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("want conflict, got %v", err)
		}
		if seq, _, _ := l.Head(ctx); seq != 5 {
			t.Fatalf("head %d", seq)
		}
	})
}

func TestAppendApplyErrorRollsBack(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx := context.Background()
		boom := errors.New("boom")
		_, err := l.Append(ctx, "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, func(tx *sql.Tx, _ []Event) error {
			if _, err := l.PutBlob(tx, []byte("x")); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("err %v", err)
		}
		if seq, _, _ := l.Head(ctx); seq != 0 {
			t.Fatalf("head %d after failed apply", seq)
		}
		if _, err := l.Blob(ctx, chain.SHA256Hex([]byte("x"))); !errors.Is(err, ErrNotFound) {
			t.Fatalf("blob survived rollback: %v", err)
		}
	})
}

// A request cancelled before COMMIT never publishes.
func TestAppendCancelledNeverPublishes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx, cancel := context.WithCancel(context.Background())
		_, err := l.Append(ctx, "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, func(*sql.Tx, []Event) error {
			cancel() // cancellation arrives while the transaction is open
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
		if seq, _, _ := l.Head(context.Background()); seq != 0 {
			t.Fatalf("cancelled append was published: head %d", seq)
		}
		// The writer is still usable.
		if _, err := l.Append(context.Background(), "s", 0, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestAppendRejectsBadInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx := context.Background()
		for name, evs := range map[string][]NewEvent{
			"array data":  {{Type: "t", Data: []int{1}}},
			"null data":   {{Type: "t", Data: nil}},
			"bad json":    {{Type: "t", Data: json.RawMessage(`{`)}},
			"empty type":  {{Type: "", Data: map[string]int{}}},
			"invalid utf": {{Type: "\xff", Data: map[string]int{}}},
			"no events":   {},
		} {
			if _, err := l.Append(ctx, "s", -1, evs, nil); err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
		if _, err := l.Append(ctx, "", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); err == nil {
			t.Error("empty stream accepted")
		}
	})
}

func TestTriggersRefuseUpdateAndDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, path := b.tempLedger(t)
		fill(t, l, 3, 100)
		db := rawDB(t, path)
		defer db.Close()
		if _, err := db.Exec(`UPDATE events SET type = 'x' WHERE seq = 1`); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Fatalf("update: %v", err)
		}
		if _, err := db.Exec(`DELETE FROM events WHERE seq = 3`); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Fatalf("delete: %v", err)
		}
	})
}

func TestBlobs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		ctx := context.Background()
		var key, emptyKey string
		_, err := l.Append(ctx, "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, func(tx *sql.Tx, _ []Event) error {
			var err error
			if key, err = l.PutBlob(tx, []byte("body")); err != nil {
				return err
			}
			if _, err = l.PutBlob(tx, []byte("body")); err != nil { // idempotent
				return err
			}
			emptyKey, err = l.PutBlob(tx, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if key != chain.SHA256Hex([]byte("body")) {
			t.Fatalf("key %s", key)
		}
		if b, err := l.Blob(ctx, key); err != nil || string(b) != "body" {
			t.Fatalf("blob %q %v", b, err)
		}
		if b, err := l.Blob(ctx, emptyKey); err != nil || len(b) != 0 {
			t.Fatalf("empty blob %q %v", b, err)
		}
		if _, err := l.Blob(ctx, strings.Repeat("0", 64)); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing blob: %v", err)
		}
	})
}

func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "rea")
	path := filepath.Join(dir, "ledger.db")
	l := openTest(t, path, Options{})
	fill(t, l, 2, 1)
	check := func(p string, want os.FileMode) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	check(filepath.Dir(dir), 0o700)
	check(dir, 0o700)
	check(path, 0o600)
	check(path+".lock", 0o600)
	for _, s := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + s); err == nil {
			check(path+s, 0o600)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if p, _ := DefaultPath(); p != "/x/state/rea/ledger.db" {
		t.Fatalf("got %s", p)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if p, _ := DefaultPath(); p != "/home/u/.local/state/rea/ledger.db" {
		t.Fatalf("got %s", p)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	if p, _ := DefaultPath(); p != "/home/u/.local/state/rea/ledger.db" {
		t.Fatalf("relative XDG_STATE_HOME used: %s", p)
	}
}

func TestReopenKeepsIdentityAndSchema(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		path := filepath.Join(t.TempDir(), "dir?#%", "ledger.db")
		if b.name == "postgres" {
			path = b.fresh(t)
		}
		ctx := context.Background()
		l, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		id := l.ID()
		if _, err := ulid.ParseStrict(id); err != nil {
			t.Fatalf("ledger_id %q: %v", id, err)
		}
		if v, err := l.SchemaVersion(ctx); err != nil || v < 1 {
			t.Fatalf("schema version %d %v", v, err)
		}
		fill(t, l, 3, 1)
		l.Close()
		l2, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer l2.Close()
		want := path
		if IsURL(path) {
			want = RedactURL(path) // never the password
		}
		if l2.ID() != id || l2.Path() != want {
			t.Fatalf("reopen: id %s path %s", l2.ID(), l2.Path())
		}
		if seq, _, _ := l2.Head(ctx); seq != 3 {
			t.Fatalf("head %d", seq)
		}
	})
}

func TestOpenReadOnly(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, path := b.tempLedger(t)
		fill(t, l, 4, 1)
		ctx := context.Background()
		ro, err := OpenReadOnly(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if ro.ID() != l.ID() {
			t.Fatal("id differs")
		}
		if rep, err := ro.Verify(ctx); err != nil || !rep.OK || rep.Head.Seq != 4 {
			t.Fatalf("verify %+v %v", rep, err)
		}
		if _, err := ro.Append(ctx, "s", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("append on read-only: %v", err)
		}
		if _, err := ro.ReadDB().Exec(`INSERT INTO ledger_meta VALUES ('k', 'v')`); err == nil {
			t.Fatal("read pool accepted a write")
		}
		if _, err := OpenReadOnly(ctx, b.fresh(t)); err == nil {
			t.Fatal("OpenReadOnly created a missing ledger")
		} else if b.name == "postgres" && !errors.Is(err, ErrNotLedger) {
			t.Fatalf("OpenReadOnly of an empty schema: %v", err)
		}
	})
}

func TestFoldAndRebuildReproduceDigest(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, path := b.tempLedger(t)
		createCountsTable(t, path)
		fill(t, l, 40, 1)
		ctx := context.Background()
		ps := []Projection{countsProjection{}}
		live, err := l.ProjectionDigest(ctx, ps)
		if err != nil {
			t.Fatal(err)
		}
		// Damage the projection (it is a cache), then rebuild from events.
		db := rawDB(t, path)
		if _, err := db.Exec(`UPDATE ` + countsTable + ` SET events = 999 WHERE stream = 'connection-1'`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		damaged, _ := l.ProjectionDigest(ctx, ps)
		if damaged == live {
			t.Fatal("digest did not see the damaged row")
		}
		if err := l.Rebuild(ctx, ps); err != nil {
			t.Fatal(err)
		}
		rebuilt, err := l.ProjectionDigest(ctx, ps)
		if err != nil {
			t.Fatal(err)
		}
		if rebuilt != live {
			t.Fatalf("rebuild digest %s != live %s", rebuilt, live)
		}
		var n int
		l.ReadDB().QueryRow(`SELECT events FROM ` + countsTable + ` WHERE stream = 'connection-1'`).Scan(&n)
		if n != 13 {
			t.Fatalf("connection-1 has %d events after rebuild", n)
		}
	})
}

func TestProjectionDigestDistinguishesTypes(t *testing.T) {
	l, path := tempLedger(t)
	db := rawDB(t, path)
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE dig (a ANY, b ANY) STRICT`); err != nil {
		t.Fatal(err)
	}
	p := tableProjection{"dig"}
	seen := map[string][2]any{}
	for _, row := range [][2]any{{1, "1"}, {"1", 1}, {[]byte("1"), 1}, {1.0, 1}, {nil, 1}, {"", nil}, {"a", "bc"}, {"ab", "c"}} {
		db.Exec(`DELETE FROM dig`)
		if _, err := db.Exec(`INSERT INTO dig VALUES (?, ?)`, row[0], row[1]); err != nil {
			t.Fatal(err)
		}
		d, err := l.ProjectionDigest(context.Background(), []Projection{p})
		if err != nil {
			t.Fatal(err)
		}
		if prev, dup := seen[d]; dup {
			t.Fatalf("rows %v and %v have the same digest", prev, row)
		}
		seen[d] = row
	}
}

type tableProjection struct{ table string }

func (p tableProjection) Name() string               { return p.table }
func (p tableProjection) Tables() []string           { return []string{p.table} }
func (p tableProjection) Apply(*sql.Tx, Event) error { return nil }

func TestParseTime(t *testing.T) {
	if _, err := ParseTime("2026-01-01T00:00:00.000Z"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000+00:00", "2026-01-01T00:00:00.0000Z"} {
		if _, err := ParseTime(s); err == nil {
			t.Errorf("%s accepted", s)
		}
	}
	if got := FormatTime(time.Date(2026, 1, 1, 1, 0, 0, 999999999, time.FixedZone("x", 3600))); got != "2026-01-01T00:00:00.999Z" {
		t.Fatalf("FormatTime %s", got)
	}
}

func TestStats(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, _ := b.tempLedger(t)
		fill(t, l, 5, 1)
		s, err := l.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if s.Events != 5 || s.Streams != 3 || s.Blobs != 5 || s.ByType["evidence_recorded"] != 5 || s.Head.Seq != 5 ||
			s.LedgerID != l.ID() || s.SchemaVersion < 1 {
			t.Fatalf("stats %+v", s)
		}
	})
}

// StatsAt of a location where no ledger was created yet (a fresh
// PostgreSQL schema, a missing SQLite file) is the empty ledger's facts,
// and creates nothing; of a ledger with no events, its facts.
func TestStatsAtEmpty(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := b.fresh(t)
		s, err := StatsAt(ctx, loc)
		if err != nil || s.Events != 0 || s.Head.Seq != 0 || s.Head.Hash != GenesisHash() || s.LedgerID != "" || s.ByType == nil {
			t.Fatalf("stats where no ledger is: %+v %v", s, err)
		}
		if _, err := OpenReadOnly(ctx, loc); !errors.Is(err, ErrNoLedger) {
			t.Fatalf("StatsAt created a ledger: %v", err)
		}
		l := openTest(t, loc, Options{})
		s, err = StatsAt(ctx, loc)
		if err != nil || s.Events != 0 || s.LedgerID != l.ID() || s.SchemaVersion < 1 {
			t.Fatalf("stats of an empty ledger: %+v %v", s, err)
		}
	})
}

func TestPragmas(t *testing.T) {
	l, _ := tempLedger(t)
	ctx := context.Background()
	conn, err := l.w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": "2", "busy_timeout": "10000",
		"foreign_keys": "1", "page_size": "8192"} {
		var got string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
	var qo string
	l.ReadDB().QueryRow("PRAGMA query_only").Scan(&qo)
	if qo != "1" {
		t.Errorf("read pool query_only = %s", qo)
	}
}
