package tools_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
)

// compare_binaries over MCP (issue 15, CONTRACTS.md §16), through a real
// `rea mcp` subprocess and the ledger it writes.

type cmpItem struct {
	Status string `json:"status"`
	Match  *string
	Left   *struct{ Address, Name string } `json:"left"`
	Right  *struct{ Address, Name string } `json:"right"`
}

type cmpAnswer struct {
	Left, Right struct {
		TargetID string `json:"target_id"`
		SHA256   string `json:"sha256"`
	}
	Summary struct {
		Unchanged, Changed, Added, Removed, Unknown int
	} `json:"summary"`
	Procedures struct {
		Items      []cmpItem `json:"items"`
		Total      *int      `json:"total"`
		NextOffset *int      `json:"next_offset"`
	} `json:"procedures"`
	ComparisonID string   `json:"comparison_id"`
	Limitations  []string `json:"limitations"`
}

func cmpResult(t *testing.T, r reply) cmpAnswer {
	t.Helper()
	var body struct {
		Result cmpAnswer `json:"result"`
	}
	if err := json.Unmarshal(r.Structured, &body); err != nil {
		t.Fatalf("compare_binaries answer %s: %v", r.Structured, err)
	}
	return body.Result
}

func namesOf(items []cmpItem) []string {
	var out []string
	for _, it := range items {
		if it.Right != nil {
			out = append(out, it.Right.Name)
		} else {
			out = append(out, it.Left.Name)
		}
	}
	slices.Sort(out)
	return out
}

// ledgerCounts counts events by type in the ledger file a subprocess writes.
func ledgerCounts(t *testing.T, db *sql.DB, types ...string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, typ := range types {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM events WHERE type = ?`, typ).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[typ] = n
	}
	return out
}

func readOnlyDB(t *testing.T, ledgerPath string) *sql.DB {
	t.Helper()
	led, err := ledger.OpenReadOnly(context.Background(), ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	return led.ReadDB()
}

func openTarget(t *testing.T, s *session, path string) string {
	t.Helper()
	return decode[struct {
		Result struct {
			TargetID string `json:"target_id"`
		} `json:"result"`
	}](t, s.ok("open_binary", map[string]any{"path": path}).Structured).Result.TargetID
}

const (
	evRecorded  = "evidence_recorded"
	cpEvent     = "comparison_checkpoint"
	doneEvent   = "comparison_completed"
	cmpToolName = "compare_binaries"
)

// TestCompareBinariesOverMCP: on the ground-truth fixture, the changed,
// added and removed procedures are exactly the edit list; status and
// name_pattern filter; a second page is served from the stored result (one
// comparison_completed, no new checkpoint, one Evidence per call); the
// Evidence is rea-compare's, derived, without a subject, with the §16.1
// parameters; an unknown handle is invalid_request at its pointer.
func TestCompareBinariesOverMCP(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O2", false)
	edits := testkit.CompareFixtureEdits(t)
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	s := startStdio(t, ledgerPath)
	left, right := openTarget(t, s, oldPath), openTarget(t, s, newPath)
	db := readOnlyDB(t, ledgerPath)

	first := s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": right})
	all := cmpResult(t, first)
	if all.Summary.Changed != len(edits.Changed) || all.Summary.Added != len(edits.Added) || all.Summary.Removed != len(edits.Removed) {
		t.Fatalf("summary %+v, want %d changed, %d added, %d removed", all.Summary, len(edits.Changed), len(edits.Added), len(edits.Removed))
	}
	if all.Left.TargetID != left || all.Right.TargetID != right || !strings.HasPrefix(all.ComparisonID, "cmp_") {
		t.Fatalf("answer frame: %+v", all)
	}
	rec := recordOf(t, s, first)
	if rec.Provider.ID != "rea-compare" || rec.Confidence != "derived" || rec.Subject != nil || rec.Operation != cmpToolName {
		t.Fatalf("Evidence: %+v", rec)
	}
	for _, k := range []string{"left_sha256", "left_analysis_profile_digest", "right_sha256", "right_analysis_profile_digest",
		"status", "name_pattern", "offset", "limit", "max_procedures"} {
		if _, ok := rec.Parameters[k]; !ok {
			t.Errorf("Evidence parameters lack %s: %v", k, rec.Parameters)
		}
	}
	if len(rec.Parameters) != 9 || rec.Parameters["left_sha256"] != all.Left.SHA256 {
		t.Errorf("Evidence parameters: %v", rec.Parameters)
	}
	before := ledgerCounts(t, db, evRecorded, cpEvent, doneEvent)
	if before[cpEvent] < 7 || before[doneEvent] != 1 {
		t.Fatalf("after the first call the ledger has %v; want a checkpoint per phase and one completion", before)
	}

	for status, want := range map[string][]string{"changed": edits.Changed, "added": edits.Added, "removed": edits.Removed} {
		got := cmpResult(t, s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": right, "status": []string{status}}))
		if names := namesOf(got.Procedures.Items); !slices.Equal(names, want) {
			t.Errorf("status %s: %v, want %v", status, names, want)
		}
	}
	// The renamed static function is paired and unchanged.
	for from, to := range edits.Renamed {
		got := cmpResult(t, s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": right,
			"name_pattern": "^(" + from + "|" + to + ")$"}))
		if len(got.Procedures.Items) != 1 || got.Procedures.Items[0].Status != "unchanged" {
			t.Errorf("renamed %s → %s: %+v", from, to, got.Procedures.Items)
		}
	}
	pattern := cmpResult(t, s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": right,
		"status": []string{"added"}, "name_pattern": "^(hash_mix|tail_extra|scale_value)$"}))
	if names := namesOf(pattern.Procedures.Items); !slices.Equal(names, []string{"hash_mix", "tail_extra"}) {
		t.Errorf("status added with name_pattern: %v", names)
	}

	// Pages of the stored result.
	p1 := cmpResult(t, s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": right, "status": []string{"changed"}, "limit": 4}))
	if len(p1.Procedures.Items) != 4 || p1.Procedures.NextOffset == nil || *p1.Procedures.NextOffset != 4 {
		t.Fatalf("first page: %+v", p1.Procedures)
	}
	mid := ledgerCounts(t, db, evRecorded, cpEvent, doneEvent)
	p2 := cmpResult(t, s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": right, "status": []string{"changed"},
		"limit": 4, "offset": 4}))
	if len(p2.Procedures.Items) != 2 || p2.Procedures.NextOffset != nil {
		t.Fatalf("second page: %+v", p2.Procedures)
	}
	if names := namesOf(append(p1.Procedures.Items, p2.Procedures.Items...)); !slices.Equal(names, edits.Changed) {
		t.Errorf("pages hold %v, want %v", names, edits.Changed)
	}
	after := ledgerCounts(t, db, evRecorded, cpEvent, doneEvent)
	if after[cpEvent] != before[cpEvent] || after[doneEvent] != 1 || after[evRecorded] != mid[evRecorded]+1 {
		t.Fatalf("ledger before the second page %v, after %v: want no new checkpoint, one completion, one more Evidence", mid, after)
	}

	e := s.errorOf(cmpToolName, map[string]any{"left_target": "tgt_01HZZZZZZZZZZZZZZZZZZZZZZZ", "right_target": right})
	if e["code"] != "invalid_request" || !strings.Contains(fmt.Sprint(e["details"]), "/left_target") {
		t.Errorf("unknown left_target: %v", e)
	}
	e = s.errorOf(cmpToolName, map[string]any{"left_target": left, "right_target": "tgt_01HZZZZZZZZZZZZZZZZZZZZZZZ"})
	if e["code"] != "invalid_request" || !strings.Contains(fmt.Sprint(e["details"]), "/right_target") {
		t.Errorf("unknown right_target: %v", e)
	}
	e = s.errorOf(cmpToolName, map[string]any{"left_target": left, "right_target": right, "name_pattern": "("})
	if e["code"] != "invalid_request" {
		t.Errorf("bad name_pattern: %v", e)
	}
	// A target compared with itself: every procedure unchanged.
	same := cmpResult(t, s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": left}))
	if same.Summary.Changed+same.Summary.Added+same.Summary.Removed+same.Summary.Unknown != 0 || same.Summary.Unchanged == 0 {
		t.Errorf("a target against itself: %+v", same.Summary)
	}
}

// callCancelled calls compare_binaries and cancels it after delay (or
// when cancelNow returns true for a progress notification, if it is not
// nil); it returns the server's own answer (the tap keeps the response
// the client dropped) and whether the client cancelled before it arrived.
func callCancelled(t *testing.T, s *session, responses <-chan tappedResponse, args map[string]any, delay time.Duration,
	cancelNow func(p map[string]any) bool) (answer []byte, cancelled bool) {
	t.Helper()
	drainProgress(s)
	drainTapped(responses)
	written := s.nextCallWritten()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	if cancelNow != nil {
		go func() {
			for {
				select {
				case <-stopWatch:
					return
				case p := <-s.progress:
					if cancelNow(p) {
						cancel()
						return
					}
				}
			}
		}()
	} else {
		go func() {
			select {
			case <-stopWatch:
			case <-written:
				timer := time.AfterFunc(delay, cancel)
				<-stopWatch
				timer.Stop()
			}
		}()
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = cmpToolName, args
	req.Params.Meta = &mcp.Meta{ProgressToken: fmt.Sprint("cmp-", time.Now().UnixNano())}
	res, err := s.c.CallTool(ctx, req)
	if err == nil {
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b, false
	}
	select {
	case r := <-responses:
		return r.raw, true
	case <-time.After(30 * time.Second):
		t.Fatal("no response from rea mcp within 30 s of notifications/cancelled")
	}
	return nil, true
}

// TestCompareBinariesCancellationRaces: 100 calls, each cancelled at a
// random moment of its run (each with its own max_procedures, so each is a
// comparison of its own and computes): each answers cancelled and appends
// no evidence_recorded, or succeeds and appends exactly one.
func TestCompareBinariesCancellationRaces(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O0", false)
	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	s, responses := startTappedStdio(t, ledgerPath)
	left, right := openTarget(t, s, oldPath), openTarget(t, s, newPath)
	db := readOnlyDB(t, ledgerPath)
	start := time.Now()
	s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": right})
	full := time.Since(start)
	rng := rand.New(rand.NewPCG(15, uint64(time.Now().UnixNano())))
	var cancelled, succeeded int
	for i := range 100 {
		delay := time.Duration(rng.Int64N(int64(full) + int64(time.Millisecond)))
		before := ledgerCounts(t, db, evRecorded)[evRecorded]
		answer, _ := callCancelled(t, s, responses, map[string]any{"left_target": left, "right_target": right,
			"max_procedures": 1000 + i}, delay, nil)
		code := errorCode(t, answer)
		time.Sleep(20 * time.Millisecond) // a late publication would show
		got := ledgerCounts(t, db, evRecorded)[evRecorded] - before
		switch code {
		case "cancelled":
			cancelled++
			if got != 0 {
				t.Fatalf("call %d (cancelled after %v): cancelled, but %d evidence_recorded appended", i, delay, got)
			}
		case "":
			succeeded++
			if got != 1 {
				t.Fatalf("call %d (cancelled after %v): succeeded with %d evidence_recorded appended, want 1", i, delay, got)
			}
		default:
			t.Fatalf("call %d: answered %q: %s", i, code, answer)
		}
	}
	t.Logf("uninterrupted call %v; of 100 cancelled calls %d answered cancelled, %d had completed", full, cancelled, succeeded)
	if cancelled == 0 {
		t.Fatal("no call was cancelled before it completed: nothing was tested")
	}
}

func resultDigest(t *testing.T, db *sql.DB, comparisonID string) string {
	t.Helper()
	var d sql.NullString
	err := db.QueryRow(`SELECT result_digest FROM proj_comparisons WHERE comparison_id = ?`, comparisonID).Scan(&d)
	if err != nil || !d.Valid {
		t.Fatalf("no stored result of %s: %v", comparisonID, err)
	}
	return d.String
}

// phaseOf is the phase a progress notification reports ("<phase>: …").
func phaseOf(p map[string]any) string {
	msg, _ := p["message"].(string)
	phase, _, _ := strings.Cut(msg, ":")
	return phase
}

// TestCompareBinariesResumeAcrossRestarts: a comparison of two large
// executables is cancelled in three different phases, rea mcp restarted
// between the calls; each cancelled call appends checkpoints and no
// Evidence, each restart resumes from the last checkpoint, and the final
// result is byte-identical to an uninterrupted run's (the same result
// blob digest).
func TestCompareBinariesResumeAcrossRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compares two large executables (libgs, or Go's vet and fix) five times across restarts; engine/compare's TestResumeEveryCheckpoint keeps resumption in the quick loop")
	}
	leftPath, rightPath := testkit.CompareLargePair(t)
	args := func(l, r string) map[string]any { return map[string]any{"left_target": l, "right_target": r} }

	refLedger := filepath.Join(t.TempDir(), "reference.db")
	ref, _, stopRef := startTappedStdioStop(t, refLedger)
	t.Cleanup(stopRef)
	start := time.Now()
	refAnswer := cmpResult(t, ref.ok(cmpToolName, args(openTarget(t, ref, leftPath), openTarget(t, ref, rightPath))))
	t.Logf("uninterrupted comparison: %v, %+v", time.Since(start), refAnswer.Summary)
	want := resultDigest(t, readOnlyDB(t, refLedger), refAnswer.ComparisonID)

	ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
	// Each trial cancels in a later phase than the one before: the first
	// within decode_left past its first within-phase checkpoint (5,000
	// procedures), each later one at the first update of a phase after the
	// previous trial's. (The right side is read while the left one is, so
	// decode_right may pass too fast for an update of its own.)
	phases := []string{"decode_left", "decode_right", "fingerprint", "match_name", "match_structure", "match_call_graph", "classify"}
	var phasesCancelled []string
	var lastCheckpoints int
	for trial := range 3 {
		s, responses, stop := startTappedStdioStop(t, ledgerPath)
		t.Cleanup(stop)
		l, r := openTarget(t, s, leftPath), openTarget(t, s, rightPath)
		var seen string
		var firstProgress *float64
		after := -1
		if trial > 0 {
			after = slices.Index(phases, phasesCancelled[trial-1])
		}
		cancelNow := func(p map[string]any) bool {
			phase := phaseOf(p)
			prog, _ := p["progress"].(float64)
			switch {
			case trial == 0 && phase == phases[0]:
				if firstProgress == nil {
					firstProgress = &prog
				}
				if prog-*firstProgress <= 5200 {
					return false
				}
			case trial == 0 || slices.Index(phases, phase) <= after:
				return false
			}
			seen = phase
			return true
		}
		answer, _ := callCancelled(t, s, responses, args(l, r), 0, cancelNow)
		stop()
		ldb := readOnlyDB(t, ledgerPath)
		counts := ledgerCounts(t, ldb, evRecorded, cpEvent, doneEvent)
		code := errorCode(t, answer)
		if code != "cancelled" {
			t.Fatalf("trial %d: answered %q (cancel seen in phase %q), want cancelled: %.300s", trial, code, seen, answer)
		}
		var cmpEvidence int
		if err := ldb.QueryRow(`SELECT count(*) FROM events WHERE type = 'evidence_recorded' AND data LIKE '%"operation":"compare_binaries"%'`).Scan(&cmpEvidence); err != nil {
			t.Fatal(err)
		}
		if cmpEvidence != 0 || counts[doneEvent] != 0 {
			t.Fatalf("trial %d: cancelled, but the ledger has %d compare_binaries Evidence, %d completions", trial, cmpEvidence, counts[doneEvent])
		}
		if counts[cpEvent] <= lastCheckpoints {
			t.Fatalf("trial %d: no new checkpoint (%d, before %d)", trial, counts[cpEvent], lastCheckpoints)
		}
		var phase string
		if err := ldb.QueryRow(`SELECT phase FROM proj_comparisons`).Scan(&phase); err != nil {
			t.Fatal(err)
		}
		t.Logf("trial %d: cancelled in phase %s; %d checkpoints, the last in phase %s", trial, seen, counts[cpEvent], phase)
		lastCheckpoints = counts[cpEvent]
		phasesCancelled = append(phasesCancelled, seen)
	}
	if distinct := slices.Compact(slices.Sorted(slices.Values(phasesCancelled))); len(distinct) != 3 {
		t.Fatalf("cancelled in phases %v, want three different ones", phasesCancelled)
	}

	s, _, stop := startTappedStdioStop(t, ledgerPath)
	t.Cleanup(stop)
	start = time.Now()
	final := s.ok(cmpToolName, args(openTarget(t, s, leftPath), openTarget(t, s, rightPath)))
	t.Logf("resumed comparison: %v", time.Since(start))
	got := cmpResult(t, final)
	ldb := readOnlyDB(t, ledgerPath)
	if d := resultDigest(t, ldb, got.ComparisonID); d != want || got.ComparisonID != refAnswer.ComparisonID {
		t.Fatalf("resumed result %s (%s), uninterrupted %s (%s)", d, got.ComparisonID, want, refAnswer.ComparisonID)
	}
	if counts := ledgerCounts(t, ldb, doneEvent); counts[doneEvent] != 1 {
		t.Fatalf("%d comparison_completed, want 1", counts[doneEvent])
	}
	var cmpEvidence int
	if err := ldb.QueryRow(`SELECT count(*) FROM events WHERE type = 'evidence_recorded' AND data LIKE '%"operation":"compare_binaries"%'`).Scan(&cmpEvidence); err != nil {
		t.Fatal(err)
	}
	if cmpEvidence != 1 {
		t.Fatalf("%d compare_binaries Evidence, want only the final call's", cmpEvidence)
	}
}

// TestCompareBinariesInProcess runs a comparison in this process (so that
// `go test -race` sees the two sides read concurrently through their
// targets' queues) and checks it matches the fixture's edit list.
func TestCompareBinariesInProcess(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O0", false)
	edits := testkit.CompareFixtureEdits(t)
	s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
	left, right := openTarget(t, s, oldPath), openTarget(t, s, newPath)
	got := cmpResult(t, s.ok(cmpToolName, map[string]any{"left_target": left, "right_target": right, "status": []string{"changed"}}))
	if names := namesOf(got.Procedures.Items); !slices.Equal(names, edits.Changed) {
		t.Fatalf("changed: %v, want %v", names, edits.Changed)
	}
}
