package evidence

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/rea-re/rea/engine/canon"
)

// Bundle bounds (§2.1): never a partial bundle.
const (
	// MaxBundleRecords bounds the records of one bundle.
	MaxBundleRecords = 10000
	// MaxBundleBytes bounds a bundle, and an Evidence bundle file read or written.
	MaxBundleBytes = 64 << 20
)

type bundleScenario struct {
	EvidenceID string `json:"evidence_id"`
	Operation  string `json:"operation"`
	Authority  string `json:"authority"`
}

type bundleCapture struct {
	EvidenceID    string `json:"evidence_id"`
	PredicateType string `json:"predicate_type"`
}

// BuildBundle assembles the canonical bundle (§7.4) of records — any order in;
// sorted by evidence_id and de-duplicated out — and returns its JCS bytes, so
// identical record sets give byte-identical bundles.
func BuildBundle(records []*Record) ([]byte, error) {
	byID := map[string]*Record{}
	for _, r := range records {
		if _, dup := byID[r.EvidenceID]; !dup {
			byID[r.EvidenceID] = r
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	scenarios, captures, recs := []bundleScenario{}, []bundleCapture{}, []json.RawMessage{}
	arts, provs, envs := sortedSet{}, sortedSet{}, sortedSet{}
	for _, id := range ids {
		r := byID[id]
		if r.Subject != nil {
			if err := arts.add(subjectIdentity{r.Subject.Digest, r.Subject.Format, r.Subject.Architecture}); err != nil {
				return nil, err
			}
		}
		if err := provs.add(r.Provider); err != nil {
			return nil, err
		}
		if r.Environment != nil {
			if err := envs.add(*r.Environment); err != nil {
				return nil, err
			}
		}
		if r.Authority == "controlled-replay" {
			scenarios = append(scenarios, bundleScenario{r.EvidenceID, r.Operation, r.Authority})
		}
		if strings.HasPrefix(r.PredicateType, "rea.process-capture/") {
			captures = append(captures, bundleCapture{r.EvidenceID, r.PredicateType})
		}
		c, err := r.Canonical()
		if err != nil {
			return nil, err
		}
		recs = append(recs, c)
	}
	out := struct {
		BundleVersion int               `json:"bundle_version"`
		Artifacts     []json.RawMessage `json:"artifacts"`
		Providers     []json.RawMessage `json:"providers"`
		Environments  []json.RawMessage `json:"environments"`
		Scenarios     []bundleScenario  `json:"scenarios"`
		Captures      []bundleCapture   `json:"captures"`
		Unknowns      []any             `json:"unknowns"`
		Records       []json.RawMessage `json:"records"`
	}{2, arts.sorted(), provs.sorted(), envs.sorted(), scenarios, captures, []any{}, recs}
	return canon.Marshal(out)
}

// sortedSet de-duplicates values by their JCS bytes and orders them bytewise.
type sortedSet map[string]json.RawMessage

func (s sortedSet) add(v any) error {
	c, err := canon.Marshal(v)
	if err != nil {
		return err
	}
	s[string(c)] = c
	return nil
}

func (s sortedSet) sorted() []json.RawMessage {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]json.RawMessage, 0, len(keys))
	for _, k := range keys {
		out = append(out, s[k])
	}
	return out
}
