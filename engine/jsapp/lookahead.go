package jsapp

import (
	"sync"
	"unicode/utf8"
)

// lookahead parses the JavaScript files the parse loop will take next on the
// other cores, while the loop still commits files one at a time in its
// priority order. Budgets stay exact: a scan done ahead ran with the budgets
// left when it started, which are at least those left when its file is
// committed, and its result is used only when it stayed within the latter
// (it is then exactly what the sequential scan would give); otherwise the
// file is scanned again at commit. Parse failures are scanned again too, so
// a panic recovered mid-walk cannot depend on the budget either.
type lookahead struct {
	a     *app
	max   int // scans in flight, the running file's included
	jobs  map[*entry]*job
	bytes int64 // bytes read ahead and not yet committed
	wg    sync.WaitGroup
}

// job is one file read by the parse loop's goroutine and scanned by another.
type job struct {
	src     []byte
	readErr error
	done    chan struct{}

	// Set before done is closed.
	checked bool // names was computed
	names   bool // mentionsElectronAPI(src)
	scanned bool
	f       *fileFindings
	err     error
}

// lookaheadWindow bounds how many queued entries fill looks at per call.
const lookaheadWindow = 64

func newLookahead(a *app, procs int) *lookahead {
	return &lookahead{a: a, max: max(procs, 1), jobs: map[*entry]*job{}}
}

// eligible is a file the loop would read and scan as JavaScript.
func (l *lookahead) eligible(e *entry) bool {
	lim := l.a.lim
	return isJS(e.path) && e.size <= lim.MaxTextFileBytes && e.readable() && e.sha256 != ""
}

// fill starts scans for cur and the entries queued after it (front first,
// then the rest in byte order) until max are in flight.
func (l *lookahead) fill(cur *entry, front, rest []*entry, done map[*entry]bool) {
	if l.max < 2 {
		return // nothing to overlap with: the loop scans inline
	}
	seen := 0
	try := func(e *entry) bool {
		if len(l.jobs) >= l.max || seen >= lookaheadWindow {
			return false
		}
		seen++
		if _, ok := l.jobs[e]; ok || (done[e] && e != cur) || !l.eligible(e) {
			return true
		}
		a := l.a
		if a.stats.TextBytesRead+l.bytes+e.size > a.lim.MaxTotalTextBytes {
			return false // the loop stops before then
		}
		l.start(e)
		return true
	}
	if !try(cur) {
		return
	}
	for _, e := range front {
		if !try(e) {
			return
		}
	}
	for _, e := range rest {
		if !try(e) {
			return
		}
	}
}

func (l *lookahead) start(e *entry) {
	a := l.a
	j := &job{done: make(chan struct{})}
	j.src, j.readErr = e.read() // entries are only ever read on the loop's goroutine
	l.jobs[e] = j
	l.bytes += e.size
	if j.readErr != nil {
		close(j.done)
		return
	}
	maxNodes := a.lim.MaxASTNodes - a.stats.VisitedASTNodes
	maxFindings := a.lim.MaxFindings - a.stats.Findings
	// A file that becomes a preload later is scanned again at commit.
	prefilter := !a.opts.parseAll && !a.must[e]
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer close(j.done)
		if !utf8.Valid(j.src) {
			return
		}
		if prefilter {
			j.checked, j.names = true, mentionsElectronAPI(j.src)
			if !j.names {
				return
			}
		}
		j.f, j.err = safeScan(e.path, j.src, maxNodes, maxFindings)
		j.scanned = true
	}()
}

// take removes and returns e's job, or nil.
func (l *lookahead) take(e *entry) *job {
	j := l.jobs[e]
	if j != nil {
		delete(l.jobs, e)
		l.bytes -= e.size
	}
	return j
}

// wait returns when no scan is running.
func (l *lookahead) wait() { l.wg.Wait() }

// fits reports whether the scan done ahead is what a scan with these
// budgets gives. j must be done.
func (j *job) fits(maxNodes, maxFindings int64) bool {
	if j == nil || !j.scanned || j.err != nil {
		return false
	}
	f := j.f
	return !f.nodesExceeded && !f.findingsFull && f.nodes <= maxNodes && f.count() <= maxFindings
}

// namesAPI is mentionsElectronAPI(src), taken from the job when it was
// computed there. j may be nil; when not, it must be done and src its bytes.
func (j *job) namesAPI(src []byte) bool {
	if j != nil && j.checked {
		return j.names
	}
	return mentionsElectronAPI(src)
}
