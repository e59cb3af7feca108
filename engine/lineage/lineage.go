// Package lineage starts, observes and signals processes REA owns (CONTRACTS.md
// §3.7, §6.7), from /proc on Linux.
//
// A process is owned when REA started it in a process group of its own with
// REA_PROCESS_RUN_ID=<run token> in a minimal environment and recorded its
// Identity (pid, process group, start time, executable). Ownership is proved
// again, from /proc, every time it matters: before any signal (Signal,
// Process.Signal, Process.Terminate) and at every observation (Observe). A
// process that cannot be proved owned at that moment is reported, never
// signalled.
//
// An observation is a bounded, historical check: it never claims that no
// short-lived descendant existed, and it never sends a signal.
package lineage

import (
	"encoding/json"
	"errors"
	"fmt"
)

// RunTokenVar is the environment variable carrying the run token.
const RunTokenVar = "REA_PROCESS_RUN_ID"

// Observation statuses.
const (
	StatusVerified    = "verified"
	StatusUnavailable = "unavailable"
)

// Fixed reasons of an unavailable observation (CONTRACTS.md §3.7). The last
// three are not in the contract's list: a launcher whose environment lost the
// run token, a process tree larger than one observation may report, and an
// observation whose context ended.
const (
	ReasonTableUnreadable     = "process table unreadable"
	ReasonNotRunning          = "launcher not running"
	ReasonGroupMismatch       = "process group mismatch"
	ReasonParentMismatch      = "parent mismatch"
	ReasonExecutableMismatch  = "executable mismatch"
	ReasonStartTimeMismatch   = "start time mismatch"
	ReasonDescendantNoToken   = "descendant without run token"
	ReasonLauncherNoToken     = "launcher without run token"
	ReasonTooManyDescendants  = "descendant limit exceeded"
	ReasonObservationCanceled = "observation cancelled"
)

// Process is one observed descendant.
type Process struct {
	PID            int `json:"pid"`
	ParentPID      int `json:"parent_pid"`
	ProcessGroupID int `json:"process_group_id"`
}

// Observation is Obs of CONTRACTS.md §3.7. Status is "verified" or "unavailable";
// Reason is set only when unavailable, the descendant fields only when verified.
type Observation struct {
	Status            string    `json:"status"`
	ObservedAt        string    `json:"observed_at"`
	SchemaVersion     int       `json:"schema_version,omitempty"`
	LauncherPID       int       `json:"launcher_pid"`
	LauncherParentPID *int      `json:"launcher_parent_pid,omitempty"`
	ProcessGroupID    int       `json:"process_group_id"`
	Descendants       []Process `json:"descendants,omitempty"`
	Reason            string    `json:"reason,omitempty"`
}

// MarshalJSON writes exactly one of the two Obs shapes: a verified
// observation always carries schema_version, launcher_parent_pid and
// descendants (an empty list included); an unavailable one carries none of
// them, only its reason.
func (o Observation) MarshalJSON() ([]byte, error) {
	if o.Status == StatusVerified {
		ppid := 0
		if o.LauncherParentPID != nil {
			ppid = *o.LauncherParentPID
		}
		d := o.Descendants
		if d == nil {
			d = []Process{}
		}
		sv := o.SchemaVersion
		if sv == 0 {
			sv = 1
		}
		return json.Marshal(struct {
			Status            string    `json:"status"`
			ObservedAt        string    `json:"observed_at"`
			SchemaVersion     int       `json:"schema_version"`
			LauncherPID       int       `json:"launcher_pid"`
			LauncherParentPID int       `json:"launcher_parent_pid"`
			ProcessGroupID    int       `json:"process_group_id"`
			Descendants       []Process `json:"descendants"`
		}{o.Status, o.ObservedAt, sv, o.LauncherPID, ppid, o.ProcessGroupID, d})
	}
	return json.Marshal(struct {
		Status         string `json:"status"`
		ObservedAt     string `json:"observed_at"`
		LauncherPID    int    `json:"launcher_pid"`
		ProcessGroupID int    `json:"process_group_id"`
		Reason         string `json:"reason"`
	}{o.Status, o.ObservedAt, o.LauncherPID, o.ProcessGroupID, o.Reason})
}

// Identity is what REA recorded when it started a process: enough to prove,
// later, that a pid still names that process and that it is still REA's.
type Identity struct {
	PID            int    `json:"pid"`
	ProcessGroupID int    `json:"process_group_id"`
	StartTime      uint64 `json:"start_time"` // clock ticks after boot, /proc/PID/stat field 22
	RunToken       string `json:"run_token"`
	Executable     string `json:"executable"` // /proc/PID/exe right after exec
	ParentPID      int    `json:"parent_pid"` // REA's pid when it started the process
}

// ErrNotOwned is matched (errors.Is) by every *OwnershipError.
var ErrNotOwned = errors.New("lineage: process not proven owned")

// OwnershipError is the refusal to signal a process whose ownership could not
// be proved; nothing was sent.
type OwnershipError struct {
	PID    int
	Reason string
}

func (e *OwnershipError) Error() string {
	return fmt.Sprintf("lineage: pid %d not proven owned (%s); no signal sent", e.PID, e.Reason)
}

// Is makes errors.Is(err, ErrNotOwned) true.
func (e *OwnershipError) Is(target error) bool { return target == ErrNotOwned }
