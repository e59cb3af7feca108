// Package schema is argument validation: a small, strict interpreter for exactly the JSON Schema
// subset the catalog uses (CONTRACTS.md §1, §2). It turns raw tool arguments
// into provider.Params: the input after `= v` defaults, every declared key
// present (absent optional keys nil), integers as int64, numbers as float64,
// addresses in the canonical output form (§1.3). Failures are invalid_request
// with JSON-Pointer issues (§1.7), collected and sorted by path.
//
// Supported keywords: type (string or array of names), properties, required,
// additionalProperties:false, items, minItems, maxItems, minLength, maxLength
// (Unicode characters), minimum, maximum, enum, const, pattern, default, oneOf,
// not, and the custom formats "rea-address" and "rea-absolute-path". Every other
// keyword (description, title, …) is an annotation and ignored.
//
// Why this interpreter rather than santhosh-tekuri/jsonschema/v6 (issue 24,
// decided by measurement: validate_bench_test.go; validate_fuzz_test.go holds
// the two to the same accept/reject on every tool's input schema):
//   - Decode validates and normalizes in one walk: defaults applied before a
//     union picks its branch, every declared key present, int64/float64,
//     canonical addresses, §1.7 issues at JSON Pointers. The library only
//     answers valid/invalid in its own error kinds, so this walk and an error
//     mapping would stay; only the keyword checks would go.
//   - Speed does not decide it: on generated arguments of every tool the
//     library's parse+validate uses 0.45–0.95× REA's CPU per call (typical valid
//     arguments 10.9 µs against 12.3 µs, BenchmarkValidate) before doing any of
//     that normalization; half of REA's time is its strict token parse
//     (duplicate keys, depth bound).
//   - Budgets do: the library evaluates number literals with math/big, so an
//     integer argument written 1e999999 costs it 46 ms of CPU against REA's
//     4.6 µs (BenchmarkValidateHostile), a capture_process_scenario call with
//     1,000 such steps about 50 s, and a "number" argument whose exponent
//     exceeds 1e6 makes it panic.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// Issue reasons of invalid_request (CONTRACTS.md §1.7).
const (
	vdUnknownArgument = "unknown_argument"
	vdMissingArgument = "missing_argument"
	vdInvalidType     = "invalid_type"
	vdOutOfRange      = "out_of_range"
	vdInvalidValue    = "invalid_value"
	vdInvalidFormat   = "invalid_format"
)

// Custom formats.
const (
	FormatAddress    = "rea-address"
	FormatAbsPath    = "rea-absolute-path"
	MaxIssues        = 100 // bound on reported issues, so a 10,000-item array cannot flood the envelope
	vdMaxParseDepth  = 64  // nesting bound of raw arguments; deeper than any declared shape
	vdAddressExpects = "address: optional 0x/0X prefix and 1..16 hexadecimal digits"
)

// Decode validates raw arguments against schema and returns the Evidence
// parameters (CONTRACTS.md §2, §7.2); operation names the tool in errors.
// args may be nil (no arguments), a json.RawMessage or []byte holding
// JSON, a string holding JSON, or a decoded map[string]any (numbers as
// float64, json.Number or Go integers). An explicit null for an optional
// key is the same as an absent key (§7.2: `{}` and `{document:null}` give
// the same parameters); null for a required key or an array item is
// invalid_type. Decode never panics; every failure is a *fault.Error with
// code invalid_request.
func Decode(operation string, schema map[string]any, args any) (provider.Params, error) {
	p, err := Parse(operation, args)
	if err != nil {
		return nil, err
	}
	return p.Decode(operation, schema)
}

// Parsed is a call's arguments parsed once into the value tree that
// Decode validates (numbers as json.Number), so that what a call needs
// before validation (its target) is read from the same parse.
type Parsed struct {
	root   any
	issues []fault.Issue // of the parse; reported with the validation's
}

// Parse parses args, in any form Decode accepts; unusable input is
// invalid_request. Parse never panics.
func Parse(operation string, args any) (p Parsed, err error) {
	defer func() {
		if r := recover(); r != nil { // defensive, as in Decode
			p, err = Parsed{}, fault.Internal(operation, fmt.Errorf("tools: decode %s: %v", operation, r))
		}
	}()
	st := &State{}
	root := st.arguments(args)
	if len(st.Issues) > 0 && root == nil {
		return Parsed{}, st.fail(operation)
	}
	return Parsed{root: root, issues: st.Issues}, nil
}

// String is the top-level argument key when it is a string, before
// validation ("" otherwise).
func (p Parsed) String(key string) string {
	m, _ := p.root.(map[string]any)
	v, _ := m[key].(string)
	return v
}

// Decode validates the parsed arguments against schema and returns the
// Evidence parameters, as the package-level Decode does. The result may
// share the parsed tree: decode a Parsed once.
func (p Parsed) Decode(operation string, schema map[string]any) (params provider.Params, err error) {
	defer func() {
		if r := recover(); r != nil { // defensive: a schema bug must not crash a handler
			params, err = nil, fault.Internal(operation, fmt.Errorf("tools: decode %s: %v", operation, r))
		}
	}()
	st := &State{Issues: append([]fault.Issue(nil), p.issues...)}
	out := st.Validate(schema, p.root, "")
	if len(st.Issues) > 0 {
		return nil, st.fail(operation)
	}
	m, ok := out.(map[string]any)
	if !ok {
		st.add(fault.Issue{Path: "", Reason: vdInvalidType, Message: "Arguments must be a JSON object.", Expected: "object"})
		return nil, st.fail(operation)
	}
	return provider.Params(m), nil
}

// State collects issues of one Decode.
type State struct {
	Issues []fault.Issue
}

func (st *State) add(is fault.Issue) { st.Issues = append(st.Issues, is) }

func (st *State) fail(operation string) error {
	is := append([]fault.Issue(nil), st.Issues...)
	sort.SliceStable(is, func(i, j int) bool {
		if is[i].Path != is[j].Path {
			return is[i].Path < is[j].Path
		}
		return is[i].Reason < is[j].Reason
	})
	if len(is) > MaxIssues {
		is = is[:MaxIssues]
	}
	return fault.Invalid(operation, is...)
}

// ---------------------------------------------------------------------------
// Raw arguments

// arguments turns the accepted argument forms into a JSON value tree whose
// numbers are json.Number. A nil result with issues means unusable input.
func (st *State) arguments(args any) any {
	switch a := args.(type) {
	case nil:
		return map[string]any{}
	case json.RawMessage:
		return st.ParseJSON(a)
	case []byte:
		return st.ParseJSON(a)
	case string:
		return st.ParseJSON([]byte(a))
	case map[string]any:
		if v, ok := vdPlain(a, 0); ok {
			return v
		}
	}
	// Anything else (structs, typed maps): through its JSON encoding.
	b, err := json.Marshal(args)
	if err != nil {
		st.add(fault.Issue{Path: "", Reason: vdInvalidType, Message: "Arguments must be a JSON object.", Expected: "object"})
		return nil
	}
	return st.ParseJSON(b)
}

// vdPlain copies a decoded map tree, converting numbers to json.Number; ok is
// false when a value is not one of the JSON-shaped Go types.
func vdPlain(v any, depth int) (any, bool) {
	if depth > vdMaxParseDepth {
		return nil, false
	}
	switch x := v.(type) {
	case nil, bool, string:
		return x, true
	case json.Number:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), true
	case float32:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 32)), true
	case int:
		return json.Number(strconv.FormatInt(int64(x), 10)), true
	case int8:
		return json.Number(strconv.FormatInt(int64(x), 10)), true
	case int16:
		return json.Number(strconv.FormatInt(int64(x), 10)), true
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), true
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), true
	case uint:
		return json.Number(strconv.FormatUint(uint64(x), 10)), true
	case uint8:
		return json.Number(strconv.FormatUint(uint64(x), 10)), true
	case uint16:
		return json.Number(strconv.FormatUint(uint64(x), 10)), true
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10)), true
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := vdPlain(e, depth+1)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, ok := vdPlain(e, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return nil, false
}

var errVdTooDeep = errors.New("arguments nest too deeply")

// parseJSON parses one JSON value strictly: numbers kept as json.Number,
// duplicate object keys reported, trailing data rejected. Empty input or a
// top-level null means no arguments.
func (st *State) ParseJSON(b []byte) any {
	if len(bytes.TrimSpace(b)) == 0 {
		return map[string]any{}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := st.parseValue(dec, "", 0)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("trailing data")
		}
	}
	if err != nil {
		msg := "Arguments must be one JSON object."
		if errors.Is(err, errVdTooDeep) {
			msg = fmt.Sprintf("Arguments nest deeper than %d levels.", vdMaxParseDepth)
		}
		st.Issues = append(st.Issues[:0], fault.Issue{Path: "", Reason: vdInvalidType, Message: msg, Expected: "object"})
		return nil
	}
	if v == nil {
		return map[string]any{}
	}
	return v
}

func (st *State) parseValue(dec *json.Decoder, path string, depth int) (any, error) {
	if depth > vdMaxParseDepth {
		return nil, errVdTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				child := path + "/" + vdEscape(k)
				v, err := st.parseValue(dec, child, depth+1)
				if err != nil {
					return nil, err
				}
				if _, dup := m[k]; dup {
					st.add(fault.Issue{Path: child, Reason: vdInvalidValue, Message: "The key appears more than once."})
				}
				m[k] = v
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return m, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := st.parseValue(dec, path+"/"+strconv.Itoa(len(a)), depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return a, nil
		}
		return nil, errors.New("unexpected delimiter")
	default:
		return t, nil // nil, bool, json.Number, string
	}
}

var vdPointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// vdEscape escapes one JSON Pointer reference token (RFC 6901).
func vdEscape(s string) string { return vdPointerEscaper.Replace(s) }

// ---------------------------------------------------------------------------
// Schema interpretation

// validate checks v against sc and returns the normalized value. Issues are
// added to st; the returned value is meaningful only when none were added.
func (st *State) Validate(sc map[string]any, v any, path string) any {
	if sc == nil {
		return v
	}
	if t, ok := sc["type"]; ok {
		if !vdTypeMatches(t, v) {
			st.add(fault.Issue{Path: path, Reason: vdInvalidType, Message: "Expected " + vdTypeText(t) + ".", Expected: vdTypeText(t)})
			return v
		}
	}
	var out any
	switch x := v.(type) {
	case map[string]any:
		out = st.object(sc, x, path)
		st.constEnum(sc, out, path)
	case []any:
		out = st.array(sc, x, path)
	case string:
		out = st.str(sc, x, path)
	case json.Number, int64, float64, int:
		out = st.number(sc, v, path)
	default: // bool, nil
		out = v
		st.constEnum(sc, v, path)
	}
	if not, ok := sc["not"].(map[string]any); ok {
		trial := &State{}
		trial.Validate(not, out, path)
		if len(trial.Issues) == 0 {
			st.add(fault.Issue{Path: path, Reason: vdInvalidValue, Message: "The value is not allowed here."})
		}
	}
	return out
}

// vdTypeMatches reports whether v is an instance of the type keyword t.
func vdTypeMatches(t any, v any) bool {
	switch tt := t.(type) {
	case string:
		return vdIsType(tt, v)
	case []string:
		for _, n := range tt {
			if vdIsType(n, v) {
				return true
			}
		}
	case []any:
		for _, n := range tt {
			if s, ok := n.(string); ok && vdIsType(s, v) {
				return true
			}
		}
	}
	return false
}

func vdIsType(name string, v any) bool {
	switch name {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := vdNumberLiteral(v)
		return ok
	case "integer":
		lit, ok := vdNumberLiteral(v)
		if !ok {
			return false
		}
		_, kind := ParseInteger(lit)
		return kind == IntOK || kind == IntOverflow // overflow is out_of_range, not a type error
	}
	return false
}

func vdTypeText(t any) string {
	switch tt := t.(type) {
	case string:
		return tt
	case []string:
		return strings.Join(tt, "|")
	case []any:
		parts := make([]string, 0, len(tt))
		for _, n := range tt {
			parts = append(parts, fmt.Sprint(n))
		}
		return strings.Join(parts, "|")
	}
	return fmt.Sprint(t)
}

// vdAllowsNull reports whether null is a value of sc: no type constraint, or
// a type list naming null.
func vdAllowsNull(sc map[string]any) bool {
	if _, typed := sc["type"]; !typed {
		return true
	}
	return HasType(sc, "null")
}

func HasType(sc map[string]any, name string) bool {
	switch tt := sc["type"].(type) {
	case string:
		return tt == name
	case []string:
		for _, n := range tt {
			if n == name {
				return true
			}
		}
	case []any:
		for _, n := range tt {
			if n == name {
				return true
			}
		}
	}
	return false
}

// object validates properties, unknown keys, required keys, defaults and a
// oneOf union. Absent optional declared keys end up present with nil.
func (st *State) object(sc map[string]any, v map[string]any, path string) any {
	props, _ := sc["properties"].(map[string]any)
	required := Strings(sc["required"])
	out := make(map[string]any, len(props)+len(v))

	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	closed := false
	if ap, ok := sc["additionalProperties"].(bool); ok && !ap {
		closed = true
	}
	for _, k := range keys {
		if _, declared := props[k]; declared {
			continue
		}
		if closed {
			st.add(fault.Issue{Path: path + "/" + vdEscape(k), Reason: vdUnknownArgument, Message: "This argument is not accepted by the tool."})
			continue
		}
		out[k] = v[k]
	}

	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	checked := names
	for _, r := range required { // required keys a branch constrains without declaring them
		if _, declared := props[r]; !declared && !Contains(checked, r) {
			checked = append(checked[:len(checked):len(checked)], r)
		}
	}
	for _, name := range checked {
		psc, _ := props[name].(map[string]any)
		child := path + "/" + vdEscape(name)
		val, present := v[name]
		isRequired := Contains(required, name)
		if _, declared := props[name]; !declared {
			if !present {
				st.add(fault.Issue{Path: child, Reason: vdMissingArgument, Message: "This argument is required."})
			}
			continue
		}
		if present && val == nil && !vdAllowsNull(psc) {
			if isRequired {
				st.add(fault.Issue{Path: child, Reason: vdInvalidType, Message: "This argument must not be null.", Expected: vdTypeText(psc["type"])})
				continue
			}
			present = false // optional null ≡ absent
		}
		switch {
		case present:
			out[name] = st.Validate(psc, val, child)
		case isRequired:
			is := fault.Issue{Path: child, Reason: vdMissingArgument, Message: "This argument is required."}
			if c, ok := psc["const"]; ok {
				is.Expected = vdJSONText(c)
			}
			st.add(is)
		default:
			if def, ok := psc["default"]; ok {
				out[name] = st.Validate(psc, DeepCopy(def), child)
			}
		}
	}

	for _, kw := range []string{"oneOf", "anyOf"} {
		if branches, ok := sc[kw].([]any); ok && !st.touched(path, vdBranchProperties(branches)) {
			if r, ok := st.oneOf(branches, out, path, kw == "anyOf").(map[string]any); ok {
				out = r
			}
		}
	}

	for _, name := range names {
		if _, ok := out[name]; !ok {
			out[name] = nil
		}
	}
	return out
}

// touched reports whether an issue was already recorded at or below one of
// the named properties of the object at path.
func (st *State) touched(path string, names []string) bool {
	for _, is := range st.Issues {
		for _, n := range names {
			p := path + "/" + vdEscape(n)
			if is.Path == p || strings.HasPrefix(is.Path, p+"/") {
				return true
			}
		}
	}
	return false
}

func vdBranchProperties(branches []any) []string {
	var names []string
	for _, b := range branches {
		bs, _ := b.(map[string]any)
		props, _ := bs["properties"].(map[string]any)
		for k := range props {
			if !Contains(names, k) {
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	return names
}

// oneOf selects the single branch v validates against (with any, the first
// of those it validates against: anyOf) and returns v as that branch
// normalizes it (branch defaults applied). Without a matching branch it
// reports the issues of the branch the input evidently meant: the first branch
// one of whose const-valued properties the input carries; otherwise, when all
// branches discriminate on one const property, that property's issue.
func (st *State) oneOf(branches []any, v any, path string, firstMatch bool) any {
	var matched []int
	var outs []any
	for i, b := range branches {
		bs, _ := b.(map[string]any)
		trial := &State{}
		o := trial.Validate(bs, DeepCopy(v), path)
		if len(trial.Issues) == 0 {
			matched = append(matched, i)
			outs = append(outs, o)
		}
	}
	switch {
	case len(matched) == 1 || (firstMatch && len(matched) > 1):
		return outs[0]
	case len(matched) == 0:
	default:
		st.add(fault.Issue{Path: path, Reason: vdInvalidValue, Message: "The arguments match more than one alternative."})
		return v
	}
	m, isObj := v.(map[string]any)
	if isObj {
		for _, b := range branches {
			bs, _ := b.(map[string]any)
			props, _ := bs["properties"].(map[string]any)
			for _, name := range vdSortedKeys(props) {
				psc, _ := props[name].(map[string]any)
				c, hasConst := psc["const"]
				if val, present := m[name]; hasConst && present && vdEqual(val, c) {
					return st.Validate(bs, v, path)
				}
			}
		}
		if disc, consts := vdDiscriminator(branches); disc != "" {
			child := path + "/" + vdEscape(disc)
			expected := strings.Join(consts, "|")
			if val, present := m[disc]; !present || val == nil {
				st.add(fault.Issue{Path: child, Reason: vdMissingArgument, Message: "This argument is required.", Expected: expected})
			} else {
				st.add(fault.Issue{Path: child, Reason: vdInvalidValue, Message: "Expected one of " + expected + ".", Expected: expected})
			}
			return v
		}
	}
	bs, _ := branches[0].(map[string]any)
	return st.Validate(bs, v, path)
}

// vdDiscriminator finds the first property (by name) that has a const in
// every branch, with the branch consts rendered as text.
func vdDiscriminator(branches []any) (string, []string) {
	if len(branches) == 0 {
		return "", nil
	}
	first, _ := branches[0].(map[string]any)
	props, _ := first["properties"].(map[string]any)
	for _, name := range vdSortedKeys(props) {
		var consts []string
		all := true
		for _, b := range branches {
			bs, _ := b.(map[string]any)
			bp, _ := bs["properties"].(map[string]any)
			psc, _ := bp[name].(map[string]any)
			c, ok := psc["const"]
			if !ok {
				all = false
				break
			}
			consts = append(consts, vdText(c))
		}
		if all {
			return name, consts
		}
	}
	return "", nil
}

func (st *State) array(sc map[string]any, v []any, path string) any {
	n := int64(len(v))
	lo, hasLo := vdSchemaInt(sc["minItems"])
	hi, hasHi := vdSchemaInt(sc["maxItems"])
	if (hasLo && n < lo) || (hasHi && n > hi) {
		is := fault.Issue{Path: path, Reason: vdOutOfRange, Message: "The number of items is out of range."}
		if hasLo {
			is.Minimum = vdPtr(lo)
		}
		if hasHi {
			is.Maximum = vdPtr(hi)
		}
		st.add(is)
		if hasHi && n > hi {
			return v // do not validate an oversized array item by item
		}
	}
	out := make([]any, len(v))
	items, _ := sc["items"].(map[string]any)
	for i, e := range v {
		child := path + "/" + strconv.Itoa(i)
		if e == nil && items != nil && !vdAllowsNull(items) {
			st.add(fault.Issue{Path: child, Reason: vdInvalidType, Message: "Items must not be null.", Expected: vdTypeText(items["type"])})
			continue
		}
		out[i] = st.Validate(items, e, child)
		if len(st.Issues) > MaxIssues {
			break
		}
	}
	st.constEnum(sc, out, path)
	return out
}

func (st *State) str(sc map[string]any, s string, path string) any {
	n := int64(utf8.RuneCountInString(s))
	lo, hasLo := vdSchemaInt(sc["minLength"])
	hi, hasHi := vdSchemaInt(sc["maxLength"])
	if (hasLo && n < lo) || (hasHi && n > hi) {
		is := fault.Issue{Path: path, Reason: vdOutOfRange, Message: "The length in characters is out of range."}
		if hasLo {
			is.Minimum = vdPtr(lo)
		}
		if hasHi {
			is.Maximum = vdPtr(hi)
		}
		st.add(is)
		return s
	}
	if !st.constEnum(sc, s, path) {
		return s
	}
	if p, ok := sc["pattern"].(string); ok {
		re, err := vdPattern(p)
		if err != nil || !re.MatchString(s) {
			st.add(fault.Issue{Path: path, Reason: vdInvalidFormat, Message: "The value does not have the required form.", Expected: vdPatternExpectation(sc, p)})
			return s
		}
	}
	switch sc["format"] {
	case FormatAddress:
		a, ok := vdNormalizeAddress(s)
		if !ok {
			st.add(fault.Issue{Path: path, Reason: vdInvalidFormat, Message: "Expected a hexadecimal address.", Expected: vdAddressExpects})
			return s
		}
		return a
	case FormatAbsPath:
		if !strings.HasPrefix(s, "/") || strings.IndexByte(s, 0) >= 0 {
			st.add(fault.Issue{Path: path, Reason: vdInvalidValue, Message: "Expected an absolute path.", Expected: "absolute POSIX path starting with /"})
			return s
		}
	}
	return s
}

func vdPatternExpectation(sc map[string]any, p string) string {
	if sc["format"] == FormatAddress {
		return vdAddressExpects
	}
	return "pattern " + p
}

// number validates an integer or number value; integers become int64 and
// numbers float64. A value under a schema without a numeric type is only
// checked against const/enum and kept as it is.
func (st *State) number(sc map[string]any, v any, path string) any {
	lit, ok := vdNumberLiteral(v)
	if !ok {
		st.add(fault.Issue{Path: path, Reason: vdInvalidType, Message: "Expected a number.", Expected: "number"})
		return v
	}
	isInt, isNum := HasType(sc, "integer"), HasType(sc, "number")
	if !isInt && !isNum {
		st.constEnum(sc, v, path)
		return v
	}
	if isInt {
		i, kind := ParseInteger(lit)
		switch {
		case kind == IntOverflow:
			st.rangeIssue(sc, path)
			return v
		case kind == IntOK:
			lo, hasLo := vdSchemaInt(sc["minimum"])
			hi, hasHi := vdSchemaInt(sc["maximum"])
			if (hasLo && i < lo) || (hasHi && i > hi) {
				st.rangeIssue(sc, path)
				return v
			}
			st.constEnum(sc, i, path)
			return i
		case !isNum:
			st.add(fault.Issue{Path: path, Reason: vdInvalidType, Message: "Expected an integer.", Expected: "integer"})
			return v
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
		st.rangeIssue(sc, path)
		return v
	}
	lo, hasLo := vdSchemaFloat(sc["minimum"])
	hi, hasHi := vdSchemaFloat(sc["maximum"])
	if (hasLo && f < lo) || (hasHi && f > hi) {
		st.rangeIssue(sc, path)
		return v
	}
	st.constEnum(sc, f, path)
	return f
}

func (st *State) rangeIssue(sc map[string]any, path string) {
	is := fault.Issue{Path: path, Reason: vdOutOfRange, Message: "The value is out of range."}
	if lo, ok := vdSchemaInt(sc["minimum"]); ok {
		is.Minimum = vdPtr(lo)
	}
	if hi, ok := vdSchemaInt(sc["maximum"]); ok {
		is.Maximum = vdPtr(hi)
	}
	st.add(is)
}

// constEnum checks const and enum; it reports whether v passed.
func (st *State) constEnum(sc map[string]any, v any, path string) bool {
	if c, ok := sc["const"]; ok && !vdEqual(v, c) {
		st.add(fault.Issue{Path: path, Reason: vdInvalidValue, Message: "Expected " + vdJSONText(c) + ".", Expected: vdJSONText(c)})
		return false
	}
	if e, ok := sc["enum"]; ok {
		vals := vdAnySlice(e)
		for _, c := range vals {
			if vdEqual(v, c) {
				return true
			}
		}
		texts := make([]string, len(vals))
		for i, c := range vals {
			texts[i] = vdText(c)
		}
		exp := strings.Join(texts, "|")
		st.add(fault.Issue{Path: path, Reason: vdInvalidValue, Message: "Expected one of " + exp + ".", Expected: exp})
		return false
	}
	return true
}

// ---------------------------------------------------------------------------
// Numbers

const (
	IntOK = iota
	IntFraction
	IntOverflow
	IntInvalid
)

// vdNumberLiteral renders a numeric value as a JSON number literal.
func vdNumberLiteral(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !vdValidNumber(s) {
			return "", false
		}
		return s, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.FormatInt(int64(x), 10), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	return "", false
}

func vdValidNumber(s string) bool {
	_, kind := ParseInteger(s)
	return kind != IntInvalid
}

// ParseInteger classifies a JSON number literal exactly (no float
// rounding): an integral value within int64, a non-integral value, an
// integral value outside int64, or not a JSON number at all.
func ParseInteger(lit string) (int64, int) {
	i, n := 0, len(lit)
	neg := false
	if i < n && lit[i] == '-' {
		neg = true
		i++
	}
	start := i
	for i < n && lit[i] >= '0' && lit[i] <= '9' {
		i++
	}
	intDigits := lit[start:i]
	if len(intDigits) == 0 || (len(intDigits) > 1 && intDigits[0] == '0') {
		return 0, IntInvalid
	}
	frac := ""
	if i < n && lit[i] == '.' {
		i++
		s := i
		for i < n && lit[i] >= '0' && lit[i] <= '9' {
			i++
		}
		frac = lit[s:i]
		if frac == "" {
			return 0, IntInvalid
		}
	}
	exp := 0
	if i < n && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		eneg := false
		if i < n && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		s := i
		for i < n && lit[i] >= '0' && lit[i] <= '9' {
			if exp < 1_000_000_000 {
				exp = exp*10 + int(lit[i]-'0')
			}
			i++
		}
		if i == s {
			return 0, IntInvalid
		}
		if eneg {
			exp = -exp
		}
	}
	if i != n {
		return 0, IntInvalid
	}
	digits := strings.TrimLeft(intDigits+frac, "0")
	e := exp - len(frac)
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		e++
	}
	if digits == "" {
		return 0, IntOK
	}
	if e < 0 {
		return 0, IntFraction
	}
	if len(digits)+e > 19 {
		return 0, IntOverflow
	}
	u, err := strconv.ParseUint(digits+strings.Repeat("0", e), 10, 64)
	if err != nil {
		return 0, IntOverflow
	}
	if neg {
		if u > 1<<63 {
			return 0, IntOverflow
		}
		return int64(-u), IntOK //nolint:gosec // u ≤ 2^63: two's complement negation is exact
	}
	if u > math.MaxInt64 {
		return 0, IntOverflow
	}
	return int64(u), IntOK
}

// vdSchemaInt reads an integral schema number (bounds, lengths).
func vdSchemaInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), true
		}
	case json.Number:
		if i, k := ParseInteger(string(x)); k == IntOK {
			return i, true
		}
	}
	return 0, false
}

func vdSchemaFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func vdPtr(i int64) *int64 { return &i }

// ---------------------------------------------------------------------------
// Addresses, patterns, helpers

// vdNormalizeAddress accepts an optional 0x/0X prefix and 1..16 hex digits in
// any case and renders the canonical output form (CONTRACTS.md §1.3).
func vdNormalizeAddress(s string) (string, bool) {
	h := s
	if strings.HasPrefix(h, "0x") || strings.HasPrefix(h, "0X") {
		h = h[2:]
	}
	if len(h) < 1 || len(h) > 16 {
		return "", false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return "", false
		}
	}
	u, err := strconv.ParseUint(h, 16, 64)
	if err != nil {
		return "", false
	}
	return provider.FormatAddress(u), true
}

var vdPatterns sync.Map // pattern → *regexp.Regexp

func vdPattern(p string) (*regexp.Regexp, error) {
	if re, ok := vdPatterns.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	vdPatterns.Store(p, re)
	return re, nil
}

// vdEqual is JSON equality for scalars (numbers by value) and, structurally,
// for arrays and objects.
func vdEqual(a, b any) bool {
	if la, ok := vdNumberLiteral(a); ok {
		lb, ok := vdNumberLiteral(b)
		if !ok {
			return false
		}
		ia, ka := ParseInteger(la)
		ib, kb := ParseInteger(lb)
		if ka == IntOK && kb == IntOK {
			return ia == ib
		}
		fa, ea := strconv.ParseFloat(la, 64)
		fb, eb := strconv.ParseFloat(lb, 64)
		return ea == nil && eb == nil && fa == fb
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y := vdAnySlice(b)
		if y == nil || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !vdEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !vdEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func vdAnySlice(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return nil
}

func Strings(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func Contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func vdSortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// vdText renders a scalar for messages: strings bare, others as JSON.
func vdText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return vdJSONText(v)
}

func vdJSONText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// DeepCopy copies maps and slices so defaults never alias the schema.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	}
	return v
}
