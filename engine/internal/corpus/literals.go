package corpus

import (
	"regexp"
	"strconv"
	"strings"
)

// Literal is one literal argument of a call in the corpus's source.
type Literal struct {
	Caller, Callee string
	Index          int
	// Kind is "integer", "string" or "address" (of a global or a function,
	// named by Symbol).
	Kind    string
	Integer int64
	String  string
	Symbol  string
}

// CallArgs is every call of the source: per caller and callee, the
// argument lists, each argument a Literal or nil when it is not one.
type CallArgs map[[2]string][][]*Literal

var (
	callRE  = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	intRE   = regexp.MustCompile(`^-?(0x[0-9a-fA-F]+|[0-9]+)[uUlL]*$`)
	identRE = regexp.MustCompile(`^&?([A-Za-z_][A-Za-z0-9_]*)(\[0\])?$`)
)

var notCalls = map[string]bool{"if": true, "while": true, "for": true, "switch": true, "return": true, "sizeof": true, "__attribute__": true, "noinline": true, "defined": true}

// Calls parses the corpus's functions (column-0 "NI" definitions ending
// with a column-0 "}" or on their line) and their calls. globals are the
// names whose address a bare name or &name denotes (functions, arrays,
// objects).
func Calls(globals map[string]uint64) CallArgs {
	out := CallArgs{}
	lines := strings.Split(source, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "NI ") {
			continue
		}
		body := l
		if !strings.HasSuffix(strings.TrimSpace(l), "}") {
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "}"); i++ {
				body += "\n" + lines[i]
			}
		}
		open := strings.IndexByte(body, '(')
		head := body[:open]
		name := head[strings.LastIndexAny(head, " *")+1:]
		brace := strings.IndexByte(body, '{')
		if brace < 0 {
			continue
		}
		code := body[brace:]
		for _, m := range callRE.FindAllStringSubmatchIndex(code, -1) {
			callee := code[m[2]:m[3]]
			if notCalls[callee] {
				continue
			}
			args, ok := splitArgs(code[m[1]:])
			if !ok {
				continue
			}
			var lits []*Literal
			for k, a := range args {
				lits = append(lits, literal(name, callee, k, a, globals))
			}
			key := [2]string{name, callee}
			out[key] = append(out[key], lits)
		}
	}
	return out
}

// splitArgs splits the argument list that starts after an opening
// parenthesis at its top-level commas.
func splitArgs(s string) ([]string, bool) {
	depth, start := 0, 0
	var out []string
	inStr, inChr := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr || inChr:
			if c == '\\' {
				i++
			} else if c == '"' && inStr || c == '\'' && inChr {
				inStr, inChr = false, false
			}
		case c == '"':
			inStr = true
		case c == '\'':
			inChr = true
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			if depth == 0 {
				if a := strings.TrimSpace(s[start:i]); a != "" || len(out) > 0 {
					out = append(out, a)
				}
				return out, true
			}
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return nil, false
}

func literal(caller, callee string, k int, a string, globals map[string]uint64) *Literal {
	l := &Literal{Caller: caller, Callee: callee, Index: k}
	switch {
	case intRE.MatchString(a):
		s := strings.TrimRight(a, "uUlL")
		v, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			u, err := strconv.ParseUint(s, 0, 64)
			if err != nil {
				return nil
			}
			v = int64(u)
		}
		l.Kind, l.Integer = "integer", v
	case len(a) >= 3 && a[0] == '\'' && a[len(a)-1] == '\'':
		s, err := strconv.Unquote(a)
		if err != nil || len(s) != 1 {
			return nil
		}
		l.Kind, l.Integer = "integer", int64(s[0])
	case len(a) >= 2 && a[0] == '"' && a[len(a)-1] == '"':
		s, err := strconv.Unquote(a)
		if err != nil {
			return nil
		}
		l.Kind, l.String = "string", s
	default:
		m := identRE.FindStringSubmatch(a)
		if m == nil {
			return nil
		}
		if _, ok := globals[m[1]]; !ok {
			return nil
		}
		// A bare name is an address only when it decays: a function or
		// an array (the corpus's arrays are these); an object's name is
		// its value.
		if !strings.HasPrefix(a, "&") && strings.HasPrefix(m[1], "g_") && m[1] != "g_table" && m[1] != "g_buf" && m[1] != "g_names" {
			return nil
		}
		if m[1] == "stdin" || m[1] == "stdout" || m[1] == "stderr" {
			return nil
		}
		l.Kind, l.Symbol = "address", m[1]
	}
	return l
}

// Functions are the names of the corpus's functions, in source order.
func Functions() []string {
	var out []string
	for _, l := range strings.Split(source, "\n") {
		if !strings.HasPrefix(l, "NI ") {
			continue
		}
		head := l[:strings.IndexByte(l, '(')]
		out = append(out, head[strings.LastIndexAny(head, " *")+1:])
	}
	return out
}
