package tools

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/tools/catalog"
)

// TestToolsetsPartitionTheCatalog: every one of the 46 tools is in exactly
// one toolset, and the toolsets are the seven of §0.
func TestToolsetsPartitionTheCatalog(t *testing.T) {
	if got, want := catalog.ToolsetNames(), []string{"triage", "navigate", "annotate", "artifacts", "javascript", "capture", "evidence_files"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("toolsets %v, want %v", got, want)
	}
	seen := map[string]string{}
	for _, m := range catalog.ToolsetMembers() {
		for _, tool := range m.Tools {
			if prev, dup := seen[tool]; dup {
				t.Errorf("%s is in %s and %s", tool, prev, m.Name)
			}
			seen[tool] = m.Name
			if _, ok := Lookup(tool); !ok {
				t.Errorf("toolset %s names %s, which is not a tool", m.Name, tool)
			}
		}
	}
	for _, s := range Catalog() {
		if seen[s.Name] == "" {
			t.Errorf("%s is in no toolset", s.Name)
		}
		if catalog.ToolsetOf(s.Name) != seen[s.Name] {
			t.Errorf("catalog.ToolsetOf(%s) = %q", s.Name, catalog.ToolsetOf(s.Name))
		}
	}
	for _, always := range []string{"open_binary", "close_binary", "binary_session"} {
		if !catalog.Enabled(always, []string{"capture"}) || catalog.ToolsetOf(always) != "triage" {
			t.Errorf("%s must be served under every toolset (and belong to triage)", always)
		}
	}
}

func TestParseToolsets(t *testing.T) {
	got, err := catalog.ParseToolsets(" navigate,triage , navigate", catalog.ToolsetsEnv)
	if err != nil || !reflect.DeepEqual(got, []string{"navigate", "triage"}) {
		t.Fatalf("catalog.ParseToolsets = %v, %v", got, err)
	}
	for _, tc := range []struct{ value, variable, reason string }{
		{"triage,secret-value", catalog.ToolsetsEnv, "unknown_toolset"},
		{"Triage", "", "unknown_toolset"},
		{"triage,,navigate", catalog.ToolsetsEnv, "empty_toolset"},
		{"", "", "empty_toolset"},
	} {
		_, err := catalog.ParseToolsets(tc.value, tc.variable)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.ConfigurationInvalid {
			t.Errorf("%q: %v, want configuration_invalid", tc.value, err)
			continue
		}
		want := map[string]any{"reason": tc.reason}
		if tc.variable != "" {
			want["variable"] = tc.variable
		}
		if !reflect.DeepEqual(fe.Details, want) {
			t.Errorf("%q: details %v, want %v", tc.value, fe.Details, want)
		}
		if strings.Contains(fe.Message+fe.Remediation.Action, "secret-value") {
			t.Errorf("%q: the value is echoed: %s / %s", tc.value, fe.Message, fe.Remediation.Action)
		}
		if !strings.Contains(fe.Remediation.Action, "evidence_files") {
			t.Errorf("%q: remediation does not list the toolsets: %s", tc.value, fe.Remediation.Action)
		}
	}
}

// TestCatalogDigestCoversTheServedTools: tools_sha256 and combined_sha256
// are over the served catalog, so two toolset choices never share a digest.
func TestCatalogDigestCoversTheServedTools(t *testing.T) {
	all, err := CatalogDigests(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all.Tools != CatalogDigest() {
		t.Fatal("the default digests are not the whole catalog's")
	}
	triage, err := CatalogDigests(nil, []string{"triage"})
	if err != nil {
		t.Fatal(err)
	}
	entries := catalogDigestEntries([]string{"triage"})
	want, _ := canon.Digest(entries)
	if triage.Tools != want || triage.Tools == all.Tools || triage.Combined == all.Combined {
		t.Fatalf("triage digests %+v, all %+v", triage, all)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e["name"].(string))
	}
	if len(names) != 13 || !slices.Contains(names, "get_evidence_bundle") || slices.Contains(names, "xrefs") {
		t.Fatalf("triage digest entries %v", names)
	}
}
