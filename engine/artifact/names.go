package artifact

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Entry names are bytes; logical paths are the text REA reports and names
// occurrences by (CONTRACTS.md §0, §10.2). A segment that is valid UTF-8 is
// kept; in one that is not, every invalid byte is written %XX (uppercase hex)
// and a literal '%' %25, so no two raw segments that are not both valid
// UTF-8 share a logical form and no raw byte is lost to U+FFFD when the path
// is encoded as JSON. A valid segment that happens to read like an escape
// ("%FF1.txt" beside "\xff1.txt") shares its logical path with the escaped
// one; that is a collision, decided on logical paths (finishListing).

// logicalSegment renders one raw name segment.
func logicalSegment(raw string) string {
	if utf8.ValidString(raw) {
		return raw
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(raw) + 8)
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRuneInString(raw[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteByte('%')
			b.WriteByte(hex[raw[i]>>4])
			b.WriteByte(hex[raw[i]&0xF])
		case r == '%':
			b.WriteString("%25")
		default:
			b.WriteString(raw[i : i+n])
		}
		i += n
	}
	return b.String()
}

// logicalOf renders a "/"-joined raw path segment by segment ('/' is ASCII,
// so splitting never cuts a multi-byte sequence that was valid).
func logicalOf(raw string) string {
	if utf8.ValidString(raw) {
		return raw
	}
	segs := strings.Split(raw, "/")
	for i, s := range segs {
		segs[i] = logicalSegment(s)
	}
	return strings.Join(segs, "/")
}

// rawJSONString decodes one JSON string literal (quotes included) keeping
// bytes that are not valid UTF-8 as they are, where encoding/json would turn
// each into U+FFFD. Escapes decode as JSON defines them; a lone surrogate
// escape, which has no UTF-8 form, becomes U+FFFD as in encoding/json. ok is
// false when lit is not a well-formed string literal.
func rawJSONString(lit []byte) (s string, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	lit = lit[1 : len(lit)-1]
	b := make([]byte, 0, len(lit))
	hex4 := func(p []byte) (rune, bool) {
		if len(p) < 4 {
			return 0, false
		}
		v, err := strconv.ParseUint(string(p[:4]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c != '\\' {
			if c == '"' || c < 0x20 {
				return "", false
			}
			b = append(b, c)
			continue
		}
		if i+1 >= len(lit) {
			return "", false
		}
		i++
		switch lit[i] {
		case '"', '\\', '/':
			b = append(b, lit[i])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(lit[i+1:])
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if i+2 < len(lit) && lit[i+1] == '\\' && lit[i+2] == 'u' {
					r2, ok2 = hex4(lit[i+3:])
				}
				if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return string(b), true
}
