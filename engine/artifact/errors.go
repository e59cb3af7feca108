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
	ReasonPathTooLong          = "path_too_long"
	ReasonHiddenPath           = "hidden_path"
	ReasonInsufficientSpace    = "insufficient_space"
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
	ReasonPathTooLong: {"An extraction path or one of its components is longer than the platform allows.",
		"Paths are bounded by max_path_bytes (at most 4096) and components by 255 bytes; select other occurrences."},
	ReasonHiddenPath: {"An entry would be written as a hidden file or below a hidden directory.",
		"Set allow_hidden_paths:true only if files such as .ssh or .bashrc may be written below output_root."},
	ReasonInsufficientSpace: {"The extraction would leave less than 1 GiB free on the output filesystem.",
		"Choose an output_root on a filesystem with more free space, or select fewer occurrences."},
}

// opFailed builds artifact_operation_failed with fixed copy per reason.
// logicalPath is omitted when empty.
func opFailed(operation, reason, logicalPath string, cause error) *fault.Error {
	c := reasonCopy[reason]
	d := map[string]any{"operation": operation, "reason": reason}
	if logicalPath != "" {
		d["logical_path"] = logicalOf(logicalPath) // a raw name never reaches a detail
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

// pathTooLong is path_too_long naming which bound ("path" or "component").
func pathTooLong(logicalPath, bound string, maximum, actual int) *fault.Error {
	e := opFailed(extractOp, ReasonPathTooLong, logicalPath, nil)
	e.Details["bound"], e.Details["maximum"], e.Details["actual"] = bound, maximum, actual
	return e
}

// spaceErr is insufficient_space: required bytes against what the output
// filesystem has above SpaceReserve.
func spaceErr(required, available int64) *fault.Error {
	e := opFailed(extractOp, ReasonInsufficientSpace, "", nil)
	e.Details["required_bytes"], e.Details["available_bytes"] = required, max(available, 0)
	return e
}

// maxResidualPaths bounds cleanup_incomplete's residual_paths.
const maxResidualPaths = 100

// cleanupFault is cleanup_incomplete over the failure err whose cleanup
// left residual (raw relative paths; reported as logical paths, ≤ 100).
func cleanupFault(err error, residual []string) error {
	var fe *fault.Error
	errors.As(err, &fe)
	shown := make([]string, 0, min(len(residual), maxResidualPaths))
	for _, r := range residual[:min(len(residual), maxResidualPaths)] {
		shown = append(shown, logicalOf(r))
	}
	e := fault.New(fault.CleanupIncomplete, "Extracted output could not be confirmed removed.",
		"Remove the residual paths under output_root by hand.",
		map[string]any{"operation": extractOp, "cleanup": "incomplete", "resources": []string{"extraction-output"},
			"residual_paths": shown})
	if fe != nil {
		e.Category = fe.Category
		return e.WithCause(fe)
	}
	return e
}

// checkExtractLimits applies the server-side maxima of §0 to an
// extraction's limits, whatever the caller's schema allowed.
func checkExtractLimits(lim Limits) error {
	bad := func(path string, maximum int64) error {
		return fault.Invalid(extractOp, fault.Issue{Path: path, Reason: "invalid_value",
			Message: "above the server maximum", Maximum: &maximum})
	}
	switch {
	case lim.MaxPathBytes > MaxExtractPathBytes:
		return bad("/max_path_bytes", MaxExtractPathBytes)
	case lim.MaxTotalBytes > MaxExtractTotalBytes:
		return bad("/max_total_bytes", MaxExtractTotalBytes)
	case lim.MaxEntries > MaxExtractEntries:
		return bad("/max_entries", MaxExtractEntries)
	}
	return nil
}
