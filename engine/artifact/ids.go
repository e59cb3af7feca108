package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/internal/jcs"
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
		b = jcs.AppendString(b, kv[i])
		b = append(b, ':')
		b = jcs.AppendString(b, kv[i+1])
	}
	b = append(b, '}')
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
