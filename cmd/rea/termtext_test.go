package main

import (
	"fmt"
	"strconv"
	"testing"
	"unicode/utf8"
)

func TestTermText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain name", "plain name"},
		{"é ü 日本 \u00a0 \ufffd", "é ü 日本 \u00a0 \ufffd"},
		{"\x1b[2J", `\x1b[2J`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"a\tb\nc\rd\x00e\x7f", `a\x09b\x0ac\x0dd\x00e\x7f`},
		{"csi \u009b31m", `csi \u009b31m`},
		{"nel \u0085 ok \u00a0", `nel \u0085 ok ` + "\u00a0"},
		{"raw \x9b byte", `raw \x9b byte`},
		{"bad \xff\xfe utf8 \xe6\x97", `bad \xff\xfe utf8 \xe6\x97`},
		{`C:\path\x1b`, `C:\\path\\x1b`},
	} {
		if got := termText(tc.in); got != tc.want {
			t.Errorf("termText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzTermText: whatever the bytes, the output is valid UTF-8 without a C0
// or C1 control or DEL, and reading the escapes back gives the input.
func FuzzTermText(f *testing.F) {
	for _, s := range []string{"", "main", "\x1b[2J\x1b]0;title\x07\u009b", "\\x1b", "\xff\xc2", "\u0085\u009f\u00a0", "a\\\\b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := termText(s)
		if !utf8.ValidString(out) {
			t.Fatalf("termText(%q) = %q: not UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 || r >= 0x7f && r <= 0x9f {
				t.Fatalf("termText(%q) = %q: control %U", s, out, r)
			}
		}
		back, err := untermText(out)
		if err != nil {
			t.Fatalf("termText(%q) = %q: %v", s, out, err)
		}
		if back != s {
			t.Fatalf("termText(%q) = %q reads back as %q", s, out, back)
		}
	})
}

// untermText reverses termText, refusing anything termText does not write.
func untermText(s string) (string, error) {
	var out []byte
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i += 2
		case i+4 <= len(s) && s[i+1] == 'x':
			v, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
			if err != nil || (v >= 0x20 && v < 0x7f) {
				return "", fmt.Errorf("bad \\x escape at %d", i)
			}
			out = append(out, byte(v))
			i += 4
		case i+6 <= len(s) && s[i+1] == 'u':
			v, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
			if err != nil || v < 0x80 || v > 0x9f {
				return "", fmt.Errorf("bad \\u escape at %d", i)
			}
			out = utf8.AppendRune(out, rune(v))
			i += 6
		default:
			return "", fmt.Errorf("lone backslash at %d", i)
		}
	}
	return string(out), nil
}

// BenchmarkTermText: the common case (nothing to escape) does not allocate.
func BenchmarkTermText(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"plain", "_ZN4llvm12DenseMapBaseINS_8DenseMapIPKNS_5ValueEjEES4_jE4findES4_"},
		{"hostile", "evil\x1b[2J\x1b]0;title\x07\u009b\xff"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				termText(bc.s)
			}
		})
	}
}
