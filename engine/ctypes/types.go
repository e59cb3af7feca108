// Package ctypes is REA's own model of the C types its analyses emit and a
// prototype table of the C library (C11) and POSIX/Linux (glibc), with the
// constants of their common flag arguments and the headers that declare
// them, plus the Microsoft C runtime names PE imports use.
//
// Calling-convention analysis reads parameter counts and classes from it
// (procedure_info.prototype with source "prototype_table", CONTRACTS.md
// §0.3), procedure_calls reads the number of arguments of a call to a
// library function and renders flag arguments as constants (§19), and the
// decompiler renders known constants as the library's macro names and
// declares the functions it calls (§20). Because §20 requires the output to
// compile, every declaration here is real C: the package's tests compile the
// whole table against the system's headers with gcc for x86-64, i386, arm64
// and Win64 (MinGW), and check every constant's value the same way.
//
// The table is written by hand in table.txt (embedded, parsed once at first
// use into an immutable value); nothing is generated from headers at run
// time.
//
// # Use
//
//	f, ok := ctypes.Lookup("open64@GLIBC_2.2.5", ctypes.LinuxAMD64)
//	// f.Params: pathname (pointer), flags (integer, open_flags);
//	// f.Variadic; f.Optional: mode (mode) when the flags ask for it.
//	f.Params[1].Render(0x241, ctypes.LinuxAMD64) // "O_WRONLY|O_CREAT|O_TRUNC"
//	f.Declaration()                              // "int (open64)(const char *pathname, int flags, ...);"
//	f.Header                                     // "fcntl.h"
//
// A decompiler's prelude writes FeatureDefines, includes TypeHeaders and the
// Header of every function it calls (and ConstSet.Header for the constants
// it names), and declares with Declaration the functions whose Header is
// empty.
package ctypes

import (
	"fmt"
	"strings"
)

// ABI names a platform's C ABI: its data model (sizes of int, long and
// pointers), the signedness of plain char, and its C library.
type ABI uint8

const (
	LinuxAMD64   ABI = iota // System V AMD64, LP64, glibc
	Linux386                // System V i386, ILP32, glibc
	LinuxARM64              // AAPCS64, LP64, unsigned char, glibc
	WindowsAMD64            // Win64, LLP64, Microsoft C runtime (msvcrt/ucrt)
	numABIs
)

// String returns the ABI's name as the table's per-architecture overrides
// spell it.
func (a ABI) String() string {
	switch a {
	case LinuxAMD64:
		return "x86_64"
	case Linux386:
		return "i386"
	case LinuxARM64:
		return "arm64"
	case WindowsAMD64:
		return "win64"
	}
	return fmt.Sprintf("ABI(%d)", uint8(a))
}

// DataModel is the ABI's integer model.
type DataModel uint8

const (
	LP64  DataModel = iota // long and pointers 64-bit (Linux x86-64, arm64)
	ILP32                  // int, long and pointers 32-bit (i386)
	LLP64                  // long 32-bit, long long and pointers 64-bit (Win64)
)

// DataModel returns the ABI's data model.
func (a ABI) DataModel() DataModel {
	switch a {
	case Linux386:
		return ILP32
	case WindowsAMD64:
		return LLP64
	}
	return LP64
}

func (a ABI) windows() bool { return a == WindowsAMD64 }

// Class is how a calling convention sees a value: it decides which registers
// carry it.
type Class uint8

const (
	ClassVoid      Class = iota
	ClassInteger         // integer registers (including _Bool, char, enums)
	ClassPointer         // integer registers, holding an address
	ClassFloating        // floating-point/vector registers (x87 for long double on i386 and x86-64)
	ClassAggregate       // a struct or union passed by value
)

func (c Class) String() string {
	switch c {
	case ClassVoid:
		return "void"
	case ClassInteger:
		return "integer"
	case ClassPointer:
		return "pointer"
	case ClassFloating:
		return "floating"
	case ClassAggregate:
		return "aggregate"
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// Kind is the shape of a Type.
type Kind uint8

const (
	Void Kind = iota
	Bool
	Char
	SChar
	UChar
	Short
	UShort
	Int
	UInt
	Long
	ULong
	LongLong
	ULongLong
	Int8
	UInt8
	Int16
	UInt16
	Int32
	UInt32
	Int64
	UInt64
	Float
	Double
	LongDouble
	Pointer  // Elem is the pointee
	Named    // a typedef of the C library (size_t, FILE, va_list…), resolved per ABI
	Struct   // struct Name, only ever used through a pointer unless known by value
	Union    // union Name
	Function // Sig is the signature; only ever the Elem of a Pointer
)

var basicNames = [...]string{
	Void: "void", Bool: "_Bool", Char: "char", SChar: "signed char", UChar: "unsigned char",
	Short: "short", UShort: "unsigned short", Int: "int", UInt: "unsigned int",
	Long: "long", ULong: "unsigned long", LongLong: "long long", ULongLong: "unsigned long long",
	Int8: "int8_t", UInt8: "uint8_t", Int16: "int16_t", UInt16: "uint16_t",
	Int32: "int32_t", UInt32: "uint32_t", Int64: "int64_t", UInt64: "uint64_t",
	Float: "float", Double: "double", LongDouble: "long double",
}

// Type is a C type. Types are values; the table's types share their Elem and
// Sig pointers, so callers must not modify what those point to.
type Type struct {
	Kind  Kind
	Const bool       // const-qualified at this level
	Name  string     // typedef name (Named) or tag (Struct, Union)
	Elem  *Type      // Pointer: the pointee
	Sig   *Signature // Function: parameters and result
}

// Signature is a function type's return type, parameters and variadic flag.
type Signature struct {
	Return   Type
	Params   []Param
	Variadic bool
}

// Param is one parameter of a function: its name in the table (the name the
// C standard or POSIX uses), type, and for flag or enumeration arguments the
// set of constants it takes.
type Param struct {
	Name   string
	Type   Type
	Consts *ConstSet // nil when the argument is not a known flag or enumeration
}

// PointerTo returns a pointer to t.
func PointerTo(t Type) Type { return Type{Kind: Pointer, Elem: &t} }

// IsVoid reports whether t is void.
func (t Type) IsVoid() bool { return t.Kind == Void }

// scalar is a Type resolved to something with a size: a basic kind, a
// pointer, or an aggregate of known (or unknown, 0) size.
type scalar struct {
	kind        Kind // a basic kind, Pointer, or Struct for aggregates
	size, align int
}

// resolve follows typedefs and answers the basic layout of t under abi.
func (t Type) resolve(abi ABI) scalar {
	switch t.Kind {
	case Named:
		td, ok := typedefs[t.Name]
		if !ok {
			return scalar{kind: Struct}
		}
		return td(abi)
	case Struct:
		if l, ok := byValueStructs[t.Name]; ok && abi < numABIs {
			return scalar{Struct, l[2*abi], l[2*abi+1]}
		}
		return scalar{kind: Struct}
	case Union, Function:
		return scalar{kind: Struct}
	}
	return basicScalar(t.Kind, abi)
}

func pointerSize(abi ABI) int {
	if abi.DataModel() == ILP32 {
		return 4
	}
	return 8
}

func basicSize(k Kind, abi ABI) int {
	switch k {
	case Void:
		return 0
	case Bool, Char, SChar, UChar, Int8, UInt8:
		return 1
	case Short, UShort, Int16, UInt16:
		return 2
	case Int, UInt, Int32, UInt32, Float:
		return 4
	case Long, ULong:
		if abi.DataModel() == LP64 {
			return 8
		}
		return 4
	case LongLong, ULongLong, Int64, UInt64, Double:
		return 8
	case LongDouble:
		switch abi {
		case Linux386:
			return 12 // x87 extended, 4-byte aligned
		case WindowsAMD64:
			return 8 // Microsoft's long double is double (MinGW's GCC differs: 16)
		}
		return 16 // x87 extended padded (x86-64), IEEE binary128 (arm64)
	}
	return 0
}

func basicAlign(k Kind, abi ABI, size int) int {
	if abi == Linux386 && (k == LongLong || k == ULongLong || k == Int64 || k == UInt64 || k == Double || k == LongDouble) {
		return 4 // i386 System V aligns 8-byte scalars to 4 inside structs
	}
	return size
}

// Size returns t's size in bytes under abi; 0 for void, functions and
// incomplete (opaque) types.
func (t Type) Size(abi ABI) int { return t.resolve(abi).size }

// Align returns t's alignment in bytes under abi, as a struct member; 0 where
// Size is 0.
func (t Type) Align(abi ABI) int { return t.resolve(abi).align }

// Class returns how a calling convention passes t under abi.
func (t Type) Class(abi ABI) Class {
	s := t.resolve(abi)
	switch s.kind {
	case Void:
		return ClassVoid
	case Pointer:
		return ClassPointer
	case Float, Double, LongDouble:
		return ClassFloating
	case Struct:
		return ClassAggregate
	}
	return ClassInteger
}

// Signed reports whether t is a signed integer type under abi (plain char is
// unsigned on arm64; wchar_t is unsigned on arm64 and Windows).
func (t Type) Signed(abi ABI) bool {
	switch k := t.resolve(abi).kind; k {
	case Char:
		return abi != LinuxARM64
	case SChar, Short, Int, Long, LongLong, Int8, Int16, Int32, Int64:
		return true
	}
	return false
}

// String returns t in C syntax, as it appears in a cast or an abstract
// declarator: "const char *", "int (*)(const void *, const void *)".
func (t Type) String() string { return t.Declare("") }

// Declare returns a C declaration of name with type t ("const char *path",
// "void (*handler)(int)"); name may be empty for an abstract declarator.
func (t Type) Declare(name string) string {
	// Build the declarator inside out: pointers prefix it, a function suffix
	// binds tighter than a pointer, so "(*name)" needs parentheses.
	decl := name
	cur := t
	for {
		switch cur.Kind {
		case Pointer:
			p := "*"
			if cur.Const {
				p = "* const"
				if decl != "" {
					p += " "
				}
			}
			decl = p + decl
			cur = *cur.Elem
			continue
		case Function:
			params := cur.Sig.paramList(false)
			if strings.HasPrefix(decl, "*") {
				decl = "(" + decl + ")"
			}
			decl += "(" + params + ")"
			cur = cur.Sig.Return
			continue
		}
		break
	}
	base := cur.baseName()
	if cur.Const {
		base = "const " + base
	}
	if decl == "" {
		return base
	}
	return base + " " + decl
}

func (t Type) baseName() string {
	switch t.Kind {
	case Named:
		return t.Name
	case Struct:
		return "struct " + t.Name
	case Union:
		return "union " + t.Name
	}
	if int(t.Kind) < len(basicNames) {
		return basicNames[t.Kind]
	}
	return fmt.Sprintf("/* kind %d */ int", t.Kind)
}

// paramList renders the parameters between a function's parentheses; names
// are included when withNames is set.
func (s *Signature) paramList(withNames bool) string {
	if len(s.Params) == 0 {
		if s.Variadic {
			return "..." // only valid in C23; the table never has it
		}
		return "void"
	}
	parts := make([]string, 0, len(s.Params)+1)
	for _, p := range s.Params {
		n := ""
		if withNames {
			n = p.Name
		}
		parts = append(parts, p.Type.Declare(n))
	}
	if s.Variadic {
		parts = append(parts, "...")
	}
	return strings.Join(parts, ", ")
}
