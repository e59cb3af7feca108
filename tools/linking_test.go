package tools_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

type dependencyItem struct {
	Name          string  `json:"name"`
	Kind          string  `json:"kind"`
	CandidatePath *string `json:"candidate_path"`
	Resolved      *struct {
		TargetID string `json:"target_id"`
		Path     string `json:"path"`
	} `json:"resolved"`
}

type importAnswer struct {
	Import struct {
		Name    string  `json:"name"`
		Version *string `json:"version"`
		Library *string `json:"library"`
		Address *string `json:"address"`
	} `json:"import"`
	Resolution *struct {
		TargetID    string `json:"target_id"`
		LibraryPath string `json:"library_path"`
		Procedure   struct {
			Address string `json:"address"`
			Name    string `json:"name"`
		} `json:"procedure"`
	} `json:"resolution"`
	Reason *string `json:"reason"`
}

func dependenciesOf(t *testing.T, s *session, target string) ([]dependencyItem, string) {
	t.Helper()
	r := s.ok("list_dependencies", map[string]any{"target": target})
	body := decode[struct {
		Result []dependencyItem `json:"result"`
	}](t, r.Structured)
	return body.Result, evidenceIDOf(t, r.Structured)
}

func evidenceIDOf(t *testing.T, raw []byte) string {
	t.Helper()
	return decode[struct {
		Evidence struct {
			EvidenceID string `json:"evidence_id"`
		} `json:"evidence"`
	}](t, raw).Evidence.EvidenceID
}

func resolveImport(t *testing.T, s *session, args map[string]any) importAnswer {
	t.Helper()
	return decode[struct {
		Result importAnswer `json:"result"`
	}](t, s.ok("resolve_import", args).Structured).Result
}

// recordParameters is the recorded parameters of one Evidence id.
func recordParameters(t *testing.T, s *session, id string) map[string]any {
	t.Helper()
	b := decode[struct {
		Result struct {
			Bundle struct {
				Records []struct {
					Parameters map[string]any `json:"parameters"`
				} `json:"records"`
			} `json:"bundle"`
		} `json:"result"`
	}](t, s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{id}}).Structured)
	if len(b.Result.Bundle.Records) != 1 {
		t.Fatalf("bundle of %s has %d records", id, len(b.Result.Bundle.Records))
	}
	return b.Result.Bundle.Records[0].Parameters
}

// lddPaths is what ldd prints for path: soname → resolved path.
func lddPaths(t *testing.T, path string) map[string]string {
	t.Helper()
	out, err := exec.Command(testkit.Need(t, "ldd"), path).Output()
	if err != nil {
		t.Fatalf("ldd %s: %v", path, err)
	}
	m := map[string]string{}
	re := regexp.MustCompile(`^\s*(\S+) => (/\S+) \(0x`)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if g := re.FindStringSubmatch(sc.Text()); g != nil {
			m[g[1]] = g[2]
		}
	}
	return m
}

// nmSymbol is one line of nm -D.
type nmSymbol struct {
	kind          byte
	name, version string // version "" when unversioned
	hidden        bool   // sym@VER (not @@VER): a non-default version
	addr          uint64
}

func nmDynamic(t *testing.T, path string, args ...string) []nmSymbol {
	t.Helper()
	out, err := exec.Command(testkit.Need(t, "nm"), append([]string{"-D"}, append(args, path)...)...).Output()
	if err != nil {
		t.Fatalf("nm -D %s: %v", path, err)
	}
	var syms []nmSymbol
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		var s nmSymbol
		switch len(f) {
		case 2:
			s.kind = f[0][0]
		case 3:
			s.kind = f[1][0]
			s.addr, _ = strconv.ParseUint(f[0], 16, 64)
		default:
			continue
		}
		name := f[len(f)-1]
		if i := strings.Index(name, "@@"); i >= 0 {
			s.name, s.version = name[:i], name[i+2:]
		} else if i := strings.Index(name, "@"); i >= 0 {
			s.name, s.version, s.hidden = name[:i], name[i+1:], true
		} else {
			s.name = name
		}
		syms = append(syms, s)
	}
	return syms
}

// appNeeded is the application fixture's DT_NEEDED order, which is also
// the loader's search order for its symbols.
var appNeeded = []string{"libone.so", "libtwo.so.1", "libc.so.6"}

// hostLinkage is what the host's own tools say about the application
// fixture: ldd's paths, nm -D's imports of the program and definitions of
// each library, objdump's PLT stubs.
type hostLinkage struct {
	ldd     map[string]string // soname → path
	defined map[string][]nmSymbol
	imports []nmSymbol // nm -D --undefined-only of the program
	stubs   []pltStub
}

type pltStub struct {
	addr uint64
	name string // <name@plt>
}

func linkageOf(t *testing.T, exe string) *hostLinkage {
	t.Helper()
	l := &hostLinkage{ldd: lddPaths(t, exe), defined: map[string][]nmSymbol{}, imports: nmDynamic(t, exe, "--undefined-only")}
	for _, so := range appNeeded {
		if l.ldd[so] == "" {
			t.Fatalf("ldd %s does not find %s: %v", exe, so, l.ldd)
		}
		l.defined[so] = nmDynamic(t, l.ldd[so], "--defined-only")
	}
	out, err := exec.Command(testkit.Need(t, "objdump"), "-d", "--section=.plt.sec", "--section=.plt", exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range regexp.MustCompile(`(?m)^([0-9a-f]+) <([^@>]+)@plt>:`).FindAllStringSubmatch(string(out), -1) {
		a, _ := strconv.ParseUint(st[1], 16, 64)
		l.stubs = append(l.stubs, pltStub{a, st[2]})
	}
	if len(l.stubs) < 5 {
		t.Fatalf("objdump shows %d PLT stubs", len(l.stubs))
	}
	return l
}

// definition is the library, in search order, whose nm -D --defined-only
// gives name at version ("" = the default version), and its address.
func (l *hostLinkage) definition(name, version string) (so string, addr uint64, ok bool) {
	for _, so := range appNeeded {
		for _, d := range l.defined[so] {
			if d.name != name {
				continue
			}
			if version == "" && d.hidden || version != "" && d.version != version {
				continue
			}
			return so, d.addr, true
		}
	}
	return "", 0, false
}

// query is the resolve_import name of an nm -D import: name@VERSION.
func (u nmSymbol) query() string {
	if u.version != "" {
		return u.name + "@" + u.version
	}
	return u.name
}

// TestApplicationWithLibraries is issue 14's acceptance flow for ELF: a C
// program linking two libraries it builds; list_dependencies equals ldd;
// opened by those paths, every import of the program resolves to the
// library and address nm -D --defined-only gives, by name and by PLT stub.
func TestApplicationWithLibraries(t *testing.T) {
	dir, exe, _, _ := testkit.AppWithLibraries(t)
	host := linkageOf(t, exe)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	app := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": exe}).Structured).Result.TargetID

	deps, _ := dependenciesOf(t, s, app)
	var names []string
	for _, d := range deps {
		names = append(names, d.Name)
		if d.CandidatePath == nil || *d.CandidatePath != host.ldd[d.Name] || d.Resolved != nil {
			t.Fatalf("dependency %s: candidate %v resolved %v; ldd says %s", d.Name, d.CandidatePath, d.Resolved, host.ldd[d.Name])
		}
	}
	if strings.Join(names, " ") != strings.Join(appNeeded, " ") {
		t.Fatalf("dependencies %v", names)
	}

	// Open every dependency by its candidate path.
	libs := map[string]string{} // soname → target id
	for _, d := range deps {
		libs[d.Name] = decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": *d.CandidatePath}).Structured).Result.TargetID
	}
	deps, id := dependenciesOf(t, s, app)
	for _, d := range deps {
		if d.Resolved == nil || d.Resolved.TargetID != libs[d.Name] {
			t.Fatalf("dependency %s resolved to %+v, want %s", d.Name, d.Resolved, libs[d.Name])
		}
	}
	if c, _ := recordParameters(t, s, id)["consulted"].([]any); len(c) != 3 {
		t.Fatalf("consulted %v, want the three libraries", c)
	}

	resolved := 0
	for _, u := range host.imports {
		query := u.query()
		ans := resolveImport(t, s, map[string]any{"target": app, "name": query})
		so, addr, ok := host.definition(u.name, u.version)
		if !ok {
			if ans.Resolution != nil || ans.Reason == nil || *ans.Reason != "symbol_not_exported" {
				t.Errorf("%s: no library defines it, answer %+v", query, ans)
			}
			continue
		}
		if ans.Resolution == nil {
			t.Errorf("%s: unresolved (%v), want %s at %#x", query, ans.Reason, so, addr)
			continue
		}
		if ans.Resolution.TargetID != libs[so] || ans.Resolution.Procedure.Address != fmt.Sprintf("0x%x", addr) {
			t.Errorf("%s: resolved to %s %s, want %s %#x", query, ans.Resolution.TargetID, ans.Resolution.Procedure.Address, libs[so], addr)
		}
		if ans.Import.Name != u.name || (u.version != "") != (ans.Import.Version != nil) {
			t.Errorf("%s: import described as %+v", query, ans.Import)
		}
		resolved++
	}
	if resolved < 8 {
		t.Fatalf("only %d imports resolved", resolved)
	}

	// By PLT stub address: objdump's <sym@plt> labels.
	for _, st := range host.stubs {
		ans := resolveImport(t, s, map[string]any{"target": app, "address": fmt.Sprintf("0x%x", st.addr)})
		byName := resolveImport(t, s, map[string]any{"target": app, "name": ans.Import.Name})
		if ans.Import.Name != st.name || ans.Resolution == nil || byName.Resolution == nil || *ans.Resolution != *byName.Resolution {
			t.Errorf("stub %#x <%s@plt>: %+v (by name %+v)", st.addr, st.name, ans, byName)
		}
	}
	// Not an import: a defined procedure of the program.
	if ans := resolveImport(t, s, map[string]any{"target": app, "name": "main"}); ans.Reason == nil || *ans.Reason != "not_an_import" {
		t.Errorf("main: %+v", ans)
	}
	// Close libtwo: its imports are library_not_open now, and the Evidence
	// id of list_dependencies changes with the consulted set.
	s.ok("close_binary", map[string]any{"target": libs["libtwo.so.1"]})
	if ans := resolveImport(t, s, map[string]any{"target": app, "name": "two_fn@TWO_1.0"}); ans.Reason == nil || *ans.Reason != "library_not_open" {
		t.Errorf("two_fn with libtwo closed: %+v", ans)
	}
	if _, again := dependenciesOf(t, s, app); again == id {
		t.Errorf("list_dependencies kept evidence id %s after a consulted target closed", id)
	}
}

// TestWindowsApplicationWithDLL: the mingw EXE imports from its DLL by
// name and by ordinal; each resolves to the DLL's export; the forwarded
// export and KERNEL32's functions are library_not_open (no Windows DLL is
// on this host), typed, never guessed.
func TestWindowsApplicationWithDLL(t *testing.T) {
	dir, exe, dll := testkit.WindowsAppWithDLL(t)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	app := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": exe}).Structured).Result.TargetID
	deps, _ := dependenciesOf(t, s, app)
	var dllDep *dependencyItem
	for i, d := range deps {
		if strings.EqualFold(d.Name, "reafix.dll") {
			dllDep = &deps[i]
		}
	}
	if dllDep == nil || dllDep.CandidatePath == nil || *dllDep.CandidatePath != dll {
		t.Fatalf("reafix.dll dependency %+v", dllDep)
	}
	lib := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": dll}).Structured).Result.TargetID
	for _, name := range []string{"dll_add", "dll_mul", "reafix.dll!dll_add", "reafix.dll!#7"} {
		ans := resolveImport(t, s, map[string]any{"target": app, "name": name})
		if ans.Resolution == nil || ans.Resolution.TargetID != lib || ans.Resolution.Procedure.Address == "" {
			t.Errorf("%s: %+v", name, ans)
		}
	}
	for _, name := range []string{"dll_ticks", "ExitProcess"} {
		ans := resolveImport(t, s, map[string]any{"target": app, "name": name})
		if ans.Resolution != nil || ans.Reason == nil || *ans.Reason != "library_not_open" {
			t.Errorf("%s: %s, want library_not_open", name, s.ok("resolve_import", map[string]any{"target": app, "name": name}).Structured)
		}
	}
}

// TestDarwinImportsLibraryNotOpen: a Go-built darwin binary's dylib
// imports resolve to library_not_open: no dylib is present.
func TestDarwinImportsLibraryNotOpen(t *testing.T) {
	exe := testkit.DarwinGoProgram(t)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
	app := decode[openedTarget](t, s.ok("open_binary", map[string]any{"path": exe}).Structured).Result.TargetID
	deps, _ := dependenciesOf(t, s, app)
	if len(deps) == 0 {
		t.Fatal("no dylib dependencies")
	}
	for _, d := range deps {
		if d.Resolved != nil {
			t.Errorf("%s resolved to %+v with no dylib open", d.Name, d.Resolved)
		}
	}
	for _, name := range []string{"_write", "write"} {
		ans := resolveImport(t, s, map[string]any{"target": app, "name": name})
		if ans.Resolution != nil || ans.Reason == nil || *ans.Reason != "library_not_open" {
			t.Errorf("%s: %+v, want library_not_open", name, ans)
		}
	}
}
