package provider

import "context"

// Linker is implemented by clients that can answer the dynamic loader's
// questions about their own target (CONTRACTS.md §15.4). It answers for one
// target only: which library defines an import, and whether another open
// target exports it, are the engine's to decide by asking each target's
// Linker. Failures are *fault.Error values (invalid_request for a malformed
// query, cancelled, provider_unavailable on a closed client); damage in the
// file is a limitation of the answer, never a failure.
type Linker interface {
	// LibraryName is the name other images' dependencies use for this
	// target: ELF DT_SONAME, PE file name (basename of the path), Mach-O
	// LC_ID_DYLIB install name; "" when it has none (an executable without
	// soname).
	LibraryName(ctx context.Context) (string, error)
	// Import describes one imported symbol of this target, found by name or
	// by address (an ELF PLT stub or GOT slot, a PE IAT slot or `jmp [iat]`
	// thunk, a Mach-O stub or symbol pointer). NotAnImport is true when it
	// is not one.
	Import(ctx context.Context, q ImportQuery) (Import, error)
	// Export looks a symbol up among this target's exports the way the
	// loader would.
	Export(ctx context.Context, q ExportQuery) (Export, error)
}

// ImportQuery names an import: exactly one of Name and Address is set.
// Name is as a caller writes it: ELF "printf" or "printf@GLIBC_2.2.5"
// (split on the first '@'); PE "ExitProcess", "KERNEL32.dll!ExitProcess",
// "#12" or "KERNEL32.dll!#12" for an ordinal; Mach-O "_printf" or
// "printf". Address is "0x…" like every provider parameter.
type ImportQuery struct {
	Name    string
	Address string
}

// Lookup values: how the loader finds an import's definition.
const (
	LookupLibrary        = "library"         // in Library (ELF: the version's DT_VERNEED file; PE: the DLL; Mach-O: the ordinal's dylib)
	LookupSearch         = "search"          // in SearchOrder, first definition wins (ELF unversioned, Mach-O flat or weak lookup)
	LookupSelf           = "self"            // in this image itself (Mach-O SELF_LIBRARY_ORDINAL)
	LookupMainExecutable = "main_executable" // in the main executable of the process (Mach-O EXECUTABLE_ORDINAL)
)

// Import is one imported symbol. An ELF executable's copy relocation is
// an import too (its data is copied from the library; Address is the copy).
type Import struct {
	NotAnImport bool
	Name        string  // as imported: ELF without version; PE the name, "" for an ordinal import; Mach-O with its underscore
	Version     *string // ELF: the vernaux name (GLIBC_2.2.5); nil if unversioned
	Library     *string // ELF: the DT_VERNEED file of the version; PE: the DLL; Mach-O: the ordinal's install name; nil otherwise
	Address     *string // the import's stub (PLT, thunk, stub) if it has one, else its slot
	Ordinal     *int    // PE import by ordinal
	// SearchOrder is where the loader looks when Lookup is LookupSearch
	// (ELF: DT_NEEDED in order; Mach-O: every dylib command in order);
	// nil otherwise.
	SearchOrder []string
	// Weak: the loader leaves the import null when nothing defines it (ELF
	// STB_WEAK, Mach-O weak import or a weak dylib's import).
	Weak bool
	// Lookup is one of the Lookup* values ("" when NotAnImport).
	Lookup string
	// Ambiguous is true when the name as given matches imports bound to
	// different libraries (a PE name imported from two DLLs, a Mach-O name
	// from two dylibs): the answer describes the first in load-command
	// order, and the caller must qualify the name or give an address.
	Ambiguous   bool
	Limitations []string
}

// ExportQuery names an export: Name, with Version for an ELF versioned
// lookup, or Ordinal (PE only).
type ExportQuery struct {
	Name    string
	Version *string
	Ordinal *int
}

// Export is the answer of an export lookup.
type Export struct {
	Found     bool
	Address   string     // "0x…" of the definition; "" for a forwarder
	Name      string     // the display name at Address, as list_procedures names it
	Version   *string    // the ELF version definition it matched
	Forwarder *Forwarder // PE forwarder, Mach-O re-export: the loader continues in another library
	// Limitations say what the lookup could not read (a damaged table) or
	// how its answer may differ from the loader's.
	Limitations []string
}

// Forwarder is where a forwarded export continues: a PE forwarder
// ("NTDLL.RtlAllocateHeap", "NTDLL.#5") with Library written as in the
// file plus ".dll" when it has no extension, or a Mach-O re-export with
// Library the install name of its dylib ordinal.
type Forwarder struct {
	Library string
	Name    string
	Ordinal *int
}
