package ledger

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/rea-re/rea/ledger/internal/chain"
	"github.com/rea-re/rea/migrations"
)

// recordLike is a body shaped like an Evidence page: canonical JSON with
// repeated keys, which is what compression is there for.
func recordLike(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"address":"0x%x","procedure":{"external":false,"thunk":false,"thunk_target":null},"value":"_ZN4node%dfunction%dEv"}`, 0x401000+i*48, i%17, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// appendBodies appends one evidence_recorded event per body, each storing
// its body, and returns their digests in order. Event IDs start at idBase.
func appendBodies(t *testing.T, l *Ledger, idBase uint64, bodies ...[]byte) []string {
	t.Helper()
	var digests []string
	for i, body := range bodies {
		_, err := l.Append(context.Background(), "connection-1", -1, []NewEvent{{ID: testID(idBase + uint64(i)),
			Type: "evidence_recorded", Data: testPayload(i, body)}}, func(tx *sql.Tx, _ []Event) error {
			d, err := l.PutBlob(tx, body)
			digests = append(digests, d)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return digests
}

func storedEncoding(t *testing.T, db *sql.DB, digest string) (encoding string, size int) {
	t.Helper()
	if err := db.QueryRow(`SELECT encoding, length(data) FROM blobs WHERE sha256 = ?`, digest).Scan(&encoding, &size); err != nil {
		t.Fatal(err)
	}
	return encoding, size
}

// deflated is body in the deflate encoding ledgers before schema 4 wrote.
func deflated(t testing.TB, body []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestBlobsAreStoredCompressedWhenThatPays(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l, path := b.tempLedger(t)
		random := make([]byte, 4096)
		rand.Read(random)
		record, small := recordLike(100), []byte(`{"n":1}`)
		digests := appendBodies(t, l, 1, record, small, random, []byte{})

		db := rawDB(t, path)
		defer db.Close()
		for i, want := range []struct {
			encoding string
			body     []byte
		}{{"snappy", record}, {"identity", small}, {"identity", random}, {"identity", []byte{}}} {
			encoding, size := storedEncoding(t, db, digests[i])
			if encoding != want.encoding {
				t.Errorf("body %d (%d bytes) stored as %s, want %s", i, len(want.body), encoding, want.encoding)
			}
			if encoding == "snappy" && size*4 > len(want.body) {
				t.Errorf("a %d-byte record compressed to %d bytes", len(want.body), size)
			}
			got, err := l.Blob(context.Background(), digests[i])
			if err != nil || !bytes.Equal(got, want.body) {
				t.Errorf("body %d read back as %d bytes (%v), want the %d stored", i, len(got), err, len(want.body))
			}
		}
		if rep, err := l.Verify(context.Background()); err != nil || !rep.OK {
			t.Fatalf("verify: %+v %v", rep, err)
		}

		// An export carries the uncompressed bytes, and an import stores them
		// compressed again under the same digests.
		var export bytes.Buffer
		if _, err := l.Export(context.Background(), &export, 0, 0, "test"); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(export.Bytes(), []byte(chain.SHA256Hex(record))) {
			t.Fatal("export does not name the record")
		}
		if rep, err := VerifyExport(context.Background(), bytes.NewReader(export.Bytes()), nil); err != nil || !rep.OK {
			t.Fatalf("verify export: %+v %v", rep, err)
		}
		importedLoc := b.fresh(t)
		imported := openTest(t, importedLoc, Options{})
		if _, err := imported.Import(context.Background(), bytes.NewReader(export.Bytes()), nil); err != nil {
			t.Fatal(err)
		}
		idb := rawDB(t, importedLoc)
		defer idb.Close()
		if encoding, _ := storedEncoding(t, idb, digests[0]); encoding != "snappy" {
			t.Fatalf("imported record stored as %s", encoding)
		}
		if got, err := imported.Blob(context.Background(), digests[0]); err != nil || !bytes.Equal(got, record) {
			t.Fatalf("imported record: %v", err)
		}
	})
}

// A compressed body damaged underneath REA (in the encoding written now, or
// in the deflate of ledgers before schema 4) is reported like any other
// damaged body: Verify names the event that refers to it, Blob refuses it,
// and an export carries it so that verifying the export names it too.
func TestDamagedCompressedBlobIsReported(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, encoding := range []string{blobSnappy, blobDeflate} {
			t.Run(encoding, func(t *testing.T) { testDamagedBlob(t, b, encoding) })
		}
	})
}

func testDamagedBlob(t *testing.T, b backend, encoding string) {
	damages := map[string]string{
		"flipped byte":        `UPDATE blobs SET data = CAST(substr(data, 1, 40) || x'00' || substr(data, 42) AS BLOB) WHERE sha256 = ?`,
		"truncated stream":    `UPDATE blobs SET data = substr(data, 1, length(data) / 2) WHERE sha256 = ?`,
		"plain bytes":         `UPDATE blobs SET data = CAST('{"forged":true}' AS BLOB) WHERE sha256 = ?`,
		"relabelled as plain": `UPDATE blobs SET encoding = 'identity' WHERE sha256 = ?`,
	}
	if b.name == "postgres" {
		damages = map[string]string{
			"flipped byte":        `UPDATE blobs SET data = overlay(data PLACING '\x00'::bytea FROM 41 FOR 1) WHERE sha256 = ?`,
			"truncated stream":    `UPDATE blobs SET data = substring(data FROM 1 FOR length(data) / 2) WHERE sha256 = ?`,
			"plain bytes":         `UPDATE blobs SET data = convert_to('{"forged":true}', 'UTF8') WHERE sha256 = ?`,
			"relabelled as plain": `UPDATE blobs SET encoding = 'identity' WHERE sha256 = ?`,
		}
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			l, path := b.tempLedger(t)
			body := recordLike(100)
			digests := appendBodies(t, l, 1, []byte(`{"n":0}`), body, []byte(`{"n":2}`))
			db := rawDB(t, path)
			defer db.Close()
			if encoding == blobDeflate {
				mustExec(t, db, `UPDATE blobs SET data = ?, encoding = 'deflate' WHERE sha256 = ?`, deflated(t, body), digests[1])
			}
			if got, _ := storedEncoding(t, db, digests[1]); got != encoding {
				t.Fatalf("stored as %s, want %s", got, encoding)
			}
			if _, err := db.Exec(damage, digests[1]); err != nil {
				t.Fatal(err)
			}
			rep, err := l.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			wantBad(t, rep, 2, CheckBlob)
			if _, err := l.Blob(context.Background(), digests[1]); err == nil {
				t.Fatal("Blob returned a damaged body")
			}
			var export bytes.Buffer
			if _, err := l.Export(context.Background(), &export, 0, 0, "test"); err != nil {
				t.Fatal(err)
			}
			rep, err = VerifyExport(context.Background(), bytes.NewReader(export.Bytes()), nil)
			if err != nil {
				t.Fatal(err)
			}
			wantBad(t, rep, 2, CheckBlob)
		})
	}
}

// A ledger made before blobs had an encoding (schema 2) is migrated in
// place: its bodies read as plain, verify passes, and new bodies are
// deflated beside them.
func TestSchema2LedgerKeepsItsBlobs(t *testing.T) {
	l, path := tempLedger(t)
	old := recordLike(50)
	digests := appendBodies(t, l, 1, old)
	l.Close()
	// Back to schema 2, as a file written by an earlier REA: migration
	// 0004's and 0003's own downs, which refuse while a body is stored
	// compressed in an encoding the older schema cannot name, then with the
	// body stored plain.
	// Migrations after 0004 are taken back first, newest first.
	var later []string
	for _, name := range []string{"0006_comparisons.down.sql", "0005_target_handles.down.sql"} {
		down, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		later = append(later, string(down))
	}
	down4, err := fs.ReadFile(migrations.FS, "0004_blob_snappy.down.sql")
	if err != nil {
		t.Fatal(err)
	}
	down3, err := fs.ReadFile(migrations.FS, "0003_blob_encoding.down.sql")
	if err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, down := range later {
		mustExec(t, db, down)
	}
	if _, err := db.Exec(string(down4)); err == nil {
		t.Fatal("the 0004 down migration ran with a snappy body stored")
	}
	mustExec(t, db, `UPDATE blobs SET data = ?, encoding = 'deflate'`, deflated(t, old))
	mustExec(t, db, string(down4))
	if _, err := db.Exec(string(down3)); err == nil {
		t.Fatal("the 0003 down migration ran with a deflated body stored")
	}
	mustExec(t, db, `UPDATE blobs SET data = CAST(? AS BLOB), encoding = 'identity'`, old)
	mustExec(t, db, string(down3))
	mustExec(t, db, `UPDATE schema_migrations SET version = 2`)
	db.Close()

	l = openTest(t, path, Options{})
	if v, err := l.SchemaVersion(context.Background()); err != nil || v != 6 {
		t.Fatalf("schema version %d (%v), want 6", v, err)
	}
	if got, err := l.Blob(context.Background(), digests[0]); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("schema-2 body: %v", err)
	}
	newer := recordLike(60)
	appendBodies(t, l, 2, newer)
	if rep, err := l.Verify(context.Background()); err != nil || !rep.OK {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// A ledger at schema 3 holds deflated bodies: after migration 0004 they
// read and verify as before, beside the snappy bodies written since.
func TestSchema3DeflatedBodiesStillRead(t *testing.T) {
	l, path := tempLedger(t)
	old := recordLike(70)
	digests := appendBodies(t, l, 1, old)
	l.Close()
	db := rawDB(t, path)
	mustExec(t, db, `UPDATE blobs SET data = ?, encoding = 'deflate' WHERE sha256 = ?`, deflated(t, old), digests[0])
	db.Close()
	l = openTest(t, path, Options{})
	if got, err := l.Blob(context.Background(), digests[0]); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("deflated body: %v", err)
	}
	newer := appendBodies(t, l, 2, recordLike(40))
	if rep, err := l.Verify(context.Background()); err != nil || !rep.OK {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	db = rawDB(t, path)
	defer db.Close()
	if enc, _ := storedEncoding(t, db, newer[0]); enc != blobSnappy {
		t.Fatalf("new body stored as %s", enc)
	}
}

func TestDecodeIsBounded(t *testing.T) {
	body := bytes.Repeat([]byte("0"), 1001)
	stored, encoding := encodeBlob(body)
	if encoding != blobSnappy {
		t.Fatalf("stored as %s", encoding)
	}
	if got, err := unsnappy(stored, 1001); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("snappy at the bound: %v", err)
	}
	if _, err := unsnappy(stored, 1000); !errors.Is(err, errBlobEncoding) {
		t.Fatalf("snappy over the bound: %v", err)
	}
	if _, err := decodeBlob([]byte("not snappy"), blobSnappy); !errors.Is(err, errBlobEncoding) {
		t.Fatalf("snappy garbage: %v", err)
	}
	stored = deflated(t, body)
	if got, err := inflate(stored, 1001); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("at the bound: %v", err)
	}
	if _, err := inflate(stored, 1000); !errors.Is(err, errBlobEncoding) {
		t.Fatalf("over the bound: %v", err)
	}
	if _, err := decodeBlob([]byte("not deflate"), blobDeflate); !errors.Is(err, errBlobEncoding) {
		t.Fatalf("garbage: %v", err)
	}
	if _, err := decodeBlob([]byte("x"), "zstd"); !errors.Is(err, errBlobEncoding) {
		t.Fatalf("unknown encoding: %v", err)
	}
}

// FuzzDecodeBlob: a stored body is bytes from a file anyone with write
// access can edit; decoding it, as either compressed encoding, must end in
// bytes or errBlobEncoding, bounded, never a panic.
func FuzzDecodeBlob(f *testing.F) {
	stored, _ := encodeBlob(recordLike(20))
	f.Add(stored, true)
	f.Add(deflated(f, recordLike(20)), true)
	f.Add([]byte(`{"n":1}`), false)
	f.Add([]byte{0x01, 0x00, 0x00, 0xff, 0xff}, true) // a stored deflate block claiming 0 bytes
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, true) // a snappy block claiming 4 GiB
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, data []byte, compressed bool) {
		encodings := []string{blobIdentity}
		if compressed {
			encodings = []string{blobSnappy, blobDeflate}
		}
		for _, encoding := range encodings {
			out, err := decodeBlob(data, encoding)
			if err != nil && !errors.Is(err, errBlobEncoding) {
				t.Fatalf("%s: untyped error %v", encoding, err)
			}
			if len(out) > maxDecodedSize {
				t.Fatalf("%s: decoded to %d bytes", encoding, len(out))
			}
			if err == nil && compressed {
				// Whatever decodes must encode and decode back to itself.
				again, enc := encodeBlob(out)
				back, err := decodeBlob(again, enc)
				if err != nil || !bytes.Equal(back, out) {
					t.Fatalf("%s: round trip of %d bytes: %v", encoding, len(out), err)
				}
			}
		}
	})
}
