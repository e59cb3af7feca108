package builtin

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// gdbOracle is what binutils say of Debian's stripped /usr/bin/gdb: the
// defined function symbols of .dynsym (readelf), the PLT stubs (objdump's
// "<name@plt>" labels in .plt, .plt.sec and .plt.got), the .eh_frame FDE
// ranges (objdump --dwarf=frames), and the jump thunks: the ranges (FDE or
// sized function symbol) that objdump -d disassembles as exactly one jmp
// leaving the range, after at most an endbr64.
type gdbOracle struct {
	funcs  map[uint64]uint64 // defined FUNC/IFUNC symbol address -> size (the largest)
	stubs  map[uint64]uint64 // PLT stub address -> its size (to the next label or section end)
	fdes   map[uint64]uint64 // FDE start -> length
	thunks map[uint64]bool
}

func binutils(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(testkit.Need(t, name), args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

func readGDBOracle(t *testing.T, path string) *gdbOracle {
	o := &gdbOracle{funcs: map[uint64]uint64{}, stubs: map[uint64]uint64{}, fdes: map[uint64]uint64{}, thunks: map[uint64]bool{}}
	for _, line := range strings.Split(binutils(t, "readelf", "--dyn-syms", "-W", path), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || (f[3] != "FUNC" && f[3] != "IFUNC") || f[6] == "UND" {
			continue
		}
		a, err1 := strconv.ParseUint(f[1], 16, 64)
		n, err2 := strconv.ParseUint(f[2], 0, 64)
		if err1 != nil || err2 != nil || a == 0 {
			t.Fatalf("readelf line %q", line)
		}
		o.funcs[a] = max(o.funcs[a], n)
	}
	// The PLT stubs: each labelled entry runs to the next label or its
	// section's end.
	plt := binutils(t, "objdump", "-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got", path)
	label := regexp.MustCompile(`^([0-9a-f]+) <(.*)>:$`)
	insnAt := regexp.MustCompile(`^ +([0-9a-f]+):\t((?:[0-9a-f]{2} )+)`)
	var open uint64
	var inStub bool
	for _, line := range strings.Split(plt, "\n") {
		if m := label.FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			open, inStub = a, strings.HasSuffix(m[2], "@plt")
			continue
		}
		if strings.HasPrefix(line, "Disassembly of section") {
			inStub = false
		}
		if m := insnAt.FindStringSubmatch(line); m != nil && inStub {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			o.stubs[open] = a + uint64(len(strings.Fields(m[2]))) - open
		}
	}
	fde := regexp.MustCompile(`FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)`)
	for _, m := range fde.FindAllStringSubmatch(binutils(t, "objdump", "--dwarf=frames", path), -1) {
		a, _ := strconv.ParseUint(m[1], 16, 64)
		b, _ := strconv.ParseUint(m[2], 16, 64)
		if _, stub := o.stubs[a]; b > a && !stub {
			o.fdes[a] = b - a
		}
	}
	// Jump thunks: the small ranges as objdump disassembles .text.
	type ins struct {
		n    uint64
		text string
	}
	code := map[uint64]ins{}
	insn := regexp.MustCompile(`^ +([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(.*)$`)
	for _, line := range strings.Split(binutils(t, "objdump", "-d", "-j", ".text", path), "\n") {
		if m := insn.FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			code[a] = ins{uint64(len(strings.Fields(m[2]))), m[3]}
		}
	}
	target := regexp.MustCompile(`^(?:bnd |notrack )?jmp\s+([0-9a-f]+) <`)
	isThunk := func(a, n uint64) bool {
		if n == 0 || n > 16 {
			return false
		}
		at := a
		if i, ok := code[at]; ok && strings.HasPrefix(i.text, "endbr") {
			at += i.n
		}
		i, ok := code[at]
		if !ok || at+i.n != a+n || !strings.Contains(i.text, "jmp") {
			return false
		}
		if m := target.FindStringSubmatch(i.text); m != nil {
			to, _ := strconv.ParseUint(m[1], 16, 64)
			return to < a || to >= a+n
		}
		return strings.Contains(i.text, "*") // indirect
	}
	for a, n := range o.fdes {
		if isThunk(a, n) {
			o.thunks[a] = true
		}
	}
	for a, n := range o.funcs {
		if isThunk(a, n) {
			o.thunks[a] = true
		}
	}
	return o
}

// length is the oracle's length of a procedure: its function symbol's size,
// else its FDE range, else its PLT entry; ok is false for none of them (a
// procedure the builtin found by recursive descent).
func (o *gdbOracle) length(a uint64) (uint64, bool) {
	if n := o.funcs[a]; n > 0 {
		return n, true
	}
	if n, ok := o.fdes[a]; ok {
		return n, true
	}
	n, ok := o.stubs[a]
	return n, ok
}

// TestListProcedureFiltersDebianGDB is issue 27's list_procedures filter
// acceptance on Debian's stripped gdb: named_only lists exactly the defined
// function symbols of .dynsym and the PLT stubs; exclude_thunks drops
// exactly the PLT stubs and the procedures objdump shows as one jmp;
// min_length keeps exactly the procedures whose objdump/readelf length (or,
// for the few found by descent, procedure_info's) reaches it; and the
// filters combine.
func TestListProcedureFiltersDebianGDB(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: disassembles all of /usr/bin/gdb with objdump")
	}
	const path = "/usr/bin/gdb"
	if _, err := os.Stat(path); err != nil {
		testkit.SkipOrFail(t, fmt.Sprintf("%s is not installed: %v", path, err))
	}
	o := readGDBOracle(t, path)
	_, _, c := open(t, path)
	list := func(p provider.Params) map[uint64]provider.ProcedureItem {
		m := map[uint64]provider.ProcedureItem{}
		for _, it := range allItems[provider.ProcedureItem](t, c, provider.OpListProcedures, p) {
			a, _ := provider.ParseAddress(it.Address)
			m[a] = it
		}
		return m
	}
	all := list(nil)
	want := func(keep func(a uint64, it provider.ProcedureItem) bool) map[uint64]bool {
		w := map[uint64]bool{}
		for a, it := range all {
			if keep(a, it) {
				w[a] = true
			}
		}
		return w
	}
	check := func(name string, got map[uint64]provider.ProcedureItem, want map[uint64]bool) {
		t.Helper()
		missing, extra := 0, 0
		for a := range want {
			if _, ok := got[a]; !ok {
				if missing++; missing <= 5 {
					t.Errorf("%s: %#x (%s) missing", name, a, all[a].Value)
				}
			}
		}
		for a, it := range got {
			if !want[a] {
				if extra++; extra <= 5 {
					t.Errorf("%s: %#x (%s) listed", name, a, it.Value)
				}
			}
		}
		t.Logf("%s: %d of %d procedures (oracle %d; %d missing, %d extra)", name, len(got), len(all), len(want), missing, extra)
	}

	named := want(func(a uint64, _ provider.ProcedureItem) bool { _, f := o.funcs[a]; _, s := o.stubs[a]; return f || s })
	if len(named) < len(o.stubs) || len(o.stubs) < 500 {
		t.Fatalf("oracle: %d named, %d stubs", len(named), len(o.stubs))
	}
	check("named_only", list(provider.Params{"named_only": true}), named)

	thunk := func(a uint64) bool { _, s := o.stubs[a]; return s || o.thunks[a] }
	check("exclude_thunks", list(provider.Params{"exclude_thunks": true}), want(func(a uint64, _ provider.ProcedureItem) bool { return !thunk(a) }))
	jumps := 0
	for a, it := range all {
		if it.Procedure.Thunk != thunk(a) {
			t.Errorf("%#x (%s): thunk %v, objdump %v", a, it.Value, it.Procedure.Thunk, thunk(a))
		}
		if o.thunks[a] {
			jumps++
		}
	}
	if jumps < 50 {
		t.Errorf("only %d jump thunks", jumps)
	}

	descent := 0
	length := func(a uint64) uint64 {
		if n, ok := o.length(a); ok {
			return n
		}
		descent++
		r := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": provider.FormatAddress(a)})
		return r.Normalized.(provider.ProcedureInfoResult).Length
	}
	lengths := map[uint64]uint64{}
	for a := range all {
		lengths[a] = length(a)
	}
	t.Logf("%d procedures of no symbol, FDE or PLT length: procedure_info's length", descent)
	if descent > len(all)/100 {
		t.Errorf("%d of %d procedures have no oracle length", descent, len(all))
	}
	for _, m := range []uint64{1, 16, 64, 1024} {
		check(fmt.Sprintf("min_length %d", m), list(provider.Params{"min_length": int64(m)}),
			want(func(a uint64, _ provider.ProcedureItem) bool { return lengths[a] >= m }))
	}
	check("named_only+exclude_thunks+min_length 64", list(provider.Params{"named_only": true, "exclude_thunks": true, "min_length": int64(64)}),
		want(func(a uint64, _ provider.ProcedureItem) bool { return named[a] && !thunk(a) && lengths[a] >= 64 }))

	// A negative minimum is refused; a page's total counts the filtered.
	if fe := opErr(t, c, provider.OpListProcedures, provider.Params{"min_length": int64(-1)}); issueReason(fe) != "/min_length out_of_range" {
		t.Errorf("min_length -1: %v", fe.Details)
	}
	p := do(t, c, provider.OpListProcedures, provider.Params{"named_only": true, "limit": int64(1)}).Normalized.(provider.Page[provider.ProcedureItem])
	if p.Total == nil || *p.Total != len(named) || p.NextOffset == nil {
		t.Errorf("named_only page: total %v, next %v; want total %d", p.Total, p.NextOffset, len(named))
	}
}
