package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// hostilePayload is what the fixture's symbols and strings carry: a CSI
// that clears the screen, an OSC that sets the window title (ended by BEL)
// and the one-byte C1 CSI, U+009B (UTF-8 C2 9B).
const hostilePayload = "\x1b[2J\x1b]0;title\x07\u009b"

// hostileEscaped is hostilePayload as termText prints it.
const hostileEscaped = `\x1b[2J\x1b]0;title\x07\u009b`

// placeholder stands for hostilePayload in the fixture's source (a C
// identifier cannot hold it) and is patched to it in the built files,
// symbol and dynamic string tables included.
var placeholder = strings.Repeat("Q", len(hostilePayload))

// hostileFixture builds a library whose soname and an executable whose
// .comment, read-only string, function name and DT_NEEDED entry carry
// hostilePayload; version 1 and 2 differ in that function's body, so `rea
// compare` lists it.
func hostileFixture(t *testing.T, dir string, version int) string {
	t.Helper()
	vdir := filepath.Join(dir, "v"+string(rune('0'+version)))
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.CompileC(t, vdir, "libq.so", "int q_helper(int x) { return x + 1; }\n",
		"-shared", "-fPIC", "-Wl,-soname,lib"+placeholder+".so")
	body := "x * 3"
	if version == 2 {
		body = "(x ^ 0x55) * 7 - banner[1]"
	}
	src := `#include <stdio.h>
__asm__(".ident \"GCC: (` + placeholder + `) 12.2.0\"");
const char banner[] = "` + placeholder + ` forged line";
__attribute__((noinline)) int evil_` + placeholder + `(int x) { return ` + body + ` + banner[0]; }
int main(int argc, char **argv) { printf("%s %d\n", banner, evil_` + placeholder + `(argc)); return 0; }
`
	exe := testkit.CompileC(t, vdir, "prog", src, "-O1", "-L"+vdir, "-Wl,--no-as-needed", "-lq") // linked before the object: DT_NEEDED only because of --no-as-needed
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(placeholder)); n < 4 {
		t.Fatalf("fixture holds the placeholder %d times, want at least 4 (.comment, string, symbol, DT_NEEDED)", n)
	}
	// A file name that carries the payload as well: paths are printed too.
	out := filepath.Join(vdir, "prog-"+hostilePayload)
	if err := os.WriteFile(out, bytes.ReplaceAll(b, []byte(placeholder), []byte(hostilePayload)), 0o700); err != nil {
		t.Fatal(err)
	}
	return out
}

// rawControls reports the terminal control bytes found in out: C0 other
// than newline, DEL, and C1 controls, raw (0x80–0x9f) or UTF-8 encoded.
func rawControls(out []byte) []string {
	var found []string
	for i, c := range out {
		switch {
		case c == 0x1b || c == 0x07 || c == 0x7f || (c < 0x20 && c != '\n'):
			found = append(found, "0x"+string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&0xf]))
		case c == 0xc2 && i+1 < len(out) && out[i+1] >= 0x80 && out[i+1] <= 0x9f:
			found = append(found, "U+00"+strings.ToUpper(string("0123456789abcdef"[out[i+1]>>4])+string("0123456789abcdef"[out[i+1]&0xf])))
		case c == 0x9b && (i == 0 || out[i-1] != 0xc2):
			found = append(found, "0x9b")
		}
	}
	return found
}

// TestCLIEscapesSampleText: `rea analyze` and `rea compare` of fixtures
// whose symbols, strings, .comment, DT_NEEDED and file name carry ESC, BEL
// and CSI sequences print none of those bytes raw, on stdout or stderr,
// but their escaped forms (CONTRACTS.md §0.3 "Terminal output"); so do a
// failure naming such a path and `rea policy explain` of such a root;
// --json keeps the exact text.
func TestCLIEscapesSampleText(t *testing.T) {
	dir := t.TempDir()
	v1, v2 := hostileFixture(t, dir, 1), hostileFixture(t, dir, 2)
	check := func(what string, r runResult, wantExit int, wantEscaped ...string) {
		t.Helper()
		if r.code != wantExit {
			t.Fatalf("%s: exit %d, want %d\n%s%s", what, r.code, wantExit, r.stdout, r.stderr)
		}
		for stream, out := range map[string][]byte{"stdout": r.stdout, "stderr": r.stderr} {
			if raw := rawControls(out); len(raw) > 0 {
				t.Errorf("%s: %s has raw control bytes %v:\n%q", what, stream, raw, out)
			}
		}
		all := string(r.stdout) + string(r.stderr)
		for _, want := range wantEscaped {
			if !strings.Contains(all, want) {
				t.Errorf("%s: output lacks %q:\n%s", what, want, all)
			}
		}
	}

	r := reaIn(t, dir, "--ledger", "ledger.db", "analyze", v1)
	check("analyze", r, 0,
		"path          "+filepath.Join(dir, "v1", "prog-"+hostileEscaped)+"\n",
		"(section:.comment: GCC: ("+hostileEscaped+") 12.2.0)",
		"dependency             lib"+hostileEscaped+".so (needed")

	r = reaIn(t, dir, "--ledger", "ledger.db", "compare", v1, v2)
	check("compare", r, 0, "evil_"+hostileEscaped, "new         "+filepath.Join(dir, "v2", "prog-"+hostileEscaped)+"\n")

	r = reaIn(t, dir, "--ledger", "ledger.db", "analyze", filepath.Join(dir, "missing-"+hostilePayload))
	check("analyze of a missing file", r, 1, "missing-"+hostileEscaped)

	// A root a sample's path led to, as `rea policy explain` renders it.
	root := filepath.Join(dir, "root-"+hostilePayload)
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	r = reaIn(t, dir, "--ledger", "ledger.db", "policy", "explain", "evidence_read", "--root", root)
	check("policy explain", r, 0, "roots: "+filepath.Join(dir, "root-"+hostileEscaped)+";", "missing       roots "+filepath.Join(dir, "root-"+hostileEscaped)+"\n")

	// --json is JSON and unchanged: the payload decodes back byte for byte.
	r = reaIn(t, dir, "--ledger", "ledger.db", "analyze", "--json", v1)
	var ov struct {
		Target struct {
			Path string `json:"path"`
		} `json:"target"`
		Triage struct {
			Loading struct {
				Dependencies []struct {
					Name string `json:"name"`
				} `json:"dependencies"`
			} `json:"loading"`
		} `json:"triage"`
	}
	if err := json.Unmarshal(r.stdout, &ov); err != nil || r.code != 0 {
		t.Fatalf("analyze --json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	var names []string
	for _, d := range ov.Triage.Loading.Dependencies {
		names = append(names, d.Name)
	}
	if ov.Target.Path != v1 || !strings.Contains(strings.Join(names, ","), "lib"+hostilePayload+".so") {
		t.Errorf("--json: path %q, dependencies %q", ov.Target.Path, names)
	}
}
