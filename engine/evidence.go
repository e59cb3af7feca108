package engine

import (
	"github.com/rea-re/rea/engine/evidence"
)

// The Evidence data lives in package engine/evidence; these names keep the
// engine's surface for tools/ and cmd/ (new code names evidence.… itself).
type (
	Record         = evidence.Record
	Claim          = evidence.Claim
	Subject        = evidence.Subject
	Digest         = evidence.Digest
	Environment    = evidence.Environment
	Context        = evidence.Context
	LedgerRef      = evidence.LedgerRef
	ContextForm    = evidence.ContextForm
	CompactContext = evidence.CompactContext
	SubjectRef     = evidence.SubjectRef
	ProducerRef    = evidence.ProducerRef
)

// Predicate types, the Evidence vocabulary and the inline context's forms.
const (
	PredicateAnalysis  = evidence.PredicateAnalysis
	ConfidenceObserved = evidence.ConfidenceObserved
	ConfidenceDerived  = evidence.ConfidenceDerived
	AuthorityShipped   = evidence.AuthorityShipped
	CompactForm        = evidence.CompactForm
	FullForm           = evidence.FullForm
	ContextFormEnv     = evidence.ContextFormEnv
	MaxBundleBytes     = evidence.MaxBundleBytes
)

// DecodeRecord is evidence.DecodeRecord.
func DecodeRecord(b []byte) (*Record, error) { return evidence.DecodeRecord(b) }

// ContextOf is evidence.ContextOf.
func ContextOf(r *Record, ref LedgerRef) Context { return evidence.ContextOf(r, ref) }

// ParseContextForm is evidence.ParseContextForm.
func ParseContextForm(v string) (ContextForm, bool) { return evidence.ParseContextForm(v) }

// BuildBundle is evidence.BuildBundle.
func BuildBundle(records []*Record) ([]byte, error) { return evidence.BuildBundle(records) }
