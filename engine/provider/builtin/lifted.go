package builtin

import (
	"bytes"
	"cmp"
	"context"
	"debug/elf"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/arm64"
	"github.com/rea-re/rea/engine/lift/x86"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/internal/reuse"
)

// Lifting (CONTRACTS.md §19): a procedure is lifted on demand, never at
// open, so `rea analyze` pays nothing for it. The instructions decodeProc
// finds are lifted (x86-64, i386, arm64; other architectures answer
// without a prototype, with a limitation), the SSA is built and its jump
// tables and indirect calls resolved (dataflow.ResolveProcedure) over
// liftView, the loaded image as data flow reads it, and the prototype and
// call sites are recovered (package signature). The result is kept per
// procedure in the index (liftCache), counted in its memory estimate.

// liftScratch is the memory lifting one procedure reuses from the last
// (Client.lifts): the decoder's kept x86 decodings, the lifters' chunks of
// instructions and data flow's working memory and values.
type liftScratch struct {
	x86 []x86Decoded
	lf  procLifter
	df  dataflow.Scratch
	sig signature.Scratch
	// frame is frameOf's table of the stack pointer's offsets.
	frame []frameOffset
	pack  packer
}

// liftedProc is what lifting recovers of one procedure.
type liftedProc struct {
	proto    *signature.Prototype // nil when the procedure was not lifted
	calls    []byte               // the call sites, packed (packCalls)
	resolved map[uint64][]uint64  // indirect call → targets data flow resolved
	frame    *procFrame
	lims     []string
}

// frameOffset is what frameOf knows of a value: the entry stack pointer
// plus off (ok), once found.
type frameOffset struct {
	off       int64
	ok, found bool
}

// procFrame is the stack frame stack-pointer tracking sees.
type procFrame struct {
	size  int64 // bytes below the entry stack pointer; -1 when unknown
	saved []string
}

// relPatch is a pointer-sized slot a RELA RELATIVE relocation fills.
type relPatch struct{ addr, val uint64 }

// liftTables is what liftView needs beyond the header model, built once per
// index: the RELATIVE relocations to apply and the RELRO ranges (writable
// sections the loader makes read-only).
type liftTables struct {
	patches []relPatch // by addr
	relro   [][2]uint64
	secs    []int // mapped, file-backed sections by address
}

// liftCache holds the lifted procedures of one index.
type liftCache struct {
	tabs  lazy[*liftTables]
	mu    sync.Mutex
	procs map[uint64]*liftedProc
	size  int64 // estimated heap bytes of procs (sizer)
}

func (lc *liftCache) reset() {
	lc.tabs.reset()
	lc.mu.Lock()
	lc.procs, lc.size = nil, 0
	lc.mu.Unlock()
}

func (lc *liftCache) memSize(s *sizer) int64 {
	lc.mu.Lock()
	n := lc.size
	lc.mu.Unlock()
	return lc.tabs.memSize(s) + n
}

func (lc *liftCache) get(entry uint64) (*liftedProc, bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	p, ok := lc.procs[entry]
	return p, ok
}

func (lc *liftCache) put(entry uint64, p *liftedProc) {
	n := newSizer().root(p)
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.procs == nil {
		lc.procs = map[uint64]*liftedProc{}
	}
	if _, ok := lc.procs[entry]; !ok {
		lc.procs[entry] = p
		lc.size += n + 16*mapOverhead
	}
}

func buildLiftTables(img *image, data []byte) *liftTables {
	t := &liftTables{}
	for i := range img.sections {
		s := &img.sections[i]
		if s.mapped && s.fsize > 0 {
			t.secs = append(t.secs, i)
		}
	}
	sort.SliceStable(t.secs, func(a, b int) bool { return img.sections[t.secs[a]].addr < img.sections[t.secs[b]].addr })
	if img.elf == nil {
		return t
	}
	if f, err := elf.NewFile(bytes.NewReader(data)); err == nil {
		for _, p := range f.Progs {
			if p.Type == elf.PT_GNU_RELRO {
				t.relro = append(t.relro, [2]uint64{p.Vaddr, p.Vaddr + p.Memsz})
			}
		}
	}
	// REL (i386) RELATIVE slots already hold their value (base 0); RELA
	// ones hold it in the addend.
	_ = eachDynReloc(img, data, func(dr dynReloc, rela bool) (bool, error) {
		if rela && relocKind(img.elf.machine, dr.typ) == relocRelative {
			t.patches = append(t.patches, relPatch{dr.off, uint64(dr.addend)})
		}
		return true, nil
	})
	slices.SortFunc(t.patches, func(a, b relPatch) int { return cmp.Compare(a.addr, b.addr) })
	return t
}

// liftView is the loaded image as data flow and call-argument recovery read
// it (dataflow.Image, signature.Image): section bytes from the mapping with
// the RELATIVE relocations applied, GOT slots named by the symbolizer.
type liftView struct {
	img  *image
	data []byte
	tab  *liftTables
	z    *symbolizer
}

func (v *liftView) section(addr uint64) *section {
	secs := v.tab.secs
	i := sort.Search(len(secs), func(i int) bool { return v.img.sections[secs[i]].addr > addr }) - 1
	// sections may share a start (or, damaged, overlap): look a few back
	for j := i; j >= 0 && j > i-4; j-- {
		if s := &v.img.sections[secs[j]]; addr-s.addr < min(s.fsize, s.size) {
			return s
		}
	}
	return nil
}

// Read implements dataflow.Image.
func (v *liftView) Read(addr uint64, n int) ([]byte, bool, bool) {
	s := v.section(addr)
	if s == nil || n < 0 || addr-s.addr+uint64(n) > min(s.fsize, s.size) {
		return nil, false, false
	}
	off := s.off + addr - s.addr
	if off+uint64(n) > uint64(len(v.data)) {
		return nil, false, false
	}
	b := v.data[off : off+uint64(n)]
	w := s.w
	for _, r := range v.tab.relro {
		if addr >= r[0] && addr < r[1] {
			w = false
		}
	}
	ps := v.tab.patches
	k := sort.Search(len(ps), func(k int) bool { return ps[k].addr+8 > addr })
	width := uint64(4)
	if v.img.is64 {
		width = 8
	}
	copied := false
	for ; k < len(ps) && ps[k].addr < addr+uint64(n); k++ {
		p := ps[k]
		if p.addr+width <= addr {
			continue
		}
		if !copied {
			b, copied = bytes.Clone(b), true
		}
		var word [8]byte
		if width == 8 {
			v.img.bo.PutUint64(word[:], p.val)
		} else {
			v.img.bo.PutUint32(word[:], uint32(p.val))
		}
		for j := uint64(0); j < width; j++ {
			if a := p.addr + j; a >= addr && a < addr+uint64(n) {
				b[a-addr] = word[j]
			}
		}
	}
	return b, w, true
}

// Executable implements dataflow.Image.
func (v *liftView) Executable(addr uint64) bool {
	s := v.section(addr)
	return s != nil && s.x
}

// Import implements dataflow.Image.
func (v *liftView) Import(addr uint64) (string, bool) {
	z := v.z
	if k := sort.Search(len(z.slots), func(k int) bool { return z.slots[k].addr >= addr }); k < len(z.slots) && z.slots[k].addr == addr {
		s := z.slots[k]
		return nameString(v.data[s.nameOff : s.nameOff+uint64(s.nameLen)]), true
	}
	return "", false
}

const maxLiftString = 4096

// ReadString implements signature.Image.
func (v *liftView) ReadString(addr uint64) (string, bool) {
	s := v.section(addr)
	if s == nil {
		return "", false
	}
	end := min(s.fsize, s.size)
	off := s.off + addr - s.addr
	lim := min(s.off+end, off+maxLiftString, uint64(len(v.data)))
	if off >= lim {
		return "", false
	}
	i := bytes.IndexByte(v.data[off:lim], 0)
	if i < 0 {
		return "", false
	}
	return string(v.data[off : off+uint64(i)]), true
}

// Symbol implements signature.Image: the name at exactly addr; an import
// (a PLT stub or GOT slot) is named by its symbol alone, as the prototype
// table knows it.
func (v *liftView) Symbol(addr uint64) (string, bool, bool) {
	z := v.z
	i := sort.Search(len(z.ents), func(i int) bool { return z.ents[i].addr >= addr })
	if i < len(z.ents) && z.ents[i].addr == addr {
		e := z.ents[i]
		if e.ref < 0 {
			return bareImport(z.stubs[-1-e.ref].name(v.data)), true, true
		}
		s := &z.six.syms[e.ref]
		name := nameString(z.six.name(v.data, s))
		if s.source == srcImported {
			return bareImport(name), true, true
		}
		return name, false, true
	}
	if n, ok := v.Import(addr); ok {
		return bareImport(n), true, true
	}
	return "", false, false
}

// Mapped implements signature.Image.
func (v *liftView) Mapped(addr uint64) bool {
	for i := range v.img.sections {
		s := &v.img.sections[i]
		if s.mapped && addr >= s.addr && addr-s.addr < s.size {
			return true
		}
	}
	return false
}

// bareImport drops the @plt and @VERSION suffixes of an import's name.
func bareImport(n string) string {
	if i := strings.IndexByte(n, '@'); i > 0 {
		return n[:i]
	}
	return n
}

// liftTarget is the lifter, convention and C ABI of an image, or ok=false
// with why not.
type liftTarget struct {
	mode int // x86: 64 or 32; 0: arm64
	conv *abi.Convention
	abi  ctypes.ABI
}

// goConvention is Go's register ABI for the architecture of tgt when the
// procedure at entry is Go code compiled to it (pclntab), else tgt's own.
func goConvention(tgt liftTarget, img *image, data []byte, entry uint64) *abi.Convention {
	if img.pcln == nil || tgt.conv == nil {
		return tgt.conv
	}
	t, _, ok := img.goTable(data)
	if !ok || !t.abiInternal(entry) {
		return tgt.conv
	}
	switch tgt.conv.Arch {
	case "x86-64":
		return abi.GoAMD64()
	case "arm64":
		return abi.GoARM64()
	}
	return tgt.conv
}

func liftTargetOf(img *image) (liftTarget, string) {
	platform := "linux"
	if img.format == "pe" {
		platform = "windows"
	}
	switch img.arch {
	case "x86_64":
		t := liftTarget{mode: 64, conv: abi.ForArch("x86-64", platform), abi: ctypes.LinuxAMD64}
		if platform == "windows" {
			t.abi = ctypes.WindowsAMD64
		}
		return t, ""
	case "x86":
		return liftTarget{mode: 32, conv: abi.ForArch("i386", platform), abi: ctypes.Linux386}, ""
	case "arm64":
		return liftTarget{conv: abi.ForArch("arm64", platform), abi: ctypes.LinuxARM64}, ""
	}
	arch := img.arch
	if arch == "" {
		arch = "unknown"
	}
	return liftTarget{}, "lifting is not available for " + arch + " code: no prototype or call arguments are recovered"
}

// procLifter lifts the instructions of one procedure with the lifters'
// scratch space reused from one instruction to the next.
type procLifter struct {
	t   liftTarget
	x86 x86.Lifter
	arm arm64.Lifter
}

// reuse discards every instruction l has lifted, for its memory to serve
// the next procedure's (lift.Scratch.Reuse).
func (l *procLifter) reuse() {
	l.x86.Reuse()
	l.arm.Reuse()
}

func (l *procLifter) lift(code []byte, addr uint64) (*lift.Insn, error) {
	if l.t.mode == 0 {
		return l.arm.Lift(code, addr)
	}
	return l.x86.Lift(code, addr, l.t.mode)
}

// lifted returns the lifting of the procedure at entry, building it on
// first use.
func (c *Client) lifted(ctx context.Context, op string, six *symIndex, ex *extentIndex, entry uint64) (*liftedProc, error) {
	lc := &c.ix.lifted
	if p, ok := lc.get(entry); ok {
		return p, nil
	}
	tgt, why := liftTargetOf(c.ix.img)
	if why != "" {
		return &liftedProc{lims: []string{why}}, nil
	}
	tgt.conv = goConvention(tgt, c.ix.img, c.data, entry)
	tab, err := lc.tabs.get(ctx, func(context.Context) (*liftTables, error) { return buildLiftTables(c.ix.img, c.data), nil })
	if err != nil {
		return nil, buildFault(op, err)
	}
	z, err := c.symbolizer(ctx, op, six)
	if err != nil {
		return nil, err
	}
	scr := c.liftScratch()
	pc, err := c.decodeProcForLift(ctx, op, six, ex, entry, scr.x86[:0])
	if err != nil {
		return nil, err
	}
	view := &liftView{img: c.ix.img, data: c.data, tab: tab, z: z}
	// No callee's recovered prototype is consulted (Known nil): what was
	// lifted before must not change an answer, which would then depend on
	// the order of the calls. A callee the prototype table names still
	// gives its arguments.
	p := liftProcedure(tgt, view, c.codeAt, pc, ex, entry, nil, liftingScratch(scr, pc))
	c.releaseInsns(pc.insns)
	c.keepLiftScratch(scr, pc)
	if err := ctx.Err(); err != nil {
		return nil, buildFault(op, err)
	}
	lc.put(entry, p)
	return p, nil
}

// liftScratch is lifting's scratch from the pool, or a new one.
func (c *Client) liftScratch() *liftScratch {
	if scr, _ := c.lifts.Get().(*liftScratch); scr != nil {
		return scr
	}
	return &liftScratch{x86: make([]x86Decoded, 0, 256)}
}

// maxPooledInsns is the largest procedure, in instructions, lifted in the
// pooled scratch: every table of a liftScratch grows to the largest
// procedure it lifts, and the odd procedure of tens of thousands of
// instructions (libLLVM has them) would keep tens of megabytes pinned for
// the small ones that follow. A larger one is lifted in memory of its own
// (liftingScratch), dropped afterwards.
const maxPooledInsns = 1 << 13

// liftingScratch is the scratch to lift pc in: the pooled scr, or fresh
// memory when pc is larger than maxPooledInsns.
func liftingScratch(scr *liftScratch, pc *procCode) *liftScratch {
	if len(pc.insns) > maxPooledInsns {
		return &liftScratch{}
	}
	return scr
}

// keepLiftScratch returns scr to the pool with the decodings pc kept in it
// (decodeProcForLift) as its buffer, once nothing reads them; outsized
// ones are dropped, and scr keeps the buffer it had.
func (c *Client) keepLiftScratch(scr *liftScratch, pc *procCode) {
	if cap(pc.x86) <= maxPooledInsns {
		clear(pc.x86) // the decodings hold pointers
		scr.x86 = pc.x86[:0]
	} else {
		clear(scr.x86[:cap(scr.x86)]) // filled before pc.x86 outgrew it
	}
	c.lifts.Put(scr)
}

// liftProcedure lifts the decoded instructions of pc and recovers what
// data flow answers of them, in scr's memory (not nil).
func liftProcedure(tgt liftTarget, view *liftView, codeAt func(uint64) ([]byte, bool), pc *procCode, ex *extentIndex, entry uint64, known func(uint64) (*signature.Prototype, bool), scr *liftScratch) *liftedProc {
	p, calls := liftProcedureCalls(tgt, view, codeAt, pc, ex, entry, known, scr)
	p.calls = scr.pack.pack(calls)
	return p
}

// liftProcedureCalls is liftProcedure with the call sites unpacked. The
// lifting is discarded once its prototype and call sites are recovered, so
// its instructions and SSA values go back to scr (nil: a fresh one) for
// the next procedure.
func liftProcedureCalls(tgt liftTarget, view *liftView, codeAt func(uint64) ([]byte, bool), pc *procCode, ex *extentIndex, entry uint64, known func(uint64) (*signature.Prototype, bool), scr *liftScratch) (*liftedProc, []signature.Call) {
	p := &liftedProc{}
	if pc.thumb {
		p.lims = append(p.lims, "Thumb code is not lifted: no prototype or call arguments are recovered")
		return p, nil
	}
	if scr == nil {
		scr = &liftScratch{}
	}
	lr, err := liftAndResolve(tgt, view, codeAt, pc, ex, entry, &scr.lf, &scr.df)
	p, calls := liftedFrom(tgt, view, entry, lr, err, known, scr)
	if lr.res != nil {
		scr.df.Reclaim(lr.res.Func)
	}
	scr.lf.reuse()
	return p, calls
}

// liftedFrom is what liftProcedureCalls recovers of the lifting lr (and
// its error) of a procedure that is not Thumb code. It only reads lr's
// SSA, so the decompiler can print the same SSA afterwards; signature
// analysis and the frame's measure run in scr's memory (nil: their own).
func liftedFrom(tgt liftTarget, view *liftView, entry uint64, lr liftResult, err error, known func(uint64) (*signature.Prototype, bool), scr *liftScratch) (*liftedProc, []signature.Call) {
	p := &liftedProc{}
	// SSA is built from the entry, the first instruction: code that
	// recursive descent found below the entry (a cold part reached by a
	// jump back) is left out, and said.
	if lr.below {
		p.lims = append(p.lims, "code below the procedure's entry is not lifted: data flow does not see it")
	}
	if lr.bad > 0 {
		p.lims = append(p.lims, "some instructions do not lift; their effects are unknown to data flow")
	}
	switch {
	case errors.Is(err, errNoEntryInsn):
		p.lims = append(p.lims, "no instruction was decoded at the entry: nothing was lifted")
		return p, nil
	case err != nil:
		p.lims = append(p.lims, "the procedure's SSA form could not be built: "+err.Error())
		return p, nil
	}
	res, insns := lr.res, lr.insns
	env := &signature.Env{Conv: tgt.conv, ABI: tgt.abi, Image: view, Known: known,
		Pops: map[uint64]int64{entry: signature.CalleePops(insns, tgt.conv.SP)}}
	var calls []signature.Call
	if scr == nil {
		scr = &liftScratch{}
	}
	p.proto, calls = scr.sig.Analyze(res.Func, env)
	for _, ic := range res.Calls {
		if len(ic.Targets) > 0 {
			if p.resolved == nil {
				p.resolved = map[uint64][]uint64{}
			}
			p.resolved[ic.Call] = ic.Targets
		}
	}
	p.frame, scr.frame = frameOf(res.Func, insns, tgt.conv, scr.frame)
	p.lims = append(p.lims, res.Func.Limitations...)
	return p, calls
}

// frameOf measures the frame: its size is the depth below the entry stack
// pointer of the lowest stack address the procedure computes (the stack
// pointer's own values, slots addressed from it or from a frame pointer
// copied from it, a leaf's red zone included; the return address an x86
// call pushes lies above it), and the saved registers are the callee-saved
// registers the entry block stores to the stack before writing them.
func frameOf(f *dataflow.Func, insns []*lift.Insn, cv *abi.Convention, memo []frameOffset) (*procFrame, []frameOffset) {
	fr := &procFrame{saved: []string{}}
	// An address is the entry's stack pointer plus or minus constants; a
	// realignment or a variable allocation is not, and is not measured.
	// (Cheaper than dataflow.StackOffsets, which also follows realigned
	// frames and phis: signature runs that one.) memo, by value ID, is
	// made in the memory of the one passed in, and returned for the next.
	memo = reuse.Zeroed(&memo, f.IDBound())
	var off func(v *dataflow.Value, depth int) frameOffset
	off = func(v *dataflow.Value, depth int) frameOffset {
		if k := memo[v.ID]; k.found {
			return k
		}
		var k frameOffset
		switch {
		case depth > 64:
			return k
		case v.Kind == dataflow.Entry && v.Loc == f.Arch.SP:
			k = frameOffset{off: 0, ok: true}
		case v.Kind == dataflow.OpValue && (v.Op == lift.Add || v.Op == lift.Sub) && len(v.Args) == 2 && v.Args[1].Kind == dataflow.ConstValue:
			if b := off(v.Args[0], depth+1); b.ok {
				k = frameOffset{off: b.off - int64(v.Args[1].Lo), ok: true}
				if v.Op == lift.Add {
					k.off = b.off + int64(v.Args[1].Lo)
				}
			}
		}
		k.found = true
		memo[v.ID] = k
		return k
	}
	// a call's push of its return address belongs to the callee's frame
	calls := map[uint64]bool{}
	for _, in := range insns {
		for j := range in.Stmts {
			if in.Stmts[j].Op == lift.Call {
				calls[in.Addr] = true
			}
		}
	}
	low := int64(0)
	for _, b := range f.Blocks {
		for _, v := range b.Values {
			if calls[v.Addr] {
				continue
			}
			if k := off(v, 0); k.ok && k.off < low {
				low = k.off
			}
		}
	}
	fr.size = -low
	written := map[string]bool{}
	saved := map[string]bool{}
scan:
	for _, in := range insns {
		for j := range in.Stmts {
			s := &in.Stmts[j]
			switch s.Op {
			case lift.Jump, lift.Branch, lift.Call, lift.Return:
				break scan
			case lift.Store:
				if s.B.Kind == lift.Reg && slices.Contains(cv.CalleeSaved, s.B.Name) && !written[s.B.Name] && !saved[s.B.Name] {
					saved[s.B.Name] = true
					fr.saved = append(fr.saved, s.B.Name)
				}
			}
			if s.Dst.Kind == lift.Reg {
				written[s.Dst.Name] = true
			}
		}
	}
	return fr, memo
}

// prototypeOf is procedure_info's prototype: the prototype table's when
// the procedure's name is a C library function it lists, else the one
// data flow inferred; nil when the procedure was not lifted.
func prototypeOf(lp *liftedProc, name string, img *image) *provider.Prototype {
	if lp.proto == nil {
		return nil
	}
	q := lp.proto
	if tgt, why := liftTargetOf(img); why == "" {
		if f, ok := ctypes.Lookup(bareImport(name), tgt.abi); ok {
			q = signature.FromTable(f, &signature.Env{Conv: tgt.conv, ABI: tgt.abi})
		}
	}
	p := &provider.Prototype{Params: []provider.ProtoParam{}, Variadic: q.Variadic, CallingConvention: q.Convention, Source: q.Source}
	if q.Return != nil {
		p.Return = &provider.ProtoReturn{Type: q.Return.Type(), Storage: q.Return.Storage}
	}
	for i, a := range q.Params {
		p.Params = append(p.Params, provider.ProtoParam{Name: "a" + strconv.Itoa(i+1), Type: a.Type(), Storage: a.Storage, Source: q.Source})
	}
	return p
}

// protoText renders p as C prototype text (procedure_info.signature).
func protoText(p *provider.Prototype, name string) string {
	var sb strings.Builder
	ret := "void"
	if p.Return != nil {
		ret = p.Return.Type
	}
	sb.WriteString(ret)
	if !strings.HasSuffix(ret, "*") {
		sb.WriteString(" ")
	}
	sb.WriteString(name + "(")
	for i, q := range p.Params {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(q.Type)
		if !strings.HasSuffix(q.Type, "*") {
			sb.WriteString(" ")
		}
		sb.WriteString(q.Name)
	}
	switch {
	case p.Variadic && len(p.Params) > 0:
		sb.WriteString(", ...")
	case p.Variadic:
		sb.WriteString("...")
	case len(p.Params) == 0:
		sb.WriteString("void")
	}
	sb.WriteString(")")
	return sb.String()
}

func frameResult(lp *liftedProc) *provider.Frame {
	if lp.frame == nil {
		return nil
	}
	size := lp.frame.size
	return &provider.Frame{Size: &size, SavedRegisters: slices.Clone(lp.frame.saved)}
}

// errNoEntryInsn says no instruction was decoded at a procedure's entry.
var errNoEntryInsn = errors.New("no instruction was decoded at the entry")

// liftResult is the SSA of a procedure's lifted instructions and what
// was left out of it.
type liftResult struct {
	res   *dataflow.Resolution
	insns []*lift.Insn
	below bool // code recursive descent found below the entry is left out
	bad   int  // instructions that do not lift (an unmodelled "(bad)" each)
}

// liftAndResolve lifts the instructions pc decoded from entry on (from
// the decoder's kept x86asm decodings where it has them) and builds their
// SSA with jump tables resolved. It fails with errNoEntryInsn when nothing
// was decoded at entry, or when no SSA could be built.
func liftAndResolve(tgt liftTarget, view *liftView, codeAt func(uint64) ([]byte, bool), pc *procCode, ex *extentIndex, entry uint64, lf *procLifter, scr *dataflow.Scratch) (liftResult, error) {
	var lr liftResult
	decoded := pc.insns
	if k := slices.IndexFunc(decoded, func(it insn) bool { return it.addr == entry }); k > 0 {
		decoded = decoded[k:]
		lr.below = true
	} else if k < 0 {
		return lr, errNoEntryInsn
	}
	insns := make([]*lift.Insn, 0, len(decoded))
	if lf == nil {
		lf = &procLifter{}
	}
	lf.t = tgt
	kept := pc.x86 // by address, as decoded is
	for _, it := range decoded {
		n := int(it.n)
		var in *lift.Insn
		var err error
		for len(kept) > 0 && kept[0].addr < it.addr {
			kept = kept[1:]
		}
		if len(kept) > 0 && kept[0].addr == it.addr && kept[0].inst.Len == n {
			// x86asm's decoding of the same bytes, kept by the decoder
			in = lf.x86.LiftInst(kept[0].inst, it.addr)
		} else if code, ok := codeAt(it.addr); ok && len(code) >= n {
			in, err = lf.lift(code[:n], it.addr)
		}
		if in == nil || err != nil || in.Len != n {
			lr.bad++
			in = &lift.Insn{Addr: it.addr, Len: n, Mnemonic: "(bad)", Stmts: []lift.Stmt{{Op: lift.Unmodelled, Text: "(bad)", Reason: "does not lift"}}}
		}
		insns = append(insns, in)
	}
	opt := dataflow.Options{Scratch: scr, Lift: func(a uint64) (*lift.Insn, bool) {
		code, ok := codeAt(a)
		if !ok {
			return nil, false
		}
		in, err := lf.lift(code[:min(len(code), 16)], a)
		return in, err == nil
	}}
	if end, ok := ex.extentOf(entry); ok {
		opt.Start, opt.End = entry, end
	}
	res, err := dataflow.ResolveProcedure(dataflow.ArchFor(tgt.conv), insns, view, opt)
	if err != nil {
		return lr, err
	}
	lr.res, lr.insns = res, insns
	return lr, nil
}
