package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"github.com/rea-re/rea/ledger/internal/chain"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// Run for every pair of backends: an export from either imports into either
// with the same projection digest (CONTRACTS.md §17).
func TestExportImportReproducesProjectionDigest(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, into := range []backend{sqliteBackend, postgresBackend} {
			t.Run("into_"+into.name, func(t *testing.T) { exportImport(t, b, into) })
		}
	})
}

func exportImport(t *testing.T, b, into backend) {
	{
		ctx := context.Background()
		src, _ := b.tempLedger(t)
		fill(t, src, 50, 1)
		ps := []Projection{countsProjection{}}
		want, err := src.ProjectionDigest(ctx, ps)
		if err != nil {
			t.Fatal(err)
		}
		var export bytes.Buffer
		m, err := src.Export(ctx, &export, 0, 0, "v-test")
		if err != nil {
			t.Fatal(err)
		}
		if m.Count != 50 || m.FirstSeq != 1 || m.LastSeq != 50 || m.BlobCount != 50 || m.LedgerID != src.ID() ||
			m.ToolVersion != "v-test" || m.PrevHash != GenesisHash() {
			t.Fatalf("manifest %+v", m)
		}
		_, srcHead, _ := src.Head(ctx)
		if m.HeadHash != srcHead {
			t.Fatalf("head_hash %s, head %s", m.HeadHash, srcHead)
		}

		dstPath := into.fresh(t)
		dst := openTest(t, dstPath, Options{})
		createCountsTable(t, dstPath)
		originalID := dst.ID()
		im, err := dst.Import(ctx, bytes.NewReader(export.Bytes()), ps)
		if err != nil {
			t.Fatal(err)
		}
		if im != m {
			t.Fatalf("import manifest %+v != %+v", im, m)
		}
		if dst.ID() != src.ID() || dst.ID() == originalID {
			t.Fatalf("ledger_id not adopted: %s (source %s)", dst.ID(), src.ID())
		}
		got, err := dst.ProjectionDigest(ctx, ps)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("imported projection digest %s != %s", got, want)
		}
		// Verbatim: the events and blobs are byte-identical, and a re-export is
		// identical apart from exported_at.
		rep, err := dst.Verify(ctx)
		if err != nil || !rep.OK || rep.Head.Hash != srcHead {
			t.Fatalf("imported verify %+v %v", rep, err)
		}
		var again bytes.Buffer
		if _, err := dst.Export(ctx, &again, 0, 0, "v-test"); err != nil {
			t.Fatal(err)
		}
		stripFirst := func(b []byte) []byte { return b[bytes.IndexByte(b, '\n'):] }
		if !bytes.Equal(stripFirst(again.Bytes()), stripFirst(export.Bytes())) {
			t.Fatal("re-export of the imported ledger differs")
		}
		// The ledger continues after import.
		if _, err := dst.Append(ctx, "connection-0", -1, []NewEvent{{Type: "t", Data: map[string]int{}}}, nil); err != nil {
			t.Fatal(err)
		}
		if rep, _ := dst.Verify(ctx); !rep.OK {
			t.Fatalf("append after import: %+v", rep)
		}

		// Refusals: a non-empty ledger, a ranged export, a damaged export.
		if _, err := dst.Import(ctx, bytes.NewReader(export.Bytes()), ps); !errors.Is(err, ErrNotEmpty) {
			t.Fatalf("import into non-empty ledger: %v", err)
		}
		var ranged bytes.Buffer
		if _, err := src.Export(ctx, &ranged, 10, 20, "v"); err != nil {
			t.Fatal(err)
		}
		empty := openTest(t, into.fresh(t), Options{})
		if _, err := empty.Import(ctx, &ranged, nil); !errors.Is(err, ErrRangedImport) {
			t.Fatalf("ranged import: %v", err)
		}
		bad := bytes.Replace(export.Bytes(), []byte(`\"n\":7,`), []byte(`\"n\":8,`), 1)
		_, err = empty.Import(ctx, bytes.NewReader(bad), nil)
		var ve *VerifyError
		if !errors.As(err, &ve) || !errors.Is(err, ErrVerifyFailed) || ve.Report.FirstBadSeq == nil || *ve.Report.FirstBadSeq != 8 {
			t.Fatalf("damaged import: %v", err)
		}
		if seq, _, _ := empty.Head(ctx); seq != 0 {
			t.Fatalf("damaged import left %d events", seq)
		}
		if _, err := empty.Blob(ctx, chain.SHA256Hex([]byte("evidence body 0"))); !errors.Is(err, ErrNotFound) {
			t.Fatalf("damaged import left blobs: %v", err)
		}
	}
}

func TestExportLinesAndRanges(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		l, _ := b.tempLedger(t)
		fill(t, l, 12, 1)
		var buf bytes.Buffer
		m, err := l.Export(ctx, &buf, 4, 9, "x")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) != 1+6+6 || m.Count != 6 || m.FirstSeq != 4 || m.LastSeq != 9 || m.BlobCount != 6 {
			t.Fatalf("%d lines, manifest %+v", len(lines), m)
		}
		// Every line is a canonical JSON object, and the manifest has exactly
		// the §13.3 members.
		for i, line := range lines {
			c, err := jcs.Transform([]byte(line))
			if err != nil || string(c) != line {
				t.Fatalf("line %d is not canonical: %s", i+1, line)
			}
		}
		var man map[string]any
		json.Unmarshal([]byte(lines[0]), &man)
		if len(man) != 15 {
			t.Fatalf("manifest members %v", man)
		}
		var ev map[string]any
		json.Unmarshal([]byte(lines[1]), &ev)
		if ev["kind"] != "event" || ev["seq"].(float64) != 4 || len(ev) != 5 {
			t.Fatalf("event line %v", ev)
		}
		var stored Event
		l.Scan(ctx, 4, func(e Event) error { stored = e; return errStop })
		if ev["canonical"] != string(stored.Canonical) || ev["hash"] != stored.Hash || ev["prev_hash"] != stored.PrevHash ||
			m.PrevHash != stored.PrevHash {
			t.Fatalf("event line does not carry the stored bytes")
		}
		if rep, err := VerifyExport(ctx, bytes.NewReader(buf.Bytes()), nil); err != nil || !rep.OK || rep.Head.Seq != 9 {
			t.Fatalf("ranged export verify: %+v %v", rep, err)
		}
		// Ranged export against the previous full export of the same ledger.
		var full bytes.Buffer
		l.Export(ctx, &full, 0, 5, "x")
		if rep, _ := VerifyExport(ctx, bytes.NewReader(buf.Bytes()), bytes.NewReader(full.Bytes())); !rep.OK {
			t.Fatalf("ranged vs previous: %+v", rep)
		}
		// Bad ranges.
		if _, err := l.Export(ctx, &bytes.Buffer{}, 0, 13, "x"); err == nil {
			t.Fatal("--to beyond head accepted")
		}
		if _, err := l.Export(ctx, &bytes.Buffer{}, 9, 4, "x"); err == nil {
			t.Fatal("--from beyond --to accepted")
		}
		// An empty ledger exports and verifies.
		e, _ := b.tempLedger(t)
		var eb bytes.Buffer
		em, err := e.Export(ctx, &eb, 0, 0, "x")
		if err != nil || em.Count != 0 || em.HeadHash != GenesisHash() {
			t.Fatalf("empty export %+v %v", em, err)
		}
		if rep, _ := VerifyExport(ctx, &eb, nil); !rep.OK {
			t.Fatalf("empty export verify %+v", rep)
		}
	})
}

var errStop = errors.New("stop")

// The golden export pins the export format byte for byte: a deterministic
// ledger (fixed clock, fixed IDs) must export exactly testdata/golden.jsonl.
// Run with -update after an intended format change.
func TestGoldenExport(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		l := openTest(t, b.fresh(t), Options{Now: fixedClock()})
		fill(t, l, 4, 1)
		var buf bytes.Buffer
		if _, err := l.Export(context.Background(), &buf, 0, 0, "golden"); err != nil {
			t.Fatal(err)
		}
		// ledger_id is random per file, and schema_version grows with every
		// migration; pin both in the manifest line.
		got := bytes.Replace(buf.Bytes(), []byte(l.ID()), []byte("01JZ00000000000000000000AB"), 1)
		got = regexp.MustCompile(`"schema_version":\d+,"tool_version"`).ReplaceAll(got, []byte(`"schema_version":1,"tool_version"`))
		golden := filepath.Join("testdata", "golden.jsonl")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("export differs from %s:\n%s", golden, got)
		}
		if rep, _ := VerifyExport(context.Background(), bytes.NewReader(want), nil); !rep.OK {
			t.Fatalf("golden export does not verify: %+v", rep)
		}
	})
}
