package builtin

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// Procedure disassembly (read_function_instructions, procedure_assembly). A
// procedure of known extent is decoded linearly over [entry, end); one
// without (an entry point or symbol with no size) by recursive descent from
// its entry, following direct jumps and conditional branches, stopping at
// returns, indirect jumps, other procedures' entries and the section end, and
// that is stated as a limitation.

const maxDescentInsns = 200000

// codeAt returns the file bytes of the executable section containing a, from
// a to the section's file-backed end.
func (c *Client) codeAt(a uint64) ([]byte, bool) {
	img := c.ix.img
	for i := range img.sections {
		s := &img.sections[i]
		if !s.mapped || !s.x || s.fsize == 0 || a < s.addr || a >= s.addr+min(s.fsize, s.size) {
			continue
		}
		off := s.off + (a - s.addr)
		end := min(satAdd(s.off, min(s.fsize, s.size)), uint64(len(c.data)))
		if off >= end {
			return nil, false
		}
		return c.data[off:end], true
	}
	return nil, false
}

// procCode describes the decoded instructions of one procedure.
type procCode struct {
	entry uint64
	thumb bool // arm: Thumb code
	insns []insn
	lims  []string
	// x86 are the x86asm decodings of insns (decodeProcForLift), sorted
	// by address; an instruction without one (endbr, bad) has none.
	x86 []x86Decoded
}

// decodeProc decodes the procedure at entry.
func (c *Client) decodeProc(ctx context.Context, op string, six *symIndex, ex *extentIndex, entry uint64, withText bool) (*procCode, error) {
	return c.decodeProcWith(ctx, op, six, ex, entry, withText, nil)
}

// decodeProcForLift is decodeProc keeping x86asm's decodings (procCode.x86)
// for the lifter.
func (c *Client) decodeProcForLift(ctx context.Context, op string, six *symIndex, ex *extentIndex, entry uint64, kept []x86Decoded) (*procCode, error) {
	pc, err := c.decodeProcWith(ctx, op, six, ex, entry, false, kept)
	if err == nil && !slices.IsSortedFunc(pc.x86, func(a, b x86Decoded) int { return cmp.Compare(a.addr, b.addr) }) {
		slices.SortFunc(pc.x86, func(a, b x86Decoded) int { return cmp.Compare(a.addr, b.addr) })
	}
	return pc, err
}

// decodeProcWith is decodeProc; a non-nil kept (empty, with capacity)
// receives x86asm's decodings (procCode.x86).
func (c *Client) decodeProcWith(ctx context.Context, op string, six *symIndex, ex *extentIndex, entry uint64, withText bool, kept []x86Decoded) (*procCode, error) {
	pc := &procCode{entry: entry, x86: kept}
	var inferred string
	if pc.thumb, inferred = c.armMode(six, entry); inferred != "" {
		pc.lims = append(pc.lims, inferred)
	}
	code, ok := c.codeAt(entry)
	if !ok {
		pc.lims = append(pc.lims, "the procedure's entry is not in a file-backed executable section; nothing was decoded")
		return pc, nil
	}
	d := newDecoder(c.ix.img)
	d.code = c.codeAt // arm literal-pool words and i386 PIC thunks, for data references
	d.thumb = pc.thumb
	if c.ix.img.arch == "x86" {
		d.picAt = map[uint64]picState{}
	}
	if kept != nil {
		d.keptX86 = &pc.x86
	}
	if end, known := ex.extentOf(entry); known {
		n := end - entry
		if n > uint64(len(code)) {
			pc.lims = append(pc.lims, "the procedure's extent runs past its section; decoded to the section end")
			n = uint64(len(code))
		}
		pc.insns = c.insnScratch(int(n/4 + 1)) // x86-64 code averages about 4 bytes an instruction, arm 4
		for o := uint64(0); o < n; {
			if len(pc.insns)&4095 == 4095 {
				if err := ctx.Err(); err != nil {
					return nil, buildFault(op, err)
				}
			}
			var it insn
			if e, ok := c.dataEnd(entry + o); ok {
				it = poolInsn(code[o:min(n, max(e-entry, o+1))], entry+o, c.ix.img.bo, withText)
				d.reset()
			} else {
				it = d.decode(code[o:n], entry+o, withText)
			}
			pc.insns = append(pc.insns, it)
			o += uint64(it.n)
		}
		return pc, nil
	}
	pc.lims = append(pc.lims, "the procedure's extent is unknown (no symbol size): its instructions were found by recursive descent from the entry")
	if err := c.descend(ctx, op, six, d, pc, withText); err != nil {
		return nil, err
	}
	return pc, nil
}

// descend collects the instructions reachable from pc.entry without calls.
func (c *Client) descend(ctx context.Context, op string, six *symIndex, d *decoder, pc *procCode, withText bool) error {
	seen := map[uint64]bool{}
	work := []uint64{pc.entry}
	isOtherEntry := func(a uint64) bool {
		if a == pc.entry {
			return false
		}
		lo, hi := procsAt(six, a)
		return lo < hi
	}
	// arm, as seeds.go's descent: jump tables are followed, the code after
	// a call is decoded last and stops at the literal-pool words the
	// procedure's loads read, and at $d data.
	var sw *armSwitch
	var resume []uint64
	pools := armPools{}
	arm := c.ix.img.arch == "arm"
	if arm {
		sw = &armSwitch{bo: c.ix.img.bo, code: c.codeAt}
	}
	for len(work) > 0 || len(resume) > 0 {
		var a uint64
		if len(work) > 0 {
			a = work[len(work)-1]
			work = work[:len(work)-1]
		} else {
			a, resume = popLowest(resume)
		}
		d.reset()
		if sw != nil {
			sw.reset()
		}
		for !seen[a] && !isOtherEntry(a) && !(arm && c.ix.img.elf.inData(a)) {
			if len(pc.insns) >= maxDescentInsns {
				pc.lims = append(pc.lims, "recursive descent stopped at "+strconv.Itoa(maxDescentInsns)+" instructions")
				work = nil
				break
			}
			if len(pc.insns)&4095 == 4095 {
				if err := ctx.Err(); err != nil {
					return buildFault(op, err)
				}
			}
			code, ok := c.codeAt(a)
			if !ok {
				break
			}
			seen[a] = true
			it := d.decode(code, a, withText)
			if arm {
				if pools.overlaps(it) {
					break
				}
				pools.note(it)
				work = append(work, sw.step(it, code, d.thumb, d.twrite)...) // jump tables
				if l, ok := thumbLabel(it, code); ok && d.thumb {
					work = append(work, l) // a computed jump's label
				}
			}
			pc.insns = append(pc.insns, it)
			if it.hasTarget && (it.flow == flowJump || it.flow == flowCondJump) {
				work = append(work, it.target)
			}
			if it.flow == flowJump || it.flow == flowRet || it.flow == flowStop {
				break
			}
			a += uint64(it.n)
			if arm && it.flow == flowCall {
				resume = append(resume, a)
				break
			}
		}
	}
	slices.SortFunc(pc.insns, func(x, y insn) int { return cmp.Compare(x.addr, y.addr) })
	return nil
}

// instrBytes returns the instruction's bytes as lowercase hex.
func (c *Client) instrBytes(it insn) string {
	code, ok := c.codeAt(it.addr)
	if !ok || len(code) < int(it.n) {
		return ""
	}
	return hex.EncodeToString(code[:it.n])
}

// doCodeOp answers read_function_instructions and procedure_assembly.
func (c *Client) doCodeOp(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	return c.codeOp(ctx, op, in, rep, true)
}

// codeOp is doCodeOp; symbolize=false leaves out the annotations (only the
// benchmark that measures their cost asks for that).
func (c *Client) codeOp(ctx context.Context, op string, in provider.Params, rep progress.Reporter, symbolize bool) (provider.Result, error) {
	n, entry, pc, lims, text, err := c.procText(ctx, op, in, rep, symbolize, false)
	if err != nil {
		return provider.Result{}, err
	}
	if op == provider.OpProcedureAssembly {
		var b strings.Builder
		for i, it := range pc.insns {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(provider.FormatAddress(it.addr))
			b.WriteString("  ")
			b.WriteString(c.instrBytes(it))
			b.WriteString("  ")
			b.WriteString(text(it))
		}
		return provider.Result{Normalized: b.String(), Limitations: append(lims, n.limitations()...)}, nil
	}
	offset, limit, err := provider.InstructionWindow(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	page := provider.PageOf(pc.insns, offset, limit)
	items := make([]provider.InstructionItem, len(page.Items))
	for i, it := range page.Items {
		items[i] = provider.InstructionItem{Address: provider.FormatAddress(it.addr), Bytes: c.instrBytes(it), Text: text(it)}
	}
	resLims := append([]string{}, pc.lims...)
	return provider.Result{Normalized: provider.FunctionInstructions{
		Procedure: *n.procRef(entry),
		Instructions: provider.Page[provider.InstructionItem]{Items: items, Offset: page.Offset, Limit: page.Limit,
			Returned: page.Returned, Total: page.Total, NextOffset: page.NextOffset, Truncated: page.Truncated},
		Limitations: resLims,
	}, Limitations: append(lims, n.limitations()...)}, nil
}

// procText decodes the procedure in and returns its namer, entry and
// instructions, the call's limitations but the namer's (known once the text
// is rendered), and the text of one instruction. once decodes
// each instruction once, with its text, for a caller that renders every
// instruction in order (ProcedureInstructions); otherwise the boundaries
// are decoded first and the text only for the instructions asked for. The
// text is the same either way: an instruction's text depends only on its
// bytes, its address and, in Thumb, the IT state it was decoded in.
func (c *Client) procText(ctx context.Context, op string, in provider.Params, rep progress.Reporter, symbolize, once bool) (
	*namer, uint64, *procCode, []string, func(insn) string, error) {
	n, ex, entry, err := c.procedureOf(ctx, op, in, rep)
	if err != nil {
		return nil, 0, nil, nil, nil, err
	}
	if op == provider.OpReadFunctionInstructions {
		if _, _, err := provider.InstructionWindow(op, in); err != nil {
			return nil, 0, nil, nil, nil, err
		}
	}
	six := n.six
	rep.Report(progress.Update{Phase: "index", Message: "decoding procedure"})
	pc, err := c.decodeProc(ctx, op, six, ex, entry, once)
	if err != nil {
		return nil, 0, nil, nil, nil, err
	}
	if op == provider.OpProcedureAssembly {
		if err := provider.AssemblyFits(op, len(pc.insns)); err != nil {
			return nil, 0, nil, nil, nil, err
		}
	}
	lims := append(append(slices.Clip(c.ix.img.limitations), six.limitations...), pc.lims...)
	var an *annotator
	if symbolize {
		z, err := c.symbolizer(ctx, op, six)
		if err != nil {
			return nil, 0, nil, nil, nil, err
		}
		an = &annotator{z: z, img: c.ix.img, data: c.data, names: n}
	}
	// The text is decoded again per instruction; the targets and data
	// references are those of the procedure's own decoding (it), whose
	// register tracking saw every instruction before it, so a line reads
	// the same in every page.
	d := newDecoder(c.ix.img)
	d.thumb = pc.thumb
	text := func(it insn) string {
		t := it.text
		if !once {
			code, ok := c.codeAt(it.addr)
			if !ok || len(code) < int(it.n) {
				return ""
			}
			switch {
			case it.bad:
				t = "(bad)"
			case it.pool:
				t = poolInsn(code[:it.n], it.addr, c.ix.img.bo, true).text
			default:
				d.it = it.it // the IT block the instruction is in
				t = d.decode(code[:it.n], it.addr, true).text
			}
		}
		if an != nil {
			t = an.annotate(t, it)
		}
		return t
	}
	return n, entry, pc, lims, text, nil
}

// ProcedureInstructions gives fn each instruction procedure_assembly lists
// (instruction i of n) for the procedure at entry (in names the document, "" the default), with
// the same text, but without building and returning one text of the whole
// procedure: each instruction is decoded once. It returns the limitations
// procedure_assembly's result would carry, and procedure_assembly's errors.
// The comparison (engine/compare) reads procedures this way.
func (c *Client) ProcedureInstructions(ctx context.Context, document string, entry uint64, fn func(i, n int, addr uint64, size int, text string)) (lims []string, err error) {
	c.reg.enter(provider.OpProcedureAssembly, c.e)
	defer func() { // what the call built is accounted (registry.go)
		if lerr := c.reg.leave(provider.OpProcedureAssembly, c.e); lerr != nil && err == nil {
			lims, err = nil, lerr
		}
	}()
	in := provider.Params{"procedure": provider.FormatAddress(entry)}
	if document != "" {
		in["document"] = document
	}
	n, _, pc, lims, text, err := c.procText(ctx, provider.OpProcedureAssembly, in, progress.OrNop(nil), true, true)
	if err != nil {
		return nil, err
	}
	for i, it := range pc.insns {
		if code, ok := c.codeAt(it.addr); !ok || len(code) < int(it.n) {
			fn(i, len(pc.insns), it.addr, 0, "") // as procedure_assembly's line without bytes or text
			continue
		}
		fn(i, len(pc.insns), it.addr, int(it.n), text(it))
	}
	c.releaseInsns(pc.insns)                     // nothing keeps them: fn has had its copies
	return append(lims, n.limitations()...), nil // after the text: they count the user names it shows
}

// insnScratch returns an empty instruction slice of at least capacity n,
// reused from a procedure that is done with its own (releaseInsns). A
// comparison decodes every procedure of a library in a row, and a fresh
// slice each (about 70 bytes an instruction) was the largest share of its
// garbage: what the collector has not yet freed is what the heap grows by.
func (c *Client) insnScratch(n int) []insn {
	if p, ok := c.insns.Get().(*[]insn); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]insn, 0, n)
}

// releaseInsns hands s back to insnScratch; the caller keeps no reference.
func (c *Client) releaseInsns(s []insn) {
	if cap(s) == 0 || cap(s) > 1<<16 {
		return // an outsized one would stay pinned for the odd large procedure
	}
	clear(s) // drop the texts
	c.insns.Put(&s)
}
