package provider

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/internal/jcs"
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

// ResultBudget is the byte budget of an answer's result: 64 KiB of compact
// JSON (CONTRACTS.md §0, §1.4). A page whose items would exceed it is cut
// short when it is encoded; an operation that cannot page fails truncated
// instead (never a prefix labelled complete).
const ResultBudget = 64 << 10

// pageEnvelope bounds a page's bytes other than its items: the seven keys,
// five integers of at most 16 digits each, a boolean and the brackets
// (about 180 bytes at most).
const pageEnvelope = 192

// Page is the one offset-paged shape of CONTRACTS.md §1.4.
//
// Every page also has a byte budget, applied where it is encoded (JSON or
// canonical JSON) so that it holds for every item type and for pages inside
// other results: the items that fit in ResultBudget are written, at least
// one, and a page cut short says truncated with next_offset just after its
// last item. The Go value keeps every item; what a client receives, and what
// Evidence records, is the encoded page.
type Page[T any] struct {
	Items      []T  `json:"items"`
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	Returned   int  `json:"returned"`
	Total      *int `json:"total"`
	NextOffset *int `json:"next_offset"`
	Truncated  bool `json:"truncated"`
}

// cut is the page holding its first n items only, resumable after them.
func (p Page[T]) cut(n int) Page[T] {
	if n >= len(p.Items) {
		return p
	}
	next := p.Offset + n
	p.Items, p.Returned, p.NextOffset, p.Truncated = p.Items[:n:n], n, &next, true
	return p
}

// Prefix is the page holding its first n items only, resumable after them,
// as the byte budget would cut it. It lets a producer stop materializing
// items once those it has certainly exceed ResultBudget: the cut when the
// page is encoded then falls among the items it kept.
func (p Page[T]) Prefix(n int) Page[T] { return p.cut(n) }

// overBudget reports whether items of itemBytes in all (commas included)
// exceed the budget with the envelope; the first item is always kept.
func overBudget(i, itemBytes int) bool { return i > 0 && itemBytes+pageEnvelope > ResultBudget }

// AppendCanonical writes the page in RFC 8785 form without a reflection
// pass and a re-canonicalization: a page is the bulk of most Evidence
// records. It does so only for items that are canon.Appenders; for others
// it reports false and canon.Marshal encodes the whole page as usual (see
// MarshalJSON).
func (p Page[T]) AppendCanonical(b []byte) ([]byte, bool) {
	if _, ok := any(*new(T)).(canon.Appender); !ok {
		return b, false
	}
	b = append(b, `{"items":[`...)
	start, n := len(b), len(p.Items)
	for i := range p.Items {
		mark := len(b)
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = any(p.Items[i]).(canon.Appender).AppendCanonical(b)
		if overBudget(i, len(b)-start) {
			b, n = b[:mark], i
			break
		}
	}
	return p.cut(n).appendEnvelope(b), true
}

// appendEnvelope writes the members after items, in canonical order.
func (p Page[T]) appendEnvelope(b []byte) []byte {
	b = append(b, `],"limit":`...)
	b = jcs.AppendInt(b, int64(p.Limit))
	b = append(b, `,"next_offset":`...)
	b = appendIntOrNull(b, p.NextOffset)
	b = append(b, `,"offset":`...)
	b = jcs.AppendInt(b, int64(p.Offset))
	b = append(b, `,"returned":`...)
	b = jcs.AppendInt(b, int64(p.Returned))
	b = append(b, `,"total":`...)
	b = appendIntOrNull(b, p.Total)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, p.Truncated)
	return append(b, '}')
}

// MarshalJSON applies the byte budget to a page encoded with encoding/json
// (items that are not canon.Appenders, and pages inside other results). Each
// item is measured in its canonical form, the form a client receives and
// Evidence records, so the cut falls where AppendCanonical's would, and the
// page it writes is canonical JSON.
func (p Page[T]) MarshalJSON() ([]byte, error) {
	if b, ok := p.AppendCanonical(nil); ok {
		return b, nil
	}
	b := append(make([]byte, 0, 512), `{"items":[`...)
	start, n := len(b), len(p.Items)
	for i := range p.Items {
		item, err := canon.Marshal(p.Items[i])
		if err != nil {
			return nil, err
		}
		if overBudget(i, len(b)-start+min(i, 1)+len(item)) {
			n = i
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, item...)
	}
	return p.cut(n).appendEnvelope(b), nil
}

func appendIntOrNull(b []byte, n *int) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return jcs.AppendInt(b, int64(*n))
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
