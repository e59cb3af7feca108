package projections_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// TestComparisonProjection: the last checkpoint and the completion of a
// comparison are found by comparison_id, live and after a rebuild.
func TestComparisonProjection(t *testing.T) {
	ctx := context.Background()
	led, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	ps := projections.All()
	id := "cmp_" + strings.Repeat("1", 64)
	total := 80
	appendEv := func(typ string, data any) {
		t.Helper()
		_, err := led.Append(ctx, events.ComparisonStream(id), -1, []ledger.NewEvent{{ID: ulid.Make(), Type: typ, Data: data}},
			func(tx *sql.Tx, evs []ledger.Event) error { return ledger.Fold(ps...)(tx, evs) })
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := projections.ComparisonByID(ctx, led.ReadDB(), id); err != nil || ok {
		t.Fatalf("before any event: ok %v err %v", ok, err)
	}
	appendEv(events.ComparisonCheckpoint, events.ComparisonCheckpointData{ComparisonID: id, Phase: "decode_left",
		Completed: 80, Total: &total, StateDigest: strings.Repeat("a", 64)})
	appendEv(events.ComparisonCheckpoint, events.ComparisonCheckpointData{ComparisonID: id, Phase: "match_call_graph",
		Completed: 12, StateDigest: strings.Repeat("b", 64)})
	check := func(wantResult string) {
		t.Helper()
		c, ok, err := projections.ComparisonByID(ctx, led.ReadDB(), id)
		if err != nil || !ok {
			t.Fatalf("ok %v err %v", ok, err)
		}
		if c.Checkpoints != 2 || c.Phase != "match_call_graph" || c.Completed != 12 || c.Total != nil ||
			c.StateDigest != strings.Repeat("b", 64) || c.ResultDigest != wantResult {
			t.Fatalf("%+v", c)
		}
	}
	check("")
	appendEv(events.ComparisonCompleted, events.ComparisonCompletedData{ComparisonID: id, ResultDigest: strings.Repeat("c", 64)})
	check(strings.Repeat("c", 64))
	live, err := led.ProjectionDigest(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	if err := led.Rebuild(ctx, ps); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := led.ProjectionDigest(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	if live != rebuilt {
		t.Fatalf("rebuild digest %s, live %s", rebuilt, live)
	}
	check(strings.Repeat("c", 64))
}
