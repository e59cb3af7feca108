package ctypes

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The table's text format (table.txt), line by line; '#' starts a comment.
//
//	set NAME enum|bits [<h.h>]    starts a constant set (its macros are h.h's); the lines after it,
//	NAME VALUE [mask=M] [ABI=V|-]  up to the next set or header, are its
//	                               constants; ABI (x86_64, i386, arm64, win64)
//	                               overrides the value, "-" says the constant
//	                               does not exist there
//	header <h.h>|- [linux|windows] [fortify] [noinclude]
//	                               the declarations after it come from h.h
//	                               ("-": no header declares them); the C11
//	                               headers serve both platforms; fortify: h.h
//	                               declares them only under _FORTIFY_SOURCE;
//	                               noinclude: h.h must not be included with
//	                               the others (libgen.h redefines basename),
//	                               so Func.Header is empty and a prelude
//	                               declares the function itself
//	[noreturn] [linux|windows] DECLARATION;
//	                               a C declaration; a parameter followed by
//	                               [SET] takes that set's constants, by
//	                               [printf] or [scanf] is a format string;
//	                               "...{PARAM, ...}" lists the arguments
//	                               the function reads through its ellipsis
//	                               when its flags ask (Func.Optional)
//	alias NAME TARGET              NAME is another symbol of TARGET (same
//	                               platforms and type)
//
// parseTable reads only our own embedded file, but it is a parser all the
// same, so it rejects anything outside that grammar with an error naming the
// line, and FuzzParseTable holds it to that.

// osLinux and osWindows are bits of a declaration's platform mask.
const (
	osLinux   = 1
	osWindows = 2
)

type table struct {
	sets    map[string]*ConstSet
	funcs   [2]map[string]*Func // by platform: 0 Linux, 1 Windows
	aliases [2]map[string]string
	order   []*Func // every declaration in table order
}

func platformIndex(abi ABI) int {
	if abi.windows() {
		return 1
	}
	return 0
}

func parseTable(text string) (*table, error) {
	t := &table{sets: map[string]*ConstSet{}}
	for i := range t.funcs {
		t.funcs[i] = map[string]*Func{}
		t.aliases[i] = map[string]string{}
	}
	var (
		set     *ConstSet
		header  string
		check   string
		fortify bool
		osMask  = osLinux | osWindows
		inDecls bool
	)
	for n, line := range strings.Split(text, "\n") {
		lineNo := n + 1
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("ctypes table line %d: %s", lineNo, fmt.Sprintf(format, args...))
		}
		switch fields[0] {
		case "set":
			if len(fields) < 3 || len(fields) > 4 || !isIdent(fields[1]) {
				return nil, fail("want: set NAME enum|bits [<h.h>]")
			}
			if _, dup := t.sets[fields[1]]; dup {
				return nil, fail("set %s defined twice", fields[1])
			}
			set = &ConstSet{Name: fields[1]}
			switch fields[2] {
			case "enum":
				set.Kind = Enum
			case "bits":
				set.Kind = Bits
			default:
				return nil, fail("set kind %q is neither enum nor bits", fields[2])
			}
			if len(fields) == 4 {
				h := fields[3]
				if len(h) < 3 || h[0] != '<' || h[len(h)-1] != '>' {
					return nil, fail("header %q is not <name>", h)
				}
				set.Header = h[1 : len(h)-1]
			}
			t.sets[set.Name] = set
			inDecls = false
			continue
		case "header":
			if len(fields) < 2 {
				return nil, fail("want: header <h.h>|- [linux|windows] [fortify]")
			}
			set, inDecls = nil, true
			header, check, fortify, osMask = "", "", false, osLinux|osWindows
			if fields[1] != "-" {
				h := fields[1]
				if len(h) < 3 || h[0] != '<' || h[len(h)-1] != '>' {
					return nil, fail("header %q is not <name>", h)
				}
				header, check = h[1:len(h)-1], h[1:len(h)-1]
			}
			for _, f := range fields[2:] {
				switch f {
				case "linux":
					osMask = osLinux
				case "windows":
					osMask = osWindows
				case "fortify":
					fortify, header = true, ""
				case "noinclude":
					header = ""
				default:
					return nil, fail("unknown header option %q", f)
				}
			}
			continue
		case "alias":
			if len(fields) != 3 || !isIdent(fields[1]) || !isIdent(fields[2]) {
				return nil, fail("want: alias NAME TARGET")
			}
			found := false
			for p := range t.funcs {
				if _, ok := t.funcs[p][fields[2]]; ok {
					if _, dup := t.funcs[p][fields[1]]; dup {
						return nil, fail("alias %s is also declared", fields[1])
					}
					t.aliases[p][fields[1]] = fields[2]
					found = true
				}
			}
			if !found {
				return nil, fail("alias target %s is not declared above", fields[2])
			}
			continue
		}
		switch {
		case set != nil:
			c, err := parseConst(fields, set)
			if err != nil {
				return nil, fail("%v", err)
			}
			set.consts = append(set.consts, c)
		case inDecls:
			f, mask, err := parseDecl(line, t.sets)
			if err != nil {
				return nil, fail("%v", err)
			}
			if mask == 0 {
				mask = osMask
			} else if mask&osMask == 0 {
				return nil, fail("%s: platform outside its header's", f.Name)
			}
			f.Header, f.checkHeader, f.fortify = header, check, fortify
			f.platforms = mask
			for p := range t.funcs {
				if mask&(1<<p) == 0 {
					continue
				}
				if _, dup := t.funcs[p][f.Name]; dup {
					return nil, fail("%s declared twice", f.Name)
				}
				t.funcs[p][f.Name] = f
			}
			t.order = append(t.order, f)
		default:
			return nil, fail("line outside a set or header section")
		}
	}
	return t, nil
}

var abiNames = map[string]ABI{"x86_64": LinuxAMD64, "i386": Linux386, "arm64": LinuxARM64, "win64": WindowsAMD64}

func parseConst(fields []string, set *ConstSet) (constDef, error) {
	var c constDef
	if len(fields) < 2 || !isIdent(fields[0]) {
		return c, errors.New("want: NAME VALUE [mask=M] [ABI=V|-]")
	}
	c.name = fields[0]
	v, err := strconv.ParseInt(fields[1], 0, 64)
	if err != nil {
		return c, fmt.Errorf("%s: value: %w", c.name, err)
	}
	for i := range c.values {
		c.values[i] = v
	}
	for _, f := range fields[2:] {
		key, val, ok := strings.Cut(f, "=")
		if !ok {
			return c, fmt.Errorf("%s: %q is not KEY=VALUE", c.name, f)
		}
		if key == "mask" {
			if set.Kind != Bits {
				return c, fmt.Errorf("%s: mask in an enum set", c.name)
			}
			if c.mask, err = strconv.ParseInt(val, 0, 64); err != nil || c.mask == 0 {
				return c, fmt.Errorf("%s: bad mask %q", c.name, val)
			}
			continue
		}
		abi, ok := abiNames[key]
		if !ok {
			return c, fmt.Errorf("%s: unknown ABI %q", c.name, key)
		}
		if val == "-" {
			c.absent[abi] = true
			continue
		}
		if c.values[abi], err = strconv.ParseInt(val, 0, 64); err != nil {
			return c, fmt.Errorf("%s: %s value: %w", c.name, key, err)
		}
	}
	// A value two constants share would make Render's choice between them
	// arbitrary: refuse it, so every name rendered is the one the table meant.
	for abi := range numABIs {
		if c.absent[abi] {
			continue
		}
		if c.mask != 0 && c.values[abi]&^c.mask != 0 {
			return c, fmt.Errorf("%s: value outside its mask on %s", c.name, abi)
		}
		for _, o := range set.consts {
			if o.name == c.name {
				return c, fmt.Errorf("%s listed twice", c.name)
			}
			if !o.absent[abi] && o.values[abi] == c.values[abi] && o.mask == c.mask {
				return c, fmt.Errorf("%s has the value of %s on %s", c.name, o.name, abi)
			}
		}
	}
	return c, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// declParser reads one C declaration of the table's subset.
type declParser struct {
	toks []string
	pos  int
	sets map[string]*ConstSet
}

func tokenize(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9') {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case strings.HasPrefix(s[i:], "..."):
			toks = append(toks, "...")
			i += 3
		case strings.IndexByte("*(),;[]{}", c) >= 0:
			toks = append(toks, s[i:i+1])
			i++
		default:
			return nil, fmt.Errorf("unexpected character %q", c)
		}
	}
	return toks, nil
}

func (p *declParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *declParser) next() string {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

func (p *declParser) expect(tok string) error {
	if got := p.next(); got != tok {
		return fmt.Errorf("want %q, got %q", tok, got)
	}
	return nil
}

// parseDecl parses "[noreturn] [linux|windows] TYPE NAME(PARAMS);".
func parseDecl(line string, sets map[string]*ConstSet) (*Func, int, error) {
	toks, err := tokenize(line)
	if err != nil {
		return nil, 0, err
	}
	p := &declParser{toks: toks, sets: sets}
	f := &Func{FormatParam: -1}
	mask := 0
prefixes:
	for {
		switch p.peek() {
		case "noreturn":
			f.NoReturn = true
		case "linux":
			mask |= osLinux
		case "windows":
			mask |= osWindows
		default:
			break prefixes
		}
		p.next()
	}
	ret, err := p.specifiers()
	if err != nil {
		return nil, 0, err
	}
	ret = p.pointers(ret)
	f.Name = p.next()
	if !isIdent(f.Name) || isKeyword(f.Name) {
		return nil, 0, fmt.Errorf("want a function name, got %q", f.Name)
	}
	if err := checkObject(ret, true); err != nil {
		return nil, 0, fmt.Errorf("%s: return: %w", f.Name, err)
	}
	sig, err := p.params(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", f.Name, err)
	}
	sig.Return = ret
	f.Signature = *sig
	if p.peek() == ";" {
		p.next()
	}
	if p.pos != len(p.toks) {
		return nil, 0, fmt.Errorf("%s: trailing %q", f.Name, p.peek())
	}
	return f, mask, nil
}

var basicWords = map[string]bool{"void": true, "_Bool": true, "char": true, "short": true, "int": true,
	"long": true, "signed": true, "unsigned": true, "float": true, "double": true}

func isKeyword(s string) bool {
	return basicWords[s] || s == "const" || s == "struct" || s == "union" || s == "enum" || s == "noreturn"
}

var fixedWidth = map[string]Kind{"int8_t": Int8, "uint8_t": UInt8, "int16_t": Int16, "uint16_t": UInt16,
	"int32_t": Int32, "uint32_t": UInt32, "int64_t": Int64, "uint64_t": UInt64}

// specifiers reads a type's specifiers and qualifiers ("const unsigned long",
// "struct stat", "FILE").
func (p *declParser) specifiers() (Type, error) {
	var (
		t     Type
		words []string
		base  bool
	)
	for {
		tok := p.peek()
		switch {
		case tok == "const":
			t.Const = true
		case basicWords[tok]:
			if t.Kind == Named || t.Kind == Struct || t.Kind == Union {
				return t, fmt.Errorf("%q after a type name", tok)
			}
			words = append(words, tok)
			base = true
		case tok == "enum":
			// An enumeration is a typedef-like name resolved per ABI: the
			// table names only glibc's, whose underlying type it knows.
			if base {
				return t, fmt.Errorf("%q after a type", tok)
			}
			p.next()
			tag := p.peek()
			if !isIdent(tag) || isKeyword(tag) {
				return t, fmt.Errorf("want a tag after enum, got %q", tag)
			}
			t.Kind, t.Name, base = Named, "enum "+tag, true
		case tok == "struct" || tok == "union":
			if base {
				return t, fmt.Errorf("%q after a type", tok)
			}
			p.next()
			tag := p.peek()
			if !isIdent(tag) || isKeyword(tag) {
				return t, fmt.Errorf("want a tag after %s, got %q", tok, tag)
			}
			t.Kind, t.Name, base = Struct, tag, true
			if tok == "union" {
				t.Kind = Union
			}
		case isIdent(tok) && !base:
			if k, ok := fixedWidth[tok]; ok {
				t.Kind = k
			} else {
				t.Kind, t.Name = Named, tok
			}
			base = true
		default:
			if !base {
				return t, fmt.Errorf("want a type, got %q", tok)
			}
			if len(words) > 0 {
				k, err := basicKind(words)
				if err != nil {
					return t, err
				}
				t.Kind = k
			}
			return t, nil
		}
		p.next()
	}
}

func basicKind(words []string) (Kind, error) {
	n := map[string]int{}
	for _, w := range words {
		n[w]++
	}
	if n["signed"] > 0 && n["unsigned"] > 0 || n["signed"]+n["unsigned"] > 1 || n["short"] > 1 || n["long"] > 2 || n["int"] > 1 {
		return 0, fmt.Errorf("bad type %q", strings.Join(words, " "))
	}
	u := n["unsigned"] > 0
	others := len(words) - n["signed"] - n["unsigned"] - n["int"] - n["short"] - n["long"]
	pick := func(s, uk Kind) Kind {
		if u {
			return uk
		}
		return s
	}
	switch {
	case others == 0 && n["short"] == 1 && n["long"] == 0:
		return pick(Short, UShort), nil
	case others == 0 && n["short"] == 0 && n["long"] == 2:
		return pick(LongLong, ULongLong), nil
	case others == 0 && n["short"] == 0 && n["long"] == 1:
		return pick(Long, ULong), nil
	case others == 0 && n["short"] == 0:
		return pick(Int, UInt), nil
	case others == 1 && len(words) == 1:
		switch words[0] {
		case "void":
			return Void, nil
		case "_Bool":
			return Bool, nil
		case "char":
			return Char, nil
		case "float":
			return Float, nil
		case "double":
			return Double, nil
		}
	case others == 1 && n["char"] == 1 && len(words) == 2 && n["int"] == 0:
		if u {
			return UChar, nil
		}
		if n["signed"] == 1 {
			return SChar, nil
		}
	case others == 1 && n["double"] == 1 && n["long"] == 1 && len(words) == 2:
		return LongDouble, nil
	}
	return 0, fmt.Errorf("bad type %q", strings.Join(words, " "))
}

// pointers applies "*" and "* const" to t.
func (p *declParser) pointers(t Type) Type {
	for p.peek() == "*" {
		p.next()
		t = PointerTo(t)
		if p.peek() == "const" {
			p.next()
			t.Const = true
		}
	}
	return t
}

// params reads "(void)" or "(PARAM, ..., [...])"; f, when not nil, receives
// format annotations.
func (p *declParser) params(f *Func) (*Signature, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	sig := &Signature{}
	if p.peek() == "void" && p.pos+1 < len(p.toks) && p.toks[p.pos+1] == ")" {
		p.next()
		p.next()
		return sig, nil
	}
	for {
		if p.peek() == "..." {
			p.next()
			if len(sig.Params) == 0 {
				return nil, errors.New("'...' without a named parameter")
			}
			sig.Variadic = true
			if p.peek() == "{" {
				if f == nil {
					return nil, errors.New("optional arguments in a function pointer")
				}
				if err := p.optional(f, len(sig.Params)); err != nil {
					return nil, err
				}
			}
			return sig, p.expect(")")
		}
		param, err := p.param(f, len(sig.Params))
		if err != nil {
			return nil, err
		}
		sig.Params = append(sig.Params, param)
		switch tok := p.next(); tok {
		case ")":
			return sig, nil
		case ",":
		default:
			return nil, fmt.Errorf("want ',' or ')', got %q", tok)
		}
	}
}

// optional reads "{PARAM, ...}" after an ellipsis: the arguments the
// function reads through it when its flags say so (open's mode).
func (p *declParser) optional(f *Func, first int) error {
	p.next()
	for {
		param, err := p.param(nil, first+len(f.Optional))
		if err != nil {
			return err
		}
		// Through "..." an argument arrives promoted: a narrower type
		// than int would not be what the callee reads.
		if c := param.Type.Class(LinuxAMD64); c == ClassAggregate || (c == ClassInteger && param.Type.Size(LinuxAMD64) < 4) || param.Type.Kind == Float {
			return fmt.Errorf("optional argument %s of type %s is not a promoted type", param.Name, param.Type)
		}
		f.Optional = append(f.Optional, param)
		switch tok := p.next(); tok {
		case "}":
			return nil
		case ",":
		default:
			return fmt.Errorf("want ',' or '}', got %q", tok)
		}
	}
}

// param reads one parameter: a type, a declarator (a name, or a function
// pointer "(*name)(PARAMS)"), and an optional [annotation].
func (p *declParser) param(f *Func, index int) (Param, error) {
	var param Param
	t, err := p.specifiers()
	if err != nil {
		return param, err
	}
	t = p.pointers(t)
	if p.peek() == "(" {
		p.next()
		if err := p.expect("*"); err != nil {
			return param, err
		}
		ptrConst := false
		if p.peek() == "const" {
			p.next()
			ptrConst = true
		}
		if isIdent(p.peek()) && !isKeyword(p.peek()) {
			param.Name = p.next()
		}
		if err := p.expect(")"); err != nil {
			return param, err
		}
		if err := checkObject(t, true); err != nil {
			return param, fmt.Errorf("function pointer result: %w", err)
		}
		sig, err := p.params(nil)
		if err != nil {
			return param, err
		}
		sig.Return = t
		t = PointerTo(Type{Kind: Function, Sig: sig})
		t.Const = ptrConst
	} else if isIdent(p.peek()) && !isKeyword(p.peek()) {
		param.Name = p.next()
	}
	if err := checkObject(t, false); err != nil {
		return param, fmt.Errorf("parameter %d: %w", index+1, err)
	}
	param.Type = t
	if p.peek() == "[" {
		p.next()
		ann := p.next()
		switch {
		case f != nil && (ann == "printf" || ann == "scanf"):
			if f.Format != FormatNone {
				return param, errors.New("two format parameters")
			}
			f.Format, f.FormatParam = FormatPrintf, index
			if ann == "scanf" {
				f.Format = FormatScanf
			}
		case p.sets[ann] != nil:
			if c := t.Class(LinuxAMD64); c != ClassInteger && c != ClassPointer {
				return param, fmt.Errorf("constants [%s] on a %s parameter", ann, c)
			}
			param.Consts = p.sets[ann]
		default:
			return param, fmt.Errorf("unknown annotation [%s]", ann)
		}
		if err := p.expect("]"); err != nil {
			return param, err
		}
	}
	return param, nil
}

// checkObject refuses what C or the model cannot pass: void as a parameter,
// an opaque type by value.
func checkObject(t Type, isReturn bool) error {
	switch t.Kind {
	case Void:
		if !isReturn {
			return errors.New("void parameter")
		}
	case Named:
		if _, ok := typedefs[t.Name]; !ok {
			return fmt.Errorf("opaque type %s by value", t.Name)
		}
	case Struct:
		if _, ok := byValueStructs[t.Name]; !ok {
			return fmt.Errorf("struct %s by value", t.Name)
		}
	case Union, Function:
		return fmt.Errorf("%s by value", t)
	}
	return nil
}
