package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/session"
	"slices"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/compare"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// compare_binaries (CONTRACTS.md §16): the procedures of two open targets
// matched and classified by package engine/compare, each side read
// through its own target's request queue (so timeouts, health and the
// FIFO order apply as to any call), its checkpoints and its result kept in
// the ledger, and one page of the result published as derived Evidence of
// rea-compare. The comparison is named by what was compared
// (compare.ComparisonID), so a later call with the same inputs pages the
// stored result or resumes from the last checkpoint, also after a
// restart.

// compareProducer is the producer of compare_binaries Evidence.
const compareProducer = "rea-compare"

// compareRequiredOperations are what each side's provider must declare (§16.1).
var compareRequiredOperations = []string{"list_procedures", "read_function_instructions"}

// noSubject is limitations[0] of Evidence without a single subject (§7.1).
const noSubject = "No single artifact identity applies to this observation."

// ComparisonStart says where a comparison started (the CLI logs it):
// from its stored result, from its last checkpoint (Phase, and Completed
// of Total procedures within it), or afresh (Phase "").
type ComparisonStart struct {
	ComparisonID string
	Stored       bool
	Phase        string
	Completed    int64
	Total        *int64
}

// CompareBinaries answers compare_binaries. params are the validated tool
// input after defaults: left_target and right_target (handles), status,
// name_pattern, offset, limit, max_procedures. from, if not nil, receives
// where the comparison started before it runs.
func (c *Connection) CompareBinaries(ctx context.Context, params provider.Params, rep progress.Reporter, from func(ComparisonStart)) (Published, error) {
	op := compare.Operation
	rep = progress.OrNop(rep)
	leftRef, _ := params.String("left_target")
	rightRef, _ := params.String("right_target")
	q := compare.Query{Offset: int(params.Int("offset", 0)), Limit: int(params.Int("limit", compare.DefaultLimit))}
	if s, ok := params["status"]; ok && s != nil {
		q.Status = []string{}
		switch list := s.(type) {
		case []string:
			q.Status = append(q.Status, list...)
		case []any:
			for _, v := range list {
				str, _ := v.(string)
				q.Status = append(q.Status, str)
			}
		}
	}
	if p, ok := params.String("name_pattern"); ok {
		q.NamePattern = &p
	}
	maxProcs := int(params.Int("max_procedures", compare.DefaultMaxProcedures))
	if maxProcs < 1 || maxProcs > 1000000 {
		return Published{}, fault.Invalid(op, fault.Issue{Path: "/max_procedures", Reason: "out_of_range", Minimum: ptr64(1), Maximum: ptr64(1000000)})
	}
	// The query is checked before anything is computed.
	if _, err := (&compare.Result{}).Page(q, "", ""); err != nil {
		return Published{}, err
	}

	left, releaseLeft, err := c.compareSide(ctx, leftRef, "/left_target")
	if err != nil {
		return Published{}, err
	}
	defer releaseLeft()
	right := left
	if rightRef != leftRef {
		var releaseRight func()
		if right, releaseRight, err = c.compareSide(ctx, rightRef, "/right_target"); err != nil {
			return Published{}, err
		}
		defer releaseRight()
	}
	sideOf := func(o *session.Target) *compare.ProviderSide {
		return &compare.ProviderSide{Client: o.Client(), Call: func(ctx context.Context, inner string, in provider.Params) (provider.Result, error) {
			return c.invoke(ctx, o, inner, in, nil)
		}, Queue: func(ctx context.Context, inner string, fn func(context.Context) error) error {
			return c.invokeFunc(ctx, o, inner, fn)
		}}
	}
	cmp := &compare.Comparison{Left: sideOf(left), LeftID: identityOf(left), RightID: identityOf(right),
		MaxProcedures: maxProcs, Progress: rep}
	cmp.Right = cmp.Left
	if right != left {
		cmp.Right = sideOf(right)
	}
	id, err := cmp.ID()
	if err != nil {
		return Published{}, fault.Internal(op, err)
	}
	stream := events.ComparisonStream(id)
	led := c.eng.cfg.Ledger
	cmp.Checkpoint = func(ctx context.Context, cp compare.Checkpoint) error {
		data := events.ComparisonCheckpointData{ComparisonID: id, Phase: cp.Phase, Completed: cp.Completed,
			Total: cp.Total, StateDigest: cp.StateDigest}
		// A checkpoint is kept even when the call is cancelled meanwhile:
		// that is what a later call resumes from.
		_, err := c.eng.appendEvents(context.WithoutCancel(ctx), stream, -1, []ledger.NewEvent{c.eng.event(events.ComparisonCheckpoint, data)},
			func(tx *sql.Tx) error {
				for _, p := range cp.Parts {
					if _, err := led.PutBlob(tx, p.Bytes); err != nil {
						return err
					}
				}
				_, err := led.PutBlob(tx, cp.State)
				return err
			})
		return err
	}

	known, found, err := projections.ComparisonByID(ctx, led.ReadDB(), id)
	if err != nil {
		return Published{}, fault.From(op, err)
	}
	var res *compare.Result
	if found && known.ResultDigest != "" {
		// A result whose blob is absent (a ledger imported from an export
		// that did not carry it) is computed again.
		if b, err := led.Blob(ctx, known.ResultDigest); err == nil {
			if res, err = compare.DecodeResult(b); errors.Is(err, compare.ErrStale) {
				res, known.ResultDigest = nil, "" // another version's: computed again
			} else if err != nil {
				return Published{}, fault.New(fault.EvidenceIntegrityMismatch, "The stored comparison result is damaged.",
					"Run `rea ledger verify`.", map[string]any{"evidence_id": nil, "reason": "id_mismatch"}).WithCause(err)
			} else if from != nil {
				from(ComparisonStart{ComparisonID: id, Stored: true})
			}
		} else {
			known.ResultDigest = ""
		}
	}
	if res == nil && found && known.StateDigest != "" {
		// Resume from the last checkpoint; one whose blobs are absent (an
		// imported ledger carries the state but not the parts it names)
		// is abandoned for a fresh run, which gives the same bytes.
		missing := false
		load := func(d string) ([]byte, error) {
			b, err := led.Blob(ctx, d)
			if err != nil && ctx.Err() == nil {
				missing = true
			}
			return b, err
		}
		if state, err := load(known.StateDigest); err == nil && !compare.StaleState(state) {
			if from != nil {
				from(ComparisonStart{ComparisonID: id, Phase: known.Phase, Completed: known.Completed, Total: known.Total})
			}
			if res, err = cmp.Resume(ctx, state, load); err != nil && !missing {
				return Published{}, compareFault(ctx, err)
			}
		}
		if res == nil && ctx.Err() != nil {
			return Published{}, fault.CancelledError(op).WithCause(ctx.Err())
		}
	}
	if res == nil {
		if from != nil {
			from(ComparisonStart{ComparisonID: id})
		}
		if res, err = cmp.Run(ctx); err != nil {
			return Published{}, compareFault(ctx, err)
		}
	}
	if known.ResultDigest == "" {
		if err := ctx.Err(); err != nil {
			return Published{}, fault.CancelledError(op).WithCause(err)
		}
		blob, err := res.Encode()
		if err != nil {
			return Published{}, fault.Internal(op, err)
		}
		done := events.ComparisonCompletedData{ComparisonID: id, ResultDigest: canon.SHA256Hex(blob)}
		if _, err := c.eng.appendEvents(context.WithoutCancel(ctx), stream, -1, []ledger.NewEvent{c.eng.event(events.ComparisonCompleted, done)},
			func(tx *sql.Tx) error {
				_, err := led.PutBlob(tx, blob)
				return err
			}); err != nil {
			return Published{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return Published{}, fault.CancelledError(op).WithCause(err)
	}
	rep.Report(progress.Update{Phase: "publish", Completed: 0, Message: "publishing"})
	ans, err := res.Page(q, left.ID(), right.ID())
	if err != nil {
		return Published{}, err
	}
	ans.Limitations = append([]string{noSubject}, ans.Limitations...)
	recorded, err := paramsOf(compare.ParametersOf(cmp.LeftID, cmp.RightID, q, maxProcs))
	if err != nil {
		return Published{}, fault.Internal(op, err)
	}
	v := c.eng.cfg.Version
	rec := &evidence.Record{SchemaVersion: 2, Claim: evidence.Claim{
		Provider:      provider.Identity{ID: compareProducer, Name: "REA binary comparison", Version: &v},
		PredicateType: evidence.PredicateAnalysis, Operation: op, Parameters: recorded,
		Confidence: evidence.ConfidenceDerived, Authority: evidence.AuthorityShipped,
		Limitations: slices.Clone(ans.Limitations), Locations: []provider.Location{}, EvidenceLinks: []string{},
	}}
	if rec.NormalizedResult, err = canon.Marshal(ans); err != nil {
		return Published{}, fault.Internal(op, err)
	}
	return c.publish(ctx, rec, left, "tool")
}

// compareSide admits one side of a comparison: an open, bound executable
// target whose provider declares the operations compare_binaries reads.
// An unknown or closed handle is invalid_request at pointer.
func (c *Connection) compareSide(ctx context.Context, ref, pointer string) (*session.Target, func(), error) {
	op := compare.Operation
	if ref == "" {
		return nil, nil, fault.Invalid(op, fault.Issue{Path: pointer, Reason: "required"})
	}
	if err := c.sc.Known(op, ref); err != nil {
		return nil, nil, fault.Invalid(op, fault.Issue{Path: pointer, Reason: "invalid_value",
			Message: "no open target of this connection has this id; binary_session lists them"})
	}
	o, release, err := c.bound(ctx, op, ref)
	if err != nil {
		if fault.Is(err, fault.InvalidRequest) { // closed meanwhile
			return nil, nil, fault.Invalid(op, fault.Issue{Path: pointer, Reason: "invalid_value",
				Message: "no open target of this connection has this id; binary_session lists them"})
		}
		return nil, nil, err
	}
	if o.Target().Kind != "executable" {
		release()
		return nil, nil, fault.New(fault.CapabilityUnavailable, "compare_binaries compares executable targets.",
			"Open an ELF, PE or Mach-O file with open_binary and name it as "+pointer[1:]+".",
			map[string]any{"operation": op, "availability_reason": "target_unsupported", "provider_id": o.Binding().Provider.ID,
				"target_id": o.ID()})
	}
	for _, need := range compareRequiredOperations {
		if _, declared := findCapability(o.Binding().Operations(), need); !declared {
			release()
			fe := c.missingOperation(o, op)
			fe.Details["target_id"] = o.ID()
			return nil, nil, fe
		}
	}
	return o, release, nil
}

func identityOf(o *session.Target) compare.Identity {
	return compare.Identity{SHA256: o.Target().SHA256, AnalysisProfileDigest: o.Binding().Profile.Digest}
}

// compareFault is a failed comparison's error: cancellation reported as
// the comparison's own, whichever inner call noticed it.
func compareFault(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fault.CancelledError(compare.Operation).WithCause(ctx.Err())
	}
	return fault.From(compare.Operation, err)
}

// paramsOf is v's JSON object as recorded parameters.
func paramsOf(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

func ptr64(v int64) *int64 { return &v }
