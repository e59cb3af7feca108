package tools_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
)

// The generator of testdata/legacy-ledger-v1 (issue 14, "Replay"): it ran
// once, with the build before several targets per connection, and is kept
// so that the fixture's README can say exactly how the ledger was made.
// Running it again rewrites the fixture with whatever build runs it, which
// is only right for a build that still writes first-edition events:
//
//	REA_REGENERATE_LEGACY_LEDGER=1 go test ./tools -run TestMakeLegacyLedger -count=1 -v

// legacySwitchC is the second program of the session: a switch the
// compiler turns into a jump table.
const legacySwitchC = `#include <stdio.h>
#include <stdlib.h>
int dispatch(int op, int a, int b) {
	switch (op) {
	case 0: return a + b;
	case 1: return a - b;
	case 2: return a * b;
	case 3: return b ? a / b : 0;
	case 4: return a % (b ? b : 1);
	case 5: return a << (b & 7);
	default: return -1;
	}
}
int main(int argc, char **argv) {
	int op = argc > 1 ? atoi(argv[1]) : 0;
	printf("switch result %d\n", dispatch(op, argc, 3));
	return 0;
}
`

// sequenceAnswerer answers elicitations with contents in turn ("once",
// then "session", ...), accepting each.
type sequenceAnswerer struct {
	lifetimes []string
	asked     int
}

func (a *sequenceAnswerer) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	l := a.lifetimes[min(a.asked, len(a.lifetimes)-1)]
	a.asked++
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"lifetime": l}}}, nil
}

func TestMakeLegacyLedger(t *testing.T) {
	if os.Getenv("REA_REGENERATE_LEGACY_LEDGER") != "1" {
		t.Skip("generator of testdata/legacy-ledger-v1; set REA_REGENERATE_LEGACY_LEDGER=1 to rewrite the fixture")
	}
	testkit.Need(t, "gdb")
	base := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bins, evRoot, work, extract, elsewhere := mk("bin"), mk("evidence"), mk("work"), mk("extract"), mk("elsewhere")
	fixture := compileFixture(t, bins)
	switcher := testkit.CompileC(t, bins, "switcher", legacySwitchC, "-O2", "-g")
	app := filepath.Join(base, "app.zip")
	zipOf(t, app, []string{"app/main.js", "app/package.json", "README.txt"}, func(n string) string {
		return "legacy fixture content of " + n + "\n"
	})
	src := filepath.Join(base, "asar-src")
	writeFile(t, filepath.Join(src, "package.json"), `{"name":"legacy","main":"main.js"}`)
	writeFile(t, filepath.Join(src, "main.js"), "console.log('the main file of the packed app');\n")
	writeFile(t, filepath.Join(src, "other.js"), "module.exports = 'a verified sibling';\n")
	bad := filepath.Join(base, "tampered.asar")
	packASAR(t, src, bad)
	tamper(t, bad, "the main file of the packed app")
	ledgerPath := filepath.Join(base, "ledger.db")
	env := legacyEnv(
		"REA_GDB_ENABLED=true",
		"REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED=true",
		"REA_EVIDENCE_ROOTS_JSON="+mustJSON(t, []string{evRoot}),
		"REA_ARTIFACT_EXTRACT_ROOTS_JSON="+mustJSON(t, []string{extract}),
		"REA_PROCESS_CAPTURE_ENABLED=true",
		"REA_PROCESS_WORKING_ROOTS_JSON="+mustJSON(t, []string{work}),
		"REA_PROCESS_EXECUTABLE_ROOTS_JSON="+mustJSON(t, []string{"/usr/bin", "/bin"}),
	)
	capture := func(dir string) map[string]any {
		return map[string]any{"executable": "/bin/sh", "arguments": []string{"-c", `read line; echo "got:$line"`},
			"working_directory": dir, "stdin_steps": []map[string]any{{"type": "write", "data": "hello\n"}}, "timeout_ms": 20000}
	}

	// Connection 1: an MCP client with form elicitation, gdb enabled.
	a := &sequenceAnswerer{lifetimes: []string{"once", "session"}}
	c := client.NewClient(transport.NewStdio(testkit.Rea(t), env, "--ledger", ledgerPath, "mcp"), client.WithElicitationHandler(a))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := initialize(t, c)
	// A failed selection: builtin and gdb both serve the ELF.
	if e := s.errorOf("open_binary", map[string]any{"path": fixture}); e["code"] != "capability_unavailable" {
		t.Fatalf("auto with two candidates: %v", e)
	}
	s.ok("open_binary", map[string]any{"path": fixture, "provider_id": "builtin"})
	s.ok("list_procedures", map[string]any{})
	s.ok("procedure_info", map[string]any{"procedure": "main"})
	s.ok("search_strings", map[string]any{"pattern": "banner"})
	s.ok("binary_overview", map[string]any{})
	s.ok("list_dependencies", map[string]any{})
	twice := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "exported_twice"}))
	mainAddr := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "main"}))
	s.ok("set_address_name", map[string]any{"address": twice, "name": "doubler"})
	s.ok("set_comment", map[string]any{"address": mainAddr, "comment": "legacy fixture: program entry"})
	s.ok("goto_address", map[string]any{"address": mainAddr})
	s.ok("procedure_callers", map[string]any{"procedure": "helper_add"})
	s.ok("procedure_info", map[string]any{"procedure": "doubler"})

	// A second binary replaces the first (a switch), bound to gdb.
	s.ok("open_binary", map[string]any{"path": switcher, "provider_id": "gdb"})
	s.ok("list_procedures", map[string]any{"limit": 20})
	s.ok("procedure_info", map[string]any{"procedure": "dispatch"})
	s.ok("procedure_assembly", map[string]any{"procedure": "dispatch"})
	// A failed selection while a target is open: the target stays.
	if e := s.errorOf("open_binary", map[string]any{"path": switcher, "provider_id": "no-such-provider"}); e["code"] != "capability_unavailable" {
		t.Fatalf("unknown provider: %v", e)
	}
	s.ok("list_segments", map[string]any{})
	// gdb dies: a health transition and a second lineage observation.
	lin, _ := fullLineage(t, s)
	if len(lin.Snapshots) != 1 || lin.Snapshots[0].Observation.LauncherPID <= 0 {
		t.Fatalf("gdb lineage %+v", lin)
	}
	drainChanged(s)
	if err := syscall.Kill(lin.Snapshots[0].Observation.LauncherPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.waitChanged()
	s.ok("close_binary", map[string]any{})

	// An archive: inventory, an extraction inside the ceiling, one outside.
	s.ok("open_binary", map[string]any{"path": app})
	inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
	occ, _ := inv.occurrence(t, "app/main.js")
	s.ok("extract_artifact", map[string]any{"approved": true, "output_root": filepath.Join(extract, "out"), "occurrence_ids": []string{occ}})
	if e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": filepath.Join(elsewhere, "out"),
		"occurrence_ids": []string{occ}}); e["code"] != "permission_required" {
		t.Fatalf("extraction outside the ceiling: %v", e)
	}

	// A tampered ASAR, recorded and continued: an integrity contradiction.
	s.ok("open_binary", map[string]any{"path": bad})
	rc := map[string]any{"integrity_policy": "record-and-continue", "integrity_continue_approved": true}
	if inv := decode[invReply](t, s.ok("inventory_artifact", rc).Structured); len(inv.Result.Contradictions) != 1 {
		t.Fatalf("contradictions %v", inv.Result.Contradictions)
	}

	// The first binary again (a switch from the archive): its annotations are back.
	s.ok("open_binary", map[string]any{"path": fixture, "provider_id": "builtin"})
	s.ok("list_names", map[string]any{"limit": 5})
	s.ok("comment", map[string]any{"address": mainAddr})

	// Captures: a once grant (consumed), a session grant (then used without
	// asking), and a request outside the ceiling.
	s.ok("capture_process_scenario", capture(work))
	s.ok("capture_process_scenario", capture(work))
	s.ok("capture_process_scenario", capture(work))
	if a.asked != 2 {
		t.Fatalf("asked %d times, want 2 (once, then session)", a.asked)
	}
	if e := s.errorOf("capture_process_scenario", capture(elsewhere)); e["code"] != "permission_required" {
		t.Fatalf("capture outside the ceiling: %v", e)
	}
	// Export inside the evidence root, and outside it.
	bundleFile := filepath.Join(evRoot, "bundle.json")
	s.ok("export_evidence_bundle", map[string]any{"path": bundleFile})
	if e := s.errorOf("export_evidence_bundle", map[string]any{"path": filepath.Join(elsewhere, "bundle.json")}); e["code"] != "permission_required" {
		t.Fatalf("export outside the roots: %v", e)
	}
	s.ok("close_binary", map[string]any{})
	c.Close()
	waitClosed(t, ledgerPath, 1)

	// Connection 2: the CLI (transport cli), builtin only.
	cliEnv := legacyEnv()
	cmd := execRea(t, cliEnv, "--ledger", ledgerPath, "analyze", "--json", fixture)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rea analyze: %v\n%s", err, out)
	}
	waitClosed(t, ledgerPath, 2)

	// Connection 3: an MCP client without elicitation, gdb disabled, and a
	// project store whose one grant covers the capture until the CLI
	// revokes it from another process.
	proj, storeDir := mk("proj"), mk("store")
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	env3 := map[string]string{
		policy.EnvEvidenceRoots:          mustJSON(t, []string{evRoot}),
		policy.EnvProcessCaptureEnabled:  "true",
		policy.EnvProcessWorkingRoots:    mustJSON(t, []string{work}),
		policy.EnvProcessExecutableRoots: mustJSON(t, []string{"/usr/bin", "/bin"}),
		policy.EnvProjectRoot:            proj,
		policy.EnvProjectStore:           filepath.Join(storeDir, "store.json"),
	}
	cfg3, err := policy.LoadConfig(env3)
	if err != nil {
		t.Fatal(err)
	}
	const projGrant = "proj-capture-sh"
	if err := policy.WriteStore(context.Background(), *cfg3.Store, cfg3.Ceilings, []policy.Grant{{
		Scope: policy.Scope{Capability: policy.ProcessCapture, Roots: []string{work}, Executables: []string{sh},
			EnvironmentNames: []string{}, Network: policy.NetworkNone},
		GrantID: projGrant, Lifetime: policy.LifetimeProject}}); err != nil {
		t.Fatal(err)
	}
	var env3List []string
	for k, v := range env3 {
		env3List = append(env3List, k+"="+v)
	}
	slices.Sort(env3List)
	c3, err := client.NewStdioMCPClient(testkit.Rea(t), legacyEnv(env3List...), "--ledger", ledgerPath, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	if err := c3.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s3 := initialize(t, c3)
	s3.ok("import_evidence_bundle", map[string]any{"path": bundleFile})
	s3.ok("capture_process_scenario", capture(work)) // the project grant
	// Another executable: no grant covers it, and no elicitation.
	other := capture(work)
	other["executable"], other["arguments"] = "/usr/bin/true", []string{}
	if e := s3.errorOf("capture_process_scenario", other); e["code"] != "permission_required" {
		t.Fatalf("capture without a grant or elicitation: %v", e)
	}
	if out, err := execRea(t, legacyEnv(env3List...), "--ledger", ledgerPath, "policy", "revoke", projGrant, "--yes", "--json").CombinedOutput(); err != nil {
		t.Fatalf("rea policy revoke: %v\n%s", err, out)
	}
	if e := s3.errorOf("capture_process_scenario", capture(work)); e["code"] != "permission_required" {
		t.Fatalf("capture after the revocation: %v", e)
	}
	s3.ok("open_binary", map[string]any{"path": fixture})
	s3.ok("list_procedures", map[string]any{})                      // now with the user name: new Evidence
	s3.ok("procedure_info", map[string]any{"procedure": "doubler"}) // connection 1's Evidence again (new:false)
	c3.Close()                                                      // closes the open target with the connection
	waitClosed(t, ledgerPath, 3)

	// Freeze: one self-contained, compacted SQLite file.
	compactLedger(t, ledgerPath)
	out := filepath.Join("testdata", legacyFixtureDir)
	if err := os.MkdirAll(filepath.Join(out, "explain"), 0o755); err != nil {
		t.Fatal(err)
	}
	olds, _ := filepath.Glob(filepath.Join(out, "explain", "*"))
	for _, o := range olds {
		os.Remove(o)
	}
	copyFile(t, ledgerPath, filepath.Join(out, legacyLedgerFile))
	// The answers are observed without the session's files: nothing of them
	// may depend on the binaries, roots or bundle file still existing.
	ids := legacyInventory(t, ledgerPath)
	if err := os.RemoveAll(base); err != nil {
		t.Fatal(err)
	}
	obs := observeLegacy(t, filepath.Join(out, legacyLedgerFile), ids)
	if t.Failed() {
		t.Fatal("the observation failed; answers not written")
	}
	obs.write(t, out)
	build, _ := debug.ReadBuildInfo()
	t.Logf("fixture written to %s by %s: %d evidence ids, %d runs, %d decisions, digest %s",
		out, build.Main.Version, len(ids.EvidenceIDs), len(ids.RunIDs), len(ids.DecisionIDs), obs.Answers.ProjectionDigest)
}

// waitClosed waits until the ledger holds n connection_closed events: a
// closed client's server appends its last events as it exits.
func waitClosed(t *testing.T, path string, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		led, err := ledger.OpenReadOnly(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var got int
		err = led.ReadDB().QueryRow(`SELECT count(*) FROM events WHERE type = 'connection_closed'`).Scan(&got)
		led.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connection_closed events after 30s, want %d", got, n)
		}
	}
}

// compactLedger VACUUMs the ledger and checkpoints its WAL into the main
// file, so the fixture is one small file (still in WAL mode, as REA made it).
func compactLedger(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path) // the driver the ledger registers
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{`VACUUM`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
