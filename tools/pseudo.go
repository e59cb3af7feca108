package tools

import (
	"context"
	"encoding/json"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/tools/catalog"
)

// Pseudo-code tools (kind provider, CONTRACTS.md §20): a procedure as C,
// paged by lines, and a search over every procedure's C.

func pseudoTools() []tool {
	return []tool{
		{catProcedurePseudoCode, (*Server).procedurePseudoCode},
		{catSearchPseudoCode, (*Server).operate},
	}
}

func catProcedurePseudoCode() catalog.Spec {
	count := catalog.Count
	return catProvider("procedure_pseudo_code", "Procedure pseudo-code",
		"A procedure as C, paged by line; address_map maps lines to instructions."+catalog.SampleText,
		"I", catalog.In(catalog.M{
			"procedure": catalog.ProcIn(), "document": catalog.DocIn(),
			"offset": catalog.OffsetIn(""), "limit": catalog.LimitIn(provider.MaxPseudoLines, provider.DefaultPseudoLines, ""),
		}, "procedure"),
		catalog.OutAll(catalog.M{
			"procedure": catalog.ProcRef(), "language": catalog.Const("c"), "prelude": catalog.String(), "code": catalog.String(),
			"lines": catalog.OutAll(catalog.M{"offset": count(), "limit": count(), "total": count(), "next_offset": catalog.Nullable(count())}),
			"address_map": catalog.List(catalog.OutAll(catalog.M{
				"line": count(), "ranges": catalog.List(catalog.Arr(catalog.AddrOut(), 2, 2)),
			})),
			"structure":   catalog.OutAll(catalog.M{"gotos": count(), "loops": count(), "switches": count(), "unresolved_indirect": count()}),
			"limitations": catalog.List(catalog.String()),
		}))
}

func catSearchPseudoCode() catalog.Spec {
	return catProvider("search_pseudo_code", "Search pseudo-code",
		"Search all procedures' C by substring or RE2."+catalog.SampleText,
		"I", catalog.In(catalog.M{
			"pattern":        catalog.Str(1, 256),
			"mode":           catalog.Def(catalog.Enum("literal", "regex"), "literal"),
			"case_sensitive": catalog.Def(catalog.Bool(), false),
			"offset":         catalog.OffsetIn(""),
			"limit":          catalog.LimitIn(provider.MaxPseudoSearch, 20, ""),
			"document":       catalog.DocIn(),
		}, "pattern"),
		catalog.PageOf(catalog.OutAll(catalog.M{"procedure": catalog.ProcRef(), "line": catalog.Count(), "text": catalog.String()})))
}

// procedurePseudoCode answers procedure_pseudo_code: the provider decompiles
// the procedure whole, the Evidence records the whole text under
// {procedure: entry}, and the caller is shown the page of lines asked for.
func (s *Server) procedurePseudoCode(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	const op = "procedure_pseudo_code"
	offset, limit, err := provider.PseudoWindow(op, in.Params)
	if err != nil {
		return nil, err
	}
	return sess.conn.OperateView(ctx, in.target, op, in.Params, rep, func(res provider.Result) (provider.Params, any, error) {
		b, err := json.Marshal(res.Normalized)
		if err != nil {
			return nil, nil, fault.Internal(op, err)
		}
		var whole provider.PseudoCode
		if err := json.Unmarshal(b, &whole); err != nil {
			return nil, nil, fault.Internal(op, err)
		}
		return provider.Params{"procedure": whole.Procedure.Address}, provider.PseudoView(whole, offset, limit), nil
	})
}
