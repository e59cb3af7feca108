package ledger

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/golang/snappy"
)

// Blob bodies are stored compressed when that saves space, as DESIGN.md
// allows ("sha256 of the uncompressed bytes → bytes, optionally
// compressed"); blobs.encoding says how. The key is always the sha256 of
// the uncompressed bytes, and every reader decodes and hashes again, so a
// stored body is checked the same way whatever its encoding.
//
// Compression is there for the commit, not only for the file. Evidence
// bodies are canonical JSON, which snappy's block format shrinks about
// fivefold in ~30 µs for a 64 KiB page (deflate's fastest level: sevenfold
// in ~350 µs, the largest single cost of publishing a page, so bodies are no
// longer written deflated; ledgers from before migration 0004 keep theirs
// and read them as before): a page of a hundred procedures then fits in its
// b-tree leaf instead of spilling onto overflow pages, so the commit that
// publishes it writes and flushes fewer WAL pages (BENCHMARKS.md).
const (
	blobIdentity = "identity"
	blobDeflate  = "deflate"
	blobSnappy   = "snappy"

	// Bodies shorter than this are not worth compressing.
	minCompressSize = 512
	// maxDecodedSize bounds what is compressed, and so what decoding a
	// stored body may produce: a damaged or forged row cannot make a reader
	// allocate more than this.
	maxDecodedSize = 64 << 20
)

// encodeBlob returns the bytes to store for b and their encoding:
// snappy-compressed when that is at least an eighth smaller, as they are
// otherwise.
func encodeBlob(b []byte) ([]byte, string) {
	if len(b) < minCompressSize || len(b) > maxDecodedSize {
		return b, blobIdentity
	}
	out := snappy.Encode(nil, b)
	if len(out) > len(b)-len(b)/8 {
		return b, blobIdentity
	}
	return out, blobSnappy
}

// errBlobEncoding: a stored body that cannot be decoded as its encoding
// says. Verify counts such a body as damaged.
var errBlobEncoding = errors.New("stored body cannot be decoded")

// decodeBlob returns the uncompressed bytes of a stored body. stored may be
// returned as it is (identity), so callers that keep the result must own
// stored.
func decodeBlob(stored []byte, encoding string) ([]byte, error) {
	switch encoding {
	case blobIdentity:
		return stored, nil
	case blobDeflate:
		return inflate(stored, maxDecodedSize)
	case blobSnappy:
		return unsnappy(stored, maxDecodedSize)
	default:
		return nil, fmt.Errorf("%w: unknown encoding %q", errBlobEncoding, encoding)
	}
}

// inflate decodes a deflate stream of at most limit uncompressed bytes.
func inflate(stored []byte, limit int) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(stored))
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBlobEncoding, err)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("%w: inflates beyond %d bytes", errBlobEncoding, limit)
	}
	return out, nil
}

// unsnappy decodes a snappy block of at most limit uncompressed bytes; the
// block states its length first, so a larger one is refused before anything
// is allocated.
func unsnappy(stored []byte, limit int) ([]byte, error) {
	n, err := snappy.DecodedLen(stored)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBlobEncoding, err)
	}
	if n > limit {
		return nil, fmt.Errorf("%w: decodes beyond %d bytes", errBlobEncoding, limit)
	}
	out, err := snappy.Decode(make([]byte, n), stored)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBlobEncoding, err)
	}
	return out, nil
}

// blobMatches reports whether a stored body decodes to bytes whose sha256
// is key.
func blobMatches(key string, stored []byte, encoding string) bool {
	b, err := decodeBlob(stored, encoding)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) == key
}

// PutBlob stores b in the content-addressed blob table inside the caller's
// append transaction (typically from the apply callback) and returns its
// sha256. Storing the same bytes twice is a no-op.
func (l *Ledger) PutBlob(tx *sql.Tx, b []byte) (string, error) {
	pb := PrepareBlob(b)
	return pb.Key, l.PutPreparedBlob(tx, pb)
}

// PreparedBlob is a body hashed and encoded for storage ahead of the append
// transaction that stores it: the hash names the record before it is
// appended, and deflating a page of results (a quarter of a millisecond
// for 64 KiB) then happens outside the writer, where concurrent
// publications can overlap it, instead of inside the one transaction every
// append waits for.
type PreparedBlob struct {
	Key      string // sha256 of the uncompressed bytes, hex
	stored   []byte
	encoding string
}

// PrepareBlob hashes and encodes b.
func PrepareBlob(b []byte) PreparedBlob {
	if b == nil {
		b = []byte{}
	}
	sum := sha256.Sum256(b)
	stored, encoding := encodeBlob(b)
	return PreparedBlob{Key: hex.EncodeToString(sum[:]), stored: stored, encoding: encoding}
}

// PutPreparedBlob is PutBlob for a prepared body.
func (l *Ledger) PutPreparedBlob(tx *sql.Tx, pb PreparedBlob) error {
	if pb.encoding == "" {
		return fmt.Errorf("ledger: put blob: not a prepared blob")
	}
	if err := l.putStored(context.Background(), tx, pb); err != nil {
		return fmt.Errorf("ledger: put blob: %w", err)
	}
	return nil
}

// putBlob stores b under key, which the caller has checked (an import).
func (l *Ledger) putBlob(ctx context.Context, tx *sql.Tx, key string, b []byte) error {
	if b == nil {
		b = []byte{}
	}
	stored, encoding := encodeBlob(b)
	return l.putStored(ctx, tx, PreparedBlob{Key: key, stored: stored, encoding: encoding})
}

func (l *Ledger) putStored(ctx context.Context, tx *sql.Tx, pb PreparedBlob) error {
	_, err := tx.StmtContext(ctx, l.stPutBlob).ExecContext(ctx, pb.Key, pb.stored, pb.encoding)
	return err
}

// Blob returns the bytes stored under sha256hex. The bytes are hashed again
// before they are returned, so a damaged body is an error, never evidence.
func (l *Ledger) Blob(ctx context.Context, sha256hex string) (_ []byte, err error) {
	defer l.typeStorage(&err)
	b, err := readBlob(ctx, l.r, sha256hex)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != sha256hex {
		return nil, fmt.Errorf("ledger: blob %s: stored bytes do not match their digest", sha256hex)
	}
	return b, nil
}

// queryRower is what readBlob needs of a *sql.DB or *sql.Tx.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readBlob returns the decoded bytes stored under sha256hex, unchecked.
func readBlob(ctx context.Context, q queryRower, sha256hex string) ([]byte, error) {
	stored, encoding, err := storedBlob(ctx, q, sha256hex)
	if err != nil {
		return nil, err
	}
	b, err := decodeBlob(stored, encoding)
	if err != nil {
		return nil, fmt.Errorf("ledger: blob %s: %w", sha256hex, err)
	}
	return b, nil
}

// storedBlob returns the row stored under sha256hex as it is.
func storedBlob(ctx context.Context, q queryRower, sha256hex string) (stored []byte, encoding string, err error) {
	err = q.QueryRowContext(ctx, `SELECT data, encoding FROM blobs WHERE sha256 = ?`, sha256hex).Scan(&stored, &encoding)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", fmt.Errorf("%w: blob %s", ErrNotFound, sha256hex)
	}
	if err != nil {
		return nil, "", fmt.Errorf("ledger: blob %s: %w", sha256hex, err)
	}
	if stored == nil {
		stored = []byte{}
	}
	return stored, encoding, nil
}
