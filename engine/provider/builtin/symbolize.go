package builtin

import (
	"bytes"
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/provider"
)

// Symbolized disassembly (CONTRACTS.md §0, §2.2): a direct branch or call
// target is written `<address> <symbol[+0xoff]>`, and an instruction that
// refers to data (RIP-relative and absolute x86 operands, arm64 ADRP pairs,
// ADR and literal loads, arm literal pools and the pc-relative addresses they
// form) gets a trailing `; <address> <symbol[+0xoff]>` or `; "<string>"`.
//
// Names follow objdump: the nearest name at or before the address, plus the
// offset. The name of an address is its primary name (symbols.go), except
// that an ELF PLT stub is "<import>@plt" as objdump calls it (elfPLTStubs),
// and an address that is not a name's own but is a GOT slot a dynamic
// relocation fills is named after the relocation's symbol (objdump's rule
// for dynamic relocations). An address before every name has none.
//
// A data address with no name of its own is shown as the string it holds
// when the bytes there, in a mapped non-executable section, are a
// NUL-terminated run of at least minPreviewBytes printable characters (tab,
// newline and other common control characters allowed, and escaped), cut to
// maxPreviewChars characters; else, in a data section, as the symbol that
// covers it or, when none does, as an offset in its section (dataNote).

const (
	minPreviewBytes = 1
	maxPreviewChars = 40
	maxPreviewScan  = 4096
)

// symbolizer is the per-index table the annotations read, built once on
// first use: one entry per named address, by address.
type symbolizer struct {
	six   *symIndex
	ents  []symEntry
	stubs []pltStub  // ELF PLT stubs an entry may refer to
	slots []slotName // GOT slots named by dynamic relocations, by address
	secs  []int      // mapped, file-backed sections by address (string previews)
	all   []int      // mapped sections by address, zero-fill ones too (data operands)
}

// symEntry names addr: ref >= 0 is an index into six.syms, ref < 0 the PLT
// stub stubs[-1-ref].
type symEntry struct {
	addr uint64
	ref  int32
}

// slotName is a GOT slot and the name of its relocation's symbol (file bytes).
type slotName struct {
	addr    uint64
	nameOff uint64
	nameLen uint32
}

func buildSymbolizer(ctx context.Context, img *image, data []byte, six *symIndex) (*symbolizer, error) {
	z := &symbolizer{six: six, secs: img.fileSectionIndex(), all: img.mappedSectionIndex()}
	n := 0
	tick := func() error {
		n++
		if n&4095 == 0 {
			return ctx.Err()
		}
		return nil
	}
	var prim []symEntry
	for i := range six.syms {
		if err := tick(); err != nil {
			return nil, err
		}
		if six.syms[i].flags&flagPrimary != 0 {
			prim = append(prim, symEntry{addr: six.syms[i].addr, ref: int32(i)})
		}
	}
	if img.elf != nil {
		stubs, err := elfPLTStubs(img, data, tick)
		if err != nil {
			return nil, err
		}
		rels, err := elfDynRelocs(img, data, tick)
		if err != nil {
			return nil, err
		}
		for _, r := range rels {
			if off, n, _, _, ok := elfDynSym(img, data, r.sym); ok {
				z.slots = append(z.slots, slotName{addr: r.off, nameOff: off, nameLen: n})
			}
		}
		sort.SliceStable(z.slots, func(i, j int) bool { return z.slots[i].addr < z.slots[j].addr })
		z.stubs = stubs
	}
	// Merge the primary names with the PLT stubs (both by address); a stub
	// replaces the plain import name at its address.
	z.ents = make([]symEntry, 0, len(prim)+len(z.stubs))
	i, j := 0, 0
	for i < len(prim) || j < len(z.stubs) {
		switch {
		case j == len(z.stubs) || i < len(prim) && prim[i].addr < z.stubs[j].addr:
			z.ents = append(z.ents, prim[i])
			i++
		default:
			a := z.stubs[j].addr
			if n := len(z.ents); n == 0 || z.ents[n-1].addr != a {
				z.ents = append(z.ents, symEntry{addr: a, ref: -1 - int32(j)})
			}
			j++
			for i < len(prim) && prim[i].addr == a {
				i++
			}
		}
	}
	return z, nil
}

func (c *Client) symbolizer(ctx context.Context, op string, six *symIndex) (*symbolizer, error) {
	z, err := c.ix.symz.get(ctx, func(ctx context.Context) (*symbolizer, error) {
		return buildSymbolizer(ctx, c.ix.img, c.data, six)
	})
	if err != nil {
		return nil, buildFault(op, err)
	}
	return z, nil
}

// annotator renders the annotations of one operation's instructions.
type annotator struct {
	z     *symbolizer
	img   *image
	data  []byte
	names *namer // the answer's user names (set_address_name) take part in the nearest-name search
}

// symbolFor names addr as the nearest name at or before it plus the offset.
// Every name the annotations show comes from here.
func (a *annotator) symbolFor(addr uint64) (name string, off uint64, ok bool) {
	z := a.z
	i := sort.Search(len(z.ents), func(i int) bool { return z.ents[i].addr > addr }) - 1
	// A user name (set_address_name) at or before addr that is nearer than
	// the table's entry, or at the same address, is the one shown, as in
	// every other answer.
	u, user := a.names.user.Before(addr)
	if user && u.Address == addr {
		return a.userName(u, addr)
	}
	if i < 0 || z.ents[i].addr != addr {
		if k := sort.Search(len(z.slots), func(k int) bool { return z.slots[k].addr >= addr }); k < len(z.slots) && z.slots[k].addr == addr {
			s := z.slots[k]
			return nameString(a.data[s.nameOff : s.nameOff+uint64(s.nameLen)]), 0, true
		}
	}
	if user && (i < 0 || u.Address >= z.ents[i].addr) {
		return a.userName(u, addr)
	}
	if i < 0 {
		return "", 0, false
	}
	e := z.ents[i]
	return a.entryName(e), addr - e.addr, true
}

func (a *annotator) userName(u provider.UserName, addr uint64) (string, uint64, bool) {
	a.names.use.Shown(u.Address)
	return u.Name, addr - u.Address, true
}

func (a *annotator) entryName(e symEntry) string {
	if e.ref >= 0 {
		return nameString(a.z.six.name(a.data, &a.z.six.syms[e.ref]))
	}
	return a.z.stubs[-1-e.ref].name(a.data)
}

// symbolic renders `<address> <name[+0xoff]>`, or the address alone.
func (a *annotator) symbolic(addr uint64) string {
	s := provider.FormatAddress(addr)
	if name, off, ok := a.symbolFor(addr); ok {
		s += " <" + lineSafe(name)
		if off != 0 {
			s += "+0x" + strconv.FormatUint(off, 16)
		}
		s += ">"
	}
	return s
}

// annotate adds the target's name after the branch or call target in text
// and the data reference's note at the end.
func (a *annotator) annotate(text string, it insn) string {
	if it.hasTarget {
		t := provider.FormatAddress(it.target)
		if k := lastAddr(text, t); k >= 0 {
			text = text[:k] + a.symbolic(it.target) + text[k+len(t):]
		}
	}
	if it.hasData {
		text += " ; " + a.dataNote(it.data)
	}
	return text
}

// lastAddr returns the index of the last occurrence of the address t in text
// that is not part of a longer hex number, or -1.
func lastAddr(text, t string) int {
	for end := len(text); ; {
		k := strings.LastIndex(text[:end], t)
		if k < 0 {
			return -1
		}
		after := k + len(t)
		if after == len(text) || !isHexDigit(text[after]) {
			return k
		}
		end = k
	}
}

func isHexDigit(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// dataNote is a data reference's note: the address's own name, else the
// string stored there, else, in a non-executable section, the name of the
// symbol that covers the address plus the offset or, when none does, the
// section plus the offset (`<.rodata+0x978>`: never an offset from a name
// in another section). An address in executable code keeps the nearest
// name; one outside every section of an image that has sections is shown
// alone.
func (a *annotator) dataNote(addr uint64) string {
	if _, off, ok := a.symbolFor(addr); ok && off == 0 {
		return a.symbolic(addr)
	}
	if s, ok := a.stringAt(addr); ok {
		return s
	}
	s := a.img.sectionAt(addr, a.z.all)
	switch {
	case s == nil && len(a.z.all) > 0:
		return provider.FormatAddress(addr)
	case s == nil || s.x:
		return a.symbolic(addr)
	}
	name, off, ok := a.dataName(addr, s)
	if !ok {
		name, off = s.name, addr-s.addr
	}
	out := provider.FormatAddress(addr) + " <" + lineSafe(name)
	if off != 0 {
		out += "+0x" + strconv.FormatUint(off, 16)
	}
	return out + ">"
}

// stringAt returns the quoted preview of the string stored at addr.
func (a *annotator) stringAt(addr uint64) (string, bool) {
	b, ok := a.textAt(addr)
	if !ok || len(b) < minPreviewBytes {
		return "", false
	}
	return previewString(b)
}

// textAt returns the string stored at addr: the bytes up to a NUL within
// maxPreviewScan bytes, at least one, in a mapped, file-backed,
// non-executable section, that are text (isText).
func (a *annotator) textAt(addr uint64) ([]byte, bool) {
	s := a.img.sectionAt(addr, a.z.secs)
	if s == nil || s.x {
		return nil, false
	}
	off := s.off + (addr - s.addr)
	end := min(satAdd(s.off, min(s.fsize, s.size)), uint64(len(a.data)), satAdd(off, maxPreviewScan))
	if off >= end {
		return nil, false
	}
	b := a.data[off:end]
	n := bytes.IndexByte(b, 0)
	if n < 1 || !isText(b[:n]) {
		return nil, false // no terminator in reach, empty, or not text
	}
	return b[:n], true
}

// dataName names a data address in section s: the name at the address,
// else the nearest name before it in s whose symbol's size covers it, plus
// the offset; ok=false when no symbol covers the address.
func (a *annotator) dataName(addr uint64, s *section) (name string, off uint64, ok bool) {
	if name, off, ok := a.symbolFor(addr); ok && off == 0 {
		return name, 0, true
	}
	z := a.z
	i := sort.Search(len(z.ents), func(i int) bool { return z.ents[i].addr > addr }) - 1
	if i < 0 || z.ents[i].ref < 0 || z.ents[i].addr < s.addr {
		return "", 0, false
	}
	e := z.ents[i]
	// the largest size among the address's symbols (the primary name may be
	// an alias without one)
	var size uint64
	for k := sort.Search(len(z.six.syms), func(k int) bool { return z.six.syms[k].addr >= e.addr }); k < len(z.six.syms) && z.six.syms[k].addr == e.addr; k++ {
		size = max(size, z.six.syms[k].size)
	}
	if addr-e.addr >= size {
		return "", 0, false
	}
	// a user name at a nearer address names no symbol and covers nothing
	if u, user := a.names.user.Before(addr); user && u.Address > e.addr {
		return "", 0, false
	}
	if name, ok := a.names.displayName(e.addr); ok {
		return name, addr - e.addr, true
	}
	return a.entryName(e), addr - e.addr, true
}

// importAt names the import at addr by its bare name: an ELF PLT stub, an
// imported symbol (an import thunk or IAT slot, whichever name is primary
// there), or a GOT slot a dynamic relocation fills.
func (z *symbolizer) importAt(data []byte, addr uint64) (string, bool) {
	i := sort.Search(len(z.ents), func(i int) bool { return z.ents[i].addr >= addr })
	if i < len(z.ents) && z.ents[i].addr == addr && z.ents[i].ref < 0 {
		return bareImport(z.stubs[-1-z.ents[i].ref].name(data)), true
	}
	syms := z.six.syms
	for k := sort.Search(len(syms), func(k int) bool { return syms[k].addr >= addr }); k < len(syms) && syms[k].addr == addr; k++ {
		if syms[k].source == srcImported {
			return bareImport(nameString(z.six.name(data, &syms[k]))), true
		}
	}
	if k := sort.Search(len(z.slots), func(k int) bool { return z.slots[k].addr >= addr }); k < len(z.slots) && z.slots[k].addr == addr {
		s := z.slots[k]
		return bareImport(nameString(data[s.nameOff : s.nameOff+uint64(s.nameLen)])), true
	}
	return "", false
}

// isText reports whether b is text a preview shows: valid UTF-8 of
// printable characters and the common control characters previewEscape
// escapes.
func isText(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 || !unicode.IsPrint(r) && previewEscape(r) == "" {
			return false
		}
		b = b[size:]
	}
	return true
}

// previewString quotes b, escaping control characters, cut to
// maxPreviewChars characters ("…" ends a cut preview). ok=false when b is
// not text: invalid UTF-8, or a character that is neither printable nor a
// common control character.
func previewString(b []byte) (string, bool) {
	if !isText(b) {
		return "", false
	}
	var out strings.Builder
	out.WriteByte('"')
	chars := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		esc := previewEscape(r)
		if esc == "" {
			esc = string(r)
		}
		k := utf8.RuneCountInString(esc)
		if chars+k > maxPreviewChars || chars+k == maxPreviewChars && len(b) > 0 {
			out.WriteString("…")
			break
		}
		out.WriteString(esc)
		chars += k
	}
	out.WriteByte('"')
	return out.String(), true
}

// lineSafe escapes the characters of a name that are not printable (a
// newline in a sample's symbol name must not start a new line of the
// listing), as previews escape them; other names are returned as they are.
func lineSafe(name string) string {
	clean := true
	for i := 0; i < len(name) && clean; i++ {
		clean = name[i] >= 0x20 && name[i] < 0x7f
	}
	if clean {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		switch esc := previewEscape(r); {
		case r == '"' || r == '\\':
			b.WriteRune(r)
		case esc != "":
			b.WriteString(esc)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRuneToASCII(r) // '\x01', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// previewEscape is the escape of a quote, backslash or common control
// character, else "".
func previewEscape(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\t':
		return `\t`
	case '\r':
		return `\r`
	case '\a', '\b', '\f', '\v', 0x1b:
		return `\x` + strconv.FormatUint(uint64(r)|0x100, 16)[1:]
	}
	return ""
}
