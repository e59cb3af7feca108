package builtin

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// Thumb-2 against binutils (issue 13 acceptance): on Debian's armhf
// libc.so.6 (package libc6-armhf-cross), every procedure of known extent is
// read with read_function_instructions and compared with
// `arm-linux-gnueabihf-objdump -d` over the same bytes: instruction
// boundaries and mnemonics per procedure, and every direct branch target.
//
// Comparison rules (the only normalizations; each is logged):
//  1. Only the mnemonic (the text's first word, with its condition and
//     .n/.w/type suffixes) is compared, not operands or objdump's comments.
//  2. An instruction objdump cannot decode ("<UNDEFINED> instruction",
//     no mnemonic) matches REA's ".inst.n"/".inst.w"/".inst".
//  3. Literal-pool data is not an instruction: objdump (no $d mapping
//     symbols in a stripped library) decodes the words that a pc-relative
//     load reads (objdump's own "@ (addr)" comment of ldr/ldrd/vldr/pld
//     [pc, #…]) as instructions; the lines overlapping those words are left
//     out of the mnemonic count (their boundaries are still compared).
var thumbRules = []string{
	"mnemonic = first word of the text (condition, .n/.w and type suffixes included); operands and comments ignored",
	"objdump <UNDEFINED> (no mnemonic) == REA .inst.n/.inst.w/.inst",
	"lines overlapping a literal word read by a pc-relative load (objdump's @ comment) are not counted for mnemonics",
}

const libcArmhf = "/usr/arm-linux-gnueabihf/lib/libc.so.6"

// Thresholds: per-procedure mnemonic agreement and the share of procedures
// that must reach it.
const (
	thumbFuncAgreement = 0.995
	thumbFuncShare     = 1.0
)

type objLine struct {
	addr    uint64
	n       int
	mnem    string
	ops     string
	comment string
	thumb   bool
}

var objLineRE = regexp.MustCompile(`^ *([0-9a-f]+):\t([0-9a-f ]+?) *\t([^\t]*)\t?(.*)$`)

func parseObjdumpARM(out string) map[uint64]*objLine {
	m := map[uint64]*objLine{}
	for _, line := range strings.Split(out, "\n") {
		g := objLineRE.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		a, _ := strconv.ParseUint(g[1], 16, 64)
		hex := strings.ReplaceAll(g[2], " ", "")
		l := &objLine{addr: a, n: len(hex) / 2, mnem: g[3], thumb: len(g[2]) != 8}
		rest := g[4]
		if k := strings.Index(rest, "@"); k >= 0 {
			l.comment, rest = strings.TrimSpace(rest[k+1:]), rest[:k]
		}
		l.ops = strings.TrimSpace(rest)
		if strings.HasPrefix(l.mnem, "@") {
			l.comment, l.mnem = l.mnem, ""
		}
		m[a] = l
	}
	return m
}

func mnemOf(text string) string {
	if k := strings.IndexAny(text, " \t"); k >= 0 {
		return text[:k]
	}
	return text
}

var branchMnem = regexp.MustCompile(`^(b|bl|blx|cbz|cbnz)(eq|ne|cs|cc|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.n|\.w)?$`)

// objTarget returns the direct branch target objdump prints.
func objTarget(l *objLine) (uint64, bool) {
	if !branchMnem.MatchString(l.mnem) {
		return 0, false
	}
	f := strings.Fields(strings.ReplaceAll(l.ops, ",", " "))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(f[len(f)-1], 16, 64)
	if len(f) >= 2 && f[len(f)-1][0] == '<' {
		v, err = strconv.ParseUint(f[len(f)-2], 16, 64)
	}
	return v, err == nil
}

func reaBranchTarget(text string) (uint64, bool) {
	if !branchMnem.MatchString(mnemOf(text)) {
		return 0, false
	}
	k := strings.Index(text, "0x")
	if k < 0 {
		return 0, false
	}
	e := k + 2
	for e < len(text) && isHexDigit(text[e]) {
		e++
	}
	v, err := strconv.ParseUint(text[k+2:e], 16, 64)
	return v, err == nil
}

var litRE = regexp.MustCompile(`^\(?([0-9a-f]+)`)

// literalWords returns the byte ranges objdump's pc-relative loads read.
func literalWords(lines map[uint64]*objLine) [][2]uint64 {
	var out [][2]uint64
	for _, l := range lines {
		if !strings.Contains(l.ops, "[pc") || l.comment == "" {
			continue
		}
		base := strings.TrimRight(l.mnem, ".wn")
		if !strings.HasPrefix(base, "ldr") && !strings.HasPrefix(base, "vldr") {
			continue
		}
		g := litRE.FindStringSubmatch(l.comment)
		if g == nil {
			continue
		}
		a, _ := strconv.ParseUint(g[1], 16, 64)
		n := uint64(4)
		switch {
		case strings.HasPrefix(base, "ldrd"), strings.HasPrefix(base, "vldr") && strings.HasPrefix(l.ops, "d"):
			n = 8
		case strings.HasPrefix(base, "ldrb"), strings.HasPrefix(base, "ldrsb"):
			n = 1
		case strings.HasPrefix(base, "ldrh"), strings.HasPrefix(base, "ldrsh"):
			n = 2
		}
		out = append(out, [2]uint64{a, a + n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func overlaps(rs [][2]uint64, a, b uint64) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i][1] > a })
	return i < len(rs) && rs[i][0] < b
}

type thumbStats struct {
	procs, thumbProcs, armProcs int
	insns, counted, agree       int
	boundaryDiff                int
	targets, targetsOK          int
	perFunc                     []float64 // Thumb procedures' mnemonic agreement
	worst                       []string
	mism                        map[string]int
}

func TestThumbObjdumpLibc(t *testing.T) {
	objdump := needTool(t, "arm-linux-gnueabihf-objdump")
	if _, err := os.Stat(libcArmhf); err != nil {
		msg := fmt.Sprintf("%s is not installed (Debian package libc6-armhf-cross): %v", libcArmhf, err)
		if requireAll() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	out, err := exec.Command(objdump, "-d", "-z", libcArmhf).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	lines := parseObjdumpARM(string(out))
	lits := literalWords(lines)
	_, _, c := open(t, libcArmhf)
	st := compareWithObjdump(t, c, lines, lits)
	for i, r := range thumbRules {
		t.Logf("rule %d: %s", i+1, r)
	}
	slices.Sort(st.perFunc)
	below := 0
	for _, f := range st.perFunc {
		if f < thumbFuncAgreement {
			below++
		}
	}
	pct := func(q float64) float64 {
		if len(st.perFunc) == 0 {
			return 0
		}
		return 100 * st.perFunc[int(q*float64(len(st.perFunc)-1))]
	}
	t.Logf("%d procedures compared (%d Thumb, %d ARM), %d instructions (%d counted for mnemonics): %.3f%% mnemonics agree; %d boundary differences",
		st.procs, st.thumbProcs, st.armProcs, st.insns, st.counted, 100*float64(st.agree)/float64(max(st.counted, 1)), st.boundaryDiff)
	t.Logf("per Thumb procedure agreement: min %.2f%%, p1 %.2f%%, p5 %.2f%%, median %.2f%%; %d of %d below %.1f%%",
		pct(0), pct(0.01), pct(0.05), pct(0.5), below, len(st.perFunc), 100*thumbFuncAgreement)
	t.Logf("direct branch targets: %d of %d agree", st.targetsOK, st.targets)
	type kv struct {
		k string
		v int
	}
	var ms []kv
	for k, v := range st.mism {
		ms = append(ms, kv{k, v})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].v > ms[j].v || ms[i].v == ms[j].v && ms[i].k < ms[j].k })
	for i, m := range ms {
		if i == 40 {
			break
		}
		t.Logf("mismatch %5d × %s", m.v, m.k)
	}
	for _, w := range st.worst {
		t.Log(w)
	}
	if st.thumbProcs < 1000 {
		t.Errorf("only %d Thumb procedures compared", st.thumbProcs)
	}
	if st.targetsOK != st.targets {
		t.Errorf("direct branch targets: %d of %d agree, want all", st.targetsOK, st.targets)
	}
	if st.boundaryDiff != 0 {
		t.Errorf("%d instruction boundaries differ from objdump", st.boundaryDiff)
	}
	if share := 1 - float64(below)/float64(max(len(st.perFunc), 1)); share < thumbFuncShare {
		t.Errorf("%.2f%% of Thumb procedures reach %.1f%% mnemonic agreement, want %.2f%%", 100*share, 100*thumbFuncAgreement, 100*thumbFuncShare)
	}
}

func compareWithObjdump(t *testing.T, c provider.Client, lines map[uint64]*objLine, lits [][2]uint64) *thumbStats {
	st := &thumbStats{mism: map[string]int{}}
	procs := allProcedures(t, c)
	seen := map[uint64]bool{}
	for _, pi := range procs {
		if pi.Procedure.External {
			continue
		}
		entry := parseAddr(t, pi.Address)
		if seen[entry] || lines[entry] == nil {
			continue
		}
		seen[entry] = true
		r, err := c.Do(t.Context(), OpReadFunctionInstructions, provider.Params{"procedure": pi.Address, "offset": int64(0), "limit": int64(maxPageResults)}, nil)
		if err != nil {
			t.Errorf("read_function_instructions %s: %v", pi.Address, err)
			continue
		}
		fi := r.Normalized.(FunctionInstructions)
		if slices.ContainsFunc(fi.Limitations, func(l string) bool { return strings.Contains(l, "recursive descent") }) {
			continue
		}
		items := fi.Instructions.Items
		for off := int64(len(items)); fi.Instructions.Truncated; off = int64(len(items)) {
			r := do(t, c, OpReadFunctionInstructions, provider.Params{"procedure": pi.Address, "offset": off, "limit": int64(maxPageResults)})
			fi = r.Normalized.(FunctionInstructions)
			items = append(items, fi.Instructions.Items...)
		}
		if len(items) == 0 {
			continue
		}
		st.procs++
		thumb := lines[entry].thumb
		if thumb {
			st.thumbProcs++
		} else {
			st.armProcs++
		}
		counted, agree := 0, 0
		var diffs []string
		for _, in := range items {
			a := parseAddr(t, in.Address)
			st.insns++
			l := lines[a]
			if l == nil || l.n != len(in.Bytes)/2 {
				st.boundaryDiff++
				if st.boundaryDiff < 10 {
					t.Logf("boundary: %s %s %q (objdump %+v)", pi.Value, in.Address, in.Text, l)
				}
				continue
			}
			if tgt, ok := objTarget(l); ok {
				st.targets++
				if v, ok2 := reaBranchTarget(in.Text); ok2 && v == tgt {
					st.targetsOK++
				} else if st.targets-st.targetsOK < 10 {
					t.Logf("target: %s %s REA %q objdump %s %s", pi.Value, in.Address, in.Text, l.mnem, l.ops)
				}
			}
			if overlaps(lits, a, a+uint64(l.n)) {
				continue
			}
			counted++
			m := mnemOf(in.Text)
			if m == l.mnem || l.mnem == "" && strings.HasPrefix(m, ".inst") {
				agree++
				continue
			}
			st.mism[fmt.Sprintf("objdump %-10s REA %-10s (%s %s)", l.mnem, m, in.Bytes, l.ops)]++
			diffs = append(diffs, fmt.Sprintf("%s: objdump %s, REA %s", in.Address, l.mnem, m))
		}
		st.counted += counted
		st.agree += agree
		if thumb && counted > 0 {
			f := float64(agree) / float64(counted)
			st.perFunc = append(st.perFunc, f)
			if f < thumbFuncAgreement && len(st.worst) < 30 {
				st.worst = append(st.worst, fmt.Sprintf("below: %s %s %d/%d: %s", pi.Value, pi.Address, agree, counted, strings.Join(diffs[:min(len(diffs), 6)], "; ")))
			}
		}
	}
	return st
}

// FuzzThumb: the Thumb decoder consumes 1, 2 or 4 bytes and never more than
// it is given, always renders text, never panics, and an instruction decoded
// again on its own with its recorded IT state reads the same (the text pass
// of read_function_instructions). Seeds: testdata/fuzz/FuzzThumb.
func FuzzThumb(f *testing.F) {
	f.Add([]byte{0x4e, 0x4a, 0x1d, 0xee, 0x70, 0x4f, 0xa4, 0xf5, 0xa0, 0x64, 0x7a, 0x44}, uint64(0x1e008))
	f.Add([]byte{0x08, 0xbf, 0xba, 0x42, 0x14, 0xbf, 0x02, 0x22, 0x01, 0x22}, uint64(0x1e4e0))
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		pc &^= 1
		d := &decoder{arch: "arm", bo: binary.LittleEndian, thumb: true, code: func(a uint64) ([]byte, bool) {
			if a >= pc && a-pc < uint64(len(code)) {
				return code[a-pc:], true
			}
			return nil, false
		}}
		one := &decoder{arch: "arm", bo: binary.LittleEndian, thumb: true}
		for o := 0; o < len(code); {
			it := d.decode(code[o:], pc+uint64(o), true)
			if it.n == 0 || int(it.n) > len(code)-o || it.text == "" || it.n == 3 {
				t.Fatalf("at %d: %+v", o, it)
			}
			one.it = it.it
			if again := one.decode(code[o:o+int(it.n)], it.addr, true); again.text != it.text || again.n != it.n {
				t.Fatalf("at %d: %q (%d bytes) decoded alone reads %q (%d bytes)", o, it.text, it.n, again.text, again.n)
			}
			o += int(it.n)
		}
	})
}
