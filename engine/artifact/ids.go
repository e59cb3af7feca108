package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/canon"
)

// Identifiers are digests of small JCS objects of string members, computed
// for every occurrence and edge. stringObjectDigest writes those objects'
// RFC 8785 bytes directly (members given in sorted key order) instead of a
// JSON encode and a JCS transform per identifier; TestFastIDsMatchJCS holds
// it equal to engine/canon.

// stringObjectDigest is sha256hex(JCS({k0:v0, k1:v1, …})); kv alternates
// keys (already in UTF-16 order, which for ASCII keys is byte order) and
// values.
func stringObjectDigest(kv ...string) string {
	for i := 1; i < len(kv); i += 2 {
		if !utf8.ValidString(kv[i]) {
			m := make(map[string]string, len(kv)/2)
			for j := 0; j < len(kv); j += 2 {
				m[kv[j]] = kv[j+1]
			}
			d, err := canon.Digest(m)
			if err != nil {
				panic(err) // strings always encode
			}
			return d
		}
	}
	b := make([]byte, 0, 256)
	b = append(b, '{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = jcsString(b, kv[i])
		b = append(b, ':')
		b = jcsString(b, kv[i+1])
	}
	b = append(b, '}')
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// jcsString appends s (valid UTF-8) serialized as RFC 8785 requires: only
// '"', '\\' and C0 controls are escaped, with the short forms where they
// exist and lowercase \u00xx otherwise.
func jcsString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			h := strconv.FormatInt(int64(c), 16)
			b = append(b, '\\', 'u', '0', '0')
			if len(h) < 2 {
				b = append(b, '0')
			}
			b = append(b, h...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
