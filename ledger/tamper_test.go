package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"github.com/rea-re/rea/ledger/internal/chain"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tamper fixtures: a real ledger is built, copied, and the copy is
// edited underneath REA through a raw SQLite connection after dropping the
// append-only triggers, the way an attacker with write access to the file
// would. Each edit must make Verify fail and name the exact first bad seq.

const tamperEvents = 30

// tamperSource builds the pristine ledger once per test and returns its path
// (closed, checkpointed).
func tamperSource(t *testing.T, b backend) string {
	t.Helper()
	path := b.fresh(t)
	l, err := Open(context.Background(), path, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	fill(t, l, tamperEvents, 1000)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// tamperCopy copies the database file (and any WAL) and returns a raw
// connection to the copy with the triggers dropped. A PostgreSQL ledger is
// not copied but built again in a fresh schema: the fixed clock and IDs make
// it row for row the same as src.
func tamperCopy(t *testing.T, src string) (string, *sql.DB) {
	t.Helper()
	if IsURL(src) {
		dst := tamperSource(t, postgresBackend)
		db := rawDB(t, dst)
		t.Cleanup(func() { db.Close() })
		mustExec(t, db, `DROP TRIGGER events_no_update ON events`)
		mustExec(t, db, `DROP TRIGGER events_no_delete ON events`)
		return dst, db
	}
	dst := filepath.Join(t.TempDir(), "tampered.db")
	for _, s := range []string{"", "-wal"} {
		b, err := os.ReadFile(src + s)
		if err != nil {
			if s != "" && os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+s, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	db := rawDB(t, dst)
	t.Cleanup(func() { db.Close() })
	mustExec(t, db, `DROP TRIGGER events_no_update`)
	mustExec(t, db, `DROP TRIGGER events_no_delete`)
	return dst, db
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func verifyFile(t *testing.T, path string, previous []byte) VerifyReport {
	t.Helper()
	l, err := OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var prev io.Reader
	if previous != nil {
		prev = bytes.NewReader(previous)
	}
	rep, err := l.VerifyAgainst(context.Background(), prev)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func exportFile(t *testing.T, path string) []byte {
	t.Helper()
	l, err := OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var buf bytes.Buffer
	if _, err := l.Export(context.Background(), &buf, 0, 0, "test"); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func wantBad(t *testing.T, rep VerifyReport, seq int64, check string) {
	t.Helper()
	if rep.OK {
		t.Fatalf("verify passed a tampered ledger: %+v", rep)
	}
	if rep.FirstBadSeq == nil || *rep.FirstBadSeq != seq {
		got := "null"
		if rep.FirstBadSeq != nil {
			got = string(rune('0' + *rep.FirstBadSeq))
		}
		t.Fatalf("first_bad_seq = %v (%s), want %d; problems %+v", rep.FirstBadSeq, got, seq, rep.Problems)
	}
	for _, p := range rep.Problems {
		if p.Seq != nil && *p.Seq == seq && p.Check == check {
			return
		}
	}
	t.Fatalf("no %q problem at seq %d: %+v", check, seq, rep.Problems)
}

type rowValues struct {
	eventID, stream, typ, recordedAt, data, prevHash, hash string
	streamVersion, schemaVersion                           int64
	canonical                                              []byte
}

func readRow(t *testing.T, db *sql.DB, seq int64) rowValues {
	t.Helper()
	var r rowValues
	var s int64
	err := db.QueryRow(`SELECT `+rowColumns+` FROM events WHERE seq = ?`, seq).Scan(&s, &r.eventID, &r.stream,
		&r.streamVersion, &r.typ, &r.schemaVersion, &r.recordedAt, &r.data, &r.canonical, &r.prevHash, &r.hash)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func insertRow(t *testing.T, db *sql.DB, seq int64, r rowValues) {
	t.Helper()
	mustExec(t, db, `INSERT INTO events (`+rowColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?)`, seq, r.eventID, r.stream,
		r.streamVersion, r.typ, r.schemaVersion, r.recordedAt, r.data, r.canonical, r.prevHash, r.hash)
}

// In PostgreSQL the tamperer drops the triggers the same way (DROP TRIGGER
// … ON events) and edits through a raw connection.
func TestTamperedLedgers(t *testing.T) {
	forEachBackend(t, testTamperedLedgers)
}

func testTamperedLedgers(t *testing.T, b backend) {
	src := tamperSource(t, b)

	t.Run("untouched", func(t *testing.T) {
		path, _ := tamperCopy(t, src)
		rep := verifyFile(t, path, nil)
		if !rep.OK || rep.FirstBadSeq != nil || rep.Checked.Events != tamperEvents || rep.Checked.Blobs != tamperEvents ||
			rep.Head.Seq != tamperEvents || len(rep.Problems) != 0 {
			t.Fatalf("pristine copy: %+v", rep)
		}
	})

	t.Run("flipped byte in canonical", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		r := readRow(t, db, 7)
		c := bytes.Clone(r.canonical)
		i := bytes.Index(c, []byte(`"n":`)) + 4
		c[i] ^= 0x01 // "6" -> "7": still canonical JSON, different bytes
		mustExec(t, db, `UPDATE events SET canonical = ? WHERE seq = 7`, c)
		wantBad(t, verifyFile(t, path, nil), 7, CheckHash)
	})

	t.Run("flipped byte in data column", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		r := readRow(t, db, 9)
		d := []byte(r.data)
		d[bytes.Index(d, []byte(`"n":`))+4] ^= 0x01
		mustExec(t, db, `UPDATE events SET data = ? WHERE seq = 9`, string(d))
		wantBad(t, verifyFile(t, path, nil), 9, CheckEnvelope)
	})

	t.Run("data column shortened to a prefix of the payload", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		r := readRow(t, db, 10)
		mustExec(t, db, `UPDATE events SET data = ? WHERE seq = 10`, r.data[:len(r.data)-5])
		wantBad(t, verifyFile(t, path, nil), 10, CheckEnvelope)
	})

	t.Run("flipped byte in canonical and re-hashed", func(t *testing.T) {
		// An attacker who recomputes this row's hash still breaks the link
		// to the next row.
		path, db := tamperCopy(t, src)
		r := readRow(t, db, 11)
		c := bytes.Replace(r.canonical, []byte(`"n":10,`), []byte(`"n":11,`), 1)
		mustExec(t, db, `UPDATE events SET canonical = ?, hash = ? WHERE seq = 11`, c, chain.Hash(r.prevHash, c))
		rep := verifyFile(t, path, nil)
		wantBad(t, rep, 11, CheckEnvelope) // data column no longer matches C
		var link bool
		for _, p := range rep.Problems {
			link = link || (p.Check == CheckPrevHash && *p.Seq == 12)
		}
		if !link {
			t.Fatalf("no broken link at 12: %+v", rep.Problems)
		}
	})

	t.Run("non-canonical bytes", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		r := readRow(t, db, 4)
		c := bytes.Replace(r.canonical, []byte(`{"data":`), []byte(`{ "data":`), 1)
		mustExec(t, db, `UPDATE events SET canonical = ?, hash = ? WHERE seq = 4`, c, chain.Hash(r.prevHash, c))
		wantBad(t, verifyFile(t, path, nil), 4, CheckCanonical)
	})

	t.Run("deleted row", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		mustExec(t, db, `DELETE FROM events WHERE seq = 12`)
		rep := verifyFile(t, path, nil)
		wantBad(t, rep, 12, CheckSeq)
	})

	t.Run("deleted first row", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		mustExec(t, db, `DELETE FROM events WHERE seq = 1`)
		wantBad(t, verifyFile(t, path, nil), 1, CheckSeq)
	})

	t.Run("inserted row, forged chain", func(t *testing.T) {
		// The strongest insert: rows from 15 on are renumbered and a new row
		// with a correctly computed hash is placed at 15. That row is
		// self-consistent; the chain breaks at the row after it.
		path, db := tamperCopy(t, src)
		mustExec(t, db, `UPDATE events SET seq = seq + 100000 WHERE seq >= 15`)
		mustExec(t, db, `UPDATE events SET seq = seq - 100000 + 1 WHERE seq >= 100000`)
		prev := readRow(t, db, 14)
		f := chain.Fields{Seq: 15, EventID: testID(999999).String(), Stream: "forged", StreamVersion: 1,
			Type: "grant_added", SchemaVersion: 1, RecordedAt: "2026-01-01T00:00:00.500Z", Data: []byte(`{"grant":"all"}`)}
		c := chain.AppendCanonical(nil, &f)
		insertRow(t, db, 15, rowValues{eventID: f.EventID, stream: f.Stream, streamVersion: 1, typ: f.Type,
			schemaVersion: 1, recordedAt: f.RecordedAt, data: string(f.Data), canonical: c, prevHash: prev.hash,
			hash: chain.Hash(prev.hash, c)})
		wantBad(t, verifyFile(t, path, nil), 16, CheckPrevHash)
	})

	t.Run("inserted row, copied", func(t *testing.T) {
		// A naive insert: another event's row copied under a new seq.
		path, db := tamperCopy(t, src)
		mustExec(t, db, `UPDATE events SET seq = seq + 100000 WHERE seq >= 15`)
		mustExec(t, db, `UPDATE events SET seq = seq - 100000 + 1 WHERE seq >= 100000`)
		r := readRow(t, db, 3)
		r.eventID = testID(888888).String()
		r.streamVersion = 99
		insertRow(t, db, 15, r)
		wantBad(t, verifyFile(t, path, nil), 15, CheckPrevHash)
	})

	t.Run("swapped rows", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		r20, r21 := readRow(t, db, 20), readRow(t, db, 21)
		mustExec(t, db, `DELETE FROM events WHERE seq IN (20, 21)`)
		insertRow(t, db, 20, r21)
		insertRow(t, db, 21, r20)
		rep := verifyFile(t, path, nil)
		wantBad(t, rep, 20, CheckPrevHash)
		wantBad(t, rep, 20, CheckEnvelope)
	})

	t.Run("damaged blob", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		mustExec(t, db, `UPDATE blobs SET data = ? WHERE sha256 = ?`, []byte("forged"), chain.SHA256Hex([]byte("evidence body 5")))
		wantBad(t, verifyFile(t, path, nil), 6, CheckBlob)
	})

	t.Run("missing blob", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		mustExec(t, db, `DELETE FROM blobs WHERE sha256 = ?`, chain.SHA256Hex([]byte("evidence body 8")))
		wantBad(t, verifyFile(t, path, nil), 9, CheckBlob)
	})

	t.Run("truncated tail", func(t *testing.T) {
		path, db := tamperCopy(t, src)
		earlier := exportFile(t, path)
		mustExec(t, db, `DELETE FROM events WHERE seq > 25`)

		// On its own a truncated history is a valid (shorter) chain: only
		// an earlier attestation can reveal it.
		if rep := verifyFile(t, path, nil); !rep.OK {
			t.Fatalf("truncated ledger without an anchor: %+v", rep)
		}
		// Live ledger against the earlier export.
		wantBad(t, verifyFile(t, path, earlier), 26, CheckPrevious)
		// Export after truncation against the earlier export.
		later := exportFile(t, path)
		rep, err := VerifyExport(context.Background(), bytes.NewReader(later), bytes.NewReader(earlier))
		if err != nil {
			t.Fatal(err)
		}
		wantBad(t, rep, 26, CheckPrevious)
		rep, _ = VerifyExport(context.Background(), bytes.NewReader(later), nil)
		if !rep.OK {
			t.Fatalf("later export alone: %+v", rep)
		}
	})

	t.Run("rewritten history against previous export", func(t *testing.T) {
		// Everything from seq 10 re-chained consistently by the attacker:
		// the chain verifies, the previous export's head hash does not.
		path, db := tamperCopy(t, src)
		earlier := exportFile(t, path)
		prevHash := readRow(t, db, 9).hash
		for seq := int64(10); seq <= tamperEvents; seq++ {
			r := readRow(t, db, seq)
			c := r.canonical
			if seq == 10 {
				c = bytes.Replace(c, []byte(`"n":9`), []byte(`"n":8`), 1)
				mustExec(t, db, `UPDATE events SET data = ? WHERE seq = 10`, strings.Replace(r.data, `"n":9`, `"n":8`, 1))
			}
			h := chain.Hash(prevHash, c)
			mustExec(t, db, `UPDATE events SET canonical = ?, prev_hash = ?, hash = ? WHERE seq = ?`, c, prevHash, h, seq)
			prevHash = h
		}
		if rep := verifyFile(t, path, nil); !rep.OK {
			t.Fatalf("consistent rewrite should verify without an anchor: %+v", rep)
		}
		wantBad(t, verifyFile(t, path, earlier), tamperEvents, CheckPrevious)
	})

	t.Run("previous export of another ledger", func(t *testing.T) {
		path, _ := tamperCopy(t, src)
		other := b.fresh(t)
		l := openTest(t, other, Options{})
		fill(t, l, 2, 1)
		rep := verifyFile(t, path, exportFile(t, other))
		if rep.OK {
			t.Fatalf("previous export of another ledger accepted")
		}
	})
}

// Tampered export files: the same edits made to the JSON Lines instead.
func TestTamperedExports(t *testing.T) {
	src := tamperSource(t, sqliteBackend) // offline: the file format is one for both backends
	good := exportFile(t, src)
	ctx := context.Background()
	if rep, err := VerifyExport(ctx, bytes.NewReader(good), nil); err != nil || !rep.OK ||
		rep.Checked.Events != tamperEvents || rep.Checked.Blobs != tamperEvents || rep.Head.Seq != tamperEvents {
		t.Fatalf("good export: %+v %v", rep, err)
	}
	lines := bytes.SplitAfter(good, []byte("\n"))
	lines = lines[:len(lines)-1] // trailing empty
	join := func(ls [][]byte) []byte { return bytes.Join(ls, nil) }
	edit := func(f func(ls [][]byte) [][]byte) []byte {
		cp := make([][]byte, len(lines))
		for i := range lines {
			cp[i] = bytes.Clone(lines[i])
		}
		return join(f(cp))
	}
	cases := []struct {
		name  string
		file  []byte
		seq   int64
		check string
	}{
		{"flipped byte", edit(func(ls [][]byte) [][]byte {
			i := bytes.Index(ls[5], []byte(`\"n\":`)) + 6
			ls[5][i] ^= 0x01
			return ls
		}), 5, CheckHash},
		{"deleted line", edit(func(ls [][]byte) [][]byte { return append(ls[:8:8], ls[9:]...) }), 8, CheckSeq},
		{"swapped lines", edit(func(ls [][]byte) [][]byte { ls[3], ls[4] = ls[4], ls[3]; return ls }), 3, CheckSeq},
		{"tail events removed, manifest intact", edit(func(ls [][]byte) [][]byte {
			return append(ls[:26:26], ls[31:]...) // manifest, seqs 1..25, the blobs
		}), 26, CheckManifest},
		{"file cut inside the blob lines", edit(func(ls [][]byte) [][]byte {
			return ls[:31+10] // the last 20 blobs are gone
		}), -1, CheckBlob},
		{"blob replaced", edit(func(ls [][]byte) [][]byte {
			last := len(ls) - 1
			ls[last] = bytes.Replace(ls[last], []byte(`"data_base64":"`), []byte(`"data_base64":"AAAA`), 1)
			return ls
		}), -1, CheckBlob},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := VerifyExport(ctx, bytes.NewReader(tc.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.seq < 0 {
				if rep.OK {
					t.Fatal("accepted")
				}
				return
			}
			wantBad(t, rep, tc.seq, tc.check)
		})
	}
}
