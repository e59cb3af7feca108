package compare

import (
	"slices"
	"strconv"
	"strings"
)

// Delta says what changed in a changed pair, so that the change can be
// read without the assembly (CONTRACTS.md §0.3, compare_binaries).
//
// Blocks: the blocks of each side that the longest common subsequence of
// the two block sequences leaves unmatched, paired one for one as changed
// blocks; the rest of the longer side are added (right) or removed (left).
// BlocksAdded+BlocksRemoved+BlocksChanged is the item's changed_blocks.
// Calls: the procedures (and imports reached through a GOT or IAT slot) a
// side calls or jumps to that the other side does not, callees compared
// through the matching as classification compares them; each named as its
// side names it. Strings: the string operands one side has and the other
// lacks, as the tokens keep them (previews of at least minPreview
// characters, cut where the provider cuts them). ConstantsChanged: the distinct immediate operands (not addresses,
// not memory displacements) present on one side only, the larger count of
// the two sides.
type Delta struct {
	BlocksAdded      int      `json:"blocks_added"`
	BlocksRemoved    int      `json:"blocks_removed"`
	BlocksChanged    int      `json:"blocks_changed"`
	CallsAdded       []string `json:"calls_added"`
	CallsRemoved     []string `json:"calls_removed"`
	StringsAdded     []string `json:"strings_added"`
	StringsRemoved   []string `json:"strings_removed"`
	ConstantsChanged int      `json:"constants_changed"`
}

// maxDeltaList bounds each list of a Delta (the first ones in sort order).
const maxDeltaList = 20

// facts are what a Delta compares of one side of a pair.
type facts struct {
	calls     map[string]string // callee key -> name
	strings   map[string]bool
	constants map[string]bool
}

// factsOf collects one side's callees, strings and immediates from its
// normalized instructions.
func (r *run) factsOf(w int, p int32) facts {
	s := r.s[w]
	f := facts{calls: map[string]string{}, strings: map[string]bool{}, constants: map[string]bool{}}
	for _, x := range s.code[p].insns {
		tok := string(r.toks.bytes(x.tok()))
		if x.ref() == refProc && (x.flow() == flowCall || x.flow() == flowJump) {
			f.calls["p"+strconv.FormatInt(r.calleeKey(w, x.val), 10)] = s.listing.Procedures[x.val].Name
		} else if n := slotName(tok); n != "" && x.flow() != flowNone {
			f.calls["i"+n] = n // a call or tail call through a GOT or IAT slot
		}
		if str, ok := tokenString(tok); ok {
			f.strings[str] = true
		}
		eachImmediate(tok, func(v string) { f.constants[v] = true })
	}
	return f
}

// tokenString is the string operand a token keeps (` ;"…"`), unquoted.
func tokenString(tok string) (string, bool) {
	i := strings.Index(tok, ` ;"`)
	if i < 0 {
		return "", false
	}
	s, err := strconv.Unquote(tok[i+2:])
	return s, err == nil
}

// eachImmediate calls fn with each number of a token's operands outside a
// memory operand: masked addresses (#) and branch targets (@) are not
// numbers, and an annotation is not an operand.
func eachImmediate(tok string, fn func(string)) {
	body, _, _ := strings.Cut(tok, " ;")
	_, ops, _ := strings.Cut(body, " ")
	depth := 0
	for i := 0; i < len(ops); {
		c := ops[i]
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth = max(depth-1, 0)
		case c >= '0' && c <= '9' && (i == 0 || !isIdentChar(ops[i-1])):
			j := i
			for j < len(ops) && isNumChar(ops[j]) {
				j++
			}
			if depth == 0 {
				v := ops[i:j]
				if i > 0 && ops[i-1] == '-' {
					v = "-" + v
				}
				fn(v)
			}
			i = j
			continue
		}
		i++
	}
}

// delta of changed pair (l, rt), whose block keys a and b have common
// blocks in common.
func (r *run) delta(l, rt int32, a, b []digest, common int) *Delta {
	onlyL, onlyR := len(a)-common, len(b)-common
	d := &Delta{BlocksChanged: min(onlyL, onlyR)}
	d.BlocksAdded, d.BlocksRemoved = onlyR-d.BlocksChanged, onlyL-d.BlocksChanged
	fl, fr := r.factsOf(left, l), r.factsOf(right, rt)
	d.CallsAdded, d.CallsRemoved = onlyIn(fr.calls, fl.calls), onlyIn(fl.calls, fr.calls)
	d.StringsAdded, d.StringsRemoved = onlyKeys(fr.strings, fl.strings), onlyKeys(fl.strings, fr.strings)
	var added, removed int
	for v := range fr.constants {
		if !fl.constants[v] {
			added++
		}
	}
	for v := range fl.constants {
		if !fr.constants[v] {
			removed++
		}
	}
	d.ConstantsChanged = max(added, removed)
	return d
}

// onlyIn names the keys of a that b lacks: distinct, sorted, at most
// maxDeltaList.
func onlyIn(a, b map[string]string) []string {
	out := []string{}
	for k, name := range a {
		if _, ok := b[k]; !ok {
			out = append(out, name)
		}
	}
	return bounded(out)
}

func onlyKeys(a, b map[string]bool) []string {
	out := []string{}
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	return bounded(out)
}

func bounded(list []string) []string {
	slices.Sort(list)
	list = slices.Compact(list)
	return list[:min(len(list), maxDeltaList)]
}
