//go:build linux

package lineage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const testToken = "0b7e9a4c-2f1d-4c3b-9a8e-7d6c5b4a3f21"

func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		msg := "tool " + name + " is not installed; install it to run this test"
		if os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	st, err := readStat(pid)
	return err == nil && !st.zombie()
}

func startOwned(t *testing.T, path string, args ...string) *Owned {
	t.Helper()
	p, err := Start(context.Background(), Spec{Path: path, Args: args, RunID: testToken})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if r := p.Terminate(context.Background()); len(r) > 0 {
			t.Errorf("cleanup left %v", r)
		}
	})
	return p
}

func TestStartRecordsIdentityAndMinimalEnvironment(t *testing.T) {
	sleep := needTool(t, "sleep")
	p := startOwned(t, sleep, "30")
	id := p.Identity()
	if id.PID < 1 || id.ProcessGroupID != id.PID {
		t.Fatalf("identity %+v: want its own process group", id)
	}
	if id.ParentPID != os.Getpid() || id.StartTime == 0 || id.RunToken != testToken {
		t.Fatalf("identity %+v", id)
	}
	want, _ := filepath.EvalSymlinks(sleep)
	if id.Executable != want {
		t.Fatalf("executable %q, want %q", id.Executable, want)
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(id.PID) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, kv := range strings.Split(strings.TrimRight(string(env), "\x00"), "\x00") {
		names = append(names, strings.SplitN(kv, "=", 2)[0])
	}
	if strings.Join(names, ",") != "PATH,HOME,LANG,REA_PROCESS_RUN_ID" || !strings.Contains(string(env), "LANG=C\x00") {
		t.Fatalf("environment %q: want only PATH, HOME, LANG=C and the run token", env)
	}
	obs := p.Observe(context.Background())
	if obs.Status != StatusVerified || obs.LauncherPID != id.PID || obs.ProcessGroupID != id.PID ||
		obs.LauncherParentPID == nil || *obs.LauncherParentPID != os.Getpid() || len(obs.Descendants) != 0 {
		t.Fatalf("observation %+v", obs)
	}
	if r := p.Terminate(context.Background()); len(r) != 0 {
		t.Fatalf("Terminate left %v", r)
	}
	if alive(id.PID) {
		t.Fatal("launcher still alive after Terminate")
	}
	if obs := Observe(context.Background(), id); obs.Status != StatusUnavailable || obs.Reason != ReasonNotRunning {
		t.Fatalf("observation after Terminate %+v", obs)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, ErrNotOwned) {
		t.Fatalf("Signal after reaping: %v, want ErrNotOwned", err)
	}
}

// A process REA did not start, recorded under its pid (as a stale ledger
// record could), is never signalled: it has another run token.
func TestUnrelatedProcessIsNotSignalled(t *testing.T) {
	sleep := needTool(t, "sleep")
	cmd := exec.Command(sleep, "30")
	cmd.Env = []string{"PATH=/usr/bin:/bin", RunTokenVar + "=someone-else"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	pid := cmd.Process.Pid
	st, err := readStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := exePath(pid)
	believed := Identity{PID: pid, ProcessGroupID: st.pgid, StartTime: st.start, RunToken: testToken,
		Executable: exe, ParentPID: os.Getpid()}

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		err := Signal(believed, sig)
		var oe *OwnershipError
		if !errors.As(err, &oe) || !errors.Is(err, ErrNotOwned) || oe.Reason != ReasonLauncherNoToken {
			t.Fatalf("Signal(%v) = %v, want a refusal for the missing run token", sig, err)
		}
	}
	wrongStart := believed
	wrongStart.RunToken, wrongStart.StartTime = "someone-else", st.start+1
	if err := Signal(wrongStart, syscall.SIGKILL); !errors.Is(err, ErrNotOwned) {
		t.Fatalf("Signal with a wrong start time = %v, want a refusal", err)
	}
	if obs := Observe(context.Background(), believed); obs.Status != StatusUnavailable || obs.Reason != ReasonLauncherNoToken {
		t.Fatalf("observation %+v", obs)
	}
	// Proof that nothing was sent: the process is alive, not a zombie, and
	// answers signal 0.
	time.Sleep(50 * time.Millisecond)
	select {
	case <-exited:
		t.Fatal("the unrelated process exited")
	default:
	}
	if !alive(pid) || unix.Kill(pid, 0) != nil {
		t.Fatal("the unrelated process is not alive")
	}
}

// A child that outlives its parent is reparented away from the launcher but
// stays in the owned group: it is a descendant, and Terminate ends it.
func TestOrphanStaysADescendantOfTheGroup(t *testing.T) {
	sh := needTool(t, "sh")
	needTool(t, "sleep")
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(context.Background(), Spec{Path: sh, RunID: testToken, Stdin: stdinR, Stdout: outW,
		Args: []string{"-c", `(sleep 30 & echo $!); sleep 30 & echo $!; read x`}})
	stdinR.Close()
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer stdinW.Close()
	defer outR.Close()
	sc := bufio.NewScanner(outR)
	var pids []int
	for len(pids) < 2 && sc.Scan() {
		n, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatalf("output %q", sc.Text())
		}
		pids = append(pids, n)
	}
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	orphan, child := pids[0], pids[1]
	id := p.Identity()
	ost, err := readStat(orphan)
	if err != nil || ost.ppid == id.PID || ost.pgid != id.PID {
		t.Fatalf("orphan stat %+v (%v): want reparented, same group", ost, err)
	}
	obs := p.Observe(context.Background())
	if obs.Status != StatusVerified {
		t.Fatalf("observation %+v", obs)
	}
	found := map[int]Process{}
	for _, d := range obs.Descendants {
		found[d.PID] = d
	}
	if d, ok := found[orphan]; !ok || d.ProcessGroupID != id.PID || d.ParentPID != ost.ppid {
		t.Fatalf("orphan %d not a descendant: %+v", orphan, obs.Descendants)
	}
	if d, ok := found[child]; !ok || d.ParentPID != id.PID {
		t.Fatalf("child %d not a descendant: %+v", child, obs.Descendants)
	}
	if r := p.Terminate(context.Background()); len(r) != 0 {
		t.Fatalf("Terminate left %v", r)
	}
	for _, pid := range []int{id.PID, orphan, child} {
		if alive(pid) {
			t.Fatalf("pid %d survived Terminate", pid)
		}
	}
}

// A member of the group without the run token makes the group unprovable:
// nothing is signalled, the observation says why, Terminate reports it.
func TestGroupMemberWithoutTokenBlocksSignals(t *testing.T) {
	sh := needTool(t, "sh")
	needTool(t, "env")
	stdinR, stdinW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	p, err := Start(context.Background(), Spec{Path: sh, RunID: testToken, Stdin: stdinR, Stdout: outW,
		Args: []string{"-c", `env -i sleep 30 & echo $!; read x`}})
	stdinR.Close()
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(outR)
	if !sc.Scan() {
		t.Fatal("no output")
	}
	stranger, _ := strconv.Atoi(strings.TrimSpace(sc.Text()))
	defer func() {
		unix.Kill(stranger, syscall.SIGKILL) // the test's own cleanup of its fixture
		// A signal is delivered asynchronously: until the stranger is dead
		// it is still a token-less member that (rightly) blocks Terminate.
		for i := 0; i < 1000 && alive(stranger); i++ {
			time.Sleep(2 * time.Millisecond)
		}
		stdinW.Close()
		outR.Close()
		if r := p.Terminate(context.Background()); len(r) != 0 {
			t.Errorf("final Terminate left %v", r)
		}
	}()
	// The background job is a forked shell (with the token) that execs env
	// (still with it), which execs sleep without it. Reading environ can
	// fail in the middle of an exec, so wait for sleep itself, then for its
	// environment to be readable and token-free.
	for i := 0; i < 400 && !(isSleep(stranger) && readableWithoutToken(stranger)); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if obs := p.Observe(context.Background()); obs.Status != StatusUnavailable || obs.Reason != ReasonDescendantNoToken {
		t.Fatalf("observation %+v", obs)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, ErrNotOwned) {
		t.Fatalf("Signal = %v, want a refusal", err)
	}
	if !alive(p.Identity().PID) || !alive(stranger) {
		t.Fatal("a process was signalled")
	}
}

func TestObservationOfAKilledLauncherIsUnavailable(t *testing.T) {
	sleep := needTool(t, "sleep")
	p := startOwned(t, sleep, "30")
	id := p.Identity()
	if err := unix.Kill(id.PID, syscall.SIGKILL); err != nil { // the test, not REA, kills it
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("exit not noticed")
	}
	obs := p.Observe(context.Background())
	if obs.Status != StatusUnavailable || obs.Reason != ReasonNotRunning || obs.LauncherPID != id.PID {
		t.Fatalf("observation %+v", obs)
	}
	b, _ := json.Marshal(obs)
	var m map[string]any
	json.Unmarshal(b, &m)
	if len(m) != 5 || m["reason"] != ReasonNotRunning {
		t.Fatalf("unavailable observation JSON %s", b)
	}
	if r := p.Terminate(context.Background()); len(r) != 0 {
		t.Fatalf("Terminate left %v", r)
	}
	if p.ExitState() == nil {
		t.Fatal("launcher not reaped")
	}
}

func TestVerifiedObservationJSONShape(t *testing.T) {
	ppid := 7
	b, err := json.Marshal(Observation{Status: StatusVerified, ObservedAt: "2026-01-01T00:00:00.000Z",
		LauncherPID: 9, LauncherParentPID: &ppid, ProcessGroupID: 9})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":"verified","observed_at":"2026-01-01T00:00:00.000Z","schema_version":1,"launcher_pid":9,"launcher_parent_pid":7,"process_group_id":9,"descendants":[]}`
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
}

func TestParseStat(t *testing.T) {
	st, err := parseStat([]byte("4242 (a) b (c) Z) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 987654 0 0\n"))
	if err != nil || st.pid != 4242 || st.state != 'S' || st.ppid != 1 || st.pgid != 4242 || st.start != 987654 {
		t.Fatalf("%+v %v", st, err)
	}
	for _, bad := range []string{"", "x", "1 (a", "1 (a) S 1 2", "0 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5"} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q) accepted", bad)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("1 (init) S 0 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 3 0 0\n"))
	f.Add([]byte("77 ()) Z 1 1 1 0 -1) R 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 18446744073709551615 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseStat(b)
		if err == nil && st.pid < 1 {
			t.Fatalf("accepted pid %d", st.pid)
		}
	})
}

func isSleep(pid int) bool {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return err == nil && strings.TrimSpace(string(comm)) == "sleep"
}

func readableWithoutToken(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && !bytes.Contains(env, []byte(RunTokenVar+"="+testToken))
}
