package chain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"
)

// Report is the outcome of Verify or VerifyExport, in the JSON shape of
// CONTRACTS.md §13.4. OK is true exactly when Problems is empty.
type Report struct {
	OK          bool      `json:"ok"`
	Checked     Checked   `json:"checked"`
	Head        Head      `json:"head"`
	FirstBadSeq *int64    `json:"first_bad_seq"`
	Problems    []Problem `json:"problems"`
}

// Checked counts what was examined.
type Checked struct {
	Events int64 `json:"events"`
	Blobs  int64 `json:"blobs"`
}

// Head is the last event seen, as stored.
type Head struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// Problem is one failed check. Seq is nil when no event position applies.
type Problem struct {
	Seq    *int64 `json:"seq"`
	Check  string `json:"check"`
	Detail string `json:"detail"`
}

// Check names used in Problem.Check; the number is the check of
// CONTRACTS.md §13.4.
const (
	CheckHash          = "hash"           // (1) hash != sha256hex(prev_hash || stored bytes)
	CheckPrevHash      = "prev_hash"      // (2) chain link broken
	CheckSeq           = "seq"            // (3) seq missing, repeated or out of order
	CheckEventID       = "event_id"       // (3) event_id used twice
	CheckStreamVersion = "stream_version" // (3) per-stream version not contiguous
	CheckCanonical     = "canonical"      // (4) stored bytes are not a canonical envelope
	CheckEnvelope      = "envelope"       // (4) envelope disagrees with the row or line
	CheckManifest      = "manifest"       // (5) manifest disagrees with the lines
	CheckBlob          = "blob"           // (5) blob damaged, missing or misplaced
	CheckLine          = "line"           // export line malformed or out of place
	CheckPrevious      = "previous"       // (6) not an append-only extension of the previous export
	CheckTruncated     = "problems_truncated"
)

// maxProblems bounds the report: a wholesale corruption should not produce a
// report as large as the ledger. The first bad seq is exact regardless.
const maxProblems = 100

// Verifier runs checks (1)-(4) over a stream of events in seq order; the
// live ledger and an export feed it the same way.
type Verifier struct {
	rep      Report
	dropped  int
	expect   int64  // next expected seq
	prev     string // hash the next event's prev_hash must equal
	ranged   bool   // export starting after seq 1: streams may start above version 1
	ids      map[ulid.ULID]int64
	streams  map[string]int64
	refs     map[string]int64 // blob digest -> first referencing seq
	refOrder []string
	watchSeq int64 // record the hash seen at this seq (previous export's last_seq)
	watched  string
	buf      []byte
	hexSum   [64]byte
	lastTime string // last recorded_at found valid
}

func NewVerifier(firstSeq int64, prevHash string) *Verifier {
	return &Verifier{
		expect:   firstSeq,
		prev:     prevHash,
		ids:      make(map[ulid.ULID]int64),
		streams:  make(map[string]int64),
		refs:     make(map[string]int64),
		rep:      Report{Head: Head{Seq: firstSeq - 1, Hash: prevHash}},
		watchSeq: -1,
	}
}

func (v *Verifier) Bad(seq int64, check, format string, a ...any) {
	v.Add(&seq, check, fmt.Sprintf(format, a...))
}

func (v *Verifier) BadNoSeq(check, format string, a ...any) {
	v.Add(nil, check, fmt.Sprintf(format, a...))
}

func (v *Verifier) Add(seq *int64, check, detail string) {
	if seq != nil && (v.rep.FirstBadSeq == nil || *seq < *v.rep.FirstBadSeq) {
		s := *seq
		v.rep.FirstBadSeq = &s
	}
	if len(v.rep.Problems) >= maxProblems {
		v.dropped++
		return
	}
	v.rep.Problems = append(v.rep.Problems, Problem{Seq: seq, Check: check, Detail: detail})
}

// Columns are the row fields of a live event, compared with the envelope.
// The data column is compared by the database, which is cheaper than
// copying it out: DataLen is its length when it equals the bytes that
// follow {"data": in the canonical envelope, and -1 otherwise.
type Columns struct {
	EventID, Stream, Type, RecordedAt string
	StreamVersion, SchemaVersion      int64
	DataLen                           int64
}

// Event checks one event. It returns the parsed envelope (nil when the
// stored bytes are not an envelope) and whether the event passed every check.
func (v *Verifier) Event(seq int64, hash, prevHash string, c []byte, cols *Columns) (*Envelope, bool) {
	before := len(v.rep.Problems) + v.dropped
	v.rep.Checked.Events++
	v.rep.Head = Head{Seq: seq, Hash: hash}
	if seq == v.watchSeq {
		v.watched = hash
	}

	// (3) seq contiguous.
	switch {
	case seq == v.expect:
		v.expect++
	case seq > v.expect:
		if seq == v.expect+1 {
			v.Bad(v.expect, CheckSeq, "seq %d is missing (the next event is seq %d)", v.expect, seq)
		} else {
			v.Bad(v.expect, CheckSeq, "seqs %d..%d are missing (the next event is seq %d)", v.expect, seq-1, seq)
		}
		v.expect = seq + 1
	default:
		v.Bad(seq, CheckSeq, "seq %d repeated or out of order (expected %d)", seq, v.expect)
	}

	// (1) the stored hash covers prev_hash and the stored bytes, as stored.
	v.buf = append(append(v.buf[:0], prevHash...), c...)
	sum := sha256.Sum256(v.buf)
	hex.Encode(v.hexSum[:], sum[:])
	if string(v.hexSum[:]) != hash {
		v.Bad(seq, CheckHash, "hash %s is not sha256(prev_hash || canonical) = %s", hash, v.hexSum[:])
	}

	// (2) chain link.
	if prevHash != v.prev {
		v.Bad(seq, CheckPrevHash, "prev_hash %s is not the previous event's hash %s", prevHash, v.prev)
	}
	v.prev = hash

	// (4) canonical envelope, and agreement with the row or line.
	env, err := ParseEnvelope(c)
	if err != nil {
		v.Bad(seq, CheckCanonical, "%v", err)
		return nil, false
	}
	var differ []string
	if env.Seq != seq {
		differ = append(differ, fmt.Sprintf("seq %d", env.Seq))
	}
	if cols != nil {
		if env.EventID != cols.EventID {
			differ = append(differ, "event_id")
		}
		if env.Stream != cols.Stream {
			differ = append(differ, "stream")
		}
		if env.StreamVersion != cols.StreamVersion {
			differ = append(differ, "stream_version")
		}
		if env.Type != cols.Type {
			differ = append(differ, "type")
		}
		if env.SchemaVersion != cols.SchemaVersion {
			differ = append(differ, "schema_version")
		}
		if env.RecordedAt != cols.RecordedAt {
			differ = append(differ, "recorded_at")
		}
		if cols.DataLen != int64(len(env.Data)) || env.DataOffset != DataStart {
			differ = append(differ, "data")
		}
	}
	if len(differ) > 0 {
		v.Bad(seq, CheckEnvelope, "canonical bytes disagree with the stored fields: %s", strings.Join(differ, ", "))
	}
	if env.RecordedAt != v.lastTime { // one append shares one timestamp
		if _, err := ParseTime(env.RecordedAt); err != nil {
			v.Bad(seq, CheckEnvelope, "recorded_at %q is not an RFC 3339 UTC millisecond timestamp", env.RecordedAt)
		} else {
			v.lastTime = env.RecordedAt
		}
	}
	if env.Stream == "" || env.Type == "" {
		v.Bad(seq, CheckEnvelope, "empty stream or type")
	}

	// (3) event_id unique.
	if id, err := ulid.ParseStrict(env.EventID); err != nil {
		v.Bad(seq, CheckEnvelope, "event_id %q is not a ULID", env.EventID)
	} else if other, dup := v.ids[id]; dup {
		v.Bad(seq, CheckEventID, "event_id %s is also seq %d", env.EventID, other)
	} else {
		v.ids[id] = seq
	}

	// (3) per-stream versions contiguous.
	last, seen := v.streams[env.Stream]
	if (seen || !v.ranged) && env.StreamVersion != last+1 {
		v.Bad(seq, CheckStreamVersion, "stream %q version %d follows version %d", env.Stream, env.StreamVersion, last)
	}
	v.streams[env.Stream] = env.StreamVersion

	if env.HasDigest {
		if _, ok := v.refs[env.RecordDigest]; !ok {
			v.refs[env.RecordDigest] = seq
			v.refOrder = append(v.refOrder, env.RecordDigest)
		}
	}
	return &env, len(v.rep.Problems)+v.dropped == before
}

// blobRef returns the first seq referencing digest, for problem positions.
func (v *Verifier) BlobSeq(digest string) *int64 {
	if s, ok := v.refs[digest]; ok {
		return &s
	}
	return nil
}

// finish checks that every referenced blob was seen and seals the report.
func (v *Verifier) Finish(present map[string]bool) Report {
	for _, d := range v.refOrder {
		if !present[d] {
			v.Add(v.BlobSeq(d), CheckBlob, fmt.Sprintf("record_digest %s has no blob", d))
		}
	}
	slices.SortStableFunc(v.rep.Problems, func(a, b Problem) int {
		switch {
		case a.Seq == nil && b.Seq == nil:
			return 0
		case a.Seq == nil:
			return 1
		case b.Seq == nil:
			return -1
		case *a.Seq < *b.Seq:
			return -1
		case *a.Seq > *b.Seq:
			return 1
		}
		return 0
	})
	if v.dropped > 0 {
		v.rep.Problems = append(v.rep.Problems, Problem{Check: CheckTruncated,
			Detail: fmt.Sprintf("%d more problems not listed", v.dropped)})
	}
	if v.rep.Problems == nil {
		v.rep.Problems = []Problem{}
	}
	v.rep.OK = len(v.rep.Problems) == 0
	return v.rep
}

// checkPrevious is check (6): the event at prev.LastSeq must still carry
// prev.HeadHash. firstSeq/prevHash describe the range that was verified.
func (v *Verifier) CheckPrevious(prev *Manifest, firstSeq int64, prevHash string) {
	if prev.Count == 0 {
		return
	}
	L := prev.LastSeq
	switch {
	case L > v.rep.Head.Seq:
		v.Bad(v.rep.Head.Seq+1, CheckPrevious,
			"history ends at seq %d, but the previous export attested events up to seq %d (truncated)", v.rep.Head.Seq, L)
	case L >= firstSeq:
		if v.watched != prev.HeadHash {
			v.Bad(L, CheckPrevious, "seq %d has hash %s, the previous export attested %s", L, v.watched, prev.HeadHash)
		}
	case L == firstSeq-1:
		if prevHash != prev.HeadHash {
			v.Bad(firstSeq, CheckPrevious, "prev_hash %s of seq %d is not the previous export's head_hash %s",
				prevHash, firstSeq, prev.HeadHash)
		}
	default:
		v.BadNoSeq(CheckPrevious, "the previous export ends at seq %d, before this range starts at %d", L, firstSeq)
	}
}

// CountBlob counts one blob as checked.
func (v *Verifier) CountBlob() { v.rep.Checked.Blobs++ }

// NextSeq is the seq the next event must have.
func (v *Verifier) NextSeq() int64 { return v.expect }

// Watch records the hash seen at seq, for CheckPrevious.
func (v *Verifier) Watch(seq int64) { v.watchSeq = seq }
