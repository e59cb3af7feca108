package gdb

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/internal/testkit"
	"golang.org/x/sys/unix"
)

func TestConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if c, err := ConfigFromEnv(env(nil)); err != nil || c.Enabled {
		t.Fatalf("%+v %v", c, err)
	}
	if c, err := ConfigFromEnv(env(map[string]string{EnvEnabled: "true", EnvPath: "/opt/gdb"})); err != nil || !c.Enabled || c.Path != "/opt/gdb" {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := ConfigFromEnv(env(map[string]string{EnvEnabled: "yes-secret"})); err == nil || strings.Contains(err.Error(), "yes-secret") {
		t.Fatalf("invalid value: %v", err)
	}
}

// Target-free discovery reports configuration without starting a process.
func TestTargetFreeDiscoveryStartsNothing(t *testing.T) {
	before := childrenOf(t, os.Getpid())
	off := New(Config{})
	a := off.Availability(context.Background())
	if a.Status != "unavailable" || *a.Code != "not_configured" || *a.Reason == "" || *a.Remediation == "" {
		t.Fatalf("disabled: %+v", a)
	}
	if off.Identity().Version != nil || off.Identity().ID != "gdb" || len(off.Capabilities()) != len(operations) {
		t.Fatalf("identity %+v", off.Identity())
	}
	missing := New(Config{Enabled: true, Path: "/nonexistent/rea-test/gdb"})
	a = missing.Availability(context.Background())
	if a.Status != "unavailable" || *a.Code != "executable_missing" || *a.Remediation == "" {
		t.Fatalf("missing: %+v", a)
	}
	if _, err := missing.Profile(context.Background(), provider.Target{Path: "/bin/true", Kind: "executable", Format: "elf", Architecture: "x86_64"}); !fault.Is(err, fault.ProviderUnavailable) {
		t.Fatalf("Profile with no gdb: %v", err)
	}
	if _, err := lookPath("gdb"); err == nil {
		on := New(Config{Enabled: true})
		if a := on.Availability(context.Background()); a.Status != "available" {
			t.Fatalf("enabled: %+v", a)
		}
		on.Support(provider.Target{Kind: "executable", Format: "elf", Architecture: "x86_64"})
		on.Capabilities()
		on.Identity()
	}
	if after := childrenOf(t, os.Getpid()); len(after) > len(before) {
		t.Fatalf("discovery started processes: %v -> %v", before, after)
	}
	for tg, code := range map[provider.Target]string{
		{Kind: "archive", Format: "zip"}:                           "target_kind_unsupported",
		{Kind: "executable", Format: "pe", Architecture: "x86_64"}: "target_format_unsupported",
		{Kind: "executable", Format: "elf"}:                        "architecture_unsupported",
	} {
		if s := off.Support(tg); s.Status != "unsupported" || *s.Code != code {
			t.Errorf("%+v: %+v", tg, s)
		}
	}
}

func TestProfileCarriesVersion(t *testing.T) {
	p := enabled(t)
	prof, err := p.Profile(context.Background(), targetOf(t, fixture(t)))
	if err != nil {
		t.Fatal(err)
	}
	if err := prof.Verify(); err != nil {
		t.Fatal(err)
	}
	vs, _ := prof.Parameters["version_string"].(string)
	if !strings.HasPrefix(vs, "GNU gdb") || prof.Provider.Version == nil || !strings.Contains(vs, *prof.Provider.Version) {
		t.Fatalf("profile %+v", prof)
	}
	if prof.Parameters["interpreter"] != "mi3" || prof.Parameters["syntax"] != "intel" || len(prof.Parameters["executable_sha256"].(string)) != 64 {
		t.Fatalf("parameters %+v", prof.Parameters)
	}
	if id := p.Identity(); id.Version == nil || *id.Version != *prof.Provider.Version {
		t.Fatalf("identity %+v", id)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"GNU gdb (Debian 13.1-3) 13.1\nCopyright":       "13.1",
		"GNU gdb (GDB) 14.2":                            "14.2",
		"GNU gdb (Ubuntu 12.1-0ubuntu1~22.04.2) 12.1\n": "12.1",
		"GNU gdb (GDB) 15.0.50.20240101-git":            "15.0.50.20240101-git",
	} {
		if _, v, _, err := parseVersion([]byte(in)); err != nil || v != want {
			t.Errorf("%q: %q %v", in, v, err)
		}
	}
	for _, bad := range []string{"", "lldb 17", "GNU gdb (x)"} {
		if _, _, _, err := parseVersion([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func allPages[T any](t *testing.T, c provider.Client, op string, extra provider.Params) []T {
	t.Helper()
	var out []T
	for offset := int64(0); ; {
		in := provider.Params{"offset": offset, "limit": int64(500), "document": nil}
		for k, v := range extra {
			in[k] = v
		}
		res, err := c.Do(context.Background(), op, in, nil)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		page := res.Normalized.(provider.Page[T])
		out = append(out, page.Items...)
		if page.NextOffset == nil {
			if page.Total == nil || *page.Total != len(out) {
				t.Fatalf("%s: total %v, got %d items", op, page.Total, len(out))
			}
			return out
		}
		offset = int64(*page.NextOffset)
	}
}

func startBuiltin(t *testing.T, path string) provider.Client {
	t.Helper()
	b := builtin.New("test")
	tg := targetOf(t, path)
	prof, err := b.Profile(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.Start(context.Background(), tg, prof, provider.Run{ID: testRunID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// gdb and builtin agree on every function start and name of the program's
// own functions; procedure_info adds the source file and line.
func TestAgreesWithBuiltin(t *testing.T) {
	path := fixture(t)
	g := startClient(t, enabled(t), path)
	b := startBuiltin(t, path)
	gp := allPages[provider.ProcedureItem](t, g, provider.OpListProcedures, nil)
	bp := allPages[provider.ProcedureItem](t, b, provider.OpListProcedures, nil)
	index := func(items []provider.ProcedureItem) map[string]string {
		m := map[string]string{}
		for _, it := range items {
			m[it.Value] = it.Address
		}
		return m
	}
	gi, bi := index(gp), index(bp)
	for name := range ownFunctions {
		if gi[name] == "" || gi[name] != bi[name] {
			t.Errorf("%s: gdb %q, builtin %q", name, gi[name], bi[name])
		}
	}
	// Beyond the fixture's own functions: every named procedure both list
	// starts at the same address, and the import stubs agree too.
	for name, a := range gi {
		if ba, ok := bi[name]; ok && ba != a {
			t.Errorf("%s: gdb %s, builtin %s", name, a, ba)
		}
	}
	if !slices.IsSortedFunc(gp, func(x, y provider.ProcedureItem) int {
		xa, _ := provider.ParseAddress(x.Address)
		ya, _ := provider.ParseAddress(y.Address)
		return int(min(max(int64(xa)-int64(ya), -1), 1))
	}) {
		t.Error("gdb procedures not sorted by address")
	}
	// Where both list a procedure, they show the same name (one primary
	// rule) or gdb's "NAME@plt" for the builtin's import stub NAME.
	values := map[string]string{}
	for _, it := range bp {
		values[it.Address] = it.Value
	}
	for _, it := range gp {
		if v, ok := values[it.Address]; ok && v != it.Value && v+"@plt" != it.Value {
			t.Errorf("%s: gdb shows %q (aliases %v), builtin %q", it.Address, it.Value, it.Aliases, v)
		}
	}
	if gi["puts@plt"] == "" {
		t.Errorf("no puts@plt stub in %v", gi)
	}

	for name, line := range ownFunctions {
		in := provider.Params{"procedure": name, "document": nil}
		gr, err := g.Do(context.Background(), provider.OpProcedureInfo, in, nil)
		if err != nil {
			t.Fatalf("gdb procedure_info %s: %v", name, err)
		}
		br, err := b.Do(context.Background(), provider.OpProcedureInfo, in, nil)
		if err != nil {
			t.Fatalf("builtin procedure_info %s: %v", name, err)
		}
		gi, bi := gr.Normalized.(provider.ProcedureInfoResult), br.Normalized.(provider.ProcedureInfoResult)
		if gi.Name != name || gi.Entrypoint != bi.Entrypoint || gi.Length != bi.Length || gi.Length == 0 {
			t.Errorf("%s: gdb %+v, builtin %+v", name, gi, bi)
		}
		if gi.Source == nil || gi.Source.Line != line || !strings.HasSuffix(gi.Source.File, "/fixture.c") {
			t.Errorf("%s: source %+v, want fixture.c:%d", name, gi.Source, line)
		}
		if gi.Signature == nil || !strings.Contains(*gi.Signature, name+"(") {
			t.Errorf("%s: signature %v", name, gi.Signature)
		}
		if gi.BasicblockCount != bi.BasicblockCount {
			t.Errorf("%s: basic blocks gdb %d, builtin %d", name, gi.BasicblockCount, bi.BasicblockCount)
		}
		// The same instruction boundaries.
		gf := allInsns(t, g, name)
		bf := allInsns(t, b, name)
		if len(gf) != len(bf) {
			t.Errorf("%s: %d instructions from gdb, %d from builtin", name, len(gf), len(bf))
		}
		for i := range min(len(gf), len(bf)) {
			if gf[i].Address != bf[i].Address || gf[i].Bytes != bf[i].Bytes {
				t.Errorf("%s #%d: gdb %+v, builtin %+v", name, i, gf[i], bf[i])
				break
			}
		}
	}
	sig := func(name string) string {
		r, _ := g.Do(context.Background(), provider.OpProcedureInfo, provider.Params{"procedure": name}, nil)
		return *r.Normalized.(provider.ProcedureInfoResult).Signature
	}
	if s := sig("rea_add"); s != "int rea_add(int, int)" {
		t.Errorf("signature %q", s)
	}
}

func allInsns(t *testing.T, c provider.Client, proc string) []provider.InstructionItem {
	t.Helper()
	var out []provider.InstructionItem
	for offset := int64(0); ; {
		res, err := c.Do(context.Background(), provider.OpReadFunctionInstructions,
			provider.Params{"procedure": proc, "offset": offset, "limit": int64(7)}, nil)
		if err != nil {
			t.Fatalf("read_function_instructions %s: %v", proc, err)
		}
		fi := res.Normalized.(provider.FunctionInstructions)
		out = append(out, fi.Instructions.Items...)
		if fi.Instructions.NextOffset == nil {
			return out
		}
		offset = int64(*fi.Instructions.NextOffset)
	}
}

func do(t *testing.T, c provider.Client, op string, in provider.Params) (provider.Result, error) {
	t.Helper()
	return c.Do(context.Background(), op, in, nil)
}

func TestOperations(t *testing.T) {
	path := fixture(t)
	g := startClient(t, enabled(t), path)
	res, err := do(t, g, provider.OpProcedureAddress, provider.Params{"procedure": "rea_mul"})
	if err != nil {
		t.Fatal(err)
	}
	mul := res.Normalized.(string)
	mulAddr, _ := provider.ParseAddress(mul)

	if res, err := do(t, g, provider.OpAddressName, provider.Params{"address": mul}); err != nil || *res.Normalized.(*string) != "rea_mul" {
		t.Fatalf("address_name: %v %v", res.Normalized, err)
	}
	if res, err := do(t, g, provider.OpAddressName, provider.Params{"address": provider.FormatAddress(mulAddr + 1)}); err != nil || res.Normalized.(*string) != nil {
		t.Fatalf("address_name inside a function: %v %v", res.Normalized, err)
	}
	inside := provider.FormatAddress(mulAddr + 4)
	res, err = do(t, g, provider.OpResolveContaining, provider.Params{"address": inside})
	if cr := res.Normalized.(provider.ContainingResult); err != nil || !cr.Found || cr.Procedure.Name != "rea_mul" || cr.Procedure.Address != mul {
		t.Fatalf("containing: %+v %v", res.Normalized, err)
	}
	if res, err := do(t, g, provider.OpProcedureAddress, provider.Params{"procedure": inside}); err != nil || res.Normalized != mul {
		t.Fatalf("procedure_address of an inner address: %v %v", res.Normalized, err)
	}
	var rodata string
	segs, err := do(t, g, provider.OpListSegments, provider.Params{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range segs.Normalized.([]provider.Segment) {
		if s.Name == ".rodata" {
			rodata = s.Start
			if *s.Executable || s.Writable {
				t.Errorf(".rodata %+v", s)
			}
		}
		if s.Name == ".text" && !*s.Executable {
			t.Errorf(".text %+v", s)
		}
	}
	for addr, reason := range map[string]string{rodata: "not_in_procedure", "0xffffffff0000": "outside_segments"} {
		res, err := do(t, g, provider.OpResolveContaining, provider.Params{"address": addr})
		cr := res.Normalized.(provider.ContainingResult)
		if err != nil || cr.Found || cr.Reason == nil || *cr.Reason != reason {
			t.Errorf("%s: %+v %v", addr, cr, err)
		}
	}
	res, err = do(t, g, provider.OpProcedureAssembly, provider.Params{"procedure": "rea_add"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(res.Normalized.(string), "\n")
	if len(lines) < 5 || !strings.HasPrefix(lines[0], res2addr(t, g, "rea_add")+"  55  push rbp") || !strings.HasSuffix(lines[len(lines)-1], "  c3  ret") {
		t.Fatalf("assembly %q", lines)
	}
	names := allPages[provider.NameItem](t, g, provider.OpListNames, nil)
	primaries := map[string]int{}
	for _, n := range names {
		if n.Symbol.Primary {
			primaries[n.Address]++
		}
		if n.Value == "rea_global_counter" && n.Symbol.Type != "object" {
			t.Errorf("rea_global_counter %+v", n)
		}
	}
	for a, n := range primaries {
		if n != 1 {
			t.Errorf("%s has %d primary names", a, n)
		}
	}
	at := allPages[provider.NameItem](t, g, provider.OpListNames, provider.Params{"address": mul})
	if len(at) != 1 || at[0].Value != "rea_mul" || at[0].Symbol.Type != "function" {
		t.Fatalf("names at rea_mul: %+v", at)
	}
	if res, err := do(t, g, provider.OpListDocuments, provider.Params{}); err != nil || res.Normalized.([]string)[0] != "fixture" {
		t.Fatalf("documents %v %v", res.Normalized, err)
	}
}

func res2addr(t *testing.T, c provider.Client, name string) string {
	res, err := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": name})
	if err != nil {
		t.Fatal(err)
	}
	return res.Normalized.(string)
}

// Client strings never reach gdb: malformed names and addresses are typed
// invalid_request, and the session stays healthy.
func TestInvalidInputsAreRejected(t *testing.T) {
	g := startClient(t, enabled(t), fixture(t))
	for _, tc := range []struct {
		op     string
		in     provider.Params
		reason string
	}{
		{provider.OpProcedureInfo, provider.Params{"procedure": `main"; shell touch /tmp/x`}, "invalid_format"},
		{provider.OpProcedureInfo, provider.Params{"procedure": "main\nshell id"}, "invalid_format"},
		{provider.OpProcedureInfo, provider.Params{"procedure": "0xzz"}, "invalid_format"},
		{provider.OpProcedureInfo, provider.Params{"procedure": "no_such_function"}, "invalid_value"},
		{provider.OpProcedureAssembly, provider.Params{"procedure": ""}, "missing_argument"},
		{provider.OpAddressName, provider.Params{"address": "$pc"}, "invalid_format"},
		{provider.OpResolveContaining, provider.Params{}, "missing_argument"},
		{provider.OpListProcedures, provider.Params{"limit": int64(501)}, "out_of_range"},
		{provider.OpReadFunctionInstructions, provider.Params{"procedure": "main", "offset": int64(100001)}, "out_of_range"},
		{provider.OpListNames, provider.Params{"document": "other"}, "invalid_value"},
	} {
		_, err := do(t, g, tc.op, tc.in)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest {
			t.Errorf("%s %v: %v", tc.op, tc.in, err)
			continue
		}
		if issues := fe.Details["issues"].([]fault.Issue); issues[0].Reason != tc.reason {
			t.Errorf("%s %v: reason %q, want %q", tc.op, tc.in, issues[0].Reason, tc.reason)
		}
	}
	if _, err := do(t, g, "xrefs", provider.Params{}); !fault.Is(err, fault.CapabilityUnavailable) {
		t.Errorf("undeclared operation: %v", err)
	}
	if err := g.Health(); err != nil {
		t.Fatal(err)
	}
}

// Cancelling a long request interrupts the owned gdb and the session
// recovers; a deadline is provider_timeout, never cancelled.
func TestCancellationInterruptsAndRecovers(t *testing.T) {
	testkit.Need(t, "sleep")
	g := startClient(t, enabled(t), fixture(t))
	const long = `-interpreter-exec console "shell sleep 60"`

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := g.s.exec(ctx, long)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled exec: %v", err)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Fatalf("cancellation took %v", el)
	}
	if f := toFault("list_procedures", err); !fault.Is(f, fault.Cancelled) {
		t.Fatalf("fault %v", f)
	}
	if err := g.Health(); err != nil {
		t.Fatalf("unhealthy after a recovered interrupt: %v", err)
	}
	if _, err := do(t, g, provider.OpProcedureAddress, provider.Params{"procedure": "main"}); err != nil {
		t.Fatalf("after cancellation: %v", err)
	}

	dctx, dcancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer dcancel()
	_, _, err = g.s.exec(dctx, long)
	f := toFault("list_procedures", err)
	if !fault.Is(f, fault.ProviderTimeout) || fault.Is(f, fault.Cancelled) {
		t.Fatalf("deadline: %v", f)
	}
	if err := g.Health(); err != nil {
		t.Fatalf("unhealthy after a recovered timeout: %v", err)
	}
	// A cancelled Do of a real operation is cancelled too.
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := g.Do(cctx, provider.OpListProcedures, provider.Params{}, nil); !fault.Is(err, fault.Cancelled) {
		t.Fatalf("Do with a cancelled context: %v", err)
	}
}

// Lineage after start is verified against /proc; killing gdb makes the
// client unhealthy, the next request provider_unavailable and the next
// observation unavailable.
func TestLineageAndDeath(t *testing.T) {
	g := startClient(t, enabled(t), fixture(t))
	id := g.Identity()
	obs, ok := g.Lineage(context.Background())
	if !ok || obs.Status != lineage.StatusVerified {
		t.Fatalf("lineage %+v", obs)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(id.PID) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if obs.LauncherPID != id.PID || strconv.Itoa(*obs.LauncherParentPID) != f[1] || strconv.Itoa(obs.ProcessGroupID) != f[2] ||
		*obs.LauncherParentPID != os.Getpid() || obs.ProcessGroupID != id.PID {
		t.Fatalf("observation %+v, /proc stat %v", obs, f[:3])
	}
	env, _ := os.ReadFile("/proc/" + strconv.Itoa(id.PID) + "/environ")
	if !strings.Contains(string(env), "\x00"+lineage.RunTokenVar+"="+testRunID+"\x00") && !strings.HasSuffix(string(env), lineage.RunTokenVar+"="+testRunID+"\x00") {
		t.Fatalf("environment %q lacks the run token", env)
	}

	if err := unix.Kill(id.PID, syscall.SIGKILL); err != nil { // the test kills gdb
		t.Fatal(err)
	}
	select {
	case <-g.Unhealthy():
	case <-time.After(30 * time.Second):
		t.Fatal("death not noticed")
	}
	if err := g.Health(); !fault.Is(err, fault.ProviderUnavailable) {
		t.Fatalf("Health: %v", err)
	}
	_, err = do(t, g, provider.OpListProcedures, provider.Params{})
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.ProviderUnavailable || fe.Details["provider_id"] != "gdb" || fe.Details["operation"] != provider.OpListProcedures {
		t.Fatalf("after death: %v", err)
	}
	if obs, _ := g.Lineage(context.Background()); obs.Status != lineage.StatusUnavailable || obs.Reason == "" {
		t.Fatalf("lineage after death %+v", obs)
	}
}

func TestCloseEndsTheGroup(t *testing.T) {
	p := enabled(t)
	tg := targetOf(t, fixture(t))
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := p.Start(context.Background(), tg, prof, provider.Run{ID: testRunID})
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*Client)
	pid := c.Identity().PID
	cu, err := c.Close(context.Background())
	if err != nil || !cu.Complete {
		t.Fatalf("Close %+v %v", cu, err)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Fatal("gdb still exists after Close")
	}
	if cu, err := c.Close(context.Background()); err != nil || !cu.Complete {
		t.Fatalf("second Close %+v %v", cu, err)
	}
	if _, err := c.Do(context.Background(), provider.OpListDocuments, provider.Params{}, nil); !fault.Is(err, fault.ProviderUnavailable) {
		t.Fatalf("Do after Close: %v", err)
	}
}

func TestStartOnANonExecutableIsUnavailable(t *testing.T) {
	p := enabled(t)
	path := t.TempDir() + "/notelf"
	os.WriteFile(path, []byte("#!/bin/sh\necho not an ELF file at all, just text\n"), 0o755)
	tg := targetOf(t, path)
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start(context.Background(), tg, prof, provider.Run{ID: testRunID}); !fault.Is(err, fault.ProviderUnavailable) {
		t.Fatalf("Start: %v", err)
	}
}

// TestUserNamesAndAliases: gdb lists one procedure per entry address with
// its other names as aliases, and shows a user name in the listing, the
// names, resolution (by either name) and procedure_info, whose signature
// is still gdb's for the symbol.
func TestUserNamesAndAliases(t *testing.T) {
	path := fixture(t)
	g := startClient(t, enabled(t), path)
	procs := allPages[provider.ProcedureItem](t, g, provider.OpListProcedures, nil)
	seen := map[string]bool{}
	for _, p := range procs {
		if seen[p.Address] {
			t.Errorf("two items at %s", p.Address)
		}
		seen[p.Address] = true
		if p.Aliases == nil || slices.Contains(p.Aliases, p.Value) || !slices.IsSorted(p.Aliases) {
			t.Errorf("%s: aliases %v of %q", p.Address, p.Aliases, p.Value)
		}
	}
	r, err := g.Do(context.Background(), provider.OpProcedureAddress, provider.Params{"procedure": "rea_add"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	add := r.Normalized.(string)
	a, _ := provider.ParseAddress(add)
	g.SetUserNames(map[uint64]string{a: "my add"})
	for _, name := range []string{"my add", "rea_add"} {
		r, err := g.Do(context.Background(), provider.OpProcedureInfo, provider.Params{"procedure": name}, nil)
		if err != nil {
			t.Fatalf("procedure_info %q: %v", name, err)
		}
		info := r.Normalized.(provider.ProcedureInfoResult)
		if info.Name != "my add" || info.Entrypoint != add || info.Signature == nil || *info.Signature != "int rea_add(int, int)" {
			t.Errorf("procedure_info %q: %+v", name, info)
		}
		if !slices.Contains(r.Limitations, provider.UserNameLimitation(1)) {
			t.Errorf("procedure_info %q: limitations %v", name, r.Limitations)
		}
	}
	var item provider.ProcedureItem
	for _, p := range allPages[provider.ProcedureItem](t, g, provider.OpListProcedures, nil) {
		if p.Address == add {
			item = p
		}
	}
	if item.Value != "my add" || !slices.Contains(item.Aliases, "rea_add") {
		t.Errorf("list_procedures item %+v", item)
	}
	names := allPages[provider.NameItem](t, g, provider.OpListNames, provider.Params{"address": add})
	var primary []string
	for _, n := range names {
		if n.Symbol.Primary {
			primary = append(primary, n.Value+"/"+n.Symbol.Source)
		}
	}
	if !slices.Equal(primary, []string{"my add/user_defined"}) {
		t.Errorf("names at %s: %+v", add, names)
	}
	if r, err := g.Do(context.Background(), provider.OpAddressName, provider.Params{"address": add}, nil); err != nil || *r.Normalized.(*string) != "my add" {
		t.Errorf("address_name: %v %v", r.Normalized, err)
	}
}

// list_procedures' filters on gdb: every procedure is a minimal symbol, so
// named_only keeps all; exclude_thunks drops exactly the "NAME@plt" stubs;
// min_length is refused as capability_unavailable (gdb's symbol table has
// no lengths), never ignored, and the refusal does not mark the operation
// unhealthy (its availability_reason is not provider_missing).
func TestListProcedureFilters(t *testing.T) {
	g := startClient(t, enabled(t), fixture(t))
	all := allPages[provider.ProcedureItem](t, g, provider.OpListProcedures, nil)
	named := allPages[provider.ProcedureItem](t, g, provider.OpListProcedures, provider.Params{"named_only": true})
	if len(named) != len(all) {
		t.Errorf("named_only: %d of %d", len(named), len(all))
	}
	kept := map[string]bool{}
	for _, it := range allPages[provider.ProcedureItem](t, g, provider.OpListProcedures, provider.Params{"exclude_thunks": true}) {
		kept[it.Address] = true
	}
	stubs := 0
	for _, it := range all {
		stub := strings.HasSuffix(it.Value, "@plt")
		if stub {
			stubs++
		}
		if it.Procedure.Thunk != stub || kept[it.Address] == stub {
			t.Errorf("%s %s: thunk %v, kept by exclude_thunks %v", it.Address, it.Value, it.Procedure.Thunk, kept[it.Address])
		}
	}
	if stubs == 0 || len(kept) != len(all)-stubs {
		t.Errorf("exclude_thunks: %d kept of %d with %d stubs", len(kept), len(all), stubs)
	}
	_, err := g.Do(context.Background(), provider.OpListProcedures, provider.Params{"min_length": int64(16), "document": nil}, nil)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.CapabilityUnavailable || fe.Details["availability_reason"] == "provider_missing" {
		t.Errorf("min_length: %v", err)
	}
}
