package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// requestQueue runs one request at a time per client, FIFO (Go channel
// senders are served in arrival order), and exposes analysis_activity.
type requestQueue struct {
	slot   chan struct{}
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

func newRequestQueue() *requestQueue { return &requestQueue{slot: make(chan struct{}, 1)} }

func (q *requestQueue) acquire(ctx context.Context, op string, timeout time.Duration) (func(), error) {
	q.mu.Lock()
	q.queued++
	q.mu.Unlock()
	select {
	case q.slot <- struct{}{}:
	case <-ctx.Done():
		q.mu.Lock()
		q.queued--
		q.mu.Unlock()
		return nil, fault.CancelledError(op).WithCause(ctx.Err())
	}
	q.mu.Lock()
	q.queued--
	q.nextID++
	a := &activeRequest{id: q.nextID, operation: op, started: time.Now(), timeout: timeout, callerState: "waiting"}
	q.active = a
	q.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			a.callerState = "timed_out"
		} else {
			a.callerState = "cancelled"
		}
		q.mu.Unlock()
	})
	return func() {
		stop()
		q.mu.Lock()
		q.active = nil
		q.mu.Unlock()
		<-q.slot
	}, nil
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
