// Package progress carries progress updates from long operations to whoever
// renders them (MCP notifications/progress, or a terminal progress line).
//
// The contract (CONTRACTS.md §6.1): updates are monotonic, the first update is
// completed 0, intermediate updates never report the completion step, and only
// the terminal update does. Unknown totals are nil, never guessed.
//
// A producer that reports periodically (every MiB, every 4096th symbol, on
// a ticker) also reports its phase's final count before the phase ends:
// the terminal update counts the request's real work from the last values
// it saw, and the periodic updates alone stop short of the tail (open_binary
// on a 10,395,104-byte file ended at 9,437,185, the last whole MiB plus one).
package progress

// Update is one progress observation within a phase.
type Update struct {
	Phase     string
	Completed float64
	Total     *float64 // nil when unknown
	Message   string
	Terminal  bool
}

// Reporter receives updates. Implementations must be safe for concurrent use and
// must never block the caller for long.
type Reporter interface {
	Report(Update)
}

// Nop discards updates.
type Nop struct{}

func (Nop) Report(Update) {}

// Func adapts a function to Reporter.
type Func func(Update)

func (f Func) Report(u Update) { f(u) }

// Total returns a pointer to t, for Update.Total.
func Total(t float64) *float64 { return &t }

// OrNop returns r, or Nop when r is nil.
func OrNop(r Reporter) Reporter {
	if r == nil {
		return Nop{}
	}
	return r
}
