package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// member is one key of a JSON object with its value's bytes, undecoded.
type member struct {
	key string
	raw json.RawMessage
}

// object is a JSON object in document order. Values stay raw, so a reader
// can pick one exact key (encoding/json's struct matching is
// case-insensitive) and a writer can keep every other key as it was.
type object []member

// parseObject parses data as exactly one JSON object.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	obj := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errNotObject
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		obj = append(obj, member{key, raw})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return obj, nil
}

var (
	errNotObject = errors.New("not a JSON object")
	errTrailing  = errors.New("data after the top-level value")
)

// get is the value of key (the last one when a key repeats, as JSON.parse
// does), or nil.
func (o object) get(key string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return o[i].raw
		}
	}
	return nil
}

// set replaces key's value in place (dropping repeats) or appends it.
func (o object) set(key string, raw json.RawMessage) object {
	out := make(object, 0, len(o)+1)
	done := false
	for _, m := range o {
		if m.key != key {
			out = append(out, m)
		} else if !done {
			out = append(out, member{key, raw})
			done = true
		}
	}
	if !done {
		out = append(out, member{key, raw})
	}
	return out
}

// without drops every member whose key is in keys.
func (o object) without(keys ...string) object {
	out := make(object, 0, len(o))
	for _, m := range o {
		drop := false
		for _, k := range keys {
			drop = drop || m.key == k
		}
		if !drop {
			out = append(out, m)
		}
	}
	return out
}

// marshal renders the object, two-space indented; raw values are re-indented
// but otherwise kept byte for byte.
func (o object) marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalNoEscape(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.raw)
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// marshalNoEscape is json.Marshal without HTML escaping (paths and keys are
// written as a person would).
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// remoteKeys mark an entry that reaches a server by URL rather than by
// starting a command (Claude Code and Cursor `url`, Gemini `httpUrl`,
// Windsurf `serverUrl`).
var remoteKeys = []string{"url", "httpUrl", "serverUrl"}

// readJSONEntry finds table.rea in a JSON registration file.
func readJSONEntry(table string, data []byte) entry {
	top, err := parseObject(data)
	if err != nil {
		return entry{invalid: jsonProblem(data, err)}
	}
	servers := top.get(table)
	if servers == nil || isNull(servers) {
		return entry{}
	}
	tbl, err := parseObject(servers)
	if err != nil {
		return entry{invalid: table + " is not an object"}
	}
	raw := tbl.get(ServerKey)
	if raw == nil {
		return entry{}
	}
	e := entry{present: true}
	obj, err := parseObject(raw)
	if err != nil {
		e.invalid = "the " + ServerKey + " entry is not an object"
		return e
	}
	for _, k := range remoteKeys {
		e.remote = e.remote || obj.get(k) != nil
	}
	if c := obj.get("command"); c != nil {
		var s string
		if json.Unmarshal(c, &s) != nil {
			e.invalid = "command is not a non-empty string"
			return e
		}
		e.command = &s
	}
	if a := obj.get("args"); a != nil && !isNull(a) {
		args, ok := stringArray(a)
		if !ok {
			e.invalid = "args is not an array of strings"
			return e
		}
		e.args = args
	}
	return e
}

// stringArray decodes a JSON array whose elements are all strings (a null
// element is not a string).
func stringArray(raw json.RawMessage) ([]string, bool) {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil || elems == nil {
		return nil, false
	}
	out := make([]string, 0, len(elems))
	for _, el := range elems {
		var s string
		if len(el) == 0 || el[0] != '"' || json.Unmarshal(el, &s) != nil {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonProblem describes a parse failure by position only: a syntax error's
// message can quote the bytes it stopped at.
func jsonProblem(data []byte, err error) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset)
		return fmt.Sprintf("not valid JSON (line %d, column %d)", line, col)
	case errors.Is(err, errNotObject):
		return "the top level is not a JSON object"
	case errors.Is(err, errTrailing):
		return "data after the top-level JSON object"
	}
	return "not valid JSON"
}

// lineCol is the 1-based line and column of byte offset off.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// setJSONEntry returns data with table.rea pointing at exe (created when
// data is nil). Other keys of the entry (env above all) are kept; the URL
// and transport keys of a remote entry are dropped, since the entry now
// starts a command.
func setJSONEntry(table string, data []byte, exe string) ([]byte, error) {
	return editJSONEntry(table, data, func(ent object) (object, error) {
		ent = ent.without(remoteKeys...)
		if t := ent.get("type"); t != nil {
			var s string
			if json.Unmarshal(t, &s) != nil || s != "stdio" {
				ent = ent.without("type")
			}
		}
		cmd, err := marshalNoEscape(exe)
		if err != nil {
			return nil, err
		}
		args, _ := marshalNoEscape(mcpArgs)
		return ent.set("command", cmd).set("args", args), nil
	})
}

// setJSONHTTPEntry returns data with table.rea naming the HTTP server srv
// in c's keys (editHTTP), the other headers of the entry kept.
func setJSONHTTPEntry(c Client, data []byte, srv *HTTPServer) ([]byte, error) {
	return editJSONEntry(c.Table, data, func(ent object) (object, error) {
		drop, url, auth := editHTTP(c, srv)
		hdrs := object{}
		if raw := ent.get(c.HeadersKey); raw != nil && !isNull(raw) {
			var err error
			if hdrs, err = parseObject(raw); err != nil {
				return nil, errors.New(c.HeadersKey + " is not an object")
			}
		}
		kept := object{}
		for _, m := range hdrs {
			if !strings.EqualFold(m.key, "Authorization") {
				kept = append(kept, m)
			}
		}
		rawAuth, err := marshalNoEscape(auth)
		if err != nil {
			return nil, err
		}
		rawHdrs, err := kept.set("Authorization", rawAuth).marshal()
		if err != nil {
			return nil, err
		}
		rawURL, err := marshalNoEscape(url)
		if err != nil {
			return nil, err
		}
		ent = ent.without(drop...)
		if c.HTTPType != "" {
			t, _ := marshalNoEscape(c.HTTPType)
			ent = ent.set("type", t)
		}
		return ent.set(c.URLKey, rawURL).set(c.HeadersKey, rawHdrs), nil
	})
}

// editJSONEntry returns data with table.rea replaced by edit of it (an
// empty entry when there is none; the file created when data is nil),
// every other key of the file kept.
func editJSONEntry(table string, data []byte, edit func(object) (object, error)) ([]byte, error) {
	top := object{}
	if data != nil {
		var err error
		if top, err = parseObject(data); err != nil {
			return nil, errors.New(jsonProblem(data, err))
		}
	}
	tbl := object{}
	if raw := top.get(table); raw != nil && !isNull(raw) {
		var err error
		if tbl, err = parseObject(raw); err != nil {
			return nil, errors.New(table + " is not an object")
		}
	}
	ent := object{}
	if raw := tbl.get(ServerKey); raw != nil {
		var err error
		if ent, err = parseObject(raw); err != nil {
			return nil, errors.New("the " + ServerKey + " entry is not an object")
		}
	}
	ent, err := edit(ent)
	if err != nil {
		return nil, err
	}
	rawEnt, err := ent.marshal()
	if err != nil {
		return nil, err
	}
	tbl = tbl.set(ServerKey, rawEnt)
	rawTbl, err := tbl.marshal()
	if err != nil {
		return nil, err
	}
	return top.set(table, rawTbl).marshal()
}

// readJSONHTTPEntry reads the keys of table.rea that registersHTTP checks,
// exactly as spelled, and nothing else of the file.
func readJSONHTTPEntry(c Client, data []byte) httpEntry {
	var e httpEntry
	top, err := parseObject(data)
	if err != nil {
		return e
	}
	tbl, err := parseObject(top.get(c.Table))
	if err != nil {
		return e
	}
	ent, err := parseObject(tbl.get(ServerKey))
	if err != nil {
		return e
	}
	str := func(raw json.RawMessage, out *string) bool {
		return raw == nil || (len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, out) == nil)
	}
	hdrs, err := parseObject(ent.get(c.HeadersKey))
	if err != nil {
		return e
	}
	auths := 0
	for _, m := range hdrs {
		if strings.EqualFold(m.key, "Authorization") {
			auths++
			if !str(m.raw, &e.authorization) {
				return e
			}
		}
	}
	if auths != 1 {
		e.authorization = ""
	}
	e.command = ent.get("command") != nil
	e.ok = str(ent.get(c.URLKey), &e.url) && str(ent.get("type"), &e.typ)
	return e
}
