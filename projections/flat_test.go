package projections

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/ledger"
)

func FuzzDecodeEvidence(f *testing.F) {
	f.Add([]byte(`{"connection_id":"01JZ0000000000000000000001","evidence_id":"ev_00","new":true,"operation":"list_names","origin":"tool","predicate_type":"rea.analysis/v2","record_digest":"ab","run_id":null}`))
	f.Add([]byte(`{"connection_id":"c","new":false,"run_id":"r"}`))
	f.Add([]byte(`{"connection_id":"c\u0041","new":false}`))
	f.Add([]byte(`{"a":1}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"a":"b",}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeEvidenceRecorded(ledger.Event{Type: events.EvidenceRecorded, Data: data})
		var want events.EvidenceRecordedData
		werr := json.Unmarshal(data, &want)
		if werr != nil {
			if err == nil && scanFlat(data, func(_, _ []byte, _ byte) bool { return true }) {
				t.Fatalf("fast path accepted %q that encoding/json rejects (%v)", data, werr)
			}
			return
		}
		if err != nil {
			t.Fatalf("rejected %q that encoding/json accepts: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", data, got, want)
		}
	})
}
