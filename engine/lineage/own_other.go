//go:build !linux

package lineage

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

var errESRCH = errors.New("lineage: no such process")

// ErrUnsupportedHost: process ownership needs Linux (/proc, pidfd).
var ErrUnsupportedHost = errors.New("lineage: process ownership is implemented on Linux only")

// Spec describes a process to start.
type Spec struct {
	Path   string
	Args   []string
	Dir    string
	RunID  string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	Env        []string
	Attr       *syscall.SysProcAttr
	ExtraFiles []*os.File
	AwaitExec  func() (path string, err error)
}

// Owned is never created on this host.
type Owned struct{ id Identity }

func Start(context.Context, Spec) (*Owned, error)        { return nil, ErrUnsupportedHost }
func (p *Owned) Identity() Identity                      { return p.id }
func (p *Owned) Exited() <-chan struct{}                 { c := make(chan struct{}); close(c); return c }
func (p *Owned) Observe(ctx context.Context) Observation { return Observe(ctx, p.id) }
func (p *Owned) Signal(syscall.Signal) error {
	return &OwnershipError{PID: p.id.PID, Reason: ReasonTableUnreadable}
}
func (p *Owned) Terminate(context.Context) []string { return nil }
func (p *Owned) Members(context.Context) ([]Process, error) {
	return nil, &OwnershipError{PID: p.id.PID, Reason: ReasonTableUnreadable}
}
func (p *Owned) ExitState() *os.ProcessState { return nil }
func Signal(id Identity, _ syscall.Signal) error {
	return &OwnershipError{PID: id.PID, Reason: ReasonTableUnreadable}
}
func Observe(_ context.Context, id Identity) Observation {
	return Observation{Status: StatusUnavailable, ObservedAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), LauncherPID: id.PID,
		ProcessGroupID: id.ProcessGroupID, Reason: ReasonTableUnreadable}
}
