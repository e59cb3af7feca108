package tools_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	engsession "github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/internal/testkit"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

func TestBinarySessionBeforeOpen(t *testing.T) {
	s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
	full := decode[struct {
		Result struct {
			Open       bool `json:"open"`
			Candidates []struct {
				Provider      struct{ ID string }
				TargetSupport struct{ Status string } `json:"target_support"`
				Selected      bool
			} `json:"analysis_provider_candidates"`
			Run     any `json:"analysis_run"`
			Binding any `json:"analysis_provider_binding"`
			Tools   []struct {
				Name      string
				Available bool
				Reason    string
				Remedy    *string `json:"remediation"`
			} `json:"tool_availability"`
			Activity struct{ Status string } `json:"analysis_activity"`
		} `json:"result"`
	}](t, s.ok("binary_session", map[string]any{"detail": "full"}).Structured).Result
	if full.Open || full.Run != nil || full.Binding != nil || full.Activity.Status != "not_observed" {
		t.Fatalf("before open: %+v", full)
	}
	if len(full.Candidates) == 0 {
		t.Fatal("no candidates")
	}
	for i, c := range full.Candidates {
		if c.TargetSupport.Status != "unknown" || c.Selected {
			t.Fatalf("candidate %s: %+v", c.Provider.ID, c)
		}
		if i > 0 && full.Candidates[i-1].Provider.ID >= c.Provider.ID {
			t.Fatal("candidates not sorted by id")
		}
	}
	if len(full.Tools) != catalogSize() {
		t.Fatalf("tool_availability has %d entries, want %d", len(full.Tools), catalogSize())
	}
	listed := s.toolNames()
	for _, a := range full.Tools {
		if listed[a.Name] != a.Available {
			t.Fatalf("tools/list and tool_availability disagree on %s", a.Name)
		}
		if !a.Available && (a.Remedy == nil || *a.Remedy == "") {
			t.Fatalf("%s unavailable without remediation", a.Name)
		}
		if a.Name == "list_procedures" && a.Reason != "target_required" {
			t.Fatalf("list_procedures reason %s", a.Reason)
		}
	}

	sum := decode[struct {
		Result struct {
			Alignment struct {
				State   string
				Reasons []string
			}
		} `json:"result"`
	}](t, s.ok("binary_session", map[string]any{"expected_package_version": "0.0.0-other"}).Structured).Result
	if sum.Alignment.State != "mcp_server_restart_required" || len(sum.Alignment.Reasons) != 1 || sum.Alignment.Reasons[0] != "package_version_mismatch" {
		t.Fatalf("alignment: %+v", sum.Alignment)
	}
	same := decode[struct {
		Result struct{ Alignment struct{ State string } } `json:"result"`
	}](t, s.ok("binary_session", map[string]any{"expected_package_version": "test"}).Structured).Result
	if same.Alignment.State != "aligned" {
		t.Fatalf("matching expectation: %+v", same.Alignment)
	}
}

func TestBadInputGivesTypedErrors(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	random := make([]byte, 4096)
	rand.Read(random)
	elf, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()

	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	cases := []struct {
		name, path, code, reason string
	}{
		{"missing path", filepath.Join(dir, "does-not-exist"), "target_unavailable", "not_found"},
		{"relative path", "relative/path", "invalid_request", ""},
		{"zero-byte file", write("empty", nil), "target_unavailable", "unsupported_format"},
		{"random bytes", write("random", random), "target_unavailable", "unsupported_format"},
		{"truncated ELF header", write("truncated", elf[:40]), "target_unavailable", "unsupported_format"},
		{"2 GiB sparse file", sparse, "target_unavailable", "unsupported_format"},
	}
	for _, c := range cases {
		e := s.errorOf("open_binary", map[string]any{"path": c.path})
		details, _ := e["details"].(map[string]any)
		if e["code"] != c.code || (c.reason != "" && details["reason"] != c.reason) {
			t.Errorf("%s: got %v", c.name, e)
		}
		// The connection stays usable.
		s.ok("binary_session", map[string]any{})
	}
	for name, args := range map[string]map[string]any{
		"unknown argument": {"path": fixture, "bogus": 1},
		"bad provider id":  {"path": fixture, "provider_id": "Not Valid"},
		"wrong type":       {"path": 7},
	} {
		if e := s.errorOf("open_binary", args); e["code"] != "invalid_request" {
			t.Errorf("%s: %v", name, e)
		}
	}
	// Still works after all of it.
	s.ok("open_binary", map[string]any{"path": fixture})
}

// TestUnreadableDirectory needs a user the kernel checks permissions for: as
// root it runs `rea analyze` as nobody.
func TestUnreadableDirectory(t *testing.T) {
	base, err := os.MkdirTemp("", "rea-unreadable")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755)
	locked := filepath.Join(base, "locked")
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		os.Chmod(locked, 0)
		defer os.Chmod(locked, 0o755)
		s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
		e := s.errorOf("open_binary", map[string]any{"path": locked})
		if d, _ := e["details"].(map[string]any); e["code"] != "target_unavailable" || d["reason"] != "unreadable" {
			t.Fatalf("got %v", e)
		}
		s.ok("binary_session", map[string]any{})
		return
	}
	bin := filepath.Join(base, "rea")
	b, err := os.ReadFile(testkit.Rea(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(base, "state")
	os.Mkdir(state, 0o777)
	os.Chmod(state, 0o777)
	os.Chown(locked, 0, 0)
	os.Chmod(locked, 0o700)
	cmd := exec.Command(bin, "--ledger", filepath.Join(state, "ledger.db"), "analyze", "--json", locked)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, _ := cmd.Output()
	var env struct {
		Error struct {
			Code    string
			Details map[string]any
		}
	}
	if err := json.Unmarshal(out, &env); err != nil || env.Error.Code != "target_unavailable" || env.Error.Details["reason"] != "unreadable" {
		t.Fatalf("as nobody: %s (%v)", out, err)
	}
}

func TestCancelledOpenRecordsNoBinding(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	// A valid ELF followed by 1 GiB of (sparse) trailing bytes: hashing takes a while.
	if err := os.Truncate(fixture, 1<<30); err != nil {
		t.Fatal(err)
	}
	led, err := ledger.Open(context.Background(), filepath.Join(dir, "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"})
	conn, err := eng.OpenConnection(context.Background(), engsession.Info{Transport: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hashing := make(chan struct{})
	var once bool
	go func() {
		<-hashing
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	_, err = conn.OpenBinary(ctx, fixture, "", reporterFunc(func(phase string, completed float64) {
		if phase == "hash" && completed > 0 && !once {
			once = true
			close(hashing)
		}
	}))
	if !fault.Is(err, fault.Cancelled) {
		t.Fatalf("got %v, want cancelled", err)
	}
	if fault.Is(err, fault.ProviderTimeout) {
		t.Fatal("cancellation reported as timeout")
	}
	if st := conn.State(); st.Open {
		t.Fatal("a cancelled open left a target open")
	}
	var bound int
	led.ReadDB().QueryRow(`SELECT count(*) FROM events WHERE type IN ('provider_bound','target_opened','analysis_run_allocated')`).Scan(&bound)
	if bound != 0 {
		t.Fatalf("%d binding events recorded for a cancelled open", bound)
	}
	// The connection stays usable.
	if _, err := conn.CloseBinary(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
}

// TestReplayReproducesProjections runs a realistic session — opens,
// operations, a failed selection, close, reopen — then checks that
// `rea ledger rebuild`, and `rea ledger export` + `import` into an empty
// ledger, reproduce the projection digest.
func TestReplayReproducesProjections(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	ledgerPath := filepath.Join(dir, "ledger.db")
	s := startStdio(t, ledgerPath)
	s.ok("open_binary", map[string]any{"path": fixture})
	s.ok("list_procedures", map[string]any{})
	s.ok("list_strings", map[string]any{"limit": 5})
	s.ok("binary_overview", map[string]any{})
	if e := s.errorOf("open_binary", map[string]any{"path": fixture, "provider_id": "no-such-provider"}); e["code"] != "capability_unavailable" {
		t.Fatalf("failed selection: %v", e)
	}
	s.ok("list_names", map[string]any{"offset": 1, "limit": 3}) // the failed switch left the target open
	s.ok("close_binary", map[string]any{})
	s.ok("open_binary", map[string]any{"path": fixture, "provider_id": "builtin"})
	s.ok("list_segments", map[string]any{})
	s.c.Close()
	time.Sleep(200 * time.Millisecond)

	digest := func(path string) string {
		led, err := ledger.Open(context.Background(), path, ledger.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer led.Close()
		d, err := led.ProjectionDigest(context.Background(), projections.All())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	rea := func(args ...string) string {
		out, err := exec.Command(testkit.Rea(t), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("rea %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	before := digest(ledgerPath)
	rea("--ledger", ledgerPath, "ledger", "rebuild")
	if after := digest(ledgerPath); after != before {
		t.Fatalf("rebuild changed the projection digest: %s → %s", before, after)
	}
	export := filepath.Join(dir, "export.jsonl")
	rea("--ledger", ledgerPath, "ledger", "export", "-o", export)
	if fi, err := os.Stat(export); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export mode: %v %v", fi, err)
	}
	rea("ledger", "verify", export)
	imported := filepath.Join(dir, "imported", "ledger.db")
	rea("--ledger", imported, "ledger", "import", export)
	if got := digest(imported); got != before {
		t.Fatalf("import gives digest %s, source %s", got, before)
	}
	rea("--ledger", imported, "ledger", "verify")
}

type reporterFunc func(phase string, completed float64)

type progressUpdate = progress.Update

func (f reporterFunc) Report(u progressUpdate) { f(u.Phase, u.Completed) }

// TestCancelOpenOverMCP cancels open_binary from the client while the server
// hashes a large file: the client's notifications/cancelled reaches the
// handler's context, nothing is bound, and the connection stays usable.
func TestCancelOpenOverMCP(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	if err := os.Truncate(fixture, 4<<30); err != nil {
		t.Fatal(err)
	}
	ledgerPath := filepath.Join(dir, "ledger.db")
	s := startStdio(t, ledgerPath)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for p := range s.progress {
			if msg, _ := p["message"].(string); strings.HasPrefix(msg, "hash:") {
				cancel()
				return
			}
		}
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "open_binary", map[string]any{"path": fixture}
	req.Params.Meta = &mcp.Meta{ProgressToken: "open-1"}
	start := time.Now()
	_, err := s.c.CallTool(ctx, req)
	if err == nil {
		t.Fatal("open_binary completed; the test could not cancel it during hashing")
	}
	t.Logf("cancelled after %v", time.Since(start))
	st := decode[struct {
		Result struct{ Open bool } `json:"result"`
	}](t, s.ok("binary_session", map[string]any{}).Structured)
	if st.Result.Open {
		t.Fatal("a cancelled open left a target open")
	}
	s.ok("close_binary", map[string]any{})
	s.c.Close()
	time.Sleep(200 * time.Millisecond)
	led, err := ledger.OpenReadOnly(context.Background(), ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	var n int
	led.ReadDB().QueryRow(`SELECT count(*) FROM events WHERE type IN ('provider_bound','target_opened','analysis_run_allocated')`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d binding events recorded for a cancelled open", n)
	}
}
