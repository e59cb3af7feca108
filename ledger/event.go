package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
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

const genesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// GenesisHash is the prev_hash of seq 1: 64 "0" (CONTRACTS.md §13.1).
func GenesisHash() string { return genesisHash }

// NewEvent is an event before it is stored. Data is any JSON-encodable value
// (json.RawMessage and []byte are taken as JSON text); Append canonicalizes it
// once with RFC 8785 and the stored bytes are never re-encoded afterwards.
// Data must encode to a JSON object. A zero ID gets a fresh ULID; callers
// that want retries to be idempotent must choose the ID before the first try.
type NewEvent struct {
	ID   ulid.ULID
	Type string
	Data any
}

// Event is a stored event. Data is the canonical payload and Canonical the
// exact envelope bytes C the hash covers: Hash = sha256hex(PrevHash || C).
type Event struct {
	Seq           int64
	StreamVersion int64
	ID            ulid.ULID
	Stream        string
	Type          string
	SchemaVersion int
	RecordedAt    time.Time
	Data          json.RawMessage
	Canonical     []byte
	PrevHash      string
	Hash          string
}

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

// encodeData turns a payload into its canonical JSON object bytes.
func encodeData(v any) ([]byte, error) {
	var raw []byte
	switch d := v.(type) {
	case json.RawMessage:
		raw = d
	case []byte:
		raw = d
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, fmt.Errorf("ledger: encode event data: %w", err)
		}
		raw = bytes.TrimRight(buf.Bytes(), "\n")
	}
	c, err := canonicalize(raw)
	if err != nil {
		return nil, fmt.Errorf("ledger: canonicalize event data: %w", err)
	}
	if len(c) == 0 || c[0] != '{' {
		return nil, errors.New("ledger: event data must be a JSON object")
	}
	if &c[0] == &raw[0] {
		c = bytes.Clone(c) // never alias the caller's buffer
	}
	return c, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// dataStart is where the payload begins in C: `{"data":` is always first.
const dataStart = len(`{"data":`)

// envelopeFields is the hashed envelope of one event (CONTRACTS.md §13.1).
type envelopeFields struct {
	Seq           int64
	EventID       string
	Stream        string
	StreamVersion int64
	Type          string
	SchemaVersion int64
	RecordedAt    string
	Data          []byte // canonical JSON object
}

// appendCanonical appends C = JCS({data, event_id, recorded_at,
// schema_version, seq, stream, stream_version, type}) to dst. The members are
// written directly in JCS order (all names are ASCII, so byte order is UTF-16
// order) around the already canonical data, which avoids parsing and
// re-serializing the payload; TestCanonicalEnvelopeMatchesJCS and check (4) of
// Verify hold this to jcs.Transform.
func appendCanonical(dst []byte, f *envelopeFields) []byte {
	dst = append(dst, `{"data":`...)
	dst = append(dst, f.Data...)
	dst = append(dst, `,"event_id":`...)
	dst = appendJCSString(dst, f.EventID)
	dst = append(dst, `,"recorded_at":`...)
	dst = appendJCSString(dst, f.RecordedAt)
	dst = append(dst, `,"schema_version":`...)
	dst = strconv.AppendInt(dst, f.SchemaVersion, 10)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, f.Seq, 10)
	dst = append(dst, `,"stream":`...)
	dst = appendJCSString(dst, f.Stream)
	dst = append(dst, `,"stream_version":`...)
	dst = strconv.AppendInt(dst, f.StreamVersion, 10)
	dst = append(dst, `,"type":`...)
	dst = appendJCSString(dst, f.Type)
	return append(dst, '}')
}

// chainHash is sha256hex(prevHash || c): the previous hash as its 64 ASCII
// hex characters, then the stored canonical bytes.
func chainHash(prevHash string, c []byte) string {
	h := sha256.New()
	h.Write([]byte(prevHash))
	h.Write(c)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// envelope is what parseEnvelope extracts from C.
type envelope struct {
	envelopeFields
	DataOffset   int    // Data == C[DataOffset:DataOffset+len(Data)]
	RecordDigest string // data.record_digest when it is a string
	HasDigest    bool
}

var envelopeKeys = [...]string{
	`"data"`, `"event_id"`, `"recorded_at"`, `"schema_version"`,
	`"seq"`, `"stream"`, `"stream_version"`, `"type"`,
}

// parseEnvelope checks that c is canonical JSON with exactly the envelope
// members, of the right JSON types, and returns them. One pass; no
// re-serialization.
func parseEnvelope(c []byte) (envelope, error) {
	var env envelope
	if len(c) == 0 || c[0] != '{' {
		return env, errors.New("envelope is not a JSON object")
	}
	s := canonScanner{b: c}
	n := 0
	var ferr error
	fail := func(format string, a ...any) (int, error) {
		ferr = fmt.Errorf(format, a...)
		return 0, ferr
	}
	end, err := s.object(0, func(key []byte, vs int) (int, error) {
		if n >= len(envelopeKeys) || string(key) != envelopeKeys[n] {
			return fail("envelope member %s is not expected (want exactly %v)", key, envelopeKeys)
		}
		n++
		switch string(key) {
		case `"data"`:
			if vs >= len(c) || c[vs] != '{' {
				return fail("data is not a JSON object")
			}
			ve, err := s.object(vs, func(k []byte, dvs int) (int, error) {
				dve, err := s.value(dvs)
				if err == nil && string(k) == `"`+BlobRefField+`"` && c[dvs] == '"' {
					env.RecordDigest = decodeCanonString(c[dvs:dve])
					env.HasDigest = true
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
			ve, _, err := s.str(vs)
			if err != nil {
				return 0, err
			}
			v := decodeCanonString(c[vs:ve])
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
			ve, err := s.value(vs)
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

func validText(what, s string) error {
	if s == "" {
		return fmt.Errorf("ledger: %s is empty", what)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("ledger: %s is not valid UTF-8", what)
	}
	return nil
}
