package builtin

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// goTool is the go command of the running toolchain.
func goTool(t *testing.T) string {
	t.Helper()
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		return needTool(t, "go")
	}
	return goBin
}

// goTextSymbols are the T/t symbols `go tool nm -size` lists in path: the
// oracle of Go procedure starts, names and sizes.
func goTextSymbols(t *testing.T, path string) map[uint64]goTextSym {
	t.Helper()
	out, err := exec.Command(goTool(t), "tool", "nm", "-size", path).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "no symbols") {
			return nil
		}
		t.Fatalf("go tool nm %s: %v: %s", path, err, out)
	}
	m := map[uint64]goTextSym{}
	for _, ln := range strings.Split(string(out), "\n") {
		f := strings.Fields(ln)
		if len(f) < 4 || f[2] != "T" && f[2] != "t" {
			continue
		}
		a, err1 := strconv.ParseUint(f[0], 16, 64)
		size, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		s := m[a]
		s.names = append(s.names, strings.Join(f[3:], " "))
		s.size = max(s.size, size)
		m[a] = s
	}
	return m
}

type goTextSym struct {
	names []string
	size  uint64
}

// goNameAgrees reports whether a pclntab name is one of the symbol names:
// the symbol table adds the ABI suffix of assembly functions
// (runtime.rt0_go.abi0) and, on Mach-O, a leading underscore.
func goNameAgrees(name string, syms []string) bool {
	// The table writes the middle dot of generated names
	// (type:.eq.T·7) that the symbol table spells with a dot.
	name = strings.ReplaceAll(name, "·", ".")
	for _, s := range syms {
		s = strings.ReplaceAll(strings.TrimSuffix(s, ".abi0"), "·", ".")
		if s == name || "_"+s == name || s == "_"+name {
			return true
		}
	}
	return false
}

// TestGoRecall (issue 13 item 3): a Go program for linux, windows and
// darwin on amd64 and arm64, stripped (-ldflags=-s -w) and not. The
// procedure starts REA finds must be the text symbols `go tool nm` lists in
// the unstripped twin (recall and precision 100% with symbols, >= 99.5%
// stripped: runtime.etext, the symbol marking the end of the code, is no
// function of the table), named by the function table with the symbol's name; the
// stripped main.main has source "default" (pclntab), its size is the
// symbol's, and procedure_info gives its source position.
func TestGoRecall(t *testing.T) {
	for _, goos := range []string{"linux", "windows", "darwin"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			t.Run(goos+"-"+goarch, func(t *testing.T) {
				if goos+goarch != "linuxamd64" {
					skipShortCase(t, "builds the Go fixture for another GOOS/GOARCH (its standard library too, on a cold build cache)")
				}
				t.Parallel()
				full := goMainFixture(t, goos, goarch, false)
				stripped := goMainFixture(t, goos, goarch, true)
				want := goTextSymbols(t, full)
				if len(want) < 1000 {
					t.Fatalf("only %d text symbols in %s", len(want), full)
				}
				if n := len(goTextSymbols(t, stripped)); n != 0 {
					t.Fatalf("%s keeps %d text symbols", stripped, n)
				}
				for _, path := range []string{full, stripped} {
					_, _, c := open(t, path)
					got := map[uint64]provider.ProcedureItem{}
					for _, p := range allProcedures(t, c) {
						if p.Procedure.External {
							continue // an import stub (Mach-O __stubs): no symbol of the program
						}
						a, err := provider.ParseAddress(p.Address)
						if err != nil {
							t.Fatal(err)
						}
						got[a] = p
					}
					hit, misnamed := 0, 0
					for a, s := range want {
						p, ok := got[a]
						if !ok {
							t.Logf("missed %#x %v", a, s.names)
							continue
						}
						hit++
						names := append([]string{p.Value}, p.Aliases...)
						agree := false
						for _, n := range names {
							agree = agree || goNameAgrees(n, s.names)
						}
						if !agree {
							misnamed++
							if misnamed <= 10 {
								t.Logf("%#x is named %v, go tool nm %v", a, names, s.names)
							}
						}
					}
					extra := 0
					for a, p := range got {
						if _, ok := want[a]; !ok {
							extra++
							if extra <= 10 {
								t.Logf("extra %#x %s", a, p.Value)
							}
						}
					}
					recall := float64(hit) / float64(len(want))
					precision := float64(hit) / float64(len(got))
					t.Logf("%s: %d text symbols, %d procedures, %d agree, %d misnamed: recall %.3f%% precision %.3f%%",
						filepath.Base(path), len(want), len(got), hit, misnamed, 100*recall, 100*precision)
					min := 0.995
					if path == full {
						min = 1
					}
					if recall < min || precision < min {
						t.Errorf("recall %.3f%% / precision %.3f%%, want >= %.1f%%", 100*recall, 100*precision, 100*min)
					}
					if float64(misnamed) > 0.005*float64(hit) {
						t.Errorf("%d of %d procedures are not named as the symbol table names them", misnamed, hit)
					}
					if path != stripped {
						continue
					}
					mm := nmAddrs(t, []string{goTool(t), "tool", "nm"}, full)
					mainSym := "main.main"
					if len(mm[mainSym]) != 1 {
						t.Fatalf("go tool nm %s: %x", mainSym, mm[mainSym])
					}
					checkMainNamed(t, c, "main.main", mm[mainSym][0], "default")
					pi := procInfo(t, c, "main.main")
					if pi.Source == nil || pi.Source.File != "fixture/main.go" || pi.Source.Line != 13 {
						t.Errorf("procedure_info main.main source %+v, want fixture/main.go:13", pi.Source)
					}
					if w := want[mm[mainSym][0]].size; goos == "linux" && pi.Length != w { // only ELF symbols have sizes
						t.Errorf("procedure_info main.main length %d, symbol size %d", pi.Length, w)
					}
				}
			})
		}
	}
}

// TestGoDamagedTable: a .gopclntab that does not parse is named in the
// Evidence limitations (item 8) instead of silently losing every function.
func TestGoDamagedTable(t *testing.T) {
	path := goMainFixture(t, "linux", "amd64", true)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".gopclntab")
	if s == nil {
		t.Fatal("no .gopclntab")
	}
	copy(data[s.Offset:], "\x00\x00\x00\x00") // the magic
	damaged := filepath.Join(t.TempDir(), "damaged")
	if err := os.WriteFile(damaged, data, 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, c := open(t, damaged)
	r := do(t, c, provider.OpListProcedures, provider.Params{})
	if !slices.ContainsFunc(r.Limitations, func(l string) bool { return strings.Contains(l, "Go function table (.gopclntab) could not be read") }) {
		t.Errorf("limitations %q do not name the unread Go function table", r.Limitations)
	}
	prof, err := New("v1").Profile(t.Context(), targetFor(t, damaged))
	if err != nil {
		t.Fatal(err)
	}
	if disc, _ := prof.Parameters["function_discovery"].([]any); slices.Contains(disc, any("pclntab")) {
		t.Errorf("function_discovery %v names the unread pclntab", disc)
	}
}
