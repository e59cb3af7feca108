// Package lineage observes processes REA started (CONTRACTS.md §3.7, §6.7).
// An observation is a bounded, historical check of ownership: it never claims
// that no short-lived descendant existed, and it never sends a signal.
package lineage

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
