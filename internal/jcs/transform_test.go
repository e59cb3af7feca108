package jcs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	gowebpki "github.com/gowebpki/jcs"
)

// transformCases pair inputs with their RFC 8785 form, written out by hand
// from the RFC's rules (§3.2.2 strings and numbers, §3.2.3 sorting).
var transformCases = []struct{ in, want string }{
	{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
	{` { "a" : [ 1 , 2 , { "d" : null , "c" : true } ] } `, `{"a":[1,2,{"c":true,"d":null}]}`},
	{`"\u20ac\u00f6\ud83d\ude02\/\u001f\u007f"`, "\"€ö😂/\\u001f\u007f\""},
	{`"\b\f\n\r\t\"\\"`, `"\b\f\n\r\t\"\\"`},
	{`"\u003c/script\u003e \u2028"`, "\"</script> \u2028\""},
	{`[-0, 0.0, 1e0, 1E+2, 100, -1.5e-7, 1e21, 1e-7, 123456789012345678, 0.1]`,
		`[0,0,1,100,100,-1.5e-7,1e+21,1e-7,123456789012345680,0.1]`},
	{`{"\u20ac":1,"\r":2,"1":3,"\u0080":4,"\ud83d\ude02":5,"\u00f6":6,"\ufb33":7}`,
		"{\"\\r\":2,\"1\":3,\"\u0080\":4,\"\u00f6\":6,\"\u20ac\":1,\"\U0001F602\":5,\"\ufb33\":7}"},
	{`[]`, `[]`}, {`{}`, `{}`}, {`"x"`, `"x"`}, {`[[[]],{}]`, `[[[]],{}]`},
}

func TestTransform(t *testing.T) {
	for _, tc := range transformCases {
		got, err := Transform([]byte(tc.in))
		if err != nil {
			t.Errorf("Transform(%s): %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("Transform(%s)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestTransformRejects(t *testing.T) {
	for _, in := range []string{
		``, ` `, `{`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{"a":1,"a":2}`, `{"b":1,"a":1,"b":2}`,
		`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, "\"\xff\"", "\"a\x01\"", `"\x"`, `"\u12"`,
		`01`, `1.`, `.5`, `-`, `1e`, `1e400`, `tru`, `nul`, `[1] 2`, `{"a":1}}`,
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	} {
		if out, err := Transform([]byte(in)); err == nil {
			t.Errorf("Transform(%.40q) = %s, want an error", in, out)
		}
	}
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, err := Transform([]byte(deep)); err != nil {
		t.Errorf("nesting of exactly %d: %v", maxDepth, err)
	}
}

// FuzzTransform compares Transform with gowebpki/jcs: both accept the same
// inputs, and produce the same bytes for them.
func FuzzTransform(f *testing.F) {
	for _, tc := range transformCases {
		f.Add([]byte(tc.in))
	}
	f.Add([]byte(`{"a":{"b":[1,2,{"c":"\u00e9"}],"a":0.000001}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := Transform(in)
		want, wantErr := gowebpki.Transform(in)
		switch {
		case (err == nil) != (wantErr == nil):
			t.Fatalf("Transform(%q): err %v, reference err %v", in, err, wantErr)
		case err == nil && !bytes.Equal(got, want):
			t.Fatalf("Transform(%q)\n got %s\nwant %s", in, got, want)
		}
	})
}

// benchPage is shaped like a list_procedures page of 100 items.
func benchPage() []byte {
	type proc struct {
		External    bool    `json:"external"`
		Thunk       bool    `json:"thunk"`
		ThunkTarget *string `json:"thunk_target"`
	}
	type item struct {
		Address   string `json:"address"`
		Value     string `json:"value"`
		Procedure proc   `json:"procedure"`
	}
	var page struct {
		Items      []item `json:"items"`
		Total      int    `json:"total"`
		NextOffset int    `json:"next_offset"`
		Truncated  bool   `json:"truncated"`
	}
	for i := range 100 {
		page.Items = append(page.Items, item{Address: fmt.Sprintf("0x%x", 0x1400000+i*64),
			Value: fmt.Sprintf("_ZN2v88internal12_GLOBAL__N_119SomeLongFunction%dEPNS0_7IsolateE", i)})
	}
	page.Total, page.NextOffset, page.Truncated = 86300, 100, true
	b, _ := json.Marshal(page)
	return b
}

func BenchmarkTransform(b *testing.B) {
	page := benchPage()
	b.Run("jcs", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			if _, err := Transform(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gowebpki-jcs", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			if _, err := gowebpki.Transform(page); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// marshal is encoding/json and then Transform.
func marshal(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWithMembers(t *testing.T) {
	head := marshal(t, map[string]any{"a": 1, "s": "x\"\n", "z": map[string]any{"k": []any{1, "}"}}, "\n": true, "é": 2})
	got, err := WithMembers(head, Member{"raw_result", []byte(`null`)}, Member{"normalized_result", []byte(`{"b":[1,{"c":2}]}`)}, Member{"0", []byte(`0`)}, Member{"zz", []byte(`"end"`)})
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]any{"a": 1, "s": "x\"\n", "z": map[string]any{"k": []any{1, "}"}}, "\n": true, "é": 2,
		"raw_result": nil, "normalized_result": map[string]any{"b": []any{1, map[string]any{"c": 2}}}, "0": 0, "zz": "end"}
	want := marshal(t, all)
	if !bytes.Equal(got, want) {
		t.Errorf("WithMembers\n got %s\nwant %s", got, want)
	}
	if got, err := WithMembers([]byte(`{}`), Member{"b", []byte(`1`)}, Member{"a", []byte(`2`)}); err != nil || string(got) != `{"a":2,"b":1}` {
		t.Errorf("into {}: %s %v", got, err)
	}
	if _, err := WithMembers([]byte(`{"a":1}`), Member{"a", []byte(`2`)}); err == nil {
		t.Error("a duplicate member was accepted")
	}
	if _, err := WithMembers([]byte(`[1]`), Member{"a", []byte(`2`)}); err == nil {
		t.Error("a non-object was accepted")
	}
}
