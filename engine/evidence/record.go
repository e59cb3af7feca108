// Package evidence is REA's Evidence v2 as data (CONTRACTS.md §7): the
// record, its id (seal and verify over canonical JSON), the inline
// contexts an answer carries (§1.5) and the canonical bundle (§7.4). It
// knows nothing of connections, ledgers or providers' operations: the
// engine publishes and loads records, this package says what their bytes
// and digests are.
package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/jcs"
)

// Evidence v2 (CONTRACTS.md §7). A record names the exact bytes it speaks of
// (subject digest), the provider build and profile, and the parameters that
// produced the answer; its ID is the digest of all of that, so a client can
// recompute it from the answer it received and detect any edit.

// Predicate types and the Evidence vocabulary.
const (
	PredicateAnalysis  = "rea.analysis/v2"
	ConfidenceObserved = "observed"
	ConfidenceDerived  = "derived"
	AuthorityShipped   = "shipped-artifact"
)

// Digest is {sha256}.
type Digest struct {
	SHA256 string `json:"sha256"`
}

// Subject is the artifact a record speaks of.
type Subject struct {
	Name         string  `json:"name"`
	Digest       Digest  `json:"digest"`
	Format       string  `json:"format"`
	Architecture *string `json:"architecture"`
	LocalPath    string  `json:"local_path"`
}

// Environment is where a dynamic observation ran.
type Environment struct {
	ID           string `json:"id"`
	Platform     string `json:"platform"`
	Architecture string `json:"architecture"`
	Isolation    string `json:"isolation"`
}

// Claim is what a record asserts and how it was obtained: everything in it
// except the subject, the results and the ID. Record, the ID preimage and
// the inline Context all embed it, so the field list exists once.
type Claim struct {
	Provider        provider.Identity   `json:"provider"`
	AnalysisProfile *provider.Profile   `json:"analysis_profile,omitempty"`
	PredicateType   string              `json:"predicate_type"`
	Operation       string              `json:"operation"`
	Parameters      map[string]any      `json:"parameters"`
	Confidence      string              `json:"confidence"`
	Authority       string              `json:"authority"`
	Environment     *Environment        `json:"environment"`
	Limitations     []string            `json:"limitations"`
	Locations       []provider.Location `json:"locations"`
	EvidenceLinks   []string            `json:"evidence_links"`
}

// Record is an Evidence v2 record. Results are held as canonical JSON so the
// record round-trips byte for byte.
type Record struct {
	SchemaVersion int      `json:"schema_version"`
	EvidenceID    string   `json:"evidence_id"`
	Subject       *Subject `json:"subject"`
	Claim
	RawResult        json.RawMessage `json:"raw_result"`
	NormalizedResult json.RawMessage `json:"normalized_result"`
}

type subjectIdentity struct {
	Digest       Digest  `json:"digest"`
	Format       string  `json:"format"`
	Architecture *string `json:"architecture"`
}

// idPreimage is the record without evidence_id and without its results
// (which are spliced in: see members), the subject reduced to its identity
// (a renamed or moved file keeps its evidence IDs).
type idPreimage struct {
	SchemaVersion int              `json:"schema_version"`
	Subject       *subjectIdentity `json:"subject"`
	Claim
}

// recordHead is the record without its results.
type recordHead struct {
	SchemaVersion int      `json:"schema_version"`
	EvidenceID    string   `json:"evidence_id"`
	Subject       *Subject `json:"subject"`
	Claim
}

// withResults encodes head canonically and splices in the results, which are
// canonical already: a page of results is the bulk of a record, and this way
// it is not parsed again for the ID and again for the stored body.
func (r *Record) withResults(head any) ([]byte, error) {
	b, err := canon.Marshal(head)
	if err != nil {
		return nil, err
	}
	return jcs.WithMembers(b,
		jcs.Member{Name: "normalized_result", Value: nullIfEmpty(r.NormalizedResult)},
		jcs.Member{Name: "raw_result", Value: nullIfEmpty(r.RawResult)})
}

// ComputeID derives evidence_id = "ev_" + sha256(JCS(preimage)) (§7.2). The
// results must be canonical JSON (Seal's contract; Verify checks it).
func (r *Record) ComputeID() (string, error) {
	claim := r.Claim
	claim.Limitations, claim.Locations, claim.EvidenceLinks = nonNil(r.Limitations), nonNil(r.Locations), nonNil(r.EvidenceLinks)
	p := idPreimage{SchemaVersion: r.SchemaVersion, Claim: claim}
	if r.Subject != nil {
		p.Subject = &subjectIdentity{Digest: r.Subject.Digest, Format: r.Subject.Format, Architecture: r.Subject.Architecture}
	}
	b, err := r.withResults(p)
	if err != nil {
		return "", fmt.Errorf("evidence: id: %w", err)
	}
	return "ev_" + canon.SHA256Hex(b), nil
}

// Seal normalizes the record's collections and sets its ID. The results must
// already be canonical JSON (canon.Marshal); an absent result is null.
// Canonicalizing a large result is the main cost of publishing a page, so it
// is done once, by whoever produced the result.
func (r *Record) Seal() error {
	r.Limitations = nonNil(r.Limitations)
	r.Locations = nonNil(r.Locations)
	r.EvidenceLinks = nonNil(r.EvidenceLinks)
	sort.Strings(r.EvidenceLinks)
	r.RawResult, r.NormalizedResult = nullIfEmpty(r.RawResult), nullIfEmpty(r.NormalizedResult)
	id, err := r.ComputeID()
	if err != nil {
		return err
	}
	r.EvidenceID = id
	return nil
}

// Verify reports whether the stored ID matches the content. A record from
// outside (a stored blob, an import) must hold canonical results, or its ID
// would not be the one a client recomputes.
func (r *Record) Verify() error {
	for _, res := range []json.RawMessage{r.RawResult, r.NormalizedResult} {
		if c, err := jcs.Transform(nullIfEmpty(res)); err != nil || !bytes.Equal(c, nullIfEmpty(res)) {
			return fmt.Errorf("evidence: %s: a result is not canonical JSON", r.EvidenceID)
		}
	}
	id, err := r.ComputeID()
	if err != nil {
		return err
	}
	if id != r.EvidenceID {
		return fmt.Errorf("evidence: id %s does not verify (computed %s)", r.EvidenceID, id)
	}
	return nil
}

// Canonical is the record's JCS bytes: the blob stored in the ledger.
func (r *Record) Canonical() ([]byte, error) {
	return r.withResults(recordHead{SchemaVersion: r.SchemaVersion, EvidenceID: r.EvidenceID, Subject: r.Subject, Claim: r.Claim})
}

// DecodeRecord parses a stored or imported record strictly (unknown keys rejected).
func DecodeRecord(b []byte) (*Record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("evidence: decode: %w", err)
	}
	return &r, nil
}

// Context is the inline EvidenceContext of §1.5: the record minus its results,
// plus the ledger position of the evidence_recorded event this call appended.
type Context struct {
	SchemaVersion int      `json:"schema_version"`
	EvidenceID    string   `json:"evidence_id"`
	Subject       *Subject `json:"subject"`
	Claim
	Ledger LedgerRef `json:"ledger"`
}

// LedgerRef names one ledger event.
type LedgerRef struct {
	Seq     int64  `json:"seq"`
	EventID string `json:"event_id"`
}

// ContextOf projects a record to its inline context.
func ContextOf(r *Record, ref LedgerRef) Context {
	return Context{SchemaVersion: r.SchemaVersion, EvidenceID: r.EvidenceID, Subject: r.Subject, Claim: r.Claim, Ledger: ref}
}

// ContextForm is the form of the Evidence context an answer carries
// inline (CONTRACTS.md §0, §1.5). Either form names the same stored record.
type ContextForm int

const (
	// CompactForm names the record: evidence_id, ledger position, subject
	// digest and name, provider, profile digest, confidence, authority and
	// limitations. It is the default.
	CompactForm ContextForm = iota
	// FullForm is the first edition's context: the record minus its
	// results, plus ledger, from which a client recomputes the id.
	FullForm
)

// ContextFormEnv is the variable that selects the inline form.
const ContextFormEnv = "REA_EVIDENCE_CONTEXT"

// ParseContextForm reads REA_EVIDENCE_CONTEXT's value: "compact" or
// "full" exactly; empty is unset, which is compact (as for REA's other
// variables); anything else is not valid.
func ParseContextForm(v string) (ContextForm, bool) {
	switch v {
	case "", "compact":
		return CompactForm, true
	case "full":
		return FullForm, true
	}
	return CompactForm, false
}

// CompactContext is the inline EvidenceContext of the second edition
// (CONTRACTS.md §0, §1.5): it names the record (its id, the ledger event
// that recorded it, the subject's digest, the producer and its profile) and
// says how far to trust the answer, and nothing more. The record itself,
// from which the id is recomputed, is get_evidence_bundle's; Context (the
// full form) stays available for clients that recompute ids from answers.
type CompactContext struct {
	EvidenceID            string      `json:"evidence_id"`
	Ledger                LedgerRef   `json:"ledger"`
	Subject               *SubjectRef `json:"subject"`
	Provider              ProducerRef `json:"provider"`
	AnalysisProfileDigest *string     `json:"analysis_profile_digest"`
	Confidence            string      `json:"confidence"`
	Authority             string      `json:"authority"`
	Limitations           []string    `json:"limitations"`
}

// SubjectRef names a record's subject: its digest and name.
type SubjectRef struct {
	Digest Digest `json:"digest"`
	Name   string `json:"name"`
}

// ProducerRef names a record's producer build.
type ProducerRef struct {
	ID      string  `json:"id"`
	Version *string `json:"version"`
}

// Compact is the context's compact form.
func (c Context) Compact() CompactContext {
	cc := CompactContext{EvidenceID: c.EvidenceID, Ledger: c.Ledger,
		Provider:   ProducerRef{ID: c.Provider.ID, Version: c.Provider.Version},
		Confidence: c.Confidence, Authority: c.Authority, Limitations: nonNil(c.Limitations)}
	if c.Subject != nil {
		cc.Subject = &SubjectRef{Digest: c.Subject.Digest, Name: c.Subject.Name}
	}
	if c.AnalysisProfile != nil {
		d := c.AnalysisProfile.Digest
		cc.AnalysisProfileDigest = &d
	}
	return cc
}

// AppendJSON writes the compact context as compact JSON, in its
// declaration order, without a reflection pass: every answer carries one.
// Strings go through jcs.AppendText, so the bytes are valid JSON for
// any content (FuzzCompactContextJSON compares them with encoding/json).
func (c CompactContext) AppendJSON(b []byte) []byte {
	b = append(b, `{"evidence_id":`...)
	b = jcs.AppendText(b, c.EvidenceID)
	b = append(b, `,"ledger":{"seq":`...)
	b = jcs.AppendInt(b, c.Ledger.Seq)
	b = append(b, `,"event_id":`...)
	b = jcs.AppendText(b, c.Ledger.EventID)
	b = append(b, `},"subject":`...)
	if c.Subject == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"digest":{"sha256":`...)
		b = jcs.AppendText(b, c.Subject.Digest.SHA256)
		b = append(b, `},"name":`...)
		b = jcs.AppendText(b, c.Subject.Name)
		b = append(b, '}')
	}
	b = append(b, `,"provider":{"id":`...)
	b = jcs.AppendText(b, c.Provider.ID)
	b = append(b, `,"version":`...)
	b = appendStringOrNull(b, c.Provider.Version)
	b = append(b, `},"analysis_profile_digest":`...)
	b = appendStringOrNull(b, c.AnalysisProfileDigest)
	b = append(b, `,"confidence":`...)
	b = jcs.AppendText(b, c.Confidence)
	b = append(b, `,"authority":`...)
	b = jcs.AppendText(b, c.Authority)
	b = append(b, `,"limitations":[`...)
	for i, l := range c.Limitations {
		if i > 0 {
			b = append(b, ',')
		}
		b = jcs.AppendText(b, l)
	}
	return append(b, "]}"...)
}

func appendStringOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return jcs.AppendText(b, *s)
}

func nullIfEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// nonNil is s, or an empty slice: a record's lists are never null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// FromBlob decodes a stored record body found under digest and re-verifies
// it: the body must hash to digest and its evidence_id must recompute. A
// mismatch is evidence_integrity_mismatch (reason id_mismatch).
func FromBlob(digest string, body []byte) (*Record, error) {
	if canon.SHA256Hex(body) != digest {
		return nil, fault.New(fault.EvidenceIntegrityMismatch, "A stored Evidence record does not match its digest.", "Run `rea ledger verify`.",
			map[string]any{"evidence_id": nil, "reason": "id_mismatch"})
	}
	r, err := DecodeRecord(body)
	if err == nil {
		err = r.Verify()
	}
	if err != nil {
		return nil, fault.New(fault.EvidenceIntegrityMismatch, "A stored Evidence record does not verify.", "Run `rea ledger verify`.",
			map[string]any{"evidence_id": nil, "reason": "id_mismatch"}).WithCause(err)
	}
	return r, nil
}
