package capture

import (
	"errors"

	"github.com/rea-re/rea/engine/fault"
)

// ErrUnsupportedHost is matched (errors.Is) by every *HostError.
var ErrUnsupportedHost = errors.New("capture: unsupported host")

// HostError says why this host cannot run captures as the contract requires
// (no PTY, no process groups, or no user+network namespace): the
// availability reason `unsupported_host` of §3.4, whose remediation is
// Reason.
type HostError struct {
	Reason string
	Err    error // the underlying failure, for logs
}

func (e *HostError) Error() string { return "capture: unsupported host: " + e.Reason }

func (e *HostError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnsupportedHost) true.
func (e *HostError) Is(target error) bool { return target == ErrUnsupportedHost }

// Reasons of process_capture_failed.
const (
	FailExec             = "exec_failed"
	FailPTY              = "pty_unavailable"
	FailNetworkIsolation = "network_isolation_unavailable"
	FailIO               = "io"
)

// captureFailed is process_capture_failed with a fixed, value-free message.
func captureFailed(reason string, cause error) *fault.Error {
	msg := map[string]string{
		FailExec:             "The program could not be started.",
		FailPTY:              "No pseudo-terminal could be allocated.",
		FailNetworkIsolation: "The network namespace could not be created; the program was not run.",
		FailIO:               "Reading or writing the program's terminal failed.",
	}[reason]
	action := map[string]string{
		FailExec:             "Check that the executable exists, is a regular executable file and that the working directory exists.",
		FailPTY:              "Check that /dev/ptmx and devpts are available to REA.",
		FailNetworkIsolation: "Enable unprivileged user namespaces (kernel.unprivileged_userns_clone=1, user.max_user_namespaces>0) or run REA where they are allowed.",
		FailIO:               "Retry the capture.",
	}[reason]
	return fault.New(fault.ProcessCaptureFailed, msg, action, map[string]any{"reason": reason}).WithCause(cause)
}

// cleanupIncomplete is cleanup_incomplete for the capture's process group.
func cleanupIncomplete(cause error) *fault.Error {
	return fault.New(fault.CleanupIncomplete,
		"The captured program's processes could not be confirmed ended.",
		"Inspect and end the listed processes; they carry REA_PROCESS_RUN_ID.",
		map[string]any{"operation": Operation, "cleanup": "incomplete", "resources": []string{"capture-process-group"}}).
		WithCause(cause)
}
