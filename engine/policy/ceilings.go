package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
)

// Environment variables read by LoadConfig (CONTRACTS.md §9.2).
const (
	EnvProcessCaptureEnabled       = "REA_PROCESS_CAPTURE_ENABLED"
	EnvProcessWorkingRoots         = "REA_PROCESS_WORKING_ROOTS_JSON"
	EnvProcessExecutableRoots      = "REA_PROCESS_EXECUTABLE_ROOTS_JSON"
	EnvProcessAllowedEnv           = "REA_PROCESS_ALLOWED_ENV_JSON"
	EnvProcessAllowExternalNetwork = "REA_PROCESS_ALLOW_EXTERNAL_NETWORK"
	EnvEvidenceRoots               = "REA_EVIDENCE_ROOTS_JSON"
	EnvInvestigationInputRoots     = "REA_INVESTIGATION_INPUT_ROOTS_JSON"
	EnvAnalysisSnapshotRoots       = "REA_ANALYSIS_SNAPSHOT_ROOTS_JSON"
	EnvReferenceRoots              = "REA_REFERENCE_ROOTS_JSON"
	EnvNativeMountEnabled          = "REA_ARTIFACT_NATIVE_MOUNT_ENABLED"
	EnvArtifactExtractRoots        = "REA_ARTIFACT_EXTRACT_ROOTS_JSON"
	EnvProjectRoot                 = "REA_PERMISSION_PROJECT_ROOT"
	EnvProjectStore                = "REA_PERMISSION_PROJECT_STORE"
)

// maxListEntries bounds every *_JSON list.
const maxListEntries = 128

// Configuration error reasons (configuration_invalid details.reason) for
// environment variables; the project store has its own (see store.go).
const (
	ReasonInvalidJSON    = "invalid_json"
	ReasonTooManyEntries = "too_many_entries"
	ReasonEmptyEntry     = "empty_entry"
	ReasonRelativePath   = "relative_path"
	ReasonRootNotFound   = "root_not_found"
	ReasonInvalidName    = "invalid_name"
	ReasonInvalidBoolean = "invalid_boolean"
	ReasonRootsRequired  = "roots_required"
	ReasonIncompletePair = "incomplete_pair"
	ReasonIO             = "io"
)

// ConfigFault is configuration_invalid naming variable (never its value).
func ConfigFault(variable, reason string) *fault.Error {
	d := map[string]any{"reason": reason}
	action := "Correct the permission configuration, then restart."
	if variable != "" {
		d["variable"] = variable
		action = "Correct " + variable + " in the environment, then restart the registered server or its client."
	}
	return fault.New(fault.ConfigurationInvalid, "The permission configuration is invalid.", action, d)
}

// Ceilings are the administrator ceilings of one process: fixed for its life
// (changing one needs a restart). The zero value has no ceilings.
type Ceilings struct {
	byCap map[string]*Scope // absent: no ceiling
}

// Ceiling returns a copy of the capability's ceiling, or nil when it has none.
func (c *Ceilings) Ceiling(capability string) *Scope {
	s := c.ceiling(capability)
	if s == nil {
		return nil
	}
	cp := cloneScope(*s)
	return &cp
}

func (c *Ceilings) ceiling(capability string) *Scope {
	if c == nil {
		return nil
	}
	return c.byCap[capability]
}

// Scopes lists the ceilings that exist, in capability order (as recorded in
// policy_reloaded.administrator_ceilings).
func (c *Ceilings) Scopes() []Scope {
	out := []Scope{}
	for _, capability := range Capabilities() {
		if s := c.ceiling(capability); s != nil {
			out = append(out, cloneScope(*s))
		}
	}
	return out
}

// Digest is sha256hex(JCS(Scopes())) (policy_reloaded.ceilings_digest).
func (c *Ceilings) Digest() string {
	d, err := canon.Digest(c.Scopes())
	if err != nil {
		// Scopes are plain strings and bools: encoding cannot fail.
		panic(fmt.Sprintf("policy: ceilings digest: %v", err))
	}
	return d
}

// AdministratorGrants are the grants the ceilings yield: one per capability
// with a ceiling, equal to it, except process_capture, which always needs a
// once/session/project grant.
func (c *Ceilings) AdministratorGrants() []Grant {
	var out []Grant
	for _, s := range c.Scopes() {
		if s.Capability == ProcessCapture {
			continue
		}
		out = append(out, Grant{Scope: s, GrantID: AdministratorGrantID(s.Capability), Lifetime: LifetimeAdministrator})
	}
	return out
}

// CeilingsFromScopes rebuilds ceilings from a recorded
// policy_reloaded.administrator_ceilings (for replaying a past decision). The
// paths are taken as recorded: they were realpath'd by the process that
// recorded them.
func CeilingsFromScopes(scopes []Scope) (*Ceilings, error) {
	c := &Ceilings{byCap: map[string]*Scope{}}
	for _, s := range scopes {
		if !KnownCapability(s.Capability) {
			return nil, fmt.Errorf("policy: recorded ceiling of unknown capability %q", s.Capability)
		}
		if _, dup := c.byCap[s.Capability]; dup {
			return nil, fmt.Errorf("policy: two recorded ceilings for %q", s.Capability)
		}
		n, err := normalizeScope(s)
		if err != nil {
			return nil, fmt.Errorf("policy: recorded ceiling of %q: %w", s.Capability, err)
		}
		c.byCap[s.Capability] = &n
	}
	return c, nil
}

// StoreConfig locates the opt-in project store.
type StoreConfig struct {
	Path string // absolute, cleaned; the file itself may be absent
	Root string // realpath of REA_PERMISSION_PROJECT_ROOT
}

// ProjectID is the store's project_id: "project_" + sha256hex(root).
func (s StoreConfig) ProjectID() string { return "project_" + canon.SHA256Hex([]byte(s.Root)) }

// Config is the policy configuration of one process.
type Config struct {
	Ceilings *Ceilings
	Store    *StoreConfig // nil: project policy is not configured
}

// LoadConfig parses the policy variables of env (a snapshot of the process
// environment; this package never reads os.Getenv). Every variable that is set
// is validated, even when its capability is disabled, so a typo fails closed
// at startup instead of surfacing when someone enables it. An empty value is
// treated as unset. Errors are configuration_invalid naming the variable.
func LoadConfig(env map[string]string) (*Config, error) {
	c := &Ceilings{byCap: map[string]*Scope{}}

	captureOn, err := boolVar(env, EnvProcessCaptureEnabled)
	if err != nil {
		return nil, err
	}
	external, err := boolVar(env, EnvProcessAllowExternalNetwork)
	if err != nil {
		return nil, err
	}
	mountOn, err := boolVar(env, EnvNativeMountEnabled)
	if err != nil {
		return nil, err
	}
	work, err := rootsVar(env, EnvProcessWorkingRoots)
	if err != nil {
		return nil, err
	}
	exes, err := rootsVar(env, EnvProcessExecutableRoots)
	if err != nil {
		return nil, err
	}
	names, err := namesVar(env, EnvProcessAllowedEnv)
	if err != nil {
		return nil, err
	}
	if captureOn {
		if len(work) == 0 {
			return nil, ConfigFault(EnvProcessWorkingRoots, ReasonRootsRequired)
		}
		if len(exes) == 0 {
			return nil, ConfigFault(EnvProcessExecutableRoots, ReasonRootsRequired)
		}
		network := NetworkLoopback
		if external {
			network = NetworkExternal
		}
		c.byCap[ProcessCapture] = &Scope{Capability: ProcessCapture, Roots: work, Executables: exes,
			EnvironmentNames: names, Network: network}
	}

	rootCeilings := []struct {
		variable     string
		capabilities []string
	}{
		{EnvEvidenceRoots, []string{EvidenceRead, EvidenceWrite, InvestigationWorkspaceRead, InvestigationWorkspaceWrite}},
		{EnvInvestigationInputRoots, []string{InvestigationInput}},
		{EnvAnalysisSnapshotRoots, []string{SnapshotRead, SnapshotWrite}},
		{EnvReferenceRoots, []string{ReferenceRead}},
	}
	for _, rc := range rootCeilings {
		roots, err := rootsVar(env, rc.variable)
		if err != nil {
			return nil, err
		}
		if len(roots) == 0 {
			continue // a ceiling with no roots and no mount is no ceiling
		}
		for _, capability := range rc.capabilities {
			c.byCap[capability] = rootScope(capability, roots)
		}
	}
	// artifact_extract: "/" unless the administrator narrows it (§0); an
	// explicit [] is no ceiling, which turns extraction off.
	extract, err := rootsVar(env, EnvArtifactExtractRoots)
	if err != nil {
		return nil, err
	}
	switch {
	case extract == nil:
		c.byCap[ArtifactExtract] = rootScope(ArtifactExtract, []string{"/"})
	case len(extract) > 0:
		c.byCap[ArtifactExtract] = rootScope(ArtifactExtract, extract)
	}
	if mountOn {
		s := rootScope(NativeMount, nil)
		s.Mount = true
		c.byCap[NativeMount] = s
	}

	cfg := &Config{Ceilings: c}
	root, store := env[EnvProjectRoot], env[EnvProjectStore]
	switch {
	case root == "" && store == "":
	case root == "":
		return nil, ConfigFault(EnvProjectRoot, ReasonIncompletePair)
	case store == "":
		return nil, ConfigFault(EnvProjectStore, ReasonIncompletePair)
	default:
		if !filepath.IsAbs(root) {
			return nil, ConfigFault(EnvProjectRoot, ReasonRelativePath)
		}
		if !filepath.IsAbs(store) {
			return nil, ConfigFault(EnvProjectStore, ReasonRelativePath)
		}
		real, err := filepath.EvalSymlinks(root)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, ConfigFault(EnvProjectRoot, StoreProjectNotFound)
			}
			return nil, ConfigFault(EnvProjectRoot, ReasonIO).WithCause(causeOnly(err))
		}
		cfg.Store = &StoreConfig{Path: filepath.Clean(store), Root: real}
	}
	return cfg, nil
}

// causeOnly strips the path from a file-system error: the path came from an
// environment value, which a configuration error must not echo.
func causeOnly(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

func rootScope(capability string, roots []string) *Scope {
	return &Scope{Capability: capability, Roots: sortedSet(roots), Executables: []string{},
		EnvironmentNames: []string{}, Network: NetworkNone}
}

func boolVar(env map[string]string, name string) (bool, error) {
	switch env[name] {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, ConfigFault(name, ReasonInvalidBoolean)
}

// listVar decodes a JSON array of ≤128 non-empty strings; unset is nil.
func listVar(env map[string]string, name string) ([]string, error) {
	v := env[name]
	if v == "" {
		return nil, nil
	}
	raw := bytes.TrimSpace([]byte(v))
	if len(raw) == 0 || raw[0] != '[' {
		return nil, ConfigFault(name, ReasonInvalidJSON)
	}
	var list []string
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&list); err != nil || dec.More() {
		return nil, ConfigFault(name, ReasonInvalidJSON)
	}
	if len(list) > maxListEntries {
		return nil, ConfigFault(name, ReasonTooManyEntries)
	}
	if slices.Contains(list, "") {
		return nil, ConfigFault(name, ReasonEmptyEntry)
	}
	return list, nil
}

// rootsVar is a list of absolute paths, realpath'd now (a missing root fails).
func rootsVar(env map[string]string, name string) ([]string, error) {
	list, err := listVar(env, name)
	if err != nil || list == nil {
		return nil, err
	}
	out := make([]string, 0, len(list))
	for _, p := range list {
		if !filepath.IsAbs(p) {
			return nil, ConfigFault(name, ReasonRelativePath)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, ConfigFault(name, ReasonRootNotFound)
			}
			return nil, ConfigFault(name, ReasonIO).WithCause(causeOnly(err))
		}
		out = append(out, real)
	}
	return sortedSet(out), nil
}

func namesVar(env map[string]string, name string) ([]string, error) {
	list, err := listVar(env, name)
	if err != nil {
		return nil, err
	}
	for _, n := range list {
		if !ValidEnvironmentName(n) {
			return nil, ConfigFault(name, ReasonInvalidName)
		}
	}
	return sortedSet(list), nil
}

// normalizeScope validates a scope's vocabulary (known capability, clean
// absolute paths, valid names, known network) and returns it canonical.
func normalizeScope(s Scope) (Scope, error) {
	if !KnownCapability(s.Capability) {
		return Scope{}, errors.New("unknown capability")
	}
	if networkRank(s.Network) < 0 {
		return Scope{}, errors.New("unknown network mode")
	}
	for _, list := range [][]string{s.Roots, s.Executables} {
		if len(list) > maxListEntries {
			return Scope{}, errors.New("too many paths")
		}
		for _, p := range list {
			if !cleanAbsolute(p) {
				return Scope{}, errors.New("path is not absolute and clean")
			}
		}
	}
	if len(s.EnvironmentNames) > maxListEntries {
		return Scope{}, errors.New("too many environment names")
	}
	for _, n := range s.EnvironmentNames {
		if !ValidEnvironmentName(n) {
			return Scope{}, errors.New("invalid environment name")
		}
	}
	s.Roots = sortedSet(s.Roots)
	s.Executables = sortedSet(s.Executables)
	s.EnvironmentNames = sortedSet(s.EnvironmentNames)
	return s, nil
}
