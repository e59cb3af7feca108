// Package provider defines what the engine needs from an analysis engine, and
// the registry and selection policy that bind one provider to a target
// (CONTRACTS.md §3.5, §3.6, §5).
//
// Providers know nothing about MCP, the ledger or policy. A provider answers
// operations on one target through a Client; the engine records every answer
// as Evidence. Operation inputs arrive validated and normalized (Params), and a
// provider reports failures as *fault.Error values.
package provider

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/progress"
)

// Identity names a provider build. Version is nil only in target-free discovery
// of a provider whose version is not yet known.
type Identity struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Version *string `json:"version"`
}

// VersionString is the version or "" when unknown.
func (id Identity) VersionString() string {
	if id.Version == nil {
		return ""
	}
	return *id.Version
}

// Target is what the engine opened: real path, content digest and what
// detection by content found. Architecture is "" when unknown.
type Target struct {
	Path         string
	SHA256       string
	Size         int64
	Format       string // elf, pe, mach-o, mach-o-universal, zip, apk, ipa, msix, appx, asar, directory
	Kind         string // executable, archive, directory
	Architecture string // x86, x86_64, arm, arm64, or ""
}

// Run is the analysis run a client is started for. Its ID is allocated and
// recorded before any provider startup.
type Run struct {
	ID string
}

// Availability is a candidate's host availability (CONTRACTS.md §3.5).
type Availability struct {
	Status      string         `json:"status"` // available | unavailable
	Code        *string        `json:"code"`
	Reason      *string        `json:"reason"`
	Remediation *string        `json:"remediation"`
	Diagnostics map[string]any `json:"diagnostics"`
}

// Available is the availability of a usable provider.
func Available() Availability {
	return Availability{Status: "available", Diagnostics: map[string]any{}}
}

// Unavailable builds an unavailable availability.
func Unavailable(code, reason, remediation string, diagnostics map[string]any) Availability {
	if diagnostics == nil {
		diagnostics = map[string]any{}
	}
	return Availability{Status: "unavailable", Code: &code, Reason: &reason, Remediation: &remediation, Diagnostics: diagnostics}
}

// TargetSupport says whether a provider can analyze a target.
type TargetSupport struct {
	Status      string         `json:"status"` // unknown | supported | unsupported
	Code        *string        `json:"code"`
	Reason      *string        `json:"reason"`
	Diagnostics map[string]any `json:"diagnostics"`
}

// Supported is the support of an analyzable target.
func Supported() TargetSupport {
	return TargetSupport{Status: "supported", Diagnostics: map[string]any{}}
}

// Unsupported builds an unsupported target support with a TargetCode.
func Unsupported(code, reason string) TargetSupport {
	return TargetSupport{Status: "unsupported", Code: &code, Reason: &reason, Diagnostics: map[string]any{}}
}

// UnknownSupport is target support when no target is open.
func UnknownSupport() TargetSupport {
	r := "No target is open."
	return TargetSupport{Status: "unknown", Reason: &r, Diagnostics: map[string]any{}}
}

// Effects are the eight explicit effects of CONTRACTS.md §2.
type Effects struct {
	MutatesTarget    bool `json:"mutatesTarget"`
	MutatesSession   bool `json:"mutatesSession"`
	WritesFilesystem bool `json:"writesFilesystem"`
	LaunchesProcess  bool `json:"launchesProcess"`
	AccessesNetwork  bool `json:"accessesNetwork"`
	ChangesUIState   bool `json:"changesUiState"`
	MayDiscardData   bool `json:"mayDiscardData"`
	Idempotent       bool `json:"idempotent"`
}

// Limits bound one operation.
type Limits struct {
	MaxResults      *int64 `json:"max_results"`
	MaxPayloadBytes *int64 `json:"max_payload_bytes"`
	TimeoutMS       *int64 `json:"timeout_ms"`
}

// Capability declares one operation (ProviderCapability of CONTRACTS.md §3.5).
// Available/Reason/AvailabilityCode carry the engine's health overlay.
type Capability struct {
	Operation             string   `json:"operation"`
	InputContractVersion  int      `json:"input_contract_version"`
	OutputContractVersion int      `json:"output_contract_version"`
	Pagination            string   `json:"pagination"` // none | offset | cursor
	Exhaustive            bool     `json:"exhaustive"`
	Effects               Effects  `json:"effects"`
	Limits                Limits   `json:"limits"`
	Limitations           []string `json:"limitations"`
	Available             bool     `json:"available"`
	Reason                *string  `json:"reason"`
	AvailabilityCode      *string  `json:"availability_code"`
}

// Profile is an analysis profile (CONTRACTS.md §3.6): everything about the
// provider's configuration that can change an answer. Its digest enters
// Evidence identity, so two answers from different profiles never collide.
type Profile struct {
	SchemaVersion                int            `json:"schema_version"`
	Provider                     Identity       `json:"provider"`
	ProviderProfileSchemaVersion int            `json:"provider_profile_schema_version"`
	Parameters                   map[string]any `json:"parameters"`
	Digest                       string         `json:"digest"`
}

type profilePreimage struct {
	SchemaVersion                int            `json:"schema_version"`
	Provider                     Identity       `json:"provider"`
	ProviderProfileSchemaVersion int            `json:"provider_profile_schema_version"`
	Parameters                   map[string]any `json:"parameters"`
}

// NewProfile builds a profile and computes its digest.
func NewProfile(id Identity, providerSchemaVersion int, parameters map[string]any) (Profile, error) {
	if id.Version == nil {
		return Profile{}, fmt.Errorf("provider: profile for %s needs a concrete version", id.ID)
	}
	if parameters == nil {
		parameters = map[string]any{}
	}
	p := Profile{SchemaVersion: 1, Provider: id, ProviderProfileSchemaVersion: providerSchemaVersion, Parameters: parameters}
	d, err := p.ComputeDigest()
	if err != nil {
		return Profile{}, err
	}
	p.Digest = d
	return p, nil
}

// ComputeDigest is sha256(JCS(profile without "digest")).
func (p Profile) ComputeDigest() (string, error) {
	return canon.Digest(profilePreimage{p.SchemaVersion, p.Provider, p.ProviderProfileSchemaVersion, p.Parameters})
}

// Verify reports whether the stored digest matches the content.
func (p Profile) Verify() error {
	d, err := p.ComputeDigest()
	if err != nil {
		return err
	}
	if d != p.Digest {
		return fmt.Errorf("provider: profile digest %s does not verify (computed %s)", p.Digest, d)
	}
	return nil
}

// Location is an Evidence location (CONTRACTS.md §7.1).
type Location struct {
	Kind    string  `json:"kind"` // address | address-range | artifact-path | file-offset | file-offset-range
	Address string  `json:"address,omitempty"`
	Start   *string `json:"start,omitempty"`
	End     *string `json:"end,omitempty"`
	Path    string  `json:"path,omitempty"`
	Offset  *int64  `json:"offset,omitempty"`
}

// Result is a provider's answer to one operation.
type Result struct {
	Normalized  any        // the normalized_result, JSON-encodable
	Raw         any        // the provider's raw answer when it differs; nil otherwise
	Limitations []string   // Evidence limitations (never nil in Evidence; may be nil here)
	Locations   []Location // Evidence locations beyond the input address
	// TargetLimitations are the limitations that hold for the whole target
	// rather than for this call's input: a discovery source the format has
	// that the provider does not read ("ARM64 .pdata not read: ..."), damage
	// found while indexing the file, a region it cannot decode. They are
	// part of this call's Evidence limitations (the engine adds any that
	// Limitations lacks), and the engine carries them into the Evidence of
	// every composed operation (binary_overview, get_call_graph) that called
	// this one, so no result built on an incomplete source reads as
	// complete. Per-call limitations (a count of indirect calls, user names
	// shown) stay in Limitations only.
	TargetLimitations []string
}

// Cleanup reports what closing a client left behind.
type Cleanup struct {
	Complete  bool
	Resources []string // kinds still owned (§6.5), sorted; empty when Complete
}

// Provider is one analysis engine. Availability and Support must be cheap and
// must never start a client or a process.
type Provider interface {
	Identity() Identity // Version nil when unknown before probing
	Availability(ctx context.Context) Availability
	Support(t Target) TargetSupport
	// Capabilities are the operations the provider declares, without overlay.
	Capabilities() []Capability
	// Profile resolves the analysis profile for t; cancellable.
	Profile(ctx context.Context, t Target) (Profile, error)
	// Start creates a client for t under run; run.ID was recorded before this call.
	Start(ctx context.Context, t Target, profile Profile, run Run) (Client, error)
}

// Warmer is a provider that can start analysing a file while the engine
// hashes it, so that the two overlap on separate cores instead of running one
// after the other (for a 99 MB executable the hash takes about 0.1 s and
// indexing its procedures 0.15 s). Warm returns at once. What it prepares may
// be used only by a later Profile or Start on the same unchanged file (the
// provider checks the file's identity), it has no effect outside the
// provider's memory, and abandon stops and drops it unless a Profile took it
// over. The engine calls abandon when the open is over, whatever provider it
// chose.
type Warmer interface {
	Warm(path string, fi fs.FileInfo) (abandon func())
}

// Client answers operations on one target. Do is called one request at a time
// by the engine; it honours ctx cancellation and reports progress to p.
type Client interface {
	Do(ctx context.Context, operation string, in Params, p progress.Reporter) (Result, error)
	// Lineage observes the client's process tree; ok is false for in-process clients.
	Lineage(ctx context.Context) (obs lineage.Observation, ok bool)
	Close(ctx context.Context) (Cleanup, error)
}

// EntryPointer is implemented by clients that know the target's entry point;
// the engine starts a connection's navigation cursor there.
type EntryPointer interface {
	EntryPoint() (address uint64, ok bool)
}

// ReadOnlyCapability declares an operation without effects that is
// idempotent and exhaustive, under timeoutMS; maxResults > 0 makes it
// offset-paged with that page bound.
func ReadOnlyCapability(op string, timeoutMS, maxResults int64) Capability {
	c := Capability{Operation: op, InputContractVersion: 1, OutputContractVersion: 1,
		Pagination: "none", Exhaustive: true, Effects: Effects{Idempotent: true},
		Limits: Limits{TimeoutMS: &timeoutMS}, Limitations: []string{}, Available: true}
	if maxResults > 0 {
		c.Pagination, c.Limits.MaxResults = "offset", &maxResults
	}
	return c
}
