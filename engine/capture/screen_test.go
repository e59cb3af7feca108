package capture

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func render(rows, cols int, in string) []string {
	s := NewScreen(rows, cols)
	_, _ = s.Write([]byte(in))
	s.Flush()
	return s.Lines()
}

func TestScreen(t *testing.T) {
	cases := []struct {
		name       string
		rows, cols int
		in         string
		want       []string
	}{
		{"plain", 3, 10, "hello", []string{"hello", "", ""}},
		{"crlf", 3, 10, "a\r\nb\r\nc", []string{"a", "b", "c"}},
		{"lf keeps column", 3, 10, "ab\ncd", []string{"ab", "  cd", ""}},
		{"cr overwrites", 2, 10, "hello\rj", []string{"jello", ""}},
		{"backspace", 2, 10, "abc\b\bX", []string{"aXc", ""}},
		{"backspace at column 0", 2, 10, "\bX", []string{"X", ""}},
		{"tab", 2, 20, "a\tb\tc", []string{"a       b       c", ""}},
		{"tab clamps at the last column", 1, 10, "a\t\t\tb", []string{"a        b"}},
		{"scroll", 2, 10, "1\r\n2\r\n3\r\n4", []string{"3", "4"}},
		{"autowrap", 3, 4, "abcdefg", []string{"abcd", "efg", ""}},
		{"deferred wrap then cr", 2, 4, "abcd\rX", []string{"Xbcd", ""}},
		{"deferred wrap then crlf", 3, 4, "abcd\r\nX", []string{"abcd", "X", ""}},
		{"wrap at the bottom scrolls", 2, 3, "abcdefgh", []string{"def", "gh"}},
		{"cup", 3, 10, "\x1b[2;3HX", []string{"", "  X", ""}},
		{"cup default", 3, 10, "abc\x1b[HX", []string{"Xbc", "", ""}},
		{"cup clamps", 2, 3, "\x1b[99;99HX", []string{"", "  X"}},
		{"cuu cud cuf cub", 3, 10, "\x1b[3;5HA\x1b[2AB\x1b[CC\x1b[4DD\x1b[BE", []string{"    DB C", "     E", "    A"}},
		{"cursor zero param means one", 2, 10, "ab\x1b[0DX", []string{"aX", ""}},
		{"el to end", 1, 10, "abcdef\x1b[3D\x1b[K", []string{"abc"}},
		{"el to start", 1, 10, "abcdef\x1b[3D\x1b[1K", []string{"    ef"}},
		{"el whole", 1, 10, "abcdef\x1b[2KX", []string{"      X"}},
		{"ed to end", 3, 10, "aa\r\nbbbb\r\ncc\x1b[2;3H\x1b[J", []string{"aa", "bb", ""}},
		{"ed to start", 3, 10, "aa\r\nbbbb\r\ncc\x1b[2;3H\x1b[1J", []string{"", "   b", "cc"}},
		{"ed all keeps cursor", 3, 10, "aa\r\nbb\x1b[2JX", []string{"", "  X", ""}},
		{"ed 3", 2, 10, "aa\x1b[3J", []string{"", ""}},
		{"sgr dropped", 1, 20, "\x1b[1;31mred\x1b[0m", []string{"red"}},
		{"private csi dropped", 1, 20, "\x1b[?25lA\x1b[?1049hB\x1b[?2J", []string{"AB"}},
		{"osc bel dropped", 1, 20, "\x1b]0;title\x07A", []string{"A"}},
		{"osc st dropped", 1, 20, "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", []string{"link"}},
		{"dcs dropped", 1, 20, "\x1bPq#0;2;0;0;0\x1b\\A", []string{"A"}},
		{"two-byte escapes dropped", 1, 20, "\x1b7A\x1b8\x1b=B\x1b(BC", []string{"ABC"}},
		{"other c0 dropped", 1, 20, "A\x07\x00\x0e\x0fB\x7f", []string{"AB"}},
		{"hvp dropped", 2, 20, "\x1b[2;2fA", []string{"A", ""}},
		{"control inside csi", 2, 20, "ab\x1b[\r1CX", []string{"aX", ""}},
		{"can aborts csi", 1, 20, "\x1b[2\x18JA", []string{"JA"}},
		{"utf8", 1, 10, "héllo→", []string{"héllo→"}},
		{"invalid utf8", 1, 10, "a\xffb", []string{"a\uFFFDb"}},
		{"incomplete at end", 1, 10, "a\xe2\x82", []string{"a\uFFFD\uFFFD"}},
		{"c1 dropped", 1, 10, "a\u009bb", []string{"ab"}},
		{"trailing spaces trimmed", 1, 10, "ab   ", []string{"ab"}},
		{"erased middle keeps spaces", 1, 10, "abcde\x1b[3D\x1b[1K", []string{"   de"}},
		{"huge params clamp", 2, 5, "\x1b[99999999999999B\x1b[99999999999CX", []string{"", "    X"}},
		{"subparams dropped", 1, 10, "\x1b[38:2:1:2:3mA", []string{"A"}},
		{"long csi dropped", 1, 10, "\x1b[" + strings.Repeat("1;", 200) + "HA", []string{"A"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := render(c.rows, c.cols, c.in)
			if !slices.Equal(got, c.want) {
				t.Fatalf("render(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			// Byte by byte gives the same screen.
			s := NewScreen(c.rows, c.cols)
			for i := 0; i < len(c.in); i++ {
				_, _ = s.Write([]byte{c.in[i]})
			}
			s.Flush()
			if got := s.Lines(); !slices.Equal(got, c.want) {
				t.Fatalf("byte-wise render(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func checkScreen(t *testing.T, rows, cols int, data []byte, split int) {
	whole := NewScreen(rows, cols)
	_, _ = whole.Write(data)
	whole.Flush()
	lines := whole.Lines()
	rows, cols = clamp(rows, 1, 1000), clamp(cols, 1, 1000)
	if len(lines) != rows {
		t.Fatalf("%d lines, want %d", len(lines), rows)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > cols {
			t.Fatalf("line of %d runes on a %d-column screen", n, cols)
		}
		if strings.HasSuffix(l, " ") {
			t.Fatalf("trailing space in %q", l)
		}
		for _, r := range l {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("control %U on the screen in %q", r, l)
			}
		}
	}
	if split < 0 || split > len(data) {
		return
	}
	parts := NewScreen(rows, cols)
	_, _ = parts.Write(data[:split])
	_, _ = parts.Write(data[split:])
	parts.Flush()
	if got := parts.Lines(); !slices.Equal(got, lines) {
		t.Fatalf("split at %d: %q, whole: %q", split, got, lines)
	}
}

func FuzzScreen(f *testing.F) {
	f.Add(uint16(24), uint16(80), []byte("hello\r\nworld\x1b[2;3HX\x1b[K"), uint16(3))
	f.Add(uint16(2), uint16(3), []byte("abcdefgh\x1b[1J\x1b[A\t\b"), uint16(0))
	f.Add(uint16(5), uint16(5), []byte("\x1b]0;t\x07\x1bPq\x1b\\\xe2\x82\xac\xff"), uint16(12))
	f.Fuzz(func(t *testing.T, rows, cols uint16, data []byte, split uint16) {
		if len(data) > 1<<16 {
			return
		}
		checkScreen(t, int(rows%40), int(cols%120), data, int(split))
	})
}
