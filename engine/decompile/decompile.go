package decompile

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile/structure"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/signature"
)

// Version names the emitter's output: it changes whenever the text
// produced for some procedure changes.
const Version = "5"

// Input is one procedure to decompile.
type Input struct {
	// Func is the procedure's SSA form after dataflow.Optimize (as
	// dataflow.ResolveProcedure returns it). Decompile rewrites some of
	// its values in place, each to an equal value (simplify).
	Func *dataflow.Func
	// Env is the calling convention, ABI, image (strings, symbols) and
	// known prototypes the procedure was analysed with.
	Env *signature.Env
	// Prototype is the procedure's recovered prototype (nil: inferred
	// from Func under Env).
	Prototype *signature.Prototype
	// Name is the procedure's display name (made a C identifier).
	Name string
	// Names gives callees' display names (user names); nil or a miss:
	// the image's symbol, else sub_<hex>.
	Names func(addr uint64) (string, bool)
	// SymbolAt names the object or procedure an address lies in, with
	// its start and size, so that addresses of globals print as the
	// symbols (nil: they print as numbers). An object in read-only memory
	// (ReadOnly) of at most 4 KiB is defined in the prelude with its
	// bytes.
	SymbolAt func(addr uint64) (name string, start, size uint64, ok bool)
	// ReadOnly returns the bytes at addr when they lie in memory the
	// program cannot write (a constant pool): a load from there prints as
	// its value (nil: loads stay loads).
	ReadOnly func(addr uint64, n int) ([]byte, bool)
	// Tables are the procedure's resolved jump tables (ResolveProcedure's
	// Tables): a switch on a table's index prints as a switch on the
	// index with the case values (without: a switch on the target).
	Tables []dataflow.JumpTable
	// Insns are the lifted instructions, for the address map's ranges
	// (nil: each range is one byte long).
	Insns []*lift.Insn
	// Limitations of the stages before (undecodable bytes…), carried into
	// the result.
	Limitations []string
}

// Result is the C text of one procedure.
type Result struct {
	// Prelude holds the includes, typedefs, helpers and declarations the
	// code needs; Prelude + Code is a translation unit.
	Prelude string
	// Code is the procedure's definition.
	Code string
	// Lines maps the lines of Code (1-based) to the instructions they
	// come from.
	Lines     []LineMap
	Structure Stats
	// Limitations say what the text does not express exactly.
	Limitations []string
}

// LineMap is one line of Code and the address ranges [start, end) of the
// instructions it stands for.
type LineMap struct {
	Line   int
	Ranges [][2]uint64
}

// Stats describe the control flow of the text.
type Stats struct {
	Gotos, Loops, Switches, UnresolvedIndirect int
}

// Decompile renders in.Func as C. The output is deterministic: the same
// input gives the same bytes.
func Decompile(ctx context.Context, in Input) (*Result, error) {
	if in.Func == nil || in.Env == nil || in.Env.Conv == nil {
		return nil, errors.New("decompile: input needs a function and an environment with a convention")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	simplify(in.Func)
	e := newEmitter(in)
	e.prepare()
	e.liveness()
	e.decide()
	e.coalesce()
	e.narrowVars()
	e.floatVars()
	e.coalesceCopies()
	e.ptrVars()
	e.findAddrConsts()
	e.render()
	tree, err := structure.Structure(e.graph)
	if err == nil {
		// The tree is printed only if it runs the graph as the graph runs.
		err = structure.Check(e.graph, tree)
	}
	if err != nil {
		// The structurer refuses a graph it cannot make faithful (its own
		// check fails, or the graph is too large): the goto form is still
		// the procedure, stated as such.
		e.limit("the control flow is printed in goto form: " + err.Error())
		if tree, err = gotoTree(e.graph); err != nil {
			return nil, fmt.Errorf("decompile: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.finish(tree), nil
}

// Graph is f's control-flow graph as the structurer reads it: node i is
// f.Blocks[i]; a two-way node's Succs[0] is the branch taken; a switch's
// successors are its cases in f's order. Pure marks blocks whose only
// value is their terminator (the emitter's own graph, with edge splits
// and its inlining, is what Decompile structures).
func Graph(f *dataflow.Func) structure.Graph {
	idx := map[*dataflow.Block]int{}
	for i, b := range f.Blocks {
		idx[b] = i
	}
	g := structure.Graph{Succs: make([][]int, len(f.Blocks)), Pure: make([]bool, len(f.Blocks))}
	for i, b := range f.Blocks {
		for _, s := range b.Succs {
			g.Succs[i] = append(g.Succs[i], idx[s])
		}
		pure := true
		for _, v := range b.Values {
			if v.Kind == dataflow.OpValue && v != b.Control() || v.Kind == dataflow.Clobber {
				pure = false
			}
		}
		g.Pure[i] = pure
	}
	return g
}

// finish prints the tree and assembles the result.
func (e *emitter) finish(tree *structure.Node) *Result {
	p := &printer{e: e, labels: map[int]bool{}}
	p.collectLabels(tree)
	p.header()
	p.indent = 1
	p.node(tree)
	p.indent = 0
	var end []uint64
	if p.last == "return;" && e.proto.Return == nil && p.sb.String()[p.lastStart:p.lastStart+2] == "\tr" {
		end = p.dropLast() // the closing brace returns
	}
	p.line("}", end)
	r := &Result{Prelude: e.prelude(), Code: p.sb.String()}
	r.Structure = p.stats
	r.Structure.UnresolvedIndirect = e.unresolved
	lens := map[uint64]uint64{}
	for _, in := range e.in.Insns {
		lens[in.Addr] = uint64(in.Len)
	}
	for i, as := range p.addrs {
		if len(as) == 0 {
			continue
		}
		sort.Slice(as, func(a, b int) bool { return as[a] < as[b] })
		var rs [][2]uint64
		for _, a := range as {
			n := lens[a]
			if n == 0 {
				n = 1
			}
			if k := len(rs); k > 0 && a <= rs[k-1][1] {
				rs[k-1][1] = max(rs[k-1][1], a+n)
				continue
			}
			rs = append(rs, [2]uint64{a, a + n})
		}
		r.Lines = append(r.Lines, LineMap{Line: i + 1, Ranges: rs})
	}
	r.Limitations = append(r.Limitations, e.in.Limitations...)
	r.Limitations = append(r.Limitations, e.in.Func.Limitations...)
	var ks []string
	for k := range e.lims {
		ks = append(ks, k)
	}
	for k := range e.h.limits {
		ks = append(ks, "helper "+k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		n := e.lims[k]
		if strings.HasPrefix(k, "helper ") {
			n = e.h.limits[strings.TrimPrefix(k, "helper ")]
			k = "helper " + strings.TrimPrefix(k, "helper ") + " stands for what plain C lacks"
		}
		if n > 1 {
			k = fmt.Sprintf("%s (%d times)", k, n)
		}
		r.Limitations = append(r.Limitations, k)
	}
	r.Limitations = dedupe(r.Limitations)
	return r
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
