package projections_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/projections"
)

// `rea ledger import` of a 50,000-event export into PostgreSQL, then `rea
// ledger export` again (CONTRACTS.md §13.3, §17): the same head hash, the
// same event lines byte for byte, and the projection digest of the SQLite
// original. Imports of more than one fold batch (1,024 events) used to fail
// on PostgreSQL: the fold ran on the connection whose cursor was still
// reading the events. Before the import, `rea ledger stats` on the empty
// PostgreSQL ledger succeeds.
func TestPostgresLedgerImportLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and moves a 50,000-event ledger (-short)")
	}
	pg := testkit.PostgresURL(t)
	dir := t.TempDir()
	rea := testkit.Rea(t)
	run := func(args ...string) []byte {
		t.Helper()
		var stderr bytes.Buffer
		cmd := exec.Command(rea, args...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			// args[1] is the ledger URL: never print it (password).
			t.Fatalf("rea ledger %v: %v\n%s%s", args[3:], err, out, stderr.Bytes())
		}
		return out
	}

	var empty struct {
		Events int64
		Head   struct {
			Seq  int64
			Hash string
		}
	}
	if err := json.Unmarshal(run("--ledger", pg, "ledger", "stats"), &empty); err != nil || empty.Events != 0 || empty.Head.Seq != 0 {
		t.Fatalf("stats on the empty PostgreSQL ledger: %+v (%v)", empty, err)
	}

	src := seedLedger(t, 50000)
	ctx := context.Background()
	want, err := src.ProjectionDigest(ctx, projections.All())
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(dir, "sqlite.jsonl")
	run("--ledger", src.Path(), "ledger", "export", "-o", export)

	var imported struct {
		Manifest struct {
			Count    int64  `json:"count"`
			HeadHash string `json:"head_hash"`
		} `json:"manifest"`
		Digest string `json:"projection_digest"`
	}
	if err := json.Unmarshal(run("--ledger", pg, "ledger", "import", export), &imported); err != nil {
		t.Fatal(err)
	}
	if imported.Manifest.Count < 50000 || imported.Digest != want {
		t.Fatalf("import of %d events: digest %s, SQLite's %s", imported.Manifest.Count, imported.Digest, want)
	}
	again := filepath.Join(dir, "postgres.jsonl")
	run("--ledger", pg, "ledger", "export", "-o", again)
	m1, lines1 := readExport(t, export)
	m2, lines2 := readExport(t, again)
	if m1.HeadHash != m2.HeadHash || m1.HeadHash != imported.Manifest.HeadHash || m1.Count != m2.Count || m1.LedgerID != m2.LedgerID {
		t.Fatalf("manifests differ: %+v, %+v", m1, m2)
	}
	if !bytes.Equal(lines1, lines2) {
		t.Fatal("the PostgreSQL export's event and blob lines differ from the SQLite export's")
	}
	var rebuilt struct {
		After   string
		Matches bool
	}
	if err := json.Unmarshal(run("--ledger", pg, "ledger", "rebuild"), &rebuilt); err != nil || !rebuilt.Matches || rebuilt.After != want {
		t.Fatalf("rebuild on PostgreSQL: %+v (%v), want digest %s", rebuilt, err, want)
	}
	var stats struct{ Events int64 }
	if err := json.Unmarshal(run("--ledger", pg, "ledger", "stats"), &stats); err != nil || stats.Events != m1.Count {
		t.Fatalf("stats after the import: %+v (%v)", stats, err)
	}
	t.Logf("%d events, head %s, projection digest %s", m1.Count, m1.HeadHash, want)
}

type exportManifest struct {
	LedgerID string `json:"ledger_id"`
	Count    int64  `json:"count"`
	HeadHash string `json:"head_hash"`
}

// readExport returns an export's manifest and every line after it.
func readExport(t *testing.T, path string) (exportManifest, []byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	first, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m exportManifest
	if err := json.Unmarshal(first, &m); err != nil {
		t.Fatal(err)
	}
	var rest bytes.Buffer
	if _, err := rest.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	return m, rest.Bytes()
}
