package tools_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/canon"
)

// evidenceEnv makes an Evidence root and a sibling directory outside it, and
// returns the environment that approves the root.
func evidenceEnv(t *testing.T) (root, outside string, env []string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "evidence"), filepath.Join(base, "evidence-outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	roots, _ := json.Marshal([]string{root})
	return root, outside, []string{"REA_EVIDENCE_ROOTS_JSON=" + string(roots)}
}

type exported struct {
	Path         string `json:"path"`
	Bytes        int    `json:"bytes"`
	Records      int    `json:"records"`
	BundleDigest string `json:"bundle_digest"`
}

type imported struct {
	Imported     int    `json:"imported"`
	Duplicates   int    `json:"duplicates"`
	Total        int    `json:"total"`
	BundleDigest string `json:"bundle_digest"`
}

type connBundle struct {
	BundleDigest string `json:"bundle_digest"`
	RecordCount  int    `json:"record_count"`
}

func resultOf[T any](t *testing.T, r reply) T {
	t.Helper()
	return decode[struct{ Result T }](t, r.Structured).Result
}

func wantError(t *testing.T, s *session, tool string, args map[string]any, code, reason string) map[string]any {
	t.Helper()
	e := s.errorOf(tool, args)
	d, _ := e["details"].(map[string]any)
	if e["code"] != code || (reason != "" && d["reason"] != reason) {
		t.Fatalf("%s %v: got %v, want %s/%s", tool, args, e, code, reason)
	}
	return e
}

// rewrite decodes a bundle, lets edit change it, and writes it canonically.
func rewrite(t *testing.T, bundle []byte, path string, edit func(b map[string]any)) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(bundle))
	d.UseNumber()
	var b map[string]any
	if err := d.Decode(&b); err != nil {
		t.Fatal(err)
	}
	edit(b)
	out, err := canon.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestEvidenceFileExportImport(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	root, outside, env := evidenceEnv(t)

	a := startStdio(t, filepath.Join(dir, "a.db"), env...)
	a.ok("open_binary", map[string]any{"path": fixture})
	a.ok("list_procedures", map[string]any{"offset": 0, "limit": 50})
	a.ok("binary_overview", map[string]any{})
	want := resultOf[connBundle](t, a.ok("get_evidence_bundle", map[string]any{}))
	if want.RecordCount < 2 {
		t.Fatalf("need at least two records, have %d", want.RecordCount)
	}

	// Export: the canonical path, the connection's bundle digest, 0600.
	dst := filepath.Join(root, "bundle.json")
	ex := resultOf[exported](t, a.ok("export_evidence_bundle", map[string]any{"path": root + "/./bundle.json"}))
	if ex.Path != dst || ex.BundleDigest != want.BundleDigest || ex.Records != want.RecordCount {
		t.Fatalf("export %+v, want path %s digest %s records %d", ex, dst, want.BundleDigest, want.RecordCount)
	}
	fi, err := os.Stat(dst)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != int64(ex.Bytes) {
		t.Fatalf("exported file: %v %v (bytes %d)", fi, err, ex.Bytes)
	}
	bundle, _ := os.ReadFile(dst)
	if canon.SHA256Hex(bundle) != ex.BundleDigest {
		t.Fatal("file digest differs from bundle_digest")
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".rea-export-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}

	// overwrite:false on an existing file: typed error, file unchanged.
	if err := os.WriteFile(dst, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantError(t, a, "export_evidence_bundle", map[string]any{"path": dst}, "execution_failure", "exists")
	if b, _ := os.ReadFile(dst); string(b) != "keep me" {
		t.Fatalf("file changed without overwrite: %q", b)
	}
	a.ok("export_evidence_bundle", map[string]any{"path": dst, "overwrite": true})
	if b, _ := os.ReadFile(dst); !bytes.Equal(b, bundle) {
		t.Fatal("overwrite did not write the same bundle")
	}

	// Outside the roots, by name, by traversal, or through a symlink.
	escape := filepath.Join(root, "escape.json")
	if err := os.Symlink(filepath.Join(outside, "target.json"), escape); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(outside, "x.json"), root + "/../evidence-outside/x.json", escape} {
		e := wantError(t, a, "export_evidence_bundle", map[string]any{"path": p}, "permission_required", "")
		if rem, _ := e["remediation"].(map[string]any); rem["restart_required"] != true {
			t.Fatalf("outside the ceiling over MCP needs a restart: %v", e)
		}
	}
	if _, err := os.Lstat(filepath.Join(outside, "target.json")); err == nil {
		t.Fatal("an export escaped the root through a symlink")
	}
	// A symlink inside the root to a file inside it: never written through.
	inner := filepath.Join(root, "inner.json")
	if err := os.Symlink(dst, inner); err != nil {
		t.Fatal(err)
	}
	wantError(t, a, "export_evidence_bundle", map[string]any{"path": inner, "overwrite": true}, "execution_failure", "not_file")

	// Import into a fresh ledger gives the same bundle digest.
	b := startStdio(t, filepath.Join(dir, "b.db"), env...)
	im := resultOf[imported](t, b.ok("import_evidence_bundle", map[string]any{"path": dst}))
	if im.BundleDigest != want.BundleDigest || im.Imported != want.RecordCount || im.Duplicates != 0 || im.Total != want.RecordCount {
		t.Fatalf("import %+v, want digest %s and %d records", im, want.BundleDigest, want.RecordCount)
	}
	if got := resultOf[connBundle](t, b.ok("get_evidence_bundle", map[string]any{})); got.BundleDigest != want.BundleDigest {
		t.Fatalf("bundle after import %s, want %s", got.BundleDigest, want.BundleDigest)
	}
	again := resultOf[imported](t, b.ok("import_evidence_bundle", map[string]any{"path": dst}))
	if again.Imported != 0 || again.Duplicates != want.RecordCount {
		t.Fatalf("second import %+v", again)
	}

	// Rejections, each typed; none imports anything.
	c := startStdio(t, filepath.Join(dir, "c.db"), env...)
	bad := filepath.Join(root, "bad.json")
	record := func(m map[string]any, i int) map[string]any { return m["records"].([]any)[i].(map[string]any) }
	cases := []struct {
		name         string
		edit         func(m map[string]any)
		code, reason string
	}{
		{"tampered record", func(m map[string]any) { record(m, 0)["confidence"] = "inferred" }, "evidence_integrity_mismatch", "id_mismatch"},
		{"duplicated id", func(m map[string]any) {
			rs := m["records"].([]any)
			m["records"] = append([]any{rs[0]}, rs...)
		}, "evidence_integrity_mismatch", "duplicate_id"},
		{"non-canonical order", func(m map[string]any) {
			rs := m["records"].([]any)
			rs[0], rs[1] = rs[1], rs[0]
		}, "evidence_integrity_mismatch", "not_canonical"},
		{"section not canonical", func(m map[string]any) { m["providers"] = []any{} }, "evidence_integrity_mismatch", "not_canonical"},
		{"wrong bundle version", func(m map[string]any) { m["bundle_version"] = 3 }, "evidence_integrity_mismatch", "schema"},
		{"unknown record key", func(m map[string]any) { record(m, 0)["extra"] = true }, "evidence_integrity_mismatch", "schema"},
	}
	for _, tc := range cases {
		rewrite(t, bundle, bad, tc.edit)
		wantError(t, c, "import_evidence_bundle", map[string]any{"path": bad}, tc.code, tc.reason)
	}
	// Not byte-canonical: the same bundle, pretty-printed.
	var pretty bytes.Buffer
	_ = json.Indent(&pretty, bundle, "", " ")
	_ = os.WriteFile(bad, pretty.Bytes(), 0o600)
	wantError(t, c, "import_evidence_bundle", map[string]any{"path": bad}, "evidence_integrity_mismatch", "not_canonical")
	// Deeper than 64 levels.
	_ = os.WriteFile(bad, []byte(strings.Repeat("[", 65)+strings.Repeat("]", 65)), 0o600)
	wantError(t, c, "import_evidence_bundle", map[string]any{"path": bad}, "execution_failure", "invalid_json")
	// Over 64 MiB (sparse).
	big := filepath.Join(root, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64<<20 + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	wantError(t, c, "import_evidence_bundle", map[string]any{"path": big}, "truncated", "")
	// A symlink in the root to a bundle outside it.
	outBundle := filepath.Join(outside, "bundle.json")
	_ = os.WriteFile(outBundle, bundle, 0o600)
	link := filepath.Join(root, "link.json")
	if err := os.Symlink(outBundle, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, outBundle, root + "/../evidence-outside/bundle.json"} {
		wantError(t, c, "import_evidence_bundle", map[string]any{"path": p}, "permission_required", "")
	}
	wantError(t, c, "import_evidence_bundle", map[string]any{"path": filepath.Join(root, "missing.json")}, "invalid_request", "")
	if got := resultOf[connBundle](t, c.ok("get_evidence_bundle", map[string]any{})); got.RecordCount != 0 {
		t.Fatalf("a rejected import left %d records", got.RecordCount)
	}
}

func TestEvidenceFileToolsNeedRoots(t *testing.T) {
	dir := t.TempDir()
	s := startStdio(t, filepath.Join(dir, "l.db"), "REA_EVIDENCE_ROOTS_JSON=")
	names := s.toolNames()
	if names["export_evidence_bundle"] || names["import_evidence_bundle"] {
		t.Fatal("Evidence file tools listed without REA_EVIDENCE_ROOTS_JSON")
	}
	r := s.ok("binary_session", map[string]any{"detail": "capabilities", "capability_family": "session", "limit": 100})
	caps := resultOf[struct {
		Capabilities struct {
			Items []struct {
				Name, Reason string
				Available    bool
				Remediation  *string
			}
		}
	}](t, r)
	seen := 0
	for _, it := range caps.Capabilities.Items {
		if it.Name == "export_evidence_bundle" || it.Name == "import_evidence_bundle" {
			seen++
			if it.Available || it.Reason != "policy_disabled" || it.Remediation == nil || !strings.Contains(*it.Remediation, "REA_EVIDENCE_ROOTS_JSON") {
				t.Fatalf("%s: %+v", it.Name, it)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("tool_availability lists %d of the two Evidence file tools", seen)
	}

	_, _, env := evidenceEnv(t)
	on := startStdio(t, filepath.Join(dir, "m.db"), env...)
	if names := on.toolNames(); !names["export_evidence_bundle"] || !names["import_evidence_bundle"] {
		t.Fatal("Evidence file tools not listed with REA_EVIDENCE_ROOTS_JSON")
	}
}
