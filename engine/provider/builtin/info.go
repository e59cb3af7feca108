package builtin

import (
	"bytes"
	"cmp"
	"context"
	"debug/dwarf"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"errors"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// procedure_info: length is the known extent (or, without one, the span of
// the instructions found by recursive descent, stated as a limitation);
// basic blocks are counted over the decoded instructions with leaders at the
// entry, at every branch target inside the procedure and after every branch,
// return or halt; source is the DWARF line row at the entry (debug/dwarf from
// the standard library; a malformed DWARF section means no source, with a
// limitation), else, for a Go function, the pcfile and pcln values of its
// entry in the pclntab (pclntab.go: a stripped Go binary keeps them).

// lineRow is one DWARF line-table row.
type lineRow struct {
	addr uint64
	file string
	line int
}

// lineIndex is every statement row of the DWARF line tables, by address.
type lineIndex struct {
	rows        []lineRow
	limitations []string
}

func buildLines(ctx context.Context, img *image, data []byte) (lx *lineIndex, err error) {
	lx = &lineIndex{}
	defer func() {
		if r := recover(); r != nil {
			lx, err = &lineIndex{limitations: []string{"the DWARF line tables are malformed; no source positions"}}, nil
		}
	}()
	var d *dwarf.Data
	var derr error
	r := bytes.NewReader(data)
	switch {
	case img.elf != nil:
		f, e := elf.NewFile(r)
		if e != nil {
			return lx, nil
		}
		if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
			return lx, nil
		}
		d, derr = f.DWARF()
	case img.pe != nil:
		f, e := pe.NewFile(r)
		if e != nil || f.Section(".debug_info") == nil {
			return lx, nil
		}
		d, derr = f.DWARF()
	case img.macho != nil:
		f, e := macho.NewFile(r)
		if e != nil || f.Section("__debug_info") == nil {
			return lx, nil
		}
		d, derr = f.DWARF()
	}
	if d == nil || derr != nil {
		if derr != nil {
			lx.limitations = append(lx.limitations, "the DWARF sections could not be read; no source positions")
		}
		return lx, nil
	}
	rd := d.Reader()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := rd.Next()
		if err != nil {
			lx.limitations = append(lx.limitations, "the DWARF debug info is malformed; source positions may be incomplete")
			break
		}
		if e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			rd.SkipChildren()
			continue
		}
		lr, err := d.LineReader(e)
		rd.SkipChildren()
		if err != nil || lr == nil {
			continue
		}
		var le dwarf.LineEntry
		for n := 0; ; n++ {
			if n&4095 == 4095 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if err := lr.Next(&le); err != nil {
				if !errors.Is(err, io.EOF) {
					lx.limitations = append(lx.limitations, "a DWARF line table is malformed; source positions may be incomplete")
				}
				break
			}
			if le.EndSequence || !le.IsStmt || le.File == nil {
				continue
			}
			lx.rows = append(lx.rows, lineRow{addr: le.Address, file: le.File.Name, line: le.Line})
		}
	}
	slices.SortStableFunc(lx.rows, func(a, b lineRow) int { return cmp.Compare(a.addr, b.addr) })
	return lx, nil
}

// at returns the first statement row at exactly addr.
func (lx *lineIndex) at(addr uint64) *lineRow {
	i := sort.Search(len(lx.rows), func(i int) bool { return lx.rows[i].addr >= addr })
	if i < len(lx.rows) && lx.rows[i].addr == addr {
		return &lx.rows[i]
	}
	return nil
}

func (c *Client) lines(ctx context.Context, op string) (*lineIndex, error) {
	lx, err := c.ix.lines.get(ctx, func(ctx context.Context) (*lineIndex, error) { return buildLines(ctx, c.ix.img, c.data) })
	if err != nil {
		return nil, buildFault(op, err)
	}
	return lx, nil
}

// basicBlocks counts the basic blocks of decoded instructions.
func basicBlocks(entry uint64, insns []insn) int {
	if len(insns) == 0 {
		return 0
	}
	at := make(map[uint64]bool, len(insns))
	for _, it := range insns {
		at[it.addr] = true
	}
	leaders := map[uint64]bool{entry: true}
	for _, it := range insns {
		switch it.flow {
		case flowJump, flowCondJump, flowRet, flowStop:
			if next := it.addr + uint64(it.n); at[next] {
				leaders[next] = true
			}
			if it.hasTarget && at[it.target] {
				leaders[it.target] = true
			}
		}
	}
	n := 0
	for a := range leaders {
		if at[a] {
			n++
		}
	}
	return n
}

func (c *Client) doProcedureInfo(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	n, ex, entry, err := c.procedureOf(ctx, op, in, rep)
	if err != nil {
		return provider.Result{}, err
	}
	six := n.six
	rep.Report(progress.Update{Phase: "index", Message: "decoding procedure"})
	pc, err := c.decodeProc(ctx, op, six, ex, entry, false)
	if err != nil {
		return provider.Result{}, err
	}
	lims := append(append(slices.Clip(c.ix.img.limitations), six.limitations...), pc.lims...)
	name, _ := n.displayName(entry)
	res := provider.ProcedureInfoResult{Name: name, Entrypoint: provider.FormatAddress(entry), Locals: []provider.LocalVar{},
		BasicblockCount: basicBlocks(entry, pc.insns)}
	if end, ok := ex.extentOf(entry); ok {
		res.Length = end - entry
	} else if n := len(pc.insns); n > 0 {
		last := pc.insns[n-1]
		res.Length = last.addr + uint64(last.n) - entry
		lims = append(lims, "length is the span of the instructions found by recursive descent")
	}
	lo, hi := procsAt(six, entry)
	cl := &provider.Classification{Provenance: "analysis"}
	for _, k := range six.procs[lo:hi] {
		switch s := &six.syms[k]; {
		case s.source == srcImported:
			cl.Provenance = "imports"
		case s.source == srcDefault && cl.Provenance == "analysis":
			cl.Provenance = "symbols"
		}
	}
	if lo < hi { // an entry: classified as its list_procedures item
		var pi provider.ProcedureInfo
		if err := c.classify(ctx, op, six, ex, sort.Search(len(six.entries), func(k int) bool { return six.entries[k] >= uint32(lo) }), &pi); err != nil {
			return provider.Result{}, err
		}
		cl.External, cl.Thunk, cl.ThunkTarget = pi.External, pi.Thunk, pi.ThunkTarget
	}
	res.Classification = cl
	lp, err := c.lifted(ctx, op, six, ex, entry)
	if err != nil {
		return provider.Result{}, err
	}
	lims = append(lims, lp.lims...)
	res.Prototype, res.Frame = prototypeOf(lp, name, c.ix.img), frameResult(lp)
	dp, err := c.dwarfProtos(ctx, op)
	if err != nil {
		return provider.Result{}, err
	}
	if f, ok := dp.funcs[entry]; ok {
		// DWARF is the source of truth when present
		tgt, _ := liftTargetOf(c.ix.img)
		res.Prototype = dwarfPrototype(f, goConvention(tgt, c.ix.img, c.data, entry), res.Prototype)
		res.Locals = c.dwarfLocals(f, entry)
		if len(f.locals) == maxLocals {
			lims = append(lims, "locals: the first "+strconv.Itoa(maxLocals)+" DWARF variables only")
		}
	}
	if res.Prototype != nil {
		sig := protoText(res.Prototype, name)
		res.Signature = &sig
	}
	lx, err := c.lines(ctx, op)
	if err != nil {
		return provider.Result{}, err
	}
	lims = append(lims, lx.limitations...)
	if r := lx.at(entry); r != nil {
		res.Source = &provider.SourceLoc{File: r.file, Line: r.line}
	} else {
		res.Source = goSource(c.ix.img, c.data, entry) // a Go function's table row
	}
	return provider.Result{Normalized: res, Limitations: append(lims, n.limitations()...)}, nil
}
