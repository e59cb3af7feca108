package builtin

import (
	"context"
	"sync"
)

// lazy is a value built at most once on success. Concurrent callers wait for
// the one build in flight; a build that fails (a cancelled context, say) is
// not remembered, so the next caller builds again.
type lazy[T any] struct {
	mu   sync.Mutex
	val  T
	done bool
	busy chan struct{}
}

func (l *lazy[T]) get(ctx context.Context, build func(context.Context) (T, error)) (T, error) {
	var zero T
	for {
		l.mu.Lock()
		if l.done {
			v := l.val
			l.mu.Unlock()
			return v, nil
		}
		if ch := l.busy; ch != nil {
			l.mu.Unlock()
			select {
			case <-ch:
				continue // built, or failed: look again
			case <-ctx.Done():
				return zero, ctx.Err()
			}
		}
		ch := make(chan struct{})
		l.busy = ch
		l.mu.Unlock()
		return l.run(ctx, ch, build)
	}
}

func (l *lazy[T]) run(ctx context.Context, ch chan struct{}, build func(context.Context) (T, error)) (v T, err error) {
	ok := false // false when build panics: nothing is remembered then
	defer func() {
		l.mu.Lock()
		if ok && err == nil {
			l.val, l.done = v, true
		}
		l.busy = nil
		l.mu.Unlock()
		close(ch)
	}()
	v, err = build(ctx)
	ok = true
	return v, err
}

// peek returns the value when it is already built.
func (l *lazy[T]) peek() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.val, l.done
}

// index is everything the provider knows about one target content under one
// profile: the header model, and the symbol and string indexes built on first
// use. It holds no file bytes, so clients of the same content share it, each
// reading through its own mapping.
type index struct {
	img   *image
	syms  lazy[*symIndex]
	strs  lazy[*strIndex]
	ext   lazy[*extentIndex]
	lines lazy[*lineIndex]
	refs  lazy[*refIndex]
	symz  lazy[*symbolizer]
	link  lazy[*linkIndex] // imports and exports (linker.go)
}

type cacheKey struct{ sha256, profile string }

// indexCache is a small LRU of indexes keyed by (content sha256, profile digest).
type indexCache struct {
	mu      sync.Mutex
	max     int
	clock   uint64
	entries map[cacheKey]*cacheEntry
}

type cacheEntry struct {
	ix   *index
	used uint64
}

func newIndexCache(max int) *indexCache {
	return &indexCache{max: max, entries: map[cacheKey]*cacheEntry{}}
}

// get returns the cached index for key, or stores and returns ix.
func (c *indexCache) getOrPut(key cacheKey, ix *index) *index {
	if key.sha256 == "" {
		return ix // unidentified content is never shared
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if e, ok := c.entries[key]; ok {
		e.used = c.clock
		return e.ix
	}
	if ix == nil {
		return nil
	}
	for len(c.entries) >= c.max {
		var oldest cacheKey
		var ou uint64 = ^uint64(0)
		for k, e := range c.entries {
			if e.used < ou {
				oldest, ou = k, e.used
			}
		}
		delete(c.entries, oldest)
	}
	c.entries[key] = &cacheEntry{ix: ix, used: c.clock}
	return ix
}

func (c *indexCache) lookup(key cacheKey) *index { return c.getOrPut(key, nil) }
