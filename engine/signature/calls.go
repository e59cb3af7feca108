package signature

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/lift"
)

// Call is one call site (procedure_calls, CONTRACTS.md §19).
type Call struct {
	Addr   uint64
	Callee Callee
	Args   []Arg
}

// Callee is what a call transfers to.
type Callee struct {
	Address    uint64
	HasAddress bool
	Name       string
	// Kind is "direct", "import", "indirect" or "tail".
	Kind string
}

// Arg is one argument of a call.
type Arg struct {
	Index   int
	Storage string
	Value   Value
	// Width is how many bits of an integer argument the callee reads when
	// a prototype table or a format string says so (printf's %d reads 32
	// of a 64-bit register); 0 when only the register is known.
	Width int
}

// Value kinds.
const (
	KindConstant   = "constant"
	KindString     = "string"
	KindAddress    = "address"
	KindSymbol     = "symbol"
	KindStack      = "stack"
	KindExpression = "expression"
	KindUnknown    = "unknown"
)

// Value is an argument's value as far as data flow determines it.
type Value struct {
	Kind    string
	Text    string
	Integer int64 // constant
	HasInt  bool
	String  string // string
	Address uint64 // string, address, symbol
	HasAddr bool
}

type callee struct {
	Callee
	proto *Prototype
}

// callee resolves the target of transfer t.
func (a *analysis) callee(t *dataflow.Value) *callee {
	if c, ok := a.callees[t]; ok {
		return c
	}
	c := &callee{Callee: Callee{Kind: "indirect"}}
	a.callees[t] = c
	if len(t.Args) == 0 {
		return c
	}
	tgt := t.Args[0]
	img := a.env.Image
	if x, ok := a.constant(tgt, 0); ok {
		c.Address, c.HasAddress, c.Kind = x, true, "direct"
		if img != nil {
			if n, imp, ok := img.Symbol(x); ok {
				c.Name = n
				if imp {
					c.Kind = "import"
				}
			}
		}
	} else if tgt.Kind == dataflow.OpValue && tgt.Op == lift.Load && img != nil {
		// through a GOT or IAT slot
		if slot, ok := a.constant(tgt.Args[0], 0); ok {
			if n, imp, ok := img.Symbol(slot); ok && imp {
				c.Name, c.Kind = n, "import"
			}
		}
	}
	if t.Op == lift.Jump {
		c.Kind = "tail"
	}
	if c.Name != "" {
		if f, ok := ctypes.Lookup(c.Name, a.env.ABI); ok {
			c.proto = FromTable(f, a.env)
			c.proto.format = f.Format
			c.proto.formatParam = f.FormatParam
		}
	}
	if c.proto == nil && c.HasAddress && a.env.Known != nil {
		if p, ok := a.env.Known(c.Address); ok {
			c.proto = p
		}
	}
	return c
}

// constant evaluates v when data flow makes it a constant: the folded
// constants, and the address arithmetic over them the passes leave.
func (a *analysis) constant(v *dataflow.Value, depth int) (uint64, bool) {
	if depth > 16 {
		return 0, false
	}
	if v.Kind == dataflow.ConstValue {
		return v.Lo, true
	}
	if v.Kind != dataflow.OpValue || v.Lane != 0 {
		return 0, false
	}
	arg := func(i int) (uint64, bool) {
		if i >= len(v.Args) {
			return 0, false
		}
		return a.constant(v.Args[i], depth+1)
	}
	m := mask(v.Width)
	switch v.Op {
	case lift.Copy, lift.ZExt, lift.Trunc:
		x, ok := arg(0)
		return x & m, ok
	case lift.SExt:
		x, ok := arg(0)
		w := v.Args[0].Width
		if ok && w < 64 && x&(1<<(w-1)) != 0 {
			x |= ^mask(w)
		}
		return x & m, ok
	case lift.Extract:
		x, ok := arg(0)
		if v.Aux >= 64 {
			return 0, false
		}
		return (x >> v.Aux) & m, ok
	case lift.Add, lift.Sub, lift.And, lift.Or, lift.Xor, lift.Shl:
		x, ok1 := arg(0)
		y, ok2 := arg(1)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch v.Op {
		case lift.Add:
			return (x + y) & m, true
		case lift.Sub:
			return (x - y) & m, true
		case lift.And:
			return x & y, true
		case lift.Or:
			return (x | y) & m, true
		case lift.Xor:
			return (x ^ y) & m, true
		case lift.Shl:
			if y >= 64 {
				return 0, true
			}
			return (x << y) & m, true
		}
	}
	return 0, false
}

func mask(w lift.Width) uint64 {
	if w >= 64 || w == 0 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// Calls lists the call sites of f, sorted by address.
func Calls(f *dataflow.Func, env *Env) []Call {
	return newAnalysis(f, env, &Scratch{}).calls()
}

func (a *analysis) calls() []Call {
	f := a.f
	var out []Call
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if !isTransfer(v) {
				continue
			}
			if v.Op == lift.Jump {
				// an exit: a tail call when it leaves through a jump to a
				// constant outside the procedure (not a fall off the end)
				if b.Exit || v.Args[0].Kind != dataflow.ConstValue {
					continue
				}
			}
			out = append(out, a.call(v))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// callParams are the arguments transfer t passes: its callee's
// prototype (with a format's conversions or the registers written beyond
// the fixed ones for a variadic callee), else what the caller writes; with
// the argument registers' values at t and its outgoing stack slots.
func (a *analysis) callParams(t *dataflow.Value) ([]Param, map[string]*dataflow.Value, map[int64]*dataflow.Value) {
	c := a.callee(t)
	regs := map[string]*dataflow.Value{}
	for i, n := range t.Names {
		regs[n] = t.Args[i+3]
	}
	stack := a.outgoing(t)
	var params []Param
	if c.proto != nil {
		params = slices_clone(c.proto.Params)
		if c.proto.Variadic {
			params = append(params, a.variadicArgs(t, c.proto, params, regs, stack)...)
		}
	} else {
		params = a.written(t, regs, stack)
	}
	return params, regs, stack
}

func (a *analysis) call(t *dataflow.Value) Call {
	c := a.callee(t)
	call := Call{Addr: t.Addr, Callee: c.Callee}
	params, regs, stack := a.callParams(t)
	for i, q := range params {
		arg := Arg{Index: i, Storage: q.Storage}
		if q.sure && q.Class == ctypes.ClassInteger {
			arg.Width = q.Width
		}
		var v *dataflow.Value
		unnamed := false
		if strings.HasPrefix(q.Storage, "stack+") {
			v = stack[parseStack(q.Storage)]
		} else {
			v = regs[q.Storage]
			unnamed = v == nil && !a.named(q.Storage)
		}
		switch {
		case unnamed:
			// the procedure never names the register: the caller's own
			// argument passed on
			arg.Value = Value{Kind: KindExpression, Text: q.Storage}
		case v == nil:
			arg.Value = Value{Kind: KindUnknown, Text: "?"}
		default:
			arg.Value = a.classify(v, q)
		}
		call.Args = append(call.Args, arg)
	}
	return call
}

func slices_clone(p []Param) []Param { return append([]Param(nil), p...) }

// outgoing maps the offsets (relative to the callee's stack pointer at
// entry) of the stack slots the caller stores before transfer t to the
// values stored: the memory chain walked back from the call to the
// previous call or unmodelled instruction.
func (a *analysis) outgoing(t *dataflow.Value) map[int64]*dataflow.Value {
	out := map[int64]*dataflow.Value{}
	if len(t.Args) < 3 {
		return out
	}
	sp, ok := a.offs.Of(t.Args[2])
	if !ok {
		return out
	}
	for m, n := t.Args[1], 0; n < 256 && m.Kind == dataflow.OpValue && m.Op == lift.Store; m, n = m.Args[2], n+1 {
		o, ok := a.offs.Of(m.Args[0])
		if !ok || o.Base != sp.Base {
			continue
		}
		// The call's stack pointer is the callee's at entry (x86: the
		// return address already pushed; a tail call's is the caller's).
		rel := o.Off - sp.Off
		if _, seen := out[rel]; !seen && rel >= 0 {
			out[rel] = m.Args[1]
		}
	}
	return out
}

// written are the arguments of a call to a callee without a prototype:
// the argument registers the procedure sets before it (not an entry
// value left in its own register, not a value an earlier call left) and the stack slots
// it stores from the first argument slot on, contiguously.
func (a *analysis) written(t *dataflow.Value, regs map[string]*dataflow.Value, stack map[int64]*dataflow.Value) []Param {
	cv := a.env.Conv
	set := func(r string) bool {
		v := regs[r]
		// an entry value moved to another register is set (a parameter
		// passed on in another position); one left where it came is not
		return v != nil && (v.Kind != dataflow.Entry || v.Loc != r) && v.Kind != dataflow.Clobber
	}
	var out []Param
	last := -1
	for i, r := range cv.IntArgs {
		if set(r) {
			last = i
		}
	}
	for i := 0; i <= last; i++ {
		out = append(out, Param{Storage: cv.IntArgs[i], Class: ctypes.ClassInteger, Width: int(cv.PtrWidth)})
	}
	last = -1
	for i, r := range cv.FloatArgs {
		if set(r) {
			last = i
		}
	}
	for i := 0; i <= last; i++ {
		out = append(out, Param{Storage: cv.FloatArgs[i], Class: ctypes.ClassFloating, Width: 64})
	}
	if len(cv.IntArgs) == 0 || out != nil && len(out) >= len(cv.IntArgs) {
		for off := cv.StackArgs; stack[off] != nil; off += cv.StackSlot {
			out = append(out, Param{Storage: StackName(off), Class: ctypes.ClassInteger, Width: int(cv.StackSlot * 8)})
		}
	}
	return out
}

// variadicArgs are the arguments a call passes through a variadic
// callee's ellipsis: a printf-style format string's conversions when the
// format is a known string, else the registers the caller writes beyond
// the fixed ones.
func (a *analysis) variadicArgs(t *dataflow.Value, p *Prototype, fixed []Param, regs map[string]*dataflow.Value, stack map[int64]*dataflow.Value) []Param {
	cv := a.env.Conv
	ni, nf := 0, 0
	stackNext := cv.StackArgs
	for _, q := range fixed {
		switch {
		case strings.HasPrefix(q.Storage, "stack+"):
			stackNext += max(cv.StackSlot, int64(q.Width/8))
		case q.Class == ctypes.ClassFloating:
			nf++
		default:
			ni++
		}
	}
	next := func(c conversion) Param {
		float, width := c.float, c.width(int(cv.PtrWidth))
		q := Param{Class: ctypes.ClassInteger, Width: width, Signed: true, sure: true}
		switch {
		case float:
			q.Class = ctypes.ClassFloating
		case c.size == 'p':
			q.Class, q.Signed = ctypes.ClassPointer, false
		}
		switch {
		case cv.Positional && ni+nf < len(cv.IntArgs):
			q.Storage = cv.IntArgs[ni+nf] // Win64 passes variadic floats in both
			ni++
		case float && nf < len(cv.FloatArgs) && !cv.Positional:
			q.Storage = cv.FloatArgs[nf]
			nf++
		case !float && ni < len(cv.IntArgs) && !cv.Positional:
			q.Storage = cv.IntArgs[ni]
			ni++
		default:
			q.Storage = StackName(stackNext)
			stackNext += max(cv.StackSlot, int64(width/8))
		}
		return q
	}
	if p.format == ctypes.FormatPrintf && p.formatParam >= 0 && p.formatParam < len(fixed) {
		q := fixed[p.formatParam]
		var fv *dataflow.Value
		if strings.HasPrefix(q.Storage, "stack+") {
			var off uint64
			fmt.Sscanf(q.Storage, "stack+0x%x", &off)
			fv = stack[int64(off)]
		} else {
			fv = regs[q.Storage]
		}
		if fv != nil && a.env.Image != nil {
			if addr, ok := a.constant(fv, 0); ok {
				if s, ok := a.env.Image.ReadString(addr); ok {
					if convs, ok := printfArgs(s); ok {
						var out []Param
						for _, c := range convs {
							out = append(out, next(c))
						}
						return out
					}
				}
			}
		}
		return nil // an unknown format: the count is unknown, so none
	}
	if p.format != ctypes.FormatNone {
		return nil
	}
	// no format: the registers written beyond the fixed ones
	w := a.written(t, regs, stack)
	var out []Param
	for _, q := range w {
		dup := false
		for _, f := range fixed {
			if f.Storage == q.Storage {
				dup = true
			}
		}
		if !dup && !strings.HasPrefix(q.Storage, "stack+") || !dup && stackNext <= parseStack(q.Storage) {
			out = append(out, q)
		}
	}
	return out
}

func parseStack(s string) int64 {
	var off uint64
	fmt.Sscanf(s, "stack+0x%x", &off)
	return int64(off)
}

// classify says what value v, passed as parameter q, is.
func (a *analysis) classify(v *dataflow.Value, q Param) Value {
	img := a.env.Image
	if x, ok := a.constant(v, 0); ok {
		w := q.Width
		if q.Class == ctypes.ClassFloating {
			return Value{Kind: KindConstant, Text: Hex(x), Integer: int64(x), HasInt: true}
		}
		if w <= 0 || w > 64 {
			w = 64
		}
		if !q.sure {
			// an inferred width says what the callee reads, not what the
			// caller passes: never cut the constant below an int
			w = max(w, 32)
		}
		if w < 64 {
			x &= 1<<uint(w) - 1
		}
		if q.Class != ctypes.ClassInteger || w == int(a.env.Conv.PtrWidth) || !q.sure {
			if img != nil {
				if n, _, ok := img.Symbol(x); ok {
					return Value{Kind: KindSymbol, Text: n, Address: x, HasAddr: true}
				}
				if s, ok := img.ReadString(x); ok && printable(s) {
					return Value{Kind: KindString, Text: Quote(s), String: s, Address: x, HasAddr: true}
				}
				if img.Mapped(x) {
					return Value{Kind: KindAddress, Text: Hex(x), Address: x, HasAddr: true}
				}
			}
		}
		n := int64(x)
		if q.Signed || q.Class != ctypes.ClassPointer {
			if w < 64 && x&(1<<uint(w-1)) != 0 {
				n = int64(x | ^(1<<uint(w) - 1))
			}
		}
		return Value{Kind: KindConstant, Text: fmt.Sprint(n), Integer: n, HasInt: true}
	}
	if o, ok := a.offs.Of(v); ok {
		if o.Base == 0 {
			return Value{Kind: KindStack, Text: fmt.Sprintf("sp%+#x", o.Off)}
		}
		return Value{Kind: KindStack, Text: fmt.Sprintf("frame%d%+#x", o.Base, o.Off)}
	}
	switch v.Kind {
	case dataflow.Entry:
		return Value{Kind: KindExpression, Text: v.Loc}
	case dataflow.Clobber, dataflow.Phi:
		return Value{Kind: KindUnknown, Text: "?"}
	}
	return Value{Kind: KindExpression, Text: a.render(v, 3)}
}

func (a *analysis) render(v *dataflow.Value, depth int) string {
	if x, ok := a.constant(v, 0); ok {
		return Hex(x)
	}
	if o, ok := a.offs.Of(v); ok && o.Base == 0 {
		return fmt.Sprintf("sp%+#x", o.Off)
	}
	switch v.Kind {
	case dataflow.Entry:
		return v.Loc
	case dataflow.Phi, dataflow.Clobber:
		return "?"
	}
	if depth == 0 {
		return "…"
	}
	var parts []string
	for _, x := range v.Args {
		if x.IsMem() {
			continue
		}
		parts = append(parts, a.render(x, depth-1))
	}
	return v.Op.String() + "(" + strings.Join(parts, ", ") + ")"
}

func printable(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}

// Quote is a string argument's Text: the string quoted as Go does, its
// first 64 bytes when longer.
func Quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}
