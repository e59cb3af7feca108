package decompile

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/decompile/structure"
)

// printer prints the definition: one line at a time, each with the
// addresses it stands for.
type printer struct {
	e      *emitter
	sb     strings.Builder
	addrs  [][]uint64
	indent int
	stats  Stats
	labels map[int]bool
	byAddr map[uint64]int
	// last is the last line printed, starting at byte lastStart.
	last       string
	lastStart  int
	lastIndent int
	// hoisted holds the statements a block of the tree prints, where
	// hoist took some out: per tree node, since a block the structurer
	// copied appears in the tree more than once and keeps its
	// statements elsewhere.
	hoisted map[*structure.Node][]line
}

// stmts are the statements the block n of the tree prints.
func (p *printer) stmts(n *structure.Node) []line {
	if ls, ok := p.hoisted[n]; ok {
		return ls
	}
	return p.e.nodes[n.Node].stmts
}

// returnOfLast reports whether the line s returns the variable the last
// line assigned (v = x; then return v;), and x: the two are return x;
// when the variable keeps every bit the return type does.
func (p *printer) returnOfLast(s string) (string, bool) {
	v, ok := strings.CutPrefix(s, "return ")
	if !ok || p.lastIndent != p.indent || len(p.addrs) == 0 {
		return "", false
	}
	v = strings.TrimSuffix(v, ";")
	conv := ""
	if u, ok := strings.CutPrefix(v, "(uint64_t)"); ok && p.e.ptr[u] {
		// a pointer variable returned as an integer
		v, conv = u, "(uint64_t)"
	}
	x, ok := strings.CutPrefix(p.last, v+" = ")
	if !ok || !isIdent(v) || !strings.HasSuffix(x, ";") {
		return "", false
	}
	r := p.e.proto.Return
	if r == nil {
		return "", false
	}
	if x = strings.TrimSuffix(x, ";"); conv != "" {
		switch {
		case x == "0":
			return x, true
		case isIdent(x):
			return conv + x, true
		}
		return "", false
	}
	vt, rt := p.e.vtype[v], cType(*r, false)
	if vt == "" || vt != rt && (intWidth(vt) == 0 || intWidth(rt) == 0 || intWidth(rt) > intWidth(vt)) {
		return "", false
	}
	return x, true
}

// dropLast takes the last line back, returning its addresses.
func (p *printer) dropLast() []uint64 {
	s := p.sb.String()[:p.lastStart]
	p.sb.Reset()
	p.sb.WriteString(s)
	as := p.addrs[len(p.addrs)-1]
	p.addrs = p.addrs[:len(p.addrs)-1]
	return as
}

func (p *printer) line(s string, as []uint64) {
	if x, ok := p.returnOfLast(s); ok {
		as = append(p.dropLast(), as...)
		s = "return " + x + ";"
	}
	p.last, p.lastStart, p.lastIndent = s, p.sb.Len(), p.indent
	p.sb.WriteString(strings.Repeat("\t", p.indent))
	p.sb.WriteString(s)
	p.sb.WriteByte('\n')
	p.addrs = append(p.addrs, append([]uint64(nil), as...))
}

// header prints the signature, the variables and the stack frame.
func (p *printer) header() {
	e := p.e
	p.line(e.selfProto+" {", []uint64{e.f.Entry})
	p.indent = 1
	byType := map[string][]string{}
	var types []string
	for _, n := range e.decl {
		t := e.vtype[n]
		if _, ok := byType[t]; !ok {
			types = append(types, t)
		}
		byType[t] = append(byType[t], n)
	}
	for _, t := range types {
		if base, ok := strings.CutSuffix(t, " *"); ok {
			// each declarator of a pointer list takes its own *
			p.line(base+" *"+strings.Join(byType[t], ", *")+";", nil)
			continue
		}
		p.line(t+" "+strings.Join(byType[t], ", ")+";", nil)
	}
	if e.frame {
		lo, hi := int64(0), int64(16)
		for v := range e.live {
			if o, ok := e.offs[v]; ok && o.Base == 0 {
				lo, hi = min(lo, o.Off), max(hi, o.Off+16)
			}
		}
		for _, q := range e.proto.Params {
			if off, ok := stackOff(q.Storage); ok {
				hi = max(hi, off+16)
			}
		}
		// the entry stack pointer's alignment: 16 bytes before the call
		// pushed its return address
		below := (-lo+64+15)/16*16 + (16-e.in.Env.Conv.RetAddr%16)%16
		p.line(fmt.Sprintf("uint8_t frame[%d] __attribute__((aligned(16)));", below+hi+8), nil)
		p.line(fmt.Sprintf("uint64_t sp0 = (uint64_t)(frame + %d); /* the stack pointer at entry */", below), nil)
		for i, q := range e.proto.Params {
			if off, ok := stackOff(q.Storage); ok {
				t := cType(q, false)
				if q.Class == ctypes.ClassPointer {
					t = "uint8_t *"
				}
				p.line(fmt.Sprintf("*(%s *)(sp0 + %d) = a%d;", strings.TrimSpace(t), off, i+1), nil)
			}
		}
	}
}

func stackOff(s string) (int64, bool) {
	if !strings.HasPrefix(s, "stack+0x") {
		return 0, false
	}
	v, err := strconv.ParseInt(s[len("stack+0x"):], 16, 64)
	return v, err == nil
}

func (p *printer) collectLabels(n *structure.Node) {
	if n == nil {
		return
	}
	if n.Kind == structure.Goto {
		p.labels[n.Node] = true
	}
	for _, c := range n.Children {
		p.collectLabels(c)
	}
	for _, c := range n.Cases {
		p.collectLabels(c.Body)
	}
}

// label names node n's label: its address, with the block's number when
// another block starts at the same address (a block split inside an
// instruction).
func (p *printer) label(n int) string {
	if n >= len(p.e.f.Blocks) {
		return fmt.Sprintf("E%d", n)
	}
	if p.byAddr == nil {
		p.byAddr = map[uint64]int{}
		for _, b := range p.e.f.Blocks {
			p.byAddr[b.Addr]++
		}
	}
	a := p.e.f.Blocks[n].Addr
	if p.byAddr[a] > 1 {
		return fmt.Sprintf("L_%x_%d", a, n)
	}
	return fmt.Sprintf("L_%x", a)
}

// cond renders a condition of the tree.
func (p *printer) cond(c *structure.Cond) (cx, []uint64) {
	switch c.Op {
	case structure.And, structure.Or:
		x, xa := p.cond(c.X)
		y, ya := p.cond(c.Y)
		op, pr := "&&", pLand
		if c.Op == structure.Or {
			op, pr = "||", pLor
		}
		r := bin(x, op, y, pr)
		if c.Negate {
			r = not(r)
		}
		return r, append(xa, ya...)
	}
	n := p.e.nodes[c.Node]
	r := n.cond
	if c.Negate {
		r = not(r)
	}
	return truthTest(r), n.condAddrs
}

// truthTest is the condition c as C tests it: x != 0 is x, x == 0 is !x.
func truthTest(c cx) cx {
	if c.relL == nil || !c.relR.isConst || c.relR.val != 0 || c.relR.s != "0" {
		return c
	}
	switch c.relOp {
	case "!=":
		return *c.relL
	case "==":
		return cx{s: "!" + c.relL.at(pUnary), p: pUnary}
	}
	return c
}

func simple(n *structure.Node) bool {
	if n == nil {
		return false
	}
	switch n.Kind {
	case structure.Goto, structure.Break, structure.Continue:
		return true
	}
	return false
}

func (p *printer) jump(n *structure.Node) string {
	switch n.Kind {
	case structure.Goto:
		p.stats.Gotos++
		return "goto " + p.label(n.Node) + ";"
	case structure.Break:
		return "break;"
	}
	return "continue;"
}

// node prints one construct.
func (p *printer) node(n *structure.Node) {
	if n == nil {
		return
	}
	switch n.Kind {
	case structure.Seq:
		for _, c := range n.Children {
			p.node(c)
		}
	case structure.Block:
		for _, l := range p.stmts(n) {
			p.line(l.text, l.addrs)
		}
	case structure.Label:
		if p.labels[n.Node] {
			p.indent--
			p.line(p.label(n.Node)+":", nil)
			p.indent++
		}
	case structure.Goto, structure.Break, structure.Continue:
		p.line(p.jump(n), nil)
	case structure.If:
		p.ifChain(n, "if (")
	case structure.While:
		p.stats.Loops++
		c, as := p.cond(n.Cond)
		p.line("while ("+c.s+") {", as)
		p.body(n.Children[0])
		p.line("}", nil)
	case structure.DoWhile:
		p.stats.Loops++
		p.line("do {", nil)
		p.body(n.Children[0])
		c, as := p.cond(n.Cond)
		p.line("} while ("+c.s+");", as)
	case structure.Loop:
		if n.Once && !continues(n.Children[0]) {
			// a block left by break: every path through it leaves
			p.line("do {", nil)
			p.body(n.Children[0])
			p.line("} while (0);", nil)
			return
		}
		if !n.Once {
			p.stats.Loops++
		}
		p.line("for (;;) {", nil)
		p.body(n.Children[0])
		p.line("}", nil)
	case structure.Switch:
		p.stats.Switches++
		nd := p.e.nodes[n.Node]
		p.line("switch ("+nd.cond.s+") {", nd.condAddrs)
		hasDefault := false
		for _, c := range n.Cases {
			if len(c.Succs) == 0 {
				hasDefault = true
				p.line("default:", nil)
			}
			vals := make([]uint64, 0, len(c.Succs))
			for _, s := range c.Succs {
				if s < len(nd.cases) {
					vals = append(vals, nd.cases[s]...)
				}
			}
			sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
			for _, v := range vals {
				p.line("case "+hexnum(v)+":", nil)
			}
			p.body(c.Body)
		}
		if !hasDefault {
			// the last arm may fall off the switch's end; the default
			// written after it must not catch that fall
			if k := len(n.Cases); k > 0 && !ends(n.Cases[k-1].Body) {
				p.indent++
				p.line("break;", nil)
				p.indent--
			}
			p.line("default:", nil)
			p.indent++
			p.line("__builtin_unreachable(); /* the jump table's bound */", nil)
			p.indent--
		}
		p.line("}", nil)
	}
}

// ifChain prints the if n, its opening written after lead: an else
// whose whole body is another if continues the chain (else if), and a
// branch of one statement without an else shares the condition's line.
func (p *printer) ifChain(n *structure.Node, lead string) {
	c, as := p.cond(n.Cond)
	if lead == "if (" {
		p.hoist(n, c)
	}
	then := n.Children[0]
	var els *structure.Node
	if len(n.Children) > 1 {
		els = p.only(n.Children[1])
	}
	if els != nil && p.only(then) == nil {
		// the arms' common statements hoisted left the then arm empty
		c, then, els = truthTest(not(c)), els, nil
	}
	if els == nil && lead == "if (" {
		switch t := p.only(then); {
		case simple(t):
			p.line("if ("+c.s+") "+p.jump(t), as)
			return
		case t != nil && t.Kind == structure.Block && len(p.stmts(t)) == 1:
			l := p.stmts(t)[0]
			if len(c.s)+len(l.text) <= 100 {
				p.line("if ("+c.s+") "+l.text, append(append([]uint64(nil), as...), l.addrs...))
				return
			}
		}
	}
	if l, ok := p.ternary(c, then, els); ok && lead == "if (" {
		p.line(l.text, append(append([]uint64(nil), as...), l.addrs...))
		return
	}
	p.line(lead+c.s+") {", as)
	p.body(then)
	switch {
	case els != nil && els.Kind == structure.If:
		p.ifChain(els, "} else if (")
		return
	case els != nil:
		p.line("} else {", nil)
		p.body(els)
	}
	p.line("}", nil)
}

// hoist prints before the if n the assignments both its arms begin
// with, and takes them out of the arms: a variable set to a constant or
// to another variable, which the condition c does not read, is set the
// same before the test as after it. An assignment among an arm's first
// few is hoisted when it commutes with those before it.
func (p *printer) hoist(n *structure.Node, c cx) {
	if len(n.Children) < 2 {
		return
	}
	for {
		a, b := p.firstBlock(n.Children[0]), p.firstBlock(n.Children[1])
		if a == nil || b == nil || a == b {
			return
		}
		sa, sb := p.stmts(a), p.stmts(b)
		i, j, ok := commonLead(sa, sb, c.s)
		if !ok {
			return
		}
		p.line(sa[i].text, append(append([]uint64(nil), sa[i].addrs...), sb[j].addrs...))
		if p.hoisted == nil {
			p.hoisted = map[*structure.Node][]line{}
		}
		p.hoisted[a] = slices.Delete(slices.Clone(sa), i, i+1)
		p.hoisted[b] = slices.Delete(slices.Clone(sb), j, j+1)
	}
}

// simpleSet parses a line `dst = src;` whose src is a variable or a
// number.
func simpleSet(l line) (dst, src string, ok bool) {
	dst, src, ok = strings.Cut(strings.TrimSuffix(l.text, ";"), " = ")
	return dst, src, ok && isIdent(dst) && (isIdent(src) || isNumber(src))
}

// commonLead finds the same simple assignment among the first few of
// lines a and of lines b, movable to the front of both (it commutes with
// the simple assignments before it) and not setting what cond reads.
func commonLead(a, b []line, cond string) (int, int, bool) {
	const window = 4
	lead := func(ls []line) int {
		k := 0
		for k < len(ls) && k < window {
			if _, _, ok := simpleSet(ls[k]); !ok {
				break
			}
			k++
		}
		return k
	}
	movable := func(ls []line, i int) bool {
		d, s, _ := simpleSet(ls[i])
		for _, l := range ls[:i] {
			d2, s2, _ := simpleSet(l)
			if d2 == d || d2 == s || s2 == d {
				return false
			}
		}
		return true
	}
	na, nb := lead(a), lead(b)
	for i := range na {
		for j := range nb {
			if a[i].text != b[j].text {
				continue
			}
			if d, _, _ := simpleSet(a[i]); !mentions(cond, d) && movable(a, i) && movable(b, j) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// firstBlock is the block that prints first in n when n begins with
// statements (no label another jump reaches comes before them).
func (p *printer) firstBlock(n *structure.Node) *structure.Node {
	switch {
	case n == nil:
	case n.Kind == structure.Seq:
		for _, c := range n.Children {
			switch {
			case c.Kind == structure.Label && !p.labels[c.Node],
				c.Kind == structure.Block && len(p.stmts(c)) == 0:
				continue
			}
			return p.firstBlock(c)
		}
	case n.Kind == structure.Block && len(p.stmts(n)) > 0:
		return n
	}
	return nil
}

// isNumber reports whether s is an integer literal as the emitter
// prints one.
func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	return isIdent("x" + s)
}

// mentions reports whether the C text s names the identifier id.
func mentions(s, id string) bool {
	for i := 0; ; {
		k := strings.Index(s[i:], id)
		if k < 0 {
			return false
		}
		k += i
		before := k == 0 || !isIdent("x"+s[k-1:k])
		end := k + len(id)
		after := end == len(s) || !isIdent("x"+s[end:end+1])
		if before && after {
			return true
		}
		i = k + 1
	}
}

// ternary is the if whose arms each assign one variable, and do nothing
// else, as one assignment of a conditional expression: when the arms'
// common type keeps every bit of the variable's, converting through it
// changes neither value.
func (p *printer) ternary(c cx, then, els *structure.Node) (line, bool) {
	one := func(n *structure.Node) *line {
		n = p.only(n)
		if n == nil || n.Kind != structure.Block || len(p.stmts(n)) != 1 {
			return nil
		}
		l := p.stmts(n)[0]
		if l.set == nil {
			return nil
		}
		return &l
	}
	a, b := one(then), one(els)
	if a == nil || b == nil || a.set.dst != b.set.dst {
		return line{}, false
	}
	x, y := a.set.rhs, b.set.rhs
	vt := p.e.vtype[a.set.dst]
	if w := intWidth(arith(x.ty, y.ty)); w == 0 || intWidth(vt) == 0 || w < intWidth(vt) {
		return line{}, false
	}
	t := a.set.dst + " = " + c.at(pLor) + " ? " + x.at(pCond+1) + " : " + y.at(pCond) + ";"
	if len(t) > 120 {
		return line{}, false
	}
	return line{text: t, addrs: append(append([]uint64(nil), a.addrs...), b.addrs...)}, true
}

// only is the one construct n prints, n itself when it prints several;
// nil when it prints nothing.
func (p *printer) only(n *structure.Node) *structure.Node {
	var found *structure.Node
	many := false
	var walk func(n *structure.Node)
	walk = func(n *structure.Node) {
		switch {
		case n == nil || many:
		case n.Kind == structure.Seq:
			for _, c := range n.Children {
				walk(c)
			}
		case n.Kind == structure.Label && !p.labels[n.Node],
			n.Kind == structure.Block && len(p.stmts(n)) == 0:
		case found != nil:
			many = true
		default:
			found = n
		}
	}
	walk(n)
	if many {
		return n
	}
	return found
}

func (p *printer) body(n *structure.Node) {
	p.indent++
	p.node(n)
	p.indent--
}

// prelude renders the includes, typedefs, helpers and declarations.
func (e *emitter) prelude() string {
	var sb strings.Builder
	sb.WriteString("#include <stdint.h>\n#include <stdbool.h>\n")
	sb.WriteString("typedef unsigned __int128 __rea_u128;\ntypedef __int128 __rea_s128;\n")
	sb.WriteString("typedef __rea_u128 __rea_u128u __attribute__((aligned(1)));\n")
	sb.WriteString(e.h.text())
	names := make([]string, 0, len(e.decls))
	for n := range e.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sb.WriteString(e.decls[n])
		sb.WriteByte('\n')
	}
	return sb.String()
}

// continues reports whether a continue in n binds to the loop whose body n
// is (a do … while (0) would turn it into a leave).
func continues(n *structure.Node) bool {
	if n == nil {
		return false
	}
	switch n.Kind {
	case structure.Continue:
		return true
	case structure.Loop, structure.While, structure.DoWhile:
		return false
	}
	for _, c := range n.Children {
		if continues(c) {
			return true
		}
	}
	for _, c := range n.Cases {
		if continues(c.Body) {
			return true
		}
	}
	return false
}

// ends reports whether n certainly leaves by its last statement (a jump;
// a return is a Block of a node without successors, which the printer
// cannot see here, so it counts as falling).
func ends(n *structure.Node) bool {
	for n != nil && n.Kind == structure.Seq && len(n.Children) > 0 {
		n = n.Children[len(n.Children)-1]
	}
	return simple(n)
}
