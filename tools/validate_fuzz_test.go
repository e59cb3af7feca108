package tools

// Differential test of REA's argument validator (tools/schema/validate.go) against
// santhosh-tekuri/jsonschema/v6, an independent draft 2020-12 validator
// (issue 24 item 6). For every tool of the catalog both must agree on
// accept/reject; each issue REA reports must have a library error at, above
// or below its JSON Pointer, and at that very location one of the keyword
// REA's reason names (vdaLibError says where the library cannot tell).
//
// The library is given what a switch to it would give it: the schema Decode
// enforces (Input plus the unpublished top-level union), with the two
// custom formats registered and format assertion on, after REA's
// pre-validation normalize step expressed in library terms:
//
//   - N1 empty, blank or `null` arguments are no arguments, `{}` (MCP lets a
//     client omit them).
//   - N2 an optional key set to null is the key absent (CONTRACTS.md §7.2);
//     each optional property schema P becomes anyOf[{type:null}, P].
//
// Differences that stay deliberate, checked rather than skipped:
//
//   - D1 duplicate object keys: REA rejects them (invalid_value at the key),
//     encoding/json under the library keeps the last one silently.
//   - D2 nesting deeper than vdaMaxDepth: REA rejects before validating.
//   - D3 the library panics (nil *big.Rat) on a number literal whose
//     exponent math/big refuses (|exp| > 1e6) under minimum/maximum of a
//     "number" property: REA must reject such input, and does (out_of_range).
//
// Every other disagreement fails the test.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/tools/catalog"
)

// vdaREA is the one entry into REA's argument validator used by this file
// and validate_bench_test.go (validator: tools/schema, through catalog.Spec.Decode): the schema Decode enforces for s and the Decode
// call itself. Retarget it when the validator moves.
func vdaREA(s catalog.Spec) (enforced map[string]any, decode func(raw []byte) (provider.Params, error)) {
	enforced = make(map[string]any, len(s.Input)+1)
	for k, v := range s.Input {
		enforced[k] = v
	}
	if len(s.InputUnion) > 0 {
		enforced["oneOf"] = s.InputUnion
	}
	return enforced, func(raw []byte) (provider.Params, error) { return s.Decode(json.RawMessage(raw)) }
}

// vdaMaxDepth is validate.go's nesting bound of raw arguments (D2).
const vdaMaxDepth = 64

// vdaTool is one catalog tool with both validators ready.
type vdaTool struct {
	name      string
	decode    func([]byte) (provider.Params, error)
	enforced  map[string]any     // the schema Decode enforces (plain JSON types)
	lib       *jsonschema.Schema // enforced + N2, compiled by the library
	published *jsonschema.Schema // the published inputSchema + N2
}

// vdaLoad compiles every tool's schemas once.
func vdaLoad(tb testing.TB) []vdaTool {
	tb.Helper()
	cat := Catalog()
	out := make([]vdaTool, len(cat))
	for i, s := range cat {
		enforced, decode := vdaREA(s)
		plain, err := vdaPlainJSON(enforced)
		if err != nil {
			tb.Fatalf("%s: %v", s.Name, err)
		}
		lib, err := vdaCompile(vdaNullableOptional(plain))
		if err != nil {
			tb.Fatalf("%s: enforced input schema does not compile: %v", s.Name, err)
		}
		pub, err := vdaPlainJSON(s.InputSchema())
		if err != nil {
			tb.Fatalf("%s: %v", s.Name, err)
		}
		published, err := vdaCompile(vdaNullableOptional(pub))
		if err != nil {
			tb.Fatalf("%s: published input schema does not compile: %v", s.Name, err)
		}
		out[i] = vdaTool{name: s.Name, decode: decode, enforced: plain.(map[string]any), lib: lib, published: published}
	}
	return out
}

// vdaPlainJSON turns a schema built from Go values (int64, []string, …) into
// the JSON value tree the library takes.
func vdaPlainJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// vdaCompile compiles one input schema with the library as a switch would:
// draft 2020-12, format assertion on, REA's two formats registered.
func vdaCompile(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "rea-address", Validate: vdaLibAddress})
	c.RegisterFormat(&jsonschema.Format{Name: "rea-absolute-path", Validate: vdaLibAbsPath})
	const url = "urn:rea:input"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// The two custom formats, written from CONTRACTS.md §1.3 and §2 rather than
// taken from validate.go, so that the comparison is independent.
var vdaAddressForm = regexp.MustCompile(`^(0[xX])?[0-9a-fA-F]{1,16}$`)

func vdaLibAddress(v any) error {
	if s, ok := v.(string); ok && !vdaAddressForm.MatchString(s) {
		return errors.New("not an address")
	}
	return nil
}

func vdaLibAbsPath(v any) error {
	if s, ok := v.(string); ok && (!strings.HasPrefix(s, "/") || strings.ContainsRune(s, 0)) {
		return errors.New("not an absolute path")
	}
	return nil
}

// vdaNullableOptional is N2: every optional property P of every object
// schema becomes anyOf[{type:null}, P]; required properties stay non-null.
func vdaNullableOptional(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = vdaNullableOptional(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = vdaNullableOptional(e)
		}
		props, ok := out["properties"].(map[string]any)
		if !ok {
			return out
		}
		required := map[string]bool{}
		if rs, ok := x["required"].([]any); ok {
			for _, r := range rs {
				if s, ok := r.(string); ok {
					required[s] = true
				}
			}
		}
		for name, p := range props {
			if !required[name] {
				props[name] = map[string]any{"anyOf": []any{map[string]any{"type": "null"}, p}}
			}
		}
		return out
	}
	return v
}

// vdaArgs is N1.
func vdaArgs(raw []byte) []byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return []byte("{}")
	}
	return raw
}

// vdaLibValidate parses and validates with the library; panicked reports a
// panic inside the library (D3).
func vdaLibValidate(sch *jsonschema.Schema, raw []byte) (parsed bool, err error, panicked bool) {
	inst, perr := jsonschema.UnmarshalJSON(bytes.NewReader(vdaArgs(raw)))
	if perr != nil {
		return false, perr, false
	}
	defer func() {
		if r := recover(); r != nil {
			panicked = true
			err = fmt.Errorf("library panic: %v", r)
		}
	}()
	return true, sch.Validate(inst), false
}

// vdaShape walks raw as JSON tokens: whether some object repeats a key (D1)
// and the deepest nesting (root value = 0, as validate.go counts).
func vdaShape(raw []byte) (dup bool, depth int) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		obj    bool
		keys   map[string]bool
		expKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return dup, depth
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expKey {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					dup = true
				}
				stack[n-1].keys[k] = true
				stack[n-1].expKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) > depth {
				depth = len(stack)
			}
			stack = append(stack, &frame{obj: tok == json.Delim('{'), keys: map[string]bool{}, expKey: true})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if len(stack) > depth {
				depth = len(stack)
			}
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].expKey = true
		}
	}
}

// vdaIssues returns the issues of an invalid_request; any other error kind
// fails the test.
func vdaIssues(t testing.TB, tool string, raw []byte, err error) []fault.Issue {
	t.Helper()
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest {
		t.Fatalf("%s %q: error %v is not invalid_request", tool, raw, err)
	}
	is, _ := fe.Details["issues"].([]fault.Issue)
	if len(is) == 0 {
		t.Fatalf("%s %q: invalid_request without issues", tool, raw)
	}
	return is
}

// vdaLibError is one leaf error of the library: where, the §1.7 reason REA
// gives for that keyword, and whether any reason may stand there:
//   - the leaf is a branch of a union (anyOf/oneOf) the input matches none
//     of, where REA reports the branch the input evidently meant, or the
//     discriminator as invalid_value with the allowed values;
//   - the keyword is one the library stops at (type, const, enum, format):
//     it then checks nothing else at that location, while REA checks
//     lengths before enum and pattern.
type vdaLibError struct {
	path, reason string
	union, stops bool
}

// vdaReason maps a library error kind to the §1.7 issue reason REA reports
// for the same keyword. A union the input matches no branch of (anyOf,
// oneOf) has its branches' leaves as well.
func vdaReason(k jsonschema.ErrorKind) string {
	switch k.(type) {
	case *kind.Required:
		return "missing_argument"
	case *kind.AdditionalProperties:
		return "unknown_argument"
	case *kind.Type:
		return "invalid_type"
	case *kind.Minimum, *kind.Maximum, *kind.MinLength, *kind.MaxLength, *kind.MinItems, *kind.MaxItems:
		return "out_of_range"
	case *kind.Pattern:
		return "invalid_format"
	case *kind.Format:
		return "invalid_format|invalid_value" // an address is invalid_format, a path invalid_value
	}
	return "invalid_value" // enum, const, not, oneOf matching several branches
}

// vdaLibErrors lists the library's leaf errors; required and
// additionalProperties point at the named properties, as REA's
// missing_argument and unknown_argument do.
func vdaLibErrors(err error) []vdaLibError {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []vdaLibError{{path: "", reason: "invalid_type"}}
	}
	var out []vdaLibError
	var walk func(e *jsonschema.ValidationError, union bool)
	walk = func(e *jsonschema.ValidationError, union bool) {
		if t, ok := e.ErrorKind.(*kind.Type); ok && slices.Equal(t.Want, []string{"null"}) {
			return // the null alternative of N2, not a keyword of the catalog
		}
		if len(e.Causes) > 0 {
			switch e.ErrorKind.(type) {
			case *kind.AnyOf, *kind.OneOf:
				n := 0
				for _, c := range e.Causes {
					if t, ok := c.ErrorKind.(*kind.Type); !ok || !slices.Equal(t.Want, []string{"null"}) {
						n++
					}
				}
				union = union || n > 1
			}
			for _, c := range e.Causes {
				walk(c, union)
			}
			return
		}
		base := ""
		for _, tok := range e.InstanceLocation {
			base += "/" + vdaEscape(tok)
		}
		reason := vdaReason(e.ErrorKind)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				out = append(out, vdaLibError{base + "/" + vdaEscape(m), reason, union, false})
			}
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				out = append(out, vdaLibError{base + "/" + vdaEscape(p), reason, union, false})
			}
		case *kind.Type, *kind.Const, *kind.Enum, *kind.Format:
			out = append(out, vdaLibError{base, reason, union, true})
		default:
			out = append(out, vdaLibError{base, reason, union, false})
		}
	}
	walk(ve, false)
	return out
}

func vdaEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// vdaRelated: one pointer is the other or lies below it.
func vdaRelated(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// vdaOutcome is what the differential check concluded for one input.
type vdaOutcome int

const (
	vdaBothAccept vdaOutcome = iota
	vdaBothReject
	vdaDeliberate // D1–D3: REA rejects, the library is not asked or cannot answer
)

// vdaDiff runs both validators on raw for tool and fails t on any
// disagreement that is not one of D1–D3.
func vdaDiff(t testing.TB, tool vdaTool, raw []byte) vdaOutcome {
	t.Helper()
	_, reaErr := tool.decode(raw)
	var issues []fault.Issue
	if reaErr != nil {
		issues = vdaIssues(t, tool.name, raw, reaErr)
	}
	if dup, depth := vdaShape(raw); dup || depth > vdaMaxDepth {
		if reaErr == nil {
			t.Errorf("%s %q: REA accepts input with a duplicate key or nesting %d (D1/D2)", tool.name, raw, depth)
		}
		return vdaDeliberate
	}
	parsed, libErr, panicked := vdaLibValidate(tool.lib, raw)
	switch {
	case panicked:
		if reaErr == nil {
			t.Errorf("%s %q: REA accepts what the library panics on: %v", tool.name, raw, libErr)
		}
		return vdaDeliberate
	case !parsed:
		if reaErr == nil {
			t.Errorf("%s %q: REA accepts input that is not one JSON value: %v", tool.name, raw, libErr)
		}
		return vdaBothReject
	case reaErr == nil && libErr != nil:
		t.Errorf("%s %q: REA accepts, the library rejects: %v", tool.name, raw, libErr)
		return vdaBothAccept
	case reaErr != nil && libErr == nil:
		t.Errorf("%s %q: REA rejects %+v, the library accepts", tool.name, raw, issues)
		return vdaBothReject
	case reaErr == nil:
		// A client that validates the published (looser) inputSchema must
		// never refuse what the server accepts.
		if _, perr, ppanic := vdaLibValidate(tool.published, raw); perr != nil || ppanic {
			t.Errorf("%s %q: REA accepts, the published inputSchema rejects: %v", tool.name, raw, perr)
		}
		return vdaBothAccept
	}
	lib := vdaLibErrors(libErr)
	for _, is := range issues {
		placed, same := false, false
		for _, le := range lib {
			if vdaRelated(is.Path, le.path) {
				placed = true
				exact := is.Path == le.path
				if le.union || exact && (le.stops || slices.Contains(strings.Split(le.reason, "|"), is.Reason)) {
					same = true
				}
			}
		}
		switch {
		case !placed:
			t.Errorf("%s %q: REA issue %s at %q; the library's errors are at %v:\n%v",
				tool.name, raw, is.Reason, is.Path, lib, libErr)
		case !same:
			t.Errorf("%s %q: REA issue %s at %q; no library error of that keyword there: %v:\n%v",
				tool.name, raw, is.Reason, is.Path, lib, libErr)
		}
	}
	return vdaBothReject
}

// ---------------------------------------------------------------------------
// Arguments generated from each schema: the seeds of the fuzz target and the
// inputs of the benchmark.

// vdaKinds are the generated argument kinds, valid first.
var vdaKinds = []string{
	"valid-minimal", "valid-typical",
	"wrong-type", "missing-required", "extra-property", "out-of-range", "bad-pattern-enum",
}

type vdaCase struct {
	kind  string
	tool  int
	args  []byte
	valid bool
}

// vdaPatternSamples are tried in order for a string with a pattern; a new
// pattern that none matches fails the generator, so it cannot go untested.
var vdaPatternSamples = []string{
	"0x401000", "auto", "HOME",
	"ev_" + strings.Repeat("a", 64), "occ_" + strings.Repeat("b", 64), strings.Repeat("c", 64),
	"01234567-89ab-cdef-0123-456789abcdef",
}

// vdaCases generates, for every tool, the kinds of vdaKinds that its schema
// can express (a tool without required keys has no missing-required case).
func vdaCases(tb testing.TB, tools []vdaTool) []vdaCase {
	tb.Helper()
	var out []vdaCase
	for i, tool := range tools {
		g := vdaGen{tb: tb, tool: tool.name}
		add := func(kind string, v map[string]any, valid bool) {
			if v == nil {
				return
			}
			b, err := json.Marshal(v)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, vdaCase{kind: kind, tool: i, args: b, valid: valid})
		}
		sc := tool.enforced
		minimal := g.object(sc, false)
		typical := g.object(sc, true)
		add("valid-minimal", minimal, true)
		add("valid-typical", typical, true)
		add("wrong-type", g.mutate(sc, typical, vdaWrongType), false)
		if req := vdaRequired(sc); len(req) > 0 {
			m := vdaClone(minimal)
			delete(m, req[0])
			add("missing-required", m, false)
		}
		extra := vdaClone(typical)
		extra["unexpected_argument"] = 1
		add("extra-property", extra, false)
		add("out-of-range", g.mutate(sc, typical, vdaOutOfRange), false)
		add("bad-pattern-enum", g.mutate(sc, typical, vdaBadForm), false)
	}
	return out
}

type vdaGen struct {
	tb   testing.TB
	tool string
}

func (g vdaGen) object(sc map[string]any, typical bool) map[string]any {
	props, _ := sc["properties"].(map[string]any)
	req := vdaRequired(sc)
	if len(props) == 0 {
		for _, kw := range []string{"anyOf", "oneOf"} { // an item that is one of several shapes
			if bs, ok := sc[kw].([]any); ok && len(bs) > 0 {
				b, _ := bs[0].(map[string]any)
				return g.object(b, typical)
			}
		}
	}
	out := map[string]any{}
	for _, name := range vdaKeys(props) {
		if name == "target" { // unpublished; a client omits it
			continue
		}
		if !typical && !slices.Contains(req, name) {
			continue
		}
		p, _ := props[name].(map[string]any)
		out[name] = g.value(p, typical)
	}
	return out
}

func (g vdaGen) value(sc map[string]any, typical bool) any {
	if c, ok := sc["const"]; ok {
		return c
	}
	if d, ok := sc["default"]; ok && typical {
		switch d.(type) {
		case []any, map[string]any: // an empty default: generate a filled value instead
		default:
			return d
		}
	}
	if e, ok := sc["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch sc["type"] {
	case "string":
		switch sc["format"] {
		case "rea-address":
			return "0x401000"
		case "rea-absolute-path":
			return "/tmp/rea-input"
		}
		if p, ok := sc["pattern"].(string); ok {
			re := regexp.MustCompile(p)
			for _, s := range vdaPatternSamples {
				if re.MatchString(s) {
					return s
				}
			}
			g.tb.Fatalf("%s: no sample string matches pattern %s; add one to vdaPatternSamples", g.tool, p)
		}
		n := 0
		if lo, ok := vdaNum(sc["minLength"]); ok {
			n = int(lo)
		}
		if typical && n < 4 {
			n = 4
		}
		if hi, ok := vdaNum(sc["maxLength"]); ok && n > int(hi) {
			n = int(hi)
		}
		return strings.Repeat("m", n)
	case "integer", "number":
		if lo, ok := vdaNum(sc["minimum"]); ok {
			return lo
		}
		return 0
	case "boolean":
		return false
	case "array":
		items, _ := sc["items"].(map[string]any)
		n := 0
		if lo, ok := vdaNum(sc["minItems"]); ok {
			n = int(lo)
		}
		if typical && n < 2 {
			n = 2
		}
		if hi, ok := vdaNum(sc["maxItems"]); ok && n > int(hi) {
			n = int(hi)
		}
		branches, _ := items["anyOf"].([]any)
		if typical && len(branches) > n {
			n = len(branches) // one item of each shape
		}
		if hi, ok := vdaNum(sc["maxItems"]); ok && n > int(hi) {
			n = int(hi)
		}
		a := make([]any, n)
		for i := range a {
			if len(branches) > 0 {
				b, _ := branches[i%len(branches)].(map[string]any)
				a[i] = g.object(b, typical)
				continue
			}
			a[i] = g.value(items, typical)
		}
		return a
	case "object":
		return g.object(sc, typical)
	}
	g.tb.Fatalf("%s: cannot generate a value for %v", g.tool, sc)
	return nil
}

// mutate returns a copy of valid with the first property (by name, required
// keys first; present or not) that f can spoil spoiled, or nil when f
// spoils none.
func (g vdaGen) mutate(sc map[string]any, valid map[string]any, f func(map[string]any) (any, bool)) map[string]any {
	props, _ := sc["properties"].(map[string]any)
	req := vdaRequired(sc)
	names := vdaKeys(props)
	sort.SliceStable(names, func(i, j int) bool { return slices.Contains(req, names[i]) && !slices.Contains(req, names[j]) })
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		if bad, ok := f(p); ok {
			m := vdaClone(valid)
			m[name] = bad
			return m
		}
	}
	return nil
}

func vdaWrongType(sc map[string]any) (any, bool) {
	switch sc["type"] {
	case "string":
		return 17, true
	case "integer", "number":
		return "17", true
	case "boolean":
		return "true", true
	case "array":
		return map[string]any{}, true
	case "object":
		return []any{}, true
	}
	return nil, false
}

func vdaOutOfRange(sc map[string]any) (any, bool) {
	if hi, ok := vdaNum(sc["maximum"]); ok {
		return hi + 1, true
	}
	if hi, ok := vdaNum(sc["maxLength"]); ok {
		return strings.Repeat("m", int(hi)+1), true
	}
	if lo, ok := vdaNum(sc["minimum"]); ok {
		return lo - 1, true
	}
	return nil, false
}

func vdaBadForm(sc map[string]any) (any, bool) {
	if _, ok := sc["pattern"]; ok {
		return "not the form!", true
	}
	if _, ok := sc["format"]; ok {
		return "not the form!", true
	}
	if _, ok := sc["enum"]; ok && sc["type"] == "string" {
		return "not_in_the_enum", true
	}
	return nil, false
}

func vdaRequired(sc map[string]any) []string {
	rs, _ := sc["required"].([]any)
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func vdaKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func vdaNum(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func vdaClone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// variants are values for a property of schema sc: generic and boundary
// values, and, for objects and arrays, a valid value with one member or item
// replaced by each of that member's variants.
func (g vdaGen) variants(sc map[string]any) []any {
	num := func(i int64) json.Number { return json.Number(strconv.FormatInt(i, 10)) }
	out := []any{
		nil, true, false, json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("1e2"),
		json.Number("-0.0"), json.Number("1.0"), json.Number("99999999999999999999"), json.Number("1e400"),
		json.Number("9223372036854775808"), json.Number("-9223372036854775809"),
		"", "x", "0x", "0X00ff", "0x" + strings.Repeat("f", 16), "0x1" + strings.Repeat("0", 16), "/", "/a\x00b", "relative",
		[]any{}, []any{nil}, map[string]any{}, map[string]any{"type": "sleep"},
	}
	out = append(out, func() []any {
		a := make([]any, len(vdaPatternSamples))
		for i, s := range vdaPatternSamples {
			a[i] = s
		}
		return a
	}()...)
	for _, kw := range []string{"minimum", "maximum"} {
		if n, ok := vdaNum(sc[kw]); ok {
			out = append(out, num(n-1), num(n), num(n+1), json.Number(strconv.FormatInt(n, 10)+".5"))
		}
	}
	for _, kw := range []string{"minLength", "maxLength"} {
		if n, ok := vdaNum(sc[kw]); ok {
			for _, l := range []int64{n - 1, n, n + 1} {
				if l >= 0 {
					out = append(out, strings.Repeat("m", int(l)), strings.Repeat("é", int(l)))
				}
			}
		}
	}
	if e, ok := sc["enum"].([]any); ok {
		for _, v := range e {
			out = append(out, v)
			if s, ok := v.(string); ok {
				out = append(out, strings.ToUpper(s), s+" ")
			}
		}
	}
	if c, ok := sc["const"]; ok {
		out = append(out, c)
	}
	if p, ok := sc["pattern"].(string); ok {
		re := regexp.MustCompile(p)
		for _, s := range vdaPatternSamples {
			if re.MatchString(s) {
				out = append(out, strings.ToUpper(s), s[:len(s)-1], s+"0")
			}
		}
	}
	switch sc["type"] {
	case "object":
		shapes := []map[string]any{sc}
		if _, ok := sc["properties"]; !ok {
			for _, kw := range []string{"anyOf", "oneOf"} {
				bs, _ := sc[kw].([]any)
				for _, b := range bs {
					bm, _ := b.(map[string]any)
					shapes = append(shapes, bm)
				}
			}
		}
		for _, shape := range shapes {
			props, _ := shape["properties"].(map[string]any)
			base := g.object(shape, true)
			for _, name := range vdaKeys(props) {
				p, _ := props[name].(map[string]any)
				for _, v := range g.variants(p) {
					m := vdaClone(base)
					m[name] = v
					out = append(out, m)
				}
			}
		}
	case "array":
		items, _ := sc["items"].(map[string]any)
		valid := g.value(sc, true).([]any)
		for _, n := range []string{"minItems", "maxItems"} {
			if l, ok := vdaNum(sc[n]); ok && len(valid) > 0 {
				for _, k := range []int64{l - 1, l, l + 1} {
					if k >= 0 && k <= 10001 {
						a := make([]any, k)
						for i := range a {
							a[i] = valid[0]
						}
						out = append(out, a)
					}
				}
			}
		}
		for _, v := range g.variants(items) {
			out = append(out, []any{v})
			if len(valid) > 0 {
				out = append(out, []any{valid[0], v})
			}
		}
	}
	return out
}

// TestValidateBoundarySweep runs the differential check on every tool with
// each property (and each nested member and array item) of a typical and a
// minimal valid argument object, and of {}, replaced by each of its variants
// (about 28,000 inputs).
func TestValidateBoundarySweep(t *testing.T) {
	tools := vdaLoad(t)
	counts := map[vdaOutcome]int{}
	for _, tool := range tools {
		g := vdaGen{tb: t, tool: tool.name}
		props, _ := tool.enforced["properties"].(map[string]any)
		bases := []map[string]any{g.object(tool.enforced, true), g.object(tool.enforced, false), {}}
		if testing.Short() { // the typical base alone: a third of the time
			bases = bases[:1]
		}
		for _, base := range bases {
			for _, name := range vdaKeys(props) {
				p, _ := props[name].(map[string]any)
				for _, v := range g.variants(p) {
					m := vdaClone(base)
					m[name] = v
					raw, err := json.Marshal(m)
					if err != nil {
						t.Fatal(err)
					}
					counts[vdaDiff(t, tool, raw)]++
				}
			}
		}
	}
	t.Logf("accepted by both %d, rejected by both %d, deliberate %d",
		counts[vdaBothAccept], counts[vdaBothReject], counts[vdaDeliberate])
	if counts[vdaBothAccept] == 0 || counts[vdaBothReject] == 0 {
		t.Errorf("the sweep is one-sided: %v", counts)
	}
}

// ---------------------------------------------------------------------------

// TestValidateCasesAgree checks the generated arguments of every tool: the
// valid ones accepted by both validators, the invalid ones rejected by both
// at the same place; every tool has at least a valid and three invalid kinds.
func TestValidateCasesAgree(t *testing.T) {
	tools := vdaLoad(t)
	perTool := map[int]int{}
	for _, c := range vdaCases(t, tools) {
		got := vdaDiff(t, tools[c.tool], c.args)
		if (got == vdaBothAccept) != c.valid {
			t.Errorf("%s %s %s: outcome %d, want valid=%v", tools[c.tool].name, c.kind, c.args, got, c.valid)
		}
		perTool[c.tool]++
	}
	for i, tool := range tools {
		if perTool[i] < 4 { // valid-minimal, valid-typical, wrong-type, extra-property at least
			t.Errorf("%s: only %d generated cases", tool.name, perTool[i])
		}
	}
}

// TestValidateDeliberateDifferences pins D1–D3 and N1–N2 with one input each,
// so that the fuzz target's allowances stay justified.
func TestValidateDeliberateDifferences(t *testing.T) {
	tools := vdaLoad(t)
	byName := map[string]vdaTool{}
	for _, tool := range tools {
		byName[tool.name] = tool
	}
	cases := []struct {
		tool, args string
		want       vdaOutcome
		libPanics  bool
	}{
		{"list_procedures", ``, vdaBothAccept, false},                                                                    // N1
		{"list_procedures", `null`, vdaBothAccept, false},                                                                // N1
		{"list_procedures", `{"limit":null,"document":null}`, vdaBothAccept, false},                                      // N2
		{"goto_address", `{"address":null}`, vdaBothReject, false},                                                       // N2: required stays non-null
		{"inventory_artifact", `{"integrity_continue_approved":null}`, vdaBothAccept, false},                             // N2 under the union
		{"list_procedures", `{"limit":5,"limit":6}`, vdaDeliberate, false},                                               // D1
		{"list_procedures", `{"limit":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, vdaDeliberate, false}, // D2
		{"extract_artifact", `{"max_compression_ratio":1e2000000}`, vdaDeliberate, true},                                 // D3
	}
	for _, c := range cases {
		tool := byName[c.tool]
		if got := vdaDiff(t, tool, []byte(c.args)); got != c.want {
			t.Errorf("%s %s: outcome %d, want %d", c.tool, c.args, got, c.want)
		}
		_, _, panicked := vdaLibValidate(tool.lib, []byte(c.args))
		if panicked != c.libPanics {
			t.Errorf("%s %s: library panicked=%v, want %v (if the library is fixed, drop D3)", c.tool, c.args, panicked, c.libPanics)
		}
	}
}

// FuzzValidateAgainstLibrary: fuzz input = tool index (mod the catalog) and
// argument bytes; both validators must agree (vdaDiff). Seeds: every
// generated case of every tool, and the deliberate differences.
func FuzzValidateAgainstLibrary(f *testing.F) {
	tools := vdaLoad(f)
	for _, c := range vdaCases(f, tools) {
		f.Add(uint8(c.tool), c.args)
	}
	for i, tool := range tools {
		switch tool.name {
		case "inventory_artifact":
			for _, s := range []string{
				`{"integrity_policy":"record-and-continue","integrity_continue_approved":true}`,
				`{"integrity_policy":"record-and-continue"}`,
				`{"integrity_continue_approved":true}`,
				`{"integrity_policy":"fail","integrity_continue_approved":false,"edge_limit":1.0}`,
			} {
				f.Add(uint8(i), []byte(s))
			}
		case "capture_process_scenario":
			f.Add(uint8(i), []byte(`{"executable":"/bin/sh","working_directory":"/","stdin_steps":[{"type":"write","data":"x"},{"type":"sleep","ms":1e1},{"type":"wait_output","literal":"$","timeout_ms":5},{"type":"signal","signal":"SIGINT"},{"type":"close_stdin"}],"environment_names":["TERM"],"terminal":{"rows":null}}`))
		case "extract_artifact":
			f.Add(uint8(i), []byte(`{"approved":true,"output_root":"/o","occurrence_ids":["occ_`+strings.Repeat("1", 64)+`"],"max_compression_ratio":1e2000000}`))
		case "list_procedures":
			f.Add(uint8(i), []byte(`{"limit":5,"limit":6}`))
			f.Add(uint8(i), []byte(`{"offset":-0.0,"limit":1E+2,"document":null}`))
			f.Add(uint8(i), []byte(`{"offset":99999999999999999999}`))
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		vdaDiff(t, tools[int(tool)%len(tools)], args)
	})
}
