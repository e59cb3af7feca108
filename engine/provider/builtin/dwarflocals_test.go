package builtin

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// localsC declares locals of every kind procedure_info.locals renders: the
// volatile ones are stored with distinctive constants at the top of the
// function, so objdump shows where each lives (the oracle of their
// storage); an array, a double, a static, and block-scoped ones.
const localsC = `#include <stdio.h>
#include <string.h>
int locals_demo(int n, const char *s) {
	volatile int total = 0x1111;
	volatile long wide = 0x2222;
	char buf[32];
	volatile short half = 0x3333;
	double ratio = 1.5;
	static int calls;
	calls++;
	for (int i = 0; i < n; i++) {
		long sq = (long)i * i;
		total += (int)sq;
	}
	strncpy(buf, s, sizeof buf - 1);
	buf[31] = 0;
	ratio *= total;
	printf("%s %d %ld %d %f %d\n", buf, total, wide, half, ratio, calls);
	return total + (int)strlen(buf);
}
int main(int argc, char **argv) { return locals_demo(argc, argv[0]) & 0x7f; }
`

// localWant is a local as the source declares it; marker is the constant
// it is initialised with (0 for none).
type localWant struct {
	typ    string
	size32 int64 // size on i386, where it differs
	size   int64
	marker string
}

var localsWant = map[string]localWant{
	"total": {typ: "volatile int", size: 4, marker: "0x1111"},
	"wide":  {typ: "volatile long int", size: 8, size32: 4, marker: "0x2222"},
	"buf":   {typ: "char[32]", size: 32},
	"half":  {typ: "volatile short int", size: 2, marker: "0x3333"},
	"ratio": {typ: "double", size: 8},
	"calls": {typ: "int", size: 4},
	"i":     {typ: "int", size: 4},
	"sq":    {typ: "long int", size: 8, size32: 4},
}

var storageForm = regexp.MustCompile(`^(stack[+-]0x[0-9a-f]+|[a-z][a-z0-9]*[+-]0x[0-9a-f]+|[a-z]+[0-9]*|0x[0-9a-f]+)$`)

// TestProcedureInfoLocalsDWARF: procedure_info.locals of a function with
// DWARF, built by gcc and clang at -O0 and -O2 (x86-64 and i386): every
// local the source declares, with its type and size; the storage of the
// volatile ones equals where objdump shows their initialising store, as an
// offset from the entry stack pointer.
func TestProcedureInfoLocalsDWARF(t *testing.T) {
	objdump := needTool(t, "objdump")
	type cell struct {
		cc, opt string
		m32     bool
		arm64   bool
		llp64   bool // long is 4 bytes (Win64)
		flags   []string
	}
	cells := []cell{
		{cc: "gcc", opt: "-O0"}, {cc: "gcc", opt: "-O2"},
		{cc: "clang", opt: "-O0"}, {cc: "clang", opt: "-O2"},
		{cc: "i686-linux-gnu-gcc", opt: "-O0", m32: true}, {cc: "i686-linux-gnu-gcc", opt: "-O2", m32: true},
		{cc: "clang", opt: "-O0", m32: true, flags: []string{"--target=i686-linux-gnu"}},
		{cc: "aarch64-linux-gnu-gcc", opt: "-O0", arm64: true}, {cc: "aarch64-linux-gnu-gcc", opt: "-O2", arm64: true},
		{cc: "clang", opt: "-O0", arm64: true, flags: []string{"--target=aarch64-linux-gnu"}},
		{cc: "clang", opt: "-O2", arm64: true, flags: []string{"--target=aarch64-linux-gnu"}},
		// PE/COFF with DWARF: REA's PE path reads it (LLP64: long is 4 bytes)
		{cc: "x86_64-w64-mingw32-gcc", opt: "-O0", llp64: true}, {cc: "x86_64-w64-mingw32-gcc", opt: "-O2", llp64: true},
	}
	for _, cl := range cells {
		name := "locals-" + cl.cc + cl.opt + strings.Join(cl.flags, "")
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			file := strings.ReplaceAll(name, "=", "-")
			if cl.llp64 {
				file += ".exe" // mingw's gcc would append it
			}
			path := keyedFixture(t, file, append([]string{"cc", cl.cc, cl.opt, localsC}, cl.flags...), func(dir, out string) (string, error) {
				if _, err := exec.LookPath(cl.cc); err != nil {
					return "tool " + cl.cc + " is not installed; install it to run this test", nil
				}
				if err := os.WriteFile(filepath.Join(dir, "l.c"), []byte(localsC), 0o644); err != nil {
					return "", err
				}
				args := append(append([]string{}, cl.flags...), cl.opt, "-g", "-o", out, "l.c")
				return "", run(dir, nil, cl.cc, args...)
			})
			_, _, c := open(t, path)
			pi := procInfo(t, c, "locals_demo")
			got := map[string]provider.LocalVar{}
			for _, l := range pi.Locals {
				if _, dup := got[l.Name]; dup {
					t.Errorf("local %s twice", l.Name)
				}
				got[l.Name] = l
				w, ok := localsWant[l.Name]
				if !ok {
					t.Errorf("local %+v is not in the source", l)
					continue
				}
				size := w.size
				if (cl.m32 || cl.llp64) && w.size32 != 0 {
					size = w.size32
				}
				// clang names long and short without gcc's "int"
				typ := strings.NewReplacer("long int", "long", "short int", "short").Replace(w.typ)
				if l.Type != w.typ && l.Type != typ || l.Size == nil || *l.Size != size || l.Provenance != "dwarf" || l.Description != l.Type+" "+l.Name {
					t.Errorf("local %s: %+v, want type %q size %d", l.Name, l, w.typ, size)
				}
				if !storageForm.MatchString(l.Storage) {
					t.Errorf("local %s: storage %q", l.Name, l.Storage)
				}
			}
			for n := range localsWant {
				_, ok := got[n]
				// -O2 may drop a folded scalar from DWARF; the volatile
				// ones and the array stay
				if !ok && (cl.opt == "-O0" || n == "total" || n == "wide" || n == "half" || n == "buf") {
					t.Errorf("local %s missing: %+v", n, pi.Locals)
				}
			}
			if cl.opt == "-O0" {
				for n, l := range got {
					if n != "calls" && !strings.HasPrefix(l.Storage, "stack-") {
						t.Errorf("-O0 local %s: storage %q, want an entry-relative stack slot", n, l.Storage)
					}
				}
			}
			if l := got["calls"]; l.Storage != "static" {
				want := provider.FormatAddress(staticAddr(t, path, "calls"))
				if l.Storage != want {
					t.Errorf("static local calls: storage %q, want %s", l.Storage, want)
				}
			}
			var oracle map[string]string
			if cl.arm64 {
				oracle = arm64MarkerSlots(t, needTool(t, "aarch64-linux-gnu-objdump"), path, "locals_demo")
			} else {
				oracle = markerSlots(t, objdump, path, "locals_demo", cl.m32)
			}
			for n, w := range localsWant {
				if w.marker == "" {
					continue
				}
				want, ok := oracle[w.marker]
				if !ok {
					t.Errorf("objdump shows no store of %s (%s)", w.marker, n)
					continue
				}
				if got[n].Storage != want {
					t.Errorf("local %s: storage %q, objdump's store is at %s", n, got[n].Storage, want)
				}
			}
			t.Logf("%s: %d locals, %v", name, len(pi.Locals), pi.Locals)
		})
	}
}

// staticAddr is the address of the static local named name (gcc names its
// symbol name.N, clang function.name).
func staticAddr(t *testing.T, path, name string) uint64 {
	t.Helper()
	out, err := exec.Command(needTool(t, "nm"), "--defined-only", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && (strings.HasPrefix(f[2], name+".") || strings.HasSuffix(f[2], "."+name)) {
			if a, err := strconv.ParseUint(f[0], 16, 64); err == nil {
				return a
			}
		}
	}
	t.Fatalf("no symbol for static %s", name)
	return 0
}

// markerSlots reads fn's disassembly and returns, for each immediate
// stored to the stack, the slot's offset from the entry stack pointer in
// procedure_info's form, tracking the stack pointer through push, pop,
// sub and add of constants and a frame pointer copied from it.
func markerSlots(t *testing.T, objdump, path, fn string, m32 bool) map[string]string {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", "--disassemble="+fn, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	slot, sp, fpReg, spReg := int64(8), "%rsp", "%rbp", "%rsp"
	if m32 {
		slot, sp, fpReg, spReg = 4, "%esp", "%ebp", "%esp"
	}
	// an immediate stored directly, or through a register it was loaded
	// into (gcc -O2 avoids a 16-bit immediate so)
	store := regexp.MustCompile(`^mov[lqw]?\s+([$%][0-9a-fx]+|%[a-z0-9]+),(-?0x[0-9a-f]+)?\((%[er][bs]p)\)$`)
	load := regexp.MustCompile(`^mov[lqw]?\s+\$(0x[0-9a-f]+),%([a-z0-9]+)$`)
	family := func(r string) string {
		return strings.TrimSuffix(strings.TrimLeft(strings.TrimPrefix(r, "%"), "re"), "x")
	}
	consts := map[string]string{}
	adjust := regexp.MustCompile(`^(sub|add)\s+\$(0x[0-9a-f]+),` + regexp.QuoteMeta(sp) + `$`)
	depth, fp, fpSet := int64(0), int64(0), false
	slots := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 2)
		if len(f) != 2 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		ins := strings.Join(strings.Fields(f[1]), " ")
		switch {
		case strings.HasPrefix(ins, "push "):
			depth -= slot
		case strings.HasPrefix(ins, "pop "):
			depth += slot
		case ins == "mov "+sp+","+fpReg:
			fp, fpSet = depth, true
		case adjust.MatchString(ins):
			m := adjust.FindStringSubmatch(ins)
			k, _ := strconv.ParseInt(m[2], 0, 64)
			if m[1] == "sub" {
				k = -k
			}
			depth += k
		case load.MatchString(ins):
			m := load.FindStringSubmatch(ins)
			consts[family(m[2])] = m[1]
		case store.MatchString(ins):
			m := store.FindStringSubmatch(ins)
			if strings.HasPrefix(m[1], "%") {
				k, ok := consts[family(m[1])]
				if !ok {
					continue
				}
				m[1] = k
			} else {
				m[1] = m[1][1:]
			}
			var off int64
			if m[2] != "" {
				off, _ = strconv.ParseInt(m[2], 0, 64)
			}
			base := depth
			if m[3] == fpReg {
				if !fpSet {
					continue
				}
				base = fp
			} else if m[3] != spReg {
				continue
			}
			if _, seen := slots[m[1]]; !seen {
				slots[m[1]] = relative("stack", base+off)
			}
		}
	}
	return slots
}

// FuzzLocalStorage: any location expression, frame base and prologue
// bytes render a storage string without panicking.
func FuzzLocalStorage(f *testing.F) {
	f.Add([]byte{opFbreg, 0x6c}, []byte{opCallFrameCFA}, []byte{0x55, 0x48, 0x89, 0xe5})
	f.Add([]byte{opBreg0 + 7, 0x10}, []byte{opReg0 + 6}, []byte{0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x57, 0x48, 0x81, 0xec, 0, 1, 0, 0})
	f.Add([]byte{opAddr, 1, 2, 3, 4}, []byte{opBreg0 + 4, 0x80}, []byte{0x55, 0x89, 0xe5, 0x83, 0xec, 0x10})
	f.Fuzz(func(t *testing.T, expr, base, prologue []byte) {
		for _, arch := range []string{"x86_64", "x86", "arm64", "arm"} {
			fb := resolveFrameBase(base, arch, 8, prologue)
			l := dwarfLocal{name: "v", typ: "int", size: 4, loc: expr}
			if s := localStorage(&l, fb, arch, 8); s == "" {
				t.Fatal("empty storage")
			}
			localStorage(&l, fb, arch, 4)
		}
	})
}

// arm64MarkerSlots is markerSlots for arm64: the stack pointer through
// stp/str pre-index and sub, immediates moved into a register and stored
// from it relative to sp or a frame pointer copied from sp.
func arm64MarkerSlots(t *testing.T, objdump, path, fn string) map[string]string {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", "--disassemble="+fn, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	pre := regexp.MustCompile(`^st[pr] .*\[sp, #-(\d+)\]!$`)
	sub := regexp.MustCompile(`^sub sp, sp, #0x([0-9a-f]+)$`)
	fpSet := regexp.MustCompile(`^(mov x29, sp|add x29, sp, #0x([0-9a-f]+))$`)
	load := regexp.MustCompile(`^mov [wx](\d+), #(0x[0-9a-f]+)`)
	store := regexp.MustCompile(`^(?:str|stur)[hb]? [wx](\d+), \[(sp|x29)(, #(-?\d+))?\]$`)
	depth, fp, haveFP := int64(0), int64(0), false
	consts := map[string]string{}
	slots := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 2)
		if len(f) != 2 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		ins, _, _ := strings.Cut(strings.Join(strings.Fields(f[1]), " "), " //")
		switch {
		case pre.MatchString(ins):
			k, _ := strconv.ParseInt(pre.FindStringSubmatch(ins)[1], 10, 64)
			depth -= k
		case sub.MatchString(ins):
			k, _ := strconv.ParseInt(sub.FindStringSubmatch(ins)[1], 16, 64)
			depth -= k
		case fpSet.MatchString(ins):
			k, _ := strconv.ParseInt("0"+fpSet.FindStringSubmatch(ins)[2], 16, 64)
			fp, haveFP = depth+k, true
		case load.MatchString(ins):
			m := load.FindStringSubmatch(ins)
			consts[m[1]] = m[2]
		case store.MatchString(ins):
			m := store.FindStringSubmatch(ins)
			k, ok := consts[m[1]]
			if !ok {
				continue
			}
			off, _ := strconv.ParseInt(m[4], 10, 64) // "" reads as 0
			base := depth
			if m[2] == "x29" {
				if !haveFP {
					continue
				}
				base = fp
			}
			if _, seen := slots[k]; !seen {
				slots[k] = relative("stack", base+off)
			}
		}
	}
	return slots
}
