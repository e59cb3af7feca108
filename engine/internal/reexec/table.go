package reexec

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Table counts passes per cell of the matrix (toolchain × level ×
// architecture) and prints them. Safe for concurrent use; the zero value
// is ready.
type Table struct {
	mu    sync.Mutex
	cells map[Config]*[2]int // pass, total
	fails map[Config][]string
}

// Add records one case's verdict in cell c.
func (t *Table) Add(c Config, name string, pass bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cells == nil {
		t.cells, t.fails = map[Config]*[2]int{}, map[Config][]string{}
	}
	n := t.cells[c]
	if n == nil {
		n = &[2]int{}
		t.cells[c] = n
	}
	n[1]++
	if pass {
		n[0]++
	} else {
		t.fails[c] = append(t.fails[c], name)
	}
}

// Counts returns the passes and the total of cell c.
func (t *Table) Counts(c Config) (pass, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := t.cells[c]; n != nil {
		return n[0], n[1]
	}
	return 0, 0
}

// Failures returns the names of the cases that failed in cell c, sorted.
func (t *Table) Failures(c Config) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.fails[c]...)
	sort.Strings(out)
	return out
}

// Configs returns the cells that have verdicts, in matrix order.
func (t *Table) Configs() []Config {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Config
	for _, c := range Matrix() {
		if t.cells[c] != nil {
			out = append(out, c)
		}
	}
	return out
}

// Goal is issue 26's acceptance rate for a cell: 90% for gcc x86-64 at
// -O0, 80% at -O1 … -O3, 75% everywhere else.
func Goal(c Config) float64 {
	if c.Toolchain == GCC && c.Arch == AMD64 {
		if c.Level == 0 {
			return 0.90
		}
		return 0.80
	}
	return 0.75
}

// Below returns the cells whose pass rate is under goal(cell).
func (t *Table) Below(goal func(Config) float64) []Config {
	var out []Config
	for _, c := range t.Configs() {
		p, n := t.Counts(c)
		if n > 0 && float64(p) < goal(c)*float64(n) {
			out = append(out, c)
		}
	}
	return out
}

// String prints one row per architecture and toolchain, one column per
// level: "pass/total (percent)"; cells without verdicts are "-".
func (t *Table) String() string {
	var b, head strings.Builder
	fmt.Fprintf(&head, "%-6s %-6s", "arch", "cc")
	for _, l := range Levels() {
		fmt.Fprintf(&head, " %-16s", fmt.Sprintf("O%d", l))
	}
	b.WriteString(strings.TrimRight(head.String(), " ") + "\n")
	for _, a := range Arches() {
		for _, tc := range Toolchains() {
			row := false
			var line strings.Builder
			fmt.Fprintf(&line, "%-6s %-6s", a, tc)
			for _, l := range Levels() {
				p, n := t.Counts(Config{tc, l, a})
				cell := "-"
				if n > 0 {
					row = true
					cell = fmt.Sprintf("%d/%d (%.1f%%)", p, n, 100*float64(p)/float64(n))
				}
				fmt.Fprintf(&line, " %-16s", cell)
			}
			if row {
				b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
			}
		}
	}
	return b.String()
}
