package builtin

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// procedure_references (CONTRACTS.md §19): what a procedure's instructions
// refer to, from the decoding procedure_assembly symbolizes (no lifting: the
// operands the decoder resolves are the references, and decoding every
// procedure of a binary costs about what objdump -d does, where lifting
// costs over ten times that).
//
// A direct call or jump target is an import when it is an import's stub,
// else a procedure when a procedure starts there (a jump to the procedure's
// own entry is not a reference; a call is). A data operand (RIP-relative,
// PIC-relative or absolute x86, an arm64 ADRP pair, ADR or literal, an ARM
// literal or pc-relative address) is an import when it is an import slot,
// a procedure when it is a procedure's entry in executable code, a string
// when the text annotate would quote is stored there (textAt), and data
// otherwise when it lies in a mapped non-executable section. Other targets
// (a label inside code, an address outside every section) are no reference.

// refsEnvelope bounds the answer's bytes other than its items: four keys of
// lists, the truncated flag and the brackets.
const refsEnvelope = 96

// refKind orders the four lists in refItem.
const (
	refString uint8 = iota
	refData
	refImport
	refProcedure
)

// refItem is one reference before it is rendered.
type refItem struct {
	addr uint64
	kind uint8
	acc  uint8 // refData: the strongest access (accWrite > accRead > accAddress)
}

func (c *Client) doProcedureReferences(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	n, ex, entry, err := c.procedureOf(ctx, op, in, rep)
	if err != nil {
		return provider.Result{}, err
	}
	z, err := c.symbolizer(ctx, op, n.six)
	if err != nil {
		return provider.Result{}, err
	}
	rep.Report(progress.Update{Phase: "index", Message: "decoding procedure"})
	pc, err := c.decodeProc(ctx, op, n.six, ex, entry, false)
	if err != nil {
		return provider.Result{}, err
	}
	an := &annotator{z: z, img: c.ix.img, data: c.data, names: n}
	found := map[uint64]refItem{}
	add := func(a uint64, kind, acc uint8) {
		it, seen := found[a]
		if !seen {
			found[a] = refItem{addr: a, kind: kind, acc: acc}
			return
		}
		if kind == refData && accRank(acc) > accRank(it.acc) {
			it.acc = acc
			found[a] = it
		}
	}
	isEntry := func(a uint64) bool { lo, hi := procsAt(n.six, a); return lo < hi }
	thunks := map[uint64]string{} // import thunks by address, with their imports' names
	thunk := func(a uint64) bool {
		name, seen := thunks[a]
		if !seen {
			name = c.importThunk(z, a)
			thunks[a] = name
		}
		return name != ""
	}
	for _, it := range pc.insns {
		if it.hasTarget {
			switch t := it.target; {
			case isImport(z, c.data, t) || thunk(t):
				add(t, refImport, 0)
			case isEntry(t) && (it.flow == flowCall || t != entry):
				add(t, refProcedure, 0)
			}
		}
		if !it.hasData {
			continue
		}
		d := it.data
		if isImport(z, c.data, d) {
			add(d, refImport, 0)
			continue
		}
		s := c.ix.img.sectionAt(d, z.all)
		switch {
		case s == nil:
		case s.x:
			if isEntry(d) {
				add(d, refProcedure, 0)
			}
		default:
			if _, ok := an.textAt(d); ok {
				add(d, refString, 0)
			} else {
				add(d, refData, accessOf(it))
			}
		}
	}
	c.releaseInsns(pc.insns)
	items := make([]refItem, 0, len(found))
	for _, it := range found {
		items = append(items, it)
	}
	slices.SortFunc(items, func(x, y refItem) int { return cmp.Compare(x.addr, y.addr) })
	res := provider.References{Strings: []provider.RefString{}, Data: []provider.RefData{}, Imports: []provider.RefImport{},
		Procedures: []provider.RefProcedure{}}
	// The items are written in address order until the next would take the
	// answer past its budget: the lists then hold every reference below one
	// address. An item's size is its encoding/json form's, never less than
	// its canonical one (encoding/json escapes more).
	size := refsEnvelope
	fits := func(v any) bool {
		b, _ := json.Marshal(v)
		size += len(b) + 1
		return size <= provider.ResultBudget
	}
	for _, it := range items {
		a := provider.FormatAddress(it.addr)
		ok := true
		switch it.kind {
		case refString:
			b, _ := an.textAt(it.addr)
			v, trunc := refValue(b)
			r := provider.RefString{Address: a, Value: v, ValueTruncated: trunc}
			if ok = fits(r); ok {
				res.Strings = append(res.Strings, r)
			}
		case refData:
			s := c.ix.img.sectionAt(it.addr, z.all)
			r := provider.RefData{Address: a, Section: s.name, Access: accNames[it.acc]}
			if name, off, named := an.dataName(it.addr, s); named {
				if off != 0 {
					name += "+0x" + strconv.FormatUint(off, 16)
				}
				r.Name = &name
			}
			if ok = fits(r); ok {
				res.Data = append(res.Data, r)
			}
		case refImport:
			r := provider.RefImport{Address: a}
			if r.Name = thunks[it.addr]; r.Name == "" {
				r.Name, _ = z.importAt(c.data, it.addr)
			}
			if u, user := n.user.At(it.addr); user {
				r.Name = u // the user's name (set_address_name) is the one shown
				n.use.Shown(it.addr)
			}
			if ok = fits(r); ok {
				res.Imports = append(res.Imports, r)
			}
		default:
			r := provider.RefProcedure{Address: a}
			r.Name, _ = n.displayName(it.addr)
			if ok = fits(r); ok {
				res.Procedures = append(res.Procedures, r)
			}
		}
		if !ok {
			res.Truncated = true
			break
		}
	}
	lims := append(append(slices.Clip(c.ix.img.limitations), n.six.limitations...), pc.lims...)
	return provider.Result{Normalized: res, Limitations: append(lims, n.limitations()...)}, nil
}

var accNames = [...]string{accRead: "read", accWrite: "write", accAddress: "address"}

// accRank orders accesses: a store says most of how data is used.
func accRank(acc uint8) int {
	switch acc {
	case accWrite:
		return 3
	case accRead:
		return 2
	}
	return 1
}

// importThunk is the name of the import a thunk at a jumps to through its
// slot (`jmp [rip+slot]`, `jmp [slot]`: a PE import thunk, or an ELF PLT
// entry of a -z now build that no PLT stub names), or "".
func (c *Client) importThunk(z *symbolizer, a uint64) string {
	code, ok := c.codeAt(a)
	if !ok {
		return ""
	}
	it := newDecoder(c.ix.img).decode(code, a, false)
	if it.flow != flowJump || !it.indirect || !it.hasData {
		return ""
	}
	name, _ := z.importAt(c.data, it.data)
	return name
}

func isImport(z *symbolizer, data []byte, a uint64) bool {
	_, ok := z.importAt(data, a)
	return ok
}

// refValue is a string reference's value, cut as list_strings cuts values
// (at most maxValueLen bytes), at a character boundary.
func refValue(b []byte) (string, bool) {
	if len(b) <= maxValueLen {
		return string(b), false
	}
	n := maxValueLen
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]), true
}
