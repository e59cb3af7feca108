package gdb

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/internal/testkit"
)

// builtinTriage is the builtin provider's triage of path, the reference
// the gdb provider's facts are compared with (it is itself checked against
// readelf, hardening-check, file and go version -m).
func builtinTriage(t *testing.T, path string) provider.Triage {
	t.Helper()
	p := builtin.New("test")
	tg := targetOf(t, path)
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Start(context.Background(), tg, prof, provider.Run{ID: testRunID})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	res, err := c.Do(context.Background(), provider.OpBinaryTriage, provider.Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Normalized.(provider.Triage)
}

// goProgram builds a small Go program (for .go.buildinfo and main.main).
func goProgram(t *testing.T) string {
	t.Helper()
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = testkit.Need(t, "go")
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"go.mod": "module example.com/gdbtriage\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"gdb triage\") }\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "prog")
	cmd := exec.Command(goBin, "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off", "GOOS=linux", "GOARCH=amd64")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTriage: the gdb provider's binary_triage answers what gdb can see,
// each value equal to the builtin provider's (and the build id to readelf
// -n's), and names the rest as limitations instead of reporting it.
func TestTriage(t *testing.T) {
	p := enabled(t)
	prof, err := p.Profile(context.Background(), targetOf(t, fixture(t)))
	if err != nil || fmt.Sprint(prof.Parameters["triage"]) != "1" {
		t.Errorf("profile parameters %v (%v): no triage:1", prof.Parameters, err)
	}
	files := []string{fixture(t), goProgram(t)}
	if _, err := os.Stat("/usr/bin/ls"); err == nil {
		files = append(files, "/usr/bin/ls")
	}
	// What gdb reports, and what it must leave to limitations.
	reported := map[string][]string{
		"identity":  {"format", "architecture", "bitness", "endianness", "entry", "debug_info"},
		"hardening": {"cet_ibt", "cet_shstk"},
		"anomalies": {"entry_outside_code"},
	}
	notReported := map[string][]string{
		"identity":  {"stripped", "file_type", "image_base"},
		"hardening": {"pie", "nx", "relro", "bind_now", "stack_protector", "fortify"},
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			c := startClient(t, p, path)
			res, err := c.Do(context.Background(), provider.OpBinaryTriage, provider.Params{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Normalized.(provider.Triage)
			want := builtinTriage(t, path)
			parts := map[string][2]map[string]any{"identity": {got.Identity, want.Identity},
				"hardening": {got.Hardening, want.Hardening}, "anomalies": {got.Anomalies, want.Anomalies},
				"toolchain": {got.Toolchain, want.Toolchain}}
			for part, keys := range reported {
				for _, k := range keys {
					g, ok := parts[part][0][k].(provider.Fact)
					if !ok || g.Source == "" {
						t.Errorf("%s.%s = %v: not reported with a source", part, k, parts[part][0][k])
						continue
					}
					w := parts[part][1][k].(provider.Fact)
					if gv, wv := jsonOf(t, g.Value), jsonOf(t, w.Value); gv != wv && k != "debug_info" {
						t.Errorf("%s.%s = %s, builtin %s", part, k, gv, wv)
					}
				}
			}
			// debug info: the same verdict (gdb's BFD lists .debug_* names too).
			gd := got.Identity["debug_info"].(provider.Fact).Value.(map[string]any)
			wd := want.Identity["debug_info"].(provider.Fact).Value.(map[string]any)
			if gd["present"] != wd["present"] {
				t.Errorf("debug_info %v, builtin %v", gd, wd)
			}
			for _, k := range []string{"interpreter", "build_id", "go_build_id", "main"} {
				if wm, ok := want.Identity[k].(provider.MainFact); ok && strings.HasPrefix(wm.Source, "heuristic:") {
					// A stripped file's main comes from the start code, which
					// gdb does not read: a limitation, not a value.
					if got.Identity[k] != nil || !slices.ContainsFunc(res.Limitations, func(l string) bool { return strings.Contains(l, "main is not determined") }) {
						t.Errorf("main %v with builtin's from %s; limitations %q", got.Identity[k], wm.Source, res.Limitations)
					}
					continue
				}
				if !reflect.DeepEqual(got.Identity[k] != nil, want.Identity[k] != nil) {
					t.Errorf("identity.%s = %v, builtin %v", k, got.Identity[k], want.Identity[k])
					continue
				}
				if got.Identity[k] == nil {
					continue
				}
				if k == "main" {
					gm, wm := got.Identity[k].(provider.MainFact), want.Identity[k].(provider.MainFact)
					if gm.Address != wm.Address || gm.Name != wm.Name || !strings.HasPrefix(gm.Source, "gdb:") {
						t.Errorf("main %+v, builtin %+v", gm, wm)
					}
					continue
				}
				if g, w := got.Identity[k].(provider.Fact), want.Identity[k].(provider.Fact); g.Value != w.Value {
					t.Errorf("identity.%s = %v, builtin %v", k, g.Value, w.Value)
				}
			}
			out, err := exec.Command(testkit.Need(t, "readelf"), "-n", path).Output()
			if err != nil {
				t.Fatal(err)
			}
			if m := regexp.MustCompile(`Build ID: ([0-9a-f]+)`).FindSubmatch(out); m != nil {
				if f, _ := got.Identity["build_id"].(provider.Fact); f.Value != string(m[1]) {
					t.Errorf("build_id %v, readelf -n %s", f.Value, m[1])
				}
			}
			if gb, wb := jsonOf(t, got.Toolchain["go"]), jsonOf(t, want.Toolchain["go"]); gb != wb {
				t.Errorf("toolchain.go %s, builtin %s", gb, wb)
			}
			if strings.Contains(path, "prog") && got.Toolchain["go"] == nil {
				t.Error("the Go program has no Go build info")
			}
			for part, keys := range notReported {
				for _, k := range keys {
					if v, has := parts[part][0][k]; has {
						t.Errorf("%s.%s = %v reported, though gdb cannot see it", part, k, v)
					}
				}
			}
			if len(got.Loading) != 0 {
				t.Errorf("loading %v reported, though gdb cannot see it", got.Loading)
			}
			for _, word := range []string{"stripped", "PIE", "RELRO", "FORTIFY", "loading", "entropy", ".comment"} {
				if !slices.ContainsFunc(res.Limitations, func(l string) bool { return strings.Contains(l, word) }) {
					t.Errorf("no limitation names %s: %q", word, res.Limitations)
				}
			}
		})
	}
}

func TestParseTriageConsole(t *testing.T) {
	ft, e, ok, err := parseInfoFiles([]string{"Symbols from \"/tmp/g\".\nLocal exec file:\n", "\t`/tmp/g', file type elf64-x86-64.\n\tEntry point: 0x1050\n"})
	if err != nil || ft != "elf64-x86-64" || e != 0x1050 || !ok {
		t.Errorf("info files: %q %#x %v %v", ft, e, ok, err)
	}
	if _, _, _, err := parseInfoFiles([]string{"\tEntry point: 0xzz\n"}); err == nil {
		t.Error("a malformed entry point parsed")
	}
	for in, want := range map[string]string{
		`The target architecture is set to "auto" (currently "i386:x86-64").`: "x86_64",
		`The target architecture is set to "auto" (currently "i386").`:        "x86",
		`The target architecture is set to "aarch64".`:                        "arm64",
		`The target architecture is set to "auto" (currently "armv7").`:       "arm",
		`The target architecture is set to "auto" (currently "mips").`:        "",
	} {
		if got := parseShowArchitecture([]string{in}); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
	for name, want := range map[string]bfdTarget{
		"elf64-x86-64":        {format: "elf", bits: 64, endian: "little"},
		"elf32-littlearm":     {format: "elf", bits: 32, endian: "little"},
		"elf64-bigaarch64":    {format: "elf", bits: 64, endian: "big"},
		"elf64-littleaarch64": {format: "elf", bits: 64, endian: "little"},
	} {
		if got, ok := parseBFDTarget(name, ""); !ok || got != want {
			t.Errorf("%s: %+v %v", name, got, ok)
		}
	}
	if _, ok := parseBFDTarget("pei-x86-64", ""); ok {
		t.Error("a PE target read as ELF")
	}
}

// FuzzTriageConsole: gdb's console text carries the sample's section names
// and path; its triage parsers never panic and return only what they read.
func FuzzTriageConsole(f *testing.F) {
	f.Add("\t`/tmp/g', file type elf64-x86-64.\n\tEntry point: 0x1050\n\t0x318 - 0x334 is .interp\n", "elf64-x86-64")
	f.Add(`The target architecture is set to "auto" (currently "i386:x86-64").`, "elf32-littlearm")
	f.Fuzz(func(t *testing.T, console, bfd string) {
		if ft, _, _, err := parseInfoFiles([]string{console}); err == nil && !strings.Contains(console, ft) {
			t.Fatalf("file type %q not in the text", ft)
		}
		parseShowArchitecture([]string{console})
		if bt, ok := parseBFDTarget(bfd, "x86_64"); ok && bt.format != "elf" {
			t.Fatalf("%q: %+v", bfd, bt)
		}
	})
}
