package projections

import (
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/ledger"
)

// Replay speed is bounded by decoding: evidence_recorded is most of any
// ledger, and encoding/json's reflection costs more than the insert. Its data
// is canonical JSON (RFC 8785: no whitespace) and flat, so a direct scan of
// escape-free ASCII strings, booleans and null decodes it; anything else falls back
// to encoding/json, which remains the reference (FuzzDecodeEvidence).

// scanFlat calls fn for every member of a flat object whose values are
// escape-free ASCII strings ('s', val without quotes), true/false ('t'/'f') or
// null ('n'). It reports false, having possibly called fn, for any other
// input, or as soon as fn returns false.
func scanFlat(b []byte, fn func(key, val []byte, kind byte) bool) bool {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	i := 1
	if i == len(b)-1 {
		return true
	}
	str := func() ([]byte, bool) {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		start := i + 1
		for j := start; j < len(b); j++ {
			switch c := b[j]; {
			case c == '"':
				i = j + 1
				return b[start:j], true
			case c == '\\' || c < 0x20 || c >= 0x80: // escapes, controls and non-ASCII: encoding/json's rules apply
				return nil, false
			}
		}
		return nil, false
	}
	for {
		key, ok := str()
		if !ok || i >= len(b) || b[i] != ':' {
			return false
		}
		i++
		if i >= len(b) {
			return false
		}
		switch {
		case b[i] == '"':
			v, ok := str()
			if !ok {
				return false
			}
			if !fn(key, v, 's') {
				return false
			}
		case hasLiteral(b[i:], "true"):
			if !fn(key, nil, 't') {
				return false
			}
			i += 4
		case hasLiteral(b[i:], "false"):
			if !fn(key, nil, 'f') {
				return false
			}
			i += 5
		case hasLiteral(b[i:], "null"):
			if !fn(key, nil, 'n') {
				return false
			}
			i += 4
		default:
			return false
		}
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i == len(b)-1
		default:
			return false
		}
	}
}

func hasLiteral(b []byte, lit string) bool {
	return len(b) >= len(lit) && string(b[:len(lit)]) == lit
}

// decodeEvidenceRecorded decodes evidence_recorded data: directly when it
// has exactly the shape the engine writes, else with encoding/json.
func decodeEvidenceRecorded(e ledger.Event) (events.EvidenceRecordedData, error) {
	var d events.EvidenceRecordedData
	str := func(dst *string, val []byte, kind byte) bool {
		*dst = string(val)
		return kind == 's'
	}
	fast := scanFlat(e.Data, func(key, val []byte, kind byte) bool {
		switch string(key) {
		case "connection_id":
			return str(&d.ConnectionID, val, kind)
		case "run_id":
			switch kind {
			case 's':
				r := string(val)
				d.RunID = &r
			case 'n':
				d.RunID = nil
			default:
				return false
			}
			return true
		case "evidence_id":
			return str(&d.EvidenceID, val, kind)
		case "operation":
			return str(&d.Operation, val, kind)
		case "predicate_type":
			return str(&d.PredicateType, val, kind)
		case "record_digest":
			return str(&d.RecordDigest, val, kind)
		case "origin":
			return str(&d.Origin, val, kind)
		case "new":
			d.New = kind == 't'
			return kind == 't' || kind == 'f'
		}
		return false // unknown or differently cased key: encoding/json decides
	})
	if fast {
		return d, nil
	}
	d = events.EvidenceRecordedData{}
	return d, decode(e, &d)
}
