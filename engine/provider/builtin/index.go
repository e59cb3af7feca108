package builtin

import (
	"context"
	"reflect"
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
	size int64 // estimated heap bytes of val (memSize), 0 until sized
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

// reset forgets a built value, so that the next get builds it again (the
// registry releasing an idle index, registry.go). A build in flight is left
// alone: its value is still being made, and is accounted once it is done.
func (l *lazy[T]) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy == nil {
		var zero T
		l.val, l.done, l.size = zero, false, 0
	}
}

// memSize is the estimated heap size of the built value, computed once
// per build with s (nil: not built).
func (l *lazy[T]) memSize(s *sizer) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		return 0
	}
	if l.size == 0 {
		l.size = max(s.root(l.val), 1)
	}
	return l.size
}

// excludeIn marks the built value as counted by its own lazy, for the
// sizer of another one that refers to it (the symbolizer's symbol index).
func (l *lazy[T]) excludeIn(s *sizer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		if p := reflect.ValueOf(l.val); p.Kind() == reflect.Pointer {
			s.exclude(p.UnsafePointer())
		}
	}
}

// index is everything the provider knows about one target content under one
// profile: the header model, and the symbol and string indexes built on first
// use. It holds no file bytes; the registry (registry.go) shares it, and one
// mapping of the file, among every client of the same content.
type index struct {
	img   *image
	syms  lazy[*symIndex]
	strs  lazy[*strIndex]
	ext   lazy[*extentIndex]
	lines lazy[*lineIndex]
	refs  lazy[*refIndex]
	symz  lazy[*symbolizer]
	link  lazy[*linkIndex] // imports and exports (linker.go)
	jumps lazy[jumpThunks] // the jump thunks (procfilter.go)

	lifted  liftCache          // procedures lifted on demand (lifted.go)
	pseudo  pseudoCache        // procedures decompiled on demand (pseudo.go)
	dprotos lazy[*dwarfProtos] // DWARF's prototypes (dwarfproto.go)

	sizeMu  sync.Mutex // serializes memSize
	imgSize int64      // estimated heap bytes of img, once computed
}

// release forgets every derived index, keeping the header model: the
// next call that needs one builds it again (registry.go).
func (ix *index) release() {
	ix.syms.reset()
	ix.strs.reset()
	ix.ext.reset()
	ix.lines.reset()
	ix.refs.reset()
	ix.symz.reset()
	ix.link.reset()
	ix.jumps.reset()
	ix.lifted.reset()
	ix.pseudo.reset()
	ix.dprotos.reset()
}

// memSize estimates the heap bytes ix holds (sizer): the header model and
// every derived index built so far, each counted once although the
// symbolizer refers to the symbol index. mapped is the file mapping the
// header model may point into, whose bytes are not heap.
func (ix *index) memSize(mapped []byte) int64 {
	ix.sizeMu.Lock()
	defer ix.sizeMu.Unlock()
	s := newSizer()
	s.mapped = mapped
	if ix.imgSize == 0 && ix.img != nil {
		ix.imgSize = max(s.root(ix.img), 1)
	}
	ix.syms.excludeIn(s)
	ix.strs.excludeIn(s)
	ix.ext.excludeIn(s)
	ix.lines.excludeIn(s)
	ix.refs.excludeIn(s)
	ix.symz.excludeIn(s)
	ix.link.excludeIn(s)
	ix.jumps.excludeIn(s)
	ix.lifted.tabs.excludeIn(s)
	ix.dprotos.excludeIn(s)
	return ix.imgSize + ix.syms.memSize(s) + ix.strs.memSize(s) + ix.ext.memSize(s) + ix.lines.memSize(s) +
		ix.refs.memSize(s) + ix.symz.memSize(s) + ix.link.memSize(s) + ix.jumps.memSize(s) + ix.lifted.memSize(s) + ix.dprotos.memSize(s) +
		ix.pseudo.memSize()
}

// builtFor reports whether the derived indexes op reads (optable.go) are
// built, so that a call of op builds nothing (registry.enter). An operation
// outside the table reads the symbol index.
func (ix *index) builtFor(op string) bool {
	needs := needsSymbols
	if o, ok := lookupOp(op); ok {
		needs = o.needs
	}
	built := func(need opNeeds, peek func() bool) bool { return needs&need == 0 || peek() }
	return built(needsSymbols, func() bool { _, ok := ix.syms.peek(); return ok }) &&
		built(needsStrings, func() bool { _, ok := ix.strs.peek(); return ok }) &&
		built(needsRefs, func() bool { _, ok := ix.refs.peek(); return ok }) &&
		built(needsLink, func() bool { _, ok := ix.link.peek(); return ok })
}
