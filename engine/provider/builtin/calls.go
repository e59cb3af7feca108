package builtin

import (
	"context"
	"errors"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/signature"
)

// procedure_calls (CONTRACTS.md §19): the call sites of the lifted
// procedure (lifted.go) with their callees and argument values, sorted by
// address.

func (c *Client) doProcedureCalls(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	offset, limit, err := provider.PageParams(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	n, ex, entry, err := c.procedureOf(ctx, op, in, rep)
	if err != nil {
		return provider.Result{}, err
	}
	rep.Report(progress.Update{Phase: "index", Message: "lifting procedure"})
	lp, err := c.lifted(ctx, op, n.six, ex, entry)
	if err != nil {
		return provider.Result{}, err
	}
	calls, ok := unpackCalls(lp.calls)
	if !ok {
		return provider.Result{}, buildFault(op, errors.New("the lift cache's call sites do not unpack"))
	}
	items := []provider.CallSite{}
	for _, call := range calls {
		items = append(items, callSite(call, lp.resolved[call.Addr]))
	}
	lims := append(append([]string{}, c.ix.img.limitations...), lp.lims...)
	return provider.Result{Normalized: provider.PageOf(items, offset, limit), Limitations: append(lims, n.limitations()...)}, nil
}

func callSite(call signature.Call, resolved []uint64) provider.CallSite {
	cs := provider.CallSite{Address: provider.FormatAddress(call.Addr), Callee: provider.CallTo{Kind: call.Callee.Kind},
		Arguments: make([]provider.CallArg, 0, len(call.Args)), ResolvedTargets: make([]string, 0, len(resolved))}
	if call.Callee.HasAddress {
		a := provider.FormatAddress(call.Callee.Address)
		cs.Callee.Address = &a
	}
	if call.Callee.Name != "" {
		name := call.Callee.Name
		cs.Callee.Name = &name
	}
	for _, a := range call.Args {
		v := provider.ArgValue{Kind: a.Value.Kind, Text: a.Value.Text}
		if a.Value.HasInt {
			n := a.Value.Integer
			v.Integer = &n
		}
		if a.Value.Kind == signature.KindString {
			s := a.Value.String
			v.String = &s
		}
		if a.Value.HasAddr {
			s := provider.FormatAddress(a.Value.Address)
			v.Address = &s
		}
		cs.Arguments = append(cs.Arguments, provider.CallArg{Index: a.Index, Storage: a.Storage, Value: v})
	}
	for _, t := range resolved {
		cs.ResolvedTargets = append(cs.ResolvedTargets, provider.FormatAddress(t))
	}
	return cs
}
