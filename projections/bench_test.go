package projections_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/internal/testkit"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// seedLedger appends n events in the mix a real investigation produces: per
// run, a run allocation, target open and binding, then mostly Evidence
// publications, a cursor move and an annotation, then a close.
func seedLedger(tb testing.TB, n int) *ledger.Ledger {
	tb.Helper()
	return seedLedgerAt(tb, filepath.Join(tb.TempDir(), "ledger.db"), n)
}

// seedLedgerAt is seedLedger at a given location (a file or a PostgreSQL URL).
func seedLedgerAt(tb testing.TB, loc string, n int) *ledger.Ledger {
	tb.Helper()
	ctx := context.Background()
	led, err := ledger.Open(ctx, loc, ledger.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { led.Close() })
	conn := "01JZ0000000000000000000001"
	stream := events.ConnectionStream(conn)
	sha := strings.Repeat("a", 64)
	v := "1"
	id := provider.Identity{ID: "builtin", Name: "REA built-in analyzer", Version: &v}
	prof, _ := provider.NewProfile(id, 1, map[string]any{"loader": "go-debug"})
	ev := func(typ string, data any) ledger.NewEvent {
		return ledger.NewEvent{ID: ulid.Make(), Type: typ, Data: data}
	}
	batch := []ledger.NewEvent{ev(events.ConnectionOpened, events.ConnectionOpenedData{ConnectionID: conn, Transport: "stdio"})}
	fold := ledger.Fold(projections.All()...)
	var bodies [][]byte // Evidence record bodies referenced by this batch
	flush := func() {
		if _, err := led.Append(ctx, stream, -1, batch, func(tx *sql.Tx, evs []ledger.Event) error {
			for _, b := range bodies {
				if _, err := led.PutBlob(tx, b); err != nil {
					return err
				}
			}
			return fold(tx, evs)
		}); err != nil {
			tb.Fatal(err)
		}
		batch, bodies = batch[:0], bodies[:0]
	}
	for run := 0; len(batch) < n; run++ {
		runID := fmt.Sprintf("00000000-0000-4000-8000-%012d", run)
		batch = append(batch,
			ev(events.AnalysisRunAllocated, events.AnalysisRunAllocatedData{ConnectionID: conn, RunID: runID, TargetSHA256: sha, Cause: "open"}),
			ev(events.TargetOpened, events.TargetOpenedData{ConnectionID: conn, RunID: runID, Target: events.Target{Path: "/bin/x", SHA256: sha, Format: "elf", Kind: "executable"}}),
			ev(events.ProviderBound, events.ProviderBoundData{ConnectionID: conn, RunID: runID, Provider: id, SelectionSource: "auto-single-candidate", AnalysisProfile: prof}))
		for i := 0; i < 94; i++ {
			body := fmt.Appendf(nil, `{"record":%d}`, run*100+i)
			bodies = append(bodies, body)
			batch = append(batch, ev(events.EvidenceRecorded, events.EvidenceRecordedData{ConnectionID: conn, RunID: &runID,
				EvidenceID: fmt.Sprintf("ev_%064d", run*100+i), Operation: "list_procedures", PredicateType: "rea.analysis/v2",
				RecordDigest: canon.SHA256Hex(body), New: true, Origin: "tool"}))
		}
		batch = append(batch,
			ev(events.CursorMoved, events.CursorMovedData{ConnectionID: conn, RunID: runID, Document: "x", Address: "0x401000"}),
			ev(events.AnnotationSet, events.AnnotationSetData{TargetSHA256: sha, Kind: "comment", Address: fmt.Sprintf("0x%x", run), Value: "note", ConnectionID: conn, RunID: runID}),
			ev(events.TargetClosed, events.TargetClosedData{ConnectionID: conn, RunID: runID, Reason: "close_binary", Cleanup: "complete", Resources: []string{}}))
		if len(batch) >= 1000 {
			flush()
			n -= 1000
		}
	}
	if len(batch) > 0 {
		flush()
	}
	return led
}

// BenchmarkRebuild measures replay into REA's real projections: decode every
// event and fold it, with the collector setting `rea ledger rebuild` and
// `rea ledger import` run with (GOGC=400, cmd/rea/ledger.go), and at the
// default GOGC beside it.
func BenchmarkRebuild(b *testing.B) {
	benchmarkLedgerPass(b, func(ctx context.Context, led *ledger.Ledger) error {
		return led.Rebuild(ctx, projections.All())
	})
}

// BenchmarkVerify verifies the same ledger under the same collector settings,
// so that the figures compare like for like (verify must stay ≤ 1.15× replay).
func BenchmarkVerify(b *testing.B) {
	benchmarkLedgerPass(b, func(ctx context.Context, led *ledger.Ledger) error {
		rep, err := led.Verify(ctx)
		if err == nil && !rep.OK {
			err = fmt.Errorf("verify: %+v", rep)
		}
		return err
	})
}

// benchmarkLedgerPass times pass over a seeded 50,001-event ledger at
// GOGC=100 and GOGC=400, reporting events/s.
func benchmarkLedgerPass(b *testing.B, pass func(context.Context, *ledger.Ledger) error) {
	for _, gcPercent := range []int{100, 400} {
		b.Run(fmt.Sprintf("gogc=%d", gcPercent), func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
			led := seedLedger(b, 50000)
			ctx := context.Background()
			seq, _, _ := led.Head(ctx)
			for b.Loop() {
				if err := pass(ctx, led); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(seq)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
	// The same pass on PostgreSQL (CONTRACTS.md §17), at the CLI's GOGC.
	b.Run("postgres/gogc=400", func(b *testing.B) {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		led := seedLedgerAt(b, testkit.PostgresURL(b), 50000)
		ctx := context.Background()
		seq, _, _ := led.Head(ctx)
		for b.Loop() {
			if err := pass(ctx, led); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(seq)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

// On both backends, and across them: the real projections rebuilt from the
// events give the live digest, and a PostgreSQL ledger's digest equals the
// SQLite one's for the same events.
func TestRebuildReproducesDigest(t *testing.T) {
	rebuildDigest(t, seedLedger(t, 3000))
	t.Run("postgres", func(t *testing.T) {
		led := seedLedgerAt(t, testkit.PostgresURL(t), 3000)
		pg := rebuildDigest(t, led)
		// The seeded ledgers differ in their ULIDs; an export of the
		// PostgreSQL one imported into SQLite must give its digest.
		var export bytes.Buffer
		if _, err := led.Export(context.Background(), &export, 0, 0, "test"); err != nil {
			t.Fatal(err)
		}
		dst, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "copy.db"), ledger.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		if _, err := dst.Import(context.Background(), &export, projections.All()); err != nil {
			t.Fatal(err)
		}
		if got, _ := dst.ProjectionDigest(context.Background(), projections.All()); got != pg {
			t.Fatalf("SQLite copy of the PostgreSQL ledger: digest %s, PostgreSQL %s", got, pg)
		}
	})
}

func rebuildDigest(t *testing.T, led *ledger.Ledger) string {
	t.Helper()
	ctx := context.Background()
	before, err := led.ProjectionDigest(ctx, projections.All())
	if err != nil {
		t.Fatal(err)
	}
	if err := led.Rebuild(ctx, projections.All()); err != nil {
		t.Fatal(err)
	}
	after, _ := led.ProjectionDigest(ctx, projections.All())
	if before != after {
		t.Fatalf("digest %s → %s", before, after)
	}
	return after
}
