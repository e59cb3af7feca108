// Package fault defines REA's typed failures: the closed set of error codes and
// categories of CONTRACTS.md §1.7. Every failure that reaches a client — an MCP
// tool result or a CLI exit — is a *fault.Error; anything else is wrapped as
// execution_failure before it leaves the engine, so no stack trace, provider
// stderr or environment value can leak through an error message.
package fault

import (
	"context"
	"errors"
	"fmt"
)

// Code is one of the 20 error codes of CONTRACTS.md §1.7 and §0.3.
type Code string

const (
	InvalidRequest            Code = "invalid_request"
	UnreadableOutput          Code = "unreadable_output"
	CapabilityUnavailable     Code = "capability_unavailable"
	ProviderUnavailable       Code = "provider_unavailable"
	ProviderTimeout           Code = "provider_timeout"
	Cancelled                 Code = "cancelled"
	ArtifactIntegrityMismatch Code = "artifact_integrity_mismatch"
	ArtifactOperationFailed   Code = "artifact_operation_failed"
	EvidenceIntegrityMismatch Code = "evidence_integrity_mismatch"
	Truncated                 Code = "truncated"
	PermissionRequired        Code = "permission_required"
	ProcessCaptureFailed      Code = "process_capture_failed"
	CleanupIncomplete         Code = "cleanup_incomplete"
	RevisionConflict          Code = "revision_conflict"
	OutsideApprovedRoot       Code = "outside_approved_root"
	ConfigurationInvalid      Code = "configuration_invalid"
	TargetUnavailable         Code = "target_unavailable"
	ExecutionFailure          Code = "execution_failure"
	PlanStale                 Code = "plan_stale"
	LedgerUnavailable         Code = "ledger_unavailable" // third edition (CONTRACTS.md §0.3)
)

// Category is one of the 9 error categories.
type Category string

const (
	CatInvalidInput        Category = "invalid_input"
	CatPermissionRequired  Category = "permission_required"
	CatUnsupportedProvider Category = "unsupported_provider"
	CatIntegrityMismatch   Category = "integrity_mismatch"
	CatTruncated           Category = "truncated"
	CatCancelled           Category = "cancelled"
	CatTimeout             Category = "timeout"
	CatUnavailable         Category = "unavailable"
	CatExecutionFailure    Category = "execution_failure"
)

var defaultCategory = map[Code]Category{
	InvalidRequest:            CatInvalidInput,
	UnreadableOutput:          CatExecutionFailure,
	CapabilityUnavailable:     CatUnsupportedProvider,
	ProviderUnavailable:       CatUnavailable,
	ProviderTimeout:           CatTimeout,
	Cancelled:                 CatCancelled,
	ArtifactIntegrityMismatch: CatIntegrityMismatch,
	ArtifactOperationFailed:   CatExecutionFailure,
	EvidenceIntegrityMismatch: CatIntegrityMismatch,
	Truncated:                 CatTruncated,
	PermissionRequired:        CatPermissionRequired,
	ProcessCaptureFailed:      CatExecutionFailure,
	CleanupIncomplete:         CatExecutionFailure,
	RevisionConflict:          CatExecutionFailure,
	OutsideApprovedRoot:       CatUnavailable,
	ConfigurationInvalid:      CatExecutionFailure,
	TargetUnavailable:         CatUnavailable,
	ExecutionFailure:          CatExecutionFailure,
	PlanStale:                 CatIntegrityMismatch,
	LedgerUnavailable:         CatUnavailable,
}

// Retryable reports whether a code is in the retryable set. It is a property of
// the code, never of one call (CONTRACTS.md §0: invalid_request is not in the
// set: the same input fails the same way; §0.3 adds ledger_unavailable).
func Retryable(c Code) bool {
	switch c {
	case ProviderTimeout, Cancelled, RevisionConflict, ProviderUnavailable, LedgerUnavailable:
		return true
	}
	return false
}

// Remediation is what the caller can do about a failure.
type Remediation struct {
	Action               string `json:"action"`
	RestartRequired      bool   `json:"restart_required"`
	ElicitationSupported *bool  `json:"elicitation_supported,omitempty"`
}

// Error is the typed failure envelope E of CONTRACTS.md §1.6.
type Error struct {
	Code        Code           `json:"code"`
	Category    Category       `json:"category"`
	Message     string         `json:"message"`
	Retryable   bool           `json:"retryable"`
	Remediation Remediation    `json:"remediation"`
	Details     map[string]any `json:"details,omitempty"`

	cause error // kept for logs and errors.Is; never serialized
}

func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.cause)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.cause }

// New builds a typed error with the code's default category and retryability.
func New(code Code, message, action string, details map[string]any) *Error {
	return &Error{
		Code:        code,
		Category:    defaultCategory[code],
		Message:     message,
		Retryable:   Retryable(code),
		Remediation: Remediation{Action: action},
		Details:     details,
	}
}

// WithCause records an underlying error for errors.Is/As; it never reaches clients.
func (e *Error) WithCause(err error) *Error { e.cause = err; return e }

// Issue is one entry of invalid_request details.issues.
type Issue struct {
	Path     string `json:"path"`
	Reason   string `json:"reason"`
	Message  string `json:"message,omitempty"`
	Expected string `json:"expected,omitempty"`
	Minimum  *int64 `json:"minimum,omitempty"`
	Maximum  *int64 `json:"maximum,omitempty"`
}

// Invalid builds invalid_request for operation with the given issues.
func Invalid(operation string, issues ...Issue) *Error {
	return New(InvalidRequest, "The request failed validation.",
		"Correct the listed arguments and call again.",
		map[string]any{"operation": operation, "issues": issues})
}

// CancelledError is the cancelled failure of an operation whose cleanup completed.
func CancelledError(operation string) *Error {
	return New(Cancelled, "The operation was cancelled.", "Call again when ready.",
		map[string]any{"operation": operation, "cleanup": "complete"})
}

// Internal wraps an unexpected failure as execution_failure with safe copy.
// A ledger whose storage failed is a known situation, not an internal one:
// such an error becomes ledger_unavailable wherever it is wrapped
// (CONTRACTS.md §0.3).
func Internal(operation string, err error) *Error {
	if fe := fromLedger(operation, err); fe != nil {
		return fe
	}
	return New(ExecutionFailure, "An internal error stopped the operation.",
		"Retry; if it persists, run `rea doctor` and report the failure.",
		map[string]any{"operation": operation}).WithCause(err)
}

// Reasons of ledger_unavailable (CONTRACTS.md §0.3).
const (
	LedgerDiskFull       = "disk_full"
	LedgerReadOnly       = "read_only"
	LedgerIO             = "io"
	LedgerConnectionLost = "connection_lost"
)

// LedgerUnavailableError is ledger_unavailable for operation: the ledger
// could not append or read for reason (LedgerDiskFull, LedgerReadOnly,
// LedgerIO, LedgerConnectionLost). dir is the directory of an SQLite
// ledger, "" for PostgreSQL, whose URL is never shown.
func LedgerUnavailableError(operation, reason, dir string) *Error {
	msg, action := "The ledger could not store or read events; nothing was recorded.",
		"Check the ledger's storage, then call again."
	switch reason {
	case LedgerDiskFull:
		msg, action = "The ledger's disk is full; nothing was recorded.",
			"Free space in the ledger's directory, then call again."
	case LedgerReadOnly:
		msg, action = "The ledger's storage is read-only; nothing was recorded.",
			"Make the ledger's directory writable again (or the PostgreSQL server writable), then call again."
	case LedgerIO:
		msg, action = "The ledger's storage reported an I/O error; nothing was recorded.",
			"Check the disk that holds the ledger's directory, then call again."
	case LedgerConnectionLost:
		msg, action = "The PostgreSQL ledger server could not be reached; nothing was recorded.",
			"Restore the PostgreSQL server (or the network path to it), then call again."
	}
	details := map[string]any{"operation": operation, "reason": reason}
	if dir != "" {
		details["path"] = dir
	}
	return New(LedgerUnavailable, msg, action, details)
}

// ledgerFailure is implemented by a ledger's storage failures
// (*ledger.UnavailableError, ledger.ErrUnavailable): reason is one of the
// ledger_unavailable reasons and dir the SQLite ledger's directory or "".
type ledgerFailure interface {
	LedgerUnavailable() (reason, dir string)
}

// fromLedger is ledger_unavailable when err is a ledger's storage failure,
// else nil.
func fromLedger(operation string, err error) *Error {
	var lf ledgerFailure
	if err == nil || !errors.As(err, &lf) {
		return nil
	}
	reason, dir := lf.LedgerUnavailable()
	return LedgerUnavailableError(operation, reason, dir).WithCause(err)
}

// From converts any error into a typed one. Context cancellation becomes
// cancelled (never a timeout), deadline expiry is left to the caller who knows
// the budget; a ledger's storage failure becomes ledger_unavailable
// (retryable); anything untyped becomes execution_failure.
func From(operation string, err error) *Error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	if errors.Is(err, context.Canceled) {
		return CancelledError(operation).WithCause(err)
	}
	if fe := fromLedger(operation, err); fe != nil {
		return fe
	}
	return Internal(operation, err)
}

// Is reports whether err is a typed error with code c.
func Is(err error, c Code) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.Code == c
}
