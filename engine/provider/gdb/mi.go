package gdb

import (
	"errors"
	"fmt"
	"strconv"
)

// GDB/MI output syntax (GDB manual, "GDB/MI Output Syntax"):
//
//	record     = [token] ("^" | "*" | "+" | "=") class ("," result)*
//	           | ("~" | "@" | "&") c-string
//	           | "(gdb)" [" "]
//	result     = variable "=" value
//	value      = c-string | "{" [result ("," result)*] "}"
//	           | "[" [value ("," value)* | result ("," result)*] "]"
//
// Every line gdb writes is parsed by ParseRecord; nothing else interprets
// gdb's bytes, and a line that does not parse is an error, never a guess.

// RecordKind discriminates MI output records.
type RecordKind uint8

const (
	KindResult      RecordKind = iota + 1 // ^done, ^error, ^running, ^connected, ^exit
	KindExecAsync                         // *
	KindStatusAsync                       // +
	KindNotifyAsync                       // =
	KindConsole                           // ~ console stream
	KindTarget                            // @ target stream
	KindLog                               // & log stream
	KindPrompt                            // (gdb)
)

// Record is one parsed MI output line.
type Record struct {
	Kind     RecordKind
	Token    uint64
	HasToken bool
	Class    string   // result or async class
	Results  []Result // for result and async records
	Text     string   // decoded c-string of a stream record
}

// Result is one variable=value pair; Name is "" for the items of a value list.
type Result struct {
	Name  string
	Value Value
}

// ValueKind discriminates MI values.
type ValueKind uint8

const (
	ValueString ValueKind = iota + 1
	ValueTuple
	ValueList
)

// Value is an MI value: a string, a tuple of results, or a list (of values,
// whose Results have empty names, or of results).
type Value struct {
	Kind    ValueKind
	Str     string
	Results []Result
}

// Field returns the first result named name in a tuple (or result list).
func (v Value) Field(name string) (Value, bool) {
	for _, r := range v.Results {
		if r.Name == name {
			return r.Value, true
		}
	}
	return Value{}, false
}

// String returns the string field name of a tuple, and whether it was a string.
func (v Value) String(name string) (string, bool) {
	f, ok := v.Field(name)
	if !ok || f.Kind != ValueString {
		return "", false
	}
	return f.Str, true
}

// Items returns the values of a list (or tuple).
func (v Value) Items() []Value {
	out := make([]Value, len(v.Results))
	for i, r := range v.Results {
		out[i] = r.Value
	}
	return out
}

// Field looks up a top-level result of a record.
func (r Record) Field(name string) (Value, bool) {
	return Value{Kind: ValueTuple, Results: r.Results}.Field(name)
}

// maxDepth bounds tuple/list nesting so hostile input cannot exhaust the stack.
const maxDepth = 64

// ErrSyntax is wrapped by every parse failure.
var ErrSyntax = errors.New("gdb/mi: malformed record")

type miParser struct {
	b []byte
	i int
}

func (p *miParser) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrSyntax, what, p.i)
}

func (p *miParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// ParseRecord parses one MI output line, without its line terminator (a
// trailing "\r" is ignored).
func ParseRecord(line []byte) (Record, error) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if s := string(line); s == "(gdb) " || s == "(gdb)" {
		return Record{Kind: KindPrompt}, nil
	}
	p := &miParser{b: line}
	var rec Record
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i > start {
		t, err := strconv.ParseUint(string(p.b[start:p.i]), 10, 64)
		if err != nil {
			return Record{}, p.fail("token out of range")
		}
		rec.Token, rec.HasToken = t, true
	}
	if p.i >= len(p.b) {
		return Record{}, p.fail("missing record type")
	}
	c := p.b[p.i]
	p.i++
	switch c {
	case '~', '@', '&':
		if rec.HasToken {
			return Record{}, p.fail("token on a stream record")
		}
		rec.Kind = map[byte]RecordKind{'~': KindConsole, '@': KindTarget, '&': KindLog}[c]
		s, err := p.cstring()
		if err != nil {
			return Record{}, err
		}
		if p.i != len(p.b) {
			return Record{}, p.fail("trailing bytes after stream record")
		}
		rec.Text = s
		return rec, nil
	case '^':
		rec.Kind = KindResult
	case '*':
		rec.Kind = KindExecAsync
	case '+':
		rec.Kind = KindStatusAsync
	case '=':
		rec.Kind = KindNotifyAsync
	default:
		return Record{}, p.fail("unknown record type")
	}
	rec.Class = p.word()
	if rec.Class == "" {
		return Record{}, p.fail("missing class")
	}
	if rec.Kind == KindResult {
		switch rec.Class {
		case "done", "running", "connected", "error", "exit":
		default:
			return Record{}, p.fail("unknown result class")
		}
	}
	for p.i < len(p.b) {
		if p.b[p.i] != ',' {
			return Record{}, p.fail("expected ','")
		}
		p.i++
		r, err := p.result(0)
		if err != nil {
			return Record{}, err
		}
		rec.Results = append(rec.Results, r)
	}
	return rec, nil
}

// word reads a class or variable name: anything up to '=' ',' or a bracket.
func (p *miParser) word() string {
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'):
			p.i++
			continue
		}
		break
	}
	return string(p.b[start:p.i])
}

func (p *miParser) result(depth int) (Result, error) {
	name := p.word()
	if name == "" {
		return Result{}, p.fail("expected variable")
	}
	if p.peek() != '=' {
		return Result{}, p.fail("expected '='")
	}
	p.i++
	v, err := p.value(depth)
	if err != nil {
		return Result{}, err
	}
	return Result{Name: name, Value: v}, nil
}

func (p *miParser) value(depth int) (Value, error) {
	if depth >= maxDepth {
		return Value{}, p.fail("nesting too deep")
	}
	switch p.peek() {
	case '"':
		s, err := p.cstring()
		return Value{Kind: ValueString, Str: s}, err
	case '{':
		p.i++
		v := Value{Kind: ValueTuple, Results: []Result{}}
		if p.peek() == '}' {
			p.i++
			return v, nil
		}
		for {
			r, err := p.result(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.Results = append(v.Results, r)
			switch p.peek() {
			case ',':
				p.i++
			case '}':
				p.i++
				return v, nil
			default:
				return Value{}, p.fail("expected ',' or '}'")
			}
		}
	case '[':
		p.i++
		v := Value{Kind: ValueList, Results: []Result{}}
		if p.peek() == ']' {
			p.i++
			return v, nil
		}
		// A list holds values or results; the first item decides.
		named := p.peek() != '"' && p.peek() != '{' && p.peek() != '['
		for {
			var r Result
			var err error
			if named {
				r, err = p.result(depth + 1)
			} else {
				r.Value, err = p.value(depth + 1)
			}
			if err != nil {
				return Value{}, err
			}
			v.Results = append(v.Results, r)
			switch p.peek() {
			case ',':
				p.i++
			case ']':
				p.i++
				return v, nil
			default:
				return Value{}, p.fail("expected ',' or ']'")
			}
		}
	}
	return Value{}, p.fail("expected a value")
}

// cstring decodes a C string as gdb writes it (printchar in gdb/utils.c):
// the usual backslash escapes, up to three octal digits, and \x hex.
func (p *miParser) cstring() (string, error) {
	if p.peek() != '"' {
		return "", p.fail("expected '\"'")
	}
	p.i++
	var out []byte
	for p.i < len(p.b) {
		c := p.b[p.i]
		p.i++
		switch c {
		case '"':
			return string(out), nil
		case '\\':
			if p.i >= len(p.b) {
				return "", p.fail("dangling escape")
			}
			e := p.b[p.i]
			p.i++
			switch e {
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			case 'r':
				out = append(out, '\r')
			case 'f':
				out = append(out, '\f')
			case 'v':
				out = append(out, '\v')
			case 'b':
				out = append(out, '\b')
			case 'a':
				out = append(out, '\a')
			case 'e':
				out = append(out, 0x1b)
			case '"', '\\', '\'', '?':
				out = append(out, e)
			case 'x':
				n, v := 0, 0
				for n < 2 && p.i < len(p.b) && isHex(p.b[p.i]) {
					v = v*16 + hexVal(p.b[p.i])
					p.i++
					n++
				}
				if n == 0 {
					return "", p.fail("\\x without hex digits")
				}
				out = append(out, byte(v))
			default:
				if e < '0' || e > '7' {
					return "", p.fail("unknown escape")
				}
				v := int(e - '0')
				for n := 1; n < 3 && p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '7'; n++ {
					v = v*8 + int(p.b[p.i]-'0')
					p.i++
				}
				if v > 0xff {
					return "", p.fail("octal escape out of range")
				}
				out = append(out, byte(v))
			}
		default:
			out = append(out, c)
		}
	}
	return "", p.fail("unterminated string")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// quoteC quotes s as an MI c-string argument. Only REA-built strings (never
// a client's) are quoted: constant console commands and numbers REA
// formatted. Control bytes are written as octal escapes so a command is always
// one line.
func quoteC(s string) string {
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20 || c == 0x7f:
			out = append(out, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
		default:
			out = append(out, c)
		}
	}
	return string(append(out, '"'))
}
