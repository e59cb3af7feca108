package triagefacts

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"

	"github.com/rea-re/rea/engine/provider"
)

// GNU note and property types and bits (not in debug/elf).
const (
	elfNoteBuildID          = 3
	ntGNUPropertyType0      = 5
	gnuPropertyX86Feature1  = 0xc0000002
	gnuPropertyAArch64Feat1 = 0xc0000000
	gnuPropertyX86IBT       = 1
	gnuPropertyX86SHSTK     = 2
	gnuPropertyAArch64BTI   = 1
	gnuPropertyAArch64PAC   = 2
)

// elfNote is one note of an ELF note section or segment.
type elfNote struct {
	name string
	typ  uint32
	desc []byte
}

// parseELFNotes splits note bytes; align is 4 or 8 (the section's), and
// name and descriptor each start at an aligned offset from the note's
// start. Truncated or malformed trailing bytes end the list.
func parseELFNotes(p []byte, align uint64, bo interface{ Uint32([]byte) uint32 }) []elfNote {
	if align != 8 {
		align = 4
	}
	pad := func(n uint64) uint64 { return (n + align - 1) &^ (align - 1) }
	var out []elfNote
	for uint64(len(p)) >= 12 {
		nsz, dsz, typ := uint64(bo.Uint32(p)), uint64(bo.Uint32(p[4:])), bo.Uint32(p[8:])
		if nsz > uint64(len(p))-12 {
			break
		}
		name := string(bytes.TrimRight(p[12:12+nsz], "\x00"))
		d := pad(12 + nsz)
		if d > uint64(len(p)) || dsz > uint64(len(p))-d {
			break
		}
		out = append(out, elfNote{name: name, typ: typ, desc: p[d : d+dsz]})
		next := pad(d + dsz)
		if next >= uint64(len(p)) {
			break
		}
		p = p[next:]
	}
	return out
}

// gnuProperties reads a NT_GNU_PROPERTY_TYPE_0 descriptor: (type, value)
// pairs whose value is the first 4 bytes of each property's data.
func gnuProperties(desc []byte, is64 bool, bo interface{ Uint32([]byte) uint32 }) map[uint32]uint32 {
	align := uint64(4)
	if is64 {
		align = 8
	}
	out := map[uint32]uint32{}
	for len(desc) >= 8 {
		typ, sz := bo.Uint32(desc), uint64(bo.Uint32(desc[4:]))
		desc = desc[8:]
		if sz > uint64(len(desc)) {
			break
		}
		if sz >= 4 {
			out[typ] = bo.Uint32(desc)
		}
		n := (sz + align - 1) &^ (align - 1)
		if n >= uint64(len(desc)) {
			break
		}
		desc = desc[n:]
	}
	return out
}

// ELFNoteBytes is the contents of one note section or segment and its
// alignment.
type ELFNoteBytes struct {
	Data  []byte
	Align uint64
}

// ELFNotes adds the triage facts ELF notes carry to identity (build_id
// from NT_GNU_BUILD_ID, go_build_id) and hardening (CET IBT/SHSTK on x86,
// BTI/PAC on arm64, from the GNU property note: false when it is absent,
// as hardening-check reads it). It is the one reader of these facts, for
// every provider that can read the notes' bytes.
func ELFNotes(chunks []ELFNoteBytes, class64 bool, bo binary.ByteOrder, machine elf.Machine, identity, hardening map[string]any) {
	var notes []elfNote
	for _, c := range chunks {
		notes = append(notes, parseELFNotes(c.Data, c.Align, bo)...)
	}
	id, hd := identity, hardening
	var props map[uint32]uint32
	for _, n := range notes {
		switch {
		case n.name == "GNU" && n.typ == elfNoteBuildID:
			id["build_id"] = fact(hex.EncodeToString(n.desc), "note:NT_GNU_BUILD_ID")
		case n.name == "GNU" && n.typ == ntGNUPropertyType0:
			props = gnuProperties(n.desc, class64, bo)
		case n.name == "Go" && n.typ == 4:
			id["go_build_id"] = fact(string(n.desc), "note:NT_GO_BUILD_ID")
		}
	}
	switch machine {
	case elf.EM_X86_64, elf.EM_386:
		v, ok := props[gnuPropertyX86Feature1]
		src := "note:NT_GNU_PROPERTY_TYPE_0/x86_feature_1_and"
		if !ok {
			src += "(absent)"
		}
		hd["cet_ibt"] = fact(v&gnuPropertyX86IBT != 0, src)
		hd["cet_shstk"] = fact(v&gnuPropertyX86SHSTK != 0, src)
	case elf.EM_AARCH64:
		v, ok := props[gnuPropertyAArch64Feat1]
		src := "note:NT_GNU_PROPERTY_TYPE_0/aarch64_feature_1_and"
		if !ok {
			src += "(absent)"
		}
		hd["bti"] = fact(v&gnuPropertyAArch64BTI != 0, src)
		hd["pac"] = fact(v&gnuPropertyAArch64PAC != 0, src)
	}
}

func fact(v any, src string) provider.Fact { return provider.Fact{Value: v, Source: src} }
