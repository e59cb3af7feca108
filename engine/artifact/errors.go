package artifact

import (
	"context"
	"errors"

	"github.com/rea-re/rea/engine/fault"
)

// Reasons of artifact_operation_failed (CONTRACTS.md §1.7).
const (
	ReasonCorrupt              = "corrupt"
	ReasonUnsafePath           = "unsafe_path"
	ReasonCollision            = "collision"
	ReasonCompressionRatio     = "compression_ratio"
	ReasonEntryTooLarge        = "entry_too_large"
	ReasonUnsupportedIntegrity = "unsupported_integrity"
	ReasonExists               = "exists"
	ReasonPolicy               = "policy"
	ReasonUnavailable          = "unavailable"
)

// EnvIntegrityContinue is the operator gate of record-and-continue.
const EnvIntegrityContinue = "REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED"

var reasonCopy = map[string][2]string{
	ReasonCorrupt: {"The container is unreadable or corrupt.",
		"Check that the artifact is complete and of the format it claims."},
	ReasonUnsafePath: {"The container holds an unsafe entry path.",
		"Do not process this artifact as is; inspect the entry names with a hex viewer."},
	ReasonCollision: {"Two entries of the container have the same logical path.",
		"Do not process this artifact as is; its entries shadow each other."},
	ReasonCompressionRatio: {"An entry expands beyond the compression ratio bound.",
		"Raise max_compression_ratio only if the artifact is trusted."},
	ReasonEntryTooLarge: {"An entry is larger than the entry size bound.",
		"Raise max_entry_bytes or select fewer occurrences."},
	ReasonUnsupportedIntegrity: {"The container declares integrity metadata REA cannot verify.",
		"Only SHA256 ASAR integrity with hex64 hashes and a positive blockSize is supported."},
	ReasonExists: {"An extraction path already exists.",
		"Choose an empty output_root; REA never overwrites."},
	ReasonPolicy: {"Integrity record-and-continue is disabled by operator policy.",
		"Set " + EnvIntegrityContinue + "=true in the REA server environment and restart it, or use integrity_policy \"fail\"."},
	ReasonUnavailable: {"The artifact operation is unavailable.",
		"Retry later or choose another artifact."},
}

// opFailed builds artifact_operation_failed with fixed copy per reason.
// logicalPath is omitted when empty.
func opFailed(operation, reason, logicalPath string, cause error) *fault.Error {
	c := reasonCopy[reason]
	d := map[string]any{"operation": operation, "reason": reason}
	if logicalPath != "" {
		d["logical_path"] = logicalPath
	}
	e := fault.New(fault.ArtifactOperationFailed, c[0], c[1], d)
	if reason == ReasonPolicy || reason == ReasonUnavailable {
		e.Category = fault.CatUnavailable
	}
	if cause != nil {
		e.WithCause(cause)
	}
	return e
}

// truncatedErr is the `truncated` failure for a named limit.
func truncatedErr(operation, limit string, maximum, actual int64) *fault.Error {
	d := map[string]any{"operation": operation, "limit": limit, "maximum": maximum, "truncated": true}
	if actual >= 0 {
		d["actual"] = actual
	}
	return fault.New(fault.Truncated, "A bound would be exceeded and no complete answer is possible.",
		"Raise "+limit+" or narrow the request.", d)
}

// mismatchErr is the fail-closed artifact_integrity_mismatch.
func mismatchErr(logicalPath string, declared, calculated *string, unpacked bool) *fault.Error {
	return fault.New(fault.ArtifactIntegrityMismatch,
		"An entry's bytes contradict the integrity its container declares.",
		"Treat the artifact as tampered or damaged; record-and-continue is available only with operator policy and per-call approval.",
		map[string]any{"logical_path": logicalPath, "declared_sha256": declared,
			"calculated_sha256": calculated, "unpacked": unpacked})
}

// ctxErr maps a done context to the typed cancelled failure. A deadline is
// the caller's budget, which only the caller can name; it is reported as
// cancelled here and the engine projects its own timeout.
func ctxErr(ctx context.Context, operation string) error {
	if err := ctx.Err(); err != nil {
		return fault.CancelledError(operation).WithCause(err)
	}
	return nil
}

// typed converts an error at a package boundary: typed errors pass, context
// errors become cancelled, anything else execution_failure.
func typed(operation string, err error) error {
	if err == nil {
		return nil
	}
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fault.CancelledError(operation).WithCause(err)
	}
	return fault.Internal(operation, err)
}
