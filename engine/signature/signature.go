// Package signature recovers prototypes (procedure_info.prototype,
// CONTRACTS.md §0.3) and call-site arguments (procedure_calls, §19) from a
// procedure's SSA form (package dataflow) under a calling convention
// (package abi), with the C library's prototypes from package ctypes.
//
// Prototypes: a parameter is the entry value of an argument register, or
// an incoming stack slot, that the procedure reads for its own purposes.
// Passing a register through unchanged to a call (or a tail call) counts
// only when the callee's prototype is known to take it, and a return
// handing a register back unchanged never counts, so callee-saved spills
// and registers a procedure merely forwards are not parameters. A
// parameter's class comes from its uses: dereferenced (directly, or as the
// base of an address computation) or passed where a known prototype wants
// a pointer makes it a pointer; a floating-point register is a float or a
// double by the width its uses read; an integer's width and signedness
// come from the narrowing, extensions, comparisons and divisions applied
// to it. Unused parameters below a used one are counted (the convention
// assigns registers in order) and typed as integers of the register's
// width.
//
// Call sites: each call (and tail call) with its callee and arguments. The
// number of arguments comes from the callee's prototype (the ctypes table
// by name, or a recovered prototype the caller supplies), a printf-style
// format string adding its conversions; without one, from the argument
// registers and outgoing stack slots the procedure writes before the call.
// Each argument's value is classified constant, string, address, symbol,
// stack, expression or unknown; a value the data flow does not determine
// is unknown, never guessed.
package signature

import (
	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/ctypes"
)

// Version names what inference recovers: it changes whenever a prototype
// or a call's arguments recovered from the same lifting change, so that
// an analysis profile that records it (the builtin provider's
// "signatures") says which inference its answers came from. 2: a
// return's width is the widest of the procedure's return paths.
const Version = "2"

// Image is what call-argument classification reads of the program:
// strings, symbols and which addresses the image maps. Implementations
// must bound what they read (a string is cut at a limit of their choice).
type Image interface {
	// ReadString returns the NUL-terminated string at addr when addr lies
	// in a section of the image with file contents.
	ReadString(addr uint64) (string, bool)
	// Symbol names the procedure, object or import stub that starts at
	// addr; imported says the name is an import (a PLT stub, a GOT or IAT
	// slot).
	Symbol(addr uint64) (name string, imported, ok bool)
	// Mapped reports whether addr lies in a section of the image.
	Mapped(addr uint64) bool
}

// Env is what inference knows beyond the procedure itself.
type Env struct {
	Conv *abi.Convention
	ABI  ctypes.ABI
	// Image may be nil: constants are then never strings, symbols or
	// addresses, and callees have no names.
	Image Image
	// Known returns the recovered prototype of the procedure at addr (of
	// the same program), when there is one; may be nil.
	Known func(addr uint64) (*Prototype, bool)
	// Pops is, by procedure entry, how many bytes the procedure's returns
	// remove beyond the return address (i386 `ret imm16`, CalleePops): a
	// callee-pops convention (stdcall, fastcall) with that many bytes of
	// stack arguments. Absent or 0 when it removes none or is not known;
	// may be nil.
	Pops map[uint64]int64
}

// Class is a parameter's class as the convention and the contract see
// it: integer, pointer or floating.
type Class = ctypes.Class

// Param is one recovered parameter or return value.
type Param struct {
	// Storage is the register ("rdi", "xmm0", "x1") or the incoming stack
	// slot ("stack+0x8": the offset from the stack pointer at entry).
	Storage string
	Class   Class
	// Width in bits of the value the procedure uses (8, 16, 32, 64; for
	// floating: 32 float, 64 double).
	Width  int
	Signed bool
	// Used is false for a parameter counted only because a later one of
	// the same register file is used.
	Used bool

	sure bool // the class comes from a prototype table or a format string
}

// Type renders p as a C type name.
func (p Param) Type() string {
	switch p.Class {
	case ctypes.ClassPointer:
		return "void *"
	case ctypes.ClassFloating:
		if p.Width == 32 {
			return "float"
		}
		return "double"
	}
	var s string
	switch p.Width {
	case 8:
		s = "char"
	case 16:
		s = "short"
	case 64:
		s = "long long"
	default:
		s = "int"
	}
	if !p.Signed {
		s = "unsigned " + s
	}
	return s
}

// Prototype is a recovered prototype.
type Prototype struct {
	Params []Param
	// Return is nil when nothing the caller can read is set.
	Return     *Param
	Variadic   bool
	Convention string
	// Source is "prototype_table" when the ctypes table gave it, else
	// "inferred".
	Source string

	format      ctypes.FormatKind
	formatParam int
}

// FromTable converts a ctypes prototype to a Prototype under env's
// convention (storage assigned as the convention assigns it).
func FromTable(f ctypes.Func, env *Env) *Prototype {
	p := &Prototype{Variadic: f.Variadic, Convention: env.Conv.Name, Source: "prototype_table"}
	types := make([]ctypes.Type, len(f.Params))
	for i, q := range f.Params {
		types[i] = q.Type
	}
	p.Params = assign(types, env)
	if !f.Return.IsVoid() {
		r := paramOfType(f.Return, env)
		if f.Return.Class(env.ABI) == ctypes.ClassFloating && len(env.Conv.FloatReturn) > 0 {
			r.Storage = env.Conv.FloatReturn[0]
		} else if len(env.Conv.IntReturn) > 0 {
			r.Storage = env.Conv.IntReturn[0]
		}
		p.Return = &r
	}
	return p
}

func paramOfType(t ctypes.Type, env *Env) Param {
	c := t.Class(env.ABI)
	w := t.Size(env.ABI) * 8
	if c == ctypes.ClassAggregate {
		c = ctypes.ClassInteger
	}
	return Param{Class: c, Width: w, Signed: t.Signed(env.ABI), Used: true, sure: true}
}

// assign places parameters of the given types where env's convention
// passes them.
func assign(types []ctypes.Type, env *Env) []Param {
	cv := env.Conv
	var out []Param
	ni, nf := 0, 0
	stack := cv.StackArgs
	for pos, t := range types {
		q := paramOfType(t, env)
		float := q.Class == ctypes.ClassFloating
		switch {
		case cv.Positional && pos < len(cv.IntArgs):
			if float && pos < len(cv.FloatArgs) {
				q.Storage = cv.FloatArgs[pos]
			} else {
				q.Storage = cv.IntArgs[pos]
			}
		case float && nf < len(cv.FloatArgs) && !cv.Positional:
			q.Storage = cv.FloatArgs[nf]
			nf++
		case !float && ni < len(cv.IntArgs) && !cv.Positional:
			q.Storage = cv.IntArgs[ni]
			ni++
		default:
			q.Storage = StackName(stack)
			size := int64(q.Width / 8)
			if size < cv.StackSlot {
				size = cv.StackSlot
			}
			stack += (size + cv.StackSlot - 1) / cv.StackSlot * cv.StackSlot
		}
		out = append(out, q)
	}
	return out
}

// StackName is the Storage of a parameter or argument passed on the stack,
// off bytes above the stack pointer at the call.
func StackName(off int64) string {
	return "stack+" + Hex(uint64(off))
}

// Hex is how a Value's Text writes an address or an unsigned constant:
// lower-case hexadecimal with 0x.
func Hex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0x0"
	}
	var b [18]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = digits[v&15]
		v >>= 4
	}
	i -= 2
	b[i], b[i+1] = '0', 'x'
	return string(b[i:])
}
