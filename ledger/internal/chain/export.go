package chain

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/internal/jcs"
)

// Export file constants (CONTRACTS.md §13.3).
const (
	Format        = "rea-ledger-export"
	FormatVersion = 1
)

// Manifest is the first line of an export.
type Manifest struct {
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

func ManifestLine(m *Manifest) ([]byte, error) {
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

// AppendEventLine writes {"canonical":C,"hash":…,"kind":"event","prev_hash":…,"seq":N}.
func AppendEventLine(dst []byte, seq int64, h, p string, c []byte) []byte {
	dst = append(dst, `{"canonical":`...)
	dst = AppendJCSString(dst, string(c))
	dst = append(dst, `,"hash":`...)
	dst = AppendJCSString(dst, h)
	dst = append(dst, `,"kind":"event","prev_hash":`...)
	dst = AppendJCSString(dst, p)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, seq, 10)
	return append(dst, "}\n"...)
}

// carriedBlobField reports the other top-level members of an event's data
// that name a blob by its sha256 (comparison_completed.result_digest and
// comparison_checkpoint.state_digest, CONTRACTS.md §16.2): export carries
// the blobs they name, like those of BlobRefField, so an imported ledger
// pages a stored comparison without computing it again; verify does not
// require them (a comparison can always be computed again).
func carriedBlobField(k string) bool { return k == "result_digest" || k == "state_digest" }

// DataDigests returns the blob digests data names: its BlobRefField and
// carriedBlobField members that are strings, when data is a canonical
// object.
func DataDigests(data []byte) []string {
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	s := jcs.NewScanner(data)
	var out []string
	_, err := s.Object(0, func(key []byte, vs int) (int, error) {
		k := string(key[1 : len(key)-1])
		if data[vs] != '"' || (k != BlobRefField && !carriedBlobField(k)) {
			return s.Value(vs)
		}
		ve, v, err := s.String(vs)
		if err == nil {
			out = append(out, v)
		}
		return ve, err
	})
	if err != nil {
		return nil
	}
	return out
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

func newLineReader(r io.Reader, size int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, size)}
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

func parseManifest(line []byte) (*Manifest, error) {
	var m Manifest
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

// ReadManifest reads only the first line of an export (the --previous
// file: its manifest is the attestation being checked against).
func ReadManifest(r io.Reader) (*Manifest, error) {
	line, err := newLineReader(r, 4<<10).next()
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
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// checkManifest reports manifest fields that are wrong on their own.
func (v *Verifier) CheckManifest(m *Manifest) {
	bad := func(format string, a ...any) { v.BadNoSeq(CheckManifest, format, a...) }
	if m.Format != Format {
		bad("format %q is not %q", m.Format, Format)
	}
	if m.FormatVersion != FormatVersion {
		bad("format_version %d is not supported (want %d)", m.FormatVersion, FormatVersion)
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
	if m.FirstSeq == 1 && m.PrevHash != GenesisHash {
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

// Hooks lets Import store what verification has accepted so far;
// each hook runs only while no problem has been found.
type Hooks struct {
	Manifest func(*Manifest) error
	Event    func(seq int64, hash, prevHash string, c []byte, env *Envelope) error
	Blob     func(sha string, data []byte) error
}

func VerifyExport(ctx context.Context, r io.Reader, previous io.Reader, hooks *Hooks) (Report, *Manifest, error) {
	var prev *Manifest
	var prevErr error
	if previous != nil {
		prev, prevErr = ReadManifest(previous)
	}
	lr := newLineReader(r, 32<<10)
	line, err := lr.next()
	v := NewVerifier(1, GenesisHash)
	switch {
	case errors.Is(err, io.EOF):
		v.BadNoSeq(CheckManifest, "the export is empty")
		return v.Finish(nil), nil, nil
	case errors.Is(err, errNoNewline):
		v.BadNoSeq(CheckLine, "line 1: %v", err)
	case errors.Is(err, errLineTooLong):
		v.BadNoSeq(CheckManifest, "line 1: %v", err)
		return v.Finish(nil), nil, nil
	case err != nil:
		return Report{}, nil, fmt.Errorf("ledger: read export: %w", err)
	}
	m, err := parseManifest(line)
	if err != nil {
		v.BadNoSeq(CheckManifest, "%v", err)
		return v.Finish(nil), nil, nil
	}
	v = NewVerifier(max(m.FirstSeq, 1), m.PrevHash)
	v.ranged = m.FirstSeq > 1
	v.CheckManifest(m)
	if prevErr != nil {
		v.BadNoSeq(CheckPrevious, "previous export: %v", prevErr)
	} else if prev != nil && prev.Count > 0 {
		v.watchSeq = prev.LastSeq
	}
	if hooks != nil && hooks.Manifest != nil {
		if err := hooks.Manifest(m); err != nil {
			return Report{}, m, err
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
			v.BadNoSeq(CheckLine, "line %d: %v", lr.n, err)
		case errors.Is(err, errLineTooLong):
			v.BadNoSeq(CheckLine, "line %d: %v", lr.n+1, err)
			return v.Finish(present), m, nil
		case err != nil:
			return Report{}, m, fmt.Errorf("ledger: read export: %w", err)
		}
		if lr.n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return Report{}, m, err
			}
		}
		var el exportLine
		if err := decodeStrict(line, &el); err != nil {
			v.BadNoSeq(CheckLine, "line %d: %v", lr.n, err)
			continue
		}
		switch el.Kind {
		case "event":
			if el.Seq == nil || el.Hash == nil || el.PrevHash == nil || el.Canonical == nil ||
				el.SHA256 != nil || el.DataBase64 != nil {
				v.BadNoSeq(CheckLine, "line %d: an event line has exactly kind, seq, hash, prev_hash, canonical", lr.n)
				continue
			}
			seq := *el.Seq
			if inBlobs {
				v.Bad(seq, CheckLine, "line %d: event after the blob lines", lr.n)
			}
			if count == 0 {
				firstSeen = seq
			}
			count++
			lastSeen, lastHash = seq, *el.Hash
			c := []byte(*el.Canonical)
			env, ok := v.Event(seq, *el.Hash, *el.PrevHash, c, nil)
			if ok && clean() && hooks.Event != nil {
				if err := hooks.Event(seq, *el.Hash, *el.PrevHash, c, env); err != nil {
					return Report{}, m, err
				}
			}
		case "blob":
			if el.SHA256 == nil || el.DataBase64 == nil || el.Seq != nil || el.Hash != nil ||
				el.PrevHash != nil || el.Canonical != nil {
				v.BadNoSeq(CheckLine, "line %d: a blob line has exactly kind, sha256, data_base64", lr.n)
				continue
			}
			inBlobs = true
			blobLines++
			v.rep.Checked.Blobs++
			sha := *el.SHA256
			if !isHex64(sha) {
				v.BadNoSeq(CheckBlob, "line %d: sha256 %q is not 64 lowercase hex characters", lr.n, sha)
				continue
			}
			if sha <= lastBlob {
				v.Add(v.BlobSeq(sha), CheckBlob, fmt.Sprintf("line %d: blob %s is out of order or repeated", lr.n, sha))
			}
			lastBlob = sha
			data, err = base64.StdEncoding.AppendDecode(data[:0], []byte(*el.DataBase64))
			if err != nil {
				v.Add(v.BlobSeq(sha), CheckBlob, fmt.Sprintf("line %d: data_base64: %v", lr.n, err))
				continue
			}
			present[sha] = true
			if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != sha {
				v.Add(v.BlobSeq(sha), CheckBlob, fmt.Sprintf("blob %s: bytes do not match the digest", sha))
				continue
			}
			if clean() && hooks.Blob != nil {
				if err := hooks.Blob(sha, data); err != nil {
					return Report{}, m, err
				}
			}
		case "manifest":
			v.BadNoSeq(CheckLine, "line %d: a second manifest", lr.n)
		default:
			v.BadNoSeq(CheckLine, "line %d: unknown kind %q", lr.n, el.Kind)
		}
	}

	// (5) the manifest describes exactly these lines.
	if count == 0 {
		if m.Count != 0 {
			v.Bad(max(m.FirstSeq, 1), CheckManifest, "manifest count %d, but the export has no events", m.Count)
		}
		if m.HeadHash != m.PrevHash {
			v.BadNoSeq(CheckManifest, "an export without events must have head_hash == prev_hash")
		}
	} else {
		if firstSeen != m.FirstSeq {
			v.Bad(min(firstSeen, m.FirstSeq), CheckManifest, "the first event is seq %d, the manifest says first_seq %d", firstSeen, m.FirstSeq)
		}
		if lastSeen != m.LastSeq {
			v.Bad(min(lastSeen, m.LastSeq)+1, CheckManifest, "the last event is seq %d, the manifest says last_seq %d", lastSeen, m.LastSeq)
		}
		if count != m.Count {
			v.BadNoSeq(CheckManifest, "the export has %d events, the manifest says count %d", count, m.Count)
		}
		if lastSeen == m.LastSeq && lastHash != m.HeadHash {
			v.Bad(lastSeen, CheckManifest, "the last event's hash %s is not the manifest head_hash %s", lastHash, m.HeadHash)
		}
	}
	if blobLines != m.BlobCount {
		v.BadNoSeq(CheckManifest, "the export has %d blobs, the manifest says blob_count %d", blobLines, m.BlobCount)
	}

	// (6) an append-only extension of the previous export.
	if prev != nil {
		if prev.LedgerID != m.LedgerID {
			v.BadNoSeq(CheckPrevious, "previous export is of ledger %s, this one of %s", prev.LedgerID, m.LedgerID)
		}
		v.CheckPrevious(prev, m.FirstSeq, m.PrevHash)
	}
	return v.Finish(present), m, nil
}
