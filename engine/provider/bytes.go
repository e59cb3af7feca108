package provider

import (
	"errors"
	"fmt"

	"github.com/rea-re/rea/engine/fault"
)

// The arguments of read_bytes and search_bytes (CONTRACTS.md §21). Every
// provider that serves them reads them here, so a pattern or a length one
// provider accepts, every provider accepts.

const (
	// MaxReadBytes is the largest read_bytes length.
	MaxReadBytes = 4096
	// MaxPatternBytes is the longest search_bytes pattern, in bytes.
	MaxPatternBytes = 256
)

// ReadLength validates read_bytes' length: required, 1..MaxReadBytes.
func ReadLength(op string, in Params) (int, error) {
	if v, ok := in["length"]; !ok || v == nil {
		return 0, fault.Invalid(op, fault.Issue{Path: "/length", Reason: "missing_argument"})
	}
	n := in.Int("length", -1)
	if n < 1 || n > MaxReadBytes {
		return 0, fault.Invalid(op, fault.Issue{Path: "/length", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(MaxReadBytes)})
	}
	return int(n), nil
}

// BytePattern is a parsed search_bytes pattern: a byte at i matches when
// Literal[i] is false (a ?? wildcard) or it equals Bytes[i]. Wildcards hold
// 0 in Bytes.
type BytePattern struct {
	Bytes   []byte
	Literal []bool
}

// errPatternLength is a pattern of no byte or more than MaxPatternBytes.
var errPatternLength = errors.New("a pattern has 1 to 256 bytes")

// ParseBytePattern parses a pattern: two-hex-digit bytes (either case) or
// ?? wildcards, separated by one or more spaces, with at least one literal
// byte (a pattern of wildcards only would match every address and find
// nothing).
func ParseBytePattern(s string) (BytePattern, error) {
	var p BytePattern
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			i++
			continue
		}
		if len(p.Bytes) == MaxPatternBytes {
			return BytePattern{}, errPatternLength
		}
		if i+2 > len(s) || (i+2 < len(s) && s[i+2] != ' ') {
			end := i + 1
			for end < len(s) && s[end] != ' ' {
				end++
			}
			return BytePattern{}, fmt.Errorf("byte %d %q: want two hex digits or ??", len(p.Bytes)+1, s[i:end])
		}
		tok := s[i : i+2]
		i += 2
		if tok == "??" {
			p.Bytes, p.Literal = append(p.Bytes, 0), append(p.Literal, false)
			continue
		}
		hi, ok1 := unhex(tok[0])
		lo, ok2 := unhex(tok[1])
		if !ok1 || !ok2 {
			return BytePattern{}, fmt.Errorf("byte %d %q: want two hex digits or ??", len(p.Bytes)+1, tok)
		}
		p.Bytes, p.Literal = append(p.Bytes, hi<<4|lo), append(p.Literal, true)
	}
	if len(p.Bytes) == 0 {
		return BytePattern{}, errPatternLength
	}
	for _, l := range p.Literal {
		if l {
			return p, nil
		}
	}
	return BytePattern{}, errors.New("the pattern has no literal byte: it would match at every address")
}

// BytePatternParam reads search_bytes' pattern argument.
func BytePatternParam(op string, in Params) (BytePattern, error) {
	s, ok := in.String("pattern")
	if !ok {
		return BytePattern{}, fault.Invalid(op, fault.Issue{Path: "/pattern", Reason: "missing_argument"})
	}
	p, err := ParseBytePattern(s)
	switch {
	case errors.Is(err, errPatternLength):
		return BytePattern{}, fault.Invalid(op, fault.Issue{Path: "/pattern", Reason: "out_of_range",
			Message: err.Error(), Minimum: i64(1), Maximum: i64(MaxPatternBytes)})
	case err != nil:
		return BytePattern{}, fault.Invalid(op, fault.Issue{Path: "/pattern", Reason: "invalid_format",
			Message: err.Error(), Expected: "hex byte pairs separated by spaces, ?? for any byte (e.g. \"f3 0f 1e fa ?? 55\")"})
	}
	return p, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
