package events

// compare_binaries events (CONTRACTS.md §16.2), on a stream of their own per
// comparison: the checkpoints of a scan, and its completion. The state and
// the full classification are blobs named by digest; the payloads carry no
// names or code from the compared binaries.
const (
	ComparisonCheckpoint = "comparison_checkpoint"
	ComparisonCompleted  = "comparison_completed"
)

// ComparisonStream is the stream of one comparison's checkpoints and
// completion.
func ComparisonStream(comparisonID string) string { return "comparison-" + comparisonID }

// ComparisonCheckpointData is appended after each phase of a comparison and
// every 5,000 procedures within one. StateDigest names the state blob (a
// manifest that names, by digest, the further blobs it needs).
type ComparisonCheckpointData struct {
	ComparisonID string `json:"comparison_id"`
	Phase        string `json:"phase"`
	Completed    int    `json:"completed"`
	Total        *int   `json:"total"`
	StateDigest  string `json:"state_digest"`
}

// ComparisonCompletedData is appended, before the comparison's Evidence is
// published, when the full classification (the blob ResultDigest names) is
// stored; later calls page from it without recomputing.
type ComparisonCompletedData struct {
	ComparisonID string `json:"comparison_id"`
	ResultDigest string `json:"result_digest"`
}
