package capture

import (
	"strings"
	"unicode/utf8"
)

// Screen is the small terminal that turns a raw transcript into the
// "rendered" rows of CONTRACTS.md §2.6: it applies CR, LF, BS, HT and the CSI
// sequences CUU, CUD, CUF, CUB, CUP, ED and EL to a rows×columns grid and
// drops every other control and escape sequence (with its payload, for OSC,
// DCS, SOS, PM and APC strings). Every printable rune takes one cell; there
// are no scroll regions, no alternate screen and no wide characters.
//
// Screen is fed untrusted bytes in chunks of any size; it never panics and
// its memory stays bounded by rows×columns plus a fixed-size parser state.
type Screen struct {
	rows, cols int
	lines      [][]rune // ring of rows; a row holds its written prefix only
	top        int      // index in lines of screen row 0
	r, c       int      // cursor
	wrap       bool     // a printable at the last column defers its wrap

	st      parseState
	params  [maxParams]int
	nparam  int
	private bool // CSI with a private marker or intermediates: dropped
	strESC  bool // an ESC seen inside a string sequence (a possible ST)
	pend    [utf8.UTFMax]byte
	npend   int
}

type parseState uint8

const (
	stGround   parseState = iota
	stEscape              // after ESC
	stEscInter            // ESC followed by intermediates, waiting for a final byte
	stCSI                 // after ESC [
	stString              // OSC, DCS, SOS, PM, APC payload until BEL or ST
)

const (
	maxParams   = 16
	maxParamVal = 65535
)

// NewScreen returns a blank screen; rows and columns are clamped to 1..1000.
func NewScreen(rows, columns int) *Screen {
	rows, columns = clamp(rows, 1, 1000), clamp(columns, 1, 1000)
	s := &Screen{rows: rows, cols: columns, lines: make([][]rune, rows)}
	return s
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Write feeds raw terminal output. It always consumes all of p.
func (s *Screen) Write(p []byte) (int, error) {
	n := len(p)
	if s.npend > 0 {
		// Finish the rune split across writes: decode from the pending
		// bytes followed by p's first bytes until the pending ones are used.
		var buf [2 * utf8.UTFMax]byte
		k := copy(buf[:], s.pend[:s.npend])
		b := buf[:k+copy(buf[k:], p)]
		off := 0
		for off < k {
			if !utf8.FullRune(b[off:]) {
				// Fewer than UTFMax bytes: all of p is in b.
				s.npend = copy(s.pend[:], b[off:])
				return n, nil
			}
			r, size := utf8.DecodeRune(b[off:])
			s.rune(r)
			off += size
		}
		s.npend = 0
		p = p[off-k:]
	}
	for len(p) > 0 {
		b := p[0]
		if b < utf8.RuneSelf {
			s.rune(rune(b))
			p = p[1:]
			continue
		}
		if !utf8.FullRune(p) {
			s.npend = copy(s.pend[:], p)
			return n, nil
		}
		r, size := utf8.DecodeRune(p)
		s.rune(r) // an invalid byte decodes as U+FFFD, size 1
		p = p[size:]
	}
	return n, nil
}

// Flush ends the input: an incomplete trailing rune is shown as U+FFFD.
func (s *Screen) Flush() {
	for s.npend > 0 {
		s.npend--
		s.rune(utf8.RuneError)
	}
}

// Lines returns the screen's rows, trailing spaces trimmed.
func (s *Screen) Lines() []string {
	out := make([]string, s.rows)
	for i := range out {
		out[i] = strings.TrimRight(string(s.line(i)), " ")
	}
	return out
}

func (s *Screen) line(i int) []rune { return s.lines[(s.top+i)%s.rows] }

func (s *Screen) setLine(i int, l []rune) { s.lines[(s.top+i)%s.rows] = l }

func (s *Screen) rune(r rune) {
	switch s.st {
	case stGround:
		s.ground(r)
	case stEscape:
		s.escape(r)
	case stEscInter:
		switch {
		case r == 0x1b:
			s.st = stEscape
		case r >= 0x20 && r <= 0x2f:
		case r < 0x20:
			s.control(r)
		default:
			s.st = stGround // the final byte: dropped with the sequence
		}
	case stCSI:
		s.csi(r)
	case stString:
		switch {
		case r == 0x07: // BEL ends an OSC
			s.st = stGround
		case r == 0x1b:
			s.strESC = true
			return
		case s.strESC && r == '\\': // ST
			s.st = stGround
		case r == 0x18 || r == 0x1a: // CAN, SUB abort
			s.st = stGround
		}
		s.strESC = false
	}
}

func (s *Screen) ground(r rune) {
	switch {
	case r == 0x1b:
		s.st = stEscape
	case r < 0x20 || r == 0x7f:
		s.control(r)
	case r >= 0x80 && r < 0xa0:
		// C1 controls are dropped.
	default:
		s.print(r)
	}
}

// control applies the C0 controls the contract names; the rest are dropped.
func (s *Screen) control(r rune) {
	switch r {
	case '\r':
		s.c, s.wrap = 0, false
	case '\n':
		s.lineFeed()
	case '\b':
		if s.wrap {
			s.wrap = false
		} else if s.c > 0 {
			s.c--
		}
	case '\t':
		s.wrap = false
		next := (s.c/8 + 1) * 8
		s.c = min(next, s.cols-1)
	case 0x18, 0x1a: // CAN and SUB cancel a sequence in progress
		s.st = stGround
	}
}

func (s *Screen) escape(r rune) {
	switch {
	case r == '[':
		s.st, s.nparam, s.private = stCSI, 0, false
		s.params = [maxParams]int{}
	case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
		s.st, s.strESC = stString, false
	case r == 0x1b:
		// ESC ESC: start over.
	case r >= 0x20 && r <= 0x2f:
		s.st = stEscInter
	case r < 0x20:
		s.control(r)
	default:
		s.st = stGround // a two-byte escape: dropped
	}
}

func (s *Screen) csi(r rune) {
	switch {
	case r == 0x1b:
		s.st = stEscape
	case r < 0x20:
		s.control(r) // C0 controls act inside a CSI
	case r >= '0' && r <= '9':
		if s.nparam == 0 {
			s.nparam = 1
		}
		if i := s.nparam - 1; i < maxParams {
			s.params[i] = min(s.params[i]*10+int(r-'0'), maxParamVal)
		}
	case r == ';':
		if s.nparam == 0 {
			s.nparam = 1
		}
		s.nparam++
	case r == ':' || (r >= '<' && r <= '?') || (r >= 0x20 && r <= 0x2f):
		s.private = true // sub-parameters, private markers, intermediates
	case r >= 0x40 && r <= 0x7e:
		s.st = stGround
		if !s.private {
			s.dispatch(r)
		}
	default:
		s.st = stGround // not a CSI byte: the sequence is abandoned
	}
}

// param is parameter i, with 0 or absence meaning def.
func (s *Screen) param(i, def int) int {
	if i >= s.nparam || i >= maxParams || s.params[i] == 0 {
		return def
	}
	return s.params[i]
}

func (s *Screen) dispatch(final rune) {
	switch final {
	case 'A': // CUU
		s.r, s.wrap = max(s.r-s.param(0, 1), 0), false
	case 'B': // CUD
		s.r, s.wrap = min(s.r+s.param(0, 1), s.rows-1), false
	case 'C': // CUF
		s.c, s.wrap = min(s.c+s.param(0, 1), s.cols-1), false
	case 'D': // CUB
		s.c, s.wrap = max(s.c-s.param(0, 1), 0), false
	case 'H': // CUP, 1-based
		s.r, s.c, s.wrap = min(s.param(0, 1), s.rows)-1, min(s.param(1, 1), s.cols)-1, false
	case 'J': // ED
		switch s.nparamOr0() {
		case 0:
			s.eraseLine(s.r, s.c, s.cols)
			for i := s.r + 1; i < s.rows; i++ {
				s.setLine(i, s.line(i)[:0])
			}
		case 1:
			for i := 0; i < s.r; i++ {
				s.setLine(i, s.line(i)[:0])
			}
			s.eraseLine(s.r, 0, s.c+1)
		case 2, 3:
			for i := 0; i < s.rows; i++ {
				s.setLine(i, s.line(i)[:0])
			}
		}
	case 'K': // EL
		switch s.nparamOr0() {
		case 0:
			s.eraseLine(s.r, s.c, s.cols)
		case 1:
			s.eraseLine(s.r, 0, s.c+1)
		case 2:
			s.setLine(s.r, s.line(s.r)[:0])
		}
	}
}

func (s *Screen) nparamOr0() int {
	if s.nparam == 0 {
		return 0
	}
	return s.params[0]
}

// eraseLine blanks columns [from, to) of row r.
func (s *Screen) eraseLine(r, from, to int) {
	l := s.line(r)
	if from >= len(l) {
		return
	}
	if to >= len(l) {
		s.setLine(r, l[:from])
		return
	}
	for i := from; i < to; i++ {
		l[i] = ' '
	}
}

func (s *Screen) print(r rune) {
	if s.wrap {
		s.wrap = false
		s.c = 0
		s.lineFeed()
	}
	l := s.line(s.r)
	if s.c >= len(l) {
		if cap(l) < s.c+1 {
			nl := make([]rune, len(l), min(max(s.c+1, 2*cap(l), 16), s.cols))
			copy(nl, l)
			l = nl
		}
		for len(l) < s.c {
			l = append(l, ' ')
		}
		l = append(l, r)
	} else {
		l[s.c] = r
	}
	s.setLine(s.r, l)
	if s.c == s.cols-1 {
		s.wrap = true
	} else {
		s.c++
	}
}

// lineFeed moves down a row, scrolling at the bottom (the column is kept).
func (s *Screen) lineFeed() {
	s.wrap = false
	if s.r < s.rows-1 {
		s.r++
		return
	}
	// The top row's storage becomes the new bottom row.
	s.lines[s.top] = s.lines[s.top][:0]
	s.top = (s.top + 1) % s.rows
}
