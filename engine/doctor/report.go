package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/migrations"
)

// Check classifications (CONTRACTS.md §12).
const (
	Healthy               = "healthy"
	MissingDependency     = "missing_dependency"
	UnsupportedHost       = "unsupported_host"
	MissingAnalysisEngine = "missing_analysis_engine"
	ConfigDrift           = "config_drift"
	LedgerIntegrity       = "ledger_integrity"
	ConfigurationInvalid  = "configuration_invalid"
)

// Report is `rea doctor --json` (CONTRACTS.md §12).
type Report struct {
	REA           REAInfo            `json:"rea"`
	Registrations []Registration     `json:"registrations"`
	LiveServer    LiveServer         `json:"live_server"`
	Ledger        LedgerStatus       `json:"ledger"`
	Providers     []engine.Candidate `json:"providers"`
	Checks        []Check            `json:"checks"`
}

// REAInfo names the running build.
type REAInfo struct {
	Version     string  `json:"version"`
	Executable  string  `json:"executable"`
	BuildCommit *string `json:"build_commit"`
}

// LiveServer is always unknown: a file on disk cannot prove which server a
// client is running; binary_session on an active connection can.
type LiveServer struct {
	State       string `json:"state"`
	Remediation string `json:"remediation"`
}

// LedgerStatus is what the read-only ledger check found.
type LedgerStatus struct {
	Path        string             `json:"path"`
	State       string             `json:"state"` // ok | missing | unreadable | corrupt
	Head        *ledger.VerifyHead `json:"head"`
	FirstBadSeq *int64             `json:"first_bad_seq"`
}

// Check is one line of the verdict.
type Check struct {
	ID             string `json:"id"`
	Classification string `json:"classification"`
	Detail         string `json:"detail"`
}

// Healthy reports whether every check is healthy (`rea doctor` exits 0).
func (r Report) Healthy() bool {
	for _, c := range r.Checks {
		if c.Classification != Healthy {
			return false
		}
	}
	return true
}

// Input is everything Run looks at; cmd/rea fills it from the process.
type Input struct {
	Host        Host
	Clients     []Client // the clients to inspect (marker rule applies)
	Version     string
	BuildCommit string
	LedgerPath  string
	// Candidates is target-free provider discovery (starts nothing).
	Candidates []engine.Candidate
	// Env is a snapshot of the process environment (policy and provider
	// variables are read from it, never printed).
	Env map[string]string
	// ServerEnvProblems checks the variables only the MCP surface reads
	// (REA_TOOLSETS), whose rules live there; nil checks none.
	ServerEnvProblems func(env map[string]string) []EnvProblem
}

// Run builds the report. It writes nothing: the ledger is opened read-only,
// the registration files are only read, and the one process it may start
// is `gdb --version`.
func Run(ctx context.Context, in Input) Report {
	r := Report{
		REA:           REAInfo{Version: in.Version, Executable: in.Host.Executable},
		Registrations: Inspect(in.Host, in.Clients),
		LiveServer: LiveServer{State: "unknown",
			Remediation: "compare binary_session server_identity from the active client"},
		Providers: in.Candidates,
	}
	if in.BuildCommit != "" {
		r.REA.BuildCommit = &in.BuildCommit
	}
	if r.Providers == nil {
		r.Providers = []engine.Candidate{}
	}
	for _, reg := range r.Registrations {
		c := Check{ID: "registration:" + reg.Client, Classification: Healthy, Detail: "aligned: " + reg.ConfigPath}
		if reg.State != Aligned {
			c.Classification = ConfigDrift
			c.Detail = fmt.Sprintf("%s: %s (%s)", reg.State, reg.ConfigPath, reg.Problem)
		}
		r.Checks = append(r.Checks, c)
	}
	var lc Check
	r.Ledger, lc = CheckLedger(ctx, in.LedgerPath)
	r.Checks = append(r.Checks, lc)
	for _, cand := range r.Providers {
		r.Checks = append(r.Checks, providerCheck(cand))
	}
	r.Checks = append(r.Checks,
		Check{ID: "gdb", Classification: Healthy, Detail: ProbeGDB(ctx, in.Env)},
		configurationCheck(in.Env, in.ServerEnvProblems))
	return r
}

func providerCheck(c engine.Candidate) Check {
	ch := Check{ID: "provider:" + c.Provider.ID, Classification: Healthy}
	a := c.Availability
	switch {
	case a.Status == "available":
		ch.Detail = "available"
		if v := c.Provider.VersionString(); v != "" {
			ch.Detail += ", version " + v
		}
	case a.Code != nil && *a.Code == "not_configured":
		ch.Detail = "disabled"
	default:
		ch.Classification = MissingAnalysisEngine
		ch.Detail = "unavailable"
		if a.Code != nil {
			ch.Detail += " (" + *a.Code + ")"
		}
		if a.Reason != nil {
			ch.Detail += ": " + *a.Reason
		}
		if a.Remediation != nil {
			ch.Detail += " " + *a.Remediation
		}
	}
	return ch
}

// LatestMigration is the highest migration number this build carries.
func LatestMigration() int {
	entries, _ := fs.Glob(migrations.FS, "*.up.sql")
	latest := 0
	for _, e := range entries {
		n, _, _ := strings.Cut(e, "_")
		if v, err := strconv.Atoi(n); err == nil {
			latest = max(latest, v)
		}
	}
	return latest
}

// CheckLedger opens the ledger read-only (no migration, no write), checks
// that its schema is this build's, and verifies the whole chain. A ledger
// that does not exist yet is healthy: the first `rea mcp` creates it. A
// PostgreSQL ledger (a URL) is checked the same way: reachable, schema
// version, chain head; it is named with its password replaced by ***.
func CheckLedger(ctx context.Context, location string) (LedgerStatus, Check) {
	path := location
	if ledger.IsURL(location) {
		path = ledger.RedactURL(location)
	}
	st := LedgerStatus{Path: path, State: "ok"}
	ch := Check{ID: "ledger", Classification: Healthy}
	fail := func(state, detail string) (LedgerStatus, Check) {
		st.State, ch.Classification, ch.Detail = state, LedgerIntegrity, detail
		return st, ch
	}
	if _, err := os.Stat(path); !ledger.IsURL(location) && errors.Is(err, fs.ErrNotExist) {
		st.State, ch.Detail = "missing", "not created yet: "+path+" (the first `rea mcp` or `rea analyze` creates it)"
		return st, ch
	}
	led, err := ledger.OpenReadOnly(ctx, location)
	if err != nil {
		return fail("unreadable", fmt.Sprintf("cannot open %s: %v", path, err))
	}
	defer led.Close()
	v, err := led.SchemaVersion(ctx)
	if err != nil {
		return fail("unreadable", fmt.Sprintf("%s: %v", path, err))
	}
	switch latest := LatestMigration(); {
	case v > latest:
		return fail("unreadable", fmt.Sprintf("%s has schema version %d, newer than this REA's %d: use the newer rea", path, v, latest))
	case v < latest:
		return fail("unreadable", fmt.Sprintf("%s has schema version %d, older than this REA's %d: the next `rea mcp` or `rea analyze` migrates it", path, v, latest))
	}
	rep, err := led.Verify(ctx)
	if err != nil {
		return fail("unreadable", fmt.Sprintf("cannot verify %s: %v", path, err))
	}
	if rep.Head.Seq > 0 {
		h := rep.Head
		st.Head = &h
	}
	if !rep.OK {
		st.FirstBadSeq = rep.FirstBadSeq
		detail := "verification failed"
		if rep.FirstBadSeq != nil {
			detail += fmt.Sprintf(" at seq %d", *rep.FirstBadSeq)
		}
		if len(rep.Problems) > 0 {
			detail += ": " + rep.Problems[0].Check + ": " + rep.Problems[0].Detail
		}
		return fail("corrupt", detail+" (`rea ledger verify` lists every problem)")
	}
	ch.Detail = fmt.Sprintf("%s: schema version %d, %d events verified", path, v, rep.Checked.Events)
	return st, ch
}

var gdbVersion = regexp.MustCompile(`(\d+\.\d+(?:\.\d+)*)\s*$`)

// ProbeGDB says where gdb is and which version it reports, or that it is not
// installed. It is informational: gdb is an opt-in provider.
func ProbeGDB(ctx context.Context, env map[string]string) string {
	enabled := "disabled (set REA_GDB_ENABLED=true to use it)"
	if env["REA_GDB_ENABLED"] == "true" {
		enabled = "enabled"
	}
	name, source := "gdb", "PATH"
	if p := env["REA_GDB_PATH"]; p != "" {
		name, source = p, "REA_GDB_PATH"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Sprintf("not installed (looked up through %s); %s", source, enabled)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = []string{"LC_ALL=C"} // nothing of REA's environment reaches it
	out, err := cmd.Output()
	if err != nil {
		return fmt.Sprintf("%s: present but `gdb --version` failed (%v); %s", path, err, enabled)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	first = strings.TrimSpace(first)
	if m := gdbVersion.FindStringSubmatch(first); m != nil {
		return fmt.Sprintf("%s: version %s (%s); %s", path, m[1], first, enabled)
	}
	return fmt.Sprintf("%s: runnable, version unresolved; %s", path, enabled)
}

// configurationCheck validates the environment the policy and the provider
// selection read (CONTRACTS.md §9.2), naming variables, never values.
func configurationCheck(env map[string]string, server func(map[string]string) []EnvProblem) Check {
	problems := EnvironmentProblems(env)
	if server != nil {
		problems = append(problems, server(env)...)
	}
	if len(problems) == 0 {
		return Check{ID: "configuration", Classification: Healthy, Detail: "the REA_* environment is valid"}
	}
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = p.Variable + ": " + p.Reason
	}
	return Check{ID: "configuration", Classification: ConfigurationInvalid, Detail: strings.Join(parts, "; ")}
}
