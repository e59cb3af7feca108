package builtin

import (
	"context"
	"io/fs"
	"os"
	"sync"

	"github.com/rea-re/rea/engine/provider"
)

// warmMinSize is the smallest file worth indexing while it is hashed: below
// it both take milliseconds, and a background index would only add work to
// an open whose caller may never list a symbol.
const warmMinSize = 4 << 20

var _ provider.Warmer = (*Provider)(nil)

// warmIndex is a symbol index being built from a file the engine is still
// hashing (provider.Warmer). It is keyed by the file's identity (device,
// inode, size, modification and status-change times) as seen before the
// hash began; Profile adopts it only when the file still has that identity
// after the hash, so the index describes the bytes the hash names: any write
// in between changes the status-change time, which no caller can set back.
type warmIndex struct {
	id     fileID
	ix     *index
	cancel context.CancelFunc
}

// warmSlot holds at most one warm index: the engine opens one file at a time
// per connection, and a second warm replaces (and stops) the first.
type warmSlot struct {
	mu sync.Mutex
	w  *warmIndex
}

// Warm starts parsing path and indexing its symbols in the background.
func (p *Provider) Warm(path string, fi fs.FileInfo) (abandon func()) {
	id, ok := fileIdentity(fi)
	if !ok || !fi.Mode().IsRegular() || fi.Size() < warmMinSize {
		return func() {}
	}
	// A file another target or connection holds open has its index in the
	// registry, and a file being warmed already needs no second build: the
	// one index per file identity is shared (CONTRACTS.md §0.3 "Resources").
	if p.reg.knows(id) {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &warmIndex{id: id, cancel: cancel}
	if !p.warm.claim(w) {
		cancel()
		return func() {}
	}
	// No second stat here: a file replaced since fi was taken is caught
	// where the index would be adopted (take), which compares fi's identity
	// with the file's after the hash.
	m, err := openMapping(path)
	if err != nil {
		p.warm.drop(w)
		return func() {}
	}
	img, err := parseImage(m.data)
	if err != nil || img.fileSize != uint64(len(m.data)) {
		m.close()
		p.warm.drop(w)
		return func() {}
	}
	ix := &index{img: img}
	p.warm.ready(w, ix)
	go func() {
		defer m.close()
		// An error (cancellation) leaves the lazy unbuilt: whoever asks next
		// builds it from its own mapping.
		_, _ = ix.syms.get(ctx, func(ctx context.Context) (*symIndex, error) {
			return buildSymbols(ctx, img, img.data(m.data), nil)
		})
	}()
	return func() { p.warm.drop(w) }
}

// claim makes w, whose index is still being parsed, the slot's warm index
// (stopping the one there) unless the slot already warms the same file: a
// file opened by several connections at once is parsed and indexed once.
func (s *warmSlot) claim(w *warmIndex) bool {
	s.mu.Lock()
	old := s.w
	if old != nil && old.id == w.id {
		s.mu.Unlock()
		return false
	}
	s.w = w
	s.mu.Unlock()
	if old != nil {
		old.cancel()
	}
	return true
}

// ready gives the claimed w its parsed index, which take may now hand over.
func (s *warmSlot) ready(w *warmIndex, ix *index) {
	s.mu.Lock()
	w.ix = ix
	s.mu.Unlock()
}

// drop stops w unless it was taken.
func (s *warmSlot) drop(w *warmIndex) {
	s.mu.Lock()
	mine := s.w == w
	if mine {
		s.w = nil
	}
	s.mu.Unlock()
	if mine {
		w.cancel()
	}
}

// take hands over the warm index of path if the file still has the identity
// it was warmed with.
func (s *warmSlot) take(path string) *warmIndex {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	id, ok := fileIdentity(fi)
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := s.w; w != nil && ok && w.id == id && w.ix != nil {
		s.w = nil
		return w
	}
	return nil
}
