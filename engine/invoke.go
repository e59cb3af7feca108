package engine

import (
	"context"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/session"
	"maps"
	"slices"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// The operations as tools call them: one provider operation, or a composed
// tool, on an admitted target, answered by the engine itself
// (annotations.go) or through the provider (operate.go), and published.

// Operate runs one provider operation on the target ("" = the active one)
// through its bound provider and publishes its Evidence. params are the
// validated tool input after defaults (they become the record's parameters
// verbatim).
func (c *Connection) Operate(ctx context.Context, target, op string, params provider.Params, rep progress.Reporter) (Published, error) {
	o, release, err := c.bound(ctx, op, target)
	if err != nil {
		return Published{}, err
	}
	defer release()
	res, err := c.invoke(ctx, o, op, params, rep)
	if err != nil {
		return Published{}, err
	}
	return c.publishResult(ctx, o, op, params, evidence.ConfidenceObserved, res)
}

// Caller runs one provider operation inside a composed tool, without
// publishing Evidence for it.
type Caller func(op string, params provider.Params) (provider.Result, error)

// Compose runs a composed tool (§2.3): fn calls provider operations through
// call, and its answer is published as derived Evidence of the bound provider.
func (c *Connection) Compose(ctx context.Context, target, op string, params provider.Params, rep progress.Reporter, fn func(call Caller) (provider.Result, error)) (Published, error) {
	o, release, err := c.bound(ctx, op, target)
	if err != nil {
		return Published{}, err
	}
	defer release()
	var limits []string // the inner calls' TargetLimitations, in order of first appearance
	res, err := fn(func(inner string, p provider.Params) (provider.Result, error) {
		if _, declared := findCapability(o.Binding().Operations(), inner); !declared {
			return provider.Result{}, c.missingOperation(o, op)
		}
		r, err := c.invoke(ctx, o, inner, p, rep)
		limits = appendNew(limits, r.TargetLimitations...)
		return r, err
	})
	if err != nil {
		return Published{}, err
	}
	res.TargetLimitations = appendNew(slices.Clip(res.TargetLimitations), limits...)
	return c.publishResult(ctx, o, op, params, evidence.ConfidenceDerived, res)
}

// invoke checks the operation is declared and healthy, then answers it: the
// engine's own operations here, the rest through the provider.
func (c *Connection) invoke(ctx context.Context, o *session.Target, op string, params provider.Params, rep progress.Reporter) (provider.Result, error) {
	capability, declared := findCapability(o.Binding().Impl().Capabilities(), op)
	if !declared {
		if _, own := engineOperations[op]; own {
			return c.answerLocally(ctx, o, op, params)
		}
		return provider.Result{}, c.missingOperation(o, op)
	}
	if err := c.unavailable(o, op); err != nil {
		return provider.Result{}, err
	}
	if !cursorDefaulted[op] {
		return c.call(ctx, o, capability, params, rep)
	}
	// An absent address means the cursor. The provider is asked with it; the
	// Evidence parameters keep the caller's (the cursor is never substituted
	// there) and its locations record the address observed.
	addr := c.addressOrCursor(o, params)
	asked := maps.Clone(params)
	asked["address"] = addr
	res, err := c.call(ctx, o, capability, asked, rep)
	if err != nil {
		return res, err
	}
	res.Locations = append(res.Locations, cursorLocation(params, addr)...)
	if _, shows := o.Client().(provider.UserNames); op == "address_name" && !shows {
		return c.withUserName(ctx, o, addr, res)
	}
	return res, nil
}

// cursorDefaulted are the provider operations whose optional address means
// the cursor (CONTRACTS.md §2.2).
var cursorDefaulted = map[string]bool{"address_name": true, "xrefs": true}
