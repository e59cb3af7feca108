package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/rea-re/rea/engine/fault"
)

// Integrity policies of inventory_artifact (§10.1).
const (
	PolicyFail              = "fail"
	PolicyRecordAndContinue = "record-and-continue"
)

// Contradiction vocabulary (§10.1).
const (
	TrustObservedUntrusted = "observed-untrusted"
	ProvenanceIntegrity    = "container-integrity-metadata-versus-observed-bytes"
)

// maxMismatchedBlocks bounds Contradiction.MismatchedBlocks (§10.4).
const maxMismatchedBlocks = 100

// Policy is the integrity decision of one inventory call: the two call
// arguments and the operator gate. OperatorEnabled is the engine's reading
// of REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED == "true" at startup; this
// package never reads the environment.
type Policy struct {
	Mode             string // PolicyFail (default when empty) or PolicyRecordAndContinue
	ContinueApproved bool   // integrity_continue_approved
	OperatorEnabled  bool   // REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED=true
	MaxMismatches    int    // max_integrity_mismatches, 1..100 (0 = default 10)
}

// Check validates the policy and reports which of the three conditions of
// record-and-continue is missing (§10.1): a missing approval or a missing
// policy is the caller's argument (invalid_request naming it); a missing
// operator gate is artifact_operation_failed reason policy, category
// unavailable, remediation naming the variable. The fail policy without
// approval is always valid.
func (p Policy) Check(operation string) error {
	mode := p.Mode
	if mode == "" {
		mode = PolicyFail
	}
	if p.MaxMismatches < 0 || p.MaxMismatches > 100 {
		lo, hi := int64(1), int64(100)
		return fault.Invalid(operation, fault.Issue{Path: "/max_integrity_mismatches", Reason: "out_of_range", Minimum: &lo, Maximum: &hi})
	}
	switch mode {
	case PolicyFail:
		if p.ContinueApproved {
			return fault.Invalid(operation, fault.Issue{Path: "/integrity_policy", Reason: "invalid_value",
				Message: "integrity_continue_approved requires integrity_policy \"record-and-continue\"", Expected: PolicyRecordAndContinue})
		}
		return nil
	case PolicyRecordAndContinue:
		if !p.ContinueApproved {
			return fault.Invalid(operation, fault.Issue{Path: "/integrity_continue_approved", Reason: "invalid_value",
				Message: "record-and-continue requires integrity_continue_approved: true", Expected: "true"})
		}
		if !p.OperatorEnabled {
			return opFailed(operation, ReasonPolicy, "", nil)
		}
		return nil
	}
	return fault.Invalid(operation, fault.Issue{Path: "/integrity_policy", Reason: "invalid_value",
		Expected: PolicyFail + "|" + PolicyRecordAndContinue})
}

// continues reports whether mismatches are recorded instead of failing.
func (p Policy) continues() bool {
	return p.Mode == PolicyRecordAndContinue && p.ContinueApproved && p.OperatorEnabled
}

func (p Policy) maxMismatches() int {
	if p.MaxMismatches <= 0 {
		return 10
	}
	return p.MaxMismatches
}

// ContradictionID is "ic_" + sha256(JCS{root_artifact_id, logical_path,
// declared_sha256, observed_sha256}) (§1.2).
func ContradictionID(rootArtifactID, logicalPath, declared, observed string) string {
	return "ic_" + stringObjectDigest("declared_sha256", declared, "logical_path", logicalPath,
		"observed_sha256", observed, "root_artifact_id", rootArtifactID)
}

var emptyBlock = func() string { s := sha256.Sum256(nil); return hex.EncodeToString(s[:]) }()

// compareBlocks returns the ascending indices (≤ 100) where the observed
// block hashes disagree with the declared ones, a missing or extra block
// counting as disagreeing. The packer's trailing empty-block hash (size a
// positive multiple of blockSize) is accepted.
func compareBlocks(declared, observed []string, size, blockSize int64) []int {
	if size > 0 && size%blockSize == 0 && len(declared) == len(observed)+1 && declared[len(declared)-1] == emptyBlock {
		declared = declared[:len(declared)-1]
	}
	n := max(len(declared), len(observed))
	var out []int
	for i := 0; i < n && len(out) < maxMismatchedBlocks; i++ {
		if i >= len(declared) || i >= len(observed) || declared[i] != observed[i] {
			out = append(out, i)
		}
	}
	return out
}

// contradictionLimitations are the fixed limitations of a quarantine record.
func contradictionLimitations(blocks []int, nested bool) []string {
	out := []string{"The observed bytes contradict the container's integrity metadata; they are observed-untrusted and quarantined."}
	if len(blocks) > 0 {
		out = append(out, fmt.Sprintf("%d block(s) of the declared block hashes disagree.", len(blocks)))
	} else {
		out = append(out, "Only the whole-file hash disagrees.")
	}
	if nested {
		out = append(out, "The entry looks like a container; quarantined bytes are never expanded.")
	}
	return out
}

// contradictionsNote is the inventory limitation of §10.1.
func contradictionsNote(n int) string {
	return fmt.Sprintf("%d integrity contradiction(s) recorded; mismatched content is observed-untrusted", n)
}
