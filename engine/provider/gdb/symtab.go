package gdb

import (
	"sort"
	"strings"
)

// symTable indexes gdb's minimal symbols (sorted by address, then name).
type symTable struct {
	syms    []msym
	primary []bool
	procs   []int // indices of procedure symbols
	entries []int // indices into procs of the first symbol of each entry address
	byName  map[string][]int
}

// primaryBefore applies the builtin provider's rule as far as gdb's types
// tell (they carry no weak binding): code before data before stubs and the
// rest; exported (T, i, D, B, S) before file-local (t, d, b); then fewer
// leading underscores (printf before _IO_printf); then the shorter name;
// then byte order.
func primaryBefore(x, y *msym) bool {
	if cx, cy := category(x.typ), category(y.typ); cx != cy {
		return cx < cy
	}
	if lx, ly := isLocal(x.typ), isLocal(y.typ); lx != ly {
		return ly
	}
	ux, uy := len(x.name)-len(strings.TrimLeft(x.name, "_")), len(y.name)-len(strings.TrimLeft(y.name, "_"))
	if ux != uy {
		return ux < uy
	}
	if len(x.name) != len(y.name) {
		return len(x.name) < len(y.name)
	}
	return x.name < y.name
}

func category(t byte) int {
	switch t {
	case 'T', 't', 'i':
		return 0
	case 'D', 'd', 'B', 'b':
		return 1
	case 'S':
		return 2
	}
	return 3
}

func isLocal(t byte) bool { return t == 't' || t == 'd' || t == 'b' }

func isStub(s *msym) bool { return s.typ == 'S' || strings.HasSuffix(s.name, "@plt") }

func newSymTable(syms []msym, codeSection func(string) bool) *symTable {
	t := &symTable{syms: syms, primary: make([]bool, len(syms)), byName: map[string][]int{}}
	for lo := 0; lo < len(syms); {
		hi := lo
		best := lo
		hasProc := false
		for hi < len(syms) && syms[hi].addr == syms[lo].addr {
			if primaryBefore(&syms[hi], &syms[best]) {
				best = hi
			}
			switch syms[hi].typ {
			case 'T', 't', 'i':
				hasProc = hasProc || codeSection(syms[hi].section)
			}
			hi++
		}
		t.primary[best] = true
		for i := lo; i < hi; i++ {
			s := &syms[i]
			proc := false
			switch s.typ {
			case 'T', 't', 'i':
				proc = codeSection(s.section)
			case 'S':
				// A stub named only as a trampoline is a procedure;
				// beside gdb's "NAME@plt" it is an alias, not listed.
				proc = !hasProc && codeSection(s.section)
			}
			if proc {
				if n := len(t.procs); n == 0 || t.syms[t.procs[n-1]].addr != s.addr {
					t.entries = append(t.entries, n)
				}
				t.procs = append(t.procs, i)
				t.byName[s.name] = append(t.byName[s.name], i)
			}
		}
		lo = hi
	}
	return t
}

func (t *symTable) procsAt(a uint64) (int, int) {
	lo := sort.Search(len(t.procs), func(i int) bool { return t.syms[t.procs[i]].addr >= a })
	hi := lo
	for hi < len(t.procs) && t.syms[t.procs[hi]].addr == a {
		hi++
	}
	return lo, hi
}

func (t *symTable) isEntry(a uint64) bool { lo, hi := t.procsAt(a); return lo < hi }

// symbolName is the procedure symbol's own name at an entry, which gdb's
// debug information knows: the primary name when it is a procedure, else
// the first-ranked procedure name.
func (t *symTable) symbolName(a uint64) string {
	lo, hi := t.procsAt(a)
	if lo == hi {
		return ""
	}
	best := t.procs[lo]
	for _, k := range t.procs[lo:hi] {
		if t.primary[k] {
			return t.syms[k].name
		}
		if primaryBefore(&t.syms[k], &t.syms[best]) {
			best = k
		}
	}
	return t.syms[best].name
}

// procsNamed lists the distinct entries of the procedures named name.
func (t *symTable) procsNamed(name string) []uint64 {
	var out []uint64
	for _, k := range t.byName[name] {
		if a := t.syms[k].addr; len(out) == 0 || out[len(out)-1] != a {
			out = append(out, a)
		}
	}
	return out
}

// classify says whether the procedure at an entry is an import stub.
func (t *symTable) classify(a uint64) (external, thunk bool) {
	lo, hi := t.procsAt(a)
	for _, k := range t.procs[lo:hi] {
		if isStub(&t.syms[k]) {
			return true, true
		}
	}
	return false, false
}

// namesAt is the range of syms at a.
func (t *symTable) namesAt(a uint64) (int, int) {
	lo := sort.Search(len(t.syms), func(i int) bool { return t.syms[i].addr >= a })
	hi := lo
	for hi < len(t.syms) && t.syms[hi].addr == a {
		hi++
	}
	return lo, hi
}

func (t *symTable) primaryAt(a uint64) (int, bool) {
	i := sort.Search(len(t.syms), func(i int) bool { return t.syms[i].addr >= a })
	for ; i < len(t.syms) && t.syms[i].addr == a; i++ {
		if t.primary[i] {
			return i, true
		}
	}
	return 0, false
}

// symbolType maps gdb's minimal symbol type to the list_names vocabulary.
func symbolType(t byte) string {
	switch t {
	case 'T', 't', 'i':
		return "function"
	case 'S':
		return "import"
	case 'D', 'd', 'B', 'b', '?':
		return "object"
	}
	return "label"
}

// basicBlocks counts basic blocks over gdb's disassembly like the builtin
// provider: leaders at the entry, at branch targets inside the procedure and
// after every branch, return or halt. ok is false for architectures whose
// mnemonics are not classified (the count is then the entry block).
func basicBlocks(arch string, pc *procCode) (int, bool) {
	if len(pc.insns) == 0 {
		return 0, true
	}
	classify := map[string]func(string) (flow bool, target string){
		"x86": x86Flow, "x86_64": x86Flow, "arm64": arm64Flow,
	}[arch]
	if classify == nil {
		return 1, false
	}
	at := make(map[uint64]bool, len(pc.addrs))
	for _, a := range pc.addrs {
		at[a] = true
	}
	leaders := map[uint64]bool{pc.addrs[0]: true}
	for i, it := range pc.insns {
		flow, target := classify(it.Text)
		if !flow {
			continue
		}
		if next := pc.addrs[i] + uint64(pc.lens[i]); at[next] {
			leaders[next] = true
		}
		if a, err := parseHex(target); err == nil && at[a] {
			leaders[a] = true
		}
	}
	return len(leaders), true
}

// x86Flow classifies gdb's Intel-syntax text: jumps (with their target
// operand), returns and halts end a block; calls do not.
func x86Flow(text string) (bool, string) {
	f := strings.Fields(text)
	for len(f) > 0 && (f[0] == "bnd" || f[0] == "notrack" || strings.HasPrefix(f[0], "rep") || f[0] == "lock" || f[0] == "cs" || f[0] == "ds") {
		f = f[1:]
	}
	if len(f) == 0 {
		return false, ""
	}
	m := f[0]
	switch {
	case strings.HasPrefix(m, "j"), strings.HasPrefix(m, "loop"):
		if len(f) > 1 {
			return true, f[1]
		}
		return true, ""
	case strings.HasPrefix(m, "ret"), strings.HasPrefix(m, "iret"), m == "hlt", m == "ud2", m == "sysret":
		return true, ""
	}
	return false, ""
}

// arm64Flow classifies gdb's AArch64 text.
func arm64Flow(text string) (bool, string) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return false, ""
	}
	target := ""
	for _, op := range f[1:] {
		if strings.HasPrefix(op, "0x") {
			target = strings.TrimSuffix(op, ",")
			break
		}
	}
	switch m := f[0]; {
	case m == "b" || strings.HasPrefix(m, "b.") || m == "cbz" || m == "cbnz" || m == "tbz" || m == "tbnz":
		return true, target
	case m == "br" || m == "ret" || m == "eret" || m == "brk" || m == "hlt":
		return true, ""
	}
	return false, ""
}

// entryRange is the range of procs at the k-th entry address.
func (t *symTable) entryRange(k int) (int, int) {
	hi := len(t.procs)
	if k+1 < len(t.entries) {
		hi = t.entries[k+1]
	}
	return t.entries[k], hi
}
