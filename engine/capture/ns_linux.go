//go:build linux

package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rea-re/rea/engine/lineage"
)

// helperArg marks an invocation of REA's own binary as the namespace
// helper: argv = [/proc/self/exe, helperArg, mode, target, target args...].
const helperArg = "__rea_capture_netns_helper_v1__"

// Helper modes.
const (
	helperExec  = "exec"  // bring lo up, then exec the target
	helperProbe = "probe" // bring lo up, then exit 0
)

// helperSyncFD is the helper's close-on-exec report pipe (ExtraFiles[0]).
const helperSyncFD = 3

// selfExe re-executes the running binary, even when it was replaced or
// removed on disk since it started.
const selfExe = "/proc/self/exe"

func init() {
	if len(os.Args) >= 3 && os.Args[1] == helperArg {
		os.Exit(helperMain(os.Args[2], os.Args[3:]))
	}
}

// helperMain runs inside the new namespaces. A failure is written to the
// sync pipe as "stage: errno text" and ends with 127; success is the pipe
// closing at exec.
func helperMain(mode string, args []string) int {
	unix.CloseOnExec(helperSyncFD)
	report := func(stage string, err error) int {
		msg := stage + ": " + err.Error()
		_, _ = unix.Write(helperSyncFD, []byte(msg))
		return 127
	}
	if err := loopbackUp(); err != nil {
		return report("loopback", err)
	}
	// The target gets no capability from REA: ambient ones would survive
	// its exec (for a non-root uid inside the namespace, exec drops the rest).
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	switch mode {
	case helperProbe:
		return 0
	case helperExec:
		if len(args) < 1 {
			return report("exec", errors.New("no target"))
		}
		argv := append([]string{args[0]}, args[1:]...)
		err := unix.Exec(args[0], argv, os.Environ())
		return report("exec", err)
	}
	return report("mode", errors.New("unknown helper mode"))
}

// loopbackUp sets IFF_UP on lo of the current network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCGIFFLAGS: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCSIFFLAGS: %w", err)
	}
	return nil
}

// helperFailure is a failure the helper reported.
type helperFailure struct {
	stage string // "loopback", "exec", "mode"
	msg   string
}

func (e *helperFailure) Error() string { return "capture helper: " + e.stage + ": " + e.msg }

// namespaceAttr is the clone-time part of a new user+network namespace: the
// caller's uid and gid map to themselves inside it, so the program sees the
// ids it would see outside. As root, the whole id range maps to itself (root
// may write any map) so root inside keeps its file access; without
// privileges, only the caller's own ids can be mapped and setgroups is
// denied. withNetAdmin keeps CAP_NET_ADMIN across the helper's exec for a
// non-root caller.
func namespaceAttr(withNetAdmin bool) *syscall.SysProcAttr {
	uid, gid := os.Geteuid(), os.Getegid()
	size := 1
	if uid == 0 {
		size = 1<<32 - 1
	}
	a := &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: size}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: size}},
	}
	if uid == 0 {
		a.GidMappingsEnableSetgroups = true
	}
	if withNetAdmin && uid != 0 {
		a.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN}
	}
	return a
}

// syncPipe is the parent's end of the helper's report pipe.
type syncPipe struct{ r, w *os.File }

func newSyncPipe() (*syncPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &syncPipe{r: r, w: w}, nil
}

// await closes the parent's write end and reads the helper's report: EOF
// without a byte means the helper's final exec (or, probing, its exit)
// happened.
func (p *syncPipe) await() error {
	_ = p.w.Close()
	_ = p.r.SetReadDeadline(time.Now().Add(helperWait))
	b, err := io.ReadAll(io.LimitReader(p.r, 4096))
	if err != nil {
		return fmt.Errorf("capture helper did not report: %w", err)
	}
	if len(b) == 0 {
		return nil
	}
	stage, msg, _ := strings.Cut(string(b), ": ")
	return &helperFailure{stage: stage, msg: msg}
}

func (p *syncPipe) close() {
	_ = p.w.Close()
	_ = p.r.Close()
}

// helperWait bounds the helper's start (runtime start, ioctl, exec).
const helperWait = 10 * time.Second

// Probe checks, without side effects outside its own short-lived process,
// that this host can run captures as §2.6 requires: a PTY, a process of its
// own session and group, and a user+network namespace whose loopback can be
// brought up. The tools layer probes once at startup; a failure is a
// *HostError whose Reason is the availability remediation.
func Probe(ctx context.Context) error {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return &HostError{Reason: "no pseudo-terminal can be allocated (/dev/ptmx): " + errText(err), Err: err}
	}
	defer ptmx.Close()
	defer tty.Close()
	sp, err := newSyncPipe()
	if err != nil {
		return &HostError{Reason: "no pipe for the namespace helper: " + errText(err), Err: err}
	}
	defer sp.close()
	attr := namespaceAttr(true)
	attr.Setsid, attr.Setctty, attr.Ctty = true, true, 0
	owned, err := lineage.Start(ctx, lineage.Spec{
		Path: selfExe, Args: []string{helperArg, helperProbe}, RunID: newToken(),
		Stdin: tty, Stdout: tty, Stderr: tty, Env: []string{}, Attr: attr,
		ExtraFiles: []*os.File{sp.w}, AwaitExec: func() (string, error) { return selfExe, sp.await() },
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &HostError{Reason: namespaceReason(err), Err: err}
	}
	<-owned.Exited()
	rest := owned.Terminate(context.WithoutCancel(ctx))
	st := owned.ExitState()
	if len(rest) > 0 || st == nil || !st.Success() {
		return &HostError{Reason: "the namespace probe did not exit cleanly"}
	}
	return nil
}

// namespaceReason explains a failure to create or set up the namespaces,
// naming the host setting that forbids them where one does.
func namespaceReason(err error) string {
	var hf *helperFailure
	if errors.As(err, &hf) && hf.stage == "loopback" {
		return "the loopback interface of a new network namespace cannot be brought up: " + hf.msg
	}
	if b, rerr := os.ReadFile("/proc/sys/user/max_user_namespaces"); rerr == nil && strings.TrimSpace(string(b)) == "0" {
		return "user namespaces are disabled (user.max_user_namespaces=0)"
	}
	if os.Geteuid() != 0 {
		if b, rerr := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); rerr == nil && strings.TrimSpace(string(b)) == "0" {
			return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)"
		}
		if b, rerr := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); rerr == nil && strings.TrimSpace(string(b)) == "1" {
			return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)"
		}
	}
	return "a user+network namespace cannot be created: " + errText(err)
}

// errText is an error's text reduced to its errno where it has one, so no
// path or value of the caller's rides along.
func errText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var hf *helperFailure
	if errors.As(err, &hf) {
		return hf.stage + ": " + hf.msg
	}
	return err.Error()
}

// comm is the kernel's command name of pid ("" once it is gone).
func comm(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n")
}
