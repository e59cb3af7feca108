package jsapp

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// unquoteJS returns the value of a JavaScript string literal ('…' or "…") or
// of a substitution-free template literal (`…`), as written in source. It
// reports false for anything it cannot evaluate exactly (legacy octal escapes,
// malformed escapes), which callers treat as a dynamic value.
func unquoteJS(lit []byte) (string, bool) {
	if len(lit) < 2 {
		return "", false
	}
	q := lit[0]
	if (q != '"' && q != '\'' && q != '`') || lit[len(lit)-1] != q {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') < 0 && (q != '`' || bytes.IndexByte(body, '\r') < 0) {
		return string(body), true
	}
	var sb strings.Builder
	sb.Grow(len(body))
	pendingHigh := -1 // a \u high surrogate waiting for its low half
	flush := func() {
		if pendingHigh >= 0 {
			sb.WriteRune(utf8.RuneError)
			pendingHigh = -1
		}
	}
	for i := 0; i < len(body); {
		c := body[i]
		if c == '\r' && q == '`' { // templates normalize CR and CRLF to LF
			flush()
			sb.WriteByte('\n')
			i++
			if i < len(body) && body[i] == '\n' {
				i++
			}
			continue
		}
		if c != '\\' {
			flush()
			sb.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(body) {
			return "", false
		}
		c = body[i]
		i++
		if c == 'u' {
			cu, n, ok := unicodeEscape(body[i:])
			if !ok {
				return "", false
			}
			i += n
			switch {
			case cu >= 0xD800 && cu < 0xDC00:
				flush()
				pendingHigh = cu
			case cu >= 0xDC00 && cu < 0xE000 && pendingHigh >= 0:
				sb.WriteRune(rune((pendingHigh-0xD800)<<10 + (cu - 0xDC00) + 0x10000))
				pendingHigh = -1
			default:
				flush()
				sb.WriteRune(rune(cu))
			}
			continue
		}
		flush()
		switch c {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'v':
			sb.WriteByte('\v')
		case '0':
			if i < len(body) && body[i] >= '0' && body[i] <= '9' {
				return "", false
			}
			sb.WriteByte(0)
		case '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return "", false
		case 'x':
			if i+2 > len(body) {
				return "", false
			}
			h, ok1 := hexVal(body[i])
			l, ok2 := hexVal(body[i+1])
			if !ok1 || !ok2 {
				return "", false
			}
			sb.WriteRune(rune(h<<4 | l))
			i += 2
		case '\r': // line continuation
			if i < len(body) && body[i] == '\n' {
				i++
			}
		case '\n':
		case 0xE2: // \ before U+2028 or U+2029 is a line continuation
			if i+1 < len(body) && body[i] == 0x80 && (body[i+1] == 0xA8 || body[i+1] == 0xA9) {
				i += 2
			} else {
				sb.WriteByte(c)
			}
		default:
			sb.WriteByte(c)
		}
	}
	flush()
	return sb.String(), true
}

// unicodeEscape decodes the part after \u: XXXX or {X…}.
func unicodeEscape(b []byte) (int, int, bool) {
	if len(b) > 0 && b[0] == '{' {
		v := 0
		for i := 1; i < len(b); i++ {
			if b[i] == '}' {
				if i == 1 || v > 0x10FFFF {
					return 0, 0, false
				}
				return v, i + 1, true
			}
			h, ok := hexVal(b[i])
			if !ok || v > 0x10FFFF {
				return 0, 0, false
			}
			v = v<<4 | h
		}
		return 0, 0, false
	}
	if len(b) < 4 {
		return 0, 0, false
	}
	v := 0
	for i := 0; i < 4; i++ {
		h, ok := hexVal(b[i])
		if !ok {
			return 0, 0, false
		}
		v = v<<4 | h
	}
	return v, 4, true
}

func hexVal(c byte) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}
