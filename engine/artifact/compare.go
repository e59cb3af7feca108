package artifact

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// Classifications of compare_artifacts (§10.5).
const (
	ClassUnchanged     = "unchanged"
	ClassAdded         = "added"
	ClassRemoved       = "removed"
	ClassChanged       = "changed"
	ClassTruncated     = "truncated"
	ClassUnknown       = "unknown"
	ClassContradiction = "contradiction"
)

// Side is one input of a comparison: what the engine assembled from the
// inventory_artifact Evidence pages of one side (all sharing ManifestID).
// Complete is true when those pages cover every node, occurrence and edge.
type Side struct {
	ManifestID  string
	Nodes       []Node
	Occurrences []Occurrence
	Edges       []Edge
	Complete    bool
}

// Change is one non-unchanged path. EvidenceLinks is left empty for the
// engine, which knows which Evidence page held each occurrence.
type Change struct {
	Classification  string   `json:"classification"`
	LogicalPath     string   `json:"logical_path"`
	Dimensions      []string `json:"dimensions"`
	LeftOccurrence  *string  `json:"left_occurrence_id"`
	RightOccurrence *string  `json:"right_occurrence_id"`
	LeftArtifactID  *string  `json:"left_artifact_id"`
	RightArtifactID *string  `json:"right_artifact_id"`
	EvidenceLinks   []string `json:"evidence_links"`
}

// Summary counts paths per classification.
type Summary struct {
	Unchanged     int `json:"unchanged"`
	Added         int `json:"added"`
	Removed       int `json:"removed"`
	Changed       int `json:"changed"`
	Unknown       int `json:"unknown"`
	Contradiction int `json:"contradiction"`
}

// Comparison is the unpaged §10.5 result; the engine pages Changes.
type Comparison struct {
	Status          string   `json:"status"`
	LeftManifestID  string   `json:"left_manifest_id"`
	RightManifestID string   `json:"right_manifest_id"`
	Summary         Summary  `json:"summary"`
	Changes         []Change `json:"changes"`
	Limitations     []string `json:"limitations"`
}

// Compare classifies every logical path of the union of both sides with
// the precedence of §10.5: absent on one side → added/removed (unknown,
// dimension availability, when that side is incomplete); either side
// mismatched → contradiction; a file not verified on either side → unknown;
// otherwise the differing dimensions → changed, none → unchanged. A
// contradiction is never unchanged. Overall: truncated (a side incomplete) >
// contradiction > unknown > changed (added/removed count as changed) >
// unchanged. ctx is checked before computing and every 1024 paths; the
// engine checks it again before publishing.
func Compare(ctx context.Context, left, right Side) (*Comparison, error) {
	const op = "compare_artifacts"
	if err := ctxErr(ctx, op); err != nil {
		return nil, err
	}
	l, r := index(left), index(right)
	paths := make([]string, 0, len(l.occ)+len(r.occ))
	for p := range l.occ {
		paths = append(paths, p)
	}
	for p := range r.occ {
		if _, ok := l.occ[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	c := &Comparison{LeftManifestID: left.ManifestID, RightManifestID: right.ManifestID,
		Changes: []Change{}, Limitations: []string{}}
	for i, p := range paths {
		if i%1024 == 0 {
			if err := ctxErr(ctx, op); err != nil {
				return nil, err
			}
		}
		lo, lok := l.occ[p]
		ro, rok := r.occ[p]
		ch := Change{LogicalPath: p, Dimensions: []string{}, EvidenceLinks: []string{}}
		if lok {
			ch.LeftOccurrence, ch.LeftArtifactID = &lo.OccurrenceID, lo.ArtifactID
		}
		if rok {
			ch.RightOccurrence, ch.RightArtifactID = &ro.OccurrenceID, ro.ArtifactID
		}
		switch {
		case !lok || !rok:
			switch {
			case !left.Complete || !right.Complete:
				ch.Classification = ClassUnknown
				ch.Dimensions = []string{"availability"}
			case !lok:
				ch.Classification = ClassAdded
			default:
				ch.Classification = ClassRemoved
			}
		case lo.HashStatus == HashMismatched || ro.HashStatus == HashMismatched:
			ch.Classification = ClassContradiction
			ch.Dimensions = []string{"integrity"}
		case hashed(lo.EntryKind) && (lo.HashStatus != HashVerified || ro.HashStatus != HashVerified),
			hashed(ro.EntryKind) && (lo.HashStatus != HashVerified || ro.HashStatus != HashVerified):
			ch.Classification = ClassUnknown
			ch.Dimensions = []string{"content"}
		default:
			ch.Dimensions = dimensions(l, r, lo, ro)
			if len(ch.Dimensions) == 0 {
				c.Summary.Unchanged++
				continue
			}
			ch.Classification = ClassChanged
		}
		switch ch.Classification {
		case ClassAdded:
			c.Summary.Added++
		case ClassRemoved:
			c.Summary.Removed++
		case ClassChanged:
			c.Summary.Changed++
		case ClassUnknown:
			c.Summary.Unknown++
		case ClassContradiction:
			c.Summary.Contradiction++
		}
		c.Changes = append(c.Changes, ch)
	}
	s := c.Summary
	switch {
	case !left.Complete || !right.Complete:
		c.Status = ClassTruncated
		c.Limitations = append(c.Limitations, "At least one side's inventory pages do not cover its whole manifest; paths it may hold are unknown.")
	case s.Contradiction > 0:
		c.Status = ClassContradiction
	case s.Unknown > 0:
		c.Status = ClassUnknown
	case s.Changed+s.Added+s.Removed > 0:
		c.Status = ClassChanged
	default:
		c.Status = ClassUnchanged
	}
	if s.Contradiction > 0 {
		c.Limitations = append(c.Limitations, "Contradicted paths carry observed-untrusted bytes on at least one side; they are never reported unchanged.")
	}
	return c, nil
}

func hashed(kind string) bool { return kind == EntryFile || kind == "slice" }

type sideIndex struct {
	occ   map[string]*Occurrence
	node  map[string]*Node
	edges map[string][]string // occurrence id → relations
}

func index(s Side) sideIndex {
	x := sideIndex{occ: map[string]*Occurrence{}, node: map[string]*Node{}, edges: map[string][]string{}}
	for i := range s.Occurrences {
		o := &s.Occurrences[i]
		if o.LogicalPath == "." {
			continue // the roots are the two things compared
		}
		x.occ[o.LogicalPath] = o
	}
	for i := range s.Nodes {
		x.node[s.Nodes[i].ArtifactID] = &s.Nodes[i]
	}
	for _, e := range s.Edges {
		x.edges[e.OccurrenceID] = append(x.edges[e.OccurrenceID], e.Relation)
	}
	return x
}

// dimensions lists what differs between two comparable occurrences.
// Directories and symlinks compare on kind and link target only.
func dimensions(l, r sideIndex, lo, ro *Occurrence) []string {
	var d []string
	if lo.EntryKind != ro.EntryKind {
		return []string{"kind"}
	}
	if !hashed(lo.EntryKind) {
		if lo.EntryKind == EntrySymlink && linkTarget(lo) != linkTarget(ro) {
			d = append(d, "content")
		}
		return d
	}
	ln, rn := l.node[deref(lo.ArtifactID)], r.node[deref(ro.ArtifactID)]
	if deref(lo.ArtifactID) != deref(ro.ArtifactID) {
		d = append(d, "content")
	}
	if ln != nil && rn != nil {
		if ln.Kind != rn.Kind {
			d = append(d, "kind")
		}
		if ln.Format != rn.Format {
			d = append(d, "format")
		}
		if ln.Size != rn.Size {
			d = append(d, "size")
		}
	} else if (ln == nil) != (rn == nil) {
		d = append(d, "kind")
	}
	if lo.Executable != ro.Executable {
		d = append(d, "executable")
	}
	le, re := slices.Sorted(slices.Values(l.edges[lo.OccurrenceID])), slices.Sorted(slices.Values(r.edges[ro.OccurrenceID]))
	if !slices.Equal(le, re) {
		d = append(d, "relations")
	}
	if !eqPtr(lo.DeclaredSize, ro.DeclaredSize) || !eqPtr(lo.DeclaredSHA256, ro.DeclaredSHA256) ||
		!eqPtr(lo.CompressedSize, ro.CompressedSize) || lo.Encrypted != ro.Encrypted {
		d = append(d, "metadata")
	}
	slices.SortFunc(d, cmp.Compare[string])
	return slices.Compact(d)
}

func linkTarget(o *Occurrence) string {
	for _, l := range o.Limitations {
		if t, ok := strings.CutPrefix(l, SymlinkNotePrefix); ok {
			return t
		}
	}
	return ""
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
