package builtin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

func procInfo(t *testing.T, c provider.Client, proc string) provider.ProcedureInfoResult {
	t.Helper()
	return do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": proc, "document": nil}).Normalized.(provider.ProcedureInfoResult)
}

func TestProcedureInfoDWARF(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	a2l := needTool(t, "addr2line")
	syms := nmSymbols(t, path)
	_, _, c := open(t, path)
	for _, fn := range []string{"main", "rea_add", "rea_mul", "rea_static_helper"} {
		s := nmFind(t, syms, fn)
		out, err := exec.Command(a2l, "-e", path, strconv.FormatUint(s.addr, 16)).Output()
		if err != nil {
			t.Fatal(err)
		}
		file, line, _ := strings.Cut(strings.TrimSpace(string(out)), ":")
		ln, _ := strconv.Atoi(strings.Fields(line)[0])
		pi := procInfo(t, c, fn)
		if pi.Name != fn || pi.Entrypoint != provider.FormatAddress(s.addr) || pi.Length != s.size ||
			pi.BasicblockCount != 1 || pi.Locals == nil || len(pi.Locals) != 0 ||
			pi.Classification == nil || pi.Classification.External || pi.Classification.Thunk || pi.Classification.Provenance != "symbols" {
			t.Errorf("%s: %+v (nm %+v)", fn, pi, s)
		}
		if pi.Source == nil || pi.Source.Line != ln || filepath.Base(pi.Source.File) != filepath.Base(file) {
			t.Errorf("%s: source %+v, addr2line %s:%d", fn, pi.Source, file, ln)
		}
		// DWARF is the prototype's source of truth; signature is its text.
		if pi.Prototype == nil || pi.Prototype.Source != "dwarf" || pi.Signature == nil || pi.Frame == nil {
			t.Errorf("%s: prototype %+v signature %v frame %+v", fn, pi.Prototype, pi.Signature, pi.Frame)
		} else if want := wantSignature[fn]; *pi.Signature != want {
			t.Errorf("%s: signature %q, want %q", fn, *pi.Signature, want)
		}
	}
	// An import stub: external thunk from the imports.
	stubs := 0
	for _, p := range allProcedures(t, c) {
		if p.Value == "puts@plt" {
			stubs++
			pi := procInfo(t, c, p.Address)
			if !pi.Classification.External || !pi.Classification.Thunk || pi.Classification.Provenance != "imports" || pi.Length == 0 || pi.Source != nil {
				t.Errorf("puts stub: %+v", pi)
			}
		}
	}
	if stubs != 1 {
		t.Errorf("%d procedures named puts@plt", stubs)
	}
}

func TestProcedureInfoBasicBlocks(t *testing.T) {
	path := fixture(t, "gcc-branchy", func(dir, out string) (string, error) {
		if _, err := exec.LookPath("gcc"); err != nil {
			return "tool gcc is not installed; install it to run this test", nil
		}
		src := "int branchy(int x) { if (x > 3) return x * 2; return x - 1; }\n" +
			"int loop(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n" +
			"int main(int c, char **v) { return branchy(c) + loop(c); }\n"
		if err := os.WriteFile(filepath.Join(dir, "b.c"), []byte(src), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, "gcc", "-O0", "-fcf-protection=none", "-o", out, "b.c")
	})
	_, _, c := open(t, path)
	// branchy: test+jle | then; jmp | else | join; ret.
	// loop: init; jmp cond | body | cond: cmp; jl body | ret.
	for fn, want := range map[string]int{"branchy": 4, "loop": 4, "main": 1} {
		if pi := procInfo(t, c, fn); pi.BasicblockCount != want || pi.Source != nil {
			t.Errorf("%s: %d basic blocks, want %d (%+v)", fn, pi.BasicblockCount, want, pi)
		}
	}
}

func TestProcedureInfoStripped(t *testing.T) {
	path := cFixture(t, "gcc-O2-stripped", "gcc", "-O2", "-s")
	_, _, c := open(t, path)
	pi := procInfo(t, c, "entry")
	if pi.Name != "entry" || pi.Length == 0 || pi.BasicblockCount < 1 || pi.Source != nil || pi.Classification.Provenance != "analysis" {
		t.Errorf("entry: %+v", pi)
	}
	// The entry's extent is its FDE; a procedure no FDE describes is
	// measured by recursive descent, and says so.
	fd := descentProc(t, c, allProcedures(t, c))
	r := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": fd.Procedure.Address})
	found := false
	for _, l := range r.Limitations {
		found = found || strings.Contains(l, "recursive descent")
	}
	if !found {
		t.Errorf("limitations %v", r.Limitations)
	}
}

// wantSignature is the fixture's source, as procedure_info renders DWARF's
// prototypes.
var wantSignature = map[string]string{
	"main":              "int main(int argc, char **argv)",
	"rea_add":           "int rea_add(int a, int b)",
	"rea_mul":           "int rea_mul(int a, int b)",
	"rea_static_helper": "int rea_static_helper(const char *s)",
}
