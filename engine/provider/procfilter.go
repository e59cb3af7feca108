package provider

import "github.com/rea-re/rea/engine/fault"

// ProcedureFilter is list_procedures' filters (CONTRACTS.md §0.3); the zero
// value lists every procedure. A filtered listing pages (and counts, in
// total) the procedures that pass every filter set, in address order.
//
//   - NamedOnly keeps a procedure with a name from the binary (any symbol
//     table, import or stub name, a Go pclntab) or from the user; names an
//     analysis made up ("sub_<hex>", "entry", a main found from the start
//     code) do not count.
//   - ExcludeThunks drops the procedures whose item says thunk:true.
//   - MinLength keeps a procedure whose length (procedure_info's: its known
//     extent, else the span recursive descent finds) is at least this.
type ProcedureFilter struct {
	NamedOnly     bool
	ExcludeThunks bool
	MinLength     uint64
}

// Active reports whether any filter is set.
func (f ProcedureFilter) Active() bool { return f.NamedOnly || f.ExcludeThunks || f.MinLength > 0 }

// ProcedureFilterOf reads list_procedures' filters from its arguments.
func ProcedureFilterOf(op string, in Params) (ProcedureFilter, error) {
	m := in.Int("min_length", 0)
	if m < 0 {
		return ProcedureFilter{}, fault.Invalid(op, fault.Issue{Path: "/min_length", Reason: "out_of_range", Minimum: i64(0)})
	}
	return ProcedureFilter{NamedOnly: in.Bool("named_only", false), ExcludeThunks: in.Bool("exclude_thunks", false),
		MinLength: uint64(m)}, nil
}
