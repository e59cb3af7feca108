package jsapp

import (
	"github.com/rea-re/rea/engine/fault"
)

// Limits bounds one analysis (CONTRACTS.md §11.1). Decode a request's limits
// object into DefaultLimits() so absent keys keep their defaults.
type Limits struct {
	MaxEntries            int64 `json:"max_entries"`
	MaxTotalArtifactBytes int64 `json:"max_total_artifact_bytes"`
	MaxArtifactEntryBytes int64 `json:"max_artifact_entry_bytes"`
	MaxDepth              int64 `json:"max_depth"`
	MaxPathBytes          int64 `json:"max_path_bytes"`
	MaxTextFiles          int64 `json:"max_text_files"`
	MaxTotalTextBytes     int64 `json:"max_total_text_bytes"`
	MaxTextFileBytes      int64 `json:"max_text_file_bytes"`
	MaxASTNodes           int64 `json:"max_ast_nodes"`
	MaxFindings           int64 `json:"max_findings"`
	MaxParseMilliseconds  int64 `json:"max_parse_milliseconds"`
}

// DefaultLimits returns the defaults of CONTRACTS.md §11.1.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:            8000,
		MaxTotalArtifactBytes: 536870912,
		MaxArtifactEntryBytes: 134217728,
		MaxDepth:              64,
		MaxPathBytes:          4096,
		MaxTextFiles:          5000,
		MaxTotalTextBytes:     134217728,
		MaxTextFileBytes:      8388608,
		MaxASTNodes:           2000000,
		MaxFindings:           8000,
		MaxParseMilliseconds:  30000,
	}
}

const maxJSONInt = 1<<53 - 1

// Validate checks every limit against its range; the issues name JSON Pointers
// below /limits so the tool layer can return them unchanged.
func (l Limits) Validate() error {
	type rng struct {
		name     string
		v        int64
		min, max int64
	}
	var issues []fault.Issue
	for _, r := range []rng{
		{"max_entries", l.MaxEntries, 1, 1000000},
		{"max_total_artifact_bytes", l.MaxTotalArtifactBytes, 0, maxJSONInt},
		{"max_artifact_entry_bytes", l.MaxArtifactEntryBytes, 0, maxJSONInt},
		{"max_depth", l.MaxDepth, 0, 100},
		{"max_path_bytes", l.MaxPathBytes, 1, 65535},
		{"max_text_files", l.MaxTextFiles, 1, 100000},
		{"max_total_text_bytes", l.MaxTotalTextBytes, 0, 536870912},
		{"max_text_file_bytes", l.MaxTextFileBytes, 0, 67108864},
		{"max_ast_nodes", l.MaxASTNodes, 0, 20000000},
		{"max_findings", l.MaxFindings, 1, 100000},
		{"max_parse_milliseconds", l.MaxParseMilliseconds, 1, 600000},
	} {
		if r.v < r.min || r.v > r.max {
			lo, hi := r.min, r.max
			issues = append(issues, fault.Issue{
				Path: "/limits/" + r.name, Reason: "out_of_range",
				Message: r.name + " is outside its allowed range", Minimum: &lo, Maximum: &hi,
			})
		}
	}
	if len(issues) > 0 {
		return fault.Invalid(Operation, issues...)
	}
	return nil
}
