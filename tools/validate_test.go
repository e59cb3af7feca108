package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/tools/catalog"
	"github.com/rea-re/rea/tools/schema"
)

func vdTool(t testing.TB, name string) catalog.Spec {
	t.Helper()
	s, ok := Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return s
}

// vdIssues decodes and returns the issues of the expected invalid_request.
func vdIssues(t *testing.T, tool, args string) []fault.Issue {
	t.Helper()
	_, err := vdTool(t, tool).Decode(json.RawMessage(args))
	if err == nil {
		t.Fatalf("%s %s: Decode succeeded, want invalid_request", tool, args)
	}
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest {
		t.Fatalf("%s %s: error %v, want invalid_request", tool, args, err)
	}
	if fe.Details["operation"] != tool {
		t.Errorf("details.operation = %v", fe.Details["operation"])
	}
	is, ok := fe.Details["issues"].([]fault.Issue)
	if !ok || len(is) == 0 {
		t.Fatalf("%s %s: no issues in %v", tool, args, fe.Details)
	}
	return is
}

func vdDecodeOK(t *testing.T, tool, args string) provider.Params {
	t.Helper()
	p, err := vdTool(t, tool).Decode(json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return p
}

func TestDecodeIssueReasons(t *testing.T) {
	type want struct{ path, reason string }
	cases := []struct {
		name, tool, args string
		want             []want
	}{
		{"unknown key", "list_documents", `{"x":1}`, []want{{"/x", "unknown_argument"}}},
		{"unknown key escaped", "list_documents", `{"a/b~c":1}`, []want{{"/a~1b~0c", "unknown_argument"}}},
		{"missing required", "goto_address", `{}`, []want{{"/address", "missing_argument"}}},
		{"required null", "goto_address", `{"address":null}`, []want{{"/address", "invalid_type"}}},
		{"string given number", "list_procedures", `{"document":5}`, []want{{"/document", "invalid_type"}}},
		{"integer given fraction", "list_procedures", `{"limit":1.5}`, []want{{"/limit", "invalid_type"}}},
		{"integer given string", "list_procedures", `{"limit":"1"}`, []want{{"/limit", "invalid_type"}}},
		{"integer given bool", "list_procedures", `{"offset":true}`, []want{{"/offset", "invalid_type"}}},
		{"boolean given string", "search_strings", `{"pattern":"a","case_sensitive":"true"}`, []want{{"/case_sensitive", "invalid_type"}}},
		{"array given string", "get_evidence_bundle", `{"evidence_ids":"ev_x"}`, []want{{"/evidence_ids", "invalid_type"}}},
		{"object given array", "capture_process_scenario", `{"executable":"/bin/sh","working_directory":"/","terminal":[]}`, []want{{"/terminal", "invalid_type"}}},
		{"limit above", "list_procedures", `{"limit":501}`, []want{{"/limit", "out_of_range"}}},
		{"limit below", "list_procedures", `{"limit":0}`, []want{{"/limit", "out_of_range"}}},
		{"negative offset", "list_procedures", `{"offset":-1}`, []want{{"/offset", "out_of_range"}}},
		{"integer beyond int64", "list_procedures", `{"offset":9223372036854775808}`, []want{{"/offset", "out_of_range"}}},
		{"integer beyond 2^53", "list_procedures", `{"offset":9007199254740992}`, []want{{"/offset", "out_of_range"}}},
		{"huge exponent", "list_procedures", `{"offset":1e400}`, []want{{"/offset", "out_of_range"}}},
		{"number above", "inventory_artifact", `{"max_compression_ratio":100000.5}`, []want{{"/max_compression_ratio", "out_of_range"}}},
		{"number overflow", "inventory_artifact", `{"max_compression_ratio":1e999}`, []want{{"/max_compression_ratio", "out_of_range"}}},
		{"string too short", "list_procedures", `{"document":""}`, []want{{"/document", "out_of_range"}}},
		{"string too long", "search_strings", `{"pattern":"` + strings.Repeat("é", 257) + `"}`, []want{{"/pattern", "out_of_range"}}},
		{"enum", "search_strings", `{"pattern":"a","mode":"glob"}`, []want{{"/mode", "invalid_value"}}},
		{"enum case", "binary_session", `{"detail":"Full"}`, []want{{"/detail", "invalid_value"}}},
		{"const", "extract_artifact", `{"approved":false,"output_root":"/o","occurrence_ids":["occ_` + strings.Repeat("0", 64) + `"]}`, []want{{"/approved", "invalid_value"}}},
		{"const missing", "extract_artifact", `{"output_root":"/o","occurrence_ids":["occ_` + strings.Repeat("0", 64) + `"]}`, []want{{"/approved", "missing_argument"}}},
		{"address hex letter", "goto_address", `{"address":"12g"}`, []want{{"/address", "invalid_format"}}},
		{"address 17 digits", "goto_address", `{"address":"0x10000000000000000"}`, []want{{"/address", "invalid_format"}}},
		{"address 17 digits bare", "goto_address", `{"address":"00000000000000001"}`, []want{{"/address", "invalid_format"}}},
		{"address empty", "goto_address", `{"address":""}`, []want{{"/address", "invalid_format"}}},
		{"address prefix only", "goto_address", `{"address":"0x"}`, []want{{"/address", "invalid_format"}}},
		{"address decimal number", "goto_address", `{"address":4198400}`, []want{{"/address", "invalid_type"}}},
		{"address space", "goto_address", `{"address":" 0x1"}`, []want{{"/address", "invalid_format"}}},
		{"path relative", "open_binary", `{"path":"bin/ls"}`, []want{{"/path", "invalid_value"}}},
		{"path empty", "open_binary", `{"path":""}`, []want{{"/path", "out_of_range"}}},
		{"path NUL", "import_evidence_bundle", `{"path":"/a\u0000b"}`, []want{{"/path", "invalid_value"}}},
		{"provider id upper", "open_binary", `{"path":"/x","provider_id":"GDB"}`, []want{{"/provider_id", "invalid_format"}}},
		{"provider id too long", "open_binary", `{"path":"/x","provider_id":"a` + strings.Repeat("b", 64) + `"}`, []want{{"/provider_id", "out_of_range"}}},
		{"evidence id", "get_evidence_bundle", `{"evidence_ids":["ev_ABC"]}`, []want{{"/evidence_ids/0", "invalid_format"}}},
		{"evidence ids empty", "get_evidence_bundle", `{"evidence_ids":[]}`, []want{{"/evidence_ids", "out_of_range"}}},
		{"evidence id null item", "get_evidence_bundle", `{"evidence_ids":[null]}`, []want{{"/evidence_ids/0", "invalid_type"}}},
		{"run id", "get_evidence_bundle", `{"run_id":"not-a-uuid"}`, []want{{"/run_id", "invalid_format"}}},
		{"catalog digest", "binary_session", `{"expected_catalog_digest":"ABC"}`, []want{{"/expected_catalog_digest", "invalid_format"}}},
		{"env name pattern", "capture_process_scenario", `{"executable":"/bin/sh","working_directory":"/","environment_names":["1A"]}`, []want{{"/environment_names/0", "invalid_format"}}},
		{"env name reserved", "capture_process_scenario", `{"executable":"/bin/sh","working_directory":"/","environment_names":["HOME","TERM"]}`, []want{{"/environment_names/1", "invalid_value"}}},
		{"nested bound", "capture_process_scenario", `{"executable":"/bin/sh","working_directory":"/","terminal":{"rows":0}}`, []want{{"/terminal/rows", "out_of_range"}}},
		{"nested unknown", "capture_process_scenario", `{"executable":"/bin/sh","working_directory":"/","terminal":{"cols":80}}`, []want{{"/terminal/cols", "unknown_argument"}}},
		{"jsapp nested", "analyze_javascript_application", `{"input_path":"/a","limits":{"max_depth":101}}`, []want{{"/limits/max_depth", "out_of_range"}}},
		{"several sorted", "list_strings", `{"zeta":1,"limit":0,"address":"q","alpha":2}`, []want{
			{"/address", "invalid_format"}, {"/alpha", "unknown_argument"}, {"/limit", "out_of_range"}, {"/zeta", "unknown_argument"}}},
		{"duplicate key", "list_procedures", `{"limit":1,"limit":2}`, []want{{"/limit", "invalid_value"}}},
		{"not an object", "list_documents", `[1]`, []want{{"", "invalid_type"}}},
		{"string top", "list_documents", `"x"`, []want{{"", "invalid_type"}}},
		{"malformed JSON", "list_documents", `{"a":`, []want{{"", "invalid_type"}}},
		{"trailing data", "list_documents", `{} {}`, []want{{"", "invalid_type"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := vdIssues(t, c.tool, c.args)
			var got []want
			for _, i := range is {
				got = append(got, want{i.Path, i.Reason})
				if i.Message == "" {
					t.Errorf("issue %+v has no message", i)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("issues %+v, want %+v", is, c.want)
			}
		})
	}
}

func TestDecodeIssueBounds(t *testing.T) {
	is := vdIssues(t, "list_procedures", `{"limit":501}`)
	if is[0].Minimum == nil || *is[0].Minimum != 1 || is[0].Maximum == nil || *is[0].Maximum != 500 {
		t.Errorf("limit issue %+v, want minimum 1 maximum 500", is[0])
	}
	is = vdIssues(t, "search_strings", `{"pattern":""}`)
	if is[0].Minimum == nil || *is[0].Minimum != 1 || *is[0].Maximum != 256 {
		t.Errorf("pattern issue %+v", is[0])
	}
	is = vdIssues(t, "compare_artifacts", `{"left_evidence_ids":[],"right_evidence_ids":["ev_`+strings.Repeat("a", 64)+`"]}`)
	if is[0].Path != "/left_evidence_ids" || *is[0].Minimum != 1 || *is[0].Maximum != 100 {
		t.Errorf("items issue %+v", is[0])
	}
	is = vdIssues(t, "search_strings", `{"pattern":"a","mode":"x"}`)
	if is[0].Expected != "literal|regex" {
		t.Errorf("enum expected %q", is[0].Expected)
	}
	is = vdIssues(t, "goto_address", `{"address":"12g"}`)
	if is[0].Expected == "" {
		t.Error("address issue without expected form")
	}
}

func TestDecodeAddressNormalization(t *testing.T) {
	cases := map[string]string{
		"401000":             "0x401000",
		"0x401000":           "0x401000",
		"0X00FF":             "0xff",
		"0xDEADbeef":         "0xdeadbeef",
		"0":                  "0x0",
		"0x0000":             "0x0",
		"ffffffffffffffff":   "0xffffffffffffffff",
		"0x000000000000000a": "0xa",
	}
	for in, want := range cases {
		p := vdDecodeOK(t, "goto_address", `{"address":"`+in+`"}`)
		if p["address"] != want {
			t.Errorf("%q → %v, want %s", in, p["address"], want)
		}
	}
	p := vdDecodeOK(t, "list_names", `{"address":"0X00FF"}`)
	if p["address"] != "0xff" {
		t.Errorf("optional address %v", p["address"])
	}
}

func TestDecodeDefaultsAndNils(t *testing.T) {
	p := vdDecodeOK(t, "list_procedures", `{}`)
	want := provider.Params{"document": nil, "offset": int64(0), "limit": int64(100),
		"named_only": false, "exclude_thunks": false, "min_length": int64(0)}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("list_procedures {} = %#v, want %#v", p, want)
	}
	// Explicit null for an optional key is the same as absent (§7.2).
	if p2 := vdDecodeOK(t, "list_procedures", `{"document":null,"limit":null}`); !reflect.DeepEqual(p2, want) {
		t.Errorf("nulls = %#v, want %#v", p2, want)
	}
	p = vdDecodeOK(t, "search_strings", `{"pattern":"abc"}`)
	want = provider.Params{"pattern": "abc", "mode": "literal", "case_sensitive": false, "offset": int64(0),
		"limit": int64(100), "document": nil}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("search_strings = %#v", p)
	}
	p = vdDecodeOK(t, "read_function_instructions", `{"procedure":"main","limit":500,"offset":100000}`)
	if p["limit"] != int64(500) || p["offset"] != int64(100000) || p["procedure"] != "main" {
		t.Errorf("read_function_instructions = %#v", p)
	}
	p = vdDecodeOK(t, "get_evidence_bundle", `{}`)
	if !reflect.DeepEqual(p, provider.Params{"evidence_ids": nil, "run_id": nil, "scope": "connection"}) {
		t.Errorf("get_evidence_bundle = %#v", p)
	}
	p = vdDecodeOK(t, "set_comment", `{"address":"10","comment":""}`)
	if !reflect.DeepEqual(p, provider.Params{"address": "0x10", "comment": "", "document": nil}) {
		t.Errorf("set_comment = %#v", p)
	}
	p = vdDecodeOK(t, "export_evidence_bundle", `{"path":"/tmp/b.json"}`)
	if p["overwrite"] != false {
		t.Errorf("overwrite default %v", p["overwrite"])
	}
	p = vdDecodeOK(t, "close_binary", ``)
	if len(p) != 0 || p == nil {
		t.Errorf("close_binary empty args = %#v", p)
	}
}

func TestDecodeNestedDefaults(t *testing.T) {
	p := vdDecodeOK(t, "capture_process_scenario", `{"executable":"/bin/sh","working_directory":"/tmp",
		"terminal":{"columns":120},
		"stdin_steps":[{"type":"write","data":"ls\n"},{"type":"wait_output","literal":"$","timeout_ms":1000},
		               {"type":"sleep","ms":0},{"type":"close_stdin"},{"type":"signal","signal":"SIGINT"}]}`)
	want := provider.Params{
		"executable": "/bin/sh", "working_directory": "/tmp", "arguments": []any{}, "environment_names": []any{},
		"terminal": map[string]any{"columns": int64(120), "rows": int64(24)},
		"stdin_steps": []any{
			map[string]any{"type": "write", "data": "ls\n", "sensitive": false},
			map[string]any{"type": "wait_output", "literal": "$", "timeout_ms": int64(1000)},
			map[string]any{"type": "sleep", "ms": int64(0)},
			map[string]any{"type": "close_stdin"},
			map[string]any{"type": "signal", "signal": "SIGINT"},
		},
		"timeout_ms": int64(30000), "idle_timeout_ms": int64(30000), "max_output_bytes": int64(1000000),
		"network": "none",
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("capture = %#v\nwant %#v", p, want)
	}
	p = vdDecodeOK(t, "capture_process_scenario", `{"executable":"/bin/sh","working_directory":"/tmp"}`)
	if !reflect.DeepEqual(p["terminal"], map[string]any{"columns": int64(80), "rows": int64(24)}) {
		t.Errorf("terminal default %#v", p["terminal"])
	}
	p = vdDecodeOK(t, "analyze_javascript_application", `{"input_path":"/app","limits":{"max_findings":5}}`)
	lim := p["limits"].(map[string]any)
	if lim["max_findings"] != int64(5) || lim["max_entries"] != int64(8000) || lim["max_total_text_bytes"] != int64(134217728) || len(lim) != 11 {
		t.Errorf("limits %#v", lim)
	}
	if p["format"] != "auto" || p["detail"] != "summary" {
		t.Errorf("jsapp %#v", p)
	}
	p = vdDecodeOK(t, "inventory_artifact", `{"max_compression_ratio":2.5}`)
	if p["max_compression_ratio"] != 2.5 || p["max_entries"] != int64(10000) || p["max_depth"] != int64(20) {
		t.Errorf("inventory %#v", p)
	}
	p = vdDecodeOK(t, "inventory_artifact", `{}`)
	if p["max_compression_ratio"] != float64(1000) {
		t.Errorf("ratio default %#v (%T)", p["max_compression_ratio"], p["max_compression_ratio"])
	}
}

func TestDecodeStepUnion(t *testing.T) {
	base := `{"executable":"/bin/sh","working_directory":"/","stdin_steps":[%s]}`
	cases := []struct{ step, path, reason string }{
		{`{}`, "/stdin_steps/0/type", "missing_argument"},
		{`{"type":"jump"}`, "/stdin_steps/0/type", "invalid_value"},
		{`{"type":"write"}`, "/stdin_steps/0/data", "missing_argument"},
		{`{"type":"write","data":1}`, "/stdin_steps/0/data", "invalid_type"},
		{`{"type":"write","data":"x","ms":1}`, "/stdin_steps/0/ms", "unknown_argument"},
		{`{"type":"sleep","ms":60001}`, "/stdin_steps/0/ms", "out_of_range"},
		{`{"type":"signal","signal":"SIGKILL"}`, "/stdin_steps/0/signal", "invalid_value"},
		{`{"type":"wait_output","literal":""}`, "/stdin_steps/0/literal", "out_of_range"},
		{`"write"`, "/stdin_steps/0", "invalid_type"},
	}
	for _, c := range cases {
		is := vdIssues(t, "capture_process_scenario", strings.Replace(base, "%s", c.step, 1))
		if is[0].Path != c.path || is[0].Reason != c.reason {
			t.Errorf("step %s: issues %+v, want %s %s", c.step, is, c.path, c.reason)
		}
	}
	is := vdIssues(t, "capture_process_scenario", strings.Replace(base, "%s", `{"type":"wait_output","literal":""}`, 1))
	if len(is) != 2 || is[1].Path != "/stdin_steps/0/timeout_ms" || is[1].Reason != "missing_argument" {
		t.Errorf("all issues of the selected branch: %+v", is)
	}
}

func TestDecodeIntegrityUnion(t *testing.T) {
	type issue struct{ path, reason string }
	bad := []struct {
		args string
		want issue
	}{
		{`{"integrity_policy":"record-and-continue"}`, issue{"/integrity_continue_approved", "missing_argument"}},
		{`{"integrity_policy":"record-and-continue","integrity_continue_approved":false}`, issue{"/integrity_continue_approved", "invalid_value"}},
		{`{"integrity_continue_approved":true}`, issue{"/integrity_policy", "invalid_value"}},
		{`{"integrity_policy":"fail","integrity_continue_approved":true}`, issue{"/integrity_policy", "invalid_value"}},
		{`{"integrity_policy":"other"}`, issue{"/integrity_policy", "invalid_value"}},
		{`{"integrity_continue_approved":"yes"}`, issue{"/integrity_continue_approved", "invalid_type"}},
	}
	for _, c := range bad {
		is := vdIssues(t, "inventory_artifact", c.args)
		if len(is) != 1 || is[0].Path != c.want.path || is[0].Reason != c.want.reason {
			t.Errorf("%s: issues %+v, want %+v", c.args, is, c.want)
		}
	}
	good := []struct {
		args     string
		policy   string
		approved bool
	}{
		{`{}`, "fail", false},
		{`{"integrity_policy":"fail"}`, "fail", false},
		{`{"integrity_continue_approved":false}`, "fail", false},
		{`{"integrity_policy":null,"integrity_continue_approved":null}`, "fail", false},
		{`{"integrity_policy":"record-and-continue","integrity_continue_approved":true,"max_integrity_mismatches":100}`, "record-and-continue", true},
	}
	for _, c := range good {
		p := vdDecodeOK(t, "inventory_artifact", c.args)
		if p["integrity_policy"] != c.policy || p["integrity_continue_approved"] != c.approved {
			t.Errorf("%s: %v %v", c.args, p["integrity_policy"], p["integrity_continue_approved"])
		}
		if p["max_integrity_mismatches"] == nil || p["node_limit"] != int64(100) || len(p) != 15 {
			t.Errorf("%s: params %#v", c.args, p)
		}
	}
}

func TestDecodeIntegerForms(t *testing.T) {
	for in, want := range map[string]int64{
		`1`: 1, `1.0`: 1, `1e2`: 100, `100e-2`: 1, `0.5e1`: 5, `-0`: 0, `9007199254740991`: 9007199254740991,
	} {
		p, err := vdTool(t, "list_procedures").Decode(json.RawMessage(`{"offset":` + in + `}`))
		if err != nil {
			t.Errorf("offset %s: %v", in, err)
			continue
		}
		if p["offset"] != want {
			t.Errorf("offset %s = %#v, want %d", in, p["offset"], want)
		}
	}
	for lit, want := range map[string]int{
		"0": schema.IntOK, "-9223372036854775808": schema.IntOK, "9223372036854775807": schema.IntOK,
		"9223372036854775808": schema.IntOverflow, "-9223372036854775809": schema.IntOverflow, "1e19": schema.IntOverflow,
		"1.5": schema.IntFraction, "1e-1": schema.IntFraction, "1e-999999999999": schema.IntFraction, "0e99999999999": schema.IntOK,
		"01": schema.IntInvalid, "1.": schema.IntInvalid, ".5": schema.IntInvalid, "+1": schema.IntInvalid, "1e": schema.IntInvalid,
		"": schema.IntInvalid, "-": schema.IntInvalid, "0x10": schema.IntInvalid, "NaN": schema.IntInvalid,
	} {
		if _, got := schema.ParseInteger(lit); got != want {
			t.Errorf("schema.ParseInteger(%q) kind %d, want %d", lit, got, want)
		}
	}
}

func TestDecodeMapArguments(t *testing.T) {
	s := vdTool(t, "read_function_instructions")
	p, err := s.Decode(map[string]any{"procedure": "0X00FF", "limit": float64(10), "offset": 3})
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Params{"procedure": "0X00FF", "limit": int64(10), "offset": int64(3), "document": nil}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("map args = %#v", p)
	}
	if _, err := s.Decode(map[string]any{"procedure": "x", "limit": 1.5}); !fault.Is(err, fault.InvalidRequest) {
		t.Errorf("fraction via map: %v", err)
	}
	if p, err := s.Decode(nil); err == nil || p != nil {
		t.Errorf("nil args for a tool with required arguments: %v", err)
	}
	// Typed Go values go through their JSON encoding.
	p, err = vdTool(t, "goto_address").Decode(struct {
		Address string `json:"address"`
	}{"401000"})
	if err != nil || p["address"] != "0x401000" {
		t.Errorf("struct args: %v %v", p, err)
	}
	if _, err := vdTool(t, "goto_address").Decode(map[string]any{"address": make(chan int)}); !fault.Is(err, fault.InvalidRequest) {
		t.Errorf("unencodable args: %v", err)
	}
}

func TestDecodeIssueCapAndOrder(t *testing.T) {
	ids := make([]string, 300)
	for i := range ids {
		ids[i] = `"bad"`
	}
	_, err := vdTool(t, "compare_artifacts").Decode(json.RawMessage(`{"left_evidence_ids":[` + strings.Join(ids[:100], ",") +
		`],"right_evidence_ids":[` + strings.Join(ids[:100], ",") + `]}`))
	var fe *fault.Error
	if !errors.As(err, &fe) {
		t.Fatal(err)
	}
	is := fe.Details["issues"].([]fault.Issue)
	if len(is) != schema.MaxIssues {
		t.Errorf("%d issues, want capped at %d", len(is), schema.MaxIssues)
	}
	if !sort.SliceIsSorted(is, func(i, j int) bool { return is[i].Path < is[j].Path }) {
		t.Error("issues not sorted by path")
	}
	// An oversized array is reported once, not item by item.
	is = vdIssues(t, "compare_artifacts", `{"left_evidence_ids":[`+strings.Join(ids[:101], ",")+`],"right_evidence_ids":["ev_`+strings.Repeat("a", 64)+`"]}`)
	if len(is) != 1 || is[0].Reason != "out_of_range" {
		t.Errorf("oversized array issues %+v", is)
	}
}

func TestDecodeDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	is := vdIssues(t, "capture_process_scenario", `{"executable":"/x","working_directory":"/","arguments":`+deep+`}`)
	if is[0].Path != "" || is[0].Reason != "invalid_type" {
		t.Errorf("deep nesting %+v", is)
	}
}

// TestDecodeIdempotent: decoding the encoded parameters yields them again, so
// Evidence parameters are a fixed point of Decode.
func TestDecodeIdempotent(t *testing.T) {
	cat := Catalog()
	for _, c := range vdFuzzSeeds {
		vdCheckFixedPoint(t, cat[c.tool%len(cat)], []byte(c.args))
	}
}

func vdCheckFixedPoint(t *testing.T, s catalog.Spec, data []byte) {
	t.Helper()
	p, err := s.Decode(json.RawMessage(data))
	if err != nil {
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest {
			t.Fatalf("%s %q: error %v is not invalid_request", s.Name, data, err)
		}
		is, ok := fe.Details["issues"].([]fault.Issue)
		if !ok || len(is) == 0 || len(is) > schema.MaxIssues {
			t.Fatalf("%s %q: issues %v", s.Name, data, fe.Details["issues"])
		}
		for i := 1; i < len(is); i++ {
			if is[i-1].Path > is[i].Path {
				t.Fatalf("%s %q: issues not sorted", s.Name, data)
			}
		}
		return
	}
	props := s.Input["properties"].(map[string]any)
	for name := range props {
		if _, ok := p[name]; !ok && !(name == "target" && s.TakesTarget()) { // an absent target is not a parameter
			t.Fatalf("%s %q: declared key %s absent from params", s.Name, data, name)
		}
	}
	b, err := canon.Marshal(map[string]any(p))
	if err != nil {
		t.Fatalf("%s %q: params not canonicalizable: %v", s.Name, data, err)
	}
	p2, err := s.Decode(json.RawMessage(b))
	if err != nil {
		t.Fatalf("%s %q: re-decoding %s: %v", s.Name, data, b, err)
	}
	if !reflect.DeepEqual(p, p2) {
		t.Fatalf("%s %q: not a fixed point:\n%#v\n%#v", s.Name, data, p, p2)
	}
}

var vdFuzzSeeds = []struct {
	tool int
	args string
}{
	{0, `{}`},
	{1, `{"document":"a","limit":1}`},
	{5, `{"address":"0X00FF","document":null}`},
	{9, `{"executable":"/bin/sh","working_directory":"/","stdin_steps":[{"type":"write","data":"x","sensitive":true}],"terminal":{}}`},
	{12, `{"integrity_policy":"record-and-continue","integrity_continue_approved":true}`},
	{20, `{"path":"/a","provider_id":"auto"}`},
	{30, `{"pattern":"x","mode":"regex","case_sensitive":true,"offset":1e2}`},
	{2, `{"input_path":"/a","limits":{"max_depth":0}}`},
	{17, `{"approved":true,"output_root":"/o","occurrence_ids":["occ_` + strings.Repeat("1", 64) + `"],"max_compression_ratio":1.25}`},
	{3, `{"detail":"capabilities","cursor":3,"limit":100,"capability_family":"provider"}`},
	{7, `{"evidence_ids":["ev_` + strings.Repeat("a", 64) + `"],"scope":"ledger"}`},
	{40, `{"a":{"b":[1,2,{"c":null}]}}`},
	{41, `[]`},
	{11, `null`},
	{13, `{"address":"1","address":"2"}`},
	{14, `{"limit":-0.0,"offset":1E+2}`},
}

func FuzzDecode(f *testing.F) {
	for _, s := range vdFuzzSeeds {
		f.Add(uint8(s.tool), []byte(s.args))
	}
	cat := Catalog()
	f.Fuzz(func(t *testing.T, tool uint8, data []byte) {
		vdCheckFixedPoint(t, cat[int(tool)%len(cat)], data)
	})
}

func TestDecodeUnicodeLength(t *testing.T) {
	vdDecodeOK(t, "search_strings", `{"pattern":"`+strings.Repeat("é", 256)+`"}`)
	vdDecodeOK(t, "set_address_name", `{"address":"1","name":"`+strings.Repeat("😀", 256)+`"}`)
}
