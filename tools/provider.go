package tools

import (
	"context"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/tools/catalog"
)

// Provider operations (kind provider, CONTRACTS.md §2.2): each needs an open
// executable target and a bound provider that declares the operation, and
// every answer is recorded as Evidence.

// catProvider builds a provider tool spec; the tool requires itself.
func catProvider(name, title, desc, eff string, input, result catalog.M) catalog.Spec {
	return catalog.Spec{
		Name:               name,
		Title:              title,
		Description:        desc,
		Kind:               "provider",
		Effects:            catalog.Effects(eff),
		Evidence:           true,
		Input:              input,
		Result:             result,
		RequiredOperations: []string{name},
	}
}

// catCursorAddress describes an address argument that defaults to the
// cursor: nothing, since the server instructions say once that an omitted
// address means the cursor.
const catCursorAddress = ""

// catAddressItem is a named address (§0): name null when the address has
// none, procedure null outside every known procedure.
func catAddressItem() catalog.M {
	return catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.Nullable(catalog.String()), "procedure": catalog.Nullable(catalog.ProcRef())})
}

func catSearch(name, title, what string) catalog.Spec {
	return catProvider(name, title,
		"Search "+what+" by substring or RE2 expression."+catalog.SampleText,
		"I", catalog.In(catalog.M{
			"pattern":        catalog.Str(1, 256),
			"mode":           catalog.Def(catalog.Enum("literal", "regex"), "literal"),
			"case_sensitive": catalog.Def(catalog.Bool(), false),
			"offset":         catalog.OffsetIn(""),
			"limit":          catalog.LimitIn(100, 100, ""),
			"document":       catalog.DocIn(),
		}, "pattern"),
		catalog.PageOf(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "value": catalog.String(), "value_truncated": catalog.Bool(),
			"procedure": catalog.Nullable(catalog.ProcRef())})))
}

// catAnnotationNote: annotations live in the ledger, not in the provider;
// the server instructions say once that every connection on the same bytes
// sees them.
const catAnnotationNote = ""

// operate answers a provider tool: the operation of the same name on the
// call's target, recorded as Evidence.
func (s *Server) operate(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	return sess.conn.Operate(ctx, in.target, in.tool, in.Params, rep)
}
