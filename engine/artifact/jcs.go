package artifact

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/rea-re/rea/internal/jcs"
)

// graphDigest is sha256(JCS{nodes, occurrences, edges,
// integrity_contradictions}) written straight into the hash: the graph of a
// large tree is tens of megabytes of JSON, and encoding it generically then
// canonicalizing it cost more than hashing the tree's bytes. Members are
// written in JCS key order; TestGraphDigestMatchesJCS holds the result equal
// to engine/canon on real graphs.
func graphDigest(nodes []Node, occs []Occurrence, edges []Edge, cs []Contradiction) string {
	h := sha256.New()
	w := &jw{w: bufio.NewWriterSize(h, 64<<10)}
	w.raw(`{"edges":[`)
	for i := range edges {
		e := &edges[i]
		w.sep(i)
		w.raw(`{"child_artifact_id":`).str(e.ChildArtifactID)
		w.raw(`,"edge_id":`).str(e.EdgeID)
		w.raw(`,"logical_path":`).strp(e.LogicalPath)
		w.raw(`,"occurrence_id":`).str(e.OccurrenceID)
		w.raw(`,"ordinal":`).int(int64(e.Ordinal))
		w.raw(`,"parent_artifact_id":`).str(e.ParentArtifactID)
		w.raw(`,"producer":`).strp(e.Producer)
		w.raw(`,"relation":`).str(e.Relation).raw(`}`)
	}
	w.raw(`],"integrity_contradictions":[`)
	for i := range cs {
		c := &cs[i]
		w.sep(i)
		w.raw(`{"contradiction_id":`).str(c.ContradictionID)
		w.raw(`,"declared_sha256":`).str(c.DeclaredSHA256)
		w.raw(`,"entry_kind":`).str(c.EntryKind)
		w.raw(`,"limitations":`).strs(c.Limitations)
		w.raw(`,"logical_path":`).str(c.LogicalPath)
		w.raw(`,"mismatched_blocks":[`)
		for j, b := range c.MismatchedBlocks {
			w.sep(j)
			w.int(int64(b))
		}
		w.raw(`],"observed_sha256":`).str(c.ObservedSHA256)
		w.raw(`,"occurrence_id":`).str(c.OccurrenceID)
		w.raw(`,"parent_artifact_id":`).str(c.ParentArtifactID)
		w.raw(`,"provenance":`).str(c.Provenance)
		w.raw(`,"trust":`).str(c.Trust)
		w.raw(`,"unpacked":`).bool(c.Unpacked).raw(`}`)
	}
	w.raw(`],"nodes":[`)
	for i := range nodes {
		n := &nodes[i]
		w.sep(i)
		w.raw(`{"architecture":`).strp(n.Architecture)
		w.raw(`,"artifact_id":`).str(n.ArtifactID)
		w.raw(`,"content_state":`).str(n.ContentState)
		w.raw(`,"executable":`).bool(n.Executable)
		w.raw(`,"format":`).str(n.Format)
		w.raw(`,"kind":`).str(n.Kind)
		w.raw(`,"limitations":`).strs(n.Limitations)
		w.raw(`,"media_type":`).strp(n.MediaType)
		w.raw(`,"sha256":`).str(n.SHA256)
		w.raw(`,"size":`).int(n.Size).raw(`}`)
	}
	w.raw(`],"occurrences":[`)
	for i := range occs {
		o := &occs[i]
		w.sep(i)
		w.raw(`{"artifact_id":`).strp(o.ArtifactID)
		w.raw(`,"compressed_size":`).intp(o.CompressedSize)
		w.raw(`,"declared_sha256":`).strp(o.DeclaredSHA256)
		w.raw(`,"declared_size":`).intp(o.DeclaredSize)
		w.raw(`,"encrypted":`).bool(o.Encrypted)
		w.raw(`,"entry_kind":`).str(o.EntryKind)
		w.raw(`,"executable":`).bool(o.Executable)
		w.raw(`,"hash_status":`).str(o.HashStatus)
		w.raw(`,"limitations":`).strs(o.Limitations)
		w.raw(`,"logical_path":`).str(o.LogicalPath)
		w.raw(`,"occurrence_id":`).str(o.OccurrenceID)
		w.raw(`,"parent_occurrence_id":`).strp(o.ParentOccurrenceID)
		w.raw(`,"source_location":`)
		if o.SourceLocation == nil {
			w.raw(`null`)
		} else {
			w.raw(`{"length":`).int(o.SourceLocation.Length).raw(`,"offset":`).int(o.SourceLocation.Offset).raw(`}`)
		}
		w.raw(`}`)
	}
	w.raw(`]}`)
	w.w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

type jw struct {
	w   *bufio.Writer
	buf []byte
}

func (w *jw) raw(s string) *jw { w.w.WriteString(s); return w }

func (w *jw) sep(i int) {
	if i > 0 {
		w.w.WriteByte(',')
	}
}

func (w *jw) str(s string) *jw {
	w.buf = jcs.AppendText(w.buf[:0], s) // invalid bytes become U+FFFD, as encoding/json writes them
	w.w.Write(w.buf)
	return w
}

func (w *jw) strp(s *string) *jw {
	if s == nil {
		return w.raw("null")
	}
	return w.str(*s)
}

func (w *jw) strs(ss []string) *jw {
	w.w.WriteByte('[')
	for i, s := range ss {
		w.sep(i)
		w.str(s)
	}
	w.w.WriteByte(']')
	return w
}

func (w *jw) int(n int64) *jw {
	w.buf = strconv.AppendInt(w.buf[:0], n, 10)
	w.w.Write(w.buf)
	return w
}

func (w *jw) intp(n *int64) *jw {
	if n == nil {
		return w.raw("null")
	}
	return w.int(*n)
}

func (w *jw) bool(b bool) *jw {
	if b {
		return w.raw("true")
	}
	return w.raw("false")
}
