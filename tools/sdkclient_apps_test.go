package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// Issue 14's acceptance through an independent client: the official
// TypeScript MCP SDK (testkit.MCPSDKPackage) runs the application-with-
// libraries flow of TestApplicationWithLibraries against a real `rea mcp`,
// over stdio and over streamable HTTP, through testdata/sdkclient/apps.mjs.
// The script only drives; the expected answers come from ldd, nm -D and
// objdump here (linkageOf), and this test compares.

// appsReport is what apps.mjs prints.
type appsReport struct {
	SDKVersion   string     `json:"sdk_version"`
	Node         string     `json:"node_version"`
	Transport    string     `json:"transport"`
	Negotiated   *string    `json:"negotiated"`
	ClientErrors []string   `json:"client_errors"`
	Calls        []appsCall `json:"calls"`
}

type appsCall struct {
	Step       string          `json:"step"`
	Tool       string          `json:"tool"`
	Arguments  map[string]any  `json:"arguments"`
	Outcome    string          `json:"outcome"`
	Message    string          `json:"message"`
	Code       *string         `json:"code"`
	Listed     bool            `json:"listed"`
	Validator  bool            `json:"validator"`
	Structured bool            `json:"structured"`
	Validated  bool            `json:"validated"`
	Result     json.RawMessage `json:"result"`
}

// step returns the result of the call recorded under name, decoded into
// a T; the test fails when there is none.
func step[T any](t *testing.T, rep *appsReport, name string) T {
	t.Helper()
	var v T
	for _, c := range rep.Calls {
		if c.Step == name {
			if err := json.Unmarshal(c.Result, &v); err != nil {
				t.Fatalf("%s: %v in %s", name, err, c.Result)
			}
			return v
		}
	}
	t.Fatalf("the report has no step %s", name)
	return v
}

type appsTargets struct {
	Targets []struct {
		TargetID string `json:"target_id"`
		Active   bool   `json:"active"`
		Path     string `json:"path"`
	} `json:"targets"`
}

func TestSDKClientApplicationWithLibraries(t *testing.T) {
	sdkDir := testkit.MCPSDK(t)
	node := testkit.Need(t, "node")
	rea := testkit.Rea(t)
	_, exe, _, _ := testkit.AppWithLibraries(t)
	host := linkageOf(t, exe)

	names := []string{"main"} // a defined procedure: not_an_import
	for _, u := range host.imports {
		names = append(names, u.query())
	}
	var addresses []string
	for _, st := range host.stubs {
		addresses = append(addresses, fmt.Sprintf("0x%x", st.addr))
	}
	plan := map[string]any{
		"sdk_dir": sdkDir, "rea": rea, "app": exe, "names": names, "addresses": addresses,
		"close": "libtwo.so.1", "after_close": []string{"two_fn@TWO_1.0", "one_fn"},
	}

	t.Run("stdio", func(t *testing.T) {
		ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
		plan["transport"], plan["ledger"] = "stdio", ledgerPath
		checkAppsReport(t, host, exe, runAppsDriver(t, node, plan))
		if out, err := exec.Command(rea, "--ledger", ledgerPath, "ledger", "verify").CombinedOutput(); err != nil {
			t.Fatalf("rea ledger verify after the stdio session: %v\n%s", err, out)
		}
	})
	t.Run("http", func(t *testing.T) {
		ledgerPath := filepath.Join(t.TempDir(), "ledger.db")
		cmd, url := reaHTTP(t, ledgerPath)
		plan["transport"], plan["url"], plan["token"] = "http", url, testToken
		checkAppsReport(t, host, exe, runAppsDriver(t, node, plan))
		stopRea(t, cmd, syscall.SIGTERM, ledgerPath)
	})
}

// runAppsDriver runs apps.mjs on plan and returns its report.
func runAppsDriver(t *testing.T, node string, plan map[string]any) *appsReport {
	t.Helper()
	planPath := filepath.Join(t.TempDir(), "plan.json")
	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, planPath, string(b))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "sdkclient", "apps.mjs"), planPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node apps.mjs: %v\nstderr:\n%s", err, tail(stderr.String(), 4000))
	}
	var rep appsReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("apps.mjs report: %v\n%s\nstderr:\n%s", err, tail(stdout.String(), 2000), tail(stderr.String(), 4000))
	}
	return &rep
}

// checkAppsReport compares what the SDK client saw with ldd, nm -D and
// objdump, as TestApplicationWithLibraries does in process.
func checkAppsReport(t *testing.T, host *hostLinkage, exe string, rep *appsReport) {
	t.Helper()
	negotiated := "none"
	if rep.Negotiated != nil {
		negotiated = *rep.Negotiated
	}
	t.Logf("SDK %s on node %s over %s, revision %s: %d calls", rep.SDKVersion, rep.Node, rep.Transport, negotiated, len(rep.Calls))
	for _, m := range rep.ClientErrors {
		t.Errorf("the SDK client reported: %s", m)
	}
	// Every call succeeds and the SDK validated its structuredContent.
	for _, c := range rep.Calls {
		switch {
		case c.Outcome != "success":
			t.Errorf("%s: %s %v: %s: %s", c.Step, c.Tool, c.Arguments, c.Outcome, c.Message)
		case !c.Validated:
			t.Errorf("%s: %s not validated by the SDK (listed %v, validator %v, structuredContent %v)", c.Step, c.Tool, c.Listed, c.Validator, c.Structured)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	// A target's path is its realpath (CONTRACTS.md §2 open_binary); ldd
	// prints the path the loader searched (/lib is /usr/lib on Debian).
	canon := map[string]string{}
	for _, so := range appNeeded {
		canon[so] = realpath(t, host.ldd[so])
	}

	app := step[struct {
		TargetID string `json:"target_id"`
	}](t, rep, "open_app").TargetID
	before := step[[]dependencyItem](t, rep, "dependencies_before")
	var names []string
	for _, d := range before {
		names = append(names, d.Name)
		if d.CandidatePath == nil || *d.CandidatePath != host.ldd[d.Name] || d.Resolved != nil {
			t.Errorf("dependency %s before its open: candidate %v resolved %v; ldd says %s", d.Name, d.CandidatePath, d.Resolved, host.ldd[d.Name])
		}
	}
	if strings.Join(names, " ") != strings.Join(appNeeded, " ") {
		t.Fatalf("dependencies %v, want %v", names, appNeeded)
	}
	libs := map[string]string{} // soname → target id
	ids := map[string]bool{app: true}
	for _, so := range appNeeded {
		id := step[struct {
			TargetID string `json:"target_id"`
		}](t, rep, "open:"+so).TargetID
		if !strings.HasPrefix(id, "tgt_") || ids[id] {
			t.Errorf("open %s: target id %q (already seen %v)", so, id, ids[id])
		}
		libs[so], ids[id] = id, true
	}
	for _, d := range step[[]dependencyItem](t, rep, "dependencies_after") {
		if d.Resolved == nil || d.Resolved.TargetID != libs[d.Name] || d.Resolved.Path != canon[d.Name] {
			t.Errorf("dependency %s resolved to %+v, want %s at %s", d.Name, d.Resolved, libs[d.Name], canon[d.Name])
		}
	}

	// Every import by name: nm -D's library and address, or
	// symbol_not_exported when no library defines it.
	resolved := 0
	for _, u := range host.imports {
		query := u.query()
		ans := step[importAnswer](t, rep, "name:"+query)
		if ans.Import.Name != u.name || (u.version != "") != (ans.Import.Version != nil) {
			t.Errorf("%s: import described as %+v", query, ans.Import)
		}
		so, addr, ok := host.definition(u.name, u.version)
		want := resolutionWant{reason: "symbol_not_exported"}
		if ok {
			want = resolutionWant{target: libs[so], path: canon[so], address: fmt.Sprintf("0x%x", addr), name: u.name}
			resolved++
		}
		want.check(t, query, ans)
	}
	if resolved < 8 {
		t.Errorf("only %d imports have a definition in nm -D", resolved)
	}
	t.Logf("%d imports by name (%d defined by a library), %d PLT stubs by address", len(host.imports), resolved, len(host.stubs))
	// Every PLT stub by address: objdump's <name@plt>, resolved to the
	// definition of the program's import of that name.
	for _, st := range host.stubs {
		addr := fmt.Sprintf("0x%x", st.addr)
		ans := step[importAnswer](t, rep, "address:"+addr)
		if ans.Import.Name != st.name || ans.Import.Address == nil || *ans.Import.Address != addr {
			t.Errorf("stub %s <%s@plt>: import described as %+v", addr, st.name, ans.Import)
		}
		want := resolutionWant{reason: "symbol_not_exported"}
		for _, u := range host.imports {
			if u.name == st.name {
				if so, a, ok := host.definition(u.name, u.version); ok {
					want = resolutionWant{target: libs[so], path: canon[so], address: fmt.Sprintf("0x%x", a), name: u.name}
				}
			}
		}
		want.check(t, "stub "+addr+" <"+st.name+"@plt>", ans)
	}
	resolutionWant{reason: "not_an_import"}.check(t, "main", step[importAnswer](t, rep, "name:main"))

	// binary_session lists the four targets in open order, the last opened
	// active.
	order := []string{app}
	paths := map[string]string{app: realpath(t, exe)}
	for _, so := range appNeeded {
		order = append(order, libs[so])
		paths[libs[so]] = canon[so]
	}
	checkTargets(t, "session", step[appsTargets](t, rep, "session"), order, paths)

	// libtwo closed: its import is library_not_open; libone's still resolves.
	if id := step[struct {
		TargetID string `json:"target_id"`
	}](t, rep, "close").TargetID; id != libs["libtwo.so.1"] {
		t.Errorf("close_binary closed %s, want %s", id, libs["libtwo.so.1"])
	}
	resolutionWant{reason: "library_not_open"}.check(t, "two_fn@TWO_1.0 with libtwo closed", step[importAnswer](t, rep, "after_close:two_fn@TWO_1.0"))
	so, addr, _ := host.definition("one_fn", "")
	resolutionWant{target: libs[so], path: canon[so], address: fmt.Sprintf("0x%x", addr), name: "one_fn"}.check(t, "one_fn with libtwo closed",
		step[importAnswer](t, rep, "after_close:one_fn"))
	checkTargets(t, "session after close", step[appsTargets](t, rep, "session_after_close"),
		[]string{app, libs["libone.so"], libs["libc.so.6"]}, paths)
}

// resolutionWant is one expected resolve_import answer: a resolution, or
// none and a reason.
type resolutionWant struct {
	target, path, address, name string
	reason                      string
}

func (w resolutionWant) check(t *testing.T, what string, ans importAnswer) {
	t.Helper()
	got, _ := json.Marshal(ans)
	if w.reason != "" {
		if ans.Resolution != nil || ans.Reason == nil || *ans.Reason != w.reason {
			t.Errorf("%s: %s, want no resolution and reason %s", what, got, w.reason)
		}
		return
	}
	r := ans.Resolution
	if r == nil || ans.Reason != nil || r.TargetID != w.target || r.LibraryPath != w.path || r.Procedure.Address != w.address || r.Procedure.Name != w.name {
		t.Errorf("%s: %s, want %s (%s) procedure %s at %s", what, got, w.target, w.path, w.name, w.address)
	}
}

func checkTargets(t *testing.T, what string, got appsTargets, order []string, paths map[string]string) {
	t.Helper()
	var ids []string
	for i, tg := range got.Targets {
		ids = append(ids, tg.TargetID)
		if tg.Path != paths[tg.TargetID] || tg.Active != (i == len(got.Targets)-1) {
			t.Errorf("%s: target %s path %s active %v, want path %s, active only the last", what, tg.TargetID, tg.Path, tg.Active, paths[tg.TargetID])
		}
	}
	if strings.Join(ids, " ") != strings.Join(order, " ") {
		t.Errorf("%s: targets %v, want %v", what, ids, order)
	}
}

func realpath(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
