package decompile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile/structure"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/signature"
)

type value = dataflow.Value

// line is one line of C with the instructions it comes from.
type line struct {
	text  string
	addrs []uint64
	// set: the line is the plain assignment of rhs to the variable dst
	// (so that two of them in the arms of an if can become one).
	set *assignment
}

type assignment struct {
	dst string
	rhs cx
}

// node is one node of the emitter's graph: a block, or an edge split
// holding the copies of one edge.
type node struct {
	block *dataflow.Block
	stmts []line
	// two-way: the condition; switch: the switched expression and each
	// successor's case value.
	cond      cx
	condAddrs []uint64
	sw        bool
	cases     [][]uint64 // per successor: the case values leading to it
}

// useSite is where a value is read: a value of the same procedure, or
// the end of a block (its terminator or the copies of its edges).
type useSite struct {
	block *dataflow.Block
	pos   int // index in block.Values; len(Values) for an edge copy
}

// callInfo is what the emitter knows of a call or tail call.
type callInfo struct {
	name   string // the callee's C name; "" for an indirect call
	target *value // indirect: the target
	args   []argInfo
	ret    *signature.Param
	noRet  bool // a clobber of the return register is read but the callee returns nothing known
	// local: the callee is a procedure of the image whose prototype
	// Env.Known gave; it is declared as its definition reads, so that a
	// unit holding both compiles.
	local bool
	deps  []*value
}

type argInfo struct {
	// consts: the argument takes the named constants of a prototype
	// table entry (open's flags…).
	consts *ctypes.Param
	v      *value // nil: param or zero
	param  int    // ≥ 0: the procedure's own parameter passed on
	q      signature.Param
	str    string
	isStr  bool
	// fixed: the callee's declaration gives the argument its type q (the
	// call converts it).
	fixed bool
	// reads: the bits of an unnamed argument the callee reads (a format
	// string's %d: 32), 0 when not known.
	reads lift.Width
}

type emitter struct {
	in    Input
	f     *dataflow.Func
	proto *signature.Prototype
	h     *helperSet
	lims  map[string]int

	params map[string]int // storage → parameter index
	offs   map[*value]dataflow.StackOffset
	calls  map[uint64]signature.Call
	info   map[*value]*callInfo
	retOf  map[*value]*value // clobber of a call's return register → the call

	live   map[*value]bool
	uses   map[*value][]useSite
	inline map[*value]bool
	vars   map[*value]string
	decl   []string // variable names in order
	vtype  map[string]string
	narrow map[string]lift.Width // variables declared narrower than their values (narrowVars)
	// zext: variables of 64-bit values that are 32-bit values zero
	// extended, declared as the 32 bits (narrowVars); a read of the
	// whole value converts back.
	zext map[string]bool
	// ptr: variables declared uint8_t * (ptrVars): addresses whose byte
	// arithmetic C's pointer arithmetic does as written.
	ptr   map[string]bool
	float map[string]lift.Width // variables declared float or double (floatVars)
	nvar  int

	frame          bool
	frameLo, frHi  int64
	unresolved     int
	decls          map[string]string
	self           string
	nodes          []*node
	graph          structure.Graph
	blockIdx       map[*dataflow.Block]int
	collect        *[]uint64
	evalPt         map[*value]int // an inlined value's evaluation point in its block
	switches       map[*value]*switchInfo
	addrConsts     map[*value]bool
	selfProto      string
	incomingStores []line
	lastSet        *assignment // the plain assignment statement() rendered last
}

func newEmitter(in Input) *emitter {
	return &emitter{in: in, f: in.Func, h: newHelperSet(), lims: map[string]int{},
		params: map[string]int{}, calls: map[uint64]signature.Call{}, info: map[*value]*callInfo{},
		retOf: map[*value]*value{}, live: map[*value]bool{}, uses: map[*value][]useSite{},
		inline: map[*value]bool{}, vars: map[*value]string{}, vtype: map[string]string{}, narrow: map[string]lift.Width{}, zext: map[string]bool{}, ptr: map[string]bool{}, float: map[string]lift.Width{},
		decls: map[string]string{}, blockIdx: map[*dataflow.Block]int{}}
}

func (e *emitter) limit(s string) { e.lims[s]++ }

// note records addr for the line being rendered.
func (e *emitter) note(addr uint64) {
	if e.collect != nil {
		*e.collect = append(*e.collect, addr)
	}
}

// prepare recovers the prototype, the calls and the stack offsets.
func (e *emitter) prepare() {
	e.proto = e.in.Prototype
	if e.proto == nil {
		e.proto = signature.Infer(e.f, e.in.Env)
	}
	for i, q := range e.proto.Params {
		e.params[q.Storage] = i
	}
	e.self = globalName(e.in.Name)
	if e.self == "" {
		e.self = fmt.Sprintf("sub_%x", e.f.Entry)
	}
	e.selfProto = e.signatureText(e.self, e.proto, false)
	if e.proto.Variadic {
		e.limit("the procedure is variadic: its unnamed arguments are not available to the C text")
	}
	e.offs = dataflow.StackOffsets(e.f)
	e.findSwitches()
	for _, c := range signature.Calls(e.f, e.in.Env) {
		e.calls[c.Addr] = c
	}
	for i, b := range e.f.Blocks {
		e.blockIdx[b] = i
		for _, v := range b.Values {
			if v.Kind == dataflow.OpValue && (v.Op == lift.Call || v.Op == lift.Jump && e.isTail(v)) {
				e.info[v] = e.callOf(v)
			}
		}
	}
	for _, b := range e.f.Blocks {
		for _, v := range b.Values {
			if v.Kind != dataflow.Clobber || len(v.Args) == 0 {
				continue
			}
			c := v.Args[0]
			ci := e.info[c]
			if ci == nil {
				continue
			}
			loc := e.retLoc(ci)
			if loc == v.Loc {
				e.retOf[v] = c
			}
		}
	}
}

// isTail reports whether the exit Jump v leaves for a procedure (a tail
// call) rather than running off the end or branching out.
func (e *emitter) isTail(v *value) bool {
	b := v.Block
	if len(b.Succs) > 0 || len(v.Args) == 0 || b.Exit {
		return false
	}
	_, ok := e.calls[v.Addr]
	return ok && v.Args[0].Kind == dataflow.ConstValue
}

func (e *emitter) retLoc(ci *callInfo) string {
	cv := e.in.Env.Conv
	if ci.ret != nil && ci.ret.Storage != "" {
		return ci.ret.Storage
	}
	if len(cv.IntReturn) > 0 {
		return cv.IntReturn[0]
	}
	return ""
}

// callOf gathers call or tail call v's callee, prototype and arguments.
func (e *emitter) callOf(v *value) *callInfo {
	ci := &callInfo{}
	sc, known := e.calls[v.Addr]
	var proto *signature.Prototype
	var table *ctypes.Func
	env := e.in.Env
	if known && sc.Callee.HasAddress {
		addr := sc.Callee.Address
		switch {
		case addr == e.f.Entry:
			ci.name, proto = e.self, e.proto
		default:
			name := ""
			if e.in.Names != nil {
				name, _ = e.in.Names(addr)
			}
			if name == "" {
				name = sc.Callee.Name
			}
			if f, ok := ctypes.Lookup(name, env.ABI); ok && name != "" {
				proto, table = signature.FromTable(f, env), &f
			} else if env.Known != nil {
				if p, ok := env.Known(addr); ok {
					proto, ci.local = p, true
				}
			}
			ci.name = globalName(name)
			if ci.name == "" {
				ci.name = fmt.Sprintf("sub_%x", addr)
			}
			if ci.name == e.self {
				ci.name += "_"
			}
		}
	} else if known && sc.Callee.Name != "" {
		// through a GOT slot
		name := sc.Callee.Name
		if f, ok := ctypes.Lookup(name, env.ABI); ok {
			proto, table = signature.FromTable(f, env), &f
		}
		ci.name = globalName(name)
	}
	if ci.name == "" {
		ci.target = v.Args[0]
		ci.deps = append(ci.deps, v.Args[0])
	}
	if proto != nil {
		ci.ret = proto.Return
	} else {
		ci.ret = &signature.Param{Storage: e.retLoc(ci), Class: ctypes.ClassInteger, Width: 64}
	}
	var stores map[int64]*value
	for i, a := range argsByPrototype(sc.Args, proto) {
		q := signature.Param{Storage: a.Storage, Class: ctypes.ClassInteger, Width: 64, Used: true}
		fixed := proto != nil && i < len(proto.Params)
		if fixed {
			q = proto.Params[i]
		} else if strings.HasPrefix(a.Storage, "xmm") || strings.HasPrefix(a.Storage, "v") || strings.HasPrefix(a.Storage, "d") {
			q.Class = ctypes.ClassFloating
		}
		ai := argInfo{q: q, param: -1, fixed: fixed}
		if !fixed && q.Class == ctypes.ClassInteger && a.Width >= 32 {
			ai.reads = lift.Width(a.Width)
		}
		if table != nil && i < len(table.Params) && table.Params[i].Consts != nil {
			ai.consts = &table.Params[i]
		}
		if strings.HasPrefix(a.Storage, "stack+") {
			if stores == nil {
				stores = e.outgoing(v)
			}
			off, _ := strconv.ParseInt(strings.TrimPrefix(a.Storage, "stack+0x"), 16, 64)
			ai.v = stores[off]
			if ai.v == nil {
				e.limit("a stack argument of a call is not known: 0 is passed")
			}
		} else if k := slices.Index(v.Names, a.Storage); k >= 0 && 3+k < len(v.Args) {
			ai.v = v.Args[3+k]
		} else if p, ok := e.params[a.Storage]; ok {
			ai.param = p
		}
		if ai.v != nil && ai.v.Kind == dataflow.Entry {
			if p, ok := e.params[ai.v.Loc]; ok {
				ai.v, ai.param = nil, p
			}
		}
		if a.Value.Kind == signature.KindString && q.Class == ctypes.ClassPointer && printable(a.Value.String) {
			ai.str, ai.isStr = a.Value.String, true
			ai.v = nil
		}
		if ai.v != nil {
			ci.deps = append(ci.deps, ai.v)
		}
		ci.args = append(ci.args, ai)
	}
	e.declare(ci, proto, sc)
	return ci
}

// argsByPrototype is the arguments of a call to a procedure of prototype
// proto: one for each of its parameters, in order, from where the
// parameter is passed (a call to the procedure itself, whose prototype the
// call-site analysis did not know, reads just those). A call of unknown or
// variadic prototype passes what the call site shows.
func argsByPrototype(args []signature.Arg, proto *signature.Prototype) []signature.Arg {
	if proto == nil || proto.Variadic {
		return args
	}
	out := make([]signature.Arg, len(proto.Params))
	for i, q := range proto.Params {
		out[i] = signature.Arg{Index: i, Storage: q.Storage}
		for _, a := range args {
			if a.Storage == q.Storage {
				out[i] = a
				out[i].Index = i
				break
			}
		}
	}
	return out
}

func printable(s string) bool {
	if len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

// outgoing maps the offsets from the callee's entry stack pointer of the
// stack slots stored before call v (walking its memory chain back to the
// previous call) to the values stored.
func (e *emitter) outgoing(v *value) map[int64]*value {
	out := map[int64]*value{}
	if len(v.Args) < 3 {
		return out
	}
	sp, ok := e.offs[v.Args[2]]
	if !ok {
		return out
	}
	entry := sp.Off
	if v.Op == lift.Jump {
		entry -= e.in.Env.Conv.RetAddr // a tail call: the return address is the caller's
	}
	m := v.Args[1]
	for n := 0; m != nil && n < 256; n++ {
		if m.Kind != dataflow.OpValue || m.Op != lift.Store {
			break
		}
		if o, ok := e.offs[m.Args[0]]; ok && o.Base == sp.Base {
			if _, seen := out[o.Off-entry]; !seen {
				out[o.Off-entry] = m.Args[1]
			}
		}
		m = m.Args[2]
	}
	return out
}

// declare records the declaration of ci's callee.
func (e *emitter) declare(ci *callInfo, proto *signature.Prototype, sc signature.Call) {
	if ci.name == "" || ci.name == e.self {
		if ci.name == e.self {
			e.decls[e.self] = e.selfProto + ";"
		}
		return
	}
	if _, ok := e.decls[ci.name]; ok {
		return
	}
	if proto == nil {
		e.decls[ci.name] = "uint64_t " + ci.name + "();"
		return
	}
	e.decls[ci.name] = e.signatureText(ci.name, proto, !ci.local) + ";"
}

// cType renders a parameter's C type; decl: for a declaration of another
// procedure (pointers are void *), else for the definition (uint8_t *).
func cType(q signature.Param, decl bool) string {
	switch q.Class {
	case ctypes.ClassPointer:
		if decl {
			return "void *"
		}
		return "uint8_t *"
	case ctypes.ClassFloating:
		if q.Width == 32 {
			return "float"
		}
		return "double"
	}
	w := lift.Width(q.Width)
	switch w {
	case 8, 16, 32, 64:
	default:
		w = 64
	}
	if q.Signed {
		return sT(w)
	}
	return uT(w)
}

func (e *emitter) signatureText(name string, p *signature.Prototype, decl bool) string {
	ret := "void"
	if p.Return != nil {
		ret = cType(*p.Return, decl)
	}
	var ps []string
	for i, q := range p.Params {
		t := cType(q, decl)
		if !decl {
			if strings.HasSuffix(t, "*") {
				t += "a" + strconv.Itoa(i+1)
			} else {
				t += " a" + strconv.Itoa(i+1)
			}
		}
		ps = append(ps, t)
	}
	switch {
	case p.Variadic && len(ps) > 0:
		ps = append(ps, "...")
	case p.Variadic && decl:
		// C11 has no variadic function without a named parameter: an
		// unprototyped declaration takes any arguments
	case len(ps) == 0:
		ps = []string{"void"}
	}
	sep := " "
	if strings.HasSuffix(ret, "*") {
		sep = ""
	}
	return ret + sep + name + "(" + strings.Join(ps, ", ") + ")"
}

var keywords = map[string]bool{
	"auto": true, "break": true, "case": true, "char": true, "const": true, "continue": true, "default": true,
	"do": true, "double": true, "else": true, "enum": true, "extern": true, "float": true, "for": true, "goto": true,
	"if": true, "inline": true, "int": true, "long": true, "register": true, "restrict": true, "return": true,
	"short": true, "signed": true, "sizeof": true, "static": true, "struct": true, "switch": true, "typedef": true,
	"union": true, "unsigned": true, "void": true, "volatile": true, "while": true, "bool": true, "true": true,
	"false": true, "main": true, "asm": true, "typeof": true,
}

// cName makes a display name a C identifier: a symbol version or @plt
// suffix is dropped, other characters become '_', and a keyword (or main,
// whose type C fixes) gets a trailing '_'.
func cName(s string) string {
	if i := strings.IndexByte(s, '@'); i > 0 {
		s = s[:i]
	}
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	s = string(b)
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	if keywords[s] || strings.HasPrefix(s, "__rea_") {
		s += "_"
	}
	return s
}

// globalName is cName for a name of the program, kept apart from the
// emitter's own locals (a1…, v1…, frame, sp0).
func globalName(s string) string {
	n := cName(s)
	if n == "frame" || n == "sp0" {
		return n + "_"
	}
	if len(n) > 1 && (n[0] == 'a' || n[0] == 'v') {
		if _, err := strconv.Atoi(n[1:]); err == nil {
			return n + "_"
		}
	}
	return n
}
