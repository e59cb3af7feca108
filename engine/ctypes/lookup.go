package ctypes

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

// FormatKind says whether a function takes a format string and which
// family's conversions it reads.
type FormatKind uint8

const (
	FormatNone   FormatKind = iota
	FormatPrintf            // printf's conversions: the variadic arguments follow them
	FormatScanf             // scanf's conversions: the variadic arguments are pointers
)

// Func is one function of the table.
type Func struct {
	// Name is the function's C name (the canonical one when it was found
	// through an alias or a versioned symbol: fopen for fopen@GLIBC_2.2.5).
	Name string
	// Header is the header that declares Name under the feature set
	// FeatureDefines selects ("stdio.h"); empty when none does (glibc's
	// __*_chk fortify entry points, __libc_start_main, __stack_chk_fail):
	// a prelude then declares the function itself with Declaration.
	Header string
	Signature
	// NoReturn: the function never returns to its caller (exit, abort,
	// longjmp, __stack_chk_fail…), so a call to it ends a block.
	NoReturn bool
	// Format and FormatParam name the format-string parameter (printf's 0,
	// __printf_chk's 1); FormatParam is -1 when Format is FormatNone.
	Format      FormatKind
	FormatParam int
	// Optional are the arguments a variadic function reads through its
	// ellipsis when its other arguments ask for them: open's mode (with
	// O_CREAT or O_TMPFILE), sem_open's mode and value. They are not part
	// of the C type; a call passes them or not.
	Optional []Param

	checkHeader string // the header the tests check the declaration against
	fortify     bool   // declared there only under _FORTIFY_SOURCE
	platforms   int    // osLinux, osWindows
}

// FeatureDefines is what a translation unit defines before including the
// headers Func.Header names: the table's Linux declarations are checked
// under it (glibc declares pipe2, accept4, the *64 functions… only with it).
const FeatureDefines = "#define _GNU_SOURCE 1\n"

// TypeHeaders are the headers that define the typedefs the table's types
// name (size_t, int32_t, va_list, off64_t, pid_t…): a translation unit
// includes them before the headers Func.Header names or the declarations
// Func.Declaration writes.
var TypeHeaders = []string{"stddef.h", "stdint.h", "stdarg.h", "sys/types.h"}

// Declaration returns f's C declaration ("FILE *fopen(const char *pathname,
// const char *mode);"), compatible with the header's, so a prelude may write
// it whether or not it also includes Header.
func (f Func) Declaration() string {
	var b strings.Builder
	if f.NoReturn {
		b.WriteString("_Noreturn ")
	}
	fn := Type{Kind: Function, Sig: &f.Signature}
	// The name in parentheses: glibc and MinGW define some functions as
	// function-like macros too (isalnum, putc), which must not expand here.
	head := fn.Sig.Return.Declare("(" + f.Name + ")(" + f.Signature.paramList(true) + ")")
	b.WriteString(head)
	b.WriteString(";")
	return b.String()
}

// Type returns f's function type ("FILE *(const char *, const char *)").
func (f Func) Type() Type {
	sig := f.Signature
	return Type{Kind: Function, Sig: &sig}
}

// clone returns a copy of f whose Params the caller may modify.
func (f *Func) clone() Func {
	c := *f
	c.Params = slices.Clone(f.Params)
	c.Optional = slices.Clone(f.Optional)
	return c
}

//go:embed table.txt
var tableText string

var (
	loadOnce sync.Once
	loaded   *table
)

// theTable parses the embedded table once. The table is ours and its tests
// parse it, so a parse error is a build defect: it panics.
func theTable() *table {
	loadOnce.Do(func() {
		t, err := parseTable(tableText)
		if err != nil {
			panic(err)
		}
		loaded = t
	})
	return loaded
}

// Lookup returns the prototype of the function a symbol names on abi. It
// accepts the names binaries carry: versioned ELF symbols
// ("fopen@GLIBC_2.2.5", "fopen@@GLIBC_2.2.5"), PLT names ("puts@plt"), PE
// import thunks ("__imp_printf"), C99/C23 scanf entry points
// ("__isoc99_sscanf" is sscanf) and the table's aliases ("_IO_putc" is
// putc). Large-file names (fopen64, lseek64) are functions of their own,
// because their offsets are 64-bit where the plain ones are not (i386).
//
// The returned Func is the caller's: its Params may be modified.
func Lookup(symbol string, abi ABI) (Func, bool) {
	if abi >= numABIs {
		return Func{}, false
	}
	t := theTable()
	p := platformIndex(abi)
	name := symbol
	if i := strings.IndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	if abi.windows() {
		name = strings.TrimPrefix(name, "__imp_")
	}
	for range 2 {
		if f, ok := t.funcs[p][name]; ok {
			return f.clone(), true
		}
		if target, ok := t.aliases[p][name]; ok {
			return t.funcs[p][target].clone(), true
		}
		// glibc's scanf family: with C99 (and C23, glibc 2.38) semantics
		// the compiler calls __isoc99_sscanf for sscanf.
		stripped := strings.TrimPrefix(strings.TrimPrefix(name, "__isoc99_"), "__isoc23_")
		if stripped == name || abi.windows() {
			break
		}
		name = stripped
	}
	return Func{}, false
}

// Set returns the constant set the table calls name ("open_flags").
func Set(name string) (*ConstSet, bool) {
	s, ok := theTable().sets[name]
	return s, ok
}

// Funcs returns the names of the functions the table declares for abi,
// sorted.
func Funcs(abi ABI) []string {
	if abi >= numABIs {
		return nil
	}
	m := theTable().funcs[platformIndex(abi)]
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
