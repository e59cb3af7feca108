//go:build linux

package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/internal/testkit"
)

// needCapture skips (or fails under REA_REQUIRE_ALL_TOOLS=1) where this host
// cannot run captures.
func needCapture(t testing.TB) {
	t.Helper()
	if err := Probe(context.Background()); err != nil {
		if testkit.RequireAll() {
			t.Fatalf("capture probe: %v", err)
		}
		t.Skipf("this host cannot run captures: %v", err)
	}
}

func capture(t *testing.T, req Request, opts Options) *Result {
	t.Helper()
	if req.WorkingDirectory == "" {
		req.WorkingDirectory = t.TempDir()
	}
	res, err := Run(context.Background(), req, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func faultCode(err error) fault.Code {
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return ""
}

func TestEchoThroughPTY(t *testing.T) {
	needCapture(t)
	cat := testkit.Need(t, "cat")
	res := capture(t, Request{Executable: cat, Terminal: Terminal{Columns: 40, Rows: 5}, StdinSteps: []Step{
		Write("hello\n"), WaitOutput("hello\r\nhello\r\n", 5000), Write("second line\n"), WaitOutput("second line\r\nsecond", 5000), CloseStdin(),
	}}, Options{})
	if res.Exit.Reason != ReasonExited || res.Exit.Code == nil || *res.Exit.Code != 0 {
		t.Fatalf("exit = %+v, want exited 0", res.Exit)
	}
	want := "hello\r\nhello\r\nsecond line\r\nsecond line\r\n"
	if !strings.HasPrefix(res.Output.Text, want) {
		t.Fatalf("raw transcript %q, want prefix %q", res.Output.Text, want)
	}
	wantRows := []string{"hello", "hello", "second line", "second line", ""}
	if !slices.Equal(res.Output.Rendered, wantRows) && !slices.Equal(res.Output.Rendered, []string{"hello", "hello", "second line", "second line", "^D"}) {
		t.Fatalf("rendered %q, want %q", res.Output.Rendered, wantRows)
	}
	for i, s := range res.Steps {
		if s.Outcome != OutcomeDone || s.Index != i {
			t.Fatalf("step %d = %+v", i, s)
		}
	}
	if res.Output.Bytes != len(res.Output.Text) || res.Output.Truncated || len(res.Output.SHA256) != 64 {
		t.Fatalf("output = %+v", res.Output)
	}
	if res.Cleanup != (Cleanup{ProcessGroup: "already_empty", Verified: true}) {
		t.Fatalf("cleanup = %+v", res.Cleanup)
	}
	if len(res.Processes) == 0 || res.Processes[0].PID != res.Identity.PID || res.Processes[0].Command != "cat" {
		t.Fatalf("processes = %+v (launcher %d)", res.Processes, res.Identity.PID)
	}
	if res.Identity.Executable != cat && !strings.HasSuffix(res.Identity.Executable, "/cat") {
		t.Fatalf("lineage recorded %q", res.Identity.Executable)
	}
	if res.Executable.Path != cat || res.Network != NetworkNone || res.Terminal != (Terminal{40, 5}) || res.SchemaVersion != 1 {
		t.Fatalf("result head = %+v", res)
	}
}

// TestStepsProgressCountsEveryStep: the last "steps" update is the number
// of steps (the last step was never reported, so a request's terminal
// progress fell one step short of its work; CONTRACTS.md §6.1).
func TestStepsProgressCountsEveryStep(t *testing.T) {
	needCapture(t)
	cat := testkit.Need(t, "cat")
	var mu sync.Mutex
	var last float64 = -1
	rep := progress.Func(func(u progress.Update) {
		mu.Lock()
		defer mu.Unlock()
		if u.Phase == "steps" {
			last = u.Completed
		}
	})
	capture(t, Request{Executable: cat, StdinSteps: []Step{Write("x\n"), WaitOutput("x\r\n", 5000), CloseStdin()}}, Options{Progress: rep})
	mu.Lock()
	defer mu.Unlock()
	if last != 3 {
		t.Fatalf("last steps update %v, want 3", last)
	}
}

func TestRenderedScreenOfAShell(t *testing.T) {
	needCapture(t)
	sh := testkit.Need(t, "sh")
	script := `printf 'name? '; read -r n; printf '\033[1;32mHi %s\033[0m\n\033[2;1H\033[KX' "$n"`
	res := capture(t, Request{Executable: sh, Arguments: []string{"-c", script}, Terminal: Terminal{Columns: 20, Rows: 3},
		StdinSteps: []Step{WaitOutput("name? ", 5000), Write("Ada\n")}}, Options{})
	if !strings.Contains(res.Output.Text, "\x1b[1;32mHi Ada\x1b[0m") {
		t.Fatalf("escapes not kept in the raw transcript: %q", res.Output.Text)
	}
	want := []string{"name? Ada", "X", ""}
	if !slices.Equal(res.Output.Rendered, want) {
		t.Fatalf("rendered %q, want %q", res.Output.Rendered, want)
	}
}

func TestExactEnvironment(t *testing.T) {
	needCapture(t)
	env := testkit.Need(t, "env")
	res := capture(t, Request{Executable: env, EnvironmentNames: []string{"REA_TEST_FOO", "REA_TEST_ABSENT"}},
		Options{Environment: map[string]string{"REA_TEST_FOO": "bar", "PATH": "/usr/bin", "HOME": "/root"}, RunToken: "token-1"})
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(res.Output.Text), "\r\n") {
		got = append(got, l)
	}
	slices.Sort(got)
	want := []string{"REA_PROCESS_RUN_ID=token-1", "REA_TEST_FOO=bar", "TERM=xterm-256color"}
	if !slices.Equal(got, want) {
		t.Fatalf("child environment %q, want %q", got, want)
	}
	if !slices.Equal(res.EnvironmentNames, []string{"REA_TEST_FOO", "REA_TEST_ABSENT"}) {
		t.Fatalf("environment_names = %q", res.EnvironmentNames)
	}
	if len(res.Limitations) != 1 || !strings.Contains(res.Limitations[0], "REA_TEST_ABSENT") {
		t.Fatalf("limitations = %q", res.Limitations)
	}
}

func TestSecretNeverInResultOrError(t *testing.T) {
	needCapture(t)
	sh := testkit.Need(t, "sh")
	secret := fmt.Sprintf("s3cr3t-%d-value", time.Now().UnixNano())
	opts := Options{Environment: map[string]string{"REA_TEST_SECRET": secret}}
	check := func(what string, b []byte) {
		t.Helper()
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("%s contains the secret value", what)
		}
	}
	req := Request{Executable: sh, EnvironmentNames: []string{"REA_TEST_SECRET"},
		Arguments:  []string{"-c", `[ "$REA_TEST_SECRET" = "` + strings.Repeat("?", 0) + `" ] && echo absent || echo present; sleep 0.2`},
		StdinSteps: []Step{WaitOutput("present", 5000), WriteSensitive("hunter2\n")}}
	res := capture(t, req, opts)
	if !strings.Contains(res.Output.Text, "present") {
		t.Fatalf("the variable did not reach the child: %q", res.Output.Text)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	check("result JSON", b)
	check("result Go value", []byte(fmt.Sprintf("%#v", res)))
	for _, o := range res.Observations {
		ob, _ := json.Marshal(o)
		check("observation", ob)
	}
	n := req
	_ = n.Normalize()
	pb, _ := json.Marshal(n.Parameters())
	check("parameters", pb)
	if bytes.Contains(pb, []byte("hunter2")) || !bytes.Contains(pb, []byte(`{"bytes":8,"redacted":true}`)) {
		t.Fatalf("sensitive write not redacted: %s", pb)
	}
	// Failures carry no value either.
	for _, bad := range []Request{
		{Executable: "/nonexistent/program", EnvironmentNames: []string{"REA_TEST_SECRET"}},
		{Executable: sh, EnvironmentNames: []string{"REA_TEST_SECRET"}, WorkingDirectory: "/nonexistent/dir"},
		{Executable: sh, EnvironmentNames: []string{"REA_TEST_SECRET"}, Network: NetworkHost},
	} {
		if bad.WorkingDirectory == "" {
			bad.WorkingDirectory = t.TempDir()
		}
		_, err := Run(context.Background(), bad, opts)
		if err == nil {
			t.Fatalf("%+v: no error", bad)
		}
		check("error text", []byte(err.Error()))
		eb, _ := json.Marshal(err)
		check("error JSON", eb)
	}
}

func TestNetworkIsolation(t *testing.T) {
	needCapture(t)
	probe := program(t, "netprobe")
	// A listener on the host's loopback, which no capture may reach.
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	run := func(network string, args ...string) string {
		t.Helper()
		res := capture(t, Request{Executable: probe, Arguments: args, Network: network},
			Options{AllowHostNetwork: network == NetworkHost})
		if res.Exit.Reason != ReasonExited {
			t.Fatalf("%s %v: exit %+v", network, args, res.Exit)
		}
		return strings.TrimSpace(res.Output.Text)
	}
	if out := run(NetworkLoopback, "self"); out != "SELF_OK" {
		t.Fatalf("loopback self: %q", out)
	}
	if out := run(NetworkNone, "self"); !strings.HasPrefix(out, "SELF_FAIL") {
		t.Fatalf("none self: %q", out)
	}
	for _, n := range []string{NetworkNone, NetworkLoopback} {
		if out := run(n, "connect", port); !strings.HasPrefix(out, "CONNECT_FAIL") {
			t.Fatalf("%s reached the host's listener: %q", n, out)
		}
	}
	select {
	case <-accepted:
		t.Fatal("the host listener accepted a connection from an isolated capture")
	default:
	}
	// The control: the same program does reach it with the host network.
	if out := run(NetworkHost, "connect", port); out != "CONNECT_OK" {
		t.Fatalf("host connect: %q", out)
	}
}

func TestLoopbackHelperRecordsTheTarget(t *testing.T) {
	needCapture(t)
	sh := testkit.Need(t, "sh")
	res := capture(t, Request{Executable: sh, Arguments: []string{"-c", "echo ready; read x"}, Network: NetworkLoopback,
		StdinSteps: []Step{WaitOutput("ready", 5000), Write("\n")}}, Options{})
	if res.Identity.Executable == "" || strings.Contains(res.Identity.Executable, ".test") {
		t.Fatalf("lineage recorded the helper, not the target: %q", res.Identity.Executable)
	}
	verified := 0
	for _, o := range res.Observations {
		if o.Status == lineage.StatusVerified {
			verified++
		}
	}
	if verified == 0 {
		t.Fatalf("no verified lineage observation: %+v", res.Observations)
	}
}

// alive reports whether pid names a live (non-zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || len(b) < i+3 || (b[i+2] != 'Z' && b[i+2] != 'X')
}

var childPID = regexp.MustCompile(`CHILD (\d+)`)

func TestOrphanedChildIsCleanedUp(t *testing.T) {
	needCapture(t)
	forker := program(t, "forker")
	for _, mode := range []string{"", "ignore-term"} {
		t.Run("mode="+mode, func(t *testing.T) {
			var args []string
			if mode != "" {
				args = []string{mode}
			}
			res := capture(t, Request{Executable: forker, Arguments: args, IdleTimeoutMS: 1000,
				StdinSteps: []Step{WaitOutput("CHILD ", 5000), Write("\n")}}, Options{})
			m := childPID.FindStringSubmatch(res.Output.Text)
			if m == nil {
				t.Fatalf("no child pid in %q", res.Output.Text)
			}
			pid, _ := strconv.Atoi(m[1])
			if alive(pid) {
				t.Fatalf("child %d outlived the capture", pid)
			}
			if res.Cleanup != (Cleanup{ProcessGroup: "terminated", Verified: true}) {
				t.Fatalf("cleanup = %+v", res.Cleanup)
			}
			if res.Exit.Code == nil || *res.Exit.Code != 0 {
				t.Fatalf("exit = %+v", res.Exit)
			}
			found := false
			for _, p := range res.Processes {
				if p.PID == pid && p.ProcessGroupID == res.Identity.ProcessGroupID && p.ParentPID == res.Identity.PID {
					found = true
				}
			}
			if !found {
				t.Fatalf("child %d not among the observed processes %+v", pid, res.Processes)
			}
		})
	}
}

func TestCancellationEndsTheOwnedGroup(t *testing.T) {
	needCapture(t)
	forker := program(t, "forker")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A process REA does not own, in its own group: never signalled.
	bystander := startBystander(t)
	token := fmt.Sprintf("cancel-test-%d", time.Now().UnixNano())
	type ret struct {
		res *Result
		err error
	}
	done := make(chan ret, 1)
	started := make(chan struct{})
	go func() {
		res, err := Run(ctx, Request{Executable: forker, WorkingDirectory: t.TempDir(), StdinSteps: []Step{
			WaitOutput("CHILD ", 5000), Sleep(60000)}}, Options{RunToken: token, Progress: progressFunc(func(phase string) {
			if phase == "steps" {
				select {
				case <-started:
				default:
					close(started)
				}
			}
		})})
		done <- ret{res, err}
	}()
	<-started
	time.Sleep(300 * time.Millisecond)
	cancel()
	r := <-done
	if faultCode(r.err) != fault.Cancelled {
		t.Fatalf("err = %v, want cancelled", r.err)
	}
	var fe *fault.Error
	errors.As(r.err, &fe)
	if fe.Details["cleanup"] != "complete" {
		t.Fatalf("details = %v", fe.Details)
	}
	if !alive(bystander) {
		t.Fatal("the bystander process was signalled")
	}
	// Every process carrying the run token is gone: scan /proc for any.
	if pids := tokenHolders(token); len(pids) > 0 {
		t.Fatalf("processes left after cancellation: %v", pids)
	}
}

func TestBounds(t *testing.T) {
	needCapture(t)
	sleep := testkit.Need(t, "sleep")
	yes := testkit.Need(t, "yes")
	t.Run("timeout", func(t *testing.T) {
		res := capture(t, Request{Executable: sleep, Arguments: []string{"30"}, TimeoutMS: 300}, Options{})
		if res.Exit.Reason != ReasonTimeout || res.Exit.Signal == nil || *res.Exit.Signal != "SIGTERM" || res.Exit.Code != nil {
			t.Fatalf("exit = %+v", res.Exit)
		}
		if res.Cleanup.ProcessGroup != "terminated" || res.DurationMS < 300 {
			t.Fatalf("cleanup %+v, duration %d", res.Cleanup, res.DurationMS)
		}
	})
	t.Run("idle", func(t *testing.T) {
		res := capture(t, Request{Executable: sleep, Arguments: []string{"30"}, IdleTimeoutMS: 300}, Options{})
		if res.Exit.Reason != ReasonIdleTimeout {
			t.Fatalf("exit = %+v", res.Exit)
		}
	})
	t.Run("output", func(t *testing.T) {
		res := capture(t, Request{Executable: yes, MaxOutputBytes: 1000}, Options{})
		if res.Exit.Reason != ReasonOutputLimit || !res.Output.Truncated || res.Output.Bytes != 1000 || len(res.Output.Text) != 1000 {
			t.Fatalf("exit %+v, output bytes %d truncated %v", res.Exit, res.Output.Bytes, res.Output.Truncated)
		}
		if !strings.HasPrefix(res.Output.Text, "y\r\ny\r\n") {
			t.Fatalf("text %q", res.Output.Text[:20])
		}
	})
	t.Run("step timeout skips the rest", func(t *testing.T) {
		cat := testkit.Need(t, "cat")
		res := capture(t, Request{Executable: cat, IdleTimeoutMS: 600, StdinSteps: []Step{
			WaitOutput("never", 100), Write("x\n")}}, Options{})
		if res.Steps[0].Outcome != OutcomeTimedOut || res.Steps[1].Outcome != OutcomeSkipped {
			t.Fatalf("steps = %+v", res.Steps)
		}
		if res.Exit.Reason != ReasonIdleTimeout {
			t.Fatalf("exit = %+v", res.Exit)
		}
	})
	t.Run("steps after exit", func(t *testing.T) {
		tru := testkit.Need(t, "true")
		res := capture(t, Request{Executable: tru, StdinSteps: []Step{Sleep(5000), Write("x")}}, Options{})
		if res.Steps[0].Outcome != OutcomeTargetExited || res.Steps[1].Outcome != OutcomeSkipped || res.Exit.Reason != ReasonExited {
			t.Fatalf("steps = %+v exit %+v", res.Steps, res.Exit)
		}
	})
	t.Run("signal step", func(t *testing.T) {
		res := capture(t, Request{Executable: sleep, Arguments: []string{"30"}, StdinSteps: []Step{SendSignal("SIGINT")}}, Options{})
		if res.Exit.Reason != ReasonExited || res.Exit.Signal == nil || *res.Exit.Signal != "SIGINT" {
			t.Fatalf("exit = %+v", res.Exit)
		}
	})
}

func TestLaunchFailures(t *testing.T) {
	needCapture(t)
	dir := t.TempDir()
	notExec := filepath.Join(dir, "data")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		req  Request
		code fault.Code
	}{
		{"missing", Request{Executable: "/nonexistent/x", WorkingDirectory: dir}, fault.ProcessCaptureFailed},
		{"not executable", Request{Executable: notExec, WorkingDirectory: dir}, fault.ProcessCaptureFailed},
		{"directory", Request{Executable: dir, WorkingDirectory: dir}, fault.ProcessCaptureFailed},
		{"relative", Request{Executable: "sh", WorkingDirectory: dir}, fault.InvalidRequest},
		{"host not allowed", Request{Executable: "/bin/sh", WorkingDirectory: dir, Network: NetworkHost}, fault.ExecutionFailure},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(context.Background(), c.req, Options{})
			if faultCode(err) != c.code {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
		})
	}
}

func TestProbe(t *testing.T) {
	if err := Probe(context.Background()); err != nil {
		var he *HostError
		if !errors.As(err, &he) || he.Reason == "" || !errors.Is(err, ErrUnsupportedHost) {
			t.Fatalf("probe error is not a *HostError with a reason: %v", err)
		}
		if testkit.RequireAll() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

func progressFunc(f func(phase string)) progress.Reporter {
	return progress.Func(func(u progress.Update) { f(u.Phase) })
}

// startBystander starts a process in a group of its own that REA does not
// own.
func startBystander(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(testkit.Need(t, "sleep"), "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// tokenHolders lists the live processes whose environment carries token.
func tokenHolders(token string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	want := []byte(lineage.RunTokenVar + "=" + token + "\x00")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(env, want) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
