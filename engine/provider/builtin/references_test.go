package builtin

import (
	"bytes"
	"context"
	"debug/elf"
	"debug/pe"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// refsFixtureC has one function, rea_ref_subject, that refers to exactly
// five strings (two of one character), two globals (one written, one read
// through an index), three imports and two procedures. The globals hold no
// bytes that read as text, and noipa keeps the helpers called, with their
// string arguments, at every optimization level.
const refsFixtureC = `#include <stdlib.h>
#include <stdio.h>

int rea_ref_counter;
int rea_ref_table[4] = {-1, -2, -3, -4};

__attribute__((noipa)) static int rea_ref_helper_a(const char *s) { return s[0] + 1; }
__attribute__((noipa)) static int rea_ref_helper_b(const char *s, const char *t) { return s[0] - t[0]; }

__attribute__((noipa)) int rea_ref_subject(int n) {
	const char *home = getenv("REA_REF_HOME");
	if (!home)
		puts("rea ref: home unset");
	remove("REA_REF_TMP");
	rea_ref_counter += rea_ref_helper_a("r") + rea_ref_table[n & 3];
	return home ? rea_ref_helper_b("\n", home) + rea_ref_counter : 0;
}

int main(int argc, char **argv) { (void)argv; return rea_ref_subject(argc); }
`

// refsFixture compiles refsFixtureC with compiler and flags.
func refsFixture(t *testing.T, name, compiler string, flags ...string) string {
	key := append([]string{"cc", compiler, refsFixtureC}, flags...)
	return keyedFixture(t, name, key, func(dir, out string) (string, error) {
		if _, err := exec.LookPath(compiler); err != nil {
			return "tool " + compiler + " is not installed; install it to run this test", nil
		}
		src := filepath.Join(dir, "refs.c")
		if err := os.WriteFile(src, []byte(refsFixtureC), 0o644); err != nil {
			return "", err
		}
		if err := run(dir, nil, compiler, append(append([]string{}, flags...), "-o", out, src)...); err != nil {
			return "", err
		}
		if _, err := os.Stat(out + ".exe"); err == nil {
			return "", os.Rename(out+".exe", out) // mingw's name
		}
		return "", nil
	})
}

// TestProcedureReferencesFixture: rea_ref_subject's references are exactly
// its source's, at the addresses nm gives and, for strings, whose bytes in
// the file are the values; on x86-64 at two optimization levels, i386 PIC
// (whose GOT base comes from a __x86.get_pc_thunk procedure, the one extra
// procedure allowed), arm64, and x86-64 PE (imports called through their
// thunks, and one through its IAT slot).
func TestProcedureReferencesFixture(t *testing.T) {
	cases := []struct {
		name, compiler, nm string
		flags              []string
	}{
		{"refs-gcc-O0", "gcc", "nm", []string{"-O0"}},
		{"refs-gcc-O2", "gcc", "nm", []string{"-O2"}},
		{"refs-i686-O2", "i686-linux-gnu-gcc", "i686-linux-gnu-nm", []string{"-O2", "-fPIE", "-pie"}},
		{"refs-aarch64-O2", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-nm", []string{"-O2"}},
		{"refs-mingw64-O2", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-nm", []string{"-O2"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if i > 1 {
				skipShortCase(t, "a cross-compiled fixture")
			}
			path := refsFixture(t, tc.name, tc.compiler, tc.flags...)
			syms := nmAddresses(t, tc.nm, path)
			_, _, c := open(t, path)
			r := do(t, c, provider.OpProcedureReferences, provider.Params{"procedure": "rea_ref_subject"}).Normalized.(provider.References)
			if r.Truncated {
				t.Error("truncated")
			}
			strAt := fileStrings(t, path)
			var values []string
			for _, s := range r.Strings {
				values = append(values, s.Value)
				if got := strAt(parseAddr(t, s.Address)); got != s.Value || s.ValueTruncated {
					t.Errorf("string at %s: %q, the file holds %q", s.Address, s.Value, got)
				}
			}
			slices.Sort(values)
			if want := []string{"\n", "REA_REF_HOME", "REA_REF_TMP", "r", "rea ref: home unset"}; !slices.Equal(values, want) {
				t.Errorf("strings %q, want %q", values, want)
			}
			wantData := []provider.RefData{}
			for _, g := range []struct{ name, section string }{{"rea_ref_counter", ".bss"}, {"rea_ref_table", ".data"}} {
				name := g.name
				wantData = append(wantData, provider.RefData{Address: provider.FormatAddress(nmAt(t, syms, g.name)), Name: &name, Section: g.section})
			}
			slices.SortFunc(wantData, func(x, y provider.RefData) int { return strings.Compare(x.Address, y.Address) })
			if len(r.Data) != 2 {
				t.Errorf("data %+v, want %+v", r.Data, wantData)
			}
			for k := 0; k < len(r.Data) && k < 2; k++ {
				g, w := r.Data[k], wantData[k]
				if g.Address != w.Address || g.Name == nil || *g.Name != *w.Name || g.Section != w.Section {
					t.Errorf("data %d: %+v (name %v), want %+v (name %s)", k, g, g.Name, w, *w.Name)
				}
				if *w.Name == "rea_ref_counter" && g.Access != "write" {
					t.Errorf("rea_ref_counter is %s, want write (it is stored to)", g.Access)
				}
			}
			var imports []string
			for _, im := range r.Imports {
				imports = append(imports, im.Name)
			}
			slices.Sort(imports)
			if want := []string{"getenv", "puts", "remove"}; !slices.Equal(imports, want) {
				t.Errorf("imports %+v, want %v", r.Imports, want)
			}
			var procs []string
			for _, p := range r.Procedures {
				if strings.HasPrefix(p.Name, "__x86.get_pc_thunk.") && tc.compiler == "i686-linux-gnu-gcc" {
					continue
				}
				procs = append(procs, p.Name)
				if want := nmAt(t, syms, p.Name); parseAddr(t, p.Address) != want {
					t.Errorf("procedure %s at %s, nm says %#x", p.Name, p.Address, want)
				}
			}
			if want := []string{"rea_ref_helper_a", "rea_ref_helper_b"}; !slices.Equal(procs, want) {
				t.Errorf("procedures %+v, want %v", r.Procedures, want)
			}
			for _, l := range [][]string{addrsOf(r.Strings, func(s provider.RefString) string { return s.Address }),
				addrsOf(r.Data, func(s provider.RefData) string { return s.Address }),
				addrsOf(r.Imports, func(s provider.RefImport) string { return s.Address }),
				addrsOf(r.Procedures, func(s provider.RefProcedure) string { return s.Address })} {
				if !slices.IsSortedFunc(l, func(x, y string) int { return compareAddr(t, x, y) }) || len(slices.Compact(slices.Clone(l))) != len(l) {
					t.Errorf("not sorted by address and unique: %v", l)
				}
			}
		})
	}
}

// nmAddresses maps the defined symbols nm lists to their addresses (COFF
// symbols have no sizes, so nm -S is not asked).
func nmAddresses(t *testing.T, tool, path string) map[string]uint64 {
	t.Helper()
	out, err := exec.Command(needTool(t, tool), "--defined-only", path).Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	m := map[string]uint64{}
	for line := range strings.SplitSeq(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			if a, err := strconv.ParseUint(f[0], 16, 64); err == nil {
				m[f[2]] = a
			}
		}
	}
	return m
}

func nmAt(t *testing.T, syms map[string]uint64, name string) uint64 {
	t.Helper()
	a, ok := syms[name]
	if !ok {
		t.Fatalf("nm: no symbol %s", name)
	}
	return a
}

// fileStrings reads NUL-terminated strings at addresses of an ELF or PE
// file's sections (debug/elf, debug/pe: independent of the provider's
// mapping).
func fileStrings(t *testing.T, path string) func(uint64) string {
	t.Helper()
	if ef, err := elf.Open(path); err == nil {
		t.Cleanup(func() { ef.Close() })
		return func(a uint64) string { return fileString(t, ef, a) }
	}
	pf, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pf.Close() })
	base := pf.OptionalHeader.(*pe.OptionalHeader64).ImageBase
	return func(a uint64) string {
		for _, s := range pf.Sections {
			if lo := base + uint64(s.VirtualAddress); a >= lo && a < lo+uint64(s.VirtualSize) {
				b, err := s.Data()
				if err != nil || a-lo >= uint64(len(b)) {
					return "<no bytes>"
				}
				b = b[a-lo:]
				if k := bytes.IndexByte(b, 0); k >= 0 {
					return string(b[:k])
				}
				return string(b)
			}
		}
		return "<no section>"
	}
}

func addrsOf[T any](items []T, f func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = f(it)
	}
	return out
}

func compareAddr(t *testing.T, x, y string) int {
	a, b := parseAddr(t, x), parseAddr(t, y)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fileString reads the NUL-terminated bytes at address a of the file's
// sections (debug/elf: independent of the provider's mapping).
func fileString(t *testing.T, f *elf.File, a uint64) string {
	t.Helper()
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS || a < s.Addr || a >= s.Addr+s.Size {
			continue
		}
		b, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		b = b[a-s.Addr:]
		if k := strings.IndexByte(string(b), 0); k >= 0 {
			return string(b[:k])
		}
		return string(b)
	}
	return "<no section>"
}

// TestProcedureReferencesObjdump: on every procedure of Debian's ssh and
// curl, procedure_references' strings equal the strings its instructions
// refer to per objdump: objdump -d's `# <address>` operands of the
// instructions REA decodes for the procedure, kept where the file's bytes
// there (debug/elf sections, allocated, with contents, not executable) are
// a NUL-terminated text of at least one character (oracleText). -short:
// every 25th procedure of ssh.
func TestProcedureReferencesObjdump(t *testing.T) {
	od := needTool(t, "objdump")
	for _, s := range []struct{ path, pkg string }{{"/usr/bin/ssh", "openssh-client"}, {"/usr/bin/curl", "curl"}} {
		t.Run(filepath.Base(s.path), func(t *testing.T) {
			if s.pkg == "curl" {
				skipShortCase(t, "a second binary")
			}
			if _, err := os.Stat(s.path); err != nil {
				msg := s.path + " is not installed (Debian package " + s.pkg + "): " + err.Error()
				if requireAll() {
					t.Fatal(msg)
				}
				t.Skip(msg)
			}
			checkReferencesObjdump(t, od, s.path)
		})
	}
}

var odOperand = regexp.MustCompile(`^\s*([0-9a-f]+):\t.*#\s+([0-9a-f]+)(?: <.*>)?$`)

// objdumpOperands maps each instruction address to the address objdump's
// `#` comment gives for its operand, and lists objdump's instruction starts.
func objdumpOperands(t *testing.T, od, path string) (map[uint64]uint64, map[uint64]bool) {
	out, err := exec.Command(od, "-d", "-w", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatalf("%s -d %s: %v", od, path, err)
	}
	ops, starts := map[uint64]uint64{}, map[uint64]bool{}
	for line := range strings.SplitSeq(string(out), "\n") {
		if l := odLine.FindStringSubmatch(line); l != nil {
			a, _ := strconv.ParseUint(l[1], 16, 64)
			starts[a] = true
		}
		if m := odOperand.FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			v, _ := strconv.ParseUint(m[2], 16, 64)
			ops[a] = v
		}
	}
	return ops, starts
}

// oracleText is the text stored at a per the file: bytes of an allocated,
// non-executable section with contents, up to a NUL within 4096 bytes, at
// least one, each character printable or one of \t \n \r \a \b \f \v ESC.
func oracleText(f *elf.File, a uint64) (string, bool) {
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR != 0 || s.Type == elf.SHT_NOBITS || a < s.Addr || a >= s.Addr+s.Size {
			continue
		}
		b, err := s.Data()
		if err != nil {
			return "", false
		}
		b = b[a-s.Addr:]
		b = b[:min(len(b), 4096)]
		k := bytes.IndexByte(b, 0)
		if k < 1 || !utf8.Valid(b[:k]) {
			return "", false
		}
		for _, r := range string(b[:k]) {
			if !unicode.IsPrint(r) && !strings.ContainsRune("\t\n\r\a\b\f\v\x1b", r) {
				return "", false
			}
		}
		return string(b[:k]), true
	}
	return "", false
}

// importSlots are the x86-64 GOT slots the dynamic loader fills with an
// import's address (R_X86_64_GLOB_DAT and JUMP_SLOT relocations, read from
// the file's SHT_RELA sections).
func importSlots(t *testing.T, f *elf.File) map[uint64]bool {
	slots := map[uint64]bool{}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA {
			continue
		}
		b, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		for ; len(b) >= 24; b = b[24:] {
			if typ := elf.R_X86_64(f.ByteOrder.Uint64(b[8:]) & 0xffffffff); typ == elf.R_X86_64_GLOB_DAT || typ == elf.R_X86_64_JMP_SLOT {
				slots[f.ByteOrder.Uint64(b)] = true
			}
		}
	}
	return slots
}

func checkReferencesObjdump(t *testing.T, od, path string) {
	ops, starts := objdumpOperands(t, od, path)
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	_, _, pcl := open(t, path)
	c := pcl.(*Client)
	ctx := context.Background()
	six, ex, err := c.extents(ctx, "test", progress.OrNop(nil))
	if err != nil {
		t.Fatal(err)
	}
	slots := importSlots(t, ef)
	procs, compared, strs, unmatched, slotOps := 0, 0, 0, 0, 0
	for k := range six.entries {
		if testing.Short() && k%25 != 0 {
			continue
		}
		e := six.syms[six.procs[six.entries[k]]].addr
		if _, ok := c.codeAt(e); !ok {
			continue
		}
		procs++
		pc, err := c.decodeProc(ctx, "test", six, ex, e, false)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, it := range pc.insns {
			if !starts[it.addr] {
				unmatched++ // REA and objdump disagree on where an instruction starts
				continue
			}
			compared++
			if v, ok := ops[it.addr]; ok {
				if slots[v] {
					slotOps++ // an import slot is an import, whatever its bytes
					continue
				}
				if s, ok := oracleText(ef, v); ok {
					want[provider.FormatAddress(v)] = s
				}
			}
		}
		r := do(t, c, provider.OpProcedureReferences, provider.Params{"procedure": provider.FormatAddress(e)}).Normalized.(provider.References)
		if r.Truncated {
			t.Errorf("%#x: truncated", e)
		}
		got := map[string]string{}
		for _, s := range r.Strings {
			got[s.Address] = s.Value
		}
		strs += len(want)
		for a, v := range want {
			if g, ok := got[a]; !ok || g != v && !(len(v) > maxValueLen && strings.HasPrefix(v, g)) {
				t.Errorf("%#x: objdump's string %s %q; REA %q (present %v)", e, a, v, g, ok)
			}
		}
		for a, v := range got {
			if _, ok := want[a]; !ok {
				t.Errorf("%#x: REA's string %s %q is no string operand per objdump", e, a, v)
			}
		}
	}
	t.Logf("%s: %d procedures, %d instructions compared (%d at no objdump instruction start), %d string references, %d operands at import slots",
		path, procs, compared, unmatched, strs, slotOps)
	if strs == 0 {
		t.Fatal("no string reference compared")
	}
}

// TestProcedureReferencesTruncated: a function referring to 90 strings of
// 1,000 characters (90 KB of values) answers within the byte budget, says
// truncated, and lists every reference below one address and none above
// it: each string it lists is one of the source's, in address order, and
// the first one left out lies above the last one listed.
func TestProcedureReferencesTruncated(t *testing.T) {
	var src strings.Builder
	src.WriteString("#include <stdio.h>\nvoid rea_many(void) {\n")
	for i := range 90 {
		fmt.Fprintf(&src, "\tputs(\"%02d%s\");\n", i, strings.Repeat(string(rune('a'+i%26)), 998))
	}
	src.WriteString("}\nint main(void) { rea_many(); return 0; }\n")
	path := keyedFixture(t, "refs-many", []string{"cc", "gcc", src.String()}, func(dir, out string) (string, error) {
		if _, err := exec.LookPath("gcc"); err != nil {
			return "tool gcc is not installed; install it to run this test", nil
		}
		if err := os.WriteFile(filepath.Join(dir, "many.c"), []byte(src.String()), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, "gcc", "-O1", "-o", out, "many.c")
	})
	_, _, c := open(t, path)
	r := do(t, c, provider.OpProcedureReferences, provider.Params{"procedure": "rea_many"}).Normalized.(provider.References)
	b, err := canon.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || len(b) > provider.ResultBudget || len(r.Strings) == 0 || len(r.Strings) >= 90 {
		t.Fatalf("truncated %v, %d bytes, %d strings", r.Truncated, len(b), len(r.Strings))
	}
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	var last uint64
	for _, s := range r.Strings {
		a := parseAddr(t, s.Address)
		if a <= last || fileString(t, ef, a) != s.Value || len(s.Value) != 1000 {
			t.Errorf("string %s (%d bytes) out of order or not the file's", s.Address, len(s.Value))
		}
		last = a
	}
	// puts is at a lower address (.plt) than .rodata: listed; nothing of
	// .rodata above the last string is.
	if len(r.Imports) != 1 || r.Imports[0].Name != "puts" || len(r.Data) != 0 {
		t.Errorf("imports %+v, data %+v", r.Imports, r.Data)
	}
	t.Logf("%d of 90 strings in %d bytes", len(r.Strings), len(b))
}
