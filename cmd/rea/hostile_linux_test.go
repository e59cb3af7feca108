package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// analyzeBound is how long `rea analyze` of a hostile fixture may take
// before it counts as hung (issue 23: within 5 s). A hang detector, not a
// performance figure.
const analyzeBound = 5 * time.Second

// TestAnalyzeHostileLoaderPaths is issue 23's "hostile loader paths"
// acceptance for `rea analyze` as a subprocess: for every fixture of
// testkit.HostileLoaderFixtures (interpreters /dev/zero, /dev/urandom, a
// FIFO, /dev/stdin, /proc/self/fd/0, a directory, a 300 MB sparse file; a
// DT_RUNPATH directory with a FIFO and a symlink loop named like DT_NEEDED
// entries) it exits 0 within 5 s with the typed reason on the triage item
// and in the limitations. Its stdin is a pipe the test holds open and
// never writes: a read of /dev/stdin would block for good, and the byte
// the test writes after the run is still there to read.
func TestAnalyzeHostileLoaderPaths(t *testing.T) {
	fixtures := testkit.HostileLoaderFixtures(t)
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	for i, fx := range fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			args := []string{"--ledger", ledgerPath, "analyze", "--json", fx.Path}
			if i == 0 {
				args = []string{"--ledger", ledgerPath, "analyze", fx.Path} // the human report once
			}
			stdout, stderr := analyzeWithIdleStdin(t, args...)
			if i == 0 {
				for what, reason := range fx.Reasons {
					if what == "interpreter" && !strings.Contains(stdout, fx.Interpreter+" -> not read: "+reason) {
						t.Errorf("the report does not say the interpreter was not read (%s):\n%s", reason, stdout)
					}
				}
				return
			}
			var ov struct {
				Limitations []string `json:"limitations"`
				Triage      struct {
					Loading struct {
						Interpreter *struct {
							Path   string  `json:"path"`
							Reason *string `json:"reason"`
						} `json:"interpreter"`
						Dependencies []struct {
							Name   string  `json:"name"`
							Reason *string `json:"reason"`
						} `json:"dependencies"`
					} `json:"loading"`
				} `json:"triage"`
			}
			if err := json.Unmarshal([]byte(stdout), &ov); err != nil {
				t.Fatalf("%v\nstdout %s\nstderr %s", err, stdout, stderr)
			}
			says := func(words ...string) bool {
				return slices.ContainsFunc(ov.Limitations, func(l string) bool {
					for _, w := range words {
						if !strings.Contains(l, w) {
							return false
						}
					}
					return true
				})
			}
			for what, reason := range fx.Reasons {
				if what == "interpreter" {
					in := ov.Triage.Loading.Interpreter
					if in == nil || in.Path != fx.Interpreter || in.Reason == nil || *in.Reason != reason {
						t.Errorf("loading.interpreter %+v, want reason %s", in, reason)
					}
					if !says("PT_INTERP", fx.Interpreter, reason) {
						t.Errorf("no limitation says the interpreter is %s: %q", reason, ov.Limitations)
					}
					continue
				}
				deps := ov.Triage.Loading.Dependencies
				if !slices.ContainsFunc(deps, func(d struct {
					Name   string  `json:"name"`
					Reason *string `json:"reason"`
				}) bool {
					return d.Name == what && d.Reason != nil && *d.Reason == reason
				}) {
					t.Errorf("loading.dependencies lacks %s with reason %s: %+v", what, reason, deps)
				}
				if !says(what, reason) {
					t.Errorf("no limitation says %s is %s: %q", what, reason, ov.Limitations)
				}
			}
		})
	}
}

// analyzeWithIdleStdin runs rea with args, its stdin a pipe nobody writes
// until it has exited, killing it after analyzeBound; it fails the test
// unless rea exits 0 in time without reading its stdin.
func analyzeWithIdleStdin(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	rea := testkit.Rea(t) // built before the clock starts
	ctx, cancel := context.WithTimeout(context.Background(), analyzeBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, rea, args...)
	cmd.Stdin = pr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("rea %v: no exit within %v (hung)\nstderr %s", args, analyzeBound, errb.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) || err != nil {
		t.Fatalf("rea %v: %v\nstderr %s", args, err, errb.String())
	}
	// The pipe still holds what is written now: rea took nothing from it
	// (a read that had begun would have taken this byte, or hung).
	if _, err := pw.Write([]byte{'x'}); err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	if n, err := pr.Read(b[:]); n != 1 || err != nil {
		t.Fatalf("stdin pipe after the run: %d %v", n, err)
	}
	return out.String(), errb.String()
}

// TestAnalyzeStopsOnCtrlC: SIGINT ends `rea analyze` with the cancelled
// status while it works (issue 23: Ctrl-C did not stop it while it read a
// FIFO the sample named; those reads no longer block, and every read of a
// path a sample names observes the same context — builtin's
// TestResolveObservesCancellation). The work here is the open's hash of a
// 4 GiB sparse program, begun once the ledger exists.
func TestAnalyzeStopsOnCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: hashes a 4 GiB sparse file until interrupted")
	}
	dir := t.TempDir()
	big := testkit.CompileC(t, dir, "big", "int main(void) { return 0; }\n", "-O1")
	if err := os.Truncate(big, 4<<30); err != nil {
		t.Fatal(err)
	}
	ledgerPath := filepath.Join(dir, "ledger.db")
	cmd := exec.Command(testkit.Rea(t), "--ledger", ledgerPath, "analyze", big)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(time.Minute)
	for {
		if _, err := os.Stat(ledgerPath); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("rea analyze ended before the interrupt: %v\nstderr %s", err, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("no ledger within a minute")
		case <-time.After(10 * time.Millisecond):
		}
	}
	// The ledger is created before it is migrated and the open begins: the
	// hash of 4 GiB lasts seconds, half of one is enough to be inside it.
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 0 || !strings.Contains(stderr.String(), "rea: cancelled:") {
			t.Fatalf("rea analyze after SIGINT: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("rea analyze still running a minute after SIGINT\nstderr %s", stderr.String())
	}
}
