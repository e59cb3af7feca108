package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
	"github.com/rea-re/rea/internal/jcs"
)

// NewEvent is an event before it is stored. Data is any JSON-encodable value
// (json.RawMessage and []byte are taken as JSON text); Append canonicalizes it
// once with RFC 8785 and the stored bytes are never re-encoded afterwards.
// Data must encode to a JSON object. A zero ID gets a fresh ULID; callers
// that want retries to be idempotent must choose the ID before the first try.
type NewEvent struct {
	ID   ulid.ULID
	Type string
	// SchemaVersion is the version of Type's data shape; 0 means 1. A type
	// whose data gained a field says so here (CONTRACTS.md §15.3), so a
	// reader folds older events of the type with the old shape's rule.
	SchemaVersion int
	Data          any
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
	c, err := jcs.Canonicalize(raw)
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

func validText(what, s string) error {
	if s == "" {
		return fmt.Errorf("ledger: %s is empty", what)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("ledger: %s is not valid UTF-8", what)
	}
	return nil
}
