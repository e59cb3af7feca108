package builtin

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/provider"
)

// objdumpCallTargets returns the direct call targets objdump -d shows
// inside [lo, hi).
func objdumpCallTargets(t *testing.T, objdump, path string, lo, hi uint64) map[uint64]bool {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatalf("%s -d %s: %v", objdump, path, err)
	}
	re := regexp.MustCompile(`\s(?:call|calll|callq|bl)\s+(?:0x)?([0-9a-f]+)\b`)
	want := map[uint64]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := re.FindSubmatch(sc.Bytes())
		if m == nil {
			continue
		}
		a, err := strconv.ParseUint(string(m[1]), 16, 64)
		if err == nil && a >= lo && a < hi {
			want[a] = true
		}
	}
	return want
}

// objdumpJumpTables returns the tables i386 `jmp *ADDR(,%reg,4)`
// instructions index, as objdump -d shows them.
func objdumpJumpTables(t *testing.T, objdump, path string) map[uint64]bool {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatalf("%s -d %s: %v", objdump, path, err)
	}
	re := regexp.MustCompile(`\sjmp\s+\*0x([0-9a-f]+)\(,%e[a-z]{2},4\)`)
	tabs := map[uint64]bool{}
	for _, m := range re.FindAllSubmatch(out, -1) {
		if a, err := strconv.ParseUint(string(m[1]), 16, 64); err == nil {
			tabs[a] = true
		}
	}
	if len(tabs) == 0 {
		t.Fatal("objdump shows no jump table: the check would be vacuous")
	}
	return tabs
}

// procStarts returns the addresses of the procedures of c.
func procStarts(t *testing.T, c provider.Client) map[uint64]bool {
	t.Helper()
	got := map[uint64]bool{}
	for _, p := range allProcedures(t, c) {
		a, err := provider.ParseAddress(p.Address)
		if err != nil {
			t.Fatal(err)
		}
		got[a] = true
	}
	return got
}

// TestPEi386CallTargetsAreProcedures: on an i386 PE without .pdata every
// direct call target inside .text that objdump shows is a procedure
// (issue 27 item 7): Debian python3-distlib's t32.exe and w32.exe (MSVC
// CRT); and the same on its x86-64 launchers, whose .pdata the descent
// complements.
func TestPEi386CallTargetsAreProcedures(t *testing.T) {
	for _, name := range []string{"t32.exe", "w32.exe", "t64.exe", "w64.exe"} {
		t.Run(name, func(t *testing.T) { peCallTargetsAreProcedures(t, name) })
	}
}

func peCallTargetsAreProcedures(t *testing.T, name string) {
	path := "/usr/lib/python3/dist-packages/distlib/" + name
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" {
			t.Fatalf("%s: %v (Debian python3-distlib)", path, err)
		}
		t.Skipf("%s: %v (Debian python3-distlib)", path, err)
	}
	objdump := needTool(t, "objdump")
	lo, hi := peText(t, path)
	want := objdumpCallTargets(t, objdump, path, lo, hi)
	_, _, c := open(t, path)
	got := procStarts(t, c)
	hit := 0
	for a := range want {
		if got[a] {
			hit++
		} else {
			t.Logf("missing %#x", a)
		}
	}
	// MSVC keeps i386 jump tables in .text; the instruction that indexes
	// one names it with a relocated operand, which is no procedure.
	if strings.Contains(name, "32") {
		for a := range objdumpJumpTables(t, objdump, path) {
			if got[a] {
				t.Errorf("jump table %#x is a procedure", a)
			}
		}
	}
	share := float64(hit) / float64(len(want))
	t.Logf("%s: %d of %d direct call targets in .text are procedures (%.4f); %d procedures", name, hit, len(want), share, len(got))
	if share < 0.99 {
		t.Errorf("share %.4f < 0.99", share)
	}
}

// TestPEi386CorpusCallTargets: a mingw i686 build of the signature corpus
// (engine/internal/corpus) without unwind tables, stripped: ≥ 99% of
// objdump's direct call targets inside .text are procedures (issue 27 item
// 7), and every procedure found is a function of the unstripped twin
// (precision ≥ 99%, against its nm text symbols).
func TestPEi386CorpusCallTargets(t *testing.T) { mingwCorpusCallTargets(t, "i686-w64-mingw32-") }

// TestPEx64CorpusCallTargets is TestPEi386CorpusCallTargets for a mingw
// x86-64 build: without unwind tables mingw emits no .pdata for the
// corpus's functions, so discovery is the descent's and the data's.
func TestPEx64CorpusCallTargets(t *testing.T) { mingwCorpusCallTargets(t, "x86_64-w64-mingw32-") }

func mingwCorpusCallTargets(t *testing.T, prefix string) {
	cc := needTool(t, prefix+"gcc")
	strip := needTool(t, prefix+"strip")
	objdump := needTool(t, "objdump")
	levels := []string{"-O2"}
	if !testing.Short() {
		levels = []string{"-O0", "-O1", "-O2", "-O3"}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "corpus.c")
	if err := os.WriteFile(src, []byte(corpus.Source()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range levels {
		t.Run(opt, func(t *testing.T) {
			full, stripped := filepath.Join(dir, "c"+opt+".exe"), filepath.Join(dir, "c"+opt+"-s.exe")
			if err := run(dir, nil, cc, opt, "-w", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-o", full, src); err != nil {
				t.Fatal(err)
			}
			if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
				t.Fatal(err)
			}
			lo, hi := peText(t, stripped)
			want := objdumpCallTargets(t, objdump, stripped, lo, hi)
			_, _, c := open(t, stripped)
			got := procStarts(t, c)
			hit := 0
			for a := range want {
				if got[a] {
					hit++
				} else {
					t.Logf("call target %#x is no procedure", a)
				}
			}
			// The oracle of precision: the twin's text symbols (functions
			// and the assembly labels of the runtime).
			funcs := map[uint64]bool{}
			for _, as := range nmAddrs(t, []string{prefix + "nm"}, full) {
				for _, a := range as {
					funcs[a] = true
				}
			}
			inText, right := 0, 0
			for a := range got {
				if a < lo || a >= hi {
					continue
				}
				inText++
				if funcs[a] {
					right++
				} else {
					t.Logf("procedure %#x is no symbol of the twin", a)
				}
			}
			share, prec := float64(hit)/float64(len(want)), float64(right)/float64(inText)
			t.Logf("%s: %d of %d call targets are procedures (%.4f); %d of %d procedures in .text are twin symbols (%.4f)",
				opt, hit, len(want), share, right, inText, prec)
			if share < 0.99 {
				t.Errorf("call-target share %.4f < 0.99", share)
			}
			if prec < 0.99 {
				t.Errorf("precision %.4f < 0.99", prec)
			}
		})
	}
}
