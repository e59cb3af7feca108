//go:build linux

package lineage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var errESRCH = syscall.ESRCH

// Bounds of one observation and of termination.
const (
	maxDescendants = 1024
	termGrace      = 2 * time.Second // SIGTERM to SIGKILL (CONTRACTS.md §6.7)
	killWait       = 2 * time.Second // SIGKILL to giving up on verification
	pollInterval   = 10 * time.Millisecond
)

var tokenPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,128}$`)

// Spec describes a process to start.
type Spec struct {
	Path   string   // executable; a name without '/' is looked up in PATH
	Args   []string // arguments after argv[0]
	Dir    string   // working directory; "" is REA's
	RunID  string   // the run token, [A-Za-z0-9-]{1,128}
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	// Env, when non-nil, is the whole environment instead of the minimal
	// one; the run token is always set (any REA_PROCESS_RUN_ID entry in Env
	// is replaced).
	Env []string
	// Attr adds process attributes (a session and controlling terminal,
	// namespaces and their id mappings). The process always leads its own
	// group: Setpgid is forced unless Attr.Setsid, which implies it. Attr
	// itself is not modified.
	Attr *syscall.SysProcAttr
	// ExtraFiles are inherited as descriptors 3, 4, ...
	ExtraFiles []*os.File
	// AwaitExec, when set, is called after the process started and before
	// its identity is read. A launcher that execs once more (a helper that
	// sets up namespaces first) returns from it when that exec completed,
	// with the path exec'd, so the recorded executable is the final one. An
	// error ends the start: the launcher is killed and reaped, and Start
	// returns that error.
	AwaitExec func() (path string, err error)
}

// Owned is a process REA started and owns. Its launcher is never reaped
// before Terminate has verified the group empty, so its pid — and with it the
// process group id — cannot be reused while REA may still signal the group.
type Owned struct {
	id     Identity
	cmd    *exec.Cmd
	pidfd  int // -1 when pidfd_open is unavailable
	exited chan struct{}

	// reap is held for reading while signalling and for writing while
	// reaping, so no signal can race with the launcher's pid being freed.
	reap   sync.RWMutex
	reaped bool
	state  *os.ProcessState
}

// minimalEnv is the whole environment of a started process: never a copy of
// REA's own.
func minimalEnv(token string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	home := os.Getenv("HOME")
	if home == "" {
		home = "/"
	}
	return []string{"PATH=" + path, "HOME=" + home, "LANG=C", RunTokenVar + "=" + token}
}

// Start starts s in a new process group whose id is the launcher's pid and
// records its Identity. ctx only guards the start; the process outlives it.
func Start(ctx context.Context, s Spec) (*Owned, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !tokenPattern.MatchString(s.RunID) {
		return nil, fmt.Errorf("lineage: run token %q is not [A-Za-z0-9-]{1,128}", s.RunID)
	}
	cmd := exec.Command(s.Path, s.Args...)
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	cmd.Env = minimalEnv(s.RunID)
	if s.Env != nil {
		cmd.Env = withToken(s.Env, s.RunID)
	}
	cmd.Dir = s.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.Stdin, s.Stdout, s.Stderr
	cmd.ExtraFiles = s.ExtraFiles
	attr := syscall.SysProcAttr{}
	if s.Attr != nil {
		attr = *s.Attr
	}
	// A session leader leads its own group already, and setpgid would fail
	// on it.
	attr.Setpgid, attr.Pgid = !attr.Setsid, 0
	cmd.SysProcAttr = &attr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	finalPath := cmd.Path
	if s.AwaitExec != nil {
		var err error
		if finalPath, err = s.AwaitExec(); err != nil {
			_ = cmd.Process.Kill() // our own child, by its pidfd-backed handle
			_ = cmd.Wait()
			return nil, err
		}
	}
	// exec has completed when Start returns (os/exec waits for it), so stat
	// and exe describe the new program; the pid cannot be reused because it
	// is not reaped.
	pid := cmd.Process.Pid
	p := &Owned{cmd: cmd, pidfd: -1, exited: make(chan struct{})}
	st, err := readStat(pid)
	exe, xerr := exePath(pid)
	// A process that is exiting loses its exe link before it becomes a
	// zombie: give it a moment to get there (on a loaded machine the exit
	// was seen to take longer than 200 polls of a millisecond).
	for deadline := time.Now().Add(2 * time.Second); err == nil && xerr != nil && !st.zombie() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		if exe, xerr = exePath(pid); xerr == nil {
			break
		}
		st, err = readStat(pid)
	}
	if err == nil && xerr != nil && st.zombie() {
		// A short program can exit before its exe link is read; unreaped,
		// its pid and stat are still its own, and its program is the one
		// exec'd.
		exe, xerr = filepath.EvalSymlinks(finalPath)
	}
	if err == nil {
		err = xerr
	}
	if err != nil {
		_ = cmd.Process.Kill() // our own child, by its pidfd-backed handle
		_ = cmd.Wait()
		return nil, fmt.Errorf("lineage: reading the started process: %w", err)
	}
	p.id = Identity{PID: pid, ProcessGroupID: st.pgid, StartTime: st.start, RunToken: s.RunID,
		Executable: exe, ParentPID: os.Getpid()}
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		p.pidfd = fd
	}
	go p.watch()
	return p, nil
}

// withToken is env with the run token as its only REA_PROCESS_RUN_ID entry.
func withToken(env []string, token string) []string {
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if len(e) > len(RunTokenVar) && e[:len(RunTokenVar)+1] == RunTokenVar+"=" {
			continue
		}
		out = append(out, e)
	}
	return append(out, RunTokenVar+"="+token)
}

// watch learns of the launcher's exit without reaping it (WNOWAIT).
func (p *Owned) watch() {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, p.id.PID, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		break
	}
	close(p.exited)
}

// Identity is what was recorded at start.
func (p *Owned) Identity() Identity { return p.id }

// Exited is closed when the launcher has exited (it is not reaped yet).
func (p *Owned) Exited() <-chan struct{} { return p.exited }

// Observe observes the process tree (see Observe).
func (p *Owned) Observe(ctx context.Context) Observation { return Observe(ctx, p.id) }

// Signal sends sig to the process group after proving that every member is
// REA's (the launcher: same pid, start time, group and run token; every
// other member: the run token and a start no earlier than the launcher's).
// A launcher that exited but is not reaped still anchors the group. Nothing is
// sent when the proof fails; the error is an *OwnershipError.
func (p *Owned) Signal(sig syscall.Signal) error {
	p.reap.RLock()
	defer p.reap.RUnlock()
	if p.reaped {
		return &OwnershipError{PID: p.id.PID, Reason: "launcher already reaped"}
	}
	exited := false
	select {
	case <-p.exited:
		exited = true
	default:
	}
	members, err := proveGroup(context.Background(), p.id, exited)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		return nil // nothing left to signal
	}
	return p.sendGroup(sig)
}

// Members lists the live members of the owned group, the launcher
// included while it runs, after proving every one REA's as Signal does. A
// group that cannot be proved owned is an *OwnershipError.
func (p *Owned) Members(ctx context.Context) ([]Process, error) {
	p.reap.RLock()
	defer p.reap.RUnlock()
	if p.reaped {
		return nil, nil
	}
	exited := false
	select {
	case <-p.exited:
		exited = true
	default:
	}
	members, err := proveGroup(ctx, p.id, exited)
	if err != nil {
		return nil, err
	}
	out := make([]Process, 0, len(members))
	for _, m := range members {
		out = append(out, Process{PID: m.pid, ParentPID: m.ppid, ProcessGroupID: m.pgid})
	}
	slices.SortFunc(out, func(a, b Process) int { return a.PID - b.PID })
	return out, nil
}

// sendGroup signals the group through the launcher's pidfd where the kernel
// supports group signals on a pidfd (Linux 6.9+): the pidfd names the
// launcher's struct pid, which cannot be reused. Else kill(-pgid), safe here
// because the caller holds the launcher unreaped.
func (p *Owned) sendGroup(sig syscall.Signal) error {
	if p.pidfd >= 0 {
		err := unix.PidfdSendSignal(p.pidfd, sig, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("lineage: pidfd_send_signal: %w", err)
		}
	}
	if err := unix.Kill(-p.id.ProcessGroupID, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("lineage: kill(-%d): %w", p.id.ProcessGroupID, err)
	}
	return nil
}

// Terminate ends the owned process group (SIGTERM, a 2 s grace, SIGKILL) and
// verifies it empty, then reaps the launcher. remaining lists the owned
// resource kinds (CONTRACTS.md §6.5) that could not be confirmed gone, sorted;
// empty means cleanup is complete. A group that cannot be proved owned is
// not signalled and is reported remaining. Terminate is idempotent.
func (p *Owned) Terminate(ctx context.Context) (remaining []string) {
	p.reap.RLock()
	done := p.reaped
	p.reap.RUnlock()
	if done {
		return nil
	}
	settled := false // each check scans the process table: no second one when the first said so
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGTERM, termGrace}, {syscall.SIGKILL, killWait}} {
		if settled = p.settled(ctx); settled {
			break
		}
		if err := p.Signal(step.sig); err != nil {
			// Not provably ours: never signalled. A group on its way out
			// (a launcher mid-exit has no readable environment) still gets
			// the grace period to settle by itself before it is reported.
			p.waitSettled(ctx, step.wait)
			break
		}
		p.waitSettled(ctx, step.wait)
	}
	if !settled && !p.settled(ctx) {
		return p.remaining(ctx)
	}
	p.reap.Lock()
	defer p.reap.Unlock()
	if !p.reaped {
		_ = p.cmd.Wait() // an exit status is not an error here
		p.state = p.cmd.ProcessState
		p.reaped = true
		if p.pidfd >= 0 {
			_ = unix.Close(p.pidfd)
			p.pidfd = -1
		}
	}
	return nil
}

// ExitState is the launcher's exit status once Terminate reaped it.
func (p *Owned) ExitState() *os.ProcessState {
	p.reap.RLock()
	defer p.reap.RUnlock()
	return p.state
}

// settled reports whether the launcher has exited and no live process is
// left in the group.
func (p *Owned) settled(ctx context.Context) bool {
	select {
	case <-p.exited:
	default:
		return false
	}
	members, err := groupMembers(ctx, p.id.ProcessGroupID)
	return err == nil && len(members) == 0
}

func (p *Owned) waitSettled(ctx context.Context, d time.Duration) {
	deadline := time.Now().Add(d)
	for !p.settled(ctx) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(pollInterval)
	}
}

func (p *Owned) remaining(ctx context.Context) []string {
	var r []string
	select {
	case <-p.exited:
	default:
		r = append(r, "provider-process")
	}
	if members, err := groupMembers(ctx, p.id.ProcessGroupID); err != nil || len(members) > 0 {
		r = append(r, "provider-process-group")
	}
	sort.Strings(r)
	return r
}

// groupMembers lists the live (non-zombie) processes of group pgid.
func groupMembers(ctx context.Context, pgid int) ([]statInfo, error) {
	table, err := scanTable(ctx)
	if err != nil {
		return nil, err
	}
	var out []statInfo
	for _, st := range table {
		if st.pgid == pgid && !st.zombie() {
			out = append(out, st)
		}
	}
	return out, nil
}

// proveLauncher proves that id.PID still is the process REA started.
func proveLauncher(id Identity) error {
	st, err := readStat(id.PID)
	switch {
	case err != nil:
		return &OwnershipError{PID: id.PID, Reason: ReasonNotRunning}
	case st.zombie():
		return &OwnershipError{PID: id.PID, Reason: ReasonNotRunning}
	case st.start != id.StartTime:
		return &OwnershipError{PID: id.PID, Reason: ReasonStartTimeMismatch}
	case st.pgid != id.ProcessGroupID:
		return &OwnershipError{PID: id.PID, Reason: ReasonGroupMismatch}
	case !hasToken(id.PID, id.RunToken):
		return &OwnershipError{PID: id.PID, Reason: ReasonLauncherNoToken}
	}
	return nil
}

// proveGroup proves the launcher (alive, or, when launcherExited, an
// unreaped zombie with the recorded start time) and every live member of its
// group, and returns the live members.
func proveGroup(ctx context.Context, id Identity, launcherExited bool) ([]statInfo, error) {
	if id.PID < 1 || id.ProcessGroupID != id.PID {
		return nil, &OwnershipError{PID: id.PID, Reason: ReasonGroupMismatch}
	}
	if !launcherExited {
		if err := proveLauncher(id); err != nil {
			return nil, err
		}
	} else if st, err := readStat(id.PID); err != nil || st.start != id.StartTime || st.pgid != id.ProcessGroupID {
		return nil, &OwnershipError{PID: id.PID, Reason: ReasonNotRunning}
	}
	members, err := groupMembers(ctx, id.ProcessGroupID)
	if err != nil {
		return nil, &OwnershipError{PID: id.PID, Reason: ReasonTableUnreadable}
	}
	for _, m := range members {
		if m.start < id.StartTime {
			return nil, &OwnershipError{PID: m.pid, Reason: "group member older than the launcher"}
		}
		if !hasToken(m.pid, id.RunToken) {
			return nil, &OwnershipError{PID: m.pid, Reason: "group member without run token"}
		}
	}
	return members, nil
}

// Signal sends sig to the process group of a recorded identity after
// proving ownership as Owned.Signal does (the launcher must be alive). It
// is for identities REA recorded but no longer holds a Process for; prefer
// Owned.Signal, which also excludes pid reuse between proof and signal.
func Signal(id Identity, sig syscall.Signal) error {
	if _, err := proveGroup(context.Background(), id, false); err != nil {
		return err
	}
	if err := unix.Kill(-id.ProcessGroupID, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("lineage: kill(-%d): %w", id.ProcessGroupID, err)
	}
	return nil
}

// Observe checks, from /proc, that the launcher of id is alive and REA's
// (not a zombie, recorded start time, group, parent and executable, run token
// in its environment) and lists its descendants: the processes reachable
// from it by parent pid and the live members of its group (a child that
// outlived its parent stays in the group), zombies dropped, each of which
// must carry the run token. It sends no signal.
func Observe(ctx context.Context, id Identity) Observation {
	obs := Observation{ObservedAt: now(), LauncherPID: id.PID, ProcessGroupID: id.ProcessGroupID}
	fail := func(reason string) Observation {
		obs.Status, obs.Reason = StatusUnavailable, reason
		return obs
	}
	if id.PID < 1 {
		return fail(ReasonNotRunning)
	}
	table, err := scanTable(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return fail(ReasonObservationCanceled)
		}
		return fail(ReasonTableUnreadable)
	}
	byPID := make(map[int]statInfo, len(table))
	children := make(map[int][]int)
	for _, st := range table {
		byPID[st.pid] = st
		children[st.ppid] = append(children[st.ppid], st.pid)
	}
	l, ok := byPID[id.PID]
	switch {
	case !ok || l.zombie():
		return fail(ReasonNotRunning)
	case l.start != id.StartTime:
		return fail(ReasonStartTimeMismatch)
	case l.pgid != id.ProcessGroupID:
		return fail(ReasonGroupMismatch)
	case l.ppid != id.ParentPID:
		return fail(ReasonParentMismatch)
	}
	if exe, err := exePath(id.PID); err != nil || exe != id.Executable {
		return fail(ReasonExecutableMismatch)
	}
	if !hasToken(id.PID, id.RunToken) {
		return fail(ReasonLauncherNoToken)
	}
	seen := map[int]bool{id.PID: true}
	var desc []Process
	add := func(st statInfo) bool {
		if seen[st.pid] || st.zombie() {
			return true
		}
		seen[st.pid] = true
		desc = append(desc, Process{PID: st.pid, ParentPID: st.ppid, ProcessGroupID: st.pgid})
		return len(desc) <= maxDescendants
	}
	queue := []int{id.PID}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			st := byPID[c]
			if seen[c] || st.zombie() {
				continue
			}
			if !add(st) {
				return fail(ReasonTooManyDescendants)
			}
			queue = append(queue, c)
		}
	}
	for _, st := range table {
		if st.pgid == id.ProcessGroupID && !add(st) {
			return fail(ReasonTooManyDescendants)
		}
	}
	for _, d := range desc {
		if !hasToken(d.PID, id.RunToken) {
			if _, err := readStat(d.PID); errors.Is(err, os.ErrNotExist) {
				continue // exited since the scan
			}
			return fail(ReasonDescendantNoToken)
		}
	}
	desc = slices.DeleteFunc(desc, func(d Process) bool {
		_, err := readStat(d.PID)
		return errors.Is(err, os.ErrNotExist)
	})
	slices.SortFunc(desc, func(a, b Process) int { return a.PID - b.PID })
	ppid := l.ppid
	obs.Status, obs.SchemaVersion, obs.LauncherParentPID, obs.Descendants = StatusVerified, 1, &ppid, desc
	if obs.Descendants == nil {
		obs.Descendants = []Process{}
	}
	return obs
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }
