package provider

import "github.com/rea-re/rea/engine/fault"

// Operation names of the provider contract (CONTRACTS.md §2.2, §15, §18).
// Every provider answers an operation under these names; the normalized
// result of each is the type named beside it (results.go, dependencies.go,
// triage.go), so two providers' answers to one operation encode alike.
//
// A new operation is: its name here, its result type and argument helpers
// in this package (as bytes.go for read_bytes), an entry in each provider's
// operation table and the file that answers it (builtin/optable.go), and
// one tool file in tools/ (as tools/bytes.go) whose family registry.go lists.
const (
	OpListDocuments  = "list_documents"  // []string
	OpListSegments   = "list_segments"   // []Segment
	OpListNames      = "list_names"      // Page[NameItem]
	OpListProcedures = "list_procedures" // Page[ProcedureItem]
	OpListStrings    = "list_strings"    // Page[StringItem]

	OpProcedureAddress  = "procedure_address"            // ProcRef
	OpAddressName       = "address_name"                 // Page[NameItem]
	OpResolveContaining = "resolve_containing_procedure" // ContainingResult

	OpReadFunctionInstructions = "read_function_instructions" // FunctionInstructions
	OpProcedureAssembly        = "procedure_assembly"         // text
	OpProcedureInfo            = "procedure_info"             // ProcedureInfoResult
	OpProcedureCallees         = "procedure_callees"          // Page[AddressItem]
	OpProcedureCallers         = "procedure_callers"          // Page[AddressItem]
	OpProcedureCalls           = "procedure_calls"            // Page[CallSite]
	OpProcedureReferences      = "procedure_references"       // References
	OpProcedurePseudoCode      = "procedure_pseudo_code"      // PseudoCode (pseudo.go)
	OpXrefs                    = "xrefs"                      // Page[AddressItem]
	OpSearchProcedures         = "search_procedures"          // Page[SearchItem]
	OpSearchStrings            = "search_strings"             // Page[SearchItem]
	OpSearchPseudoCode         = "search_pseudo_code"         // Page[PseudoLine] (pseudo.go)

	OpReadBytes   = "read_bytes"   // ReadBytesResult (bytes.go)
	OpSearchBytes = "search_bytes" // Page[BytesItem] (bytes.go)

	// OpListDependencies lists the load-time dependencies ([]Dependency).
	OpListDependencies = "list_dependencies"
	// OpResolveImport is answered by the engine through a Linker, never by
	// a provider's Do.
	OpResolveImport = "resolve_import"
	// OpBinaryTriage answers the triage section of binary_overview (Triage).
	OpBinaryTriage = "binary_triage"
)

// Bounds every provider applies to the paged operations.
const (
	// MaxPageResults is the largest limit of a paged operation.
	MaxPageResults   = 500
	defaultPageLimit = 100

	maxAssemblyInsns = 20000 // procedure_assembly returns a procedure whole up to this many instructions
	maxInsnOffset    = 100000
	defaultInsnLimit = 64
)

// PageParams validates a paged operation's offset and limit (defaults 0 and
// 100). An offset past 2^53 is clamped there: no listing is that long, and
// the value stays exact in JSON.
func PageParams(op string, in Params) (offset, limit int, err error) {
	o := in.Int("offset", 0)
	l := in.Int("limit", defaultPageLimit)
	if o < 0 {
		return 0, 0, fault.Invalid(op, fault.Issue{Path: "/offset", Reason: "out_of_range", Minimum: i64(0)})
	}
	if l < 1 || l > MaxPageResults {
		return 0, 0, fault.Invalid(op, fault.Issue{Path: "/limit", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(MaxPageResults)})
	}
	return int(min(o, 1<<53)), int(l), nil
}

// RequiredAddress reads the address argument an operation cannot do
// without (address_name, resolve_containing_procedure, xrefs).
func RequiredAddress(op string, in Params) (uint64, error) {
	a, ok, err := in.Address("address")
	if err != nil {
		return 0, fault.Invalid(op, fault.Issue{Path: "/address", Reason: "invalid_format"})
	}
	if !ok {
		return 0, fault.Invalid(op, fault.Issue{Path: "/address", Reason: "missing_argument"})
	}
	return a, nil
}

// InstructionWindow validates read_function_instructions' offset and limit;
// every provider that serves the operation applies the same bounds.
func InstructionWindow(op string, in Params) (offset, limit int, err error) {
	o, l := in.Int("offset", 0), in.Int("limit", defaultInsnLimit)
	if o < 0 || o > maxInsnOffset {
		return 0, 0, fault.Invalid(op, fault.Issue{Path: "/offset", Reason: "out_of_range", Minimum: i64(0), Maximum: i64(maxInsnOffset)})
	}
	if l < 1 || l > MaxPageResults {
		return 0, 0, fault.Invalid(op, fault.Issue{Path: "/limit", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(MaxPageResults)})
	}
	return int(o), int(l), nil
}

// AssemblyFits refuses, as truncated, a procedure_assembly of more
// instructions than the operation returns whole; every provider that serves
// it applies the same bound.
func AssemblyFits(op string, n int) error {
	if n <= maxAssemblyInsns {
		return nil
	}
	return fault.New(fault.Truncated, "The procedure has more instructions than procedure_assembly returns.",
		"Page through it with read_function_instructions.",
		map[string]any{"operation": op, "limit": "instructions", "maximum": int64(maxAssemblyInsns),
			"actual": int64(n), "truncated": true})
}

func i64(v int64) *int64 { return &v }
