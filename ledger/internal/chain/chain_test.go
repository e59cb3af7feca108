package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	gowebpki "github.com/gowebpki/jcs"

	"github.com/rea-re/rea/internal/jcs"
)

// CONTRACTS.md §14: the event test vector.
func TestHashTestVector(t *testing.T) {
	data, err := jcs.Canonicalize([]byte(`{"reason":"client_closed","connection_id":"01JZ0000000000000000000001"}`))
	if err != nil {
		t.Fatal(err)
	}
	f := Fields{Seq: 1, EventID: "01JZ0000000000000000000002", Stream: "connection-01JZ0000000000000000000001",
		StreamVersion: 1, Type: "connection_closed", SchemaVersion: 1, RecordedAt: "2026-01-01T00:00:00.000Z", Data: data}
	if h := Hash(GenesisHash, AppendCanonical(nil, &f)); h != "2b619b1be48d46e19683845721a1f460565f5e45902e76716da3b08edc90e6f2" {
		t.Fatalf("hash %s", h)
	}
}

// AppendCanonical writes the envelope without a JCS round trip; it must
// produce exactly what gowebpki/jcs would, and ParseEnvelope must read it
// back.
func TestCanonicalEnvelopeMatchesJCS(t *testing.T) {
	for _, tc := range []struct{ stream, typ, data string }{
		{"s", "t", `{}`},
		{"connection-\"quoted\"\\back", "type\n\t\x01\x1f\x7f", `{"b":[1,2.5,-0,1e21,"x"],"a":{"é":"\u2028"}}`},
		{"流-😀", "ü", `{"\ud83d\ude00":1,"\ue000":2}`},
	} {
		data, err := jcs.Canonicalize([]byte(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		f := Fields{Seq: 42, EventID: "01JZ0000000000000000000002", Stream: tc.stream, StreamVersion: 7, Type: tc.typ,
			SchemaVersion: 1, RecordedAt: "2026-01-01T00:00:00.000Z", Data: data}
		c := AppendCanonical(nil, &f)
		raw, _ := json.Marshal(map[string]any{"data": json.RawMessage(data), "event_id": f.EventID, "stream": f.Stream,
			"stream_version": f.StreamVersion, "type": f.Type, "schema_version": f.SchemaVersion,
			"recorded_at": f.RecordedAt, "seq": f.Seq})
		want, err := gowebpki.Transform(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c, want) {
			t.Errorf("AppendCanonical:\n got %s\nwant %s", c, want)
		}
		env, err := ParseEnvelope(c)
		if err != nil {
			t.Fatalf("ParseEnvelope: %v", err)
		}
		if env.Stream != f.Stream || env.Type != f.Type || env.Seq != 42 || env.StreamVersion != 7 ||
			!bytes.Equal(env.Data, data) || env.EventID != f.EventID {
			t.Errorf("ParseEnvelope round trip: %+v", env)
		}
	}
}

func TestParseEnvelopeRejects(t *testing.T) {
	good := `{"data":{},"event_id":"01JZ0000000000000000000002","recorded_at":"2026-01-01T00:00:00.000Z","schema_version":1,"seq":1,"stream":"s","stream_version":1,"type":"t"}`
	if _, err := ParseEnvelope([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]string{
		"whitespace":     `{ "data":{},"event_id":"x","recorded_at":"r","schema_version":1,"seq":1,"stream":"s","stream_version":1,"type":"t"}`,
		"missing member": `{"data":{},"event_id":"x","recorded_at":"r","schema_version":1,"seq":1,"stream":"s","type":"t"}`,
		"extra member":   `{"data":{},"event_id":"x","extra":1,"recorded_at":"r","schema_version":1,"seq":1,"stream":"s","stream_version":1,"type":"t"}`,
		"data not obj":   `{"data":[],"event_id":"x","recorded_at":"r","schema_version":1,"seq":1,"stream":"s","stream_version":1,"type":"t"}`,
		"seq string":     `{"data":{},"event_id":"x","recorded_at":"r","schema_version":1,"seq":"1","stream":"s","stream_version":1,"type":"t"}`,
		"seq fraction":   `{"data":{},"event_id":"x","recorded_at":"r","schema_version":1,"seq":1.5,"stream":"s","stream_version":1,"type":"t"}`,
		"trailing":       good + " ",
		"array":          `[]`,
	} {
		if _, err := ParseEnvelope([]byte(c)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func goldenExport(tb testing.TB) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestGoldenExportVerifies(t *testing.T) {
	rep, m, err := VerifyExport(context.Background(), bytes.NewReader(goldenExport(t)), nil, nil)
	if err != nil || !rep.OK || m.Count != 4 || rep.Head.Seq != 4 || rep.Checked.Blobs != 4 {
		t.Fatalf("%+v %+v %v", rep, m, err)
	}
}

// FuzzVerifyExport feeds arbitrary bytes to the export reader and verifier
// (what `rea ledger verify FILE` and import read): it must never panic or
// hang, its report must be consistent, and a valid export must extend
// itself.
func FuzzVerifyExport(f *testing.F) {
	golden := goldenExport(f)
	f.Add(golden)
	f.Add(golden[:len(golden)/2])
	f.Add(bytes.Replace(golden, []byte(`"kind":"event"`), []byte(`"kind":"blob"`), 1))
	f.Add([]byte(""))
	f.Add([]byte("\n"))
	f.Add([]byte(`{"kind":"manifest"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		rep, _, err := VerifyExport(ctx, bytes.NewReader(data), nil, nil)
		if err != nil {
			t.Fatalf("error on in-memory input: %v", err)
		}
		if rep.OK != (len(rep.Problems) == 0) || (rep.OK && rep.FirstBadSeq != nil) {
			t.Fatalf("inconsistent report %+v", rep)
		}
		again, _, _ := VerifyExport(ctx, bytes.NewReader(data), bytes.NewReader(data), nil)
		if rep.OK && !again.OK {
			t.Fatalf("a valid export does not extend itself: %+v", again)
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzParseEnvelope: whatever ParseEnvelope accepts is canonical and
// re-encodes to the same bytes.
func FuzzParseEnvelope(f *testing.F) {
	f.Add([]byte(`{"data":{"record_digest":"x"},"event_id":"01JZ0000000000000000000002","recorded_at":"2026-01-01T00:00:00.000Z","schema_version":1,"seq":1,"stream":"s\n","stream_version":1,"type":"t"}`))
	f.Fuzz(func(t *testing.T, c []byte) {
		env, err := ParseEnvelope(c)
		if err != nil {
			return
		}
		if !jcs.IsCanonical(c) {
			t.Fatalf("accepted non-canonical %q", c)
		}
		if again := AppendCanonical(nil, &env.Fields); !bytes.Equal(again, c) {
			t.Fatalf("re-encoded\n%q\nfrom\n%q", again, c)
		}
	})
}

// TestDataDigests: export carries the blobs an event's data names by
// record_digest, result_digest and state_digest (top-level strings only).
func TestDataDigests(t *testing.T) {
	for _, c := range []struct {
		data string
		want []string
	}{
		{`{"evidence_id":"ev_1","record_digest":"aa"}`, []string{"aa"}},
		{`{"comparison_id":"cmp_1","result_digest":"bb"}`, []string{"bb"}},
		{`{"comparison_id":"cmp_1","completed":5,"phase":"decode_left","state_digest":"cc","total":null}`, []string{"cc"}},
		{`{"nested":{"record_digest":"dd"},"state_digest":7}`, nil},
		{`{"record_digest":`, nil},
		{`[]`, nil},
	} {
		got := DataDigests([]byte(c.data))
		if len(got) != len(c.want) || (len(got) == 1 && got[0] != c.want[0]) {
			t.Errorf("DataDigests(%s) = %v, want %v", c.data, got, c.want)
		}
	}
}
