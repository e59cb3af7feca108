package builtin

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLazyBuildsOnceAndForgetsFailures(t *testing.T) {
	var l lazy[int]
	ctx := context.Background()
	// A panicking build is not remembered.
	func() {
		defer func() { _ = recover() }()
		l.get(ctx, func(context.Context) (int, error) { panic("boom") })
	}()
	if _, ok := l.peek(); ok {
		t.Fatal("a panicked build was remembered")
	}
	// A failed build is not remembered.
	if _, err := l.get(ctx, func(context.Context) (int, error) { return 0, errors.New("x") }); err == nil {
		t.Fatal("error lost")
	}
	// Concurrent callers share one build.
	var builds atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := l.get(ctx, func(context.Context) (int, error) {
				builds.Add(1)
				time.Sleep(20 * time.Millisecond)
				return 7, nil
			})
			if err != nil || v != 7 {
				t.Errorf("got %d %v", v, err)
			}
		}()
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Errorf("%d builds", builds.Load())
	}
	// A waiter whose context ends stops waiting.
	var l2 lazy[int]
	release := make(chan struct{})
	go l2.get(ctx, func(context.Context) (int, error) { <-release; return 1, nil })
	time.Sleep(10 * time.Millisecond)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l2.get(cctx, func(context.Context) (int, error) { return 2, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("waiter: %v", err)
	}
	close(release)
}

// bareClient is a client of img over data (the whole file) outside any
// provider: its index is its own, under an unbounded registry.
func bareClient(doc, path string, img *image, data []byte) *Client {
	r := newRegistry(1 << 62)
	ix := &index{img: img}
	e := r.adopt(indexKey{}, ix, &mapping{data: data}, fileID{}, false)
	return &Client{doc: doc, path: path, reg: r, e: e, ix: ix, data: img.data(data)}
}
