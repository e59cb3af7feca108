package artifact

import (
	"cmp"
	"path"
	"slices"
	"sync"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/target"
)

// finish assigns identifiers and builds the sorted §10.3 graph.
func (s *inventory) finish(root Root, size int64) (*Graph, error) {
	if root.SHA256 == "" {
		d, err := s.directoryDigest(root)
		if err != nil {
			return nil, err
		}
		root.SHA256 = d
	}
	rootArt := ArtifactID(root.SHA256)
	r := s.root
	r.o.OccurrenceID = rootOccurrenceID(rootArt)
	r.o.ArtifactID = &rootArt
	r.o.HashStatus = HashVerified
	r.o.Limitations = []string{}
	if root.Format == FormatDirectory {
		for _, o := range s.occs {
			if o.cont == r && o.dg != nil && !o.dg.OverLimit {
				size += o.dg.N
			}
		}
	}
	nodes := map[string]*Node{rootArt: {
		ArtifactID: rootArt, Kind: KindContainer, Format: root.Format, SHA256: root.SHA256, Size: size,
		ContentState: "materialized", Limitations: []string{},
	}}
	artOf := map[*occ]string{r: rootArt}
	for _, o := range s.occs {
		o.o.OccurrenceID = OccurrenceID(rootArt, o.o.LogicalPath, o.o.EntryKind)
		if o.dg == nil || o.dg.OverLimit || o.dg.N < 0 {
			continue
		}
		a := ArtifactID(o.dg.SHA256)
		artOf[o] = a
		o.o.ArtifactID = &a
		n, ok := nodes[a]
		if !ok {
			n = &Node{
				ArtifactID: a, Kind: o.class.Kind, Format: o.class.Format, SHA256: o.dg.SHA256, Size: o.dg.N,
				MediaType: strOrNil(o.class.MediaType), Architecture: strOrNil(o.class.Arch),
				Executable: o.class.Kind == KindExecutable, ContentState: o.state, Limitations: []string{},
			}
			if o.format != "" {
				n.Kind, n.Format = KindContainer, o.format
			}
			nodes[a] = n
		}
		if o.o.HashStatus == HashMismatched && !slices.Contains(n.Limitations, untrustedNote) {
			n.Limitations = append(n.Limitations, untrustedNote)
		}
	}
	for _, o := range s.occs {
		if o.parent != nil {
			id := o.parent.o.OccurrenceID
			o.o.ParentOccurrenceID = &id
		}
	}
	occs := make([]Occurrence, 0, len(s.occs)+1)
	occs = append(occs, r.o)
	for _, o := range s.occs {
		occs = append(occs, o.o)
	}
	slices.SortFunc(occs, func(a, b Occurrence) int { return cmp.Compare(a.LogicalPath, b.LogicalPath) })

	// Edges: container artifact → held artifact, ordinal in logical path
	// order within the parent.
	sorted := slices.Clone(s.occs)
	slices.SortFunc(sorted, func(a, b *occ) int { return cmp.Compare(a.o.LogicalPath, b.o.LogicalPath) })
	ordinal := map[string]int{}
	edges := []Edge{}
	for _, o := range sorted {
		child, ok := artOf[o]
		if !ok {
			continue
		}
		parent := artOf[o.cont]
		lp := o.o.LogicalPath
		e := Edge{
			Ordinal: ordinal[parent], ParentArtifactID: parent, ChildArtifactID: child,
			Relation: "contains", OccurrenceID: o.o.OccurrenceID, LogicalPath: &lp,
		}
		ordinal[parent]++
		e.EdgeID = EdgeID(parent, child, e.Relation, e.OccurrenceID, lp)
		edges = append(edges, e)
	}
	slices.SortFunc(edges, func(a, b Edge) int { return cmp.Compare(a.EdgeID, b.EdgeID) })

	nodeList := make([]Node, 0, len(nodes))
	for _, n := range nodes {
		nodeList = append(nodeList, *n)
	}
	slices.SortFunc(nodeList, func(a, b Node) int { return cmp.Compare(a.ArtifactID, b.ArtifactID) })

	cs := []Contradiction{}
	for _, o := range s.contradictions {
		id := ContradictionID(rootArt, o.o.LogicalPath, o.e.Integrity.Hash, o.dg.SHA256)
		cs = append(cs, Contradiction{
			ContradictionID: id, OccurrenceID: o.o.OccurrenceID, ParentArtifactID: artOf[o.cont],
			LogicalPath: o.o.LogicalPath, DeclaredSHA256: o.e.Integrity.Hash, ObservedSHA256: o.dg.SHA256,
			EntryKind: EntryFile, Unpacked: o.e.Unpacked, Trust: TrustObservedUntrusted,
			Provenance: ProvenanceIntegrity, MismatchedBlocks: append([]int{}, o.blocks...),
			Limitations: contradictionLimitations(o.blocks, o.nestedQ),
		})
	}
	slices.SortFunc(cs, func(a, b Contradiction) int { return cmp.Compare(a.LogicalPath, b.LogicalPath) })

	graph := graphDigest(nodeList, occs, edges, cs)
	mid, err := canon.Digest(map[string]any{"schema_version": 1, "root_artifact_id": rootArt, "graph_sha256": graph})
	if err != nil {
		return nil, err
	}
	notes := append([]string{}, s.notes...)
	if len(cs) > 0 {
		notes = append(notes, contradictionsNote(len(cs)))
	}
	return &Graph{
		Manifest: Manifest{
			SchemaVersion: 1, ManifestID: "agm_" + mid, RootArtifactID: rootArt, RootSHA256: root.SHA256,
			RootFormat: root.Format, GraphSHA256: graph,
			NodeCount: len(nodeList), OccurrenceCount: len(occs), EdgeCount: len(edges),
		},
		Nodes: nodeList, Occurrences: occs, Edges: edges, Limits: s.lim,
		Provenance: []any{}, Contradictions: cs, Limitations: notes,
	}, nil
}

const untrustedNote = "Observed-untrusted: these bytes contradict their container's integrity metadata."

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// directoryDigest computes the §10.2 directory digest from the walk's own
// hashes, so the tree is read once. When the walk could not hash every file
// (a limit, an unreadable file, a special file) it falls back to
// engine/target's digest, which reads everything.
func (s *inventory) directoryDigest(root Root) (string, error) {
	type child struct {
		Name   string  `json:"name"`
		Kind   string  `json:"kind"`
		SHA256 *string `json:"sha256"`
		Link   *string `json:"link"`
	}
	complete := !s.special
	kids := map[string][]*occ{}
	for _, o := range s.occs {
		if o.cont != s.root {
			continue
		}
		rel := o.e.Path
		kids[parentPath(rel)] = append(kids[parentPath(rel)], o)
		if o.o.EntryKind == EntryFile && (o.dg == nil || o.dg.OverLimit || o.dg.N < 0) {
			complete = false
		}
	}
	if !complete {
		d, err := target.HashDirectory(s.ctx, root.Path, nil) // the meter reports this inventory's hashing
		if err != nil {
			return "", typed(s.op, err)
		}
		return d, nil
	}
	var digest func(dir string) (string, error)
	digest = func(dir string) (string, error) {
		cs := kids[dir]
		slices.SortFunc(cs, func(a, b *occ) int { return cmp.Compare(path.Base(a.e.Path), path.Base(b.e.Path)) })
		out := make([]child, 0, len(cs))
		for _, o := range cs {
			c := child{Name: path.Base(o.e.Path), Kind: o.o.EntryKind}
			switch o.o.EntryKind {
			case EntryDirectory:
				d, err := digest(o.e.Path)
				if err != nil {
					return "", err
				}
				c.SHA256 = &d
			case EntrySymlink:
				l := o.e.Link
				c.Link = &l
			default:
				h := o.dg.SHA256
				c.SHA256 = &h
			}
			out = append(out, c)
		}
		return canon.Digest(out)
	}
	return digest("")
}

// meter reports inventory progress: "traverse" (entries listed) until the
// first byte is hashed, then "hash" (bytes hashed). Both totals are unknown
// (§6.2). Workers report concurrently; the mutex keeps values monotonic.
type meter struct {
	mu        sync.Mutex
	rep       progress.Reporter
	phase     string
	entries   int64
	bytes     int64
	lastBytes int64
}

func (m *meter) start() {
	m.rep.Report(progress.Update{Phase: "traverse", Completed: 0, Message: "listing entries"})
}

func (m *meter) entry() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries++
	if m.phase == "traverse" && m.entries%256 == 0 {
		m.rep.Report(progress.Update{Phase: "traverse", Completed: float64(m.entries), Message: "listing entries"})
	}
}

func (m *meter) hashed(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase == "traverse" {
		m.rep.Report(progress.Update{Phase: "traverse", Completed: float64(m.entries), Message: "listing entries"})
		m.phase = "hash"
		m.rep.Report(progress.Update{Phase: "hash", Completed: 0, Message: "hashing entries"})
	}
	m.bytes += n
	if m.bytes-m.lastBytes >= 1<<20 {
		m.lastBytes = m.bytes
		m.rep.Report(progress.Update{Phase: "hash", Completed: float64(m.bytes), Message: "hashing entries"})
	}
}

func (m *meter) fileDone() {}

// done reports the current phase's final count (entries and bytes are
// reported only every 256 entries or 1 MiB while they run), so that the
// request's terminal update counts the whole work (§6.1).
func (m *meter) done() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase == "traverse" {
		m.rep.Report(progress.Update{Phase: "traverse", Completed: float64(m.entries), Message: "listing entries"})
		return
	}
	m.rep.Report(progress.Update{Phase: "hash", Completed: float64(m.bytes), Message: "hashing entries"})
}
