package doctor

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// readTOMLEntry finds table.rea in a TOML registration file.
//
// The document is checked once by the decoder (into an empty struct: every
// rule of TOML, nothing stored) and then walked expression by expression
// with the parser, which matches keys exactly; decoding into a struct would
// match `[mcp_servers.REA]` or `COMMAND` case-insensitively, and decoding
// into a map would read every env block.
func readTOMLEntry(table string, data []byte) entry {
	var none struct{}
	if err := toml.Unmarshal(data, &none); err != nil {
		return entry{invalid: tomlProblem(err)}
	}
	w := tomlWalk{table: table}
	p := unstable.Parser{}
	p.Reset(data)
	for p.NextExpression() {
		expr := p.Expression()
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			w.prefix = keyPath(nil, expr.Key())
			w.header(expr.Kind == unstable.ArrayTable)
		case unstable.KeyValue:
			// The decoder skipped values it had nowhere to store; a bad one
			// (a time of 00:, an integer out of range) makes the file as
			// unparsable for the client as a syntax error.
			if !scalarsValid(expr.Value()) {
				return entry{invalid: fmt.Sprintf("not valid TOML (line %d: a value does not parse)", p.Shape(expr.Raw).Start.Line)}
			}
			if w.e.invalid == "" {
				w.keyValue(keyPath(w.prefix, expr.Key()), expr.Value())
			}
		}
	}
	if err := p.Error(); err != nil && w.e.invalid == "" {
		// The decoder accepted what the parser refuses: treat as unparsable.
		return entry{invalid: "not valid TOML"}
	}
	return w.e
}

// scalarsValid checks every number, date and time under v by decoding it
// alone. Strings (env values among them) were already checked by the parser
// and are not decoded again.
func scalarsValid(v *unstable.Node) bool {
	switch v.Kind {
	case unstable.Array, unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			n := it.Node()
			if n.Kind == unstable.KeyValue {
				n = n.Value()
			}
			if !scalarsValid(n) {
				return false
			}
		}
	case unstable.Integer, unstable.Float, unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		var one struct {
			V any `toml:"v"`
		}
		return toml.Unmarshal(append([]byte("v = "), v.Data...), &one) == nil
	}
	return true
}

type tomlWalk struct {
	table  string
	prefix []string // the current [table] header
	e      entry
}

func keyPath(prefix []string, it unstable.Iterator) []string {
	path := slices.Clone(prefix)
	for it.Next() {
		path = append(path, string(it.Node().Data))
	}
	return path
}

// header handles a [table] or [[array table]] line.
func (w *tomlWalk) header(array bool) {
	h := w.prefix
	if len(h) == 0 || h[0] != w.table {
		return
	}
	if len(h) >= 2 && h[1] == ServerKey {
		w.e.present = true
	}
	if array && len(h) == 1 {
		w.e.invalid = w.table + " is not a table"
	}
	if array && len(h) == 2 && h[1] == ServerKey {
		w.e.invalid = "the " + ServerKey + " entry is not a table"
	}
}

// keyValue handles one key = value at its full path.
func (w *tomlWalk) keyValue(path []string, v *unstable.Node) {
	if len(path) == 0 || path[0] != w.table {
		return
	}
	switch {
	case len(path) == 1:
		if v.Kind != unstable.InlineTable {
			w.e.invalid = w.table + " is not a table"
			return
		}
		w.inline(path, v)
	case path[1] != ServerKey:
		return
	case len(path) == 2:
		w.e.present = true
		if v.Kind != unstable.InlineTable {
			w.e.invalid = "the " + ServerKey + " entry is not a table"
			return
		}
		w.inline(path, v)
	case len(path) == 3:
		w.e.present = true
		w.field(path[2], v)
	default:
		w.e.present = true // a dotted key below the entry, e.g. rea.env.X
	}
}

// inline walks the key/values of an inline table at path.
func (w *tomlWalk) inline(path []string, v *unstable.Node) {
	it := v.Children()
	for it.Next() && w.e.invalid == "" {
		kv := it.Node()
		if kv.Kind == unstable.KeyValue {
			w.keyValue(keyPath(path, kv.Key()), kv.Value())
		}
	}
}

// field records one key of the entry; env and other keys are not looked at.
func (w *tomlWalk) field(name string, v *unstable.Node) {
	switch name {
	case "command":
		if v.Kind != unstable.String {
			w.e.invalid = "command is not a non-empty string"
			return
		}
		s := string(v.Data)
		w.e.command = &s
	case "args":
		if v.Kind != unstable.Array {
			w.e.invalid = "args is not an array of strings"
			return
		}
		args := []string{}
		it := v.Children()
		for it.Next() {
			n := it.Node()
			if n.Kind != unstable.String {
				w.e.invalid = "args is not an array of strings"
				return
			}
			args = append(args, string(n.Data))
		}
		w.e.args = args
	default:
		if slices.Contains(remoteKeys, name) {
			w.e.remote = true
		}
	}
}

// tomlProblem describes a decode failure by position only.
func tomlProblem(err error) string {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Sprintf("not valid TOML (line %d, column %d)", row, col)
	}
	return "not valid TOML"
}

// setTOMLEntry returns data with table.rea pointing at exe (created when
// data is nil). The document is decoded and encoded again, so comments and
// key order are not kept (CONTRACTS.md §12 allows it); every key is.
func setTOMLEntry(table string, data []byte, exe string) ([]byte, error) {
	return editTOMLEntry(table, data, func(ent map[string]any) error {
		for _, k := range remoteKeys {
			delete(ent, k)
		}
		if t, ok := ent["type"]; ok && t != "stdio" {
			delete(ent, "type")
		}
		ent["command"] = exe
		ent["args"] = slices.Clone(mcpArgs)
		return nil
	})
}

// setTOMLHTTPEntry returns data with table.rea naming the HTTP server srv
// in c's keys (editHTTP), the other headers of the entry kept.
func setTOMLHTTPEntry(c Client, data []byte, srv *HTTPServer) ([]byte, error) {
	return editTOMLEntry(c.Table, data, func(ent map[string]any) error {
		drop, url, auth := editHTTP(c, srv)
		hdrs := map[string]any{}
		if v, ok := ent[c.HeadersKey]; ok {
			if hdrs, ok = v.(map[string]any); !ok {
				return errors.New(c.HeadersKey + " is not a table")
			}
		}
		for k := range hdrs {
			if strings.EqualFold(k, "Authorization") {
				delete(hdrs, k)
			}
		}
		hdrs["Authorization"] = auth
		for _, k := range drop {
			delete(ent, k)
		}
		if c.HTTPType != "" {
			ent["type"] = c.HTTPType
		}
		ent[c.URLKey] = url
		ent[c.HeadersKey] = hdrs
		return nil
	})
}

// editTOMLEntry returns data with table.rea replaced by edit of it (an
// empty table when there is none; the file created when data is nil).
func editTOMLEntry(table string, data []byte, edit func(map[string]any) error) ([]byte, error) {
	doc := map[string]any{}
	if data != nil {
		if err := toml.Unmarshal(data, &doc); err != nil {
			return nil, errors.New(tomlProblem(err))
		}
	}
	tbl := map[string]any{}
	if v, ok := doc[table]; ok {
		if tbl, ok = v.(map[string]any); !ok {
			return nil, errors.New(table + " is not a table")
		}
	}
	ent := map[string]any{}
	if v, ok := tbl[ServerKey]; ok {
		if ent, ok = v.(map[string]any); !ok {
			return nil, errors.New("the " + ServerKey + " entry is not a table")
		}
	}
	if err := edit(ent); err != nil {
		return nil, err
	}
	tbl[ServerKey] = ent
	doc[table] = tbl
	return toml.Marshal(doc)
}

// readTOMLHTTPEntry reads the keys of table.rea that registersHTTP checks.
// Setup decodes the whole document anyway to rewrite it; keys are matched
// exactly.
func readTOMLHTTPEntry(c Client, data []byte) httpEntry {
	var e httpEntry
	doc := map[string]any{}
	if toml.Unmarshal(data, &doc) != nil {
		return e
	}
	tbl, _ := doc[c.Table].(map[string]any)
	ent, ok := tbl[ServerKey].(map[string]any)
	if !ok {
		return e
	}
	hdrs, ok := ent[c.HeadersKey].(map[string]any)
	if !ok {
		return e
	}
	auths := 0
	for k, v := range hdrs {
		if strings.EqualFold(k, "Authorization") {
			auths++
			if e.authorization, ok = v.(string); !ok {
				return e
			}
		}
	}
	if auths != 1 {
		e.authorization = ""
	}
	str := func(key string, out *string) bool {
		v, present := ent[key]
		if !present {
			return true
		}
		*out, ok = v.(string)
		return ok
	}
	_, e.command = ent["command"]
	e.ok = str(c.URLKey, &e.url) && str("type", &e.typ)
	return e
}
