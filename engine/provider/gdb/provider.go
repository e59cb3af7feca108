// Package gdb is the GDB/MI analysis provider (CONTRACTS.md §2.2, §3.5, §3.6):
// an external, dynamic provider REA starts and owns, one gdb process per bound
// target, speaking GDB/MI 3 over pipes.
//
// Decisions recorded here (they shape results and so Evidence):
//
//   - Opt-in: unavailable with not_configured unless REA_GDB_ENABLED=true;
//     REA_GDB_PATH names the executable, else "gdb" on PATH. Identity,
//     Availability, Support and Capabilities never start a process; the one
//     `gdb --version` probe (and the executable's sha256) runs in Probe, which
//     the wiring calls once at startup when gdb is enabled, and which Profile
//     and Start run if it has not.
//   - Each client is `gdb --interpreter=mi3 -nx -q` started through
//     engine/lineage (own process group, REA_PROCESS_RUN_ID, minimal
//     environment) with auto-load and debuginfod off, pagination off and, on
//     x86, Intel disassembly. The target is gdb's executable argument (after
//     "--"), never a command-language string.
//   - Names and procedures are gdb's minimal symbols (`maint print msymbols`:
//     ELF .symtab and .dynsym merged, linkage names, plus gdb's "NAME@plt"
//     stubs); procedures are those in code sections. Functions gdb knows only
//     from DWARF (no ELF symbol) are not listed. list_procedures' thunks
//     are the stubs; named_only keeps every procedure; min_length is
//     refused (capability_unavailable): the symbols carry no lengths.
//   - Segments: gdb does not expose program headers, so each allocated
//     section (`maint info sections`) is listed as its own segment.
//   - Procedure extents and disassembly are gdb's (`-data-disassemble -a`):
//     DWARF ranges, else ELF symbol sizes, else gdb's own bound (up to the
//     next symbol in the section), which is stated as a limitation.
//   - procedure_info source is the DWARF line row at the entry (fullname as
//     gdb resolves it); signature is gdb's description of the debug symbol.
//   - Client strings never reach gdb: procedure names are matched against the
//     cached symbol table in Go, addresses are parsed as numbers and formatted
//     by REA; only REA-built commands are written to gdb.
package gdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// ProviderID is the registry id of the gdb provider.
const ProviderID = "gdb"

// ProviderName is its display name.
const ProviderName = "GNU Debugger (GDB/MI)"

// ProfileSchemaVersion is provider_profile_schema_version of its profiles.
const ProfileSchemaVersion = 1

// MinMajorVersion is the oldest gdb accepted (mi3, -data-disassemble -a need 12+).
const MinMajorVersion = 12

// Environment variables of the gdb configuration.
const (
	EnvEnabled = "REA_GDB_ENABLED"
	EnvPath    = "REA_GDB_PATH"
)

const (
	timeoutMS      = 120000
	probeTimeout   = 10 * time.Second
	startupTimeout = 60 * time.Second
)

// Config is the gdb provider's configuration.
type Config struct {
	Enabled bool
	Path    string // REA_GDB_PATH; "" means "gdb" on PATH
}

// ConfigFromEnv reads REA_GDB_ENABLED ("true" enables; "", "false" do not;
// anything else is an error naming the variable, never its value) and
// REA_GDB_PATH.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{Path: getenv(EnvPath)}
	switch getenv(EnvEnabled) {
	case "true":
		c.Enabled = true
	case "", "false":
	default:
		return Config{}, fmt.Errorf("gdb: %s must be \"true\" or \"false\"", EnvEnabled)
	}
	return c, nil
}

// probe is what was learned about the gdb executable, once.
type probe struct {
	path          string // resolved absolute path
	versionString string // first line of `gdb --version`
	version       string // parsed, e.g. "13.1"
	major         int
	sha256        string
	err           error // the probe failed: version_unresolved
}

// Provider is the gdb provider. It is safe for concurrent use.
type Provider struct {
	cfg      Config
	path     string // resolved by LookPath at construction ("" when missing)
	lookErr  error
	probeMu  sync.Mutex
	probed   *probe
	settings map[string]any
}

var _ provider.Provider = (*Provider)(nil)

// New returns the gdb provider for cfg. It resolves the executable on PATH
// (no process is started).
func New(cfg Config) *Provider {
	p := &Provider{cfg: cfg}
	name := cfg.Path
	if name == "" {
		name = "gdb"
	}
	if cfg.Enabled {
		path, err := exec.LookPath(name)
		if err == nil {
			path, err = filepath.Abs(path)
		}
		p.path, p.lookErr = path, err
	}
	return p
}

// Identity names the provider; Version is nil until Probe has run.
func (p *Provider) Identity() provider.Identity {
	id := provider.Identity{ID: ProviderID, Name: ProviderName}
	p.probeMu.Lock()
	defer p.probeMu.Unlock()
	if p.probed != nil && p.probed.err == nil {
		v := p.probed.version
		id.Version = &v
	}
	return id
}

// Availability reports configuration and probed facts; it starts nothing.
func (p *Provider) Availability(context.Context) provider.Availability {
	if !p.cfg.Enabled {
		return provider.Unavailable("not_configured",
			"The gdb provider is opt-in and REA_GDB_ENABLED is not \"true\".",
			"Set REA_GDB_ENABLED=true (and REA_GDB_PATH if gdb is not on PATH), then restart REA.", nil)
	}
	if p.lookErr != nil {
		d := map[string]any{}
		if p.cfg.Path != "" {
			d["configured_path"] = p.cfg.Path
		}
		return provider.Unavailable("executable_missing", "No gdb executable was found.",
			"Install gdb (Debian package gdb) or set REA_GDB_PATH to its path, then restart REA.", d)
	}
	p.probeMu.Lock()
	pr := p.probed
	p.probeMu.Unlock()
	diag := map[string]any{"path": p.path}
	if pr != nil {
		if pr.err != nil {
			return provider.Unavailable("version_unresolved", "The gdb version could not be determined.",
				"Check that `"+p.path+" --version` runs and prints a version, then restart REA.", diag)
		}
		diag["version"] = pr.version
		if pr.major < MinMajorVersion {
			return provider.Unavailable("unsupported_version",
				fmt.Sprintf("gdb %s is older than %d.", pr.version, MinMajorVersion),
				fmt.Sprintf("Install gdb %d or newer.", MinMajorVersion), diag)
		}
	}
	a := provider.Available()
	a.Diagnostics = diag
	return a
}

var versionPattern = regexp.MustCompile(`(\d+)\.(\d+)(?:\.\d+)*(?:\.[0-9]{8}-git)?\s*$`)

// parseVersion extracts the version from the first line of `gdb --version`.
func parseVersion(out []byte) (line, version string, major int, err error) {
	line, _, _ = strings.Cut(string(out), "\n")
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "GNU gdb") {
		return "", "", 0, errors.New("gdb: --version does not start with \"GNU gdb\"")
	}
	m := versionPattern.FindStringSubmatch(line)
	if m == nil {
		return "", "", 0, fmt.Errorf("gdb: no version in %q", line)
	}
	major, _ = strconv.Atoi(m[1])
	return line, strings.TrimSpace(m[0]), major, nil
}

// Probe runs `<gdb> --version` and hashes the executable, once; later calls
// return the cached result. It is the only target-free code that starts a
// process, and only when gdb is enabled and found.
func (p *Provider) Probe(ctx context.Context) error {
	if !p.cfg.Enabled || p.lookErr != nil {
		return nil
	}
	p.probeMu.Lock()
	defer p.probeMu.Unlock()
	if p.probed != nil {
		return p.probed.err
	}
	pr := &probe{path: p.path}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(pctx, p.path, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C"}
	out, err := cmd.Output()
	if err == nil {
		pr.versionString, pr.version, pr.major, err = parseVersion(out)
	}
	if err == nil {
		pr.sha256, err = fileSHA256(p.path)
	}
	if err != nil && ctx.Err() != nil {
		return fault.CancelledError("profile").WithCause(err) // not cached: try again later
	}
	pr.err = err
	p.probed = pr
	return err
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Support is static: an ELF executable of a known architecture.
func (p *Provider) Support(t provider.Target) provider.TargetSupport {
	switch {
	case t.Kind != "executable":
		return provider.Unsupported("target_kind_unsupported", "The gdb provider analyzes executables, not archives or directories.")
	case t.Format != "elf":
		return provider.Unsupported("target_format_unsupported", "The gdb provider supports ELF executables.")
	case t.Architecture == "":
		return provider.Unsupported("architecture_unsupported", "The target's architecture is unknown.")
	}
	return provider.Supported()
}

// Operations this provider implements.
var operations = []struct {
	name  string
	paged bool
	max   int64
}{
	{provider.OpAddressName, false, 0},
	{provider.OpBinaryTriage, false, 0},
	{provider.OpListDocuments, false, 0},
	{provider.OpListNames, true, provider.MaxPageResults},
	{provider.OpListProcedures, true, provider.MaxPageResults},
	{provider.OpListSegments, false, 0},
	{provider.OpProcedureAddress, false, 0},
	{provider.OpProcedureAssembly, false, 0},
	{provider.OpProcedureInfo, false, 0},
	{provider.OpReadFunctionInstructions, true, provider.MaxPageResults},
	{provider.OpResolveContaining, false, 0},
}

// Capabilities declares exactly the implemented operations.
func (p *Provider) Capabilities() []provider.Capability {
	caps := make([]provider.Capability, 0, len(operations))
	for _, o := range operations {
		var max int64
		if o.paged {
			max = int64(o.max)
		}
		c := provider.ReadOnlyCapability(o.name, timeoutMS, max)
		caps = append(caps, c)
	}
	return caps
}

func i64(v int64) *int64 { return &v }

// syntaxFor is the disassembly syntax gdb is set to for an architecture.
func syntaxFor(arch string) string {
	if arch == "x86" || arch == "x86_64" {
		return "intel"
	}
	return "gnu" // gdb's only syntax for arm and arm64
}

// settingsFor are the gdb settings REA applies; each can change an answer,
// so they are profile parameters.
func settingsFor(arch string) []string {
	s := []string{
		"set auto-load off",
		"set debuginfod enabled off",
		"set pagination off",
		"set width 0",
		"set height 0",
		"set confirm off",
		"set print asm-demangle off",
		"set print demangle off",
	}
	if syntaxFor(arch) == "intel" {
		s = append(s, "set disassembly-flavor intel")
	}
	return s
}

// Profile resolves the analysis profile; it probes gdb if that has not run.
func (p *Provider) Profile(ctx context.Context, t provider.Target) (provider.Profile, error) {
	if err := ctx.Err(); err != nil {
		return provider.Profile{}, fault.CancelledError("profile").WithCause(err)
	}
	pr, err := p.probe(ctx)
	if err != nil {
		return provider.Profile{}, err
	}
	settings := make([]any, 0, 8)
	for _, s := range settingsFor(t.Architecture) {
		settings = append(settings, s)
	}
	params := map[string]any{
		"target_format":     t.Format,
		"architecture":      t.Architecture,
		"interpreter":       "mi3",
		"executable_sha256": pr.sha256,
		"syntax":            syntaxFor(t.Architecture),
		"version_string":    pr.versionString,
		"settings":          settings,
		"symbols":           "minimal-symbols",
		"triage":            1, // binary_triage's facts and limitations (triage.go), CONTRACTS.md §18
	}
	v := pr.version
	return provider.NewProfile(provider.Identity{ID: ProviderID, Name: ProviderName, Version: &v}, ProfileSchemaVersion, params)
}

// probe returns the probe result or a typed provider_unavailable.
func (p *Provider) probe(ctx context.Context) (*probe, error) {
	if a := p.Availability(ctx); a.Status != "available" {
		return nil, unavailable("profile", *a.Reason)
	}
	if err := p.Probe(ctx); err != nil {
		if fault.Is(err, fault.Cancelled) {
			return nil, err
		}
		return nil, fault.New(fault.ProviderUnavailable, "The gdb version could not be determined.",
			"Run `rea doctor` to check the gdb installation.",
			map[string]any{"operation": "profile", "provider_id": ProviderID}).WithCause(err)
	}
	if a := p.Availability(ctx); a.Status != "available" {
		return nil, unavailable("profile", *a.Reason)
	}
	p.probeMu.Lock()
	defer p.probeMu.Unlock()
	return p.probed, nil
}

func unavailable(op, why string) *fault.Error {
	return fault.New(fault.ProviderUnavailable, "The gdb provider is unavailable.",
		"Check the gdb installation with `rea doctor`, or open the target with another provider.",
		map[string]any{"operation": op, "provider_id": ProviderID}).WithCause(errors.New(why))
}
