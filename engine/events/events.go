// Package events is the ledger event catalogue of CONTRACTS.md §13.2: the type
// names, their streams and their payloads. The engine produces these payloads
// and the projections fold them; both import this leaf package so the schema
// has one definition.
//
// Payloads never carry environment values, captured content, stdin data or
// Evidence record bodies (those are blobs named by digest).
package events

import (
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/provider"
)

// Event types.
const (
	ConnectionOpened        = "connection_opened"
	ConnectionClosed        = "connection_closed"
	TargetOpened            = "target_opened"
	TargetClosed            = "target_closed"
	AnalysisRunAllocated    = "analysis_run_allocated"
	ProviderBound           = "provider_bound"
	ProviderSelectionFailed = "provider_selection_failed"
	ProviderHealthChanged   = "provider_health_changed"
	LineageObserved         = "lineage_observed"
	EvidenceRecorded        = "evidence_recorded"
	AnnotationSet           = "annotation_set"
	AnnotationRemoved       = "annotation_removed"
	CursorMoved             = "cursor_moved"
)

// SchemaVersionTargets is the schema_version of the event types that name
// the target they are about (CONTRACTS.md §15.3): target_opened,
// target_closed, analysis_run_allocated, provider_bound,
// provider_health_changed, lineage_observed, cursor_moved, and
// evidence_recorded and integrity_contradiction_recorded when they have a
// run. Their schema_version 1 events, written while a connection held one
// target, have no target_id; they are read as naming LegacyTargetID(run_id).
const SchemaVersionTargets = 2

// LegacyTargetID is the target id a schema_version 1 event of a run is
// folded with: one run had one target, so the run names it.
func LegacyTargetID(runID string) string { return "tgt_legacy_" + runID }

// ConnectionStream is the stream of one connection's events.
func ConnectionStream(connectionID string) string { return "connection-" + connectionID }

// TargetStream is the stream of annotations on one target's bytes.
func TargetStream(sha256 string) string { return "target-" + sha256 }

// Client identifies an MCP client by its clientInfo.
type Client struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ClientFeatures are the negotiated client capabilities REA cares about.
type ClientFeatures struct {
	ElicitationForm bool `json:"elicitation_form"`
	ElicitationURL  bool `json:"elicitation_url"`
	Roots           bool `json:"roots"`
	Sampling        bool `json:"sampling"`
}

// Server names the REA process that appended.
type Server struct {
	Version   string `json:"version"`
	PID       int    `json:"pid"`
	StartedAt string `json:"started_at"`
}

type ConnectionOpenedData struct {
	ConnectionID    string         `json:"connection_id"`
	Transport       string         `json:"transport"` // stdio | http | cli
	ProtocolVersion *string        `json:"protocol_version"`
	Client          *Client        `json:"client"`
	ClientFeatures  ClientFeatures `json:"client_features"`
	Server          Server         `json:"server"`
}

type ConnectionClosedData struct {
	ConnectionID string `json:"connection_id"`
	Reason       string `json:"reason"` // client_closed | transport_error | idle_timeout | server_shutdown
}

// Target is a target's identity as recorded.
type Target struct {
	Path         string  `json:"path"`
	SHA256       string  `json:"sha256"`
	Size         int64   `json:"size"`
	Format       string  `json:"format"`
	Kind         string  `json:"kind"`
	Architecture *string `json:"architecture"`
}

type TargetOpenedData struct {
	ConnectionID        string  `json:"connection_id"`
	RunID               string  `json:"run_id"`
	TargetID            string  `json:"target_id,omitempty"`
	Target              Target  `json:"target"`
	RequestedProviderID *string `json:"requested_provider_id"`
}

type TargetClosedData struct {
	ConnectionID string   `json:"connection_id"`
	RunID        string   `json:"run_id"`
	TargetID     string   `json:"target_id,omitempty"`
	Reason       string   `json:"reason"`  // close_binary | switch | connection_closed
	Cleanup      string   `json:"cleanup"` // complete | incomplete
	Resources    []string `json:"resources"`
}

type AnalysisRunAllocatedData struct {
	ConnectionID  string  `json:"connection_id"`
	RunID         string  `json:"run_id"`
	TargetID      string  `json:"target_id,omitempty"`
	TargetSHA256  string  `json:"target_sha256"`
	PreviousRunID *string `json:"previous_run_id"`
	Cause         string  `json:"cause"` // open | switch | restore
}

type ProviderBoundData struct {
	ConnectionID    string            `json:"connection_id"`
	RunID           string            `json:"run_id"`
	TargetID        string            `json:"target_id,omitempty"`
	Provider        provider.Identity `json:"provider"`
	SelectionSource string            `json:"selection_source"`
	AnalysisProfile provider.Profile  `json:"analysis_profile"`
}

type ProviderSelectionFailedData struct {
	ConnectionID        string               `json:"connection_id"`
	Operation           string               `json:"operation"`
	SelectionReason     string               `json:"selection_reason"`
	RequestedProviderID string               `json:"requested_provider_id"`
	CandidateIDs        []string             `json:"candidate_ids"`
	Rejections          []provider.Rejection `json:"rejections"`
}

type ProviderHealthChangedData struct {
	ConnectionID string  `json:"connection_id"`
	RunID        string  `json:"run_id"`
	TargetID     string  `json:"target_id,omitempty"`
	ProviderID   string  `json:"provider_id"`
	Operation    *string `json:"operation"` // nil = every operation
	State        string  `json:"state"`     // available | unavailable
	Reason       *string `json:"reason"`
}

type LineageObservedData struct {
	ConnectionID string              `json:"connection_id"`
	RunID        string              `json:"run_id"`
	TargetID     string              `json:"target_id,omitempty"`
	Provider     provider.Identity   `json:"provider"`
	Observation  lineage.Observation `json:"observation"`
}

type EvidenceRecordedData struct {
	ConnectionID  string  `json:"connection_id"`
	RunID         *string `json:"run_id"`
	TargetID      string  `json:"target_id,omitempty"`
	EvidenceID    string  `json:"evidence_id"`
	Operation     string  `json:"operation"`
	PredicateType string  `json:"predicate_type"`
	RecordDigest  string  `json:"record_digest"`
	New           bool    `json:"new"`
	Origin        string  `json:"origin"` // tool | import
}

type AnnotationSetData struct {
	TargetSHA256 string `json:"target_sha256"`
	Kind         string `json:"kind"` // comment | inline_comment | bookmark | name
	Address      string `json:"address"`
	Value        string `json:"value"`
	ConnectionID string `json:"connection_id"`
	RunID        string `json:"run_id"`
}

type AnnotationRemovedData struct {
	TargetSHA256 string `json:"target_sha256"`
	Kind         string `json:"kind"`
	Address      string `json:"address"`
	ConnectionID string `json:"connection_id"`
	RunID        string `json:"run_id"`
}

type CursorMovedData struct {
	ConnectionID string `json:"connection_id"`
	RunID        string `json:"run_id"`
	TargetID     string `json:"target_id,omitempty"`
	Document     string `json:"document"`
	Address      string `json:"address"`
}
