package compare

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rea-re/rea/internal/testkit"
)

// TestCompareLibxml2SecurityPair compares the two versions of Debian's
// libxml2 the archive serves (bookworm and bookworm-security; .ci/run
// fetches them with apt-get download) against an oracle computed from
// objdump's disassembly (objdumpOracle): the exported functions REA calls
// changed are exactly those whose normalized disassembly differs; every
// changed item differs in the oracle too (none differs only by a PLT slot
// or a relocation index), and carries a delta.
func TestCompareLibxml2SecurityPair(t *testing.T) {
	if testing.Short() && !testkit.RequireAll() {
		t.Skip("-short: compares two 1.7 MB libraries and disassembles both with objdump (minutes under -race); TestCompareSlotsMoved keeps moved slots in the quick loop")
	}
	lp, rp := libxml2Pair(t)
	objdump := testkit.Need(t, "objdump")
	res := compareFiles(t, lp, rp)
	lo, ro := newObjdumpOracle(t, objdump, lp), newObjdumpOracle(t, objdump, rp)

	// Every changed item has a delta, consistent with changed_blocks;
	// nothing else has one.
	var leftStarts, rightStarts []uint64
	for _, it := range res.Items {
		if it.Left != nil {
			leftStarts = append(leftStarts, it.leftAddr)
		}
		if it.Right != nil {
			rightStarts = append(rightStarts, it.rightAddr)
		}
		if it.Status != StatusChanged {
			if it.Delta != nil {
				t.Errorf("%s item %+v has a delta", it.Status, it.Left)
			}
			continue
		}
		d := it.Delta
		if d == nil {
			t.Errorf("changed %s has no delta", it.Left.Name)
			continue
		}
		if got := d.BlocksAdded + d.BlocksRemoved + d.BlocksChanged; got != *it.ChangedBlocks {
			t.Errorf("%s: delta blocks %d, changed_blocks %d", it.Left.Name, got, *it.ChangedBlocks)
		}
		for _, l := range [][]string{d.CallsAdded, d.CallsRemoved, d.StringsAdded, d.StringsRemoved} {
			if l == nil || len(l) > maxDeltaList || !slices.IsSorted(l) {
				t.Errorf("%s: delta list %q is not a sorted list of at most %d", it.Left.Name, l, maxDeltaList)
			}
		}
	}
	slices.Sort(leftStarts)
	slices.Sort(rightStarts)

	// No changed item is the same code in the oracle: a PLT stub whose
	// slot or relocation index moved, a procedure whose calls reach the
	// same imports through moved slots.
	changed := 0
	for _, it := range res.Items {
		if it.Status != StatusChanged {
			continue
		}
		changed++
		l := lo.normalized(it.leftAddr, nextAfter(leftStarts, it.leftAddr))
		r := ro.normalized(it.rightAddr, nextAfter(rightStarts, it.rightAddr))
		if l == r {
			t.Errorf("changed %s %s / %s: the oracle's texts are equal (%d instructions)", it.Left.Address, it.Left.Name,
				it.Right.Address, len(strings.Split(l, "\n")))
		}
		if lo.inPLT(it.leftAddr) && ro.inPLT(it.rightAddr) {
			t.Errorf("changed %s is a PLT stub", it.Left.Name)
		}
		checkDelta(t, it, l, r)
	}

	// The changed exported functions equal the oracle's.
	byLeft := map[uint64]*Item{}
	for i := range res.Items {
		if it := &res.Items[i]; it.Left != nil {
			byLeft[it.leftAddr] = it
		}
	}
	var want, got []string
	exported := 0
	for name, lf := range lo.exports {
		rf, ok := ro.exports[name]
		if !ok || lf.name != name { // one name per address: the aliases are the same function
			continue
		}
		exported++
		if lo.normalized(lf.start, lf.end) != ro.normalized(rf.start, rf.end) {
			want = append(want, name)
		}
		it := byLeft[lf.start]
		switch {
		case it == nil:
			t.Errorf("%s at 0x%x: no item", name, lf.start)
		case it.Right == nil || it.rightAddr != rf.start:
			t.Errorf("%s: paired with %+v, want 0x%x", name, it.Right, rf.start)
		case it.Status == StatusChanged:
			got = append(got, name)
		case it.Status != StatusUnchanged:
			t.Errorf("%s: %s", name, it.Status)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("changed exported functions:\n got  %q\n want %q", got, want)
	}
	if len(want) == 0 {
		t.Error("the oracle finds no changed exported function: not a security update")
	}
	t.Logf("%d items changed, each different in the oracle; changed exported functions %d of %d, oracle %d",
		changed, len(got), exported, len(want))
}

var (
	oracleString = regexp.MustCompile(`# ("(?:[^"\\]|\\.)*")$`)
	oraclePLT    = regexp.MustCompile(`plt:(\S+)$`)
)

// oracleFacts are the strings and the PLT stubs' imports a normalized
// oracle text reaches.
func oracleFacts(text string) (strs, imports map[string]bool) {
	strs, imports = map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if m := oracleString.FindStringSubmatch(line); m != nil {
			if s, err := strconv.Unquote(m[1]); err == nil {
				strs[s] = true
			}
		}
		if m := oraclePLT.FindStringSubmatch(line); m != nil {
			imports[m[1]] = true
		}
	}
	return strs, imports
}

// checkDelta compares a changed item's strings and calls of PLT stubs with
// the oracle's texts of its two sides: each one the delta names is on its
// side only, and each one of at least minPreview characters that is on one
// side only is named (while the list has room). A string the delta names
// may be a preview, cut and ended with "…".
func checkDelta(t *testing.T, it Item, left, right string) {
	t.Helper()
	ls, li := oracleFacts(left)
	rs, ri := oracleFacts(right)
	has := func(set map[string]bool, s string) bool {
		if set[s] {
			return true
		}
		if cut, ok := strings.CutSuffix(s, "…"); ok {
			for v := range set {
				if strings.HasPrefix(v, cut) {
					return true
				}
			}
		}
		return false
	}
	named := func(list []string, s string) bool {
		return slices.ContainsFunc(list, func(v string) bool { return has(map[string]bool{s: true}, v) })
	}
	d := it.Delta
	for _, c := range []struct {
		what        string
		list        []string
		this, other map[string]bool
	}{{"strings_added", d.StringsAdded, rs, ls}, {"strings_removed", d.StringsRemoved, ls, rs}} {
		for _, s := range c.list {
			if !has(c.this, s) || !strings.HasSuffix(s, "…") && c.other[s] {
				t.Errorf("%s: %s names %q, which the oracle does not have on that side only", it.Left.Name, c.what, s)
			}
		}
		for s := range c.this {
			if !c.other[s] && utf8.RuneCountInString(s) >= minPreview && len(c.list) < maxDeltaList && !named(c.list, s) {
				t.Errorf("%s: %s lacks %q", it.Left.Name, c.what, s)
			}
		}
	}
	for _, c := range []struct {
		what        string
		list        []string
		this, other map[string]bool
	}{{"calls_added", d.CallsAdded, ri, li}, {"calls_removed", d.CallsRemoved, li, ri}} {
		for _, name := range c.list {
			if imp, ok := strings.CutSuffix(name, "@plt"); ok && (!c.this[imp] || c.other[imp]) {
				t.Errorf("%s: %s names %s, which the oracle does not call on that side only", it.Left.Name, c.what, name)
			}
		}
		for imp := range c.this {
			if !c.other[imp] && len(c.list) < maxDeltaList && !slices.Contains(c.list, imp+"@plt") {
				t.Errorf("%s: %s lacks %s@plt", it.Left.Name, c.what, imp)
			}
		}
	}
}

// libxml2Pair is the pair .ci/run fetches. Unset, the test skips only where
// the Debian archive does not serve two versions of libxml2; where it does,
// the skip is a failure under REA_REQUIRE_ALL_TOOLS=1.
func libxml2Pair(t *testing.T) (left, right string) {
	left, right = os.Getenv("REA_COMPARE_LIBXML2_LEFT"), os.Getenv("REA_COMPARE_LIBXML2_RIGHT")
	if left != "" && right != "" {
		for _, p := range []string{left, right} {
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("REA_COMPARE_LIBXML2_LEFT/RIGHT: %v", err)
			}
		}
		return left, right
	}
	out, err := exec.Command("apt-cache", "madison", "libxml2").Output()
	versions := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Split(line, "|"); len(f) >= 2 {
			versions[strings.TrimSpace(f[1])] = true
		}
	}
	if err != nil || len(versions) < 2 {
		t.Skipf("the Debian archive serves %d version(s) of libxml2 (apt-cache madison: %v): no security pair to compare", len(versions), err)
	}
	testkit.SkipOrFail(t, "the archive serves two versions of libxml2 but REA_COMPARE_LIBXML2_LEFT/RIGHT are not set: run .ci/run's apt-get download of them")
	return "", ""
}

// nextAfter is the first element of sorted greater than a, or a+1<<20.
func nextAfter(sorted []uint64, a uint64) uint64 {
	i, _ := slices.BinarySearch(sorted, a+1)
	if i < len(sorted) {
		return sorted[i]
	}
	return a + 1<<20
}

// objdumpOracle is one file as binutils sees it: objdump -d's instructions,
// -T's exported functions, -R's GOT slots, -h's sections (and the bytes of
// .rodata, for the strings rip-relative operands reach).
type objdumpOracle struct {
	insns   []oracleInsn // sorted by address
	exports map[string]oracleFunc
	starts  map[uint64]string // exported function starts -> name
	slots   map[uint64]string // GOT slot -> symbol
	plt     [][2]uint64
	rodata  []byte
	roStart uint64
}

type oracleInsn struct {
	addr uint64
	text string
}

type oracleFunc struct {
	name       string // the first name at the address, in sort order
	start, end uint64
}

func newObjdumpOracle(t *testing.T, objdump, path string) *objdumpOracle {
	t.Helper()
	run := func(args ...string) []byte {
		out, err := exec.Command(objdump, append(args, path)...).Output()
		if err != nil {
			t.Fatalf("objdump %v: %v", args, err)
		}
		return out
	}
	o := &objdumpOracle{exports: map[string]oracleFunc{}, starts: map[uint64]string{}, slots: map[uint64]string{}}
	// Sections: "  12 .text  0011af4e  000000000002fcb0  000000000002fcb0  0002fcb0  2**4".
	for _, line := range strings.Split(string(run("-h", "-w")), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasPrefix(f[1], ".") {
			continue
		}
		size, err1 := strconv.ParseUint(f[2], 16, 64)
		vma, err2 := strconv.ParseUint(f[3], 16, 64)
		off, err3 := strconv.ParseUint(f[5], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		switch f[1] {
		case ".plt", ".plt.got", ".plt.sec":
			o.plt = append(o.plt, [2]uint64{vma, vma + size})
		case ".rodata":
			b, err := os.ReadFile(path)
			if err != nil || off+size > uint64(len(b)) {
				t.Fatalf(".rodata of %s: %v", path, err)
			}
			o.rodata, o.roStart = b[off:off+size], vma
		}
	}
	// Exported functions: "0000000000055490 g    DF .text	00000000000002ff  LIBXML2_2.4.30 xmlIOParseDTD".
	byAddr := map[uint64][]string{}
	ends := map[uint64]uint64{}
	for _, line := range strings.Split(string(run("-T", "-w")), "\n") {
		if !strings.Contains(line, " DF .text") {
			continue
		}
		f := strings.Fields(line)
		a, err1 := strconv.ParseUint(f[0], 16, 64)
		size, err2 := strconv.ParseUint(f[len(f)-3], 16, 64)
		if err1 != nil || err2 != nil || size == 0 {
			continue
		}
		name := f[len(f)-1]
		byAddr[a] = append(byAddr[a], name)
		ends[a] = a + size
	}
	for a, names := range byAddr {
		slices.Sort(names)
		for _, n := range names {
			o.exports[n] = oracleFunc{name: names[0], start: a, end: ends[a]}
		}
		o.starts[a] = names[0]
	}
	// GOT slots: "00000000001a9d60 R_X86_64_GLOB_DAT  oldXMLWDcompatibility@@LIBXML2_2.4.30".
	for _, line := range strings.Split(string(run("-R", "-w")), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || !(strings.HasSuffix(f[1], "_GLOB_DAT") || strings.HasSuffix(f[1], "_JUMP_SLOT")) {
			continue
		}
		if a, err := strconv.ParseUint(f[0], 16, 64); err == nil {
			o.slots[a] = unversioned(f[2])
		}
	}
	// Instructions: "   55490:\tpush   %r14".
	sc := bufio.NewScanner(bytes.NewReader(run("-d", "-w", "--no-show-raw-insn")))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		colon := strings.Index(line, ":\t")
		if colon < 0 {
			continue
		}
		a, err := strconv.ParseUint(strings.TrimSpace(line[:colon]), 16, 64)
		if err != nil {
			continue
		}
		o.insns = append(o.insns, oracleInsn{a, line[colon+2:]})
	}
	if len(o.insns) == 0 || len(o.exports) == 0 || len(o.rodata) == 0 {
		t.Fatalf("objdump of %s: %d instructions, %d exported functions, %d bytes of .rodata", path, len(o.insns), len(o.exports), len(o.rodata))
	}
	return o
}

func unversioned(name string) string {
	name, _, _ = strings.Cut(name, "@")
	return name
}

func (o *objdumpOracle) inPLT(a uint64) bool {
	for _, r := range o.plt {
		if a >= r[0] && a < r[1] {
			return true
		}
	}
	return false
}

var (
	oracleTarget = regexp.MustCompile(`\b([0-9a-f]+) <([^>]+)>$`)
	oracleRIP    = regexp.MustCompile(`-?0x[0-9a-f]+\(%rip\)`)
	oracleNote   = regexp.MustCompile(`\s+# ([0-9a-f]+) <[^>]*>$`)
	oracleImm    = regexp.MustCompile(`\$0x[0-9a-f]+`)
)

// normalized is the oracle's text of the code in [start, end): each
// instruction without its address, no-operations left out; a direct target
// inside the range written as its offset, a PLT stub as the import's name,
// an exported function by name and any other code as <local>; a
// rip-relative displacement masked, the datum it reaches written as the
// GOT slot's symbol, an exported function, the string at it in .rodata, or
// <data>. In a PLT stub, the relocation index (push $0xb3) is masked.
func (o *objdumpOracle) normalized(start, end uint64) string {
	i, _ := slices.BinarySearchFunc(o.insns, start, func(x oracleInsn, a uint64) int { return cmpU64(x.addr, a) })
	stub := o.inPLT(start) // its immediate is a relocation index
	var b strings.Builder
	for ; i < len(o.insns) && o.insns[i].addr < end; i++ {
		text := o.insns[i].text
		mn, _, _ := strings.Cut(text, " ")
		if strings.Contains(mn, "nop") || strings.HasPrefix(text, "cs nop") || strings.HasPrefix(text, "data16") && strings.Contains(text, "nop") {
			continue
		}
		if m := oracleNote.FindStringSubmatchIndex(text); m != nil {
			a, _ := strconv.ParseUint(text[m[2]:m[3]], 16, 64)
			text = oracleRIP.ReplaceAllString(text[:m[0]], "X(%rip)") + " # " + o.datum(a)
		} else if m := oracleTarget.FindStringSubmatchIndex(text); m != nil {
			a, _ := strconv.ParseUint(text[m[2]:m[3]], 16, 64)
			label := text[m[4]:m[5]]
			var tgt string
			switch {
			case a >= start && a < end:
				tgt = "L+" + strconv.FormatUint(a-start, 16)
			case strings.HasSuffix(label, "@plt"):
				tgt = "plt:" + unversioned(strings.TrimSuffix(label, "@plt"))
			case o.starts[a] != "":
				tgt = o.starts[a]
			default:
				tgt = "<local>"
			}
			text = text[:m[0]] + tgt
		}
		if stub {
			text = oracleImm.ReplaceAllString(text, "$$N")
		}
		b.WriteString(strings.Join(strings.Fields(text), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// datum names what a rip-relative operand reaches.
func (o *objdumpOracle) datum(a uint64) string {
	if s, ok := o.slots[a]; ok {
		return "got:" + s
	}
	if s := o.starts[a]; s != "" {
		return s
	}
	if a >= o.roStart && a < o.roStart+uint64(len(o.rodata)) {
		b := o.rodata[a-o.roStart:]
		n := bytes.IndexByte(b[:min(len(b), 4096)], 0)
		if n > 0 && !bytes.ContainsFunc(b[:n], func(r rune) bool { return (r < 0x20 || r > 0x7e) && r != '\t' && r != '\n' }) {
			return strconv.Quote(string(b[:n]))
		}
	}
	return "<data>"
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
