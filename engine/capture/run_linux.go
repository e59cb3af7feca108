//go:build linux

package capture

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/progress"
)

// Bounds of the phases after the run ended.
const (
	settleQuiet   = 50 * time.Millisecond  // no output for this long: the transcript is complete
	settleMax     = 500 * time.Millisecond // output still arriving after the launcher exited
	drainMax      = time.Second            // reading what the terminated group left
	cleanupBudget = 15 * time.Second       // Terminate: 2 s grace + kill + verification
	hashChunk     = 1 << 20
)

// endCancelled is the internal end reason of a cancelled run.
const endCancelled = "cancelled"

// Run executes one capture. The request is normalized first (defaults,
// validation). Errors are *fault.Error: invalid_request,
// process_capture_failed, cancelled and cleanup_incomplete (which wins over
// the others), or execution_failure.
func Run(ctx context.Context, req Request, opts Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fault.CancelledError(Operation).WithCause(err)
	}
	if err := req.Normalize(); err != nil {
		return nil, err
	}
	if req.Network == NetworkHost && !opts.AllowHostNetwork {
		return nil, fault.New(fault.ExecutionFailure,
			"Network \"host\" needs a process_capture ceiling that allows external networking.",
			"Set REA_PROCESS_ALLOW_EXTERNAL_NETWORK=true and restart, or use network \"none\" or \"loopback\".",
			map[string]any{"operation": Operation, "reason": "network_not_allowed"})
	}
	rep := progress.OrNop(opts.Progress)
	rep.Report(progress.Update{Phase: "launch", Completed: 0, Message: "starting the program"})

	digest, err := checkTarget(ctx, req.Executable, req.WorkingDirectory)
	if err != nil {
		return nil, err
	}
	token := opts.RunToken
	if token == "" {
		token = newToken()
	}
	var limitations []string
	env := make([]string, 0, len(req.EnvironmentNames)+1)
	seen := map[string]bool{}
	for _, n := range req.EnvironmentNames {
		if seen[n] {
			continue
		}
		seen[n] = true
		if v, ok := opts.Environment[n]; ok {
			env = append(env, n+"="+v)
		} else {
			limitations = append(limitations, "Environment variable "+n+" is not set in REA's environment; the program ran without it.")
		}
	}
	env = append(env, "TERM="+TermValue) // lineage appends the run token

	master, tty, err := openPTY(req.Terminal)
	if err != nil {
		return nil, captureFailed(FailPTY, err)
	}
	r := &runner{ctx: ctx, req: &req, master: master, rep: rep, procs: map[int]Process{},
		limitations: limitations, t: &transcript{max: req.MaxOutputBytes, changed: make(chan struct{})}}
	r.start = time.Now()
	owned, err := launch(ctx, &req, token, env, tty)
	_ = tty.Close() // the child holds its copies; EOF on the master then means they are all gone
	if err != nil {
		_ = master.Close()
		return nil, err
	}
	r.owned = owned
	r.deadline = r.start.Add(time.Duration(req.TimeoutMS) * time.Millisecond)
	r.idle = time.Duration(req.IdleTimeoutMS) * time.Millisecond
	r.t.last = r.start
	// A cancelled context unblocks a write at once; reads are stopped by the
	// end of the run.
	stopWrites := context.AfterFunc(ctx, func() { _ = master.SetWriteDeadline(time.Now()) })
	defer stopWrites()
	readerDone := make(chan struct{})
	go r.readLoop(readerDone)

	res, runErr := r.run(digest, token)
	_ = master.SetReadDeadline(time.Now())
	<-readerDone
	_ = master.Close()
	return res, runErr
}

// checkTarget verifies the executable (a regular file with an execute bit)
// and the working directory, and hashes the executable.
func checkTarget(ctx context.Context, exe, dir string) (string, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return "", captureFailed(FailExec, fmt.Errorf("working directory: %w", err))
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", captureFailed(FailExec, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", captureFailed(FailExec, err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return "", captureFailed(FailExec, errors.New("not a regular executable file"))
	}
	h := sha256.New()
	buf := make([]byte, hashChunk)
	for {
		if err := ctx.Err(); err != nil {
			return "", fault.CancelledError(Operation).WithCause(err)
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", captureFailed(FailExec, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openPTY allocates the terminal and returns a pollable master (so reads
// and writes honour deadlines) and the slave for the child.
func openPTY(t Terminal) (*os.File, *os.File, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	// pty.Open leaves the master in blocking mode (its ioctls go through
	// Fd()); a non-blocking duplicate is registered with the poller.
	fd, err := unix.FcntlInt(ptmx.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	_ = ptmx.Close()
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		_ = tty.Close()
		if fd >= 0 {
			_ = unix.Close(fd)
		}
		return nil, nil, err
	}
	master := os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := pty.Setsize(tty, &pty.Winsize{Rows: uint16(t.Rows), Cols: uint16(t.Columns)}); err != nil {
		_ = master.Close()
		_ = tty.Close()
		return nil, nil, err
	}
	return master, tty, nil
}

// launch starts the target through lineage: a new session whose
// controlling terminal is the PTY, the exact environment, and for "none" and
// "loopback" new user+network namespaces (loopback through the helper).
func launch(ctx context.Context, req *Request, token string, env []string, tty *os.File) (*lineage.Owned, error) {
	spec := lineage.Spec{Path: req.Executable, Args: req.Arguments, Dir: req.WorkingDirectory, RunID: token,
		Stdin: tty, Stdout: tty, Stderr: tty, Env: env}
	var attr *syscall.SysProcAttr
	switch req.Network {
	case NetworkHost:
		attr = &syscall.SysProcAttr{}
	case NetworkNone:
		attr = namespaceAttr(false)
	case NetworkLoopback:
		attr = namespaceAttr(true)
		sp, err := newSyncPipe()
		if err != nil {
			return nil, captureFailed(FailIO, err)
		}
		defer sp.close()
		spec.Path = selfExe
		spec.Args = append([]string{helperArg, helperExec, req.Executable}, req.Arguments...)
		spec.ExtraFiles = []*os.File{sp.w}
		spec.AwaitExec = func() (string, error) { return req.Executable, sp.await() }
	}
	attr.Setsid, attr.Setctty, attr.Ctty = true, true, 0
	spec.Attr = attr
	owned, err := lineage.Start(ctx, spec)
	if err == nil {
		return owned, nil
	}
	if ctx.Err() != nil {
		return nil, fault.CancelledError(Operation).WithCause(ctx.Err())
	}
	var hf *helperFailure
	switch {
	case errors.As(err, &hf) && hf.stage == "exec":
		return nil, captureFailed(FailExec, err)
	case errors.As(err, &hf):
		return nil, captureFailed(FailNetworkIsolation, &HostError{Reason: namespaceReason(err), Err: err})
	case req.Network == NetworkHost:
		return nil, captureFailed(FailExec, err)
	}
	// Clone and exec failures look alike from here: the probe tells them
	// apart.
	if perr := Probe(ctx); perr != nil && errors.Is(perr, ErrUnsupportedHost) {
		return nil, captureFailed(FailNetworkIsolation, perr)
	}
	return nil, captureFailed(FailExec, err)
}

// transcript is the recorded output, shared by the reader and the script.
type transcript struct {
	mu        sync.Mutex
	buf       []byte
	max       int
	truncated bool
	closed    bool // the master reported EOF/EIO: no slave is open any more
	last      time.Time
	changed   chan struct{} // closed and replaced on every change
}

func (t *transcript) notify() {
	close(t.changed)
	t.changed = make(chan struct{})
}

type runner struct {
	ctx      context.Context
	req      *Request
	master   *os.File
	owned    *lineage.Owned
	rep      progress.Reporter
	t        *transcript
	start    time.Time
	deadline time.Time
	idle     time.Duration
	cursor   int // where the next wait_output searches from

	procs        map[int]Process
	observations []lineage.Observation
	limitations  []string
}

func (r *runner) readLoop(done chan<- struct{}) {
	defer close(done)
	b := make([]byte, 32<<10)
	for {
		n, err := r.master.Read(b)
		r.t.mu.Lock()
		if n > 0 {
			room := r.t.max - len(r.t.buf)
			if n > room {
				r.t.buf = append(r.t.buf, b[:room]...)
				r.t.truncated = true
			} else {
				r.t.buf = append(r.t.buf, b[:n]...)
			}
			r.t.last = time.Now()
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			r.t.closed = true // EIO: every slave descriptor is closed
		}
		if n > 0 || err != nil {
			r.t.notify()
		}
		r.t.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (r *runner) exited() bool {
	select {
	case <-r.owned.Exited():
		return true
	default:
		return false
	}
}

// ended is why the run is over, or "".
func (r *runner) ended(now, last time.Time, truncated bool) string {
	switch {
	case r.ctx.Err() != nil:
		return endCancelled
	case truncated:
		return ReasonOutputLimit
	case r.exited():
		return ReasonExited
	case !now.Before(r.deadline):
		return ReasonTimeout
	case !now.Before(last.Add(r.idle)):
		return ReasonIdleTimeout
	}
	return ""
}

// waitFor waits until pred holds on the transcript (checked at every
// change), until `until` (zero: no limit), or until the run ends; it
// returns whether pred held and, when the run ended first, why.
func (r *runner) waitFor(until time.Time, pred func([]byte) bool) (bool, string) {
	for {
		r.t.mu.Lock()
		if pred != nil && pred(r.t.buf) {
			r.t.mu.Unlock()
			return true, ""
		}
		ch, last, truncated := r.t.changed, r.t.last, r.t.truncated
		r.t.mu.Unlock()
		now := time.Now()
		if end := r.ended(now, last, truncated); end != "" {
			return false, end
		}
		if !until.IsZero() && !now.Before(until) {
			return false, ""
		}
		next := earliest(r.deadline, last.Add(r.idle))
		if !until.IsZero() {
			next = earliest(next, until)
		}
		timer := time.NewTimer(next.Sub(now))
		select {
		case <-ch:
		case <-r.owned.Exited():
		case <-r.ctx.Done():
		case <-timer.C:
		}
		timer.Stop()
	}
}

// settle waits for the transcript to be complete: the master reports EOF
// (no slave descriptor is left), or no output arrived for settleQuiet since
// settle began, or limit passed.
func (r *runner) settle(limit time.Duration) {
	began := time.Now()
	stop := began.Add(limit)
	for {
		r.t.mu.Lock()
		closed, ch, last := r.t.closed, r.t.changed, r.t.last
		r.t.mu.Unlock()
		now := time.Now()
		if closed || !now.Before(stop) {
			return
		}
		quietFrom := last
		if began.After(last) {
			quietFrom = began
		}
		if now.Sub(quietFrom) >= settleQuiet {
			return
		}
		timer := time.NewTimer(earliest(quietFrom.Add(settleQuiet), stop).Sub(now))
		select {
		case <-ch:
		case <-timer.C:
		}
		timer.Stop()
	}
}

func (r *runner) sinceStart() int64 { return time.Since(r.start).Milliseconds() }

// run drives the script and the end of the run; the reader is running.
func (r *runner) run(digest, token string) (*Result, error) {
	steps := r.req.StdinSteps
	total := float64(len(steps))
	outcomes := make([]StepOutcome, len(steps))
	r.rep.Report(progress.Update{Phase: "steps", Completed: 0, Total: progress.Total(total), Message: "running the script"})
	end, stopped := "", false
	for i, s := range steps {
		outcomes[i] = StepOutcome{Index: i, Type: s.Type, Outcome: OutcomeSkipped}
		if end != "" || stopped {
			outcomes[i].AtMS = r.sinceStart()
			continue
		}
		var outcome string
		outcome, end = r.step(i, s)
		outcomes[i].Outcome, outcomes[i].AtMS = outcome, r.sinceStart()
		if outcome == OutcomeTimedOut {
			stopped = true // a failed wait makes the rest of the script meaningless
		}
		if !r.exited() {
			r.observe() // each /proc scan costs: only while the launcher runs
		}
		r.rep.Report(progress.Update{Phase: "steps", Completed: float64(i + 1), Total: progress.Total(total), Message: "running the script"})
	}
	// Every step has its outcome now, skipped ones included.
	r.rep.Report(progress.Update{Phase: "steps", Completed: total, Total: progress.Total(total), Message: "script done"})
	if end == "" {
		_, end = r.waitFor(time.Time{}, nil)
	}
	r.rep.Report(progress.Update{Phase: "settle", Completed: 0, Message: "collecting the remaining output"})
	if end == ReasonExited {
		r.settle(settleMax)
	}

	r.rep.Report(progress.Update{Phase: "cleanup", Completed: 0, Message: "ending the process group"})
	cctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), cleanupBudget)
	defer cancel()
	cleanup := Cleanup{ProcessGroup: "terminated", Verified: true}
	if r.exited() {
		// One look at the group serves the process list and the cleanup
		// report.
		if m, err := r.owned.Members(cctx); err == nil {
			for _, p := range m {
				r.addProc(p)
			}
			if len(m) == 0 {
				cleanup.ProcessGroup = "already_empty"
			}
		}
	} else {
		r.observe()
	}
	if rest := r.owned.Terminate(cctx); len(rest) > 0 {
		return nil, cleanupIncomplete(fmt.Errorf("remaining %v", rest))
	}
	r.settle(drainMax)
	if end == endCancelled {
		return nil, fault.CancelledError(Operation).WithCause(r.ctx.Err())
	}
	r.limitations = append(r.limitations, r.escapees()...)

	completed := time.Now()
	r.t.mu.Lock()
	raw := slices.Clone(r.t.buf)
	truncated := r.t.truncated
	r.t.mu.Unlock()
	sum := sha256.Sum256(raw)
	scr := NewScreen(r.req.Terminal.Rows, r.req.Terminal.Columns)
	_, _ = scr.Write(raw)
	scr.Flush()

	res := &Result{
		SchemaVersion:    1,
		Executable:       Executable{Path: r.req.Executable, SHA256: digest},
		Arguments:        r.req.Arguments,
		WorkingDirectory: r.req.WorkingDirectory,
		EnvironmentNames: r.req.EnvironmentNames,
		Network:          r.req.Network,
		Terminal:         r.req.Terminal,
		StartedAt:        stamp(r.start),
		CompletedAt:      stamp(completed),
		DurationMS:       completed.Sub(r.start).Milliseconds(),
		Exit:             exitOf(r.owned.ExitState(), end),
		Output: Output{Bytes: len(raw), SHA256: hex.EncodeToString(sum[:]), Text: transcriptText(raw),
			Rendered: scr.Lines(), Truncated: truncated},
		Steps:        outcomes,
		Processes:    r.processList(),
		Cleanup:      cleanup,
		Limitations:  nonNil(r.limitations),
		RunToken:     token,
		Identity:     r.owned.Identity(),
		Observations: r.observations,
	}
	return res, nil
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// exitOf is the exit object: the launcher's status (reaped by Terminate)
// and why the run ended.
func exitOf(st *os.ProcessState, end string) Exit {
	e := Exit{Reason: end}
	if st == nil {
		return e
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = fmt.Sprintf("SIG%d", int(ws.Signal()))
		}
		e.Signal = &name
		return e
	}
	code := st.ExitCode()
	e.Code = &code
	return e
}

// stepEnd maps the end of the run during a step to the step's outcome.
func stepEnd(end string) string {
	switch end {
	case ReasonExited:
		return OutcomeTargetExited
	case ReasonTimeout, ReasonIdleTimeout:
		return OutcomeTimedOut
	}
	return OutcomeSkipped
}

// step runs one step and returns its outcome and, if the run ended during
// it, why.
func (r *runner) step(i int, s Step) (string, string) {
	if _, end := r.waitFor(time.Now(), nil); end != "" {
		return stepEnd(end), end
	}
	switch s.Type {
	case StepWrite:
		if *s.Sensitive && r.echoOn() {
			r.limitations = append(r.limitations, fmt.Sprintf(
				"Step %d wrote sensitive data while terminal echo was on; the transcript may contain it.", i))
		}
		return r.write([]byte(*s.Data))
	case StepCloseStdin:
		// A PTY has no stdin to close: end-of-file is the terminal's EOF
		// character, which a reader in canonical mode sees as EOF at the
		// start of a line.
		return r.write([]byte{r.eofChar()})
	case StepSleep:
		if _, end := r.waitFor(time.Now().Add(time.Duration(*s.MS)*time.Millisecond), nil); end != "" {
			return stepEnd(end), end
		}
		return OutcomeDone, ""
	case StepSignal:
		sig := map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM, "SIGHUP": syscall.SIGHUP}[*s.Signal]
		if err := r.owned.Signal(sig); err != nil {
			r.limitations = append(r.limitations, fmt.Sprintf(
				"Step %d (%s) was not sent: the process group could not be proved REA's.", i, *s.Signal))
			return OutcomeSkipped, ""
		}
		return OutcomeDone, ""
	case StepWaitOutput:
		lit := []byte(*s.Literal)
		match := func(buf []byte) bool {
			if r.cursor > len(buf) {
				return false
			}
			if k := bytes.Index(buf[r.cursor:], lit); k >= 0 {
				r.cursor += k + len(lit)
				return true
			}
			return false
		}
		ok, end := r.waitFor(time.Now().Add(time.Duration(*s.TimeoutMS)*time.Millisecond), match)
		if ok {
			return OutcomeDone, ""
		}
		if end == ReasonExited {
			// The literal may still be in the terminal's buffer.
			r.settle(settleMax)
			r.t.mu.Lock()
			ok = match(r.t.buf)
			r.t.mu.Unlock()
			if ok {
				return OutcomeDone, end
			}
		}
		if end == "" {
			return OutcomeTimedOut, ""
		}
		return stepEnd(end), end
	}
	return OutcomeSkipped, ""
}

// write writes p to the terminal, bounded by the run's deadline.
func (r *runner) write(p []byte) (string, string) {
	_ = r.master.SetWriteDeadline(r.deadline)
	for len(p) > 0 {
		n, err := r.master.Write(p[:min(len(p), 4096)])
		p = p[n:]
		if err != nil {
			_, end := r.waitFor(time.Now(), nil)
			switch {
			case end != "":
				return stepEnd(end), end
			case errors.Is(err, os.ErrDeadlineExceeded):
				return OutcomeTimedOut, ReasonTimeout
			}
			// EIO: the program closed its terminal.
			return OutcomeTargetExited, ""
		}
	}
	return OutcomeDone, ""
}

func (r *runner) termios() (*unix.Termios, error) {
	sc, err := r.master.SyscallConn()
	if err != nil {
		return nil, err
	}
	var t *unix.Termios
	var terr error
	if err := sc.Control(func(fd uintptr) { t, terr = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); err != nil {
		return nil, err
	}
	return t, terr
}

func (r *runner) echoOn() bool {
	t, err := r.termios()
	return err != nil || t.Lflag&unix.ECHO != 0
}

func (r *runner) eofChar() byte {
	if t, err := r.termios(); err == nil && t.Cc[unix.VEOF] != 0 {
		return t.Cc[unix.VEOF]
	}
	return 0x04
}

// observe records the owned group: lineage's observation while the
// launcher runs, the proved group members after.
func (r *runner) observe() {
	if !r.exited() {
		obs := r.owned.Observe(r.ctx)
		r.observations = append(r.observations, obs)
		if obs.Status == lineage.StatusVerified {
			id := r.owned.Identity()
			r.addProc(lineage.Process{PID: id.PID, ParentPID: id.ParentPID, ProcessGroupID: id.ProcessGroupID})
			for _, d := range obs.Descendants {
				r.addProc(d)
			}
			return
		}
	}
	if m, err := r.owned.Members(r.ctx); err == nil {
		for _, p := range m {
			r.addProc(p)
		}
	}
}

func (r *runner) addProc(p lineage.Process) {
	if _, ok := r.procs[p.PID]; ok {
		return
	}
	r.procs[p.PID] = Process{PID: p.PID, ParentPID: p.ParentPID, ProcessGroupID: p.ProcessGroupID, Command: comm(p.PID)}
}

func (r *runner) processList() []Process {
	out := make([]Process, 0, len(r.procs))
	for _, p := range r.procs {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Process) int { return a.PID - b.PID })
	return out
}

// escapees reports observed descendants that left the owned group: the
// group's end does not reach them, and REA signals no process it cannot
// prove to be its own group's.
func (r *runner) escapees() []string {
	var out []string
	pgid := r.owned.Identity().ProcessGroupID
	for _, p := range r.processList() {
		if p.ProcessGroupID == pgid {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.PID)); err == nil {
			out = append(out, fmt.Sprintf("Process %d left the owned process group and may still run; REA did not signal it.", p.PID))
		}
	}
	return out
}
