package schema

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

// TestValidateSchemaSubset covers interpreter paths the catalog inputs do not
// reach but result checks do: required keys without a property schema,
// untyped values that may be null, type lists.
func TestValidateSchemaSubset(t *testing.T) {
	cases := []struct {
		schema map[string]any
		value  string
		issues int
	}{
		{map[string]any{"required": []any{"a"}}, `{}`, 1},
		{map[string]any{"required": []any{"a"}}, `{"a":1}`, 0},
		{map[string]any{"properties": map[string]any{"x": map[string]any{}}, "required": []any{"x"}}, `{"x":null}`, 0},
		{map[string]any{"properties": map[string]any{"x": map[string]any{"type": "string"}}, "required": []any{"x"}}, `{"x":null}`, 1},
		{map[string]any{"type": []any{"string", "null"}}, `null`, 0},
		{map[string]any{"type": []any{"string", "null"}}, `1`, 1},
		{map[string]any{"type": []any{"integer", "number"}}, `1.5`, 0},
		{map[string]any{"type": "array", "items": map[string]any{}}, `[null,1]`, 0},
		{map[string]any{"oneOf": []any{map[string]any{"required": []any{"a"}}, map[string]any{"required": []any{"b"}}}}, `{"a":1,"b":2}`, 1},
		{map[string]any{"anyOf": []any{map[string]any{"required": []any{"a"}}, map[string]any{"required": []any{"b"}}}}, `{"a":1,"b":2}`, 0},
		{map[string]any{"const": map[string]any{"a": []any{int64(1)}}}, `{"a":[1.0]}`, 0},
		{map[string]any{"enum": []any{true, nil}}, `null`, 0},
	}
	for i, c := range cases {
		st := &State{}
		v := st.ParseJSON([]byte("[" + c.value + "]")) // wrapped: a top-level null means no arguments
		st.Validate(map[string]any{"type": "array", "items": c.schema}, v, "")
		if len(st.Issues) != c.issues {
			t.Errorf("case %d %s: issues %+v, want %d", i, c.value, st.Issues, c.issues)
		}
	}
}

// parseSchema is a small strict input of the kind the catalog declares.
var parseSchema = map[string]any{
	"type": "object", "additionalProperties": false, "required": []any{"address"},
	"properties": map[string]any{
		"target":  map[string]any{"type": "string"},
		"address": map[string]any{"type": "string", "format": FormatAddress},
		"limit":   map[string]any{"type": "integer", "minimum": int64(1), "maximum": int64(500), "default": int64(100)},
	},
}

// TestParsedOnce: what a call reads before validation (its target) comes
// from the same parse that Decode validates, and a parse's issues are
// reported with the validation's.
func TestParsedOnce(t *testing.T) {
	p, err := Parse("op", json.RawMessage(`{"target":"t_1","address":"0X1F"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.String("target") != "t_1" || p.String("address") != "0X1F" || p.String("absent") != "" {
		t.Fatalf("pre-validation reads: %q %q", p.String("target"), p.String("address"))
	}
	params, err := p.Decode("op", parseSchema)
	if err != nil {
		t.Fatal(err)
	}
	if params["address"] != "0x1f" || params["limit"] != int64(100) || params["target"] != "t_1" {
		t.Fatalf("params %#v", params)
	}
	if p, err := Parse("op", json.RawMessage(`[1]`)); err != nil || p.String("target") != "" {
		t.Fatalf("an array parses (and fails validation): %v", err)
	} else if _, err := p.Decode("op", parseSchema); !isInvalid(err) {
		t.Fatalf("array arguments: %v", err)
	}
	if _, err := Parse("op", json.RawMessage(`{"address":`)); !isInvalid(err) {
		t.Fatalf("truncated arguments: %v", err)
	}
}

func isInvalid(err error) bool {
	var fe *fault.Error
	return errors.As(err, &fe) && fe.Code == fault.InvalidRequest
}

// FuzzParse: whatever the bytes, Parse and Decode never panic, fail only
// with invalid_request, and a success is an object holding every declared
// key.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"address":"1"}`, `{"target":"t","address":"0x1","limit":500}`, `{"address":"1","limit":1e400}`,
		`{"address":"1","address":"2"}`, `{"limit":-0.0}`, `[]`, `null`, `"x"`, `{"address":"\ud800"}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("op", json.RawMessage(data))
		if err != nil {
			if !isInvalid(err) {
				t.Fatalf("parse: %v", err)
			}
			return
		}
		_ = p.String("target")
		params, err := p.Decode("op", parseSchema)
		if err != nil {
			if !isInvalid(err) {
				t.Fatalf("decode: %v", err)
			}
			return
		}
		for _, k := range []string{"target", "address", "limit"} {
			if _, ok := params[k]; !ok {
				t.Fatalf("%s missing from %#v", k, params)
			}
		}
	})
}
