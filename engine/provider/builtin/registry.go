package builtin

import (
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/rea-re/rea/engine/fault"
)

// MemoryLimitEnv names the setting that bounds the analysis indexes the
// process keeps (CONTRACTS.md §0.3 "Resources").
const MemoryLimitEnv = "REA_MEMORY_LIMIT"

// minDefaultMemoryLimit is the least default limit: half of a small
// machine's memory would not hold one large library's indexes.
const minDefaultMemoryLimit = 1 << 30

// DefaultMemoryLimit is half the machine's memory, at least 1 GiB.
func DefaultMemoryLimit() int64 {
	return max(totalMemory()/2, minDefaultMemoryLimit)
}

// ParseMemoryLimit reads a REA_MEMORY_LIMIT value: a positive number of
// bytes, or a number followed by MiB or GiB.
func ParseMemoryLimit(v string) (int64, error) {
	num, unit := v, int64(1)
	for _, u := range []struct {
		suffix string
		scale  int64
	}{{"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			num, unit = n, u.scale
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("not a positive number of bytes, MiB or GiB")
	}
	return n * unit, nil
}

// MemoryLimitFromEnv returns the limit getenv's REA_MEMORY_LIMIT sets, or
// DefaultMemoryLimit when it is unset or empty. A malformed value is
// configuration_invalid; its details name the variable, never the value
// (an environment value never enters an answer or a log).
func MemoryLimitFromEnv(getenv func(string) string) (int64, error) {
	v := getenv(MemoryLimitEnv)
	if v == "" {
		return DefaultMemoryLimit(), nil
	}
	n, err := ParseMemoryLimit(v)
	if err != nil {
		return 0, fault.New(fault.ConfigurationInvalid, MemoryLimitEnv+" is not a memory size.",
			"Set "+MemoryLimitEnv+" to a number of bytes, or a number followed by MiB or GiB (for example 512MiB), or unset it.",
			map[string]any{"variable": MemoryLimitEnv, "reason": "invalid_value"})
	}
	return n, nil
}

// indexKey is a file identity as CONTRACTS.md §0.3 "Resources" names it:
// the content's sha256 and the profile digest, which covers the provider
// build. A private key (content not identified) is never shared.
type indexKey struct {
	sha256, profile string
	private         uint64 // non-zero: one client's own entry
}

// registry is the process's one set of analysis indexes: one per file
// identity, shared by every connection and target that opens those bytes,
// with one mapping of the file while a client holds it. It bounds the
// indexes' estimated heap (index.memSize) by limit: when a call ends over
// it, the indexes idle longest are released (derived indexes dropped, the
// resident pages of their mapping returned) and rebuilt by their next call;
// an index that alone exceeds the limit fails its call as truncated.
type registry struct {
	limit int64
	// ignoreFile leaves the file's size out of what enter makes room for
	// (tests of the release order on files smaller than their indexes).
	ignoreFile bool

	mu      sync.Mutex
	clock   uint64
	private uint64
	used    int64 // sum of entries' size
	entries map[indexKey]*indexEntry
	parsing map[string]*lazy[*index] // headers being parsed, by content sha256 (parseOnce)
}

// indexEntry is one file identity's index and shared mapping.
type indexEntry struct {
	key indexKey
	ix  *index

	// Guarded by registry.mu:
	fid    fileID // identity of the file the mapping was opened from
	hasFID bool
	m      *mapping // nil while no client holds the entry
	refs   int      // clients (open targets)
	active int      // calls running now
	last   uint64   // registry clock at the end of the last call
	size   int64    // estimated heap bytes at the end of the last call
	peak   int64    // the largest size seen: what a rebuild after a release is expected to need
}

func newRegistry(limit int64) *registry {
	return &registry{limit: limit, entries: map[indexKey]*indexEntry{}, parsing: map[string]*lazy[*index]{}}
}

// parseOnce runs parse once for concurrent callers of the same content
// (sha256 "" is never shared); each caller calls parsed when done with it.
func (r *registry) parseOnce(ctx context.Context, sha256 string, parse func(context.Context) (*index, error)) (*index, error) {
	if sha256 == "" {
		return parse(ctx)
	}
	r.mu.Lock()
	l := r.parsing[sha256]
	if l == nil {
		l = &lazy[*index]{}
		r.parsing[sha256] = l
	}
	r.mu.Unlock()
	return l.get(ctx, parse)
}

// parsed forgets the parse of sha256: later opens find its index registered.
func (r *registry) parsed(sha256 string) {
	r.mu.Lock()
	delete(r.parsing, sha256)
	r.mu.Unlock()
}

// put registers ix under key unless an index is registered there already,
// and returns the registered one (Profile).
func (r *registry) put(key indexKey, ix *index) *index {
	if key.sha256 == "" {
		return ix // unidentified content is never shared
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries[key]; ok {
		return e.ix
	}
	r.clock++
	r.entries[key] = &indexEntry{key: key, ix: ix, last: r.clock}
	return ix
}

// lookup returns the index registered under key.
func (r *registry) lookup(key indexKey) (*index, bool) {
	if key.sha256 == "" {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries[key]; ok {
		return e.ix, true
	}
	return nil, false
}

// lookupSHA returns a registered index of the content sha256 and its
// profile digest (a content has one profile per provider build).
func (r *registry) lookupSHA(sha256 string) (*index, string) {
	if sha256 == "" {
		return nil, ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, e := range r.entries {
		if k.sha256 == sha256 && k.private == 0 {
			return e.ix, k.profile
		}
	}
	return nil, ""
}

// knows reports whether an entry's mapping was opened from the file with
// identity id (Warm need not index it again).
func (r *registry) knows(id fileID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.entries {
		if e.hasFID && e.fid == id && e.key.private == 0 {
			return true
		}
	}
	return false
}

// attach returns the entry of key with one more client, and its mapping,
// or ok=false when no entry of key holds a mapping yet.
func (r *registry) attach(key indexKey) (e *indexEntry, ok bool) {
	if key.sha256 == "" {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e = r.entries[key]
	if e == nil || e.m == nil {
		return nil, false
	}
	e.refs++
	return e, true
}

// adopt makes m the mapping of key's entry (ix when there is none, or a
// private one when key is not shareable) and returns the entry with one
// more client. When another client installed a mapping meanwhile, m is
// closed and theirs is shared.
func (r *registry) adopt(key indexKey, ix *index, m *mapping, fid fileID, hasFID bool) *indexEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock++
	if key.sha256 == "" {
		r.private++
		key.private = r.private
	}
	e := r.entries[key]
	if e == nil {
		e = &indexEntry{key: key, ix: ix, last: r.clock}
		r.entries[key] = e
	}
	if e.m == nil {
		e.m, e.fid, e.hasFID = m, fid, hasFID
	} else {
		_ = m.close() // a client installed one meanwhile: share it
	}
	e.refs++
	return e
}

// detach drops a client of e. The last one closes the mapping; a private
// entry is forgotten, a shared one's index stays for a later open (it is
// the first released when the limit is reached).
func (r *registry) detach(e *indexEntry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.refs--
	if e.refs > 0 {
		return nil
	}
	err := e.m.close()
	e.m, e.hasFID = nil, false
	if e.key.private != 0 {
		r.used -= e.size
		e.size = 0
		delete(r.entries, e.key)
	}
	return err
}

// enter marks a call running on e: e is not released until leave. A call
// of op that is about to build part of e's index (never built, or released
// since) first makes room for it: idle indexes are released until the
// registry, with what the build may add (what a release took from e, else
// the file's size, a guess on the high side) and the file's bytes (the
// pages a build reads become resident), holds no more than its limit. The
// build then does not add a whole index over the limit before leave can
// release others.
func (r *registry) enter(op string, e *indexEntry) {
	released := false
	r.mu.Lock()
	e.active++
	if !e.ix.builtFor(op) {
		need := max(e.peak-e.size, 0)
		if e.m != nil && !r.ignoreFile {
			file := int64(len(e.m.data))
			if e.size >= e.peak {
				need = file // nothing released to rebuild: as large as the file, as a guess
			}
			need += file
		}
		for r.used+need > r.limit {
			v := r.victimLocked(e)
			if v == nil {
				break
			}
			r.releaseLocked(v)
			released = true
		}
	}
	r.mu.Unlock()
	if released {
		debug.FreeOSMemory() // see leave
	}
}

// leave ends a call on e: its index is sized again (what the call built),
// and indexes are released until the registry is within its limit, idle
// longest first: entries no client holds before those of open targets.
// When e's index alone exceeds the limit it is released too and leave
// returns the truncated failure the call answers.
func (r *registry) leave(op string, e *indexEntry) error {
	released := false
	defer func() {
		if released {
			// The released indexes are garbage now: collect them and
			// return their pages before the next build asks for more, so
			// that the process's resident memory, not only the estimate,
			// goes down (a collection alone leaves freed pages to the
			// scavenger, which returns them only under the runtime's
			// memory limit).
			debug.FreeOSMemory()
		}
	}()
	r.mu.Lock()
	var mapped []byte
	if e.m != nil {
		mapped = e.m.data
	}
	r.mu.Unlock()
	size := e.ix.memSize(mapped) // outside the lock: a first sizing walks the index

	r.mu.Lock()
	defer r.mu.Unlock()
	e.active--
	r.clock++
	e.last = r.clock
	grew := size > e.size
	if _, ok := r.entries[e.key]; ok {
		r.used += size - e.size
		e.size = size
	}
	e.peak = max(e.peak, size)
	if grew && e.m != nil {
		// The call built an index: the file pages it read leave the
		// resident set (they stay in the page cache); a later call reads
		// back the few it needs.
		e.m.dropResident()
	}
	if size > r.limit {
		if e.active == 0 {
			r.releaseLocked(e)
			released = true
		}
		return fault.New(fault.Truncated, "The analysis index of this target alone exceeds the memory limit.",
			"Raise "+MemoryLimitEnv+" above the index size in details.actual, then retry.",
			map[string]any{"operation": op, "limit": "memory_bytes", "maximum": r.limit, "actual": size, "truncated": true})
	}
	for r.used > r.limit {
		v := r.victimLocked(e)
		if v == nil {
			break // every other index is in use: over the limit until they end
		}
		r.releaseLocked(v)
		released = true
	}
	return nil
}

// victimLocked picks the index to release: not e, not in use, holding
// memory; one no client holds first, then the one idle longest.
func (r *registry) victimLocked(e *indexEntry) *indexEntry {
	var best *indexEntry
	for _, c := range r.entries {
		if c == e || c.active > 0 || c.size == 0 {
			continue
		}
		if best == nil || (c.refs == 0) != (best.refs == 0) && c.refs == 0 ||
			(c.refs == 0) == (best.refs == 0) && c.last < best.last {
			best = c
		}
	}
	return best
}

// releaseLocked drops e's derived indexes and the resident pages of its
// mapping; an entry no client holds is forgotten.
func (r *registry) releaseLocked(e *indexEntry) {
	e.ix.release()
	r.used -= e.size
	e.size = 0
	if e.m != nil {
		e.m.dropResident()
	}
	if e.refs == 0 {
		delete(r.entries, e.key)
	}
}

// stats is what the registry holds, for tests and benchmarks.
type registryStats struct {
	entries, mapped int
	used            int64
}

func (r *registry) stats() registryStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := registryStats{entries: len(r.entries), used: r.used}
	for _, e := range r.entries {
		if e.m != nil {
			s.mapped++
		}
	}
	return s
}
