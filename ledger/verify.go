package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"io"

	"github.com/rea-re/rea/ledger/internal/chain"
)

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

// Verify checks the live ledger: (1)-(4) for every event in one read
// snapshot, and every blob against its digest. Integrity problems are in the
// report; the error is only for failing to read.
func (l *Ledger) Verify(ctx context.Context) (_ VerifyReport, err error) {
	defer l.typeStorage(&err)
	return l.VerifyAgainst(ctx, nil)
}

// VerifyAgainst is Verify plus check (6) against an earlier export (its
// manifest line is all that is read): same ledger_id, and the event at the
// earlier export's last_seq still has its head_hash, so a truncated tail or
// a rewritten history is found. previous may be nil.
func (l *Ledger) VerifyAgainst(ctx context.Context, previous io.Reader) (_ VerifyReport, err error) {
	defer l.typeStorage(&err)
	if previous != nil {
		previous = callerReader{previous} // an I/O error reading it is not the ledger's
	}
	v := chain.NewVerifier(1, chain.GenesisHash)
	var prev *ExportManifest
	if previous != nil {
		var err error
		if prev, err = chain.ReadManifest(previous); err != nil {
			v.BadNoSeq(CheckPrevious, "previous export: %v", err)
		} else if prev.Count > 0 {
			v.Watch(prev.LastSeq)
		}
	}

	tx, err := l.r.BeginTx(ctx, l.d.readTx)
	if err != nil {
		return VerifyReport{}, fmt.Errorf("ledger: verify: %w", err)
	}
	defer tx.Rollback()

	// The data column is compared inside SQLite (see chain.Columns).
	rows, err := tx.QueryContext(ctx, `SELECT seq, event_id, stream, stream_version, type, schema_version, recorded_at,
		`+l.d.verifyDataLen+`,
		canonical, prev_hash, hash FROM events ORDER BY seq`)
	if err != nil {
		return VerifyReport{}, fmt.Errorf("ledger: verify: %w", err)
	}
	var (
		seq              int64
		cols             chain.Columns
		c                sql.RawBytes
		prevHash, hashes string
	)
	// Blobs are checked on another read connection, in parallel with the
	// events. Blobs are content-addressed and never deleted, so a snapshot
	// taken after this one's (it starts once the first event row is read) holds
	// every blob this snapshot's events reference.
	var blobs chan blobScan
	startBlobs := func() {
		blobs = make(chan blobScan, 1)
		go func() { blobs <- l.scanBlobs(ctx) }()
	}
	for n := 0; rows.Next(); n++ {
		if n == 0 {
			startBlobs()
		}
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return VerifyReport{}, err
			}
		}
		if err := rows.Scan(&seq, &cols.EventID, &cols.Stream, &cols.StreamVersion, &cols.Type, &cols.SchemaVersion,
			&cols.RecordedAt, &cols.DataLen, &c, &prevHash, &hashes); err != nil {
			v.Bad(v.NextSeq(), CheckLine, "row after seq %d cannot be read: %v", v.NextSeq()-1, err)
			break
		}
		v.Event(seq, hashes, prevHash, c, &cols)
	}
	rows.Close()
	if blobs == nil {
		startBlobs()
	}
	scanned := <-blobs
	if err := rows.Err(); err != nil {
		return VerifyReport{}, fmt.Errorf("ledger: verify: %w", err)
	}
	if scanned.err != nil {
		return VerifyReport{}, scanned.err
	}
	for range scanned.count {
		v.CountBlob()
	}
	for _, key := range scanned.damaged {
		v.Add(v.BlobSeq(key), CheckBlob, fmt.Sprintf("blob %s: bytes do not match the digest", key))
	}
	present := scanned.present
	if prev != nil {
		if prev.LedgerID != l.ID() {
			v.BadNoSeq(CheckPrevious, "previous export is of ledger %s, this is %s", prev.LedgerID, l.ID())
		}
		v.CheckPrevious(prev, 1, chain.GenesisHash)
	}
	return v.Finish(present), nil
}

// blobScan is what checking every blob against its digest found.
type blobScan struct {
	count   int64
	damaged []string        // digests whose bytes do not match, in order
	present map[string]bool // every stored digest (damaged ones included: reported once)
	err     error
}

func (l *Ledger) scanBlobs(ctx context.Context) blobScan {
	out := blobScan{present: make(map[string]bool)}
	tx, err := l.r.BeginTx(ctx, l.d.readTx)
	if err != nil {
		out.err = fmt.Errorf("ledger: verify blobs: %w", err)
		return out
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT sha256, data, encoding FROM blobs ORDER BY sha256`)
	if err != nil {
		out.err = fmt.Errorf("ledger: verify blobs: %w", err)
		return out
	}
	defer rows.Close()
	var key, encoding string
	var data sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&key, &data, &encoding); err != nil {
			out.err = fmt.Errorf("ledger: verify blobs: %w", err)
			return out
		}
		out.count++
		if !blobMatches(key, data, encoding) {
			out.damaged = append(out.damaged, key)
		}
		out.present[key] = true
	}
	if err := rows.Err(); err != nil {
		out.err = fmt.Errorf("ledger: verify blobs: %w", err)
	}
	return out
}
