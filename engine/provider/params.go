package provider

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/canon"
)

// Params are an operation's validated input after schema defaults, with every
// declared key present (absent optional keys are nil). Values are JSON-shaped:
// string, int64, bool, nil, []any, map[string]any. Addresses are already in the
// canonical output form "0x…" (CONTRACTS.md §1.3).
type Params map[string]any

// String returns the string at key and whether it was present and non-nil.
func (p Params) String(key string) (string, bool) {
	s, ok := p[key].(string)
	return s, ok
}

// Int returns the integer at key, or def when absent or nil.
func (p Params) Int(key string, def int64) int64 {
	switch v := p[key].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	}
	return def
}

// Bool returns the boolean at key, or def when absent or nil.
func (p Params) Bool(key string, def bool) bool {
	if b, ok := p[key].(bool); ok {
		return b
	}
	return def
}

// Address returns the address at key and whether it was present.
func (p Params) Address(key string) (uint64, bool, error) {
	s, ok := p[key].(string)
	if !ok {
		return 0, false, nil
	}
	a, err := ParseAddress(s)
	return a, true, err
}

// ParseAddress accepts an optional 0x/0X prefix and 1..16 hex digits.
func ParseAddress(s string) (uint64, error) {
	h := s
	if strings.HasPrefix(h, "0x") || strings.HasPrefix(h, "0X") {
		h = h[2:]
	}
	if len(h) < 1 || len(h) > 16 {
		return 0, fmt.Errorf("address %q: want 1..16 hex digits", s)
	}
	v, err := strconv.ParseUint(h, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("address %q: not hexadecimal", s)
	}
	return v, nil
}

// FormatAddress renders an address in the canonical output form.
func FormatAddress(a uint64) string { return "0x" + strconv.FormatUint(a, 16) }

// Page is the one offset-paged shape of CONTRACTS.md §1.4.
type Page[T any] struct {
	Items      []T  `json:"items"`
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	Returned   int  `json:"returned"`
	Total      *int `json:"total"`
	NextOffset *int `json:"next_offset"`
	Truncated  bool `json:"truncated"`
}

// AppendCanonical writes the page in RFC 8785 form without a reflection
// pass and a re-canonicalization: a page is the bulk of most Evidence
// records. It does so only for items that are canon.Appenders; for others
// it reports false and canon.Marshal encodes the whole page as usual.
func (p Page[T]) AppendCanonical(b []byte) ([]byte, bool) {
	if _, ok := any(*new(T)).(canon.Appender); !ok {
		return b, false
	}
	b = append(b, `{"items":[`...)
	for i := range p.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = any(p.Items[i]).(canon.Appender).AppendCanonical(b)
	}
	b = append(b, `],"limit":`...)
	b = canon.AppendInt(b, int64(p.Limit))
	b = append(b, `,"next_offset":`...)
	b = appendIntOrNull(b, p.NextOffset)
	b = append(b, `,"offset":`...)
	b = canon.AppendInt(b, int64(p.Offset))
	b = append(b, `,"returned":`...)
	b = canon.AppendInt(b, int64(p.Returned))
	b = append(b, `,"total":`...)
	b = appendIntOrNull(b, p.Total)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, p.Truncated)
	return append(b, '}'), true
}

func appendIntOrNull(b []byte, n *int) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return canon.AppendInt(b, int64(*n))
}

// PageOf slices a complete, ordered collection. The total is exact.
func PageOf[T any](all []T, offset, limit int) Page[T] {
	total := len(all)
	start := min(max(offset, 0), total)
	end := min(start+limit, total)
	items := all[start:end:end]
	if items == nil {
		items = []T{}
	}
	p := Page[T]{Items: items, Offset: offset, Limit: limit, Returned: len(items), Total: &total}
	if end < total {
		next := end
		p.NextOffset = &next
		p.Truncated = true
	}
	return p
}
