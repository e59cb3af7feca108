package chain

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// This file checks that bytes are already in RFC 8785 (JCS) canonical form
// without building a tree or writing a second copy.
//
// Verification must check JCS(parse(C)) == C for every event (CONTRACTS.md
// §13.4 check 4). Doing that literally with jcs.Transform parses C into a tree
// and serializes it again, which costs several times the sha256 of the same
// bytes and would make `rea ledger verify` slower than a rebuild. A document
// is canonical exactly when it is valid JSON and every token is already
// written the one way JCS writes it, so a single forward scan suffices:
//
//   - no insignificant whitespace;
//   - object members sorted by the UTF-16 code units of their names, with no
//     duplicates (strictly increasing);
//   - strings: valid UTF-8, raw except for `"` `\` and the C0 controls, which
//     use \" \\ \b \f \n \r \t or \u00xx with lowercase hex;
//   - numbers: the ECMAScript shortest form of their float64 value;
//   - literals true, false, null.
//
// The same scanner extracts the envelope fields, so check (4) and the field
// comparisons cost one pass. canonjson_test.go fuzzes it differentially
// against jcs.Transform: for every input, canonical(b) must equal
// (jcs.Transform(b) == b).

// maxCanonDepth mirrors the nesting limit of github.com/gowebpki/jcs, so a
// document that the library refuses is refused here too.
const maxCanonDepth = 10000

var errNotCanonical = errors.New("not RFC 8785 canonical JSON")

type canonScanner struct {
	b     []byte
	depth int
}

// IsCanonicalJSON reports whether b is a JSON document in RFC 8785 form.
func IsCanonicalJSON(b []byte) bool {
	s := canonScanner{b: b}
	end, err := s.value(0)
	return err == nil && end == len(b)
}

// Canonicalize returns the RFC 8785 form of raw JSON, skipping the
// transform when raw is already canonical (the common case for payloads that
// were themselves produced by JCS).
func Canonicalize(raw []byte) ([]byte, error) {
	if IsCanonicalJSON(raw) {
		return raw, nil
	}
	return jcs.Transform(raw)
}

func (s *canonScanner) value(i int) (int, error) {
	if i >= len(s.b) {
		return 0, errNotCanonical
	}
	switch c := s.b[i]; {
	case c == '{':
		return s.object(i, nil)
	case c == '[':
		return s.array(i)
	case c == '"':
		end, _, err := s.str(i)
		return end, err
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(i)
	}
	return 0, errNotCanonical
}

func (s *canonScanner) literal(i int, lit string) (int, error) {
	if len(s.b)-i < len(lit) || string(s.b[i:i+len(lit)]) != lit {
		return 0, errNotCanonical
	}
	return i + len(lit), nil
}

// memberFunc is called for each member of an object scanned with a callback.
// key is the raw quoted name (including quotes); plain reports that its bytes
// order the same way as its UTF-16 code units. The callback scans the value
// starting at vstart itself and returns where it ends, which lets the
// envelope parser descend into "data" with a callback of its own.
type memberFunc func(key []byte, vstart int) (vend int, err error)

func (s *canonScanner) object(i int, fn memberFunc) (int, error) {
	s.depth++
	if s.depth > maxCanonDepth {
		return 0, errNotCanonical
	}
	i++ // '{'
	if i < len(s.b) && s.b[i] == '}' {
		s.depth--
		return i + 1, nil
	}
	var prevKey []byte
	prevPlain := true
	for {
		if i >= len(s.b) || s.b[i] != '"' {
			return 0, errNotCanonical
		}
		kEnd, plain, err := s.str(i)
		if err != nil {
			return 0, err
		}
		key := s.b[i:kEnd]
		if prevKey != nil && !keyLess(prevKey, prevPlain, key, plain) {
			return 0, errNotCanonical
		}
		prevKey, prevPlain = key, plain
		i = kEnd
		if i >= len(s.b) || s.b[i] != ':' {
			return 0, errNotCanonical
		}
		i++
		var vEnd int
		if fn != nil {
			vEnd, err = fn(key, i)
		} else {
			vEnd, err = s.value(i)
		}
		if err != nil {
			return 0, err
		}
		i = vEnd
		if i >= len(s.b) {
			return 0, errNotCanonical
		}
		switch s.b[i] {
		case ',':
			i++
		case '}':
			s.depth--
			return i + 1, nil
		default:
			return 0, errNotCanonical
		}
	}
}

func (s *canonScanner) array(i int) (int, error) {
	s.depth++
	if s.depth > maxCanonDepth {
		return 0, errNotCanonical
	}
	i++ // '['
	if i < len(s.b) && s.b[i] == ']' {
		s.depth--
		return i + 1, nil
	}
	for {
		end, err := s.value(i)
		if err != nil {
			return 0, err
		}
		i = end
		if i >= len(s.b) {
			return 0, errNotCanonical
		}
		switch s.b[i] {
		case ',':
			i++
		case ']':
			s.depth--
			return i + 1, nil
		default:
			return 0, errNotCanonical
		}
	}
}

// str scans a string starting at the opening quote and returns the index
// after the closing quote. plain is false when the raw bytes may order
// differently from the UTF-16 code units of the decoded string: an escape, or
// a supplementary-plane character (4-byte UTF-8, a surrogate pair in UTF-16).
func (s *canonScanner) str(i int) (end int, plain bool, err error) {
	b := s.b
	i++ // opening quote
	plain = true
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, plain, nil
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return 0, false, errNotCanonical
			}
			switch b[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				// JCS writes \u only for C0 controls without a short form,
				// as \u00 and two lowercase hex digits.
				if i+6 > len(b) || b[i+2] != '0' || b[i+3] != '0' {
					return 0, false, errNotCanonical
				}
				hi, lo := b[i+4], b[i+5]
				if hi != '0' && hi != '1' {
					return 0, false, errNotCanonical
				}
				v, ok := lowerHex(lo)
				if !ok {
					return 0, false, errNotCanonical
				}
				if hi == '0' {
					switch v {
					case '\b', '\t', '\n', '\f', '\r':
						return 0, false, errNotCanonical
					}
				}
				i += 6
			default:
				return 0, false, errNotCanonical
			}
		case c < 0x20:
			return 0, false, errNotCanonical
		case c < 0x80:
			i++
		default:
			if c >= 0xF0 {
				plain = false
			}
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				return 0, false, errNotCanonical
			}
			i += size
		}
	}
	return 0, false, errNotCanonical
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// keyLess reports a < b for two raw quoted member names in JCS order (UTF-16
// code units of the decoded names).
func keyLess(a []byte, aPlain bool, b []byte, bPlain bool) bool {
	if aPlain && bPlain {
		return bytes.Compare(a[1:len(a)-1], b[1:len(b)-1]) < 0
	}
	ua := utf16.Encode([]rune(decodeCanonString(a)))
	ub := utf16.Encode([]rune(decodeCanonString(b)))
	n := min(len(ua), len(ub))
	for k := 0; k < n; k++ {
		if ua[k] != ub[k] {
			return ua[k] < ub[k]
		}
	}
	return len(ua) < len(ub)
}

// decodeCanonString decodes a quoted string that str has already accepted,
// so only the escapes JCS writes can occur.
func decodeCanonString(q []byte) string {
	in := q[1 : len(q)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return string(in)
	}
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch in[i] {
		case '"', '\\':
			out = append(out, in[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			hi := in[i+3] - '0'
			lo, _ := lowerHex(in[i+4])
			out = append(out, hi<<4|lo)
			i += 4
		}
	}
	return string(out)
}

func (s *canonScanner) number(i int) (int, error) {
	start := i
	b := s.b
	for i < len(b) {
		c := b[i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			i++
			continue
		}
		break
	}
	tok := b[start:i]
	if canonicalSmallInt(tok) {
		return i, nil
	}
	if !jsonNumberGrammar(tok) {
		return 0, errNotCanonical
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, errNotCanonical
	}
	want, err := jcs.NumberToJSON(f)
	if err != nil || want != string(tok) {
		return 0, errNotCanonical
	}
	return i, nil
}

// canonicalSmallInt recognizes the integers below 10^15 in their only JCS
// spelling, the overwhelmingly common case (seq, versions, sizes), without
// converting through float64.
func canonicalSmallInt(tok []byte) bool {
	d := tok
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
		if len(d) == 1 && d[0] == '0' {
			return false // "-0" is written "0"
		}
	}
	if len(d) == 0 || len(d) > 15 {
		return false
	}
	if d[0] == '0' {
		return len(d) == 1
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// jsonNumberGrammar matches RFC 8259 §6:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumberGrammar(t []byte) bool {
	i := 0
	if i < len(t) && t[i] == '-' {
		i++
	}
	if i >= len(t) {
		return false
	}
	if t[i] == '0' {
		i++
	} else if t[i] >= '1' && t[i] <= '9' {
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(t) && t[i] == '.' {
		i++
		d := i
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		d := i
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(t)
}

// AppendJCSString appends s as a JSON string in RFC 8785 form. Invalid
// UTF-8 (only possible in a damaged row being exported) becomes U+FFFD, so
// the output is always JSON; event fields are checked to be valid at append.
func AppendJCSString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
