package tools_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/gowebpki/jcs"
)

// recomputeEvidenceID applies the JCS rule of CONTRACTS.md §1.5/§7.2,
// independently of the engine's own code. A full inline context
// (REA_EVIDENCE_CONTEXT=full) is recomputed from the answer itself; a
// compact one names its record, which is fetched with get_evidence_bundle
// and recomputed from there, after checking that the record's result is
// the answer's.
func recomputeEvidenceID(t testing.TB, s *session, structured json.RawMessage) (claimed, recomputed string) {
	t.Helper()
	body := decode[map[string]any](t, structured)
	ev, ok := body["evidence"].(map[string]any)
	if !ok {
		t.Fatalf("no evidence in %s", structured)
	}
	claimed, _ = ev["evidence_id"].(string)
	if _, full := ev["operation"]; full {
		delete(ev, "ledger")
		ev["normalized_result"] = body["result"]
		ev["raw_result"] = nil
		return claimed, recordID(t, ev)
	}
	bundle := decode[struct {
		Result struct {
			Bundle struct {
				Records []map[string]any `json:"records"`
			} `json:"bundle"`
		} `json:"result"`
	}](t, s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{claimed}}).Structured)
	if len(bundle.Result.Bundle.Records) != 1 {
		t.Fatalf("bundle of %s: %d records", claimed, len(bundle.Result.Bundle.Records))
	}
	rec := bundle.Result.Bundle.Records[0]
	if got, _ := rec["evidence_id"].(string); got != claimed {
		t.Fatalf("bundle of %s holds %s", claimed, got)
	}
	if a, b := mustJSON(t, rec["normalized_result"]), mustJSON(t, body["result"]); a != b {
		t.Fatalf("record %s's result differs from the answer's:\n%.300s\n%.300s", claimed, a, b)
	}
	return claimed, recordID(t, rec)
}

// recordID is §7.2's id of a record (or a full inline context with its
// results): sha256 of JCS of it without evidence_id, the subject reduced to
// {digest, format, architecture}.
func recordID(t testing.TB, rec map[string]any) string {
	t.Helper()
	p := map[string]any{}
	for k, v := range rec {
		p[k] = v
	}
	delete(p, "evidence_id")
	if subj, ok := p["subject"].(map[string]any); ok {
		p["subject"] = map[string]any{"digest": subj["digest"], "format": subj["format"], "architecture": subj["architecture"]}
	}
	c, err := jcs.Transform([]byte(mustJSON(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(c)
	return "ev_" + hex.EncodeToString(sum[:])
}

type page struct {
	Items []struct {
		Address string `json:"address"`
		Value   string `json:"value"`
	} `json:"items"`
	Total      *int `json:"total"`
	NextOffset *int `json:"next_offset"`
	Truncated  bool `json:"truncated"`
}

// exerciseEndToEnd is the acceptance walk of issue 2 on one connection: open a
// compiled C program, see tools/list grow with a list_changed, find main,
// recompute its evidence_id, fetch it back, close, see tools/list shrink.
// It returns the evidence id of list_procedures.
func exerciseEndToEnd(t *testing.T, s *session, fixture string) string {
	before := s.toolNames()
	if before["list_procedures"] || !before["open_binary"] || !before["binary_session"] {
		t.Fatalf("before open, tools/list = %v", before)
	}
	open := s.ok("open_binary", map[string]any{"path": fixture})
	s.waitChanged()
	opened := decode[struct {
		Result struct {
			Format, Kind, SHA256, RunID string
			Binding                     *struct {
				SelectionSource string `json:"selection_source"`
			}
		} `json:"result"`
	}](t, open.Structured)
	if opened.Result.Format != "elf" || opened.Result.Binding == nil || opened.Result.Binding.SelectionSource != "auto-single-candidate" {
		t.Fatalf("open_binary: %s", open.Structured)
	}
	after := s.toolNames()
	if !after["list_procedures"] || !after["binary_overview"] || len(after) <= len(before) {
		t.Fatalf("tools/list did not grow: %d → %d", len(before), len(after))
	}

	var found bool
	var evidenceID string
	for offset := 0; ; {
		r := s.ok("list_procedures", map[string]any{"offset": offset, "limit": 50})
		claimed, recomputed := recomputeEvidenceID(t, s, r.Structured)
		if claimed != recomputed {
			t.Fatalf("evidence_id %s, recomputed %s", claimed, recomputed)
		}
		if offset == 0 {
			evidenceID = claimed
		}
		p := decode[struct{ Result page }](t, r.Structured).Result
		for _, it := range p.Items {
			found = found || it.Value == "main"
		}
		if p.NextOffset == nil {
			break
		}
		offset = *p.NextOffset
	}
	if !found {
		t.Fatal("list_procedures never listed main")
	}

	b := s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{evidenceID}})
	bundle := decode[struct {
		Result struct {
			RecordCount int `json:"record_count"`
			Bundle      struct {
				Records []struct {
					EvidenceID string `json:"evidence_id"`
				} `json:"records"`
			} `json:"bundle"`
		} `json:"result"`
	}](t, b.Structured)
	if bundle.Result.RecordCount != 1 || bundle.Result.Bundle.Records[0].EvidenceID != evidenceID {
		t.Fatalf("bundle: %s", b.Structured)
	}

	s.ok("close_binary", map[string]any{})
	s.waitChanged()
	if final := s.toolNames(); final["list_procedures"] || len(final) != len(before) {
		t.Fatalf("tools/list did not shrink back: %v", final)
	}
	return evidenceID
}

func TestEndToEndOverStdio(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	ledgerPath := filepath.Join(dir, "ledger.db")

	first := startStdio(t, ledgerPath)
	id := exerciseEndToEnd(t, first, fixture)
	want := first.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{id}, "scope": "ledger"})
	first.c.Close()

	// Restart: a second server on the same ledger answers byte-identically.
	second := startStdio(t, ledgerPath)
	got := second.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{id}, "scope": "ledger"})
	if string(got.Structured) != string(want.Structured) {
		t.Fatalf("bundle after restart differs:\n%s\n%s", want.Structured, got.Structured)
	}
	// Scope connection: the new connection published nothing.
	if e := second.errorOf("get_evidence_bundle", map[string]any{"evidence_ids": []string{id}}); e["code"] != "evidence_integrity_mismatch" {
		t.Fatalf("connection scope error: %v", e)
	}
}

func TestEndToEndInProcess(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	srv := newInProcessServer(t, filepath.Join(dir, "ledger.db"))
	exerciseEndToEnd(t, startInProcess(t, srv), fixture)
}
