// Package artifact inventories, verifies, extracts and compares containers
// (CONTRACTS.md §10): directories, zip-family archives and Electron ASAR
// archives, nested up to a depth bound. It is pure domain code: it returns
// plain values — the §10.3 inventory, the §10.7 extraction, the §10.5
// comparison and the integrity contradictions the engine turns into
// integrity_contradiction_recorded events — and never records events itself.
//
// Every byte it reads is untrusted. Parsers bound what they allocate before
// allocating it, entry names are validated before they become paths, symlinks
// are recorded and never followed, and every failure is a *fault.Error with a
// code of CONTRACTS.md §1.7.
package artifact

// Root formats REA opens as artifact targets (CONTRACTS.md §2.1).
const (
	FormatDirectory = "directory"
	FormatASAR      = "asar"
	FormatZip       = "zip"
	FormatAPK       = "apk"
	FormatIPA       = "ipa"
	FormatMSIX      = "msix"
	FormatAPPX      = "appx"
)

// Entry kinds of an occurrence.
const (
	EntryFile      = "file"
	EntryDirectory = "directory"
	EntrySymlink   = "symlink"
)

// Hash states of an occurrence (§10.2).
const (
	HashVerified       = "verified"
	HashMismatched     = "mismatched"
	HashNotHashedLimit = "not-hashed-limit"
	HashUnavailable    = "unavailable"
)

// Root names the artifact target to inventory or extract from: an absolute,
// already resolved path and its detected format (engine/target.Detect).
type Root struct {
	Path   string
	Format string
	// SHA256 is the target digest computed at open (file hash, or the
	// directory digest of §10.2). When empty, Inventory computes it.
	SHA256 string
}

// Limits are the traversal limits shared by inventory_artifact and
// extract_artifact (CONTRACTS.md §2.4), echoed in results as `limits`.
type Limits struct {
	MaxEntries          int64   `json:"max_entries"`
	MaxTotalBytes       int64   `json:"max_total_bytes"`
	MaxEntryBytes       int64   `json:"max_entry_bytes"`
	MaxCompressionRatio float64 `json:"max_compression_ratio"`
	MaxDepth            int     `json:"max_depth"`
	MaxPathBytes        int     `json:"max_path_bytes"`
}

// DefaultLimits are the schema defaults of §2.4.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:          10000,
		MaxTotalBytes:       1073741824,
		MaxEntryBytes:       268435456,
		MaxCompressionRatio: 1000,
		MaxDepth:            20,
		MaxPathBytes:        4096,
	}
}

// withDefaults fills zero fields, so a caller can set only what it changes;
// MaxDepth 0 is a valid bound, so it takes its default only when the whole
// Limits is zero.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l == (Limits{}) {
		return d
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = d.MaxTotalBytes
	}
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = d.MaxEntryBytes
	}
	if l.MaxCompressionRatio <= 0 {
		l.MaxCompressionRatio = d.MaxCompressionRatio
	}
	if l.MaxDepth < 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxPathBytes <= 0 {
		l.MaxPathBytes = d.MaxPathBytes
	}
	return l
}

// Manifest is the §10.3 manifest.
type Manifest struct {
	SchemaVersion   int    `json:"schema_version"`
	ManifestID      string `json:"manifest_id"`
	RootArtifactID  string `json:"root_artifact_id"`
	RootSHA256      string `json:"root_sha256"`
	RootFormat      string `json:"root_format"`
	GraphSHA256     string `json:"graph_sha256"`
	NodeCount       int    `json:"node_count"`
	OccurrenceCount int    `json:"occurrence_count"`
	EdgeCount       int    `json:"edge_count"`
}

// Node is one distinct artifact (content-addressed: the same bytes at two
// paths are one node with two occurrences).
type Node struct {
	ArtifactID   string   `json:"artifact_id"`
	Kind         string   `json:"kind"`
	Format       string   `json:"format"`
	SHA256       string   `json:"sha256"`
	Size         int64    `json:"size"`
	MediaType    *string  `json:"media_type"`
	Architecture *string  `json:"architecture"`
	Executable   bool     `json:"executable"`
	ContentState string   `json:"content_state"`
	Limitations  []string `json:"limitations"`
}

// SourceLocation is where an entry's stored bytes lie in its container.
type SourceLocation struct {
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
}

// Occurrence is one appearance of an entry at a logical path.
type Occurrence struct {
	OccurrenceID       string          `json:"occurrence_id"`
	ArtifactID         *string         `json:"artifact_id"`
	ParentOccurrenceID *string         `json:"parent_occurrence_id"`
	LogicalPath        string          `json:"logical_path"`
	EntryKind          string          `json:"entry_kind"`
	DeclaredSize       *int64          `json:"declared_size"`
	DeclaredSHA256     *string         `json:"declared_sha256"`
	CompressedSize     *int64          `json:"compressed_size"`
	Executable         bool            `json:"executable"`
	Encrypted          bool            `json:"encrypted"`
	HashStatus         string          `json:"hash_status"`
	SourceLocation     *SourceLocation `json:"source_location"`
	Limitations        []string        `json:"limitations"`
}

// Edge relates a container artifact to an artifact it holds.
type Edge struct {
	EdgeID           string  `json:"edge_id"`
	Ordinal          int     `json:"ordinal"`
	ParentArtifactID string  `json:"parent_artifact_id"`
	ChildArtifactID  string  `json:"child_artifact_id"`
	Relation         string  `json:"relation"`
	OccurrenceID     string  `json:"occurrence_id"`
	LogicalPath      *string `json:"logical_path"`
	Producer         *string `json:"producer"`
}

// Contradiction is the quarantine record of §10.1: declared container
// integrity metadata versus the observed bytes. It is also the `contradiction`
// of the integrity_contradiction_recorded event (§13.2).
type Contradiction struct {
	ContradictionID  string   `json:"contradiction_id"`
	OccurrenceID     string   `json:"occurrence_id"`
	ParentArtifactID string   `json:"parent_artifact_id"`
	LogicalPath      string   `json:"logical_path"`
	DeclaredSHA256   string   `json:"declared_sha256"`
	ObservedSHA256   string   `json:"observed_sha256"`
	EntryKind        string   `json:"entry_kind"`
	Unpacked         bool     `json:"unpacked"`
	Trust            string   `json:"trust"`
	Provenance       string   `json:"provenance"`
	MismatchedBlocks []int    `json:"mismatched_blocks"`
	Limitations      []string `json:"limitations"`
}

// Graph is the unpaged §10.3 inventory result: the engine pages nodes, occurrences
// and edges, and appends one integrity_contradiction_recorded event per
// Contradictions entry (data {connection_id, run_id, evidence_id,
// root_artifact_id: Manifest.RootArtifactID, contradiction}).
type Graph struct {
	Manifest       Manifest        `json:"manifest"`
	Nodes          []Node          `json:"nodes"`
	Occurrences    []Occurrence    `json:"occurrences"`
	Edges          []Edge          `json:"edges"`
	Limits         Limits          `json:"limits"`
	Provenance     []any           `json:"provenance"`
	Contradictions []Contradiction `json:"integrity_contradictions"`
	Limitations    []string        `json:"limitations"`
}
