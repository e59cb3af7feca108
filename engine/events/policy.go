package events

// Permission policy events and the scope vocabulary they carry (CONTRACTS.md
// §9.1, §13.2). The shapes live here, beside the other payloads, so the policy
// evaluator that produces them and the projections that fold them share one
// definition; engine/policy aliases these types and owns their behaviour.
//
// None of these carries an environment value: environment variables appear by
// name only.

// Policy event types.
const (
	GrantAdded        = "grant_added"
	GrantConsumed     = "grant_consumed"
	GrantRevoked      = "grant_revoked"
	PolicyReloaded    = "policy_reloaded"
	PermissionDecided = "permission_decided"
)

// PolicyStream holds policy reloads and administrator/project grant changes;
// once/session grant changes and decisions go to their connection's stream.
const PolicyStream = "policy"

// Scope is a capability and the resources it spans. Lists are canonical:
// deduplicated, sorted and never null.
type Scope struct {
	Capability       string   `json:"capability"`
	Roots            []string `json:"roots"`
	Executables      []string `json:"executables"`
	EnvironmentNames []string `json:"environment_names"`
	Network          string   `json:"network"` // none | loopback | external
	Mount            bool     `json:"mount"`
}

// Request is what one operation asks for. Access is recorded in
// permission_decided but never shown in a denial's details.
type Request struct {
	Scope
	OperationIdentity string `json:"operation_identity"`
	Access            string `json:"access"` // read | write
}

// Grant is a scope someone approved for a lifetime.
type Grant struct {
	Scope
	GrantID           string  `json:"grant_id"`
	Lifetime          string  `json:"lifetime"` // once | session | project | administrator
	OperationIdentity *string `json:"operation_identity"`
	ExpiresAt         *string `json:"expires_at"` // RFC 3339 UTC, milliseconds, Z
}

// MissingScope is the part of a request that nothing covered. Empty fields are
// omitted; an allowed request has an empty MissingScope ({}).
type MissingScope struct {
	Roots            []string `json:"roots,omitempty"`
	Executables      []string `json:"executables,omitempty"`
	EnvironmentNames []string `json:"environment_names,omitempty"`
	Network          string   `json:"network,omitempty"` // the requested mode
	Mount            bool     `json:"mount,omitempty"`
}

type GrantAddedData struct {
	Grant        Grant   `json:"grant"`
	Source       string  `json:"source"` // administrator | project_store | elicitation
	ConnectionID *string `json:"connection_id"`
}

type GrantConsumedData struct {
	GrantID      string `json:"grant_id"`
	ConnectionID string `json:"connection_id"`
	DecisionID   string `json:"decision_id"`
}

type GrantRevokedData struct {
	GrantID      string  `json:"grant_id"`
	Source       string  `json:"source"` // cli | project_store | elicitation_rollback
	ConnectionID *string `json:"connection_id"`
}

// ProjectStoreState is the project store as one reload saw it.
type ProjectStoreState struct {
	Path        string  `json:"path"`
	State       string  `json:"state"` // enabled | error
	GrantCount  int     `json:"grant_count"`
	StoreSHA256 *string `json:"store_sha256"` // nil when the file is absent
}

type PolicyReloadedData struct {
	Trigger               string             `json:"trigger"` // startup | sighup
	Outcome               string             `json:"outcome"` // applied | rejected
	ErrorReason           *string            `json:"error_reason"`
	AdministratorCeilings []Scope            `json:"administrator_ceilings"`
	CeilingsDigest        string             `json:"ceilings_digest"`
	ProjectStore          *ProjectStoreState `json:"project_store"`
}

type PermissionDecidedData struct {
	DecisionID   string       `json:"decision_id"`
	ConnectionID string       `json:"connection_id"`
	Operation    string       `json:"operation"`
	Request      Request      `json:"request"`
	Outcome      string       `json:"outcome"` // allow | deny
	Reason       string       `json:"reason"`  // granted | outside_administrator_ceiling | grant_required | grant_expired | grant_revoked_or_consumed
	GrantID      *string      `json:"grant_id"`
	Lifetime     *string      `json:"lifetime"`
	Missing      MissingScope `json:"missing"`
	Remediation  *string      `json:"remediation"` // configure | elicit | restart
	PolicySeq    int64        `json:"policy_seq"`
	EvaluatedAt  string       `json:"evaluated_at"`
}
