package ledger

import (
	"time"

	"github.com/rea-re/rea/ledger/internal/chain"
)

// The hash chain, the canonical-JSON checks, the verifier and the export
// format live in internal/chain, which has no database dependency: an export
// is verified without SQLite, and the parsers of untrusted bytes are fuzzed
// in a binary small enough for the fuzzer to be effective. These names are
// the public face of that package.

// SchemaVersion1 is the schema_version of every event type in CONTRACTS.md
// §13.2. It is part of the hashed envelope so that a later payload change can
// be told apart from tampering.
const SchemaVersion1 = chain.SchemaVersion1

// TimeLayout is the one timestamp spelling of the ledger: RFC 3339, UTC,
// milliseconds, literal Z (CONTRACTS.md §1.1).
const TimeLayout = chain.TimeLayout

// BlobRefField is the top-level member of an event's data that names a blob
// by its sha256 (evidence_recorded.record_digest, CONTRACTS.md §7.3).
const BlobRefField = chain.BlobRefField

// Export file constants (CONTRACTS.md §13.3).
const (
	ExportFormat        = chain.Format
	ExportFormatVersion = chain.FormatVersion
)

// Check names used in Problem.Check; the number is the check of
// CONTRACTS.md §13.4.
const (
	CheckHash          = chain.CheckHash          // (1)
	CheckPrevHash      = chain.CheckPrevHash      // (2)
	CheckSeq           = chain.CheckSeq           // (3)
	CheckEventID       = chain.CheckEventID       // (3)
	CheckStreamVersion = chain.CheckStreamVersion // (3)
	CheckCanonical     = chain.CheckCanonical     // (4)
	CheckEnvelope      = chain.CheckEnvelope      // (4)
	CheckManifest      = chain.CheckManifest      // (5)
	CheckBlob          = chain.CheckBlob          // (5)
	CheckLine          = chain.CheckLine          // export line malformed
	CheckPrevious      = chain.CheckPrevious      // (6)
	CheckTruncated     = chain.CheckTruncated     // more problems than listed
)

type (
	// VerifyReport is the outcome of Verify or VerifyExport, in the JSON
	// shape of CONTRACTS.md §13.4: {ok, checked:{events, blobs},
	// head:{seq, hash}, first_bad_seq, problems:[{seq, check, detail}]}.
	VerifyReport = chain.Report
	// VerifyChecked counts what was examined.
	VerifyChecked = chain.Checked
	// VerifyHead is the last event seen, as stored.
	VerifyHead = chain.Head
	// Problem is one failed check; Seq is nil when no position applies.
	Problem = chain.Problem
	// ExportManifest is the first line of an export (CONTRACTS.md §13.3).
	ExportManifest = chain.Manifest
)

// GenesisHash is the prev_hash of seq 1: 64 "0" (CONTRACTS.md §13.1).
func GenesisHash() string { return chain.GenesisHash }

// FormatTime renders t in the ledger's timestamp spelling (TimeLayout).
func FormatTime(t time.Time) string { return chain.FormatTime(t) }

// ParseTime parses a timestamp in the ledger's spelling, refusing any other.
func ParseTime(s string) (time.Time, error) { return chain.ParseTime(s) }

// AppendEventLine appends e as an export event line (CONTRACTS.md §13.3):
// {canonical, hash, kind:"event", prev_hash, seq} and a newline.
func AppendEventLine(dst []byte, e Event) []byte {
	return chain.AppendEventLine(dst, e.Seq, e.Hash, e.PrevHash, e.Canonical)
}
