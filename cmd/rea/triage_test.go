package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

var updateTriage = flag.Bool("update", false, "rewrite testdata/analyze_triage.golden")

// stableTriageKeys are the report lines the golden file keeps: facts that
// do not depend on the compiler's version or the build's bytes (build ids,
// addresses, entropy values and compiler versions are left out).
var stableTriageKeys = map[string]bool{"format": true, "architecture": true, "bitness": true, "endianness": true,
	"file_type": true, "interpreter": true, "stripped": true, "debug_info": true, "main": false, "pie": true, "nx": true,
	"relro": true, "bind_now": true, "stack_protector": true, "unavailable": true, "wx_segments": true,
	"entry_outside_code": true, "high_entropy_sections": true, "image_base": true}

// TestAnalyzeTriageReport: `rea analyze` prints the triage of a C fixture
// under its five headings; the stable lines equal the golden file, and
// --json carries the same triage with main and every fact's source.
func TestAnalyzeTriageReport(t *testing.T) {
	dir := t.TempDir()
	prog := testkit.CompileC(t, dir, "prog", `#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) { char buf[64]; strcpy(buf, argv[0]); printf("%s %d\n", buf, argc); return 0; }
`, "-O2", "-fPIE", "-pie", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-Wl,-z,relro,-z,now")
	r := reaIn(t, dir, "--ledger", "ledger.db", "analyze", prog)
	if r.code != 0 {
		t.Fatalf("analyze: exit %d\n%s", r.code, r.stderr)
	}
	var kept []string
	inTriage := false
	for _, l := range strings.Split(string(r.stdout), "\n") {
		switch {
		case strings.HasPrefix(l, "triage "):
			inTriage = true
		case strings.HasPrefix(l, "limitation "):
			inTriage = false
		case inTriage && !strings.HasPrefix(l, " ") && l != "":
			kept = append(kept, l)
		case inTriage:
			f := strings.Fields(l)
			if len(f) > 0 && stableTriageKeys[f[0]] {
				kept = append(kept, l)
			}
			if len(f) > 2 && f[0] == "main" && f[2] != "main" {
				t.Errorf("main line %q", l)
			}
		}
	}
	// loading: one line per dependency (its import count and candidate
	// path depend on the host's libc, so they stay out of the golden file).
	if !regexp.MustCompile(`(?m)^  dependency +libc\.so\.6 \(needed, \d+ imports\) -> /\S+/libc\.so\.6  \(dynamic:DT_NEEDED\)$`).Match(r.stdout) {
		t.Errorf("no libc.so.6 dependency line:\n%s", r.stdout)
	}
	got := []byte(strings.Join(kept, "\n") + "\n")
	golden := filepath.Join("testdata", "analyze_triage.golden")
	if *updateTriage {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report differs from %s:\n%s\nfull output:\n%s", golden, got, r.stdout)
	}

	r = reaIn(t, dir, "--ledger", "ledger.db", "analyze", "--json", prog)
	var ov struct {
		EvidenceIDs map[string]string `json:"evidence_ids"`
		Triage      struct {
			Identity  map[string]json.RawMessage `json:"identity"`
			Hardening map[string]struct {
				Value  any    `json:"value"`
				Source string `json:"source"`
			} `json:"hardening"`
		} `json:"triage"`
	}
	if err := json.Unmarshal(r.stdout, &ov); err != nil {
		t.Fatalf("analyze --json: %v\n%s", err, r.stdout)
	}
	if ov.EvidenceIDs["binary_triage"] == "" || ov.Triage.Identity["main"] == nil {
		t.Errorf("--json: evidence %v, identity %v", ov.EvidenceIDs, ov.Triage.Identity)
	}
	for k, f := range ov.Triage.Hardening {
		if f.Source == "" {
			t.Errorf("--json hardening.%s has no source", k)
		}
	}
	if f := ov.Triage.Hardening["stack_protector"]; f.Value != true {
		t.Errorf("--json stack_protector %v", f)
	}
}

// TestAnalyzeTriageGDB: `rea analyze --provider gdb` reports gdb's triage
// (what gdb can see, the rest as limitations), and the string count gdb
// does not offer is said to be missing rather than printed as 0.
func TestAnalyzeTriageGDB(t *testing.T) {
	testkit.Need(t, "gdb")
	dir := t.TempDir()
	prog := testkit.CompileC(t, dir, "prog", "#include <stdio.h>\nint main(void) { puts(\"gdb\"); return 0; }\n", "-O0", "-g")
	env := []string{"REA_GDB_ENABLED=true"}
	r := runRea(t, dir, env, "--ledger", filepath.Join(dir, "l.db"), "analyze", "--provider", "gdb", prog)
	if r.code != 0 {
		t.Fatalf("analyze: exit %d\n%s", r.code, r.stderr)
	}
	out := string(r.stdout)
	for _, want := range []string{"provider      gdb ", "strings       not offered by the provider", "\nidentity\n", "  main ", "(gdb:minimal symbol main)",
		"limitation    strings: the bound provider does not offer list_strings", "limitation    triage (gdb): "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "  pie ") || strings.Contains(out, "  stripped ") {
		t.Errorf("report shows facts gdb cannot see:\n%s", out)
	}
	r = runRea(t, dir, env, "--ledger", filepath.Join(dir, "l.db"), "analyze", "--json", "--provider", "gdb", prog)
	var ov struct {
		Counts      map[string]int    `json:"counts"`
		EvidenceIDs map[string]string `json:"evidence_ids"`
		Triage      struct {
			Identity  map[string]json.RawMessage `json:"identity"`
			Hardening map[string]json.RawMessage `json:"hardening"`
		} `json:"triage"`
	}
	if err := json.Unmarshal(r.stdout, &ov); err != nil {
		t.Fatalf("analyze --json: %v\n%s", err, r.stdout)
	}
	if _, has := ov.Counts["strings"]; has || ov.EvidenceIDs["binary_triage"] == "" || ov.Triage.Identity["main"] == nil || ov.Triage.Identity["build_id"] == nil {
		t.Errorf("--json: counts %v evidence %v identity %v", ov.Counts, ov.EvidenceIDs, ov.Triage.Identity)
	}
	if _, has := ov.Triage.Hardening["pie"]; has {
		t.Errorf("--json: pie through gdb: %s", ov.Triage.Hardening["pie"])
	}
}

// TestAnalyzeGoModules: on a Go binary with more than 20 dependencies (rea
// itself), the report shows the Go version, path and main module and
// lists 20 dependencies and a count of the rest, or with --all every one;
// both equal `go version -m`, as does --json's list.
func TestAnalyzeGoModules(t *testing.T) {
	bin := testkit.Rea(t)
	dir := t.TempDir()
	out, err := exec.Command(testkit.Need(t, "go"), "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var version, path, mod string
	var deps []string
	for i, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.Split(strings.TrimPrefix(l, "\t"), "\t")
		switch {
		case i == 0:
			_, version, _ = strings.Cut(l, ": ")
		case f[0] == "path":
			path = f[1]
		case f[0] == "mod":
			mod = strings.Join(f[1:3], " ")
		case f[0] == "dep":
			deps = append(deps, strings.TrimSpace(strings.Join(f[1:], " ")))
		}
	}
	if len(deps) <= maxCollapsed {
		t.Fatalf("rea has %d dependencies, not more than %d", len(deps), maxCollapsed)
	}
	report := func(args ...string) (head map[string]string, listed []string, more string) {
		r := reaIn(t, dir, append([]string{"--ledger", "l.db", "analyze"}, append(args, bin)...)...)
		if r.code != 0 {
			t.Fatalf("analyze %v: exit %d\n%s", args, r.code, r.stderr)
		}
		head = map[string]string{}
		for _, l := range strings.Split(string(r.stdout), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(l), "  ")
			if !ok || !strings.HasPrefix(k, "go ") {
				continue
			}
			v = strings.TrimSpace(v)
			if i := strings.Index(v, "  ("); i >= 0 {
				v = v[:i]
			}
			switch {
			case k == "go dep" && strings.HasPrefix(v, "…"):
				more = v
			case k == "go dep":
				listed = append(listed, v)
			default:
				head[k] = v
			}
		}
		return head, listed, more
	}
	head, listed, more := report()
	if head["go version"] != version || head["go path"] != path || head["go main module"] != mod || head["go deps"] != fmt.Sprint(len(deps)) {
		t.Errorf("report %v; go version -m: %s %s %s, %d deps", head, version, path, mod, len(deps))
	}
	if !slices.Equal(listed, deps[:maxCollapsed]) || more != fmt.Sprintf("… %d more (--all lists them)", len(deps)-maxCollapsed) {
		t.Errorf("collapsed list %q, %q; go version -m %q", listed, more, deps)
	}
	if _, listed, more = report("--all"); !slices.Equal(listed, deps) || more != "" {
		t.Errorf("--all list %q (%q); go version -m %q", listed, more, deps)
	}
	r := reaIn(t, dir, "--ledger", "l.db", "analyze", "--json", bin)
	var ov struct {
		Triage struct {
			Identity  map[string]json.RawMessage `json:"identity"`
			Toolchain struct {
				Go struct {
					Deps []struct{ Path, Version, Sum string } `json:"deps"`
				} `json:"go"`
			} `json:"toolchain"`
		} `json:"triage"`
	}
	if err := json.Unmarshal(r.stdout, &ov); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ov.Triage.Toolchain.Go.Deps {
		got = append(got, strings.TrimSpace(d.Path+" "+d.Version+" "+d.Sum))
	}
	if !slices.Equal(got, deps) || ov.Triage.Identity["main"] == nil {
		t.Errorf("--json deps %q main %s; go version -m %q", got, ov.Triage.Identity["main"], deps)
	}
}
