package ctypes

import (
	"strconv"
	"strings"
)

// SetKind says how a ConstSet's constants combine in one argument.
type SetKind uint8

const (
	// Enum: the argument is exactly one of the constants (SEEK_SET, SIGINT,
	// CLOCK_MONOTONIC); any other value is rendered as a decimal number
	// (a file descriptor where AT_FDCWD could stand, a signal REA does not
	// name).
	Enum SetKind = iota
	// Bits: the argument is an OR of constants (O_WRONLY|O_CREAT|O_TRUNC);
	// some constants are values of a field under a mask (O_ACCMODE,
	// S_IFMT, the socket type); bits no constant names are rendered in hex.
	Bits
)

// Const is one named constant of a set.
type Const struct {
	Name  string
	Value int64 // the value on the ABI the set was asked for
	Mask  int64 // Bits sets: the field the value lives in; 0 for a single flag
}

// ConstSet is the constants one kind of argument takes (the flags of open,
// the protections of mmap, the signals). Values differ between ABIs (O_* on
// arm64 and x86, signals on Windows), so a set is asked for per ABI.
type ConstSet struct {
	Name   string // the table's name for the set, e.g. "open_flags"
	Kind   SetKind
	Header string // the header that defines the constants' macros ("fcntl.h")
	consts []constDef
}

type constDef struct {
	name   string
	mask   int64
	values [numABIs]int64
	absent [numABIs]bool // the constant does not exist on that ABI
}

// Consts returns the set's constants that exist on abi, in the table's order
// (which is the order Render prefers them in).
func (s *ConstSet) Consts(abi ABI) []Const {
	out := make([]Const, 0, len(s.consts))
	for _, c := range s.consts {
		if abi < numABIs && !c.absent[abi] {
			out = append(out, Const{Name: c.name, Value: c.values[abi], Mask: c.mask})
		}
	}
	return out
}

// Render writes value as a C expression over the set's constants on abi:
// the constant's name for an Enum value it names ("SEEK_END"), else the
// value in decimal; for Bits, the names of the fields and flags the value
// holds joined by '|' ("O_WRONLY|O_CREAT|O_TRUNC"), with the bits no
// constant names appended in hex ("PROT_READ|0x80"), or the set's zero name
// ("PROT_NONE", "F_OK") or "0" for zero. A name is written only when its
// value is exactly present, so the expression always equals value.
//
// value is the argument already converted to the parameter's type (see
// Param.Render for the conversion from a register).
func (s *ConstSet) Render(value int64, abi ABI) string {
	if abi >= numABIs {
		return strconv.FormatInt(value, 10)
	}
	if s.Kind == Enum {
		if name, ok := s.enumName(value, abi); ok {
			return name
		}
		return strconv.FormatInt(value, 10)
	}
	var parts []string
	rest := value
	zeroName := ""
	for _, c := range s.consts {
		if c.absent[abi] {
			continue
		}
		v := c.values[abi]
		switch {
		case c.mask != 0:
			// A field: named when the field holds exactly this value. The
			// field's bits are consumed only on a match, so a value no
			// constant of the field names stays for the hex remainder.
			if value&c.mask == v && rest&c.mask == value&c.mask {
				parts = append(parts, c.name)
				rest &^= c.mask
			}
		case v == 0:
			if zeroName == "" {
				zeroName = c.name
			}
		case rest&v == v:
			parts = append(parts, c.name)
			rest &^= v
		}
	}
	if rest != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(uint64(rest), 16))
	}
	if len(parts) == 0 {
		if zeroName != "" {
			return zeroName
		}
		return "0"
	}
	return strings.Join(parts, "|")
}

func (s *ConstSet) enumName(value int64, abi ABI) (string, bool) {
	for _, c := range s.consts {
		if !c.absent[abi] && c.values[abi] == value {
			return c.name, true
		}
	}
	return "", false
}

// Normalize converts a raw argument (the bits of the register or stack slot
// that carried it) to t under abi: truncated to t's size and sign- or
// zero-extended as t's signedness says, so -100 in a 32-bit int register
// reads as AT_FDCWD whatever the upper half held.
func (t Type) Normalize(raw uint64, abi ABI) int64 {
	size := t.Size(abi)
	if size <= 0 || size >= 8 {
		return int64(raw)
	}
	bits := uint(size * 8)
	raw &= 1<<bits - 1
	if t.Signed(abi) && raw&(1<<(bits-1)) != 0 {
		return int64(raw) - 1<<bits
	}
	return int64(raw)
}

// Render writes the raw argument value of p as C: its constants' names when
// p is a flag or enumeration argument, else the number in decimal.
func (p Param) Render(raw uint64, abi ABI) string {
	v := p.Type.Normalize(raw, abi)
	if p.Consts == nil {
		return strconv.FormatInt(v, 10)
	}
	if p.Consts.Kind == Enum && abi < numABIs {
		// An enumeration constant may be negative (AT_FDCWD, RTLD_NEXT)
		// where the parameter is unsigned or a pointer: read the value as
		// signed too.
		if size := p.Type.Size(abi); size > 0 && size < 8 {
			bits := uint(size * 8)
			if s := int64(raw<<(64-bits)) >> (64 - bits); s != v {
				if name, ok := p.Consts.enumName(s, abi); ok {
					return name
				}
			}
		}
	}
	return p.Consts.Render(v, abi)
}
