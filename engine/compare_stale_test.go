package engine_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/compare"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// TestCompareBinariesRecomputesStaleResult: a result an earlier version of
// the comparison stored under the same comparison_id (no delta, version 1)
// is not served; the comparison is computed again, its result stored, and
// the next call served from that.
func TestCompareBinariesRecomputesStaleResult(t *testing.T) {
	ctx := context.Background()
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O0", false)
	led, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"})
	conn, err := eng.OpenConnection(ctx, session.Info{Transport: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx, "test") })
	var ids []string
	for _, p := range []string{oldPath, newPath} {
		o, err := conn.OpenBinary(ctx, p, provider.Auto, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.TargetID)
	}
	call := func() (compare.Answer, engine.ComparisonStart) {
		t.Helper()
		var start engine.ComparisonStart
		pub, err := conn.CompareBinaries(ctx, provider.Params{"left_target": ids[0], "right_target": ids[1],
			"status": []any{"changed"}, "limit": int64(compare.MaxLimit)}, nil, func(s engine.ComparisonStart) { start = s })
		if err != nil {
			t.Fatal(err)
		}
		var a compare.Answer
		if err := json.Unmarshal(pub.Result, &a); err != nil {
			t.Fatal(err)
		}
		return a, start
	}
	first, _ := call()
	if len(first.Procedures.Items) == 0 {
		t.Fatal("the fixture has no changed procedure")
	}

	// The stored result as an earlier version wrote it.
	id := first.ComparisonID
	known, _, err := projections.ComparisonByID(ctx, led.ReadDB(), id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := led.Blob(ctx, known.ResultDigest)
	if err != nil {
		t.Fatal(err)
	}
	var stale map[string]any
	if err := json.Unmarshal(b, &stale); err != nil {
		t.Fatal(err)
	}
	delete(stale, "version")
	for _, it := range stale["items"].([]any) {
		delete(it.(map[string]any), "delta")
	}
	old, err := canon.Marshal(stale)
	if err != nil {
		t.Fatal(err)
	}
	_, err = led.Append(ctx, events.ComparisonStream(id), -1, []ledger.NewEvent{{ID: eng.NewULID(), Type: events.ComparisonCompleted,
		Data: events.ComparisonCompletedData{ComparisonID: id, ResultDigest: canon.SHA256Hex(old)}}},
		func(tx *sql.Tx, stored []ledger.Event) error {
			if _, err := led.PutBlob(tx, old); err != nil {
				return err
			}
			return projections.Apply(tx, projections.All(), stored)
		})
	if err != nil {
		t.Fatal(err)
	}

	second, start := call()
	if start.Stored {
		t.Fatal("the earlier version's result was served")
	}
	for _, it := range second.Procedures.Items {
		if it.Delta == nil {
			t.Errorf("changed %+v has no delta", it.Left)
		}
	}
	if a, b := mustJSON(t, first.Procedures), mustJSON(t, second.Procedures); a != b {
		t.Errorf("recomputed page differs:\n%s\n%s", a, b)
	}
	if _, start := call(); !start.Stored {
		t.Errorf("third call: %+v, want served from the stored result", start)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
