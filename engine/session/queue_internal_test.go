package session

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// A call that ignores its context answers its caller at once when the caller
// cancels (and when its budget elapses), keeps the client's slot until it
// returns, is shown with the caller's state and counted as abandoned; the
// next request waits for it (one request at a time per client) and can be
// cancelled while it waits; a closing target sends waiters away.
func TestQueueAbandonsACallThatIgnoresItsContext(t *testing.T) {
	var abandoned atomic.Int64
	q := newRequestQueue(&abandoned)
	stuck := make(chan struct{})
	started := make(chan struct{})
	defer close(stuck) // released at the end whatever happens

	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() {
		answered <- q.run(ctx, "list_dependencies", 0, func(context.Context) {
			close(started)
			<-stuck // ignores its context
		})
	}()
	<-started
	cancel()
	select {
	case err := <-answered:
		if !isCode(err, fault.Cancelled) {
			t.Fatalf("cancelled caller got %v, want cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the caller of a call that ignores its context was not answered after cancellation")
	}
	if n := abandoned.Load(); n != 1 {
		t.Fatalf("abandoned = %d, want 1", n)
	}
	act := q.snapshot(provider.Identity{ID: "test"})
	if act.Active == nil || act.Active.CallerState != "cancelled" || act.Active.Operation != "list_dependencies" {
		t.Fatalf("activity %+v: want the abandoned call active with caller_state cancelled", act.Active)
	}

	// The budget ends a second stuck call the same way, as provider_timeout.
	// It waits for the slot first: cancel its wait and see cancelled.
	waitCtx, stopWaiting := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() {
		waited <- q.run(waitCtx, "list_procedures", time.Millisecond, func(context.Context) {
			t.Error("a second call ran beside the abandoned one")
		})
	}()
	for q.snapshot(provider.Identity{}).QueuedRequests != 1 {
		time.Sleep(time.Millisecond)
	}
	stopWaiting()
	if err := <-waited; !isCode(err, fault.Cancelled) {
		t.Fatalf("a cancelled wait for the slot got %v, want cancelled", err)
	}

	// A closing target sends a waiter away with invalid_request /target.
	go func() {
		waited <- q.run(context.Background(), "list_procedures", 0, func(context.Context) {
			t.Error("a call ran on a closing target beside the abandoned one")
		})
	}()
	for q.snapshot(provider.Identity{}).QueuedRequests != 1 {
		time.Sleep(time.Millisecond)
	}
	if q.takeForClose(10 * time.Millisecond) {
		t.Fatal("close took the slot of a running call")
	}
	q.shutdown()
	if err := <-waited; !isCode(err, fault.InvalidRequest) {
		t.Fatalf("a waiter on a closing target got %v, want invalid_request", err)
	}
}

// The budget of a call that ignores its context answers provider_timeout,
// never cancelled (§6.4), and the call returning later frees the slot and
// the count.
func TestQueueTimesOutACallThatIgnoresItsContext(t *testing.T) {
	var abandoned atomic.Int64
	q := newRequestQueue(&abandoned)
	stuck := make(chan struct{})
	err := q.run(context.Background(), "list_dependencies", 20*time.Millisecond, func(context.Context) { <-stuck })
	if !isCode(err, fault.ProviderTimeout) {
		t.Fatalf("got %v, want provider_timeout", err)
	}
	if act := q.snapshot(provider.Identity{}); act.Active == nil || act.Active.CallerState != "timed_out" {
		t.Fatalf("activity %+v: want caller_state timed_out", act.Active)
	}
	close(stuck)
	if !q.takeForClose(10 * time.Second) {
		t.Fatal("the slot was not given back when the abandoned call returned")
	}
	if n := abandoned.Load(); n != 0 {
		t.Fatalf("abandoned = %d after the call returned, want 0", n)
	}
}

func isCode(err error, code fault.Code) bool {
	var fe *fault.Error
	return errors.As(err, &fe) && fe.Code == code
}
