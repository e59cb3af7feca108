package engine

import (
	"context"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// View is how OperateView pages an answer: record are the Evidence
// parameters of the whole answer, page what the caller is shown of it.
type View func(whole provider.Result) (record provider.Params, page any, err error)

// OperateView runs one provider operation whose answer the provider gives
// whole and the tool pages (CONTRACTS.md §20, "paging is a view"): the
// whole answer is published as derived Evidence under the parameters view
// names, so every page of it cites one record (the same evidence_id for
// the same bytes, whatever the page), and the caller gets view's page.
func (c *Connection) OperateView(ctx context.Context, target, op string, params provider.Params, rep progress.Reporter, view View) (Published, error) {
	o, release, err := c.bound(ctx, op, target)
	if err != nil {
		return Published{}, err
	}
	defer release()
	res, err := c.invoke(ctx, o, op, params, rep)
	if err != nil {
		return Published{}, err
	}
	record, page, err := view(res)
	if err != nil {
		return Published{}, err
	}
	pub, err := c.publishResult(ctx, o, op, record, evidence.ConfidenceDerived, res)
	if err != nil {
		return Published{}, err
	}
	if pub.Result, err = canon.Marshal(page); err != nil {
		return Published{}, fault.Internal(op, err)
	}
	return pub, nil
}
