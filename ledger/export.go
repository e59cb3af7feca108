package ledger

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/gowebpki/jcs"
	"github.com/oklog/ulid/v2"
)

// Export file constants (CONTRACTS.md §13.3).
const (
	ExportFormat        = "rea-ledger-export"
	ExportFormatVersion = 1
)

// ExportManifest is the first line of an export.
type ExportManifest struct {
	Kind             string `json:"kind"`
	Format           string `json:"format"`
	FormatVersion    int    `json:"format_version"`
	LedgerID         string `json:"ledger_id"`
	SchemaVersion    int    `json:"schema_version"`
	HashAlgorithm    string `json:"hash_algorithm"`
	Canonicalization string `json:"canonicalization"`
	FirstSeq         int64  `json:"first_seq"`
	LastSeq          int64  `json:"last_seq"`
	Count            int64  `json:"count"`
	PrevHash         string `json:"prev_hash"`
	HeadHash         string `json:"head_hash"`
	BlobCount        int64  `json:"blob_count"`
	ToolVersion      string `json:"tool_version"`
	ExportedAt       string `json:"exported_at"`
}

var manifestKeys = []string{"kind", "format", "format_version", "ledger_id", "schema_version", "hash_algorithm",
	"canonicalization", "first_seq", "last_seq", "count", "prev_hash", "head_hash", "blob_count", "tool_version",
	"exported_at"}

// ErrRangedImport: Import of an export that does not start at seq 1.
var ErrRangedImport = errors.New("ledger: import needs a complete export (first_seq 1)")

// Export writes events fromSeq..toSeq (toSeq 0 = head; fromSeq < 1 = 1) as
// JSON Lines: the manifest, one line per event with its stored canonical
// bytes and hashes, then the blobs those events reference, by sha256. Every
// line is itself RFC 8785 canonical. The whole export is read from one
// snapshot, so appends during the export do not change it.
func (l *Ledger) Export(ctx context.Context, w io.Writer, fromSeq, toSeq int64, toolVersion string) (ExportManifest, error) {
	tx, err := l.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	defer tx.Rollback()

	var head int64
	if err := tx.QueryRowContext(ctx, `SELECT seq FROM events ORDER BY seq DESC LIMIT 1`).Scan(&head); err != nil &&
		!errors.Is(err, sql.ErrNoRows) {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	if fromSeq < 1 {
		fromSeq = 1
	}
	if toSeq <= 0 {
		toSeq = head
	}
	if toSeq > head {
		return ExportManifest{}, fmt.Errorf("ledger: export: --to %d is beyond the head (seq %d)", toSeq, head)
	}
	if fromSeq > toSeq+1 {
		return ExportManifest{}, fmt.Errorf("ledger: export: --from %d is beyond --to %d", fromSeq, toSeq)
	}
	m := ExportManifest{
		Kind: "manifest", Format: ExportFormat, FormatVersion: ExportFormatVersion, LedgerID: l.ID(),
		HashAlgorithm: "sha256", Canonicalization: "RFC8785", FirstSeq: fromSeq, LastSeq: fromSeq - 1,
		PrevHash: genesisHash, ToolVersion: toolVersion, ExportedAt: FormatTime(l.now()),
	}
	if err := tx.QueryRowContext(ctx, `SELECT version FROM schema_migrations LIMIT 1`).Scan(&m.SchemaVersion); err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: schema version: %w", err)
	}
	if fromSeq > 1 {
		err := tx.QueryRowContext(ctx, `SELECT hash FROM events WHERE seq = ?`, fromSeq-1).Scan(&m.PrevHash)
		if errors.Is(err, sql.ErrNoRows) {
			// A damaged ledger lacks the predecessor; take the first row's
			// own claim so that verify reports the damage where it is.
			err = tx.QueryRowContext(ctx, `SELECT prev_hash FROM events WHERE seq >= ? ORDER BY seq LIMIT 1`, fromSeq).Scan(&m.PrevHash)
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
	}
	m.HeadHash = m.PrevHash

	// Pass 1: the figures the manifest needs up front, and the blob digests.
	rows, err := tx.QueryContext(ctx, `SELECT seq, hash, data FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq`, fromSeq, toSeq)
	if err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	digests := map[string]bool{}
	for rows.Next() {
		var seq int64
		var h string
		var data sql.RawBytes
		if err := rows.Scan(&seq, &h, &data); err != nil {
			rows.Close()
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
		if m.Count == 0 {
			m.FirstSeq = seq
		}
		m.Count++
		m.LastSeq, m.HeadHash = seq, h
		if d, ok := dataDigest(data); ok {
			digests[d] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	var blobs []string
	for _, d := range slices.Sorted(maps.Keys(digests)) {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM blobs WHERE sha256 = ?`, d).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			continue // verify will name the event whose body is missing
		}
		if err != nil {
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
		blobs = append(blobs, d)
	}
	m.BlobCount = int64(len(blobs))

	bw := bufio.NewWriterSize(w, 256<<10)
	line, err := manifestLine(&m)
	if err != nil {
		return ExportManifest{}, err
	}
	bw.Write(line)

	// Pass 2: the events, exactly as stored.
	rows, err = tx.QueryContext(ctx, `SELECT seq, hash, prev_hash, canonical FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq`, fromSeq, toSeq)
	if err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	var buf []byte
	for n := 0; rows.Next(); n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return ExportManifest{}, err
			}
		}
		var seq int64
		var h, p string
		var c sql.RawBytes
		if err := rows.Scan(&seq, &h, &p, &c); err != nil {
			rows.Close()
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
		buf = appendEventLine(buf[:0], seq, h, p, c)
		if _, err := bw.Write(buf); err != nil {
			rows.Close()
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}

	for _, d := range blobs {
		var data []byte
		if err := tx.QueryRowContext(ctx, `SELECT data FROM blobs WHERE sha256 = ?`, d).Scan(&data); err != nil {
			return ExportManifest{}, fmt.Errorf("ledger: export: blob %s: %w", d, err)
		}
		buf = append(buf[:0], `{"data_base64":"`...)
		buf = base64.StdEncoding.AppendEncode(buf, data)
		buf = append(buf, `","kind":"blob","sha256":`...)
		buf = appendJCSString(buf, d)
		buf = append(buf, "}\n"...)
		if _, err := bw.Write(buf); err != nil {
			return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return ExportManifest{}, fmt.Errorf("ledger: export: %w", err)
	}
	return m, nil
}

func manifestLine(m *ExportManifest) ([]byte, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("ledger: export: manifest: %w", err)
	}
	c, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("ledger: export: manifest: %w", err)
	}
	return append(c, '\n'), nil
}

// appendEventLine writes {"canonical":C,"hash":…,"kind":"event","prev_hash":…,"seq":N}.
func appendEventLine(dst []byte, seq int64, h, p string, c []byte) []byte {
	dst = append(dst, `{"canonical":`...)
	dst = appendJCSString(dst, string(c))
	dst = append(dst, `,"hash":`...)
	dst = appendJCSString(dst, h)
	dst = append(dst, `,"kind":"event","prev_hash":`...)
	dst = appendJCSString(dst, p)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, seq, 10)
	return append(dst, "}\n"...)
}

// dataDigest returns data.record_digest when data is a canonical object
// with that member as a string.
func dataDigest(data []byte) (string, bool) {
	if len(data) == 0 || data[0] != '{' {
		return "", false
	}
	s := canonScanner{b: data}
	var digest string
	var found bool
	_, err := s.object(0, func(key []byte, vs int) (int, error) {
		ve, err := s.value(vs)
		if err == nil && string(key) == `"`+BlobRefField+`"` && data[vs] == '"' {
			digest, found = decodeCanonString(data[vs:ve]), true
		}
		return ve, err
	})
	return digest, found && err == nil
}

// maxLine bounds one export line (a blob of 64 MiB is about 86 MiB in
// base64), so a hostile file cannot make the reader buffer without limit.
const maxLine = 256 << 20

var (
	errNoNewline   = errors.New("last line is not newline-terminated")
	errLineTooLong = errors.New("line exceeds 256 MiB")
)

type lineReader struct {
	br  *bufio.Reader
	buf []byte
	n   int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 256<<10)}
}

// next returns the next line without its '\n'. A final line without '\n'
// is returned with errNoNewline; io.EOF means no more lines.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > maxLine {
			return nil, errLineTooLong
		}
		lr.buf = append(lr.buf, chunk...)
		switch {
		case err == nil:
			lr.n++
			return lr.buf[:len(lr.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(lr.buf) == 0 {
				return nil, io.EOF
			}
			lr.n++
			return lr.buf, errNoNewline
		default:
			return nil, err
		}
	}
}

// decodeStrict decodes one JSON object that must be the whole line and have
// only known members.
func decodeStrict(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

func parseManifest(line []byte) (*ExportManifest, error) {
	var m ExportManifest
	if err := decodeStrict(line, &m); err != nil {
		return nil, fmt.Errorf("manifest line: %v", err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		return nil, fmt.Errorf("manifest line: %v", err)
	}
	for _, k := range manifestKeys {
		if _, ok := keys[k]; !ok {
			return nil, fmt.Errorf("manifest line: %s is missing", k)
		}
	}
	if m.Kind != "manifest" {
		return nil, fmt.Errorf("first line is of kind %q, not a manifest", m.Kind)
	}
	return &m, nil
}

// readManifestLine reads only the first line of an export (the --previous
// file: its manifest is the attestation being checked against).
func readManifestLine(r io.Reader) (*ExportManifest, error) {
	line, err := newLineReader(r).next()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("empty file")
	}
	if err != nil && !errors.Is(err, errNoNewline) {
		return nil, err
	}
	return parseManifest(line)
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if _, ok := lowerHex(s[i]); !ok {
			return false
		}
	}
	return true
}

// checkManifest reports manifest fields that are wrong on their own.
func (v *verifier) checkManifest(m *ExportManifest) {
	bad := func(format string, a ...any) { v.badNoSeq(CheckManifest, format, a...) }
	if m.Format != ExportFormat {
		bad("format %q is not %q", m.Format, ExportFormat)
	}
	if m.FormatVersion != ExportFormatVersion {
		bad("format_version %d is not supported (want %d)", m.FormatVersion, ExportFormatVersion)
	}
	if m.HashAlgorithm != "sha256" {
		bad("hash_algorithm %q is not sha256", m.HashAlgorithm)
	}
	if m.Canonicalization != "RFC8785" {
		bad("canonicalization %q is not RFC8785", m.Canonicalization)
	}
	if _, err := ulid.ParseStrict(m.LedgerID); err != nil {
		bad("ledger_id %q is not a ULID", m.LedgerID)
	}
	if m.FirstSeq < 1 {
		bad("first_seq %d is below 1", m.FirstSeq)
	}
	if m.Count != m.LastSeq-m.FirstSeq+1 || m.Count < 0 {
		bad("count %d does not match first_seq %d .. last_seq %d", m.Count, m.FirstSeq, m.LastSeq)
	}
	if !isHex64(m.PrevHash) || !isHex64(m.HeadHash) {
		bad("prev_hash and head_hash must be 64 lowercase hex characters")
	}
	if m.FirstSeq == 1 && m.PrevHash != genesisHash {
		bad("prev_hash of an export from seq 1 must be the genesis hash")
	}
	if m.BlobCount < 0 {
		bad("blob_count %d is negative", m.BlobCount)
	}
}

// exportLine is any line after the manifest; which members must be present
// depends on kind.
type exportLine struct {
	Kind       string  `json:"kind"`
	Seq        *int64  `json:"seq"`
	Hash       *string `json:"hash"`
	PrevHash   *string `json:"prev_hash"`
	Canonical  *string `json:"canonical"`
	SHA256     *string `json:"sha256"`
	DataBase64 *string `json:"data_base64"`
}

// exportHooks lets Import store what verification has accepted so far;
// each hook runs only while no problem has been found.
type exportHooks struct {
	manifest func(*ExportManifest) error
	event    func(seq int64, hash, prevHash string, c []byte, env *envelope) error
	blob     func(sha string, data []byte) error
}

// VerifyExport checks an export file offline: (1)-(4) for every event line,
// (5) the manifest against the lines and every blob against its digest, with
// every referenced record_digest present, and, when previous is not nil, (6)
// that this export extends the previous one (same ledger_id, and the event at
// the previous last_seq has its head_hash), which is how a truncated tail is
// found. Problems go in the report; the error is only for failing to read.
func VerifyExport(ctx context.Context, r io.Reader, previous io.Reader) (VerifyReport, error) {
	rep, _, err := verifyExport(ctx, r, previous, nil)
	return rep, err
}

func verifyExport(ctx context.Context, r io.Reader, previous io.Reader, hooks *exportHooks) (VerifyReport, *ExportManifest, error) {
	var prev *ExportManifest
	var prevErr error
	if previous != nil {
		prev, prevErr = readManifestLine(previous)
	}
	lr := newLineReader(r)
	line, err := lr.next()
	v := newVerifier(1, genesisHash)
	switch {
	case errors.Is(err, io.EOF):
		v.badNoSeq(CheckManifest, "the export is empty")
		return v.finish(nil), nil, nil
	case errors.Is(err, errNoNewline):
		v.badNoSeq(CheckLine, "line 1: %v", err)
	case errors.Is(err, errLineTooLong):
		v.badNoSeq(CheckManifest, "line 1: %v", err)
		return v.finish(nil), nil, nil
	case err != nil:
		return VerifyReport{}, nil, fmt.Errorf("ledger: read export: %w", err)
	}
	m, err := parseManifest(line)
	if err != nil {
		v.badNoSeq(CheckManifest, "%v", err)
		return v.finish(nil), nil, nil
	}
	v = newVerifier(max(m.FirstSeq, 1), m.PrevHash)
	v.ranged = m.FirstSeq > 1
	v.checkManifest(m)
	if prevErr != nil {
		v.badNoSeq(CheckPrevious, "previous export: %v", prevErr)
	} else if prev != nil && prev.Count > 0 {
		v.watchSeq = prev.LastSeq
	}
	if hooks != nil && hooks.manifest != nil {
		if err := hooks.manifest(m); err != nil {
			return VerifyReport{}, m, err
		}
	}
	clean := func() bool { return hooks != nil && len(v.rep.Problems) == 0 && v.dropped == 0 }

	var (
		count, firstSeen, lastSeen int64
		lastHash                   string
		inBlobs                    bool
		lastBlob                   string
		blobLines                  int64
		present                    = map[string]bool{}
		data                       []byte
	)
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		switch {
		case errors.Is(err, errNoNewline):
			v.badNoSeq(CheckLine, "line %d: %v", lr.n, err)
		case errors.Is(err, errLineTooLong):
			v.badNoSeq(CheckLine, "line %d: %v", lr.n+1, err)
			return v.finish(present), m, nil
		case err != nil:
			return VerifyReport{}, m, fmt.Errorf("ledger: read export: %w", err)
		}
		if lr.n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return VerifyReport{}, m, err
			}
		}
		var el exportLine
		if err := decodeStrict(line, &el); err != nil {
			v.badNoSeq(CheckLine, "line %d: %v", lr.n, err)
			continue
		}
		switch el.Kind {
		case "event":
			if el.Seq == nil || el.Hash == nil || el.PrevHash == nil || el.Canonical == nil ||
				el.SHA256 != nil || el.DataBase64 != nil {
				v.badNoSeq(CheckLine, "line %d: an event line has exactly kind, seq, hash, prev_hash, canonical", lr.n)
				continue
			}
			seq := *el.Seq
			if inBlobs {
				v.bad(seq, CheckLine, "line %d: event after the blob lines", lr.n)
			}
			if count == 0 {
				firstSeen = seq
			}
			count++
			lastSeen, lastHash = seq, *el.Hash
			c := []byte(*el.Canonical)
			env, ok := v.event(seq, *el.Hash, *el.PrevHash, c, nil)
			if ok && clean() && hooks.event != nil {
				if err := hooks.event(seq, *el.Hash, *el.PrevHash, c, env); err != nil {
					return VerifyReport{}, m, err
				}
			}
		case "blob":
			if el.SHA256 == nil || el.DataBase64 == nil || el.Seq != nil || el.Hash != nil ||
				el.PrevHash != nil || el.Canonical != nil {
				v.badNoSeq(CheckLine, "line %d: a blob line has exactly kind, sha256, data_base64", lr.n)
				continue
			}
			inBlobs = true
			blobLines++
			v.rep.Checked.Blobs++
			sha := *el.SHA256
			if !isHex64(sha) {
				v.badNoSeq(CheckBlob, "line %d: sha256 %q is not 64 lowercase hex characters", lr.n, sha)
				continue
			}
			if sha <= lastBlob {
				v.add(v.blobSeq(sha), CheckBlob, fmt.Sprintf("line %d: blob %s is out of order or repeated", lr.n, sha))
			}
			lastBlob = sha
			data, err = base64.StdEncoding.AppendDecode(data[:0], []byte(*el.DataBase64))
			if err != nil {
				v.add(v.blobSeq(sha), CheckBlob, fmt.Sprintf("line %d: data_base64: %v", lr.n, err))
				continue
			}
			present[sha] = true
			if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != sha {
				v.add(v.blobSeq(sha), CheckBlob, fmt.Sprintf("blob %s: bytes do not match the digest", sha))
				continue
			}
			if clean() && hooks.blob != nil {
				if err := hooks.blob(sha, data); err != nil {
					return VerifyReport{}, m, err
				}
			}
		case "manifest":
			v.badNoSeq(CheckLine, "line %d: a second manifest", lr.n)
		default:
			v.badNoSeq(CheckLine, "line %d: unknown kind %q", lr.n, el.Kind)
		}
	}

	// (5) the manifest describes exactly these lines.
	if count == 0 {
		if m.Count != 0 {
			v.bad(max(m.FirstSeq, 1), CheckManifest, "manifest count %d, but the export has no events", m.Count)
		}
		if m.HeadHash != m.PrevHash {
			v.badNoSeq(CheckManifest, "an export without events must have head_hash == prev_hash")
		}
	} else {
		if firstSeen != m.FirstSeq {
			v.bad(min(firstSeen, m.FirstSeq), CheckManifest, "the first event is seq %d, the manifest says first_seq %d", firstSeen, m.FirstSeq)
		}
		if lastSeen != m.LastSeq {
			v.bad(min(lastSeen, m.LastSeq)+1, CheckManifest, "the last event is seq %d, the manifest says last_seq %d", lastSeen, m.LastSeq)
		}
		if count != m.Count {
			v.badNoSeq(CheckManifest, "the export has %d events, the manifest says count %d", count, m.Count)
		}
		if lastSeen == m.LastSeq && lastHash != m.HeadHash {
			v.bad(lastSeen, CheckManifest, "the last event's hash %s is not the manifest head_hash %s", lastHash, m.HeadHash)
		}
	}
	if blobLines != m.BlobCount {
		v.badNoSeq(CheckManifest, "the export has %d blobs, the manifest says blob_count %d", blobLines, m.BlobCount)
	}

	// (6) an append-only extension of the previous export.
	if prev != nil {
		if prev.LedgerID != m.LedgerID {
			v.badNoSeq(CheckPrevious, "previous export is of ledger %s, this one of %s", prev.LedgerID, m.LedgerID)
		}
		v.checkPrevious(prev, m.FirstSeq, m.PrevHash)
	}
	return v.finish(present), m, nil
}

// Import loads a complete export into this ledger, which must have no
// events: it verifies the export while inserting its rows verbatim (same
// seq, event_id, stored bytes and hashes) and its blobs in one transaction,
// adopts the export's ledger_id, and folds ps from the imported events. If
// verification finds any problem nothing is kept and the error is a
// *VerifyError (errors.Is ErrVerifyFailed) carrying the report.
func (l *Ledger) Import(ctx context.Context, r io.Reader, ps []Projection) (ExportManifest, error) {
	if l.readOnly {
		return ExportManifest{}, ErrReadOnly
	}
	var man ExportManifest
	err := l.writeTx(ctx, false, func(tx *sql.Tx) (bool, error) {
		var exists int
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM events)`).Scan(&exists); err != nil {
			return false, fmt.Errorf("ledger: import: %w", err)
		}
		if exists != 0 {
			return false, ErrNotEmpty
		}
		insert := tx.StmtContext(ctx, l.stInsert)
		hooks := &exportHooks{
			manifest: func(m *ExportManifest) error {
				if m.FirstSeq > 1 {
					return fmt.Errorf("%w: this export starts at seq %d", ErrRangedImport, m.FirstSeq)
				}
				return nil
			},
			event: func(seq int64, hash, prevHash string, c []byte, env *envelope) error {
				_, err := insert.ExecContext(ctx, seq, env.EventID, env.Stream, env.StreamVersion, env.Type,
					env.SchemaVersion, env.RecordedAt, string(env.Data), c, prevHash, hash)
				if err != nil {
					return fmt.Errorf("ledger: import: seq %d: %w", seq, err)
				}
				return nil
			},
			blob: func(sha string, data []byte) error {
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO blobs (sha256, data) VALUES (?, ?)`, sha, data); err != nil {
					return fmt.Errorf("ledger: import: blob %s: %w", sha, err)
				}
				return nil
			},
		}
		rep, m, err := verifyExport(ctx, r, nil, hooks)
		if err != nil {
			return false, err
		}
		if !rep.OK {
			return false, &VerifyError{Report: rep}
		}
		man = *m
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_meta SET value = ? WHERE key = 'ledger_id'`, m.LedgerID); err != nil {
			return false, fmt.Errorf("ledger: import: %w", err)
		}
		if err := rebuildTx(ctx, tx, ps); err != nil {
			return false, err
		}
		return true, nil
	})
	if err != nil {
		return ExportManifest{}, err
	}
	l.mu.Lock()
	l.id = man.LedgerID
	l.mu.Unlock()
	return man, nil
}
