package doctor

import (
	"errors"

	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/provider"
)

// EnvProblem is one invalid variable. Reason is a fixed code; the value is
// never part of it.
type EnvProblem struct {
	Variable string `json:"variable"`
	Reason   string `json:"reason"`
}

// Booleans outside the policy package's variables (CONTRACTS.md §9.2 "other
// variables"), exactly true/false; empty is unset.
var otherBoolVars = []string{"REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED", "REA_GDB_ENABLED"}

// EnvironmentProblems loads the configuration from env the way `rea mcp`
// does at startup: the provider selector and the other booleans, then the
// policy ceilings (policy.LoadConfig) and, when configured, the project
// store (policy.ReadStore). The policy loader stops at its first problem, so
// at most one policy problem is listed.
func EnvironmentProblems(env map[string]string) []EnvProblem {
	var out []EnvProblem
	if s := env["REA_ANALYSIS_PROVIDER"]; s != "" {
		if _, ok := provider.ParseSelector(s); !ok {
			out = append(out, EnvProblem{"REA_ANALYSIS_PROVIDER", "invalid_value"})
		}
	}
	if _, ok := evidence.ParseContextForm(env[evidence.ContextFormEnv]); !ok {
		out = append(out, EnvProblem{evidence.ContextFormEnv, "invalid_value"})
	}
	for _, v := range otherBoolVars {
		if s := env[v]; s != "" && s != "true" && s != "false" {
			out = append(out, EnvProblem{v, policy.ReasonInvalidBoolean})
		}
	}
	cfg, err := policy.LoadConfig(env)
	if err == nil && cfg.Store != nil {
		_, err = policy.ReadStore(*cfg.Store, cfg.Ceilings)
	}
	if err != nil {
		out = append(out, problemOf(err))
	}
	return out
}

// problemOf reduces a configuration fault to its variable and reason.
func problemOf(err error) EnvProblem {
	var fe *fault.Error
	if errors.As(err, &fe) {
		v, _ := fe.Details["variable"].(string)
		r, _ := fe.Details["reason"].(string)
		if v == "" {
			v = "policy configuration"
		}
		if r == "" {
			r = string(fe.Code)
		}
		return EnvProblem{v, r}
	}
	return EnvProblem{"policy configuration", "io"}
}
