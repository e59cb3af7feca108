package engine

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// Published is an Evidence-producing call's answer: the normalized result and
// the inline Evidence context naming the event this call appended.
type Published struct {
	Result   json.RawMessage
	Evidence evidence.Context
}

// bound admits a call on the open, bound target ref names ("" = active),
// or returns the typed failure of §5.4 / §15.1. release ends the admission.
func (c *Connection) bound(ctx context.Context, op, ref string) (o *session.Target, release func(), err error) {
	o, release, err = c.Admit(op, ref)
	if err != nil {
		return nil, nil, err
	}
	if o.Binding() == nil {
		release()
		return nil, nil, c.sc.RecordSelectionFailure(ctx, c.unboundFailure(o, op))
	}
	return o, release, nil
}

func (c *Connection) missingOperation(o *session.Target, op string) *fault.Error {
	return fault.New(fault.CapabilityUnavailable, "The bound provider does not offer this operation.",
		"Reopen the target with a provider that offers it (provider_id, --provider or REA_ANALYSIS_PROVIDER).",
		map[string]any{"operation": op, "availability_reason": "provider_missing", "provider_id": o.Binding().Provider.ID})
}

// unavailable is provider_unavailable once o's provider was found unhealthy.
func (c *Connection) unavailable(o *session.Target, op string) error {
	if reason, bad := c.sc.Unhealthy(o, op); bad {
		return fault.New(fault.ProviderUnavailable, "The provider became unavailable during this session.",
			"Reopen the target to restart the provider, and run `rea doctor`.",
			map[string]any{"operation": op, "provider_id": o.Binding().Provider.ID, "reason": reason})
	}
	return nil
}

// invokeFunc runs fn as a call of the provider operation op on o, as
// invoke runs the provider's Do: declared, healthy, in the target's request
// queue and timeout. The comparison reads the builtin's instructions this
// way (compare.InstructionSource).
func (c *Connection) invokeFunc(ctx context.Context, o *session.Target, op string, fn func(context.Context) error) error {
	capability, declared := findCapability(o.Binding().Impl().Capabilities(), op)
	if !declared {
		return c.missingOperation(o, op)
	}
	if err := c.unavailable(o, op); err != nil {
		return err
	}
	_, err := c.queued(ctx, o, capability, func(ctx context.Context) (res provider.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fault.Internal(op, errors.New("provider panic"))
			}
		}()
		return provider.Result{}, fn(ctx)
	})
	return err
}

func (c *Connection) publishResult(ctx context.Context, o *session.Target, op string, params provider.Params, confidence string, res provider.Result) (Published, error) {
	rec := &evidence.Record{SchemaVersion: 2, Subject: subjectOf(o.Target()), Claim: evidence.Claim{
		Provider: o.Binding().Provider, AnalysisProfile: &o.Binding().Profile,
		PredicateType: evidence.PredicateAnalysis, Operation: op, Parameters: params,
		Confidence: confidence, Authority: evidence.AuthorityShipped,
		Limitations: appendNew(slices.Clip(res.Limitations), res.TargetLimitations...), Locations: locationsOf(params, res.Locations),
	}}
	var err error
	if rec.NormalizedResult, err = canon.Marshal(res.Normalized); err != nil {
		return Published{}, fault.Internal(op, err)
	}
	if remedy, whole := unpagedResults[op]; whole && len(rec.NormalizedResult) > provider.ResultBudget {
		return Published{}, fault.New(fault.Truncated, "The answer would exceed its byte budget.", remedy,
			map[string]any{"operation": op, "limit": "bytes", "maximum": int64(provider.ResultBudget),
				"actual": int64(len(rec.NormalizedResult)), "truncated": true})
	}
	if res.Raw != nil {
		if rec.RawResult, err = canon.Marshal(res.Raw); err != nil {
			return Published{}, fault.Internal(op, err)
		}
	}
	return c.publish(ctx, rec, o, "tool")
}

// unpagedResults are the operations whose answer is one value that cannot
// be cut into pages, with the remediation of the truncated failure they
// give instead of an answer over the byte budget (CONTRACTS.md §1.4: never
// a prefix labelled complete).
var unpagedResults = map[string]string{
	"procedure_assembly": "Page through the procedure with read_function_instructions.",
}

// call runs the operation through the client's FIFO queue under the
// operation's own budget, keeping cancellation and timeout distinct (§6.4).
func (c *Connection) call(ctx context.Context, o *session.Target, capability provider.Capability, params provider.Params, rep progress.Reporter) (provider.Result, error) {
	return c.queued(ctx, o, capability, func(ctx context.Context) (provider.Result, error) {
		return safeDo(ctx, o.Client(), capability.Operation, params, rep)
	})
}

// queued runs do as one call of the capability's operation: in the
// target's request queue, under the operation's timeout, its failure
// observed for the provider's health. The caller gets cancelled or
// provider_timeout as soon as its context ends or the budget elapses, even
// when the provider does not observe its context (session.Target.Run).
func (c *Connection) queued(ctx context.Context, o *session.Target, capability provider.Capability, do func(ctx context.Context) (provider.Result, error)) (provider.Result, error) {
	op := capability.Operation
	var timeout time.Duration
	if capability.Limits.TimeoutMS != nil {
		timeout = time.Duration(*capability.Limits.TimeoutMS) * time.Millisecond
	}
	var res provider.Result
	var err error
	var shareErr error
	var timedOut bool
	if qerr := o.Run(ctx, op, timeout, func(callCtx context.Context) {
		if shareErr = c.shareUserNames(callCtx, o, op); shareErr != nil {
			return
		}
		res, err = do(callCtx)
		timedOut = errors.Is(callCtx.Err(), context.DeadlineExceeded)
	}); qerr != nil {
		return provider.Result{}, qerr
	}
	switch {
	case shareErr != nil:
		return provider.Result{}, shareErr
	case ctx.Err() != nil:
		return provider.Result{}, fault.CancelledError(op).WithCause(ctx.Err())
	case timedOut:
		return provider.Result{}, session.TimeoutError(op, timeout)
	case err != nil:
		fe := fault.From(op, err)
		c.sc.ObserveHealth(ctx, o, op, fe)
		return provider.Result{}, fe
	}
	c.sc.ObserveHealth(ctx, o, op, nil)
	return res, nil
}

// safeDo converts a provider panic into execution_failure: bad input must never
// take the server down.
func safeDo(ctx context.Context, client provider.Client, op string, params provider.Params, rep progress.Reporter) (res provider.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = provider.Result{}, fault.Internal(op, errors.New("provider panic"))
		}
	}()
	return client.Do(ctx, op, params, progress.OrNop(rep))
}

// unboundFailure is §5.4: an operation on an unbound target.
func (c *Connection) unboundFailure(o *session.Target, op string) *provider.SelectionFailure {
	reason := provider.ReasonTargetUnsupported
	var rej []provider.Rejection
	for _, p := range c.eng.cfg.Registry.Providers() {
		s := p.Support(o.Target())
		if s.Status == "supported" {
			reason = provider.ReasonProviderUnavailable
		}
		if s.Status == "unsupported" {
			rej = append(rej, provider.Rejection{ProviderID: p.Identity().ID, Code: *s.Code, Reason: *s.Reason, Diagnostics: map[string]any{}})
		}
	}
	if rej == nil {
		rej = []provider.Rejection{}
	}
	req := "auto"
	if o.Requested() != nil {
		req = *o.Requested()
	}
	return &provider.SelectionFailure{Operation: op, SelectionReason: reason, RequestedProviderID: req,
		CandidateIDs: c.eng.cfg.Registry.IDs(), Rejections: rej}
}

// appendNew appends to dst each of add that it does not hold yet.
func appendNew(dst []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(dst, a) {
			dst = append(dst, a)
		}
	}
	return dst
}

func findCapability(cs []provider.Capability, op string) (provider.Capability, bool) {
	i := slices.IndexFunc(cs, func(c provider.Capability) bool { return c.Operation == op })
	if i < 0 {
		return provider.Capability{}, false
	}
	return cs[i], true
}

// DocumentName is the builtin document name of a target (its basename).
func DocumentName(t provider.Target) string { return filepath.Base(t.Path) }

func subjectOf(t provider.Target) *evidence.Subject {
	return &evidence.Subject{Name: DocumentName(t), Digest: evidence.Digest{SHA256: t.SHA256}, Format: t.Format,
		Architecture: session.TargetRecord(t).Architecture, LocalPath: t.Path}
}

// locationsOf records the normalized input address (§7.1) before any the
// provider adds.
func locationsOf(params provider.Params, extra []provider.Location) []provider.Location {
	var out []provider.Location
	if a, ok := params.String("address"); ok {
		out = append(out, provider.Location{Kind: "address", Address: a})
	}
	return append(out, extra...)
}

// publish records a sealed-or-unsealed record: verify the id, store the body
// (once), and append evidence_recorded in one transaction whose last act is the
// cancellation check, so a cancelled request never publishes (§6.6).
func (c *Connection) publish(ctx context.Context, rec *evidence.Record, o *session.Target, origin string) (Published, error) {
	return c.publishWith(ctx, rec, o, origin, nil)
}

// publishWith is publish with extra events of the connection's stream, built
// once the evidence id is known, appended before evidence_recorded in the
// same transaction: they and the Evidence commit together or not at all.
func (c *Connection) publishWith(ctx context.Context, rec *evidence.Record, o *session.Target, origin string, extra func(evidenceID string) []ledger.NewEvent) (Published, error) {
	op := rec.Operation
	if err := ctx.Err(); err != nil {
		return Published{}, fault.CancelledError(op).WithCause(err)
	}
	if err := rec.Seal(); err != nil {
		return Published{}, fault.Internal(op, err)
	}
	var evs []ledger.NewEvent
	if extra != nil {
		evs = extra(rec.EvidenceID)
	}
	body, err := rec.Canonical()
	if err != nil {
		return Published{}, fault.Internal(op, err)
	}
	blob := ledger.PrepareBlob(body)
	digest := blob.Key
	recorded := func(digest string, isNew bool) ledger.NewEvent {
		data := events.EvidenceRecordedData{ConnectionID: c.ID(),
			EvidenceID: rec.EvidenceID, Operation: op, PredicateType: rec.PredicateType, RecordDigest: digest, New: isNew, Origin: origin}
		if o == nil {
			return c.eng.event(events.EvidenceRecorded, data)
		}
		runID := o.RunID()
		data.RunID, data.TargetID = &runID, o.ID()
		return c.eng.targetEvent(events.EvidenceRecorded, data)
	}
	// The common case is a record never published before: check that
	// inside the append's own transaction, which saves a read-pool round
	// trip per publication, and only on a repeat roll back and publish the
	// stored record instead. The lookup's statements are prepared before the
	// transaction: preparing on the writer connection from inside its own
	// transaction would wait for itself.
	lookup, err := c.eng.lookups(ctx)
	if err != nil {
		return Published{}, fault.From(op, err)
	}
	stored, err := c.eng.appendEvents(ctx, c.sc.Stream(), -1, append(slices.Clip(evs), recorded(digest, true)), func(tx *sql.Tx) error {
		if _, exists, err := lookup.DigestIn(ctx, tx, rec.EvidenceID); err != nil || exists {
			return cmp.Or(err, errEvidenceStored)
		}
		return c.eng.cfg.Ledger.PutPreparedBlob(tx, blob)
	})
	shown := rec
	if errors.Is(err, errEvidenceStored) {
		storedDigest, _, err := c.eng.evidenceDigest(ctx, rec.EvidenceID)
		if err != nil {
			return Published{}, fault.From(op, err)
		}
		if shown, err = c.eng.loadRecord(ctx, op, storedDigest); err != nil {
			return Published{}, err
		}
		stored, err = c.eng.appendEvents(ctx, c.sc.Stream(), -1, append(evs, recorded(storedDigest, false)), nil)
		if err != nil {
			return Published{}, err
		}
	} else if err != nil {
		return Published{}, err
	}
	last := stored[len(stored)-1]
	return Published{Result: shown.NormalizedResult, Evidence: evidence.ContextOf(shown, evidence.LedgerRef{Seq: last.Seq, EventID: last.ID.String()})}, nil
}

// errEvidenceStored rolls back a publication whose record is already
// stored.
var errEvidenceStored = errors.New("engine: evidence record already stored")

// loadRecord reads a stored record body for op and re-verifies its id.
// Only a body the ledger does not hold is a missing record: a read that
// failed because the request was cancelled is cancelled (the driver's error
// need not wrap context.Canceled, so ctx itself is asked), and a storage
// failure is ledger_unavailable; either is retryable, a missing record is
// not.
func (e *Engine) loadRecord(ctx context.Context, op, digest string) (*evidence.Record, error) {
	body, err := e.cfg.Ledger.Blob(ctx, digest)
	switch {
	case err == nil:
		return evidence.FromBlob(digest, body)
	case ctx.Err() != nil:
		return nil, fault.CancelledError(op).WithCause(err)
	case errors.Is(err, ledger.ErrNotFound):
		return nil, fault.New(fault.EvidenceIntegrityMismatch, "A stored Evidence record is missing.", "Run `rea ledger verify`.",
			map[string]any{"evidence_id": nil, "reason": "missing"}).WithCause(err)
	default:
		return nil, fault.From(op, err)
	}
}

// Annotation kinds.
const (
	kindComment       = "comment"
	kindInlineComment = "inline_comment"
	kindBookmark      = "bookmark"
	kindName          = "name"
)

// shareUserNames hands a client that shows user names (provider.UserNames)
// the target's current ones before an operation: they are ledger state, so
// a name set on any connection, before or after a restart, is what the next
// answer shows. It runs inside the client's request slot, so no other
// operation of the client sees the names change under it.
func (c *Connection) shareUserNames(ctx context.Context, o *session.Target, op string) error {
	un, ok := o.Client().(provider.UserNames)
	if !ok {
		return nil
	}
	all, err := c.annotationsOfKind(ctx, o, kindName)
	if err != nil {
		return fault.From(op, err)
	}
	names := make(map[uint64]string, len(all))
	for _, a := range all {
		if addr, err := provider.ParseAddress(a.Address); err == nil {
			names[addr] = a.Value
		}
	}
	un.SetUserNames(names)
	return nil
}

// annotationsOfKind lists the open target's annotations of one kind.
func (c *Connection) annotationsOfKind(ctx context.Context, o *session.Target, kind string) ([]projections.StoredAnnotation, error) {
	lk, err := c.eng.lookups(ctx)
	if err != nil {
		return nil, err
	}
	return lk.AnnotationsOfKind(ctx, o.Target().SHA256, kind)
}
