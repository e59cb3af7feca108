package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"
)

// VerifyReport is the outcome of Verify or VerifyExport, in the JSON shape of
// CONTRACTS.md §13.4. OK is true exactly when Problems is empty.
type VerifyReport struct {
	OK          bool          `json:"ok"`
	Checked     VerifyChecked `json:"checked"`
	Head        VerifyHead    `json:"head"`
	FirstBadSeq *int64        `json:"first_bad_seq"`
	Problems    []Problem     `json:"problems"`
}

// VerifyChecked counts what was examined.
type VerifyChecked struct {
	Events int64 `json:"events"`
	Blobs  int64 `json:"blobs"`
}

// VerifyHead is the last event seen, as stored.
type VerifyHead struct {
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

// VerifyError is returned by Import when the export does not verify.
type VerifyError struct{ Report VerifyReport }

func (e *VerifyError) Error() string {
	if e.Report.FirstBadSeq != nil {
		return fmt.Sprintf("%v: first bad seq %d", ErrVerifyFailed, *e.Report.FirstBadSeq)
	}
	if len(e.Report.Problems) > 0 {
		return fmt.Sprintf("%v: %s: %s", ErrVerifyFailed, e.Report.Problems[0].Check, e.Report.Problems[0].Detail)
	}
	return ErrVerifyFailed.Error()
}

func (e *VerifyError) Is(target error) bool { return target == ErrVerifyFailed }

// verifier runs checks (1)-(4) over a stream of events in seq order; the
// live ledger and an export feed it the same way.
type verifier struct {
	rep      VerifyReport
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

func newVerifier(firstSeq int64, prevHash string) *verifier {
	return &verifier{
		expect:   firstSeq,
		prev:     prevHash,
		ids:      make(map[ulid.ULID]int64),
		streams:  make(map[string]int64),
		refs:     make(map[string]int64),
		rep:      VerifyReport{Head: VerifyHead{Seq: firstSeq - 1, Hash: prevHash}},
		watchSeq: -1,
	}
}

func (v *verifier) bad(seq int64, check, format string, a ...any) {
	v.add(&seq, check, fmt.Sprintf(format, a...))
}

func (v *verifier) badNoSeq(check, format string, a ...any) {
	v.add(nil, check, fmt.Sprintf(format, a...))
}

func (v *verifier) add(seq *int64, check, detail string) {
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

// columns are the row fields of a live event, compared with the envelope.
type columns struct {
	eventID, stream, typ, recordedAt string
	streamVersion, schemaVersion     int64
	data                             []byte
}

// event checks one event. It returns the parsed envelope (nil when the
// stored bytes are not an envelope) and whether the event passed every check.
func (v *verifier) event(seq int64, hash, prevHash string, c []byte, cols *columns) (*envelope, bool) {
	before := len(v.rep.Problems) + v.dropped
	v.rep.Checked.Events++
	v.rep.Head = VerifyHead{Seq: seq, Hash: hash}
	if seq == v.watchSeq {
		v.watched = hash
	}

	// (3) seq contiguous.
	switch {
	case seq == v.expect:
		v.expect++
	case seq > v.expect:
		if seq == v.expect+1 {
			v.bad(v.expect, CheckSeq, "seq %d is missing (the next event is seq %d)", v.expect, seq)
		} else {
			v.bad(v.expect, CheckSeq, "seqs %d..%d are missing (the next event is seq %d)", v.expect, seq-1, seq)
		}
		v.expect = seq + 1
	default:
		v.bad(seq, CheckSeq, "seq %d repeated or out of order (expected %d)", seq, v.expect)
	}

	// (1) the stored hash covers prev_hash and the stored bytes, as stored.
	v.buf = append(append(v.buf[:0], prevHash...), c...)
	sum := sha256.Sum256(v.buf)
	hex.Encode(v.hexSum[:], sum[:])
	if string(v.hexSum[:]) != hash {
		v.bad(seq, CheckHash, "hash %s is not sha256(prev_hash || canonical) = %s", hash, v.hexSum[:])
	}

	// (2) chain link.
	if prevHash != v.prev {
		v.bad(seq, CheckPrevHash, "prev_hash %s is not the previous event's hash %s", prevHash, v.prev)
	}
	v.prev = hash

	// (4) canonical envelope, and agreement with the row or line.
	env, err := parseEnvelope(c)
	if err != nil {
		v.bad(seq, CheckCanonical, "%v", err)
		return nil, false
	}
	var differ []string
	if env.Seq != seq {
		differ = append(differ, fmt.Sprintf("seq %d", env.Seq))
	}
	if cols != nil {
		if env.EventID != cols.eventID {
			differ = append(differ, "event_id")
		}
		if env.Stream != cols.stream {
			differ = append(differ, "stream")
		}
		if env.StreamVersion != cols.streamVersion {
			differ = append(differ, "stream_version")
		}
		if env.Type != cols.typ {
			differ = append(differ, "type")
		}
		if env.SchemaVersion != cols.schemaVersion {
			differ = append(differ, "schema_version")
		}
		if env.RecordedAt != cols.recordedAt {
			differ = append(differ, "recorded_at")
		}
		if !bytes.Equal(env.Data, cols.data) {
			differ = append(differ, "data")
		}
	}
	if len(differ) > 0 {
		v.bad(seq, CheckEnvelope, "canonical bytes disagree with the stored fields: %s", strings.Join(differ, ", "))
	}
	if env.RecordedAt != v.lastTime { // one append shares one timestamp
		if _, err := ParseTime(env.RecordedAt); err != nil {
			v.bad(seq, CheckEnvelope, "recorded_at %q is not an RFC 3339 UTC millisecond timestamp", env.RecordedAt)
		} else {
			v.lastTime = env.RecordedAt
		}
	}
	if env.Stream == "" || env.Type == "" {
		v.bad(seq, CheckEnvelope, "empty stream or type")
	}

	// (3) event_id unique.
	if id, err := ulid.ParseStrict(env.EventID); err != nil {
		v.bad(seq, CheckEnvelope, "event_id %q is not a ULID", env.EventID)
	} else if other, dup := v.ids[id]; dup {
		v.bad(seq, CheckEventID, "event_id %s is also seq %d", env.EventID, other)
	} else {
		v.ids[id] = seq
	}

	// (3) per-stream versions contiguous.
	last, seen := v.streams[env.Stream]
	if (seen || !v.ranged) && env.StreamVersion != last+1 {
		v.bad(seq, CheckStreamVersion, "stream %q version %d follows version %d", env.Stream, env.StreamVersion, last)
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
func (v *verifier) blobSeq(digest string) *int64 {
	if s, ok := v.refs[digest]; ok {
		return &s
	}
	return nil
}

// finish checks that every referenced blob was seen and seals the report.
func (v *verifier) finish(present map[string]bool) VerifyReport {
	for _, d := range v.refOrder {
		if !present[d] {
			v.add(v.blobSeq(d), CheckBlob, fmt.Sprintf("record_digest %s has no blob", d))
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

// Verify checks the live ledger: (1)-(4) for every event in one read
// snapshot, and every blob against its digest. Integrity problems are in the
// report; the error is only for failing to read.
func (l *Ledger) Verify(ctx context.Context) (VerifyReport, error) {
	return l.VerifyAgainst(ctx, nil)
}

// VerifyAgainst is Verify plus check (6) against an earlier export (its
// manifest line is all that is read): same ledger_id, and the event at the
// earlier export's last_seq still has its head_hash, so a truncated tail or
// a rewritten history is found. previous may be nil.
func (l *Ledger) VerifyAgainst(ctx context.Context, previous io.Reader) (VerifyReport, error) {
	v := newVerifier(1, genesisHash)
	var prev *ExportManifest
	if previous != nil {
		var err error
		if prev, err = readManifestLine(previous); err != nil {
			v.badNoSeq(CheckPrevious, "previous export: %v", err)
		} else if prev.Count > 0 {
			v.watchSeq = prev.LastSeq
		}
	}

	tx, err := l.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return VerifyReport{}, fmt.Errorf("ledger: verify: %w", err)
	}
	defer tx.Rollback()

	rows, err := tx.QueryContext(ctx, `SELECT `+rowColumns+` FROM events ORDER BY seq`)
	if err != nil {
		return VerifyReport{}, fmt.Errorf("ledger: verify: %w", err)
	}
	var (
		seq              int64
		cols             columns
		c, data          sql.RawBytes
		prevHash, hashes string
	)
	for n := 0; rows.Next(); n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return VerifyReport{}, err
			}
		}
		if err := rows.Scan(&seq, &cols.eventID, &cols.stream, &cols.streamVersion, &cols.typ, &cols.schemaVersion,
			&cols.recordedAt, &data, &c, &prevHash, &hashes); err != nil {
			v.bad(v.expect, CheckLine, "row after seq %d cannot be read: %v", v.expect-1, err)
			break
		}
		cols.data = data
		v.event(seq, hashes, prevHash, c, &cols)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return VerifyReport{}, fmt.Errorf("ledger: verify: %w", err)
	}

	present, err := l.verifyBlobs(ctx, tx, v)
	if err != nil {
		return VerifyReport{}, err
	}
	if prev != nil {
		if prev.LedgerID != l.ID() {
			v.badNoSeq(CheckPrevious, "previous export is of ledger %s, this is %s", prev.LedgerID, l.ID())
		}
		v.checkPrevious(prev, 1, genesisHash)
	}
	return v.finish(present), nil
}

// checkPrevious is check (6): the event at prev.LastSeq must still carry
// prev.HeadHash. firstSeq/prevHash describe the range that was verified.
func (v *verifier) checkPrevious(prev *ExportManifest, firstSeq int64, prevHash string) {
	if prev.Count == 0 {
		return
	}
	L := prev.LastSeq
	switch {
	case L > v.rep.Head.Seq:
		v.bad(v.rep.Head.Seq+1, CheckPrevious,
			"history ends at seq %d, but the previous export attested events up to seq %d (truncated)", v.rep.Head.Seq, L)
	case L >= firstSeq:
		if v.watched != prev.HeadHash {
			v.bad(L, CheckPrevious, "seq %d has hash %s, the previous export attested %s", L, v.watched, prev.HeadHash)
		}
	case L == firstSeq-1:
		if prevHash != prev.HeadHash {
			v.bad(firstSeq, CheckPrevious, "prev_hash %s of seq %d is not the previous export's head_hash %s",
				prevHash, firstSeq, prev.HeadHash)
		}
	default:
		v.badNoSeq(CheckPrevious, "the previous export ends at seq %d, before this range starts at %d", L, firstSeq)
	}
}

func (l *Ledger) verifyBlobs(ctx context.Context, tx *sql.Tx, v *verifier) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT sha256, data FROM blobs ORDER BY sha256`)
	if err != nil {
		return nil, fmt.Errorf("ledger: verify blobs: %w", err)
	}
	defer rows.Close()
	present := make(map[string]bool)
	var key string
	var data sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&key, &data); err != nil {
			return nil, fmt.Errorf("ledger: verify blobs: %w", err)
		}
		v.rep.Checked.Blobs++
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != key {
			v.add(v.blobSeq(key), CheckBlob, fmt.Sprintf("blob %s: bytes do not match the digest", key))
		}
		present[key] = true // damaged is reported above, not also as missing
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: verify blobs: %w", err)
	}
	return present, nil
}
