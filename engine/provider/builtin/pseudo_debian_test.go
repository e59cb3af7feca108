package builtin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// TestPseudoCodeCompilesOnDebian is issue 26's "compiles everywhere": the
// procedures of Debian's libc.so.6, ssh, curl and gdb (amd64) and the
// arm64 libc.so.6, each decompiled alone, prelude + code checked with
// gcc -std=gnu11 -fsyntax-only, with the conversions between pointers
// and integers C leaves implicit errors (as gcc 14 makes them, and as a
// reader wants them written). A procedure without pseudo-code (the
// decompiler's typed refusal) counts as a failure too; every failure is
// listed with its reason, and the rate must be ≥ 99.5% per file.
//
// It checks procedures evenly spaced over each file, at most 500 per file
// (200 under -race; every one with REA_PSEUDO_COMPILE_ALL=1: ~30,000
// units, minutes of gcc), so that CI's time holds; -short checks 150 of
// libc.
func TestPseudoCodeCompilesOnDebian(t *testing.T) {
	gcc := testkit.Need(t, "gcc")
	paths := []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/ssh", "/usr/bin/curl", "/usr/bin/gdb", "/usr/aarch64-linux-gnu/lib/libc.so.6"}
	most := 500
	switch {
	case os.Getenv("REA_PSEUDO_COMPILE_ALL") != "":
		most = 1 << 30
	case testing.Short():
		paths, most = paths[:1], 150
	case testkit.Race:
		most = 200 // the decompiler is single-threaded code, slowed several times under -race
	}
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				testkit.SkipOrFail(t, fmt.Sprintf("%s is not installed: %v", path, err))
			}
			checked, failures := compileProcedures(t, gcc, path, most)
			for _, f := range failures {
				t.Log(f)
			}
			rate := 1 - float64(len(failures))/float64(checked)
			t.Logf("%s: %d procedures checked, %d failures, %.2f%% accepted", path, checked, len(failures), 100*rate)
			if checked == 0 || rate < 0.995 {
				t.Errorf("%s: %.2f%% of %d units accepted by gcc -fsyntax-only, want ≥ 99.5%%", path, 100*rate, checked)
			}
		})
	}
}

// compileProcedures decompiles up to most procedures of the file at path
// (evenly spaced; thunks and externals, which have no code of their own,
// left out as search_pseudo_code leaves them) and checks each unit with
// gcc; it returns how many were checked and a line for each failure.
func compileProcedures(t *testing.T, gcc, path string, most int) (int, []string) {
	c, six, ex := openExtents(t, path)
	ctx := context.Background()
	pe, err := c.pseudoEnvOf(ctx, "test", six, ex)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := searchableEntries(six)
	if len(entries) > most {
		picked := make([]uint64, 0, most)
		for i := range most {
			picked = append(picked, entries[i*len(entries)/most])
		}
		entries = picked
	}
	dir := t.TempDir()
	var failures []string
	var files []string
	byFile := map[string]uint64{}
	for _, a := range entries {
		p, err := c.decompileProc(ctx, "test", pe, nil, a)
		if err != nil {
			t.Fatal(err)
		}
		if p.failure != "" {
			failures = append(failures, fmt.Sprintf("%#x: not decompiled: %s", a, p.failure))
			continue
		}
		name := "p" + strconv.FormatUint(a, 16) + ".c"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(p.whole.Prelude+"\n"+p.whole.Code), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
		byFile[name] = a
	}
	// gcc checks many files per run (one cc1 each, one driver): the
	// errors name their file.
	errLine := regexp.MustCompile(`^(p[0-9a-f]+\.c):\d+:\d+: error: (.*)$`)
	for i := 0; i < len(files); i += 64 {
		batch := files[i:min(i+64, len(files))]
		cmd := exec.Command(gcc, append([]string{"-std=gnu11", "-fsyntax-only", "-Werror=int-conversion", "-Werror=incompatible-pointer-types"}, batch...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil {
			continue
		}
		first := map[string]string{}
		for _, l := range strings.Split(string(out), "\n") {
			if m := errLine.FindStringSubmatch(l); m != nil {
				if _, ok := first[m[1]]; !ok {
					first[m[1]] = m[2]
				}
			}
		}
		if len(first) == 0 {
			t.Fatalf("gcc failed without an error line: %v\n%s", err, out)
		}
		names := make([]string, 0, len(first))
		for f := range first {
			names = append(names, f)
		}
		sort.Strings(names)
		for _, f := range names {
			failures = append(failures, fmt.Sprintf("%#x: gcc: %s", byFile[f], first[f]))
		}
	}
	return len(entries), failures
}
