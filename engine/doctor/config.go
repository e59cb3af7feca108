package doctor

import (
	"encoding/json"
	"path/filepath"
	"regexp"

	"github.com/rea-re/rea/engine/provider"
)

// EnvProblem is one invalid variable. Reason is a fixed code; the value is
// never part of it.
type EnvProblem struct {
	Variable string `json:"variable"`
	Reason   string `json:"reason"`
}

var (
	boolVars = []string{"REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED", "REA_ARTIFACT_NATIVE_MOUNT_ENABLED",
		"REA_GDB_ENABLED", "REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "REA_PROCESS_CAPTURE_ENABLED"}
	rootVars = []string{"REA_ANALYSIS_SNAPSHOT_ROOTS_JSON", "REA_EVIDENCE_ROOTS_JSON", "REA_INVESTIGATION_INPUT_ROOTS_JSON",
		"REA_PROCESS_EXECUTABLE_ROOTS_JSON", "REA_PROCESS_WORKING_ROOTS_JSON", "REA_REFERENCE_ROOTS_JSON"}
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

const maxListEntries = 128

// EnvironmentProblems checks the variables of CONTRACTS.md §9.2 and §5 the
// way the commands that load them do: booleans exactly true/false (unset or
// empty = false), *_JSON lists of at most 128 non-empty strings (existing
// absolute paths, or environment names), the project pair both or neither
// and absolute, capture roots present when capture is enabled, and a valid
// REA_ANALYSIS_PROVIDER selector.
func EnvironmentProblems(lookup func(string) (string, bool)) []EnvProblem {
	var out []EnvProblem
	bad := func(v, reason string) { out = append(out, EnvProblem{v, reason}) }
	get := func(v string) string { s, _ := lookup(v); return s }

	if s := get("REA_ANALYSIS_PROVIDER"); s != "" {
		if _, ok := provider.ParseSelector(s); !ok {
			bad("REA_ANALYSIS_PROVIDER", "invalid_value")
		}
	}
	for _, v := range boolVars {
		if s := get(v); s != "" && s != "true" && s != "false" {
			bad(v, "not_boolean")
		}
	}
	if s, ok := lookup("REA_GDB_PATH"); ok && s == "" {
		bad("REA_GDB_PATH", "empty")
	}
	roots := map[string]int{}
	for _, v := range rootVars {
		s := get(v)
		if s == "" {
			continue
		}
		list, reason := stringList(s)
		for _, p := range list {
			if reason != "" {
				break
			}
			switch {
			case !filepath.IsAbs(p):
				reason = "relative_path"
			default:
				if _, err := filepath.EvalSymlinks(p); err != nil {
					reason = "missing_root"
				}
			}
		}
		if reason != "" {
			bad(v, reason)
		}
		roots[v] = len(list)
	}
	if s := get("REA_PROCESS_ALLOWED_ENV_JSON"); s != "" {
		list, reason := stringList(s)
		for _, n := range list {
			if reason == "" && !envNamePattern.MatchString(n) {
				reason = "invalid_name"
			}
		}
		if reason != "" {
			bad("REA_PROCESS_ALLOWED_ENV_JSON", reason)
		}
	}
	if get("REA_PROCESS_CAPTURE_ENABLED") == "true" {
		for _, v := range []string{"REA_PROCESS_WORKING_ROOTS_JSON", "REA_PROCESS_EXECUTABLE_ROOTS_JSON"} {
			if roots[v] == 0 && get(v) == "" {
				bad(v, "required_when_capture_enabled")
			}
		}
	}
	root, store := get("REA_PERMISSION_PROJECT_ROOT"), get("REA_PERMISSION_PROJECT_STORE")
	switch {
	case (root == "") != (store == ""):
		if root == "" {
			bad("REA_PERMISSION_PROJECT_ROOT", "required_with_project_store")
		} else {
			bad("REA_PERMISSION_PROJECT_STORE", "required_with_project_root")
		}
	case root != "":
		if !filepath.IsAbs(root) {
			bad("REA_PERMISSION_PROJECT_ROOT", "relative_path")
		} else if _, err := filepath.EvalSymlinks(root); err != nil {
			bad("REA_PERMISSION_PROJECT_ROOT", "project_not_found")
		}
		if !filepath.IsAbs(store) {
			bad("REA_PERMISSION_PROJECT_STORE", "relative_path")
		}
	}
	return out
}

// stringList parses a *_JSON variable: an array of at most 128 non-empty
// strings. The reason is "" when it is one.
func stringList(s string) ([]string, string) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil || raw == nil {
		return nil, "not_json_array"
	}
	if len(raw) > maxListEntries {
		return nil, "too_many_entries"
	}
	list, ok := stringArray(json.RawMessage(s))
	if !ok {
		return nil, "not_string_array"
	}
	for _, e := range list {
		if e == "" {
			return nil, "empty_entry"
		}
	}
	return list, ""
}
