// Package canon encodes Go values as RFC 8785 (JCS) canonical JSON and
// computes the sha256 digests REA derives from it (CONTRACTS.md §1.1).
// Every identifier that must be recomputable by a client — evidence_id,
// profile digest, bundle digest — is a digest of these bytes. The
// canonicalization itself is internal/jcs's; this package adds the
// encoding of values (and values that encode themselves, Appender).
package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/rea-re/rea/internal/jcs"
)

// Appender is implemented by values that write their own RFC 8785 form:
// keys in UTF-16 order, strings through jcs.AppendText, integers through
// jcs.AppendInt. Marshal trusts it, so every implementation needs a test
// comparing it with jcs.Transform of its encoding/json form (see
// provider.Page). A value that cannot write itself (a page of items that
// are not Appenders) reports false, and Marshal encodes it as usual.
type Appender interface {
	AppendCanonical(dst []byte) ([]byte, bool)
}

// Marshal encodes v as JSON and canonicalizes it per RFC 8785.
func Marshal(v any) ([]byte, error) {
	var raw []byte
	if a, ok := v.(Appender); ok {
		if out, ok := a.AppendCanonical(nil); ok {
			return out, nil
		}
	}
	switch b := v.(type) {
	case json.RawMessage:
		raw = b
	case []byte:
		raw = b
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, fmt.Errorf("canon: encode: %w", err)
		}
		raw = buf.Bytes()
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("canon: transform: %w", err)
	}
	return out, nil
}

// SHA256Hex is the lowercase hex sha256 of b.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Digest is SHA256Hex(Marshal(v)).
func Digest(v any) (string, error) {
	b, err := Marshal(v)
	if err != nil {
		return "", err
	}
	return SHA256Hex(b), nil
}
