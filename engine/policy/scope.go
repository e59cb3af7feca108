// Package policy is REA's one permission evaluator (CONTRACTS.md §9): the
// scope vocabulary, administrator ceilings parsed from an environment map,
// realpath canonicalization of requested paths, the project grant store,
// connection-local once/session overlays, and the evaluation rules.
//
// The package decides and describes; it never writes the ledger. Every
// decision and grant change returns the event payloads (Emit) that the caller
// appends, so MCP, `rea policy` and a replay of the ledger see one history.
// It reads the ledger's policy history (package projections) for the
// inspection use cases of `rea policy` (explain.go: the live policy, a dry
// run, the replay of a recorded decision); the one write of `rea policy`,
// a revocation, is the engine's (Engine.RevokeProjectGrant), which appends.
//
// Environment variable values never enter this package's outputs: scopes,
// grants, denials and events name variables only, and a configuration error
// names the variable, never its value.
package policy

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/events"
)

// The scope vocabulary is defined once, with the event payloads.
type (
	Scope        = events.Scope
	Request      = events.Request
	Grant        = events.Grant
	MissingScope = events.MissingScope
)

// Capabilities (CONTRACTS.md §9.1).
const (
	ProcessCapture              = "process_capture"
	EvidenceRead                = "evidence_read"
	EvidenceWrite               = "evidence_write"
	InvestigationInput          = "investigation_input"
	InvestigationWorkspaceRead  = "investigation_workspace_read"
	InvestigationWorkspaceWrite = "investigation_workspace_write"
	SnapshotRead                = "snapshot_read"
	SnapshotWrite               = "snapshot_write"
	ArtifactExtract             = "artifact_extract"
	NativeMount                 = "native_mount"
	ReferenceRead               = "reference_read"
)

// Capabilities lists every capability in the order CONTRACTS.md gives them,
// including those no tool requests yet.
func Capabilities() []string {
	return []string{ProcessCapture, EvidenceRead, EvidenceWrite, InvestigationInput,
		InvestigationWorkspaceRead, InvestigationWorkspaceWrite, SnapshotRead, SnapshotWrite,
		ArtifactExtract, NativeMount, ReferenceRead}
}

// KnownCapability reports whether c is in the vocabulary.
func KnownCapability(c string) bool { return slices.Contains(Capabilities(), c) }

// Network modes, ordered none < loopback < external.
const (
	NetworkNone     = "none"
	NetworkLoopback = "loopback"
	NetworkExternal = "external"
)

func networkRank(n string) int {
	switch n {
	case NetworkNone:
		return 0
	case NetworkLoopback:
		return 1
	case NetworkExternal:
		return 2
	}
	return -1
}

// Lifetimes, in the order evaluation tries them.
const (
	LifetimeAdministrator = "administrator"
	LifetimeProject       = "project"
	LifetimeSession       = "session"
	LifetimeOnce          = "once"
)

func lifetimeRank(l string) int {
	switch l {
	case LifetimeAdministrator:
		return 0
	case LifetimeProject:
		return 1
	case LifetimeSession:
		return 2
	case LifetimeOnce:
		return 3
	}
	return 4
}

// Access modes of a request: only write lets the leaf be missing.
const (
	AccessRead  = "read"
	AccessWrite = "write"
)

// Decision reasons (permission_decided.reason).
const (
	ReasonGranted                = "granted"
	ReasonOutsideCeiling         = "outside_administrator_ceiling"
	ReasonGrantRequired          = "grant_required"
	ReasonGrantExpired           = "grant_expired"
	ReasonGrantRevokedOrConsumed = "grant_revoked_or_consumed"
)

// Remediations (permission_decided.remediation); "" is null.
const (
	RemediationConfigure = "configure"
	RemediationElicit    = "elicit"
	RemediationRestart   = "restart"
)

// Grant sources of grant_added / grant_revoked.
const (
	SourceAdministrator       = "administrator"
	SourceProjectStore        = "project_store"
	SourceElicitation         = "elicitation"
	SourceCLI                 = "cli"
	SourceElicitationRollback = "elicitation_rollback"
)

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidEnvironmentName reports whether name matches ^[A-Za-z_][A-Za-z0-9_]*$.
func ValidEnvironmentName(name string) bool { return envNameRE.MatchString(name) }

// AdministratorGrantID is the id of the grant a capability's ceiling yields.
func AdministratorGrantID(capability string) string { return "administrator:" + capability }

// Contains reports whether path p lies in root r: p == r or p has the prefix
// r + "/" ("/" contains every absolute path). Both must be canonical; comparing
// realpaths is what rejects symlink escapes, and the separator is what keeps
// /root-ab out of /root-a.
func Contains(r, p string) bool {
	if r == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == r || (len(p) > len(r) && p[len(r)] == '/' && p[:len(r)] == r)
}

func containedInAny(roots []string, p string) bool {
	for _, r := range roots {
		if Contains(r, p) {
			return true
		}
	}
	return false
}

// Uncovered returns the parts of q that s does not cover and how many there
// are (each root, executable, environment name, network and mount counts as
// one). s covers q iff the count is zero. Environment name lists must be
// sorted (canonical scopes are).
func Uncovered(s *Scope, q *Request) (MissingScope, int) {
	var m MissingScope
	n := 0
	for _, p := range q.Roots {
		if !containedInAny(s.Roots, p) {
			m.Roots = append(m.Roots, p)
			n++
		}
	}
	for _, p := range q.Executables {
		if !containedInAny(s.Executables, p) {
			m.Executables = append(m.Executables, p)
			n++
		}
	}
	for _, e := range q.EnvironmentNames {
		if _, ok := slices.BinarySearch(s.EnvironmentNames, e); !ok {
			m.EnvironmentNames = append(m.EnvironmentNames, e)
			n++
		}
	}
	if networkRank(q.Network) > networkRank(s.Network) {
		m.Network = q.Network
		n++
	}
	if q.Mount && !s.Mount {
		m.Mount = true
		n++
	}
	return m, n
}

// Covers reports whether s covers the whole of q (CONTRACTS.md §9.3).
func Covers(s *Scope, q *Request) bool {
	_, n := Uncovered(s, q)
	return n == 0
}

// WholeRequest is every requested part: roots, executables and environment
// names, the network unless none, the mount only if asked.
func WholeRequest(q *Request) MissingScope {
	m := MissingScope{
		Roots:            nonEmpty(q.Roots),
		Executables:      nonEmpty(q.Executables),
		EnvironmentNames: nonEmpty(q.EnvironmentNames),
		Mount:            q.Mount,
	}
	if q.Network != NetworkNone {
		m.Network = q.Network
	}
	return m
}

// nonEmpty copies xs, nil when empty (a MissingScope omits empty parts).
func nonEmpty(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return slices.Clone(xs)
}

// scopeWithin reports whether every part of g lies inside ceiling c (a grant
// must not be wider than the ceiling of its capability).
func scopeWithin(g *Scope, c *Scope) bool {
	if c == nil {
		return false
	}
	q := Request{Scope: *g}
	return Covers(c, &q)
}

// sortedSet returns the sorted, deduplicated copy of xs, never nil.
func sortedSet(xs []string) []string {
	out := slices.Clone(xs)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// minimalRoots drops roots contained in another root of the same list, so any
// path lies in at most one of the remaining roots; coverage is unchanged.
func minimalRoots(sorted []string) []string {
	out := make([]string, 0, len(sorted))
	for _, r := range sorted {
		if !containedInAny(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// cleanAbsolute reports whether p is an absolute path already in
// filepath.Clean form (no "..", ".", "//" or trailing slash).
func cleanAbsolute(p string) bool {
	return filepath.IsAbs(p) && filepath.Clean(p) == p
}

func cloneScope(s Scope) Scope {
	s.Roots = slices.Clone(s.Roots)
	s.Executables = slices.Clone(s.Executables)
	s.EnvironmentNames = slices.Clone(s.EnvironmentNames)
	return s
}

func cloneGrant(g Grant) Grant {
	g.Scope = cloneScope(g.Scope)
	if g.OperationIdentity != nil {
		v := *g.OperationIdentity
		g.OperationIdentity = &v
	}
	if g.ExpiresAt != nil {
		v := *g.ExpiresAt
		g.ExpiresAt = &v
	}
	return g
}
