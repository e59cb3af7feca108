package events

import "github.com/rea-re/rea/engine/artifact"

// Artifact and Evidence-file events (CONTRACTS.md §13.2).
const (
	IntegrityContradictionRecorded = "integrity_contradiction_recorded"
	BundleExported                 = "bundle_exported"
	BundleImported                 = "bundle_imported"
)

// IntegrityContradictionRecordedData is one quarantine record of an
// inventory run under record-and-continue, appended with its Evidence.
type IntegrityContradictionRecordedData struct {
	ConnectionID   string                 `json:"connection_id"`
	RunID          *string                `json:"run_id"`
	TargetID       string                 `json:"target_id,omitempty"`
	EvidenceID     string                 `json:"evidence_id"`
	RootArtifactID string                 `json:"root_artifact_id"`
	Contradiction  artifact.Contradiction `json:"contradiction"`
}

// BundleExportedData records an export_evidence_bundle file written.
type BundleExportedData struct {
	ConnectionID string `json:"connection_id"`
	Path         string `json:"path"`
	BundleDigest string `json:"bundle_digest"`
	Bytes        int    `json:"bytes"`
	Records      int    `json:"records"`
	Overwrite    bool   `json:"overwrite"`
}

// BundleImportedData records an import_evidence_bundle merged.
type BundleImportedData struct {
	ConnectionID string `json:"connection_id"`
	Path         string `json:"path"`
	BundleDigest string `json:"bundle_digest"`
	Bytes        int    `json:"bytes"`
	Records      int    `json:"records"`
	Imported     int    `json:"imported"`
	Duplicates   int    `json:"duplicates"`
}
