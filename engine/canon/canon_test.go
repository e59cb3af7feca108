package canon

import (
	"bytes"
	"encoding/json"
	"testing"

	gowebpki "github.com/gowebpki/jcs"
)

// TestMarshalMatchesReference checks Marshal on REA-shaped values against
// encoding/json followed by gowebpki/jcs, the reference implementation.
func TestMarshalMatchesReference(t *testing.T) {
	v := map[string]any{
		"items": []map[string]any{{"address": "0x401000", "value": "main", "procedure": map[string]any{"external": false, "thunk": false, "thunk_target": nil}}},
		"total": 123456, "truncated": true, "next_offset": 100, "ratio": 0.25,
		"text":   "<tag> & \u2028 \"quoted\" \\ \t",
		"nested": map[string]any{"z": 1, "a": []any{1.5, -0.0, 1e300, "é"}},
	}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(v)
	want, err := gowebpki.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Marshal\n got %s\nwant %s", got, want)
	}
}
