package builtin

import (
	"context"
	"slices"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// The operations the built-in analyzer answers, one entry each: Do
// dispatches on it, Capabilities declares it, the registry asks it which
// indexes a call builds (index.go builtFor) and a result takes its target
// limitations from it (limitations.go). Adding an operation is one entry
// here and the file that implements it.

// opHandler answers one operation once Do has checked the document and the
// context.
type opHandler func(c *Client, ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error)

// opNeeds are the derived indexes an operation reads; a call whose indexes
// are built builds nothing (registry.enter).
type opNeeds uint8

const (
	needsSymbols opNeeds = 1 << iota
	needsStrings
	needsRefs
	needsLink
)

// opLimits says which indexes' limitations hold for an operation's whole
// target (Result.TargetLimitations): always the header model's, plus those
// named here.
type opLimits uint8

const (
	limitsImage          opLimits = iota // the header model's only
	limitsStrings                        // and the string index's
	limitsSymbols                        // and the symbol index's (with discoveryLimitations)
	limitsSymbolsAndRefs                 // and the symbol and reference indexes'
)

// builtinOp is one operation of the table.
type builtinOp struct {
	name string
	// do answers the operation; nil when the engine answers it (through
	// provider.Linker), so it is declared but never run by Do.
	do opHandler
	// maxLimit is the largest page limit; 0 for an operation that is not paged.
	maxLimit int64
	needs    opNeeds
	limits   opLimits
}

// builtinOps is the table, in the order Capabilities declares it (the
// order is part of the declared capabilities the engine records).
var builtinOps = []builtinOp{
	{provider.OpAddressName, (*Client).doProcOp, 0, needsSymbols, limitsSymbols},
	{provider.OpBinaryTriage, doTriageOp, 0, needsSymbols, limitsSymbols},
	{provider.OpListDependencies, doDependenciesOp, 0, needsSymbols, limitsImage},
	{provider.OpListDocuments, doDocuments, 0, needsSymbols, limitsImage},
	{provider.OpListNames, (*Client).doListing, provider.MaxPageResults, needsSymbols, limitsSymbols},
	{provider.OpListProcedures, (*Client).doListing, provider.MaxPageResults, needsSymbols, limitsSymbols},
	{provider.OpListSegments, doSegments, 0, needsSymbols, limitsImage},
	{provider.OpListStrings, (*Client).doListing, provider.MaxPageResults, needsStrings, limitsStrings},
	{provider.OpProcedureAddress, (*Client).doProcOp, 0, needsSymbols, limitsSymbols},
	{provider.OpProcedureCallees, (*Client).doRefOp, maxEdgeResults, needsSymbols | needsRefs, limitsSymbols},
	{provider.OpProcedureCallers, (*Client).doRefOp, maxEdgeResults, needsSymbols | needsRefs, limitsSymbolsAndRefs},
	{provider.OpProcedureCalls, (*Client).doProcedureCalls, provider.MaxPageResults, needsSymbols, limitsSymbols}, // calls.go
	{provider.OpProcedureAssembly, (*Client).doCodeOp, 0, needsSymbols, limitsSymbols},
	{provider.OpProcedurePseudoCode, (*Client).doProcedurePseudoCode, 0, needsSymbols, limitsSymbols}, // pseudo.go
	{provider.OpProcedureInfo, (*Client).doProcedureInfo, 0, needsSymbols, limitsSymbols},
	{provider.OpProcedureReferences, (*Client).doProcedureReferences, 0, needsSymbols, limitsSymbols}, // references.go
	{provider.OpReadBytes, (*Client).doBytes, 0, 0, limitsImage},                                      // bytes.go: the header model and the mapping only
	{provider.OpReadFunctionInstructions, (*Client).doCodeOp, provider.MaxPageResults, needsSymbols, limitsSymbols},
	{provider.OpResolveContaining, (*Client).doProcOp, 0, needsSymbols, limitsSymbols},
	{provider.OpResolveImport, nil, 0, needsLink, limitsSymbols}, // answered by the engine through provider.Linker (linker.go)
	{provider.OpSearchBytes, (*Client).doBytes, provider.MaxPageResults, needsSymbols, limitsSymbols},
	{provider.OpSearchProcedures, (*Client).doSearch, maxSearchResults, needsSymbols, limitsSymbols},
	{provider.OpSearchPseudoCode, (*Client).doSearchPseudoCode, provider.MaxPseudoSearch, needsSymbols, limitsSymbols}, // pseudo.go
	{provider.OpSearchStrings, (*Client).doSearch, maxSearchResults, needsStrings, limitsStrings},
	{provider.OpXrefs, (*Client).doRefOp, maxEdgeResults, needsSymbols | needsRefs, limitsSymbolsAndRefs},
}

// opsByName indexes builtinOps; it is never written after initialization.
var opsByName = func() map[string]*builtinOp {
	m := make(map[string]*builtinOp, len(builtinOps))
	for i := range builtinOps {
		m[builtinOps[i].name] = &builtinOps[i]
	}
	return m
}()

// lookupOp returns the table's entry of op.
func lookupOp(op string) (*builtinOp, bool) {
	o, ok := opsByName[op]
	return o, ok
}

func doDocuments(c *Client, _ context.Context, _ string, _ provider.Params, _ progress.Reporter) (provider.Result, error) {
	return provider.Result{Normalized: []string{c.doc}, Limitations: c.ix.img.limitations}, nil
}

func doSegments(c *Client, _ context.Context, _ string, _ provider.Params, _ progress.Reporter) (provider.Result, error) {
	return provider.Result{Normalized: c.segments(), Limitations: c.ix.img.limitations}, nil
}

func doDependenciesOp(c *Client, ctx context.Context, op string, _ provider.Params, _ progress.Reporter) (provider.Result, error) {
	return c.doDependencies(ctx, op)
}

func doTriageOp(c *Client, ctx context.Context, op string, _ provider.Params, rep progress.Reporter) (provider.Result, error) {
	return c.doTriage(ctx, op, rep)
}

// doListing answers list_names, list_procedures and list_strings: a page of
// the symbol or string index, at an address when one is given.
func (c *Client) doListing(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	offset, limit, err := provider.PageParams(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	var addr uint64
	var hasAddr bool
	if op != provider.OpListProcedures {
		a, ok, aerr := in.Address("address")
		if aerr != nil {
			return provider.Result{}, fault.Invalid(op, fault.Issue{Path: "/address", Reason: "invalid_format"})
		}
		addr, hasAddr = a, ok
	}
	switch op {
	case provider.OpListProcedures:
		f, err := provider.ProcedureFilterOf(op, in)
		if err != nil {
			return provider.Result{}, err
		}
		six, ex, err := c.extents(ctx, op, rep) // the extents classify jump thunks
		if err != nil {
			return provider.Result{}, err
		}
		lims := append(slices.Clip(c.ix.img.limitations), six.limitations...)
		n := c.namer(six)
		page, err := n.procedurePage(ctx, op, ex, f, offset, limit)
		if err != nil {
			return provider.Result{}, err
		}
		return provider.Result{Normalized: page, Limitations: append(lims, n.limitations()...)}, nil
	case provider.OpListNames:
		six, err := c.symbols(ctx, op, rep)
		if err != nil {
			return provider.Result{}, err
		}
		lims := append(slices.Clip(c.ix.img.limitations), six.limitations...)
		n := c.namer(six)
		page := n.namePage(addr, hasAddr, offset, limit)
		return provider.Result{Normalized: page, Limitations: append(lims, n.limitations()...)}, nil
	default: // OpListStrings
		stx, err := c.strings(ctx, op, rep)
		if err != nil {
			return provider.Result{}, err
		}
		lims := append(slices.Clip(c.ix.img.limitations), stx.limitations...)
		return provider.Result{Normalized: c.stringPage(stx, addr, hasAddr, offset, limit), Limitations: lims}, nil
	}
}
