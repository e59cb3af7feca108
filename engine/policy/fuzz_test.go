package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

// fuzzStoreConfig and fuzzCeilings need no file system: the root is only
// compared, and the ceilings are rebuilt from recorded scopes.
var fuzzStoreConfig = StoreConfig{Path: "/proj/.rea/grants.json", Root: "/proj"}

func fuzzCeilings(t testing.TB) *Ceilings {
	c, err := CeilingsFromScopes([]Scope{
		{Capability: ProcessCapture, Roots: []string{"/proj"}, Executables: []string{"/usr/bin"},
			EnvironmentNames: []string{"HOME", "LANG"}, Network: NetworkLoopback},
		{Capability: EvidenceRead, Roots: []string{"/proj/evidence"}, Network: NetworkNone},
		{Capability: NativeMount, Network: NetworkNone, Mount: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// FuzzParseStore: the project store is bytes someone else may have written.
// Parsing never panics, every failure is configuration_invalid (invalid), and
// whatever is accepted is canonical, unique, project-lifetime and inside the
// ceilings — so it parses again to the same grants.
func FuzzParseStore(f *testing.F) {
	pid := fuzzStoreConfig.ProjectID()
	f.Add([]byte(`{"schema_version":1,"project_id":"` + pid + `","project_root":"/proj","grants":[]}`))
	f.Add([]byte(`{"schema_version":1,"project_id":"` + pid + `","project_root":"/proj","grants":[{"grant_id":"g1","capability":"process_capture","roots":["/proj/a","/proj"],"executables":["/usr/bin"],"environment_names":["LANG"],"network":"loopback","mount":false,"lifetime":"project","operation_identity":null,"expires_at":"2026-01-01T00:00:00.000Z"}]}`))
	f.Add([]byte(`{"schema_version":1,"project_id":"` + pid + `","project_root":"/proj","grants":[{"grant_id":"m","capability":"native_mount","roots":[],"executables":[],"environment_names":[],"network":"none","mount":true,"lifetime":"project","operation_identity":"x","expires_at":null}]}`))
	f.Add([]byte(`{"schema_version":1,"grants":[`))
	f.Add([]byte(`null`))
	ceilings := fuzzCeilings(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		grants, err := ParseStore(b, fuzzStoreConfig, ceilings)
		if err != nil {
			var fe *fault.Error
			if !fault.Is(err, fault.ConfigurationInvalid) || StoreReason(err) != StoreInvalid {
				t.Fatalf("untyped or wrong failure: %v (%T %v)", err, err, fe)
			}
			return
		}
		seen := map[string]bool{}
		for _, g := range grants {
			if seen[g.GrantID] || g.Lifetime != LifetimeProject || !scopeWithin(&g.Scope, ceilings.ceiling(g.Capability)) {
				t.Fatalf("accepted an invalid grant %+v", g)
			}
			seen[g.GrantID] = true
			if _, err := newEntry(g, LifetimeProject); err != nil {
				t.Fatalf("accepted grant cannot be evaluated: %v", err)
			}
		}
		again, err := validateProjectGrants(grants, ceilings)
		if err != nil || mustJSON(t, again) != mustJSON(t, grants) {
			t.Fatalf("accepted grants are not canonical: %v", err)
		}
	})
}

// FuzzLoadConfig: the *_JSON variables are parsed from the administrator's
// environment. No input panics, every failure is configuration_invalid naming
// the variable, and no error echoes the value.
func FuzzLoadConfig(f *testing.F) {
	f.Add(`["/"]`, `["HOME"]`, "true")
	f.Add(`[]`, `[]`, "false")
	f.Add(`["/nonexistent-root-for-fuzz"]`, `["A B"]`, "yes")
	f.Add(`{"a":1}`, `[1]`, "")
	f.Add(`["relative"]`, `[""]`, "TRUE")
	f.Fuzz(func(t *testing.T, roots, names, flag string) {
		env := map[string]string{
			EnvEvidenceRoots:          roots,
			EnvProcessAllowedEnv:      names,
			EnvProcessCaptureEnabled:  flag,
			EnvProcessWorkingRoots:    `["/"]`,
			EnvProcessExecutableRoots: `["/"]`,
		}
		cfg, err := LoadConfig(env)
		if err != nil {
			if !fault.Is(err, fault.ConfigurationInvalid) {
				t.Fatalf("untyped failure %v", err)
			}
			b, _ := json.Marshal(err)
			msg := string(b) + err.Error()
			for _, v := range []string{roots, names, flag} {
				// Values short enough to appear by accident in fixed copy
				// (a reason name, "true") prove nothing.
				if len(v) >= 12 && strings.Contains(msg, v) {
					t.Fatalf("error echoes a value: %s", msg)
				}
			}
			return
		}
		for _, s := range cfg.Ceilings.Scopes() {
			if _, err := normalizeScope(s); err != nil {
				t.Fatalf("accepted a ceiling outside the vocabulary: %+v", s)
			}
		}
	})
}
