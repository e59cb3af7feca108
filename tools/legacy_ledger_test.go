package tools_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/rea-re/rea/internal/jcs"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// Issue 14, "Replay": a ledger written by the build before several targets
// per connection (testdata/legacy-ledger-v1, made by TestMakeLegacyLedger;
// its README says how) must still verify, rebuild with rebuild = live, and
// give the answers recorded beside it: get_evidence_bundle bytes and
// `rea policy explain --decision` outputs (CONTRACTS.md §15.3).

const (
	legacyFixtureDir = "legacy-ledger-v1"
	legacyLedgerFile = "ledger.db"
	legacyAnswers    = "answers.json"
	legacyBundleFile = "bundle-ledger.json" // the whole-ledger bundle, exact bytes
)

// legacyIDs are the things of the fixture the answers are asked about.
type legacyIDs struct {
	EvidenceIDs []string `json:"evidence_ids"`
	RunIDs      []string `json:"run_ids"`
	DecisionIDs []string `json:"decision_ids"`
}

// legacyBundle is one get_evidence_bundle answer, by its request.
type legacyBundle struct {
	Request      map[string]any `json:"request"`
	Scope        string         `json:"scope"`
	BundleDigest string         `json:"bundle_digest"`
	Bytes        int            `json:"bytes"`
	RecordCount  int            `json:"record_count"`
}

// legacyAnswersDoc is answers.json.
type legacyAnswersDoc struct {
	legacyIDs
	// Verify is `rea ledger verify --ledger <fixture>` (JSON), untouched file.
	Verify json.RawMessage `json:"verify"`
	// ProjectionDigest is the digest `rea ledger rebuild` printed (before =
	// after); ProjectionSchema is what that digest's definition covers
	// besides the rows: projection names, tables and columns in order.
	ProjectionDigest string         `json:"projection_digest"`
	ProjectionSchema []string       `json:"projection_schema"`
	Bundles          []legacyBundle `json:"bundles"`
}

// legacyExplain is one decision's `rea policy explain --decision` stdout.
type legacyExplain struct {
	JSON, Text string
}

type legacyObservation struct {
	Answers  legacyAnswersDoc
	Bundle   []byte                   // the whole-ledger bundle
	Explains map[string]legacyExplain // by decision id
}

// TestLegacyLedgerReplays checks the first-edition fixture against the
// running build. It copies the fixture (the build may migrate it) and
// observes it exactly as the generator did; every recorded answer must come
// back byte for byte.
func TestLegacyLedgerReplays(t *testing.T) {
	dir := filepath.Join("testdata", legacyFixtureDir)
	want := readLegacy(t, dir)
	got := observeLegacy(t, filepath.Join(dir, legacyLedgerFile), want.Answers.legacyIDs)

	if !jsonEqual(string(got.Answers.Verify), string(want.Answers.Verify)) {
		t.Errorf("rea ledger verify of the untouched fixture:\n got %s\nwant %s", got.Answers.Verify, want.Answers.Verify)
	}
	// The digest is a function of the projection tables' columns as well as
	// their rows: a build that adds a column (target_id, §15.3) changes it
	// for the same history. So the recorded digest binds only a build with
	// the recorded projection schema; every build must have rebuild = live
	// (observeLegacy checks that, and import = live).
	if slices.Equal(got.Answers.ProjectionSchema, want.Answers.ProjectionSchema) {
		if got.Answers.ProjectionDigest != want.Answers.ProjectionDigest {
			t.Errorf("projection digest %s, recorded %s (same projection schema)", got.Answers.ProjectionDigest, want.Answers.ProjectionDigest)
		}
	} else {
		t.Logf("projection schema changed since the fixture was made; the recorded digest %s is not comparable (now %s)",
			want.Answers.ProjectionDigest, got.Answers.ProjectionDigest)
	}
	if !bytes.Equal(got.Bundle, want.Bundle) {
		t.Errorf("whole-ledger bundle: %d bytes (sha256 %s), recorded %d bytes (sha256 %s)",
			len(got.Bundle), sha256Hex(got.Bundle), len(want.Bundle), sha256Hex(want.Bundle))
	}
	if len(got.Answers.Bundles) != len(want.Answers.Bundles) {
		t.Fatalf("%d bundle answers, recorded %d", len(got.Answers.Bundles), len(want.Answers.Bundles))
	}
	for i, w := range want.Answers.Bundles {
		if g := got.Answers.Bundles[i]; !jsonEqual(mustJSON(t, g), mustJSON(t, w)) {
			t.Errorf("get_evidence_bundle %s:\n got %s\nwant %s", mustJSON(t, w.Request), mustJSON(t, g), mustJSON(t, w))
		}
	}
	for _, id := range want.Answers.DecisionIDs {
		g, w := got.Explains[id], want.Explains[id]
		if g.JSON != w.JSON {
			t.Errorf("rea policy explain --decision %s --json:\n got %s\nwant %s", id, g.JSON, w.JSON)
		}
		if g.Text != w.Text {
			t.Errorf("rea policy explain --decision %s:\n got %s\nwant %s", id, g.Text, w.Text)
		}
	}
}

// observeLegacy asks a copy of the ledger at path everything the fixture
// records, with the running build, and checks on the way what holds for any
// build: the chain verifies, rebuild = live, export + import = live, and the
// same bundles are given before and after the rebuild, each by a new
// process.
func observeLegacy(t *testing.T, path string, ids legacyIDs) legacyObservation {
	t.Helper()
	var obs legacyObservation
	obs.Answers.legacyIDs = ids

	// Copy A: verify untouched, then the answers from the live projections
	// (as this build's migrations left them).
	a := filepath.Join(t.TempDir(), legacyLedgerFile)
	copyFile(t, path, a)
	obs.Answers.Verify = json.RawMessage(legacyRea(t, "--ledger", a, "ledger", "verify"))
	live := legacyBundles(t, a, ids)
	obs.Explains = legacyExplains(t, a, ids.DecisionIDs)

	// Copy B: rebuild first (its "before" is the live digest), then the same
	// answers from the rebuilt projections.
	b := filepath.Join(t.TempDir(), legacyLedgerFile)
	copyFile(t, path, b)
	var rb struct {
		Before, After string
		Matches       bool
	}
	out, _, stderr := legacyReaExit(t, "--ledger", b, "ledger", "rebuild")
	if err := json.Unmarshal(out, &rb); err != nil {
		t.Fatalf("rea ledger rebuild: %v\n%s%s", err, out, stderr)
	}
	// A failed check here does not stop the observation: the answers
	// compared later say more about what a build folds differently.
	if !rb.Matches || rb.Before != rb.After || rb.Before == "" {
		t.Errorf("rea ledger rebuild: live digest %s, rebuilt %s", rb.Before, rb.After)
	}
	obs.Answers.ProjectionDigest = rb.After
	obs.Answers.ProjectionSchema = projectionSchema(t, b)
	rebuilt := legacyBundles(t, b, ids)
	if !bytes.Equal(rebuilt.whole, live.whole) {
		t.Errorf("whole-ledger bundle: %d bytes live, %d after rebuild", len(live.whole), len(rebuilt.whole))
	}
	for i, l := range live.answers {
		if r := rebuilt.answers[i]; !jsonEqual(mustJSON(t, r), mustJSON(t, l)) {
			t.Errorf("get_evidence_bundle after rebuild:\n got %s\nlive %s", mustJSON(t, r), mustJSON(t, l))
		}
	}
	for id, e := range legacyExplains(t, b, ids.DecisionIDs) {
		if e != obs.Explains[id] {
			t.Errorf("explain --decision %s differs after rebuild:\n%s\n%s", id, e.JSON, obs.Explains[id].JSON)
		}
	}

	// Export + import into an empty ledger reproduces the digest.
	c := filepath.Join(t.TempDir(), legacyLedgerFile)
	copyFile(t, path, c)
	export := filepath.Join(t.TempDir(), "export.jsonl")
	legacyRea(t, "--ledger", c, "ledger", "export", "-o", export)
	legacyRea(t, "ledger", "verify", export)
	var im struct {
		Digest string `json:"projection_digest"`
	}
	imported := filepath.Join(t.TempDir(), legacyLedgerFile)
	if err := json.Unmarshal(legacyRea(t, "--ledger", imported, "ledger", "import", export), &im); err != nil {
		t.Fatal(err)
	}
	if im.Digest != rb.Before {
		t.Errorf("export + import gives digest %s, the fixture's live digest is %s", im.Digest, rb.Before)
	}

	obs.Answers.Bundles, obs.Bundle = live.answers, live.whole
	return obs
}

type bundleAnswers struct {
	answers []legacyBundle
	whole   []byte
}

// legacyBundles starts a new `rea mcp` on the ledger and asks
// get_evidence_bundle (scope ledger: the records of past connections) for
// each evidence id, each run, and the whole ledger.
func legacyBundles(t *testing.T, path string, ids legacyIDs) bundleAnswers {
	t.Helper()
	c, err := client.NewStdioMCPClient(testkit.Rea(t), legacyEnv(), "--ledger", path, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := initialize(t, c)
	defer c.Close()
	var out bundleAnswers
	ask := func(req map[string]any) []byte {
		r := s.ok("get_evidence_bundle", req)
		var env struct {
			Result struct {
				Scope        string          `json:"scope"`
				BundleDigest string          `json:"bundle_digest"`
				Bytes        int             `json:"bytes"`
				RecordCount  int             `json:"record_count"`
				Bundle       json.RawMessage `json:"bundle"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.Text), &env); err != nil {
			t.Fatalf("get_evidence_bundle %v: %v", req, err)
		}
		res := env.Result
		// The answer's JSON escapes <, > and & as Go does; the bundle's bytes
		// (what bundle_digest and bytes describe) are its JCS.
		bundle, err := jcs.Transform(res.Bundle)
		if err != nil {
			t.Fatalf("get_evidence_bundle %v: %v", req, err)
		}
		if sha256Hex(bundle) != res.BundleDigest || len(bundle) != res.Bytes {
			t.Fatalf("get_evidence_bundle %v: bundle of %d bytes, sha256 %s; the answer says %d bytes, %s",
				req, len(bundle), sha256Hex(bundle), res.Bytes, res.BundleDigest)
		}
		out.answers = append(out.answers, legacyBundle{Request: req, Scope: res.Scope, BundleDigest: res.BundleDigest,
			Bytes: res.Bytes, RecordCount: res.RecordCount})
		return bundle
	}
	out.whole = ask(map[string]any{"scope": "ledger"})
	for _, id := range ids.EvidenceIDs {
		ask(map[string]any{"scope": "ledger", "evidence_ids": []any{id}})
	}
	for _, id := range ids.RunIDs {
		ask(map[string]any{"scope": "ledger", "run_id": id})
	}
	return out
}

// legacyExplains is `rea policy explain --decision ID` with and without
// --json for each decision.
func legacyExplains(t *testing.T, path string, ids []string) map[string]legacyExplain {
	t.Helper()
	out := map[string]legacyExplain{}
	for _, id := range ids {
		out[id] = legacyExplain{
			JSON: string(legacyRea(t, "--ledger", path, "policy", "explain", "--decision", id, "--json")),
			Text: string(legacyRea(t, "--ledger", path, "policy", "explain", "--decision", id)),
		}
	}
	return out
}

// projectionSchema is what the projection digest covers besides rows:
// "projection/table: column,column,..." in digest order.
func projectionSchema(t *testing.T, path string) []string {
	t.Helper()
	led, err := ledger.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	ps := projections.All()
	slices.SortStableFunc(ps, func(a, b ledger.Projection) int { return strings.Compare(a.Name(), b.Name()) })
	var out []string
	for _, p := range ps {
		for _, tbl := range p.Tables() {
			rows, err := led.ReadDB().Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, tbl)
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for rows.Next() {
				var c string
				if err := rows.Scan(&c); err != nil {
					t.Fatal(err)
				}
				cols = append(cols, c)
			}
			rows.Close()
			out = append(out, p.Name()+"/"+tbl+": "+strings.Join(cols, ","))
		}
	}
	return out
}

// legacyInventory lists, from the fixture's events, what the answers are
// asked about: every evidence id and run id, and every decision, each in
// ledger order.
func legacyInventory(t *testing.T, path string) legacyIDs {
	t.Helper()
	led, err := ledger.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	list := func(typ, field string) []string {
		rows, err := led.ReadDB().Query(`SELECT json_extract(data, '$.'||?) FROM events WHERE type = ? ORDER BY seq`, field, typ)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	return legacyIDs{
		EvidenceIDs: list("evidence_recorded", "evidence_id"),
		RunIDs:      list("analysis_run_allocated", "run_id"),
		DecisionIDs: list("permission_decided", "decision_id"),
	}
}

// legacyRea runs rea with the test's environment minus REA_ variables and
// returns its stdout; a non-zero exit fails the test.
func legacyRea(t *testing.T, args ...string) []byte {
	t.Helper()
	out, code, stderr := legacyReaExit(t, args...)
	if code != 0 {
		t.Fatalf("rea %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
	}
	return out
}

// legacyReaExit is legacyRea for a command whose exit 1 still prints its
// document (rebuild with a digest mismatch): stdout, exit code, stderr.
func legacyReaExit(t *testing.T, args ...string) ([]byte, int, string) {
	t.Helper()
	cmd := execRea(t, legacyEnv(), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out, exit.ExitCode(), stderr.String()
	case err != nil:
		t.Fatalf("rea %s: %v", strings.Join(args, " "), err)
	}
	return out, 0, stderr.String()
}

func execRea(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testkit.Rea(t), args...)
	cmd.Env = env
	return cmd
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (o legacyObservation) write(t *testing.T, dir string) {
	t.Helper()
	doc, err := json.MarshalIndent(o.Answers, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{legacyAnswers: append(doc, '\n'), legacyBundleFile: o.Bundle}
	for id, e := range o.Explains {
		files[filepath.Join("explain", id+".json")] = []byte(e.JSON)
		files[filepath.Join("explain", id+".txt")] = []byte(e.Text)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readLegacy(t *testing.T, dir string) legacyObservation {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: the legacy fixture is incomplete (see its README)", name)
		}
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var o legacyObservation
	if err := json.Unmarshal(read(legacyAnswers), &o.Answers); err != nil {
		t.Fatal(err)
	}
	if len(o.Answers.EvidenceIDs) == 0 || len(o.Answers.DecisionIDs) == 0 || len(o.Answers.RunIDs) == 0 {
		t.Fatalf("answers.json names %d evidence ids, %d runs, %d decisions", len(o.Answers.EvidenceIDs), len(o.Answers.RunIDs), len(o.Answers.DecisionIDs))
	}
	o.Bundle = read(legacyBundleFile)
	o.Explains = map[string]legacyExplain{}
	for _, id := range o.Answers.DecisionIDs {
		o.Explains[id] = legacyExplain{JSON: string(read(filepath.Join("explain", id+".json"))), Text: string(read(filepath.Join("explain", id+".txt")))}
	}
	return o
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// legacyEnv is the test's environment without any REA_ variable, plus env:
// the fixture must not depend on the machine's REA configuration.
func legacyEnv(env ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REA_") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}
