package jcs

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Member is one object member whose value is already canonical JSON.
type Member struct {
	Name  string
	Value []byte
}

// WithMembers inserts members into obj, a canonical JSON object (the output
// of Transform), at their sorted positions, and returns the canonical object.
// Values are spliced in as they are: the caller vouches that they are
// canonical. This lets a record that holds a large canonical result be
// encoded without parsing the result again.
//
// Names must be ASCII and must not already be in obj.
func WithMembers(obj []byte, members ...Member) ([]byte, error) {
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, errors.New("jcs: WithMembers needs an object")
	}
	for _, m := range members {
		for i := 0; i < len(m.Name); i++ {
			if m.Name[i] >= 0x80 || m.Name[i] < 0x20 || m.Name[i] == '"' || m.Name[i] == '\\' {
				return nil, fmt.Errorf("jcs: member name %q is not plain ASCII", m.Name)
			}
		}
	}
	size := len(obj)
	for _, m := range members {
		size += len(m.Name) + len(m.Value) + 4
	}
	out := make([]byte, 0, size)
	out = append(out, '{')
	pending := sortMembers(members)
	first := true
	emit := func(b []byte) {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, b...)
	}
	emitMember := func(m Member) {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(append(append(append(out, '"'), m.Name...), '"', ':'), m.Value...)
	}
	for i := 1; i < len(obj)-1; {
		start := i
		name, end, err := scanString(obj, i)
		if err != nil {
			return nil, err
		}
		if end >= len(obj) || obj[end] != ':' {
			return nil, errors.New("jcs: WithMembers: malformed object")
		}
		vend, err := skipValue(obj, end+1)
		if err != nil {
			return nil, err
		}
		for len(pending) > 0 && compareUTF16([]byte(pending[0].Name), name) <= 0 {
			if pending[0].Name == string(name) {
				return nil, fmt.Errorf("jcs: member %q is already present", name)
			}
			emitMember(pending[0])
			pending = pending[1:]
		}
		emit(obj[start:vend])
		i = vend
		if i < len(obj)-1 {
			if obj[i] != ',' {
				return nil, errors.New("jcs: WithMembers: malformed object")
			}
			i++
		}
	}
	for _, m := range pending {
		emitMember(m)
	}
	return append(out, '}'), nil
}

func sortMembers(ms []Member) []Member {
	out := append([]Member(nil), ms...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Name < out[j-1].Name; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// scanString reads the string starting at b[i] and returns its decoded
// bytes and the index after it.
func scanString(b []byte, i int) ([]byte, int, error) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, errors.New("jcs: expected a string")
	}
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			if !escaped {
				return b[i+1 : j], j + 1, nil
			}
			var s string
			if err := json.Unmarshal(b[i:j+1], &s); err != nil {
				return nil, 0, fmt.Errorf("jcs: %w", err)
			}
			return []byte(s), j + 1, nil
		}
	}
	return nil, 0, errors.New("jcs: unterminated string")
}

// skipValue returns the index after the JSON value starting at b[i]; b is
// trusted to be valid JSON without insignificant whitespace.
func skipValue(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			_, end, err := scanString(b, i)
			if err != nil {
				return 0, err
			}
			i = end
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':':
			i++
		default:
			for i < len(b) && b[i] != ',' && b[i] != ']' && b[i] != '}' {
				i++
			}
		}
		if depth == 0 {
			return i, nil
		}
		if depth < 0 {
			return 0, errors.New("jcs: unbalanced value")
		}
	}
	return 0, errors.New("jcs: truncated value")
}
