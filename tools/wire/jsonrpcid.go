package wire

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// JSON-RPC request ids on REA's stdio transport (CONTRACTS.md §0): an id is
// a string or an integer, echoed byte-exactly.
//
// mcp-go decodes an id into an `any`, so a number becomes a float64: 2^53+1
// comes back as 2^53, an integer beyond 64 bits as garbage, and a string is
// re-encoded by encoding/json (which escapes <, > and &). The transport
// therefore hands mcp-go a surrogate for every id that would not survive
// that round trip: a string of a control character and the hex of the
// original bytes, which no plain id can equal (plain ids are printable
// ASCII). writeMessage turns the surrogate back into the original bytes, and
// a notifications/cancelled naming the original id is rewritten to name the
// surrogate, so cancellation keeps working. Ids that survive (the common
// case: small integers, plain strings) pass through untouched, at no cost.

// surrogatePrefix starts every surrogate id; "\u0001" is its JSON form.
const surrogatePrefix = "\x01"

// validID reports whether raw (a JSON value) is a string or an integer in
// JSON's integer grammar -?(0|[1-9][0-9]*). Fractions and exponents are not
// integers here, even 1.0 or 1e3 (decision: the spec's "SHOULD NOT contain
// fractional parts", made a rule, and no number is reinterpreted).
func validID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return true // the whole message decoded, so the string is well formed
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 1 && digits[0] == '0' {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainID reports whether a valid id survives mcp-go's decode and
// encoding/json's encode unchanged: an integer of at most 15 digits (below
// 2^53, other than -0) or a string of printable ASCII without escapes or
// the characters encoding/json escapes.
func plainID(raw []byte) bool {
	if raw[0] != '"' {
		digits := bytes.TrimPrefix(raw, []byte("-"))
		return len(digits) <= 15 && !bytes.Equal(raw, []byte("-0"))
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// surrogateJSON is the JSON string that stands for raw inside mcp-go.
func surrogateJSON(raw []byte) json.RawMessage {
	b := make([]byte, 0, 8+2*len(raw))
	b = append(b, `"\u0001`...)
	b = hex.AppendEncode(b, raw)
	return append(b, '"')
}

// withSurrogateID returns msg with its top-level member name (a JSON object
// member, or "params" then inner for a nested one) replaced by the
// surrogate of raw. The message is re-encoded; that happens only for ids
// that are not plain.
func withSurrogateID(msg []byte, raw []byte, inner string) ([]byte, bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(msg, &top) != nil {
		return nil, false
	}
	if inner == "" {
		top["id"] = surrogateJSON(raw)
	} else {
		var params map[string]json.RawMessage
		if json.Unmarshal(top["params"], &params) != nil {
			return nil, false
		}
		params[inner] = surrogateJSON(raw)
		b, err := json.Marshal(params)
		if err != nil {
			return nil, false
		}
		top["params"] = b
	}
	b, err := json.Marshal(top)
	return b, err == nil
}

// responsePrefix is how encoding/json (and encodeToolResponse) begin a
// JSON-RPC response or error whose id is a surrogate.
const responsePrefix = `{"jsonrpc":"2.0","id":"\u0001`

// restoreID puts the original id bytes back into encoded messages whose
// id is a surrogate: b is one message (stdio) or a chunk of an SSE stream
// (HTTP), so every occurrence is restored. The pattern cannot occur inside
// a JSON string (its quotes would be escaped there). Anything else is
// returned as it is, without a copy.
func restoreID(b []byte) []byte {
	i := bytes.Index(b, []byte(responsePrefix))
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i >= 0 {
		out = append(out, b[:i]...)
		rest := b[i+len(responsePrefix):]
		end := bytes.IndexByte(rest, '"')
		raw, err := hex.DecodeString(string(rest[:max(end, 0)]))
		if end < 0 || err != nil {
			out = append(out, b[i:i+len(responsePrefix)]...) // not a surrogate after all
			b = rest
		} else {
			out = append(out, `{"jsonrpc":"2.0","id":`...)
			out = append(out, raw...)
			b = rest[end+1:]
		}
		i = bytes.Index(b, []byte(responsePrefix))
	}
	return append(out, b...)
}

// errorWithRawID encodes a JSON-RPC error answer whose id is raw (a valid
// id, or null).
func errorWithRawID(raw []byte, code int, message string) []byte {
	msg, _ := json.Marshal(message)
	b := make([]byte, 0, 64+len(raw)+len(msg))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, raw...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = append(b, msg...)
	return append(b, "}}"...)
}
