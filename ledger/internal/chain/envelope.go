package chain

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rea-re/rea/internal/jcs"
)

// SchemaVersion1 is the schema_version of every event type in CONTRACTS.md
// §13.2. It is part of the hashed envelope so that a later payload change can
// be told apart from tampering.
const SchemaVersion1 = 1

// TimeLayout is the one timestamp spelling of the ledger: RFC 3339, UTC,
// milliseconds, literal Z (CONTRACTS.md §1.1). recorded_at is hashed as text,
// so it must have exactly one spelling.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// BlobRefField is the top-level member of an event's data that names a blob
// by its sha256 (evidence_recorded.record_digest, CONTRACTS.md §7.3). Export
// carries the blobs so named, and verify requires each to be present: the
// chain covers a body only through this digest.
const BlobRefField = "record_digest"

const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// FormatTime renders t in the ledger's timestamp spelling (TimeLayout).
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Millisecond).Format(TimeLayout) }

// ParseTime parses a timestamp in the ledger's spelling, refusing any other.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		return time.Time{}, err
	}
	if t.Format(TimeLayout) != s {
		return time.Time{}, fmt.Errorf("ledger: timestamp %q is not in the canonical spelling", s)
	}
	return t, nil
}

func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DataStart is where the payload begins in C: `{"data":` is always first.
const DataStart = len(`{"data":`)

// Fields is the hashed envelope of one event (CONTRACTS.md §13.1).
type Fields struct {
	Seq           int64
	EventID       string
	Stream        string
	StreamVersion int64
	Type          string
	SchemaVersion int64
	RecordedAt    string
	Data          []byte // canonical JSON object
}

// AppendCanonical appends C = JCS({data, event_id, recorded_at,
// schema_version, seq, stream, stream_version, type}) to dst. The members are
// written directly in JCS order (all names are ASCII, so byte order is UTF-16
// order) around the already canonical data, which avoids parsing and
// re-serializing the payload; TestCanonicalEnvelopeMatchesJCS and check (4) of
// Verify hold this to gowebpki/jcs.
func AppendCanonical(dst []byte, f *Fields) []byte {
	dst = append(dst, `{"data":`...)
	dst = append(dst, f.Data...)
	dst = append(dst, `,"event_id":`...)
	dst = AppendJCSString(dst, f.EventID)
	dst = append(dst, `,"recorded_at":`...)
	dst = AppendJCSString(dst, f.RecordedAt)
	dst = append(dst, `,"schema_version":`...)
	dst = strconv.AppendInt(dst, f.SchemaVersion, 10)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, f.Seq, 10)
	dst = append(dst, `,"stream":`...)
	dst = AppendJCSString(dst, f.Stream)
	dst = append(dst, `,"stream_version":`...)
	dst = strconv.AppendInt(dst, f.StreamVersion, 10)
	dst = append(dst, `,"type":`...)
	dst = AppendJCSString(dst, f.Type)
	return append(dst, '}')
}

// AppendJCSString appends s as a JSON string in RFC 8785 form. Invalid
// UTF-8 (only possible in a damaged row being exported) becomes one U+FFFD
// per run of invalid bytes, so the output is always JSON; event fields are
// checked to be valid at append.
func AppendJCSString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return jcs.AppendString(dst, s)
}

// Hash is sha256hex(prevHash || c): the previous hash as its 64 ASCII
// hex characters, then the stored canonical bytes.
func Hash(prevHash string, c []byte) string {
	h := sha256.New()
	h.Write([]byte(prevHash))
	h.Write(c)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// envelope is what ParseEnvelope extracts from C.
type Envelope struct {
	Fields
	DataOffset   int    // Data == C[DataOffset:DataOffset+len(Data)]
	RecordDigest string // data.record_digest when it is a string
	HasDigest    bool
}

var envelopeKeys = [...]string{
	`"data"`, `"event_id"`, `"recorded_at"`, `"schema_version"`,
	`"seq"`, `"stream"`, `"stream_version"`, `"type"`,
}

// ParseEnvelope checks that c is canonical JSON with exactly the envelope
// members, of the right JSON types, and returns them. One pass; no
// re-serialization.
func ParseEnvelope(c []byte) (Envelope, error) {
	var env Envelope
	if len(c) == 0 || c[0] != '{' {
		return env, errors.New("envelope is not a JSON object")
	}
	s := jcs.NewScanner(c)
	n := 0
	var ferr error
	fail := func(format string, a ...any) (int, error) {
		ferr = fmt.Errorf(format, a...)
		return 0, ferr
	}
	end, err := s.Object(0, func(key []byte, vs int) (int, error) {
		if n >= len(envelopeKeys) || string(key) != envelopeKeys[n] {
			return fail("envelope member %s is not expected (want exactly %v)", key, envelopeKeys)
		}
		n++
		switch string(key) {
		case `"data"`:
			if vs >= len(c) || c[vs] != '{' {
				return fail("data is not a JSON object")
			}
			ve, err := s.Object(vs, func(k []byte, dvs int) (int, error) {
				if string(k) != `"`+BlobRefField+`"` || c[dvs] != '"' {
					return s.Value(dvs)
				}
				dve, v, err := s.String(dvs)
				if err == nil {
					env.RecordDigest, env.HasDigest = v, true
				}
				return dve, err
			})
			if err != nil {
				return 0, err
			}
			env.Data = c[vs:ve]
			env.DataOffset = vs
			return ve, nil
		case `"event_id"`, `"recorded_at"`, `"stream"`, `"type"`:
			if vs >= len(c) || c[vs] != '"' {
				return fail("%s is not a string", key)
			}
			ve, v, err := s.String(vs)
			if err != nil {
				return 0, err
			}
			switch string(key) {
			case `"event_id"`:
				env.EventID = v
			case `"recorded_at"`:
				env.RecordedAt = v
			case `"stream"`:
				env.Stream = v
			default:
				env.Type = v
			}
			return ve, nil
		default: // seq, schema_version, stream_version: positive integers
			ve, err := s.Value(vs)
			if err != nil {
				return 0, err
			}
			v, perr := strconv.ParseInt(string(c[vs:ve]), 10, 64)
			if perr != nil || v < 0 {
				return fail("%s is not a non-negative integer", key)
			}
			switch string(key) {
			case `"seq"`:
				env.Seq = v
			case `"schema_version"`:
				env.SchemaVersion = v
			default:
				env.StreamVersion = v
			}
			return ve, nil
		}
	})
	if ferr != nil {
		return env, ferr
	}
	if err != nil || end != len(c) {
		return env, errors.New("canonical bytes are not RFC 8785 canonical JSON")
	}
	if n != len(envelopeKeys) {
		return env, fmt.Errorf("envelope has %d of the %d members", n, len(envelopeKeys))
	}
	return env, nil
}
