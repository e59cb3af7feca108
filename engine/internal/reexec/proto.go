package reexec

import (
	"errors"
	"fmt"
	"strings"
)

// Prototype is a corpus function's signature as its definition states it.
type Prototype struct {
	Return string  // C return type, "void" when none
	Name   string  // the function's name
	Params []Param // in order; empty for (void)
	// Decl is the definition's head as written, "RET NAME(PARAMS)".
	Decl string
}

// Param is one parameter.
type Param struct {
	Type string // the declaration without the name ("const char *", "int (*)(const void *, const void *)")
	Name string
	Decl string // the whole declaration as written
}

// String is the prototype as a declaration, with its semicolon.
func (p Prototype) String() string { return p.Decl + ";" }

// ParsePrototype finds the function definition of a corpus source: the
// one line at column 0 of the form "RET NAME(PARAMS) {" (no "static"),
// which must be the file's last top-level item (its body runs to the
// end). Types and includes come before it.
func ParsePrototype(src string) (Prototype, error) {
	var head string
	found := 0
	for _, line := range strings.Split(src, "\n") {
		l := strings.TrimRight(line, " \t\r")
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '/' || l[0] == '*' || l[0] == '}' {
			continue
		}
		if !strings.HasSuffix(l, ") {") || strings.HasPrefix(l, "static ") || strings.HasPrefix(l, "struct ") && !strings.Contains(l, "(") {
			continue
		}
		head = strings.TrimSuffix(l, " {")
		found++
	}
	if found != 1 {
		return Prototype{}, fmt.Errorf("want one definition line \"RET NAME(PARAMS) {\" at column 0, found %d", found)
	}
	if i := strings.LastIndex(src, head+" {"); strings.Count(src[i:], "\n}") != 1 || strings.TrimSpace(src[strings.LastIndex(src, "\n}"):]) != "}" {
		return Prototype{}, errors.New("the definition must be the file's last item, closed by a \"}\" at column 0")
	}
	return parseHead(head)
}

func parseHead(head string) (Prototype, error) {
	open := strings.IndexByte(head, '(')
	if open < 0 || !strings.HasSuffix(head, ")") {
		return Prototype{}, fmt.Errorf("%q: no parameter list", head)
	}
	ret, name := splitDecl(strings.TrimSpace(head[:open]))
	if name == "" || ret == "" {
		return Prototype{}, fmt.Errorf("%q: no return type or name", head)
	}
	p := Prototype{Return: ret, Name: name, Decl: head}
	list := strings.TrimSpace(head[open+1 : len(head)-1])
	if list == "void" || list == "" {
		return p, nil
	}
	for _, d := range splitTop(list) {
		d = strings.TrimSpace(d)
		var prm Param
		if i := strings.Index(d, "(*"); i >= 0 { // function pointer: RET (*name)(ARGS)
			j := strings.IndexByte(d[i:], ')')
			if j < 0 {
				return Prototype{}, fmt.Errorf("%q: bad function pointer %q", head, d)
			}
			prm = Param{Name: strings.TrimSpace(d[i+2 : i+j]), Type: d[:i+2] + d[i+j:], Decl: d}
		} else {
			t, n := splitDecl(d)
			prm = Param{Type: t, Name: n, Decl: d}
		}
		if prm.Name == "" || prm.Type == "" || strings.Contains(d, "...") {
			return Prototype{}, fmt.Errorf("%q: parameter %q has no type or name", head, d)
		}
		p.Params = append(p.Params, prm)
	}
	return p, nil
}

// splitDecl splits "const char *name" into "const char *" and "name".
func splitDecl(d string) (typ, name string) {
	i := len(d)
	for i > 0 && (isIdent(d[i-1])) {
		i--
	}
	return strings.TrimSpace(d[:i]), d[i:]
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// Stub returns c's source with the function's body replaced by one that
// does nothing and returns zero of the return type: a unit of the right
// prototype that any sound test main must reject.
func Stub(c Case) string {
	i := strings.LastIndex(c.Source, c.Proto.Decl+" {")
	var b strings.Builder
	b.WriteString(c.Source[:i])
	b.WriteString(c.Proto.Decl + " {\n")
	for _, p := range c.Proto.Params {
		fmt.Fprintf(&b, "\t(void)%s;\n", p.Name)
	}
	if c.Proto.Return != "void" {
		fmt.Fprintf(&b, "\t%s reexec_zero_;\n\t__builtin_memset(&reexec_zero_, 0, sizeof reexec_zero_);\n\treturn reexec_zero_;\n", c.Proto.Return)
	}
	b.WriteString("}\n")
	return b.String()
}
