package jcs

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	gowebpki "github.com/gowebpki/jcs"
)

// Transform canonicalizes JSON text per RFC 8785 in a single pass.
//
// It accepts exactly what gowebpki/jcs accepts (FuzzTransform compares the
// two byte for byte) but writes the output while it parses instead of
// building a tree of strings: Evidence pages of 10 KB are canonicalized
// several times per tool call, and the tree was most of a page's cost.
// Input is rejected when it is not I-JSON: invalid UTF-8, lone surrogates,
// duplicate member names, numbers outside float64, nesting beyond 10,000.
func Transform(in []byte) ([]byte, error) {
	t := transformer{in: in, out: make([]byte, 0, len(in)), keys: make([]byte, 0, 256)}
	t.skipSpace()
	if err := t.value(0); err != nil {
		return nil, err
	}
	t.skipSpace()
	if t.pos != len(t.in) {
		return nil, t.errorf("trailing data")
	}
	return t.out, nil
}

// maxDepth matches encoding/json's and gowebpki/jcs's nesting limit.
const maxDepth = 10000

type transformer struct {
	in  []byte
	pos int
	out []byte
	// scratch holds member spans while an object's members are reordered;
	// it is a stack shared by nested objects.
	members []member
	keys    []byte
	// reorder holds an object's body while its members are written back in
	// order; objects are reordered only after their children are done, so
	// one buffer serves every level.
	reorder []byte
}

// member is one "name":value written to out[start:end]; its decoded name is
// keys[keyStart:keyEnd].
type member struct {
	start, end       int
	keyStart, keyEnd int
}

var errSyntax = errors.New("jcs: invalid JSON")

func (t *transformer) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", errSyntax, t.pos, fmt.Sprintf(format, args...))
}

func (t *transformer) skipSpace() {
	for t.pos < len(t.in) {
		switch t.in[t.pos] {
		case ' ', '\t', '\n', '\r':
			t.pos++
		default:
			return
		}
	}
}

func (t *transformer) value(depth int) error {
	if t.pos >= len(t.in) {
		return t.errorf("unexpected end")
	}
	switch c := t.in[t.pos]; {
	case c == '{':
		if depth >= maxDepth {
			return t.errorf("nesting deeper than %d", maxDepth)
		}
		return t.object(depth + 1)
	case c == '[':
		if depth >= maxDepth {
			return t.errorf("nesting deeper than %d", maxDepth)
		}
		return t.array(depth + 1)
	case c == '"':
		_, err := t.str(nil)
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return t.number()
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if bytes.HasPrefix(t.in[t.pos:], []byte(lit)) {
				t.pos += len(lit)
				t.out = append(t.out, lit...)
				return nil
			}
		}
		return t.errorf("unexpected character %q", c)
	}
}

// open copies the opening bracket at t.pos and reports whether the
// container is empty, in which case it copies the closing bracket too.
func (t *transformer) open(closing byte) (empty bool) {
	t.out = append(t.out, t.in[t.pos])
	t.pos++
	t.skipSpace()
	if t.pos < len(t.in) && t.in[t.pos] == closing {
		t.pos++
		t.out = append(t.out, closing)
		return true
	}
	return false
}

func (t *transformer) array(depth int) error {
	if t.open(']') {
		return nil
	}
	for {
		t.skipSpace()
		if err := t.value(depth); err != nil {
			return err
		}
		t.skipSpace()
		if t.pos >= len(t.in) {
			return t.errorf("unterminated array")
		}
		switch t.in[t.pos] {
		case ',':
			t.pos++
			t.out = append(t.out, ',')
		case ']':
			t.pos++
			t.out = append(t.out, ']')
			return nil
		default:
			return t.errorf("expected , or ] in array")
		}
	}
}

func (t *transformer) object(depth int) error {
	if t.open('}') {
		return nil
	}
	base, keyBase := len(t.members), len(t.keys)
	defer func() { t.members, t.keys = t.members[:base], t.keys[:keyBase] }()
	bodyStart := len(t.out)
	for {
		t.skipSpace()
		if t.pos >= len(t.in) || t.in[t.pos] != '"' {
			return t.errorf("expected member name")
		}
		m := member{start: len(t.out), keyStart: len(t.keys)}
		var err error
		if t.keys, err = t.str(t.keys); err != nil {
			return err
		}
		m.keyEnd = len(t.keys)
		t.skipSpace()
		if t.pos >= len(t.in) || t.in[t.pos] != ':' {
			return t.errorf("expected : after member name")
		}
		t.pos++
		t.out = append(t.out, ':')
		t.skipSpace()
		if err := t.value(depth); err != nil {
			return err
		}
		m.end = len(t.out)
		t.members = append(t.members, m)
		t.skipSpace()
		if t.pos >= len(t.in) {
			return t.errorf("unterminated object")
		}
		if t.in[t.pos] == '}' {
			t.pos++
			break
		}
		if t.in[t.pos] != ',' {
			return t.errorf("expected , or } in object")
		}
		t.pos++
		t.out = append(t.out, ',')
	}
	ms := t.members[base:]
	sorted := true
	for i := 1; i < len(ms); i++ {
		switch c := compareUTF16(t.key(ms[i-1]), t.key(ms[i])); {
		case c == 0:
			return t.errorf("duplicate member name %q", t.key(ms[i]))
		case c > 0:
			sorted = false
		}
	}
	if !sorted {
		slices.SortFunc(ms, func(a, b member) int { return compareUTF16(t.key(a), t.key(b)) })
		for i := 1; i < len(ms); i++ {
			if compareUTF16(t.key(ms[i-1]), t.key(ms[i])) == 0 {
				return t.errorf("duplicate member name %q", t.key(ms[i]))
			}
		}
		t.reorder = append(t.reorder[:0], t.out[bodyStart:]...)
		body := t.reorder
		t.out = t.out[:bodyStart]
		for i, m := range ms {
			if i > 0 {
				t.out = append(t.out, ',')
			}
			t.out = append(t.out, body[m.start-bodyStart:m.end-bodyStart]...)
		}
	}
	t.out = append(t.out, '}')
	return nil
}

func (t *transformer) key(m member) []byte { return t.keys[m.keyStart:m.keyEnd] }

// compareUTF16 orders member names by their UTF-16 code units (RFC 8785
// §3.2.3). UTF-8 byte order is code point order, which differs from UTF-16
// order only when a name holds a character above U+FFFF.
func compareUTF16(a, b []byte) int {
	if !hasSupplementary(a) && !hasSupplementary(b) {
		return bytes.Compare(a, b)
	}
	ua, ub := utf16.Encode([]rune(string(a))), utf16.Encode([]rune(string(b)))
	return slices.Compare(ua, ub)
}

func hasSupplementary(b []byte) bool {
	for _, c := range b {
		if c >= 0xF0 {
			return true
		}
	}
	return false
}

// str reads a string literal, writes its canonical form to out and, when
// decoded is non-nil, appends its decoded UTF-8 to decoded.
func (t *transformer) str(decoded []byte) ([]byte, error) {
	t.pos++ // opening quote
	start := t.pos
	// Fast path: no escapes and nothing that needs one.
	for t.pos < len(t.in) {
		c := t.in[t.pos]
		if c == '"' {
			raw := t.in[start:t.pos]
			if !utf8.Valid(raw) {
				return decoded, t.errorf("invalid UTF-8 in string")
			}
			t.pos++
			t.out = append(t.out, '"')
			t.out = append(t.out, raw...)
			t.out = append(t.out, '"')
			if decoded != nil {
				decoded = append(decoded, raw...)
			}
			return decoded, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		t.pos++
	}
	end, buf, msg := unquote(t.in, start-1, nil)
	if msg != "" {
		t.pos = end
		return decoded, t.errorf("%s", msg)
	}
	t.pos = end
	t.out = AppendString(t.out, buf)
	if decoded != nil {
		decoded = append(decoded, buf...)
	}
	return decoded, nil
}

// unquote decodes the string literal whose opening quote is b[i] and
// appends its UTF-8 to dst. It accepts what I-JSON does (valid UTF-8, no
// control characters, no lone surrogates) and returns the index after the
// closing quote, or a reason and the offset of the fault. Transform's slow
// path and the checker's reading of names and values (Scanner.String)
// share it.
func unquote(b []byte, i int, dst []byte) (end int, out []byte, fault string) {
	i++ // opening quote
	start := len(dst)
	for {
		if i >= len(b) {
			return i, dst, "unterminated string"
		}
		c := b[i]
		switch {
		case c == '"':
			if !utf8.Valid(dst[start:]) {
				return i, dst, "invalid UTF-8 in string"
			}
			return i + 1, dst, ""
		case c < 0x20:
			return i, dst, "control character in string"
		case c != '\\':
			dst = append(dst, c)
			i++
			continue
		}
		if i+1 >= len(b) {
			return i, dst, "unterminated escape"
		}
		e := b[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(b, i)
			if !ok {
				return i, dst, "invalid \\u escape"
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
					return i, dst, "lone surrogate"
				}
				lo, ok := hex4(b, i+2)
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return i + 2, dst, "invalid surrogate pair"
				}
				i += 6
				r = utf16.DecodeRune(r, lo)
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return i, dst, fmt.Sprintf("invalid escape \\%c", e)
		}
	}
}

// hex4 reads the four hex digits of a \\u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}

// AppendString appends s (valid UTF-8) as a JSON string the way ECMAScript's
// JSON.stringify does (RFC 8785 §3.2.2.2): only '"', '\\' and control
// characters are escaped, with the short forms where they exist and
// lowercase \u00xx otherwise.
func AppendString[S ~string | ~[]byte](out []byte, s S) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0 // s[start:i] needs no escaping and is copied in one piece
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		start = i + 1
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}

// AppendText is AppendString for text that may not be valid UTF-8: each
// invalid byte becomes U+FFFD, as encoding/json (and so Marshal) does.
func AppendText(out []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.Map(func(r rune) rune { return r }, s) // ranging over s yields U+FFFD per invalid byte
	}
	return AppendString(out, s)
}

// AppendInt appends n as RFC 8785 writes it: the ECMAScript form of the
// nearest double, which is n itself up to 2^53 in magnitude.
func AppendInt(out []byte, n int64) []byte {
	if n >= -(1<<53) && n <= 1<<53 {
		return strconv.AppendInt(out, n, 10)
	}
	// Through number's ES6 path; a decimal integer is a valid literal, so
	// the fault branch is unreachable.
	lit := strconv.AppendInt(nil, n, 10)
	if _, form, fault := number(lit, 0); fault == "" {
		return append(out, form...)
	}
	return append(out, lit...)
}

// number writes the RFC 8785 form of the number at t.pos.
func (t *transformer) number() error {
	end, form, fault := number(t.in, t.pos)
	if fault != "" {
		t.pos = end
		return t.errorf("%s", fault)
	}
	t.pos = end
	t.out = append(t.out, form...)
	return nil
}

// number reads the JSON number at b[i:] (RFC 8259 §6) and returns the index
// after it and its RFC 8785 form: the ECMAScript spelling of its float64.
// Integers of up to 15 digits are already in that form (apart from -0) and
// are returned as a slice of b without a conversion; everything else goes
// through float64 and gowebpki/jcs's ES6 formatter. Transform writes the
// form, and the checker compares it with the literal.
func number(b []byte, i int) (end int, form []byte, fault string) {
	start := i
	if b[i] == '-' {
		i++
	}
	intStart := i
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, nil, "invalid number"
	}
	integer := true
	if i < len(b) && b[i] == '.' {
		integer = false
		if end := digits(b, i+1); end > i+1 {
			i = end
		} else {
			return i + 1, nil, "invalid number"
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if end := digits(b, i); end > i {
			i = end
		} else {
			return i, nil, "invalid number"
		}
	}
	lit := b[start:i]
	if integer && i-intStart <= 15 {
		if string(lit) == "-0" {
			lit = lit[1:]
		}
		return i, lit, ""
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return i, nil, fmt.Sprintf("number %s out of range", lit)
	}
	es, err := gowebpki.NumberToJSON(f)
	if err != nil {
		return i, nil, fmt.Sprintf("number %s: %v", lit, err)
	}
	return i, []byte(es), ""
}

// digits returns the index after the run of decimal digits at b[i:].
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
