package provider

import (
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/fault"
)

// ProcedureLookup is what a provider knows for resolving a procedure
// argument.
type ProcedureLookup struct {
	// ValidName rejects, before any lookup, a value that cannot be a name;
	// nil accepts every value.
	ValidName func(name string) bool
	// Named lists the entry addresses of the procedures with exactly this
	// name, sorted and without repeats.
	Named func(name string) []uint64
	// At resolves an address to the entry of the procedure that starts at or
	// contains it; ok is false when none does.
	At func(address uint64) (entry uint64, ok bool, err error)
	// User are the user's names, matched before the symbol names: a name
	// the user gave names what the user meant. Use, when set, records a
	// resolution through one.
	User *NameSet
	Use  *UserNameUse
}

// ResolveProcedure applies the procedure argument rule of CONTRACTS.md §2.1
// to in["procedure"]: a 0x/0X value is an address; any other value is an
// exact name (a user name first, then the symbol names, which stay
// accepted), and only when no procedure has that name and it is valid hex,
// an address. A name of several procedures is invalid_request with up to ten
// candidate addresses; an address resolves to the procedure containing it.
func ResolveProcedure(op string, in Params, l ProcedureLookup) (uint64, error) {
	v, ok := in.String("procedure")
	if !ok || v == "" {
		return 0, fault.Invalid(op, fault.Issue{Path: "/procedure", Reason: "missing_argument"})
	}
	isAddr := strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X")
	if !isAddr {
		// A user name names the procedure at or containing its address.
		var found []uint64
		for _, a := range l.User.Named(v) {
			entry, ok, err := l.At(a)
			if err != nil {
				return 0, err
			}
			if ok {
				found = append(found, entry)
			}
		}
		slices.Sort(found)
		found = slices.Compact(found)
		if len(found) > 0 && l.Use != nil {
			l.Use.resolved = true
		}
		if len(found) == 0 {
			if l.ValidName != nil && !l.ValidName(v) {
				return 0, fault.Invalid(op, fault.Issue{Path: "/procedure", Reason: "invalid_format",
					Message: "Not a procedure name or address."})
			}
			found = l.Named(v)
		}
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			cands := make([]string, 0, min(len(found), 10))
			for _, a := range found[:min(len(found), 10)] {
				cands = append(cands, FormatAddress(a))
			}
			f := fault.Invalid(op, fault.Issue{Path: "/procedure", Reason: "invalid_value",
				Message: "The name matches several procedures; pass one of the candidate addresses."})
			f.Details["candidates"] = cands
			return 0, f
		}
	}
	a, err := ParseAddress(v)
	if err != nil {
		if isAddr {
			return 0, fault.Invalid(op, fault.Issue{Path: "/procedure", Reason: "invalid_format"})
		}
		return 0, NotAProcedure(op)
	}
	entry, ok, err := l.At(a)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, NotAProcedure(op)
	}
	return entry, nil
}

// NotAProcedure is the failure of a procedure argument that names nothing.
func NotAProcedure(op string) error {
	return fault.Invalid(op, fault.Issue{Path: "/procedure", Reason: "invalid_value",
		Message: "No procedure has this name or contains this address; list_procedures and search_procedures list them."})
}
