package builtin

import (
	"slices"
)

// Discovery sources a format has that the built-in analyzer does not read
// (issue 13: honest limitations). Procedure discovery is only as complete as
// its sources, so when an image has a source that is not read, the symbol
// index carries a limitation saying so, and with it the Evidence of every
// operation that depends on procedure discovery (list_procedures,
// list_names, procedure_address, address_name, resolve_containing_procedure,
// procedure_info, procedure_assembly, read_function_instructions,
// procedure_callees, procedure_callers, xrefs, search_procedures); string and
// segment listings do not depend on it and do not carry them.
//
// This table is the one place such gaps are listed. Whoever teaches the
// analyzer to read a source deletes its entry here and its case in
// limitations_test.go. An entry with a read name is also silent whenever
// that name is in the image's function_discovery, so a reader that records
// itself there retires the entry even before it is deleted.
type unreadSource struct {
	id   string // names the entry (limitations_test.go)
	read string // the function_discovery name that reading the source adds; "" if none
	has  func(img *image, six *symIndex) bool
	text string
}

var unreadSources = []unreadSource{
	{id: "pe-arm64-pdata", read: "pdata", text: "ARM64 .pdata not read: procedure starts come from symbols, exports, imports and the entry point only",
		has: func(img *image, _ *symIndex) bool { return peHasExceptions(img, "arm64") }},
	{id: "pe-call-targets", read: "call-targets", text: "calls are not followed to find procedures (call-target discovery runs only for x86-64 PE with .pdata): a procedure that no symbol, export or .pdata entry names is missed",
		has: func(img *image, _ *symIndex) bool { return img.pe != nil && hasCode(img) }},
	{id: "macho-unwind-info", read: "function-starts", text: "Mach-O compact unwind (__unwind_info) not read: without LC_FUNCTION_STARTS, procedure starts come from symbols, stubs and the entry point only",
		has: func(img *image, _ *symIndex) bool { return img.macho != nil && hasSection(img, "__TEXT,__unwind_info") }},
}

// discoveryLimitations are the unreadSources limitations of an image.
func discoveryLimitations(img *image, six *symIndex) []string {
	var out []string
	for _, u := range unreadSources {
		if (u.read == "" || !slices.Contains(img.discovery, u.read)) && u.has(img, six) {
			out = append(out, u.text)
		}
	}
	return out
}

// peHasExceptions reports whether a PE of arch has an exception directory.
func peHasExceptions(img *image, arch string) bool {
	return img.pe != nil && img.arch == arch && img.pe.exceptDir[0] != 0 && img.pe.exceptDir[1] != 0
}

// hasSection reports whether a section of that name has file-backed bytes.
func hasSection(img *image, name string) bool {
	return slices.ContainsFunc(img.sections, func(s section) bool { return s.name == name && s.fsize > 0 })
}

// hasCode reports whether an executable section has file-backed bytes.
func hasCode(img *image) bool {
	return slices.ContainsFunc(img.sections, func(s section) bool { return s.x && s.mapped && s.fsize > 0 })
}

// targetLimitations are the Result.TargetLimitations of op: the limitations
// of the indexes it reads (the header model's; the symbol index's, which
// include discoveryLimitations; the string index's; the reference index's),
// which hold for the whole target. They are already among the call's
// Limitations; the engine carries them into composed operations.
func (c *Client) targetLimitations(op string) []string {
	lims := slices.Clip(c.ix.img.limitations)
	policy := limitsSymbols
	if o, ok := lookupOp(op); ok {
		policy = o.limits // optable.go
	}
	switch policy {
	case limitsImage:
		return lims
	case limitsStrings:
		if stx, ok := c.ix.strs.peek(); ok && stx != nil {
			lims = append(lims, stx.limitations...)
		}
		return lims
	}
	if six, ok := c.ix.syms.peek(); ok && six != nil {
		lims = append(lims, six.limitations...)
	}
	if policy == limitsSymbolsAndRefs {
		if rx, ok := c.ix.refs.peek(); ok && rx != nil {
			lims = append(lims, rx.limitations...)
		}
	}
	return lims
}
