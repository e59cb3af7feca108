package builtin

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/rea-re/rea/engine/progress"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
//  4. In a procedure's first 4 instructions, before its own first IT,
//     objdump's mnemonic with a condition suffix REA's lacks agrees: objdump
//     carries an IT block decoded in the data before the entry into it.
//  5. A 32-bit encoding cut by the procedure's end is REA's one-halfword
//     "(bad)"; objdump reads across the end. Counted apart, not a boundary
//     difference.
var thumbRules = []string{
	"mnemonic = first word of the text (condition, .n/.w and type suffixes included); operands and comments ignored",
	"objdump <UNDEFINED> (no mnemonic) == REA .inst.n/.inst.w/.inst",
	"lines overlapping a literal word read by a pc-relative load (objdump's @ comment) are not counted for mnemonics",
	"in a procedure's first 4 instructions before its own first IT, objdump's mnemonic with a condition suffix REA's lacks agrees: objdump applies an IT block it decoded in the data before the entry, REA starts each procedure outside any IT block",
	"a 32-bit encoding cut by the procedure's end is REA's one-halfword (bad); objdump reads across the end: not a boundary difference",
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
		if k := strings.Index(rest, "\t@"); k >= 0 {
			l.comment, rest = strings.TrimSpace(rest[k+2:]), rest[:k]
		} else if strings.HasPrefix(rest, "@") {
			l.comment, rest = strings.TrimSpace(rest[1:]), ""
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
	noLine, descent             int // procedures not compared: no objdump line at the entry; extent unknown
	cutAtEnd, itAtEntry         int // rules 5 and 4
	opsOK                       int // operands equal too (logged only)
	opsMism                     map[string]int
	insns, counted, agree       int
	boundaryDiff                int
	targets, targetsOK          int
	perFunc                     []float64 // Thumb procedures' mnemonic agreement
	worst                       []string
	mism                        map[string]int
}

func TestThumbObjdumpLibc(t *testing.T) {
	skipLarge(t)
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
	for i, r := range thumbRules {
		t.Logf("rule %d: %s", i+1, r)
	}
	var skip thumbStats
	procUnits := procedureUnits(t, c, lines, &skip)
	t.Run("procedures", func(t *testing.T) {
		st := compareUnits(t, procUnits, lines, lits)
		t.Logf("not compared: %d procedures whose entry objdump does not start an instruction at, %d of unknown extent (recursive descent)", skip.noLine, skip.descent)
		reportThumb(t, st, true)
	})
	t.Run("text", func(t *testing.T) {
		reportThumb(t, compareUnits(t, textUnits(t, c.(*Client), string(out), lines), lines, lits), false)
	})
}

// reportThumb logs the figures and asserts them; procedures selects the
// per-procedure assertion (the text sweep's blocks are objdump's symbol
// blocks, which run over static functions and jump tables).
func reportThumb(t *testing.T, st *thumbStats, procedures bool) {
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
	t.Logf("%d units compared (%d Thumb, %d ARM), %d instructions (%d counted for mnemonics): %.3f%% mnemonics agree; %d boundary differences, %d cut at the end (rule 5), %d condition suffixes from an IT before the entry (rule 4)",
		st.procs, st.thumbProcs, st.armProcs, st.insns, st.counted, 100*float64(st.agree)/float64(max(st.counted, 1)), st.boundaryDiff, st.cutAtEnd, st.itAtEntry)
	t.Logf("per Thumb unit agreement: min %.2f%%, p1 %.2f%%, p5 %.2f%%, median %.2f%%; %d of %d below %.1f%%",
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
	t.Logf("operands (logged, not asserted): %d of %d counted instructions read as objdump's", st.opsOK, st.counted)
	ms = ms[:0]
	for k, v := range st.opsMism {
		ms = append(ms, kv{k, v})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].v > ms[j].v || ms[i].v == ms[j].v && ms[i].k < ms[j].k })
	for i, m := range ms {
		if i == 15 {
			break
		}
		t.Logf("operands %5d × %s", m.v, m.k)
	}
	if st.thumbProcs < 1000 {
		t.Errorf("only %d Thumb units compared", st.thumbProcs)
	}
	if st.targetsOK != st.targets {
		t.Errorf("direct branch targets: %d of %d agree, want all", st.targetsOK, st.targets)
	}
	if st.boundaryDiff != 0 {
		t.Errorf("%d instruction boundaries differ from objdump", st.boundaryDiff)
	}
	if share := 1 - float64(below)/float64(max(len(st.perFunc), 1)); procedures && share < thumbFuncShare {
		t.Errorf("%.2f%% of Thumb procedures reach %.1f%% mnemonic agreement, want %.2f%%", 100*share, 100*thumbFuncAgreement, 100*thumbFuncShare)
	}
	if agree := float64(st.agree) / float64(max(st.counted, 1)); agree < thumbFuncAgreement {
		t.Errorf("%.3f%% of instructions agree, want %.1f%%", 100*agree, 100*thumbFuncAgreement)
	}
}

// reaUnit is one stretch of code REA decoded: a procedure, or an objdump
// symbol's block of .text.
type reaUnit struct {
	name       string
	start, end uint64
	insns      []provider.InstructionItem
}

func procedureUnits(t *testing.T, c provider.Client, lines map[uint64]*objLine, st *thumbStats) []reaUnit {
	var units []reaUnit
	seen := map[uint64]bool{}
	for _, pi := range allProcedures(t, c) {
		if pi.Procedure.External {
			continue
		}
		entry := parseAddr(t, pi.Address)
		if seen[entry] {
			continue
		}
		seen[entry] = true
		if lines[entry] == nil {
			st.noLine++
			continue
		}
		r, err := c.Do(t.Context(), provider.OpReadFunctionInstructions, provider.Params{"procedure": pi.Address, "offset": int64(0), "limit": int64(provider.MaxPageResults)}, nil)
		if err != nil {
			t.Errorf("read_function_instructions %s: %v", pi.Address, err)
			continue
		}
		fi := r.Normalized.(provider.FunctionInstructions)
		if slices.ContainsFunc(fi.Limitations, func(l string) bool { return strings.Contains(l, "recursive descent") }) {
			st.descent++
			continue
		}
		items := fi.Instructions.Items
		for off := int64(len(items)); fi.Instructions.Truncated; off = int64(len(items)) {
			r := do(t, c, provider.OpReadFunctionInstructions, provider.Params{"procedure": pi.Address, "offset": off, "limit": int64(provider.MaxPageResults)})
			fi = r.Normalized.(provider.FunctionInstructions)
			items = append(items, fi.Instructions.Items...)
		}
		if len(items) == 0 {
			continue
		}
		last := items[len(items)-1]
		units = append(units, reaUnit{name: pi.Value, start: entry, end: parseAddr(t, last.Address) + uint64(len(last.Bytes)/2), insns: items})
	}
	return units
}

var objLabelRE = regexp.MustCompile(`(?m)^([0-9a-f]+) <([^>]*)>:$`)

// textUnits decodes all of .text with the builtin decoder, one unit per
// objdump symbol block (from its label to the next), in the block's mode:
// this covers the library's static functions, also those that no call,
// code pointer or .ARM.exidx entry makes an REA procedure.
func textUnits(t *testing.T, c *Client, out string, lines map[uint64]*objLine) []reaUnit {
	var starts []uint64
	var names []string
	for _, g := range objLabelRE.FindAllStringSubmatch(out, -1) {
		a, _ := strconv.ParseUint(g[1], 16, 64)
		starts = append(starts, a)
		names = append(names, g[2])
	}
	var units []reaUnit
	d := newDecoder(c.ix.img)
	d.code = c.codeAt
	for i, a := range starts {
		l := lines[a]
		if l == nil || !l.thumb {
			continue
		}
		code, ok := c.codeAt(a)
		if !ok {
			continue
		}
		end := a + uint64(len(code))
		if i+1 < len(starts) {
			end = min(end, starts[i+1])
		}
		u := reaUnit{name: names[i], start: a, end: end}
		d.reset()
		d.thumb = true
		for o := a; o < end; {
			it := d.decode(code[o-a:end-a], o, true)
			u.insns = append(u.insns, provider.InstructionItem{Address: provider.FormatAddress(o), Bytes: strings.Repeat("00", int(it.n)), Text: it.text})
			o += uint64(it.n)
		}
		units = append(units, u)
	}
	return units
}

var symRefRE = regexp.MustCompile(` <[^>]*>`)

// objOps and reaOps normalize operands for the logged operand comparison:
// no symbol annotation, no 0x on addresses, no REA data note.
func objOps(ops string) string {
	return strings.TrimSpace(symRefRE.ReplaceAllString(ops, ""))
}

func reaOps(text string) string {
	k := strings.IndexAny(text, " \t")
	if k < 0 {
		return ""
	}
	ops := text[k+1:]
	if j := strings.Index(ops, " ; "); j >= 0 {
		ops = ops[:j]
	}
	ops = symRefRE.ReplaceAllString(ops, "")
	if branchMnem.MatchString(text[:k]) {
		ops = strings.ReplaceAll(ops, "0x", "")
	}
	return strings.TrimSpace(ops)
}

var condSuffixes = []string{"eq", "ne", "cs", "cc", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al", "<und>"}

// withCond reports whether objdump's mnemonic om is REA's m with a condition
// suffix added (before a .n/.w/type suffix).
func withCond(om, m string) bool {
	base, suf := m, ""
	if k := strings.IndexByte(m, '.'); k >= 0 {
		base, suf = m[:k], m[k:]
	}
	for _, c := range condSuffixes {
		if om == base+c+suf {
			return true
		}
	}
	return false
}

var itMnem = regexp.MustCompile(`^it[te]{0,3}$`)

func compareUnits(t *testing.T, units []reaUnit, lines map[uint64]*objLine, lits [][2]uint64) *thumbStats {
	st := &thumbStats{mism: map[string]int{}, opsMism: map[string]int{}}
	for _, u := range units {
		st.procs++
		thumb := lines[u.start].thumb
		if thumb {
			st.thumbProcs++
		} else {
			st.armProcs++
		}
		counted, agree := 0, 0
		var diffs []string
		sawIT := false
		for i, in := range u.insns {
			a := parseAddr(t, in.Address)
			st.insns++
			l := lines[a]
			m := mnemOf(in.Text)
			if l == nil || l.n != len(in.Bytes)/2 {
				if in.Text == "(bad)" && a+uint64(len(in.Bytes)/2) == u.end {
					st.cutAtEnd++ // rule 5
					continue
				}
				st.boundaryDiff++
				if st.boundaryDiff < 10 {
					t.Logf("boundary: %s %s %q (objdump %+v)", u.name, in.Address, in.Text, l)
				}
				continue
			}
			if tgt, ok := objTarget(l); ok {
				st.targets++
				if v, ok2 := reaBranchTarget(in.Text); ok2 && v == tgt {
					st.targetsOK++
				} else if st.targets-st.targetsOK < 10 {
					t.Logf("target: %s %s REA %q objdump %s %s", u.name, in.Address, in.Text, l.mnem, l.ops)
				}
			}
			sawIT = sawIT || itMnem.MatchString(m)
			if overlaps(lits, a, a+uint64(l.n)) {
				continue // rule 3
			}
			counted++
			if om, rm := objOps(l.ops), reaOps(in.Text); om == rm {
				st.opsOK++
			} else {
				st.opsMism[fmt.Sprintf("%s %q REA %q", l.mnem, om, rm)]++
			}
			switch {
			case m == l.mnem, l.mnem == "" && strings.HasPrefix(m, ".inst"): // rules 1, 2
				agree++
				continue
			case !sawIT && i < 4 && withCond(l.mnem, m): // rule 4
				agree++
				st.itAtEntry++
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
				st.worst = append(st.worst, fmt.Sprintf("below: %s %#x %d/%d: %s", u.name, u.start, agree, counted, strings.Join(diffs[:min(len(diffs), 6)], "; ")))
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

// BenchmarkThumbLibc renders, with symbolized text, every Thumb procedure
// of known extent in Debian's armhf libc.so.6 through procedure_assembly
// (decoding, text, branch-target names, literal notes), the work objdump -d
// does. Compare with
// `time arm-linux-gnueabihf-objdump -d /usr/arm-linux-gnueabihf/lib/libc.so.6 >/dev/null`
// (BENCHMARKS.md). The symbolizer index is built once, before the timer.
func BenchmarkThumbLibc(b *testing.B) {
	if _, err := os.Stat(libcArmhf); err != nil {
		b.Skipf("%s is not installed (Debian package libc6-armhf-cross)", libcArmhf)
	}
	_, _, pc := open(b, libcArmhf)
	c := pc.(*Client)
	ctx := b.Context()
	six, ex, err := c.extents(ctx, "bench", progress.OrNop(nil))
	if err != nil {
		b.Fatal(err)
	}
	var entries []string
	var bytes int64
	for _, e := range ex.ext {
		if c.isThumb(six, e.start) {
			entries = append(entries, provider.FormatAddress(e.start))
			bytes += int64(e.end - e.start)
		}
	}
	do(b, c, provider.OpProcedureAssembly, provider.Params{"procedure": entries[0]}) // builds the symbolizer
	b.SetBytes(bytes)
	cpu0 := cpuTime(b)
	b.ResetTimer()
	lines := 0
	for range b.N {
		lines = 0
		for _, a := range entries {
			r := do(b, c, provider.OpProcedureAssembly, provider.Params{"procedure": a})
			lines += strings.Count(r.Normalized.(string), "\n") + 1
		}
	}
	b.StopTimer()
	// CPU time, comparable with objdump's user+sys on a loaded machine.
	cpu := (cpuTime(b) - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(cpu, "cpu-s/op")
	b.ReportMetric(float64(lines)/cpu, "insns/cpu-s")
	b.ReportMetric(float64(lines), "insns/op")
	b.ReportMetric(float64(len(entries)), "procs/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestThumbStripped: with no symbol table, the entry point's mode comes from
// e_entry's low bit and main's from the start code's call (mainentry.go):
// both decode as Thumb.
func TestThumbStripped(t *testing.T) {
	full := cFixture(t, "arm-gcc-mthumb-O2", "arm-linux-gnueabihf-gcc", "-O2", "-mthumb")
	stripped := strippedTwin(t, full, "arm-linux-gnueabihf-strip")
	_, _, c := open(t, stripped)
	for _, name := range []string{"entry", "main"} {
		fi := readInsns(t, c, name)
		if len(fi.Instructions.Items) == 0 {
			t.Errorf("%s: no instructions", name)
		}
		for _, in := range fi.Instructions.Items {
			if len(in.Bytes) != 4 && len(in.Bytes) != 8 || strings.HasPrefix(in.Text, ".inst") {
				t.Errorf("%s: %+v is not a decoded Thumb instruction", name, in)
			}
		}
		if !slices.ContainsFunc(fi.Instructions.Items, func(in provider.InstructionItem) bool { return len(in.Bytes) == 4 }) {
			t.Errorf("%s: no 16-bit instruction: not decoded as Thumb", name)
		}
		if slices.ContainsFunc(fi.Limitations, func(l string) bool { return strings.Contains(l, "instruction set") }) {
			t.Errorf("%s: mode inferred: %v", name, fi.Limitations)
		}
		t.Logf("%s: %d instructions, limitations %v", name, len(fi.Instructions.Items), fi.Limitations)
	}
}

const vfpC = `#include <stdio.h>
double scale(double x, float y, int n) { return x * y + (double)n / 3.0 - (x > 1.5 ? x : 2.0); }
float mix(float a, float b) { return a < b ? a * 0.5f : b + a; }
int trunc_(double d) { return (int)d + (unsigned)(float)d; }
int main(int c, char **v) { printf("%f %f %d\n", scale(c, 2.5f, c), mix(c, 1.0f), trunc_(c * 1.25)); return 0; }
`

// TestARMModeVFP: ARM-mode VFP code (gcc -marm, hard float), which armasm
// shows as .inst or spells otherwise, reads as objdump's mnemonics.
func TestARMModeVFP(t *testing.T) {
	objdump := needTool(t, "arm-linux-gnueabihf-objdump")
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			path := fixture(t, "arm-vfp"+opt, func(dir, out string) (string, error) {
				if _, err := exec.LookPath("arm-linux-gnueabihf-gcc"); err != nil {
					return "tool arm-linux-gnueabihf-gcc is not installed; install it to run this test", nil
				}
				src := filepath.Join(dir, "vfp.c")
				if err := os.WriteFile(src, []byte(vfpC), 0o644); err != nil {
					return "", err
				}
				return "", run(dir, nil, "arm-linux-gnueabihf-gcc", opt, "-marm", "-mfpu=vfpv3-d16", "-mfloat-abi=hard", "-o", out, src)
			})
			out, err := exec.Command(objdump, "-d", "-z", path).Output()
			if err != nil {
				t.Fatal(err)
			}
			lines := parseObjdumpARM(string(out))
			_, _, c := open(t, path)
			var skip thumbStats
			st := compareUnits(t, procedureUnits(t, c, lines, &skip), lines, literalWords(lines))
			vfp := 0
			for _, l := range lines {
				if strings.HasPrefix(l.mnem, "v") {
					vfp++
				}
			}
			for k, v := range st.mism {
				t.Logf("mismatch %d × %s", v, k)
			}
			t.Logf("%d instructions (%d VFP in objdump's listing), %d counted, %d agree", st.insns, vfp, st.counted, st.agree)
			if vfp < 5 || st.armProcs == 0 {
				t.Fatalf("fixture has %d VFP instructions in %d ARM procedures", vfp, st.armProcs)
			}
			for k := range st.mism {
				if strings.Contains(k, "objdump v") {
					t.Errorf("VFP mismatch: %s", k)
				}
			}
		})
	}
}

// TestThumbFacts: the control-flow and data facts of single Thumb
// instructions (encodings and addresses from Debian's armhf libc, targets as
// objdump prints them).
func TestThumbFacts(t *testing.T) {
	for _, tc := range []struct {
		hex    string // memory order
		pc     uint64
		it     uint8
		text   string
		flow   uint8
		target uint64
		data   uint64
		toggle bool
	}{
		{"4ef01aec", 0x1e0f8, 0, "blx 0x6c930", flowCall, 0x6c930, 0, true},
		{"3cf0e9fa", 0x1e046, 0, "bl 0x5a61c", flowCall, 0x5a61c, 0, false},
		{"5ab9", 0x1e05c, 0, "cbnz r2, 0x1e076", flowCondJump, 0x1e076, 0, false},
		{"10d0", 0x1e02c, 0, "beq.n 0x1e050", flowCondJump, 0x1e050, 0, false},
		{"00f08880", 0x1e9b0, 0, "beq.w 0x1eac4", flowCondJump, 0x1eac4, 0, false},
		{"95f082b9", 0x1e1bc, 0, "b.w 0xb34c4", flowJump, 0xb34c4, 0, false},
		{"4e4a", 0x1e008, 0, "ldr r2, [pc, #312]", flowNone, 0, 0x1e144, false},
		{"9fed300a", 0x358b6, 0, "vldr s0, [pc, #192]", flowNone, 0, 0x35978, false},
		{"7047", 0x1e20a, 0, "bx lr", flowRet, 0, 0, false},
		{"7047", 0x2d4d0, 0x38, "bxcc lr", flowCondJump, 0, 0, false},
		{"dfe800f0", 0x1e7a2, 0, "tbb [pc, r0]", flowJump, 0, 0, false},
		{"f0bd", 0x1e498, 0, "pop {r4, r5, r6, r7, pc}", flowRet, 0, 0, false},
		{"bde8b040", 0x1e1b8, 0, "ldmia.w sp!, {r4, r5, r7, lr}", flowNone, 0, 0, false},
		{"ba42", 0x1e4e2, 0x08, "cmpeq r2, r7", flowNone, 0, 0, false},
		{"1dee704f", 0x1e00a, 0, "mrc 15, 0, r4, cr13, cr0, {3}", flowNone, 0, 0, false},
	} {
		code, err := hex.DecodeString(tc.hex)
		if err != nil {
			t.Fatal(err)
		}
		d := &decoder{arch: "arm", bo: binary.LittleEndian, thumb: true, it: tc.it}
		it := d.decode(code, tc.pc, true)
		if it.text != tc.text || it.flow != tc.flow || int(it.n) != len(code) || it.toggle != tc.toggle ||
			tc.target != 0 && (!it.hasTarget || it.target != tc.target) || tc.target == 0 && it.hasTarget ||
			tc.data != 0 && (!it.hasData || it.data != tc.data) {
			t.Errorf("%s at %#x: %+v, want %q flow %d target %#x data %#x", tc.hex, tc.pc, it, tc.text, tc.flow, tc.target, tc.data)
		}
	}
}
