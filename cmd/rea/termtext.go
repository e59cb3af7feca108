package main

import (
	"strings"
	"unicode/utf8"
)

// termText returns s as a single-line field a terminal shows verbatim
// (CONTRACTS.md §0.3 "Terminal output"): every human rendering of text that
// came from a sample — names, strings, paths, section contents, error
// details — goes through it, so a sample cannot set the window title, clear
// the screen or forge report lines. --json output does not: it is JSON.
//
// Escapes, each unambiguous so the original bytes can be read back:
//   - C0 controls (tab, newline and carriage return included: a value is
//     one field on one line) and DEL as \xNN;
//   - C1 controls (U+0080–U+009F, valid UTF-8) as \u00NN;
//   - bytes that are not valid UTF-8 as \xNN (0x80–0xff, which no C0
//     escape produces);
//   - the backslash itself as \\.
//
// Everything else, other Unicode included, is printed as it is.
func termText(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '\\' {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f {
			break
		}
		i += size
	}
	if i == len(s) {
		return s // the common case: nothing to escape, no allocation
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\\':
				b.WriteString(`\\`)
			case c < 0x20 || c == 0x7f:
				b.WriteString(`\x`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		case r >= 0x80 && r <= 0x9f:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&0xf])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

// termList is termText of each element joined by sep.
func termList(xs []string, sep string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = termText(x)
	}
	return strings.Join(out, sep)
}
