package tools_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/tools"
)

// artifactServer is an in-process server over a fresh ledger whose engine
// config the test adjusts (the operator gate, the policy evaluator).
func artifactServer(t *testing.T, adjust func(*engine.Config)) (*session, *ledger.Ledger) {
	t.Helper()
	led, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"}
	if adjust != nil {
		adjust(&cfg)
	}
	srv := tools.New(engine.New(cfg), tools.Options{Transport: "stdio"})
	t.Cleanup(func() {
		srv.CloseAll(context.Background(), "server_shutdown")
		led.Close()
	})
	return startInProcess(t, &inProcess{led: led, srv: srv}), led
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

type invReply struct {
	Result struct {
		Manifest struct {
			ManifestID      string `json:"manifest_id"`
			OccurrenceCount int    `json:"occurrence_count"`
		} `json:"manifest"`
		Occurrences struct {
			Items []struct {
				OccurrenceID string  `json:"occurrence_id"`
				LogicalPath  string  `json:"logical_path"`
				EntryKind    string  `json:"entry_kind"`
				HashStatus   string  `json:"hash_status"`
				ArtifactID   *string `json:"artifact_id"`
			} `json:"items"`
			Truncated bool `json:"truncated"`
		} `json:"occurrences"`
		Contradictions []map[string]any `json:"integrity_contradictions"`
		Limitations    []string         `json:"limitations"`
	} `json:"result"`
	Evidence struct {
		EvidenceID string `json:"evidence_id"`
		Provider   struct {
			ID string `json:"id"`
		} `json:"provider"`
		Subject struct {
			Digest struct {
				SHA256 string `json:"sha256"`
			} `json:"digest"`
		} `json:"subject"`
		Ledger struct {
			Seq int64 `json:"seq"`
		} `json:"ledger"`
	} `json:"evidence"`
}

func (r invReply) occurrence(t *testing.T, path string) (id, status string) {
	t.Helper()
	for _, o := range r.Result.Occurrences.Items {
		if o.LogicalPath == path {
			return o.OccurrenceID, o.HashStatus
		}
	}
	t.Fatalf("no occurrence %q", path)
	return "", ""
}

// appTree writes a small application directory.
func appTree(t *testing.T, dir, mainJS string) {
	writeFile(t, filepath.Join(dir, "package.json"), `{"name":"fixture","version":"1.0.0","main":"main.js"}`)
	writeFile(t, filepath.Join(dir, "main.js"), mainJS)
	writeFile(t, filepath.Join(dir, "lib", "util.js"), "module.exports = 1;\n")
	if err := os.Symlink("lib/util.js", filepath.Join(dir, "link.js")); err != nil {
		t.Fatal(err)
	}
}

func TestInventoryDirectoryCompareExtract(t *testing.T) {
	s, led := artifactServer(t, nil)
	v1, v2 := filepath.Join(t.TempDir(), "v1"), filepath.Join(t.TempDir(), "v2")
	appTree(t, v1, "console.log(1);\n")
	appTree(t, v2, "console.log(2);\n")

	// No target: hidden from this legacy-era connection (§4).
	if s.toolNames()["inventory_artifact"] {
		t.Fatal("inventory_artifact listed without a target")
	}

	s.ok("open_binary", map[string]any{"path": v1})
	leftReply := s.ok("inventory_artifact", map[string]any{})
	left := decode[invReply](t, leftReply.Structured)
	if rec := recordOf(t, s, leftReply); left.Evidence.Provider.ID != "rea-artifact" || rec.Operation != "inventory_artifact" ||
		rec.Subject == nil || rec.Subject.Format != "directory" || left.Evidence.EvidenceID == "" {
		t.Fatalf("evidence: %+v, record %+v", left.Evidence, rec)
	}
	if _, st := left.occurrence(t, "main.js"); st != "verified" {
		t.Fatalf("main.js %s", st)
	}
	for _, o := range left.Result.Occurrences.Items {
		if o.LogicalPath == "link.js" && (o.EntryKind != "symlink" || o.ArtifactID != nil) {
			t.Fatalf("symlink recorded as %+v", o)
		}
	}
	if n := left.Result.Manifest.OccurrenceCount; n != 6 { // ., package.json, main.js, lib, lib/util.js, link.js
		t.Fatalf("occurrences %d: %+v", n, left.Result.Occurrences.Items)
	}

	// Extraction: approved:true, the administrator ceiling "/" allows; every
	// written file's sha256 is in the Evidence.
	out := filepath.Join(t.TempDir(), "out")
	mainID, _ := left.occurrence(t, "main.js")
	libID, _ := left.occurrence(t, "lib")
	x := decode[struct {
		Result struct {
			Artifacts struct {
				Items []struct {
					RelativePath string `json:"relative_path"`
					SHA256       string `json:"sha256"`
				} `json:"items"`
			} `json:"artifacts"`
			ContainmentVerified bool `json:"containment_verified"`
		} `json:"result"`
		Evidence struct {
			Provider struct{ ID string } `json:"provider"`
		} `json:"evidence"`
	}](t, s.ok("extract_artifact", map[string]any{"approved": true, "output_root": out,
		"occurrence_ids": []string{mainID, libID}}).Structured)
	got := map[string]string{}
	for _, a := range x.Result.Artifacts.Items {
		got[a.RelativePath] = a.SHA256
		b, err := os.ReadFile(filepath.Join(out, a.RelativePath))
		if err != nil || sha(string(b)) != a.SHA256 {
			t.Fatalf("%s: %v, sha mismatch", a.RelativePath, err)
		}
	}
	if len(got) != 2 || got["main.js"] != sha("console.log(1);\n") || got["lib/util.js"] != sha("module.exports = 1;\n") ||
		!x.Result.ContainmentVerified || x.Evidence.Provider.ID != "rea-artifact" {
		t.Fatalf("extraction %+v", x)
	}
	// Never overwrites: the same extraction again is a typed error.
	if e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": out,
		"occurrence_ids": []string{mainID}}); e["code"] != "artifact_operation_failed" {
		t.Fatalf("overwrite: %v", e)
	}
	if e := s.errorOf("extract_artifact", map[string]any{"approved": false, "output_root": out,
		"occurrence_ids": []string{mainID}}); e["code"] != "invalid_request" {
		t.Fatalf("approved:false: %v", e)
	}

	s.ok("open_binary", map[string]any{"path": v2})
	right := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
	cmpReply := s.ok("compare_artifacts", map[string]any{"left_evidence_ids": []string{left.Evidence.EvidenceID},
		"right_evidence_ids": []string{right.Evidence.EvidenceID}})
	cmp := decode[struct {
		Result struct {
			Status  string         `json:"status"`
			Summary map[string]int `json:"summary"`
			Changes struct {
				Items []struct {
					Classification string   `json:"classification"`
					LogicalPath    string   `json:"logical_path"`
					EvidenceLinks  []string `json:"evidence_links"`
				} `json:"items"`
			} `json:"changes"`
		} `json:"result"`
		Evidence struct {
			Provider   struct{ ID string } `json:"provider"`
			Confidence string              `json:"confidence"`
			Subject    any                 `json:"subject"`
		} `json:"evidence"`
	}](t, cmpReply.Structured)
	if rec := recordOf(t, s, cmpReply); cmp.Result.Status != "changed" || cmp.Evidence.Provider.ID != "rea-compare" ||
		cmp.Evidence.Confidence != "derived" || cmp.Evidence.Subject != nil || len(rec.EvidenceLinks) != 2 {
		t.Fatalf("compare: %+v, record %+v", cmp, rec)
	}
	changed := map[string]string{}
	for _, c := range cmp.Result.Changes.Items {
		changed[c.LogicalPath] = c.Classification
		if len(c.EvidenceLinks) == 0 {
			t.Fatalf("%s: no evidence links", c.LogicalPath)
		}
	}
	if changed["main.js"] != "changed" || changed["package.json"] != "" {
		t.Fatalf("changes %v", changed)
	}
	// A non-inventory Evidence id is wrong_operation.
	if e := s.errorOf("compare_artifacts", map[string]any{"left_evidence_ids": []string{left.Evidence.EvidenceID},
		"right_evidence_ids": []string{"ev_" + strings.Repeat("0", 64)}}); e["code"] != "evidence_integrity_mismatch" {
		t.Fatalf("missing id: %v", e)
	}
	_ = led
}

func TestExtractPermissionRequired(t *testing.T) {
	// An evaluator whose ceilings lack artifact_extract (as when replayed
	// from a ledger written before that ceiling) denies the extraction
	// before anything is written.
	s, _ := artifactServer(t, func(c *engine.Config) {
		ceil, err := policy.CeilingsFromScopes(nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Policy = policy.New(&policy.Config{Ceilings: ceil}, nil, policy.Options{})
	})
	dir := filepath.Join(t.TempDir(), "app")
	appTree(t, dir, "1;\n")
	s.ok("open_binary", map[string]any{"path": dir})
	inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
	id, _ := inv.occurrence(t, "main.js")
	out := filepath.Join(t.TempDir(), "out")
	e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": out, "occurrence_ids": []string{id}})
	if e["code"] != "permission_required" {
		t.Fatalf("want permission_required: %v", e)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("output_root created despite the denial: %v", err)
	}
}

func packASAR(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command(testkit.ASARPacker(t), "pack", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("asar pack: %v\n%s", err, out)
	}
}

// tamper flips one byte of the packed file whose content is unique.
func tamper(t *testing.T, archive, content string) {
	t.Helper()
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), content)
	if i < 0 || strings.Count(string(b), content) != 1 {
		t.Fatalf("content not unique in %s", archive)
	}
	b[i] ^= 0x20
	if err := os.WriteFile(archive, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInventoryASARIntegrity(t *testing.T) {
	src := filepath.Join(t.TempDir(), "app")
	writeFile(t, filepath.Join(src, "package.json"), `{"name":"a","main":"main.js"}`)
	writeFile(t, filepath.Join(src, "main.js"), "console.log('the main file of the packed app');\n")
	writeFile(t, filepath.Join(src, "other.js"), "module.exports = 'a verified sibling';\n")
	good := filepath.Join(t.TempDir(), "good.asar")
	packASAR(t, src, good)
	bad := filepath.Join(t.TempDir(), "bad.asar")
	packASAR(t, src, bad)
	tamper(t, bad, "the main file of the packed app")

	var gate bool
	s, led := artifactServer(t, func(c *engine.Config) { c.IntegrityContinueEnabled = gate })
	_ = s
	s.ok("open_binary", map[string]any{"path": good})
	goodReply := s.ok("inventory_artifact", map[string]any{})
	goodInv := decode[invReply](t, goodReply.Structured)
	if rec := recordOf(t, s, goodReply); rec.Subject == nil || rec.Subject.Format != "asar" || goodInv.Evidence.Provider.ID != "rea-artifact" {
		t.Fatalf("asar evidence %+v, record %+v", goodInv.Evidence, rec)
	}
	if _, st := goodInv.occurrence(t, "main.js"); st != "verified" {
		t.Fatalf("main.js %s", st)
	}

	s.ok("open_binary", map[string]any{"path": bad})
	e := s.errorOf("inventory_artifact", map[string]any{})
	d, _ := e["details"].(map[string]any)
	if e["code"] != "artifact_integrity_mismatch" || d["logical_path"] != "main.js" || d["unpacked"] != false {
		t.Fatalf("default policy: %v", e)
	}
	// Two of three conditions (the operator gate is off): the typed error
	// naming the variable.
	rc := map[string]any{"integrity_policy": "record-and-continue", "integrity_continue_approved": true}
	e = s.errorOf("inventory_artifact", rc)
	d, _ = e["details"].(map[string]any)
	rem, _ := e["remediation"].(map[string]any)
	if e["code"] != "artifact_operation_failed" || d["reason"] != "policy" ||
		!strings.Contains(rem["action"].(string), "REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED") {
		t.Fatalf("gate off: %v", e)
	}

	// All three: one quarantine record, the sibling verified, and one
	// integrity_contradiction_recorded event naming the published Evidence.
	s2, led2 := artifactServer(t, func(c *engine.Config) { c.IntegrityContinueEnabled = true })
	_ = led
	s2.ok("open_binary", map[string]any{"path": bad})
	inv := decode[invReply](t, s2.ok("inventory_artifact", rc).Structured)
	if _, st := inv.occurrence(t, "main.js"); st != "mismatched" {
		t.Fatalf("main.js %s", st)
	}
	if _, st := inv.occurrence(t, "other.js"); st != "verified" {
		t.Fatalf("other.js %s", st)
	}
	if len(inv.Result.Contradictions) != 1 {
		t.Fatalf("contradictions %v", inv.Result.Contradictions)
	}
	var found []map[string]any
	var evidenceSeq int64
	if err := led2.Scan(context.Background(), 0, func(ev ledger.Event) error {
		switch ev.Type {
		case events.IntegrityContradictionRecorded:
			var m map[string]any
			if err := json.Unmarshal(ev.Data, &m); err != nil {
				return err
			}
			found = append(found, m)
			if evidenceSeq != 0 {
				t.Errorf("contradiction event after evidence_recorded")
			}
		case "evidence_recorded":
			if ev.Seq == inv.Evidence.Ledger.Seq {
				evidenceSeq = ev.Seq
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0]["evidence_id"] != inv.Evidence.EvidenceID {
		t.Fatalf("contradiction events %v", found)
	}
	ct, _ := found[0]["contradiction"].(map[string]any)
	if ct["logical_path"] != "main.js" || ct["trust"] != "observed-untrusted" ||
		!strings.HasPrefix(ct["contradiction_id"].(string), "ic_") {
		t.Fatalf("contradiction %v", ct)
	}

	// Compare against the untampered pack: contradiction for that path.
	s2.ok("open_binary", map[string]any{"path": good})
	g2 := decode[invReply](t, s2.ok("inventory_artifact", map[string]any{}).Structured)
	cmp := decode[struct {
		Result struct {
			Status  string `json:"status"`
			Changes struct {
				Items []struct {
					Classification string `json:"classification"`
					LogicalPath    string `json:"logical_path"`
				} `json:"items"`
			} `json:"changes"`
		} `json:"result"`
	}](t, s2.ok("compare_artifacts", map[string]any{"left_evidence_ids": []string{g2.Evidence.EvidenceID},
		"right_evidence_ids": []string{inv.Evidence.EvidenceID}}).Structured)
	if cmp.Result.Status != "contradiction" || len(cmp.Result.Changes.Items) != 1 ||
		cmp.Result.Changes.Items[0].LogicalPath != "main.js" || cmp.Result.Changes.Items[0].Classification != "contradiction" {
		t.Fatalf("compare: %+v", cmp.Result)
	}
}

type jsappReply struct {
	Result struct {
		Format              string         `json:"format"`
		InventoryManifestID string         `json:"inventory_manifest_id"`
		Summary             map[string]int `json:"summary"`
		Top                 map[string]any `json:"top"`
		Electron            map[string]any `json:"electron"`
	} `json:"result"`
	Evidence struct {
		EvidenceID string              `json:"evidence_id"`
		Provider   struct{ ID string } `json:"provider"`
	} `json:"evidence"`
}

func TestAnalyzeJavaScriptApplication(t *testing.T) {
	app, err := filepath.Abs("../engine/jsapp/testdata/electronapp")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := artifactServer(t, nil)
	sumReply := s.ok("analyze_javascript_application", map[string]any{"input_path": app})
	sum, rec := decode[jsappReply](t, sumReply.Structured), recordOf(t, s, sumReply)
	if sum.Result.Format != "directory" || !strings.HasPrefix(sum.Result.InventoryManifestID, "agm_") ||
		sum.Result.Top == nil || sum.Result.Electron != nil || sum.Evidence.Provider.ID != "rea-jsapp" ||
		rec.Subject == nil || rec.Subject.Format != "directory" {
		t.Fatalf("summary: %+v, record %+v", sum, rec)
	}
	if _, has := rec.Parameters["detail"]; has {
		t.Fatalf("detail is in the Evidence parameters: %v", rec.Parameters)
	}
	if sum.Result.Summary["browser_windows"] == 0 || sum.Result.Summary["paired"] == 0 {
		t.Fatalf("summary counts %v", sum.Result.Summary)
	}
	full := decode[jsappReply](t, s.ok("analyze_javascript_application", map[string]any{"input_path": app, "detail": "full"}).Structured)
	if full.Evidence.EvidenceID != sum.Evidence.EvidenceID || full.Result.Electron == nil ||
		full.Result.InventoryManifestID != sum.Result.InventoryManifestID {
		t.Fatalf("full: same record expected, got %s vs %s", full.Evidence.EvidenceID, sum.Evidence.EvidenceID)
	}
	// The full record holds the full result.
	b := decode[struct {
		Result struct {
			Bundle struct {
				Records []struct {
					NormalizedResult map[string]any `json:"normalized_result"`
				} `json:"records"`
			} `json:"bundle"`
		} `json:"result"`
	}](t, s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{sum.Evidence.EvidenceID}}).Structured)
	if len(b.Result.Bundle.Records) != 1 || b.Result.Bundle.Records[0].NormalizedResult["electron"] == nil {
		t.Fatalf("bundle record lacks the full result")
	}
}

// TestAnalyzeJavaScriptApplicationScans: through a real rea mcp, a selected
// file that names none of the five Electron APIs is scanned, not parsed, and
// the statistics say so (CONTRACTS.md §0, §11.2): the fixture's worker.js.
func TestAnalyzeJavaScriptApplicationScans(t *testing.T) {
	app, err := filepath.Abs("../engine/jsapp/testdata/electronapp")
	if err != nil {
		t.Fatal(err)
	}
	s := startStdio(t, filepath.Join(t.TempDir(), "ledger.db"))
	r := decode[struct {
		Result struct {
			Statistics  map[string]any `json:"statistics"`
			Limitations []string       `json:"limitations"`
		} `json:"result"`
	}](t, s.ok("analyze_javascript_application", map[string]any{"input_path": app}).Structured).Result
	st := r.Statistics
	if n := fmt.Sprintf("%v %v %v", st["parsed_javascript_files"], st["scanned_javascript_files"], st["parse_failures"]); n != "3 1 0" {
		t.Fatalf("statistics %v", st)
	}
	if !slices.ContainsFunc(r.Limitations, func(l string) bool { return strings.HasPrefix(l, "1 JavaScript file(s) name no Electron API") }) {
		t.Fatalf("limitations %q", r.Limitations)
	}
}

func TestInventoryCancelledPublishesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	for i := range 3000 {
		writeFile(t, filepath.Join(dir, "d"+string(rune('a'+i%26)), "f"+strings.Repeat("x", i%7)+string(rune('a'+i/26%26))+string(rune('a'+i/676))), strings.Repeat("payload ", 512))
	}
	s, led := artifactServer(t, nil)
	s.ok("open_binary", map[string]any{"path": dir})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for u := range s.progress {
			_ = u // the first update (completed 0) means the handler is running
			cancel()
			return
		}
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "inventory_artifact", map[string]any{}
	req.Params.Meta = &mcp.Meta{ProgressToken: "inv"}
	res, err := s.c.CallTool(ctx, req)
	if err == nil && !res.IsError {
		t.Skip("the inventory completed before the cancellation arrived")
	}
	if err == nil {
		b, _ := json.Marshal(res.StructuredContent)
		if !strings.Contains(string(b), `"code":"cancelled"`) {
			t.Fatalf("want cancelled: %s", b)
		}
	}
	// Nothing was published for inventory_artifact.
	time.Sleep(100 * time.Millisecond)
	if err := led.Scan(context.Background(), 0, func(ev ledger.Event) error {
		if ev.Type == "evidence_recorded" && strings.Contains(string(ev.Data), "inventory_artifact") {
			t.Errorf("Evidence published after cancellation: %s", ev.Data)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestJavaScriptApplicationRootDigest: root_sha256 of a directory is the
// §10.2 digest open_binary reports, also when a file is over the entry-size
// bound (and so not hashed by the analysis itself).
func TestJavaScriptApplicationRootDigest(t *testing.T) {
	app := t.TempDir()
	for name, body := range map[string]string{
		"package.json": `{"name":"big","main":"main.js"}`,
		"main.js":      `const { app } = require("electron"); app.whenReady();`,
		"big.bin":      strings.Repeat("x", 4096),
	} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := artifactServer(t, nil)
	type digestReply struct {
		Result struct {
			SHA256     string `json:"sha256"`
			RootSHA256 string `json:"root_sha256"`
		} `json:"result"`
	}
	want := decode[digestReply](t, s.ok("open_binary", map[string]any{"path": app}).Structured).Result.SHA256
	got := decode[digestReply](t, s.ok("analyze_javascript_application", map[string]any{"input_path": app,
		"limits": map[string]any{"max_artifact_entry_bytes": 1024}}).Structured).Result.RootSHA256
	if want == "" || got != want {
		t.Fatalf("root_sha256 %q, open_binary's digest %q", got, want)
	}
}
