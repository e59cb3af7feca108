package session

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// requestQueue runs one request at a time per client, FIFO (Go channel
// senders are served in arrival order), and exposes analysis_activity.
//
// A provider call that does not observe its context (a read blocked in the
// kernel, a provider bug) must not hold its caller, the connection or the
// target (CONTRACTS.md §0.3 "Paths a sample names", §6.3): run answers its
// caller as soon as the caller's context ends or the operation's budget
// elapses, and leaves the call to finish on its own goroutine. That call is
// abandoned, not forgotten: it keeps the client's slot until it returns, so
// no second request ever runs beside it (provider.Client: Do is called one
// request at a time), analysis_activity shows it with the caller_state the
// caller left with (§3.8: "the caller already has its error while the
// provider is still being interrupted"), and the engine counts it.
type requestQueue struct {
	slot chan struct{}
	// shut is closed when the target starts closing: requests still
	// waiting for the slot leave at once, since the close overtakes them
	// (a close must not wait behind a call that may never return).
	shut     chan struct{}
	shutOnce sync.Once
	// abandoned counts the calls whose caller left before they returned,
	// engine-wide; nil counts nowhere (tests).
	abandoned *atomic.Int64

	mu     sync.Mutex
	queued int
	nextID int64
	active *activeRequest
}

type activeRequest struct {
	id          int64
	operation   string
	started     time.Time
	timeout     time.Duration
	callerState string
}

func newRequestQueue(abandoned *atomic.Int64) *requestQueue {
	return &requestQueue{slot: make(chan struct{}, 1), shut: make(chan struct{}), abandoned: abandoned}
}

// shutdown makes every request waiting for the slot, and every later one,
// fail with targetClosed instead of running.
func (q *requestQueue) shutdown() { q.shutOnce.Do(func() { close(q.shut) }) }

// targetClosed answers a request that was admitted on a target that closed
// before the request could run: the same answer as a call naming a closed
// target (§15.1).
func targetClosed(op string) *fault.Error {
	return fault.Invalid(op, fault.Issue{Path: "/target", Reason: "invalid_value",
		Message: "the target was closed before this call ran; binary_session lists the open targets"})
}

// acquire waits for the client's slot. Waiting ends with cancelled when ctx
// ends and with targetClosed when the target starts closing.
func (q *requestQueue) acquire(ctx context.Context, op string, timeout time.Duration) (*activeRequest, error) {
	if err := ctx.Err(); err != nil {
		return nil, fault.CancelledError(op).WithCause(err)
	}
	q.mu.Lock()
	q.queued++
	q.mu.Unlock()
	leave := func() {
		q.mu.Lock()
		q.queued--
		q.mu.Unlock()
	}
	select {
	case <-q.shut:
		leave()
		return nil, targetClosed(op)
	default:
	}
	select {
	case q.slot <- struct{}{}:
	case <-ctx.Done():
		leave()
		return nil, fault.CancelledError(op).WithCause(ctx.Err())
	case <-q.shut:
		leave()
		return nil, targetClosed(op)
	}
	q.mu.Lock()
	q.queued--
	q.nextID++
	a := &activeRequest{id: q.nextID, operation: op, started: time.Now(), timeout: timeout, callerState: "waiting"}
	q.active = a
	q.mu.Unlock()
	return a, nil
}

// release gives the slot back once the request's call returned.
func (q *requestQueue) release() {
	q.mu.Lock()
	q.active = nil
	q.mu.Unlock()
	<-q.slot
}

// run runs fn as one request of operation op: it waits for the slot
// (acquire), then runs fn on a goroutine of its own under the operation's
// timeout (0 = none) and waits until fn returns, ctx is cancelled or the
// timeout elapses, whichever comes first. It returns nil when fn returned
// (fn keeps its own results); cancelled or provider_timeout when the caller
// left first, fn then keeping the slot until it returns; execution_failure
// when fn panicked.
func (q *requestQueue) run(ctx context.Context, op string, timeout time.Duration, fn func(ctx context.Context)) error {
	a, err := q.acquire(ctx, op, timeout)
	if err != nil {
		return err
	}
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	const (
		running = iota
		returned
		left
	)
	var state atomic.Int32
	var panicked bool // written before done is closed
	done := make(chan struct{})
	go func() {
		defer func() {
			if p := recover(); p != nil {
				panicked = true
			}
			if !state.CompareAndSwap(running, returned) && q.abandoned != nil {
				q.abandoned.Add(-1) // its caller left: it is accounted no more
			}
			q.release()
			close(done)
		}()
		fn(callCtx)
	}()
	select {
	case <-done:
	case <-callCtx.Done():
		if state.CompareAndSwap(running, left) {
			if q.abandoned != nil {
				q.abandoned.Add(1)
			}
			q.mu.Lock()
			if ctx.Err() != nil {
				a.callerState = "cancelled"
			} else {
				a.callerState = "timed_out"
			}
			q.mu.Unlock()
			return leftError(ctx, op, timeout)
		}
		<-done // it returned meanwhile: its answer stands
	}
	if panicked {
		return fault.Internal(op, errors.New("provider panic"))
	}
	return nil
}

// leftError is the answer of a caller that stopped waiting for its call:
// cancelled when its own context ended, else provider_timeout (§6.4 keeps
// the two distinct).
func leftError(ctx context.Context, op string, timeout time.Duration) *fault.Error {
	if err := ctx.Err(); err != nil {
		return fault.CancelledError(op).WithCause(err)
	}
	return TimeoutError(op, timeout)
}

// TimeoutError is provider_timeout: an operation's call outlived its budget.
func TimeoutError(op string, timeout time.Duration) *fault.Error {
	return fault.New(fault.ProviderTimeout, "The provider operation exceeded its time budget.",
		"Narrow the request (smaller page or range) or call again.",
		map[string]any{"operation": op, "timeout_ms": timeout.Milliseconds()})
}

// abandonedActive reports whether the client is held by a call whose caller
// already left: a request would wait for it for as long as it runs.
func (q *requestQueue) abandonedActive() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.active != nil && q.active.callerState != "waiting"
}

// takeForClose waits up to grace for the slot, so that a client is never
// closed beside a call still running on it. It reports false when a call
// still holds the slot after grace.
func (q *requestQueue) takeForClose(grace time.Duration) bool {
	select {
	case q.slot <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case q.slot <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// ProviderActivity is one provider's entry of analysis_activity (§3.8).
type ProviderActivity struct {
	Provider       provider.Identity `json:"provider"`
	QueuedRequests int               `json:"queued_requests"`
	Active         *ActiveRequest    `json:"active"`
}

// ActiveRequest is the request a provider is running.
type ActiveRequest struct {
	RequestID   int64  `json:"request_id"`
	Operation   string `json:"operation"`
	ElapsedMS   int64  `json:"elapsed_ms"`
	TimeoutMS   int64  `json:"timeout_ms"`
	CallerState string `json:"caller_state"`
}

func (q *requestQueue) snapshot(id provider.Identity) ProviderActivity {
	q.mu.Lock()
	defer q.mu.Unlock()
	pa := ProviderActivity{Provider: id, QueuedRequests: q.queued}
	if a := q.active; a != nil {
		pa.Active = &ActiveRequest{RequestID: a.id, Operation: a.operation, ElapsedMS: time.Since(a.started).Milliseconds(),
			TimeoutMS: a.timeout.Milliseconds(), CallerState: a.callerState}
	}
	return pa
}
