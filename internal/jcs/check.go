package jcs

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// This file checks that bytes are already in RFC 8785 form without building
// a tree or writing a second copy.
//
// The ledger's verification must check JCS(parse(C)) == C for every event
// (CONTRACTS.md §13.4 check 4). Doing that literally parses C and writes it
// again, which costs several times the sha256 of the same bytes and would
// make `rea ledger verify` slower than a rebuild (BenchmarkIsCanonical). A
// document is canonical exactly when it is valid JSON and every token is
// already written the one way JCS writes it, so a single forward scan
// suffices:
//
//   - no insignificant whitespace;
//   - object members sorted by the UTF-16 code units of their names, with no
//     duplicates (strictly increasing);
//   - strings: valid UTF-8, raw except for `"` `\` and the C0 controls, which
//     use \" \\ \b \f \n \r \t or \u00xx with lowercase hex;
//   - numbers: the ECMAScript shortest form of their float64 value;
//   - literals true, false, null.
//
// The same scanner reads the ledger's envelope fields (Scanner), so check (4)
// and the field comparisons cost one pass. FuzzIsCanonical holds it to
// gowebpki/jcs: for every input, IsCanonical(b) == (gowebpki.Transform(b) == b).

var errNotCanonical = errors.New("jcs: not RFC 8785 canonical JSON")

// IsCanonical reports whether b is a JSON document in RFC 8785 form.
func IsCanonical(b []byte) bool {
	s := Scanner{b: b}
	end, err := s.Value(0)
	return err == nil && end == len(b)
}

// Canonicalize returns the RFC 8785 form of raw JSON: raw itself when it is
// already canonical (the common case for payloads that were produced by
// JCS), else a new slice from Transform.
func Canonicalize(raw []byte) ([]byte, error) {
	if IsCanonical(raw) {
		return raw, nil
	}
	return Transform(raw)
}

// A Scanner checks that a document is in RFC 8785 form while its caller
// reads members on the way, so that reading a few fields of a canonical
// record and checking it take one pass. Offsets index the document; every
// method fails when what it scans is not canonical.
type Scanner struct {
	b     []byte
	depth int
}

// NewScanner returns a Scanner of the document b.
func NewScanner(b []byte) *Scanner { return &Scanner{b: b} }

// Value checks the value that starts at offset i and returns the offset
// after it.
func (s *Scanner) Value(i int) (int, error) {
	if i >= len(s.b) {
		return 0, errNotCanonical
	}
	switch c := s.b[i]; {
	case c == '{':
		return s.Object(i, nil)
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
		end, form, fault := number(s.b, i)
		if fault != "" || !bytes.Equal(form, s.b[i:end]) {
			return 0, errNotCanonical
		}
		return end, nil
	}
	return 0, errNotCanonical
}

// String checks the string that starts at offset i and returns the offset
// after it and its decoded value.
func (s *Scanner) String(i int) (end int, value string, err error) {
	if i >= len(s.b) || s.b[i] != '"' {
		return 0, "", errNotCanonical
	}
	end, plain, err := s.str(i)
	if err != nil {
		return 0, "", err
	}
	if plain {
		return end, string(s.b[i+1 : end-1]), nil
	}
	return end, string(unquoteChecked(s.b[i:end])), nil
}

// Object checks the object that starts at offset i and returns the offset
// after it. For each member it calls fn with the member's name as written
// (quotes included) and the offset of its value, which is inside the
// document; fn checks the value itself
// (with Value, String or Object) and returns the offset after it. A nil fn
// checks every value with Value.
func (s *Scanner) Object(i int, fn func(name []byte, value int) (end int, err error)) (int, error) {
	if i >= len(s.b) || s.b[i] != '{' {
		return 0, errNotCanonical
	}
	i, empty, err := s.open(i, '}')
	if err != nil || empty {
		return i, err
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
		if i+1 >= len(s.b) || s.b[i] != ':' {
			return 0, errNotCanonical
		}
		if fn != nil {
			i, err = fn(key, i+1)
		} else {
			i, err = s.Value(i + 1)
		}
		if err != nil {
			return 0, err
		}
		var closed bool
		if i, closed, err = s.next(i, '}'); err != nil || closed {
			return i, err
		}
	}
}

func (s *Scanner) array(i int) (int, error) {
	i, empty, err := s.open(i, ']')
	if err != nil || empty {
		return i, err
	}
	for {
		end, err := s.Value(i)
		if err != nil {
			return 0, err
		}
		var closed bool
		if i, closed, err = s.next(end, ']'); err != nil || closed {
			return i, err
		}
	}
}

// open enters the container whose opening bracket is at b[i]. It returns
// the offset after the bracket, or after the closing one when the container
// is empty.
func (s *Scanner) open(i int, closing byte) (end int, empty bool, err error) {
	if s.depth++; s.depth > maxDepth {
		return 0, false, errNotCanonical
	}
	i++
	if i < len(s.b) && s.b[i] == closing {
		s.depth--
		return i + 1, true, nil
	}
	return i, false, nil
}

// next reads what follows a member or an element at b[i]: a comma, or the
// closing bracket that ends the container. It returns the offset after it.
func (s *Scanner) next(i int, closing byte) (end int, closed bool, err error) {
	if i >= len(s.b) {
		return 0, false, errNotCanonical
	}
	switch s.b[i] {
	case ',':
		return i + 1, false, nil
	case closing:
		s.depth--
		return i + 1, true, nil
	}
	return 0, false, errNotCanonical
}

func (s *Scanner) literal(i int, lit string) (int, error) {
	if len(s.b)-i < len(lit) || string(s.b[i:i+len(lit)]) != lit {
		return 0, errNotCanonical
	}
	return i + len(lit), nil
}

// str scans a string starting at the opening quote and returns the index
// after the closing quote. plain is false when the raw bytes may order
// differently from the UTF-16 code units of the decoded string: an escape, or
// a supplementary-plane character (4-byte UTF-8, a surrogate pair in UTF-16).
func (s *Scanner) str(i int) (end int, plain bool, err error) {
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
			n := canonicalEscape(b[i:])
			if n == 0 {
				return 0, false, errNotCanonical
			}
			i += n
		case c < 0x20:
			return 0, false, errNotCanonical
		case c < 0x80:
			i++
		default:
			if c >= 0xF0 {
				plain = false
			}
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return 0, false, errNotCanonical
			}
			i += n
		}
	}
	return 0, false, errNotCanonical
}

// canonicalEscape returns the length of the escape at the start of e when it
// is one AppendString writes, else 0. JCS writes \u only for the C0
// controls without a short form, as \u00 and two lowercase hex digits.
func canonicalEscape(e []byte) int {
	if len(e) < 2 {
		return 0
	}
	switch e[1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(e) < 6 || e[2] != '0' || e[3] != '0' {
			return 0
		}
		hi, lo := e[4], e[5]
		var v byte
		switch {
		case lo >= '0' && lo <= '9':
			v = lo - '0'
		case lo >= 'a' && lo <= 'f':
			v = lo - 'a' + 10
		default:
			return 0
		}
		switch {
		case hi == '1':
			return 6
		case hi != '0':
			return 0
		}
		switch v {
		case '\b', '\t', '\n', '\f', '\r':
			return 0 // written with its short form
		}
		return 6
	}
	return 0
}

// keyLess reports a < b for two raw quoted member names in JCS order (UTF-16
// code units of the decoded names).
func keyLess(a []byte, aPlain bool, b []byte, bPlain bool) bool {
	if aPlain && bPlain {
		return bytes.Compare(a[1:len(a)-1], b[1:len(b)-1]) < 0
	}
	return compareUTF16(unquoteChecked(a), unquoteChecked(b)) < 0
}

// unquoteChecked decodes a quoted string that str has already accepted.
func unquoteChecked(q []byte) []byte {
	if bytes.IndexByte(q, '\\') < 0 {
		return q[1 : len(q)-1]
	}
	_, out, _ := unquote(q, 0, make([]byte, 0, len(q)))
	return out
}
