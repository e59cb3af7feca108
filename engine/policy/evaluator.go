package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
)

// TimeLayout is the contract's timestamp spelling (RFC 3339 UTC, ms, Z).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Millisecond).Format(TimeLayout) }

// parseTime accepts only the canonical spelling, so a timestamp read back
// renders to the same bytes.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		return time.Time{}, err
	}
	if t.Format(TimeLayout) != s {
		return time.Time{}, fmt.Errorf("timestamp %q is not in the canonical spelling", s)
	}
	return t, nil
}

// Emit is one event the caller must append: Type and Data per
// CONTRACTS.md §13.2, on Stream.
type Emit struct {
	Stream string
	Type   string
	Data   any
}

// Surface is where a decision will be shown; it decides whether a ceiling
// denial asks for a restart (MCP: the registered server owns the
// environment) or for configuration (CLI: the command's own environment).
type Surface int

const (
	SurfaceMCP Surface = iota
	SurfaceCLI
)

// Input is one authorization.
type Input struct {
	// ConnectionID selects the connection's once/session overlay and is
	// recorded in permission_decided. A live evaluation needs one (a CLI
	// invocation is a connection too); "" is for a DryRun without overlays,
	// as `rea policy explain` evaluates.
	ConnectionID string
	Operation    string  // the tool, recorded as permission_decided.operation
	Request      Request // canonical (CanonicalizeRequest)
	Surface      Surface
	// ElicitationForm: the client advertised form elicitation, so a
	// process_capture request inside the ceiling can be approved by asking.
	ElicitationForm bool
	// DryRun evaluates without consuming a once grant or producing events
	// (`rea policy explain`, and the replay of a recorded decision).
	DryRun bool
}

// Decision is the outcome of one evaluation. It is a value: revoking the grant
// that allowed it later does not change it. Grant and Ceiling point at the
// evaluator's immutable copies: read them, never modify them.
type Decision struct {
	ID          string // decision_id; "" for a dry run
	Allowed     bool
	Reason      string
	Grant       *Grant // the determining grant when allowed
	Source      string // administrator | project | connection, when allowed
	Missing     MissingScope
	Ceiling     *Scope // the capability's ceiling, nil when it has none
	Remediation string // configure | elicit | restart, "" when allowed
	Request     Request
	Operation   string
	PolicySeq   int64
	EvaluatedAt time.Time
	Surface     Surface
	// Events to append, in order: permission_decided, then grant_consumed
	// when a once grant was used. Empty for a dry run.
	Events []Emit
}

// ElicitationSupported is the denial's elicitation_supported.
func (d *Decision) ElicitationSupported() bool { return d.Remediation == RemediationElicit }

// RestartRequired is the denial's restart_required.
func (d *Decision) RestartRequired() bool { return d.Remediation == RemediationRestart }

// Err is the permission_required failure of a denial (CONTRACTS.md §9.8), nil
// when allowed. The copy is fixed per situation and names no value.
func (d *Decision) Err() *fault.Error {
	if d.Allowed {
		return nil
	}
	var action string
	switch d.Remediation {
	case RemediationRestart:
		action = "Add the exact missing scope to the administrator configuration, then restart the registered server or its client."
	case RemediationElicit:
		action = "Approve the exact scope when asked."
	default:
		if d.Reason == ReasonOutsideCeiling {
			action = "Configure the administrator ceiling in this command's environment."
		} else if d.Request.Capability == ProcessCapture {
			action = "Add a project grant and send SIGHUP to the REA process, or use a client with form elicitation."
		} else {
			action = "Add a project grant and send SIGHUP to the REA process."
		}
	}
	requested := cloneScope(d.Request.Scope)
	var ceiling any
	if d.Ceiling != nil {
		ceiling = cloneScope(*d.Ceiling)
	}
	e := fault.New(fault.PermissionRequired, "The operation needs a permission that policy does not grant.", action,
		map[string]any{"capability": d.Request.Capability, "requested": requested, "missing": d.Missing, "ceiling": ceiling})
	e.Remediation.RestartRequired = d.RestartRequired()
	es := d.ElicitationSupported()
	e.Remediation.ElicitationSupported = &es
	return e
}

// Options are an evaluator's injected effects.
type Options struct {
	Now   func() time.Time // the clock expiry is judged by; default time.Now
	NewID func() string    // decision ids; default a ULID
}

// entry is one grant as the evaluator holds it.
type entry struct {
	g         Grant
	source    string // administrator | project | connection
	opID      string
	anyOp     bool // operation_identity null
	expires   time.Time
	hasExpiry bool
	roots     []string // minimal: a path lies in at most one
	exes      []string
	netRank   int
	revoked   atomic.Bool
	consumed  atomic.Bool
}

func newEntry(g Grant, source string) (*entry, error) {
	en := &entry{g: cloneGrant(g), source: source, netRank: networkRank(g.Network)}
	if g.OperationIdentity == nil {
		en.anyOp = true
	} else {
		en.opID = *g.OperationIdentity
	}
	if g.ExpiresAt != nil {
		t, err := parseTime(*g.ExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("grant %s: expires_at: %w", g.GrantID, err)
		}
		en.expires, en.hasExpiry = t, true
	}
	en.roots = minimalRoots(en.g.Roots)
	en.exes = minimalRoots(en.g.Executables)
	return en, nil
}

const (
	stateActive = iota
	stateExpired
	stateRevokedOrConsumed
)

func (en *entry) state(now time.Time) int {
	if en.revoked.Load() || en.consumed.Load() {
		return stateRevokedOrConsumed
	}
	if en.hasExpiry && !en.expires.After(now) {
		return stateExpired
	}
	return stateActive
}

func (en *entry) opMatches(q *Request) bool { return en.anyOp || en.opID == q.OperationIdentity }

// capIndex indexes the administrator and project grants of one capability so
// one evaluation over many grants costs a few map lookups per requested part
// plus one pass over a counter array, not a coverage test per grant.
type capIndex struct {
	entries []*entry           // administrator, then project by grant_id
	roots   map[string][]int32 // grant root → entries having it
	exes    map[string][]int32
	envs    map[string][]int32
	netMin  [3][]int32 // netMin[r]: entries whose network rank ≥ r
	mount   []int32
	tombs   []*entry // project grants a reload removed (for deny reasons)
}

func buildIndex(entries []*entry, tombs []*entry) *capIndex {
	ix := &capIndex{entries: entries, roots: map[string][]int32{}, exes: map[string][]int32{},
		envs: map[string][]int32{}, tombs: tombs}
	for i, en := range entries {
		n := int32(i)
		for _, r := range en.roots {
			ix.roots[r] = append(ix.roots[r], n)
		}
		for _, r := range en.exes {
			ix.exes[r] = append(ix.exes[r], n)
		}
		for _, v := range en.g.EnvironmentNames {
			ix.envs[v] = append(ix.envs[v], n)
		}
		for r := 0; r <= en.netRank && r < 3; r++ {
			ix.netMin[r] = append(ix.netMin[r], n)
		}
		if en.g.Mount {
			ix.mount = append(ix.mount, n)
		}
	}
	return ix
}

// parentDir is the parent of a canonical absolute path ("/" for "/x").
func parentDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// count adds, for each entry, how many parts of q it covers, and returns how
// many parts every entry covers: those are left out of counts (they add the
// same to every entry, so the fewest-uncovered search need not visit them).
func (ix *capIndex) count(q *Request, counts []int32) (universal int) {
	n := len(ix.entries)
	add := func(p part) {
		if p.size() == n {
			universal++
			return
		}
		if p.m == nil {
			for _, i := range p.single {
				counts[i]++
			}
			return
		}
		for a := p.path; ; a = parentDir(a) {
			for _, i := range p.m[a] {
				counts[i]++
			}
			if a == "/" || a == "" {
				return
			}
		}
	}
	for _, p := range q.Roots {
		add(part{m: ix.roots, path: p})
	}
	for _, p := range q.Executables {
		add(part{m: ix.exes, path: p})
	}
	for _, v := range q.EnvironmentNames {
		add(part{single: ix.envs[v]})
	}
	if r := networkRank(q.Network); r > 0 {
		add(part{single: ix.netMin[r]})
	}
	if q.Mount {
		add(part{single: ix.mount})
	}
	return universal
}

// part names one requested part's posting lists: a path looked up with its
// ancestors in m, or a single list.
type part struct {
	m      map[string][]int32
	path   string
	single []int32
}

// lists appends the part's posting lists to dst. Each is ascending, and
// because entry roots are minimal no entry is in two of them.
func (p part) lists(dst [][]int32) [][]int32 {
	if p.m == nil {
		return append(dst, p.single)
	}
	for a := p.path; ; a = parentDir(a) {
		if l := p.m[a]; len(l) > 0 {
			dst = append(dst, l)
		}
		if a == "/" || a == "" {
			return dst
		}
	}
}

func (p part) size() int {
	if p.m == nil {
		return len(p.single)
	}
	n := 0
	for a := p.path; ; a = parentDir(a) {
		n += len(p.m[a])
		if a == "/" || a == "" {
			return n
		}
	}
}

// selective returns q's part held by the fewest entries; all reports that q
// has no part, so every entry is a candidate.
func (ix *capIndex) selective(q *Request) (best part, all bool) {
	bestN := -1
	pick := func(p part) {
		if n := p.size(); bestN < 0 || n < bestN {
			best, bestN = p, n
		}
	}
	for _, p := range q.Roots {
		pick(part{m: ix.roots, path: p})
	}
	for _, p := range q.Executables {
		pick(part{m: ix.exes, path: p})
	}
	for _, v := range q.EnvironmentNames {
		pick(part{single: ix.envs[v]})
	}
	if r := networkRank(q.Network); r > 0 {
		pick(part{single: ix.netMin[r]})
	}
	if q.Mount {
		pick(part{single: ix.mount})
	}
	return best, bestN < 0
}

// firstOf tries the entries of lists in ascending index order and returns the
// first that try accepts.
func (ix *capIndex) firstOf(lists [][]int32, try func(int32) *entry) *entry {
	if len(lists) == 1 {
		for _, i := range lists[0] {
			if en := try(i); en != nil {
				return en
			}
		}
		return nil
	}
	// A k-way merge of short sorted lists.
	pos := make([]int, len(lists))
	for {
		min, at := int32(-1), -1
		for k, l := range lists {
			if pos[k] < len(l) && (at < 0 || l[pos[k]] < min) {
				min, at = l[pos[k]], k
			}
		}
		if at < 0 {
			return nil
		}
		pos[at]++
		if en := try(min); en != nil {
			return en
		}
	}
}

// coversAll is Covers without building the missing parts.
func (en *entry) coversAll(q *Request) bool {
	for _, p := range q.Roots {
		if !containedInAny(en.roots, p) {
			return false
		}
	}
	for _, p := range q.Executables {
		if !containedInAny(en.exes, p) {
			return false
		}
	}
	for _, v := range q.EnvironmentNames {
		if _, ok := slices.BinarySearch(en.g.EnvironmentNames, v); !ok {
			return false
		}
	}
	return networkRank(q.Network) <= en.netRank && (!q.Mount || en.g.Mount)
}

func requestParts(q *Request) int {
	n := len(q.Roots) + len(q.Executables) + len(q.EnvironmentNames)
	if networkRank(q.Network) > 0 {
		n++
	}
	if q.Mount {
		n++
	}
	return n
}

// snapshot is the process-wide policy in effect: immutable once published
// (only the revoked flags of its entries change).
type snapshot struct {
	policySeq int64
	byCap     map[string]*capIndex
	project   []*entry // by grant_id
	admin     []*entry
}

// overlay is one connection's once and session grants.
type overlay struct {
	mu      sync.RWMutex
	session []*entry // by grant_id
	once    []*entry // by grant_id
}

// Evaluator is the one permission evaluator of a process. It is safe for
// concurrent use; evaluations do not block each other.
type Evaluator struct {
	ceilings *Ceilings
	store    *StoreConfig
	now      func() time.Time
	newID    func() string

	snap   atomic.Pointer[snapshot]
	counts sync.Pool // *[]int32 scratch for capIndex.count

	// mu serializes policy changes (reloads, project revocations); known is
	// the project grant set the next reload diffs against.
	mu    sync.Mutex
	gen   uint64
	known map[string]Grant

	connMu sync.RWMutex
	conns  map[string]*overlay
}

// New builds an evaluator over cfg with no project grants and policy_seq 0;
// a startup Reload installs the project store. baseline is the project grant
// set the ledger's projection holds as active, which the first reload diffs
// against (nil: none).
func New(cfg *Config, baseline []Grant, opts Options) *Evaluator {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = func() string { return ulid.Make().String() }
	}
	ceilings := cfg.Ceilings
	if ceilings == nil {
		ceilings = &Ceilings{}
	}
	e := &Evaluator{ceilings: ceilings, store: cfg.Store, now: opts.Now, newID: opts.NewID,
		known: map[string]Grant{}, conns: map[string]*overlay{}}
	for _, g := range baseline {
		e.known[g.GrantID] = cloneGrant(g)
	}
	snap, err := e.buildSnapshot(nil, nil, 0)
	if err != nil {
		// Administrator grants come from validated ceilings; no project grants.
		panic(fmt.Sprintf("policy: initial snapshot: %v", err))
	}
	e.snap.Store(snap)
	return e
}

// Ceilings are the administrator ceilings this evaluator enforces.
func (e *Evaluator) Ceilings() *Ceilings { return e.ceilings }

// Store is the project store configuration, nil when not configured.
func (e *Evaluator) Store() *StoreConfig { return e.store }

// PolicySeq is the seq of the policy_reloaded in effect.
func (e *Evaluator) PolicySeq() int64 { return e.snap.Load().policySeq }

func (e *Evaluator) buildSnapshot(project []Grant, tombs []*entry, policySeq int64) (*snapshot, error) {
	s := &snapshot{policySeq: policySeq, byCap: map[string]*capIndex{}}
	perCap := map[string][]*entry{}
	for _, g := range e.ceilings.AdministratorGrants() {
		en, err := newEntry(g, SourceAdministrator)
		if err != nil {
			return nil, err
		}
		s.admin = append(s.admin, en)
		perCap[g.Capability] = append(perCap[g.Capability], en)
	}
	project = slices.Clone(project)
	slices.SortFunc(project, func(a, b Grant) int { return strings.Compare(a.GrantID, b.GrantID) })
	for _, g := range project {
		en, err := newEntry(g, LifetimeProject)
		if err != nil {
			return nil, err
		}
		s.project = append(s.project, en)
		perCap[g.Capability] = append(perCap[g.Capability], en)
	}
	tombsByCap := map[string][]*entry{}
	for _, t := range tombs {
		tombsByCap[t.g.Capability] = append(tombsByCap[t.g.Capability], t)
	}
	for _, c := range Capabilities() {
		if len(perCap[c]) > 0 || len(tombsByCap[c]) > 0 {
			s.byCap[c] = buildIndex(perCap[c], tombsByCap[c])
		}
	}
	return s, nil
}

// Evaluate authorizes one request (CONTRACTS.md §9.4). Unless DryRun, the
// decision carries a fresh id and the events to append; a once grant that
// allows it is consumed atomically here — among concurrent evaluations exactly
// one wins it.
func (e *Evaluator) Evaluate(in Input) Decision {
	now := e.now()
	snap := e.snap.Load()
	q := &in.Request
	d := Decision{Request: in.Request, Operation: in.Operation, PolicySeq: snap.policySeq,
		EvaluatedAt: now, Surface: in.Surface}
	ceiling := e.ceilings.ceiling(q.Capability)
	d.Ceiling = ceiling // shared and never modified: see Decision

	// 1. The ceiling bounds every grant, including connection overlays.
	var outside bool
	if ceiling == nil {
		// No ceiling: nothing of this capability may happen, even a request
		// that names no resource.
		d.Missing, outside = WholeRequest(q), true
	} else {
		var n int
		d.Missing, n = Uncovered(ceiling, q)
		outside = n > 0
	}
	if outside {
		d.Reason = ReasonOutsideCeiling
		d.Remediation = RemediationRestart
		if in.Surface == SurfaceCLI {
			d.Remediation = RemediationConfigure
		}
		return e.finish(in, d, nil)
	}

	// 2–3. The first candidate, in order administrator, project, session,
	// once (then grant_id), that covers the whole request allows.
	var best *entry
	var bestMissing MissingScope
	bestUnc := -1
	would := 0 // state of the first inactive grant that would have covered
	consider := func(en *entry, unc int, missing func() MissingScope) {
		if best == nil || unc < bestUnc {
			best, bestUnc = en, unc
			bestMissing = missing()
		}
	}

	if ix := snap.byCap[q.Capability]; ix != nil {
		// Whole coverage: only the grants covering the request's most
		// selective part can cover all of it; they are tried in order.
		sel, all := ix.selective(q)
		try := func(i int32) *entry {
			en := ix.entries[i]
			if !en.opMatches(q) || !en.coversAll(q) {
				return nil
			}
			if st := en.state(now); st != stateActive {
				if would == 0 {
					would = st
				}
				return nil
			}
			return en
		}
		if all {
			for i := range ix.entries {
				if en := try(int32(i)); en != nil {
					return e.finish(in, d, en)
				}
			}
		} else if en := ix.firstOf(sel.lists(make([][]int32, 0, 16)), try); en != nil {
			return e.finish(in, d, en)
		}

		// Denied by these grants: the active candidate with the fewest
		// uncovered parts, the first in order on a tie (only a strictly
		// better count is examined).
		parts := requestParts(q)
		cp := e.scratch(len(ix.entries))
		counts := *cp
		universal := ix.count(q, counts)
		bestCount, bestIdx := int32(-1), -1
		for i, c := range counts {
			if c <= bestCount {
				continue
			}
			if en := ix.entries[i]; en.opMatches(q) && en.state(now) == stateActive {
				bestCount, bestIdx = c, i
			}
		}
		e.counts.Put(cp)
		if bestIdx >= 0 {
			en := ix.entries[bestIdx]
			consider(en, parts-universal-int(bestCount), func() MissingScope { m, _ := Uncovered(&en.g.Scope, q); return m })
		}
		if would == 0 {
			for _, en := range ix.tombs {
				if en.opMatches(q) && Covers(&en.g.Scope, q) {
					would = stateRevokedOrConsumed
					break
				}
			}
		}
	}

	if in.ConnectionID != "" {
		e.connMu.RLock()
		ov := e.conns[in.ConnectionID]
		e.connMu.RUnlock()
		if ov != nil {
			ov.mu.RLock()
			lists := [2][]*entry{ov.session, ov.once}
			ov.mu.RUnlock()
			for _, list := range lists {
				for _, en := range list {
					if en.g.Capability != q.Capability || !en.opMatches(q) {
						continue
					}
					missing, unc := Uncovered(&en.g.Scope, q)
					st := en.state(now)
					if st == stateActive && unc == 0 {
						if en.g.Lifetime != LifetimeOnce || in.DryRun || en.consumed.CompareAndSwap(false, true) {
							return e.finish(in, d, en)
						}
						st = stateRevokedOrConsumed // lost the race for it
					}
					if st != stateActive {
						if unc == 0 && would == 0 {
							would = st
						}
						continue
					}
					consider(en, unc, func() MissingScope { return missing })
				}
			}
		}
	}

	// 4. Deny.
	switch would {
	case stateExpired:
		d.Reason = ReasonGrantExpired
	case stateRevokedOrConsumed:
		d.Reason = ReasonGrantRevokedOrConsumed
	default:
		d.Reason = ReasonGrantRequired
	}
	if best != nil {
		d.Missing = bestMissing
	} else {
		d.Missing = WholeRequest(q)
	}
	d.Remediation = RemediationConfigure
	if q.Capability == ProcessCapture && in.Surface == SurfaceMCP && in.ElicitationForm {
		d.Remediation = RemediationElicit
	}
	return e.finish(in, d, nil)
}

func (e *Evaluator) scratch(n int) *[]int32 {
	cp, _ := e.counts.Get().(*[]int32)
	if cp == nil || cap(*cp) < n {
		s := make([]int32, n)
		return &s
	}
	s := (*cp)[:n]
	clear(s)
	*cp = s
	return cp
}

// finish completes d: the determining grant when allowed, and unless a dry run
// the decision id and events.
func (e *Evaluator) finish(in Input, d Decision, en *entry) Decision {
	if en != nil {
		d.Allowed, d.Reason, d.Grant, d.Source = true, ReasonGranted, &en.g, en.source
		if en.source == LifetimeSession || en.source == LifetimeOnce {
			d.Source = "connection"
		}
		d.Missing, d.Remediation = MissingScope{}, ""
	}
	if in.DryRun {
		return d
	}
	d.ID = e.newID()
	data := events.PermissionDecidedData{
		DecisionID:   d.ID,
		ConnectionID: in.ConnectionID,
		Operation:    in.Operation,
		Request:      d.Request,
		Outcome:      "deny",
		Reason:       d.Reason,
		Missing:      d.Missing,
		PolicySeq:    d.PolicySeq,
		EvaluatedAt:  FormatTime(d.EvaluatedAt),
	}
	if d.Allowed {
		data.Outcome = "allow"
		id, lt := d.Grant.GrantID, d.Grant.Lifetime
		data.GrantID, data.Lifetime = &id, &lt
	} else {
		r := d.Remediation
		data.Remediation = &r
	}
	stream := events.ConnectionStream(in.ConnectionID)
	d.Events = append(d.Events, Emit{Stream: stream, Type: events.PermissionDecided, Data: data})
	if d.Allowed && d.Grant.Lifetime == LifetimeOnce {
		d.Events = append(d.Events, Emit{Stream: stream, Type: events.GrantConsumed, Data: events.GrantConsumedData{
			GrantID: d.Grant.GrantID, ConnectionID: in.ConnectionID, DecisionID: d.ID}})
	}
	return d
}

// Errors of the grant-changing methods.
var (
	ErrGrantNotFound = errors.New("policy: grant not found")
	ErrStaleReload   = errors.New("policy: the policy changed after this reload was read; reload again")
	// ErrStoreNotConfigured: a project-grant change without a project
	// store (REA_PERMISSION_PROJECT_ROOT and REA_PERMISSION_PROJECT_STORE unset).
	ErrStoreNotConfigured = errors.New("policy: project policy is not configured")
)

// AddConnectionGrant adds a once or session grant to one connection's overlay
// (after an accepted elicitation) and returns its grant_added event. The grant
// must lie inside the current ceiling of its capability; a once grant must
// name its operation identity.
func (e *Evaluator) AddConnectionGrant(connectionID string, g Grant) (Emit, error) {
	if connectionID == "" {
		return Emit{}, errors.New("policy: connection grant without a connection")
	}
	if g.Lifetime != LifetimeOnce && g.Lifetime != LifetimeSession {
		return Emit{}, fmt.Errorf("policy: connection grant lifetime %q", g.Lifetime)
	}
	if g.Lifetime == LifetimeOnce && (g.OperationIdentity == nil || *g.OperationIdentity == "") {
		return Emit{}, errors.New("policy: a once grant must carry its operation identity")
	}
	if g.GrantID == "" {
		return Emit{}, errors.New("policy: grant without an id")
	}
	s, err := normalizeScope(g.Scope)
	if err != nil {
		return Emit{}, fmt.Errorf("policy: grant %s: %w", g.GrantID, err)
	}
	g.Scope = s
	if !scopeWithin(&g.Scope, e.ceilings.ceiling(g.Capability)) {
		return Emit{}, fmt.Errorf("policy: grant %s lies outside the %s ceiling", g.GrantID, g.Capability)
	}
	en, err := newEntry(g, g.Lifetime)
	if err != nil {
		return Emit{}, err
	}
	e.connMu.Lock()
	ov := e.conns[connectionID]
	if ov == nil {
		ov = &overlay{}
		e.conns[connectionID] = ov
	}
	e.connMu.Unlock()

	ov.mu.Lock()
	defer ov.mu.Unlock()
	if ov.find(g.GrantID) != nil {
		return Emit{}, fmt.Errorf("policy: grant %s already exists on this connection", g.GrantID)
	}
	// Copy-on-write: evaluations hold the old slices without a lock.
	list := &ov.session
	if g.Lifetime == LifetimeOnce {
		list = &ov.once
	}
	next := append(slices.Clone(*list), en)
	slices.SortFunc(next, func(a, b *entry) int { return strings.Compare(a.g.GrantID, b.g.GrantID) })
	*list = next
	cid := connectionID
	return Emit{Stream: events.ConnectionStream(connectionID), Type: events.GrantAdded,
		Data: events.GrantAddedData{Grant: cloneGrant(en.g), Source: SourceElicitation, ConnectionID: &cid}}, nil
}

func (ov *overlay) find(id string) *entry {
	for _, list := range [][]*entry{ov.session, ov.once} {
		for _, en := range list {
			if en.g.GrantID == id {
				return en
			}
		}
	}
	return nil
}

func (e *Evaluator) connEntry(connectionID, grantID string) *entry {
	e.connMu.RLock()
	ov := e.conns[connectionID]
	e.connMu.RUnlock()
	if ov == nil {
		return nil
	}
	ov.mu.RLock()
	defer ov.mu.RUnlock()
	return ov.find(grantID)
}

// RevokeConnectionGrant revokes a once/session grant of one connection (source
// elicitation_rollback when the authorization after an accepted elicitation
// failed). Decisions already made keep their outcome.
func (e *Evaluator) RevokeConnectionGrant(connectionID, grantID, source string) (Emit, error) {
	en := e.connEntry(connectionID, grantID)
	if en == nil {
		return Emit{}, ErrGrantNotFound
	}
	en.revoked.Store(true)
	cid := connectionID
	return Emit{Stream: events.ConnectionStream(connectionID), Type: events.GrantRevoked,
		Data: events.GrantRevokedData{GrantID: grantID, Source: source, ConnectionID: &cid}}, nil
}

// MarkConsumed records that a connection's once grant was consumed, for an
// evaluator rebuilt from the ledger (replaying grant_consumed).
func (e *Evaluator) MarkConsumed(connectionID, grantID string) error {
	en := e.connEntry(connectionID, grantID)
	if en == nil {
		return ErrGrantNotFound
	}
	en.consumed.Store(true)
	return nil
}

// CloseConnection drops one connection's overlay; no other connection's
// grants change. connection_closed records it: no grant event is due.
func (e *Evaluator) CloseConnection(connectionID string) {
	e.connMu.Lock()
	delete(e.conns, connectionID)
	e.connMu.Unlock()
}

// RevokeProjectGrant honours a project-grant revocation read from the ledger
// (another process's `rea policy revoke`): it takes effect for every later
// evaluation at once, without waiting for SIGHUP. The event is already in the
// ledger, so none is returned. It reports whether the grant was in effect.
func (e *Evaluator) RevokeProjectGrant(grantID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	found := false
	for _, en := range e.snap.Load().project {
		if en.g.GrantID == grantID && !en.revoked.Swap(true) {
			found = true
		}
	}
	delete(e.known, grantID)
	e.gen++
	return found
}

// SetProjectGrants installs project grants directly, without reading the store
// or producing events: for an evaluator rebuilt from the ledger to replay a
// recorded decision. The grants are validated like the store's.
func (e *Evaluator) SetProjectGrants(grants []Grant, policySeq int64) error {
	norm, err := validateProjectGrants(grants, e.ceilings)
	if err != nil {
		return err
	}
	snap, err := e.buildSnapshot(norm, nil, policySeq)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.snap.Store(snap)
	e.known = map[string]Grant{}
	for _, g := range norm {
		e.known[g.GrantID] = g
	}
	e.gen++
	return nil
}

// Listed is a grant as `rea policy list` shows it.
type Listed struct {
	Grant
	Source string `json:"source"` // administrator | project
	State  string `json:"state"`  // active | expired | revoked
}

// List returns the administrator grants, then the project grants in effect
// (ledger-revoked ones with state revoked), by grant_id.
func (e *Evaluator) List() []Listed {
	now := e.now()
	snap := e.snap.Load()
	var out []Listed
	for _, group := range [][]*entry{snap.admin, snap.project} {
		for _, en := range group {
			l := Listed{Grant: cloneGrant(en.g), Source: SourceAdministrator, State: "active"}
			if en.source == LifetimeProject {
				l.Source = LifetimeProject
			}
			switch en.state(now) {
			case stateExpired:
				l.State = "expired"
			case stateRevokedOrConsumed:
				l.State = "revoked"
			}
			out = append(out, l)
		}
	}
	return out
}
