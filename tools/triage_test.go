package tools_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
)

// Issue 17: binary_overview's triage (§18). Concise adds main and
// stripped; detailed adds the triage section, one Evidence record; a
// provider without binary_triage says so instead of guessing.

type overviewTriage struct {
	Main *struct {
		Address string `json:"address"`
		Name    string `json:"name"`
		Source  string `json:"source"`
	} `json:"main"`
	Stripped *bool `json:"stripped"`
	Triage   *struct {
		Identity  map[string]map[string]any `json:"identity"`
		Hardening map[string]map[string]any `json:"hardening"`
		Loading   map[string]any            `json:"loading"`
		Anomalies map[string]any            `json:"anomalies"`
	} `json:"triage"`
}

func TestBinaryOverviewTriage(t *testing.T) {
	bin := compileFixture(t, t.TempDir())
	s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
	s.ok("open_binary", map[string]any{"path": bin})
	mainA := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "main"}))

	concise := result[overviewTriage](t, s.ok("binary_overview", map[string]any{}))
	if concise.Main == nil || concise.Main.Address != mainA || concise.Main.Name != "main" || concise.Main.Source == "" {
		t.Errorf("concise main %+v, procedure_address main %s", concise.Main, mainA)
	}
	if concise.Stripped == nil || *concise.Stripped {
		t.Errorf("concise stripped %v for an unstripped fixture", concise.Stripped)
	}
	if concise.Triage != nil {
		t.Error("concise view carries the triage section")
	}

	r := s.ok("binary_overview", map[string]any{"detail": "detailed"})
	detailed := result[overviewTriage](t, r)
	tr := detailed.Triage
	if tr == nil {
		t.Fatal("detailed view has no triage")
	}
	for _, k := range []string{"format", "architecture", "bitness", "endianness", "entry", "file_type", "interpreter", "build_id", "stripped"} {
		f := tr.Identity[k]
		if f == nil || f["source"] == nil || f["source"] == "" {
			t.Errorf("identity.%s = %v: missing or without source", k, f)
		}
	}
	for _, k := range []string{"pie", "nx", "relro", "stack_protector", "fortify", "cet_ibt", "cet_shstk"} {
		if f := tr.Hardening[k]; f == nil || f["source"] == "" {
			t.Errorf("hardening.%s = %v", k, f)
		}
	}
	// loading is list_dependencies' answer, item for item, with its source.
	var deps struct {
		Result []struct {
			Name          string  `json:"name"`
			CandidatePath *string `json:"candidate_path"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(s.ok("list_dependencies", map[string]any{}).Text), &deps); err != nil {
		t.Fatal(err)
	}
	loading, _ := tr.Loading["dependencies"].([]any)
	if len(loading) == 0 || len(loading) != len(deps.Result) {
		t.Fatalf("loading %v; list_dependencies %+v", tr.Loading, deps.Result)
	}
	for i, it := range loading {
		m, _ := it.(map[string]any)
		want := deps.Result[i]
		if m["name"] != want.Name || m["source"] != "dynamic:DT_NEEDED" || (want.CandidatePath == nil) != (m["candidate_path"] == nil) {
			t.Errorf("loading[%d] = %v, list_dependencies %+v", i, m, want)
		}
	}
	if !slices.ContainsFunc(loading, func(it any) bool { m, _ := it.(map[string]any); return m["name"] == "libc.so.6" }) {
		t.Errorf("loading %v does not name libc.so.6", loading)
	}

	// A provider that does not declare binary_triage: main is null, stripped
	// and triage are not guessed, and the Evidence says why.
	s2 := startWith(t, &noTriageProvider{Provider: builtin.New("test")})
	s2.ok("open_binary", map[string]any{"path": bin})
	r = s2.ok("binary_overview", map[string]any{"detail": "detailed"})
	nt := result[overviewTriage](t, r)
	if nt.Main != nil || nt.Stripped != nil || nt.Triage == nil || len(nt.Triage.Identity) != 0 {
		t.Errorf("without binary_triage: %+v", nt)
	}
	if l := evidenceLimitations(t, r); !slices.ContainsFunc(l, func(l string) bool { return strings.Contains(l, "binary_triage") }) {
		t.Errorf("without binary_triage: limitations %q", l)
	}
}

// noTriageProvider is the builtin provider without binary_triage, as a
// provider that cannot triage (gdb) declares.
type noTriageProvider struct{ *builtin.Provider }

func (p *noTriageProvider) Capabilities() []provider.Capability {
	return slices.DeleteFunc(p.Provider.Capabilities(), func(c provider.Capability) bool { return c.Operation == provider.OpBinaryTriage })
}
