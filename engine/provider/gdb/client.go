package gdb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// maxCachedProcs bounds the procedures whose disassembly is kept.
const maxCachedProcs = 256

// Start starts gdb on t under run and checks that gdb loaded it.
func (p *Provider) Start(ctx context.Context, t provider.Target, profile provider.Profile, run provider.Run) (provider.Client, error) {
	const op = "start"
	if err := ctx.Err(); err != nil {
		return nil, fault.CancelledError(op).WithCause(err)
	}
	if sup := p.Support(t); sup.Status != "supported" {
		return nil, unavailable(op, *sup.Reason)
	}
	pr, err := p.probe(ctx)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(t.Path) {
		return nil, fault.Invalid(op, fault.Issue{Path: "/path", Reason: "invalid_value", Message: "The target path must be absolute."})
	}
	args := []string{"--interpreter=mi3", "-nx", "-q"}
	for _, s := range settingsFor(t.Architecture) {
		args = append(args, "-iex", s)
	}
	args = append(args, "--", t.Path)
	s, err := startSession(ctx, pr.path, args, run.ID)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fault.CancelledError(op).WithCause(err)
		}
		return nil, unavailable(op, "gdb did not start").WithCause(err)
	}
	c := &Client{s: s, doc: filepath.Base(t.Path), arch: t.Architecture, sem: make(chan struct{}, 1),
		code: map[uint64]*procCode{}}
	// Health check: gdb loaded the file as an executable it understands.
	if err := c.loadSections(ctx, op); err != nil {
		s.close(context.WithoutCancel(ctx))
		if ctx.Err() != nil {
			return nil, fault.CancelledError(op).WithCause(err)
		}
		return nil, err
	}
	return c, nil
}

// Client is one gdb session on one target. Operations run one at a time.
type Client struct {
	s    *session
	doc  string
	arch string
	sem  chan struct{}

	// Filled by the operations, which the semaphore serializes.
	secs  []gsection // allocated sections, by start
	tab   *symTable
	code  map[uint64]*procCode
	order []uint64 // code cache insertion order

	user atomic.Pointer[provider.NameSet] // the user's names (set_address_name)
}

var (
	_ provider.Client    = (*Client)(nil)
	_ provider.UserNames = (*Client)(nil)
)

// Health is nil while the gdb session answers, else the typed
// provider_unavailable every later operation returns. A client never
// becomes healthy again.
func (c *Client) Health() error {
	if err := c.s.err(); err != nil {
		return deadFault("health", err)
	}
	return nil
}

// Unhealthy is closed when the client becomes unhealthy (gdb exited, stopped
// answering an interrupt, wrote output REA cannot parse, or was closed).
func (c *Client) Unhealthy() <-chan struct{} { return c.s.unhealthy }

// Lineage observes the owned gdb process tree.
func (c *Client) Lineage(ctx context.Context) (lineage.Observation, bool) {
	return c.s.owned.Observe(ctx), true
}

// Identity is the owned gdb process's recorded identity.
func (c *Client) Identity() lineage.Identity { return c.s.owned.Identity() }

// Close ends gdb and verifies its process group is gone.
func (c *Client) Close(ctx context.Context) (provider.Cleanup, error) {
	rem := c.s.close(ctx)
	if len(rem) > 0 {
		return provider.Cleanup{Complete: false, Resources: rem}, nil
	}
	return provider.Cleanup{Complete: true}, nil
}

func deadFault(op string, cause error) *fault.Error {
	return fault.New(fault.ProviderUnavailable, "The gdb provider process is no longer available.",
		"Close the target and open it again; check gdb with `rea doctor` if this repeats.",
		map[string]any{"operation": op, "provider_id": ProviderID}).WithCause(cause)
}

// toFault maps a session or parse failure to the contract's codes.
func toFault(op string, err error) error {
	var fe *fault.Error
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.Is(err, context.Canceled):
		return fault.CancelledError(op).WithCause(err)
	case errors.Is(err, context.DeadlineExceeded):
		return fault.New(fault.ProviderTimeout, "The operation exceeded its time budget.",
			"Retry, or use a narrower request.", map[string]any{"operation": op, "timeout_ms": int64(timeoutMS)}).WithCause(err)
	case errors.Is(err, errSessionDead):
		return deadFault(op, err)
	case errors.Is(err, ErrSyntax), errors.Is(err, errUnreadable):
		return fault.New(fault.UnreadableOutput, "The gdb provider's answer could not be read.",
			"Retry; if it persists, report the gdb version shown by `rea doctor`.",
			map[string]any{"operation": op, "provider_id": ProviderID}).WithCause(err)
	}
	return fault.Internal(op, err)
}

// errUnreadable wraps console text that does not match gdb's format.
var errUnreadable = errors.New("gdb: unreadable answer")

func unreadable(err error) error { return fmt.Errorf("%w: %v", errUnreadable, err) }

// console runs a constant CLI command through MI and returns its console text.
func (c *Client) console(ctx context.Context, command string) ([]string, error) {
	_, out, err := c.s.exec(ctx, "-interpreter-exec console "+quoteC(command))
	return out, err
}

func (c *Client) loadSections(ctx context.Context, op string) error {
	out, err := c.console(ctx, "maint info sections")
	if err != nil {
		return toFault(op, err)
	}
	ft, secs, err := parseSections(out)
	if err != nil {
		return toFault(op, unreadable(err))
	}
	if ft == "" {
		return unavailable(op, "gdb could not load the target")
	}
	var alloc []gsection
	for _, s := range secs {
		if !s.flags["ALLOC"] || s.end <= s.start || (s.flags["THREAD_LOCAL"] && !s.flags["LOAD"]) {
			continue
		}
		alloc = append(alloc, s)
	}
	slices.SortStableFunc(alloc, func(a, b gsection) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	c.secs = alloc
	return nil
}

func (c *Client) sectionAt(a uint64) *gsection {
	for i := range c.secs {
		if s := &c.secs[i]; a >= s.start && a < s.end {
			return s
		}
	}
	return nil
}

func (c *Client) codeSection(name string) bool {
	for _, s := range c.secs {
		if s.name == name {
			return s.flags["CODE"]
		}
	}
	return false
}

// Do answers one operation.
func (c *Client) Do(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	if !slices.ContainsFunc(operations, func(o struct {
		name  string
		paged bool
		max   int64
	}) bool {
		return o.name == op
	}) {
		return provider.Result{}, fault.New(fault.CapabilityUnavailable,
			"The bound provider does not offer this operation.",
			"Use an operation the gdb provider declares, or bind another provider.",
			map[string]any{"operation": op, "availability_reason": "provider_missing", "provider_id": ProviderID})
	}
	if err := c.s.err(); err != nil {
		return provider.Result{}, deadFault(op, err)
	}
	if v, present := in["document"]; present && v != nil {
		if s, ok := v.(string); !ok || s != c.doc {
			return provider.Result{}, fault.Invalid(op, fault.Issue{Path: "/document", Reason: "invalid_value",
				Message: "The document is not one of list_documents."})
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeoutMS*1e6)
	defer cancel()
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return provider.Result{}, toFault(op, ctx.Err())
	}
	defer func() { <-c.sem }()
	if err := ctx.Err(); err != nil {
		return provider.Result{}, toFault(op, err)
	}
	rep = progress.OrNop(rep)
	res, err := c.do(ctx, op, in, rep)
	if err != nil {
		return provider.Result{}, toFault(op, err)
	}
	return res, nil
}

func (c *Client) do(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	switch op {
	case provider.OpListDocuments:
		return provider.Result{Normalized: []string{c.doc}}, nil
	case provider.OpListSegments:
		return provider.Result{Normalized: c.segments(), Limitations: []string{limSegments}}, nil
	case provider.OpBinaryTriage:
		return c.triage(ctx, rep)
	}
	tab, err := c.symbols(ctx, rep)
	if err != nil {
		return provider.Result{}, err
	}
	n := c.namer(tab)
	res, err := c.doNamed(ctx, op, in, rep, n)
	if err != nil {
		return provider.Result{}, err
	}
	res.Limitations = append(res.Limitations, n.use.Limitations()...)
	return res, nil
}

// doNamed answers the operations that need the symbol table; n names the
// answer's addresses.
func (c *Client) doNamed(ctx context.Context, op string, in provider.Params, rep progress.Reporter, n *namer) (provider.Result, error) {
	tab := n.tab
	lims := []string{limSymbols}
	switch op {
	case provider.OpListProcedures, provider.OpListNames:
		offset, limit, err := provider.PageParams(op, in)
		if err != nil {
			return provider.Result{}, err
		}
		if op == provider.OpListProcedures {
			f, err := provider.ProcedureFilterOf(op, in)
			if err != nil {
				return provider.Result{}, err
			}
			if f.MinLength > 0 {
				// Lengths are gdb's disassembly of each procedure, one
				// request per procedure; the filter would ask for all.
				return provider.Result{}, fault.New(fault.CapabilityUnavailable,
					"The gdb provider has no procedure lengths without disassembling every procedure, so min_length is not offered.",
					"Drop min_length, or open the target with provider_id builtin.",
					map[string]any{"operation": op, "availability_reason": "argument_unsupported", "provider_id": ProviderID})
			}
			return provider.Result{Normalized: n.procedurePage(f, offset, limit), Limitations: lims}, nil
		}
		a, has, aerr := in.Address("address")
		if aerr != nil {
			return provider.Result{}, fault.Invalid(op, fault.Issue{Path: "/address", Reason: "invalid_format"})
		}
		return provider.Result{Normalized: n.namePage(a, has, offset, limit), Limitations: lims}, nil
	case provider.OpAddressName:
		a, err := provider.RequiredAddress(op, in)
		if err != nil {
			return provider.Result{}, err
		}
		if name, ok := n.displayName(a); ok {
			return provider.Result{Normalized: &name, Limitations: lims}, nil
		}
		return provider.Result{Normalized: (*string)(nil), Limitations: lims}, nil
	case provider.OpProcedureAddress:
		entry, err := c.resolveProc(ctx, op, in, n)
		if err != nil {
			return provider.Result{}, err
		}
		return provider.Result{Normalized: provider.FormatAddress(entry), Limitations: lims}, nil
	case provider.OpResolveContaining:
		a, err := provider.RequiredAddress(op, in)
		if err != nil {
			return provider.Result{}, err
		}
		r := provider.ContainingResult{QueryAddress: provider.FormatAddress(a)}
		var reason string
		if c.sectionAt(a) == nil {
			reason = "outside_segments"
		} else if entry, ok, err := c.containing(ctx, tab, a); err != nil {
			return provider.Result{}, err
		} else if ok {
			name, _ := n.procName(entry)
			r.Found, r.Procedure = true, &provider.ProcRef{Address: provider.FormatAddress(entry), Name: name}
			lims = append(lims, limExtent)
		} else {
			reason = "not_in_procedure"
		}
		if !r.Found {
			r.Reason = &reason
		}
		return provider.Result{Normalized: r, Limitations: lims}, nil
	}
	// Code operations.
	entry, err := c.resolveProc(ctx, op, in, n)
	if err != nil {
		return provider.Result{}, err
	}
	var offset, limit int
	if op == provider.OpReadFunctionInstructions {
		if offset, limit, err = provider.InstructionWindow(op, in); err != nil {
			return provider.Result{}, err
		}
	}
	rep.Report(progress.Update{Phase: "index", Message: "disassembling procedure"})
	pc, err := c.procCode(ctx, entry)
	if err != nil {
		return provider.Result{}, err
	}
	lims = append(lims, limExtent)
	lims = append(lims, pc.lims...)
	switch op {
	case provider.OpProcedureAssembly:
		if err := provider.AssemblyFits(op, len(pc.insns)); err != nil {
			return provider.Result{}, err
		}
		var b strings.Builder
		for i, it := range pc.insns {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(it.Address + "  " + it.Bytes + "  " + it.Text)
		}
		return provider.Result{Normalized: b.String(), Limitations: lims}, nil
	case provider.OpReadFunctionInstructions:
		name, _ := n.procName(entry)
		page := provider.PageOf(pc.insns, offset, limit)
		return provider.Result{Normalized: provider.FunctionInstructions{
			Procedure:    provider.ProcRef{Address: provider.FormatAddress(entry), Name: name},
			Instructions: page,
			Limitations:  append([]string{}, pc.lims...),
		}, Limitations: lims}, nil
	}
	// gdb's debug symbols are looked up by the symbol's own name; the
	// answer shows the display name.
	info, ilims, err := c.procedureInfo(ctx, tab, entry, tab.symbolName(entry), pc)
	if err != nil {
		return provider.Result{}, err
	}
	info.Name, _ = n.procName(entry)
	return provider.Result{Normalized: info, Limitations: append(lims, ilims...)}, nil
}

// Limitations stated in Evidence.
const (
	limSegments = "gdb does not expose program headers: each allocated section is listed as its own segment"
	limSymbols  = "names and procedures are gdb's minimal symbols (ELF .symtab and .dynsym merged, linkage names); functions known only from DWARF are not listed and symbol.dynamic is always false"
	limExtent   = "procedure extents are gdb's: DWARF ranges, else ELF symbol sizes, else up to the next symbol in the section"
)

func (c *Client) segments() []provider.Segment {
	out := make([]provider.Segment, 0, len(c.secs))
	for _, s := range c.secs {
		x := s.flags["CODE"]
		sec := provider.Section{Name: s.name, Start: provider.FormatAddress(s.start), End: provider.FormatAddress(s.end),
			Readable: true, Writable: !s.flags["READONLY"], Executable: x}
		out = append(out, provider.Segment{Name: s.name, Start: sec.Start, End: sec.End, Readable: true,
			Writable: sec.Writable, Executable: &x, Sections: []provider.Section{sec}})
	}
	return out
}

// procedureNamePattern is the grammar a procedure argument that is not an
// address must match: symbol-name characters only, no quotes, backslashes,
// whitespace other than a space, or control bytes. Names are never sent to
// gdb; the grammar rejects what cannot be a symbol before any lookup.
var procedureNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.$@:<>,*&~+\-\[\]()/{} ]+$`)

// resolveProc resolves the "procedure" argument as the builtin provider
// does: a 0x value is an address; any other value is an exact name, and only
// when no procedure has that name and it is valid hex, an address. An address
// that is not an entry resolves to the procedure containing it.
func (c *Client) resolveProc(ctx context.Context, op string, in provider.Params, n *namer) (uint64, error) {
	tab := n.tab
	return provider.ResolveProcedure(op, in, provider.ProcedureLookup{
		User:      n.user,
		Use:       &n.use,
		ValidName: func(v string) bool { return len(v) <= 1024 && procedureNamePattern.MatchString(v) },
		Named:     tab.procsNamed,
		At: func(a uint64) (uint64, bool, error) {
			if tab.isEntry(a) {
				return a, true, nil
			}
			if c.sectionAt(a) == nil {
				return 0, false, nil
			}
			return c.containing(ctx, tab, a)
		},
	})
}

// symbols loads gdb's minimal symbols once.
func (c *Client) symbols(ctx context.Context, rep progress.Reporter) (*symTable, error) {
	if c.tab != nil {
		return c.tab, nil
	}
	rep.Report(progress.Update{Phase: "index", Message: "reading gdb's symbol table"})
	out, err := c.console(ctx, "maint print msymbols")
	if err != nil {
		return nil, err
	}
	syms, err := parseMsymbols(out)
	if err != nil {
		return nil, unreadable(err)
	}
	c.tab = newSymTable(syms, c.codeSection)
	return c.tab, nil
}

// procCode is gdb's disassembly of one procedure.
type procCode struct {
	entry uint64
	end   uint64 // exclusive
	insns []provider.InstructionItem
	addrs []uint64
	lens  []int
	lims  []string
}

// disassemble asks gdb for the whole function containing a
// (`-data-disassemble -a`). ok is false when gdb knows no function there.
func (c *Client) disassemble(ctx context.Context, a uint64) (*procCode, bool, error) {
	rec, _, err := c.s.exec(ctx, fmt.Sprintf("-data-disassemble -a 0x%x -- 2", a))
	var me *miError
	if errors.As(err, &me) {
		if strings.Contains(me.msg, "No function contains") {
			return nil, false, nil
		}
		return nil, false, err
	}
	if err != nil {
		return nil, false, err
	}
	list, ok := rec.Field("asm_insns")
	if !ok || list.Kind != ValueList {
		return nil, false, unreadable(errors.New("no asm_insns list"))
	}
	pc := &procCode{}
	for _, v := range list.Items() {
		as, ok1 := v.String("address")
		ops, ok2 := v.String("opcodes")
		text, ok3 := v.String("inst")
		addr, err := parseHex(as)
		if !ok1 || !ok2 || !ok3 || err != nil {
			return nil, false, unreadable(errors.New("malformed instruction tuple"))
		}
		hexb := strings.ReplaceAll(ops, " ", "")
		if len(hexb) == 0 || len(hexb)%2 != 0 || strings.Trim(hexb, "0123456789abcdef") != "" {
			return nil, false, unreadable(fmt.Errorf("malformed opcodes %q", trunc(ops)))
		}
		pc.insns = append(pc.insns, provider.InstructionItem{Address: provider.FormatAddress(addr), Bytes: hexb, Text: strings.Join(strings.Fields(text), " ")})
		pc.addrs = append(pc.addrs, addr)
		pc.lens = append(pc.lens, len(hexb)/2)
	}
	if len(pc.insns) == 0 {
		return nil, false, nil
	}
	pc.entry = pc.addrs[0]
	pc.end = pc.addrs[len(pc.addrs)-1] + uint64(pc.lens[len(pc.lens)-1])
	return pc, true, nil
}

func (c *Client) cache(pc *procCode) {
	if _, ok := c.code[pc.entry]; ok {
		return
	}
	if len(c.order) >= maxCachedProcs {
		delete(c.code, c.order[0])
		c.order = c.order[1:]
	}
	c.code[pc.entry] = pc
	c.order = append(c.order, pc.entry)
}

// containing is the procedure whose gdb function contains a: gdb's function
// must start at a procedure entry and cover a.
func (c *Client) containing(ctx context.Context, tab *symTable, a uint64) (uint64, bool, error) {
	if tab.isEntry(a) {
		return a, true, nil
	}
	pc, ok, err := c.disassemble(ctx, a)
	if err != nil || !ok {
		return 0, false, err
	}
	if !tab.isEntry(pc.entry) || a < pc.entry || a >= pc.end {
		return 0, false, nil
	}
	c.cache(pc)
	return pc.entry, true, nil
}

// procCode returns the disassembly of the procedure at entry.
func (c *Client) procCode(ctx context.Context, entry uint64) (*procCode, error) {
	if pc, ok := c.code[entry]; ok {
		return pc, nil
	}
	pc, ok, err := c.disassemble(ctx, entry)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &procCode{entry: entry, end: entry, insns: []provider.InstructionItem{},
			lims: []string{"gdb knows no function at this procedure entry"}}, nil
	}
	if pc.entry != entry {
		// The entry is inside a larger gdb function: keep its part.
		i := sort.Search(len(pc.addrs), func(i int) bool { return pc.addrs[i] >= entry })
		sub := &procCode{entry: entry, end: pc.end, insns: pc.insns[i:], addrs: pc.addrs[i:], lens: pc.lens[i:],
			lims: []string{"the procedure entry lies inside gdb's function at " + provider.FormatAddress(pc.entry) + "; its instructions from the entry to that function's end are listed"}}
		return sub, nil
	}
	c.cache(pc)
	return pc, nil
}

// gdbNamePattern is the grammar of a name REA passes to gdb (inside a
// quoted, escaped regular expression): a C identifier with '.' and '$'.
var gdbNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.$]*$`)

// breQuote escapes a name for gdb's POSIX basic regular expressions.
func breQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`.[]*^$\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (c *Client) procedureInfo(ctx context.Context, tab *symTable, entry uint64, name string, pc *procCode) (provider.ProcedureInfoResult, []string, error) {
	var lims []string
	res := provider.ProcedureInfoResult{Name: name, Entrypoint: provider.FormatAddress(entry), Locals: []provider.LocalVar{}}
	if len(pc.insns) > 0 {
		res.Length = pc.end - entry
	}
	n, ok := basicBlocks(c.arch, pc)
	res.BasicblockCount = n
	if !ok {
		lims = append(lims, "basic blocks are counted for x86, x86_64 and arm64 code only; this count is the entry block")
	}
	ext, thunk := tab.classify(entry)
	cl := &provider.Classification{External: ext, Thunk: thunk, Provenance: "symbols"}
	if ext {
		cl.Provenance = "imports"
	}
	res.Classification = cl
	// Source: the DWARF line row at the entry.
	rec, _, err := c.s.exec(ctx, fmt.Sprintf("-data-disassemble -s 0x%x -e 0x%x -- 1", entry, entry+1))
	var me *miError
	switch {
	case errors.As(err, &me):
		lims = append(lims, "gdb could not read line information at the entry")
	case err != nil:
		return res, nil, err
	default:
		if list, ok := rec.Field("asm_insns"); ok && list.Kind == ValueList && len(list.Results) > 0 && list.Results[0].Name == "src_and_asm_line" {
			v := list.Results[0].Value
			ls, _ := v.String("line")
			file, ok := v.String("fullname")
			if !ok || file == "" {
				file, _ = v.String("file")
			}
			if line, err := strconv.Atoi(ls); err == nil && line > 0 && file != "" {
				res.Source = &provider.SourceLoc{File: file, Line: line}
			}
		}
	}
	// Signature: gdb's description of the debug symbol of that name (in the
	// entry's source file when several files define it).
	if len(name) <= 1024 && gdbNamePattern.MatchString(name) {
		rec, _, err := c.s.exec(ctx, "-symbol-info-functions --name "+quoteC("^"+breQuote(name)+"$"))
		if err != nil && !errors.As(err, &me) {
			return res, nil, err
		}
		if err == nil {
			res.Signature = signatureFrom(rec, name, res.Source)
		}
	}
	return res, lims, nil
}

func signatureFrom(rec Record, name string, src *provider.SourceLoc) *string {
	syms, _ := rec.Field("symbols")
	debug, _ := syms.Field("debug")
	var cands []string
	for _, f := range debug.Items() {
		full, _ := f.String("fullname")
		file, _ := f.String("filename")
		inFile := src != nil && (full == src.File || file == src.File)
		list, _ := f.Field("symbols")
		for _, s := range list.Items() {
			if n, _ := s.String("name"); n != name {
				continue
			}
			d, ok := s.String("description")
			if !ok {
				continue
			}
			d = strings.TrimSuffix(d, ";")
			if inFile {
				return &d
			}
			cands = append(cands, d)
		}
	}
	if len(cands) == 1 {
		return &cands[0]
	}
	return nil
}
