package builtin

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/provider"
)

// Symbol kinds (the list_names symbol.type vocabulary).
const (
	kindFunction uint8 = iota
	kindObject
	kindLabel
	kindImport
)

var kindNames = [...]string{"function", "object", "label", "import"}

// Symbol sources (the list_names symbol.source vocabulary).
const (
	srcDefault uint8 = iota
	srcImported
	srcAnalysis
)

var sourceNames = [...]string{"default", "imported", "analysis"}

// Bindings, used only to choose the primary name of an address.
const (
	bindGlobal uint8 = iota
	bindWeak
	bindLocal
)

// Symbol flags.
const (
	flagDynamic uint8 = 1 << iota
	flagExternal
	flagProcedure
	flagThunk
	flagArena   // name is in symIndex.arena, not in the file bytes
	flagPrimary // set by the index build
	flagThumb   // ARM Thumb code (ELF function symbol with the low bit set)
	flagMode    // ARM: the mode is known (flagThumb says which) though no function symbol gives it: a call, a code pointer
)

// symbol is one named address. The name is a (offset, length) reference into
// the analyzed bytes or into the index's arena, materialized only per page.
type symbol struct {
	addr    uint64
	size    uint64
	nameOff uint64
	nameLen uint32
	kind    uint8
	flags   uint8
	source  uint8
	rank    uint8 // source, kind and binding, for primaryOrder
}

func makeRank(source, kind, bind uint8) uint8 {
	return source<<6 | min(kind, 3)<<4 | min(bind, 3)<<2
}

// symIndex is the sorted, deduplicated name table and its procedure subset.
type symIndex struct {
	syms        []symbol // by (addr, name bytes), unique per (addr, name)
	procs       []uint32 // indices into syms with flagProcedure
	entries     []uint32 // indices into procs of the first symbol of each entry address
	arena       []byte
	limitations []string
	thunks      map[uint64]uint64 // thunk entry -> its target in the image (ELF PLT stubs of defined symbols)
}

// symBuilder collects symbols from a format parser.
type symBuilder struct {
	ctx   context.Context
	data  []byte
	syms  []symbol
	arena []byte
	lims  []string
	n     int
	prog  func(n int)

	thunks map[uint64]uint64 // see symIndex.thunks
}

// tick honours cancellation and reports progress every few thousand symbols.
func (b *symBuilder) tick() error {
	b.n++
	if b.n&4095 == 0 {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		if b.prog != nil {
			b.prog(b.n)
		}
	}
	return nil
}

func (b *symBuilder) add(s symbol) { b.syms = append(b.syms, s) }

// reserve makes room for n more symbols before a loop that adds up to n:
// growing a slice of a few hundred thousand symbols by appending copies it
// a dozen times, and the garbage collector struggles to preempt those
// copies (together about a third of indexing node). n is bounded by the
// table's size in the file, so this never asks for more than the appends
// would have. The symbols so far move by appendChecked rather than
// slices.Grow, whose copy and clearing of the new room cannot be
// preempted: for libLLVM-14 that stalled the whole process for 25–60 ms.
func (b *symBuilder) reserve(n uint64) error {
	if n == 0 || n > uint64(len(b.data)) || n <= uint64(cap(b.syms)-len(b.syms)) {
		return nil
	}
	grown, err := appendChecked(b.ctx, make([]symbol, 0, len(b.syms)+int(n)), b.syms)
	if err != nil {
		return err
	}
	b.syms = grown
	return nil
}

// addArena adds a symbol whose name is not in the file bytes.
func (b *symBuilder) addArena(s symbol, name string) {
	if len(name) > maxNameLen {
		name = name[:maxNameLen]
	}
	s.nameOff = uint64(len(b.arena))
	s.nameLen = uint32(len(name))
	s.flags |= flagArena
	b.arena = append(b.arena, name...)
	b.syms = append(b.syms, s)
}

func (b *symBuilder) limit(msg string) {
	if !slices.Contains(b.lims, msg) {
		b.lims = append(b.lims, msg)
	}
}

func (ix *symIndex) name(data []byte, s *symbol) []byte {
	return symName(data, ix.arena, s)
}

func symName(data, arena []byte, s *symbol) []byte {
	src := data
	if s.flags&flagArena != 0 {
		src = arena
	}
	end := s.nameOff + uint64(s.nameLen)
	if s.nameOff > uint64(len(src)) || end > uint64(len(src)) || end < s.nameOff {
		return nil
	}
	return src[s.nameOff:end]
}

// finish sorts, deduplicates (same address and name: flags merged, best rank
// kept) and marks one primary name per address.
func (b *symBuilder) finish() (*symIndex, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	data, arena := b.data, b.arena
	syms := b.syms
	g := sortGuard{ctx: b.ctx}
	err := g.run(func() {
		slices.SortFunc(syms, func(x, y symbol) int {
			g.tick()
			if c := cmp.Compare(x.addr, y.addr); c != 0 {
				return c
			}
			if c := bytes.Compare(symName(data, arena, &x), symName(data, arena, &y)); c != 0 {
				return c
			}
			return int(x.rank) - int(y.rank)
		})
	})
	if err != nil {
		return nil, err
	}
	out := syms[:0]
	for i := range syms {
		s := syms[i]
		if n := len(out); n > 0 && out[n-1].addr == s.addr && bytes.Equal(symName(data, arena, &out[n-1]), symName(data, arena, &s)) {
			p := &out[n-1] // sorted by rank within equal names: p is the better one
			p.flags |= s.flags & (flagDynamic | flagProcedure | flagThumb | flagMode)
			if s.flags&flagProcedure != 0 && p.kind != kindFunction && p.kind != kindImport {
				p.kind = kindFunction
			}
			if p.size == 0 {
				p.size = s.size
			}
			continue
		}
		out = append(out, s)
	}
	ix := &symIndex{syms: slices.Clip(out), arena: arena, limitations: b.lims, thunks: b.thunks}
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && out[j].addr == out[i].addr {
			j++
		}
		ix.markPrimary(data, i, j)
		i = j
	}
	ix.indexProcs()
	return ix, nil
}

// markPrimary marks the primary name among syms[lo:hi], the names of one
// address, clearing any earlier mark.
func (ix *symIndex) markPrimary(data []byte, lo, hi int) {
	best := lo
	for i := lo; i < hi; i++ {
		ix.syms[i].flags &^= flagPrimary
		if primaryOrder(ix.name(data, &ix.syms[i]), ix.name(data, &ix.syms[best]), &ix.syms[i], &ix.syms[best]) < 0 {
			best = i
		}
	}
	ix.syms[best].flags |= flagPrimary
}

// primaryOrder orders the names of one address for choosing the primary
// one, the name a reverse engineer expects to see (as objdump and nm users
// know it): a symbol-table name before an import-stub name before an
// analysis name (sub_…, entry); a function before an object, a label and an
// import; an exported (global or weak) symbol before a local one or an ELF
// compatibility version (llseek@GLIBC_2.2.5 beside lseek); then fewer
// leading underscores (glibc's printf before _IO_printf, malloc before
// __libc_malloc, sigaction before its strong __sigaction); then a strong
// before a weak binding; then the shorter name (open before open64); then
// byte order. The rule is total, so the choice is deterministic.
func primaryOrder(xn, yn []byte, x, y *symbol) int {
	if c := cmp.Compare(x.rank>>4, y.rank>>4); c != 0 { // source, then kind
		return c
	}
	xb, yb := x.rank>>2&3, y.rank>>2&3
	if xl, yl := xb == bindLocal, yb == bindLocal; xl != yl {
		if xl {
			return 1
		}
		return -1
	}
	if c := cmp.Compare(leadingUnderscores(xn), leadingUnderscores(yn)); c != 0 {
		return c
	}
	if c := cmp.Compare(xb, yb); c != 0 {
		return c
	}
	if c := cmp.Compare(len(xn), len(yn)); c != 0 {
		return c
	}
	return bytes.Compare(xn, yn)
}

func leadingUnderscores(b []byte) int {
	n := 0
	for n < len(b) && b[n] == '_' {
		n++
	}
	return n
}

// thunkTarget is the formatted target of the thunk at entry inside the
// image, or nil (no thunk, or one whose target is an import).
func (ix *symIndex) thunkTarget(entry uint64) *string {
	t, ok := ix.thunks[entry]
	if !ok {
		return nil
	}
	s := provider.FormatAddress(t)
	return &s
}

// indexProcs lists the procedure symbols and the first of each entry
// address.
func (ix *symIndex) indexProcs() {
	ix.procs, ix.entries = ix.procs[:0], ix.entries[:0]
	for i := range ix.syms {
		if ix.syms[i].flags&flagProcedure == 0 {
			continue
		}
		if n := len(ix.procs); n == 0 || ix.syms[ix.procs[n-1]].addr != ix.syms[i].addr {
			ix.entries = append(ix.entries, uint32(n))
		}
		ix.procs = append(ix.procs, uint32(i))
	}
}

// entryRange is the range of procs at the k-th entry address.
func (ix *symIndex) entryRange(k int) (int, int) {
	hi := len(ix.procs)
	if k+1 < len(ix.entries) {
		hi = int(ix.entries[k+1])
	}
	return int(ix.entries[k]), hi
}

// nameString materializes a name as valid UTF-8 (invalid bytes become U+FFFD).
func nameString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
